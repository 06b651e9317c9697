//! Least-squares straight line, the fitting step of Jones and Koenig's method and of HCA
//! (Hunold and Carpen-Amarie 2015, §2, Algorithm 4 line 20, LINEAR_FIT), with the slope's standard error so that a slope
//! that is only noise is not extrapolated over a run.

use crate::clock::ClockModel;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Two-sided level of the slope's significance test.
pub const SLOPE_TEST_LEVEL: f64 = 0.95;

/// A least-squares line `y = slope · (x − x_mean) + y_mean`. Written around the means so that
/// large x (clock readings of 10^5 s) lose no precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearFit {
    /// Slope dy/dx (for clock offsets vs local time: s/s).
    pub slope: f64,
    /// Mean of the x values (seconds of local time for clock fits).
    pub x_mean: f64,
    /// Mean of the y values; the line passes through (x_mean, y_mean).
    pub y_mean: f64,
    /// Standard error of the slope from the residuals, sqrt(Σr²/(n−2) / Σ(x−x̄)²); infinite
    /// with two points (no residual degrees of freedom).
    pub slope_se: f64,
    /// Number of points.
    pub n: usize,
    /// Σ(x − x̄)² (for clock fits: s²): the spread of the fit points in x, which with the
    /// points' scatter sets how well the slope is known.
    pub sxx: f64,
}

impl LinearFit {
    /// The line's value at `x`.
    pub fn at(&self, x: f64) -> f64 {
        self.slope * (x - self.x_mean) + self.y_mean
    }

    /// True when the slope differs from 0 by more than Student's t quantile (two-sided,
    /// [`SLOPE_TEST_LEVEL`], n − 2 degrees of freedom) times its standard error.
    pub fn slope_significant(&self) -> bool {
        if self.n < 3 || !self.slope_se.is_finite() {
            return false;
        }
        if self.slope_se == 0.0 {
            return self.slope != 0.0;
        }
        let t = StudentsT::new(0.0, 1.0, (self.n - 2) as f64)
            .map(|d| d.inverse_cdf(0.5 + SLOPE_TEST_LEVEL / 2.0))
            .unwrap_or(f64::INFINITY);
        self.slope.abs() > t * self.slope_se
    }

    /// The line as a clock model when x is local time and y the offset to the reference
    /// (`t_ref_s = x_mean`, `intercept_s = y_mean`). A slope that is not significant
    /// ([`LinearFit::slope_significant`]) is noise: extrapolated over a run it would invent a
    /// drift (about 1 ppm on one host with shared cores, where the true drift is 0), so the
    /// model then has slope 0 through the mean offset.
    pub fn to_model(&self) -> ClockModel {
        let slope = if self.slope_significant() {
            self.slope
        } else {
            0.0
        };
        ClockModel::through(slope, self.x_mean, self.y_mean)
    }
}

/// Ordinary least squares of `ys` on `xs`: slope = Σ(x−x̄)(y−ȳ) / Σ(x−x̄)². `None` with fewer
/// than two points, different lengths, or when all x are equal.
pub fn linear_fit(xs: &[f64], ys: &[f64]) -> Option<LinearFit> {
    let n = xs.len();
    if n < 2 || ys.len() != n {
        return None;
    }
    let x_mean = xs.iter().sum::<f64>() / n as f64;
    let y_mean = ys.iter().sum::<f64>() / n as f64;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (&x, &y) in xs.iter().zip(ys) {
        sxy += (x - x_mean) * (y - y_mean);
        sxx += (x - x_mean) * (x - x_mean);
    }
    if sxx <= 0.0 || !sxx.is_finite() {
        return None;
    }
    let slope = sxy / sxx;
    let residuals: f64 = xs
        .iter()
        .zip(ys)
        .map(|(&x, &y)| (y - (slope * (x - x_mean) + y_mean)).powi(2))
        .sum();
    let slope_se = if n > 2 {
        (residuals / (n - 2) as f64 / sxx).sqrt()
    } else {
        f64::INFINITY
    };
    Some(LinearFit {
        slope,
        x_mean,
        y_mean,
        slope_se,
        n,
        sxx,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * (1.0 + a.abs().max(b.abs()))
    }

    #[test]
    fn slope_standard_error_by_hand_and_the_significance_test() {
        // (0,0), (1,2), (2,1), (3,3): x̄ = 1.5, ȳ = 1.5, Sxx = 5, Sxy = 4, slope 0.8.
        // Fitted: 0.3, 1.1, 1.9, 2.7; residuals −0.3, 0.9, −0.9, 0.3; Σr² = 1.8.
        // SE = sqrt(1.8 / 2 / 5) = sqrt(0.18) ≈ 0.4243; t(0.975, 2) ≈ 4.303 → 1.826 > 0.8.
        let f = linear_fit(&[0.0, 1.0, 2.0, 3.0], &[0.0, 2.0, 1.0, 3.0]).unwrap();
        assert!(close(f.slope_se, 0.18f64.sqrt()));
        assert!(!f.slope_significant());
        assert_eq!(f.to_model().slope, 0.0);
        assert!(close(f.to_model().offset_at(1.5), 1.5));
        // A clean line of 10 points with tiny noise: significant, kept.
        let xs: Vec<f64> = (0..10).map(f64::from).collect();
        let ys: Vec<f64> = xs
            .iter()
            .map(|x| 2.0 * x + if (*x as i32) % 2 == 0 { 1e-3 } else { -1e-3 })
            .collect();
        let g = linear_fit(&xs, &ys).unwrap();
        assert!(g.slope_significant());
        assert!((g.to_model().slope - 2.0).abs() < 1e-3);
    }

    #[test]
    fn fit_of_three_points_by_hand() {
        // (1,1), (2,3), (3,2): x̄ = 2, ȳ = 2.
        // Sxy = (−1)(−1) + (0)(1) + (1)(0) = 1; Sxx = 1 + 0 + 1 = 2; slope = 1/2.
        // Line: y = 0.5 (x − 2) + 2, so y(0) = 1 and y(4) = 3.
        let f = linear_fit(&[1.0, 2.0, 3.0], &[1.0, 3.0, 2.0]).unwrap();
        assert!(close(f.slope, 0.5));
        assert!(close(f.x_mean, 2.0) && close(f.y_mean, 2.0));
        assert!(close(f.at(0.0), 1.0));
        assert!(close(f.at(4.0), 3.0));
    }

    #[test]
    fn fit_of_four_points_by_hand() {
        // (0,1), (1,1), (2,3), (3,3): x̄ = 1.5, ȳ = 2.
        // dx = −1.5, −0.5, 0.5, 1.5; dy = −1, −1, 1, 1.
        // Sxy = 1.5 + 0.5 + 0.5 + 1.5 = 4; Sxx = 2.25 + 0.25 + 0.25 + 2.25 = 5; slope = 0.8.
        // y(0) = 2 − 0.8·1.5 = 0.8.
        let f = linear_fit(&[0.0, 1.0, 2.0, 3.0], &[1.0, 1.0, 3.0, 3.0]).unwrap();
        assert!(close(f.slope, 0.8));
        assert!(close(f.at(0.0), 0.8));
    }

    #[test]
    fn fit_keeps_precision_at_large_clock_readings() {
        // Offsets 1 ms + 20 ppm · (t − 10^5) at t = 10^5 + k ms: an exact line.
        let xs: Vec<f64> = (0..50).map(|k| 1e5 + k as f64 * 1e-3).collect();
        let ys: Vec<f64> = xs.iter().map(|x| 1e-3 + 20e-6 * (x - 1e5)).collect();
        let f = linear_fit(&xs, &ys).unwrap();
        assert!((f.slope - 20e-6).abs() < 1e-12, "slope {}", f.slope);
        assert!((f.at(1e5) - 1e-3).abs() < 1e-15);
        let m = f.to_model();
        assert!((m.offset_at(1e5 + 10.0) - (1e-3 + 20e-6 * 10.0)).abs() < 1e-14);
    }

    #[test]
    fn degenerate_fits_are_none() {
        assert!(linear_fit(&[1.0], &[2.0]).is_none());
        assert!(linear_fit(&[1.0, 1.0], &[2.0, 3.0]).is_none());
        assert!(linear_fit(&[1.0, 2.0], &[2.0]).is_none());
    }

    #[test]
    fn merge_lms_by_hand() {
        // B to A: o_ba(t_B) = 0.5 (t_B − 10) + 2; C to B: o_cb(t) = 0.25 (t − 20) + 4.
        let ba = ClockModel::through(0.5, 10.0, 2.0);
        let cb = ClockModel::through(0.25, 20.0, 4.0);
        let ca = ba.merge(&cb);
        // slope = 0.5 + 0.25 − 0.5·0.25 = 0.625 (eq. 1).
        assert!(close(ca.slope, 0.625));
        // At t = 20: o_cb = 4, t_B = 16, o_ba(16) = 0.5·6 + 2 = 5, so o_ca = 9.
        assert_eq!(ca.t_ref_s, 20.0);
        assert!(close(ca.intercept_s, 9.0));
        // At t = 28: o_cb = 0.25·8 + 4 = 6, t_B = 22, o_ba(22) = 0.5·12 + 2 = 8, o_ca = 14;
        // the merged line gives 9 + 0.625·8 = 14.
        assert!(close(ca.offset_at(28.0), 14.0));
    }

    #[test]
    fn merge_lms_matches_algorithm_4_with_zero_origins() {
        // Algorithm 4 line 30-31 with t_ref = 0: lm1 = (s 0.5, i 2), lm2 = (s 0.25, i 4):
        // intercept = 2 + 4 − 4·0.5 = 4; slope = 0.5 + 0.25 − 0.125 = 0.625.
        let lm1 = ClockModel::through(0.5, 0.0, 2.0);
        let lm2 = ClockModel::through(0.25, 0.0, 4.0);
        let m = lm1.merge(&lm2);
        assert!(close(m.intercept_s, 4.0));
        assert!(close(m.slope, 0.625));
        // Offset-only models just add (Netgauge, Hoefler et al. 2010, §3.2): 1 ms + 2 ms = 3 ms.
        let sum = ClockModel::offset_only(1e-3).merge(&ClockModel::offset_only(2e-3));
        assert!(close(sum.intercept_s, 3e-3) && sum.slope == 0.0);
    }

    #[test]
    fn merge_lms_composes_true_clocks() {
        // Clocks as functions of true time u: A = u, B = 1.00002 u + 0.3, C = 0.99997 u − 1.
        let (ra, oa) = (1.0, 0.0);
        let (rb, ob) = (1.00002, 0.3);
        let (rc, oc) = (0.99997, -1.0);
        // Exact models: offset of X to Y as a function of X's reading x: x − Y(u(x)).
        // Y(u(x)) = ry (x − ox)/rx + oy, so the offset has slope 1 − ry/rx.
        let model = |rx: f64, ox: f64, ry: f64, oy: f64, at: f64| {
            let off = |x: f64| x - (ry * (x - ox) / rx + oy);
            ClockModel::through(1.0 - ry / rx, at, off(at))
        };
        let ba = model(rb, ob, ra, oa, 500.0);
        let cb = model(rc, oc, rb, ob, 700.0);
        let ca = ba.merge(&cb);
        let exact = model(rc, oc, ra, oa, 700.0);
        for x in [0.0, 700.0, 1e5] {
            assert!(
                (ca.offset_at(x) - exact.offset_at(x)).abs() < 1e-9,
                "at {x}: {} vs {}",
                ca.offset_at(x),
                exact.offset_at(x)
            );
        }
    }
}
