//! Hand-made captures for the unit tests of the matching and of the `arrivals` report.

use super::{
    counts_hash, CaptureCounts, CaptureEvent, CaptureFooter, CaptureHeader, CaptureOp, CaptureSite,
    CaptureSync, RankCapture, CAPTURE_FORMAT_NAME, CAPTURE_FORMAT_VERSION,
};

/// A rank's capture: offset `offset_s` (global = local − offset), events as
/// (op, root, global enter, global exit).
pub(crate) fn rank(
    r: u32,
    size: u32,
    offset_s: f64,
    calls: &[(CaptureOp, i32, f64, f64)],
) -> RankCapture {
    let sync = CaptureSync {
        local_s: 0.0,
        offset_s,
        rtt_s: 2e-6,
    };
    RankCapture {
        path: format!("rank{r}.cbor").into(),
        header: CaptureHeader {
            item: "capture_header".into(),
            format: CAPTURE_FORMAT_NAME.into(),
            version: CAPTURE_FORMAT_VERSION,
            rank: r,
            world_size: size,
            capture_id: "c".into(),
            host: "h".into(),
            pid: r,
            command: vec![],
            clock: "monotonic".into(),
            sync_init: sync,
            t_start_s: offset_s,
            mpi_library: None,
            algorithm_variables: Default::default(),
        },
        sites: vec![CaptureSite {
            id: 0,
            module: "app".into(),
            offset: 0x10,
            symbol: Some("step".into()),
            symbol_offset: 4,
        }],
        events: calls
            .iter()
            .map(|&(op, root, a, b)| CaptureEvent {
                op,
                comm: 99,
                comm_size: size,
                comm_rank: r,
                bytes: 8,
                root,
                site: 0,
                t_enter_s: a + offset_s,
                t_exit_s: b + offset_s,
                counts_hash: None,
            })
            .collect(),
        counts: vec![],
        footer: Some(CaptureFooter {
            item: "capture_footer".into(),
            sync_finalize: CaptureSync {
                local_s: 100.0,
                offset_s,
                rtt_s: 2e-6,
            },
            events: calls.len() as u64,
            passed_through: 0,
            finalize_sync_skipped: false,
        }),
        damage: None,
    }
}

/// `rank(..)` whose calls pass `vector` (bytes per rank), written in its file.
pub(crate) fn with_vector(mut c: RankCapture, vector: &[u64]) -> RankCapture {
    let hash = counts_hash(vector);
    c.events.iter_mut().for_each(|e| e.counts_hash = Some(hash));
    c.counts.push(CaptureCounts {
        site: 0,
        hash,
        bytes: vector.to_vec(),
    });
    c
}

/// Three ranks, one allgatherv each, every rank passing the receive counts 8, 24, 0.
pub(crate) fn allgatherv_8_24_0() -> Vec<RankCapture> {
    (0..3)
        .map(|r| {
            with_vector(
                rank(r, 3, 0.0, &[(CaptureOp::Allgatherv, -1, 1.0, 2.0)]),
                &[8, 24, 0],
            )
        })
        .collect()
}

/// Three ranks, one alltoallv each, rank i passing row i of the matrix 1..=9 (3 × 3).
pub(crate) fn alltoallv_1_to_9() -> Vec<RankCapture> {
    let rows = [[1, 2, 3], [4, 5, 6], [7, 8, 9]];
    (0..3)
        .map(|r| {
            with_vector(
                rank(r, 3, 0.0, &[(CaptureOp::Alltoallv, -1, 1.0, 2.0)]),
                &rows[r as usize],
            )
        })
        .collect()
}

/// Gives the second call of every rank its own site (`app+0x20`, without a symbol), so the
/// regions before the two calls are `MPI_Init → app+0x10` and `app+0x10 → app+0x20`.
pub(crate) fn two_sites(mut caps: Vec<RankCapture>) -> Vec<RankCapture> {
    for c in &mut caps {
        c.sites.push(CaptureSite {
            id: 1,
            module: "app".into(),
            offset: 0x20,
            symbol: None,
            symbol_offset: 0,
        });
        c.events[1].site = 1;
    }
    caps
}

/// Three ranks at two allreduces on two sites (`two_sites`), clock offsets 0, 5 and −1 s:
/// rank 2 is late by 0.3 s at the first (app+0x10) and 0.5 s at the second (app+0x20),
/// each time from its own region; everyone leaves at 1.31 s and 2.6 s.
pub(crate) fn rank_2_late_at_two_sites() -> Vec<RankCapture> {
    use CaptureOp::Allreduce;
    two_sites(vec![
        rank(
            0,
            3,
            0.0,
            &[(Allreduce, -1, 1.0, 1.31), (Allreduce, -1, 2.0, 2.6)],
        ),
        rank(
            1,
            3,
            5.0,
            &[(Allreduce, -1, 1.0, 1.31), (Allreduce, -1, 2.0, 2.6)],
        ),
        rank(
            2,
            3,
            -1.0,
            &[(Allreduce, -1, 1.3, 1.31), (Allreduce, -1, 2.5, 2.6)],
        ),
    ])
}
