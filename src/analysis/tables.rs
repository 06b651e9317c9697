//! Rows for `delaybench analyze --distribution` and `--trend`: one per delayed block.

use super::{distribution, noise_effect, rep_benefits, t_global_trend};
use crate::plan::Op;
use crate::records::{Block, Records};
use serde::Serialize;

/// Distribution of the per-repetition delay overlap benefit of one delayed block, and its
/// noise amplification (see [`super::rep_benefits`] and [`super::noise_effect`]).
/// Benefits are fractions (1 = delay hidden completely), times seconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DistributionRow {
    pub op: Op,
    pub bytes: u64,
    pub nprocs: u32,
    /// Delay model label (`50us`, `exp:20us`).
    pub delay_model: String,
    /// Valid repetitions with a benefit.
    pub n: u32,
    pub benefit_mean: f64,
    pub benefit_p5: f64,
    pub benefit_p25: f64,
    pub benefit_median: f64,
    pub benefit_p75: f64,
    pub benefit_p95: f64,
    /// Noise amplification A; 1 = the noise adds its mean per-rank amount.
    pub amplification: Option<f64>,
    /// A of an operation that waits for the slowest rank and hides nothing.
    pub wait_for_slowest: Option<f64>,
}

/// t_global trend of one block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrendRow {
    pub op: Op,
    pub bytes: u64,
    pub nprocs: u32,
    pub delay_model: String,
    /// Valid repetitions used.
    pub n: u32,
    /// Seconds of run time covered.
    pub span_s: f64,
    /// Change of t_global per second of run (s/s).
    pub slope: f64,
    /// Median t_global of the first and last tenth of the repetitions, seconds.
    pub first_median_s: f64,
    pub last_median_s: f64,
}

/// One [`DistributionRow`] per delayed block that has a baseline with valid repetitions.
pub fn distribution_rows(records: &Records) -> Vec<DistributionRow> {
    records
        .blocks
        .iter()
        .filter(|b| b.delay_s > 0.0)
        .filter_map(|block| {
            let baseline = baseline_of(records, block)?;
            let d = distribution(&rep_benefits(block, baseline))?;
            let noise = noise_effect(block, baseline);
            Some(DistributionRow {
                op: block.op,
                bytes: block.bytes,
                nprocs: block.nprocs,
                delay_model: block.delay_model.clone(),
                n: d.n as u32,
                benefit_mean: d.mean,
                benefit_p5: d.p5,
                benefit_p25: d.p25,
                benefit_median: d.median,
                benefit_p75: d.p75,
                benefit_p95: d.p95,
                amplification: noise.as_ref().map(|n| n.amplification),
                wait_for_slowest: noise.map(|n| n.wait_for_slowest),
            })
        })
        .collect()
}

/// One [`TrendRow`] per block with at least 10 valid repetitions.
pub fn trend_rows(records: &Records) -> Vec<TrendRow> {
    records
        .blocks
        .iter()
        .filter_map(|block| {
            let t = t_global_trend(block)?;
            Some(TrendRow {
                op: block.op,
                bytes: block.bytes,
                nprocs: block.nprocs,
                delay_model: block.delay_model.clone(),
                n: t.n,
                span_s: t.span_s,
                slope: t.slope,
                first_median_s: t.first_median_s,
                last_median_s: t.last_median_s,
            })
        })
        .collect()
}

fn baseline_of<'a>(records: &'a Records, block: &Block) -> Option<&'a Block> {
    records.blocks.iter().find(|b| {
        b.delay_s == 0.0 && b.op == block.op && b.bytes == block.bytes && b.nprocs == block.nprocs
    })
}
