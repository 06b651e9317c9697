//! The discrete-event simulator of the LogGOPS model, with the semantics of LogGOPSim
//! (Hoefler, Schneider and Lumsdaine, HPDC 2010), read from its source at spcl/LogGOPSim
//! 76451de and restated here:
//!
//! - Each rank has CPUs and NICs (one of each unless a schedule names more); each CPU is free
//!   again at `next_o`, each NIC's send and receive gaps at `next_gs` and `next_gr`.
//! - A send of s bytes that is ready at t starts once its CPU and its NIC's send gap are
//!   free; it occupies the CPU for o + (s-1)O (plus the noise that falls into its o) and the
//!   NIC until t + g + (s-1)G; its first byte arrives at the receiver at t + o + L. At most S
//!   bytes (eager), the send is done when it starts; above S (rendezvous), when the receiver
//!   matches it, and the sender's CPU and NIC are then busy at least until that instant.
//! - A message that has arrived is taken once the receiver's CPU and NIC receive gap are
//!   free: the CPU for o (plus its noise) + max((s-1)O, (s-1)G), the NIC until
//!   t + g + (s-1)G. Posting a receive costs nothing; it is done when its message has been
//!   taken (at once if the message was already there).
//! - A calc of d ns occupies its CPU for d plus the noise that falls into it.
//! - Noise ([`Noise::extra_ns`]) lengthens only these CPU-busy intervals: a NIC gap or an
//!   arrival is never delayed, and a detour while a rank waits costs nothing.
//! - Operations that become ready together on a rank are issued sends first, then receives,
//!   then calcs; events at the same instant are taken in the order they were created.
//!
//! A rank's end time is the instant its CPUs are last free. A rank's start time makes its
//! CPUs busy until then (a late arrival); its NICs are free from 0.

use super::noise::Noise;
use super::schedule::{name_some, OpKind, Schedule, ANY};
use super::{LoggopsError, Params};

/// An event in the queue as one integer, so that the queue compares a single `u128` (the
/// profile of a 4,096-rank allreduce spent 40 % of its time in std's `BinaryHeap` sifting
/// 24-byte events compared field by field): the time in the high half, mapped so that integer order is
/// [`f64::total_cmp`]'s; then the creation order, the tie-break at equal times (LogGOPSim's
/// STRICT_ORDER); then the operation and whether it is a message. Keys are unique (the
/// creation order is), so any correct priority queue pops them in the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Event(u128);

impl Event {
    fn new(time: f64, seq: u32, op: u32, msg: bool) -> Event {
        let low = (seq as u64) << 32 | (op as u64) << 1 | msg as u64;
        Event((time_key(time) as u128) << 64 | low as u128)
    }
    fn time(self) -> f64 {
        key_time((self.0 >> 64) as u64)
    }
    fn op(self) -> u32 {
        (self.0 as u32) >> 1
    }
    fn msg(self) -> bool {
        self.0 & 1 == 1
    }
    /// The same event at another time, keeping its place among equals.
    fn at(self, time: f64) -> Event {
        Event((time_key(time) as u128) << 64 | (self.0 as u64) as u128)
    }
}

/// The event queue: a 4-ary min-heap of event keys compared as plain integers. Four
/// children per node halve the depth of a binary heap (a queue holds about two events per
/// rank, 2 million at P = 2^20) and the four sit in one cache line.
#[derive(Debug, Default)]
struct Queue {
    keys: Vec<u128>,
}

impl Queue {
    fn clear(&mut self) {
        self.keys.clear();
    }

    fn push(&mut self, ev: Event) {
        let k = ev.0;
        let mut i = self.keys.len();
        self.keys.push(k);
        while i > 0 {
            let parent = (i - 1) / 4;
            let above = self.keys[parent];
            if above <= k {
                break;
            }
            self.keys[i] = above;
            i = parent;
        }
        self.keys[i] = k;
    }

    /// The earliest event (the smallest key).
    fn pop(&mut self) -> Option<Event> {
        let last = self.keys.pop()?;
        let n = self.keys.len();
        if n == 0 {
            return Some(Event(last));
        }
        let top = self.keys[0];
        let mut i = 0;
        loop {
            let first = 4 * i + 1;
            if first >= n {
                break;
            }
            let (mut m, mut least) = (first, self.keys[first]);
            for c in first + 1..(first + 4).min(n) {
                if self.keys[c] < least {
                    (m, least) = (c, self.keys[c]);
                }
            }
            if least >= last {
                break;
            }
            self.keys[i] = least;
            i = m;
        }
        self.keys[i] = last;
        Some(Event(top))
    }
}

/// `t`'s bits mapped so that unsigned order is `total_cmp`'s: negative numbers inverted,
/// the sign bit set on the others.
fn time_key(t: f64) -> u64 {
    let b = t.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

fn key_time(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// A posted receive (in a rank's receive queue) or an unexpected message (in its unexpected
/// queue): the source, the tag and the operation (the receive, or the message's send).
#[derive(Debug, Clone, Copy)]
struct Pending {
    src: u32,
    tag: u32,
    op: u32,
}

/// The simulator: the parameters and the state of one run, kept between runs so that a
/// repetition allocates nothing once the first has sized the buffers.
#[derive(Debug)]
pub struct Simulator {
    params: Params,
    queue: Queue,
    seq: u32,
    deps_left: Vec<u32>,
    next_o: Vec<f64>,
    next_gs: Vec<f64>,
    next_gr: Vec<f64>,
    posted: Vec<Vec<Pending>>,
    unexpected: Vec<Vec<Pending>>,
    ready: Vec<u32>,
    done: usize,
    events: u64,
}

impl Simulator {
    /// A simulator with parameters `params`.
    pub fn new(params: &Params) -> Simulator {
        Simulator {
            params: *params,
            queue: Queue::default(),
            seq: 0,
            deps_left: Vec::new(),
            next_o: Vec::new(),
            next_gs: Vec::new(),
            next_gr: Vec::new(),
            posted: Vec::new(),
            unexpected: Vec::new(),
            ready: Vec::new(),
            done: 0,
            events: 0,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The events the last run processed (each operation and each message once, plus each
    /// re-insertion of one that found its CPU or NIC busy).
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Runs `schedule` with rank r starting at `start_ns[r]` under `noise`; returns each
    /// rank's end time in ns (the instant its CPUs are last free).
    ///
    /// Errors: [`LoggopsError::Invalid`] when `start_ns` does not hold one time per rank;
    /// [`LoggopsError::Unfinished`] naming the operations left waiting (a receive no send
    /// matches, a send no receive matches, and what depends on them).
    pub fn run(
        &mut self,
        schedule: &Schedule,
        start_ns: &[f64],
        noise: &mut Noise,
    ) -> Result<Vec<f64>, LoggopsError> {
        self.run_shared(schedule, start_ns, noise)
    }

    /// [`Simulator::run`] with the noise only read, so that threads simulating repetitions
    /// at once share one [`Noise`] (a detour source is a function of time and rank).
    ///
    /// Errors: as [`Simulator::run`].
    pub fn run_shared(
        &mut self,
        schedule: &Schedule,
        start_ns: &[f64],
        noise: &Noise,
    ) -> Result<Vec<f64>, LoggopsError> {
        let p = schedule.num_ranks();
        if start_ns.len() != p {
            return Err(LoggopsError::Invalid(format!(
                "{} start times for {p} ranks",
                start_ns.len()
            )));
        }
        self.reset(schedule, start_ns);
        for r in 0..p {
            for op in schedule.ops_of(r) {
                if schedule.deps[op as usize] == 0 {
                    self.ready.push(op);
                }
            }
            self.issue_ready(schedule);
        }
        while let Some(ev) = self.queue.pop() {
            self.events += 1;
            if ev.msg() {
                self.message(schedule, ev, noise);
            } else {
                match schedule.kind[ev.op() as usize] {
                    OpKind::Calc => self.calc(schedule, ev, noise),
                    OpKind::Send => self.send(schedule, ev, noise),
                    OpKind::Recv => self.recv(schedule, ev),
                }
            }
            if !self.ready.is_empty() {
                self.issue_ready(schedule);
            }
        }
        if self.done < schedule.num_ops() {
            return Err(LoggopsError::Unfinished {
                left: self.left_waiting(schedule),
            });
        }
        let (cpus, _) = schedule.cpus_nics();
        Ok((0..p)
            .map(|r| {
                self.next_o[r * cpus..(r + 1) * cpus]
                    .iter()
                    .copied()
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect())
    }

    fn reset(&mut self, s: &Schedule, start_ns: &[f64]) {
        let p = s.num_ranks();
        let (cpus, nics) = s.cpus_nics();
        self.queue.clear();
        self.seq = 0;
        self.done = 0;
        self.events = 0;
        self.ready.clear();
        self.deps_left.clear();
        self.deps_left.extend_from_slice(&s.deps);
        self.next_o.clear();
        self.next_o
            .extend(start_ns.iter().flat_map(|&t| std::iter::repeat_n(t, cpus)));
        self.next_gs.clear();
        self.next_gs.resize(p * nics, 0.0);
        self.next_gr.clear();
        self.next_gr.resize(p * nics, 0.0);
        for q in [&mut self.posted, &mut self.unexpected] {
            q.iter_mut().for_each(Vec::clear);
            q.resize_with(p, Vec::new);
        }
    }

    fn push(&mut self, time: f64, op: u32, msg: bool) {
        self.queue.push(Event::new(time, self.seq, op, msg));
        self.seq += 1;
    }

    /// Re-inserts an event that found its CPU or NIC busy, keeping its place among equals.
    fn retry(&mut self, ev: Event, time: f64) {
        self.queue.push(ev.at(time));
    }

    fn started(&mut self, s: &Schedule, op: u32) {
        for &succ in s.start_successors(op) {
            self.enable(succ);
        }
    }

    fn finished(&mut self, s: &Schedule, op: u32) {
        self.done += 1;
        for &succ in s.done_successors(op) {
            self.enable(succ);
        }
    }

    fn enable(&mut self, op: u32) {
        let left = &mut self.deps_left[op as usize];
        *left -= 1;
        if *left == 0 {
            self.ready.push(op);
        }
    }

    /// Queues the operations that became ready, per rank in rank order, sends before
    /// receives before calcs, each at the instant its CPU (and for a send its NIC) is free.
    fn issue_ready(&mut self, s: &Schedule) {
        let mut ready = std::mem::take(&mut self.ready);
        if ready.len() > 1 {
            ready.sort_by_key(|&op| (s.rank[op as usize], s.kind[op as usize]));
        }
        let (cpus, nics) = s.cpus_nics();
        for &op in &ready {
            let i = op as usize;
            let r = s.rank[i] as usize;
            let o = self.next_o[r * cpus + s.cpu[i] as usize];
            let time = match s.kind[i] {
                OpKind::Send => o.max(self.next_gs[r * nics + s.nic[i] as usize]),
                OpKind::Recv | OpKind::Calc => o,
            };
            self.push(time, op, false);
        }
        ready.clear();
        self.ready = ready;
    }

    fn calc(&mut self, s: &Schedule, ev: Event, noise: &Noise) {
        let i = ev.op() as usize;
        let (cpus, _) = s.cpus_nics();
        let r = s.rank[i] as usize;
        let c = r * cpus + s.cpu[i] as usize;
        if self.next_o[c] > ev.time() {
            return self.retry(ev, self.next_o[c]);
        }
        let d = s.size[i] as f64;
        self.next_o[c] = ev.time() + d + noise.extra_ns(r, ev.time(), d);
        self.started(s, ev.op());
        self.finished(s, ev.op());
    }

    fn send(&mut self, s: &Schedule, ev: Event, noise: &Noise) {
        let i = ev.op() as usize;
        let (cpus, nics) = s.cpus_nics();
        let r = s.rank[i] as usize;
        let (c, n) = (r * cpus + s.cpu[i] as usize, r * nics + s.nic[i] as usize);
        let free = self.next_o[c].max(self.next_gs[n]);
        if free > ev.time() {
            return self.retry(ev, free);
        }
        let p = self.params;
        let rest = s.size[i].saturating_sub(1) as f64;
        self.started(s, ev.op());
        self.next_o[c] =
            ev.time() + p.o_ns + rest * p.big_o_ns + noise.extra_ns(r, ev.time(), p.o_ns);
        self.next_gs[n] = ev.time() + p.g_ns + rest * p.big_g_ns;
        self.push(ev.time() + p.o_ns + p.l_ns, ev.op(), true);
        if s.size[i] <= p.s_bytes {
            self.finished(s, ev.op());
        }
    }

    fn recv(&mut self, s: &Schedule, ev: Event) {
        let i = ev.op() as usize;
        let r = s.rank[i] as usize;
        self.started(s, ev.op());
        let (src, tag) = (s.peer[i], s.tag[i]);
        let q = &mut self.unexpected[r];
        match q.iter().position(|m| matches(src, tag, m)) {
            Some(at) => {
                let m = q.remove(at);
                if s.size[i] > self.params.s_bytes {
                    self.rendezvous_done(s, m.op, s.cpu[i], s.nic[i], ev.time());
                }
                self.finished(s, ev.op());
            }
            None => self.posted[r].push(Pending {
                src,
                tag,
                op: ev.op(),
            }),
        }
    }

    /// A message (named by its send) at its receiver.
    fn message(&mut self, s: &Schedule, ev: Event, noise: &Noise) {
        let i = ev.op() as usize;
        let (cpus, nics) = s.cpus_nics();
        let h = s.peer[i] as usize;
        // LogGOPSim charges the message on the receiver's CPU and NIC of the send's indices.
        let (c, n) = (h * cpus + s.cpu[i] as usize, h * nics + s.nic[i] as usize);
        let free = self.next_o[c].max(self.next_gr[n]);
        if free > ev.time() {
            return self.retry(ev, free);
        }
        let p = self.params;
        let rest = s.size[i].saturating_sub(1) as f64;
        self.next_o[c] = ev.time()
            + p.o_ns
            + noise.extra_ns(h, ev.time(), p.o_ns)
            + (rest * p.big_o_ns).max(rest * p.big_g_ns);
        self.next_gr[n] = ev.time() + p.g_ns + rest * p.big_g_ns;
        let (src, tag) = (s.rank[i], s.tag[i]);
        let q = &mut self.posted[h];
        match q
            .iter()
            .position(|m| matches(m.src, m.tag, &Pending { src, tag, op: 0 }))
        {
            Some(at) => {
                let m = q.remove(at);
                if s.size[i] > p.s_bytes {
                    self.rendezvous_done(s, ev.op(), s.cpu[i], s.nic[i], ev.time());
                }
                self.finished(s, m.op);
            }
            None => self.unexpected[h].push(Pending {
                src,
                tag,
                op: ev.op(),
            }),
        }
    }

    /// A rendezvous send is done when its receive matches it at `time`: the sender's CPU and
    /// NIC (LogGOPSim takes the indices of the matching side) are busy at least until then.
    fn rendezvous_done(&mut self, s: &Schedule, send: u32, cpu: u8, nic: u8, time: f64) {
        let (cpus, nics) = s.cpus_nics();
        let r = s.rank[send as usize] as usize;
        let c = &mut self.next_o[r * cpus + cpu as usize];
        *c = c.max(time);
        let n = &mut self.next_gs[r * nics + nic as usize];
        *n = n.max(time);
        self.finished(s, send);
    }

    /// The operations not done, receives left posted and messages left unexpected first.
    fn left_waiting(&self, s: &Schedule) -> String {
        let mut parts = Vec::new();
        let posted: Vec<u32> = self.posted.iter().flatten().map(|m| m.op).collect();
        if !posted.is_empty() {
            parts.push(format!(
                "receives no send matches: {}",
                name_some(s, &posted)
            ));
        }
        let unexpected: Vec<u32> = self.unexpected.iter().flatten().map(|m| m.op).collect();
        if !unexpected.is_empty() {
            parts.push(format!(
                "sends no receive matches: {}",
                name_some(s, &unexpected)
            ));
        }
        let blocked: Vec<u32> = (0..s.num_ops() as u32)
            .filter(|&op| self.deps_left[op as usize] > 0)
            .collect();
        if !blocked.is_empty() {
            parts.push(format!("never started: {}", name_some(s, &blocked)));
        }
        parts.join("; ")
    }
}

/// Whether a receive for (`src`, `tag`), either possibly [`ANY`], takes message `m` (or a
/// message from (`src`, `tag`) takes posted receive `m`): LogGOPSim's list matching.
fn matches(src: u32, tag: u32, m: &Pending) -> bool {
    (src == ANY || m.src == ANY || m.src == src) && (tag == ANY || m.tag == ANY || m.tag == tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_queue_pops_events_in_time_then_creation_order() {
        let mut q = Queue::default();
        let mut want = Vec::new();
        // Times with many ties, negative and positive, pushed in a scrambled order.
        for seq in 0..2000u32 {
            let t = ((seq * 7919) % 97) as f64 * 0.5 - 3.0;
            let ev = Event::new(t, seq, seq * 3 % 1000, seq % 2 == 0);
            q.push(ev);
            want.push((t, seq, ev));
            if seq % 5 == 0 {
                // Pops interleaved with pushes, as the simulation does.
                let got = q.pop().unwrap();
                let at = want
                    .iter()
                    .enumerate()
                    .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0).then(a.1 .1.cmp(&b.1 .1)))
                    .unwrap()
                    .0;
                assert_eq!(got, want.remove(at).2);
            }
        }
        want.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (t, seq, ev) in want {
            let got = q.pop().unwrap();
            assert_eq!((got, got.time()), (ev, t), "{seq}");
            assert_eq!((got.op(), got.msg()), (seq * 3 % 1000, seq % 2 == 0));
        }
        assert!(q.pop().is_none());
        let later = Event::new(1.0, 5, 9, true).at(2.5);
        assert_eq!((later.time(), later.op(), later.msg()), (2.5, 9, true));
    }
}
