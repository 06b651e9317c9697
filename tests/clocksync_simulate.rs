//! `delaybench clocksync --simulate` runs offline (no mpirun, no MPI initialised) and prints
//! one row per method, P and wait, with median and spread over the seeds.

use std::process::Command;

#[derive(Debug, serde::Deserialize)]
struct Row {
    method: String,
    nprocs: u32,
    wait_s: f64,
    seeds: u32,
    sync_s: f64,
    error_median_s: f64,
    error_min_s: f64,
    error_max_s: f64,
}

#[test]
fn simulate_prints_error_vs_p_and_time_without_mpirun() {
    let out = Command::new(env!("CARGO_BIN_EXE_delaybench"))
        .args([
            "clocksync",
            "--simulate",
            "--procs",
            "2,33",
            "--seeds",
            "3",
            "--methods",
            "offset,treefit",
            "--waits",
            "0s,10s",
            "--format",
            "csv",
        ])
        .output()
        .expect("run delaybench");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "failed: {stderr}");
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let rows: Vec<Row> = reader.deserialize().collect::<Result<_, _>>().unwrap();
    // 2 P × 2 methods × 2 waits.
    assert_eq!(rows.len(), 8, "{rows:?}");
    for r in &rows {
        assert_eq!(r.seeds, 3, "{r:?}");
        assert!(r.error_min_s <= r.error_median_s && r.error_median_s <= r.error_max_s);
        assert!(r.sync_s > 0.0, "{r:?}");
    }
    let find = |m: &str, p: u32, w: f64| {
        rows.iter()
            .find(|r| r.method == m && r.nprocs == p && r.wait_s == w)
            .unwrap_or_else(|| panic!("no row {m} P={p} wait={w}"))
    };
    // Offset-only drifts by up to 40 ppm × 10 s; treefit follows the skew.
    for p in [2, 33] {
        assert!(find("offset", p, 10.0).error_median_s > 10e-6);
        assert!(find("treefit", p, 10.0).error_median_s < 10e-6);
    }
    assert!(stderr.contains("simulated treefit at P = 33"), "{stderr}");
}
