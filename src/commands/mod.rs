//! What each command does, one file per command: the work behind the command line of
//! `cli/`. Every subcommand's arguments implement [`Run`] in their file here, and the one
//! registry below dispatches every [`Command`] variant; the commands that need MPI ranks are
//! listed apart, so that a build without MPI refuses them with the same words.
//!
//! Adding a subcommand: its arguments in `cli/<name>.rs` and a variant of [`Command`], its
//! `impl Run` in `commands/<name>.rs`, and its name in the `registry!` call below.

mod analyze;
mod arrivals;
mod bad_input;
mod clocksync;
mod clocksync_simulate;
mod compare;
mod completions;
mod export;
mod info;
mod launches;
mod man;
mod measure;
mod plot;
mod reading;
mod simulate;
mod tune;

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

#[cfg(test)]
use crate::cli::{
    AlgorithmsArgs, AnalyzeArgs, ArrivalsArgs, CheckKernelsArgs, ClockSyncEvalArgs, CompareArgs,
    CompletionsArgs, ExportArgs, InfoArgs, LaunchesArgs, ManArgs, NoiseArgs, PlotArgs, SchemesArgs,
    SimulationArgs, SkewArgs, TuneArgs,
};
use crate::cli::{Cli, Command};
use crate::exit::{is_broken_pipe, said_once, BAD_INPUT_EXIT};
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
/// name here that is no subcommand, or a variant without help of its own, fails
/// `every_subcommand_is_registered_and_described`.
macro_rules! registry {
    (
        always: [$($always:ident($always_args:ty)),* $(,)?],
        mpi: [$($mpi:ident($mpi_args:ty)),* $(,)?] $(,)?
    ) => {
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

        /// Every registered variant: its name, whether it needs MPI, and the help its
        /// arguments' type alone would give (what clap shows when the variant has no doc).
        #[cfg(test)]
        fn registered() -> Vec<(&'static str, bool, Option<String>)> {
            fn fallback<T: clap::Args>() -> Option<String> {
                T::augment_args(clap::Command::new("x"))
                    .get_about()
                    .map(|a| a.to_string())
            }
            vec![
                $((stringify!($always), false, fallback::<$always_args>()),)*
                $((stringify!($mpi), true, fallback::<$mpi_args>()),)*
            ]
        }
    };
}

registry! {
    always: [
        Analyze(AnalyzeArgs),
        Launches(LaunchesArgs),
        Compare(CompareArgs),
        Export(ExportArgs),
        Info(InfoArgs),
        Arrivals(ArrivalsArgs),
        Plot(PlotArgs),
        Clocksync(ClockSyncEvalArgs),
        Simulate(SimulationArgs),
        Tune(TuneArgs),
        Man(ManArgs),
        Completions(CompletionsArgs),
    ],
    mpi: [
        Skew(SkewArgs),
        Schemes(SchemesArgs),
        Noise(NoiseArgs),
        Algorithms(AlgorithmsArgs),
        CheckKernels(CheckKernelsArgs),
    ],
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
/// (`delaybench export run.cbor | head`), else the error and its causes, each said once, and
/// 2 when the input was bad ([`bad_input::is_bad_input`]: a missing or unreadable input file
/// among them), 1 for a failure while running.
pub fn finish(done: anyhow::Result<()>) -> ExitCode {
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(e.as_ref()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("delaybench: error: {}", said_once(e.as_ref()));
            if bad_input::is_bad_input(e.as_ref()) {
                ExitCode::from(BAD_INPUT_EXIT)
            } else {
                ExitCode::FAILURE
            }
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
        let registered = registered();
        let names: Vec<String> = registered.iter().map(|r| subcommand_name(r.0)).collect();
        let unique: BTreeSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "registered twice: {names:?}");
        let subcommands: BTreeSet<String> = cli
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .filter(|n| n != "help")
            .collect();
        assert_eq!(
            subcommands,
            names.iter().cloned().collect::<BTreeSet<_>>(),
            "the subcommands of cli/ and the registry of commands/ differ"
        );
        for ((_, needs_mpi, fallback), name) in registered.iter().zip(&names) {
            let sub = cli.find_subcommand(name).unwrap();
            let about = sub.get_about().map(|a| a.to_string());
            // Without a doc comment on its variant, clap shows the arguments' own doc.
            assert!(
                about.as_ref().is_some_and(|a| a.len() > 20) && about != *fallback,
                "`delaybench {name}` has no help text of its own: write a doc comment on its \
                 Command variant ({about:?})"
            );
            // Commands that need MPI say so first; clocksync does too, but --simulate needs
            // none, so it is registered for every build and refuses the rest itself.
            let says_mpi = about.unwrap().starts_with("Under MPI");
            assert!(
                says_mpi == *needs_mpi || name == "clocksync",
                "{name}: registered as needing MPI: {needs_mpi}, its help says so: {says_mpi}"
            );
        }
    }

    #[test]
    fn variant_names_become_subcommand_names() {
        assert_eq!(subcommand_name("CheckKernels"), "check-kernels");
        assert_eq!(subcommand_name("Skew"), "skew");
    }
}
