//! `MPI_Alltoall` and `MPI_Ialltoall`: the send buffer's P blocks of `bytes` go one to each
//! rank, the receive buffer gets one block from each.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::traits::*;

/// The all-to-all family.
pub(super) struct Alltoall;

impl FamilyCalls for Alltoall {
    fn blocking(b: &mut Buffers, call: &Call) {
        call.comm
            .all_to_all_into(&b.send_u8[..], &mut b.recv_u8[..])
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        mpi::request::scope(|s| {
            call.comm
                .immediate_all_to_all_into(s, &b.send_u8[..], &mut b.recv_u8[..])
                .wait();
        })
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        mpi::request::scope(|s| {
            overlap.drive(call.comm.immediate_all_to_all_into(
                s,
                &b.send_u8[..],
                &mut b.recv_u8[..],
            ))
        })
    }
}
