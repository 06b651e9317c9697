//! `MPI_Scatter` and `MPI_Iscatter`: rank 0's P blocks of `bytes`, one to each rank; only
//! rank 0 passes a send buffer.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::traits::*;

/// The scatter family.
pub(super) struct Scatter;

impl FamilyCalls for Scatter {
    fn blocking(b: &mut Buffers, call: &Call) {
        if call.is_root {
            call.root
                .scatter_into_root(&b.send_u8[..], &mut b.recv_u8[..])
        } else {
            call.root.scatter_into(&mut b.recv_u8[..])
        }
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        mpi::request::scope(|s| {
            if call.is_root {
                call.root
                    .immediate_scatter_into_root(s, &b.send_u8[..], &mut b.recv_u8[..])
                    .wait();
            } else {
                call.root
                    .immediate_scatter_into(s, &mut b.recv_u8[..])
                    .wait();
            }
        })
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        mpi::request::scope(|s| {
            if call.is_root {
                overlap.drive(call.root.immediate_scatter_into_root(
                    s,
                    &b.send_u8[..],
                    &mut b.recv_u8[..],
                ))
            } else {
                overlap.drive(call.root.immediate_scatter_into(s, &mut b.recv_u8[..]))
            }
        })
    }
}
