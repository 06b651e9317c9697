//! The MPI evaluation commands `skew` and `clocksync` under mpirun.

mod common;

use common::{mpirun, text};

#[test]
fn skew_reports_every_rank_of_both_barriers_at_p_2_and_4() {
    let dir = tempfile::tempdir().unwrap();
    let out = mpirun(4, &["skew", "--nrep", "60", "--format", "csv"], dir.path());
    assert!(out.status.success(), "{}", text(&out));
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    // (barrier, P) pairs times P ranks: 2 x (2 + 4) rows.
    assert_eq!(rows.len(), 12, "{}", text(&out));
    for barrier in ["mpi_barrier", "dissemination"] {
        for p in ["2", "4"] {
            let of: Vec<_> = rows
                .iter()
                .filter(|r| &r[0] == barrier && &r[1] == p)
                .collect();
            assert_eq!(of.len(), p.parse::<usize>().unwrap(), "{barrier} P={p}");
            // Exit skew is relative to the first rank out: some rank is at 0 in every
            // repetition, so the smallest mean is small, and none is negative.
            // A configuration with no valid repetition (a loaded machine) has NaN means.
            let means: Vec<f64> = of
                .iter()
                .map(|r| r[3].parse().unwrap())
                .filter(|m: &f64| !m.is_nan())
                .collect();
            assert!(means.iter().all(|&m| m >= 0.0), "{means:?}");
            assert!(
                means.is_empty() || means.iter().copied().fold(f64::INFINITY, f64::min) < 50e-6
            );
        }
    }
}

#[test]
fn clocksync_shows_offset_only_drift_and_a_drift_aware_fit() {
    let dir = tempfile::tempdir().unwrap();
    let out = mpirun(
        2,
        &[
            "clocksync",
            "--methods",
            "offset,treefit",
            "--waits",
            "0s,1s",
            "--emulate-clock",
            "offset=1ms*rank,skew=20ppm*alt",
            "--format",
            "csv",
            "--output",
            "cs.csv",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let rows = delaybench::export::read_clocksync_csv(&dir.path().join("cs.csv")).unwrap();
    assert_eq!(rows.len(), 4);
    let true_error = |method: &str, wait: f64| {
        rows.iter()
            .find(|r| r.method == method && r.wait_s == wait)
            .and_then(|r| r.max_true_error_s)
            .unwrap()
    };
    // 40 ppm apart: an offset-only model is 40 us off after 1 s.
    assert!(true_error("offset", 0.0) < 10e-6);
    let drifted = true_error("offset", 1.0);
    assert!(
        (20e-6..80e-6).contains(&drifted),
        "offset after 1 s: {drifted}"
    );
    assert!(true_error("treefit", 1.0) < 10e-6, "treefit after 1 s");
}

#[test]
fn clocksync_long_run_mode_compares_tracking_off_and_on() {
    let dir = tempfile::tempdir().unwrap();
    let out = mpirun(
        2,
        &[
            "clocksync",
            "--methods",
            "offset",
            "--waits",
            "0s,2s",
            "--track-every",
            "500ms",
            "--emulate-clock",
            "offset=1ms*rank,skew=20ppm*rank",
            "--format",
            "csv",
            "--output",
            "cs.csv",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
    let true_error_at = |method: &str, wait: f64| -> f64 {
        let row = rows
            .iter()
            .find(|r| {
                &r[col("method")] == method && r[col("wait_s")].parse::<f64>().unwrap() == wait
            })
            .unwrap_or_else(|| panic!("no {method} row at {wait} s: {}", text(&out)));
        row[col("max_true_error_s")].parse().unwrap()
    };
    // 20 ppm for 2 s: an offset-only model is 40 us off; tracking keeps it within a few us.
    assert!(true_error_at("offset", 2.0) > 20e-6, "{}", text(&out));
    assert!(
        true_error_at("offset+tracking", 2.0) < 5e-6,
        "{}",
        text(&out)
    );
}

/// Back-to-back runs get distinct default names, and `--output` never overwrites.
#[test]
fn clocksync_never_overwrites_and_default_names_do_not_collide() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["clocksync", "--methods", "offset", "--waits", "0s"];
    for _ in 0..2 {
        let out = mpirun(2, &args, dir.path());
        assert!(out.status.success(), "{}", text(&out));
    }
    let mut written: Vec<_> = std::fs::read_dir(dir.path().join("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    written.sort();
    assert_eq!(written.len(), 2, "{written:?}");
    let before = std::fs::read(&written[0]).unwrap();
    let mut again = args.to_vec();
    let target = written[0].to_str().unwrap();
    again.extend(["--output", target]);
    let out = mpirun(2, &again, dir.path());
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("never overwritten"), "{said}");
    assert_eq!(std::fs::read(&written[0]).unwrap(), before);
}
