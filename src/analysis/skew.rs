//! Exit skew of a barrier: how far after the first rank each rank leaves it
//! (Hunold and Carpen-Amarie 2015, §4, Figure 4).

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};
use statrs::statistics::Statistics;

/// One rank's exit time relative to the first rank to leave, over repetitions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExitSkew {
    /// Rank within the measured communicator.
    pub rank: u32,
    /// Mean of (exit time − earliest exit of the repetition), seconds.
    pub mean_s: f64,
    /// Half-width of the 95 % confidence interval of that mean (Student's t), seconds.
    pub ci95_s: f64,
    /// Largest value seen, seconds.
    pub max_s: f64,
    /// Repetitions used.
    pub n: u32,
}

/// Per-rank exit skew from global exit times `exits_s` of shape `[nrep][p]` (seconds).
pub fn exit_skew(exits_s: &[f64], p: usize) -> Vec<ExitSkew> {
    let rows: Vec<&[f64]> = exits_s.chunks_exact(p).collect();
    let relative: Vec<Vec<f64>> = rows
        .iter()
        .map(|row| {
            let first = row.iter().copied().fold(f64::INFINITY, f64::min);
            row.iter().map(|e| e - first).collect()
        })
        .collect();
    (0..p)
        .map(|rank| {
            let values: Vec<f64> = relative.iter().map(|row| row[rank]).collect();
            let n = values.len();
            let mean = values.iter().mean();
            let ci95 = if n > 1 {
                let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
                    .expect("n > 1 degrees of freedom")
                    .inverse_cdf(0.975);
                t * values.iter().std_dev() / (n as f64).sqrt()
            } else {
                f64::NAN
            };
            ExitSkew {
                rank: rank as u32,
                mean_s: mean,
                ci95_s: ci95,
                max_s: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                n: n as u32,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skew_is_relative_to_the_first_exit() {
        // Two reps, three ranks; rank 1 always leaves first.
        // Rep 0 exits: 10, 8, 12 -> relative 2, 0, 4. Rep 1: 20, 19, 25 -> 1, 0, 6.
        let exits = [10.0, 8.0, 12.0, 20.0, 19.0, 25.0];
        let s = exit_skew(&exits, 3);
        assert_eq!(s[1].mean_s, 0.0);
        assert_eq!(s[0].mean_s, 1.5);
        assert_eq!(s[2].mean_s, 5.0);
        assert_eq!(s[2].max_s, 6.0);
        // sd of {4, 6} = sqrt(2); t(0.975, 1 dof) = 12.706; ci = 12.706 * sqrt(2) / sqrt(2).
        assert!((s[2].ci95_s - 12.706).abs() < 1e-3, "{}", s[2].ci95_s);
    }
}
