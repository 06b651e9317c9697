//! `delaybench arrivals`: what a capture of an application says about its arrivals.

use super::reading::read_matched;
use super::{finish, Run};
use crate::analysis::arrivals::report;
use crate::analysis::causes::Causes;
use crate::capture::site_names;
use crate::cli::ArrivalsArgs;
use crate::exit::BadInput;
use crate::export::{write_arrivals, write_capture_archive, ExportError, Format};
use crate::plot::{announce, arrivals_dir, write_arrivals_figures};
use anyhow::{Context, Result};
use std::path::Path;
use std::process::ExitCode;

impl Run for ArrivalsArgs {
    fn run(self) -> ExitCode {
        finish(arrivals(self))
    }
}

fn arrivals(args: ArrivalsArgs) -> Result<()> {
    let ArrivalsArgs {
        files,
        format,
        rows,
        message_time,
        figures,
        no_figures,
        top,
        what_if,
        modules,
        output,
    } = args;
    let archive = match (format, output) {
        (Format::Otf2, Some(dir)) => {
            crate::output_name::check_fresh_dir(&dir, "--output DIR").map_err(BadInput)?;
            Some(dir)
        }
        (Format::Otf2, None) => {
            return Err(BadInput(
                "--format otf2 writes an archive, a directory: give it with --output DIR".into(),
            )
            .into())
        }
        (_, Some(_)) => {
            return Err(BadInput("--output is the directory of --format otf2 only".into()).into())
        }
        (_, None) => None,
    };
    // A folder the user named must take the figures: refused before anything is read.
    if let Some(dir) = &figures {
        fresh_figures_dir(dir).map_err(BadInput)?;
    }
    let (captures, matched) = read_matched(&files, "")?;
    let report = report(&matched, message_time);
    let names = site_names(&captures, &modules);
    let name = |key: &str| names.get(key).cloned().unwrap_or_else(|| key.to_owned());
    let mut causes = Causes::new(&captures, &matched, &name);
    let asked = if what_if.is_empty() {
        // The largest cause that is a region between calls (the what-if shortens regions,
        // not the time inside a call), when there is one.
        causes
            .report
            .causes
            .iter()
            .find(|c| causes.is_region(c.region))
            .map(|c| (c.rank, c.region))
            .into_iter()
            .collect()
    } else {
        what_if
    };
    for (rank, region) in asked {
        causes.what_if(rank, region).map_err(BadInput)?;
    }
    if let Some(dir) = archive {
        let wrote = write_capture_archive(&captures, &matched, &causes.report, &dir)?;
        eprintln!(
            "delaybench: wrote {}: {} locations, {} regions entered, {} collectives",
            dir.join("traces.otf2").display(),
            wrote.locations,
            wrote.enters,
            wrote.collectives
        );
        return Ok(());
    }
    let figures_dir =
        (!no_figures).then(|| figures.clone().unwrap_or_else(|| arrivals_dir(&files[0])));
    match write_arrivals(
        &matched,
        &report,
        &causes.report,
        format,
        rows,
        top,
        &mut std::io::stdout().lock(),
    ) {
        Err(ExportError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.context("cannot print the arrivals report")?,
    }
    if let Some(dir) = figures_dir {
        // The default folder of an earlier report is left as it is.
        if let Err(e) = fresh_figures_dir(&dir) {
            eprintln!("delaybench: warning: no figures: {e}");
        } else {
            for p in write_arrivals_figures(&captures, &matched, &report, &causes.report, &dir)? {
                eprintln!("delaybench: {}", announce(&p));
            }
        }
    }
    Ok(())
}

/// Checks that `dir` may take the figures of `arrivals`: missing or empty; else a message
/// that names it and the way out.
fn fresh_figures_dir(dir: &Path) -> Result<(), String> {
    crate::output_name::check_fresh_dir(dir, "--figures DIR").map_err(|e| {
        if dir.is_dir() {
            format!(
                "{} already holds files (an earlier report's figures?) and figures are never \
                 overwritten: remove it, or name another folder with --figures DIR",
                dir.display()
            )
        } else {
            e
        }
    })
}
