//! The reference allreduce kernels (`ref:*`): every one reduces exactly as MPI_Allreduce does
//! at P = 2, 3, 4 and 7 (oversubscribed here), with element counts that P does not divide,
//! through the hidden `check-kernels` command; the check fails on a wrong result; and the
//! kernels run in a normal measurement, whose summary and figures name them and whose summary
//! puts the library's allreduce beside them.

mod common;

use common::{mpirun, run_records, text};
use std::collections::BTreeSet;

const REFERENCE: [&str; 5] = [
    "ref:ring",
    "ref:binomial",
    "ref:sorted-linear-tree",
    "ref:prereduced-ring",
    "ref:clairvoyant",
];
const COUNTS: [&str; 5] = ["1", "5", "7", "13", "1000"];

#[test]
fn every_reference_kernel_sums_like_mpi_allreduce_at_p_2_3_4_7() {
    let dir = tempfile::tempdir().unwrap();
    for p in [2u32, 3, 4, 7] {
        let out = mpirun(
            p,
            &[
                "check-kernels",
                "--counts",
                &COUNTS.join(","),
                "--calls",
                "4",
            ],
            dir.path(),
        );
        assert!(out.status.success(), "P = {p}: {}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        // One verdict per (kernel, count), each "ok": nothing skipped, nothing failed.
        for op in REFERENCE {
            for count in COUNTS {
                let line = format!("{op} P={p} count={count} calls=4: ok");
                assert!(
                    stdout.lines().any(|l| l == line),
                    "missing '{line}'\n{stdout}"
                );
            }
        }
        assert_eq!(stdout.lines().count(), REFERENCE.len() * COUNTS.len());
        // Arrival detection: the rank that slept 20 ms is seen last. Most calls, not all: on
        // this oversubscribed machine another rank can be descheduled for longer.
        let stderr = String::from_utf8_lossy(&out.stderr);
        for op in ["ref:sorted-linear-tree", "ref:prereduced-ring"] {
            for count in COUNTS {
                let head = format!(
                    "check-kernels: {op} P={p} count={count}: the late rank was observed last after "
                );
                let line = stderr
                    .lines()
                    .find_map(|l| l.strip_prefix(head.as_str()))
                    .unwrap_or_else(|| panic!("no detection line '{head}'\n{stderr}"));
                let seen: u32 = line.split_whitespace().next().unwrap().parse().unwrap();
                assert!(seen >= 2, "{op} P={p} count={count}: {line}");
            }
        }
    }
}

#[test]
fn the_check_fails_when_a_result_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let out = mpirun(
        3,
        &[
            "check-kernels",
            "--ops",
            "ref:ring",
            "--counts",
            "7",
            "--inject-error",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let all = text(&out);
    assert!(
        all.contains("ref:ring P=3 count=7 calls=4: FAILED"),
        "{all}"
    );
    assert!(
        all.contains("MISMATCH ref:ring P=3 count=7 call=0 rank 0"),
        "{all}"
    );
}

#[test]
fn the_check_refuses_a_kernel_whose_sum_is_not_on_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    for op in ["bcast", "reduce"] {
        let out = mpirun(2, &["check-kernels", "--ops", op], dir.path());
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(
            text(&out).contains(&format!("{op} is none")),
            "{}",
            text(&out)
        );
    }
}

#[test]
fn reference_kernels_are_measured_analysed_and_drawn_like_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let ops = format!("allreduce,{}", REFERENCE.join(","));
    let r = run_records(
        4,
        dir.path(),
        "run.cbor",
        &[
            "--ops",
            &ops,
            "--sizes",
            "8,64KiB",
            "--procs",
            "4",
            "--delay",
            "50us",
            "--delay-rank",
            "0",
            "--nrep",
            "10",
            "--warmup",
            "2",
            "--clock-sync",
            "offset",
        ],
    );
    // Six kernels x two sizes x (baseline, 50 us).
    assert_eq!(r.blocks.len(), 24);
    let measured: BTreeSet<String> = r.blocks.iter().map(|b| b.op.to_string()).collect();
    let mut wanted: BTreeSet<String> = REFERENCE.iter().map(|s| s.to_string()).collect();
    wanted.insert("allreduce".into());
    assert_eq!(measured, wanted);
    let folder = dir.path().join("run");
    let summary = std::fs::read_to_string(folder.join("summary.md")).unwrap();
    for op in REFERENCE {
        assert!(
            summary.contains(op),
            "{op} missing from the summary:\n{summary}"
        );
    }
    // The library's allreduce beside the reference kernels: one row per size and delay.
    let bound = summary
        .split("The library's allreduce beside the reference algorithms")
        .nth(1)
        .unwrap_or_else(|| panic!("no reference table in the summary:\n{summary}"));
    for row in [
        "| 8B | 4 | 0 |",
        "| 8B | 4 | 50us |",
        "| 64KiB | 4 | 50us |",
    ] {
        assert!(bound.contains(row), "{row} missing:\n{bound}");
    }
    let figures = std::fs::read_dir(&folder)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "png")
        })
        .count();
    assert!(figures > 0, "no figure drawn in {}", folder.display());
}
