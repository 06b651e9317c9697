//! The run as people see it: `--dry-run`, `--quiet`, `--verbose` and shell completions.

mod common;

use common::{mpirun, offline, text};

#[test]
fn dry_run_prints_plan_and_estimate_without_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--dry-run",
        "--ops",
        "bcast,allreduce",
        "--sizes",
        "8,64",
        "--window",
        "1ms",
        "--nrep",
        "10",
        "--output",
        "out/run.cbor",
    ];
    let out = mpirun(2, &args, dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}", text(&out));
    // 2 ops x 2 sizes x P = 2 x (baseline + 50us) = 8 blocks of 10 repetitions of 1 ms.
    let estimate = stderr
        .lines()
        .find(|l| l.contains("plan: estimate"))
        .unwrap_or_else(|| panic!("no estimate line\n{}", text(&out)));
    assert!(
        estimate.contains("8 blocks, 80 repetitions of 1ms"),
        "{estimate}"
    );
    assert!(
        !estimate.contains("at least"),
        "a fixed window gives an estimate: {estimate}"
    );
    assert!(
        stderr.contains("plan: sizes         8B, 64B"),
        "{}",
        text(&out)
    );
    assert!(stderr.contains("nothing measured"), "{}", text(&out));
    assert!(
        !dir.path().join("out/run.cbor").exists(),
        "a dry run wrote records"
    );
}

#[test]
fn dry_run_shows_estimates_a_real_run_would_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let out = mpirun(2, &["--dry-run", "--delay", "1000000000s"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("plan: estimate") && l.contains("years")),
        "{}",
        text(&out)
    );
}

#[test]
fn quiet_run_prints_no_start_line_nor_progress() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--quiet",
        "--ops",
        "barrier",
        "--nrep",
        "5",
        "--clock-sync",
        "offset",
        "--output",
        "q.cbor",
    ];
    let out = mpirun(2, &args, dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(dir.path().join("q.cbor").exists(), "{}", text(&out));
    assert!(
        !stderr.contains("ranks on 1 host"),
        "start line shown\n{}",
        text(&out)
    );
    assert!(
        !stderr.contains("blocks]"),
        "progress shown\n{}",
        text(&out)
    );
    // The summary still comes.
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("barrier"),
        "{}",
        text(&out)
    );
}

#[test]
fn verbose_run_prints_the_plan_first() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--verbose",
        "--ops",
        "barrier",
        "--nrep",
        "5",
        "--clock-sync",
        "offset",
        "--output",
        "v.cbor",
    ];
    let out = mpirun(2, &args, dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(dir.path().join("v.cbor").exists(), "{}", text(&out));
    let plan = stderr.find("plan: estimate").expect("plan printed");
    let start = stderr.find("ranks on 1 host").expect("start line");
    assert!(
        plan < start,
        "the plan comes before measuring\n{}",
        text(&out)
    );
}

#[test]
fn completions_for_each_shell_name_the_options() {
    for shell in ["bash", "zsh", "fish"] {
        let out = offline(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", text(&out));
        let script = String::from_utf8_lossy(&out.stdout);
        for option in ["dry-run", "max-duration", "clocksync"] {
            assert!(script.contains(option), "{shell}: no {option}");
        }
    }
    let out = offline(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn a_window_shorter_than_the_warm_up_needs_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--window",
        "1us",
        "--ops",
        "barrier",
        "--nrep",
        "5",
        "--clock-sync",
        "offset",
        "--output",
        "w.cbor",
    ];
    let out = mpirun(2, &args, dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    // One configuration, one warning; the records are kept whatever the validity.
    let warned = stderr
        .lines()
        .filter(|l| l.contains("--window 1us is shorter than"))
        .count();
    assert_eq!(warned, 1, "{}", text(&out));
    assert!(dir.path().join("w.cbor").exists(), "{}", text(&out));
}

#[test]
fn the_helpers_know_the_no_valid_exit_status() {
    assert_eq!(
        common::NO_VALID_EXIT,
        i32::from(delaybench::exit::NO_VALID_EXIT)
    );
}

#[test]
fn dry_run_without_mpi_plans_for_the_world_size_given() {
    let out = offline(&[
        "--dry-run",
        "--world-size",
        "8",
        "--ops",
        "bcast",
        "--sizes",
        "8",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}", text(&out));
    assert!(stderr.contains("plan: world size    8"), "{}", text(&out));
    // Default P: powers of two up to the world size: 2, 4, 8; x (baseline + 50us).
    assert!(
        stderr.contains("plan: P             2, 4, 8"),
        "{}",
        text(&out)
    );
    assert!(stderr.contains("(6 blocks,"), "{}", text(&out));
    // The plan is checked as under mpirun.
    let out = offline(&["--dry-run", "--world-size", "2", "--procs", "4"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--procs 4 is impossible with 2 MPI ranks"),
        "{}",
        text(&out)
    );
    // Without --dry-run the option is refused.
    let out = offline(&["--world-size", "8"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}
