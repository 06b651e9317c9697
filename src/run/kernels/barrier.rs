//! `MPI_Barrier` and `MPI_Ibarrier`: no payload, no buffers.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::traits::*;

/// The barrier family.
pub(super) struct Barrier;

impl FamilyCalls for Barrier {
    fn blocking(_: &mut Buffers, call: &Call) {
        call.comm.barrier()
    }

    fn nonblocking(_: &mut Buffers, call: &Call) {
        call.comm.immediate_barrier().wait();
    }

    fn overlapped(_: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        overlap.drive(call.comm.immediate_barrier())
    }
}
