//! A simulated cluster for clock synchronisation: one thread per rank, channels between every
//! pair, artificial one-way latency, jitter and noise spikes, and per-rank emulated clocks
//! ([`super::emulate`]) over one underlying clock, so the truth is known exactly.
//!
//! Two kinds of time:
//!
//! - **Virtual** ([`SimConfig::virtual_cluster`]): each rank carries its own simulated time in
//!   seconds. A clock read costs `read_cost_s`, a message arrives `latency_s` + jitter (+ a
//!   spike) after it was sent, a receive moves the receiver's time to the arrival if that is
//!   later, and [`Transport::pause`] adds its duration. Nothing depends on how the threads are
//!   scheduled: runs are deterministic for a seed, immune to machine load, and a wait of
//!   seconds takes no time. Used by the tests.
//! - **Real** ([`SimConfig::emulated`]): ranks read `CLOCK_MONOTONIC` (through their emulated
//!   clocks), wait for messages by polling and sleep in pauses: the numbers include the
//!   scheduling noise of threads sharing cores, as an oversubscribed host would. Used for the
//!   comparison table; a busy machine disturbs it.
//!
//! ```no_run
//! use delaybench::clock::sim::{run_world, SimConfig};
//! use delaybench::clock::{ClockSync, OffsetSync};
//! let spec = "offset=1ms*rank,skew=20ppm*alt".parse().unwrap();
//! let cfg = SimConfig::virtual_cluster(spec);
//! let outcomes = run_world(4, &cfg, |t| OffsetSync::default().synchronize(t));
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
use std::cell::{Cell, RefCell};
use std::sync::mpsc::{channel, Receiver, Sender, TryRecvError};
use std::time::{Duration, Instant};

/// Underlying time (seconds) at which every rank starts in virtual time (like an uptime).
pub const VIRTUAL_START_S: f64 = 1000.0;

/// How the simulated cluster behaves.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// Per-rank clocks; `None`: every rank reads the underlying clock.
    pub emulation: Option<EmulationSpec>,
    /// Virtual time (deterministic) instead of real time; see the module documentation.
    pub virtual_time: bool,
    /// One-way latency added to every message, seconds.
    pub latency_s: f64,
    /// Random one-way delay added to every message, uniform in [0, jitter_s), seconds.
    pub jitter_s: f64,
    /// Slow change of the one-way latency, the same in both directions (background traffic,
    /// a route change): at underlying time u a message gets
    /// `wave_s · (1 − cos(2π u / wave_period_s)) / 2` more latency, seconds.
    pub wave_s: f64,
    /// Period of that change, seconds (0: no change).
    pub wave_period_s: f64,
    /// Probability that a message is also hit by a noise spike (OS noise, a busy link).
    pub spike_prob: f64,
    /// Extra delay of a spike, uniform in [0, spike_s), seconds.
    pub spike_s: f64,
    /// Virtual time: cost of one clock read, seconds (the timer delay Δ).
    pub read_cost_s: f64,
    /// Seed of the random delays (rank r uses seed + r).
    pub seed: u64,
    /// Real time: how long a fast receive polls (spinning for 5 µs, then yielding the core
    /// between polls) before it blocks, seconds.
    pub spin_s: f64,
    /// Real time: sleep between the checks of an idle receive ([`Transport::recv_idle`]),
    /// seconds.
    pub idle_sleep_s: f64,
    /// Real time: pin rank r's thread to the (r mod n)-th of the n CPUs the process may use
    /// (Linux), so which ranks share a core stays fixed and a pair keeps one RTT distribution
    /// instead of switching between "same core" and "different cores".
    pub pin: bool,
}

impl Default for SimConfig {
    /// Real time, no emulation, no added delays.
    fn default() -> Self {
        SimConfig {
            emulation: None,
            virtual_time: false,
            latency_s: 0.0,
            jitter_s: 0.0,
            wave_s: 0.0,
            wave_period_s: 0.0,
            spike_prob: 0.0,
            spike_s: 0.0,
            read_cost_s: 30e-9,
            seed: 1,
            spin_s: 1e-3,
            idle_sleep_s: 100e-6,
            pin: true,
        }
    }
}

impl SimConfig {
    /// Real time with emulated clocks.
    pub fn emulated(spec: EmulationSpec) -> Self {
        SimConfig {
            emulation: Some(spec),
            ..SimConfig::default()
        }
    }

    /// Virtual time with emulated clocks and a fast, slightly noisy network: 1 µs latency,
    /// 0.2 µs jitter, and 5% of the messages delayed by up to 20 µs more.
    pub fn virtual_cluster(spec: EmulationSpec) -> Self {
        SimConfig {
            emulation: Some(spec),
            virtual_time: true,
            latency_s: 1e-6,
            jitter_s: 0.2e-6,
            spike_prob: 0.05,
            spike_s: 20e-6,
            ..SimConfig::default()
        }
    }
}

/// How long a fast receive spins without yielding (real time).
const PURE_SPIN: Duration = Duration::from_micros(5);

struct Packet {
    /// Underlying time at which the message arrives (virtual), or from which the receiver
    /// may take it (real).
    arrival: f64,
    data: [f64; MAX_MSG_LEN],
}

/// One rank of the simulated cluster: a [`Transport`] over channels.
pub struct SimTransport {
    rank: usize,
    size: usize,
    clock: EmulatedClock,
    base: MonotonicClock,
    /// Virtual time of this rank (underlying seconds), `None` in real time.
    vtime: Option<Cell<f64>>,
    tx: Vec<Sender<Packet>>,
    rx: Vec<Receiver<Packet>>,
    config: SimConfig,
    spin: Duration,
    idle_sleep: Duration,
    rng: RefCell<SmallRng>,
}

impl SimTransport {
    /// Underlying time now, seconds: this rank's virtual time, or `CLOCK_MONOTONIC` (the same
    /// clock on every rank) in real time. The truth functions of [`super::emulate`] take it.
    pub fn base_now(&self) -> f64 {
        match &self.vtime {
            Some(v) => v.get(),
            None => self.base.now(),
        }
    }

    /// This rank's emulated clock.
    pub fn clock(&self) -> &EmulatedClock {
        &self.clock
    }

    fn delay(&self) -> f64 {
        let c = &self.config;
        let mut d = c.latency_s;
        if c.wave_s > 0.0 && c.wave_period_s > 0.0 {
            let phase = std::f64::consts::TAU * self.base_now() / c.wave_period_s;
            d += c.wave_s * (1.0 - phase.cos()) / 2.0;
        }
        let mut rng = self.rng.borrow_mut();
        if c.jitter_s > 0.0 {
            d += rng.random::<f64>() * c.jitter_s;
        }
        if c.spike_prob > 0.0 && rng.random::<f64>() < c.spike_prob {
            d += rng.random::<f64>() * c.spike_s;
        }
        d
    }

    fn take(&self, packet: Packet) -> Vec<f64> {
        match &self.vtime {
            Some(v) => v.set(v.get().max(packet.arrival)),
            None => {
                while self.base.now() < packet.arrival {
                    std::hint::spin_loop();
                }
            }
        }
        packet.data.to_vec()
    }

    fn blocking_recv(&self, from: usize) -> Vec<f64> {
        match self.rx[from].recv() {
            Ok(p) => self.take(p),
            Err(_) => self.disconnected(from),
        }
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
        match &self.vtime {
            Some(v) => {
                v.set(v.get() + self.config.read_cost_s);
                self.clock.reading_at(v.get())
            }
            None => self.clock.now(),
        }
    }

    fn send(&self, to: usize, msg: &[f64]) {
        let data = super::padded_message(msg);
        let delay = self.delay();
        let arrival = if self.vtime.is_some() || delay > 0.0 {
            self.base_now() + delay
        } else {
            f64::NEG_INFINITY
        };
        if self.tx[to].send(Packet { arrival, data }).is_err() {
            panic!(
                "simulated rank {}: send to rank {to}, which has ended (protocol error?)",
                self.rank
            );
        }
    }

    /// Real time: spins for a few microseconds, then yields the core between polls (two
    /// threads of a pair may share one core: a pure spin would keep the sender from running),
    /// and blocks after [`SimConfig::spin_s`].
    fn recv(&self, from: usize) -> Vec<f64> {
        if self.vtime.is_some() {
            return self.blocking_recv(from);
        }
        let start = Instant::now();
        loop {
            match self.rx[from].try_recv() {
                Ok(p) => return self.take(p),
                Err(TryRecvError::Disconnected) => self.disconnected(from),
                Err(TryRecvError::Empty) => {
                    let waited = start.elapsed();
                    if waited < PURE_SPIN {
                        std::hint::spin_loop();
                    } else if waited < self.spin {
                        std::thread::yield_now();
                    } else {
                        return self.blocking_recv(from);
                    }
                }
            }
        }
    }

    /// Real time: checks for the message every [`SimConfig::idle_sleep_s`] and sleeps in
    /// between, like the MPI transport's probe loop, so the rank leaves the cores to the pairs
    /// that measure (and, woken by a timer rather than by the sender, is not moved onto the
    /// sender's core).
    fn recv_idle(&self, from: usize) -> Vec<f64> {
        if self.vtime.is_some() {
            return self.blocking_recv(from);
        }
        loop {
            match self.rx[from].try_recv() {
                Ok(p) => return self.take(p),
                Err(TryRecvError::Disconnected) => self.disconnected(from),
                Err(TryRecvError::Empty) => std::thread::sleep(self.idle_sleep),
            }
        }
    }

    /// Virtual time: advances this rank's time by `seconds`; real time: sleeps.
    fn pause(&self, seconds: f64) {
        match &self.vtime {
            Some(v) => v.set(v.get() + seconds.max(0.0)),
            None if seconds > 0.0 => std::thread::sleep(Duration::from_secs_f64(seconds)),
            None => {}
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
    let pin = config.pin && !config.virtual_time;
    let cpus = if pin { allowed_cpus() } else { Vec::new() };
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
                    vtime: config.virtual_time.then(|| Cell::new(VIRTUAL_START_S)),
                    tx,
                    rx,
                    config: config.clone(),
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
    crate::affinity::allowed_cpus()
}

/// Pins the calling thread to `cpu`; failures are ignored (pinning only steadies timings).
fn pin_current_thread(cpu: usize) {
    let _ = crate::affinity::pin_to(cpu);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{ping, send_stop, serve_pings};

    fn rtt_of_one_ping(cfg: &SimConfig) -> f64 {
        run_world(2, cfg, |t| {
            if t.rank() == 0 {
                let e = ping(t, 1, false);
                send_stop(t, 1, [0.0; 3]);
                e.rtt_s()
            } else {
                serve_pings(t, 0, &|| t.now());
                0.0
            }
        })[0]
    }

    #[test]
    fn messages_are_padded_and_ordered() {
        for virtual_time in [false, true] {
            let cfg = SimConfig {
                virtual_time,
                ..SimConfig::default()
            };
            let out = run_world(2, &cfg, |t| {
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
    }

    #[test]
    fn latency_is_added_in_real_time() {
        let cfg = SimConfig {
            latency_s: 300e-6,
            ..SimConfig::default()
        };
        let rtt = rtt_of_one_ping(&cfg);
        assert!(rtt >= 600e-6, "rtt {rtt}");
    }

    #[test]
    fn virtual_time_is_exact_and_deterministic() {
        // Round trip = 2 latencies + the clock reads in between: the peer's read (30 ns)
        // and the pinger's read t1 (30 ns) after t0.
        let cfg = SimConfig {
            virtual_time: true,
            latency_s: 2e-6,
            ..SimConfig::default()
        };
        let rtt = rtt_of_one_ping(&cfg);
        assert!((rtt - (4e-6 + 60e-9)).abs() < 1e-12, "rtt {rtt}");
        let noisy = SimConfig::virtual_cluster("offset=1ms*rank".parse().unwrap());
        assert_eq!(rtt_of_one_ping(&noisy), rtt_of_one_ping(&noisy));
    }

    #[test]
    fn emulated_clocks_differ_by_the_spec() {
        let spec: EmulationSpec = "offset=1ms*rank".parse().unwrap();
        let out = run_world(3, &SimConfig::virtual_cluster(spec.clone()), |t| {
            t.now() - t.base_now()
        });
        for (r, d) in out.iter().enumerate() {
            assert!((d - r as f64 * 1e-3).abs() < 1e-9, "rank {r}: {d}");
        }
        // Real time: the two reads are apart by scheduling; allow a generous 5 ms.
        let out = run_world(3, &SimConfig::emulated(spec), |t| t.now() - t.base_now());
        for (r, d) in out.iter().enumerate() {
            assert!((d - r as f64 * 1e-3).abs() < 5e-3, "rank {r}: {d}");
        }
    }

    #[test]
    fn pause_advances_virtual_time() {
        let cfg = SimConfig {
            virtual_time: true,
            ..SimConfig::default()
        };
        let out = run_world(1, &cfg, |t| {
            let a = t.base_now();
            t.pause(2.5);
            t.base_now() - a
        });
        assert_eq!(out[0], 2.5);
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
