//! Rows for `delaybench analyze --distribution` and `--trend`: one per delayed block.

use super::{distribution, t_global_trend, BaselineT0, BlockTimes, ValidReps};
use crate::plan::Op;
use crate::records::{Block, Records};
use crate::timeline::{Baselines, Configuration};
use serde::Serialize;

/// Distribution of the per-repetition delay overlap benefit of one delayed block, and, for
/// noise blocks only ([`is_noise`]), its noise amplification (see [`super::rep_benefits`] and
/// [`super::noise_effect`]). Benefits are fractions, times seconds.
///
/// Both metrics are delaybench's own extensions, not from the papers: b_i applies eq. 5 of Niethammer et al. 2016
/// per repetition, and the amplification follows the noise studies that paper cites (Hoefler,
/// Schneider and Lumsdaine 2009; Ferreira et al. 2013) without reproducing their method.
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
    /// Noise amplification A; 1 = the noise adds its mean per-rank amount. `None` unless
    /// every rank was delayed ([`is_noise`]): with one late rank the mean per-rank delay is
    /// δ/P and A just restates the benefit (A = P for b = 0).
    pub amplification: Option<f64>,
    /// A of an operation that waits for the slowest rank and hides nothing (noise blocks).
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
    let mut rows = DistributionRows::default();
    for b in &records.blocks {
        rows.add(b);
    }
    rows.finish()
}

/// [`distribution_rows`] of a file read once, block by block: each baseline keeps its
/// [`BaselineT0`] (two numbers), and a delayed block becomes its row at once when its
/// baseline came first, as a run writes them; only a delayed block read before its baseline
/// keeps its [`ValidReps`] (32 bytes per repetition) until the pass ends. Keeping them for
/// every delayed block took 100 MB at 10^8 events, half of what `plot` may use.
#[derive(Debug, Default)]
pub struct DistributionRows {
    baselines: Baselines<Option<BaselineT0>>,
    delayed: Vec<Delayed>,
}

/// A delayed block of the pass, in file order.
#[derive(Debug)]
enum Delayed {
    /// Its row, from a baseline read before it (`None`: no repetition gave a benefit).
    Row(Option<DistributionRow>),
    /// Its baseline was not read yet.
    Pending(Head, ValidReps),
}

/// A delayed block's configuration, as its row names it.
#[derive(Debug)]
struct Head {
    op: Op,
    bytes: u64,
    nprocs: u32,
    delay_s: f64,
    delay_model: String,
    noise: bool,
    algorithm: String,
}

crate::timeline::pairing::configuration!(Head);

impl Head {
    fn of(block: &Block) -> Self {
        Head {
            op: block.op,
            bytes: block.bytes,
            nprocs: block.nprocs,
            delay_s: block.delay_s,
            delay_model: block.delay_model.clone(),
            noise: is_noise(block),
            algorithm: block.algorithm_name().to_string(),
        }
    }
}

impl DistributionRows {
    /// Takes the next block of the pass.
    pub fn add(&mut self, block: &Block) {
        self.add_with(block, &BlockTimes::of(block));
    }

    /// [`DistributionRows::add`] of a block whose valid repetitions and t_globals are `times`.
    pub fn add_with(&mut self, block: &Block, times: &BlockTimes) {
        self.baselines
            .offer(block, || Some(BaselineT0::of(&times.t_globals)));
        // Overlap mode: the punctual ranks compute δ longer, so b_i ≤ 0 by construction
        // (docs/metrics.md); such blocks get no row.
        if !block.is_baseline() && block.overlap.is_none() {
            let head = Head::of(block);
            // The first baseline of a key is the one every block of it pairs with, so a row
            // made now is the row the end of the pass would make.
            let reps = ValidReps::with_times(block, times);
            self.delayed.push(match self.baselines.of(&head) {
                Some(t0) => Delayed::Row(row(&head, &reps, t0.as_ref())),
                None => Delayed::Pending(head, reps),
            });
        }
    }

    /// The rows, in the order of the delayed blocks.
    pub fn finish(self) -> Vec<DistributionRow> {
        self.delayed
            .into_iter()
            .filter_map(|d| match d {
                Delayed::Row(r) => r,
                Delayed::Pending(head, reps) => {
                    let t0 = self.baselines.of(&head)?;
                    row(&head, &reps, t0.as_ref())
                }
            })
            .collect()
    }
}

/// The [`DistributionRow`] of one delayed `block` against its baseline, given as the
/// t_globals of the baseline's valid repetitions (seconds). `None` for an undelayed block or
/// when no repetition gives a benefit.
pub fn distribution_row(block: &Block, baseline_t0s: &[f64]) -> Option<DistributionRow> {
    let head = Head::of(block);
    row(
        &head,
        &ValidReps::of(block),
        BaselineT0::of(baseline_t0s).as_ref(),
    )
}

/// The row of a delayed block against its baseline's [`BaselineT0`] (`None`: the baseline
/// has no valid repetition, so no repetition has a benefit).
fn row(head: &Head, reps: &ValidReps, t0: Option<&BaselineT0>) -> Option<DistributionRow> {
    if head.delay_s <= 0.0 {
        return None;
    }
    let t0 = t0?;
    let d = distribution(&reps.benefits_against(t0))?;
    let noise = head.noise.then(|| reps.noise_effect_against(t0)).flatten();
    Some(DistributionRow {
        op: head.op,
        bytes: head.bytes,
        nprocs: head.nprocs,
        delay_model: head.delay_model.clone(),
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
}

/// True for a noise block: every rank of it is among its delayed ranks (`--delay-rank all`,
/// or a list naming every rank), so delays hit all ranks rather than a few late arrivals.
pub fn is_noise(block: &Block) -> bool {
    block.delay_s > 0.0 && (0..block.nprocs).all(|r| block.delayed_ranks.contains(&r))
}

/// One [`TrendRow`] per block with at least 10 valid repetitions.
pub fn trend_rows(records: &Records) -> Vec<TrendRow> {
    records.blocks.iter().filter_map(trend_row).collect()
}

/// The [`TrendRow`] of one block (each block's trend uses that block alone, so `--trend`
/// reads block by block); `None` with fewer than 10 valid repetitions.
pub fn trend_row(block: &Block) -> Option<TrendRow> {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::valid_t_globals;
    use crate::records::testdata;

    #[test]
    fn streamed_rows_pair_with_the_first_baseline_whether_it_comes_before_or_after() {
        let late = |rep_time| {
            let mut b = testdata::block(Op::Allreduce, 8, 2, 50e-6, 40, rep_time);
            b.delayed_ranks = vec![0, 1];
            b.applied_delay_s
                .0
                .iter_mut()
                .step_by(2)
                .for_each(|d| *d = 20e-6);
            b
        };
        let (early, later) = (late(9e-6), late(11e-6));
        let base = testdata::block(Op::Allreduce, 8, 2, 0.0, 40, 10e-6);
        // A second baseline of the same configuration, slower: it must not be used.
        let slower = testdata::block(Op::Allreduce, 8, 2, 0.0, 40, 30e-6);
        let mut rows = DistributionRows::default();
        for b in [&early, &base, &later, &slower] {
            rows.add(b);
        }
        let t0s = valid_t_globals(&base);
        let want: Vec<DistributionRow> = [&early, &later]
            .iter()
            .filter_map(|b| distribution_row(b, &t0s))
            .collect();
        assert_eq!(want.len(), 2);
        assert!(want.iter().all(|r| r.amplification.is_some()));
        assert_ne!(want[0], want[1]);
        assert_eq!(rows.finish(), want);
        // Against the slower baseline the rows differ, so the pairing above is tested.
        let other = distribution_row(&early, &valid_t_globals(&slower)).unwrap();
        assert_ne!(other, want[0]);
    }

    #[test]
    fn no_per_repetition_benefit_in_overlap_mode() {
        let base = testdata::block(Op::Iallreduce, 8, 2, 0.0, 5, 10e-6);
        let late = testdata::block(Op::Iallreduce, 8, 2, 50e-6, 5, 10e-6);
        let plain = testdata::records(2, vec![base.clone(), late.clone()]);
        assert_eq!(distribution_rows(&plain).len(), 1);
        let overlap = Records {
            blocks: vec![testdata::with_overlap(base), testdata::with_overlap(late)],
            ..plain
        };
        assert!(distribution_rows(&overlap).is_empty());
    }

    #[test]
    fn amplification_only_for_noise_blocks() {
        let base = testdata::block(Op::Allreduce, 8, 2, 0.0, 5, 10e-6);
        let late = testdata::block(Op::Allreduce, 8, 2, 50e-6, 5, 10e-6);
        let mut noise = late.clone();
        noise.delayed_ranks = vec![0, 1];
        for rep in 0..5 {
            let i = noise.idx(rep, 1);
            noise.applied_delay_s.0[i] = 20e-6;
        }
        assert!(!is_noise(&late) && is_noise(&noise) && !is_noise(&base));
        let records = testdata::records(2, vec![base, late, noise]);
        let rows = distribution_rows(&records);
        assert_eq!(rows.len(), 2);
        // One late rank: no amplification (it would print a meaningless P-like bound).
        assert_eq!(
            (rows[0].amplification, rows[0].wait_for_slowest),
            (None, None)
        );
        assert!(rows[1].amplification.is_some() && rows[1].wait_for_slowest.is_some());
    }
}
