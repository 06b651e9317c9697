//! The schedules, one function per algorithm, each adding `procs` ranks' operations to a
//! builder rank by rank (so no per-rank state outlives its rank).

use super::super::schedule::ScheduleBuilder;

/// One rank's operations under construction: its sends wait for the receives of the
/// previous step (`after`).
struct Rank<'a> {
    b: &'a mut ScheduleBuilder,
    r: usize,
    after: Vec<u32>,
}

impl<'a> Rank<'a> {
    fn new(b: &'a mut ScheduleBuilder, r: usize) -> Self {
        Rank {
            b,
            r,
            after: Vec::new(),
        }
    }
    /// A send that waits for the previous step.
    fn send(&mut self, to: usize, bytes: u64, tag: u32) -> u32 {
        let s = self.b.send(self.r, to, bytes, tag);
        for &d in &self.after {
            self.b.requires(s, d);
        }
        s
    }
    /// A receive, posted at once.
    fn recv(&mut self, from: usize, bytes: u64, tag: u32) -> u32 {
        self.b.recv(self.r, from, bytes, tag)
    }
    /// A receive posted once the previous step is done, as sequential MPI code posts it
    /// after its previous wait: a step's receive completes only after the earlier steps',
    /// so a late rank's data reaches everyone its collective must reach.
    fn recv_after(&mut self, from: usize, bytes: u64, tag: u32) -> u32 {
        let r = self.b.recv(self.r, from, bytes, tag);
        for &d in &self.after {
            self.b.requires(r, d);
        }
        r
    }
    /// The next sends wait for `ops` instead of what they waited for.
    fn then(&mut self, ops: &[u32]) {
        self.after.clear();
        self.after.extend_from_slice(ops);
    }
    /// One step: a send to `to` and a receive from `from`, both after the previous step;
    /// the next step waits for the receive.
    fn step(&mut self, to: usize, from: usize, bytes: u64, tag: u32) {
        self.send(to, bytes, tag);
        let r = self.recv_after(from, bytes, tag);
        self.then(&[r]);
    }
    /// A step with one peer.
    fn exchange(&mut self, peer: usize, bytes: u64, tag: u32) {
        self.step(peer, peer, bytes, tag);
    }
}

/// The largest power of two at most `p`.
fn pof2_below(p: usize) -> usize {
    1 << (usize::BITS - 1 - p.leading_zeros())
}

/// Dissemination barrier (Hensgen, Finkel and Manber 1988; Open MPI's `bruck`, MPICH's
/// `dissemination`): in round k each rank sends to r + 2^k and receives from r - 2^k; a
/// round's send and receive wait for the previous round's receive. Schedgen's
/// `dissemination` has the same operations and times; its receives are all posted at once,
/// so a round's receive may complete before the previous one's, and a late rank 0 at P = 6
/// would not delay rank 5.
pub fn barrier_dissemination(b: &mut ScheduleBuilder, p: usize, _bytes: u64) {
    for r in 0..p {
        let mut k = Rank::new(b, r);
        let mut dist = 1;
        let mut tag = 0;
        while dist < p {
            k.step((r + dist) % p, (r + p - dist) % p, 1, tag);
            dist <<= 1;
            tag += 1;
        }
    }
}

/// Recursive-doubling barrier (Open MPI's `recursive_doubling`): the exchanges of the
/// recursive-doubling allreduce with 1 B messages.
pub fn barrier_recursive_doubling(b: &mut ScheduleBuilder, p: usize, _bytes: u64) {
    recursive_doubling(b, p, 1);
}

/// Binomial-tree broadcast from rank 0 (MPICH's and Open MPI's `binomial`): a rank receives
/// from the rank that clears its lowest set bit, then sends to r + 2^k for the k below it,
/// largest first.
pub fn bcast_binomial(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 0..p {
        let mut k = Rank::new(b, r);
        binomial_bcast_rank(&mut k, p, &|_| bytes, 0);
    }
}

/// A rank's part of the binomial broadcast from rank 0, its receive after `k.after`;
/// `bytes(child)` is what the message to `child` carries.
fn binomial_bcast_rank(k: &mut Rank, p: usize, bytes: &dyn Fn(usize) -> u64, tag: u32) {
    let r = k.r;
    let mut mask = 1;
    while mask < p {
        if r & mask != 0 {
            let got = k.recv_after(r - mask, bytes(r), tag);
            k.then(&[got]);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if r + mask < p {
            k.send(r + mask, bytes(r + mask), tag);
        }
        mask >>= 1;
    }
}

/// Binomial-tree reduce to rank 0 (`binomial`) in the labelling of Schedgen's
/// `binomialtreereduce`: rank r receives from r + 2^k for every 2^k > r (below P), then
/// sends to r minus its highest set bit. MPICH labels the same tree by the lowest set bit
/// (`binomial_reduce_rank`, used by `reduce_bcast`): the same times on other ranks.
pub fn reduce_binomial(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 0..p {
        let mut k = Rank::new(b, r);
        let mut got = Vec::new();
        let mut dist = if r == 0 {
            1
        } else {
            2 << (usize::BITS - 1 - r.leading_zeros())
        };
        while r + dist < p {
            got.push(k.recv(r + dist, bytes, 0));
            dist <<= 1;
        }
        if r > 0 {
            k.then(&got);
            k.send(r - (1 << (usize::BITS - 1 - r.leading_zeros())), bytes, 0);
        }
    }
}

/// A rank's part of the binomial reduce to rank 0 in MPICH's labelling (the parent clears
/// the lowest set bit); `bytes(sender)` is what the sender's message carries.
fn binomial_reduce_rank(k: &mut Rank, p: usize, bytes: &dyn Fn(usize) -> u64, tag: u32) {
    let r = k.r;
    let mut got = Vec::new();
    let mut mask = 1;
    while mask < p {
        if r & mask != 0 {
            k.then(&got);
            k.send(r - mask, bytes(r), tag);
            return;
        }
        if r + mask < p {
            got.push(k.recv(r + mask, bytes(r + mask), tag));
        }
        mask <<= 1;
    }
    k.then(&got);
}

/// Exchanges with r XOR 2^bit, `(bit, bytes)` in `plan`'s order, among the largest power of
/// two of ranks, with MPICH's non-power-of-two steps around them (Thakur, Rabenseifner and
/// Gropp 2005): the first 2·rem ranks pair up, the even one hands its `bytes` to the odd one
/// and waits for the result, which the odd one sends back at the end.
fn folded_exchanges(b: &mut ScheduleBuilder, p: usize, bytes: u64, plan: &[(u32, u64)]) {
    let rem = p - pof2_below(p);
    let back = plan.len() as u32 + 1;
    let real = |n: usize| if n < rem { n * 2 + 1 } else { n + rem };
    for r in 0..p {
        let mut k = Rank::new(b, r);
        let newrank = if r < 2 * rem {
            if r % 2 == 0 {
                k.send(r + 1, bytes, 0);
                k.recv(r + 1, bytes, back);
                continue;
            }
            let got = k.recv(r - 1, bytes, 0);
            k.then(&[got]);
            r / 2
        } else {
            r - rem
        };
        for (i, &(bit, size)) in plan.iter().enumerate() {
            k.exchange(real(newrank ^ (1 << bit)), size, i as u32 + 1);
        }
        if r < 2 * rem {
            k.send(r - 1, bytes, back);
        }
    }
}

/// Recursive doubling: `bytes` exchanged with r XOR 2^k for k = 0, 1, ...
fn recursive_doubling(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    let steps = pof2_below(p).trailing_zeros();
    let plan: Vec<(u32, u64)> = (0..steps).map(|k| (k, bytes)).collect();
    folded_exchanges(b, p, bytes, &plan);
}

/// Recursive-doubling allreduce (Open MPI's and MPICH's `recursive_doubling`).
pub fn allreduce_recursive_doubling(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    recursive_doubling(b, p, bytes);
}

/// Rabenseifner's allreduce (Open MPI's `rabenseifner`, MPICH's
/// `reduce_scatter_allgather`; Rabenseifner 2004): the non-power-of-two steps of recursive
/// doubling, then a reduce-scatter by recursive halving (step k exchanges bytes/2^(k+1)
/// with r XOR 2^k) and an allgather by recursive doubling back (the same sizes in reverse).
/// Schedgen's `allreduce_recdoub` is this shape.
pub fn allreduce_rabenseifner(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    let steps = pof2_below(p).trailing_zeros();
    let part = |k: u32| (k, bytes.div_ceil(1u64 << (k + 1)).max(1));
    let plan: Vec<(u32, u64)> = (0..steps)
        .map(part)
        .chain((0..steps).rev().map(part))
        .collect();
    folded_exchanges(b, p, bytes, &plan);
}

/// Ring allreduce (Open MPI's and MPICH's `ring`; Patarasuk and Yuan 2009): P-1 steps of
/// reduce-scatter and P-1 of allgather, each sending bytes/P to r+1 and receiving from r-1.
pub fn allreduce_ring(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    let chunk = bytes.div_ceil(p as u64).max(1);
    ring_steps(b, p, chunk, 2 * (p - 1));
}

/// `steps` ring steps of `chunk` bytes: send to r+1, receive from r-1, each step's send after
/// the previous receive.
fn ring_steps(b: &mut ScheduleBuilder, p: usize, chunk: u64, steps: usize) {
    for r in 0..p {
        let mut k = Rank::new(b, r);
        for step in 0..steps as u32 {
            k.step((r + 1) % p, (r + p - 1) % p, chunk, step);
        }
    }
}

/// Reduce then broadcast (Open MPI's `nonoverlapping`, MPICH's `reduce_bcast`): the binomial
/// reduce to rank 0, then the binomial broadcast from it; a rank's broadcast sends wait for
/// its part of the reduce.
pub fn allreduce_reduce_bcast(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 0..p {
        let mut k = Rank::new(b, r);
        let first = k.b.num_ops();
        binomial_reduce_rank(&mut k, p, &|_| bytes, 0);
        // The broadcast waits for everything the rank did in the reduce.
        let reduce_ops: Vec<u32> = (first..k.b.num_ops()).collect();
        k.then(&reduce_ops);
        binomial_bcast_rank(&mut k, p, &|_| bytes, 1);
    }
}

/// Ring allgather (Open MPI's and MPICH's `ring`): P-1 steps passing one block to r+1.
pub fn allgather_ring(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    ring_steps(b, p, bytes, p - 1);
}

/// Pairwise alltoall (Open MPI's `pairwise`): in step s, send to r+s and receive from r-s,
/// each step after the previous receive.
pub fn alltoall_pairwise(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 0..p {
        let mut k = Rank::new(b, r);
        for step in 1..p {
            k.step((r + step) % p, (r + p - step) % p, bytes, step as u32);
        }
    }
}

/// Linear alltoall (Open MPI's `basic_linear`): every send and receive posted at once.
pub fn alltoall_linear(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 0..p {
        for step in 1..p {
            b.recv(r, (r + p - step) % p, bytes, 0);
        }
        for step in 1..p {
            b.send(r, (r + step) % p, bytes, 0);
        }
    }
}

/// Linear gather to rank 0 (Open MPI's `basic_linear`): every rank sends its block to the
/// root, which posts all its receives at once.
pub fn gather_linear(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 1..p {
        b.recv(0, r, bytes, 0);
    }
    for r in 1..p {
        b.send(r, 0, bytes, 0);
    }
}

/// Linear scatter from rank 0 (Open MPI's `basic_linear`): the root sends each rank its
/// block.
pub fn scatter_linear(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 1..p {
        b.send(0, r, bytes, 0);
    }
    for r in 1..p {
        b.recv(r, 0, bytes, 0);
    }
}

/// Binomial-tree barrier (Open MPI's `tree`): a 1 B binomial fan-in to rank 0, then a 1 B
/// binomial fan-out from it.
pub fn barrier_tree(b: &mut ScheduleBuilder, p: usize, _bytes: u64) {
    allreduce_reduce_bcast(b, p, 1);
}

/// The ranks of the binomial subtree rooted at `r` (rank 0's tree): r's lowest set bit, cut
/// at P.
fn subtree(r: usize, p: usize) -> u64 {
    let low = if r == 0 {
        p.next_power_of_two()
    } else {
        1 << r.trailing_zeros()
    };
    low.min(p - r) as u64
}

/// Binomial gather to rank 0 (Open MPI's `binomial`): the binomial reduce's messages, each
/// carrying its sender's subtree of blocks.
pub fn gather_binomial(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 0..p {
        binomial_reduce_rank(&mut Rank::new(b, r), p, &|s| subtree(s, p) * bytes, 0);
    }
}

/// Binomial scatter from rank 0 (Open MPI's `binomial`): the binomial broadcast's messages,
/// each carrying its receiver's subtree of blocks.
pub fn scatter_binomial(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 0..p {
        binomial_bcast_rank(&mut Rank::new(b, r), p, &|c| subtree(c, p) * bytes, 0);
    }
}

/// Bruck's allgather (Open MPI's `bruck`, MPICH's `brucks`; Bruck et al. 1997): in step k a
/// rank sends the min(2^k, P - 2^k) blocks it holds to r - 2^k and receives as many from
/// r + 2^k.
pub fn allgather_bruck(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 0..p {
        let mut k = Rank::new(b, r);
        let mut dist = 1;
        let mut tag = 0;
        while dist < p {
            let blocks = dist.min(p - dist) as u64;
            k.step((r + p - dist) % p, (r + dist) % p, blocks * bytes, tag);
            dist <<= 1;
            tag += 1;
        }
    }
}

/// Bruck's alltoall (Open MPI's `bruck`, MPICH's `brucks`): in step k a rank sends the
/// blocks whose index has bit k set, P/2 of them or so, to r + 2^k and receives as many
/// from r - 2^k.
pub fn alltoall_bruck(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 0..p {
        let mut k = Rank::new(b, r);
        let mut dist = 1;
        let mut tag = 0;
        while dist < p {
            let blocks = (0..p).filter(|i| i & dist != 0).count() as u64;
            k.step((r + dist) % p, (r + p - dist) % p, blocks * bytes, tag);
            dist <<= 1;
            tag += 1;
        }
    }
}
