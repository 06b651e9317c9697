//! Overlap mode of the nonblocking kernels and adaptive repetitions in real runs. Bounds are
//! generous: the machine may be loaded.

mod common;

use common::{offline, run_records, text};
use delaybench::analysis::overlap_rows;
use delaybench::records::Records;
use std::path::Path;

const NONBLOCKING: &str = "ibarrier,ibcast,ireduce,iallreduce,ialltoall";

fn run(dir: &Path, name: &str, args: &[&str]) -> Records {
    let mut all = vec!["--procs", "2", "--clock-sync", "offset"];
    all.extend_from_slice(args);
    run_records(2, dir, name, &all)
}

#[test]
fn time_based_overlap_runs_for_every_nonblocking_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(
        dir.path(),
        "time.cbor",
        &[
            "--ops",
            NONBLOCKING,
            "--sizes",
            "8",
            "--nrep",
            "15",
            "--overlap",
            "time",
        ],
    );
    // Five kernels, each a baseline and a 50 us late arrival.
    assert_eq!(r.blocks.len(), 10);
    for b in &r.blocks {
        let o = b
            .overlap
            .as_ref()
            .unwrap_or_else(|| panic!("{} has no parts", b.op));
        assert!(b.shape_ok(), "{}", b.op);
        assert_eq!((o.mode.as_str(), o.tests_per_rep), ("time", 0));
        assert!(o.t_pure_s > 0.0, "{}: t_b {}", b.op, o.t_pure_s);
        for i in 0..b.t_start_local_s.0.len() {
            let overall = b.t_end_local_s.0[i] - b.t_start_local_s.0[i];
            let compute = o.compute_s.0[i];
            // Time-based: every rank computes at least t_b, and the parts fit in overall.
            assert!(compute >= o.t_pure_s, "{}: compute {compute} < t_b", b.op);
            assert!(
                overall >= compute,
                "{}: overall {overall} < compute {compute}",
                b.op
            );
            let parts = o.post_s.0[i] + compute + o.test_s.0[i] + o.wait_s.0[i];
            assert!(
                parts <= overall + 1e-9,
                "{}: parts {parts} > {overall}",
                b.op
            );
        }
    }
    let rows = overlap_rows(&r);
    // One row per block with a valid repetition (a loaded machine may spoil a whole block),
    // and per undelayed block even without one: OSU and IMB use every repetition.
    let with_valid = r
        .blocks
        .iter()
        .filter(|b| (0..b.nrep as usize).any(|i| b.rep_valid(i)) || b.delay_s == 0.0)
        .count();
    assert!(
        with_valid >= 5 && rows.len() == with_valid,
        "{} rows",
        rows.len()
    );
    for row in &rows {
        if let (Some(overall), Some(compute)) = (row.overall_s, row.compute_s) {
            assert!(overall >= compute, "{row:?}");
        }
        // OSU and IMB apply to undelayed blocks only, which have a pure pass per rank.
        if row.delay_s > 0.0 {
            assert_eq!((row.overlap_osu_pct, row.overlap_imb_pct), (None, None));
            assert!(row.tools_na.is_some(), "{row:?}");
        } else {
            assert!(row.osu_t_pure_s.unwrap() > 0.0, "{row:?}");
            assert!(row.overlap_osu_pct.unwrap() >= 0.0, "{row:?}");
            assert!(
                (0.0..=100.0).contains(&row.overlap_imb_pct.unwrap()),
                "{row:?}"
            );
        }
        // Late arrivals get a hidden share of the delay (not clipped: any finite value);
        // baselines none.
        match row.hidden_delay_s {
            Some(h) => assert!(row.delay_s > 0.0 && h.is_finite()),
            // A delayed block without a valid baseline has nothing to compare with. The
            // baseline's row is there even when load spoiled all its repetitions, so ask the
            // records whether it had a valid one, not the number of rows.
            None => {
                let baseline_valid = r.blocks.iter().any(|b| {
                    (b.op, b.bytes, b.nprocs) == (row.op, row.bytes, row.nprocs)
                        && b.delay_s == 0.0
                        && (0..b.nrep as usize).any(|i| b.rep_valid(i))
                });
                assert!(row.delay_s == 0.0 || !baseline_valid, "{row:?}")
            }
        }
    }
    let out = offline(&[
        "analyze",
        &dir.path().join("time.cbor").display().to_string(),
        "--overlap",
    ]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        table.contains("overlap OSU 7.4 (%)") && table.contains("ialltoall"),
        "{table}"
    );
}

#[test]
fn time_own_sizes_each_ranks_computation_to_its_own_pure_time() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(
        dir.path(),
        "own.cbor",
        &[
            "--ops",
            "iallreduce",
            "--sizes",
            "8",
            "--nrep",
            "20",
            "--overlap",
            "time-own",
            "--sync",
            "barrier",
        ],
    );
    assert_eq!(r.blocks.len(), 2);
    // Barrier synchronisation has no start spread, so the library's first instructions are
    // not timed for it.
    assert!(r.header.call_entry.is_none(), "{:?}", r.header.call_entry);
    for b in &r.blocks {
        let o = b.overlap.as_ref().unwrap();
        assert_eq!(o.mode, "time-own");
        let pure = o.pure_pass.as_ref().expect("a pure pass per overlap block");
        assert_eq!((pure.nrep, pure.mean_s.0.len()), (20, 2));
        assert_eq!(pure.slowest_s.0.len(), 20);
        // Rank 0's computation was sized to rank 0's own mean, and every rank computed at
        // least its own.
        assert_eq!(o.t_pure_s, pure.mean_s.0[0]);
        for rep in 0..b.nrep as usize {
            for rank in 0..2 {
                let c = o.compute_s.0[b.idx(rep, rank)];
                assert!(c >= pure.mean_s.0[rank], "rank {rank}: {c} < own mean");
            }
        }
    }
}

#[test]
fn overlap_blocks_longer_than_a_chunk_keep_every_chunks_parts() {
    let dir = tempfile::tempdir().unwrap();
    // 1,500 repetitions of 1 ms windows: each block is written as two chunks of about 1 s.
    let r = run(
        dir.path(),
        "long.cbor",
        &[
            "--ops",
            "iallreduce",
            "--sizes",
            "8",
            "--nrep",
            "1500",
            "--window",
            "1ms",
            "--overlap",
            "time",
        ],
    );
    let bytes = std::fs::read(dir.path().join("long.cbor")).unwrap();
    let frames = bytes.windows(4).filter(|w| *w == b"DBR2").count();
    // Header, 2 blocks of (2 chunks and an end), footer; unchunked it would be 4 frames.
    assert_eq!(frames, 8, "frames in the file");
    assert_eq!(r.blocks.len(), 2);
    for b in &r.blocks {
        assert_eq!(b.nrep, 1500);
        let o = b.overlap.as_ref().expect("overlap parts");
        assert!(
            b.shape_ok(),
            "{} B delay {}: overlap parts of every chunk",
            b.bytes,
            b.delay_s
        );
        // Every repetition's parts were measured, none left as the zeros of a missing chunk.
        assert!(o.compute_s.0.iter().all(|&c| c >= o.t_pure_s));
    }
}

#[test]
fn work_based_overlap_calls_test_per_interval() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(
        dir.path(),
        "work.cbor",
        &[
            "--ops",
            "iallreduce,ibcast",
            "--sizes",
            "4KiB",
            "--nrep",
            "10",
            "--overlap",
            "work",
            "--test-interval",
            "1KiB",
        ],
    );
    for b in &r.blocks {
        let o = b.overlap.as_ref().unwrap();
        // Hoefler et al. 2010, §4.2: floor(4096 / 1024) + 1 tests, which take some time.
        assert_eq!((o.mode.as_str(), o.tests_per_rep), ("work", 5));
        assert_eq!(o.test_interval_bytes, Some(1024));
        assert!(o.workload > 0, "work-based needs a calibrated workload");
        assert!(o.test_s.0.iter().all(|&t| t > 0.0), "{}", b.op);
    }
}

/// Adaptive blocks of one run: (delay, reached, converged).
fn ends(r: &Records) -> Vec<(f64, u32, bool)> {
    r.blocks
        .iter()
        .map(|b| {
            let a = b.adaptive.as_ref().expect("adaptive record");
            assert_eq!(a.reached, b.nrep);
            assert!(b.shape_ok());
            (b.delay_s, a.reached, a.converged)
        })
        .collect()
}

#[test]
fn adaptive_repetitions_stop_early_when_quiet_and_run_to_the_maximum_when_noisy() {
    let dir = tempfile::tempdir().unwrap();
    let bounds = [
        "--ops",
        "allreduce",
        "--sizes",
        "64KiB",
        "--nrep-min",
        "10",
        // Room for a quiet run on a loaded 2-core host (it stopped unconverged at 40 once in
        // CI), still short of the ~85 the noisy run needs.
        "--nrep-max",
        "60",
        "--ci-rel",
        "0.2",
        // Only valid repetitions count; on a loaded machine a 1 us late-start tolerance
        // leaves too few of them for any interval.
        "--late-tolerance",
        "50us",
    ];
    // Quiet: a 1 us late arrival barely changes a ~100 us allreduce.
    let mut quiet_args = bounds.to_vec();
    quiet_args.extend(["--delay", "1us"]);
    let quiet = run(dir.path(), "quiet.cbor", &quiet_args);
    for (delay, reached, converged) in ends(&quiet) {
        assert!(
            converged && reached < 60,
            "quiet δ={delay}: stopped at {reached}"
        );
    }
    // Noisy: rank 0 late by an exponential delay of mean 1 ms, so t_global varies by about
    // 90 %: the interval needs about 85 repetitions to reach ±20 %. With a drawn seed, 60
    // exponential delays sometimes land close enough for ±20 % (CI, 2026-11-28: "stopped at
    // 60" converged; the expected half-width there is only 0.23). Seed 2's delays keep the
    // half-width at 0.29 or more from the 10th repetition to the 60th (the milliseconds of
    // delay, not the machine's microseconds, set it), so the run goes to the maximum for
    // the reason the test names.
    let mut noisy_args = bounds.to_vec();
    noisy_args.extend(["--delay", "exp:1ms", "--seed", "2"]);
    let noisy = run(dir.path(), "noisy.cbor", &noisy_args);
    let (_, reached, converged) = ends(&noisy)[1];
    assert!(
        !converged && reached == 60,
        "noisy: stopped at {reached}, converged {converged}, relative half-width {}",
        noisy.blocks[1].adaptive.as_ref().unwrap().rel_error
    );
    // It is the spread that kept it going, not a lack of valid repetitions.
    let b = &noisy.blocks[1];
    let valid = (0..b.nrep as usize).filter(|&i| b.rep_valid(i)).count();
    assert!(valid >= 10, "noisy: only {valid} valid repetitions");
    let rel = b.adaptive.as_ref().unwrap().rel_error;
    assert!(rel > 0.2, "noisy: final relative half-width {rel}");
}

#[test]
fn schemes_prints_every_scheme_at_p_2_and_4() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::mpirun(
        4,
        &[
            "schemes",
            "--procs",
            "2,4",
            "--sizes",
            "8",
            "--nrep",
            "30",
            "--clock-sync",
            "offset",
            "--format",
            "json",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let schemes = |op: &str, p: u64| -> Vec<String> {
        rows.iter()
            .filter(|r| r["op"] == op && r["nprocs"] == p)
            .map(|r| r["scheme"].as_str().unwrap().to_string())
            .collect()
    };
    for p in [2, 4] {
        assert_eq!(
            schemes("bcast", p),
            delaybench::analysis::SCHEMES.map(|s| s.0.to_string())
        );
        assert_eq!(
            schemes("allreduce", p),
            delaybench::analysis::SCHEMES[..8]
                .iter()
                .map(|s| s.0.to_string())
                .collect::<Vec<_>>()
        );
    }
    let window_valid = |r: &serde_json::Value| {
        rows.iter()
            .find(|w| w["scheme"] == "window" && w["op"] == r["op"] && w["nprocs"] == r["nprocs"])
            .map(|w| w["n"].as_u64().unwrap())
            .unwrap()
    };
    for r in rows.iter().filter(|r| r["scheme"] != "window") {
        let t = r["time_s"].as_f64().unwrap();
        // Positive and below a generous 50 ms per 8 B operation; compared with the window
        // whenever the window kept a valid repetition (a loaded machine may leave none).
        // MPIBlib's root timing subtracts the confirmation's time and may go below 0 for
        // small messages; every other scheme is a positive time.
        if r["scheme"] == "root-mpiblib" {
            assert!(t.abs() < 0.05, "{r}");
        } else {
            assert!(t > 0.0 && t < 0.05, "{r}");
        }
        assert_eq!(r["n"], 30, "{r}");
        assert_eq!(r["vs_window"].is_null(), window_valid(r) == 0, "{r}");
    }
}
