//! The arguments of a measurement run (`mpirun -np N delaybench [OPTIONS]`, no subcommand)
//! and the plan request and run options they state.

use super::clock_args::ClockArgs;
use super::headings::{CLOCK, EXPERT_NOISE, LATE, MEASURE, OUTPUT, RUN, START};
use super::parsers::{
    parse_delays, parse_duration_s, parse_op, parse_positive_duration, parse_tag, parse_window,
    DelayList, WindowArg,
};
use crate::clock::ClockSyncMethod;
use crate::delay::{DetourArg, RankSelection};
use crate::plan::{
    AdaptiveSpec, ClockSource, Op, OverlapMode, OverlapSpec, Plan, ProcessSyncMethod,
    ReplayRequest, Request, RunOptions, Subcomm,
};
use crate::records::Tag;
use crate::units::{Size, SizeList};
use clap::Args;
use std::path::PathBuf;

/// Options of a measurement run (`mpirun -np N delaybench [OPTIONS]`).
#[derive(Debug, Clone, Args)]
pub struct MeasureArgs {
    // ── What to measure ──────────────────────────────────────────────────────────────
    /// Kernels, comma-separated; i-prefixed ones are the nonblocking forms.
    ///
    /// The default is the five collectives of Niethammer et al. (2016) in both forms. Also,
    /// when named: allgather, gather, scatter, reduce_scatter_block, scan, exscan and their
    /// i-forms, and the reference allreduce algorithms on point-to-point (ref:ring,
    /// ref:binomial, ref:sorted-linear-tree, ref:prereduced-ring, ref:clairvoyant; see
    /// delaybench-metrics(7)).
    #[arg(long, value_delimiter = ',', value_parser = parse_op, default_value = every_op(),
          help_heading = MEASURE)]
    pub ops: Vec<Op>,
    /// Message sizes with units: a list (8,128,1KiB) or powers of two MIN:MAX (8:1MiB).
    ///
    /// MIN:MAX as OSU's -m writes them (also 8..1MiB). Units: B, KiB, MiB, GiB (k, M are
    /// decimal: a warning says so). bcast = bytes broadcast; reduce/allreduce/ref:*/scan/exscan
    /// = bytes per rank as f64 elements (multiples of 8); alltoall = bytes to each peer;
    /// allgather/gather = bytes from each rank; scatter = bytes to each rank;
    /// reduce_scatter_block = bytes of f64 sums each rank receives. Barriers ignore it.
    #[arg(long, short = 'm', default_value = "8,128,1024", help_heading = MEASURE)]
    pub sizes: SizeList,
    /// Process counts P, each measured on ranks 0..P-1
    /// [default: powers of two from 2 up to the world size, and the world size].
    #[arg(long, value_delimiter = ',', help_heading = MEASURE)]
    pub procs: Vec<u32>,
    /// Measured repetitions per configuration (OSU's -i, IMB's -iter).
    #[arg(long, short = 'i', default_value_t = 100, help_heading = MEASURE, hide_short_help = true)]
    pub nrep: u32,
    /// Warm-up repetitions per (op, size, P), not recorded; they also size the window (OSU's
    /// -x).
    #[arg(long, short = 'x', default_value_t = 10, help_heading = MEASURE, hide_short_help = true)]
    pub warmup: u32,
    /// Adaptive repetitions: at least this many (with --nrep-max).
    #[arg(long, default_value_t = 20, requires = "nrep_max", help_heading = MEASURE,
          hide_short_help = true)]
    pub nrep_min: u32,
    /// Adaptive repetitions: at most this many; stop earlier once the Student's t confidence
    /// interval of the mean t_global is narrower than --ci-rel (replaces --nrep).
    #[arg(long, help_heading = MEASURE, hide_short_help = true)]
    pub nrep_max: Option<u32>,
    /// Adaptive repetitions: confidence level of the interval.
    #[arg(long, default_value_t = 0.95, requires = "nrep_max", help_heading = MEASURE,
          hide_short_help = true)]
    pub ci_level: f64,
    /// Adaptive repetitions: largest half-width of the interval relative to the mean.
    #[arg(long, default_value_t = 0.05, requires = "nrep_max", help_heading = MEASURE,
          hide_short_help = true)]
    pub ci_rel: f64,
    /// Which ranks form each P: `first` (world ranks 0..P-1) or `spread` (round-robin over
    /// hosts, so every P at least the number of hosts spans all hosts).
    #[arg(long, value_enum, default_value = "first", help_heading = MEASURE, hide_short_help = true)]
    pub subcomm: Subcomm,
    /// Overlap mode of the nonblocking kernels: post, compute for t_b (time) or a calibrated
    /// workload (work), then wait, recording each part per rank.
    #[arg(long, value_enum, help_heading = MEASURE, hide_short_help = true)]
    pub overlap: Option<OverlapMode>,
    /// With --overlap: call MPI_Test every this many bytes of message during the computation
    /// (floor(size / interval) + 1 calls).
    #[arg(long, requires = "overlap", help_heading = MEASURE, hide_short_help = true)]
    pub test_interval: Option<Size>,
    /// Measure every configuration once per collective algorithm of the MPI library, written
    /// through MPI_T, plus the library's own choice (`default`): `all`, or algorithm names
    /// (comma-separated, as `delaybench algorithms` lists them).
    #[arg(long, value_parser = crate::plan::algorithms::AlgorithmRequest::parse,
          help_heading = MEASURE, hide_short_help = true)]
    pub algorithms: Option<crate::plan::algorithms::AlgorithmRequest>,
    /// Record which algorithm this launch runs with, as the launch environment set it
    /// (OMPI_MCA_coll_tuned_<op>_algorithm, MPIR_CVAR_<OP>_INTRA_ALGORITHM), for libraries
    /// that refuse run-time writes; `analyze` pools such launches by algorithm.
    #[arg(long, conflicts_with = "algorithms", help_heading = MEASURE, hide_short_help = true)]
    pub algorithm_from_env: bool,
    /// At every P, start from the N-th configuration (op, size, algorithm) and wrap around:
    /// launches of one plan given 0, 1, 2, ... measure each configuration at another point
    /// of the run (`delaybench launches` sets it).
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = MEASURE, hide_short_help = true)]
    pub rotate: u32,
    /// Whether `--ops` came from the command line or a study file rather than its default
    /// (set by [`MeasureArgs::note_given`]; a replay chooses the kernels otherwise).
    #[arg(skip)]
    pub ops_given: bool,
    /// Whether `--sizes` came from the command line or a study file rather than its default.
    #[arg(skip)]
    pub sizes_given: bool,

    // ── Who is late ──────────────────────────────────────────────────────────────────
    /// Ranks (within each P) that arrive late: a list of N, A-B, last, all, random:K (K drawn
    /// per repetition), host:I (the ranks of the I-th host).
    #[arg(long = "delay-rank", default_value = "0", help_heading = LATE)]
    pub delay_ranks: RankSelection,
    // The models come from the registry, so a new model appears here without an edit.
    #[arg(
        long,
        help = delay_help(),
        value_parser = parse_delays,
        default_value = "50us",
        allow_hyphen_values = true,
        help_heading = LATE
    )]
    pub delay: DelayList,
    /// How a replayed capture's ranks map onto P when P differs from the recorded size:
    /// `first` takes the first P recorded ranks' lateness, `folded` gives rank r the latest
    /// of the recorded ranks k ≡ r (mod P) [default: first]. The `:first`/`:folded` suffix
    /// of `--delay replay:...` says the same; when both are given they must agree.
    #[arg(long, value_enum, help_heading = LATE, hide_short_help = true)]
    pub replay_map: Option<crate::delay::models::replay::ReplayMap>,

    // ── How repetitions start ────────────────────────────────────────────────────────
    /// Process synchronisation before each repetition: window (start instants on the global
    /// clock), barrier (MPI_Barrier), dissemination (delaybench's own barrier),
    /// double-barrier, or none (back to back, as IMB).
    #[arg(long, value_enum, default_value = "window", help_heading = START)]
    pub sync: ProcessSyncMethod,
    /// Window per repetition (e.g. 500us) or `auto`: 2 x the 90th percentile of the slowest
    /// rank's warm-up operation time, plus 1.1 x the largest delay drawn, plus 2 x the waiting
    /// margin, plus 20us (and t_b with --overlap).
    #[arg(long, value_parser = parse_window, default_value = "auto", allow_hyphen_values = true,
          help_heading = START, hide_short_help = true)]
    pub window: WindowArg,
    /// Largest lateness of a rank's start after its instant (e.g. 2us) before the repetition is
    /// flagged started late, or `auto`: 1 us when ranks spin, 10 us on oversubscribed hosts.
    #[arg(long, value_parser = parse_window, default_value = "auto", allow_hyphen_values = true,
          help_heading = START, hide_short_help = true)]
    pub late_tolerance: WindowArg,

    // ── Clock ────────────────────────────────────────────────────────────────────────
    /// Clock synchronisation method (the global clock of the window and of t_global).
    #[arg(long, value_enum, default_value = "treefit", help_heading = CLOCK, hide_short_help = true)]
    pub clock_sync: ClockSyncMethod,
    /// Clock: monotonic (clock_gettime CLOCK_MONOTONIC) or wtime (MPI_Wtime).
    #[arg(long, value_enum, default_value = "monotonic", help_heading = CLOCK, hide_short_help = true)]
    pub clock: ClockSource,
    /// Drift tracking: probe clock offsets and refit the online clock models this often
    /// (e.g. 1s), between blocks and inside window-synchronised blocks; `auto` = 1 s.
    #[arg(long, value_parser = parse_window, default_value = "auto", allow_hyphen_values = true,
          help_heading = CLOCK, hide_short_help = true)]
    pub track_every: WindowArg,
    /// Turn drift tracking off (the initial models are used for the whole run).
    #[arg(long, help_heading = CLOCK, hide_short_help = true)]
    pub no_tracking: bool,
    /// Re-synchronise clocks between configurations once this long has passed since the
    /// last synchronisation (e.g. 30s) [default: only at the start].
    #[arg(long, value_parser = parse_duration_s, help_heading = CLOCK, hide_short_help = true)]
    pub resync_every: Option<f64>,

    // ── Output ───────────────────────────────────────────────────────────────────────
    /// Records file [default: `results/delaybench-<UTC time, µs>-<pid>.cbor`]. Never overwritten.
    #[arg(long, help_heading = OUTPUT)]
    pub output: Option<PathBuf>,
    /// Directory for the figures, report page and summary made at the end of the run
    /// [default: the records file's folder: `results/<stem>.cbor` gets `results/<stem>/`].
    /// It must not exist yet or be empty: outputs are never overwritten.
    #[arg(long, value_name = "DIR", help_heading = OUTPUT, hide_short_help = true)]
    pub figures: Option<PathBuf>,
    /// Draw no figures and no report page at the end of the run.
    #[arg(long, conflicts_with = "figures", help_heading = OUTPUT, hide_short_help = true)]
    pub no_figures: bool,
    /// Print no summary table and write no summary files at the end of the run (with
    /// --no-figures too, the records file is not read back at all).
    #[arg(long, help_heading = OUTPUT, hide_short_help = true)]
    pub no_summary: bool,
    /// A tag kept in the records header and on every row of `analyze` and `export`, e.g.
    /// `--tag system=cluster-a --tag mpi=openmpi-4.1` (repeatable; keys of letters, digits,
    /// `_`, `-`, `.`).
    #[arg(long = "tag", value_name = "KEY=VALUE", value_parser = parse_tag, help_heading = OUTPUT,
          hide_short_help = true)]
    pub tags: Vec<Tag>,
    /// No progress and no start line: only warnings, errors and the summary table.
    #[arg(long, short, conflicts_with = "verbose", help_heading = OUTPUT, hide_short_help = true)]
    pub quiet: bool,
    /// Also print the plan and the estimated duration before measuring.
    #[arg(long, short, help_heading = OUTPUT, hide_short_help = true)]
    pub verbose: bool,

    // ── Run control ──────────────────────────────────────────────────────────────────
    /// Study file (TOML) whose keys set these options; flags given here override it.
    #[arg(long, help_heading = RUN, hide_short_help = true)]
    pub config: Option<PathBuf>,
    /// Print the plan, its block count and estimated duration, then stop: nothing is
    /// measured and no file is written (still under mpirun, which gives the world size).
    #[arg(long, help_heading = RUN, hide_short_help = true)]
    pub dry_run: bool,
    /// With --dry-run: plan for this many ranks without MPI (no mpirun needed), as if they
    /// ran on one host; memory is then not checked.
    #[arg(long, requires = "dry_run", value_parser = clap::value_parser!(u32).range(1..),
          help_heading = RUN, hide_short_help = true)]
    pub world_size: Option<u32>,
    /// Seed of the run's random generator [default: drawn by rank 0 and recorded].
    #[arg(long, help_heading = RUN, hide_short_help = true)]
    pub seed: Option<u64>,
    /// Watchdog: end the run when a block makes no progress for this long (e.g. 60s), naming
    /// the configuration; the records file keeps every complete block. Off by default.
    #[arg(long, value_parser = parse_positive_duration, help_heading = RUN, hide_short_help = true)]
    pub timeout: Option<f64>,
    /// Largest estimated duration a run may have (e.g. 8h); longer runs are refused unless
    /// --yes is given.
    #[arg(long, value_parser = parse_positive_duration, default_value = "1h", help_heading = RUN,
          hide_short_help = true)]
    pub max_duration: f64,
    /// Run even when the estimated duration exceeds --max-duration.
    #[arg(long, help_heading = RUN, hide_short_help = true)]
    pub yes: bool,

    // ── Expert: clock synchronisation, noise ─────────────────────────────────────────
    #[command(flatten)]
    pub clock_params: ClockArgs,
    /// OS-noise detours while the operation runs: FREQ,DURATION[,sync|async], e.g.
    /// 1kHz,10us (every rank loses 10 us of CPU every ms; phases aligned with sync); or
    /// noise:FILE[,aligned|shifted] to replay the detours of a noise file of `delaybench
    /// noise` (rank r replays recorded rank r mod R, on the recorded global phases or shifted
    /// per rank; trace:FILE, its older name, is still accepted).
    #[arg(long, help_heading = EXPERT_NOISE, hide_short_help = true)]
    pub detour: Option<DetourArg>,
    /// Skip the noise check: by default every rank runs a 200 ms selfish-detour loop at once
    /// after the clock synchronisation, recorded in the header (see `delaybench noise`).
    #[arg(long, help_heading = EXPERT_NOISE, hide_short_help = true)]
    pub no_noise_check: bool,
    /// Diagnose the start spread: after every repetition read how long each rank waited on
    /// a run queue (/proc/self/schedstat) and how much time the hypervisor took from its CPU
    /// (/proc/stat steal), into the records beside the release and entry time stamps every
    /// run keeps (the records format documentation names them). Costs a few microseconds between
    /// repetitions.
    #[arg(long, help_heading = EXPERT_NOISE, hide_short_help = true)]
    pub start_path: bool,
}

/// The help of `--delay`, listing every registered delay model.
fn delay_help() -> String {
    format!(
        "Delays: durations (50us, 1.5ms) or models sampled per repetition and rank: {}. The \
         undelayed baseline is always measured too; `none` measures it alone.",
        crate::delay::models::help_list()
    )
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
                detour_noise_file: match &self.detour {
                    Some(DetourArg::NoiseFile(spec)) => Some(spec.clone()),
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
                rotate: self.rotate,
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
            start_path: self.start_path,
            tags: self.tags.clone(),
        }
    }
}
