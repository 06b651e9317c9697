//! `MPI_Allgatherv` and `MPI_Iallgatherv`: each rank's block, of its own count
//! (`Buffers::recv_counts[rank]` bytes), gathered on every rank at `recv_displs`.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::datatype::PartitionMut;
use mpi::traits::*;

/// The allgatherv family.
pub(super) struct Allgatherv;

impl FamilyCalls for Allgatherv {
    fn blocking(b: &mut Buffers, call: &Call) {
        let mut recv =
            PartitionMut::new(&mut b.recv_u8[..], &b.recv_counts[..], &b.recv_displs[..]);
        call.comm
            .all_gather_varcount_into(&b.send_u8[..], &mut recv)
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        let mut recv =
            PartitionMut::new(&mut b.recv_u8[..], &b.recv_counts[..], &b.recv_displs[..]);
        mpi::request::scope(|s| {
            call.comm
                .immediate_all_gather_varcount_into(s, &b.send_u8[..], &mut recv)
                .wait();
        })
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        let mut recv =
            PartitionMut::new(&mut b.recv_u8[..], &b.recv_counts[..], &b.recv_displs[..]);
        mpi::request::scope(|s| {
            overlap.drive(call.comm.immediate_all_gather_varcount_into(
                s,
                &b.send_u8[..],
                &mut recv,
            ))
        })
    }
}
