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
    assert_rejected(&["--ops", "allreduce,alreduce"], "unknown op 'alreduce'");
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

/// `--dry-run` refuses the outputs the run would refuse (a records file that exists or
/// cannot be created, a figures folder that holds files), exits 2 as the run does, and
/// leaves nothing behind when they would do.
#[test]
fn dry_run_checks_the_output_as_the_run_does() {
    let dir = tempfile::tempdir().unwrap();
    let existing = dir.path().join("old.cbor");
    std::fs::write(&existing, b"x").unwrap();
    let new = dir.path().join("a/b/run.cbor");
    let dry = |extra: &[&str]| {
        let mut args = vec!["--dry-run", "--world-size", "2", "--nrep", "5"];
        args.extend(extra);
        common::offline(&args)
    };
    for (output, expect) in [
        ("/proc/delaybench/run.cbor", "cannot create records file"),
        (existing.to_str().unwrap(), "already exists"),
    ] {
        let out = dry(&["--output", output]);
        assert_eq!(out.status.code(), Some(2), "{output}: {}", text(&out));
        assert!(text(&out).contains(expect), "{output}: {}", text(&out));
    }
    let out = dry(&[
        "--output",
        new.to_str().unwrap(),
        "--figures",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("already holds files"), "{}", text(&out));
    let out = dry(&["--output", new.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        !dir.path().join("a").exists(),
        "the dry run left its folders"
    );
}

#[test]
fn unwritable_output() {
    assert_rejected(
        &["--output", "/proc/delaybench/run.cbor"],
        "cannot create records file",
    );
}

/// One row of the table in docs/bad-input.md: the input, the exit status, a message excerpt.
struct Row {
    args: Vec<String>,
    exit: i32,
    message: String,
}

/// A table cell without its code quotes (`` `a` `` or ``` `` a `b` `` ```).
fn unquote(cell: &str) -> String {
    let cell = cell.trim();
    match cell.strip_prefix("`` ").and_then(|c| c.strip_suffix(" ``")) {
        Some(inner) => inner.to_string(),
        None => cell.trim_matches('`').to_string(),
    }
}

/// The rows of the table in docs/bad-input.md (lines of three cells after the header).
fn documented_rows() -> Vec<Row> {
    let doc = include_str!("../docs/bad-input.md");
    doc.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            assert_eq!(cells.len(), 3, "bad table row: {line}");
            Row {
                args: unquote(cells[0])
                    .split_whitespace()
                    .map(String::from)
                    .collect(),
                exit: cells[1].trim().parse().expect("exit status"),
                message: unquote(cells[2]),
            }
        })
        .collect()
}

/// Bytes of `MemAvailable` on this host, if /proc/meminfo says.
fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    delaybench::plan::checks::mem_available(&text)
}

/// Runs one documented row in a fresh directory holding the study and trace files the doc
/// describes; checks the exit status, that the message appears exactly once, and that a
/// refused run (exit 2) left no records file.
fn run_row(row: &Row) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("study.toml"),
        "ops = \"allreduce\"\nnreps = 5\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("trace.txt"), "50us\n50\n").unwrap();
    let mut args: Vec<&str> = row.args.iter().map(String::as_str).collect();
    let measuring = args.first() != Some(&"clocksync");
    if measuring && !args.contains(&"--output") {
        args.extend(["--output", "out/run.cbor", "--clock-sync", "offset"]);
    }
    if !measuring {
        args.extend(["--output", "out/clocksync.csv"]);
    }
    let out = mpirun(2, &args, dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(row.exit),
        "{args:?}: wrong exit status\n{}",
        text(&out)
    );
    let seen = stderr.lines().filter(|l| l.contains(&row.message)).count();
    assert_eq!(
        seen,
        1,
        "{args:?}: '{}' should appear once\n{}",
        row.message,
        text(&out)
    );
    let file_left = dir
        .path()
        .join("out")
        .read_dir()
        .is_ok_and(|mut d| d.next().is_some());
    assert_eq!(
        file_left,
        row.exit != 2,
        "{args:?}: a refused run must leave no file, a measured one its records\n{}",
        text(&out)
    );
}

#[test]
fn every_documented_bad_input() {
    let rows = documented_rows();
    assert!(rows.len() >= 20, "docs/bad-input.md lost its table");
    for row in &rows {
        // The memory row needs a host where two ranks cannot have 30 GiB each.
        let memory_row = row.message.contains("of memory is available");
        if memory_row && mem_available().is_none_or(|m| m >= 60 << 30) {
            common::skip_known_limit(&format!(
                "{:?}: this host has the memory the row asks for",
                row.args
            ));
            continue;
        }
        run_row(row);
    }
}
