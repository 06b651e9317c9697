//! `delaybench info`: a records file's header made readable, or a noise file's report.

use super::{finish, Run};
use crate::analysis::noise_report;
use crate::cli::InfoArgs;
use crate::export::{write_noise_report, ExportError, Format};
use crate::info::{noise_text, RunInfo};
use crate::records::noise::{is_noise_file, read_noise};
use crate::records::provenance::recorded_env;
use anyhow::{Context, Result};
use std::io::Write;
use std::process::ExitCode;

impl Run for InfoArgs {
    fn run(self) -> ExitCode {
        finish(info(self))
    }
}

fn info(args: InfoArgs) -> Result<()> {
    let InfoArgs { file, format } = args;
    if is_noise_file(&file) {
        let run = read_noise(&file).with_context(|| format!("reading {}", file.display()))?;
        let mut out = std::io::stdout().lock();
        if format == Format::Table {
            let _ = out.write_all(noise_text(&run).as_bytes());
        }
        let report = noise_report(&run.ranks);
        match write_noise_report(&report, format, &mut out) {
            Err(ExportError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            r => r.context("cannot print the noise report")?,
        }
        return Ok(());
    }
    let mut info = RunInfo::read(&file).with_context(|| format!("reading {}", file.display()))?;
    // Files written before launch addresses were redacted still hold them: what `info`
    // prints is shared as the files are, so it redacts them as a run now does.
    for m in &mut info.header.provenance.machines {
        m.env = recorded_env(std::mem::take(&mut m.env));
    }
    // A closed pipe (`| head`) is no error for a printer.
    match info.write(format, &mut std::io::stdout().lock()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot print the info")
        }
        _ => Ok(()),
    }
}
