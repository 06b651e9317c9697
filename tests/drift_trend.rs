//! Under emulated clock drift, window-synchronised t_global creeps up with an offset-only
//! clock model and stays flat with a drift-aware one (Hunold and Carpen-Amarie 2015, Fig. 7);
//! drift tracking during the run removes most of the offset-only error. The creep is judged
//! from t_global's trend where it is large (40 us/s), the small errors from the emulation's
//! truth (`analysis::true_start_spread`): t_global's own trend over 1.5 s is noisier than a
//! microsecond under some MPI libraries.

mod common;

use common::run_records;
use delaybench::analysis::{t_global_trend, true_start_spread};
use delaybench::records::Records;

/// The records of a 2-rank run with `method` and `extra` options.
fn run(method: &str, extra: &[&str]) -> Records {
    let mut args = vec![
        "--ops",
        "allreduce",
        "--sizes",
        "8",
        "--procs",
        "2",
        "--nrep",
        "1500",
        "--window",
        "1ms",
        "--emulate-clock",
        "offset=1ms*rank,skew=20ppm*alt",
        "--clock-sync",
        method,
    ];
    args.extend(extra);
    let dir = tempfile::tempdir().unwrap();
    run_records(2, dir.path(), "run.cbor", &args)
}

/// Slope of t_global (s/s) of the baseline block.
fn baseline_trend(records: &Records) -> f64 {
    let baseline = records.blocks.iter().find(|b| b.delay_s == 0.0).unwrap();
    t_global_trend(baseline)
        .unwrap_or_else(|| panic!("too few valid repetitions"))
        .slope
}

/// Largest 95th percentile, over the tenths of the baseline block, of the online global
/// clock's true error, seconds.
fn worst_clock_error(records: &Records) -> f64 {
    true_start_spread(records)
        .expect("an emulated run")
        .iter()
        .filter(|r| r.delay_model == "0")
        .map(|r| r.clock_error_p95_s)
        .fold(0.0, f64::max)
}

#[test]
fn offset_only_clocks_make_t_global_creep_and_drift_aware_ones_do_not() {
    // The emulated clocks are 40 ppm apart: an offset-only model without drift tracking lets
    // t_global grow by about 40 us per second of run, 60 us by its end.
    let untracked = run("offset", &["--no-tracking"]);
    let trend = baseline_trend(&untracked);
    assert!(
        trend > 20e-6,
        "offset-only trend without tracking {trend} s/s, expected 40e-6"
    );
    let untracked_error = worst_clock_error(&untracked);
    assert!(untracked_error > 20e-6, "{untracked_error} s");
    // Drift tracking re-measures the offset every 0.25 s: at most the 10 us gathered before
    // the first probe (40 ppm x 0.25 s), a fraction of the untracked 60 us.
    let tracked = worst_clock_error(&run("offset", &["--track-every", "250ms"]));
    assert!(
        tracked < 0.4 * untracked_error,
        "offset-only clock error p95 with tracking {tracked} s, without {untracked_error} s"
    );
    let treefit = worst_clock_error(&run("treefit", &[]));
    assert!(treefit < 2e-6, "treefit: clock error p95 {treefit} s");
}
