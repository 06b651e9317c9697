//! `MPI_Scan` and `MPI_Iscan`: rank r receives the sum of the f64 elements of ranks 0..=r.

use super::{Buffers, Call, FamilyCalls, Overlap};
use crate::run::overlap::OverlapParts;
use mpi::traits::*;

/// The inclusive scan family.
pub(super) struct Scan;

impl FamilyCalls for Scan {
    fn blocking(b: &mut Buffers, call: &Call) {
        call.comm
            .scan_into(&b.send_f64[..], &mut b.recv_f64[..], call.sum)
    }

    fn nonblocking(b: &mut Buffers, call: &Call) {
        mpi::request::scope(|s| {
            call.comm
                .immediate_scan_into(s, &b.send_f64[..], &mut b.recv_f64[..], call.sum)
                .wait();
        })
    }

    fn overlapped(b: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts {
        mpi::request::scope(|s| {
            overlap.drive(call.comm.immediate_scan_into(
                s,
                &b.send_f64[..],
                &mut b.recv_f64[..],
                call.sum,
            ))
        })
    }
}
