//! `MPI_Scatterv` and `MPI_Iscatterv`: rank 0's send buffer, partitioned by `send_counts` and
//! `send_displs`, one block to each rank; only rank 0 passes a send buffer.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::datatype::Partition;
use mpi::traits::*;

/// The scatterv family.
pub(super) struct Scatterv;

impl FamilyCalls for Scatterv {
    fn blocking(b: &mut Buffers, call: &Call) {
        if call.is_root {
            let send = Partition::new(&b.send_u8[..], &b.send_counts[..], &b.send_displs[..]);
            call.root
                .scatter_varcount_into_root(&send, &mut b.recv_u8[..])
        } else {
            call.root.scatter_varcount_into(&mut b.recv_u8[..])
        }
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        if call.is_root {
            let send = Partition::new(&b.send_u8[..], &b.send_counts[..], &b.send_displs[..]);
            mpi::request::scope(|s| {
                call.root
                    .immediate_scatter_varcount_into_root(s, &send, &mut b.recv_u8[..])
                    .wait();
            })
        } else {
            mpi::request::scope(|s| {
                call.root
                    .immediate_scatter_varcount_into(s, &mut b.recv_u8[..])
                    .wait();
            })
        }
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        if call.is_root {
            let send = Partition::new(&b.send_u8[..], &b.send_counts[..], &b.send_displs[..]);
            mpi::request::scope(|s| {
                overlap.drive(call.root.immediate_scatter_varcount_into_root(
                    s,
                    &send,
                    &mut b.recv_u8[..],
                ))
            })
        } else {
            mpi::request::scope(|s| {
                overlap.drive(
                    call.root
                        .immediate_scatter_varcount_into(s, &mut b.recv_u8[..]),
                )
            })
        }
    }
}
