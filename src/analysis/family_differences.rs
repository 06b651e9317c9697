//! Which form of a kernel family costs less under the same late arrival, decided on the
//! difference of the two costs rather than on whether their two intervals overlap.
//!
//! The default table of `analyze` puts a family's blocking and nonblocking (or persistent)
//! forms side by side. Two 95 % intervals can overlap while the difference of the two
//! statistics is significant at 5 % (Schenker and Gentleman 2001, "On judging the
//! significance of differences by examining the overlap between confidence intervals", Am.
//! Statist. 55(3)), so each comparison is tested by a bootstrap interval of the difference of
//! the costs, resampling the four samples (each form's baseline and delayed t_globals, all
//! measured apart) independently. One analysis compares many configurations at once, so the
//! decisions are controlled by Benjamini and Hochberg (1995) over every comparison of the
//! analysis at false discovery rate 1 − level ([`Bootstrap::fdr`]).

use super::{
    benjamini_hochberg, samples_of, Bootstrap, ByLaunch, ConfigStats, Interval, LaunchDigest,
};
use crate::plan::kernel::Form;
use crate::plan::Op;
use crate::timeline::Configuration;

/// One comparison of a family's nonblocking or persistent form with its blocking form at one
/// configuration (size, P, delay, algorithm), both delayed.
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyDifference {
    /// The blocking form (`allreduce`).
    pub blocking: Op,
    /// The other form (`iallreduce`, `allreduce_init`).
    pub other: Op,
    /// Message size, bytes.
    pub bytes: u64,
    /// P.
    pub nprocs: u32,
    /// The delay as the rows name it (`50us`).
    pub delay_model: String,
    /// The collective algorithm, empty when the run chose none.
    pub algorithm: String,
    /// Percentile bootstrap interval of cost(other) − cost(blocking), seconds, each cost
    /// tδ − t0 from medians (below 0: the other form cost less).
    pub interval: Interval,
    /// Two-sided bootstrap p-value of "no difference" ([`super::two_sided_p`]).
    pub p: f64,
    /// Rejected by Benjamini-Hochberg over every comparison of the analysis at
    /// [`Bootstrap::fdr`]: the forms' costs differ beyond the noise.
    pub significant: bool,
}

impl FamilyDifference {
    /// True when this is the comparison of `other`'s row (same op, size, P, delay,
    /// algorithm).
    pub fn is_of(&self, other: &ConfigStats) -> bool {
        self.other == other.op
            && self.bytes == other.bytes
            && self.nprocs == other.nprocs
            && self.delay_model == other.delay_model
            && self.algorithm == other.algorithm
    }
}

/// A delayed row with a share of the delay hidden (one δ per repetition, a baseline): the
/// rows the default table compares.
fn comparable(r: &ConfigStats) -> bool {
    !r.is_baseline() && r.benefit_na.is_none() && r.cost_median_s.is_some()
}

/// The pairs (blocking row, other row) of `rows` that the default table compares: every
/// comparable row of a non-blocking form with the comparable row of its family's blocking
/// form at the same size, P, delay and algorithm, in the order of `rows`.
pub fn form_pairs(rows: &[ConfigStats]) -> Vec<(&ConfigStats, &ConfigStats)> {
    rows.iter()
        .filter(|r| r.op.form() != Form::Blocking && comparable(r))
        .filter_map(|other| {
            let blocking = other.op.family().blocking();
            let b = rows.iter().find(|b| {
                b.op == blocking
                    && comparable(b)
                    && b.bytes == other.bytes
                    && b.nprocs == other.nprocs
                    && b.algorithm == other.algorithm
                    && b.delay_model == other.delay_model
            })?;
            Some((b, other))
        })
        .collect()
}

/// The four samples of one comparison, seconds, each per launch ([`super::ByLaunch`], the
/// four paired by launch): the blocking form's baseline and delayed t_globals, then the
/// other form's.
pub type FormSamples<'a> = [&'a dyn ByLaunch; 4];

/// Per comparison of `samples`, the interval of cost(other) − cost(blocking), its p-value
/// and whether Benjamini-Hochberg at [`Bootstrap::fdr`] over all of them rejects "no
/// difference"; `None` where a sample has fewer than [`Bootstrap::min_valid`] values (no
/// test, and it does not count among the comparisons).
pub fn test_forms(samples: &[FormSamples], boot: &Bootstrap) -> Vec<Option<(Interval, f64, bool)>> {
    let tests: Vec<Option<(Interval, f64)>> = samples
        .iter()
        .map(|&[b0, bd, o0, od]| boot.cost_difference_test(b0, bd, o0, od))
        .collect();
    let p: Vec<Option<f64>> = tests.iter().map(|t| t.map(|t| t.1)).collect();
    let decided = benjamini_hochberg(&p, boot.fdr());
    tests
        .into_iter()
        .zip(decided)
        .map(|(t, d)| t.map(|(i, p)| (i, p, d == Some(true))))
        .collect()
}

/// The tested comparisons of [`form_pairs`] of `rows`, whose samples are pooled from
/// `launches` as the rows were ([`samples_of`]); comparisons without a test are left out.
pub fn family_differences(
    launches: &[LaunchDigest],
    rows: &[ConfigStats],
    boot: &Bootstrap,
) -> Vec<FamilyDifference> {
    let pairs = form_pairs(rows);
    let owned: Vec<[Vec<Vec<f64>>; 4]> = pairs
        .iter()
        .map(|(b, o)| {
            let (bd, b0) = samples_of(launches, b);
            let (od, o0) = samples_of(launches, o);
            [b0, bd, o0, od]
        })
        .collect();
    let samples: Vec<FormSamples> = owned
        .iter()
        .map(|s| -> FormSamples { [&s[0], &s[1], &s[2], &s[3]] })
        .collect();
    pairs
        .iter()
        .zip(test_forms(&samples, boot))
        .filter_map(|((b, o), t)| {
            let (interval, p, significant) = t?;
            Some(FamilyDifference {
                blocking: b.op,
                other: o.op,
                bytes: o.bytes,
                nprocs: o.nprocs,
                delay_model: o.delay_model.clone(),
                algorithm: o.algorithm.clone(),
                interval,
                p,
                significant,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` evenly spaced values around `centre` (seconds), `step` apart.
    fn spread(centre: f64, step: f64, n: usize) -> Vec<f64> {
        let half = (n / 2) as f64;
        (0..n).map(|i| centre + (i as f64 - half) * step).collect()
    }

    #[test]
    fn overlapping_cost_intervals_with_a_significant_difference_are_significant() {
        let boot = Bootstrap::default();
        // Tight baselines; delayed samples 0.1 us apart over 20 us, the other form's centred
        // 2.4 us higher: each cost interval is about ±1.4 us, so the two overlap, while the
        // difference's is about ±2 us and excludes 0.
        let b0 = spread(10e-6, 1e-10, 201);
        let o0 = spread(10e-6, 1e-10, 201);
        let bd = spread(110e-6, 0.1e-6, 201);
        let od = spread(112.4e-6, 0.1e-6, 201);
        let cost_b = boot.cost_ci(&b0, &bd).unwrap();
        let cost_o = boot.cost_ci(&o0, &od).unwrap();
        assert!(cost_b.overlaps(&cost_o), "{cost_b:?} {cost_o:?}");
        let four: FormSamples = [&b0, &bd, &o0, &od];
        let t = test_forms(&[four], &boot);
        let (interval, p, significant) = t[0].unwrap();
        assert!(interval.lo > 0.0, "{interval:?}");
        assert!(p < 0.05, "{p}");
        assert!(significant);
        // The same samples with the other form's centre moved onto the blocking form's: no
        // difference.
        let same = spread(110e-6, 0.1e-6, 201);
        let four: FormSamples = [&b0, &bd, &o0, &same];
        let t = test_forms(&[four], &boot);
        assert!(!t[0].unwrap().2, "{t:?}");
    }

    #[test]
    fn false_discoveries_are_controlled_over_the_comparisons() {
        let boot = Bootstrap::default();
        let b0 = spread(10e-6, 1e-10, 201);
        let bd = spread(110e-6, 0.1e-6, 201);
        let far = spread(130e-6, 0.1e-6, 201);
        let few = spread(110e-6, 0.1e-6, 3);
        let samples: Vec<FormSamples> = vec![
            [&b0, &bd, &b0, &far],
            [&b0, &bd, &b0, &few],
            [&b0, &bd, &b0, &bd],
        ];
        let t = test_forms(&samples, &boot);
        assert!(t[0].unwrap().2, "{t:?}");
        assert!(t[1].is_none(), "3 values give no test: {t:?}");
        assert!(!t[2].unwrap().2, "{t:?}");
        // The difference is other − blocking: 20 us.
        let i = t[0].unwrap().0;
        assert!(i.lo > 15e-6 && i.hi < 25e-6, "{i:?}");
    }
}
