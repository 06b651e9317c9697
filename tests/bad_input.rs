//! Bad input fails before any measurement, on every rank, with one message: no hang, no file.

mod common;

use common::{mpirun, text};

fn assert_rejected(args: &[&str], expect: &str) {
    let dir = tempfile::tempdir().unwrap();
    let mut all = args.to_vec();
    let has_output = args.contains(&"--output");
    if !has_output {
        all.extend(["--output", "out/run.cbor"]);
    }
    let out = mpirun(2, &all, dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "{args:?} was accepted\n{}",
        text(&out)
    );
    assert!(
        stderr.contains(expect),
        "{args:?}: no '{expect}' in\n{}",
        text(&out)
    );
    let ours = stderr.lines().filter(|l| l.contains(expect)).count();
    assert_eq!(
        ours,
        1,
        "{args:?}: the message should appear once\n{}",
        text(&out)
    );
    if !has_output {
        assert!(
            !dir.path().join("out/run.cbor").exists(),
            "{args:?} left a records file"
        );
    }
}

#[test]
fn unknown_op() {
    assert_rejected(&["--ops", "allreduce,allgather"], "unknown op 'allgather'");
}

#[test]
fn delay_rank_outside_p() {
    assert_rejected(&["--delay-rank", "2"], "rank 2 is not a rank of P = 2");
    assert_rejected(&["--delay-rank", "random:3"], "random:3 needs 3 ranks");
}

#[test]
fn bad_delay_model() {
    assert_rejected(&["--delay", "normal:50us"], "normal takes MEAN,SD");
}

#[test]
fn bad_detour_and_clock_emulation() {
    assert_rejected(&["--detour", "1kHz"], "--detour");
    assert_rejected(&["--emulate-clock", "drift=3"], "unknown item `drift=3`");
}

#[test]
fn unknown_study_key() {
    let dir = tempfile::tempdir().unwrap();
    let study = dir.path().join("study.toml");
    std::fs::write(&study, "ops = \"allreduce\"\nnreps = 5\n").unwrap();
    assert_rejected(
        &["--config", study.to_str().unwrap()],
        "unknown key 'nreps'",
    );
}

#[test]
fn negative_delay() {
    assert_rejected(&["--delay", "-50us"], "is negative");
}

#[test]
fn delay_without_unit() {
    assert_rejected(&["--delay", "50"], "has no unit");
}

#[test]
fn zero_repetitions() {
    assert_rejected(&["--nrep", "0"], "--nrep must be at least 1");
}

#[test]
fn unwritable_output() {
    assert_rejected(
        &["--output", "/proc/delaybench/run.cbor"],
        "cannot create records file",
    );
}
