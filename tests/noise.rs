//! `delaybench noise` under MPI: it finds a known detour pattern on the rank that has it,
//! and a recorded noise file replays (`--detour noise:`, or `trace:`) as the applied detours of a run.
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
    assert_eq!(
        run.header.injected.as_deref(),
        Some("rank 1: 200Hz,300us,async")
    );
    let (r0, r1) = (
        near(&run.ranks[0], 300e-6, 0.2),
        near(&run.ranks[1], 300e-6, 0.2),
    );
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
        assert!(r
            .detour_start_global_s
            .0
            .iter()
            .all(|&s| s >= r.start_global_s - 1e-6 && s <= r.end_global_s));
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
    let plot = offline(&[
        "plot",
        path.to_str().unwrap(),
        "--out",
        figs.to_str().unwrap(),
    ]);
    assert!(plot.status.success(), "{}", text(&plot));
    assert!(figs.join("noise_ecdf.svg").exists());
    // info says what the file is and gives the same per-rank report.
    let info = offline(&["info", path.to_str().unwrap()]);
    assert!(info.status.success(), "{}", text(&info));
    let info_text = String::from_utf8_lossy(&info.stdout);
    for want in [
        "noise file, format delaybench-noise",
        "injected",
        "rank 1",
        "total",
    ] {
        assert!(
            info_text.contains(want),
            "`{want}` missing from:\n{info_text}"
        );
    }
    // analyze refuses it with a message that names it.
    let a = offline(&["analyze", path.to_str().unwrap()]);
    assert!(!a.status.success());
    assert!(text(&a).contains("noise file"), "{}", text(&a));
}

#[test]
fn a_recorded_trace_replays_as_the_applied_detours() {
    use delaybench::noise::schedule::schedule_for;
    let dir = tempfile::tempdir().unwrap();
    // A dense trace: this machine's noise plus 2 kHz of 40 us detours on rank 0.
    let out = mpirun(
        2,
        &[
            "noise",
            "--duration",
            "1s",
            "--inject-detour",
            "2kHz,40us",
            "--inject-rank",
            "0",
            "--output",
            "n.cbor",
            "--no-figures",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let trace = read_noise(&dir.path().join("n.cbor")).unwrap();
    let r = common::run_records(
        2,
        dir.path(),
        "run.cbor",
        &[
            "--ops",
            "allreduce",
            "--sizes",
            "8,64KiB",
            "--nrep",
            "100",
            "--delay",
            "50us",
            "--detour",
            "trace:n.cbor,shifted",
            "--seed",
            "7",
            "--figures",
            "figs",
        ],
    );
    // The records say which trace, how, and which file exactly.
    let spec = r
        .header
        .plan
        .detour_noise_file
        .clone()
        .expect("the trace is in the plan");
    assert_eq!(spec.path, "n.cbor");
    assert_eq!(spec.mode, delaybench::delay::NoiseFileMode::Shifted);
    assert_eq!(spec.recorded_ranks, 2);
    assert_eq!(
        spec.crc32c,
        crc32c::crc32c(&std::fs::read(dir.path().join("n.cbor")).unwrap())
    );
    let (mut applied, mut matched) = (0usize, 0usize);
    let mut misses = Vec::new();
    let mut lateness = Vec::new();
    for b in &r.blocks {
        let d = b.detour.as_ref().expect("every block records its detours");
        assert_eq!(d.spec, "trace:n.cbor,shifted");
        assert_eq!(d.applied.len(), b.nprocs as usize);
        for (rank, ev) in d.applied.iter().enumerate() {
            assert_eq!(ev.start_global_s.0.len() as u64, d.fired[rank].min(1 << 18));
            let sched = schedule_for(&spec, &trace, rank as u32, 7);
            for (&s, &len) in ev.start_global_s.0.iter().zip(&ev.duration_s.0) {
                applied += 1;
                // The scheduled detour this one is: due before it, at most 50 ms (a signal
                // waits for its thread to get a CPU: a time slice or two on a loaded machine),
                // at least as long, and not much longer (a preemption in the middle
                // stretches it, by a time slice at most). Lengths come from the trace to the nanosecond, so a match of
                // length within the lateness bound is specific.
                let due = sched.due_between(s - 50e-3, s + 1e-4);
                if let Some(late) = due
                    .iter()
                    .filter(|&&(_, l)| len >= 0.999 * l && len <= l + 30e-3)
                    .map(|&(t, _)| s - t)
                    .filter(|&late| late >= -1e-4)
                    .reduce(f64::min)
                {
                    matched += 1;
                    lateness.push(late);
                } else if misses.len() < 8 {
                    let near = sched.due_between(s - 20e-3, s + 20e-3);
                    misses.push(format!("rank {rank} at {s:.6} for {len:.6}: due {near:?}"));
                }
            }
        }
    }
    assert!(
        applied >= 10,
        "only {applied} detours ran during the operations"
    );
    lateness.sort_by(f64::total_cmp);
    eprintln!(
        "{matched} of {applied} applied detours follow the trace; lateness median {:.1} us, \
         90th percentile {:.1} us",
        lateness[lateness.len() / 2] * 1e6,
        lateness[lateness.len() * 9 / 10] * 1e6
    );
    // Most run on time: the median lateness is the timer's and the wake-up's, not a slice.
    assert!(
        lateness[lateness.len() / 2] < 5e-3,
        "median lateness {} s",
        lateness[lateness.len() / 2]
    );
    assert!(
        matched as f64 >= 0.9 * applied as f64,
        "{matched} of {applied} applied detours follow the trace; not: {misses:#?}"
    );
}

#[test]
fn a_bad_trace_is_refused_before_anything_is_measured() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.cbor");
    // The documented form and its older name reach the same check, which names the file
    // in the form the records keep.
    for form in ["trace", "noise"] {
        let out = offline(&[
            "--dry-run",
            "--world-size",
            "4",
            "--detour",
            &format!("{form}:{}", missing.display()),
        ]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("--detour trace:"), "{}", text(&out));
    }
    let not_noise = dir.path().join("x.cbor");
    std::fs::write(&not_noise, b"not a noise file").unwrap();
    let out = offline(&[
        "--dry-run",
        "--world-size",
        "4",
        "--detour",
        &format!("trace:{},shifted", not_noise.display()),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("records frame"), "{}", text(&out));
}

/// Without `--figures`, a noise run's figures go into the folder beside its file (as a
/// measurement run's outputs do), never into a shared `figures/`; a folder that already holds
/// files is refused before anything is measured, and no noise file is left behind.
#[test]
fn noise_figures_follow_their_file_and_are_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["noise", "--duration", "300ms", "--output", "a.cbor"];
    let out = mpirun(2, &args, dir.path());
    assert!(out.status.success(), "{}", text(&out));
    for name in ["noise_timeline.png", "noise_ecdf.png"] {
        assert!(dir.path().join("a").join(name).is_file(), "{}", text(&out));
    }
    assert!(!dir.path().join("figures").exists(), "{}", text(&out));

    let out = mpirun(
        2,
        &[
            "noise",
            "--duration",
            "300ms",
            "--output",
            "b.cbor",
            "--figures",
            "a",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("already holds files"), "{}", text(&out));
    assert!(!dir.path().join("b.cbor").exists(), "{}", text(&out));
}
