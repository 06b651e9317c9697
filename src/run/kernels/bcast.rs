//! `MPI_Bcast` and `MPI_Ibcast` of the byte buffer from rank 0.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::traits::*;

/// The broadcast family.
pub(super) struct Bcast;

impl FamilyCalls for Bcast {
    fn blocking(b: &mut Buffers, call: &Call) {
        call.root.broadcast_into(&mut b.send_u8[..])
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        mpi::request::scope(|s| {
            call.root
                .immediate_broadcast_into(s, &mut b.send_u8[..])
                .wait();
        })
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        mpi::request::scope(|s| {
            overlap.drive(call.root.immediate_broadcast_into(s, &mut b.send_u8[..]))
        })
    }
}
