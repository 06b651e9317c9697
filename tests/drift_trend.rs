//! Under emulated clock drift, window-synchronised t_global creeps up with an offset-only
//! clock model and stays flat with a drift-aware one (Hunold and Carpen-Amarie 2015, Fig. 7);
//! drift tracking during the run removes most of the offset-only creep.

mod common;

use common::run_records;
use delaybench::analysis::t_global_trend;

/// Slope of t_global (s/s) of the baseline block of a 2-rank run with `method` and `extra`
/// options.
fn baseline_trend(method: &str, extra: &[&str]) -> f64 {
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
    let records = run_records(2, dir.path(), "run.cbor", &args);
    let baseline = records.blocks.iter().find(|b| b.delay_s == 0.0).unwrap();
    t_global_trend(baseline)
        .unwrap_or_else(|| panic!("too few valid repetitions with {method}"))
        .slope
}

#[test]
fn offset_only_clocks_make_t_global_creep_and_drift_aware_ones_do_not() {
    // The emulated clocks are 40 ppm apart: an offset-only model without drift tracking lets
    // t_global grow by about 40 us per second of run; generous bounds for a loaded machine.
    let untracked = baseline_trend("offset", &["--no-tracking"]);
    assert!(
        untracked > 20e-6,
        "offset-only trend without tracking {untracked} s/s, expected about 40e-6"
    );
    // Drift tracking re-measures the offset every 0.25 s: most of the creep goes.
    let tracked = baseline_trend("offset", &["--track-every", "250ms"]);
    assert!(
        tracked < 0.5 * untracked,
        "offset-only trend with tracking {tracked} s/s, without {untracked} s/s"
    );
    let treefit = baseline_trend("treefit", &[]);
    assert!(
        treefit.abs() < 5e-6,
        "treefit trend {treefit} s/s, expected about 0"
    );
}
