//! `MPI_Allgather` and `MPI_Iallgather`: each rank's `bytes` gathered on every rank into P
//! blocks.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::traits::*;

/// The allgather family.
pub(super) struct Allgather;

impl FamilyCalls for Allgather {
    fn blocking(b: &mut Buffers, call: &Call) {
        call.comm
            .all_gather_into(&b.send_u8[..], &mut b.recv_u8[..])
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        mpi::request::scope(|s| {
            call.comm
                .immediate_all_gather_into(s, &b.send_u8[..], &mut b.recv_u8[..])
                .wait();
        })
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        mpi::request::scope(|s| {
            overlap.drive(call.comm.immediate_all_gather_into(
                s,
                &b.send_u8[..],
                &mut b.recv_u8[..],
            ))
        })
    }
}
