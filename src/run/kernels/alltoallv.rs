//! `MPI_Alltoallv` and `MPI_Ialltoallv`: the send buffer, partitioned by `send_counts` and
//! `send_displs`, one block to each rank; the receive buffer, partitioned by `recv_counts`
//! and `recv_displs`, one block from each.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::datatype::{Partition, PartitionMut};
use mpi::traits::*;

/// The alltoallv family.
pub(super) struct Alltoallv;

impl FamilyCalls for Alltoallv {
    fn blocking(b: &mut Buffers, call: &Call) {
        let send = Partition::new(&b.send_u8[..], &b.send_counts[..], &b.send_displs[..]);
        let mut recv =
            PartitionMut::new(&mut b.recv_u8[..], &b.recv_counts[..], &b.recv_displs[..]);
        call.comm.all_to_all_varcount_into(&send, &mut recv)
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        let send = Partition::new(&b.send_u8[..], &b.send_counts[..], &b.send_displs[..]);
        let mut recv =
            PartitionMut::new(&mut b.recv_u8[..], &b.recv_counts[..], &b.recv_displs[..]);
        mpi::request::scope(|s| {
            call.comm
                .immediate_all_to_all_varcount_into(s, &send, &mut recv)
                .wait();
        })
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        let send = Partition::new(&b.send_u8[..], &b.send_counts[..], &b.send_displs[..]);
        let mut recv =
            PartitionMut::new(&mut b.recv_u8[..], &b.recv_counts[..], &b.recv_displs[..]);
        mpi::request::scope(|s| {
            overlap.drive(
                call.comm
                    .immediate_all_to_all_varcount_into(s, &send, &mut recv),
            )
        })
    }
}
