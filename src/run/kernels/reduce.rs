//! `MPI_Reduce` and `MPI_Ireduce`: the f64 elements summed to rank 0, which alone passes a
//! receive buffer.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::traits::*;

/// The reduce family.
pub(super) struct Reduce;

impl FamilyCalls for Reduce {
    fn blocking(b: &mut Buffers, call: &Call) {
        if call.is_root {
            call.root
                .reduce_into_root(&b.send_f64[..], &mut b.recv_f64[..], call.sum)
        } else {
            call.root.reduce_into(&b.send_f64[..], call.sum)
        }
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        mpi::request::scope(|s| {
            if call.is_root {
                call.root
                    .immediate_reduce_into_root(s, &b.send_f64[..], &mut b.recv_f64[..], call.sum)
                    .wait();
            } else {
                call.root
                    .immediate_reduce_into(s, &b.send_f64[..], call.sum)
                    .wait();
            }
        })
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        mpi::request::scope(|s| {
            if call.is_root {
                overlap.drive(call.root.immediate_reduce_into_root(
                    s,
                    &b.send_f64[..],
                    &mut b.recv_f64[..],
                    call.sum,
                ))
            } else {
                overlap.drive(
                    call.root
                        .immediate_reduce_into(s, &b.send_f64[..], call.sum),
                )
            }
        })
    }
}
