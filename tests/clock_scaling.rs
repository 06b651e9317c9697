//! The methods in the event-driven simulator (`clock::eventsim`, `clock::scaling`): many
//! ranks, asymmetric and hierarchical latencies, random per-rank offsets and skews; every
//! comparison over 10 seeds (median).

use delaybench::clock::eventsim::EventSimConfig;
use delaybench::clock::scaling::{simulate, ScalingPlan, ScalingRow};
use delaybench::clock::{ClockSyncMethod, ClockSyncParams};

fn plan(methods: &[ClockSyncMethod], procs: &[usize], params: ClockSyncParams) -> ScalingPlan {
    ScalingPlan {
        methods: methods.to_vec(),
        procs: procs.to_vec(),
        seeds: 10,
        waits_s: vec![0.0, 10.0],
        params,
        config: EventSimConfig::default(),
        threads: 2,
    }
}

fn row<'a>(rows: &'a [ScalingRow], method: &str, p: u32, wait_s: f64) -> &'a ScalingRow {
    rows.iter()
        .find(|r| r.method == method && r.nprocs == p && r.wait_s == wait_s)
        .unwrap_or_else(|| panic!("no row {method} P={p} wait={wait_s}"))
}

/// The faster initial sync: the default fit (50 points 1 ms apart) takes at most 55 ms at P = 2
/// (one tree level) and starts the run as accurately as the former 40 × 10 ms fit.
#[test]
fn the_short_default_fit_keeps_the_start_of_run_error() {
    let methods = [ClockSyncMethod::Treefit, ClockSyncMethod::Hca3];
    let short = simulate(
        &plan(&methods, &[2], ClockSyncParams::default()),
        &mut |_| {},
    );
    let long_params = ClockSyncParams {
        fitpoints: 40,
        fit_interval_s: 0.01,
        ..ClockSyncParams::default()
    };
    let long = simulate(&plan(&methods, &[2], long_params), &mut |_| {});
    for m in ["treefit", "hca3"] {
        let (s, l) = (row(&short, m, 2, 0.0), row(&long, m, 2, 0.0));
        eprintln!("{m}: short {s:?}\n{m}: long {l:?}");
        assert!(s.sync_s <= 0.055, "{m}: sync {} s", s.sync_s);
        assert!(
            l.sync_s > 0.3,
            "{m}: the former fit takes 0.4 s, not {}",
            l.sync_s
        );
        assert!(
            s.error_median_s <= 1.5 * l.error_median_s + 10e-9,
            "{m}: start-of-run error {} s vs {} s",
            s.error_median_s,
            l.error_median_s
        );
    }
}

/// Every method at P = 128 with hierarchical, asymmetric latencies: the drift-aware ones stay
/// within 30 µs 10 s after the sync (fits of 0.1 s), the offset-only ones drift by more.
#[test]
fn every_method_at_128_ranks() {
    let params = ClockSyncParams {
        fitpoints: 20,
        exchanges_per_fitpoint: 10,
        fit_interval_s: 0.005,
        nonimproving: 20,
        skampi_pingpongs: 20,
        rtt_pingpongs: 20,
        ..ClockSyncParams::default()
    };
    let rows = simulate(&plan(&ClockSyncMethod::ALL, &[128], params), &mut |_| {});
    assert_eq!(rows.len(), 2 * ClockSyncMethod::ALL.len());
    for m in ClockSyncMethod::ALL {
        let (at0, at10) = (
            row(&rows, m.name(), 128, 0.0),
            row(&rows, m.name(), 128, 10.0),
        );
        eprintln!("{at0:?}\n{at10:?}");
        assert_eq!(at0.seeds, 10);
        assert!(at0.error_median_s < 5e-6, "{m}: {at0:?}");
        if m.models_drift() {
            assert!(at10.error_median_s < 30e-6, "{m}: {at10:?}");
        } else {
            assert!(at10.error_median_s > 50e-6, "{m}: {at10:?}");
        }
    }
}
