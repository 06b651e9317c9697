//! The arguments of `delaybench noise` (run under mpirun).

use super::clock_args::ClockArgs;
use super::parsers::parse_positive_duration;
use crate::clock::ClockSyncMethod;
use crate::delay::DetourSpec;
use crate::export::{Format, TABLES};
use crate::plan::ClockSource;
#[cfg(feature = "mpi")]
use crate::run::NoiseOptions;
use clap::Args;
use std::path::PathBuf;

/// Options of `delaybench noise` (run under mpirun).
#[derive(Debug, Clone, Args)]
pub struct NoiseArgs {
    /// How long every rank runs its noise loop (e.g. 10s).
    #[arg(long, value_parser = parse_positive_duration, default_value = "10s")]
    pub duration: f64,
    /// Detours longer than this are recorded (e.g. 2us); it must exceed the loop's own cost.
    #[arg(long, value_parser = parse_positive_duration, default_value = "2us")]
    pub threshold: f64,
    /// The loop: selfish (selfish detour, consecutive clock reads), fwq (fixed work quanta)
    /// or ftq (fixed time quanta).
    #[arg(long, value_enum, default_value = "selfish")]
    pub variant: crate::noise::NoiseVariant,
    /// fwq: work per quantum, as time; ftq: the quantum [default: 10us for fwq, 100us for ftq].
    #[arg(long, value_parser = parse_positive_duration)]
    pub quantum: Option<f64>,
    /// Clock synchronisation method for the global clock.
    #[arg(long, value_enum, default_value = "treefit")]
    pub clock_sync: ClockSyncMethod,
    #[command(flatten)]
    pub params: ClockArgs,
    /// Clock: monotonic (clock_gettime CLOCK_MONOTONIC) or wtime (MPI_Wtime).
    #[arg(long, value_enum, default_value = "monotonic")]
    pub clock: ClockSource,
    /// Noise file [default: `results/noise-<UTC time, µs>-<pid>.cbor`]. Never overwritten.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Directory for the figures (noise_timeline, noise_ecdf) [default: the noise file's
    /// folder, beside it with its stem: `results/noise-<...>/`]. It must be missing or
    /// empty: figures are never overwritten.
    #[arg(long, conflicts_with = "no_figures")]
    pub figures: Option<PathBuf>,
    /// Draw no figures.
    #[arg(long)]
    pub no_figures: bool,
    /// The report: table on stdout, or CSV, JSON, Markdown.
    #[arg(long, value_parser = Format::parser(TABLES), default_value = "table")]
    pub format: Format,
    /// A self-check: inject these periodic detours (FREQ,DURATION as for --detour) into the
    /// loop of --inject-rank, to see the loop find them at that rate and length.
    #[arg(long, requires = "inject_rank")]
    pub inject_detour: Option<DetourSpec>,
    /// The world rank that gets --inject-detour.
    #[arg(long, requires = "inject_detour")]
    pub inject_rank: Option<u32>,
}

/// The run side's plain options: it never sees a command-line type.
#[cfg(feature = "mpi")]
impl From<NoiseArgs> for NoiseOptions {
    fn from(a: NoiseArgs) -> Self {
        NoiseOptions {
            params: a.params.params(),
            emulate_clock: a.params.emulate_clock,
            duration: a.duration,
            threshold: a.threshold,
            variant: a.variant,
            quantum: a.quantum,
            clock_sync: a.clock_sync,
            clock: a.clock,
            output: a.output,
            figures: a.figures,
            no_figures: a.no_figures,
            format: a.format,
            inject_detour: a.inject_detour,
            inject_rank: a.inject_rank,
        }
    }
}
