//! Percentile bootstrap confidence intervals (Efron and Tibshirani 1993, *An Introduction to
//! the Bootstrap*, ch. 13) for the median t_global and for the delay overlap benefit from
//! medians. Resampling uses rand's `StdRng` seeded from [`Bootstrap::seed`], so the same
//! records give the same intervals on every call (with the same rand version).

use super::benefit;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use statrs::statistics::{Data, OrderStatistics};

/// A two-sided confidence interval; bounds in the unit of the statistic.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

impl Interval {
    /// True when `x` lies inside (bounds included).
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// True when the two intervals share at least one point.
    pub fn overlaps(&self, other: &Interval) -> bool {
        self.lo <= other.hi && other.lo <= self.hi
    }
}

/// Settings of the percentile bootstrap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bootstrap {
    /// Resamples drawn (2000 by default; criterion uses 100 000, ReproMPI none).
    pub resamples: u32,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
    /// Seed of the resampling generator; fixed so that output is reproducible.
    pub seed: u64,
}

impl Default for Bootstrap {
    fn default() -> Self {
        Bootstrap {
            resamples: 2000,
            level: 0.95,
            seed: 0x00de_1a7b,
        }
    }
}

impl Bootstrap {
    /// Interval of the median of `values`: the (1 − level)/2 and (1 + level)/2 quantiles of
    /// the medians of `resamples` resamples drawn with replacement. `None` for fewer than two
    /// values, where resampling says nothing.
    pub fn median_ci(&self, values: &[f64]) -> Option<Interval> {
        if values.len() < 2 {
            return None;
        }
        let mut rng = StdRng::seed_from_u64(self.seed);
        let mut buf = vec![0.0; values.len()];
        let medians = (0..self.resamples)
            .map(|_| resample_median(values, &mut buf, &mut rng))
            .collect();
        Some(self.percentiles(medians))
    }

    /// Interval of the delay overlap benefit from medians, b = (t0 + δ − tδ) / tδ with
    /// t0 = median(`baseline_s`) and tδ = median(`delayed_s`) (Niethammer et al. 2016, eq. 5; seconds in, a
    /// fraction out). The two blocks were measured independently, so each resample draws the
    /// baseline and the delayed t_globals independently, each with replacement. `None` when
    /// either has fewer than two values.
    pub fn benefit_ci(
        &self,
        baseline_s: &[f64],
        delayed_s: &[f64],
        delay_s: f64,
    ) -> Option<Interval> {
        if baseline_s.len() < 2 || delayed_s.len() < 2 {
            return None;
        }
        let mut rng = StdRng::seed_from_u64(self.seed);
        let (mut b0, mut bd) = (vec![0.0; baseline_s.len()], vec![0.0; delayed_s.len()]);
        let benefits = (0..self.resamples)
            .map(|_| {
                let t0 = resample_median(baseline_s, &mut b0, &mut rng);
                let td = resample_median(delayed_s, &mut bd, &mut rng);
                benefit(t0, td, delay_s)
            })
            .filter(|b| b.is_finite())
            .collect();
        Some(self.percentiles(benefits))
    }

    fn percentiles(&self, stats: Vec<f64>) -> Interval {
        let alpha = (1.0 - self.level) / 2.0;
        let mut data = Data::new(stats);
        Interval {
            lo: data.quantile(alpha),
            hi: data.quantile(1.0 - alpha),
        }
    }
}

/// The median of one resample of `values` drawn with replacement into `buf`.
fn resample_median(values: &[f64], buf: &mut [f64], rng: &mut StdRng) -> f64 {
    let n = values.len();
    for slot in buf.iter_mut() {
        *slot = values[rng.random_range(0..n)];
    }
    // Selection instead of a full sort: the resamples are the costly part of `analyze`.
    let mid = n / 2;
    let (lower, m, _) = buf.select_nth_unstable_by(mid, f64::total_cmp);
    if n % 2 == 1 {
        *m
    } else {
        let below = lower.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (below + *m) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resample_median_of_a_constant_and_of_two_halves() {
        let mut rng = StdRng::seed_from_u64(1);
        assert_eq!(resample_median(&[4.0; 5], &mut [0.0; 5], &mut rng), 4.0);
        // Any resample of {1, 3} of size 2 has median 1, 2 or 3.
        for _ in 0..50 {
            let m = resample_median(&[1.0, 3.0], &mut [0.0; 2], &mut rng);
            assert!([1.0, 2.0, 3.0].contains(&m), "{m}");
        }
    }

    #[test]
    fn median_interval_brackets_the_median_and_shrinks_with_n() {
        let boot = Bootstrap::default();
        let small: Vec<f64> = (0..20).map(|i| 10.0 + (i % 10) as f64).collect();
        let big: Vec<f64> = (0..2000).map(|i| 10.0 + (i % 10) as f64).collect();
        let (s, b) = (
            boot.median_ci(&small).unwrap(),
            boot.median_ci(&big).unwrap(),
        );
        // Median 14.5 in both; the interval lies within the data's range.
        assert!(s.contains(14.5) && b.contains(14.5), "{s:?} {b:?}");
        assert!(s.lo >= 10.0 && s.hi <= 19.0);
        assert!(b.hi - b.lo < s.hi - s.lo, "{s:?} {b:?}");
        // Reproducible: the same seed gives the same interval.
        assert_eq!(boot.median_ci(&small), Some(s));
        assert_eq!(boot.median_ci(&[1.0]), None);
    }

    #[test]
    fn constant_samples_give_a_point_interval() {
        let boot = Bootstrap::default();
        let ci = boot.benefit_ci(&[10e-6; 8], &[30e-6; 9], 50e-6).unwrap();
        // b = (10 + 50 - 30) / 30 = 1 exactly in every resample.
        assert!(
            (ci.lo - 1.0).abs() < 1e-12 && (ci.hi - 1.0).abs() < 1e-12,
            "{ci:?}"
        );
    }

    #[test]
    fn benefit_interval_contains_zero_when_the_delay_just_adds() {
        // tδ = t0 + δ with the same spread: b is near 0 and the interval straddles it.
        let t0: Vec<f64> = (0..200).map(|i| 10e-6 + (i % 20) as f64 * 0.1e-6).collect();
        let td: Vec<f64> = t0.iter().map(|t| t + 50e-6).collect();
        let ci = Bootstrap::default().benefit_ci(&t0, &td, 50e-6).unwrap();
        assert!(ci.contains(0.0), "{ci:?}");
        assert!(ci.hi - ci.lo < 0.05, "{ci:?}");
        // A real benefit: tδ = 40 us against t0 + δ = 61 us, b ≈ 0.5; 0 is far outside.
        let td: Vec<f64> = t0.iter().map(|t| t + 30e-6).collect();
        let ci = Bootstrap::default().benefit_ci(&t0, &td, 50e-6).unwrap();
        assert!(!ci.contains(0.0) && ci.lo > 0.4 && ci.hi < 0.6, "{ci:?}");
    }

    #[test]
    fn overlap_and_contains() {
        let a = Interval { lo: 1.0, hi: 2.0 };
        assert!(a.overlaps(&Interval { lo: 2.0, hi: 3.0 }));
        assert!(!a.overlaps(&Interval { lo: 2.1, hi: 3.0 }));
        assert!(a.contains(1.0) && !a.contains(2.5));
    }
}
