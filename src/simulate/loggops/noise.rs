//! Detours for the engine: what a rank's CPU loses to the operating system while it is busy.
//!
//! A detour source is one or more [`DetourTrace`]s, each a list of detours (start, duration)
//! that repeats with its span; simulated rank r replays trace r mod T at its own phase
//! (drawn from a seed, uniform over the span) or, co-scheduled, all at one phase (Beckman et
//! al. 2008: co-scheduled noise costs less). The sources:
//!
//! - LogGOPSim's trace format ([`DetourTrace::parse`]): one detour a line, start and
//!   duration in ns separated by white space, `#` comment lines (Hoefler, Schneider and
//!   Lumsdaine, SC 2010).
//! - `periodic:FREQ:DURATION` (`periodic:10Hz:2.5ms`): one detour of DURATION every 1/FREQ.
//! - `poisson:RATE:DURATION` (`poisson:1kHz:25us`): detours of DURATION at exponential
//!   intervals of mean 1/RATE (Ferreira, Bridges and Brightwell, SC 2008, generate noise
//!   both ways).

use super::LoggopsError;
use crate::units::parse_duration_s;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha12Rng;
use rand_distr::{Distribution, Exp};

/// One repeating list of detours, times in ns.
#[derive(Debug, Clone, PartialEq)]
pub struct DetourTrace {
    /// Start of each detour within the span, ascending, in [0, span).
    pub starts_ns: Vec<f64>,
    /// Duration of each detour.
    pub durations_ns: Vec<f64>,
    /// The period after which the trace repeats.
    pub span_ns: f64,
}

/// The noise a run injects: none, or per rank a trace and a phase.
#[derive(Debug, Clone, Default)]
pub enum Noise {
    /// No noise: every CPU-busy interval lasts as the model says.
    #[default]
    None,
    /// Rank r replays `traces[r % traces.len()]` shifted by `phase_ns[r % phase_ns.len()]`.
    Detours {
        traces: Vec<DetourTrace>,
        phase_ns: Vec<f64>,
    },
}

/// How the ranks' phases are chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Phase {
    /// Each rank its own phase, uniform over the span, from this seed (ChaCha12).
    Random(u64),
    /// All ranks one phase, uniform over the span, from this seed.
    CoScheduled(u64),
}

impl DetourTrace {
    /// A trace from detours (start, duration) in any order, repeating every `span_ns`
    /// (at least the end of the last detour). Starts are taken modulo the span.
    pub fn new(mut detours: Vec<(f64, f64)>, span_ns: f64) -> DetourTrace {
        let span = detours
            .iter()
            .map(|d| d.0 + d.1)
            .fold(span_ns, f64::max)
            .max(f64::MIN_POSITIVE);
        detours.sort_by(|a, b| a.0.total_cmp(&b.0));
        DetourTrace {
            starts_ns: detours.iter().map(|d| d.0).collect(),
            durations_ns: detours.iter().map(|d| d.1).collect(),
            span_ns: span,
        }
    }

    /// Reads LogGOPSim's noise-trace format from `text` (`name` for messages): one detour a
    /// line, start and duration in ns, `#` comments and blank lines skipped. The trace
    /// repeats after its last detour ends.
    ///
    /// Errors: [`LoggopsError::Noise`] naming the line that is not two non-negative numbers,
    /// or a text without detours.
    pub fn parse(text: &str, name: &str) -> Result<DetourTrace, LoggopsError> {
        let fail = |message: String| LoggopsError::Noise {
            source_name: name.to_string(),
            message,
        };
        let mut detours = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let nums: Vec<Option<f64>> = line
                .split_whitespace()
                .map(|w| w.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0))
                .collect();
            match nums[..] {
                [Some(start), Some(duration)] => detours.push((start, duration)),
                _ => {
                    return Err(fail(format!(
                        "line {}: '{line}' is not a detour: LogGOPSim's trace format is one \
                         detour a line, start and duration in ns, `#` comments",
                        n + 1
                    )))
                }
            }
        }
        if detours.is_empty() {
            return Err(fail("holds no detour".into()));
        }
        Ok(DetourTrace::new(detours, 0.0))
    }

    /// The time a CPU-busy interval of `len_ns` starting at trace time `t` (taken modulo the
    /// span) is lengthened by: the rest of a detour in progress at `t`, and every detour
    /// that starts in [t, t + len), whole. As LogGOPSim, detours that start in the
    /// lengthened part are not added again.
    pub fn extra_ns(&self, t: f64, len_ns: f64) -> f64 {
        let n = self.starts_ns.len();
        if n == 0 {
            return 0.0;
        }
        let span = self.span_ns;
        let x = t.rem_euclid(span);
        let mut extra = 0.0;
        // The rest of the detour in progress at x: the last one starting before x, or the
        // last of the previous period.
        let at = self.starts_ns.partition_point(|&s| s < x);
        let (prev_start, prev_dur) = if at > 0 {
            (self.starts_ns[at - 1], self.durations_ns[at - 1])
        } else {
            (self.starts_ns[n - 1] - span, self.durations_ns[n - 1])
        };
        if prev_start + prev_dur > x {
            extra += prev_start + prev_dur - x;
        }
        // Whole periods inside the interval, then the detours starting in what is left
        // (less than one span, so the walk meets each detour at most once).
        let periods = (len_ns / span).floor();
        if periods >= 1.0 {
            extra += periods * self.durations_ns.iter().sum::<f64>();
        }
        let end = x + (len_ns - periods * span);
        let (mut i, mut offset) = (at, 0.0);
        loop {
            if i == n {
                i = 0;
                offset += span;
            }
            if self.starts_ns[i] + offset >= end {
                break;
            }
            extra += self.durations_ns[i];
            i += 1;
        }
        extra
    }
}

impl Noise {
    /// Noise of `traces` for `procs` ranks, each rank's phase as `phase` says.
    pub fn from_traces(traces: Vec<DetourTrace>, procs: usize, phase: Phase) -> Noise {
        if traces.is_empty() {
            return Noise::None;
        }
        let span = traces.iter().map(|t| t.span_ns).fold(0.0, f64::max);
        let (seed, count) = match phase {
            Phase::Random(seed) => (seed, procs.max(1)),
            Phase::CoScheduled(seed) => (seed, 1),
        };
        let mut rng = ChaCha12Rng::seed_from_u64(seed);
        let phase_ns = (0..count).map(|_| rng.random::<f64>() * span).collect();
        Noise::Detours { traces, phase_ns }
    }

    /// A synthetic source, `periodic:FREQ:DURATION` or `poisson:RATE:DURATION` (FREQ and
    /// RATE in `Hz`, `kHz` or `MHz`; DURATION with a unit), for `procs` ranks.
    ///
    /// Errors: [`LoggopsError::Noise`] naming the specification and what is wrong with it.
    pub fn from_spec(spec: &str, procs: usize, phase: Phase) -> Result<Noise, LoggopsError> {
        let fail = |message: String| LoggopsError::Noise {
            source_name: format!("'{spec}'"),
            message,
        };
        let parts: Vec<&str> = spec.split(':').collect();
        let [kind, rate, duration] = parts[..] else {
            return Err(fail(
                "expected periodic:FREQ:DURATION or poisson:RATE:DURATION, e.g. \
                 periodic:10Hz:2.5ms"
                    .into(),
            ));
        };
        let hz = parse_hz(rate).ok_or_else(|| {
            fail(format!(
                "'{rate}' is no frequency: write it with Hz, kHz or MHz"
            ))
        })?;
        let d_ns = parse_duration_s(duration).map_err(|e| fail(e.to_string()))? * 1e9;
        let period_ns = 1e9 / hz;
        if d_ns >= period_ns {
            return Err(fail(format!(
                "a detour of {duration} at {rate} leaves the CPU no time"
            )));
        }
        let traces = match kind {
            "periodic" => vec![DetourTrace::new(vec![(0.0, d_ns)], period_ns)],
            "poisson" => poisson_traces(period_ns, d_ns, phase),
            other => {
                return Err(fail(format!(
                    "unknown source '{other}': expected periodic or poisson"
                )))
            }
        };
        Ok(Noise::from_traces(traces, procs, phase))
    }

    /// What rank `rank` loses in a CPU-busy interval of `len_ns` starting at `t_ns`.
    #[inline]
    pub fn extra_ns(&self, rank: usize, t_ns: f64, len_ns: f64) -> f64 {
        match self {
            Noise::None => 0.0,
            Noise::Detours { traces, phase_ns } => {
                let trace = &traces[rank % traces.len()];
                trace.extra_ns(t_ns + phase_ns[rank % phase_ns.len()], len_ns)
            }
        }
    }
}

/// Independent Poisson traces (16 of them, each 4,096 mean intervals long, from the seed):
/// ranks that share a trace still differ by their phases.
fn poisson_traces(mean_ns: f64, d_ns: f64, phase: Phase) -> Vec<DetourTrace> {
    const TRACES: usize = 16;
    const DETOURS: usize = 4096;
    let seed = match phase {
        Phase::Random(s) | Phase::CoScheduled(s) => s,
    };
    let mut rng = ChaCha12Rng::seed_from_u64(seed ^ 0x006e_6f69_7365);
    let gap = Exp::new(1.0 / (mean_ns - d_ns)).expect("a positive rate");
    (0..TRACES)
        .map(|_| {
            let mut t = 0.0;
            let detours: Vec<(f64, f64)> = (0..DETOURS)
                .map(|_| {
                    t += gap.sample(&mut rng);
                    let d = (t, d_ns);
                    t += d_ns;
                    d
                })
                .collect();
            DetourTrace::new(detours, t + gap.sample(&mut rng))
        })
        .collect()
}

/// `10Hz`, `1kHz`, `2.5MHz` in hertz.
fn parse_hz(text: &str) -> Option<f64> {
    let t = text.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("MHz") {
        (n, 1e6)
    } else if let Some(n) = t.strip_suffix("kHz") {
        (n, 1e3)
    } else {
        (t.strip_suffix("Hz")?, 1.0)
    };
    let hz = num.trim().parse::<f64>().ok()? * scale;
    (hz.is_finite() && hz > 0.0).then_some(hz)
}
