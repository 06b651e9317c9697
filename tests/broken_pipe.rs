//! A reader that closes delaybench's output early (`delaybench export run.cbor | head`) had
//! what it wanted: the command ends quietly with status 0, as `cat` does, instead of
//! reporting "Broken pipe" as an error or panicking.

mod common;

use delaybench::plan::Op;
use delaybench::records::{testdata, RecordsWriter};
use std::io::Read;
use std::process::{Command, Stdio};

/// A records file whose export is far larger than a pipe's buffer (64 KiB on Linux).
fn big_records(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("run.cbor");
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&testdata::header(4)).unwrap();
    for delay in [0.0, 50e-6] {
        w.write_block(&testdata::block(Op::Allreduce, 8, 4, delay, 2000, 1e-5))
            .unwrap();
    }
    w.finish(&testdata::footer(4)).unwrap();
    path
}

/// Runs delaybench with `args`, reads the first bytes of its output, closes the pipe, and
/// returns its exit status and standard error.
fn closed_early(args: &[&str]) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(common::exe())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 100];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_closed_output_ends_quietly_with_status_zero() {
    let dir = tempfile::tempdir().unwrap();
    let file = big_records(dir.path());
    let file = file.to_str().unwrap();
    for args in [
        &["export", file][..],
        &["export", file, "--format", "json"],
        &["export", file, "--format", "jsonl"],
        &["export", file, "--rows", "rep"],
    ] {
        let (status, stderr) = closed_early(args);
        assert!(status.success(), "{args:?}: {status}, stderr: {stderr}");
        assert!(!stderr.contains("error"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn other_errors_still_fail_and_say_their_cause_once() {
    // A missing input file is bad input: exit 2, as every other refused input.
    let out = common::offline(&["export", "/nonexistent/run.cbor"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("No such file or directory").count(),
        1,
        "{stderr}"
    );
}
