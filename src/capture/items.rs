//! The items of a capture file, as CBOR in the records frames: the header, the chunks (new
//! call sites, the calls, new count vectors) and the footer, with the count-vector hash the
//! shim computes.

use super::op::CaptureOp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `format` field of every capture header.
pub const CAPTURE_FORMAT_NAME: &str = "delaybench-capture";
/// Version of the capture items; a reader refuses newer ones. 2 added the header's
/// `mpi_library` and `algorithm_variables` (a version 1 file reads with neither).
pub const CAPTURE_FORMAT_VERSION: u32 = 2;

/// Result of one clock synchronisation of this rank against world rank 0 (`offset` method:
/// min-RTT ping-pong, Niethammer et al. 2016; Hoefler et al. 2010).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CaptureSync {
    /// Local clock reading (seconds, CLOCK_MONOTONIC) in the middle of the synchronisation.
    pub local_s: f64,
    /// Offset of this clock to rank 0's, seconds: global = local − offset_s.
    pub offset_s: f64,
    /// Smallest round-trip time seen, seconds (0 on rank 0).
    pub rtt_s: f64,
}

/// The first frame of a capture file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaptureHeader {
    /// Always `capture_header`.
    pub item: String,
    /// Always [`CAPTURE_FORMAT_NAME`].
    pub format: String,
    /// [`CAPTURE_FORMAT_VERSION`] of the writer.
    pub version: u32,
    /// World rank of the writing process.
    pub rank: u32,
    /// Size of MPI_COMM_WORLD.
    pub world_size: u32,
    /// Identity shared by the files of one capture (rank 0's start stamp and pid).
    pub capture_id: String,
    /// Host name of the rank.
    pub host: String,
    /// Process id of the rank.
    pub pid: u32,
    /// The application's command line (`/proc/self/cmdline`).
    pub command: Vec<String>,
    /// The clock the times are read from (`monotonic`).
    pub clock: String,
    /// The synchronisation at MPI_Init.
    pub sync_init: CaptureSync,
    /// Local time (seconds) at which the capture started (after the synchronisation).
    pub t_start_s: f64,
    /// `MPI_Get_library_version`'s text, whole (format 2; None before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi_library: Option<String>,
    /// The variables that choose the library's collective algorithms, as this rank's
    /// environment set them ([`is_algorithm_variable`]), name to value (format 2; empty
    /// before and when none was set).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub algorithm_variables: BTreeMap<String, String>,
}

/// Whether an environment variable chooses a collective algorithm: Open MPI's
/// `OMPI_MCA_coll_*` (the `tuned` component's `*_algorithm` and `use_dynamic_rules`, and
/// every other collective component's), MPICH's `MPIR_CVAR_*_ALGORITHM`.
pub fn is_algorithm_variable(name: &str) -> bool {
    name.starts_with("OMPI_MCA_coll_")
        || (name.starts_with("MPIR_CVAR_") && name.contains("_ALGORITHM"))
}

/// A call site: the return address of the intercepted call, resolved at flush time with
/// `dladdr` into the module and the offset within it (the same across ranks of one binary,
/// whatever the load address) and, when the module exports it, the enclosing symbol.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CaptureSite {
    /// Index used by [`CaptureEvent::site`] in this file.
    pub id: u32,
    /// File name of the module holding the return address (`lmp`, `libfoo.so`), empty if
    /// unknown.
    pub module: String,
    /// Return address minus the module's load address, bytes.
    pub offset: u64,
    /// Enclosing exported symbol, when `dladdr` found one.
    pub symbol: Option<String>,
    /// Return address minus the symbol's address, bytes (0 without a symbol).
    pub symbol_offset: u64,
}

/// The module of every site read from an OTF2 archive (`otf2_import.rs`): its offset is the
/// calling region's definition, the same on every rank, and its symbol the region's name
/// with its file and line, which is the site's name as it stands.
pub const OTF2_MODULE: &str = "otf2";

impl CaptureSite {
    /// The key that identifies the site across ranks: `module+0xoffset`.
    pub fn key(&self) -> String {
        format!("{}+{:#x}", self.module, self.offset)
    }

    /// A readable name: `symbol+0xoff (module+0xoffset)`, or the key without a symbol.
    pub fn label(&self) -> String {
        match &self.symbol {
            Some(s) => format!("{s}+{:#x} ({})", self.symbol_offset, self.key()),
            None => self.key(),
        }
    }
}

/// One intercepted call on one rank.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CaptureEvent {
    /// The operation.
    pub op: CaptureOp,
    /// Communicator identity: FNV-1a hash of its members' world ranks, in its rank order.
    pub comm: u64,
    /// Communicator size.
    pub comm_size: u32,
    /// This rank's rank in the communicator.
    pub comm_rank: u32,
    /// Bytes this rank contributes (count × type size; v-forms: this rank's part), bytes.
    pub bytes: u64,
    /// Root in the communicator, −1 for rootless operations.
    pub root: i32,
    /// Call site id ([`CaptureSite::id`]).
    pub site: u32,
    /// Local entry time, seconds.
    pub t_enter_s: f64,
    /// Local exit time, seconds.
    pub t_exit_s: f64,
    /// For the operations with a count vector ([`CaptureOp::has_count_vector`]) where this
    /// rank passes one: a 63-bit FNV-1a hash of the vector in bytes, whose vector is the
    /// [`CaptureCounts`] of this site and hash. None for other calls and in captures written
    /// before counts were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts_hash: Option<u64>,
}

/// A count vector as one rank passed it, in bytes (count × the datatype's size), one entry
/// per rank of the communicator: the receive counts of allgatherv, reduce_scatter and gatherv
/// (at the root), the send counts of scatterv (at the root) and of alltoallv (this rank's row
/// of the matrix). Written once per (site, vector): the first call of a site with a new
/// vector, up to [`MAX_VECTORS_PER_SITE`] per site on a rank; later calls carry only
/// [`CaptureEvent::counts_hash`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureCounts {
    /// The call site ([`CaptureSite::id`]).
    pub site: u32,
    /// The hash the calls with this vector carry.
    pub hash: u64,
    /// Bytes per rank of the communicator.
    pub bytes: Vec<u64>,
}

/// Distinct count vectors a rank writes per site; further ones are recorded as hashes only.
pub const MAX_VECTORS_PER_SITE: usize = 64;

/// The hash of a count vector in bytes that the shim computes (FNV-1a over the little-endian
/// bytes of each entry, top bit cleared, 0 mapped to 1), for readers that recompute it.
pub fn counts_hash(bytes: &[u64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in bytes {
        for b in v.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    match h & (u64::MAX >> 1) {
        0 => 1,
        h => h,
    }
}

/// A chunk frame: new sites, then calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaptureChunk {
    /// Always `capture_chunk`.
    pub item: String,
    /// Sites first seen in this chunk.
    pub sites: Vec<CaptureSite>,
    /// Calls in the order this rank made them.
    pub events: Vec<CaptureEvent>,
    /// Count vectors first seen in this chunk (absent in captures without counts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<CaptureCounts>,
}

/// The last frame, written at MPI_Finalize.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaptureFooter {
    /// Always `capture_footer`.
    pub item: String,
    /// The synchronisation at MPI_Finalize.
    pub sync_finalize: CaptureSync,
    /// Calls recorded on this rank.
    pub events: u64,
    /// Calls passed through without a record (intercommunicators, after an error).
    pub passed_through: u64,
    /// True when the MPI_Finalize synchronisation was skipped on every rank because the
    /// ranks agreed at MPI_Finalize that some rank's capture had stopped (its directory or a
    /// write failed): a synchronisation needs every rank. `sync_finalize` then repeats the
    /// MPI_Init one, so this rank's times use the MPI_Init offset only, also in readers that
    /// predate this field. Absent (false) otherwise.
    #[serde(default, skip_serializing_if = "is_false")]
    pub finalize_sync_skipped: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}
