//! Command line: measurement options (run under `mpirun`) and the offline subcommands.

use crate::analysis::{Bootstrap, TimingMethod};
use crate::clock::{ClockSyncMethod, ClockSyncParams, EmulationSpec};
use crate::delay::{parse_delay_list, DelayModel, DetourArg, DetourSpec, RankSelection};
use crate::export::{ExportRows, Format, ALGORITHMS, ARRIVALS, EXPORTS, INFO, TABLES};
use crate::plan::{
    AdaptiveSpec, ClockSource, Op, OverlapMode, OverlapSpec, Plan, ReplayRequest, Request,
    RunOptions, Subcomm, SyncMethod,
};
use crate::plot::{FigureKind, Stat};
use crate::records::Tag;
use crate::timeline::GlobalTimes;
use crate::units::{parse_duration_s, Size, SizeList};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Measure how MPI collectives behave under late arrivals.
///
/// Run the measurement under MPI (`mpirun -np 4 delaybench --delay-rank 0 --delay 50us`);
/// analyse, export and plot its records file without MPI.
#[derive(Debug, Parser)]
#[command(
    name = "delaybench",
    version = crate::build_info::version_line(),
    args_conflicts_with_subcommands = true
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

/// Offline commands: they read a records file and need no MPI ranks.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Statistics per (op, bytes, P, delay): t_global distribution, bootstrap intervals, the
    /// cost t_delta - t0 and the delay overlap benefit with their intervals, the ceiling. Several records files of one plan
    /// (several launches) are pooled and their between-launch spread reported.
    Analyze {
        /// Records files written by measurement runs of one plan.
        #[arg(required = true, num_args = 1..)]
        files: Vec<PathBuf>,
        #[arg(long, value_parser = Format::parser(TABLES), default_value = "table")]
        format: Format,
        #[command(flatten)]
        bootstrap: BootstrapArgs,
        /// Instead of the summary, the distribution of the per-repetition delay overlap
        /// benefit and the noise amplification of blocks with sampled delays.
        #[arg(long)]
        distribution: bool,
        /// Instead of the summary, the trend of t_global over the run per block (us per s).
        #[arg(long, conflicts_with = "distribution")]
        trend: bool,
        /// Instead of the summary, the overlap of blocks measured with --overlap: overhead,
        /// overlap % by the OSU and IMB-NBC definitions, and the late arrival hidden.
        #[arg(long, conflicts_with_all = ["distribution", "trend"])]
        overlap: bool,
        /// Instead of the summary, the median operation time by each timing method, side by
        /// side: global (t_global), max (t_max_local), root (t_root).
        #[arg(long, value_enum, value_delimiter = ',',
              conflicts_with_all = ["distribution", "trend", "overlap"])]
        timing: Vec<TimingMethod>,
        /// Instead of the summary, for runs with `--emulate-clock`: the true start spread of
        /// the ranks per tenth of each block, from the emulation's known clocks (an
        /// independent check of the global clock).
        #[arg(long, conflicts_with_all = ["distribution", "trend", "overlap", "timing"])]
        truth: bool,
        /// Instead of the summary, for runs that swept collective algorithms (--algorithms,
        /// or launches of --algorithm-from-env given together): per (op, size, P, delay) the
        /// fastest algorithm without and with the late rank and the one with the highest
        /// benefit, and whether each winner's bootstrap interval is clear of the others'.
        #[arg(long, conflicts_with_all = ["distribution", "trend", "overlap", "timing", "truth"])]
        algorithms: bool,
        /// Instead of the summary, for blocks that replayed a capture (--delay replay:...):
        /// per replayed site, kernel family, size and P the cost t_delta - t0 of the blocking
        /// and the nonblocking form with their intervals and whether the nonblocking form
        /// hides the pattern (the table, Markdown and JSON summaries show it too; this gives
        /// it as CSV).
        #[arg(long, conflicts_with_all = ["distribution", "trend", "overlap", "timing", "truth", "algorithms"])]
        replay: bool,
        #[command(flatten)]
        times: TimesArgs,
    },
    /// The same configurations from two records files side by side: median t_global and
    /// benefit with their intervals, the relative difference, and whether the intervals overlap.
    Compare {
        /// Records file A (the reference).
        a: PathBuf,
        /// Records file B, compared with A.
        b: PathBuf,
        #[arg(long, value_parser = Format::parser(TABLES), default_value = "table")]
        format: Format,
        /// Also draw the comparison (median t_global and benefit of A and B vs P, with
        /// intervals) as PNG and SVG figures into this directory.
        #[arg(long, value_name = "DIR")]
        figures: Option<PathBuf>,
        #[command(flatten)]
        bootstrap: BootstrapArgs,
        #[command(flatten)]
        times: TimesArgs,
    },
    /// Rows of a records file as CSV, JSON or JSON Lines: one per (configuration, repetition,
    /// rank) with local and global times in seconds, or one per repetition with t_global
    /// (--rows rep).
    Export {
        /// Records file written by a measurement run.
        file: PathBuf,
        #[arg(long, value_parser = Format::parser(EXPORTS), default_value = "csv")]
        format: Format,
        #[command(flatten)]
        times: TimesArgs,
        /// One row per rank and repetition (`rank`), or per repetition with t_global (`rep`).
        #[arg(long, value_enum, default_value = "rank")]
        rows: ExportRows,
    },
    /// A records file's header made readable: run id, git revision, tags, plan, clock sync,
    /// wait and window rules, machines and their MPI environment; its block count and how
    /// the run ended (footer, or what an interrupted run left).
    Info {
        file: PathBuf,
        #[arg(long, value_parser = Format::parser(INFO), default_value = "table")]
        format: Format,
    },
    /// What a capture of an application (libdelaybench_capture.so, docs/capture.md) says:
    /// per call site the calls, arrival spread, Faraj-Patarasuk-Yuan imbalance, last ranks and
    /// the waiting by Scalasca's wait states; per rank the time spent waiting.
    Arrivals {
        /// The capture's per-rank files, or its directory.
        #[arg(required = true, num_args = 1..)]
        files: Vec<PathBuf>,
        #[arg(long, value_parser = Format::parser(ARRIVALS), default_value = "table")]
        format: Format,
        /// The CSV's rows: per site, per rank, or per call and rank (`calls`: site, op, comm,
        /// call, rank, comm_rank, enter_s, lateness_s, wait_s; CSV or JSON).
        #[arg(long, value_enum, default_value = "sites")]
        rows: crate::export::ArrivalsRows,
        /// Time of one message on this machine for the imbalance factors (`2us`) [default:
        /// half the smallest clock-synchronisation round trip of the capture].
        #[arg(long, value_parser = crate::units::parse_duration_s, value_name = "DURATION")]
        message_time: Option<f64>,
        /// Directory for the figures (arrival_spread, arrival_lateness, arrival_waiting; PNG
        /// and SVG) [default: beside the capture, named after it: `run/capture/` →
        /// `run/capture-arrivals/`]. It must be missing or empty: figures are never
        /// overwritten (a default folder that holds files is left alone with a warning).
        #[arg(long, value_name = "DIR", conflicts_with = "no_figures")]
        figures: Option<PathBuf>,
        /// Draw no figures.
        #[arg(long)]
        no_figures: bool,
    },
    /// Figures (PNG and SVG) of a records file and a report page (index.md): benefit and
    /// t_global vs P, t_global vs size, per-rank timeline, distribution, t_global over the
    /// run, per-rank heatmaps, benefit distribution. Several records files of one plan are
    /// pooled (statistics over all launches, plus their spread). A `clocksync` CSV gives the
    /// clock error figure instead.
    Plot {
        /// Records files of one plan (launches pooled), or one `clocksync` CSV or noise file.
        #[arg(required = true, num_args = 1..)]
        files: Vec<PathBuf>,
        /// Directory for the figures [default: the first file's folder, beside it with its
        /// stem: `results/run.cbor` → `results/run/`].
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Statistic of the valid repetitions to plot.
        #[arg(long, value_enum, default_value = "median")]
        stat: Stat,
        /// Draw only this figure.
        #[arg(long, value_enum, value_name = "NAME")]
        only: Option<FigureKind>,
        #[command(flatten)]
        select: SelectArgs,
        #[command(flatten)]
        times: TimesArgs,
    },
    /// Under MPI: evaluate clock synchronisation methods: sync time and clock error right
    /// after the sync and after waits (Hunold and Carpen-Amarie 2015, §7).
    Clocksync(ClockSyncEvalArgs),
    /// The measurement's plan in simulated time on SimGrid's SMPI (no MPI needed): writes an
    /// ordinary records file marked as simulated (engine, version, platform, collective
    /// selector). See docs/simulate.md.
    Simulate(crate::smpi::SmpiArgs),
    /// Under MPI: exit skew of MPI_Barrier and of delaybench's dissemination barrier on the
    /// global clock (Hunold and Carpen-Amarie 2015, Figure 4).
    Skew(SkewArgs),
    /// Under MPI: one operation timed by every published scheme side by side (barrier + max,
    /// pipelined loop, barrier in the loop, window t_global; for bcast also de Supinski's
    /// OL_i, broadcast rounds and broadcast-barrier). See docs/nonblocking.md.
    Schemes(SchemesArgs),
    /// Under MPI: the machine's own noise on every rank at once, on the global clock: a
    /// selfish-detour loop (or FWQ, FTQ) records every detour above a threshold into a noise
    /// file, reports detours per second, time lost, the longest and correlated detours per
    /// rank, host and in total, and draws them. See docs/noise.md.
    Noise(NoiseArgs),
    /// Under MPI: every control variable of the running MPI library that selects a
    /// collective algorithm (found through MPI_T), with its values by name, its scope,
    /// whether it can be written at run time and the kernels it applies to. See
    /// docs/algorithms.md.
    Algorithms(AlgorithmsArgs),
    /// Under MPI, a check rather than a measurement: runs each reduction kernel (by default
    /// the `ref:*` reference algorithms) on rank-dependent values and compares every element
    /// with MPI_Allreduce's; exit 0 when all agree, 1 with the first mismatches otherwise.
    #[command(hide = true)]
    CheckKernels(CheckKernelsArgs),
    /// Print the manual page (roff) to stdout: `delaybench man | man -l -`; with --dir, write
    /// one page per command there (delaybench.1, delaybench-analyze.1, ...) and print their
    /// paths.
    Man {
        /// Directory for the pages, e.g. ~/.local/share/man/man1 (created when missing).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Print a shell completion script: `delaybench completions bash > ~/.local/share/bash-completion/completions/delaybench`.
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// Which configurations `plot` draws; each option left out selects all of its dimension.
#[derive(Debug, Clone, Args)]
pub struct SelectArgs {
    /// Draw only these kernels, comma-separated (allreduce,iallreduce).
    #[arg(long = "op", value_delimiter = ',', value_parser = parse_op, value_name = "OPS")]
    pub ops: Vec<Op>,
    /// Draw only these message sizes with units (8,1KiB); barriers are kept.
    #[arg(long = "size", value_delimiter = ',', value_parser = crate::units::parse_size_bytes, value_name = "SIZES")]
    pub sizes: Vec<u64>,
    /// Draw only these process counts P (2,4).
    #[arg(long = "procs", value_delimiter = ',', value_name = "P")]
    pub procs: Vec<u32>,
    /// Draw only these delay models, in the grammar of the measurement's --delay (50us,exp:20us);
    /// the undelayed baseline is always kept.
    #[arg(long = "delay", value_parser = parse_delays, allow_hyphen_values = true, value_name = "DELAYS")]
    pub delays: Option<DelayList>,
}

impl SelectArgs {
    /// The selection for [`crate::plot`].
    pub fn selection(&self) -> crate::plot::Selection {
        crate::plot::Selection {
            ops: self.ops.clone(),
            sizes: self.sizes.clone(),
            procs: self.procs.clone(),
            delays: self
                .delays
                .iter()
                .flat_map(|l| l.0.iter().map(|m| m.label()))
                .collect(),
        }
    }
}

/// Which global times an offline command reads, the same option for every command.
#[derive(Debug, Clone, Copy, Args)]
pub struct TimesArgs {
    /// Global times: `posthoc` recomputes them after the run by interpolating each rank's
    /// offset between its drift-tracking probes (Becker et al. 2008), and decides validity on
    /// them; runs without probes keep their online times. `online`: as recorded during the run.
    #[arg(long, value_enum, default_value = "posthoc")]
    pub global_times: GlobalTimes,
}

/// Bootstrap settings of `analyze` and `compare`.
#[derive(Debug, Clone, Args)]
pub struct BootstrapArgs {
    /// Bootstrap resamples per confidence interval.
    #[arg(long, default_value_t = Bootstrap::default().resamples)]
    pub resamples: u32,
    /// Confidence level of the intervals, between 0 and 1 (e.g. 0.99).
    #[arg(long, default_value_t = Bootstrap::default().level, value_parser = parse_level)]
    pub confidence: f64,
}

impl BootstrapArgs {
    /// The bootstrap these options describe, with the default (fixed) seed.
    pub fn bootstrap(&self) -> Bootstrap {
        Bootstrap {
            resamples: self.resamples,
            level: self.confidence,
            ..Bootstrap::default()
        }
    }
}

fn parse_level(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(l) if l > 0.0 && l < 1.0 => Ok(l),
        _ => Err(format!(
            "confidence level `{s}` must be a number between 0 and 1, e.g. 0.95"
        )),
    }
}

/// Clock synchronisation parameters shared by every MPI command.
#[derive(Debug, Clone, Args)]
pub struct ClockParamArgs {
    /// Clock sync: consecutive non-improving ping-pongs that end a min-RTT offset measurement.
    #[arg(long, default_value_t = ClockSyncParams::default().nonimproving)]
    pub sync_nonimproving: u32,
    /// Drift-aware methods (jk, hca, hca3, treefit): fit points per linear regression
    /// (N_FITPTS).
    #[arg(long, default_value_t = ClockSyncParams::default().fitpoints)]
    pub fitpoints: u32,
    /// Drift-aware methods: ping-pongs per fit point (N_EXCHANGES).
    #[arg(long, default_value_t = ClockSyncParams::default().exchanges_per_fitpoint)]
    pub exchanges_per_fitpoint: u32,
    /// Drift-aware methods: time between fit points (e.g. 10ms); the fit spans about
    /// fitpoints x this.
    #[arg(long, value_parser = parse_duration_s, default_value = "1ms")]
    pub fit_interval: f64,
    /// skampi and hca intercepts: ping-pongs per offset measurement.
    #[arg(long, default_value_t = ClockSyncParams::default().skampi_pingpongs)]
    pub skampi_pingpongs: u32,
    /// hca: measure intercepts in the tree (the second approach of Hunold and Carpen-Amarie
    /// 2015, O(log P)) instead of against rank 0 (first approach, O(P)).
    #[arg(long)]
    pub hca_hierarchical_intercepts: bool,
    /// Emulate per-rank clock offsets and skews on every clock reading, e.g.
    /// `offset=1ms*rank,skew=20ppm*alt` (one host only: the truth is then known).
    #[arg(long)]
    pub emulate_clock: Option<EmulationSpec>,
}

impl ClockParamArgs {
    /// The parameters of the clock synchronisation methods.
    pub fn params(&self) -> ClockSyncParams {
        ClockSyncParams {
            nonimproving: self.sync_nonimproving,
            fitpoints: self.fitpoints,
            exchanges_per_fitpoint: self.exchanges_per_fitpoint,
            fit_interval_s: self.fit_interval,
            skampi_pingpongs: self.skampi_pingpongs,
            hca_hierarchical_intercepts: self.hca_hierarchical_intercepts,
            ..ClockSyncParams::default()
        }
    }
}

/// Options of `delaybench clocksync` (run under mpirun).
#[derive(Debug, Clone, Args)]
pub struct ClockSyncEvalArgs {
    /// Methods to evaluate, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "offset,skampi,netgauge,jk,hca,treefit"
    )]
    pub methods: Vec<ClockSyncMethod>,
    /// Process counts P [default: powers of two up to the world size, and the world size].
    #[arg(long, value_delimiter = ',')]
    pub procs: Vec<u32>,
    /// Waits after the synchronisation at which the clock error is measured.
    #[arg(long, value_delimiter = ',', value_parser = parse_duration_s, default_value = "0s,2s,5s,10s")]
    pub waits: Vec<f64>,
    /// Long-run mode: evaluate each method twice, without and with drift tracking during the
    /// waits (a probe round this often; rows `METHOD+tracking`), e.g. `--waits 0s,10s,30s,60s
    /// --track-every 1s`.
    #[arg(long, value_parser = parse_positive_duration)]
    pub track_every: Option<f64>,
    #[arg(long, value_enum, default_value = "monotonic")]
    pub clock: ClockSource,
    #[command(flatten)]
    pub params: ClockParamArgs,
    /// Output on stdout: table, csv, tsv, json or markdown (the CSV file of --output is
    /// written either way; with --simulate, the simulator's table in that format).
    #[arg(long, value_parser = Format::parser(TABLES), default_value = "table")]
    pub format: Format,
    /// CSV file of the results (for `delaybench plot`)
    /// [default: `results/clocksync-<UTC time, µs>-<pid>.csv`]. Never overwritten.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Run even when the waits add up to more than an hour.
    #[arg(long)]
    pub yes: bool,
    /// Offline, without mpirun: run the methods in the event-driven virtual-time simulator
    /// (P from --procs, default 2,16,128,1024) and print error vs P and vs time after the
    /// sync, median and spread over --seeds runs.
    #[arg(long)]
    pub simulate: bool,
    #[command(flatten)]
    pub sim: SimulateArgs,
}

/// Options of `delaybench skew` (run under mpirun).
#[derive(Debug, Clone, Args)]
pub struct SkewArgs {
    /// Process counts P [default: powers of two up to the world size, and the world size].
    #[arg(long, value_delimiter = ',')]
    pub procs: Vec<u32>,
    /// Barrier calls measured per barrier and P.
    #[arg(long, short = 'i', default_value_t = 1000)]
    pub nrep: u32,
    /// Clock synchronisation method for the global clock.
    #[arg(long, value_enum, default_value = "treefit")]
    pub clock_sync: ClockSyncMethod,
    #[command(flatten)]
    pub params: ClockParamArgs,
    #[arg(long, value_enum, default_value = "monotonic")]
    pub clock: ClockSource,
    /// Output on stdout: table, csv, tsv, json or markdown.
    #[arg(long, value_parser = Format::parser(TABLES), default_value = "table")]
    pub format: Format,
}

/// Options of the hidden `delaybench check-kernels` (run under mpirun): the correctness check
/// of the reduction kernels, tests/reference_kernels.rs runs it at several P.
#[derive(Debug, Clone, Args)]
pub struct CheckKernelsArgs {
    /// Reduction kernels (sum on every rank) or v-form kernels to check [default: every
    /// ref:* kernel].
    #[arg(long, value_delimiter = ',', value_parser = parse_op)]
    pub ops: Vec<Op>,
    /// Element counts (f64 per rank; bytes per block for the v-forms) to check, e.g.
    /// 1,5,7,13,1000.
    #[arg(long, value_delimiter = ',', default_value = "1,2,5,7,13,1000")]
    pub counts: Vec<usize>,
    /// Calls per kernel and count; in call k, rank k mod P enters 20 ms late, so the
    /// arrival-aware kernels see (and learn) an order other than rank order.
    #[arg(long, default_value_t = 4)]
    pub calls: u32,
    /// Corrupt one element of rank 0's result before comparing, to see the check fail.
    #[arg(long, hide = true)]
    pub inject_error: bool,
}

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
    pub params: ClockParamArgs,
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

/// Options of `delaybench algorithms` (run under mpirun, one rank is enough).
#[derive(Debug, Clone, Args)]
pub struct AlgorithmsArgs {
    /// `table` (also `text`) or `json` (one document).
    #[arg(long, value_parser = Format::parser(ALGORITHMS), default_value = "table")]
    pub format: Format,
}

/// Options of `delaybench schemes` (run under mpirun).
#[derive(Debug, Clone, Args)]
pub struct SchemesArgs {
    /// Kernels, comma-separated (see the measurement's --ops).
    #[arg(long, value_delimiter = ',', value_parser = parse_op, default_value = "bcast,allreduce")]
    pub ops: Vec<Op>,
    /// Message sizes with units, multiples of 8 bytes: a list (8,64KiB) or powers of two
    /// MIN:MAX (8:64KiB, as OSU's -m; also 8..64KiB).
    #[arg(long, short = 'm', default_value = "8,64KiB")]
    pub sizes: SizeList,
    /// Process counts P [default: powers of two up to the world size, and the world size].
    #[arg(long, value_delimiter = ',')]
    pub procs: Vec<u32>,
    /// Repetitions (or loop iterations) per scheme, and per destination for OL_i.
    #[arg(long, short = 'i', default_value_t = 200)]
    pub nrep: u32,
    /// Window scheme: largest lateness of a rank's start (e.g. 50us) before the repetition is
    /// left out, or `auto` (1 us spinning, 10 us on oversubscribed hosts).
    #[arg(long, value_parser = parse_window, default_value = "auto", allow_hyphen_values = true)]
    pub late_tolerance: WindowArg,
    /// Clock synchronisation method for the global clock of the window scheme.
    #[arg(long, value_enum, default_value = "treefit")]
    pub clock_sync: ClockSyncMethod,
    #[command(flatten)]
    pub params: ClockParamArgs,
    #[arg(long, value_enum, default_value = "monotonic")]
    pub clock: ClockSource,
    /// Output on stdout: table, csv, tsv, json or markdown.
    #[arg(long, value_parser = Format::parser(TABLES), default_value = "table")]
    pub format: Format,
}

/// Options of a measurement run (`mpirun -np N delaybench [OPTIONS]`).
#[derive(Debug, Clone, Args)]
pub struct MeasureArgs {
    /// Kernels, comma-separated (the i-prefixed ones are the MPI-3 nonblocking forms); the
    /// default is the five collectives of Niethammer et al. (2016) in both forms. Also, when
    /// named: allgather, gather, scatter, reduce_scatter_block, scan, exscan and their
    /// i-forms, and the reference allreduce algorithms on point-to-point (ref:ring,
    /// ref:binomial, ref:sorted-linear-tree, ref:prereduced-ring, ref:clairvoyant;
    /// docs/reference-algorithms.md).
    #[arg(long, value_delimiter = ',', value_parser = parse_op, default_value = every_op())]
    pub ops: Vec<Op>,
    /// Message sizes with units: a list (8,128,1KiB) or powers of two MIN:MAX as OSU's -m
    /// writes them (8:1MiB; also 8..1MiB). Units: B, KiB, MiB, GiB (k, M are decimal: a
    /// warning says so). bcast = bytes broadcast; reduce/allreduce/ref:*/scan/exscan = bytes
    /// per rank as f64 elements (multiples of 8); alltoall = bytes to each peer;
    /// allgather/gather = bytes from each rank; scatter = bytes to each rank;
    /// reduce_scatter_block = bytes of f64 sums each rank receives. Barriers ignore it.
    #[arg(long, short = 'm', default_value = "8,128,1024")]
    pub sizes: SizeList,
    /// Process counts P, each measured on ranks 0..P-1
    /// [default: powers of two from 2 up to the world size, and the world size].
    #[arg(long, value_delimiter = ',')]
    pub procs: Vec<u32>,
    /// Ranks (within each P) that arrive late: a list of N, A-B, last, all, random:K (K drawn
    /// per repetition), host:I (the ranks of the I-th host).
    #[arg(long = "delay-rank", default_value = "0")]
    pub delay_ranks: RankSelection,
    // The models come from the registry, so a new model appears here without an edit.
    #[arg(
        long,
        help = delay_help(),
        value_parser = parse_delays,
        default_value = "50us",
        allow_hyphen_values = true
    )]
    pub delay: DelayList,
    /// How a replayed capture's ranks map onto P when P differs from the recorded size:
    /// `first` takes the first P recorded ranks' lateness, `folded` gives rank r the latest
    /// of the recorded ranks k ≡ r (mod P) [default: first]. The `:first`/`:folded` suffix
    /// of `--delay replay:...` says the same; when both are given they must agree.
    #[arg(long, value_enum)]
    pub replay_map: Option<crate::delay::models::replay::ReplayMap>,
    /// Whether `--ops` came from the command line or a study file rather than its default
    /// (set by [`MeasureArgs::note_given`]; a replay chooses the kernels otherwise).
    #[arg(skip)]
    pub ops_given: bool,
    /// Whether `--sizes` came from the command line or a study file rather than its default.
    #[arg(skip)]
    pub sizes_given: bool,
    /// OS-noise detours while the operation runs: FREQ,DURATION[,sync|async], e.g.
    /// 1kHz,10us (every rank loses 10 us of CPU every ms; phases aligned with sync); or
    /// trace:FILE[,aligned|shifted] to replay a noise file of `delaybench noise` (rank r
    /// replays recorded rank r mod R, on the recorded global phases or shifted per rank).
    #[arg(long)]
    pub detour: Option<DetourArg>,
    /// Measured repetitions per configuration (OSU's -i, IMB's -iter).
    #[arg(long, short = 'i', default_value_t = 100)]
    pub nrep: u32,
    /// Adaptive repetitions: at least this many (with --nrep-max).
    #[arg(long, default_value_t = 20, requires = "nrep_max")]
    pub nrep_min: u32,
    /// Adaptive repetitions: at most this many; stop earlier once the Student's t confidence
    /// interval of the mean t_global is narrower than --ci-rel (replaces --nrep).
    #[arg(long)]
    pub nrep_max: Option<u32>,
    /// Adaptive repetitions: confidence level of the interval.
    #[arg(long, default_value_t = 0.95, requires = "nrep_max")]
    pub ci_level: f64,
    /// Adaptive repetitions: largest half-width of the interval relative to the mean.
    #[arg(long, default_value_t = 0.05, requires = "nrep_max")]
    pub ci_rel: f64,
    /// Overlap mode of the nonblocking kernels: post, compute for t_b (time) or a calibrated
    /// workload (work), then wait, recording each part per rank (see docs/nonblocking.md).
    #[arg(long, value_enum)]
    pub overlap: Option<OverlapMode>,
    /// With --overlap: call MPI_Test every this many bytes of message during the computation
    /// (floor(size / interval) + 1 calls).
    #[arg(long, requires = "overlap")]
    pub test_interval: Option<Size>,
    /// Warm-up repetitions per (op, size, P), not recorded; they also size the window (OSU's
    /// -x).
    #[arg(long, short = 'x', default_value_t = 10)]
    pub warmup: u32,
    /// Process synchronisation before each repetition: window (start instants on the global
    /// clock), barrier (MPI_Barrier), dissemination (delaybench's own barrier),
    /// double-barrier, or none (back to back, as IMB).
    #[arg(long, value_enum, default_value = "window")]
    pub sync: SyncMethod,
    /// Which ranks form each P: `first` (world ranks 0..P-1) or `spread` (round-robin over
    /// hosts, so every P at least the number of hosts spans all hosts).
    #[arg(long, value_enum, default_value = "first")]
    pub subcomm: Subcomm,
    /// Drift tracking: probe clock offsets and refit the online clock models this often
    /// (e.g. 1s), between blocks and inside window-synchronised blocks; `auto` = 1 s.
    #[arg(long, value_parser = parse_window, default_value = "auto", allow_hyphen_values = true)]
    pub track_every: WindowArg,
    /// Turn drift tracking off (the initial models are used for the whole run).
    #[arg(long)]
    pub no_tracking: bool,
    /// Measure every configuration once per collective algorithm of the MPI library, written
    /// through MPI_T, plus the library's own choice (`default`): `all`, or algorithm names
    /// (comma-separated, as `delaybench algorithms` lists them). See docs/algorithms.md.
    #[arg(long, value_parser = crate::plan::algorithms::AlgorithmRequest::parse)]
    pub algorithms: Option<crate::plan::algorithms::AlgorithmRequest>,
    /// Record which algorithm this launch runs with, as the launch environment set it
    /// (OMPI_MCA_coll_tuned_<op>_algorithm, MPIR_CVAR_<OP>_INTRA_ALGORITHM), for libraries
    /// that refuse run-time writes; `analyze` pools such launches by algorithm.
    #[arg(long, conflicts_with = "algorithms")]
    pub algorithm_from_env: bool,
    /// Skip the noise check: by default every rank runs a 200 ms selfish-detour loop at once
    /// after the clock synchronisation, recorded in the header (see `delaybench noise`).
    #[arg(long)]
    pub no_noise_check: bool,
    /// Watchdog: end the run when a block makes no progress for this long (e.g. 60s), naming
    /// the configuration; the records file keeps every complete block. Off by default.
    #[arg(long, value_parser = parse_positive_duration)]
    pub timeout: Option<f64>,
    /// Window per repetition (e.g. 500us) or `auto`: 2 x the 90th percentile of the slowest
    /// rank's warm-up operation time, plus 1.1 x the largest delay drawn, plus 2 x the waiting
    /// margin, plus 20us (and t_b with --overlap).
    #[arg(long, value_parser = parse_window, default_value = "auto", allow_hyphen_values = true)]
    pub window: WindowArg,
    /// Largest lateness of a rank's start after its instant (e.g. 2us) before the repetition is
    /// flagged started late, or `auto`: 1 us when ranks spin, 10 us on oversubscribed hosts.
    #[arg(long, value_parser = parse_window, default_value = "auto", allow_hyphen_values = true)]
    pub late_tolerance: WindowArg,
    /// Clock: monotonic (clock_gettime CLOCK_MONOTONIC) or wtime (MPI_Wtime).
    #[arg(long, value_enum, default_value = "monotonic")]
    pub clock: ClockSource,
    /// Records file [default: `results/delaybench-<UTC time, µs>-<pid>.cbor`]. Never overwritten.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// A tag kept in the records header and on every row of `analyze` and `export`, e.g.
    /// `--tag system=cluster-a --tag mpi=openmpi-4.1` (repeatable; keys of letters, digits,
    /// `_`, `-`, `.`).
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = parse_tag)]
    pub tags: Vec<Tag>,
    /// Seed of the run's random generator [default: drawn by rank 0 and recorded].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Clock synchronisation method.
    #[arg(long, value_enum, default_value = "treefit")]
    pub clock_sync: ClockSyncMethod,
    #[command(flatten)]
    pub clock_params: ClockParamArgs,
    /// Re-synchronise clocks between configurations once this long has passed since the
    /// last synchronisation (e.g. 30s) [default: only at the start].
    #[arg(long, value_parser = parse_duration_s)]
    pub resync_every: Option<f64>,
    /// Study file (TOML) whose keys set these options; flags given here override it
    /// (see `configs/`).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Directory for the figures, report page and summary made at the end of the run
    /// [default: the records file's folder: `results/<stem>.cbor` gets `results/<stem>/`].
    /// It must not exist yet or be empty: outputs are never overwritten.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
    /// Draw no figures and no report page at the end of the run.
    #[arg(long, conflicts_with = "figures")]
    pub no_figures: bool,
    /// Print no summary table and write no summary files at the end of the run (with
    /// --no-figures too, the records file is not read back at all).
    #[arg(long)]
    pub no_summary: bool,
    /// Print the plan, its block count and estimated duration, then stop: nothing is
    /// measured and no file is written (still under mpirun, which gives the world size).
    #[arg(long)]
    pub dry_run: bool,
    /// With --dry-run: plan for this many ranks without MPI (no mpirun needed), as if they
    /// ran on one host; memory is then not checked.
    #[arg(long, requires = "dry_run", value_parser = clap::value_parser!(u32).range(1..))]
    pub world_size: Option<u32>,
    /// Largest estimated duration a run may have (e.g. 8h); longer runs are refused unless
    /// --yes is given.
    #[arg(long, value_parser = parse_positive_duration, default_value = "1h")]
    pub max_duration: f64,
    /// Run even when the estimated duration exceeds --max-duration.
    #[arg(long)]
    pub yes: bool,
    /// No progress and no start line: only warnings, errors and the summary table.
    #[arg(long, short, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Also print the plan and the estimated duration before measuring.
    #[arg(long, short)]
    pub verbose: bool,
}

/// The help of `--delay`, listing every registered delay model.
fn delay_help() -> String {
    format!(
        "Delays: durations (50us, 1.5ms) or models sampled per repetition and rank: {}. The \
         undelayed baseline is always measured too; `none` measures it alone.",
        crate::delay::models::help_list()
    )
}

/// `--delay`: delay models in order.
#[derive(Debug, Clone, PartialEq)]
pub struct DelayList(pub Vec<DelayModel>);

fn parse_delays(s: &str) -> Result<DelayList, String> {
    // `none`: the undelayed baseline alone, e.g. to study the start spread itself.
    if s.trim().eq_ignore_ascii_case("none") {
        return Ok(DelayList(Vec::new()));
    }
    parse_delay_list(s)
        .map(DelayList)
        .map_err(|e| e.to_string())
}

/// `--window` and `--late-tolerance`: automatic or a fixed duration in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WindowArg {
    Auto,
    Fixed(f64),
}

/// The default `--ops` ([`Op::defaults`]), comma-separated, written as a user would pass it.
fn every_op() -> &'static str {
    static EVERY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    EVERY.get_or_init(|| {
        Op::defaults()
            .into_iter()
            .map(Op::name)
            .collect::<Vec<_>>()
            .join(",")
    })
}

fn parse_tag(s: &str) -> Result<Tag, String> {
    s.parse()
        .map_err(|e: crate::records::provenance::TagError| e.to_string())
}

fn parse_op(s: &str) -> Result<Op, String> {
    s.parse()
        .map_err(|e: crate::plan::kernel::UnknownOp| e.to_string())
}

fn parse_positive_duration(s: &str) -> Result<f64, String> {
    match parse_duration_s(s) {
        Ok(t) if t > 0.0 && t.is_finite() => Ok(t),
        Ok(_) => Err(format!(
            "'{s}' must be a positive duration with a unit, e.g. 60s"
        )),
        Err(e) => Err(e.to_string()),
    }
}

fn parse_window(s: &str) -> Result<WindowArg, String> {
    if s == "auto" {
        return Ok(WindowArg::Auto);
    }
    parse_duration_s(s)
        .map(WindowArg::Fixed)
        .map_err(|e| e.to_string())
}

impl MeasureArgs {
    /// Records which of `--ops` and `--sizes` the user gave (command line or study file)
    /// rather than took by default; `matches` are those this `MeasureArgs` was built from.
    pub fn note_given(&mut self, matches: &clap::ArgMatches) {
        let given = |id: &str| {
            matches
                .value_source(id)
                .is_some_and(|s| s != clap::parser::ValueSource::DefaultValue)
        };
        self.ops_given = given("ops");
        self.sizes_given = given("sizes");
    }

    /// Warnings about how the options were written (a decimal size unit), for rank 0 to print
    /// before anything is measured.
    pub fn unit_warnings(&self) -> Vec<String> {
        let interval = self
            .test_interval
            .iter()
            .filter_map(|s| s.decimal_note.clone());
        self.sizes
            .decimal_notes
            .iter()
            .cloned()
            .chain(interval)
            .collect()
    }

    /// The plan request these options state (see [`Request::to_plan`], the one builder of a
    /// plan): the measurement options, nothing of how the run reports or where it writes.
    pub fn request(&self) -> Request {
        Request {
            stated: Plan {
                ops: self.ops.clone(),
                sizes: self.sizes.bytes.clone(),
                // Empty: the default for the world size, settled by the builder.
                procs: self.procs.clone(),
                subcomm: self.subcomm,
                track_every_s: match self.track_every {
                    WindowArg::Auto => Some(1.0),
                    WindowArg::Fixed(t) => Some(t),
                }
                .filter(|_| !self.no_tracking),
                timeout_s: self.timeout,
                delay_ranks: self.delay_ranks.clone(),
                delays: self.delay.0.clone(),
                detour: match &self.detour {
                    Some(DetourArg::Periodic(spec)) => Some(*spec),
                    _ => None,
                },
                detour_trace: match &self.detour {
                    Some(DetourArg::Trace(spec)) => Some(spec.clone()),
                    _ => None,
                },
                nrep: self.nrep_max.unwrap_or(self.nrep),
                warmup: self.warmup,
                sync: self.sync,
                window_s: match self.window {
                    WindowArg::Auto => None,
                    WindowArg::Fixed(w) => Some(w),
                },
                late_tolerance_s: match self.late_tolerance {
                    WindowArg::Auto => None,
                    WindowArg::Fixed(t) => Some(t),
                },
                algorithms: self.algorithms.clone(),
                algorithm_from_env: self.algorithm_from_env,
                clock: self.clock,
                // Replaced by the builder: `seed` below, or the run's drawn one.
                seed: 0,
                clock_sync: self.clock_sync,
                clock_params: self.clock_params.params(),
                resync_every_s: self.resync_every,
                emulate_clock: self.clock_params.emulate_clock.clone(),
                overlap: self.overlap.map(|mode| OverlapSpec {
                    mode,
                    test_interval_bytes: self.test_interval.as_ref().map(|s| s.bytes),
                }),
                adaptive: self.nrep_max.map(|nrep_max| AdaptiveSpec {
                    nrep_min: self.nrep_min,
                    nrep_max,
                    ci_level: self.ci_level,
                    ci_rel: self.ci_rel,
                }),
            },
            seed: self.seed,
            replay: Some(ReplayRequest {
                map: self.replay_map,
                ops_given: self.ops_given,
                sizes_given: self.sizes_given,
            }),
        }
    }

    /// The settings of the run besides its plan: output, end-of-run outputs, bounds, tags.
    pub fn run_options(&self) -> RunOptions {
        RunOptions {
            output: self.output.clone(),
            figures: self.figures.clone(),
            no_figures: self.no_figures,
            no_summary: self.no_summary,
            dry_run: self.dry_run,
            world_size: self.world_size,
            max_duration_s: self.max_duration,
            yes: self.yes,
            quiet: self.quiet,
            verbose: self.verbose,
            no_noise_check: self.no_noise_check,
            tags: self.tags.clone(),
        }
    }
}

impl ClockSyncEvalArgs {
    /// The event-driven simulation these options ask for (`clocksync --simulate`).
    pub fn scaling_plan(&self) -> crate::clock::scaling::ScalingPlan {
        let s = &self.sim;
        let clocks = match &self.params.emulate_clock {
            Some(spec) => crate::clock::eventsim::ClockSpread::Spec(spec.clone()),
            None => crate::clock::eventsim::ClockSpread::Random {
                offset_s: s.sim_offset,
                skew: s.sim_skew_ppm * 1e-6,
            },
        };
        let mut waits_s = self.waits.clone();
        waits_s.sort_by(f64::total_cmp);
        crate::clock::scaling::ScalingPlan {
            methods: self.methods.clone(),
            procs: if self.procs.is_empty() {
                crate::simulate::DEFAULT_SIM_PROCS.to_vec()
            } else {
                self.procs.iter().map(|&p| p as usize).collect()
            },
            seeds: s.seeds,
            waits_s,
            params: self.params.params(),
            config: crate::clock::eventsim::EventSimConfig {
                network: crate::clock::eventsim::Network {
                    latency_s: s.sim_latency,
                    level_latency_s: s.sim_level_latency,
                    link_spread_s: s.sim_link_spread,
                    uplink_extra_s: s.sim_uplink_extra,
                    jitter_s: s.sim_jitter,
                    spike_prob: s.sim_spike_prob,
                    spike_s: s.sim_spike,
                    ..crate::clock::eventsim::Network::default()
                },
                clocks,
                seed: s.sim_seed,
                ..crate::clock::eventsim::EventSimConfig::default()
            },
            threads: s.sim_threads,
        }
    }
}

/// The plain options of the MPI commands, made from their arguments at the edge: the run
/// side never sees a command-line type.
#[cfg(feature = "mpi")]
mod to_run {
    use super::*;
    use crate::run::{
        AlgorithmsOptions, CheckKernelsOptions, ClockSyncEvalOptions, NoiseOptions, SchemesOptions,
        SkewOptions,
    };

    impl From<SkewArgs> for SkewOptions {
        fn from(a: SkewArgs) -> Self {
            SkewOptions {
                params: a.params.params(),
                emulate_clock: a.params.emulate_clock,
                procs: a.procs,
                nrep: a.nrep,
                clock_sync: a.clock_sync,
                clock: a.clock,
                format: a.format,
            }
        }
    }

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

    impl From<ClockSyncEvalArgs> for ClockSyncEvalOptions {
        fn from(a: ClockSyncEvalArgs) -> Self {
            ClockSyncEvalOptions {
                params: a.params.params(),
                emulate_clock: a.params.emulate_clock,
                methods: a.methods,
                procs: a.procs,
                waits: a.waits,
                track_every: a.track_every,
                clock: a.clock,
                format: a.format,
                output: a.output,
                yes: a.yes,
            }
        }
    }

    impl From<SchemesArgs> for SchemesOptions {
        fn from(a: SchemesArgs) -> Self {
            SchemesOptions {
                params: a.params.params(),
                emulate_clock: a.params.emulate_clock,
                ops: a.ops,
                sizes: a.sizes.bytes,
                procs: a.procs,
                nrep: a.nrep,
                late_tolerance_s: match a.late_tolerance {
                    WindowArg::Auto => None,
                    WindowArg::Fixed(t) => Some(t),
                },
                clock_sync: a.clock_sync,
                clock: a.clock,
                format: a.format,
            }
        }
    }

    impl From<CheckKernelsArgs> for CheckKernelsOptions {
        fn from(a: CheckKernelsArgs) -> Self {
            CheckKernelsOptions {
                ops: a.ops,
                counts: a.counts,
                calls: a.calls,
                inject_error: a.inject_error,
            }
        }
    }

    impl From<AlgorithmsArgs> for AlgorithmsOptions {
        fn from(a: AlgorithmsArgs) -> Self {
            AlgorithmsOptions { format: a.format }
        }
    }
}

/// Options of the event-driven simulator (`clocksync --simulate`; see
/// `src/clock/eventsim.rs` for the latency model).
#[derive(Debug, Clone, Args)]
pub struct SimulateArgs {
    /// --simulate: runs (seeds) per method and P; the table gives median, min and max.
    #[arg(long, default_value_t = 10)]
    pub seeds: u32,
    /// --simulate: seed of the first run (clocks, links, delays).
    #[arg(long, default_value_t = 1)]
    pub sim_seed: u64,
    /// --simulate: base one-way latency.
    #[arg(long, value_parser = parse_duration_s, default_value = "1us")]
    pub sim_latency: f64,
    /// --simulate: extra one-way latency per hierarchy level between two ranks (highest
    /// differing bit of their numbers).
    #[arg(long, value_parser = parse_duration_s, default_value = "250ns")]
    pub sim_level_latency: f64,
    /// --simulate: fixed extra latency per link direction, uniform up to this (asymmetry).
    #[arg(long, value_parser = parse_duration_s, default_value = "200ns")]
    pub sim_link_spread: f64,
    /// --simulate: extra latency of every message towards the lower rank (systematic
    /// asymmetry, which a ping-pong midpoint cannot see).
    #[arg(long, value_parser = parse_duration_s, default_value = "100ns")]
    pub sim_uplink_extra: f64,
    /// --simulate: random extra latency per message, uniform up to this.
    #[arg(long, value_parser = parse_duration_s, default_value = "200ns")]
    pub sim_jitter: f64,
    /// --simulate: probability of a noise spike per message.
    #[arg(long, default_value_t = 0.01)]
    pub sim_spike_prob: f64,
    /// --simulate: largest extra delay of a spike.
    #[arg(long, value_parser = parse_duration_s, default_value = "20us")]
    pub sim_spike: f64,
    /// --simulate: clock offsets uniform within ± this (unless --emulate-clock is given).
    #[arg(long, value_parser = parse_duration_s, default_value = "1ms")]
    pub sim_offset: f64,
    /// --simulate: clock skews uniform within ± this many ppm (unless --emulate-clock).
    #[arg(long, default_value_t = 20.0)]
    pub sim_skew_ppm: f64,
    /// --simulate: OS threads running seeds side by side.
    #[arg(long, default_value_t = 1)]
    pub sim_threads: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("delaybench").chain(args.iter().copied()))
    }

    /// The measurement options of `args` as `main` makes them (which options were given),
    /// with a replay of a captured `op` site of `bytes` bytes as the only delay.
    fn replaying(args: &[&str], op: &str, bytes: u64, suffix_map: &str) -> MeasureArgs {
        use crate::delay::models::replay::Replay;
        use clap::{CommandFactory, FromArgMatches};
        let argv: Vec<&str> = std::iter::once("delaybench")
            .chain(args.iter().copied())
            .collect();
        let matches = Cli::command().try_get_matches_from(argv).unwrap();
        let mut cli = Cli::from_arg_matches(&matches).unwrap();
        cli.measure.note_given(&matches);
        cli.measure.delay = DelayList(vec![DelayModel::new(Replay {
            path: "cap".into(),
            site: "app+0x10".into(),
            map: suffix_map.into(),
            op: op.into(),
            bytes,
            recorded_size: 2,
            lateness_s: vec![0.0, 1e-4],
            counts: match op {
                "alltoallv" => vec![8, 24, 8, 8],
                _ if op.ends_with('v') => vec![8, 24],
                _ => vec![],
            },
        })]);
        cli.measure
    }

    #[test]
    fn delay_none_measures_the_baseline_alone() {
        let cli = parse(&["--delay", "none"]).unwrap();
        assert!(cli.measure.delay.0.is_empty());
        let cli = parse(&["--delay", "50us"]).unwrap();
        assert_eq!(cli.measure.delay.0.len(), 1);
        assert!(
            parse(&["--delay", "0"]).is_ok(),
            "0 is refused by the plan, not the parser"
        );
    }

    #[test]
    fn a_replay_measures_its_sites_operation_unless_told_otherwise() {
        // Nothing given: the site's allreduce and iallreduce, at its 4 bytes rounded to f64.
        let m = replaying(&[], "iallreduce", 4, "");
        let c = m.request().replay_choice().unwrap();
        assert_eq!(c.ops, Some(vec![Op::Allreduce, Op::Iallreduce]));
        assert_eq!(c.sizes, Some(vec![8]));
        assert!(c.warnings.is_empty() && c.notes.len() == 2, "{c:?}");
        let plan = m.request().to_plan(2, 1);
        assert_eq!((plan.ops.len(), plan.sizes.clone()), (2, vec![8]));
        // The map defaults to first and is recorded so.
        let r = crate::delay::models::replay::Replay::of(&plan.delays[0]).unwrap();
        assert_eq!(r.map, "first");
        // --ops and --sizes given without the site's op: kept, with a warning naming it.
        let m = replaying(&["--ops", "bcast", "--sizes", "16"], "allreduce", 8, "");
        let c = m.request().replay_choice().unwrap();
        assert_eq!((c.ops.clone(), c.sizes.clone()), (None, None));
        assert!(c.warnings[0].contains("add allreduce,iallreduce"), "{c:?}");
        assert_eq!(m.request().to_plan(2, 1).ops, vec![Op::Bcast]);
        // A barrier site keeps the sizes (no payload).
        let c = replaying(&[], "barrier", 0, "")
            .request()
            .replay_choice()
            .unwrap();
        assert_eq!(
            (c.ops, c.sizes),
            (Some(vec![Op::Barrier, Op::Ibarrier]), None)
        );
        // An operation without a kernel: refused unless --ops names kernels.
        let e = replaying(&[], "reduce_scatter", 64, "")
            .request()
            .replay_choice()
            .unwrap_err();
        assert!(
            e.contains("reduce_scatter has no kernel") && e.contains("--ops"),
            "{e}"
        );
        let c = replaying(&["--ops", "reduce_scatter_block"], "reduce_scatter", 64, "")
            .request()
            .replay_choice()
            .unwrap();
        assert!(
            c.warnings[0].contains("reduce_scatter has no kernel"),
            "{c:?}"
        );
        // A v-form site replays on its own v-form kernel, with the captured counts.
        let c = replaying(&[], "alltoallv", 64, "")
            .request()
            .replay_choice()
            .unwrap();
        assert!(
            c.notes
                .iter()
                .any(|n| n.contains("run the counts of the site's first call")),
            "{:?}",
            c.notes
        );
        assert_eq!(c.ops, Some(vec![Op::Alltoallv, Op::Ialltoallv]));
        // A capture without vectors: uniform counts, said before measuring.
        let mut r = crate::delay::models::replay::Replay::of(&c.delays[0]).unwrap();
        r.counts.clear();
        let note =
            crate::plan::replay_choice::counts_note(&r, "replay:cap@app+0x10", "alltoallv", false)
                .unwrap();
        assert!(
            note.contains("no count vectors") && note.contains("uniform"),
            "{note}"
        );
        r.op = "allreduce".into();
        assert_eq!(
            crate::plan::replay_choice::counts_note(&r, "s", "allreduce", false),
            None
        );
        // A persistent site replays on its persistent kernel, beside the other two forms.
        let c = replaying(&[], "allreduce_persistent", 8, "")
            .request()
            .replay_choice()
            .unwrap();
        assert_eq!(
            (c.ops, c.sizes),
            (
                Some(vec![Op::Allreduce, Op::Iallreduce, Op::AllreducePersistent]),
                Some(vec![8])
            )
        );
        // One without a persistent kernel (the v-forms have none) is refused as above.
        let e = replaying(&[], "gatherv_persistent", 64, "")
            .request()
            .replay_choice()
            .unwrap_err();
        assert!(e.contains("gatherv_persistent has no kernel"), "{e}");
        // --replay-map against the spec's suffix.
        let e = replaying(&["--replay-map", "first"], "allreduce", 8, "folded")
            .request()
            .replay_choice()
            .unwrap_err();
        assert!(e.contains("--replay-map is first"), "{e}");
        let plan = replaying(&["--replay-map", "folded"], "allreduce", 8, "")
            .request()
            .to_plan(2, 1);
        let r = crate::delay::models::replay::Replay::of(&plan.delays[0]).unwrap();
        assert_eq!(r.map, "folded");
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let cli = parse(&[]).unwrap();
        assert!(cli.command.is_none());
        let plan = cli.measure.request().to_plan(6, 42);
        assert_eq!(plan.ops, Op::defaults());
        assert_eq!(plan.sizes, vec![8, 128, 1024]);
        assert_eq!(plan.procs, vec![2, 4, 6]);
        assert_eq!(plan.delay_ranks, RankSelection::rank(0));
        assert_eq!(plan.delays.len(), 1);
        assert_eq!(plan.delays[0].mean_s(), 50e-6);
        assert_eq!((plan.nrep, plan.warmup, plan.seed), (100, 10, 42));
        assert_eq!(plan.sync, SyncMethod::Window);
        assert_eq!(plan.window_s, None);
        assert_eq!(plan.clock, ClockSource::Monotonic);
    }

    #[test]
    fn delay_help_lists_every_registered_model() {
        use clap::CommandFactory;
        let cmd = Cli::command();
        let arg = cmd
            .get_arguments()
            .find(|a| a.get_long() == Some("delay"))
            .expect("--delay");
        let help = arg.get_help().expect("--delay has a help").to_string();
        for e in crate::delay::models::MODELS {
            assert!(
                help.contains(e.example),
                "--delay help lacks {}: {help}",
                e.example
            );
            assert!(
                help.contains(&format!("{}:", e.keyword)),
                "{}: {help}",
                e.keyword
            );
        }
    }

    #[test]
    fn lists_and_units() {
        let cli = parse(&[
            "--ops",
            "allreduce,ialltoall",
            "--sizes",
            "8,1KiB",
            "--delay",
            "50us,1.5ms",
            "--delay-rank",
            "0,3",
            "--procs",
            "4",
            "--window",
            "2ms",
            "--seed",
            "9",
        ])
        .unwrap();
        let plan = cli.measure.request().to_plan(4, 0);
        assert_eq!(plan.ops, vec![Op::Allreduce, Op::Ialltoall]);
        assert_eq!(plan.sizes, vec![8, 1024]);
        let delays: Vec<f64> = plan.delays.iter().map(|d| d.mean_s()).collect();
        assert_eq!(delays, vec![50e-6, 1.5e-3]);
        assert_eq!(plan.delay_ranks.to_string(), "0,3");
        assert_eq!(plan.window_s, Some(2e-3));
        assert_eq!(plan.seed, 9);
        assert_eq!(plan.validate(4, &vec!["h".to_string(); 4]), Ok(()));
    }

    #[test]
    fn osu_and_imb_spellings() {
        let cli = parse(&["-m", "8:1MiB", "-i", "50", "-x", "5"]).unwrap();
        let plan = cli.measure.request().to_plan(4, 0);
        assert_eq!(plan.sizes, (3..=20).map(|k| 1u64 << k).collect::<Vec<_>>());
        assert_eq!((plan.nrep, plan.warmup), (50, 5));
        assert!(cli.unit_warnings().is_empty());
        let cli = parse(&["--sizes", "8..64,1k"]).unwrap();
        assert_eq!(
            cli.measure.request().to_plan(4, 0).sizes,
            vec![8, 16, 32, 64, 1000]
        );
        let warnings = cli.unit_warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("1000 bytes"), "{warnings:?}");
        let cli = parse(&["--overlap", "time", "--test-interval", "2k"]).unwrap();
        assert_eq!(
            cli.measure
                .request()
                .to_plan(4, 0)
                .overlap
                .unwrap()
                .test_interval_bytes,
            Some(2000)
        );
        assert_eq!(cli.unit_warnings().len(), 1);
        let cli = parse(&["schemes", "-m", "8:32", "-i", "7"]).unwrap();
        let Some(Command::Schemes(args)) = cli.command else {
            panic!("not schemes");
        };
        assert_eq!((args.sizes.bytes, args.nrep), (vec![8, 16, 32], 7));
        assert!(parse(&["skew", "-i", "10"]).is_ok());
    }

    #[test]
    fn bad_input_is_a_parse_error() {
        for args in [
            &["--ops", "allgatherw"][..],
            &["--delay", "50"],
            &["--delay", "-5us"],
            &["--window", "-1ms"],
            &["--sizes", "lots"],
            &["--sizes", "1MiB:8"],
            &["-m", "0:8"],
            &["--sync", "telepathy"],
        ] {
            let err = parse(args).unwrap_err();
            assert_eq!(err.exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn overlap_and_adaptive_options() {
        let cli = parse(&[
            "--overlap",
            "work",
            "--test-interval",
            "1KiB",
            "--nrep-max",
            "500",
            "--ci-rel",
            "0.02",
        ])
        .unwrap();
        let plan = cli.measure.request().to_plan(4, 0);
        let o = plan.overlap.unwrap();
        assert_eq!(
            (o.mode, o.test_interval_bytes),
            (OverlapMode::Work, Some(1024))
        );
        let a = plan.adaptive.unwrap();
        assert_eq!(
            (a.nrep_min, a.nrep_max, a.ci_level, a.ci_rel),
            (20, 500, 0.95, 0.02)
        );
        // The delay matrices are drawn for the most repetitions a block may take.
        assert_eq!(plan.nrep, 500);
        // Each needs its main option.
        assert!(parse(&["--test-interval", "1KiB"]).is_err());
        assert!(parse(&["--ci-rel", "0.1"]).is_err());
        assert!(parse(&["--overlap", "sometimes"]).is_err());
        assert!(parse(&["analyze", "r.cbor", "--timing", "global,max,root"]).is_ok());
        assert!(parse(&["analyze", "r.cbor", "--overlap", "--trend"]).is_err());
    }

    #[test]
    fn subcommands() {
        let cli = parse(&["analyze", "run.cbor", "--format", "csv"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Analyze { .. })));
        assert!(parse(&["plot", "run.cbor", "--out", "figs"]).is_ok());
        assert!(parse(&["plot", "run.cbor", "--only", "timeline"]).is_ok());
        assert!(parse(&["plot", "run.cbor", "--only", "nonsense"]).is_err());
        assert!(parse(&["export", "run.cbor"]).is_ok());
        assert!(parse(&["export", "run.cbor", "--rows", "rep"]).is_ok());
        assert!(parse(&["analyze", "a.cbor", "b.cbor", "--format", "markdown"]).is_ok());
        assert!(parse(&["analyze"]).is_err());
        let cli = parse(&["compare", "a.cbor", "b.cbor", "--confidence", "0.99"]).unwrap();
        let Some(Command::Compare { bootstrap, .. }) = cli.command else {
            panic!("not compare");
        };
        assert_eq!(bootstrap.bootstrap().level, 0.99);
        assert!(parse(&["compare", "a.cbor", "b.cbor", "--confidence", "95"]).is_err());
        assert!(parse(&["compare", "a.cbor"]).is_err());
    }
}
