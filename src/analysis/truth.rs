//! The global clock's true error, for runs with emulated clocks (`--emulate-clock`): the
//! emulation spec in the header gives every rank's true clock, so how far apart the ranks
//! really started can be computed from their recorded local start times, independently of
//! the synchronisation and tracking code that produced the online global times.

use crate::clock::EmulationSpec;
use crate::records::{Block, Records};
use statrs::statistics::{Data, OrderStatistics};

/// True start spread of one tenth of a block's valid repetitions.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TruthRow {
    pub op: crate::plan::Op,
    pub bytes: u64,
    pub nprocs: u32,
    pub delay_model: String,
    /// Which tenth of the block's repetitions (0 = first).
    pub tenth: u32,
    /// Valid repetitions in that tenth.
    pub reps: usize,
    /// Median over those repetitions of the true start spread, seconds.
    pub median_s: f64,
    /// 95th percentile of the true start spread, seconds.
    pub p95_s: f64,
    /// Median over those repetitions and the ranks other than world rank 0 (the reference)
    /// of |global start time − true start time|: the error of the global clock the analysis uses (online or post-hoc), seconds.
    pub clock_error_median_s: f64,
    /// 95th percentile of that error, seconds.
    pub clock_error_p95_s: f64,
}

/// Underlying (true) time of `rank`'s emulated reading `reading_s`: the inverse of
/// [`EmulationSpec::reading`], i.e. rank 0's clock is the truth when it is not emulated.
pub fn true_time(spec: &EmulationSpec, rank: usize, reading_s: f64) -> f64 {
    let (offset, skew) = spec.for_rank(rank);
    let base = (reading_s - offset + skew * spec.epoch_s()) / (1.0 + skew);
    crate::clock::true_global(spec, base)
}

/// Per block with at least one valid repetition, per tenth of its repetitions: the spread
/// (max − min over ranks) of the true instants at which the ranks started, each minus its own
/// applied delay; 0 for perfectly synchronised clocks and waits. `None` when the run did not
/// emulate clocks.
pub fn true_start_spread(records: &Records) -> Option<Vec<TruthRow>> {
    let spec = records.header.plan.emulate_clock.as_ref()?;
    Some(
        records
            .blocks
            .iter()
            .flat_map(|b| truth_rows(spec, b))
            .collect(),
    )
}

/// The [`TruthRow`]s of one block (up to ten, one per tenth of its repetitions with a valid
/// one), from the run's emulation spec (the header's `plan.emulate_clock`) and that block
/// alone.
pub fn truth_rows(spec: &EmulationSpec, b: &Block) -> Vec<TruthRow> {
    let p = b.nprocs as usize;
    let nrep = b.nrep as usize;
    let world = |r: usize| b.world_ranks.get(r).map_or(r, |&w| w as usize);
    let spread = |rep: usize| {
        let starts = (0..p).map(|r| {
            let i = rep * p + r;
            true_time(spec, world(r), b.t_start_local_s.0[i]) - b.applied_delay_s.0[i]
        });
        let (lo, hi) = starts.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| {
            (lo.min(s), hi.max(s))
        });
        hi - lo
    };
    let valid = |rep: usize| (0..p).all(|r| b.flags[rep * p + r] == 0);
    (0..10)
        .filter_map(|tenth| {
            let reps = (tenth * nrep / 10)..((tenth + 1) * nrep / 10);
            let valid_reps: Vec<usize> = reps.filter(|&r| valid(r)).collect();
            let spreads: Vec<f64> = valid_reps.iter().map(|&r| spread(r)).collect();
            let errors: Vec<f64> = valid_reps
                .iter()
                .flat_map(|&rep| (0..p).map(move |r| rep * p + r))
                // The reference clock is the global clock: its error is 0 by definition.
                .filter(|&i| world(i % p) != 0)
                .map(|i| {
                    let truth = true_time(spec, world(i % p), b.t_start_local_s.0[i]);
                    (b.t_start_global_s.0[i] - truth).abs()
                })
                .collect();
            (!spreads.is_empty()).then(|| {
                let n = spreads.len();
                let mut data = Data::new(spreads);
                let mut errors = Data::new(errors);
                TruthRow {
                    op: b.op,
                    bytes: b.bytes,
                    nprocs: b.nprocs,
                    delay_model: b.delay_model.clone(),
                    tenth: tenth as u32,
                    reps: n,
                    median_s: data.median(),
                    p95_s: data.percentile(95),
                    clock_error_median_s: errors.median(),
                    clock_error_p95_s: errors.percentile(95),
                }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn true_time_inverts_the_emulated_reading() {
        let spec: EmulationSpec = "offset=1.5ms*rank,skew=20ppm*rank".parse().unwrap();
        let spec = spec.with_epoch(100.0);
        for base in [100.0, 160.0, 1234.5] {
            let reading = spec.reading(1, base);
            assert!((true_time(&spec, 1, reading) - base).abs() < 1e-9);
            assert!((true_time(&spec, 0, spec.reading(0, base)) - base).abs() < 1e-12);
        }
    }

    #[test]
    fn spread_of_a_perfect_block_is_zero_and_of_a_shifted_rank_its_shift() {
        let spec: EmulationSpec = "offset=1ms*rank".parse().unwrap();
        use crate::records::testdata;
        let mut records = testdata::records(
            2,
            vec![testdata::block(
                crate::plan::Op::Allreduce,
                8,
                2,
                0.0,
                20,
                1e-6,
            )],
        );
        records.header.plan.emulate_clock = Some(spec.clone());
        for b in &mut records.blocks {
            for rep in 0..b.nrep as usize {
                let base = 10.0 + rep as f64;
                b.t_start_local_s.0[rep * 2] = spec.reading(0, base);
                // Rank 1 starts 0.3 us late in truth.
                b.t_start_local_s.0[rep * 2 + 1] = spec.reading(1, base + 0.3e-6);
                b.flags[rep * 2] = 0;
                b.flags[rep * 2 + 1] = 0;
                b.applied_delay_s.0[rep * 2] = 0.0;
                b.applied_delay_s.0[rep * 2 + 1] = 0.0;
                // A global clock 0.1 us ahead of the truth on rank 1 only.
                b.t_start_global_s.0[rep * 2] = base;
                b.t_start_global_s.0[rep * 2 + 1] = base + 0.3e-6 + 0.1e-6;
            }
        }
        let rows = true_start_spread(&records).unwrap();
        assert_eq!(rows.len(), 10);
        for row in rows {
            assert!((row.median_s - 0.3e-6).abs() < 1e-9, "{row:?}");
            assert_eq!(row.reps, 2);
            // Rank 1's global clock is 0.1 us ahead (rank 0, the reference, is left out).
            assert!((row.clock_error_median_s - 0.1e-6).abs() < 1e-9, "{row:?}");
        }
    }
}
