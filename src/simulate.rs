//! `delaybench clocksync --simulate`: the simulated cluster of the command line's options
//! and the offline entry point (no MPI: dispatched before MPI would be initialised).

use crate::cli::ClockSyncEvalArgs;
use crate::clock::eventsim::{ClockSpread, EventSimConfig, Network};
use crate::clock::scaling::{simulate, ScalingPlan};
use crate::export::{write_simulated, ExportError};
use std::io::Write;

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
