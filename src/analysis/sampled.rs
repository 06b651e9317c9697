//! Metrics for blocks with sampled delays, where δ changes from repetition to repetition and
//! rank to rank: the delay overlap benefit per repetition, its distribution, and the noise
//! amplification of noise mode (every rank delayed).
//!
//! The per-repetition benefit and the noise amplification are delaybench's own metrics: Niethammer et al. 2016
//! defines b (eq. 5) for one fixed δ only and studies no noise; related work on noise in
//! collectives (Hoefler, Schneider and Lumsdaine 2009, "The effect of network noise on
//! large-scale collective communications"; Ferreira et al. 2013, both cited by Niethammer et al. 2016) measures
//! slowdowns under injected noise, which A summarises per second of mean injected delay.
//!
//! Delays come from the records' `applied_delay_s` (`[nrep][nprocs]`, seconds), times from
//! t_global (Niethammer et al. 2016, eq. 4). The baseline is the undelayed block of the same (op, bytes, P), as in
//! [`crate::timeline::pairing`]; callers choose it.

use super::{benefit, valid_t_globals, BlockTimes};
use crate::records::Block;
use serde::Serialize;
use statrs::statistics::{Data, OrderStatistics, Statistics};

/// Summary of a set of per-repetition values: count, mean and quantiles.
///
/// Quantiles are statrs' `OrderStatistics::quantile`, the R type 8 estimator (Hyndman and
/// Fan 1996; approximately median-unbiased), so `median` is the usual middle value or mean of
/// the two middle values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Distribution {
    /// Number of values summarised.
    pub n: usize,
    pub mean: f64,
    /// 5th percentile.
    pub p5: f64,
    /// 25th percentile (lower quartile).
    pub p25: f64,
    pub median: f64,
    /// 75th percentile (upper quartile).
    pub p75: f64,
    /// 95th percentile.
    pub p95: f64,
}

/// The [`Distribution`] of the finite values of `values`, or `None` when there are none.
/// Values keep their unit (benefits are dimensionless, times in seconds).
pub fn distribution(values: &[f64]) -> Option<Distribution> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        return None;
    }
    let mean = finite.iter().mean();
    let n = finite.len();
    let mut data = Data::new(finite);
    Some(Distribution {
        n,
        mean,
        p5: data.quantile(0.05),
        p25: data.quantile(0.25),
        median: data.median(),
        p75: data.quantile(0.75),
        p95: data.quantile(0.95),
    })
}

/// Smallest and largest applied delay of repetition `rep`, seconds.
fn delay_range(block: &Block, rep: usize) -> (f64, f64) {
    let p = block.nprocs as usize;
    block.applied_delay_s.0[rep * p..(rep + 1) * p]
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &d| {
            (lo.min(d), hi.max(d))
        })
}

/// Delay overlap benefit of every valid repetition of `block`, in repetition order
/// (dimensionless; Niethammer et al. 2016, eq. 5 applied per repetition):
///
/// b_i = (t0 + δ_i − t_i) / t_i
///
/// with t_i the t_global of repetition i, t0 the median t_global of the valid repetitions of
/// `baseline`, and δ_i the arrival spread of repetition i: the largest minus the smallest
/// delay applied to any rank (`applied_delay_s`). With one late rank that is its delay; when
/// every rank is delayed, t_global is measured from the first arrival, so only the spread can
/// hide behind or add to t0. Reading as for eq. 5: 0 the spread just adds, > 0 it is partly
/// hidden, < 0 it costs extra.
///
/// Empty when either block has no valid repetition; non-finite values (t_i = 0) are left out.
pub fn rep_benefits(block: &Block, baseline: &Block) -> Vec<f64> {
    rep_benefits_t0s(block, &valid_t_globals(baseline))
}

/// [`rep_benefits`] with the baseline given as the t_globals of its valid repetitions
/// (seconds), what a block-by-block reader keeps of it.
pub fn rep_benefits_t0s(block: &Block, t0s: &[f64]) -> Vec<f64> {
    ValidReps::of(block).benefits(t0s)
}

/// What the per-repetition metrics need of a baseline: the median t_global of its valid
/// repetitions (t0 of the benefits) and their mean (t0 of the noise amplification), seconds.
/// Two numbers where the t_globals took 8 bytes per repetition: a reader going block by block
/// keeps this of every baseline until the pass ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BaselineT0 {
    pub median_s: f64,
    pub mean_s: f64,
}

impl BaselineT0 {
    /// Of a baseline given as its valid t_globals (seconds); `None` when there are none.
    pub fn of(t0s: &[f64]) -> Option<Self> {
        Some(BaselineT0 {
            median_s: super::median(t0s)?,
            mean_s: t0s.iter().mean(),
        })
    }
}

/// What the per-repetition metrics need of a block's valid repetitions, in repetition order:
/// 32 bytes per repetition, so a reader going block by block can keep it until the block's
/// baseline is known.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ValidReps {
    /// Per valid repetition: t_global, smallest and largest applied delay, and the mean
    /// applied delay over the ranks, seconds.
    reps: Vec<[f64; 4]>,
}

impl ValidReps {
    /// The valid repetitions of `block`.
    pub fn of(block: &Block) -> Self {
        Self::with_times(block, &BlockTimes::of(block))
    }

    /// The valid repetitions of `block`, whose indices and t_globals are `times`.
    pub fn with_times(block: &Block, times: &BlockTimes) -> Self {
        let p = block.nprocs as usize;
        let reps = times
            .reps
            .iter()
            .zip(&times.t_globals)
            .map(|(&rep, &t)| {
                let rep = rep as usize;
                let (lo, hi) = delay_range(block, rep);
                let mean = block.applied_delay_s.0[rep * p..(rep + 1) * p]
                    .iter()
                    .mean();
                [t, lo, hi, mean]
            })
            .collect();
        ValidReps { reps }
    }

    /// [`rep_benefits`] against a baseline given as its valid t_globals (seconds).
    pub fn benefits(&self, t0s: &[f64]) -> Vec<f64> {
        BaselineT0::of(t0s).map_or_else(Vec::new, |t0| self.benefits_against(&t0))
    }

    /// [`rep_benefits`] against a baseline given as its [`BaselineT0`].
    pub fn benefits_against(&self, t0: &BaselineT0) -> Vec<f64> {
        self.reps
            .iter()
            .map(|&[t, lo, hi, _]| benefit(t0.median_s, t, hi - lo))
            .filter(|b| b.is_finite())
            .collect()
    }

    /// [`noise_effect`] against a baseline given as its valid t_globals (seconds).
    pub fn noise_effect(&self, t0s: &[f64]) -> Option<NoiseEffect> {
        self.noise_effect_against(&BaselineT0::of(t0s)?)
    }

    /// [`noise_effect`] against a baseline given as its [`BaselineT0`].
    pub fn noise_effect_against(&self, t0: &BaselineT0) -> Option<NoiseEffect> {
        if self.reps.is_empty() {
            return None;
        }
        // Every repetition has the same P, so the mean of the per-repetition means is the
        // mean over every rank of every repetition.
        let makespan_mean_s = self.reps.iter().map(|&[t, lo, _, _]| t + lo).mean();
        let t0_mean_s = t0.mean_s;
        let delay_mean_s = self.reps.iter().map(|r| r[3]).mean();
        let delay_max_mean_s = self.reps.iter().map(|r| r[2]).mean();
        if delay_mean_s.is_nan() || delay_mean_s <= 0.0 {
            return None;
        }
        Some(NoiseEffect {
            n: self.reps.len(),
            makespan_mean_s,
            t0_mean_s,
            delay_mean_s,
            delay_max_mean_s,
            amplification: (makespan_mean_s - t0_mean_s) / delay_mean_s,
            wait_for_slowest: delay_max_mean_s / delay_mean_s,
        })
    }
}

/// How an operation responds to noise, from a noise-mode block (sampled delays on many or all
/// ranks) and its undelayed baseline. Times in seconds, means over the valid repetitions
/// (and for delays, over their ranks too).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NoiseEffect {
    /// Valid repetitions of the delayed block.
    pub n: usize,
    /// Mean makespan m_i = t_global_i + min over ranks of δ_i,r: from the instant an
    /// undelayed rank would have entered to the last end. t_global alone starts at the first
    /// (already delayed) arrival and would hide the part of the noise every rank suffered.
    pub makespan_mean_s: f64,
    /// Mean t_global of the baseline's valid repetitions, t0.
    pub t0_mean_s: f64,
    /// Mean applied delay over the valid repetitions and all ranks, `E[δ]`.
    pub delay_mean_s: f64,
    /// Mean over the valid repetitions of the largest applied delay, `E[max_r δ]`.
    pub delay_max_mean_s: f64,
    /// Noise amplification A = (makespan_mean − t0_mean) / delay_mean.
    pub amplification: f64,
    /// A for an operation that waits for the slowest rank and overlaps nothing
    /// (m_i = t0 + max_r δ_i,r): delay_max_mean / delay_mean, ≥ 1.
    pub wait_for_slowest: f64,
}

/// The [`NoiseEffect`] of `block` against `baseline`, or `None` when either has no valid
/// repetition or no delay was applied.
///
/// `A = (E[m] − E[t0]) / E[δ]`, m the makespan of [`NoiseEffect::makespan_mean_s`]: the
/// slowdown per second of mean per-rank noise. Means, not medians, because expected delays
/// add linearly. Reading:
/// - A = 1: the noise adds as its mean per-rank amount, as it would to independent work;
/// - 1 < A ≤ `wait_for_slowest`: the operation amplifies noise by waiting for late ranks;
///   at `wait_for_slowest` it waits for the slowest one and hides nothing;
/// - A > `wait_for_slowest`: the noise costs more than waiting for the slowest rank (a late
///   rank also delays the steps that depend on it);
/// - A < 1: the operation absorbs noise (overlaps it with its own communication).
pub fn noise_effect(block: &Block, baseline: &Block) -> Option<NoiseEffect> {
    noise_effect_t0s(block, &valid_t_globals(baseline))
}

/// [`noise_effect`] with the baseline given as the t_globals of its valid repetitions
/// (seconds), what a block-by-block reader keeps of it.
pub fn noise_effect_t0s(block: &Block, t0s: &[f64]) -> Option<NoiseEffect> {
    ValidReps::of(block).noise_effect(t0s)
}

/// Noise amplification A of `block` against `baseline` ([`NoiseEffect::amplification`]; see
/// [`noise_effect`] for the formula and its reading), or `None` as there.
pub fn noise_amplification(block: &Block, baseline: &Block) -> Option<f64> {
    noise_effect(block, baseline).map(|e| e.amplification)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    /// Repetition `rep` of `b`: rank r delayed by `delays_us[r]` and starting then, every rank
    /// ending `end_us` after the scheduled start.
    fn set_rep(b: &mut Block, rep: usize, delays_us: &[f64], end_us: f64) {
        let sched = b.scheduled_start_s.0[rep];
        for (rank, &d) in delays_us.iter().enumerate() {
            let i = b.idx(rep, rank);
            b.applied_delay_s.0[i] = d * 1e-6;
            b.t_start_global_s.0[i] = sched + d * 1e-6;
            b.t_end_global_s.0[i] = sched + end_us * 1e-6;
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1e-9)
    }

    #[test]
    fn benefits_per_repetition() {
        // Valid baseline reps 0, 2, 3 take 10, 12, 13 us: t0 = 12 us (rep 1 is flagged).
        let base = testdata::block(Op::Allreduce, 8, 3, 0.0, 4, 10e-6);
        let mut b = testdata::block(Op::Allreduce, 8, 3, 0.0, 4, 10e-6);
        set_rep(&mut b, 0, &[30.0, 0.0, 0.0], 40.0); // t 40, δ 30: (12+30-40)/40
        set_rep(&mut b, 1, &[900.0, 0.0, 0.0], 990.0); // flagged, left out
        set_rep(&mut b, 2, &[10.0, 50.0, 20.0], 70.0); // t 60, spread 40: (12+40-60)/60
        set_rep(&mut b, 3, &[0.0, 0.0, 0.0], 12.0); // t 12, δ 0: 0
        let bs = rep_benefits(&b, &base);
        assert_eq!(bs.len(), 3);
        assert!(close(bs[0], 2.0 / 40.0), "{bs:?}");
        assert!(close(bs[1], -8.0 / 60.0), "{bs:?}");
        assert!(bs[2].abs() < 1e-6, "{bs:?}");
        // A baseline without valid repetitions gives nothing to compare with.
        let mut none = base.clone();
        none.flags.iter_mut().for_each(|f| *f = 1);
        assert!(rep_benefits(&b, &none).is_empty());
    }

    #[test]
    fn distribution_quantiles() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        let d = distribution(&values).unwrap();
        assert_eq!(d.n, 100);
        assert!(close(d.mean, 50.5) && close(d.median, 50.5));
        // h = (n + 1/3) tau + 1/3, interpolating between the order statistics around h.
        assert!(close(d.p5, 5.35), "{d:?}");
        assert!(close(d.p95, 95.65), "{d:?}");
        assert!(close(d.p25, 25.0 + 5.0 / 12.0), "{d:?}");
        assert!(close(d.p75, 75.0 + 7.0 / 12.0), "{d:?}");
        let d = distribution(&[3.0, f64::NAN, 1.0, 2.0]).unwrap();
        assert_eq!((d.n, d.median), (3, 2.0));
        assert_eq!(distribution(&[]), None);
    }

    #[test]
    fn noise_amplification_by_hand() {
        // Baseline: one repetition of 10 us.
        let base = testdata::block(Op::Allreduce, 8, 2, 0.0, 1, 10e-6);
        let mut b = testdata::block(Op::Allreduce, 8, 2, 0.0, 3, 10e-6);
        set_rep(&mut b, 0, &[10.0, 30.0], 45.0); // makespan 45 us
        set_rep(&mut b, 1, &[1000.0, 1000.0], 2000.0); // flagged, left out
        set_rep(&mut b, 2, &[20.0, 0.0], 30.0); // makespan 30 us
        let e = noise_effect(&b, &base).unwrap();
        assert_eq!(e.n, 2);
        assert!(close(e.makespan_mean_s, 37.5e-6), "{e:?}");
        assert!(close(e.t0_mean_s, 10e-6), "{e:?}");
        assert!(close(e.delay_mean_s, 15e-6), "{e:?}");
        assert!(close(e.delay_max_mean_s, 25e-6), "{e:?}");
        assert!(close(e.amplification, 27.5 / 15.0), "{e:?}");
        assert!(close(e.wait_for_slowest, 25.0 / 15.0), "{e:?}");
        assert_eq!(noise_amplification(&b, &base), Some(e.amplification));
        // No delay: nothing to amplify.
        assert_eq!(noise_amplification(&base, &base), None);
    }

    #[test]
    fn noise_that_just_adds_has_amplification_one() {
        // Every rank late by the same 20 us and the operation ending t0 after them: the
        // makespan grows by exactly the mean delay, although t_global does not grow at all.
        let base = testdata::block(Op::Allreduce, 8, 4, 0.0, 1, 10e-6);
        let mut b = testdata::block(Op::Allreduce, 8, 4, 0.0, 1, 10e-6);
        set_rep(&mut b, 0, &[20.0; 4], 30.0);
        assert!(close(noise_amplification(&b, &base).unwrap(), 1.0));
    }
}
