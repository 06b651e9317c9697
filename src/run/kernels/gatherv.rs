//! `MPI_Gatherv` and `MPI_Igatherv`: each rank's block, of its own count, gathered at rank 0,
//! which alone passes a receive buffer partitioned by `recv_counts` and `recv_displs`.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::datatype::PartitionMut;
use mpi::traits::*;

/// The gatherv family.
pub(super) struct Gatherv;

impl FamilyCalls for Gatherv {
    fn blocking(b: &mut Buffers, call: &Call) {
        if call.is_root {
            let mut recv =
                PartitionMut::new(&mut b.recv_u8[..], &b.recv_counts[..], &b.recv_displs[..]);
            call.root
                .gather_varcount_into_root(&b.send_u8[..], &mut recv)
        } else {
            call.root.gather_varcount_into(&b.send_u8[..])
        }
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        if call.is_root {
            let mut recv =
                PartitionMut::new(&mut b.recv_u8[..], &b.recv_counts[..], &b.recv_displs[..]);
            mpi::request::scope(|s| {
                call.root
                    .immediate_gather_varcount_into_root(s, &b.send_u8[..], &mut recv)
                    .wait();
            })
        } else {
            mpi::request::scope(|s| {
                call.root
                    .immediate_gather_varcount_into(s, &b.send_u8[..])
                    .wait();
            })
        }
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        if call.is_root {
            let mut recv =
                PartitionMut::new(&mut b.recv_u8[..], &b.recv_counts[..], &b.recv_displs[..]);
            mpi::request::scope(|s| {
                overlap.drive(call.root.immediate_gather_varcount_into_root(
                    s,
                    &b.send_u8[..],
                    &mut recv,
                ))
            })
        } else {
            mpi::request::scope(|s| {
                overlap.drive(call.root.immediate_gather_varcount_into(s, &b.send_u8[..]))
            })
        }
    }
}
