//! Under emulated clock drift, window-synchronised t_global creeps up with an offset-only
//! clock model and stays flat with a drift-aware one (Hunold and Carpen-Amarie 2015, Fig. 7).

mod common;

use common::run_records;
use delaybench::analysis::t_global_trend;

/// Slope of t_global (s/s) of the baseline block of a 2-rank run with `method`.
fn baseline_trend(method: &str) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let records = run_records(
        2,
        dir.path(),
        "run.cbor",
        &[
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
        ],
    );
    let baseline = records.blocks.iter().find(|b| b.delay_s == 0.0).unwrap();
    t_global_trend(baseline)
        .unwrap_or_else(|| panic!("too few valid repetitions with {method}"))
        .slope
}

#[test]
fn offset_only_clocks_make_t_global_creep_and_drift_aware_ones_do_not() {
    // The emulated clocks are 40 ppm apart: an offset-only model lets t_global grow by about
    // 40 us per second of run; generous bounds for a loaded 2-core machine.
    let offset = baseline_trend("offset");
    assert!(
        offset > 20e-6,
        "offset-only trend {offset} s/s, expected about 40e-6"
    );
    let treefit = baseline_trend("treefit");
    assert!(
        treefit.abs() < 5e-6,
        "treefit trend {treefit} s/s, expected about 0"
    );
}
