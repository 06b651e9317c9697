//! What `analyze` keeps of a records file: per block the configuration, its valid t_globals
//! and the arrival terms of their lower bounds, never the per-rank arrays, so a file is
//! analysed block by block in memory proportional to its valid repetitions (8 bytes each for
//! t_global, 16 for the usual bound terms), not to its rank-repetition events.

use super::lower_bound::ArrivalTerms;
use super::valid_t_globals;
use crate::plan::Op;
use crate::records::{Block, Footer, Header, Records, RecordsError};
use crate::timeline::{ClockCorrection, GlobalTimes, Timeline, TimelineEnd, VerdictChanges};
use std::path::Path;

/// One block reduced to what the per-configuration statistics need.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockDigest {
    pub op: Op,
    /// Message size in bytes.
    pub bytes: u64,
    /// P.
    pub nprocs: u32,
    /// Distinct hosts of the block's ranks (0: not recorded).
    pub hosts: u32,
    pub delay_model: String,
    /// Nominal delay δ, seconds.
    pub delay_s: f64,
    /// Repetitions measured.
    pub nrep: u32,
    /// [`Block::is_late_arrival`].
    pub late_arrival: bool,
    /// Measured in overlap mode (`--overlap`, a nonblocking kernel with computation).
    pub overlap: bool,
    /// t_global of every valid repetition, seconds, in repetition order (Niethammer et al.
    /// 2016, eq. 4).
    pub t_globals: Vec<f64>,
    /// The collective algorithm (`--algorithms`), empty when the run chose none.
    pub algorithm: String,
    /// What the lower bounds of the valid repetitions need of their start times, aligned
    /// with `t_globals` (`None` where a block has no bound: [`ArrivalTerms::of`]).
    pub arrivals: Option<ArrivalTerms>,
    /// Per rank: where it ran and where its buffers were ([`Block::placement`]; empty when
    /// not recorded).
    pub placement: Vec<crate::records::BufferPlacement>,
}

crate::timeline::pairing::configuration!(BlockDigest);

impl BlockDigest {
    /// The digest of `block`.
    pub fn of(block: &Block) -> Self {
        Self::with_t_globals(block, valid_t_globals(block))
    }

    /// This digest without the lower bounds' terms unless its file has one-way times to make
    /// bounds of (`has_one_way_times`: the header's `p2p`; files before records version 3
    /// and simulated runs have none): kept, they would hold 8 bytes per valid repetition and
    /// term for no column.
    pub fn with_bound_terms_if(mut self, has_one_way_times: bool) -> Self {
        if !has_one_way_times {
            self.arrivals = None;
        }
        self
    }

    /// The digest of `block` whose valid t_globals, in repetition order, are `t_globals`
    /// (seconds; [`super::BlockTimes`]).
    pub fn with_t_globals(block: &Block, t_globals: Vec<f64>) -> Self {
        BlockDigest {
            op: block.op,
            bytes: block.bytes,
            nprocs: block.nprocs,
            hosts: block.hosts,
            delay_model: block.delay_model.clone(),
            delay_s: block.delay_s,
            nrep: block.nrep,
            late_arrival: block.is_late_arrival(),
            overlap: block.overlap.is_some(),
            t_globals,
            algorithm: block.algorithm_name().to_string(),
            arrivals: ArrivalTerms::of(block),
            placement: block.placement.clone(),
        }
    }
}

/// One records file reduced to digests, with what its warnings need.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchDigest {
    pub header: Header,
    /// `None` for an interrupted run.
    pub footer: Option<Footer>,
    /// True when the run completed and nothing was lost ([`Records::complete`]).
    pub complete: bool,
    /// True when the last block is the complete chunks of a block in flight.
    pub partial_block: bool,
    /// Per block, in measurement order.
    pub blocks: Vec<BlockDigest>,
    /// Which global times the digests were computed on.
    pub correction: ClockCorrection,
    /// Repetitions whose verdict those times changed against the recorded one.
    pub verdicts: VerdictChanges,
}

impl LaunchDigest {
    /// The digest of records already in memory, on the global times they hold (the flags
    /// as they are).
    pub fn of(records: &Records) -> Self {
        LaunchDigest {
            header: records.header.clone(),
            footer: records.footer.clone(),
            complete: records.complete(),
            partial_block: false,
            blocks: records
                .blocks
                .iter()
                .map(|b| BlockDigest::of(b).with_bound_terms_if(records.header.p2p.is_some()))
                .collect(),
            correction: ClockCorrection::recorded(),
            verdicts: VerdictChanges::default(),
        }
    }

    /// Reads `path` through its [`Timeline`] on the global times `choice` asks for, one block
    /// at a time.
    ///
    /// Errors: those of [`Timeline::open`] and its iteration.
    pub fn read(path: &Path, choice: GlobalTimes) -> Result<Self, RecordsError> {
        let mut timeline = Timeline::open(path, choice)?;
        let mut blocks = Vec::new();
        let bounded = timeline.header().p2p.is_some();
        for block in timeline.by_ref() {
            blocks.push(BlockDigest::of(&block?).with_bound_terms_if(bounded));
        }
        Ok(Self::ended(timeline.end(), blocks))
    }

    /// The digest of a timeline read to its end, whose blocks were reduced to `blocks`: how
    /// the run ended and which times were used come from the timeline.
    pub fn ended(end: TimelineEnd, blocks: Vec<BlockDigest>) -> Self {
        LaunchDigest {
            complete: end.complete,
            header: end.header,
            footer: end.footer,
            partial_block: end.partial_block,
            blocks,
            correction: end.correction,
            verdicts: end.verdicts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{testdata, P2pTimes};

    #[test]
    fn the_bound_terms_are_kept_only_when_the_header_has_one_way_times() {
        let block = testdata::block(Op::Allreduce, 8, 4, 50e-6, 3, 10e-6);
        let mut header = testdata::header(4);
        assert!(BlockDigest::of(&block).arrivals.is_some());
        assert!(BlockDigest::of(&block)
            .with_bound_terms_if(header.p2p.is_some())
            .arrivals
            .is_none());
        header.p2p = Some(P2pTimes {
            exchanges: 30,
            peers: vec![1, 2, 3],
            sizes: Vec::new(),
        });
        let kept = BlockDigest::of(&block).with_bound_terms_if(header.p2p.is_some());
        assert_eq!(
            kept.arrivals.unwrap().latest_s.len(),
            2,
            "valid repetitions"
        );
    }
}
