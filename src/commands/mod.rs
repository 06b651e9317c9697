//! What each command does, one file per command: the work behind the command line of
//! `cli/`. Every subcommand's arguments implement [`Run`] in their file here, and the one
//! registry below dispatches every [`Command`] variant; the commands that need MPI ranks are
//! listed apart, so that a build without MPI refuses them with the same words.
//!
//! Adding a subcommand: its arguments in `cli/<name>.rs` and a variant of [`Command`], its
//! `impl Run` in `commands/<name>.rs`, and its name in the `registry!` call below.

mod analyze;
mod arrivals;
mod clocksync;
mod clocksync_simulate;
mod compare;
mod completions;
mod export;
mod info;
mod man;
mod measure;
mod plot;
mod reading;
mod simulate;

#[cfg(feature = "mpi")]
mod algorithms;
#[cfg(feature = "mpi")]
mod check_kernels;
#[cfg(feature = "mpi")]
mod noise;
#[cfg(feature = "mpi")]
mod schemes;
#[cfg(feature = "mpi")]
mod skew;

use crate::cli::{Cli, Command};
use crate::exit::{is_broken_pipe, said_once};
use crate::plan::config_file::Study;
use std::process::ExitCode;

/// What a subcommand does with its parsed arguments; the exit code is the binary's.
pub trait Run {
    /// Runs the command to its end. Errors are said on stderr by the command itself (see
    /// [`finish`]) and show in the exit code.
    fn run(self) -> ExitCode;
}

/// Runs what the command line asks for: its subcommand, or without one the measurement
/// (`study` is the study file `--config` named, already merged into `cli`).
pub fn dispatch(cli: Cli, study: Option<Study>) -> ExitCode {
    match cli.command {
        None => measure::run(&cli.measure, study),
        Some(command) => dispatch_command(command),
    }
}

/// The registry: `always` lists the commands of every build (`clocksync` among them, since
/// `--simulate` needs no MPI; it refuses the rest itself), `mpi` those that need MPI ranks,
/// refused in a build without MPI. A [`Command`] variant missing here does not compile; a
/// name here that is no subcommand fails `every_subcommand_is_registered_and_described`.
macro_rules! registry {
    (always: [$($always:ident),* $(,)?], mpi: [$($mpi:ident),* $(,)?] $(,)?) => {
        fn dispatch_command(command: Command) -> ExitCode {
            match command {
                $(Command::$always(args) => args.run(),)*
                $(
                    #[cfg(feature = "mpi")]
                    Command::$mpi(args) => args.run(),
                    #[cfg(not(feature = "mpi"))]
                    Command::$mpi(_) => {
                        needs_mpi(&format!("`{}` needs", subcommand_name(stringify!($mpi))))
                    }
                )*
            }
        }

        /// The registered variants, by name, for the registry's test.
        #[cfg(test)]
        const REGISTERED: (&[&str], &[&str]) = (&[$(stringify!($always)),*], &[$(stringify!($mpi)),*]);
    };
}

registry! {
    always: [Analyze, Compare, Export, Info, Arrivals, Plot, Clocksync, Simulate, Man, Completions],
    mpi: [Skew, Schemes, Noise, Algorithms, CheckKernels],
}

/// The subcommand name clap derives from a variant name: `CheckKernels` → `check-kernels`.
#[cfg(any(test, not(feature = "mpi")))]
fn subcommand_name(variant: &str) -> String {
    let mut name = String::new();
    for (i, c) in variant.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            name.push('-');
        }
        name.push(c.to_ascii_lowercase());
    }
    name
}

/// The exit of an offline command: 0 when it succeeded or its output was closed early
/// (`delaybench export run.cbor | head`), else 1 with the error and its causes, each said
/// once.
pub fn finish(done: anyhow::Result<()>) -> ExitCode {
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(e.as_ref()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("delaybench: error: {}", said_once(e.as_ref()));
            ExitCode::FAILURE
        }
    }
}

/// A command that needs MPI ranks, in a binary built without MPI: the command line parsed as
/// in the full build, but nothing can be measured, so say what to do instead. `what` names
/// the command: "`skew` needs".
#[cfg(not(feature = "mpi"))]
fn needs_mpi(what: &str) -> ExitCode {
    if launched_as_rank_zero() {
        eprintln!(
            "delaybench: error: {what} MPI, and this delaybench was built without MPI (cargo \
             build --no-default-features): rebuild with the default features on a machine with \
             MPI to measure (scripts/setup.sh, then cargo build --release). This build runs the \
             offline commands: analyze, compare, export, plot, info, completions, man, clocksync \
             --simulate."
        );
    }
    ExitCode::FAILURE
}

/// Whether this process is rank 0 (or not under a launcher), read from the launcher's
/// environment because MPI is not initialised yet when arguments are parsed.
pub fn launched_as_rank_zero() -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use std::collections::BTreeSet;

    #[test]
    fn every_subcommand_is_registered_and_described() {
        let cli = Cli::command();
        let (always, mpi) = REGISTERED;
        let registered: Vec<String> = always
            .iter()
            .chain(mpi)
            .map(|v| subcommand_name(v))
            .collect();
        let unique: BTreeSet<&String> = registered.iter().collect();
        assert_eq!(
            unique.len(),
            registered.len(),
            "registered twice: {registered:?}"
        );
        let subcommands: BTreeSet<String> = cli
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .filter(|n| n != "help")
            .collect();
        let registered: BTreeSet<String> = registered.into_iter().collect();
        assert_eq!(
            subcommands, registered,
            "the subcommands of cli/ and the registry of commands/ differ"
        );
        for sub in cli.get_subcommands() {
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            assert!(
                about.len() > 20,
                "`delaybench {}` has no help text (a doc comment on its Command variant)",
                sub.get_name()
            );
        }
        // A command registered as needing MPI says so in its help.
        for name in mpi.iter().map(|v| subcommand_name(v)) {
            let sub = cli.find_subcommand(&name).unwrap();
            let about = sub.get_about().unwrap().to_string();
            assert!(about.starts_with("Under MPI"), "{name}: {about}");
        }
    }

    #[test]
    fn variant_names_become_subcommand_names() {
        assert_eq!(subcommand_name("CheckKernels"), "check-kernels");
        assert_eq!(subcommand_name("Skew"), "skew");
    }
}
