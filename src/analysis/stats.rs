//! Descriptive statistics of one sample (the valid t_globals of a configuration), through
//! `statrs`: order statistics, mean, interquartile mean, standard deviation, and the Tukey
//! classification of outliers.

use serde::Serialize;
use statrs::statistics::{Data, Median, Min, OrderStatistics, Statistics};

/// Smallest value, or `None` for an empty slice (no valid repetitions).
pub fn minimum(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| Data::new(values.to_vec()).min())
}

/// Median (mean of the two middle values for even counts), or `None` for an empty slice.
pub fn median(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| Data::new(values.to_vec()).median())
}

/// Outliers by Tukey's fences (Tukey 1977, *Exploratory Data Analysis*; criterion classifies
/// its samples the same way). With IQR = q3 − q1, a value is a *mild* outlier beyond
/// q1 − 1.5·IQR or q3 + 1.5·IQR and a *severe* one beyond 3·IQR. They are counted, never
/// dropped: every statistic uses every valid repetition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Outliers {
    /// Values below q1 − 1.5·IQR (severe ones included).
    pub low: u32,
    /// Values above q3 + 1.5·IQR (severe ones included).
    pub high: u32,
    /// Values beyond 3·IQR on either side (a subset of `low` + `high`).
    pub severe: u32,
}

/// Descriptive statistics of one sample; values keep their unit (seconds for t_global).
///
/// Quantiles are statrs' `OrderStatistics::quantile`, the R type 8 estimator (Hyndman and Fan
/// 1996), so q1/q3 match R's `quantile(x, type = 8)` and pandas needs `method="median_unbiased"`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SampleStats {
    /// Number of values.
    pub n: usize,
    pub min: f64,
    /// Lower quartile (25th percentile).
    pub q1: f64,
    pub median: f64,
    /// Upper quartile (75th percentile).
    pub q3: f64,
    pub max: f64,
    pub mean: f64,
    /// Interquartile mean: the mean of the sorted values left after dropping ⌊n/4⌋ from each
    /// end (the 25 %-trimmed mean); robust like the median, but uses more of the data.
    pub iqm: f64,
    /// Sample standard deviation (n − 1 in the denominator); 0 for one value.
    pub std_dev: f64,
    pub outliers: Outliers,
}

/// The [`SampleStats`] of `values`, or `None` when it is empty. Non-finite values are not
/// expected (t_global of a valid repetition is finite) and would propagate into the result.
pub fn describe(values: &[f64]) -> Option<SampleStats> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let mut data = Data::new(sorted.clone());
    let (q1, q3) = (data.quantile(0.25), data.quantile(0.75));
    let trim = n / 4;
    let std_dev = if n > 1 { values.iter().std_dev() } else { 0.0 };
    Some(SampleStats {
        n,
        min: sorted[0],
        q1,
        median: data.median(),
        q3,
        max: sorted[n - 1],
        mean: values.iter().mean(),
        iqm: sorted[trim..n - trim].iter().mean(),
        std_dev,
        outliers: tukey(&sorted, q1, q3),
    })
}

fn tukey(values: &[f64], q1: f64, q3: f64) -> Outliers {
    let iqr = q3 - q1;
    let mut o = Outliers::default();
    for &v in values {
        if v < q1 - 1.5 * iqr {
            o.low += 1;
        } else if v > q3 + 1.5 * iqr {
            o.high += 1;
        }
        if v < q1 - 3.0 * iqr || v > q3 + 3.0 * iqr {
            o.severe += 1;
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn order_statistics() {
        assert_eq!(minimum(&[3.0, 1.0, 2.0]), Some(1.0));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert_eq!(minimum(&[]), None);
    }

    #[test]
    fn describe_by_hand() {
        // 1..=8 and one far value: n = 9, sorted 1 2 3 4 5 6 7 8 100.
        let v = [5.0, 1.0, 100.0, 3.0, 2.0, 8.0, 4.0, 7.0, 6.0];
        let s = describe(&v).unwrap();
        assert_eq!((s.n, s.min, s.median, s.max), (9, 1.0, 5.0, 100.0));
        // h = (n + 1/3) p + 1/3 = 8/3 for p = 1/4 -> x2 + 2/3 (x3 - x2) = 8/3;
        // h = 22/3 for p = 3/4 -> x7 + 1/3 (x8 - x7) = 22/3.
        assert!(close(s.q1, 8.0 / 3.0) && close(s.q3, 22.0 / 3.0), "{s:?}");
        assert!(close(s.mean, 136.0 / 9.0), "{s:?}");
        // Drop 2 from each end: 3 4 5 6 7.
        assert!(close(s.iqm, 5.0), "{s:?}");
        // Sum of squared deviations from 136/9, over n - 1 = 8.
        let m = 136.0 / 9.0;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / 8.0;
        assert!(close(s.std_dev, var.sqrt()), "{s:?}");
        // IQR 14/3: fences 8/3 - 7 and 22/3 + 7 = 43/3 (mild), 22/3 + 14 = 64/3 (severe).
        assert_eq!(
            s.outliers,
            Outliers {
                low: 0,
                high: 1,
                severe: 1
            }
        );
    }

    #[test]
    fn one_value_and_nothing() {
        let s = describe(&[2.5]).unwrap();
        assert_eq!((s.n, s.q1, s.q3, s.iqm, s.std_dev), (1, 2.5, 2.5, 2.5, 0.0));
        assert_eq!(s.outliers, Outliers::default());
        assert_eq!(describe(&[]), None);
    }

    #[test]
    fn mild_low_outlier_is_not_severe() {
        // 10 x 10.0 .. 13.0 spread and one value 5 below: beyond 1.5 IQR, inside 3 IQR.
        let mut v: Vec<f64> = (0..12).map(|i| 10.0 + (i % 4) as f64).collect();
        let s0 = describe(&v).unwrap();
        let iqr = s0.q3 - s0.q1;
        v.push(s0.q1 - 2.0 * iqr);
        let s = describe(&v).unwrap();
        assert_eq!(
            (s.outliers.low, s.outliers.high, s.outliers.severe),
            (1, 0, 0)
        );
    }
}
