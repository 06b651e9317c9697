//! `delaybench man`: the manual page, or one page per command into a folder.

use super::{finish, Run};
use crate::cli::{Cli, ManArgs};
use anyhow::{Context, Result};
use clap::CommandFactory;
use std::io::Write;
use std::process::ExitCode;

impl Run for ManArgs {
    fn run(self) -> ExitCode {
        finish(man(self))
    }
}

fn man(args: ManArgs) -> Result<()> {
    let out = &mut std::io::stdout().lock();
    match args.dir {
        None => {
            // Rendered into memory first, so a closed pipe is one write error.
            let mut page = Vec::new();
            clap_mangen::Man::new(Cli::command()).render(&mut page)?;
            out.write_all(&page)?;
        }
        Some(dir) => {
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            clap_mangen::generate_to(Cli::command(), &dir)
                .with_context(|| format!("cannot write the pages into {}", dir.display()))?;
            let mut pages: Vec<_> = std::fs::read_dir(&dir)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("delaybench") && n.ends_with(".1"))
                })
                .collect();
            pages.sort();
            for p in pages {
                writeln!(out, "{}", p.display())?;
            }
        }
    }
    Ok(())
}
