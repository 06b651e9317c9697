//! A simulated cluster for clock synchronisation: one thread per rank, channels between every
//! pair, optional artificial one-way latency and jitter, and per-rank emulated clocks over one
//! shared underlying clock (`CLOCK_MONOTONIC`), so the truth is known ([`super::emulate`]).
//!
//! ```no_run
//! use delaybench::clock::sim::{run_world, SimConfig};
//! use delaybench::clock::{ClockSync, OffsetSync};
//! let spec = "offset=1ms*rank,skew=20ppm*alt".parse().unwrap();
//! let outcomes = run_world(4, &SimConfig::emulated(spec), |t| OffsetSync::default().synchronize(t));
//! assert_eq!(outcomes.len(), 4);
//! ```
//!
//! Like the MPI transport, every message is padded to [`MAX_MSG_LEN`] values. A panic on one
//! rank (e.g. a protocol error) drops its channels, so peers waiting for it panic too instead
//! of hanging.

use super::emulate::{EmulatedClock, EmulationSpec};
use super::{Clock, MonotonicClock, Transport, MAX_MSG_LEN};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::cell::RefCell;
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::time::{Duration, Instant};

/// How the simulated cluster behaves.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// Per-rank clocks; `None`: every rank reads the underlying clock.
    pub emulation: Option<EmulationSpec>,
    /// Extra one-way latency of every message, seconds.
    pub latency_s: f64,
    /// Extra random one-way delay, uniform in [0, jitter_s), seconds.
    pub jitter_s: f64,
    /// Sleep between the checks of an idle receive ([`Transport::recv_idle`]), seconds.
    pub idle_sleep_s: f64,
    /// Pin rank r's thread to the r mod n-th of the n CPUs the process may use (Linux), so
    /// that which ranks share a core stays fixed during a run: a pair then keeps one RTT
    /// distribution instead of switching between "same core" and "different cores".
    pub pin: bool,
    /// Seed of the jitter (rank r uses seed + r).
    pub seed: u64,
    /// How long a fast receive polls (spinning for 5 µs, then yielding the core between
    /// polls) before it blocks, seconds. Polling gives short, stable round trips; yielding
    /// lets a peer on the same core run; blocking leaves the cores to the pairs that measure
    /// when more ranks are busy than there are cores.
    pub spin_s: f64,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            emulation: None,
            latency_s: 0.0,
            jitter_s: 0.0,
            seed: 1,
            spin_s: 1e-3,
            idle_sleep_s: 100e-6,
            pin: true,
        }
    }
}

impl SimConfig {
    /// Default behaviour with emulated clocks.
    pub fn emulated(spec: EmulationSpec) -> Self {
        SimConfig {
            emulation: Some(spec),
            ..SimConfig::default()
        }
    }
}

/// How long a fast receive spins without yielding.
const PURE_SPIN: Duration = Duration::from_micros(5);

struct Packet {
    /// Underlying-clock reading at which the receiver may take the message.
    deliver_at: f64,
    data: [f64; MAX_MSG_LEN],
}

/// One rank of the simulated cluster: a [`Transport`] over channels.
pub struct SimTransport {
    rank: usize,
    size: usize,
    clock: EmulatedClock,
    base: MonotonicClock,
    tx: Vec<Sender<Packet>>,
    rx: Vec<Receiver<Packet>>,
    latency_s: f64,
    jitter_s: f64,
    spin: Duration,
    idle_sleep: Duration,
    rng: RefCell<SmallRng>,
}

impl SimTransport {
    /// Reading of the shared underlying clock, seconds (the same on every rank).
    pub fn base_now(&self) -> f64 {
        self.base.now()
    }

    /// This rank's emulated clock.
    pub fn clock(&self) -> &EmulatedClock {
        &self.clock
    }

    fn take(&self, packet: Packet) -> Vec<f64> {
        while self.base.now() < packet.deliver_at {
            std::hint::spin_loop();
        }
        packet.data.to_vec()
    }

    fn disconnected(&self, from: usize) -> ! {
        panic!(
            "simulated rank {}: rank {from} ended (or panicked) while a message from it was \
             awaited",
            self.rank
        )
    }
}

impl Transport for SimTransport {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn now(&self) -> f64 {
        self.clock.now()
    }

    fn send(&self, to: usize, msg: &[f64]) {
        assert!(
            msg.len() <= MAX_MSG_LEN,
            "message of {} values is longer than MAX_MSG_LEN",
            msg.len()
        );
        let mut data = [0.0; MAX_MSG_LEN];
        data[..msg.len()].copy_from_slice(msg);
        let mut delay = self.latency_s;
        if self.jitter_s > 0.0 {
            delay += self.rng.borrow_mut().random::<f64>() * self.jitter_s;
        }
        let deliver_at = if delay > 0.0 {
            self.base.now() + delay
        } else {
            f64::NEG_INFINITY
        };
        if self.tx[to].send(Packet { deliver_at, data }).is_err() {
            panic!(
                "simulated rank {}: send to rank {to}, which has ended (protocol error?)",
                self.rank
            );
        }
    }

    /// Spins for a few microseconds, then yields the core between polls (two threads of a
    /// pair may share one core: a pure spin would keep the sender from running), and blocks
    /// after [`SimConfig::spin_s`].
    fn recv(&self, from: usize) -> Vec<f64> {
        self.poll_then_block(from, self.spin)
    }

    /// Checks for the message every [`SimConfig::idle_sleep_s`] and sleeps in between, like
    /// the MPI transport's probe loop: the rank leaves the cores to the pairs that measure,
    /// and being woken by a timer rather than by the sender lets the scheduler keep the two
    /// ranks of a pair on different cores.
    fn recv_idle(&self, from: usize) -> Vec<f64> {
        loop {
            match self.rx[from].try_recv() {
                Ok(p) => return self.take(p),
                Err(TryRecvError::Disconnected) => self.disconnected(from),
                Err(TryRecvError::Empty) => std::thread::sleep(self.idle_sleep),
            }
        }
    }
}

impl SimTransport {
    fn poll_then_block(&self, from: usize, poll: Duration) -> Vec<f64> {
        let start = Instant::now();
        loop {
            match self.rx[from].try_recv() {
                Ok(p) => return self.take(p),
                Err(TryRecvError::Disconnected) => self.disconnected(from),
                Err(TryRecvError::Empty) => {
                    let waited = start.elapsed();
                    if waited < PURE_SPIN {
                        std::hint::spin_loop();
                    } else if waited < poll {
                        std::thread::yield_now();
                    } else {
                        break;
                    }
                }
            }
        }
        match self.rx[from].recv() {
            Ok(p) => self.take(p),
            Err(_) => self.disconnected(from),
        }
    }
}

/// Runs `f` on `p` simulated ranks, one thread each, and returns the results by rank.
/// Panics if a rank panics.
pub fn run_world<R, F>(p: usize, config: &SimConfig, f: F) -> Vec<R>
where
    R: Send,
    F: Fn(&SimTransport) -> R + Sync,
{
    assert!(p >= 1, "a world needs at least one rank");
    // chans[from][to]
    let mut senders: Vec<Vec<Sender<Packet>>> = (0..p).map(|_| Vec::new()).collect();
    let mut receivers: Vec<Vec<Receiver<Packet>>> = (0..p).map(|_| Vec::new()).collect();
    for sends in senders.iter_mut() {
        for recvs in receivers.iter_mut() {
            let (tx, rx) = channel();
            sends.push(tx);
            recvs.push(rx);
        }
    }
    let spec = config.emulation.clone().unwrap_or_else(EmulationSpec::none);
    let cpus = if config.pin {
        allowed_cpus()
    } else {
        Vec::new()
    };
    let cpus = &cpus;
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = senders
            .into_iter()
            .zip(receivers)
            .enumerate()
            .map(|(rank, (tx, rx))| {
                let transport = SimTransport {
                    rank,
                    size: p,
                    clock: EmulatedClock::for_rank(Box::new(MonotonicClock), &spec, rank),
                    base: MonotonicClock,
                    tx,
                    rx,
                    latency_s: config.latency_s,
                    jitter_s: config.jitter_s,
                    spin: Duration::from_secs_f64(config.spin_s.max(0.0)),
                    idle_sleep: Duration::from_secs_f64(config.idle_sleep_s.max(1e-6)),
                    rng: RefCell::new(SmallRng::seed_from_u64(config.seed + rank as u64)),
                };
                std::thread::Builder::new()
                    .name(format!("sim-rank-{rank}"))
                    .spawn_scoped(s, move || {
                        if !cpus.is_empty() {
                            pin_current_thread(cpus[rank % cpus.len()]);
                        }
                        f(&transport)
                    })
                    .expect("spawn a simulated rank")
            })
            .collect();
        handles
            .into_iter()
            .enumerate()
            .map(|(rank, h)| {
                h.join()
                    .unwrap_or_else(|_| panic!("simulated rank {rank} panicked"))
            })
            .collect()
    })
}

/// CPUs the calling thread may run on (empty if unknown).
fn allowed_cpus() -> Vec<usize> {
    // SAFETY: `set` is a plain bit set the kernel fills in; size and pointer match.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Pins the calling thread to `cpu`; failures are ignored (pinning only steadies timings).
fn pin_current_thread(cpu: usize) {
    // SAFETY: as above; pid 0 is the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_padded_and_ordered() {
        let out = run_world(2, &SimConfig::default(), |t| {
            if t.rank() == 0 {
                t.send(1, &[1.0, 2.0]);
                t.send(1, &[3.0]);
                vec![]
            } else {
                let a = t.recv_idle(0);
                let b = t.recv(0);
                vec![a, b]
            }
        });
        assert_eq!(
            out[1],
            vec![vec![1.0, 2.0, 0.0, 0.0], vec![3.0, 0.0, 0.0, 0.0]]
        );
    }

    #[test]
    fn latency_is_added() {
        let cfg = SimConfig {
            latency_s: 300e-6,
            ..SimConfig::default()
        };
        let rtts = run_world(2, &cfg, |t| {
            if t.rank() == 0 {
                let e = crate::clock::ping(t, 1, false);
                crate::clock::send_stop(t, 1, [0.0; 3]);
                e.rtt_s()
            } else {
                crate::clock::serve_pings(t, 0, &|| t.now());
                0.0
            }
        });
        assert!(rtts[0] >= 600e-6, "rtt {}", rtts[0]);
    }

    #[test]
    fn emulated_clocks_differ_by_the_spec() {
        let spec: EmulationSpec = "offset=1ms*rank".parse().unwrap();
        let out = run_world(3, &SimConfig::emulated(spec), |t| t.now() - t.base_now());
        for (r, d) in out.iter().enumerate() {
            assert!((d - r as f64 * 1e-3).abs() < 1e-4, "rank {r}: {d}");
        }
    }

    #[test]
    #[should_panic(expected = "panicked")]
    fn a_panicking_rank_does_not_hang_the_world() {
        run_world(2, &SimConfig::default(), |t| {
            if t.rank() == 0 {
                panic!("boom");
            }
            t.recv_idle(0);
        });
    }
}
