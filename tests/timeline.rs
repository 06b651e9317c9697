//! The timeline without MPI: a records file whose drift-tracking probe says rank 1's clock was
//! 20 µs closer to the global clock than its online model thought. Read `online`, the file is
//! as recorded; read `posthoc`, rank 1's global times move by 20 µs, its starts become late,
//! and the changed verdicts are counted with the recorded ones kept.

use delaybench::clock::{ClockModel, ClockProbe};
use delaybench::plan::Op;
use delaybench::records::{testdata, RecordsWriter, FLAG_STARTED_LATE};
use delaybench::timeline::{GlobalTimes, Timeline};
use std::path::Path;

const NREP: u32 = 6;

fn write(path: &Path) {
    let mut header = testdata::header(2);
    header.plan.track_every_s = Some(1.0);
    let mut block = testdata::block(Op::Allreduce, 8, 2, 0.0, NREP, 10e-6);
    // Rank 1's local clock is 1 ms ahead (testdata); the probe finds 0.98 ms.
    block.clock_probes = vec![ClockProbe {
        world_rank: 1,
        t_local_s: 10.0,
        offset_s: 1e-3 - 20e-6,
        rtt_s: 2e-6,
        before_rep: 0,
        model: ClockModel::offset_only(1e-3 - 20e-6),
    }];
    let mut w = RecordsWriter::create(path).unwrap();
    w.write_header(&header).unwrap();
    w.write_block(&block).unwrap();
    w.finish(&testdata::footer(2)).unwrap();
}

#[test]
fn posthoc_times_move_by_the_probe_and_verdicts_follow_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.cbor");
    write(&path);

    let mut online = Timeline::open(&path, GlobalTimes::Online).unwrap();
    let recorded = online.next().unwrap().unwrap();
    assert!(online.next().is_none());
    let end = online.end();
    assert!(!end.correction.is_posthoc() && end.correction.online_by_choice);
    assert!(!end.verdicts.any() && recorded.flags_online.is_empty());
    assert!(end.complete);

    let mut posthoc = Timeline::open(&path, GlobalTimes::Posthoc).unwrap();
    let corrected = posthoc.next().unwrap().unwrap();
    let end = posthoc.end();
    assert_eq!(end.correction.name(), "posthoc");
    assert_eq!(end.correction.probes, 1);
    for rep in 0..NREP as usize {
        // Rank 0 has no probe: its initial model, its recorded times.
        let r0 = corrected.idx(rep, 0);
        assert_eq!(
            corrected.t_start_global_s.0[r0],
            recorded.t_start_global_s.0[r0]
        );
        let r1 = corrected.idx(rep, 1);
        let moved = corrected.t_start_global_s.0[r1] - recorded.t_start_global_s.0[r1];
        assert!((moved - 20e-6).abs() < 1e-9, "rep {rep}: moved {moved}");
        assert_eq!(corrected.flags[r1] & FLAG_STARTED_LATE, FLAG_STARTED_LATE);
    }
    // Repetition 1 was already invalid (the test data flag it); the other five change.
    assert_eq!(end.verdicts.to_invalid, u64::from(NREP) - 1);
    assert_eq!(end.verdicts.to_valid, 0);
    assert_eq!(corrected.flags_online, recorded.flags);
    assert!(end
        .verdicts
        .note()
        .unwrap()
        .contains("5 valid by the run's online models"));
}
