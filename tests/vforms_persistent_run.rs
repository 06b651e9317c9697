//! The v-form kernels (allgatherv, gatherv, scatterv, alltoallv and their nonblocking forms)
//! and the MPI-4 persistent kernels (`<family>_persistent`) under mpirun at P = 2 and 3:
//! `check-kernels` finds every v-form block and the persistent allreduce's sums right, and a
//! measurement records a block per kernel, P and delay. The persistent kernels run on
//! `MPI_<Coll>_init` under MPICH and on Open MPI 4's `MPIX_<Coll>_init` (with a note
//! saying so); a library with neither is refused before measuring (the refusal's text is
//! checked by the unit tests of `run/kernels/persistent.rs`, since neither library here
//! lacks both).

mod common;

use common::{mpirun, text};
use std::collections::BTreeSet;

const VFORMS: [&str; 8] = [
    "allgatherv",
    "gatherv",
    "scatterv",
    "alltoallv",
    "iallgatherv",
    "igatherv",
    "iscatterv",
    "ialltoallv",
];

const PERSISTENT: [&str; 6] = [
    "barrier_persistent",
    "bcast_persistent",
    "reduce_persistent",
    "allreduce_persistent",
    "alltoall_persistent",
    "allgather_persistent",
];

fn is_open_mpi() -> bool {
    std::env::var("DELAYBENCH_MPI_FLAVOR").as_deref() == Ok("openmpi")
}

#[test]
fn v_forms_deliver_every_block_and_the_persistent_allreduce_sums_right_at_p_2_and_3() {
    let dir = tempfile::tempdir().unwrap();
    let ops = format!("{},allreduce_persistent", VFORMS.join(","));
    for p in [2u32, 3] {
        let out = mpirun(
            p,
            &[
                "check-kernels",
                "--ops",
                &ops,
                "--counts",
                "1,7,1000",
                "--calls",
                "3",
            ],
            dir.path(),
        );
        assert!(out.status.success(), "P = {p}: {}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        for op in VFORMS.iter().chain(&["allreduce_persistent"]) {
            for count in ["1", "7", "1000"] {
                let line = format!("{op} P={p} count={count} calls=3: ok");
                assert!(
                    stdout.lines().any(|l| l == line),
                    "missing '{line}'\n{stdout}"
                );
            }
        }
        assert_eq!(stdout.lines().count(), 9 * 3, "{stdout}");
    }
    // A wrong block fails the check.
    let out = mpirun(
        2,
        &[
            "check-kernels",
            "--ops",
            "ialltoallv",
            "--counts",
            "5",
            "--inject-error",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("ialltoallv P=2 count=5 calls=4: FAILED"),
        "{}",
        text(&out)
    );
}

#[test]
fn every_new_kernel_is_measured_at_p_2_and_3() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<&str> = VFORMS.iter().chain(&PERSISTENT).copied().collect();
    let ops = names.join(",");
    let mut all = vec![
        "--ops",
        &ops,
        "--sizes",
        "8,1KiB",
        "--procs",
        "2,3",
        "--delay",
        "20us",
        "--delay-rank",
        "0",
        "--nrep",
        "4",
        "--warmup",
        "1",
        "--no-noise-check",
        "--no-figures",
        "--no-summary",
    ];
    all.extend(["--output", "run.cbor"]);
    let out = mpirun(3, &all, dir.path());
    assert!(
        matches!(out.status.code(), Some(0 | common::NO_VALID_EXIT)),
        "{}",
        text(&out)
    );
    // Open MPI 4 has the persistent collectives as MPIX_<Coll>_init only, and says so.
    let note = "allreduce_persistent runs on MPIX_Allreduce_init";
    assert_eq!(text(&out).contains(note), is_open_mpi(), "{}", text(&out));
    let r = delaybench::records::read_records(&dir.path().join("run.cbor")).unwrap();
    // Kernels x sizes (the barrier's one, recorded as 0) x P x (baseline, 20 us).
    let sizes = |op: &str| if op == "barrier_persistent" { 1 } else { 2 };
    let want: usize = names.iter().map(|op| sizes(op) * 2 * 2).sum();
    assert_eq!(r.blocks.len(), want);
    let measured: BTreeSet<(String, u32)> = r
        .blocks
        .iter()
        .map(|b| (b.op.to_string(), b.nprocs))
        .collect();
    for op in &names {
        for p in [2, 3] {
            assert!(
                measured.contains(&(op.to_string(), p)),
                "{op} at P = {p} missing"
            );
        }
    }
    for b in &r.blocks {
        assert_eq!(b.t_start_local_s.0.len(), 4 * b.nprocs as usize, "{}", b.op);
    }
}

#[test]
fn a_run_refuses_unknown_forms_before_measuring() {
    // An op name that is no kernel's is refused by the parser on every rank, as before.
    let dir = tempfile::tempdir().unwrap();
    let out = mpirun(2, &["--ops", "allgatherw", "--nrep", "1"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("allgather_persistent"),
        "{}",
        text(&out)
    );
}
