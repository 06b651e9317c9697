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
use super::loggops::{collective, DetourTrace, Noise, Params, Simulator};
use super::noise_source::{NoiseSource, NoiseSpec};
use super::{Engine, SimulateError, Simulated};
use crate::plan::algorithms::AlgorithmSetting;
use crate::plan::Op;
use crate::records::Simulation;

/// The LogGOPS engine for one output (one swept algorithm, or each collective's first).
pub struct LoggopsEngine {
    params: Params,
    noise: Option<NoiseSource>,
    seed: u64,
    hosts: Vec<String>,
    algorithm: Option<String>,
    sim: Simulator,
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
        }
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
        let mut noise = self.noise_for(n)?;
        let fail = |e: super::loggops::LoggopsError| SimulateError::Plan(e.to_string());
        let mut times = Vec::with_capacity(sims.len());
        let mut reps = 0;
        // One time line for the whole P, as one launch: the noise goes on between blocks.
        let mut clock_s = 0.0;
        for b in sims {
            let schedule =
                collective(b.op.name(), self.algorithm.as_deref(), n, b.bytes).map_err(fail)?;
            let quiet = self
                .sim
                .run(&schedule, &vec![0.0; n], &mut Noise::None)
                .map_err(fail)?;
            let t_s = quiet.iter().copied().fold(0.0, f64::max) * 1e-9;
            let max_delay = b.delays.iter().copied().fold(0.0, f64::max);
            let window_s = b.window_s.unwrap_or_else(|| auto_window_s(t_s, max_delay));
            let nrep = b.nrep as usize;
            let mut t = SimulatedTimes {
                window_s,
                scheduled_start_s: Vec::with_capacity(nrep),
                start_s: Vec::with_capacity(nrep * n),
                end_s: Vec::with_capacity(nrep * n),
            };
            for rep in 0..nrep {
                let at = clock_s + (rep + 1) as f64 * window_s;
                let starts: Vec<f64> = b.delays[rep * n..(rep + 1) * n]
                    .iter()
                    .map(|d| at + d)
                    .collect();
                let starts_ns: Vec<f64> = starts.iter().map(|s| s * 1e9).collect();
                let ends = self
                    .sim
                    .run(&schedule, &starts_ns, &mut noise)
                    .map_err(fail)?;
                t.scheduled_start_s.push(at);
                t.start_s.extend(&starts);
                t.end_s.extend(ends.iter().map(|e| e * 1e-9));
            }
            clock_s += (nrep + 1) as f64 * window_s;
            reps += nrep;
            times.push(t);
        }
        Ok(Simulated {
            times,
            simulated_repetitions: reps,
            peak_memory_bytes: 0,
        })
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
