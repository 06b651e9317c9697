//! `MPI_Allreduce` and `MPI_Iallreduce`: the f64 elements summed on every rank.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::traits::*;

/// The allreduce family.
pub(super) struct Allreduce;

impl FamilyCalls for Allreduce {
    fn blocking(b: &mut Buffers, call: &Call) {
        call.comm
            .all_reduce_into(&b.send_f64[..], &mut b.recv_f64[..], call.sum)
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        mpi::request::scope(|s| {
            call.comm
                .immediate_all_reduce_into(s, &b.send_f64[..], &mut b.recv_f64[..], call.sum)
                .wait();
        })
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        mpi::request::scope(|s| {
            overlap.drive(call.comm.immediate_all_reduce_into(
                s,
                &b.send_f64[..],
                &mut b.recv_f64[..],
                call.sum,
            ))
        })
    }
}
