//! The v-form kernels' partitions sized from a replayed capture's count vectors instead of
//! from `--sizes` (docs/capture.md, "Replay").
//!
//! A `--delay replay:CAPTURE@SITE` whose site is an allgatherv, gatherv, scatterv or
//! alltoallv (blocking or not) keeps the count vectors of the site's first call
//! ([`Replay::counts`]); [`Replay::send_matrix`] maps them onto P. Every block of a
//! configuration whose kernel is of the site's family (the undelayed baseline too, so that
//! the two are measured on the same partitions) then runs with that rank's row and column
//! of the matrix ([`partitions`]) and records where its counts came from
//! ([`crate::records::BlockCounts`]). Plain Rust: the run side (`run/kernels`) allocates
//! from [`Partitions`], and `plan::checks` (`check_captured_counts`) checks the same numbers
//! before anything is measured.

use crate::delay::models::replay::Replay;
use crate::plan::kernel::Family;
use crate::plan::kernel::Op;
use crate::plan::run_plan::Plan;
use serde::{Deserialize, Serialize};

/// The counts one configuration's kernel runs with, the same on every rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedCounts {
    /// The replay the counts came from (`replay:CAPTURE@SITE`, `:folded` for the folded
    /// map): the delay model's label.
    pub source: String,
    /// `[P][P]` row-major, bytes: entry [i][j] the bytes rank i sends to rank j per call
    /// ([`Replay::send_matrix`]).
    pub send_matrix: Vec<u64>,
}

impl CapturedCounts {
    /// What a block measured with these counts on `p` ranks records: the source and, per
    /// rank, the bytes it sends (its row's sum) and receives (its column's sum) per call.
    pub fn record(&self, p: usize) -> BlockCounts {
        let s = &self.send_matrix;
        BlockCounts {
            source: self.source.clone(),
            send_bytes: s.chunks(p.max(1)).map(|r| r.iter().sum()).collect(),
            recv_bytes: (0..p).map(|j| (0..p).map(|i| s[i * p + j]).sum()).collect(),
        }
    }
}

/// One rank's buffers of a v-form kernel, bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Partitions {
    /// Bytes this rank sends to each rank (one entry per rank) when it passes a send
    /// partition (scatterv at rank 0, alltoallv); empty when it sends one block.
    pub send: Vec<u64>,
    /// Length of the send buffer: the sum of `send`, or the one block's bytes.
    pub send_len: u64,
    /// Bytes this rank receives from each rank when it passes a receive partition
    /// (allgatherv, gatherv at rank 0, alltoallv); empty when it receives one block.
    pub recv: Vec<u64>,
    /// Length of the receive buffer: the sum of `recv`, or the one block's bytes.
    pub recv_len: u64,
}

/// The captured counts for `op`'s configurations on `p` ranks: those of the first replay
/// in `plan.delays` whose site's operation is of `op`'s family and whose capture recorded
/// counts; None when there is none (the kernel then runs uniform counts of the
/// configuration's size) or `op` is not a v-form.
pub fn captured_counts(plan: &Plan, op: Op, p: u32) -> Option<CapturedCounts> {
    if !is_vform(op.family()) {
        return None;
    }
    plan.delays.iter().find_map(|d| {
        let r = Replay::of(d)?;
        let site_family = r.op.parse::<Op>().ok()?.family();
        (site_family == op.family()).then_some(())?;
        Some(CapturedCounts {
            source: d.label(),
            send_matrix: r.send_matrix(p as usize)?,
        })
    })
}

/// Whether `family` is one of the v-forms, whose kernels take a count per rank.
pub fn is_vform(family: Family) -> bool {
    matches!(
        family,
        Family::Allgatherv | Family::Gatherv | Family::Scatterv | Family::Alltoallv
    )
}

/// Rank `me`'s partitions of a `family` kernel on `p` ranks from the send matrix `s`
/// (`[p][p]` bytes, [`CapturedCounts::send_matrix`]); rank 0 is the root of gatherv and
/// scatterv. None for a family that is not a v-form or a matrix of another shape.
pub fn partitions(family: Family, s: &[u64], p: usize, me: usize) -> Option<Partitions> {
    if s.len() != p * p || me >= p {
        return None;
    }
    let row = |i: usize| s[i * p..(i + 1) * p].to_vec();
    let column = |j: usize| (0..p).map(|i| s[i * p + j]).collect::<Vec<u64>>();
    let sum = |v: &[u64]| v.iter().sum::<u64>();
    let (send, send_len, recv, recv_len) = match family {
        // Rank me's block goes to every rank: any entry of its row.
        Family::Allgatherv => {
            let recv = column(me);
            let len = sum(&recv);
            (vec![], s[me * p], recv, len)
        }
        Family::Gatherv => {
            let recv = if me == 0 { column(0) } else { vec![] };
            let len = sum(&recv);
            (vec![], s[me * p], recv, len)
        }
        Family::Scatterv => {
            let send = if me == 0 { row(0) } else { vec![] };
            let len = sum(&send);
            (send, len, vec![], s[me])
        }
        Family::Alltoallv => {
            let (send, recv) = (row(me), column(me));
            let (sl, rl) = (sum(&send), sum(&recv));
            (send, sl, recv, rl)
        }
        _ => return None,
    };
    Some(Partitions {
        send,
        send_len,
        recv,
        recv_len,
    })
}

/// The largest number any MPI call of the kernel is handed on any rank: an entry of a
/// partition, a displacement (at most a buffer's length) or a buffer's length, bytes.
pub fn largest_count(family: Family, s: &[u64], p: usize) -> u64 {
    (0..p)
        .filter_map(|me| partitions(family, s, p, me))
        .map(|q| q.send_len.max(q.recv_len))
        .max()
        .unwrap_or(0)
}

/// The most bytes of buffers one rank allocates (send plus receive), over the ranks.
pub fn largest_buffers(family: Family, s: &[u64], p: usize) -> u64 {
    (0..p)
        .filter_map(|me| partitions(family, s, p, me))
        .map(|q| q.send_len.saturating_add(q.recv_len))
        .max()
        .unwrap_or(0)
}

/// The counts a v-form block ran with when they came from a replayed capture rather than
/// from the block's `bytes` (every block of the configuration, the baseline too, runs the
/// same partitions). The whole `[P][P]` matrix follows from the header's replay (its
/// `counts` and `map`, `crate::delay::models::replay::Replay::send_matrix`); the block keeps
/// the totals per rank.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockCounts {
    /// The replay the counts came from, as its delay model is labelled
    /// (`replay:CAPTURE@SITE`, ending in `:folded` for the folded map).
    pub source: String,
    /// Per rank of the block: bytes it sends per call (its row of the send matrix).
    pub send_bytes: Vec<u64>,
    /// Per rank of the block: bytes it receives per call (its column of the send matrix).
    pub recv_bytes: Vec<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 3 ranks: [i][j] = 10 i + j + 1.
    fn matrix() -> Vec<u64> {
        (0..3)
            .flat_map(|i| (0..3).map(move |j| 10 * i + j + 1))
            .collect()
    }

    #[test]
    fn each_family_takes_its_row_or_column() {
        let s = matrix();
        let a = partitions(Family::Alltoallv, &s, 3, 1).unwrap();
        assert_eq!((a.send, a.recv), (vec![11, 12, 13], vec![2, 12, 22]));
        assert_eq!((a.send_len, a.recv_len), (36, 36));
        // Allgatherv of blocks 5, 7, 9 (each rank's row holds its block).
        let g: Vec<u64> = [5, 7, 9].iter().flat_map(|&b| [b; 3]).collect();
        let q = partitions(Family::Allgatherv, &g, 3, 2).unwrap();
        assert_eq!((q.send_len, q.recv, q.recv_len), (9, vec![5, 7, 9], 21));
        // Gatherv: the root receives column 0; the others send their block only.
        let root = partitions(Family::Gatherv, &s, 3, 0).unwrap();
        assert_eq!((root.send_len, root.recv), (1, vec![1, 11, 21]));
        let other = partitions(Family::Gatherv, &s, 3, 2).unwrap();
        assert_eq!((other.send_len, other.recv_len), (21, 0));
        assert!(other.recv.is_empty());
        // Scatterv: the root sends row 0; rank 1 receives its entry.
        let root = partitions(Family::Scatterv, &s, 3, 0).unwrap();
        assert_eq!((root.send, root.recv_len), (vec![1, 2, 3], 1));
        assert_eq!(partitions(Family::Scatterv, &s, 3, 1).unwrap().recv_len, 2);
        // Not a v-form, or a matrix of the wrong shape.
        assert_eq!(partitions(Family::Allgather, &s, 3, 0), None);
        assert_eq!(partitions(Family::Alltoallv, &s, 2, 0), None);
        assert_eq!(largest_count(Family::Alltoallv, &s, 3), 66);
        let rec = CapturedCounts {
            source: "replay:c@s".into(),
            send_matrix: s.clone(),
        }
        .record(3);
        assert_eq!(rec.send_bytes, vec![6, 36, 66]);
        assert_eq!(rec.recv_bytes, vec![33, 36, 39]);
        // Rank 2 sends its row (66) and receives its column (3 + 13 + 23).
        assert_eq!(largest_buffers(Family::Alltoallv, &s, 3), 66 + 39);
    }
}
