//! `delaybench noise` under MPI: it finds a known detour pattern on the rank that has it,
//! and a recorded noise file replays (`--detour trace:`) as the applied detours of a run.
//! Bounds are generous: the machine is shared and noisy.

mod common;

use common::{mpirun, offline, text};
use delaybench::records::noise::{read_noise, NoiseRank};

/// Detours of `r` whose length lies within ±`tol` of `len_s`: their starts.
fn near(r: &NoiseRank, len_s: f64, tol: f64) -> Vec<f64> {
    r.detour_start_global_s
        .0
        .iter()
        .zip(&r.detour_duration_s.0)
        .filter(|(_, &d)| (d - len_s).abs() <= tol * len_s)
        .map(|(&s, _)| s)
        .collect()
}

#[test]
fn noise_finds_injected_detours_on_that_rank_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = mpirun(
        2,
        &[
            "noise",
            "--duration",
            "2s",
            "--inject-detour",
            "200Hz,300us",
            "--inject-rank",
            "1",
            "--output",
            "n.cbor",
            "--figures",
            "figs",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let run = read_noise(&dir.path().join("n.cbor")).unwrap();
    assert_eq!(run.ranks.len(), 2);
    assert_eq!(run.header.injected.as_deref(), Some("rank 1: 200Hz,300us,async"));
    let (r0, r1) = (near(&run.ranks[0], 300e-6, 0.2), near(&run.ranks[1], 300e-6, 0.2));
    // 200 Hz while rank 1 had its CPU: a detour runs only when the thread runs, so on a loaded
    // machine expect 200 Hz x the time rank 1 was not detoured.
    let lost: f64 = run.ranks[1].detour_duration_s.0.iter().sum();
    let on_cpu = (run.ranks[1].end_global_s - run.ranks[1].start_global_s) - lost;
    let expected = 200.0 * on_cpu;
    assert!(
        r1.len() as f64 >= 0.4 * expected && r1.len() <= 480,
        "rank 1: {} near 300 us, expected about {expected:.0}; {}",
        r1.len(),
        text(&out)
    );
    assert!(
        r0.len() * 4 <= r1.len(),
        "rank 0: {} near 300 us, rank 1: {}",
        r0.len(),
        r1.len()
    );
    // At 200 Hz: consecutive ones lie a multiple of the 5 ms period apart (several when the
    // rank lost its CPU in between).
    let gaps: Vec<f64> = r1.windows(2).map(|w| (w[1] - w[0]) / 5e-3).collect();
    let on_period = gaps
        .iter()
        .filter(|&&g| g.round() >= 1.0 && (g - g.round()).abs() < 0.1)
        .count();
    assert!(
        on_period as f64 >= 0.7 * gaps.len() as f64,
        "{on_period} of {} spacings are multiples of 5 ms: {gaps:?}",
        gaps.len()
    );
    // On the global clock, within the loop of each rank.
    for r in &run.ranks {
        assert!(r.detour_start_global_s.0.iter().all(|&s| s >= r.start_global_s - 1e-6 && s <= r.end_global_s));
    }
    // The report names every scope; the figures and export read the file.
    let report = String::from_utf8_lossy(&out.stdout);
    for scope in ["rank 0", "rank 1", "total"] {
        assert!(report.contains(scope), "{report}");
    }
    assert!(dir.path().join("figs/noise_timeline.png").exists());
    assert!(dir.path().join("figs/noise_ecdf.png").exists());
    let path = dir.path().join("n.cbor");
    let csv = offline(&["export", path.to_str().unwrap()]);
    assert!(csv.status.success(), "{}", text(&csv));
    let rows = String::from_utf8_lossy(&csv.stdout).lines().count();
    let detours: usize = run.ranks.iter().map(|r| r.detour_duration_s.0.len()).sum();
    assert_eq!(rows, detours + 1);
    let figs = dir.path().join("again");
    let plot = offline(&["plot", path.to_str().unwrap(), "--out", figs.to_str().unwrap()]);
    assert!(plot.status.success(), "{}", text(&plot));
    assert!(figs.join("noise_ecdf.svg").exists());
    // analyze refuses it with a message that names it.
    let a = offline(&["analyze", path.to_str().unwrap()]);
    assert!(!a.status.success());
    assert!(text(&a).contains("noise file"), "{}", text(&a));
}
