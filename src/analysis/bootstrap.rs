//! Percentile bootstrap confidence intervals (Efron and Tibshirani 1993, *An Introduction to
//! the Bootstrap*, ch. 13) for the median t_global, and for the delay overlap benefit and
//! the cost tδ − t0 from medians. Resampling uses ChaCha12 (`rand_chacha`, a fixed stream,
//! where rand's `StdRng` may change algorithm between releases) seeded from
//! [`Bootstrap::seed`], so the same records give the same intervals on every call (with the
//! same rand_distr version, whose Beta sampling draws the medians).
//!
//! Each resample's median is drawn from its exact distribution instead of from n drawn
//! values (see [`ResampleMedian`]): an interval costs one sort and O(1) per resample, not
//! O(n) per resample. Drawing n values per resample made the intervals 96 % of `plot`'s time
//! on a file of 6.25 million valid repetitions (2000 resamples x 62 500 values, four
//! intervals per delayed block).

use super::benefit;
pub use super::launch_level::ByLaunch;
use super::launch_level::{order_statistic_interval, Study};
use rand::distr::Open01;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha12Rng;
use rand_distr::{Beta, Distribution};
use serde::Serialize;
use statrs::statistics::{Data, OrderStatistics};

/// Fewest valid repetitions from which an interval of a median is given (at the default
/// 95 % level; [`Bootstrap::min_valid`] raises it for higher levels), and so a benefit's
/// interval and its significance, which rest on two medians. 6 is the smallest n for which
/// the distribution-free 95 % interval of the median, between two order statistics, exists
/// at all: it needs 2 · 0.5^n ≤ 0.05 (Le Boudec 2010, *Performance Evaluation of Computer
/// and Communication Systems*, §2.2.1 and Table A.1). Below it a percentile bootstrap
/// interval is still computed but covers far less than its level claims: with n = 3 it is
/// about the range of the three values. Hoefler and Belli (2015, *Scientific benchmarking of
/// parallel computing systems*) take the median's interval from Le Boudec for this reason.
pub const MIN_VALID_FOR_CI: usize = 6;

/// Fewest resamples `--resamples` accepts. A percentile interval's bounds are the
/// (1 − level)/2 and (1 + level)/2 quantiles of the resampled statistic, so at 95 % each
/// rests on the 2.5 % tail of the resamples: 25 of 1000. Efron and Tibshirani (1993, *An
/// Introduction to the Bootstrap*, §19.3) ask for about 1000 for percentile intervals,
/// where 50 to 200 do for a standard error; with 0 resamples there is no interval at all,
/// with 1 a point that a table would call significant.
pub const MIN_RESAMPLES: u32 = 1000;

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
    /// Resamples drawn (2000 by default; criterion uses 100 000, ReproMPI none); the command
    /// line refuses fewer than [`MIN_RESAMPLES`], and no resample gives no interval.
    pub resamples: u32,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
    /// Seed of the resampling generator; fixed so that output is reproducible.
    pub seed: u64,
    /// The verdicts' equivalence margin, a share of δ ([`super::Verdict`],
    /// [`super::DEFAULT_MARGIN`]): an interval of the share hidden inside [−margin, margin]
    /// reads `costs full delay`. Also the margin beyond which a launch's own interval counts
    /// as hiding or costing extra for `launches disagree`.
    pub margin: f64,
}

impl Default for Bootstrap {
    fn default() -> Self {
        Bootstrap {
            resamples: 2000,
            level: 0.95,
            seed: 0x00de_1a7b,
            margin: super::DEFAULT_MARGIN,
        }
    }
}

impl Bootstrap {
    /// Fewest values from which this bootstrap gives an interval of a median: the smallest n
    /// with 2 · 0.5^n ≤ 1 − level (the distribution-free interval of the median exists, see
    /// [`MIN_VALID_FOR_CI`]), and never fewer than [`MIN_VALID_FOR_CI`]; 6 at 95 %, 8 at 99 %.
    pub fn min_valid(&self) -> usize {
        let alpha = (1.0 - self.level).max(f64::MIN_POSITIVE);
        let n = (2.0 / alpha).log2().ceil();
        MIN_VALID_FOR_CI.max(n as usize)
    }

    /// The false discovery rate at which an analysis decides which benefits are significant
    /// (Benjamini-Hochberg over its rows): 1 − level, 5 % at the default 95 %, so that the
    /// decision and the intervals speak at one level. Rounded to 12 decimals, so that 0.95
    /// gives 0.05 and not 0.050000000000000044 in the JSON.
    pub fn fdr(&self) -> f64 {
        ((1.0 - self.level) * 1e12).round() / 1e12
    }

    /// Interval of the median of `values`: the (1 − level)/2 and (1 + level)/2 quantiles of
    /// the medians of `resamples` resamples drawn with replacement. Over several launches
    /// ([`ByLaunch`]) the statistic is the median of the launch medians, resampled
    /// hierarchically (see [`ByLaunch`]). `None` for fewer than [`Bootstrap::min_valid`]
    /// values in the one launch, or in all but one of several (those launches are left out:
    /// [`Study::thinned`]), where no interval means what its level says.
    pub fn median_ci<S: ByLaunch + ?Sized>(&self, values: &S) -> Option<Interval> {
        let study = self.study([values.launches()], |[m]| m)?;
        self.study_test(study).map(|t| t.0)
    }

    /// Interval of the delay overlap benefit from medians, b = (t0 + δ − tδ) / tδ with
    /// t0 = median(`baseline_s`) and tδ = median(`delayed_s`) (Niethammer et al. 2016, eq. 5;
    /// seconds in, a fraction out). The two blocks were measured independently, so each
    /// resample draws the baseline and the delayed t_globals independently, each with
    /// replacement. Over several launches, b is each launch's benefit from its own medians and
    /// the statistic their median ([`ByLaunch`]). `None` when either has fewer than
    /// [`Bootstrap::min_valid`] values in too many launches ([`Study::thinned`]), or the two
    /// have different launches.
    pub fn benefit_ci<S: ByLaunch + ?Sized, T: ByLaunch + ?Sized>(
        &self,
        baseline_s: &S,
        delayed_s: &T,
        delay_s: f64,
    ) -> Option<Interval> {
        self.benefit_test(baseline_s, delayed_s, delay_s)
            .map(|t| t.0)
    }

    /// [`Bootstrap::benefit_ci`] with the test of "no benefit" from the same resamples:
    /// the interval and the two-sided p-value of b = 0, [`two_sided_p`] of the resampled
    /// benefits. `None` as [`Bootstrap::benefit_ci`].
    pub fn benefit_test<S: ByLaunch + ?Sized, T: ByLaunch + ?Sized>(
        &self,
        baseline_s: &S,
        delayed_s: &T,
        delay_s: f64,
    ) -> Option<(Interval, f64)> {
        let study = self.study([baseline_s.launches(), delayed_s.launches()], |[t0, td]| {
            benefit(t0, td, delay_s)
        })?;
        self.study_test(study)
    }

    /// Interval of the cost of the late arrival, median(`delayed_s`) − median(`baseline_s`)
    /// (tδ − t0, seconds): resampled as [`Bootstrap::benefit_ci`] resamples, with the same
    /// draws, so the two intervals of a row come from the same resamples. `None` as
    /// [`Bootstrap::benefit_ci`].
    pub fn cost_ci<S: ByLaunch + ?Sized, T: ByLaunch + ?Sized>(
        &self,
        baseline_s: &S,
        delayed_s: &T,
    ) -> Option<Interval> {
        let study = self.study([baseline_s.launches(), delayed_s.launches()], |[t0, td]| {
            td - t0
        })?;
        self.study_test(study).map(|t| t.0)
    }

    /// Interval of median(`b`) − median(`a`) for two independently measured samples (two
    /// runs of one configuration, `compare A B`): each resample draws `a` and `b`
    /// independently, each with replacement, as [`Bootstrap::cost_ci`] does (the same
    /// statistic with `a` as the baseline); over several launches, each side's launches are
    /// resampled on their own ([`ByLaunch`]). Deciding whether two runs differ by this
    /// interval excluding 0, not by whether their two intervals overlap, keeps the test's
    /// level: two 95 % intervals can overlap while the difference is significant at 5 %, so
    /// the overlap misses real differences (Schenker and Gentleman 2001, "On judging the significance of differences by examining the overlap
    /// between confidence intervals", Am. Statist. 55(3)). `None` when either has fewer than
    /// [`Bootstrap::min_valid`] values in too many launches ([`Study::thinned`]).
    pub fn median_difference_ci<S: ByLaunch + ?Sized, T: ByLaunch + ?Sized>(
        &self,
        a: &S,
        b: &T,
    ) -> Option<Interval> {
        self.median_difference_test(a, b).map(|t| t.0)
    }

    /// [`Bootstrap::median_difference_ci`] with the test of "no difference" from the same
    /// resamples: the interval of median(`b`) − median(`a`) (seconds) and the two-sided
    /// p-value of 0, [`two_sided_p`] of the resampled differences, for a false discovery rate
    /// over many comparisons (`delaybench tune`). `None` as [`Bootstrap::median_difference_ci`].
    pub fn median_difference_test<S: ByLaunch + ?Sized, T: ByLaunch + ?Sized>(
        &self,
        a: &S,
        b: &T,
    ) -> Option<(Interval, f64)> {
        let studies = [
            self.study([a.launches()], |[m]| m)?,
            self.study([b.launches()], |[m]| m)?,
        ];
        self.test(self.resamples(&studies, |v| v[1] - v[0])?)
    }

    /// Interval of b_B − b_A, the difference of two benefits from medians (Niethammer et al.
    /// 2016, eq. 5), b_A from baseline `a0_s` and delayed `ad_s` at delay `delay_s`, b_B the
    /// same from `b0_s` and `bd_s`: the four samples were measured apart, so each resample
    /// draws all four independently (in that order); A's and B's launches are resampled
    /// apart ([`ByLaunch`]). A fraction; `None` when any has fewer than
    /// [`Bootstrap::min_valid`] values in too many launches ([`Study::thinned`]).
    pub fn benefit_difference_ci<S, T, U, V>(
        &self,
        a0_s: &S,
        ad_s: &T,
        b0_s: &U,
        bd_s: &V,
        delay_s: f64,
    ) -> Option<Interval>
    where
        S: ByLaunch + ?Sized,
        T: ByLaunch + ?Sized,
        U: ByLaunch + ?Sized,
        V: ByLaunch + ?Sized,
    {
        // The same resamples as the test; its p-value is the only extra work.
        self.benefit_difference_test(a0_s, ad_s, b0_s, bd_s, delay_s)
            .map(|(interval, _)| interval)
    }

    /// [`Bootstrap::benefit_difference_ci`] with the two-sided p-value of b_B − b_A = 0 from
    /// the same resamples ([`two_sided_p`]). `None` as [`Bootstrap::benefit_difference_ci`].
    pub fn benefit_difference_test<S, T, U, V>(
        &self,
        a0_s: &S,
        ad_s: &T,
        b0_s: &U,
        bd_s: &V,
        delay_s: f64,
    ) -> Option<(Interval, f64)>
    where
        S: ByLaunch + ?Sized,
        T: ByLaunch + ?Sized,
        U: ByLaunch + ?Sized,
        V: ByLaunch + ?Sized,
    {
        let b = move |[t0, td]: [f64; 2]| benefit(t0, td, delay_s);
        let studies = [
            self.study([a0_s.launches(), ad_s.launches()], b)?,
            self.study([b0_s.launches(), bd_s.launches()], b)?,
        ];
        self.test(self.resamples(&studies, |v| v[1] - v[0])?)
    }

    /// Interval of cost_B − cost_A, the difference of two costs of a late arrival from
    /// medians (tδ − t0 of each, seconds), cost_A from baseline `a0_s` and delayed `ad_s`,
    /// cost_B the same from `b0_s` and `bd_s`, with the two-sided p-value of 0
    /// ([`two_sided_p`]) from the same resamples: the four samples were measured apart, so
    /// each resample draws all four independently (in that order), as
    /// [`Bootstrap::benefit_difference_test`] does. A and B are two forms measured in the
    /// same launches, so over several launches each drawn launch gives both costs, and the
    /// statistic is the median over launches of each launch's difference. `None` when any
    /// has fewer than [`Bootstrap::min_valid`] values in too many launches ([`Study::thinned`]).
    pub fn cost_difference_test<S, T, U, V>(
        &self,
        a0_s: &S,
        ad_s: &T,
        b0_s: &U,
        bd_s: &V,
    ) -> Option<(Interval, f64)>
    where
        S: ByLaunch + ?Sized,
        T: ByLaunch + ?Sized,
        U: ByLaunch + ?Sized,
        V: ByLaunch + ?Sized,
    {
        let study = self.study(
            [
                a0_s.launches(),
                ad_s.launches(),
                b0_s.launches(),
                bd_s.launches(),
            ],
            |[a0, ad, b0, bd]| (bd - b0) - (ad - a0),
        )?;
        self.study_test(study)
    }

    /// The interval and the two-sided p-value of 0 of one study's statistic. One launch: the
    /// percentile interval and [`two_sided_p`] of its resamples. Several: the hierarchical
    /// bootstrap's percentile interval widened to hold the distribution-free interval of the
    /// median of the launches' own values ([`order_statistic_interval`]: the range of the
    /// launch values below 6 launches at 95 %), because a bootstrap over few launches
    /// under-covers (few clusters) and an interval over launches should hold the launches
    /// that disagree; where that interval holds 0 the p-value is above 1 − level, so a
    /// test never claims what the interval does not.
    fn study_test(&self, study: Study<'_>) -> Option<(Interval, f64)> {
        let (mut interval, mut p) =
            self.test(self.resamples(std::slice::from_ref(&study), |v| v[0])?)?;
        if study.len() > 1 {
            let values = study.launch_values()?;
            if let Some((lo, hi)) = order_statistic_interval(&values, self.level) {
                interval.lo = interval.lo.min(lo);
                interval.hi = interval.hi.max(hi);
            }
            if interval.contains(0.0) {
                // Strictly above, so that Benjamini-Hochberg at 1 − level never rejects it.
                p = p.max((1.0 - self.level) * (1.0 + f64::EPSILON)).min(1.0);
            }
        }
        Some((interval, p))
    }

    /// [`Study::of`] without the launches too thin for an interval ([`Study::thinned`] at
    /// [`Bootstrap::min_valid`]).
    fn study<'a, const N: usize>(
        &self,
        samples: [Vec<&'a [f64]>; N],
        per_launch: impl Fn([f64; N]) -> f64 + 'a,
    ) -> Option<Study<'a>> {
        Study::of(samples, per_launch)?.thinned(self.min_valid())
    }

    /// The percentile interval and the two-sided p-value of 0 ([`two_sided_p`]) of the
    /// resampled `values`.
    fn test(&self, values: Vec<f64>) -> Option<(Interval, f64)> {
        let p = two_sided_p(&values)?;
        Some((self.percentiles(values)?, p))
    }

    /// The finite values of `stat` over the resamples of `studies`, measured apart: each
    /// resample draws, study by study in the order given, the study's value
    /// ([`Study::draw`]), then applies `stat` to them. `None` when a study has a sample
    /// with fewer than [`Bootstrap::min_valid`] values in too many launches ([`Study::thinned`]).
    fn resamples(&self, studies: &[Study<'_>], stat: impl Fn(&[f64]) -> f64) -> Option<Vec<f64>> {
        let least = self.min_valid();
        if studies.iter().any(|s| s.fewest() < least) {
            return None;
        }
        let sorted: Vec<Vec<Vec<Vec<f64>>>> = studies.iter().map(Study::sorted).collect();
        let medians: Vec<Vec<Vec<ResampleMedian>>> = sorted
            .iter()
            .map(|launches| {
                launches
                    .iter()
                    .map(|samples| samples.iter().map(|s| ResampleMedian::of(s)).collect())
                    .collect()
            })
            .collect();
        let mut rng = ChaCha12Rng::seed_from_u64(self.seed);
        let mut values_of_studies = vec![0.0; studies.len()];
        let values = (0..self.resamples)
            .map(|_| {
                for (i, study) in studies.iter().enumerate() {
                    values_of_studies[i] = study.draw(&medians[i], &mut rng);
                }
                stat(&values_of_studies)
            })
            .filter(|v| v.is_finite())
            .collect();
        Some(values)
    }

    /// Interval of mean(`a`) − mean(`b`) for two independently measured samples: each
    /// resample draws `a` and `b` independently, each with replacement, `a.len()` and
    /// `b.len()` values. `None` when either has fewer than two values.
    pub fn mean_difference_ci(&self, a: &[f64], b: &[f64]) -> Option<Interval> {
        if a.len() < 2 || b.len() < 2 {
            return None;
        }
        let mut rng = ChaCha12Rng::seed_from_u64(self.seed);
        let mut mean = |v: &[f64]| {
            (0..v.len())
                .map(|_| v[rng.random_range(0..v.len())])
                .sum::<f64>()
                / v.len() as f64
        };
        let diffs = (0..self.resamples).map(|_| mean(a) - mean(b)).collect();
        self.percentiles(diffs)
    }

    /// The percentile interval of the resampled `stats`; `None` without a single (finite)
    /// resample, where statrs' quantiles would be NaN.
    fn percentiles(&self, stats: Vec<f64>) -> Option<Interval> {
        if stats.is_empty() {
            return None;
        }
        let alpha = (1.0 - self.level) / 2.0;
        let mut data = Data::new(stats);
        Some(Interval {
            lo: data.quantile(alpha),
            hi: data.quantile(1.0 - alpha),
        })
    }
}

/// Two-sided bootstrap p-value of "the statistic is 0" from its resampled values: twice the
/// share of resamples on the far side of 0 from the rest, counted as (1 + #) / (B + 1) so
/// that B resamples never claim p = 0 (Davison and Hinkley 1997, *Bootstrap Methods and
/// their Application*, §4.2), at most 1. This is the achieved significance level of
/// Efron and Tibshirani (1993, ch. 15 and 16) doubled for two sides, and agrees with the
/// percentile interval: p < 1 − level about when the interval at `level` excludes 0.
/// Resamples equal to 0 count on both sides. `None` without resamples.
pub fn two_sided_p(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let below = values.iter().filter(|&&v| v <= 0.0).count();
    let above = values.iter().filter(|&&v| v >= 0.0).count();
    let b = values.len() as f64;
    Some((2.0 * (1 + below.min(above)) as f64 / (b + 1.0)).min(1.0))
}

/// `values` in ascending order (a copy; already sorted input is only checked).
pub(super) fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v = values.to_vec();
    if !v.is_sorted_by(|a, b| a.total_cmp(b).is_le()) {
        v.sort_unstable_by(f64::total_cmp);
    }
    v
}

/// The median of a resample of n values drawn with replacement, drawn without the resample.
///
/// Why this is the same bootstrap: a value drawn uniformly from the sorted sample x_(1) ≤ …
/// ≤ x_(n) is F_n⁻¹(U) = x_(⌈nU⌉) with U uniform on (0, 1) (the inverse transform of the
/// empirical distribution F_n), and F_n⁻¹ is non-decreasing, so the k-th smallest of a
/// resample is x_(⌈n·U_(k)⌉) with U_(k) the k-th smallest of n uniforms. U_(k) has the
/// Beta(k, n + 1 − k) distribution, and given U_(k) = u the other n − k uniforms above it are
/// uniform on (u, 1), so U_(k+1) = u + (1 − u)·W with W, the smallest of n − k uniforms,
/// Beta(1, n − k) distributed (David and Nagaraja 2003, *Order Statistics*, 3rd ed., §2.2
/// and Theorem 2.5). Each draw therefore has exactly the distribution of the median of a
/// resample of n values, which is the bootstrap distribution of the median Efron (1979,
/// "Bootstrap methods: another look at the jackknife", Ann. Statist. 7, §3) writes in closed
/// form; only the random numbers differ from drawing n values, so intervals move by the
/// Monte Carlo error of `resamples` draws, as they would with another seed. Ties need no
/// care: equal values are adjacent in the sorted sample.
pub(super) struct ResampleMedian<'a> {
    sorted: &'a [f64],
    /// Rank of the (lower) median: (n + 1) / 2 for odd n, n / 2 for even n.
    k: usize,
    /// The distribution of U_(k).
    lower: Beta<f64>,
}

impl<'a> ResampleMedian<'a> {
    /// For `sorted`, ascending, at least one value.
    pub(super) fn of(sorted: &'a [f64]) -> Self {
        let n = sorted.len();
        let k = n.div_ceil(2);
        let lower = Beta::new(k as f64, (n + 1 - k) as f64).expect("both shapes are at least 1");
        ResampleMedian { sorted, k, lower }
    }

    /// One resample's median: the k-th smallest for odd n, the mean of the k-th and the
    /// (k + 1)-th for even n, as [`super::median`] defines it.
    pub(super) fn draw(&self, rng: &mut ChaCha12Rng) -> f64 {
        let n = self.sorted.len();
        let u = self.lower.sample(rng);
        let below = self.at(u);
        if n % 2 == 1 {
            return below;
        }
        // W = 1 − V^(1/(n − k)) for V uniform on (0, 1), written with exp_m1 so that the
        // small values it takes for large n keep their precision.
        let v: f64 = rng.sample(Open01);
        let w = -(v.ln() / (n - self.k) as f64).exp_m1();
        (below + self.at(u + (1.0 - u) * w)) / 2.0
    }

    /// F_n⁻¹(u) = x_(⌈nu⌉), the sample's quantile function.
    fn at(&self, u: f64) -> f64 {
        let n = self.sorted.len();
        let j = (u * n as f64).ceil() as usize;
        self.sorted[j.clamp(1, n) - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The median of one resample of `values` drawn value by value, as the bootstrap is
    /// defined: what [`ResampleMedian`] must match in distribution.
    fn median_by_drawing(values: &[f64], rng: &mut ChaCha12Rng) -> f64 {
        let n = values.len();
        let mut v: Vec<f64> = (0..n).map(|_| values[rng.random_range(0..n)]).collect();
        v.sort_by(f64::total_cmp);
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    }

    /// The median of every one of the n^n equally likely resamples of `values`, with its
    /// probability: the bootstrap distribution of the median, enumerated.
    fn enumerated(values: &[f64]) -> Vec<(f64, f64)> {
        let n = values.len();
        let total = n.pow(n as u32);
        let mut pmf: Vec<(f64, f64)> = Vec::new();
        for code in 0..total {
            let mut v: Vec<f64> = (0..n).map(|i| values[code / n.pow(i as u32) % n]).collect();
            v.sort_by(f64::total_cmp);
            let m = if n % 2 == 1 {
                v[n / 2]
            } else {
                (v[n / 2 - 1] + v[n / 2]) / 2.0
            };
            match pmf.iter_mut().find(|(x, _)| *x == m) {
                Some((_, p)) => *p += 1.0 / total as f64,
                None => pmf.push((m, 1.0 / total as f64)),
            }
        }
        pmf
    }

    #[test]
    fn resample_medians_follow_the_enumerated_bootstrap_distribution() {
        // Odd and even n, with ties and unsorted input.
        for values in [
            vec![3.0, 1.0, 4.0, 1.0, 5.0],
            vec![2.0, 7.0, 2.0, 1.0],
            vec![1.0, 3.0],
            vec![6.0, 6.0, 6.0],
        ] {
            let pmf = enumerated(&values);
            let s = sorted(&values);
            let median = ResampleMedian::of(&s);
            let mut rng = ChaCha12Rng::seed_from_u64(11);
            let draws = 200_000;
            let mut counts = vec![0usize; pmf.len()];
            for _ in 0..draws {
                let m = median.draw(&mut rng);
                let i = pmf.iter().position(|&(x, _)| x == m);
                counts[i.unwrap_or_else(|| panic!("{m} is no resample median of {values:?}"))] += 1;
            }
            for (&(x, p), &c) in pmf.iter().zip(&counts) {
                // Five standard errors of a binomial proportion: a wrong distribution is
                // off by far more at 200 000 draws, a right one fails about once in 10^6.
                let f = c as f64 / draws as f64;
                let se = (p * (1.0 - p) / draws as f64).sqrt();
                assert!(
                    (f - p).abs() <= 5.0 * se + 1e-12,
                    "{values:?}: median {x} drawn {f}, bootstrap probability {p}"
                );
            }
        }
    }

    #[test]
    fn resample_medians_match_drawing_whole_resamples_for_larger_n() {
        // Skewed data with ties, n odd and even, too many for enumeration: two-sample
        // Kolmogorov-Smirnov test of the medians drawn here against medians of resamples
        // drawn value by value (sizes small enough for an unoptimised test build).
        for n in [201usize, 200] {
            let values: Vec<f64> = (0..n)
                .map(|i| ((i * 7919) % n) as f64)
                .map(|x| (x / 10.0).floor().powi(2))
                .collect();
            let s = sorted(&values);
            let median = ResampleMedian::of(&s);
            let mut rng = ChaCha12Rng::seed_from_u64(5);
            let draws = 3000;
            let mut a: Vec<f64> = (0..draws).map(|_| median.draw(&mut rng)).collect();
            let mut b: Vec<f64> = (0..draws)
                .map(|_| median_by_drawing(&values, &mut rng))
                .collect();
            a.sort_by(f64::total_cmp);
            b.sort_by(f64::total_cmp);
            let cdf = |v: &[f64], x: f64| v.partition_point(|&y| y <= x) as f64 / draws as f64;
            let d = a
                .iter()
                .chain(&b)
                .map(|&x| (cdf(&a, x) - cdf(&b, x)).abs())
                .fold(0.0, f64::max);
            // Critical value at α = 0.001: 1.95 · sqrt(2 / draws).
            let critical = 1.95 * (2.0 / draws as f64).sqrt();
            assert!(d < critical, "n = {n}: KS distance {d} >= {critical}");
            // And a shifted copy of the data is told apart, so the test can fail.
            let shifted: Vec<f64> = values.iter().map(|x| x + 5.0).collect();
            let mut c: Vec<f64> = (0..draws)
                .map(|_| median_by_drawing(&shifted, &mut rng))
                .collect();
            c.sort_by(f64::total_cmp);
            let d = a
                .iter()
                .chain(&c)
                .map(|&x| (cdf(&a, x) - cdf(&c, x)).abs())
                .fold(0.0, f64::max);
            assert!(d > critical, "n = {n}: a shift of 5 went unseen ({d})");
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
    fn too_few_values_give_no_interval() {
        let boot = Bootstrap::default();
        assert_eq!(boot.min_valid(), MIN_VALID_FOR_CI);
        let five = [1.0, 2.0, 3.0, 4.0, 5.0];
        let six = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert_eq!(boot.median_ci(&five), None);
        assert!(boot.median_ci(&six).is_some());
        assert_eq!(boot.benefit_ci(&six, &five, 1.0), None);
        assert_eq!(boot.cost_ci(&five, &six), None);
        assert!(boot.benefit_ci(&six, &six, 1.0).is_some());
        // 2 · 0.5^8 ≤ 0.01 < 2 · 0.5^7: 8 values at 99 %.
        let strict = Bootstrap {
            level: 0.99,
            ..boot
        };
        assert_eq!(strict.min_valid(), 8);
    }

    #[test]
    fn p_values_by_hand_and_from_the_benefit() {
        // 3 of 9 resamples at or below 0: 2 * (1 + 3) / 10.
        let v = [-1.0, -0.5, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        assert!((two_sided_p(&v).unwrap() - 0.8).abs() < 1e-12);
        // None below 0 of 1999: 2 / 2000, not 0.
        let all: Vec<f64> = (1..2000).map(f64::from).collect();
        assert!((two_sided_p(&all).unwrap() - 0.001).abs() < 1e-12);
        // All equal to 0: no evidence at all.
        assert_eq!(two_sided_p(&[0.0; 5]), Some(1.0));
        assert_eq!(two_sided_p(&[]), None);
        let t0: Vec<f64> = (0..200).map(|i| 10e-6 + (i % 20) as f64 * 0.1e-6).collect();
        let boot = Bootstrap::default();
        // A real benefit (b ≈ 0.5, see below): the smallest p 2000 resamples can give.
        let td: Vec<f64> = t0.iter().map(|t| t + 30e-6).collect();
        let (ci, p) = boot.benefit_test(&t0, &td, 50e-6).unwrap();
        assert_eq!(Some(ci), boot.benefit_ci(&t0, &td, 50e-6));
        assert!(p < 0.002, "{p}");
        // No benefit: tδ = t0 + δ, b near 0 on both sides.
        let td: Vec<f64> = t0.iter().map(|t| t + 50e-6).collect();
        let (_, p) = boot.benefit_test(&t0, &td, 50e-6).unwrap();
        assert!(p > 0.05, "{p}");
    }

    #[test]
    fn differences_of_medians_and_of_benefits() {
        let boot = Bootstrap::default();
        let a: Vec<f64> = (0..200).map(|i| 10e-6 + (i % 20) as f64 * 0.1e-6).collect();
        let b: Vec<f64> = a.iter().map(|t| t + 2e-6).collect();
        // B 2 us slower with the same spread: the interval holds 2 us, not 0.
        let d = boot.median_difference_ci(&a, &b).unwrap();
        assert!(d.contains(2e-6) && !d.contains(0.0), "{d:?}");
        // The same sample twice: the interval holds 0.
        assert!(boot.median_difference_ci(&a, &a).unwrap().contains(0.0));
        assert_eq!(boot.median_difference_ci(&a[..5], &b), None);
        // A: tδ = t0 + δ (b = 0); B: 30 us of the 50 hidden, b = 30 / (t0 + 20) ≈ 0.97.
        let ad: Vec<f64> = a.iter().map(|t| t + 50e-6).collect();
        let bd: Vec<f64> = a.iter().map(|t| t + 20e-6).collect();
        let d = boot.benefit_difference_ci(&a, &ad, &a, &bd, 50e-6).unwrap();
        assert!(d.lo > 0.9 && d.hi < 1.0 && !d.contains(0.0), "{d:?}");
        let same = boot.benefit_difference_ci(&a, &ad, &a, &ad, 50e-6).unwrap();
        assert!(same.contains(0.0), "{same:?}");
    }

    #[test]
    fn no_resample_gives_no_interval() {
        let none = Bootstrap {
            resamples: 0,
            ..Bootstrap::default()
        };
        let v: Vec<f64> = (0..20).map(f64::from).collect();
        assert_eq!(none.median_ci(&v), None);
        assert_eq!(none.benefit_ci(&v, &v, 1.0), None);
        assert_eq!(none.mean_difference_ci(&v, &v), None);
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
    fn cost_is_the_difference_of_the_medians() {
        let boot = Bootstrap::default();
        // Constant samples: tδ − t0 = 30 − 10 = 20 us in every resample.
        let ci = boot.cost_ci(&[10e-6; 8], &[30e-6; 9]).unwrap();
        assert!(
            (ci.lo - 20e-6).abs() < 1e-18 && (ci.hi - 20e-6).abs() < 1e-18,
            "{ci:?}"
        );
        // tδ = t0 + 50 us with the same spread: the interval holds 50 us and is narrow.
        let t0: Vec<f64> = (0..200).map(|i| 10e-6 + (i % 20) as f64 * 0.1e-6).collect();
        let td: Vec<f64> = t0.iter().map(|t| t + 50e-6).collect();
        let ci = boot.cost_ci(&t0, &td).unwrap();
        assert!(ci.contains(50e-6) && ci.hi - ci.lo < 2e-6, "{ci:?}");
        assert_eq!(boot.cost_ci(&[1e-6], &td), None);
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
