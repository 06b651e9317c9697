//! Shared clocks, both ways: ranks of one host read one clock and take the
//! leader's model after a check; emulated per-rank offsets fail that check and are
//! synchronised on their own.

mod common;

use delaybench::clock::shared::SharedVerdict;

const ARGS: &[&str] = &[
    "--ops",
    "allreduce",
    "--sizes",
    "8",
    "--nrep",
    "20",
    "--warmup",
    "2",
];

#[test]
fn ranks_of_one_host_share_rank_zeros_clock_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let rec = common::run_records(3, dir.path(), "shared.cbor", ARGS);
    let sync = &rec.header.clock_sync;
    let verdicts: Vec<SharedVerdict> = sync.shared.iter().map(|c| c.verdict).collect();
    assert_eq!(
        verdicts,
        [
            SharedVerdict::Leader,
            SharedVerdict::Shared,
            SharedVerdict::Shared
        ]
    );
    for (rank, check) in sync.shared.iter().enumerate().skip(1) {
        assert_eq!(check.leader, 0, "rank {rank}");
        assert!(
            check.offset_s.abs() <= check.rtt_s / 2.0 + 1e-8,
            "{check:?}"
        );
        // Exactly the leader's model: no synchronisation noise added.
        assert_eq!(sync.models[rank], sync.models[0], "rank {rank}");
    }
    // Shared members inherit the leader's end-of-run error exactly.
    let footer = rec.footer.expect("complete run");
    assert_eq!(footer.offset_change_s[1], footer.offset_change_s[0]);
    // Milliseconds, not the seconds of a full sync (generous: the machine may be loaded).
    assert!(sync.duration_s < 2.0, "sync took {} s", sync.duration_s);
}

#[test]
fn emulated_offsets_fail_the_check_and_are_synchronised() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = ARGS.to_vec();
    args.extend([
        "--emulate-clock",
        "offset=1ms*rank",
        "--clock-sync",
        "offset",
    ]);
    let rec = common::run_records(3, dir.path(), "emulated.cbor", &args);
    let sync = &rec.header.clock_sync;
    for rank in 1..3 {
        let check = sync.shared[rank];
        assert_eq!(check.verdict, SharedVerdict::FailedCheck, "{check:?}");
        assert!(
            (check.offset_s - rank as f64 * 1e-3).abs() < 50e-6,
            "{check:?}"
        );
        // The full sync found the emulated offset.
        let found = sync.models[rank].intercept_s;
        assert!(
            (found - rank as f64 * 1e-3).abs() < 50e-6,
            "rank {rank}: {found}"
        );
    }
}

#[test]
fn emulated_skew_is_never_taken_for_a_shared_clock() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = ARGS.to_vec();
    args.extend([
        "--emulate-clock",
        "skew=20ppm*rank",
        "--clock-sync",
        "offset",
    ]);
    let rec = common::run_records(2, dir.path(), "skew.cbor", &args);
    assert_eq!(
        rec.header.clock_sync.shared[1].verdict,
        SharedVerdict::Emulated
    );
}
