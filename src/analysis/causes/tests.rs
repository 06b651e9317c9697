use super::*;
use crate::analysis::causes::inside::{hold, CauseBasis};
use crate::capture::testdata::{rank, rank_2_late_at_two_sites, two_sites};
use crate::capture::{match_calls, CaptureOp};
use CaptureOp::*;

fn key(s: &str) -> String {
    s.to_owned()
}

fn assert_sum(r: &CausesReport, m: &Matched) {
    let measured: f64 = m
        .instances
        .iter()
        .map(|i| i.waits().iter().sum::<f64>())
        .sum();
    let costs: f64 = r.causes.iter().map(|c| c.direct_s + c.propagated_s).sum();
    assert!((r.wait_total_s - measured).abs() < 1e-9, "{r:?}");
    assert!((costs + r.unexplained_s - measured).abs() < 1e-9, "{r:?}");
    assert!((r.attributed_s - costs).abs() < 1e-9);
}

#[test]
fn a_late_rank_is_the_direct_cause_and_the_costs_sum_to_the_waiting() {
    // Rank 2 spends 0.3 s and then 0.5 s longer than the others before each allreduce.
    let caps = rank_2_late_at_two_sites();
    let m = match_calls(&caps).unwrap();
    let mut c = Causes::new(&caps, &m, &key);
    let r = &c.report;
    assert_sum(r, &m);
    assert!(r.unexplained_s.abs() < 1e-9);
    assert_eq!(r.causes.len(), 2);
    let top = &r.causes[0];
    assert_eq!(
        (top.rank, top.region_label.as_str()),
        (2, "app+0x10 → app+0x20")
    );
    assert!((top.direct_s - 1.0).abs() < 1e-9 && top.propagated_s.abs() < 1e-12);
    assert!((top.delay_s - 0.5).abs() < 1e-9 && top.calls == 1);
    assert!((r.causes[1].direct_s - 0.6).abs() < 1e-9);
    assert_eq!(r.causes[1].region_label, "MPI_Init → app+0x10");
    let h = r.headline().unwrap();
    assert!(
        h.starts_with("rank 2 in `app+0x10 → app+0x20` caused 62 % of all waiting: 1s direct"),
        "{h}"
    );
    assert_eq!(r.calls[1][0].kind, CauseKind::Direct);
    assert_eq!(r.calls[1][2].kind, CauseKind::None);
    // Removing rank 2's excess in the second region (capped at the others' median) leaves
    // the first call's waiting only, and the run ends 0.5 s earlier.
    let region = top.region;
    let w = c.what_if(2, region).unwrap().clone();
    assert!((w.wait_before_s - 1.6).abs() < 1e-9);
    assert!((w.wait_after_s - 0.6).abs() < 1e-9, "{w:?}");
    assert!((w.removed_s - 0.5).abs() < 1e-9);
    assert!(
        (w.wall_before_s - w.wall_after_s - 0.5).abs() < 1e-9,
        "{w:?}"
    );
    assert!(c.what_if(7, 0).is_err());
}

#[test]
fn unchanged_regions_give_back_the_captured_times() {
    // A region that is nobody's excess (rank 0's, the earliest) changes nothing.
    let caps = two_sites(vec![
        rank(
            0,
            3,
            0.0,
            &[(Bcast, 1, 1.0, 1.4), (Allreduce, -1, 2.0, 2.6)],
        ),
        rank(
            1,
            3,
            0.0,
            &[(Bcast, 1, 1.2, 1.25), (Allreduce, -1, 2.4, 2.6)],
        ),
        rank(
            2,
            3,
            0.0,
            &[(Bcast, 1, 1.1, 1.3), (Allreduce, -1, 2.1, 2.6)],
        ),
    ]);
    let m = match_calls(&caps).unwrap();
    let mut c = Causes::new(&caps, &m, &key);
    assert_sum(&c.report, &m);
    let first = c.regions().calls[&0][0].region;
    let w = c.what_if(0, first).unwrap();
    assert!((w.wait_after_s - w.wait_before_s).abs() < 1e-12, "{w:?}");
    assert!((w.wall_after_s - w.wall_before_s).abs() < 1e-12, "{w:?}");
    assert_eq!(w.removed_s, 0.0);
}

#[test]
fn waiting_behind_a_held_root_goes_back_to_the_late_sender() {
    // Reduce to root 0: rank 1 enters 0.5 s late; the root is held until then (Scalasca's
    // Early Reduce counts no wait: rank 2 sent at once). At the allreduce the root arrives
    // last, after a normal region and as long in the reduce after the last arrival as the
    // others: the waiting there is rank 1's, propagated through 0.
    let caps = two_sites(vec![
        rank(
            0,
            3,
            0.0,
            &[(Reduce, 0, 1.0, 1.55), (Allreduce, -1, 1.65, 1.8)],
        ),
        rank(
            1,
            3,
            0.0,
            &[(Reduce, 0, 1.5, 1.55), (Allreduce, -1, 1.65, 1.8)],
        ),
        rank(
            2,
            3,
            0.0,
            &[(Reduce, 0, 1.0, 1.05), (Allreduce, -1, 1.15, 1.8)],
        ),
    ]);
    let m = match_calls(&caps).unwrap();
    let c = Causes::new(&caps, &m, &key);
    let r = &c.report;
    assert_sum(r, &m);
    assert_eq!(r.causes.len(), 1, "{r:?}");
    let top = &r.causes[0];
    assert_eq!(
        (top.rank, top.region_label.as_str()),
        (1, "MPI_Init → app+0x10")
    );
    assert!(
        (top.propagated_s - 0.5).abs() < 1e-9 && top.direct_s.abs() < 1e-12,
        "{top:?}"
    );
    assert_eq!(top.via, vec![(0, top.propagated_s)]);
    assert!(r.unexplained_s.abs() < 1e-9);
    assert_eq!(r.calls[1][2].kind, CauseKind::Propagated);
    assert_eq!(r.calls[1][2].rank, Some(1));
    assert!(r.headline().unwrap().contains("through rank 0"));
    // The root's holding: the latest non-root.
    assert_eq!(causer(&m.instances[0], 0), Some(1));
    assert!((blocking(&m.instances[0], 0) - 0.5).abs() < 1e-12);
}

#[test]
fn a_slow_exit_is_the_calls_own_cost_and_a_start_nothing_explains_is_unexplained() {
    // Rank 1 leaves the first barrier 0.4 s after the others without having waited longer
    // (its service time): the 0.4 s it then makes rank 0 wait at the second is `inside`
    // the first barrier.
    let caps = two_sites(vec![
        rank(
            0,
            2,
            0.0,
            &[(Barrier, -1, 1.0, 1.1), (Barrier, -1, 1.2, 1.6)],
        ),
        rank(
            1,
            2,
            0.0,
            &[(Barrier, -1, 1.0, 1.5), (Barrier, -1, 1.6, 1.7)],
        ),
    ]);
    let m = match_calls(&caps).unwrap();
    let r = Causes::new(&caps, &m, &key).report;
    assert_sum(&r, &m);
    assert_eq!(r.causes.len(), 1, "{r:?}");
    assert_eq!(
        (r.causes[0].rank, r.causes[0].region_label.as_str()),
        (1, "inside app+0x10")
    );
    assert!((r.causes[0].direct_s - 0.4).abs() < 1e-9);
    assert_eq!(r.calls[1][0].kind, CauseKind::Direct);

    // Rank 1 enters the first barrier late with nothing before it that the capture shows
    // (its region equals rank 0's from a later start): unexplained.
    let caps = two_sites(vec![
        rank(
            0,
            2,
            0.0,
            &[(Barrier, -1, 1.0, 1.5), (Barrier, -1, 2.0, 2.1)],
        ),
        rank(
            1,
            2,
            -0.5,
            &[(Barrier, -1, 1.5, 1.5), (Barrier, -1, 2.0, 2.1)],
        ),
    ]);
    let mut m = match_calls(&caps).unwrap();
    m.instances.truncate(1);
    let mut caps = caps;
    for c in &mut caps {
        c.header.t_start_s = 0.5;
    }
    let r = Causes::new(&caps, &m, &key).report;
    assert_sum(&r, &m);
    assert!((r.unexplained_s - 0.5).abs() < 1e-9, "{r:?}");
    assert_eq!(r.calls[0][0].kind, CauseKind::Unexplained);
}

#[test]
fn a_waiters_late_exit_goes_with_the_wait_the_what_if_removes() {
    // Two ranks, four allreduces at one site (regions `MPI_Init → app+0x10`, then
    // `app+0x10 → app+0x10`), 0.1 s regions; rank 1 is 1 s slower in the later regions.
    // Rank 0 waits and then leaves 0.2 s after the release (its wake-up), where rank 1,
    // which came last, leaves after 0.01 s. Without rank 1's excess the ranks arrive
    // together; kept as captured, rank 0's wake-up would make it last at every later call
    // and rank 1 wait 0.19 s there (0.38 s in all).
    let caps = vec![
        rank(
            0,
            2,
            0.0,
            &[
                (Allreduce, -1, 1.0, 1.01),
                (Allreduce, -1, 1.11, 2.31),
                (Allreduce, -1, 2.41, 3.42),
                (Allreduce, -1, 3.52, 4.53),
            ],
        ),
        rank(
            1,
            2,
            0.0,
            &[
                (Allreduce, -1, 1.0, 1.01),
                (Allreduce, -1, 2.11, 2.12),
                (Allreduce, -1, 3.22, 3.23),
                (Allreduce, -1, 4.33, 4.34),
            ],
        ),
    ];
    let m = match_calls(&caps).unwrap();
    let mut c = Causes::new(&caps, &m, &key);
    assert_sum(&c.report, &m);
    let top = c.report.causes[0].clone();
    assert_eq!(
        (top.rank, top.region_label.as_str()),
        (1, "app+0x10 → app+0x10")
    );
    let w = c.what_if(1, top.region).unwrap().clone();
    assert!((w.wait_before_s - 2.62).abs() < 1e-9, "{w:?}");
    assert!((w.removed_s - 3.0).abs() < 1e-9, "{w:?}");
    assert!(w.wait_after_s.abs() < 1e-9, "{w:?}");
    // Each later call 0.1 s of region and 0.01 s in the call: the last exit at
    // 1.01 + 3 × 0.11 = 1.34 s (4.53 s captured).
    assert!(
        (w.wall_before_s - w.wall_after_s - (4.53 - 1.34)).abs() < 1e-9,
        "{w:?}"
    );
}

#[test]
fn a_shortened_wait_keeps_its_share_of_the_late_exit() {
    // Three ranks at one site: before the second allreduce rank 1 is 1 s and rank 2 0.5 s
    // slower than rank 0 (0.1 s); ranks 0 and 2 wait for rank 1 and leave 0.21 s after the
    // release, rank 1, which came last, after 0.01 s. Rank 1's region capped at the others'
    // median (0.35 s) puts rank 2 last: rank 0 waits 0.5 s, half its captured 1 s, so it
    // keeps half its 0.2 s above the site's 0.01 s; rank 2 no longer waits and leaves after
    // 0.01 s.
    let caps = vec![
        rank(
            0,
            3,
            0.0,
            &[(Allreduce, -1, 1.0, 1.01), (Allreduce, -1, 1.11, 2.32)],
        ),
        rank(
            1,
            3,
            0.0,
            &[(Allreduce, -1, 1.0, 1.01), (Allreduce, -1, 2.11, 2.12)],
        ),
        rank(
            2,
            3,
            0.0,
            &[(Allreduce, -1, 1.0, 1.01), (Allreduce, -1, 1.61, 2.32)],
        ),
    ];
    let m = match_calls(&caps).unwrap();
    let mut c = Causes::new(&caps, &m, &key);
    assert_sum(&c.report, &m);
    let region = c.regions().calls[&1][1].region;
    let w = c.what_if(1, region).unwrap().clone();
    assert!((w.removed_s - 0.75).abs() < 1e-9, "{w:?}");
    // Waiting: rank 0 0.5 s, rank 1 (entering at 1.01 + 0.35 s) 0.25 s.
    assert!((w.wait_after_s - 0.75).abs() < 1e-9, "{w:?}");
    // The last exit: rank 0's 1.11 + 0.5 + 0.01 + (0.21 − 0.01) × 0.5 = 1.72 s (1.82 s
    // with the whole wake-up kept, 1.62 s with none).
    assert!((w.wall_after_s - 1.72).abs() < 1e-9, "{w:?}");
}

/// Four ranks, two iterations of MPI_Reduce (root 0, site app+0x10) then MPI_Allreduce
/// (site app+0x20). Iteration 0: rank 1 is 0.5 s late into the reduce (so its time in the
/// reduce when nobody is after it, its reference, is 0.01 s). Iteration 1: rank 3 is 0.5 s
/// late; in Open MPI's binary tree it sends to rank 1, which is held inside the reduce until
/// 11.52 (Scalasca's Early Reduce counts no waiting off the root) and enters the allreduce
/// last, at 11.62.
fn late_child_in_a_reduce_tree() -> Vec<crate::capture::RankCapture> {
    let calls = |r: u32| -> Vec<(CaptureOp, i32, f64, f64)> {
        let (reduce0, all0) = match r {
            0 => ((1.0, 1.52), (1.61, 1.63)),
            1 => ((1.5, 1.51), (1.615, 1.63)),
            _ => ((1.0, 1.01), (1.11, 1.63)),
        };
        let (reduce1, all1) = match r {
            0 => ((11.0, 11.52), (11.61, 11.63)),
            1 => ((11.0, 11.52), (11.62, 11.63)),
            2 => ((11.0, 11.01), (11.11, 11.63)),
            _ => ((11.5, 11.51), (11.61, 11.63)),
        };
        vec![
            (Reduce, 0, reduce0.0, reduce0.1),
            (Allreduce, -1, all0.0, all0.1),
            (Reduce, 0, reduce1.0, reduce1.1),
            (Allreduce, -1, all1.0, all1.1),
        ]
    };
    let mut caps = two_sites((0..4).map(|r| rank(r, 4, 0.0, &calls(r))).collect());
    for c in &mut caps {
        c.events[3].site = 1;
    }
    caps
}

#[test]
fn a_rank_held_inside_a_reduce_tree_passes_the_waiting_on_to_the_late_child() {
    let caps = late_child_in_a_reduce_tree();
    let m = match_calls(&caps).unwrap();
    let mut c = Causes::new(&caps, &m, &key);
    let r = &c.report;
    assert_sum(r, &m);
    // Rank 1 waited inside the reduce for rank 3 (the last entrant, 0.5 s after it): its
    // holding is its 0.52 s there less its reference 0.01 s, the wake-up included.
    let h = hold(&m.instances[2], 1, Some(0.01), None).unwrap();
    assert_eq!((h.by, h.basis), (3, Some(CauseBasis::LastEntrant)));
    assert!(
        (h.s - 0.51).abs() < 1e-9 && (h.gap - 0.5).abs() < 1e-9,
        "{h:?}"
    );
    // The root's: by the latest non-root too, its 0.01 s after the late rank's entry
    // included (the wait state alone would hold it 0.5 s).
    let root = hold(&m.instances[2], 0, Some(0.01), None).unwrap();
    assert_eq!(root.by, 3);
    assert!((root.s - 0.51).abs() < 1e-9, "{root:?}");
    // At the second allreduce rank 2 waits 0.51 s for rank 1: rank 3's, through rank 1.
    let cause = r.calls[3][2];
    assert_eq!(
        (cause.rank, cause.kind, cause.basis),
        (
            Some(3),
            CauseKind::Propagated,
            Some(CauseBasis::LastEntrant)
        ),
        "{r:?}"
    );
    let three = r.causes.iter().find(|k| k.rank == 3).unwrap();
    assert_eq!(three.via.first().map(|v| v.0), Some(1), "{three:?}");
    // Rank 1's time in the reduce is no longer its own.
    let inside_1: f64 = r
        .causes
        .iter()
        .filter(|k| k.rank == 1 && k.region_label.starts_with("inside"))
        .map(|k| k.direct_s)
        .sum();
    assert!(inside_1 < 0.05, "{r:?}");
    // Capping rank 3's region removes the wait inside the reduce and what it caused at the
    // allreduce (0.53 s): what is left is iteration 0's (rank 1 late, 1.0 s) and hundredths.
    let region = c.regions().calls[&3][2].region;
    let w = c.what_if(3, region).unwrap();
    assert!(w.wait_before_s - w.wait_after_s > 0.45, "{w:?}");
    assert!(w.wait_after_s < 1.05, "{w:?}");
}
