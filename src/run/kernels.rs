//! The measured collective kernels and their buffers.
//!
//! Nonblocking kernels are posted and immediately waited on, as in 002 §IV, so their time is
//! comparable with the blocking form; in overlap mode ([`Kernel::run_overlapped`]) they
//! compute between post and wait. See [`Op`] for what a message size means per kernel.

use super::overlap::{Compute, OverlapParts};
use crate::clock::Clock;
use crate::plan::Op;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// A kernel with buffers sized for one (op, bytes, P), reused across repetitions.
pub struct Kernel {
    op: Op,
    bytes_u8: Vec<u8>,
    recv_u8: Vec<u8>,
    send_f64: Vec<f64>,
    recv_f64: Vec<f64>,
}

impl Kernel {
    /// Buffers for `op` with message size `bytes` on `nprocs` ranks.
    pub fn new(op: Op, bytes: u64, nprocs: usize) -> Kernel {
        let lengths = op.buffers().lengths(bytes, nprocs);
        Kernel {
            op,
            bytes_u8: vec![1; lengths.send_u8],
            recv_u8: vec![0; lengths.recv_u8],
            send_f64: vec![1.0; lengths.send_f64],
            recv_f64: vec![0.0; lengths.recv_f64],
        }
    }

    /// Runs the operation once on `comm` (rank 0 is the root of rooted kernels).
    pub fn run(&mut self, comm: &SimpleCommunicator) {
        let root = comm.process_at_rank(0);
        let is_root = comm.rank() == 0;
        let sum = SystemOperation::sum();
        match self.op {
            Op::Barrier => comm.barrier(),
            Op::Bcast => root.broadcast_into(&mut self.bytes_u8[..]),
            Op::Reduce if is_root => {
                root.reduce_into_root(&self.send_f64[..], &mut self.recv_f64[..], sum)
            }
            Op::Reduce => root.reduce_into(&self.send_f64[..], sum),
            Op::Allreduce => comm.all_reduce_into(&self.send_f64[..], &mut self.recv_f64[..], sum),
            Op::Alltoall => comm.all_to_all_into(&self.bytes_u8[..], &mut self.recv_u8[..]),
            Op::Ibarrier => {
                comm.immediate_barrier().wait();
            }
            Op::Ibcast => mpi::request::scope(|s| {
                root.immediate_broadcast_into(s, &mut self.bytes_u8[..])
                    .wait();
            }),
            Op::Ireduce if is_root => mpi::request::scope(|s| {
                root.immediate_reduce_into_root(s, &self.send_f64[..], &mut self.recv_f64[..], sum)
                    .wait();
            }),
            Op::Ireduce => mpi::request::scope(|s| {
                root.immediate_reduce_into(s, &self.send_f64[..], sum)
                    .wait();
            }),
            Op::Iallreduce => mpi::request::scope(|s| {
                comm.immediate_all_reduce_into(s, &self.send_f64[..], &mut self.recv_f64[..], sum)
                    .wait();
            }),
            Op::Ialltoall => mpi::request::scope(|s| {
                comm.immediate_all_to_all_into(s, &self.bytes_u8[..], &mut self.recv_u8[..])
                    .wait();
            }),
        }
    }

    /// Runs a nonblocking kernel in overlap mode: post, `compute` (with its tests) for t_b +
    /// `extra_s` seconds, wait; the time of each part on this rank. A blocking kernel runs as
    /// usual with every part 0.
    pub fn run_overlapped(
        &mut self,
        comm: &SimpleCommunicator,
        compute: &Compute,
        extra_s: f64,
        clock: &dyn Clock,
    ) -> OverlapParts {
        let root = comm.process_at_rank(0);
        let is_root = comm.rank() == 0;
        let sum = SystemOperation::sum();
        let t0 = clock.now();
        // Each arm posts, notes the post time, then lets `compute` drive the request.
        let mut parts = OverlapParts::default();
        let mut drive = |t1: f64, (c, t, w): (f64, f64, f64)| {
            parts = OverlapParts {
                post_s: t1 - t0,
                compute_s: c,
                test_s: t,
                wait_s: w,
            }
        };
        match self.op {
            Op::Ibarrier => {
                let r = comm.immediate_barrier();
                drive(clock.now(), compute.drive(r, extra_s, clock));
            }
            Op::Ibcast => mpi::request::scope(|s| {
                let r = root.immediate_broadcast_into(s, &mut self.bytes_u8[..]);
                drive(clock.now(), compute.drive(r, extra_s, clock));
            }),
            Op::Ireduce if is_root => mpi::request::scope(|s| {
                let r = root.immediate_reduce_into_root(
                    s,
                    &self.send_f64[..],
                    &mut self.recv_f64[..],
                    sum,
                );
                drive(clock.now(), compute.drive(r, extra_s, clock));
            }),
            Op::Ireduce => mpi::request::scope(|s| {
                let r = root.immediate_reduce_into(s, &self.send_f64[..], sum);
                drive(clock.now(), compute.drive(r, extra_s, clock));
            }),
            Op::Iallreduce => mpi::request::scope(|s| {
                let r = comm.immediate_all_reduce_into(
                    s,
                    &self.send_f64[..],
                    &mut self.recv_f64[..],
                    sum,
                );
                drive(clock.now(), compute.drive(r, extra_s, clock));
            }),
            Op::Ialltoall => mpi::request::scope(|s| {
                let r =
                    comm.immediate_all_to_all_into(s, &self.bytes_u8[..], &mut self.recv_u8[..]);
                drive(clock.now(), compute.drive(r, extra_s, clock));
            }),
            _ => self.run(comm),
        }
        parts
    }
}
