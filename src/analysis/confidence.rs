//! Student's t confidence interval of a mean, the stopping rule of adaptive repetitions
//! (Lastovetsky, Rychkov and O'Flynn 2008, §3).

use statrs::distribution::{ContinuousCDF, StudentsT};
use statrs::statistics::Statistics;

/// Half-width of the two-sided Student's t confidence interval at `level` (e.g. 0.95) of the
/// mean of `samples`, divided by that mean (dimensionless). `None` with fewer than 2 samples
/// or a mean that is not positive.
pub fn ci_rel_half_width(samples: &[f64], level: f64) -> Option<f64> {
    let n = samples.len();
    let mean = samples.iter().mean();
    if n < 2 || mean.is_nan() || mean <= 0.0 {
        return None;
    }
    let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .ok()?
        .inverse_cdf(0.5 + level / 2.0);
    Some(t * samples.iter().std_dev() / (n as f64).sqrt() / mean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_width_by_hand() {
        // Mean 10, sample standard deviation 2 (values 8, 10, 12 -> s^2 = (4 + 0 + 4) / 2),
        // t(0.975, 2 df) = 4.302653: half-width 4.302653 * 2 / sqrt(3) = 4.968275.
        let rel = ci_rel_half_width(&[8.0, 10.0, 12.0], 0.95).unwrap();
        assert!((rel - 0.4968275).abs() < 1e-6, "{rel}");
        // A wider level widens the interval.
        assert!(ci_rel_half_width(&[8.0, 10.0, 12.0], 0.99).unwrap() > rel);
        assert_eq!(ci_rel_half_width(&[1.0], 0.95), None);
        assert_eq!(ci_rel_half_width(&[5.0, 5.0], 0.95), Some(0.0));
    }
}
