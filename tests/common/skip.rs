//! A test that cannot run says so where the test summary shows it: without this, a test that
//! lacks a dependency returns early, cargo reports it "ok", and the count of passed tests
//! overstates what ran.
//!
//! Each skip is one line, `skipped: TEST (why)`, written to stderr past libtest's output
//! capture (so plain `cargo test` shows it next to the test's "ok") and appended to the skip
//! log: the file named by `DELAYBENCH_SKIP_LOG` (`scripts/test.sh` sets a fresh one and lists
//! it at the end), else `skipped.txt` in cargo's `CARGO_TARGET_TMPDIR` (`target/tmp/`), where
//! runs of `cargo test` add up until the file is deleted.

use std::io::Write;

/// `DELAYBENCH_TESTS_STRICT=1` turns every [`skip`] into a failure: on a machine meant to
/// have every optional part, a missing one must not pass unseen.
pub const STRICT_VAR: &str = "DELAYBENCH_TESTS_STRICT";

/// The skip log's path, when set; `scripts/test.sh` sets it to a fresh file.
pub const LOG_VAR: &str = "DELAYBENCH_SKIP_LOG";

/// Records that the calling test, or the part of it `why` names, did not run because
/// something it needs is missing here (a package, a tool, a privilege); the caller then
/// returns (or leaves that part out). `why` says what is missing and how to get it.
///
/// Panics, naming the test and `why`, under `DELAYBENCH_TESTS_STRICT=1`.
pub fn skip(why: &str) {
    let test = test_name();
    if std::env::var(STRICT_VAR).is_ok_and(|v| v == "1") {
        panic!("{STRICT_VAR}=1 and {test} cannot run: {why}");
    }
    record(&test, why);
}

/// Records, like [`skip`], a part that cannot run on this host or MPI library whatever is
/// installed (a known hang of one MPI library, a host with more memory than the check can
/// exhaust). Never a failure, not even under `DELAYBENCH_TESTS_STRICT=1`: no package would
/// make it run. Its line says `known limit:` before `why`, so that a strict run's list tells
/// these from the skips it would have failed.
pub fn skip_known_limit(why: &str) {
    record(&test_name(), &format!("known limit: {why}"));
}

/// Records why the emulated cluster cannot be built here, `why` being the stderr of
/// `scripts/cluster.sh check` or `scripts/slurm-cluster.sh check`: a [`skip_known_limit`]
/// when this host lacks a privilege or kernel feature no package gives (root; network, UTS,
/// time and mount namespaces, which containers and chroots may refuse; cgroups for
/// slurmd), else a [`skip`] (a missing tool, which scripts/setup.sh installs).
///
/// The limits are recognised by the scripts' own messages (`needs root`, `does not permit`,
/// `needs /sys/fs/cgroup`), which say so beside each `check`.
pub fn skip_cluster(why: &str) {
    const HOST_LIMITS: [&str; 3] = ["needs root", "does not permit", "needs /sys/fs/cgroup"];
    if HOST_LIMITS.iter().any(|m| why.contains(m)) {
        skip_known_limit(why);
    } else {
        skip(why);
    }
}

/// `CRATE::TEST`: libtest runs each test on a thread named for it (with `--test-threads=1`
/// too); the crate is the test target, as `common` is compiled into each.
fn test_name() -> String {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("(unnamed thread)");
    format!("{}::{test}", env!("CARGO_CRATE_NAME"))
}

fn log_path() -> std::path::PathBuf {
    std::env::var_os(LOG_VAR)
        .filter(|p| !p.is_empty())
        .map(Into::into)
        .unwrap_or_else(|| concat!(env!("CARGO_TARGET_TMPDIR"), "/skipped.txt").into())
}

/// One line to stderr and to the log, each in a single write so that tests skipping side by
/// side do not interleave within a line.
fn record(test: &str, why: &str) {
    // One line each in the log, whatever `why` holds (a command's several lines of stderr).
    let why: Vec<&str> = why
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let line = format!("skipped: {test} ({})\n", why.join("; "));
    // `std::io::stderr()` is not captured by libtest (only `eprintln!` is).
    let _ = std::io::stderr().write_all(line.as_bytes());
    let path = log_path();
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(err) = written {
        // A skip that is not logged would be silent again: fail instead.
        panic!("cannot append to the skip log {}: {err}", path.display());
    }
}
