//! What `analyze` keeps of a records file (issue 11): per block the configuration and its
//! valid t_globals, never the per-rank arrays, so a file is analysed block by block in memory
//! proportional to its valid repetitions (8 bytes each), not to its rank-repetition events.

use super::{valid_t_globals, ClockChoice, ClockCorrection, ClockedStream};
use crate::plan::Op;
use crate::records::{Block, Footer, Header, Records, RecordsError, RecordsStream};
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
    /// t_global of every valid repetition, seconds, in repetition order (002 eq. 4).
    pub t_globals: Vec<f64>,
}

impl BlockDigest {
    /// The digest of `block`.
    pub fn of(block: &Block) -> Self {
        BlockDigest {
            op: block.op,
            bytes: block.bytes,
            nprocs: block.nprocs,
            hosts: block.hosts,
            delay_model: block.delay_model.clone(),
            delay_s: block.delay_s,
            nrep: block.nrep,
            late_arrival: block.is_late_arrival(),
            t_globals: valid_t_globals(block),
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
}

impl LaunchDigest {
    /// The digest of records already in memory.
    pub fn of(records: &Records) -> Self {
        LaunchDigest {
            header: records.header.clone(),
            footer: records.footer.clone(),
            complete: records.complete(),
            partial_block: false,
            blocks: records.blocks.iter().map(BlockDigest::of).collect(),
        }
    }

    /// Reads `path` block by block, each block's global times on the chosen clock, holding
    /// one block at a time. Post-hoc correction needs every drift-tracking probe first, so a
    /// run with probes (`--track-every`) is read twice: once for the probes, once for times.
    ///
    /// Errors: those of [`ClockedStream::open`] and its iteration.
    pub fn read(path: &Path, choice: ClockChoice) -> Result<(Self, ClockCorrection), RecordsError> {
        let mut clocked = ClockedStream::open(path, choice)?;
        let correction = clocked.correction().clone();
        let mut blocks = Vec::new();
        for block in clocked.by_ref() {
            blocks.push(BlockDigest::of(&block?));
        }
        Ok((Self::ended(clocked.into_stream(), blocks), correction))
    }

    /// The digest of a stream read to its end, whose blocks were reduced to `blocks`: how
    /// the run ended comes from the stream.
    pub fn ended(stream: RecordsStream, blocks: Vec<BlockDigest>) -> Self {
        let partial_block = stream.partial_block();
        let (header, footer, truncated) = stream.into_parts();
        LaunchDigest {
            complete: footer.is_some() && !truncated,
            header,
            footer,
            partial_block,
            blocks,
        }
    }
}
