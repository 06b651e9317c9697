//! `delaybench simulate --engine loggops`: the built-in engine writes a records file that
//! `analyze` reads as a measurement's, a late rank costs what the model says, and noise
//! only lengthens the calls. It is the default engine and needs nothing installed beyond
//! the build; a measurement's `--detour` names its noise.

use std::path::Path;
use std::process::{Command, Output};

fn delaybench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_delaybench"))
        .args(args)
        .output()
        .expect("delaybench runs")
}

fn simulate(out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "simulate",
        "--engine",
        "loggops",
        "--ops",
        "allreduce,iallreduce",
        "--sizes",
        "8",
        "--procs",
        "2,4,64",
        "--delay-rank",
        "0",
        "--delay",
        "50us",
        "--nrep",
        "30",
        "--no-figures",
        "--output",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    delaybench(&args)
}

/// Per (op, P, delay) the median t_global of the `analyze --format csv` rows, seconds.
fn medians(file: &Path) -> Vec<(String, u32, f64, f64)> {
    let out = delaybench(&["analyze", file.to_str().unwrap(), "--format", "csv"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut r = csv::Reader::from_reader(&out.stdout[..]);
    let h = r.headers().unwrap().clone();
    let col = |name: &str| {
        h.iter()
            .position(|c| c == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let (op, p, d, m) = (
        col("op"),
        col("nprocs"),
        col("delay_s"),
        col("t_global_median_s"),
    );
    r.records()
        .map(|x| {
            let x = x.unwrap();
            (
                x[op].to_string(),
                x[p].parse().unwrap(),
                x[d].parse().unwrap(),
                x[m].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_loggops_simulation_is_read_as_a_measurement_and_a_late_rank_costs_the_delay_at_p_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sim.cbor");
    let run = simulate(&file, &[]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    let info = delaybench(&["info", file.to_str().unwrap()]);
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(info.contains("LogGOPS"), "{info}");
    let rows = medians(&file);
    // 2 ops x 3 P x (baseline, 50 us).
    assert_eq!(rows.len(), 12, "{rows:?}");
    let at = |op: &str, p: u32, d: f64| {
        rows.iter()
            .find(|r| r.0 == op && r.1 == p && (r.2 - d).abs() < 1e-12)
            .map(|r| r.3)
            .unwrap_or_else(|| panic!("{op} {p} {d}: {rows:?}"))
    };
    // Without noise the model is exact: at P = 2 the delayed call takes t0 + 50 us.
    let (t0, t50) = (at("allreduce", 2, 0.0), at("allreduce", 2, 50e-6));
    assert!((t50 - t0 - 50e-6).abs() < 1e-9, "t0 {t0} t50 {t50}");
    // More ranks take longer.
    assert!(at("allreduce", 64, 0.0) > at("allreduce", 4, 0.0));
}

#[test]
fn noise_lengthens_the_calls_and_bad_parameters_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let quiet = dir.path().join("quiet.cbor");
    let noisy = dir.path().join("noisy.cbor");
    assert!(simulate(&quiet, &[]).status.success());
    let run = simulate(&noisy, &["--noise", "periodic:1kHz:20us"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let (q, n) = (medians(&quiet), medians(&noisy));
    let sum = |rows: &[(String, u32, f64, f64)]| rows.iter().map(|r| r.3).sum::<f64>();
    assert!(sum(&n) > sum(&q), "noise made nothing longer: {n:?} {q:?}");
    let bad = simulate(&dir.path().join("bad.cbor"), &["--loggops", "L=2.5"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--loggops"));
}

/// `simulate` without `--engine` runs the loggops engine, with nothing on PATH (no
/// `smpicc`, `smpirun` or `mpirun` to find), and its header says so.
#[test]
fn the_default_engine_is_loggops_and_needs_nothing_on_path() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty-bin");
    std::fs::create_dir(&empty).unwrap();
    let file = dir.path().join("default.cbor");
    let run = Command::new(env!("CARGO_BIN_EXE_delaybench"))
        .args(["simulate", "--procs", "2,4", "--nrep", "5", "--no-figures"])
        .args(["--no-summary", "--output", file.to_str().unwrap()])
        .env("PATH", &empty)
        .output()
        .expect("delaybench runs");
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    let sim = delaybench::records::read_records(&file)
        .unwrap()
        .header
        .simulation
        .expect("marked as simulated");
    assert_eq!(sim.engine_option, "loggops", "{sim:?}");
}

/// `--detour FREQ,DURATION,async` is `--noise periodic:FREQ:DURATION` (the same t_global
/// for the same seed); given with `--noise` it is refused, and so is an option of the smpi
/// engine alone with the loggops engine.
#[test]
fn a_measurement_s_detour_is_the_noise_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let (by_noise, by_detour) = (
        dir.path().join("noise.cbor"),
        dir.path().join("detour.cbor"),
    );
    let seeded = |out: &Path, noise: &[&str]| {
        let mut args = vec!["--seed", "11"];
        args.extend_from_slice(noise);
        let run = simulate(out, &args);
        assert!(
            run.status.success(),
            "{noise:?}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
    };
    seeded(&by_noise, &["--noise", "periodic:1kHz:20us"]);
    seeded(&by_detour, &["--detour", "1kHz,20us,async"]);
    let (n, d) = (medians(&by_noise), medians(&by_detour));
    assert_eq!(n, d);
    // The noise lengthened something, so the comparison above compared noisy runs.
    let quiet = dir.path().join("quiet.cbor");
    seeded(&quiet, &[]);
    let sum = |rows: &[(String, u32, f64, f64)]| rows.iter().map(|r| r.3).sum::<f64>();
    assert!(sum(&d) > sum(&medians(&quiet)), "{d:?}");
    for (args, names) in [
        (
            &["--detour", "1kHz,20us", "--noise", "periodic:1kHz:20us"][..],
            "--detour",
        ),
        (&["--platform", "torus"][..], "--platform"),
        (&["--cfg", "smpi/bcast:binomial_tree"][..], "--cfg"),
    ] {
        let out = dir.path().join("refused.cbor");
        let run = simulate(&out, args);
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(names), "{args:?} should name {names}: {err}");
        assert!(!out.exists(), "{args:?} wrote a file");
    }
}

/// `--progress` through the binary: with a 100 us overlap computation, 8 B iallreduce at
/// P = 2 and 4 (LogGOPSim's default parameters, no noise, so every repetition of a block
/// takes the same time), `async` takes the computation's 100 us and `wait` the computation
/// plus what of the collective is left at the wait: the start's send o = 1.5 us, the first
/// receive o + 7G = 1.542 us and one whole step 2o + L + 7G = 5.542 us per step after the
/// first (docs/simulate.md). Rank 0 late by 50 us adds the delay under async, and under
/// wait the delay plus o + 7G per step after the first (the late rank takes its partners'
/// waiting messages before its own later sends). The header names the model. The options
/// it does not apply to are refused before anything runs.
#[test]
fn the_progression_model_is_chosen_recorded_and_changes_t_global_as_the_model_says() {
    let dir = tempfile::tempdir().unwrap();
    let run = |progress: &str| {
        let file = dir.path().join(format!("{progress}.cbor"));
        let out = delaybench(&[
            "simulate",
            "--ops",
            "iallreduce",
            "--procs",
            "2,4",
            "--delay",
            "50us",
            "--nrep",
            "6",
            "--overlap-compute",
            "100us",
            "--progress",
            progress,
            "--no-figures",
            "--output",
            file.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{progress}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let header = delaybench::records::read_records(&file)
            .unwrap()
            .header
            .simulation
            .expect("marked as simulated");
        let model = header.progress.expect("the header names the progression");
        assert!(
            model.starts_with(&format!("{progress}:")) && model.contains("100us"),
            "{model}"
        );
        medians(&file)
    };
    let at = |rows: &[(String, u32, f64, f64)], p: u32, d: f64| {
        rows.iter()
            .find(|r| r.1 == p && (r.2 - d).abs() < 1e-12)
            .map(|r| r.3)
            .unwrap_or_else(|| panic!("{p} {d}: {rows:?}"))
    };
    let (asynchronous, in_wait) = (run("async"), run("wait"));
    for (p, wait_us, extra_us) in [(2, 103.042, 0.0), (4, 108.584, 1.542)] {
        for (rows, want_us, extra_us) in
            [(&asynchronous, 100.0, 0.0), (&in_wait, wait_us, extra_us)]
        {
            for delay in [0.0, 50e-6] {
                let t = at(rows, p, delay);
                let late_extra = if delay > 0.0 { extra_us * 1e-6 } else { 0.0 };
                let want = want_us * 1e-6 + delay + late_extra;
                // The engine's times are exact to the nanosecond; the records' f64 seconds
                // keep them to far better than 1 ps.
                assert!((t - want).abs() < 1e-12, "P {p} δ {delay}: {t} vs {want}");
            }
        }
    }
    let dir2 = tempfile::tempdir().unwrap();
    for (args, names) in [
        (&["--progress", "wait"][..], "--progress"),
        (&["--progress", "wait"][..], "iallreduce"),
        (
            &["--ops", "iallreduce", "--progress", "wait"][..],
            "--overlap-compute",
        ),
        (&["--noise-cosched"][..], "add --noise"),
        (
            &["--ops", "iallreduce", "--overlap-compute", "0us"][..],
            "positive",
        ),
        (
            &["--ops", "iallreduce", "--progress", "sometimes"][..],
            "async, wait",
        ),
    ] {
        let out = dir2.path().join("refused.cbor");
        let mut all = vec![
            "simulate",
            "--no-figures",
            "--output",
            out.to_str().unwrap(),
        ];
        all.extend_from_slice(args);
        let r = delaybench(&all);
        let err = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(names), "{args:?} should name {names}: {err}");
        assert!(!out.exists(), "{args:?} wrote a file");
    }
}
