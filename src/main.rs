//! The `delaybench` binary: parse the command line (a study file's keys filling in what it
//! leaves out), say the warnings about how it was written, and run the command it names
//! (`delaybench::commands`), the measurement under MPI when it names none.

use clap::{CommandFactory, FromArgMatches};
use delaybench::cli::Cli;
use delaybench::commands::{dispatch, launched_as_rank_zero};
use delaybench::plan::config_file::{Study, StudyError};
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
    if launched_as_rank_zero() {
        for w in cli.unit_warnings() {
            eprintln!("delaybench: warning: {w}");
        }
    }
    dispatch(cli, study)
}

/// Why the command line was refused before anything ran.
enum Refused {
    Clap(clap::Error),
    Study(StudyError),
}

/// Parses the command line; with `--config`, the study file's keys fill in what the command
/// line leaves out.
fn parse(argv: &[String]) -> Result<(Cli, Option<Study>), Refused> {
    let cmd = Cli::command();
    let matches = cmd
        .clone()
        .try_get_matches_from(argv)
        .map_err(Refused::Clap)?;
    let mut cli = Cli::from_arg_matches(&matches).map_err(Refused::Clap)?;
    cli.measure.note_given(&matches);
    let Some(path) = cli.measure.config.clone().filter(|_| cli.command.is_none()) else {
        return Ok((cli, None));
    };
    let study = Study::load(&path, &cmd).map_err(Refused::Study)?;
    let merged = study.merge_into(argv, &cmd, &matches);
    let matches = cmd.try_get_matches_from(&merged).map_err(Refused::Clap)?;
    let mut cli = Cli::from_arg_matches(&matches).map_err(Refused::Clap)?;
    cli.measure.note_given(&matches);
    Ok((cli, Some(study)))
}
