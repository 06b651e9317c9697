//! What the figures keep of a records file: per block its digest (configuration and valid
//! t_globals), which of its repetitions are valid, its median repetition's per-rank times
//! for the timeline and its overlap summary, so `plot` reads a file block by block and never
//! holds the per-rank arrays of more than one block.

use super::timeline::median_rep;
use crate::analysis::{
    baseline_overhead, hidden_delay, overlap_row, BlockDigest, ClockChoice, ClockedStream,
    LaunchDigest, OverlapRow,
};
use crate::records::{split_block, Block, Records, RecordsError};
use std::path::Path;

/// The valid repetitions of a block, one bit per repetition: their indices as `u32` took
/// 24 MiB of `plot`'s 190 MiB peak at 6.25 million valid repetitions, a bit each takes 1/32
/// of that (less than 1 MiB).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ValidReps {
    /// Bit `r % 64` of word `r / 64` is set when repetition r is valid.
    words: Vec<u64>,
}

impl ValidReps {
    /// The valid repetitions of `block` ([`Block::rep_valid`]).
    pub fn of(block: &Block) -> Self {
        let nrep = block.nrep as usize;
        let mut words = vec![0u64; nrep.div_ceil(64)];
        for r in (0..nrep).filter(|&r| block.rep_valid(r)) {
            words[r / 64] |= 1 << (r % 64);
        }
        ValidReps { words }
    }

    /// Indices of the valid repetitions, ascending: aligned with [`BlockDigest::t_globals`].
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &word)| {
            let mut rest = word;
            std::iter::from_fn(move || {
                (rest != 0).then(|| {
                    let bit = rest.trailing_zeros();
                    rest &= rest - 1;
                    (i * 64) as u32 + bit
                })
            })
        })
    }
}

/// One block reduced for the figures, beside its [`BlockDigest`].
#[derive(Debug, Clone, PartialEq)]
pub struct BlockExtras {
    /// Which repetitions are valid; in order, aligned with [`BlockDigest::t_globals`].
    pub valid_reps: ValidReps,
    /// The median valid repetition ([`median_rep`]): its index and the block cut down to it
    /// (one repetition, P ranks), for the timeline.
    pub median: Option<(usize, Block)>,
    /// Overlap mode: the block's [`OverlapRow`] without its hidden delay, and the mean MPI
    /// time of its punctual ranks, seconds ([`baseline_overhead`]), which pairs it with its
    /// baseline once every block is read.
    pub overlap: Option<(OverlapRow, Option<f64>)>,
}

impl BlockExtras {
    /// The extras of `block`.
    pub fn of(block: &Block) -> Self {
        let valid_reps = ValidReps::of(block);
        let median =
            median_rep(block).map(|rep| (rep, split_block(block, rep as u32..rep as u32 + 1)));
        let overlap = overlap_row(block, None).map(|row| (row, baseline_overhead(block)));
        BlockExtras {
            valid_reps,
            median,
            overlap,
        }
    }
}

/// A run reduced for the figures: its [`LaunchDigest`] and per block the [`BlockExtras`],
/// in the same order.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotRun {
    pub launch: LaunchDigest,
    pub extras: Vec<BlockExtras>,
}

impl PlotRun {
    /// The reduction of records already in memory.
    pub fn of(records: &Records) -> Self {
        PlotRun {
            launch: LaunchDigest::of(records),
            extras: records.blocks.iter().map(BlockExtras::of).collect(),
        }
    }

    /// Reads `path` block by block with the global times as recorded (online models, as
    /// `plot` always drew them), holding one block at a time. Memory: per block its
    /// configuration, 8 bytes per valid repetition, a bit per repetition and one
    /// repetition's per-rank times.
    ///
    /// Errors: those of [`ClockedStream::open`] and its iteration.
    pub fn read(path: &Path) -> Result<Self, RecordsError> {
        let mut blocks = ClockedStream::open(path, ClockChoice::Online)?;
        let (mut digests, mut extras) = (Vec::new(), Vec::new());
        for block in blocks.by_ref() {
            let block = block?;
            digests.push(BlockDigest::of(&block));
            extras.push(BlockExtras::of(&block));
        }
        let launch = LaunchDigest::ended(blocks.into_stream(), digests);
        Ok(PlotRun { launch, extras })
    }

    /// The overlap rows of the run, as [`crate::analysis::overlap_rows`] gives them: each
    /// late arrival's hidden delay against the first baseline (δ = 0, overlap mode) of the
    /// same op, size and P.
    pub fn overlap_rows(&self) -> Vec<OverlapRow> {
        let blocks = || self.launch.blocks.iter().zip(&self.extras);
        blocks()
            .filter_map(|(digest, extras)| {
                let (row, own) = extras.overlap.clone()?;
                let baseline = blocks()
                    .find(|(d, x)| d.delay_s == 0.0 && key(d) == key(digest) && x.overlap.is_some())
                    .and_then(|(_, x)| x.overlap.as_ref()?.1);
                let hidden = hidden_delay(digest.delay_s, digest.late_arrival, own, baseline);
                Some(OverlapRow {
                    hidden_delay_s: hidden,
                    hidden_fraction: hidden.map(|h| h / digest.delay_s),
                    ..row
                })
            })
            .collect()
    }
}

fn key(d: &BlockDigest) -> (crate::plan::Op, u64, u32) {
    (d.op, d.bytes, d.nprocs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    #[test]
    fn the_median_repetition_is_kept_whole_and_alone() {
        let b = testdata::block(Op::Allreduce, 8, 4, 50e-6, 5, 10e-6);
        let x = BlockExtras::of(&b);
        // testdata flags repetition 1: four valid ones, 0, 2, 3, 4.
        assert_eq!(x.valid_reps.iter().collect::<Vec<_>>(), vec![0, 2, 3, 4]);
        let (rep, one) = x.median.unwrap();
        assert_eq!(Some(rep), median_rep(&b));
        assert_eq!((one.nrep, one.nprocs), (1, 4));
        assert_eq!(
            one.t_end_global_s.0[..],
            b.t_end_global_s.0[rep * 4..rep * 4 + 4]
        );
    }

    #[test]
    fn valid_repetitions_cross_word_boundaries() {
        // 200 repetitions (four words, the last one partial), every third one invalid.
        let mut b = testdata::block(Op::Allreduce, 8, 2, 0.0, 200, 10e-6);
        b.flags.iter_mut().for_each(|f| *f = 0);
        for r in (0..200).step_by(3) {
            b.flags[r * 2 + 1] = 1;
        }
        let want: Vec<u32> = (0..200).filter(|&r| b.rep_valid(r as usize)).collect();
        assert_eq!(want.len(), 133);
        assert_eq!(ValidReps::of(&b).iter().collect::<Vec<_>>(), want);
        // Every repetition valid, and none: the ends of a word are kept.
        b.flags.iter_mut().for_each(|f| *f = 0);
        let all: Vec<u32> = ValidReps::of(&b).iter().collect();
        assert_eq!(all, (0..200).collect::<Vec<u32>>());
        b.flags.iter_mut().for_each(|f| *f = 1);
        assert_eq!(ValidReps::of(&b).iter().count(), 0);
    }
}
