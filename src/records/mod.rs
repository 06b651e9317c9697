//! Records files: what a run writes (rank 0, block by block) and what the offline commands read.
//!
//! A records file is a sequence of checksummed frames ([`frame`]), each holding one [`Item`] as
//! CBOR: one header, one block per measured configuration (or, for a long block, its chunks
//! and a block end), and a footer when the run completed. Plain Rust, no MPI.

mod buffer_placement;
mod call_entry;
mod chunk;
mod header;
pub mod host_list;
pub mod job;
pub mod noise;
mod noise_check;
mod p2p;
pub mod provenance;
mod pure_pass;
mod reader;
mod schema;
mod simulation;
mod start_path;
mod stream;
#[doc(hidden)]
pub mod testdata;
mod writer;

pub use crate::frame::cbor::{de_error as cbor_de_error, ser_error as cbor_ser_error};
pub use buffer_placement::{BufferPlacement, PAGE_BYTES};
pub use call_entry::{CallEntry, CALL_ENTRY_PERCENTILES};
pub use chunk::{append_chunk, split_block, BlockEnd, Chunk};
pub use job::{JobInfo, RankPlacement};
pub use noise_check::{octave_counts, NoiseCheck, NOISE_OCTAVES};
pub use p2p::{P2pSize, P2pTimes};
pub use provenance::{Machine, Provenance, RunLabel, Tag};
pub use pure_pass::PurePass;
pub use reader::{read_records, Records};
pub use schema::*;
pub use simulation::{Simulation, SimulationCost};
pub use start_path::StartPathRecord;
pub use stream::RecordsStream;
pub use writer::RecordsWriter;

use thiserror::Error;

/// Errors reading or writing a records file.
#[derive(Debug, Error)]
pub enum RecordsError {
    #[error("cannot create records file {path}: {source} (choose another --output or fix the directory's permissions)")]
    Create {
        path: String,
        source: std::io::Error,
    },
    #[error("records file {0} already exists: choose another --output or remove the old file")]
    Exists(String),
    #[error("cannot open records file {path}: {source}")]
    Open {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write records file: {0}")]
    Write(String),
    #[error("{path} is not a delaybench records file: {reason}")]
    NotRecords { path: String, reason: String },
    #[error("{path} has format version {found}; this delaybench reads versions {} to {expected} (use the delaybench version that wrote it, or re-run)", MIN_FORMAT_VERSION)]
    Version {
        path: String,
        found: u32,
        expected: u32,
    },
    #[error("{path} is damaged at byte {offset} ({item}): {reason}; {later} later complete item(s) follow, so this is not an interrupted run: the file cannot be trusted and nothing of it is analysed (restore it from a copy or re-run)")]
    Corrupt {
        path: String,
        /// `header`, `block N` (1-based) or `footer`.
        item: String,
        offset: u64,
        reason: String,
        later: usize,
    },
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
}
