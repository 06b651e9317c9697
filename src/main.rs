//! The `delaybench` binary: measurement under MPI, or an offline subcommand.

use anyhow::{Context, Result};
use clap::{CommandFactory, FromArgMatches, Parser};
use delaybench::analysis::summarize;
use delaybench::cli::{Cli, Command};
use delaybench::export::{summary_exporter, write_rank_rows};
use delaybench::plot::write_figures;
use delaybench::records::read_records;
use delaybench::study::Study;
use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    let (cli, study) = match parse(&argv) {
        Ok(parsed) => parsed,
        Err(Refused::Clap(e)) => {
            // Every rank parses the same arguments: let one of them speak.
            if launched_as_rank_zero() {
                let _ = e.print();
            }
            return ExitCode::from(e.exit_code() as u8);
        }
        Err(Refused::Study(e)) => {
            if launched_as_rank_zero() {
                eprintln!("delaybench: error: {e}");
            }
            return ExitCode::from(2);
        }
    };
    match cli.command {
        None => delaybench::run::main(cli.measure, study.map(|s| s.text)),
        Some(command) => match offline(command) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("delaybench: error: {e:#}");
                ExitCode::FAILURE
            }
        },
    }
}

enum Refused {
    Clap(clap::Error),
    Study(delaybench::study::StudyError),
}

/// Parses the command line; with `--config`, the study file's keys fill in what the command
/// line leaves out.
fn parse(argv: &[String]) -> Result<(Cli, Option<Study>), Refused> {
    let cmd = Cli::command();
    let matches = cmd
        .clone()
        .try_get_matches_from(argv)
        .map_err(Refused::Clap)?;
    let cli = Cli::from_arg_matches(&matches).map_err(Refused::Clap)?;
    let Some(path) = cli.measure.config.clone().filter(|_| cli.command.is_none()) else {
        return Ok((cli, None));
    };
    let study = Study::load(&path, &cmd).map_err(Refused::Study)?;
    let merged = study.merge_into(argv, &cmd, &matches);
    let cli = Cli::try_parse_from(&merged).map_err(Refused::Clap)?;
    Ok((cli, Some(study)))
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
