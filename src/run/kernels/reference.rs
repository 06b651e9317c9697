//! Reference allreduce algorithms on MPI point-to-point (`ref:*` kernels): the f64 elements
//! summed on every rank, as `MPI_Allreduce` does, by algorithms written here rather than
//! chosen by the MPI library. docs/reference-algorithms.md explains each one and its source.
//!
//! - `ref:ring`: reduce-scatter then allgather around the ring of ranks 0..P-1, the
//!   bandwidth-optimal ring allreduce (Patarasuk and Yuan 2009) that the libraries use for
//!   large messages.
//! - `ref:binomial`: binomial-tree reduce to rank 0, then binomial-tree broadcast, the
//!   short-message algorithm of MPICH (Thakur, Rabenseifner and Gropp 2005).
//! - `ref:sorted-linear-tree`: Proficz (2018, "sorted linear tree"): the partial sum travels
//!   along the ranks in arrival order, so the early arrivers' data is combined while the late
//!   ones are still away, and the last arriver adds its own data and broadcasts the result.
//!   The arrival order is estimated: the one observed in the previous call.
//! - `ref:prereduced-ring`: Proficz (2018, "pre-reduced ring"): the P-1 early arrivers run
//!   the ring reduce-scatter among themselves while the last one is away; when it arrives it
//!   sends each of them its block, they add it and return the completed blocks, and the
//!   early arrivers gather the blocks around their ring. Order estimated as above. Only the
//!   abstract of Proficz (2018) was available to us: these steps are our reading of
//!   "pre-reduced ring", not the paper's pseudo-code (docs/reference-algorithms.md).
//! - `ref:clairvoyant`: the sorted linear tree on the repetition's *planned* arrival order
//!   (ranks sorted by their drawn delay, [`crate::delay::arrival_order`]), which only a
//!   benchmark that injects the delays knows beforehand: the clairvoyant reference, the
//!   sorted linear tree with a perfect prediction (no bound on time: at δ = 0 it is a chain
//!   in rank order; the lower bounds of t_global are `analysis::lower_bound`).
//!
//! The arrival order a rank's call observes: every rank sends a one-integer notice to the
//! rank predicted to arrive last (the "collector") as soon as it enters; the collector takes
//! the notices already waiting when it enters as earlier arrivals (`MPI_Iprobe` on any
//! source), puts itself next and the rest in the order it receives them, one by one as they
//! come (before it waits for any data: notices read later from a queue lose their order). It
//! sends that order to every rank with the result, so every rank uses the same estimate in
//! the next call.
//! Proficz (2018) estimates arrival *times* and distributes them; this keeps only the order.
//!
//! Every send is matched by a receive of the same call, messages between two ranks never
//! overtake each other, and the only any-source receives (the notices) are all taken by the
//! collector before any rank can leave the call (everyone waits for the order it sends), so
//! no message leaks into the next repetition. All the sends that could wait on a receive
//! are either nonblocking or sent to a rank that is already waiting for them (ring steps are
//! `MPI_Sendrecv`), so no P deadlocks.

use super::{Buffers, Call};
use mpi::point_to_point as p2p;
use mpi::traits::*;
use mpi::Rank;
use std::ops::Range;

// Tags of the reference kernels, apart from the run's other point-to-point traffic (clock
// sync 7001, dissemination barrier 7002, timing schemes' acknowledgements 7003).
const TAG_RING_REDUCE: i32 = 7101;
const TAG_RING_GATHER: i32 = 7102;
const TAG_TREE_REDUCE: i32 = 7103;
const TAG_TREE_BCAST: i32 = 7104;
const TAG_CHAIN: i32 = 7105;
const TAG_ARRIVED: i32 = 7106;
const TAG_ORDER: i32 = 7107;
const TAG_LATE_IN: i32 = 7108;
const TAG_LATE_OUT: i32 = 7109;

/// Elements `[start, end)` of block `j` when `n` elements are cut into `m` blocks as evenly
/// as possible, the first `n mod m` blocks one element longer (blocks may be empty when
/// n < m).
fn block(n: usize, m: usize, j: usize) -> Range<usize> {
    let (q, r) = (n / m, n % m);
    let start = j * q + j.min(r);
    start..start + q + usize::from(j < r)
}

/// Block `a` of `buf` to read and block `b` to write, blocks `a != b` of an `m`-block cut of
/// `buf` (disjoint, so both can be handed to one `MPI_Sendrecv`).
fn read_write(buf: &mut [f64], m: usize, a: usize, b: usize) -> (&[f64], &mut [f64]) {
    let n = buf.len();
    let (ra, rb) = (block(n, m, a), block(n, m, b));
    if a < b {
        let (lo, hi) = buf.split_at_mut(rb.start);
        (&lo[ra], &mut hi[..rb.len()])
    } else {
        let (lo, hi) = buf.split_at_mut(ra.start);
        (&hi[..ra.len()], &mut lo[rb])
    }
}

/// `acc[i] += add[i]`.
fn add_into(acc: &mut [f64], add: &[f64]) {
    for (a, x) in acc.iter_mut().zip(add) {
        *a += x;
    }
}

/// Ring reduce-scatter among `members` (ranks of `call.comm`; this rank is `members[pos]`)
/// over `recv`, which holds this rank's data on entry: m - 1 steps in which each member
/// passes a block to its right neighbour and adds the one from its left. Afterwards block
/// `(pos + 1) mod m` of an m-block cut of `recv` is the sum over the members. `scratch` must
/// hold a block.
fn ring_reduce_scatter(
    call: &Call,
    members: &[Rank],
    pos: usize,
    recv: &mut [f64],
    scratch: &mut [f64],
) {
    let m = members.len();
    let n = recv.len();
    let right = call.comm.process_at_rank(members[(pos + 1) % m]);
    let left = call.comm.process_at_rank(members[(pos + m - 1) % m]);
    for s in 0..m.saturating_sub(1) {
        let out = block(n, m, (pos + m - s) % m);
        let into = block(n, m, (pos + 2 * m - s - 1) % m);
        let tmp = &mut scratch[..into.len()];
        p2p::send_receive_into_with_tags(
            &recv[out],
            &right,
            TAG_RING_REDUCE,
            tmp,
            &left,
            TAG_RING_REDUCE,
        );
        add_into(&mut recv[into], tmp);
    }
}

/// Ring allgather among `members` after [`ring_reduce_scatter`]: this rank holds block
/// `(pos + 1) mod m`; m - 1 steps pass the blocks on to the right until every member holds
/// all of `recv`.
fn ring_allgather(call: &Call, members: &[Rank], pos: usize, recv: &mut [f64]) {
    let m = members.len();
    let right = call.comm.process_at_rank(members[(pos + 1) % m]);
    let left = call.comm.process_at_rank(members[(pos + m - 1) % m]);
    for s in 0..m.saturating_sub(1) {
        let (out, into) = read_write(recv, m, (pos + 1 + m - s) % m, (pos + m - s) % m);
        p2p::send_receive_into_with_tags(
            out,
            &right,
            TAG_RING_GATHER,
            into,
            &left,
            TAG_RING_GATHER,
        );
    }
}

/// Binomial-tree broadcast of `buf` (and, with `order`, of the arrival order after it) from
/// `root` over the whole communicator: relative rank v receives from v minus its lowest set
/// bit and sends to v + 2^k for the smaller powers (Thakur, Rabenseifner and Gropp 2005).
fn binomial_bcast(call: &Call, root: Rank, buf: &mut [f64], mut order: Option<&mut [Rank]>) {
    let p = call.comm.size();
    let v = (call.comm.rank() - root + p) % p;
    let mut mask = 1;
    while mask < p {
        if v & mask != 0 {
            let parent = call.comm.process_at_rank((v - mask + root) % p);
            parent.receive_into_with_tag(buf, TAG_TREE_BCAST);
            if let Some(o) = order.as_deref_mut() {
                parent.receive_into_with_tag(o, TAG_ORDER);
            }
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if v + mask < p {
            // Blocking sends: the child is waiting in its receive above, or on its way there.
            let child = call.comm.process_at_rank((v + mask + root) % p);
            child.send_with_tag(&buf[..], TAG_TREE_BCAST);
            if let Some(o) = order.as_deref() {
                child.send_with_tag(o, TAG_ORDER);
            }
        }
        mask >>= 1;
    }
}

/// `ref:ring`: ring allreduce over ranks 0..P-1 in rank order.
pub(super) fn ring(b: &mut Buffers, call: &Call) {
    b.recv_f64.copy_from_slice(&b.send_f64);
    let members: Vec<Rank> = (0..call.comm.size()).collect();
    let pos = call.comm.rank() as usize;
    ring_reduce_scatter(call, &members, pos, &mut b.recv_f64, &mut b.scratch_f64);
    ring_allgather(call, &members, pos, &mut b.recv_f64);
}

/// `ref:binomial`: binomial-tree reduce to rank 0 (relative rank v sends its partial sum to
/// v minus its lowest set bit after adding those of v + 2^k for the smaller powers), then a
/// binomial-tree broadcast from rank 0.
pub(super) fn binomial(b: &mut Buffers, call: &Call) {
    let (p, me) = (call.comm.size(), call.comm.rank());
    b.recv_f64.copy_from_slice(&b.send_f64);
    let mut mask = 1;
    while mask < p {
        if me & mask != 0 {
            call.comm
                .process_at_rank(me - mask)
                .send_with_tag(&b.recv_f64[..], TAG_TREE_REDUCE);
            break;
        }
        if me + mask < p {
            call.comm
                .process_at_rank(me + mask)
                .receive_into_with_tag(&mut b.scratch_f64[..], TAG_TREE_REDUCE);
            add_into(&mut b.recv_f64, &b.scratch_f64);
        }
        mask <<= 1;
    }
    binomial_bcast(call, 0, &mut b.recv_f64, None);
}

/// The estimated arrival order of the arrival-aware kernels: ranks of the communicator,
/// earliest first, as observed in the kernel's previous call (rank order before the first).
pub(super) struct Estimate {
    order: Vec<usize>,
}

impl Estimate {
    /// Rank order 0..P-1: what is assumed before anything was observed.
    pub(super) fn new(nprocs: usize) -> Estimate {
        Estimate {
            order: (0..nprocs).collect(),
        }
    }

    /// The order observed in the last call (rank order before the first).
    pub(super) fn order(&self) -> &[usize] {
        &self.order
    }

    /// The order for a call on `p` ranks (rank order if the estimate is for another P).
    fn for_size(&mut self, p: usize) -> &[usize] {
        if self.order.len() != p {
            self.order = (0..p).collect();
        }
        &self.order
    }

    /// Keeps the order observed in a call for the next one. Every rank got the same
    /// observation from the collector, so all keep it or all fall back to rank order alike;
    /// the fallback (an observation that is no permutation) cannot happen unless a notice
    /// went astray, and then rank order is at least a valid order.
    fn observed(&mut self, observed: &[Rank]) {
        let order: Vec<usize> = observed.iter().map(|&r| r as usize).collect();
        self.order = if is_permutation(&order, order.len()) {
            order
        } else {
            (0..order.len()).collect()
        };
    }
}

/// A valid order of `p` ranks from the call's planned arrival order, or rank order when
/// there is none (warm-up, pure pass) or it does not fit. Every rank decides alike: all
/// compute the same planned order.
fn planned_or_rank_order(call: &Call, p: usize) -> Vec<usize> {
    match call.arrival {
        Some(order) if is_permutation(order, p) => order.to_vec(),
        _ => (0..p).collect(),
    }
}

/// True when `order` holds each of 0..p exactly once.
fn is_permutation(order: &[usize], p: usize) -> bool {
    let mut seen = vec![false; p];
    order.len() == p
        && order
            .iter()
            .all(|&r| r < p && !std::mem::replace(&mut seen[r], true))
}

/// The collector's side of arrival detection, on entry: the ranks whose notices are already
/// waiting (they arrived earlier), then itself.
fn arrived_before_me(call: &Call) -> Vec<Rank> {
    let mut seen = Vec::with_capacity(call.comm.size() as usize);
    let mut notice = [0 as Rank];
    while let Some(status) = call
        .comm
        .any_process()
        .immediate_probe_with_tag(TAG_ARRIVED)
    {
        call.comm
            .process_at_rank(status.source_rank())
            .receive_into_with_tag(&mut notice[..], TAG_ARRIVED);
        seen.push(notice[0]);
    }
    seen.push(call.comm.rank());
    seen
}

/// The collector's side of arrival detection, later: the remaining notices in the order they
/// come, completing the observed order of all P ranks.
fn arrived_after_me(call: &Call, seen: &mut Vec<Rank>) {
    let mut notice = [0 as Rank];
    while seen.len() < call.comm.size() as usize {
        call.comm
            .any_process()
            .receive_into_with_tag(&mut notice[..], TAG_ARRIVED);
        seen.push(notice[0]);
    }
}

/// `ref:sorted-linear-tree` (Proficz 2018): the linear tree on the order observed in the
/// previous call; this call's observed order becomes the next call's.
pub(super) fn sorted_linear_tree(b: &mut Buffers, call: &Call, estimate: &mut Estimate) {
    let p = call.comm.size() as usize;
    let order = estimate.for_size(p).to_vec();
    if let Some(observed) = linear_tree(b, call, &order, true) {
        estimate.observed(&observed);
    }
}

/// `ref:clairvoyant`: the linear tree on the repetition's planned arrival order, nothing
/// observed.
pub(super) fn clairvoyant(b: &mut Buffers, call: &Call) {
    let order = planned_or_rank_order(call, call.comm.size() as usize);
    linear_tree(b, call, &order, false);
}

/// The sorted linear tree of Proficz (2018) on `order` (ranks, earliest first): `order[0]`
/// sends its data to `order[1]`, which adds its own and sends the sum on, ..., until
/// `order[P-1]`, the last arriver, holds the total and broadcasts it over a binomial tree.
/// With `observe`, arrival notices go to `order[P-1]`, which sends the observed order with
/// the result; returns it (on every rank).
fn linear_tree(b: &mut Buffers, call: &Call, order: &[usize], observe: bool) -> Option<Vec<Rank>> {
    let p = order.len();
    let me = call.comm.rank();
    let pos = order
        .iter()
        .position(|&r| r == me as usize)
        .expect("an order holds every rank");
    let last = order[p - 1] as Rank;
    let mut observed = vec![0 as Rank; p];
    let notice = [me];
    mpi::request::scope(|scope| {
        let sent_notice = (observe && pos + 1 < p).then(|| {
            call.comm
                .process_at_rank(last)
                .immediate_send_with_tag(scope, &notice[..], TAG_ARRIVED)
        });
        // The collector takes every notice before the partial sum: the sum cannot come
        // before the last rank has entered anyway, and notices received one by one as they
        // come keep their order better than a queue of them read at the end.
        if observe && pos + 1 == p {
            let mut seen = arrived_before_me(call);
            arrived_after_me(call, &mut seen);
            observed.copy_from_slice(&seen);
        }
        if p == 1 {
            b.recv_f64.copy_from_slice(&b.send_f64);
        } else if pos == 0 {
            // The first arriver's data starts the chain as it is.
            call.comm
                .process_at_rank(order[1] as Rank)
                .send_with_tag(&b.send_f64[..], TAG_CHAIN);
        } else {
            call.comm
                .process_at_rank(order[pos - 1] as Rank)
                .receive_into_with_tag(&mut b.scratch_f64[..], TAG_CHAIN);
            b.recv_f64.copy_from_slice(&b.send_f64);
            add_into(&mut b.recv_f64, &b.scratch_f64);
            if pos + 1 < p {
                call.comm
                    .process_at_rank(order[pos + 1] as Rank)
                    .send_with_tag(&b.recv_f64[..], TAG_CHAIN);
            }
        }
        binomial_bcast(
            call,
            last,
            &mut b.recv_f64,
            observe.then_some(&mut observed[..]),
        );
        if let Some(request) = sent_notice {
            request.wait();
        }
    });
    observe.then_some(observed)
}

/// `ref:prereduced-ring` (Proficz 2018) on the order observed in the previous call: the
/// first P-1 ranks of the order (the early arrivers, E) reduce-scatter around their ring
/// while the last one (L) is away; when L arrives it sends block j of its data to the member
/// of E that holds block j, which adds it and returns the complete block to L; E then
/// gathers the blocks around its ring. L collects the arrival notices and sends the observed
/// order to every member of E.
pub(super) fn prereduced_ring(b: &mut Buffers, call: &Call, estimate: &mut Estimate) {
    let p = call.comm.size() as usize;
    if p == 1 {
        b.recv_f64.copy_from_slice(&b.send_f64);
        return;
    }
    let order = estimate.for_size(p).to_vec();
    let me = call.comm.rank();
    let last = order[p - 1] as Rank;
    let early: Vec<Rank> = order[..p - 1].iter().map(|&r| r as Rank).collect();
    let m = early.len();
    let n = b.recv_f64.len();
    let mut observed = vec![0 as Rank; p];
    if me == last {
        mpi::request::scope(|scope| {
            let mut seen = arrived_before_me(call);
            let mut requests = Vec::with_capacity(3 * m);
            // Block j goes to, and comes back from, the member of E that holds it after the
            // reduce-scatter: position j - 1 (mod m).
            let mut rest: &mut [f64] = &mut b.recv_f64;
            for j in 0..m {
                let owner = call.comm.process_at_rank(early[(j + m - 1) % m]);
                let range = block(n, m, j);
                requests.push(owner.immediate_send_with_tag(
                    scope,
                    &b.send_f64[range.clone()],
                    TAG_LATE_IN,
                ));
                let (this, tail) = std::mem::take(&mut rest).split_at_mut(range.len());
                rest = tail;
                requests.push(owner.immediate_receive_into_with_tag(scope, this, TAG_LATE_OUT));
            }
            arrived_after_me(call, &mut seen);
            observed.copy_from_slice(&seen);
            let observed = &observed;
            let orders_sent: Vec<_> = early
                .iter()
                .map(|&e| {
                    call.comm.process_at_rank(e).immediate_send_with_tag(
                        scope,
                        &observed[..],
                        TAG_ORDER,
                    )
                })
                .collect();
            for request in requests {
                request.wait();
            }
            for request in orders_sent {
                request.wait();
            }
        });
    } else {
        let pos = early
            .iter()
            .position(|&r| r == me)
            .expect("an order holds every rank");
        b.recv_f64.copy_from_slice(&b.send_f64);
        let notice = [me];
        mpi::request::scope(|scope| {
            let late = call.comm.process_at_rank(last);
            let sent_notice = late.immediate_send_with_tag(scope, &notice[..], TAG_ARRIVED);
            ring_reduce_scatter(call, &early, pos, &mut b.recv_f64, &mut b.scratch_f64);
            let mine = block(n, m, (pos + 1) % m);
            let tmp = &mut b.scratch_f64[..mine.len()];
            late.receive_into_with_tag(tmp, TAG_LATE_IN);
            add_into(&mut b.recv_f64[mine.clone()], tmp);
            // L posted its receive of this block before waiting for anything.
            late.send_with_tag(&b.recv_f64[mine], TAG_LATE_OUT);
            ring_allgather(call, &early, pos, &mut b.recv_f64);
            late.receive_into_with_tag(&mut observed[..], TAG_ORDER);
            sent_notice.wait();
        });
    }
    estimate.observed(&observed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_the_elements_in_order() {
        for n in [0usize, 1, 5, 7, 13, 1000] {
            for m in 1..=8 {
                let blocks: Vec<Range<usize>> = (0..m).map(|j| block(n, m, j)).collect();
                assert_eq!(blocks[0].start, 0);
                assert_eq!(blocks[m - 1].end, n);
                for w in blocks.windows(2) {
                    assert_eq!(w[0].end, w[1].start, "n {n} m {m}");
                    assert!(w[0].len() >= w[1].len() && w[0].len() <= w[1].len() + 1);
                }
            }
        }
    }

    #[test]
    fn read_write_gives_the_two_blocks() {
        let mut buf: Vec<f64> = (0..7).map(f64::from).collect();
        // 7 elements in 3 blocks: [0, 3), [3, 5), [5, 7).
        let (r, w) = read_write(&mut buf, 3, 2, 0);
        assert_eq!(r, &[5.0, 6.0]);
        assert_eq!(w.len(), 3);
        w[0] = -1.0;
        let (r, w) = read_write(&mut buf, 3, 0, 1);
        assert_eq!(r, &[-1.0, 1.0, 2.0]);
        assert_eq!(w, &[3.0, 4.0]);
        // Empty blocks (n < m) are fine on either side.
        let mut small = vec![1.0];
        let (r, w) = read_write(&mut small, 4, 3, 0);
        assert!(r.is_empty() && w == [1.0]);
        let (r, w) = read_write(&mut small, 4, 0, 2);
        assert!(r == [1.0] && w.is_empty());
    }

    #[test]
    fn orders_are_checked() {
        assert!(is_permutation(&[2, 0, 1], 3));
        assert!(!is_permutation(&[0, 0, 1], 3));
        assert!(!is_permutation(&[0, 1], 3));
        assert!(!is_permutation(&[0, 1, 3], 3));
    }
}
