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

/// The bytes of blocks `lo..hi` (cut at P) of a `bytes` message cut into P blocks of
/// ⌈bytes/P⌉, the last ones short or empty (the blocks of van de Geijn's broadcast).
fn blocks_of(bytes: u64, p: usize, lo: usize, hi: usize) -> u64 {
    let block = bytes.div_ceil(p as u64);
    let at = |i: usize| (i.min(p) as u64 * block).min(bytes);
    at(hi) - at(lo)
}

/// A rank's part of the recursive-doubling allgather (MPICH's and Open MPI's
/// `recursive_doubling`; Thakur, Rabenseifner and Gropp 2005) with the data of blocks
/// `lo..hi` weighing `data(lo, hi)` bytes (an empty message is sent as 1 B): in step 2^k a
/// rank exchanges its 2^k-subtree's blocks with r XOR 2^k. At a non-power of two, a rank
/// whose partner does not exist gets the partner's subtree from a rank of its own subtree
/// that has it, by recursive halving within the subtree, as MPICH does. Step k's messages
/// carry tag `tag` + 64k, its halving's `tag` + 64k + 1, + 2, ... (the same on every rank
/// whichever part it takes).
fn recursive_doubling_allgather_rank(
    k: &mut Rank,
    p: usize,
    data: &dyn Fn(usize, usize) -> u64,
    first_tag: u32,
) {
    let r = k.r;
    let mut mask = 1;
    while mask < p {
        let mut tag = first_tag + 64 * mask.trailing_zeros();
        let remote = r ^ mask;
        let mine = r & !(mask - 1);
        let theirs = remote & !(mask - 1);
        if remote < p {
            k.send(remote, data(mine, mine + mask).max(1), tag);
            let got = k.recv_after(remote, data(theirs, theirs + mask).max(1), tag);
            k.then(&[got]);
        }
        tag += 1;
        if theirs + mask > p {
            // The subtree's ranks that got the partner subtree's data: they pass it on.
            let completed = p as isize - (mine + mask) as isize;
            let has = |x: usize, root: usize| (x as isize) < root as isize + completed;
            let size = data(mine + mask, mine + 2 * mask).max(1);
            let mut half = mask >> 1;
            while half > 0 {
                let dst = r ^ half;
                let root = r & !(2 * half - 1);
                if dst > r && dst < p && has(r, root) && !has(dst, root) {
                    k.send(dst, size, tag);
                } else if dst < r && has(dst, root) && !has(r, root) {
                    let got = k.recv_after(dst, size, tag);
                    k.then(&[got]);
                }
                tag += 1;
                half >>= 1;
            }
        }
        mask <<= 1;
    }
}

/// Recursive-doubling allgather (Open MPI's and MPICH's `recursive_doubling`; Thakur,
/// Rabenseifner and Gropp 2005): log2 P steps, step k exchanging 2^k blocks with r XOR 2^k.
/// At a non-power of two as MPICH does it (the missing partners' data passed on within the
/// subtree); Open MPI switches to Bruck's allgather there.
pub fn allgather_recursive_doubling(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 0..p {
        let mut k = Rank::new(b, r);
        let data = |lo: usize, hi: usize| (hi.min(p) - lo.min(p)) as u64 * bytes;
        recursive_doubling_allgather_rank(&mut k, p, &data, 0);
    }
}

/// The scatter of van de Geijn's broadcast from rank 0: the binomial scatter of the message
/// in P blocks of ⌈bytes/P⌉ (an empty part sent as 1 B). Returns `None` when bytes < P, where
/// Open MPI's `scatter_allgather` broadcasts by the binomial tree instead.
fn scatter_blocks(b: &mut ScheduleBuilder, r: usize, p: usize, bytes: u64) -> Option<Rank<'_>> {
    let mut k = Rank::new(b, r);
    if bytes < p as u64 {
        binomial_bcast_rank(&mut k, p, &|_| bytes, 0);
        return None;
    }
    let part = |c: usize| blocks_of(bytes, p, c, c + subtree(c, p) as usize).max(1);
    binomial_bcast_rank(&mut k, p, &part, 0);
    Some(k)
}

/// Van de Geijn's broadcast with a recursive-doubling allgather (Open MPI's
/// `scatter_allgather`, MPICH's `scatter_recursive_doubling_allgather`; Barnett et al. 1994,
/// Thakur, Rabenseifner and Gropp 2005): the binomial scatter of P blocks of ⌈bytes/P⌉, then
/// [`allgather_recursive_doubling`]'s exchanges of them. Below P bytes, the binomial
/// broadcast (as Open MPI falls back).
pub fn bcast_scatter_allgather(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 0..p {
        if let Some(mut k) = scatter_blocks(b, r, p, bytes) {
            let data = |lo: usize, hi: usize| blocks_of(bytes, p, lo, hi);
            recursive_doubling_allgather_rank(&mut k, p, &data, 1);
        }
    }
}

/// Van de Geijn's broadcast with a ring allgather (Open MPI's `scatter_allgather_ring`,
/// MPICH's `scatter_ring_allgather`): the binomial scatter of P blocks, then P-1 ring steps,
/// step i sending block r-i+1 to r+1 and receiving block r-i from r-1. Below P bytes, the
/// binomial broadcast (as Open MPI falls back).
pub fn bcast_scatter_allgather_ring(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    for r in 0..p {
        if let Some(mut k) = scatter_blocks(b, r, p, bytes) {
            let block = |i: usize| blocks_of(bytes, p, i, i + 1).max(1);
            for i in 1..p {
                let (out, into) = ((r + p + 1 - i) % p, (r + p - i) % p);
                k.send((r + 1) % p, block(out), i as u32);
                let got = k.recv_after((r + p - 1) % p, block(into), i as u32);
                k.then(&[got]);
            }
        }
    }
}

/// The segment size of the pipelined broadcasts: 8 KiB, the segment of Open MPI's fixed
/// decision (coll_tuned_decision_fixed.c) for its pipeline at large P (it takes 16, 64 or
/// 128 KiB at fewer ranks; a forced algorithm with `coll_tuned_bcast_algorithm_segmentsize`
/// 0 sends the message whole).
pub const BCAST_SEGMENT_BYTES: u64 = 8 << 10;

/// Chain broadcast from rank 0 with `fanout` chains (Open MPI's `chain`, its
/// `ompi_coll_base_topo_build_chain`): ranks 1..P in `fanout` runs of consecutive ranks, the
/// first (P-1) mod fanout one longer; the message in [`BCAST_SEGMENT_BYTES`] segments, each
/// passed down every chain. A rank's sends of segment s wait for its receive of s and for its
/// sends of s-1 (Open MPI's generic broadcast waits for them); receives are posted at once.
fn bcast_chains(b: &mut ScheduleBuilder, p: usize, bytes: u64, fanout: usize) {
    if p < 2 {
        return;
    }
    let chains = fanout.min(p - 1);
    let (short, longer) = ((p - 1) / chains, (p - 1) % chains);
    // The first rank of each chain.
    let heads: Vec<usize> = (0..chains).map(|c| 1 + c * short + c.min(longer)).collect();
    let segments = bytes.div_ceil(BCAST_SEGMENT_BYTES).max(1);
    let size = |s: u64| (bytes - s * BCAST_SEGMENT_BYTES).clamp(1, BCAST_SEGMENT_BYTES);
    for r in 0..p {
        let children: Vec<usize> = if r == 0 {
            heads.clone()
        } else if r + 1 < p && !heads.contains(&(r + 1)) {
            vec![r + 1]
        } else {
            Vec::new()
        };
        let parent = if heads.contains(&r) {
            0
        } else {
            r.wrapping_sub(1)
        };
        let mut sent: Vec<u32> = Vec::new();
        for s in 0..segments {
            let got = (r > 0).then(|| b.recv(r, parent, size(s), s as u32));
            let before: Vec<u32> = got.into_iter().chain(sent.drain(..)).collect();
            for &c in &children {
                let op = b.send(r, c, size(s), s as u32);
                for &d in &before {
                    b.requires(op, d);
                }
                sent.push(op);
            }
        }
    }
}

/// Pipelined broadcast (Open MPI's `pipeline`, its chain with fanout 1): the message in
/// [`BCAST_SEGMENT_BYTES`] segments passed down the chain 0 → 1 → ... → P-1.
pub fn bcast_pipeline(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    bcast_chains(b, p, bytes, 1);
}

/// Chain broadcast (Open MPI's `chain` with its default fanout,
/// `coll_tuned_bcast_algorithm_chain_fanout` 4): four chains fed segment by segment.
pub fn bcast_chain(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    bcast_chains(b, p, bytes, 4);
}

/// Rabenseifner's reduce to rank 0 (Open MPI's `rabenseifner`, its
/// `ompi_coll_base_reduce_intra_redscat_gather`; MPICH's `reduce_scatter_gather`;
/// Rabenseifner 2004, Thakur, Rabenseifner and Gropp 2005). With rem = P - 2^⌊log2 P⌋, the
/// first 2·rem ranks pair up: the odd one sends the left half to r-1 and receives the right
/// half, then sends the reduced right half and drops out. The 2^⌊log2 P⌋ ranks left
/// reduce-scatter by recursive halving (step k: exchange halves of the part held with
/// v XOR 2^k, keeping the left half when bit k of v is 0), then gather to rank 0 by a
/// binomial tree (bit k from the highest down: a rank with bit k set sends what it holds to
/// v XOR 2^k and is done). Parts are halved as Open MPI halves counts (left ⌊n/2⌋); an empty
/// part is sent as 1 B.
pub fn reduce_rabenseifner(b: &mut ScheduleBuilder, p: usize, bytes: u64) {
    let pof2 = pof2_below(p);
    let steps = pof2.trailing_zeros();
    let rem = p - pof2;
    let real = |v: usize| if v < rem { 2 * v } else { v + rem };
    // The (offset, length) of v's part after the first `step` halvings.
    let part = |v: usize, step: u32| {
        (0..step).fold((0u64, bytes), |(at, n), i| {
            let left = n / 2;
            if v & (1 << i) == 0 {
                (at, left)
            } else {
                (at + left, n - left)
            }
        })
    };
    let (left, right) = (bytes / 2, bytes - bytes / 2);
    for r in 0..p {
        let mut k = Rank::new(b, r);
        let v = if r < 2 * rem {
            if r % 2 == 1 {
                k.send(r - 1, left.max(1), 0);
                let got = k.recv_after(r - 1, right.max(1), 0);
                k.then(&[got]);
                k.send(r - 1, right.max(1), 1);
                continue;
            }
            k.send(r + 1, right.max(1), 0);
            let a = k.recv_after(r + 1, left.max(1), 0);
            let c = k.recv_after(r + 1, right.max(1), 1);
            k.then(&[a, c]);
            r / 2
        } else {
            r - rem
        };
        for i in 0..steps {
            let held = part(v, i).1;
            let kept = part(v, i + 1).1;
            let peer = real(v ^ (1 << i));
            k.send(peer, (held - kept).max(1), 2 + i);
            let got = k.recv_after(peer, kept.max(1), 2 + i);
            k.then(&[got]);
        }
        for i in (0..steps).rev() {
            let peer = v ^ (1 << i);
            let tag = 2 + steps + i;
            if v & (1 << i) != 0 {
                k.send(real(peer), part(v, i + 1).1.max(1), tag);
                break;
            }
            let got = k.recv_after(real(peer), part(peer, i + 1).1.max(1), tag);
            k.then(&[got]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::{collective, Noise, OpKind, Params, Schedule, Simulator};
    use super::*;

    /// Per rank: (messages sent, bytes sent, messages received, bytes received).
    fn traffic(s: &Schedule) -> Vec<(usize, u64, usize, u64)> {
        (0..s.num_ranks())
            .map(|r| {
                s.ops_of(r)
                    .fold((0, 0, 0, 0), |(ns, bs, nr, br), op| match s.op(op) {
                        (OpKind::Send, _, size, ..) => (ns + 1, bs + size, nr, br),
                        (OpKind::Recv, _, size, ..) => (ns, bs, nr + 1, br + size),
                        _ => (ns, bs, nr, br),
                    })
            })
            .collect()
    }

    /// The schedule and its traffic, after checking that it runs to the end (a receive no
    /// send matches, or a send no receive matches, is an error of the run).
    fn run(op: &str, alg: &str, p: usize, bytes: u64) -> Vec<(usize, u64, usize, u64)> {
        let s = collective(op, Some(alg), p, bytes).unwrap();
        let end = Simulator::new(&Params::default())
            .run(&s, &vec![0.0; p], &mut Noise::None)
            .unwrap_or_else(|e| panic!("{op} {alg} P={p} {bytes} B: {e}"));
        assert!(end.iter().all(|t| t.is_finite()), "{op} {alg} P={p}");
        traffic(&s)
    }

    const PS: [usize; 6] = [2, 3, 4, 5, 8, 16];

    #[test]
    fn allgather_recursive_doubling_moves_log_p_messages_and_every_block_once() {
        for p in PS {
            let t = run("allgather", "recursive_doubling", p, 1000);
            for (r, &(ns, bs, nr, br)) in t.iter().enumerate() {
                // Every rank ends with the P-1 blocks it lacked, each received once.
                assert_eq!(br, (p as u64 - 1) * 1000, "P={p} rank {r}");
                if p.is_power_of_two() {
                    let lg = p.trailing_zeros() as usize;
                    assert_eq!((ns, nr, bs), (lg, lg, (p as u64 - 1) * 1000), "P={p}");
                }
            }
        }
    }

    #[test]
    fn van_de_geijn_bcasts_scatter_then_gather_the_message() {
        for p in PS {
            let n = 1024 * p as u64;
            let block = n / p as u64;
            let lg = p.next_power_of_two().trailing_zeros() as usize;
            let rd = run("bcast", "scatter_allgather", p, n);
            let ring = run("bcast", "scatter_allgather_ring", p, n);
            for r in 0..p {
                let scattered = if r == 0 { 0 } else { subtree(r, p) * block };
                let forwarded = subtree(r, p) * block - block;
                // Both: the blocks of its subtree in the scatter, then every block but its
                // own once more (the scatter's extra blocks again, as in Open MPI).
                assert_eq!(
                    rd[r].3,
                    scattered + (p as u64 - 1) * block,
                    "P={p} rank {r}"
                );
                if p.is_power_of_two() {
                    let (ns, bs, nr, _) = rd[r];
                    assert_eq!(nr, lg + usize::from(r > 0), "P={p} rank {r}");
                    assert_eq!(bs, (p as u64 - 1) * block + forwarded, "P={p} rank {r}");
                    assert!(ns >= lg, "P={p} rank {r}");
                }
                // Ring: P-1 steps of one block each.
                let (ns, bs, nr, br) = ring[r];
                assert_eq!(br, scattered + (p as u64 - 1) * block, "P={p} rank {r}");
                assert_eq!(nr, p - 1 + usize::from(r > 0), "P={p} rank {r}");
                assert_eq!(bs, (p as u64 - 1) * block + forwarded, "P={p} rank {r}");
                assert!(ns >= p - 1);
            }
        }
        // Below P bytes both are the binomial broadcast.
        let few = run("bcast", "scatter_allgather", 8, 5);
        assert_eq!(few, run("bcast", "binomial", 8, 5));
    }

    #[test]
    fn pipelined_bcasts_pass_every_segment_down_each_chain() {
        let n = 5 * BCAST_SEGMENT_BYTES + 100;
        for p in PS {
            for (alg, chains) in [("pipeline", 1), ("chain", 4)] {
                let t = run("bcast", alg, p, n);
                let heads = chains.min(p - 1);
                for (r, &(ns, bs, nr, br)) in t.iter().enumerate() {
                    let expect_recv = if r == 0 { (0, 0) } else { (6, n) };
                    assert_eq!((nr, br), expect_recv, "{alg} P={p} rank {r}");
                    // Each rank forwards to its chain's next rank; the root feeds the heads.
                    let children = if r == 0 { heads } else { ns / 6 };
                    assert_eq!((ns, bs), (6 * children, children as u64 * n), "{alg} P={p}");
                    assert!(children <= 1 || r == 0, "{alg} P={p} rank {r}");
                }
                let senders = t.iter().skip(1).filter(|x| x.0 > 0).count();
                // Chains end at their last rank: P-1 receivers, P-1-heads of them forward.
                assert_eq!(senders, p - 1 - heads, "{alg} P={p}");
            }
        }
    }

    #[test]
    fn rabenseifner_reduce_halves_then_gathers_to_the_root() {
        let n = 4096u64;
        for p in PS {
            let t = run("reduce", "rabenseifner", p, n);
            let pof2 = pof2_below(p);
            let rem = p - pof2;
            let lg = pof2.trailing_zeros() as usize;
            let share = n - n / pof2 as u64;
            for (r, &(ns, bs, nr, br)) in t.iter().enumerate() {
                if r < 2 * rem && r % 2 == 1 {
                    // Folded in: the left half out, the right half in and out again.
                    assert_eq!((ns, bs, nr, br), (2, n, 1, n / 2), "P={p} rank {r}");
                    continue;
                }
                let fold = if r < 2 * rem { n } else { 0 };
                let fold_msgs = if r < 2 * rem { 2 } else { 0 };
                let fold_sent = if r < 2 * rem { n / 2 } else { 0 };
                if r == 0 {
                    // Reduce-scatter, then the gather of every other rank's part.
                    assert_eq!(nr, fold_msgs + 2 * lg, "P={p}");
                    assert_eq!(br, fold + 2 * share, "P={p}");
                    assert_eq!((ns, bs), (usize::from(fold > 0) + lg, fold_sent + share));
                } else {
                    let v = if r < 2 * rem { r / 2 } else { r - rem };
                    // A rank sends once in the gather: the part of its subtree.
                    let highest = usize::BITS - 1 - v.leading_zeros();
                    let gathered = n >> (highest + 1);
                    assert_eq!(ns, usize::from(fold > 0) + lg + 1, "P={p} rank {r}");
                    assert_eq!(bs, fold_sent + share + gathered, "P={p} rank {r}");
                    assert_eq!(br, fold + share + gathered - n / pof2 as u64, "P={p}");
                }
            }
        }
    }
}
