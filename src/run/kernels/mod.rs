//! The measured collective kernels and their buffers.
//!
//! Nonblocking kernels are posted and immediately waited on, as in Niethammer et al. 2016
//! §IV, so their time is comparable with the blocking form; in overlap mode
//! ([`Kernel::run_overlapped`]) they compute between post and wait (Hoefler et al. 2010). See
//! [`Op`] for what a message size means per kernel.
//!
//! Which kernels exist, and what buffers they need, is the registry's ([`crate::plan::kernel`]); the
//! MPI calls of each [`Family`] are one file here implementing [`FamilyCalls`], and the two
//! exhaustive matches on the family in [`Kernel`] pick them, so a family added to the registry
//! without its calls does not compile. The reference allreduce algorithms (`ref:*`,
//! [`reference`]) are blocking only: they have no nonblocking form to post or overlap, so
//! they are plain functions rather than [`FamilyCalls`]. The MPI-4 persistent kernels
//! (`<family>_persistent`) make their request once per block ([`Kernel::prepare`]) and start
//! and wait on it per call: one file, [`persistent`], for every family that has one, since
//! rsmpi has no binding and the calls go through one looked-up function per collective.

mod allgather;
mod allgatherv;
mod allreduce;
mod alltoall;
mod alltoallv;
mod barrier;
mod bcast;
mod exscan;
mod gather;
mod gatherv;
mod persistent;
mod reduce;
mod reduce_scatter;
mod reference;
mod scan;
mod scatter;
mod scatterv;

pub use persistent::check as check_persistent;

use super::overlap::{Compute, OverlapParts};
use crate::clock::Clock;
use crate::plan::kernel::Family;
use crate::plan::Op;
use mpi::collective::SystemOperation;
use mpi::raw::AsRaw;
use mpi::request::{Request, Scope};
use mpi::topology::{Process, SimpleCommunicator};
use mpi::traits::*;
use mpi::Count;

/// The largest buffer, bytes, whose operation [`Kernel::warm`] runs on `MPI_COMM_SELF`
/// before a release: a one-rank copy of 16 KiB takes about a microsecond here, well inside
/// the warm-up's 50 µs lead; larger operations take long enough that their entry is not the
/// spread's main term.
pub const WARM_ALONE_MAX_BYTES: usize = 16 * 1024;

/// A kernel with buffers sized for one (op, bytes, P), reused across repetitions.
pub struct Kernel {
    op: Op,
    /// The persistent kernels' request, made on the first call (or [`Kernel::prepare`]) and
    /// freed with the kernel: declared before the buffers, so it is freed before them.
    persistent: Option<persistent::Persistent>,
    buffers: Buffers,
    /// The arrival order the arrival-aware reference kernels observed in their previous call.
    estimate: reference::Estimate,
}

/// Bytes of the boundary every message buffer starts on: a page.
const BUFFER_ALIGN: usize = 4096;

/// A message buffer starting on a page boundary ([`BUFFER_ALIGN`]).
type PageVec<T> = aligned_vec::AVec<T, aligned_vec::ConstAlign<BUFFER_ALIGN>>;

/// `n` copies of `value` in a buffer that starts on a page boundary, every element written.
///
/// Why: a `Vec` starts wherever the allocator's history puts it, which differs from launch
/// to launch (the run's host names, environment and run id are allocated before it): the
/// records of three launches of one plan put one 64 KiB buffer at page offsets 2656, 1888
/// and 1776. On a page boundary the buffer's offset, and the number of pages and cache
/// lines it spans, follow from its size alone. Writing every element (a `vec![0.0; n]` is
/// `calloc`, whose fresh pages stay unmapped) maps every page before the warm-up.
fn page_vec<T: Clone>(value: T, n: usize) -> PageVec<T> {
    PageVec::from_iter(BUFFER_ALIGN, std::iter::repeat_n(value, n))
}

/// The message buffers of a kernel, allocated to the registry's
/// [`crate::plan::kernel::Buffers::lengths`], each on a page boundary ([`page_vec`]); a
/// family uses the ones its registry entry sizes and leaves the others empty. Send buffers
/// hold ones, receive buffers zeros.
struct Buffers {
    /// Bytes sent (alltoall, allgather, gather, scatter) or broadcast (bcast).
    send_u8: PageVec<u8>,
    /// Bytes received (alltoall, allgather, gather, scatter).
    recv_u8: PageVec<u8>,
    /// f64 elements contributed to a reduction.
    send_f64: PageVec<f64>,
    /// f64 elements of a reduction's result.
    recv_f64: PageVec<f64>,
    /// f64 elements a point-to-point reduction receives into before adding (`ref:*`).
    scratch_f64: PageVec<f64>,
    /// The v-forms' partition of `send_u8` (scatterv at rank 0, alltoallv): bytes to each
    /// rank and where its block starts; empty for the other families.
    send_counts: Vec<Count>,
    send_displs: Vec<Count>,
    /// The v-forms' partition of `recv_u8` (allgatherv, gatherv at rank 0, alltoallv):
    /// bytes from each rank and where its block starts; empty for the other families.
    recv_counts: Vec<Count>,
    recv_displs: Vec<Count>,
}

/// Uniform counts of `block` bytes for each of `p` ranks, and their displacements.
fn uniform(block: usize, p: usize) -> (Vec<Count>, Vec<Count>) {
    let c = Count::try_from(block).expect("sizes are checked against MPI's int limit");
    (
        (0..p).map(|_| c).collect(),
        (0..p).map(|i| c * i as Count).collect(),
    )
}

/// Counts of `bytes` (bytes per rank) and their displacements, packed one after the other.
fn partition(bytes: &[u64]) -> (Vec<Count>, Vec<Count>) {
    let count = |b: u64| Count::try_from(b).expect("counts are checked against MPI's int limit");
    let displs = bytes
        .iter()
        .scan(0u64, |at, &b| {
            let d = *at;
            *at += b;
            Some(count(d))
        })
        .collect();
    (bytes.iter().map(|&b| count(b)).collect(), displs)
}

/// What one kernel call is made with, set up before every call in the same way for every
/// kernel: the communicator, its rank 0 (the root of rooted kernels), whether this rank is
/// the root, the reduction operation (sum), and the repetition's planned arrival order when
/// the run gives one.
///
/// Built once per block ([`Call::new`]), not per call: making one asks MPI for the rank and
/// size of the communicator, library calls that would otherwise lie between the end of a
/// rank's wait and its entry into the measured operation.
#[derive(Clone, Copy)]
pub struct Call<'c> {
    comm: &'c SimpleCommunicator,
    root: Process<'c>,
    is_root: bool,
    sum: SystemOperation,
    /// Ranks of `comm` sorted by their planned delay, earliest first, ties by rank
    /// (`delay::arrival_order`); only `ref:clairvoyant` reads it, and takes rank order
    /// without it.
    arrival: Option<&'c [usize]>,
}

impl<'c> Call<'c> {
    /// The calls of one block on `comm`, without a planned arrival order.
    pub fn new(comm: &'c SimpleCommunicator) -> Call<'c> {
        Call {
            comm,
            root: comm.process_at_rank(0),
            is_root: comm.rank() == 0,
            sum: SystemOperation::sum(),
            arrival: None,
        }
    }

    /// The same call with the repetition's planned arrival order (ranks of the
    /// communicator, earliest first), or without one.
    pub fn arriving(self, arrival: Option<&'c [usize]>) -> Call<'c> {
        Call { arrival, ..self }
    }
}

/// Overlap mode of one repetition: what to compute while the request is outstanding, and
/// when (clock seconds) the kernel call began.
struct Overlap<'o> {
    compute: &'o Compute,
    /// Seconds computed beyond t_b (a punctual rank computing while a late one catches up).
    extra_s: f64,
    clock: &'o dyn Clock,
    /// Clock reading just before the post, seconds.
    t0: f64,
}

impl Overlap<'_> {
    /// Lets the computation, with its tests, drive a request just posted, then waits on it;
    /// the time of each part on this rank. Called right after the posting call returns, so
    /// the post time is the posting call's.
    fn drive<'a, D: ?Sized, S: Scope<'a>>(&self, request: Request<'a, D, S>) -> OverlapParts {
        let t1 = self.clock.now();
        let (compute_s, test_s, wait_s) = self.compute.drive(request, self.extra_s, self.clock);
        OverlapParts {
            post_s: t1 - self.t0,
            compute_s,
            test_s,
            wait_s,
        }
    }
}

/// The MPI calls of one kernel family (one file under `run/kernels/`): the blocking
/// collective, its nonblocking form posted and immediately waited on, and its nonblocking
/// form posted and driven by the overlap computation.
trait FamilyCalls {
    /// Runs the blocking collective once.
    fn blocking(buffers: &mut Buffers, call: &Call);
    /// Posts the nonblocking collective and waits on it at once.
    fn nonblocking(buffers: &mut Buffers, call: &Call);
    /// Posts the nonblocking collective and hands the request to [`Overlap::drive`].
    fn overlapped(buffers: &mut Buffers, call: &Call, overlap: &Overlap) -> OverlapParts;
}

/// Runs `F`'s blocking or nonblocking kernel once.
fn run_family<F: FamilyCalls>(buffers: &mut Buffers, call: &Call, nonblocking: bool) {
    if nonblocking {
        F::nonblocking(buffers, call)
    } else {
        F::blocking(buffers, call)
    }
}

impl Kernel {
    /// Buffers for `op` with message size `bytes` on `nprocs` ranks.
    pub fn new(op: Op, bytes: u64, nprocs: usize) -> Kernel {
        let lengths = op.buffers().lengths(bytes, nprocs);
        // The v-forms' default partition: every count `bytes`, as the fixed-count forms.
        let (send, recv) = match op.family() {
            Family::Allgatherv | Family::Gatherv => {
                ((vec![], vec![]), uniform(bytes as usize, nprocs))
            }
            Family::Scatterv => (uniform(bytes as usize, nprocs), (vec![], vec![])),
            Family::Alltoallv => (
                uniform(bytes as usize, nprocs),
                uniform(bytes as usize, nprocs),
            ),
            _ => ((vec![], vec![]), (vec![], vec![])),
        };
        Kernel {
            op,
            buffers: Buffers {
                send_u8: page_vec(1, lengths.send_u8),
                recv_u8: page_vec(0, lengths.recv_u8),
                send_f64: page_vec(1.0, lengths.send_f64),
                recv_f64: page_vec(0.0, lengths.recv_f64),
                scratch_f64: page_vec(0.0, lengths.scratch_f64),
                send_counts: send.0,
                send_displs: send.1,
                recv_counts: recv.0,
                recv_displs: recv.1,
            },
            estimate: reference::Estimate::new(nprocs),
            persistent: None,
        }
    }

    /// Buffers for a v-form `op` on `nprocs` ranks whose partitions on rank `me` come from
    /// `send_matrix` (`[nprocs][nprocs]` bytes, [`crate::plan::vcounts::CapturedCounts`]) rather
    /// than from a uniform size; another `op`, or a matrix of another shape, gets the
    /// buffers of [`Kernel::new`] at 0 bytes. The counts are checked against MPI's int
    /// limit before the run (`checks::check_captured_counts`).
    pub fn with_send_matrix(op: Op, send_matrix: &[u64], nprocs: usize, me: usize) -> Kernel {
        let Some(q) = crate::plan::vcounts::partitions(op.family(), send_matrix, nprocs, me) else {
            return Kernel::new(op, 0, nprocs);
        };
        let mut kernel = Kernel::new(op, 0, nprocs);
        let b = &mut kernel.buffers;
        b.send_u8 = page_vec(1, q.send_len as usize);
        b.recv_u8 = page_vec(0, q.recv_len as usize);
        (b.send_counts, b.send_displs) = partition(&q.send);
        (b.recv_counts, b.recv_displs) = partition(&q.recv);
        kernel
    }

    /// Addresses of the first byte of the send and the receive buffer the kernel uses (the
    /// f64 buffers of a reduction, else the byte buffers; 0 where it has none), for the
    /// records' [`crate::records::BufferPlacement`].
    pub fn buffer_addresses(&self) -> (usize, usize) {
        let b = &self.buffers;
        let first = |f: &[f64], u: &[u8]| match (f.is_empty(), u.is_empty()) {
            (false, _) => f.as_ptr() as usize,
            (true, false) => u.as_ptr() as usize,
            (true, true) => 0,
        };
        (
            first(&b.send_f64, &b.send_u8),
            first(&b.recv_f64, &b.recv_u8),
        )
    }

    /// Makes what a kernel needs before its first call on `comm` outside the timed
    /// repetitions: the persistent kernels' request (`MPI_<Coll>_init`); nothing for the
    /// others. Collective on `comm` for the persistent kernels.
    pub fn prepare(&mut self, comm: &SimpleCommunicator) {
        if !self.op.is_persistent()
            || self
                .persistent
                .as_ref()
                .is_some_and(|p| p.is_on(comm.as_raw()))
        {
            return;
        }
        // The old request (another communicator) is freed before the new one is made.
        self.persistent = None;
        let call = Call::new(comm);
        self.persistent = Some(persistent::Persistent::init(
            self.op,
            &mut self.buffers,
            &call,
        ));
    }

    /// Fills this rank's send blocks of a v-form kernel with `value(block)` (block i of the
    /// send partition: the block for rank i, or block 0 when a rank sends one block) and
    /// zeroes its receive buffer, for the kernel check; other kernels are left as they are.
    pub fn fill_blocks(&mut self, value: impl Fn(usize) -> u8) {
        let b = &mut self.buffers;
        if b.send_counts.is_empty() {
            b.send_u8.fill(value(0));
        } else {
            for (i, (&c, &d)) in b.send_counts.iter().zip(&b.send_displs).enumerate() {
                b.send_u8[d as usize..(d + c) as usize].fill(value(i));
            }
        }
        b.recv_u8.fill(0);
    }

    /// The blocks this rank received in the last call of a v-form kernel, one per rank of
    /// the receive partition (one block when a rank receives one), as byte slices.
    pub fn received_blocks(&self) -> Vec<&[u8]> {
        let b = &self.buffers;
        if b.recv_counts.is_empty() {
            return vec![&b.recv_u8[..]];
        }
        b.recv_counts
            .iter()
            .zip(&b.recv_displs)
            .map(|(&c, &d)| &b.recv_u8[d as usize..(d + c) as usize])
            .collect()
    }

    /// Sets every f64 element this rank contributes to `value(i)` (reductions; the algorithm
    /// check's order-sensitive contributions).
    pub fn fill_f64(&mut self, value: impl Fn(usize) -> f64) {
        for (i, x) in self.buffers.send_f64.iter_mut().enumerate() {
            *x = value(i);
        }
    }

    /// The f64 result of the last reduction on this rank (empty for other families).
    pub fn result_f64(&self) -> &[f64] {
        &self.buffers.recv_f64
    }

    /// Runs the operation once on `comm` (rank 0 is the root of rooted kernels), without a
    /// planned arrival order (warm-up, pure pass).
    pub fn run(&mut self, comm: &SimpleCommunicator) {
        self.run_arriving(comm, None)
    }

    /// Runs the operation once on `comm`; `arrival` is the repetition's planned arrival
    /// order (ranks of `comm`, earliest first), which only the clairvoyant reference kernel
    /// uses ([`crate::plan::kernel::Family::wants_arrival_order`]).
    pub fn run_arriving(&mut self, comm: &SimpleCommunicator, arrival: Option<&[usize]>) {
        self.run_call(&Call::new(comm).arriving(arrival))
    }

    /// Touches what the next call of the operation reads first, shortly before the rank is
    /// released into it: the communicator inside MPI (one `MPI_Comm_size`, the query rsmpi
    /// makes before each collective) and the start of every buffer. A clock interrupt during
    /// a millisecond's wait can evict them, and then the path from the end of the wait to
    /// the entry into MPI takes cache misses, a different number on each rank.
    ///
    /// With `alone` (a call on the rank's own `MPI_COMM_SELF`, given where
    /// [`Kernel::warms_alone`]), it also runs the operation once there: the library's entry
    /// into the same function (its argument checks and dispatch, and any tool's wrapper
    /// around it) then runs from warm caches at the release. After a 1 ms or 10 ms wait those
    /// first instructions took 1-1.8 µs longer on some ranks in a quarter to two fifths of
    /// the repetitions, beyond the last instruction before the call that delaybench stamps
    /// (docs/accuracy.md). A one-rank call synchronises nothing and waits for no one.
    pub fn warm(&mut self, call: &Call, alone: Option<&Call>) {
        std::hint::black_box(call.comm.size());
        let b = &self.buffers;
        std::hint::black_box((b.send_u8.first(), b.recv_u8.first()));
        std::hint::black_box((b.send_f64.first(), b.recv_f64.first()));
        std::hint::black_box((b.send_counts.first(), b.recv_counts.first()));
        if let Some(alone) = alone {
            self.run_call(alone);
        }
    }

    /// Whether [`Kernel::warm`] may run this operation alone on `MPI_COMM_SELF`: on buffers
    /// of at most [`WARM_ALONE_MAX_BYTES`], the blocking and nonblocking barrier, bcast,
    /// reduce, allreduce, alltoall, scan and exscan, whose counts on one rank stay their own.
    /// Not the persistent forms (their request is bound to the measured communicator), the
    /// `ref:*` rings, the gathers, scatters and reduce_scatter_block, or the v-forms: the
    /// rsmpi wrappers derive a count from a buffer's length over the communicator's size, so
    /// a scatter's root would send P blocks to itself into one (MPI_ERR_TRUNCATE), a
    /// reduce_scatter_block fails rsmpi's length check, and the v-forms' counts are one
    /// rank's part of a P-rank partition.
    pub fn warms_alone(&self) -> bool {
        let b = &self.buffers;
        let bytes =
            b.send_u8.len().max(b.recv_u8.len()) + 8 * b.send_f64.len().max(b.recv_f64.len());
        let counts_stay = matches!(
            self.op.family(),
            Family::Barrier
                | Family::Bcast
                | Family::Reduce
                | Family::Allreduce
                | Family::Alltoall
                | Family::Scan
                | Family::Exscan
        );
        !self.op.is_persistent() && counts_stay && bytes <= WARM_ALONE_MAX_BYTES
    }

    /// Runs the operation once as `call` describes it (its communicator, rank 0 as the root,
    /// its planned arrival order): the measured repetitions' path, with the `Call` made once
    /// per block.
    pub fn run_call(&mut self, call: &Call) {
        if self.op.is_persistent() {
            self.prepare(call.comm);
            if let Some(p) = self.persistent.as_mut() {
                p.start_wait();
            }
            return;
        }
        let (b, nb) = (&mut self.buffers, self.op.is_nonblocking());
        match self.op.family() {
            Family::Barrier => run_family::<barrier::Barrier>(b, call, nb),
            Family::Bcast => run_family::<bcast::Bcast>(b, call, nb),
            Family::Reduce => run_family::<reduce::Reduce>(b, call, nb),
            Family::Allreduce => run_family::<allreduce::Allreduce>(b, call, nb),
            Family::RefRing => reference::ring(b, call),
            Family::RefBinomial => reference::binomial(b, call),
            Family::RefSortedLinearTree => {
                reference::sorted_linear_tree(b, call, &mut self.estimate)
            }
            Family::RefPrereducedRing => reference::prereduced_ring(b, call, &mut self.estimate),
            Family::RefClairvoyant => reference::clairvoyant(b, call),
            Family::Alltoall => run_family::<alltoall::Alltoall>(b, call, nb),
            Family::Allgather => run_family::<allgather::Allgather>(b, call, nb),
            Family::Gather => run_family::<gather::Gather>(b, call, nb),
            Family::Scatter => run_family::<scatter::Scatter>(b, call, nb),
            Family::ReduceScatterBlock => {
                run_family::<reduce_scatter::ReduceScatterBlock>(b, call, nb)
            }
            Family::Scan => run_family::<scan::Scan>(b, call, nb),
            Family::Exscan => run_family::<exscan::Exscan>(b, call, nb),
            Family::Allgatherv => run_family::<allgatherv::Allgatherv>(b, call, nb),
            Family::Gatherv => run_family::<gatherv::Gatherv>(b, call, nb),
            Family::Scatterv => run_family::<scatterv::Scatterv>(b, call, nb),
            Family::Alltoallv => run_family::<alltoallv::Alltoallv>(b, call, nb),
        }
    }

    /// Fills the send buffer of a reduction with `value(i)` for element i (the kernel check
    /// gives each rank its own values); other kernels have no f64 buffer and are left as
    /// they are.
    pub fn fill_send(&mut self, value: impl Fn(usize) -> f64) {
        for (i, x) in self.buffers.send_f64.iter_mut().enumerate() {
            *x = value(i);
        }
    }

    /// The result of the last call of a reduction (f64 elements; empty for other kernels).
    pub fn result(&self) -> &[f64] {
        &self.buffers.recv_f64
    }

    /// The arrival order the arrival-aware reference kernels observed in their last call
    /// (ranks, earliest first; rank order before the first call and for other kernels).
    pub fn observed_order(&self) -> &[usize] {
        self.estimate.order()
    }

    /// Runs a nonblocking kernel in overlap mode: post, `compute` (with its tests) for t_b +
    /// `extra_s` seconds, wait; the time of each part on this rank. A blocking or persistent
    /// kernel runs as usual with every part 0.
    pub fn run_overlapped(
        &mut self,
        comm: &SimpleCommunicator,
        compute: &Compute,
        extra_s: f64,
        clock: &dyn Clock,
    ) -> OverlapParts {
        if !self.op.is_nonblocking() {
            self.run(comm);
            return OverlapParts::default();
        }
        let call = Call::new(comm);
        let overlap = Overlap {
            compute,
            extra_s,
            clock,
            t0: clock.now(),
        };
        let b = &mut self.buffers;
        match self.op.family() {
            Family::Barrier => barrier::Barrier::overlapped(b, &call, &overlap),
            Family::Bcast => bcast::Bcast::overlapped(b, &call, &overlap),
            Family::Reduce => reduce::Reduce::overlapped(b, &call, &overlap),
            Family::Allreduce => allreduce::Allreduce::overlapped(b, &call, &overlap),
            Family::Alltoall => alltoall::Alltoall::overlapped(b, &call, &overlap),
            // Blocking only: no kernel of these families is nonblocking, so the check above
            // has already run it as the blocking kernel it is.
            Family::RefRing
            | Family::RefBinomial
            | Family::RefSortedLinearTree
            | Family::RefPrereducedRing
            | Family::RefClairvoyant => OverlapParts::default(),
            Family::Allgather => allgather::Allgather::overlapped(b, &call, &overlap),
            Family::Gather => gather::Gather::overlapped(b, &call, &overlap),
            Family::Scatter => scatter::Scatter::overlapped(b, &call, &overlap),
            Family::ReduceScatterBlock => {
                reduce_scatter::ReduceScatterBlock::overlapped(b, &call, &overlap)
            }
            Family::Scan => scan::Scan::overlapped(b, &call, &overlap),
            Family::Exscan => exscan::Exscan::overlapped(b, &call, &overlap),
            Family::Allgatherv => allgatherv::Allgatherv::overlapped(b, &call, &overlap),
            Family::Gatherv => gatherv::Gatherv::overlapped(b, &call, &overlap),
            Family::Scatterv => scatterv::Scatterv::overlapped(b, &call, &overlap),
            Family::Alltoallv => alltoallv::Alltoallv::overlapped(b, &call, &overlap),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_buffer_starts_on_a_page_and_is_written() {
        for (op, bytes) in [(Op::Allreduce, 65536), (Op::Alltoall, 8), (Op::Bcast, 1)] {
            let k = Kernel::new(op, bytes, 3);
            let (send, recv) = k.buffer_addresses();
            // A bcast has one buffer, which the registry counts as the send buffer.
            assert!(
                send != 0 && (recv != 0) == (op != Op::Bcast),
                "{op}: {send:#x} {recv:#x}"
            );
            assert_eq!((send % BUFFER_ALIGN, recv % BUFFER_ALIGN), (0, 0), "{op}");
        }
        // Written, not merely reserved: the values a kernel starts from.
        let k = Kernel::new(Op::Allreduce, 64, 2);
        assert!(k.buffers.send_f64.iter().all(|&x| x == 1.0));
        assert!(k.buffers.recv_f64.iter().all(|&x| x == 0.0));
    }
}
