//! Trend of t_global over a run: does the measured time creep up as clocks drift apart?
//! (Hunold and Carpen-Amarie 2015, §5, Figures 1 and 7.)

use super::{median, t_global};
use crate::clock::linear_fit;
use crate::records::Block;
use serde::Serialize;

/// Least-squares trend of t_global against the repetition's start time within one block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trend {
    /// Change of t_global per second of run time (s/s; 1e-6 = 1 us more per second).
    pub slope: f64,
    /// Seconds between the first and the last valid repetition.
    pub span_s: f64,
    /// Median t_global of the first and of the last tenth of the valid repetitions, seconds.
    pub first_median_s: f64,
    pub last_median_s: f64,
    /// Valid repetitions used.
    pub n: u32,
}

/// The trend over the valid repetitions of `block`, against each repetition's earliest
/// global start; `None` with fewer than 10 valid repetitions.
pub fn t_global_trend(block: &Block) -> Option<Trend> {
    let p = block.nprocs as usize;
    let points: Vec<(f64, f64)> = (0..block.nrep as usize)
        .filter(|&rep| block.rep_valid(rep))
        .map(|rep| {
            let starts = &block.t_start_global_s.0[rep * p..(rep + 1) * p];
            (
                starts.iter().copied().fold(f64::INFINITY, f64::min),
                t_global(block, rep),
            )
        })
        .collect();
    if points.len() < 10 {
        return None;
    }
    let x0 = points[0].0;
    let xs: Vec<f64> = points.iter().map(|(x, _)| x - x0).collect();
    let ys: Vec<f64> = points.iter().map(|(_, y)| *y).collect();
    let fit = linear_fit(&xs, &ys)?;
    let tenth = (points.len() / 10).max(1);
    Some(Trend {
        slope: fit.slope,
        span_s: xs[xs.len() - 1],
        first_median_s: median(&ys[..tenth])?,
        last_median_s: median(&ys[ys.len() - tenth..])?,
        n: points.len() as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    #[test]
    fn a_creeping_t_global_has_a_positive_slope() {
        // testdata: t_global grows by op_time/10 per repetition, repetitions 1 ms apart:
        // slope = (10 us / 10) / 1 ms = 1e-3 s/s.
        let b = testdata::block(Op::Allreduce, 8, 2, 0.0, 30, 10e-6);
        let t = t_global_trend(&b).unwrap();
        assert!((t.slope - 1e-3).abs() < 1e-9, "{}", t.slope);
        assert_eq!(t.n, 29);
        assert!(t.last_median_s > t.first_median_s);
        let short = testdata::block(Op::Allreduce, 8, 2, 0.0, 5, 10e-6);
        assert!(t_global_trend(&short).is_none());
    }
}
