//! The arguments of `delaybench simulate`: the plan options of a measurement run, the
//! engine and its options (a platform and SMPI's collective selection; LogGOPS parameters),
//! the noise source. Turned into the measurement's plan request ([`SimulationArgs::request`])
//! and the simulation's plain options ([`SimulationArgs::options`]) here, at the edge.

use crate::clock::{ClockSyncMethod, ClockSyncParams};
use crate::delay::{parse_delay_list, DelayModel, DetourArg, RankSelection};
use crate::plan::{ClockSource, Op, Plan, ProcessSyncMethod, Request};
use crate::records::Tag;
use crate::simulate::blocks::SIM_LATE_TOLERANCE_S;
use crate::simulate::noise_source::NoiseSpec;
use crate::simulate::{EngineKind, Options, SmpiSettings};
use crate::units::{parse_duration_s, SizeList};
use clap::Args;
use std::path::PathBuf;

/// Options of `delaybench simulate` (see docs/simulate.md).
#[derive(Debug, Clone, Args)]
pub struct SimulationArgs {
    /// The engine: `loggops` (the built-in LogGOPS engine, with OS noise; needs nothing
    /// installed) or `smpi` (SimGrid's SMPI, the MPI library's algorithms on a simulated
    /// network; needs SimGrid).
    #[arg(long, default_value = "loggops", value_parser = parse_engine)]
    pub engine: EngineKind,
    /// Kernels, comma-separated (as a measurement's --ops).
    #[arg(long, value_delimiter = ',', default_value = "allreduce")]
    pub ops: Vec<Op>,
    /// Message sizes (as a measurement's --sizes: 8,1KiB or 8:1MiB).
    #[arg(long, short = 'm', default_value = "8")]
    pub sizes: SizeList,
    /// Process counts P, each one simulation of P ranks: a list (2,4,100) or the powers of two
    /// MIN:MAX (2:16384).
    #[arg(long, value_parser = parse_procs, default_value = "2,4,8,16")]
    pub procs: Procs,
    /// Ranks (within each P) that arrive late (as a measurement's --delay-rank).
    #[arg(long = "delay-rank", default_value = "0")]
    pub delay_ranks: RankSelection,
    /// Delays or delay models (as a measurement's --delay); the baseline is always simulated.
    #[arg(long, value_parser = parse_delays, default_value = "50us", allow_hyphen_values = true)]
    pub delay: Delays,
    /// OS-noise detours as a measurement's --detour, loggops engine: `noise:FILE[,aligned|shifted]`
    /// is `--noise FILE` (aligned, the default: `--noise-cosched`), FREQ,DURATION[,sync|async]
    /// is `--noise periodic:FREQ:DURATION` (sync: `--noise-cosched`). Refused by the smpi engine.
    #[arg(long, hide_short_help = true)]
    pub detour: Option<DetourArg>,
    /// The simulated ranks' OS noise (loggops engine): a noise file of `delaybench noise`
    /// (rank i replays recorded rank i mod R at a random phase from the seed),
    /// `periodic:FREQ:DURATION` (periodic:10Hz:2.5ms) or `poisson:RATE:DURATION`
    /// (poisson:1kHz:25us).
    #[arg(long, value_parser = parse_noise)]
    pub noise: Option<NoiseSpec>,
    /// With a noise file: every rank replays it at the same phase (co-scheduled noise).
    #[arg(long, hide_short_help = true)]
    pub noise_cosched: bool,
    /// How the nonblocking collectives progress (loggops engine): `async` (every operation
    /// starts as soon as its dependencies allow, as with a progress thread) or `wait` (the
    /// start posts the receives and the first step's sends; the rest runs in the wait, after
    /// --overlap-compute) [default: async].
    #[arg(long, value_parser = parse_progress, hide_short_help = true)]
    pub progress: Option<crate::simulate::loggops::Progress>,
    /// Computation between the start of a nonblocking collective and its wait, on every
    /// rank (loggops engine), e.g. 100us [default: none, the wait follows at once].
    #[arg(long, value_parser = parse_compute, value_name = "DURATION", hide_short_help = true)]
    pub overlap_compute: Option<f64>,
    /// LogGOPS parameters of the loggops engine, each with its unit, overriding the
    /// platform's: `L=2.5us,o=1.5us,g=1us,G=6ns,O=0ns,S=64KiB`.
    #[arg(long, value_name = "NAME=VALUE,...")]
    pub loggops: Option<String>,
    /// Repetitions per configuration. Without noise every repetition of a block gives the
    /// same t_global, so a few suffice.
    #[arg(long, short = 'i', default_value_t = 100)]
    pub nrep: u32,
    /// Simulate every repetition, even those whose delays repeat an earlier one's. By
    /// default each distinct delay vector is simulated once (plus 2 copies that check the
    /// simulation repeats itself): without noise the others would give the same times.
    #[arg(long, hide_short_help = true)]
    pub every_repetition: bool,
    /// Warm-up calls per block before the first window (at least 2 are made).
    #[arg(long, short = 'x', default_value_t = 10, hide_short_help = true)]
    pub warmup: u32,
    /// Window per repetition (e.g. 500us) or `auto` (2 x the 90th percentile of the slowest
    /// rank's warm-up time + 1.1 x the largest delay + 20us).
    #[arg(long, default_value = "auto", hide_short_help = true)]
    pub window: String,
    /// Seed of the delay streams [default: drawn and recorded].
    #[arg(long)]
    pub seed: Option<u64>,
    /// SimGrid platform of the smpi engine: `fat-tree` (the default), `torus`, `dragonfly`,
    /// `local` (written by --calibrate), or the path of any SimGrid platform file (XML).
    #[arg(long)]
    pub platform: Option<String>,
    /// With a platform file: the hosts the ranks run on, one name per line (`name:N` for N
    /// ranks), as smpirun's -hostfile; rank i of every P runs on the i-th entry.
    #[arg(long, hide_short_help = true)]
    pub hostfile: Option<PathBuf>,
    /// MPI ranks per simulated host of a built-in platform of the smpi engine (several ranks
    /// of a host talk over its loopback link) [default: 1].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..), hide_short_help = true)]
    pub ranks_per_host: Option<u32>,
    /// SMPI's collective selector (`smpi/coll-selector`): default, mpich, ompi, mvapich2,
    /// impi, intel.
    #[arg(long, hide_short_help = true)]
    pub coll_selector: Option<String>,
    /// Collective algorithms to sweep, by SMPI's names (e.g. rdb,lr,redbcast for allreduce;
    /// binomial_tree,flattree for bcast): one simulation and one records file per algorithm,
    /// set for the family of every --ops kernel (`smpi/<family>:<name>`).
    #[arg(long, value_delimiter = ',')]
    pub algorithms: Vec<String>,
    /// Further SimGrid options, `key:value` (repeatable), e.g. `--cfg smpi/bcast:binomial_tree`.
    #[arg(long = "cfg", value_name = "KEY:VALUE", hide_short_help = true)]
    pub cfg: Vec<String>,
    /// Measure this machine (ping-pong latency and bandwidth on 2 MPI ranks, mpirun) and
    /// write the `local` platform from them, then stop.
    #[arg(long)]
    pub calibrate: bool,
    /// Records file [default: `results/simulated-<UTC time, µs>-<pid>.cbor`]. Never overwritten.
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// A tag kept in the header and on every analyze/export row (repeatable).
    #[arg(long = "tag", value_name = "KEY=VALUE")]
    pub tags: Vec<Tag>,
    /// Draw no figures and no report page at the end.
    #[arg(long)]
    pub no_figures: bool,
    /// Print no summary table and write no summary files at the end.
    #[arg(long, hide_short_help = true)]
    pub no_summary: bool,
    /// Keep the simulator's work files (plan, delays, output, logs) and say where.
    #[arg(long, hide_short_help = true)]
    pub keep_files: bool,
}

fn parse_engine(s: &str) -> Result<EngineKind, String> {
    s.parse()
}

fn parse_progress(s: &str) -> Result<crate::simulate::loggops::Progress, String> {
    s.parse()
}

/// `--overlap-compute`: a positive duration, seconds.
fn parse_compute(s: &str) -> Result<f64, String> {
    match parse_duration_s(s) {
        Ok(t) if t > 0.0 && t.is_finite() => Ok(t),
        Ok(_) => Err(format!("'{s}': must be a positive duration, e.g. 100us")),
        Err(e) => Err(e.to_string()),
    }
}

fn parse_noise(s: &str) -> Result<NoiseSpec, String> {
    s.parse()
}

/// `--delay`: the delay models in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Delays(pub Vec<DelayModel>);

fn parse_delays(s: &str) -> Result<Delays, String> {
    parse_delay_list(s).map(Delays).map_err(|e| e.to_string())
}

/// `--procs`: process counts in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Procs(pub Vec<u32>);

/// `2,4,100` or `2:16384` (powers of two from MIN to MAX, MIN a power of two).
fn parse_procs(s: &str) -> Result<Procs, String> {
    let num = |t: &str| {
        t.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{t}' is not a process count"))
    };
    if let Some((a, b)) = s.split_once(':') {
        let (a, b) = (num(a)?, num(b)?);
        if !a.is_power_of_two() || a > b {
            return Err(format!("'{s}': MIN:MAX needs a power of two MIN <= MAX"));
        }
        return Ok(Procs(
            std::iter::successors(Some(a), |&p| p.checked_mul(2))
                .take_while(|&p| p <= b)
                .collect(),
        ));
    }
    s.split(',').map(num).collect::<Result<_, _>>().map(Procs)
}

impl SimulationArgs {
    /// The fixed window in seconds, or `None` for `auto`. Errors: the duration's message.
    pub fn window_s(&self) -> Result<Option<f64>, String> {
        if self.window == "auto" {
            return Ok(None);
        }
        match parse_duration_s(&self.window) {
            Ok(w) if w > 0.0 => Ok(Some(w)),
            Ok(_) => Err(format!("--window {}: must be positive", self.window)),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The plan request these options state, with the window `window_s` ([`Self::window_s`]):
    /// what a simulation fixes (window synchronisation on `MPI_Wtime`, one clock, no
    /// detours) stated as a measurement's plan. Replays are not settled (see
    /// [`Request::replay`]).
    pub fn request(&self, window_s: Option<f64>) -> Request {
        Request {
            stated: Plan {
                ops: self.ops.clone(),
                sizes: self.sizes.bytes.clone(),
                procs: self.procs.0.clone(),
                subcomm: Default::default(),
                delay_ranks: self.delay_ranks.clone(),
                delays: self.delay.0.clone(),
                detour: None,
                detour_noise_file: None,
                nrep: self.nrep,
                warmup: self.warmup,
                sync: ProcessSyncMethod::Window,
                window_s,
                late_tolerance_s: Some(SIM_LATE_TOLERANCE_S),
                clock: ClockSource::Wtime,
                // Replaced by the builder: `seed` below, or the drawn one.
                seed: 0,
                clock_sync: ClockSyncMethod::Offset,
                clock_params: ClockSyncParams::default(),
                resync_every_s: None,
                emulate_clock: None,
                track_every_s: None,
                timeout_s: None,
                overlap: None,
                adaptive: None,
                algorithms: None,
                algorithm_from_env: false,
                rotate: 0,
            },
            seed: self.seed,
            replay: None,
        }
    }

    /// The options of the smpi engine alone that were given, by their flags: the loggops
    /// engine refuses them rather than ignore them.
    fn smpi_options_given(&self) -> Vec<&'static str> {
        [
            ("--platform", self.platform.is_some()),
            ("--hostfile", self.hostfile.is_some()),
            ("--ranks-per-host", self.ranks_per_host.is_some()),
            ("--coll-selector", self.coll_selector.is_some()),
            ("--cfg", !self.cfg.is_empty()),
        ]
        .into_iter()
        .filter_map(|(flag, given)| given.then_some(flag))
        .collect()
    }

    /// The simulation's options besides its plan: plain data for `simulate::run`.
    pub fn options(&self) -> Options {
        Options {
            engine: self.engine,
            smpi: SmpiSettings {
                platform: self.platform.clone().unwrap_or_else(|| "fat-tree".into()),
                hostfile: self.hostfile.clone(),
                ranks_per_host: self.ranks_per_host.unwrap_or(1),
                coll_selector: self.coll_selector.clone(),
                cfg: self.cfg.clone(),
            },
            smpi_options: self.smpi_options_given(),
            algorithms: self.algorithms.clone(),
            every_repetition: self.every_repetition,
            detour: self.detour.clone(),
            noise: self.noise.clone(),
            noise_cosched: self.noise_cosched,
            progress: self.progress,
            overlap_compute_s: self.overlap_compute,
            loggops: self.loggops.clone(),
            output: self.output.clone(),
            tags: self.tags.clone(),
            no_figures: self.no_figures,
            no_summary: self.no_summary,
            keep_files: self.keep_files,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn procs_take_lists_and_power_of_two_ranges() {
        assert_eq!(parse_procs("2,4,100").unwrap().0, vec![2, 4, 100]);
        assert_eq!(parse_procs("2:16").unwrap().0, vec![2, 4, 8, 16]);
        assert_eq!(parse_procs("4:20").unwrap().0, vec![4, 8, 16]);
        assert!(parse_procs("3:16").is_err());
        assert!(parse_procs("2,x").is_err());
    }
}
