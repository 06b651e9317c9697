//! What the figures and the end-of-run summary keep of a records file, in one pass over its
//! timeline: per block its digest (configuration and valid t_globals), which of its
//! repetitions are valid and its median repetition's per-rank times for the timeline figure,
//! and for the whole run the overlap and distribution rows. `plot` thus reads a file once,
//! block by block, and never holds the per-rank arrays of more than one block.

use super::rank_timeline::median_of;
use super::select::{Offered, SelectError};
use crate::analysis::{
    BlockDigest, BlockTimes, DistributionRow, DistributionRows, LaunchDigest, OverlapRow,
    OverlapRows,
};
use crate::records::{split_block, Block, Records, RecordsError};
use crate::timeline::{GlobalTimes, Timeline};
use std::path::Path;

/// The valid repetitions of a block, one bit per repetition: their indices as `u32` took
/// 24 MiB of `plot`'s 190 MiB peak at 6.25 million valid repetitions, a bit each takes 1/32
/// of that (less than 1 MiB).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ValidSet {
    /// Bit `r % 64` of word `r / 64` is set when repetition r is valid.
    words: Vec<u64>,
}

impl ValidSet {
    /// The valid repetitions of `block` ([`Block::rep_valid`]).
    pub fn of(block: &Block) -> Self {
        Self::from_reps(block.nrep, &BlockTimes::of(block).reps)
    }

    /// The set of `reps` (ascending indices) among `nrep` repetitions.
    pub fn from_reps(nrep: u32, reps: &[u32]) -> Self {
        let mut words = vec![0u64; (nrep as usize).div_ceil(64)];
        for &r in reps {
            words[r as usize / 64] |= 1 << (r % 64);
        }
        ValidSet { words }
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
    pub valid_reps: ValidSet,
    /// The median valid repetition ([`median_of`]): its index and the block cut down to it
    /// (one repetition, P ranks), for the timeline.
    pub median: Option<(usize, Block)>,
    /// Recorded start spread of each valid repetition, seconds, aligned with `valid_reps`
    /// ([`crate::analysis::start_spreads`]; empty without a window).
    pub start_spreads_s: Vec<f64>,
    /// Entry spreads and release-to-entry paths of the same repetitions
    /// ([`crate::analysis::entry_spreads`]; `None` without a window or stamps).
    pub entry: Option<crate::analysis::EntrySpreads>,
}

impl BlockExtras {
    /// The extras of `block`.
    pub fn of(block: &Block) -> Self {
        Self::with_times(block, &BlockTimes::of(block))
    }

    /// The extras of a block whose valid repetitions and t_globals are `times`.
    pub fn with_times(block: &Block, times: &BlockTimes) -> Self {
        let valid_reps = ValidSet::from_reps(block.nrep, &times.reps);
        let median =
            median_of(times).map(|rep| (rep, split_block(block, rep as u32..rep as u32 + 1)));
        let start_spreads_s = crate::analysis::start_spreads(block, &times.reps);
        let entry = crate::analysis::entry_spreads(block, &times.reps);
        BlockExtras {
            valid_reps,
            median,
            start_spreads_s,
            entry,
        }
    }
}

/// A run reduced for the figures and the end-of-run summary: its [`LaunchDigest`], per block
/// the [`BlockExtras`] in the same order, and the overlap and distribution rows.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotRun {
    pub launch: LaunchDigest,
    pub extras: Vec<BlockExtras>,
    overlap: OverlapRows,
    /// `analyze --distribution` of the run.
    pub distribution: Vec<DistributionRow>,
    /// Per-rank lateness and exit times of the largest P of each delayed configuration.
    pub heat: super::heat_grids::HeatBlocks,
}

impl PlotRun {
    /// The reduction of records already in memory, on the global times they hold.
    pub fn of(records: &Records) -> Self {
        let mut pass = Pass {
            bounded: records.header.p2p.is_some(),
            ..Pass::default()
        };
        for b in &records.blocks {
            pass.add(b);
        }
        pass.finish(LaunchDigest::of(records))
    }

    /// Reads `path` once through its [`Timeline`] on the global times `choice` asks for,
    /// holding one block at a time. Memory: per block its configuration, 8 bytes per valid
    /// repetition, a bit per repetition and one repetition's per-rank times; 32 bytes per
    /// valid repetition of a delayed block until the pass ends (distribution rows).
    ///
    /// Errors: those of [`Timeline::open`] and its iteration.
    pub fn read(path: &Path, choice: GlobalTimes) -> Result<Self, RecordsError> {
        Ok(Self::pass(path, choice, &super::Selection::default())?.0)
    }

    /// [`PlotRun::read`] keeping only the blocks `selection` keeps (`plot --op/--size/--procs/
    /// --delay`): the others are skipped as they are read.
    ///
    /// Errors: as [`PlotRun::read`], and [`SelectError::NoMatch`] when the file lacks a value
    /// `selection` asks for ([`super::Selection::check`]).
    pub fn read_selected(
        path: &Path,
        choice: GlobalTimes,
        selection: &super::Selection,
    ) -> Result<Self, SelectError> {
        let (run, offered) = Self::pass(path, choice, selection)?;
        selection.check(&offered)?;
        Ok(run)
    }

    /// The one pass over `path`: the run reduced to `selection`, and every configuration the
    /// file holds.
    fn pass(
        path: &Path,
        choice: GlobalTimes,
        selection: &super::Selection,
    ) -> Result<(Self, Offered), RecordsError> {
        let mut timeline = Timeline::open(path, choice)?;
        let mut pass = Pass {
            selection: selection.clone(),
            bounded: timeline.header().p2p.is_some(),
            ..Pass::default()
        };
        let mut offered = Offered::default();
        for block in timeline.by_ref() {
            let block = block?;
            offered.add(&block);
            pass.add(&block);
        }
        let launch = LaunchDigest::ended(timeline.end(), Vec::new());
        Ok((pass.finish(launch), offered))
    }

    /// The overlap rows of the run, as [`crate::analysis::overlap_rows`] gives them: each
    /// late arrival's hidden delay against the first baseline (δ = 0, overlap mode) of the
    /// same op, size and P.
    pub fn overlap_rows(&self) -> Vec<OverlapRow> {
        self.overlap.finish()
    }
}

/// The one pass of [`PlotRun`].
#[derive(Default)]
struct Pass {
    digests: Vec<BlockDigest>,
    extras: Vec<BlockExtras>,
    overlap: OverlapRows,
    distribution: DistributionRows,
    heat: super::heat_grids::HeatBlocks,
    /// Blocks outside it are skipped as they are read.
    selection: super::Selection,
    /// The header has one-way times, so the digests keep the lower bounds' terms.
    bounded: bool,
}

impl Pass {
    /// Every reduction of `block`, its valid repetitions and t_globals found once.
    fn add(&mut self, block: &Block) {
        if !self.selection.keeps_block(block) {
            return;
        }
        let times = BlockTimes::of(block);
        self.heat.add(block);
        self.extras.push(BlockExtras::with_times(block, &times));
        self.overlap.add(block);
        self.distribution.add_with(block, &times);
        self.digests.push(
            BlockDigest::with_t_globals(block, times.t_globals).with_bound_terms_if(self.bounded),
        );
    }

    fn finish(self, mut launch: LaunchDigest) -> PlotRun {
        launch.blocks = self.digests;
        PlotRun {
            launch,
            extras: self.extras,
            overlap: self.overlap,
            distribution: self.distribution.finish(),
            heat: self.heat,
        }
    }
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
        assert_eq!(Some(rep), median_of(&BlockTimes::of(&b)));
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
        assert_eq!(ValidSet::of(&b).iter().collect::<Vec<_>>(), want);
        // Every repetition valid, and none: the ends of a word are kept.
        b.flags.iter_mut().for_each(|f| *f = 0);
        let all: Vec<u32> = ValidSet::of(&b).iter().collect();
        assert_eq!(all, (0..200).collect::<Vec<u32>>());
        b.flags.iter_mut().for_each(|f| *f = 1);
        assert_eq!(ValidSet::of(&b).iter().count(), 0);
    }
}
