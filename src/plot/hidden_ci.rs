//! Bootstrap intervals for the hidden share of a late arrival (the `hidden_vs_p` figure's
//! error bars). The share is δ − (punctual ranks' MPI time − baseline MPI time), clipped to
//! [0, δ], over δ ([`crate::analysis::hidden_delay`]), with both MPI times means over valid
//! repetitions. Each resample draws the repetitions of the delayed block and of its baseline
//! independently, with replacement (percentile bootstrap, Efron and Tibshirani 1993, ch. 13),
//! as the benefit's interval does.

use crate::analysis::{hidden_delay, Bootstrap, Interval};
use crate::plan::Op;
use crate::records::Block;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Normal};

/// Repetitions above which a resample's mean is drawn from its normal approximation
/// (central limit theorem) instead of from that many drawn values, so that a block of
/// millions of repetitions costs O(1) per resample.
const EXACT_MAX: usize = 5000;

/// One overlap block: its configuration and, per valid repetition, the mean MPI time (post +
/// tests + wait) of its punctual ranks (applied delay 0), seconds.
#[derive(Debug, Clone, PartialEq)]
struct Samples {
    op: Op,
    bytes: u64,
    nprocs: u32,
    delay_s: f64,
    late_arrival: bool,
    per_rep_s: Vec<f64>,
}

/// The per-repetition MPI times of every overlap block of a run, gathered in the one pass of
/// [`super::PlotRun`]: 8 bytes per valid repetition of an overlap block.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HiddenSamples {
    blocks: Vec<Samples>,
}

impl HiddenSamples {
    /// Takes the next block of the pass (blocks without overlap records are skipped).
    pub fn add(&mut self, block: &Block) {
        let Some(o) = block.overlap.as_ref() else {
            return;
        };
        let p = block.nprocs as usize;
        let per_rep_s = (0..block.nrep as usize)
            .filter(|&r| block.rep_valid(r))
            .filter_map(|rep| {
                let punctual: Vec<f64> = (0..p)
                    .map(|rank| block.idx(rep, rank))
                    .filter(|&i| block.applied_delay_s.0[i] == 0.0)
                    .map(|i| o.post_s.0[i] + o.test_s.0[i] + o.wait_s.0[i])
                    .collect();
                (!punctual.is_empty()).then(|| punctual.iter().sum::<f64>() / punctual.len() as f64)
            })
            .collect();
        self.blocks.push(Samples {
            op: block.op,
            bytes: block.bytes,
            nprocs: block.nprocs,
            delay_s: block.delay_s,
            late_arrival: block.is_late_arrival(),
            per_rep_s,
        });
    }

    /// The interval of the hidden share (fraction, 1 = all of δ) of the late arrival of
    /// (op, bytes, P) with nominal δ `delay_s` against its first baseline; `None` without
    /// such a block, a baseline, or two repetitions in each.
    pub fn interval(
        &self,
        op: Op,
        bytes: u64,
        nprocs: u32,
        delay_s: f64,
        boot: &Bootstrap,
    ) -> Option<Interval> {
        let same = |s: &&Samples| s.op == op && s.bytes == bytes && s.nprocs == nprocs;
        let late = self
            .blocks
            .iter()
            .filter(same)
            .find(|s| s.late_arrival && super::naming::same_delay(s.delay_s, delay_s))?;
        let base = self.blocks.iter().filter(same).find(|s| s.delay_s == 0.0)?;
        if late.per_rep_s.len() < 2 || base.per_rep_s.len() < 2 || delay_s <= 0.0 {
            return None;
        }
        let (own, b0) = (
            Resampler::of(&late.per_rep_s),
            Resampler::of(&base.per_rep_s),
        );
        let mut rng = StdRng::seed_from_u64(boot.seed);
        let mut shares: Vec<f64> = (0..boot.resamples)
            .filter_map(|_| {
                let (o, b) = (own.draw(&mut rng), b0.draw(&mut rng));
                hidden_delay(delay_s, true, Some(o), Some(b)).map(|h| h / delay_s)
            })
            .filter(|x| x.is_finite())
            .collect();
        if shares.is_empty() {
            return None;
        }
        shares.sort_by(f64::total_cmp);
        let alpha = (1.0 - boot.level) / 2.0;
        let at = |q: f64| shares[((shares.len() - 1) as f64 * q).round() as usize];
        Some(Interval {
            lo: at(alpha),
            hi: at(1.0 - alpha),
        })
    }
}

/// Draws the mean of a resample of `values` (with replacement).
struct Resampler<'a> {
    values: &'a [f64],
    /// Normal approximation of the resample mean, for more than [`EXACT_MAX`] values.
    normal: Option<Normal<f64>>,
}

impl<'a> Resampler<'a> {
    fn of(values: &'a [f64]) -> Self {
        let n = values.len() as f64;
        let normal = (values.len() > EXACT_MAX).then(|| {
            let mean = values.iter().sum::<f64>() / n;
            let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
            Normal::new(mean, (var / n).sqrt()).expect("finite, non-negative sd")
        });
        Resampler { values, normal }
    }

    fn draw(&self, rng: &mut StdRng) -> f64 {
        match &self.normal {
            Some(n) => n.sample(rng),
            None => {
                let k = self.values.len();
                (0..k)
                    .map(|_| self.values[rng.random_range(0..k)])
                    .sum::<f64>()
                    / k as f64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{testdata, F64Array, OverlapRecord};

    /// An overlap block whose punctual ranks spend `wait_s` (plus a little noise) in wait.
    fn block(delay_s: f64, wait_s: f64) -> Block {
        let mut b = testdata::block(Op::Iallreduce, 8, 2, delay_s, 40, 10e-6);
        let n = b.flags.len();
        b.flags.iter_mut().for_each(|f| *f = 0);
        let wait: Vec<f64> = (0..n).map(|i| wait_s + (i % 7) as f64 * 1e-7).collect();
        b.overlap = Some(OverlapRecord {
            mode: "time".into(),
            t_pure_s: 10e-6,
            workload: 0,
            test_interval_bytes: None,
            tests_per_rep: 0,
            compute_s: F64Array(vec![10e-6; n]),
            post_s: F64Array(vec![0.0; n]),
            test_s: F64Array(vec![0.0; n]),
            wait_s: F64Array(wait),
        });
        b
    }

    #[test]
    fn interval_brackets_the_hidden_share_and_needs_a_baseline() {
        let mut s = HiddenSamples::default();
        s.add(&block(0.0, 5e-6));
        // Punctual ranks wait 30 us more than in the baseline: of δ = 50 us, 20 us hidden.
        s.add(&block(50e-6, 35e-6));
        let i = s
            .interval(Op::Iallreduce, 8, 2, 50e-6, &Bootstrap::default())
            .unwrap();
        assert!(i.lo <= 0.4 && i.hi >= 0.4 && i.hi - i.lo < 0.1, "{i:?}");
        assert!(s
            .interval(Op::Iallreduce, 8, 4, 50e-6, &Bootstrap::default())
            .is_none());
        let mut alone = HiddenSamples::default();
        alone.add(&block(50e-6, 35e-6));
        assert!(alone
            .interval(Op::Iallreduce, 8, 2, 50e-6, &Bootstrap::default())
            .is_none());
    }
}
