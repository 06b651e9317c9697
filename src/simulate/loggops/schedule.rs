//! A schedule: per rank a dependency graph of send, recv and calc operations, the shape of
//! GOAL (Hoefler, Siebert and Lumsdaine, ICPP 2009), stored as a struct of arrays with `u32`
//! indices so that a million ranks' schedules fit in memory.

use super::LoggopsError;
use std::collections::VecDeque;

/// Any source or any tag in a receive (GOAL's `-1`).
pub const ANY: u32 = u32::MAX;

/// What an operation does. The order is LogGOPSim's: operations that become ready at the
/// same instant on a rank are issued sends first, then receives, then calcs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum OpKind {
    /// Send `size` bytes to `peer` with `tag`.
    Send = 1,
    /// Receive `size` bytes from `peer` (or [`ANY`]) with `tag` (or [`ANY`]).
    Recv = 2,
    /// Compute for `size` ns.
    Calc = 3,
}

/// The operations of all ranks and their dependencies, immutable once built.
///
/// Operation ids are `u32`, grouped by rank in rank order (`ops_of(r)`); within a rank in
/// the order they were added. A dependency `a requires b` lets `a` start once `b` is done;
/// `a irequires b` once `b` has started.
#[derive(Debug, Clone, Default)]
pub struct Schedule {
    pub(super) num_ranks: u32,
    pub(super) rank_first: Vec<u32>,
    pub(super) rank: Vec<u32>,
    pub(super) kind: Vec<OpKind>,
    pub(super) peer: Vec<u32>,
    pub(super) tag: Vec<u32>,
    pub(super) size: Vec<u64>,
    pub(super) cpu: Vec<u8>,
    pub(super) nic: Vec<u8>,
    /// How many dependencies each operation waits for (requires and irequires).
    pub(super) deps: Vec<u32>,
    /// Successors once an operation is done (`requires`), CSR by operation.
    pub(super) done_first: Vec<u32>,
    pub(super) done_succ: Vec<u32>,
    /// Successors once an operation has started (`irequires`), CSR by operation.
    pub(super) start_first: Vec<u32>,
    pub(super) start_succ: Vec<u32>,
    pub(super) cpus: u8,
    pub(super) nics: u8,
}

impl Schedule {
    /// The number of ranks.
    pub fn num_ranks(&self) -> usize {
        self.num_ranks as usize
    }
    /// The number of operations of all ranks.
    pub fn num_ops(&self) -> usize {
        self.kind.len()
    }
    /// The operation ids of rank `r`.
    pub fn ops_of(&self, r: usize) -> std::ops::Range<u32> {
        self.rank_first[r]..self.rank_first[r + 1]
    }
    /// Operation `op`: (kind, peer, size in bytes or ns, tag, cpu, nic).
    pub fn op(&self, op: u32) -> (OpKind, u32, u64, u32, u8, u8) {
        let i = op as usize;
        (
            self.kind[i],
            self.peer[i],
            self.size[i],
            self.tag[i],
            self.cpu[i],
            self.nic[i],
        )
    }
    /// The operations `op` enables when it is done (`requires`).
    pub fn done_successors(&self, op: u32) -> &[u32] {
        let i = op as usize;
        &self.done_succ[self.done_first[i] as usize..self.done_first[i + 1] as usize]
    }
    /// The operations `op` enables when it starts (`irequires`).
    pub fn start_successors(&self, op: u32) -> &[u32] {
        let i = op as usize;
        &self.start_succ[self.start_first[i] as usize..self.start_first[i + 1] as usize]
    }
    /// The number of CPUs and NICs per rank the operations name (at least one each).
    pub fn cpus_nics(&self) -> (usize, usize) {
        (self.cpus as usize, self.nics as usize)
    }
    /// Bytes of memory the schedule holds, for a memory estimate before a run.
    pub fn memory_bytes(&self) -> usize {
        self.num_ops() * (4 + 1 + 4 + 4 + 8 + 1 + 1 + 4 + 8)
            + (self.done_succ.len() + self.start_succ.len()) * 4
            + self.rank_first.len() * 4
    }
    /// Rank `r`'s operation `op` described for a message: `rank 3 op 5 (recv 8 B from 2 tag 0)`.
    pub fn describe(&self, op: u32) -> String {
        let i = op as usize;
        let r = self.rank[i];
        let local = op - self.rank_first[r as usize];
        let who = |x: u32| {
            if x == ANY {
                "any".to_string()
            } else {
                x.to_string()
            }
        };
        let what = match self.kind[i] {
            OpKind::Send => format!(
                "send {} B to {} tag {}",
                self.size[i],
                self.peer[i],
                who(self.tag[i])
            ),
            OpKind::Recv => format!(
                "recv {} B from {} tag {}",
                self.size[i],
                who(self.peer[i]),
                who(self.tag[i])
            ),
            OpKind::Calc => format!("calc {} ns", self.size[i]),
        };
        format!("rank {r} op {local} ({what})")
    }
}

/// Builds a [`Schedule`]: operations are added rank by rank (any rank order), dependencies
/// by the ids `add` returned; [`ScheduleBuilder::build`] checks the ranks and the cycles.
#[derive(Debug, Default)]
pub struct ScheduleBuilder {
    num_ranks: u32,
    rank: Vec<u32>,
    kind: Vec<OpKind>,
    peer: Vec<u32>,
    tag: Vec<u32>,
    size: Vec<u64>,
    cpu: Vec<u8>,
    nic: Vec<u8>,
    /// (from, to, on start): `to` waits for `from` to be done, or to start.
    edges: Vec<(u32, u32, bool)>,
}

impl ScheduleBuilder {
    /// An empty schedule of `num_ranks` ranks.
    pub fn new(num_ranks: usize) -> Self {
        ScheduleBuilder {
            num_ranks: num_ranks as u32,
            ..Default::default()
        }
    }
    /// The number of ranks.
    pub fn num_ranks(&self) -> usize {
        self.num_ranks as usize
    }
    /// The number of operations added so far (the next one's id).
    pub fn num_ops(&self) -> u32 {
        self.kind.len() as u32
    }
    /// Adds an operation of `rank` on CPU 0 and NIC 0; returns its id.
    pub fn add(&mut self, rank: usize, kind: OpKind, peer: u32, size: u64, tag: u32) -> u32 {
        self.add_on(rank, kind, peer, size, tag, 0, 0)
    }
    /// Adds a send of `bytes` from `rank` to `to`.
    pub fn send(&mut self, rank: usize, to: usize, bytes: u64, tag: u32) -> u32 {
        self.add(rank, OpKind::Send, to as u32, bytes, tag)
    }
    /// Adds a receive of `bytes` by `rank` from `from`.
    pub fn recv(&mut self, rank: usize, from: usize, bytes: u64, tag: u32) -> u32 {
        self.add(rank, OpKind::Recv, from as u32, bytes, tag)
    }
    /// Adds a calc of `ns` nanoseconds on `rank`.
    pub fn calc(&mut self, rank: usize, ns: u64) -> u32 {
        self.add(rank, OpKind::Calc, 0, ns, 0)
    }
    /// Adds an operation on a given CPU and NIC of its rank; returns its id.
    #[allow(clippy::too_many_arguments)]
    pub fn add_on(
        &mut self,
        rank: usize,
        kind: OpKind,
        peer: u32,
        size: u64,
        tag: u32,
        cpu: u8,
        nic: u8,
    ) -> u32 {
        let id = self.kind.len() as u32;
        self.rank.push(rank as u32);
        self.kind.push(kind);
        self.peer.push(peer);
        self.tag.push(tag);
        self.size.push(size);
        self.cpu.push(cpu);
        self.nic.push(nic);
        id
    }
    /// `tail requires head`: `tail` starts once `head` is done.
    pub fn requires(&mut self, tail: u32, head: u32) {
        self.edges.push((head, tail, false));
    }
    /// `tail irequires head`: `tail` starts once `head` has started.
    pub fn irequires(&mut self, tail: u32, head: u32) {
        self.edges.push((head, tail, true));
    }

    /// Puts a computation of `ns` nanoseconds between the start of the collective built so
    /// far and its wait, on every rank: the overlap of a nonblocking collective (Hoefler and
    /// Lumsdaine 2008). With `in_wait` (progress only inside the wait) the computation runs
    /// on CPU 0 and every operation with a dependency requires it: the start performs only
    /// the operations without one (the receives, posted at once, and the first step's
    /// sends); messages that arrive meanwhile wait for the CPU, as LogGOPS charges their o
    /// there. Without it (asynchronous progress) the computation runs on CPU 1 of the rank,
    /// as LogGOPSim's `cpu` places it, and the collective goes on beside it on CPU 0.
    pub fn compute_between_start_and_wait(&mut self, ns: u64, in_wait: bool) {
        let ops = self.num_ops();
        let mut has_dependency = vec![false; ops as usize];
        for &(_, to, _) in &self.edges {
            has_dependency[to as usize] = true;
        }
        let cpu = if in_wait { 0 } else { 1 };
        let calcs: Vec<u32> = (0..self.num_ranks())
            .map(|r| self.add_on(r, OpKind::Calc, 0, ns, 0, cpu, 0))
            .collect();
        if in_wait {
            for op in (0..ops).filter(|&op| has_dependency[op as usize]) {
                let rank = self.rank[op as usize] as usize;
                self.requires(op, calcs[rank]);
            }
        }
    }

    /// The schedule. Errors: [`LoggopsError::Invalid`] for a rank, peer or dependency that
    /// names no rank or operation, or a dependency between two ranks;
    /// [`LoggopsError::Cycle`] naming operations on a cycle.
    pub fn build(self) -> Result<Schedule, LoggopsError> {
        let n = self.kind.len();
        let p = self.num_ranks;
        // The engine packs an operation into 31 bits of its event key.
        if n >= 1 << 31 {
            return Err(LoggopsError::Invalid(format!(
                "{n} operations are too many (at most 2^31 - 1)"
            )));
        }
        for i in 0..n {
            let bad_peer = self.kind[i] != OpKind::Calc
                && self.peer[i] >= p
                && !(self.kind[i] == OpKind::Recv && self.peer[i] == ANY);
            if self.rank[i] >= p || bad_peer {
                return Err(LoggopsError::Invalid(format!(
                    "an operation of rank {} names peer {} among {p} ranks",
                    self.rank[i], self.peer[i]
                )));
            }
        }
        // Group the operations by rank, keeping their order within a rank (a counting sort).
        let mut rank_first = vec![0u32; p as usize + 1];
        for &r in &self.rank {
            rank_first[r as usize + 1] += 1;
        }
        for r in 0..p as usize {
            rank_first[r + 1] += rank_first[r];
        }
        // Operations added rank by rank (GOAL text, the built-in algorithms) keep their ids:
        // the arrays move as they are instead of being permuted.
        let grouped = self.rank.windows(2).all(|w| w[0] <= w[1]);
        let new_id: Vec<u32> = if grouped {
            (0..n as u32).collect()
        } else {
            let mut fill = rank_first.clone();
            self.rank
                .iter()
                .map(|&r| {
                    fill[r as usize] += 1;
                    fill[r as usize] - 1
                })
                .collect()
        };
        let (rank, kind, peer, tag, size, cpu, nic) = if grouped {
            (
                self.rank, self.kind, self.peer, self.tag, self.size, self.cpu, self.nic,
            )
        } else {
            let mut rank = vec![0u32; n];
            let mut peer = vec![0u32; n];
            let mut tag = vec![0u32; n];
            let mut kind = vec![OpKind::Calc; n];
            let mut size = vec![0u64; n];
            let mut cpu = vec![0u8; n];
            let mut nic = vec![0u8; n];
            for (i, &j) in new_id.iter().enumerate() {
                let j = j as usize;
                rank[j] = self.rank[i];
                peer[j] = self.peer[i];
                tag[j] = self.tag[i];
                kind[j] = self.kind[i];
                size[j] = self.size[i];
                cpu[j] = self.cpu[i];
                nic[j] = self.nic[i];
            }
            (rank, kind, peer, tag, size, cpu, nic)
        };
        let mut deps = vec![0u32; n];
        let mut done_first = vec![0u32; n + 1];
        let mut start_first = vec![0u32; n + 1];
        for &(from, to, on_start) in &self.edges {
            let (f, t) = (from as usize, to as usize);
            if f >= n || t >= n {
                return Err(LoggopsError::Invalid(format!(
                    "a dependency names operation {} among {n}",
                    f.max(t)
                )));
            }
            let (rf, rt) = (rank[new_id[f] as usize], rank[new_id[t] as usize]);
            if rf != rt {
                return Err(LoggopsError::Invalid(format!(
                    "a dependency joins rank {rt} and rank {rf}: dependencies stay within a rank"
                )));
            }
            let first = if on_start {
                &mut start_first
            } else {
                &mut done_first
            };
            first[new_id[f] as usize + 1] += 1;
            deps[new_id[t] as usize] += 1;
        }
        for i in 0..n {
            done_first[i + 1] += done_first[i];
            start_first[i + 1] += start_first[i];
        }
        let mut done_succ = vec![0u32; done_first[n] as usize];
        let mut start_succ = vec![0u32; start_first[n] as usize];
        let (mut dfill, mut sfill) = (done_first.clone(), start_first.clone());
        for &(from, to, on_start) in &self.edges {
            let (f, t) = (new_id[from as usize] as usize, new_id[to as usize]);
            if on_start {
                start_succ[sfill[f] as usize] = t;
                sfill[f] += 1;
            } else {
                done_succ[dfill[f] as usize] = t;
                dfill[f] += 1;
            }
        }
        let schedule = Schedule {
            num_ranks: p,
            rank_first,
            rank,
            kind,
            peer,
            tag,
            size,
            cpus: cpu.iter().copied().max().unwrap_or(0) + 1,
            nics: nic.iter().copied().max().unwrap_or(0) + 1,
            cpu,
            nic,
            deps,
            done_first,
            done_succ,
            start_first,
            start_succ,
        };
        schedule.check_acyclic()?;
        Ok(schedule)
    }
}

impl Schedule {
    /// Kahn's topological sort: every operation must be reachable from the free ones.
    fn check_acyclic(&self) -> Result<(), LoggopsError> {
        let mut left = self.deps.clone();
        let mut queue: VecDeque<u32> = (0..self.num_ops() as u32)
            .filter(|&i| left[i as usize] == 0)
            .collect();
        let mut seen = 0usize;
        while let Some(op) = queue.pop_front() {
            seen += 1;
            for &s in self
                .done_successors(op)
                .iter()
                .chain(self.start_successors(op))
            {
                left[s as usize] -= 1;
                if left[s as usize] == 0 {
                    queue.push_back(s);
                }
            }
        }
        if seen == self.num_ops() {
            return Ok(());
        }
        let stuck: Vec<u32> = (0..self.num_ops() as u32)
            .filter(|&i| left[i as usize] > 0)
            .collect();
        Err(LoggopsError::Cycle {
            left: name_some(self, &stuck),
        })
    }
}

/// The first operations of `ops` described, and how many more there are.
pub(super) fn name_some(s: &Schedule, ops: &[u32]) -> String {
    const SHOWN: usize = 8;
    let mut text: Vec<String> = ops.iter().take(SHOWN).map(|&o| s.describe(o)).collect();
    if ops.len() > SHOWN {
        text.push(format!("and {} more", ops.len() - SHOWN));
    }
    text.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_are_grouped_by_rank_in_their_order() {
        let mut b = ScheduleBuilder::new(2);
        let a = b.send(1, 0, 8, 0);
        let r = b.recv(0, 1, 8, 0);
        let c = b.calc(1, 100);
        b.requires(c, a);
        let s = b.build().unwrap();
        assert_eq!(s.ops_of(0), 0..1);
        assert_eq!(s.ops_of(1), 1..3);
        assert_eq!(s.op(0).0, OpKind::Recv);
        assert_eq!(s.done_successors(1), &[2]);
        assert_eq!((r, s.deps[2]), (1, 1));
    }

    #[test]
    fn a_cycle_is_refused_naming_its_operations() {
        let mut b = ScheduleBuilder::new(1);
        let x = b.calc(0, 1);
        let y = b.calc(0, 2);
        b.requires(x, y);
        b.irequires(y, x);
        let e = b.build().unwrap_err().to_string();
        assert!(
            e.contains("cycle") && e.contains("rank 0 op 1 (calc 2 ns)"),
            "{e}"
        );
    }

    #[test]
    fn a_peer_outside_the_ranks_is_refused() {
        let mut b = ScheduleBuilder::new(2);
        b.send(0, 2, 8, 0);
        assert!(b.build().unwrap_err().to_string().contains("peer 2"));
    }
}
