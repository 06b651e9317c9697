//! One summary row per (op, bytes, P, δ): valid/total, t_global and the delay overlap benefit.

use super::{median, minimum, valid_t_globals};
use crate::plan::Op;
use crate::records::{Block, Records};
use serde::Serialize;

/// Summary of one configuration. Times in seconds; `None` where there is nothing to compute
/// (no valid repetitions, no baseline, or the baseline row itself for the benefit).
///
/// Field names are the CSV/JSON column names of `delaybench analyze`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SummaryRow {
    pub op: Op,
    /// Message size in bytes (0 for barriers).
    pub bytes: u64,
    /// P, the number of processes.
    pub nprocs: u32,
    /// Nominal delay δ in seconds (0 = undelayed baseline; the mean of a sampled model).
    pub delay_s: f64,
    /// The delay model's label (`50us`, `exp:20us`); not a CSV column.
    #[serde(skip)]
    pub delay_model: String,
    /// Repetitions without flags.
    pub valid: u32,
    /// Repetitions measured.
    pub total: u32,
    /// Minimum t_global over valid repetitions (002 eq. 4).
    pub t_global_min_s: Option<f64>,
    /// Median t_global over valid repetitions.
    pub t_global_median_s: Option<f64>,
    /// Minimum t_global of the same (op, bytes, P) with δ = 0.
    pub t0_min_s: Option<f64>,
    /// Median t_global of the same (op, bytes, P) with δ = 0.
    pub t0_median_s: Option<f64>,
    /// Delay overlap benefit from minima, as the paper reports it (002 eq. 5). Only for plain
    /// late arrivals ([`Block::is_late_arrival`]); sampled delays have a distribution instead
    /// (`analyze --distribution`, [`super::rep_benefits`]).
    pub benefit_min: Option<f64>,
    /// Delay overlap benefit from medians.
    pub benefit_median: Option<f64>,
}

/// Delay overlap benefit b = (t0 + δ − tδ) / tδ (002 eq. 5): 1 hides the delay completely up
/// to t0, 0 means the delay just adds, < 0 costs extra. All arguments in seconds.
pub fn benefit(t0_s: f64, t_delayed_s: f64, delay_s: f64) -> f64 {
    (t0_s + delay_s - t_delayed_s) / t_delayed_s
}

/// One row per block of `records`, in measurement order. Each delayed block is compared with
/// the baseline block (δ = 0) of the same op, bytes and P; where there are several, the first.
pub fn summarize(records: &Records) -> Vec<SummaryRow> {
    records
        .blocks
        .iter()
        .map(|block| {
            let baseline = records.blocks.iter().find(|b| {
                b.delay_s == 0.0
                    && b.op == block.op
                    && b.bytes == block.bytes
                    && b.nprocs == block.nprocs
            });
            row(block, baseline)
        })
        .collect()
}

fn row(block: &Block, baseline: Option<&Block>) -> SummaryRow {
    let ts = valid_t_globals(block);
    let t0s = baseline.map(valid_t_globals).unwrap_or_default();
    let (t_min, t_med) = (minimum(&ts), median(&ts));
    let (t0_min, t0_med) = (minimum(&t0s), median(&t0s));
    let delayed = block.is_late_arrival();
    let b = |t0: Option<f64>, t: Option<f64>| match (t0, t) {
        (Some(t0), Some(t)) if delayed => Some(benefit(t0, t, block.delay_s)),
        _ => None,
    };
    SummaryRow {
        op: block.op,
        bytes: block.bytes,
        nprocs: block.nprocs,
        delay_s: block.delay_s,
        delay_model: block.delay_model.clone(),
        valid: ts.len() as u32,
        total: block.nrep,
        t_global_min_s: t_min,
        t_global_median_s: t_med,
        t0_min_s: t0_min,
        t0_median_s: t0_med,
        benefit_min: b(t0_min, t_min),
        benefit_median: b(t0_med, t_med),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::testdata;

    #[test]
    fn benefit_formula() {
        // Delay hidden completely: t_delta = t0 -> b = delta / t0.
        assert!((benefit(10e-6, 10e-6, 10e-6) - 1.0).abs() < 1e-12);
        // Delay just adds: t_delta = t0 + delta -> b = 0.
        assert!(benefit(10e-6, 60e-6, 50e-6).abs() < 1e-12);
        // Delay costs extra -> b < 0.
        assert!(benefit(10e-6, 80e-6, 50e-6) < 0.0);
    }

    #[test]
    fn summary_joins_the_baseline() {
        let records = Records {
            header: testdata::header(2),
            blocks: vec![
                testdata::block(Op::Allreduce, 8, 2, 0.0, 5, 10e-6),
                testdata::block(Op::Allreduce, 8, 2, 50e-6, 5, 10e-6),
            ],
            footer: None,
            truncated: false,
        };
        let rows = summarize(&records);
        assert_eq!(rows.len(), 2);
        let (base, late) = (&rows[0], &rows[1]);
        assert_eq!((base.valid, base.total), (4, 5));
        assert_eq!(base.benefit_min, None);
        // Valid reps 0, 2, 3, 4: t = 10, 12, 13, 14 us (+50 us when delayed).
        assert!((late.t_global_min_s.unwrap() - 60e-6).abs() < 1e-12);
        assert!((late.t_global_median_s.unwrap() - 62.5e-6).abs() < 1e-12);
        assert!((late.t0_median_s.unwrap() - 12.5e-6).abs() < 1e-12);
        assert!(late.benefit_min.unwrap().abs() < 1e-9);
        assert!(late.benefit_median.unwrap().abs() < 1e-9);
    }
}
