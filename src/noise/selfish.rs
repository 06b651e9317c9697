//! The noise loops: a thread that wants the CPU all to itself and notes every moment it did
//! not get it. Three variants, each reading the rank's clock (`crate::clock::Clock`):
//!
//! - `selfish`: the selfish-detour loop of netgauge's noise module (Hoefler, Schneider and
//!   Lumsdaine, SC10, §III-A): read the clock in a tight loop; a gap between two consecutive
//!   readings longer than the threshold is a detour, starting at the earlier reading. Finest
//!   resolution: a detour is located to one loop iteration (tens of ns).
//! - `fwq`: fixed work quanta (LLNL FWQ; Petrini, Kerbyson and Pakin 2003 used the same idea
//!   on ASCI Q): repeat a fixed amount of work calibrated to about one quantum and time each
//!   repetition; a repetition longer than the fastest one by more than the threshold holds a
//!   detour of that excess, located to the repetition.
//! - `ftq`: fixed time quanta (LLNL FTQ): count work units done in each quantum of fixed
//!   length; the units missing against the best quantum, as time, are the detour, located to
//!   the quantum only (FTQ sees how much, not exactly when).
//!
//! Plain Rust, no MPI: a rank of `delaybench noise` runs one loop on its own core.

use crate::clock::Clock;
use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// Which noise loop runs (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum NoiseVariant {
    /// Selfish detour: consecutive clock readings; finest resolution.
    #[default]
    Selfish,
    /// Fixed work quanta: time each repetition of a fixed workload.
    Fwq,
    /// Fixed time quanta: count work done in each fixed time quantum.
    Ftq,
}

impl NoiseVariant {
    /// The name on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            NoiseVariant::Selfish => "selfish",
            NoiseVariant::Fwq => "fwq",
            NoiseVariant::Ftq => "ftq",
        }
    }

    /// The default quantum of the variant, seconds: FWQ calibrates its work to about 10 µs,
    /// FTQ counts work in 100 µs quanta; the selfish loop has none (0).
    pub fn default_quantum_s(self) -> f64 {
        match self {
            NoiseVariant::Selfish => 0.0,
            NoiseVariant::Fwq => 10e-6,
            NoiseVariant::Ftq => 100e-6,
        }
    }
}

/// What one noise loop found on one rank. Times on the rank's local clock, seconds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LoopResult {
    /// Local clock reading when the loop started and ended, seconds.
    pub start_local_s: f64,
    pub end_local_s: f64,
    /// Per detour above the threshold: its local start, seconds.
    pub detour_start_local_s: Vec<f64>,
    /// Per detour: its length, seconds.
    pub detour_duration_s: Vec<f64>,
    /// Loop iterations (selfish: clock reads; fwq: work repetitions; ftq: quanta).
    pub iterations: u64,
    /// The shortest iteration, seconds: the loop's own cost (selfish), the undisturbed work
    /// time (fwq) or the quantum (ftq). A detour shorter than this cannot be seen.
    pub resolution_s: f64,
    /// Detours dropped because the per-rank limit was reached.
    pub dropped: u64,
}

/// Most detours kept per rank and loop: 10 s at 100 kHz of detours.
pub const MAX_DETOURS: usize = 1_000_000;

impl LoopResult {
    fn push(&mut self, start_s: f64, duration_s: f64) {
        if self.detour_start_local_s.len() < MAX_DETOURS {
            self.detour_start_local_s.push(start_s);
            self.detour_duration_s.push(duration_s);
        } else {
            self.dropped += 1;
        }
    }
}

/// Runs `variant` on `clock` for `duration_s` seconds, keeping detours longer than
/// `threshold_s`; `quantum_s` is FWQ's work target and FTQ's quantum (ignored by `selfish`;
/// 0 or less means the variant's default). Busy: the calling thread holds its CPU throughout.
pub fn run_loop(
    variant: NoiseVariant,
    clock: &dyn Clock,
    duration_s: f64,
    threshold_s: f64,
    quantum_s: f64,
) -> LoopResult {
    let quantum_s = if quantum_s > 0.0 {
        quantum_s
    } else {
        variant.default_quantum_s()
    };
    match variant {
        NoiseVariant::Selfish => selfish(clock, duration_s, threshold_s),
        NoiseVariant::Fwq => fwq(clock, duration_s, threshold_s, quantum_s),
        NoiseVariant::Ftq => ftq(clock, duration_s, threshold_s, quantum_s),
    }
}

fn selfish(clock: &dyn Clock, duration_s: f64, threshold_s: f64) -> LoopResult {
    let mut r = LoopResult {
        detour_start_local_s: Vec::with_capacity(1 << 14),
        detour_duration_s: Vec::with_capacity(1 << 14),
        resolution_s: f64::INFINITY,
        ..LoopResult::default()
    };
    let start = clock.now();
    let end = start + duration_s;
    let mut last = start;
    let mut n = 0u64;
    loop {
        let now = clock.now();
        let gap = now - last;
        if gap > threshold_s {
            r.push(last, gap);
        } else if gap > 0.0 && gap < r.resolution_s {
            r.resolution_s = gap;
        }
        last = now;
        n += 1;
        if now >= end {
            break;
        }
    }
    r.start_local_s = start;
    r.end_local_s = last;
    r.iterations = n;
    r
}

/// `units` units of work that the compiler cannot remove.
#[inline(never)]
fn work(units: u64) -> u64 {
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    for i in 0..units {
        x = black_box(x.rotate_left(5) ^ i).wrapping_mul(0x100_0000_01b3);
    }
    x
}

/// Work units that take about `target_s` seconds undisturbed (the best of a few tries).
fn calibrate(clock: &dyn Clock, target_s: f64) -> u64 {
    let mut units = 16u64;
    loop {
        let best = (0..5)
            .map(|_| {
                let t = clock.now();
                black_box(work(units));
                clock.now() - t
            })
            .fold(f64::INFINITY, f64::min);
        if best >= target_s || units > 1 << 40 {
            let scaled = (units as f64 * target_s / best.max(1e-12)).round() as u64;
            return scaled.max(1);
        }
        units *= 2;
    }
}

fn fwq(clock: &dyn Clock, duration_s: f64, threshold_s: f64, quantum_s: f64) -> LoopResult {
    let units = calibrate(clock, quantum_s);
    let start = clock.now();
    let end = start + duration_s;
    // Every repetition is kept: the fastest one, known only at the end, is the reference.
    let mut reps: Vec<(f64, f64)> = Vec::with_capacity((duration_s / quantum_s) as usize + 16);
    let mut t = start;
    while t < end {
        black_box(work(units));
        let t1 = clock.now();
        reps.push((t, t1 - t));
        t = t1;
    }
    let best = reps.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
    let mut r = LoopResult {
        start_local_s: start,
        end_local_s: t,
        iterations: reps.len() as u64,
        resolution_s: best,
        ..LoopResult::default()
    };
    for (s, d) in reps {
        if d - best > threshold_s {
            r.push(s, d - best);
        }
    }
    r
}

fn ftq(clock: &dyn Clock, duration_s: f64, threshold_s: f64, quantum_s: f64) -> LoopResult {
    // A unit short against the quantum (about 1/200 of it), so counting costs little.
    let unit = calibrate(clock, quantum_s / 200.0);
    let start = clock.now();
    let quanta = (duration_s / quantum_s).ceil().max(1.0) as usize;
    let mut counts: Vec<u64> = Vec::with_capacity(quanta);
    for k in 0..quanta {
        let boundary = start + (k + 1) as f64 * quantum_s;
        let mut c = 0u64;
        while clock.now() < boundary {
            black_box(work(unit));
            c += 1;
        }
        counts.push(c);
    }
    let most = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let mut r = LoopResult {
        start_local_s: start,
        end_local_s: start + quanta as f64 * quantum_s,
        iterations: quanta as u64,
        resolution_s: quantum_s / most,
        ..LoopResult::default()
    };
    // A detour longer than a quantum leaves whole quanta without work: a run of lossy quanta
    // whose inner ones did nothing is one detour, from the end of the first quantum's work to
    // the start of the last one's; an isolated lossy quantum is placed at its start.
    let lost = |c: u64| (most - c as f64) / most * quantum_s;
    let mut k = 0;
    while k < counts.len() {
        let first = lost(counts[k]);
        if first <= threshold_s {
            k += 1;
            continue;
        }
        let mut end = k;
        while end + 1 < counts.len() && counts[end + 1] == 0 {
            end += 1;
        }
        // The quantum in which the thread got back, if it lost anything, ends the detour.
        if end > k && end + 1 < counts.len() && lost(counts[end + 1]) > 0.0 {
            end += 1;
        }
        if end == k {
            r.push(start + k as f64 * quantum_s, first);
        } else {
            let total: f64 = counts[k..=end].iter().map(|&c| lost(c)).sum();
            r.push(start + (k + 1) as f64 * quantum_s - first, total);
        }
        k = end + 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::MonotonicClock;

    /// A clock that jumps by `jump` seconds every `every`-th reading: a known detour pattern.
    struct Jumpy {
        base: MonotonicClock,
        reads: std::sync::atomic::AtomicU64,
        every: u64,
        jump: f64,
    }

    impl Clock for Jumpy {
        fn now(&self) -> f64 {
            let n = self
                .reads
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.base.now() + (n / self.every) as f64 * self.jump
        }
        fn resolution_s(&self) -> f64 {
            1e-9
        }
        fn name(&self) -> &'static str {
            "jumpy"
        }
    }

    #[test]
    fn selfish_sees_every_jump_of_the_clock() {
        let clock = Jumpy {
            base: MonotonicClock,
            reads: 0.into(),
            every: 10_000,
            jump: 1e-3,
        };
        let r = run_loop(NoiseVariant::Selfish, &clock, 0.2, 500e-6, 0.0);
        // Every jump is a gap of at least 1 ms (a loaded machine adds gaps of its own).
        let jumps = r.iterations / 10_000;
        let big = r.detour_duration_s.iter().filter(|&&d| d >= 1e-3).count() as u64;
        assert!(jumps >= 5, "{r:?}");
        assert!(big + 1 >= jumps, "{big} of {jumps}");
        assert!(r.resolution_s < 1e-5);
        assert!(r.detour_start_local_s.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn ftq_joins_a_detour_that_spans_quanta() {
        let clock = Jumpy {
            base: MonotonicClock,
            reads: 0.into(),
            every: 20_000,
            jump: 1e-3,
        };
        let r = run_loop(NoiseVariant::Ftq, &clock, 0.2, 20e-6, 100e-6);
        // Each 1 ms jump leaves about ten quanta without work: one detour of about 1 ms (up
        // to a quantum more, split between the quanta it began and ended in).
        let ms = r
            .detour_duration_s
            .iter()
            .filter(|&&d| (0.9e-3..1.25e-3).contains(&d))
            .count();
        let jumps = clock.reads.load(std::sync::atomic::Ordering::Relaxed) / 20_000;
        assert!(jumps >= 3, "{jumps}");
        assert!(
            ms as u64 + 1 >= jumps,
            "{ms} of {jumps}: {:?}",
            r.detour_duration_s
        );
    }

    #[test]
    fn every_variant_runs_its_time_and_reports_a_resolution() {
        for v in [NoiseVariant::Selfish, NoiseVariant::Fwq, NoiseVariant::Ftq] {
            let r = run_loop(v, &MonotonicClock, 0.05, 2e-6, 0.0);
            let ran = r.end_local_s - r.start_local_s;
            assert!((0.049..0.5).contains(&ran), "{v:?}: {ran}");
            assert!(r.iterations > 10, "{v:?}: {r:?}");
            assert!(r.resolution_s > 0.0 && r.resolution_s.is_finite(), "{v:?}");
            assert!(r.detour_duration_s.iter().all(|&d| d > 2e-6), "{v:?}");
        }
    }
}
