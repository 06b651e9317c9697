//! The arguments of `delaybench clocksync`: the evaluation under mpirun, and with
//! `--simulate` the event-driven simulator's options and the plan they make.

use super::clock_args::ClockArgs;
use super::headings::SIMULATION;
use super::parsers::{parse_duration_s, parse_positive_duration};
use crate::clock::ClockSyncMethod;
use crate::export::{Format, TABLES};
use crate::plan::ClockSource;
#[cfg(feature = "mpi")]
use crate::run::ClockSyncEvalOptions;
use clap::Args;
use std::path::PathBuf;

/// Process counts simulated when `--procs` is not given.
pub const DEFAULT_SIM_PROCS: [usize; 4] = [2, 16, 128, 1024];

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
    /// Clock: monotonic (clock_gettime CLOCK_MONOTONIC) or wtime (MPI_Wtime).
    #[arg(long, value_enum, default_value = "monotonic")]
    pub clock: ClockSource,
    #[command(flatten)]
    pub params: ClockArgs,
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
    #[arg(long, help_heading = SIMULATION)]
    pub simulate: bool,
    #[command(flatten)]
    pub sim: SimulateArgs,
}

/// Options of the event-driven simulator (`clocksync --simulate`; see
/// `src/clock/eventsim.rs` for the latency model).
#[derive(Debug, Clone, Args)]
pub struct SimulateArgs {
    /// --simulate: runs (seeds) per method and P; the table gives median, min and max.
    #[arg(long, default_value_t = 10, help_heading = SIMULATION, hide_short_help = true)]
    pub seeds: u32,
    /// --simulate: seed of the first run (clocks, links, delays).
    #[arg(long, default_value_t = 1, help_heading = SIMULATION, hide_short_help = true)]
    pub sim_seed: u64,
    /// --simulate: base one-way latency.
    #[arg(long, value_parser = parse_duration_s, default_value = "1us", help_heading = SIMULATION, hide_short_help = true)]
    pub sim_latency: f64,
    /// --simulate: extra one-way latency per hierarchy level between two ranks (highest
    /// differing bit of their numbers).
    #[arg(long, value_parser = parse_duration_s, default_value = "250ns", help_heading = SIMULATION, hide_short_help = true)]
    pub sim_level_latency: f64,
    /// --simulate: fixed extra latency per link direction, uniform up to this (asymmetry).
    #[arg(long, value_parser = parse_duration_s, default_value = "200ns", help_heading = SIMULATION, hide_short_help = true)]
    pub sim_link_spread: f64,
    /// --simulate: extra latency of every message towards the lower rank (systematic
    /// asymmetry, which a ping-pong midpoint cannot see).
    #[arg(long, value_parser = parse_duration_s, default_value = "100ns", help_heading = SIMULATION, hide_short_help = true)]
    pub sim_uplink_extra: f64,
    /// --simulate: random extra latency per message, uniform up to this.
    #[arg(long, value_parser = parse_duration_s, default_value = "200ns", help_heading = SIMULATION, hide_short_help = true)]
    pub sim_jitter: f64,
    /// --simulate: probability of a noise spike per message.
    #[arg(long, default_value_t = 0.01, help_heading = SIMULATION, hide_short_help = true)]
    pub sim_spike_prob: f64,
    /// --simulate: largest extra delay of a spike.
    #[arg(long, value_parser = parse_duration_s, default_value = "20us", help_heading = SIMULATION, hide_short_help = true)]
    pub sim_spike: f64,
    /// --simulate: clock offsets uniform within ± this (unless --emulate-clock is given).
    #[arg(long, value_parser = parse_duration_s, default_value = "1ms", help_heading = SIMULATION, hide_short_help = true)]
    pub sim_offset: f64,
    /// --simulate: clock skews uniform within ± this many ppm (unless --emulate-clock).
    #[arg(long, default_value_t = 20.0, help_heading = SIMULATION, hide_short_help = true)]
    pub sim_skew_ppm: f64,
    /// --simulate: OS threads running seeds side by side.
    #[arg(long, default_value_t = 1, help_heading = SIMULATION, hide_short_help = true)]
    pub sim_threads: usize,
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
                DEFAULT_SIM_PROCS.to_vec()
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

/// The run side's plain options: it never sees a command-line type.
#[cfg(feature = "mpi")]
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
