//! `delaybench clocksync --simulate`: the options of the simulated cluster and the offline
//! entry point (no MPI: dispatched before MPI would be initialised).

use crate::cli::ClockSyncEvalArgs;
use crate::clock::eventsim::{ClockSpread, EventSimConfig, Network};
use crate::clock::scaling::{simulate, ScalingPlan};
use crate::export::{write_simulated, ExportError};
use crate::units::parse_duration_s;
use clap::Args;
use std::io::Write;

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

/// Process counts simulated when `--procs` is not given.
pub const DEFAULT_SIM_PROCS: [usize; 4] = [2, 16, 128, 1024];

/// The simulation `args` ask for.
pub fn plan(args: &ClockSyncEvalArgs) -> ScalingPlan {
    let s = &args.sim;
    let clocks = match &args.params.emulate_clock {
        Some(spec) => ClockSpread::Spec(spec.clone()),
        None => ClockSpread::Random {
            offset_s: s.sim_offset,
            skew: s.sim_skew_ppm * 1e-6,
        },
    };
    let mut waits_s = args.waits.clone();
    waits_s.sort_by(f64::total_cmp);
    ScalingPlan {
        methods: args.methods.clone(),
        procs: if args.procs.is_empty() {
            DEFAULT_SIM_PROCS.to_vec()
        } else {
            args.procs.iter().map(|&p| p as usize).collect()
        },
        seeds: s.seeds,
        waits_s,
        params: args.params.params(),
        config: EventSimConfig {
            network: Network {
                latency_s: s.sim_latency,
                level_latency_s: s.sim_level_latency,
                link_spread_s: s.sim_link_spread,
                uplink_extra_s: s.sim_uplink_extra,
                jitter_s: s.sim_jitter,
                spike_prob: s.sim_spike_prob,
                spike_s: s.sim_spike,
                ..Network::default()
            },
            clocks,
            seed: s.sim_seed,
            ..EventSimConfig::default()
        },
        threads: s.sim_threads,
    }
}

/// Runs the simulation and writes the rows to `out` in `args.format`; progress goes to
/// stderr as each method and P finishes. Errors: writing.
pub fn run(args: &ClockSyncEvalArgs, out: &mut dyn Write) -> Result<(), ExportError> {
    let plan = plan(args);
    let rows = simulate(&plan, &mut |rows| {
        let r = &rows[0];
        eprintln!(
            "delaybench: simulated {} at P = {}: {} seeds, sync {:.1} ms, {:.2} s wall each",
            r.method,
            r.nprocs,
            r.seeds,
            r.sync_s * 1e3,
            r.wall_s
        );
    });
    write_simulated(&rows, args.format, out)
}
