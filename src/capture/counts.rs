//! The count vectors of one call of a v-form (or reduce_scatter), as the ranks that pass a
//! significant one recorded them: what `arrivals` shows and a replay sizes its partitions by.

use super::instance::{Entry, Instance};
use super::matching::Matched;
use super::op::CaptureOp;
use thiserror::Error;

/// Why one call's count vectors cannot be had from a capture ([`call_counts`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CountsMissing {
    /// The operation passes no count vector ([`CaptureOp::has_count_vector`]).
    #[error("{0} passes no count vector")]
    NoVector(String),
    /// No rank recorded a vector's hash: a capture written before counts were recorded.
    #[error("the capture has no count vectors (written before they were recorded)")]
    NotRecorded,
    /// A rank recorded only the hash: more than
    /// [`crate::capture::MAX_VECTORS_PER_SITE`] distinct vectors at the site on
    /// that rank, or a vector longer than the shim's buffer.
    #[error(
        "the capture holds only the hash of communicator rank {0}'s count vector (more \
         distinct vectors at the site than the shim writes, or a vector longer than its buffer)"
    )]
    HashOnly(u32),
}

/// The count vectors of one call, bytes, by communicator rank, from the ranks that pass a
/// significant one (docs/capture.md): for allgatherv and reduce_scatter the receive counts
/// (n entries: rank i's block), for gatherv the root's receive counts and for scatterv the
/// root's send counts (n entries: rank i's block), for alltoallv every rank's send counts
/// (n × n entries, row-major: entry [i][j] the bytes rank i sends to rank j); the nonblocking
/// forms alike.
///
/// # Errors
/// [`CountsMissing`] when the operation has no vector, the capture recorded none, or a
/// needed vector is a hash only.
pub fn call_counts(m: &Matched, inst: &Instance) -> Result<Vec<u64>, CountsMissing> {
    use CaptureOp::*;
    if !inst.op.has_count_vector() {
        return Err(CountsMissing::NoVector(inst.op.name()));
    }
    let n = inst.entries.len();
    let of = |e: &Entry| -> Result<Vec<u64>, CountsMissing> {
        e.counts_hash.ok_or(CountsMissing::NotRecorded)?;
        m.vector(e)
            .filter(|v| v.len() == n)
            .map(<[u64]>::to_vec)
            .ok_or(CountsMissing::HashOnly(e.comm_rank))
    };
    match inst.op {
        Alltoallv | Ialltoallv => {
            let rows: Result<Vec<Vec<u64>>, _> = inst.entries.iter().map(of).collect();
            Ok(rows?.concat())
        }
        Gatherv | Igatherv | Scatterv | Iscatterv => {
            let root = usize::try_from(inst.root)
                .ok()
                .and_then(|r| inst.entries.get(r))
                .ok_or(CountsMissing::NotRecorded)?;
            of(root)
        }
        _ => inst
            .entries
            .iter()
            .find(|e| e.counts_hash.is_some())
            .map_or(Err(CountsMissing::NotRecorded), of),
    }
}

/// Bytes per communicator rank of a call's counts ([`call_counts`]): the vector itself, or
/// for alltoallv (n × n) what each rank sends, its row's sum.
pub fn bytes_per_rank(counts: &[u64], n: usize) -> Vec<u64> {
    if n > 1 && counts.len() == n * n {
        counts.chunks(n).map(|row| row.iter().sum()).collect()
    } else {
        counts.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::testdata::{allgatherv_8_24_0, alltoallv_1_to_9, rank, with_vector};
    use crate::capture::{match_calls, RankCapture};
    use CaptureOp::*;

    #[test]
    fn call_counts_come_from_the_ranks_that_pass_them() {
        // Allgatherv: every rank passes the same receive counts.
        let caps = allgatherv_8_24_0();
        let m = match_calls(&caps).unwrap();
        assert_eq!(call_counts(&m, &m.instances[0]), Ok(vec![8, 24, 0]));

        // Alltoallv: the rows make the matrix.
        let caps = alltoallv_1_to_9();
        let m = match_calls(&caps).unwrap();
        assert_eq!(
            call_counts(&m, &m.instances[0]),
            Ok(vec![1, 2, 3, 4, 5, 6, 7, 8, 9])
        );

        // Gatherv at root 1: only the root's vector counts; a non-root's hash is ignored.
        let mut caps: Vec<RankCapture> = (0..2)
            .map(|r| rank(r, 2, 0.0, &[(Gatherv, 1, 1.0, 2.0)]))
            .collect();
        caps[1] = with_vector(caps[1].clone(), &[16, 32]);
        let m = match_calls(&caps).unwrap();
        assert_eq!(call_counts(&m, &m.instances[0]), Ok(vec![16, 32]));

        // Without vectors: an old capture, or only the hash written.
        let old: Vec<RankCapture> = (0..2)
            .map(|r| rank(r, 2, 0.0, &[(Scatterv, 0, 1.0, 2.0)]))
            .collect();
        let m = match_calls(&old).unwrap();
        assert_eq!(
            call_counts(&m, &m.instances[0]),
            Err(CountsMissing::NotRecorded)
        );
        let mut hashed = old.clone();
        hashed[0] = with_vector(hashed[0].clone(), &[1, 2]);
        hashed[0].counts.clear();
        let m = match_calls(&hashed).unwrap();
        assert_eq!(
            call_counts(&m, &m.instances[0]),
            Err(CountsMissing::HashOnly(0))
        );
        let m = match_calls(&[rank(0, 1, 0.0, &[(Allreduce, -1, 1.0, 2.0)])]).unwrap();
        assert!(matches!(
            call_counts(&m, &m.instances[0]),
            Err(CountsMissing::NoVector(_))
        ));
    }
}
