//! `MPI_Reduce_scatter_block` and `MPI_Ireduce_scatter_block`: every rank contributes P
//! blocks of f64 and receives the sum of its own block.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::traits::*;

/// The reduce-scatter (block) family.
pub(super) struct ReduceScatterBlock;

impl FamilyCalls for ReduceScatterBlock {
    fn blocking(b: &mut Buffers, call: &Call) {
        call.comm
            .reduce_scatter_block_into(&b.send_f64[..], &mut b.recv_f64[..], call.sum)
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        mpi::request::scope(|s| {
            call.comm
                .immediate_reduce_scatter_block_into(
                    s,
                    &b.send_f64[..],
                    &mut b.recv_f64[..],
                    call.sum,
                )
                .wait();
        })
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        mpi::request::scope(|s| {
            overlap.drive(call.comm.immediate_reduce_scatter_block_into(
                s,
                &b.send_f64[..],
                &mut b.recv_f64[..],
                call.sum,
            ))
        })
    }
}
