//! The collectives beyond the five of the default run (allgather, gather, scatter,
//! reduce_scatter_block, scan, exscan and their nonblocking forms) measured under mpirun: a
//! block per configuration, delays applied, and the offline commands reading them. Bounds are
//! structural: the machine is shared and noisy.

mod common;

use common::{offline, run_records, text};
use delaybench::analysis::valid_t_globals;
use delaybench::plan::kernel::Op;

const OPS: &str = "allgather,gather,scatter,reduce_scatter_block,scan,exscan,\
                   iallgather,igather,iscatter,ireduce_scatter_block,iscan,iexscan";

#[test]
fn every_other_collective_is_measured_with_its_late_rank() {
    let dir = tempfile::tempdir().unwrap();
    let rec = run_records(
        3,
        dir.path(),
        "c.cbor",
        &[
            "--ops",
            OPS,
            "--sizes",
            "8,1KiB",
            "--procs",
            "2,3",
            "--nrep",
            "20",
            "--delay",
            "200us",
            "--delay-rank",
            "0",
            "--no-figures",
        ],
    );
    let ops: Vec<Op> = OPS.split(',').map(|s| s.parse().unwrap()).collect();
    assert_eq!(rec.header.plan.ops, ops);
    // op x size x P x (baseline, 200 us)
    assert_eq!(rec.blocks.len(), ops.len() * 2 * 2 * 2);
    let mut valid_delayed = 0;
    for b in &rec.blocks {
        assert!(ops.contains(&b.op));
        assert_eq!(
            b.t_start_local_s.0.len(),
            (b.nrep * b.nprocs) as usize,
            "{:?}",
            b.op
        );
        let ts = valid_t_globals(b);
        assert!(ts.iter().all(|&t| t > 0.0 && t < 0.1), "{:?} {ts:?}", b.op);
        if b.delay_s > 0.0 {
            // Rank 0 enters 200 us after the others: no valid repetition can be shorter.
            assert!(ts.iter().all(|&t| t >= 190e-6), "{:?} {ts:?}", b.op);
            valid_delayed += ts.len();
            for rep in 0..b.nrep as usize {
                let applied = &b.applied_delay_s.0[rep * b.nprocs as usize..];
                assert!((applied[0] - 200e-6).abs() < 1e-12, "{applied:?}");
                assert_eq!(applied[1], 0.0);
            }
        }
    }
    assert!(valid_delayed > 0, "no valid delayed repetition at all");
    let out = offline(&[
        "analyze",
        dir.path().join("c.cbor").to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let csv = String::from_utf8_lossy(&out.stdout);
    for op in &ops {
        assert!(
            csv.contains(&format!(",{},", op.name())),
            "{op} missing from analyze:\n{csv}"
        );
    }
}

#[test]
fn sizes_that_are_no_multiple_of_8_are_refused_for_the_new_reductions() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::mpirun(
        2,
        &[
            "--ops",
            "reduce_scatter_block",
            "--sizes",
            "12",
            "--dry-run",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("multiple"), "{}", text(&out));
}
