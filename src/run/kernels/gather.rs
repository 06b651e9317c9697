//! `MPI_Gather` and `MPI_Igather`: each rank's `bytes` gathered at rank 0, which alone passes
//! a receive buffer (P blocks).

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::traits::*;

/// The gather family.
pub(super) struct Gather;

impl FamilyCalls for Gather {
    fn blocking(b: &mut Buffers, call: &Call) {
        if call.is_root {
            call.root
                .gather_into_root(&b.send_u8[..], &mut b.recv_u8[..])
        } else {
            call.root.gather_into(&b.send_u8[..])
        }
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        mpi::request::scope(|s| {
            if call.is_root {
                call.root
                    .immediate_gather_into_root(s, &b.send_u8[..], &mut b.recv_u8[..])
                    .wait();
            } else {
                call.root.immediate_gather_into(s, &b.send_u8[..]).wait();
            }
        })
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        mpi::request::scope(|s| {
            if call.is_root {
                overlap.drive(call.root.immediate_gather_into_root(
                    s,
                    &b.send_u8[..],
                    &mut b.recv_u8[..],
                ))
            } else {
                overlap.drive(call.root.immediate_gather_into(s, &b.send_u8[..]))
            }
        })
    }
}
