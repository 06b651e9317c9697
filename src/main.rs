//! The `delaybench` binary: measurement under MPI, or an offline subcommand.

use anyhow::{Context, Result};
use clap::Parser;
use delaybench::analysis::summarize;
use delaybench::cli::{Cli, Command};
use delaybench::export::{summary_exporter, write_rank_rows};
use delaybench::plot::write_figures;
use delaybench::records::read_records;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Every rank parses the same arguments: let one of them speak.
            if launched_as_rank_zero() {
                let _ = e.print();
            }
            return ExitCode::from(e.exit_code() as u8);
        }
    };
    match cli.command {
        None => delaybench::run::main(cli.measure),
        Some(command) => match offline(command) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("delaybench: error: {e:#}");
                ExitCode::FAILURE
            }
        },
    }
}

/// Whether this process is rank 0 (or not under a launcher), read from the launcher's
/// environment because MPI is not initialised yet when arguments are parsed.
fn launched_as_rank_zero() -> bool {
    [
        "OMPI_COMM_WORLD_RANK",
        "PMIX_RANK",
        "PMI_RANK",
        "SLURM_PROCID",
    ]
    .iter()
    .find_map(|v| std::env::var(v).ok())
    .is_none_or(|r| r.trim() == "0")
}

fn offline(command: Command) -> Result<()> {
    match command {
        Command::Analyze { file, format } => {
            let records = read(&file)?;
            let rows = summarize(&records);
            summary_exporter(format).write(&rows, &mut std::io::stdout().lock())?;
        }
        Command::Export { file, format } => {
            let records = read(&file)?;
            write_rank_rows(&records, format, &mut std::io::stdout().lock())?;
        }
        Command::Plot { file, out, stat } => {
            let records = read(&file)?;
            let paths = write_figures(&summarize(&records), &out, stat)?;
            for p in paths {
                println!("{}", p.display());
            }
        }
    }
    Ok(())
}

/// Reads a records file, warning on stderr when the run was interrupted.
fn read(file: &std::path::Path) -> Result<delaybench::records::Records> {
    let records = read_records(file).with_context(|| format!("reading {}", file.display()))?;
    if !records.complete() {
        eprintln!(
            "delaybench: warning: {} is from an interrupted run: {} complete blocks recovered",
            file.display(),
            records.blocks.len()
        );
    }
    Ok(records)
}
