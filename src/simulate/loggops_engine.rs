//! The built-in LogGOPS engine behind [`super::Engine`]: each block's repetitions run in
//! windows on one simulated time line, every rank entering the collective's schedule
//! ([`super::loggops::collective`]) at its window's instant plus its delay, with the run's OS
//! noise stretching the CPU-busy parts (Hoefler, Schneider and Lumsdaine 2010). Needs nothing
//! installed.
//!
//! The automatic window is the SMPI engine's rule on the undelayed, noiseless time of the
//! schedule (every warm-up of the model takes the same time, so its 90th percentile is that
//! time): 2 × t + 1.1 × the block's largest delay + 20 µs.

use super::blocks::{SimBlock, SimulatedTimes};
use super::loggops::noise::Phase;
use super::loggops::{collective_with, DetourTrace, Noise, Overlap, Params, Schedule, Simulator};
use super::noise_source::{NoiseSource, NoiseSpec};
use super::{Engine, SimulateError, Simulated};
use crate::plan::algorithms::AlgorithmSetting;
use crate::plan::{Op, Plan};
use crate::records::Simulation;

/// The LogGOPS engine for one output (one swept algorithm, or each collective's first).
pub struct LoggopsEngine {
    params: Params,
    noise: Option<NoiseSource>,
    seed: u64,
    hosts: Vec<String>,
    algorithm: Option<String>,
    /// The nonblocking collectives' overlap computation and progression model.
    overlap: Option<Overlap>,
    sim: Simulator,
    /// Threads simulating a block's repetitions at once (the machine's cores by default).
    threads: usize,
}

impl LoggopsEngine {
    /// The engine with `params`, the run's `noise` (read before anything runs) and `seed`
    /// (the noise's phases), for P up to `max_p`, every schedule with `algorithm` (its name
    /// as [`super::loggops::ALGORITHMS`] lists it; `None`: each collective's first).
    pub fn new(
        params: Params,
        noise: Option<NoiseSource>,
        seed: u64,
        max_p: u32,
        algorithm: Option<&str>,
    ) -> Self {
        LoggopsEngine {
            sim: Simulator::new(&params),
            params,
            noise,
            seed,
            // One CPU and one NIC per rank: every rank is its own node.
            hosts: (0..max_p).map(|r| format!("node{r}")).collect(),
            algorithm: algorithm.map(str::to_string),
            overlap: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// The same engine simulating on `threads` threads (at least one).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// The same engine with `overlap` between the start and the wait of every nonblocking
    /// collective (`None`: the wait follows the start at once).
    pub fn with_overlap(mut self, overlap: Option<Overlap>) -> Self {
        self.overlap = overlap;
        self
    }

    /// The noise of `p` ranks.
    ///
    /// Errors: the engine's refusal of a synthetic specification.
    fn noise_for(&self, p: usize) -> Result<Noise, SimulateError> {
        let Some(source) = &self.noise else {
            return Ok(Noise::None);
        };
        let phase = if source.cosched {
            Phase::CoScheduled(self.seed)
        } else {
            Phase::Random(self.seed)
        };
        match &source.spec {
            NoiseSpec::File(_) => {
                // The measurement's own mapping: rank r replays recorded rank r mod R, its
                // phase already chosen (shifted from the seed, or aligned when co-scheduled).
                let traces = (0..p as u32)
                    .filter_map(|r| source.file_schedule(r, self.seed))
                    .map(|s| {
                        let detours = s
                            .offsets_s
                            .iter()
                            .zip(&s.durations_s)
                            .map(|(o, d)| ((s.base_s + o) * 1e9, d * 1e9))
                            .collect();
                        DetourTrace::new(detours, s.period_s * 1e9)
                    })
                    .collect();
                Ok(Noise::Detours {
                    traces,
                    phase_ns: vec![0.0],
                })
            }
            spec => Noise::from_spec(&spec.to_string(), p, phase)
                .map_err(|e| SimulateError::Plan(format!("--noise: {e}"))),
        }
    }
}

/// The automatic window, seconds, for a block whose undelayed, noiseless call takes
/// `t_s` seconds and whose largest delay is `max_delay_s`.
fn auto_window_s(t_s: f64, max_delay_s: f64) -> f64 {
    2.0 * t_s + 1.1 * max_delay_s + 20e-6
}

impl Engine for LoggopsEngine {
    fn simulation(&self) -> Simulation {
        Simulation {
            engine: "delaybench LogGOPS".into(),
            engine_version: env!("CARGO_PKG_VERSION").into(),
            platform: "LogGOPS: one CPU and one NIC per rank".into(),
            collective_selector: self
                .algorithm
                .clone()
                .unwrap_or_else(|| "each collective's first algorithm".into()),
            config: Vec::new(),
            ranks_per_host: 1,
            distinct_repetitions: false,
            costs: Vec::new(),
            engine_option: "loggops".into(),
            parameters: self.params.spec().split(',').map(str::to_string).collect(),
            noise: self.noise.as_ref().map(NoiseSource::describe),
            progress: Some(match self.overlap {
                Some(o) => format!(
                    "{}; overlap computation {} between start and wait",
                    o.progress.describe(),
                    crate::units::format_duration(o.compute_ns as f64 * 1e-9)
                ),
                None => format!(
                    "{}; no overlap computation (the wait follows the start)",
                    super::loggops::Progress::Async.describe()
                ),
            }),
        }
    }

    fn rank_hosts(&self) -> &[String] {
        &self.hosts
    }

    fn clock_source(&self) -> String {
        "simulated (the LogGOPS engine's event time)".into()
    }

    fn algorithm(&self, op: Op) -> Option<AlgorithmSetting> {
        self.algorithm.as_ref().map(|a| AlgorithmSetting {
            name: a.clone(),
            variable: format!("loggops/{}", op.name()),
            value: None,
        })
    }

    fn simulate(&mut self, p: u32, sims: &[SimBlock]) -> Result<Simulated, SimulateError> {
        let n = p as usize;
        let noise = self.noise_for(n)?;
        let fail = |e: super::loggops::LoggopsError| SimulateError::Plan(e.to_string());
        let mut times = Vec::with_capacity(sims.len());
        let mut reps = 0;
        // Each (collective, size) schedule is built and timed undelayed once per P: the
        // blocks of one configuration (no delay, each delay model) differ only in their
        // start times.
        let mut built: Vec<(Op, u64, Schedule, f64)> = Vec::new();
        // One time line for the whole P, as one launch: the noise goes on between blocks.
        let mut clock_s = 0.0;
        for b in sims {
            let at = match built.iter().position(|x| (x.0, x.1) == (b.op, b.bytes)) {
                Some(at) => at,
                None => {
                    let schedule = collective_with(
                        b.op.name(),
                        self.algorithm.as_deref(),
                        n,
                        b.bytes,
                        self.overlap,
                    )
                    .map_err(fail)?;
                    let quiet = self
                        .sim
                        .run_shared(&schedule, &vec![0.0; n], &Noise::None)
                        .map_err(fail)?;
                    let t_s = quiet.iter().copied().fold(0.0, f64::max) * 1e-9;
                    built.push((b.op, b.bytes, schedule, t_s));
                    built.len() - 1
                }
            };
            let (schedule, t_s) = (&built[at].2, built[at].3);
            let max_delay = b.delays.iter().copied().fold(0.0, f64::max);
            let window_s = b.window_s.unwrap_or_else(|| auto_window_s(t_s, max_delay));
            let nrep = b.nrep as usize;
            let scheduled_start_s: Vec<f64> = (0..nrep)
                .map(|rep| clock_s + (rep + 1) as f64 * window_s)
                .collect();
            let start_s: Vec<f64> = scheduled_start_s
                .iter()
                .zip(b.delays.chunks_exact(n))
                .flat_map(|(at, delays)| delays.iter().map(move |d| at + d))
                .collect();
            let mut end_s = vec![0.0; nrep * n];
            self.run_repetitions(schedule, &noise, &start_s, &mut end_s)
                .map_err(fail)?;
            times.push(SimulatedTimes {
                window_s,
                scheduled_start_s,
                start_s,
                end_s,
            });
            clock_s += (nrep + 1) as f64 * window_s;
            reps += nrep;
        }
        Ok(Simulated {
            times,
            simulated_repetitions: reps,
            peak_memory_bytes: super::progress::peak_rss_bytes(),
        })
    }

    fn memory_estimate_bytes(&self, plan: &Plan, p: u32) -> Option<u64> {
        Some(self.estimate_bytes(plan, p))
    }
}

impl LoggopsEngine {
    /// Simulates the repetitions whose start times, seconds, are `start_s` (`[nrep][p]`)
    /// into `end_s` (the same shape), on up to `self.threads` threads, each a contiguous
    /// share of the repetitions with its own simulator. A repetition depends only on its
    /// start times and the noise (a function of time and rank), so the times are the same
    /// bit for bit whatever the number of threads.
    ///
    /// Errors: the first repetition's error in repetition order.
    fn run_repetitions(
        &mut self,
        schedule: &Schedule,
        noise: &Noise,
        start_s: &[f64],
        end_s: &mut [f64],
    ) -> Result<(), super::loggops::LoggopsError> {
        let n = schedule.num_ranks();
        let nrep = start_s.len() / n.max(1);
        let threads = self.threads.clamp(1, nrep.max(1));
        let per = nrep.div_ceil(threads).max(1);
        let run_share = |sim: &mut Simulator, starts: &[f64], ends: &mut [f64]| {
            let mut starts_ns = vec![0.0; n];
            for (start, end) in starts.chunks_exact(n).zip(ends.chunks_exact_mut(n)) {
                for (ns, s) in starts_ns.iter_mut().zip(start) {
                    *ns = s * 1e9;
                }
                let t = sim.run_shared(schedule, &starts_ns, noise)?;
                for (e, t) in end.iter_mut().zip(t) {
                    *e = t * 1e-9;
                }
            }
            Ok::<(), super::loggops::LoggopsError>(())
        };
        let run_share = &run_share;
        let mut shares = start_s.chunks(per * n).zip(end_s.chunks_mut(per * n));
        let Some((first_start, first_end)) = shares.next() else {
            return Ok(());
        };
        let params = *self.sim.params();
        let sim = &mut self.sim;
        std::thread::scope(|scope| {
            let others: Vec<_> = shares
                .map(|(starts, ends)| {
                    scope.spawn(move || run_share(&mut Simulator::new(&params), starts, ends))
                })
                .collect();
            let mine = run_share(sim, first_start, first_end);
            let theirs: Vec<_> = others
                .into_iter()
                .map(|h| h.join().expect("a simulating thread panicked"))
                .collect();
            std::iter::once(mine).chain(theirs).collect()
        })
    }

    /// What simulating `plan` at `p` ranks needs, bytes, at most: per block the delays,
    /// start and end times (`[nrep][p]` f64 each) and the records block made from them
    /// (as many again), plus per thread a simulator's state and the largest schedule (its
    /// operations extrapolated from the same algorithm at 256 and 512 ranks as a power of
    /// P, which overestimates P log P growth).
    pub fn estimate_bytes(&self, plan: &Plan, p: u32) -> u64 {
        let n = p as u64;
        let mut blocks = 0u64;
        let mut schedule = 0u64;
        for c in crate::plan::blocks::configurations(plan, |_| vec![()]) {
            blocks += plan.delays_with_baseline().len() as u64;
            schedule = schedule.max(self.schedule_estimate_bytes(c.op, c.bytes, p));
        }
        let times = blocks * plan.nrep as u64 * n * 8 * 6;
        // A simulator's state: per rank its CPU and NIC times and queues, per operation its
        // dependency count, and the event queue.
        let per_thread = schedule + n * 96;
        times + schedule + self.threads as u64 * per_thread
    }

    fn schedule_estimate_bytes(&self, op: Op, bytes: u64, p: u32) -> u64 {
        let size = |q: u32| {
            collective_with(
                op.name(),
                self.algorithm.as_deref(),
                q as usize,
                bytes,
                self.overlap,
            )
            .map(|s| s.memory_bytes() as f64)
            .unwrap_or(0.0)
        };
        if p <= 512 {
            return size(p) as u64;
        }
        let (a, b) = (size(256), size(512));
        let k = if a > 0.0 {
            (b / a).log2().max(1.0)
        } else {
            1.0
        };
        (b * (p as f64 / 512.0).powf(k)) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_late_rank_at_p_2_ends_the_call_the_delay_later() {
        // 4 repetitions at P = 2, rank 0 late by 50 us in the last two.
        let delays = vec![0.0, 0.0, 0.0, 0.0, 50e-6, 0.0, 50e-6, 0.0];
        let block = SimBlock::allreduce_8b(4, delays);
        let mut e = LoggopsEngine::new(Params::default(), None, 1, 2, None);
        let out = e.simulate(2, std::slice::from_ref(&block)).unwrap();
        let t = &out.times[0];
        let took = |rep: usize, rank: usize| t.end_s[rep * 2 + rank] - t.scheduled_start_s[rep];
        let t0 = took(0, 1);
        assert!(t0 > 0.0);
        assert!(
            (took(1, 1) - t0).abs() < 1e-12,
            "undelayed repetitions agree"
        );
        // Recursive doubling at P = 2: the punctual rank waits for the late one exactly.
        assert!(
            (took(2, 1) - (t0 + 50e-6)).abs() < 1e-9,
            "{} {t0}",
            took(2, 1)
        );
        // The automatic window holds the call and the delay.
        assert!(t.window_s > t0 + 50e-6);
        assert_eq!(out.simulated_repetitions, 4);
    }

    /// Each rank's end of an 8 B iallreduce (recursive doubling) at `p` ranks with a 100 us
    /// overlap computation under `progress`, relative to the repetition's instant, ns: the
    /// first repetition on time, the second with rank 0 late by 50 us.
    fn overlapped_ends_ns(p: usize, progress: super::super::loggops::Progress) -> [Vec<f64>; 2] {
        let mut delays = vec![0.0; 2 * p];
        delays[p] = 50e-6;
        let block = SimBlock {
            op: Op::Iallreduce,
            ..SimBlock::allreduce_8b(2, delays)
        };
        let overlap = Overlap {
            compute_ns: 100_000,
            progress,
        };
        let mut e = LoggopsEngine::new(Params::default(), None, 1, p as u32, None)
            .with_overlap(Some(overlap));
        let t = e.simulate(p as u32, &[block]).unwrap().times.remove(0);
        [0, 1].map(|rep| {
            t.end_s[rep * p..(rep + 1) * p]
                .iter()
                .map(|e| ((e - t.scheduled_start_s[rep]) * 1e9 * 1e3).round() / 1e3)
                .collect()
        })
    }

    #[test]
    fn the_progression_model_decides_whether_the_collective_hides_behind_the_compute() {
        use super::super::loggops::Progress::{Async, Wait};
        // LogGOPSim's defaults: L = 2500, o = 1500, g = 1000, G = 6 ns; C = 100,000 ns of
        // overlap computation; 8 B messages, so each receive costs o + 7G = 1,542 ns.
        // Recursive doubling step: send o, the message L later, its receive o + 7G:
        // 2o + L + 7G = 5,542 ns, so the blocking call takes 5,542 ns at P = 2 and 11,084 at
        // P = 4, both far below C.
        let (c, o, l, recv) = (100_000.0, 1_500.0, 2_500.0, 1_542.0);
        let step = o + l + recv;
        for p in [2usize, 4] {
            let steps = p.trailing_zeros() as f64;
            // Asynchronous: the collective runs beside the computation and every rank ends
            // with its computation, max(C, collective) = C.
            let [on_time, late] = overlapped_ends_ns(p, Async);
            assert_eq!(on_time, vec![c; p], "async, P = {p}");
            // The late rank computes from its arrival; the others' collectives end long
            // before their computations, so the delay costs them nothing.
            let mut want = vec![c; p];
            want[0] = 50_000.0 + c;
            assert_eq!(late, want, "async, P = {p}, rank 0 late");
            // Progress in the wait: the start's send (o), C, then the first step's message
            // (arrived during C) is taken (o + 7G) and each later step takes a whole step
            // after it: C + o + (o + 7G) + (steps - 1)(2o + L + 7G).
            let wait_end = c + o + recv + (steps - 1.0) * step;
            let [on_time, late] = overlapped_ends_ns(p, Wait);
            assert_eq!(on_time, vec![wait_end; p], "wait, P = {p}");
            // With rank 0 late, nothing of the collective moved while it computed, and in
            // its wait it finds every partner's message there: LogGOPS takes each (o + 7G)
            // in arrival order, so the later steps' messages go before its own later sends.
            // The last rank its data reaches ends the delay plus (steps - 1)(o + 7G) later:
            // a negative delay overlap benefit, where async's is 0.
            let latest = late.iter().copied().fold(0.0, f64::max);
            let cost = 50_000.0 + (steps - 1.0) * recv;
            assert_eq!(latest, wait_end + cost, "wait, P = {p}, rank 0 late");
            if p == 4 {
                // Rank 2 waits for rank 0's second-step message, which leaves after rank 0's
                // computation; under async rank 2 ended with its own computation.
                assert_eq!(late[2], wait_end + cost, "{late:?}");
            }
        }
    }

    #[test]
    fn the_times_do_not_depend_on_the_number_of_threads() {
        // 7 repetitions at P = 5 with random delays and Poisson noise, on 1, 2, 3 and 8
        // threads (shares of 7, 4 + 3, 3 + 3 + 1, one each): the same times bit for bit.
        let (p, nrep) = (5usize, 7u32);
        let delays: Vec<f64> = (0..p * nrep as usize)
            .map(|i| (i * 7919 % 13) as f64 * 3e-6)
            .collect();
        let block = SimBlock::allreduce_8b(nrep, delays);
        let spec: NoiseSpec = "poisson:1kHz:20us".parse().unwrap();
        let noise = NoiseSource::load(&spec, false).unwrap();
        let run = |threads| {
            let mut e = LoggopsEngine::new(Params::default(), Some(noise.clone()), 3, 5, None)
                .with_threads(threads);
            e.simulate(p as u32, &[block.clone(), block.clone()])
                .unwrap()
                .times
        };
        let one = run(1);
        assert!(one[0].end_s.iter().all(|&t| t > 0.0));
        for threads in [2, 3, 8] {
            assert_eq!(run(threads), one, "{threads} threads");
        }
    }

    #[test]
    fn the_memory_estimate_grows_with_p_and_covers_the_times() {
        let e = LoggopsEngine::new(Params::default(), None, 1, 2, None).with_threads(2);
        let plan = Plan {
            ops: vec![Op::Allreduce],
            sizes: vec![8],
            ..crate::plan::run_plan::tests::plan()
        };
        let small = e.estimate_bytes(&plan, 1024);
        let big = e.estimate_bytes(&plan, 1 << 26);
        // 100 repetitions x 2^26 ranks x 8 B is 54 GB for one array of times alone.
        assert!(
            big > 100 * (1u64 << 26) * 8 && big > 1000 * small,
            "{small} {big}"
        );
    }

    #[test]
    fn periodic_noise_only_lengthens_the_calls() {
        let block = SimBlock::allreduce_8b(200, vec![0.0; 400]);
        let run = |noise: Option<NoiseSource>| {
            let mut e = LoggopsEngine::new(Params::default(), noise, 7, 2, None);
            let t = e.simulate(2, std::slice::from_ref(&block)).unwrap().times;
            let t = &t[0];
            (0..200)
                .map(|r| {
                    t.end_s[r * 2..r * 2 + 2]
                        .iter()
                        .copied()
                        .fold(0.0, f64::max)
                        - t.scheduled_start_s[r]
                })
                .sum::<f64>()
        };
        let quiet = run(None);
        let spec: NoiseSpec = "periodic:1kHz:5us".parse().unwrap();
        let noisy = run(Some(NoiseSource::load(&spec, false).unwrap()));
        assert!(noisy > quiet, "{noisy} {quiet}");
    }
}
