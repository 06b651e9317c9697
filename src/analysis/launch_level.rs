//! Launches as the unit of replication: the samples of a statistic split by `mpirun` launch,
//! and the hierarchical bootstrap over them that [`super::Bootstrap`] uses whenever a sample
//! has more than one launch.
//!
//! Results differ from one launch to the next by more than the repetitions of one launch
//! vary (Hunold and Carpen-Amarie 2016, "Reproducible MPI benchmarking is still not as
//! easy as you think", IEEE TPDS 27(12), §4: so ReproMPI's method takes the median over
//! launches). An interval over the pooled repetitions of several launches then claims a
//! precision the next launch contradicts. The statistic over launches is computed per launch
//! (from that launch's medians) and summarised by its median over launches; its interval
//! comes from a two-stage bootstrap that first draws launches with replacement and then,
//! within each drawn launch, its repetitions with replacement (Davison and Hinkley 1997,
//! *Bootstrap Methods and their Application*, §3.8, "hierarchical data"; Saravanan, Berman
//! and Sober 2020, "Application of the hierarchical bootstrap to multi-level data in
//! neuroscience", Neurons, Behavior, Data analysis and Theory 3(5)). Drawing the launches
//! carries the launch-to-launch variation into the interval; with few launches the interval
//! is wide (with two, every resample of a single launch is as likely as a mixed one), which
//! is what few launches can say. With one launch the bootstrap is the one of a single
//! sample, draw for draw.

use super::bootstrap::{sorted, ResampleMedian};
use rand::Rng;
use rand_chacha::ChaCha12Rng;

/// A sample of one quantity split by launch. A plain slice (or `Vec`, or array) of values is
/// one launch; a slice of slices (or of `Vec`s) holds one sample per launch, launch 1 first.
/// Samples paired by launch (a baseline and its delayed block, measured in the same
/// launches) have their launches in the same order.
pub trait ByLaunch {
    /// The values of each launch, in launch order.
    fn launches(&self) -> Vec<&[f64]>;
}

impl ByLaunch for [f64] {
    fn launches(&self) -> Vec<&[f64]> {
        vec![self]
    }
}

impl ByLaunch for Vec<f64> {
    fn launches(&self) -> Vec<&[f64]> {
        vec![self]
    }
}

impl<const N: usize> ByLaunch for [f64; N] {
    fn launches(&self) -> Vec<&[f64]> {
        vec![self]
    }
}

impl ByLaunch for [Vec<f64>] {
    fn launches(&self) -> Vec<&[f64]> {
        self.iter().map(Vec::as_slice).collect()
    }
}

impl ByLaunch for Vec<Vec<f64>> {
    fn launches(&self) -> Vec<&[f64]> {
        self.iter().map(Vec::as_slice).collect()
    }
}

impl ByLaunch for [&[f64]] {
    fn launches(&self) -> Vec<&[f64]> {
        self.to_vec()
    }
}

/// The samples of one measurement, by launch (`[launch][sample]`), and the statistic of one
/// launch from the medians of its samples (taken in the order given).
pub(super) struct Study<'a> {
    launches: Vec<Vec<&'a [f64]>>,
    per_launch: PerLaunch<'a>,
}

/// The statistic of one launch from its samples' medians.
type PerLaunch<'a> = Box<dyn Fn(&[f64]) -> f64 + 'a>;

impl<'a> Study<'a> {
    /// The study of `samples`, paired by launch, with `per_launch` the statistic of one
    /// launch from its samples' medians (in the order of `samples`). `None` when the samples
    /// have no launch or different numbers of launches.
    pub(super) fn of<const N: usize>(
        samples: [Vec<&'a [f64]>; N],
        per_launch: impl Fn([f64; N]) -> f64 + 'a,
    ) -> Option<Study<'a>> {
        let by_sample = samples;
        let n = by_sample.first().map_or(0, Vec::len);
        if n == 0 || by_sample.iter().any(|l| l.len() != n) {
            return None;
        }
        let launches = (0..n)
            .map(|l| by_sample.iter().map(|s| s[l]).collect())
            .collect();
        let per_launch = Box::new(move |m: &[f64]| per_launch(std::array::from_fn(|i| m[i])));
        Some(Study {
            launches,
            per_launch,
        })
    }

    /// The study without its launches that have a sample of fewer than `least` values: a
    /// launch in which the scheduler left a configuration too few valid repetitions (4 ranks
    /// on 2 cores left one launch of five 3 valid of 100) says nothing about its own median,
    /// and would otherwise void the interval of every other launch. `None` when no launch is
    /// left, or when a study of several launches keeps fewer than two (an interval from one
    /// launch of several would claim the precision of one launch). The decision then rests on
    /// the launches kept; the launches that were thin are the noisiest, so the interval is,
    /// if anything, narrower than all launches would give.
    pub(super) fn thinned(mut self, least: usize) -> Option<Study<'a>> {
        let before = self.launches.len();
        self.launches
            .retain(|samples| samples.iter().all(|s| s.len() >= least));
        let kept = self.launches.len();
        (kept > 0 && (before < 2 || kept >= 2)).then_some(self)
    }

    /// The fewest values of any sample in any launch.
    pub(super) fn fewest(&self) -> usize {
        self.launches
            .iter()
            .flatten()
            .map(|s| s.len())
            .min()
            .unwrap_or(0)
    }

    /// Every sample of every launch, sorted (`[launch][sample]`), for [`ResampleMedian`].
    pub(super) fn sorted(&self) -> Vec<Vec<Vec<f64>>> {
        self.launches
            .iter()
            .map(|samples| samples.iter().map(|s| sorted(s)).collect())
            .collect()
    }

    /// One resample of the study's statistic, `medians` its samples' resample medians
    /// (`[launch][sample]`, of [`Study::sorted`]): with one launch, the statistic of one
    /// resample of each sample (in order); with L launches, L launches drawn with
    /// replacement, the statistic of each from one resample of its samples, and the median
    /// of the L values.
    pub(super) fn draw(&self, medians: &[Vec<ResampleMedian>], rng: &mut ChaCha12Rng) -> f64 {
        let one = |launch: &[ResampleMedian], rng: &mut ChaCha12Rng| {
            let m: Vec<f64> = launch.iter().map(|s| s.draw(rng)).collect();
            (self.per_launch)(&m)
        };
        if let [launch] = medians {
            return one(launch, rng);
        }
        let mut values: Vec<f64> = (0..medians.len())
            .map(|_| {
                let l = rng.random_range(0..medians.len());
                one(&medians[l], rng)
            })
            .collect();
        median_of(&mut values)
    }

    /// Each launch's statistic from its own medians, in launch order; `None` when a sample
    /// of a launch is empty.
    pub(super) fn launch_values(&self) -> Option<Vec<f64>> {
        self.launches
            .iter()
            .map(|samples| {
                let m: Option<Vec<f64>> = samples.iter().map(|s| super::median(s)).collect();
                m.map(|m| (self.per_launch)(&m))
            })
            .collect()
    }

    /// The number of launches.
    pub(super) fn len(&self) -> usize {
        self.launches.len()
    }

    /// The study's statistic on the data itself: each launch's statistic from its own
    /// medians, and their median over launches (the point the interval of
    /// [`Study::draw`]'s resamples belongs to).
    pub(super) fn point(&self) -> Option<f64> {
        Some(median_of(&mut self.launch_values()?))
    }
}

/// The distribution-free interval of the median of `values` at `level` (Le Boudec 2010,
/// *Performance Evaluation of Computer and Communication Systems*, §2.2.1): the j-th and
/// (n + 1 − j)-th smallest, j the largest index with P(Binomial(n, ½) ≤ j − 1) ≤ (1 −
/// level) / 2; for n too small for any such j (n < 6 at 95 %), the range of the values,
/// which then covers the median with only 1 − 2 · 0.5^n (94 % for five launches). `None` for
/// no value.
pub(super) fn order_statistic_interval(values: &[f64], level: f64) -> Option<(f64, f64)> {
    use statrs::distribution::{Binomial, DiscreteCDF};
    let v = sorted(values);
    let n = v.len();
    if n == 0 {
        return None;
    }
    let alpha = (1.0 - level) / 2.0;
    let binomial = Binomial::new(0.5, n as u64).ok()?;
    let j = (1..=n.div_ceil(2))
        .take_while(|&j| binomial.cdf(j as u64 - 1) <= alpha)
        .last()
        .unwrap_or(1);
    Some((v[j - 1], v[n - j]))
}

/// The median of `values` (the mean of the middle two for an even count), as
/// [`super::median`] defines it; reorders `values`. NaN for none.
fn median_of(values: &mut [f64]) -> f64 {
    values.sort_unstable_by(f64::total_cmp);
    let n = values.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => values[n / 2],
        _ => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The statistic over launches on the data itself: each launch's `per_launch` of its
/// samples' medians (samples paired by launch, in the order given), and the median of those
/// over launches; with one launch, `per_launch` of its medians. The point the intervals of
/// [`super::Bootstrap`] belong to. `None` when a sample of a launch is empty, or the samples
/// have different numbers of launches.
pub fn over_launches<const N: usize>(
    samples: [&dyn ByLaunch; N],
    per_launch: impl Fn([f64; N]) -> f64,
) -> Option<f64> {
    Study::of(samples.map(|s| s.launches()), per_launch)?.point()
}

/// The name of the interval method over `launches` launches, as the `analyze` JSON gives it:
/// `percentile` for one launch (its repetitions resampled), `hierarchical percentile`
/// for several (launches, then repetitions within them, resampled).
pub fn interval_method(launches: usize) -> &'static str {
    if launches > 1 {
        "hierarchical percentile"
    } else {
        "percentile"
    }
}

#[cfg(test)]
mod tests {
    use super::super::Bootstrap;

    /// `n` values spread ±`half` around `centre`.
    fn launch(centre: f64, half: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| centre - half + 2.0 * half * i as f64 / (n - 1) as f64)
            .collect()
    }

    #[test]
    fn one_launch_is_the_bootstrap_of_one_sample() {
        let boot = Bootstrap::default();
        let (a, b) = (launch(10.0, 1.0, 41), launch(13.0, 2.0, 40));
        assert_eq!(boot.median_ci(&vec![a.clone()]), boot.median_ci(&a));
        assert_eq!(
            boot.cost_ci(&vec![a.clone()], &vec![b.clone()]),
            boot.cost_ci(&a, &b)
        );
        assert_eq!(
            boot.median_difference_test(&vec![a.clone()], &vec![b.clone()]),
            boot.median_difference_test(&a, &b)
        );
        assert_eq!(super::over_launches([&a, &b], |[x, y]| y - x), Some(3.0));
    }

    #[test]
    fn launches_widen_the_interval_to_their_spread() {
        let boot = Bootstrap::default();
        // Five launches whose medians lie 10, 14, 11, 13, 12 apart, each tight.
        let launches: Vec<Vec<f64>> = [10.0, 14.0, 11.0, 13.0, 12.0]
            .iter()
            .map(|&c| launch(c, 0.1, 51))
            .collect();
        let ci = boot.median_ci(&launches).unwrap();
        assert!(ci.lo <= 10.0 && ci.hi >= 14.0, "{ci:?}");
        let pooled: Vec<f64> = launches.concat();
        let naive = boot.median_ci(&pooled).unwrap();
        assert!(naive.hi - naive.lo < 1.0, "{naive:?}");
        // The point is the median of the launch medians.
        assert_eq!(super::over_launches([&launches], |[m]| m), Some(12.0));
        // Launches that agree give an interval as narrow as their own spread allows.
        let agree: Vec<Vec<f64>> = (0..5).map(|_| launch(12.0, 0.1, 51)).collect();
        let ci = boot.median_ci(&agree).unwrap();
        assert!(ci.hi - ci.lo < 0.05, "{ci:?}");
    }

    #[test]
    fn a_thin_launch_is_left_out_of_the_interval_of_the_others() {
        let boot = Bootstrap::default();
        let kept = vec![
            launch(10.0, 0.1, 51),
            launch(11.0, 0.1, 51),
            launch(12.0, 0.1, 51),
        ];
        let mut with_thin = kept.clone();
        // Far off and too thin to have a median's interval of its own.
        with_thin.push(launch(40.0, 0.1, 3));
        assert_eq!(boot.median_ci(&with_thin), boot.median_ci(&kept));
        assert!(boot.median_ci(&kept).is_some());
        // A baseline thin in one launch drops that launch from the pair.
        let delayed = vec![launch(60.0, 0.1, 51); 4];
        assert_eq!(
            boot.cost_ci(&with_thin, &delayed),
            boot.cost_ci(&kept, &delayed[..3].to_vec())
        );
    }

    #[test]
    fn samples_of_different_launch_counts_or_too_few_values_give_nothing() {
        let boot = Bootstrap::default();
        let two = vec![launch(1.0, 0.1, 9), launch(2.0, 0.1, 9)];
        let three = vec![launch(1.0, 0.1, 9); 3];
        assert_eq!(boot.cost_ci(&two, &three), None);
        let short = vec![launch(1.0, 0.1, 9), launch(2.0, 0.1, 5)];
        assert_eq!(boot.median_ci(&short), None);
        assert_eq!(
            super::over_launches([&Vec::<Vec<f64>>::new()], |[m]| m),
            None
        );
        // One thin launch of one, or of two: nothing (one launch of several is too few).
        assert_eq!(boot.median_ci(&vec![launch(1.0, 0.1, 5)]), None);
        assert_eq!(super::interval_method(1), "percentile");
        assert_eq!(super::interval_method(5), "hierarchical percentile");
    }
}
