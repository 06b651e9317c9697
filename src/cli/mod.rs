//! The command line: the measurement's options (run under `mpirun`, no subcommand) and the
//! subcommands, one file of arguments each. Nothing here does a command's work (that is
//! `commands/`): each file only parses and turns its arguments into the options of the plan
//! or the run side.

mod algorithms;
mod analyze;
mod arrivals;
mod check_kernels;
mod clock_args;
mod clocksync;
mod compare;
mod completions;
mod export;
mod groups;
mod headings;
mod info;
mod launches;
mod man;
mod measure;
mod noise;
mod parsers;
mod plot;
mod schemes;
mod simulate;
mod skew;
#[cfg(test)]
mod tests;
mod tune;

pub use algorithms::AlgorithmsArgs;
pub use analyze::AnalyzeArgs;
pub use arrivals::ArrivalsArgs;
pub use check_kernels::CheckKernelsArgs;
pub use clock_args::ClockArgs;
pub use clocksync::{ClockSyncEvalArgs, SimulateArgs, DEFAULT_SIM_PROCS};
pub use compare::CompareArgs;
pub use completions::CompletionsArgs;
pub use export::ExportArgs;
pub use groups::{BootstrapArgs, SelectArgs, TimesArgs};
pub use info::InfoArgs;
pub use launches::LaunchesArgs;
pub use man::ManArgs;
pub use measure::MeasureArgs;
pub use noise::NoiseArgs;
pub use parsers::{DelayList, WindowArg};
pub use plot::PlotArgs;
pub use schemes::SchemesArgs;
pub use simulate::SimulationArgs;
pub use skew::SkewArgs;
pub use tune::TuneArgs;

use clap::{Parser, Subcommand};

/// Measure how MPI collectives behave under late arrivals.
///
/// Run the measurement under MPI (`mpirun -np 4 delaybench --delay-rank 0 --delay 50us`);
/// analyse, export and plot its records file without MPI. `-h` shows the options most runs
/// need; `--help` every option, under the same headings; the manual pages (`delaybench
/// man --dir`) add delaybench-metrics(7) and delaybench-clock-sync(7).
#[derive(Debug, Parser)]
#[command(
    name = "delaybench",
    version = crate::build_info::version_line(),
    args_conflicts_with_subcommands = true,
    // `delaybench CMD -h` does what `delaybench help CMD` would, and the line it takes keeps
    // `-h` within one screen.
    disable_help_subcommand = true,
    // One usage line for the two forms, so that `-h` with every subcommand listed stays
    // within one screen.
    override_usage = "delaybench [OPTIONS]  |  delaybench <COMMAND>",
    after_long_help = crate::exit::EXIT_STATUS_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub measure: MeasureArgs,
}

impl Cli {
    /// Warnings about how the options were written (a size with a decimal unit), for one
    /// rank to print before anything is measured.
    pub fn unit_warnings(&self) -> Vec<String> {
        match &self.command {
            None => self.measure.unit_warnings(),
            Some(Command::Schemes(args)) => args.sizes.decimal_notes.clone(),
            Some(_) => Vec::new(),
        }
    }
}

/// The subcommands; without one, the measurement runs (under mpirun).
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Statistics per configuration: t_global, cost, benefit, with bootstrap intervals.
    ///
    /// Per (op, bytes, P, delay): the t_global distribution, bootstrap intervals, the cost
    /// t_delta - t0 and the delay overlap benefit with their intervals, the ceiling. Several
    /// records files of one plan (several launches) are pooled and their between-launch
    /// spread reported. The metrics are defined in delaybench-metrics(7).
    Analyze(AnalyzeArgs),
    /// N launches of one measurement into one folder, then the analysis over the launches.
    ///
    /// Runs the launcher command given after `--` (mpirun, srun, ...) N times, one after the
    /// other, each into its own records file of one folder, then prints the summary table
    /// decided over the launches (hierarchical bootstrap) and draws the figures into the
    /// folder's `report/`. Results differ from one launch to the next by more than one
    /// launch's repetitions show (Hunold and Carpen-Amarie 2016); an interrupted series
    /// keeps the launches it finished.
    Launches(LaunchesArgs),
    /// Two records files side by side: median t_global and benefit, their difference; or two
    /// captures of an application: the time in each call site's collectives, before and after.
    ///
    /// The same configurations from both files: median t_global and benefit with their
    /// intervals, and the difference B − A with the interval of the difference. Given two
    /// capture folders, the same call sites of both runs: the median time in the call, the
    /// difference with its interval, decided over all sites together.
    Compare(CompareArgs),
    /// Rows of a records file (CSV, JSON, Parquet): per rank and repetition, or per repetition.
    ///
    /// One row per (configuration, repetition, rank) with local and global times in seconds,
    /// or one per repetition with t_global (--rows rep). A noise file gives one row per
    /// detour.
    Export(ExportArgs),
    /// A records file's header made readable: plan, clock sync, machines, how the run ended.
    ///
    /// Run id, git revision, tags, plan, clock sync, wait and window rules, machines and
    /// their MPI environment; its block count and how the run ended (footer, or what an
    /// interrupted run left).
    Info(InfoArgs),
    /// What a capture of an application says: arrival spread, late ranks, waiting per site.
    ///
    /// Reads the per-rank files of libdelaybench_capture.so (LD_PRELOAD'ed into an MPI
    /// application): per call site the calls, arrival spread, Faraj-Patarasuk-Yuan
    /// imbalance, last ranks and the waiting by Scalasca's wait states; per rank the time
    /// spent waiting.
    Arrivals(ArrivalsArgs),
    /// Figures (PNG and SVG) and a report page (index.md) of records files.
    ///
    /// Benefit and t_global vs P, t_global vs size, per-rank timeline, distribution,
    /// t_global over the run, per-rank heatmaps, benefit distribution. Several records
    /// files of one plan are pooled (statistics over all launches, plus their spread). A
    /// `clocksync` CSV gives the clock error figure instead, a noise file the noise figures.
    Plot(PlotArgs),
    /// Under MPI: evaluate clock synchronisation methods (time taken, clock error after waits).
    ///
    /// Sync time and clock error right after the sync and after waits (Hunold and
    /// Carpen-Amarie 2015, §7); with --simulate, offline in an event-driven simulator. The
    /// methods are described in delaybench-clock-sync(7).
    Clocksync(ClockSyncEvalArgs),
    /// The measurement's plan in simulated time: SimGrid's SMPI or LogGOPS (no MPI needed).
    ///
    /// Writes an ordinary records file marked as simulated (engine, version, platform or
    /// parameters, collective selector, noise source), which every offline command reads.
    Simulate(SimulationArgs),
    /// The MPI library's own tuning file for an arrival pattern, from algorithm sweeps.
    ///
    /// Open MPI 4.1 coll_tuned rules or MPICH 4.0 selection JSON: per collective, P and
    /// message-size range the fastest algorithm where it beats the library's own choice
    /// significantly; --verify checks that the library obeys it.
    Tune(TuneArgs),
    /// Under MPI: exit skew of MPI_Barrier and of a dissemination barrier, on the global clock.
    ///
    /// The skew of delaybench's own dissemination barrier beside MPI_Barrier's (Hunold and
    /// Carpen-Amarie 2015, Figure 4).
    Skew(SkewArgs),
    /// Under MPI: one operation timed by every published timing scheme, side by side.
    ///
    /// Barrier + max, pipelined loop, barrier in the loop, window t_global; for bcast also
    /// de Supinski's OL_i, broadcast rounds and broadcast-barrier.
    Schemes(SchemesArgs),
    /// Under MPI: the machine's own noise on every rank at once, on the global clock.
    ///
    /// A selfish-detour loop (or FWQ, FTQ) records every detour above a threshold into a
    /// noise file, reports detours per second, time lost, the longest and correlated
    /// detours per rank, host and in total, and draws them.
    Noise(NoiseArgs),
    /// Under MPI: the MPI library's collective algorithms that MPI_T can select.
    ///
    /// Every control variable of the running MPI library that selects a collective
    /// algorithm (found through MPI_T), with its values by name, its scope, whether it can
    /// be written at run time and the kernels it applies to; `--algorithms` of the
    /// measurement sweeps them.
    Algorithms(AlgorithmsArgs),
    /// Under MPI, a check rather than a measurement: runs each reduction kernel (by default
    /// the `ref:*` reference algorithms) on rank-dependent values and compares every element
    /// with MPI_Allreduce's; exit 0 when all agree, 1 with the first mismatches otherwise.
    #[command(hide = true)]
    CheckKernels(CheckKernelsArgs),
    /// Print the manual pages (roff): `delaybench man | man -l -`, or all with --dir.
    ///
    /// Without --dir, the page of delaybench(1) on stdout; with --dir, one page per command
    /// (delaybench.1, delaybench-analyze.1, ...) and the section-7 pages
    /// (delaybench-metrics.7, delaybench-clock-sync.7), their paths printed.
    Man(ManArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    ///
    /// For example `delaybench completions bash >
    /// ~/.local/share/bash-completion/completions/delaybench`.
    Completions(CompletionsArgs),
}
