//! The one typed gather and broadcast of the run side: values with a [`Wire`] encoding go
//! through MPI as f64 runs, so no call site packs or indexes columns by hand.

use crate::wire::{decode, encode, Wire};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Collective on `comm`: every rank sends `mine` (the same number of values on every rank);
/// rank 0 gets them per rank of `comm`, in rank order; the other ranks get `None`.
pub fn gather<T: Wire>(comm: &SimpleCommunicator, mine: &[T]) -> Option<Vec<Vec<T>>> {
    let packed = encode(mine);
    let root = comm.process_at_rank(0);
    if comm.rank() != 0 {
        root.gather_into(&packed[..]);
        return None;
    }
    let mut all = vec![0.0; packed.len() * comm.size() as usize];
    root.gather_into_root(&packed[..], &mut all[..]);
    Some(
        all.chunks(packed.len().max(1))
            .take(comm.size() as usize)
            .map(|per_rank| {
                if packed.is_empty() {
                    Vec::new()
                } else {
                    decode(per_rank)
                }
            })
            .collect(),
    )
}

/// [`gather`] of one value per rank.
pub fn gather_one<T: Wire>(comm: &SimpleCommunicator, mine: T) -> Option<Vec<T>> {
    gather(comm, std::slice::from_ref(&mine))
        .map(|per_rank| per_rank.into_iter().flatten().collect())
}

/// Collective on `comm`: rank 0's `value` on every rank.
pub fn broadcast<T: Wire>(comm: &SimpleCommunicator, value: &T) -> T {
    let mut packed = encode(std::slice::from_ref(value));
    comm.process_at_rank(0).broadcast_into(&mut packed[..]);
    T::take(&packed)
}

/// Collective on `comm`: every rank sends `mine`, of any length (empty sends nothing); rank 0
/// gets each rank's bytes in rank order, the other ranks `None`. For values without a fixed
/// [`Wire`] length, encoded by the caller (CBOR).
pub fn gather_bytes(comm: &SimpleCommunicator, mine: &[u8]) -> Option<Vec<Vec<u8>>> {
    use mpi::datatype::PartitionMut;
    // Each rank sends one byte more than it has: an empty buffer made Open MPI's
    // MPI_Gatherv fail with MPI_ERR_ARG on the sending rank.
    let framed: Vec<u8> = std::iter::once(0).chain(mine.iter().copied()).collect();
    let mine = &framed[..];
    let root = comm.process_at_rank(0);
    let len = mine.len() as mpi::Count;
    if comm.rank() != 0 {
        root.gather_into(&len);
        root.gather_varcount_into(mine);
        return None;
    }
    let mut counts = vec![0 as mpi::Count; comm.size() as usize];
    root.gather_into_root(&len, &mut counts[..]);
    let displs: Vec<mpi::Count> = counts
        .iter()
        .scan(0, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect();
    let mut all = vec![0u8; counts.iter().map(|&c| c as usize).sum()];
    let mut part = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
    root.gather_varcount_into_root(mine, &mut part);
    Some(
        counts
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| all[d as usize + 1..(d + c) as usize].to_vec())
            .collect(),
    )
}
