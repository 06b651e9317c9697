//! Capture files: what `libdelaybench_capture.so` writes, one file per rank, in the records
//! frames ([`super::frame`]: magic, kind, length, CBOR payload, CRC-32C).
//!
//! A capture file is a header frame ([`CaptureHeader`], item tag `capture_header`), any number
//! of chunk frames ([`CaptureChunk`]: the call sites first seen since the previous chunk and
//! the calls recorded since), and a footer frame ([`CaptureFooter`]) written at
//! `MPI_Finalize` with the second clock synchronisation. A rank killed midway leaves the
//! header and every chunk it flushed; [`read_capture`] reads those and says the footer is
//! missing. Plain Rust, no MPI.

use super::frame::{read_frame, write_frame, Frame, FrameKind};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The `format` field of every capture header.
pub const CAPTURE_FORMAT_NAME: &str = "delaybench-capture";
/// Version of the capture items; a reader refuses newer ones.
pub const CAPTURE_FORMAT_VERSION: u32 = 1;

/// Errors writing or reading a capture file.
#[derive(Debug, Error)]
pub enum CaptureFileError {
    /// The file could not be created, written, opened or read.
    #[error("capture file {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// A frame's CBOR could not be encoded or decoded, or it is not a capture file.
    #[error("capture file {path}: {reason}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong, in words.
        reason: String,
    },
}

/// The collective operations the interposer records. The numbers are the codes the C shim
/// (`capture/src/shim.c`, `DBC_OP_*`) writes; keep both lists in the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum CaptureOp {
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    Alltoall,
    Alltoallv,
    Allgather,
    Allgatherv,
    Gather,
    Gatherv,
    Scatter,
    Scatterv,
    ReduceScatter,
    ReduceScatterBlock,
    Scan,
    Exscan,
    Ibarrier,
    Ibcast,
    Ireduce,
    Iallreduce,
    Ialltoall,
    Iallgather,
    Igather,
    Iscatter,
    IreduceScatterBlock,
    Iscan,
    Iexscan,
    Iallgatherv,
    Igatherv,
    Iscatterv,
    Ialltoallv,
    IreduceScatter,
    BarrierPersistent,
    BcastPersistent,
    ReducePersistent,
    AllreducePersistent,
    AlltoallPersistent,
    AlltoallvPersistent,
    AllgatherPersistent,
    AllgathervPersistent,
    GatherPersistent,
    GathervPersistent,
    ScatterPersistent,
    ScattervPersistent,
    ReduceScatterPersistent,
    ReduceScatterBlockPersistent,
    ScanPersistent,
    ExscanPersistent,
}

/// How the waiting at a collective is attributed (Geimer et al. 2010; Scalasca's pattern
/// reference, "Wait at N x N", "Wait at Barrier", "Late Broadcast", "Early Reduce", "Early
/// Scan").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitKind {
    /// All-to-all kinds: every rank waits for the last one to enter.
    #[serde(rename = "wait_nxn")]
    WaitNxN,
    /// Barrier: every rank waits for the last one to enter.
    WaitBarrier,
    /// One-to-all kinds: a non-root waits for a root that enters after it.
    LateBroadcast,
    /// All-to-one kinds: the root waits for the first sender when it enters before all.
    EarlyReduce,
    /// Scans: rank i waits for the last of ranks 0..=i to enter.
    EarlyScan,
}

impl CaptureOp {
    /// Every operation, in code order.
    pub const ALL: [CaptureOp; 48] = [
        CaptureOp::Barrier,
        CaptureOp::Bcast,
        CaptureOp::Reduce,
        CaptureOp::Allreduce,
        CaptureOp::Alltoall,
        CaptureOp::Alltoallv,
        CaptureOp::Allgather,
        CaptureOp::Allgatherv,
        CaptureOp::Gather,
        CaptureOp::Gatherv,
        CaptureOp::Scatter,
        CaptureOp::Scatterv,
        CaptureOp::ReduceScatter,
        CaptureOp::ReduceScatterBlock,
        CaptureOp::Scan,
        CaptureOp::Exscan,
        CaptureOp::Ibarrier,
        CaptureOp::Ibcast,
        CaptureOp::Ireduce,
        CaptureOp::Iallreduce,
        CaptureOp::Ialltoall,
        CaptureOp::Iallgather,
        CaptureOp::Igather,
        CaptureOp::Iscatter,
        CaptureOp::IreduceScatterBlock,
        CaptureOp::Iscan,
        CaptureOp::Iexscan,
        CaptureOp::Iallgatherv,
        CaptureOp::Igatherv,
        CaptureOp::Iscatterv,
        CaptureOp::Ialltoallv,
        CaptureOp::IreduceScatter,
        CaptureOp::BarrierPersistent,
        CaptureOp::BcastPersistent,
        CaptureOp::ReducePersistent,
        CaptureOp::AllreducePersistent,
        CaptureOp::AlltoallPersistent,
        CaptureOp::AlltoallvPersistent,
        CaptureOp::AllgatherPersistent,
        CaptureOp::AllgathervPersistent,
        CaptureOp::GatherPersistent,
        CaptureOp::GathervPersistent,
        CaptureOp::ScatterPersistent,
        CaptureOp::ScattervPersistent,
        CaptureOp::ReduceScatterPersistent,
        CaptureOp::ReduceScatterBlockPersistent,
        CaptureOp::ScanPersistent,
        CaptureOp::ExscanPersistent,
    ];

    /// The operation of a shim code, None for an unknown code.
    pub fn from_code(code: u32) -> Option<CaptureOp> {
        Self::ALL.get(code as usize).copied()
    }

    /// The operation of an MPI name as [`CaptureOp::name`] gives it (`allgatherv`), None
    /// for another name.
    pub fn from_name(name: &str) -> Option<CaptureOp> {
        Self::ALL.into_iter().find(|o| o.name() == name)
    }

    /// The MPI name without the `MPI_` prefix, lower case (`allreduce`, `ibcast`).
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    /// Whether this is a nonblocking initiation (its entry and exit are the initiation call's).
    pub fn is_nonblocking(self) -> bool {
        (CaptureOp::Ibarrier as usize..=CaptureOp::IreduceScatter as usize)
            .contains(&(self as usize))
    }

    /// Whether this is an MPI-4 persistent collective (MPI Forum 2021, §6.13): the call is one
    /// `MPI_Start` of a request made by `MPI_<Coll>_init` (or Open MPI 4.1's `MPIX_<Coll>_init`);
    /// its entry is the `MPI_Start`, its exit the return of the `MPI_Wait` or `MPI_Test` that
    /// saw it complete.
    pub fn is_persistent(self) -> bool {
        (self as usize) >= CaptureOp::BarrierPersistent as usize
    }

    /// The blocking collective a persistent one performs (`allreduce` for
    /// `allreduce_persistent`); any other operation itself.
    pub fn blocking(self) -> CaptureOp {
        if self.is_persistent() {
            Self::ALL[self as usize - CaptureOp::BarrierPersistent as usize]
        } else {
            self
        }
    }

    /// Whether the shim records a count vector for the call ([`CaptureCounts`]): the
    /// v-forms and the reduce-scatter with a count per rank, blocking or not.
    pub fn has_count_vector(self) -> bool {
        use CaptureOp::*;
        matches!(
            self.blocking(),
            Allgatherv
                | Gatherv
                | Scatterv
                | Alltoallv
                | ReduceScatter
                | Iallgatherv
                | Igatherv
                | Iscatterv
                | Ialltoallv
                | IreduceScatter
        )
    }

    /// The Scalasca wait state its entries are attributed to; a nonblocking initiation has
    /// none (it does not wait), so None. A persistent collective has its blocking
    /// collective's: its call lasts from the `MPI_Start` to the completion seen in `MPI_Wait`
    /// or `MPI_Test`, so it waits there as the blocking call would.
    pub fn wait_kind(self) -> Option<WaitKind> {
        use CaptureOp::*;
        Some(match self.blocking() {
            Barrier => WaitKind::WaitBarrier,
            Allreduce | Alltoall | Alltoallv | Allgather | Allgatherv | ReduceScatter
            | ReduceScatterBlock => WaitKind::WaitNxN,
            Bcast | Scatter | Scatterv => WaitKind::LateBroadcast,
            Reduce | Gather | Gatherv => WaitKind::EarlyReduce,
            Scan | Exscan => WaitKind::EarlyScan,
            _ => return None,
        })
    }
}

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
}

/// Writes one rank's capture file frame by frame (each frame is written whole, so a rank
/// killed between frames leaves a readable file).
#[derive(Debug)]
pub struct CaptureWriter {
    file: File,
    path: PathBuf,
}

impl CaptureWriter {
    /// Creates `path` (refusing an existing file) and writes the header.
    ///
    /// # Errors
    /// [`CaptureFileError::Io`] when the file exists or cannot be written.
    pub fn create(path: &Path, header: &CaptureHeader) -> Result<Self, CaptureFileError> {
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|source| io_error(path, source))?;
        let mut w = CaptureWriter {
            file,
            path: path.to_owned(),
        };
        w.frame(FrameKind::Header, header)?;
        Ok(w)
    }

    /// Appends one chunk frame.
    ///
    /// # Errors
    /// [`CaptureFileError::Io`] on a write error.
    pub fn chunk(&mut self, chunk: &CaptureChunk) -> Result<(), CaptureFileError> {
        self.frame(FrameKind::Chunk, chunk)
    }

    /// Appends the footer and flushes.
    ///
    /// # Errors
    /// [`CaptureFileError::Io`] on a write error.
    pub fn finish(mut self, footer: &CaptureFooter) -> Result<(), CaptureFileError> {
        self.frame(FrameKind::Footer, footer)?;
        self.file
            .sync_data()
            .map_err(|source| io_error(&self.path, source))
    }

    fn frame<T: Serialize>(&mut self, kind: FrameKind, item: &T) -> Result<(), CaptureFileError> {
        let mut payload = Vec::new();
        ciborium::into_writer(item, &mut payload).map_err(|e| CaptureFileError::Format {
            path: self.path.display().to_string(),
            reason: super::cbor_ser_error(&e),
        })?;
        let mut bytes = Vec::with_capacity(payload.len() + 32);
        write_frame(&mut bytes, kind, &payload).expect("writing to a Vec cannot fail");
        self.file
            .write_all(&bytes)
            .map_err(|source| io_error(&self.path, source))
    }
}

fn io_error(path: &Path, source: std::io::Error) -> CaptureFileError {
    CaptureFileError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// One rank's capture as read back.
#[derive(Debug, Clone, PartialEq)]
pub struct RankCapture {
    /// The file it came from.
    pub path: PathBuf,
    /// Its header.
    pub header: CaptureHeader,
    /// Every site, indexed by [`CaptureSite::id`] (ids are dense from 0).
    pub sites: Vec<CaptureSite>,
    /// Every recorded call, in order.
    pub events: Vec<CaptureEvent>,
    /// Every count vector written ([`CaptureCounts`]), in the order first seen.
    pub counts: Vec<CaptureCounts>,
    /// The footer, None when the rank did not reach MPI_Finalize.
    pub footer: Option<CaptureFooter>,
    /// What ended the file early (a torn or damaged frame), None when it ended cleanly.
    pub damage: Option<String>,
}

impl RankCapture {
    /// Global time (seconds, rank 0's clock) of local time `t` (seconds): local minus the
    /// offset, interpolated linearly in local time between the MPI_Init and MPI_Finalize
    /// synchronisations (as Score-P does, Knüpfer et al. 2012); only the first one when the
    /// rank did not reach MPI_Finalize.
    pub fn to_global(&self, t: f64) -> f64 {
        let a = self.header.sync_init;
        let offset = match &self.footer {
            Some(f) if f.sync_finalize.local_s > a.local_s => {
                let b = f.sync_finalize;
                let w = (t - a.local_s) / (b.local_s - a.local_s);
                a.offset_s + w * (b.offset_s - a.offset_s)
            }
            _ => a.offset_s,
        };
        t - offset
    }
}

/// Whether a header payload is a capture header.
pub fn is_capture_header(payload: &[u8]) -> bool {
    ciborium::from_reader::<CaptureHeader, _>(payload)
        .is_ok_and(|h| h.item == "capture_header" && h.format == CAPTURE_FORMAT_NAME)
}

/// Reads one rank's capture file: the header, every whole chunk, the footer if written. A
/// torn last frame (the rank was killed while writing) ends the read and is reported in
/// [`RankCapture::damage`], not as an error.
///
/// # Errors
/// [`CaptureFileError::Io`] when the file cannot be read; [`CaptureFileError::Format`] when
/// it does not start with a capture header or is of a newer version.
pub fn read_capture(path: &Path) -> Result<RankCapture, CaptureFileError> {
    let file = File::open(path).map_err(|source| io_error(path, source))?;
    let mut remaining = file
        .metadata()
        .map_err(|source| io_error(path, source))?
        .len();
    let mut input = BufReader::new(file);
    let bad = |reason: String| CaptureFileError::Format {
        path: path.display().to_string(),
        reason,
    };
    let mut header: Option<CaptureHeader> = None;
    let mut out_sites = Vec::new();
    let mut events = Vec::new();
    let mut counts = Vec::new();
    let mut footer = None;
    let mut damage = None;
    loop {
        let frame = read_frame(&mut input, remaining).map_err(|source| io_error(path, source))?;
        match frame {
            Frame::End => break,
            Frame::Torn { n } => {
                damage = Some(format!("the last {n} bytes are a torn frame"));
                break;
            }
            Frame::Bad { reason } => {
                if header.is_none() {
                    return Err(bad(format!("not a capture file: {reason}")));
                }
                damage = Some(reason);
                break;
            }
            Frame::Ok { kind, payload, len } => {
                remaining -= len;
                let de = |e| bad(super::cbor_de_error(&e));
                match kind {
                    FrameKind::Header if header.is_none() => {
                        if !is_capture_header(&payload) {
                            return Err(bad("not a capture file (no capture header)".into()));
                        }
                        let h: CaptureHeader =
                            ciborium::from_reader(payload.as_slice()).map_err(de)?;
                        if h.version > CAPTURE_FORMAT_VERSION {
                            return Err(bad(format!(
                                "capture format version {} is newer than this reader's {}",
                                h.version, CAPTURE_FORMAT_VERSION
                            )));
                        }
                        header = Some(h);
                    }
                    _ if header.is_none() => {
                        return Err(bad("not a capture file (no capture header)".into()))
                    }
                    FrameKind::Chunk => {
                        let c: CaptureChunk =
                            ciborium::from_reader(payload.as_slice()).map_err(de)?;
                        out_sites.extend(c.sites);
                        events.extend(c.events);
                        counts.extend(c.counts);
                    }
                    FrameKind::Footer => {
                        footer = Some(ciborium::from_reader(payload.as_slice()).map_err(de)?);
                    }
                    other => return Err(bad(format!("unexpected {other:?} frame"))),
                }
            }
        }
    }
    let header = header.ok_or_else(|| bad("empty file".into()))?;
    out_sites.sort_by_key(|s: &CaptureSite| s.id);
    Ok(RankCapture {
        path: path.to_owned(),
        header,
        sites: out_sites,
        events,
        counts,
        footer,
        damage,
    })
}

/// Reads the files of one capture: each path is a rank's file or a capture directory, whose
/// `rank*.cbor` files are all read.
///
/// # Errors
/// [`CaptureFileError`] when a directory or file cannot be read or a file is no capture.
pub fn read_captures(paths: &[PathBuf]) -> Result<Vec<RankCapture>, CaptureFileError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let entries = std::fs::read_dir(p).map_err(|source| io_error(p, source))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("rank") && n.ends_with(".cbor"))
                })
                .collect();
            if found.is_empty() {
                return Err(CaptureFileError::Format {
                    path: p.display().to_string(),
                    reason: "a directory without rank*.cbor capture files".into(),
                });
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(p.clone());
        }
    }
    files.iter().map(|f| read_capture(f.as_path())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(rank: u32) -> CaptureHeader {
        CaptureHeader {
            item: "capture_header".into(),
            format: CAPTURE_FORMAT_NAME.into(),
            version: CAPTURE_FORMAT_VERSION,
            rank,
            world_size: 2,
            capture_id: "t".into(),
            host: "h".into(),
            pid: 1,
            command: vec!["app".into()],
            clock: "monotonic".into(),
            sync_init: CaptureSync {
                local_s: 10.0,
                offset_s: 1.0,
                rtt_s: 0.0,
            },
            t_start_s: 10.0,
        }
    }

    fn event(t: f64) -> CaptureEvent {
        CaptureEvent {
            op: CaptureOp::Allreduce,
            comm: 7,
            comm_size: 2,
            comm_rank: 0,
            bytes: 8,
            root: -1,
            site: 0,
            t_enter_s: t,
            t_exit_s: t + 1e-6,
            counts_hash: None,
        }
    }

    #[test]
    fn op_codes_follow_all_and_names_are_mpi_names() {
        for (i, op) in CaptureOp::ALL.iter().enumerate() {
            assert_eq!(CaptureOp::from_code(i as u32), Some(*op));
        }
        assert_eq!(CaptureOp::ReduceScatterBlock.name(), "reduce_scatter_block");
        assert_eq!(CaptureOp::Iallreduce.name(), "iallreduce");
        assert_eq!(
            CaptureOp::from_name("ialltoallv"),
            Some(CaptureOp::Ialltoallv)
        );
        assert_eq!(CaptureOp::from_name("allgatherv_init"), None);
        assert!(CaptureOp::Ibarrier.is_nonblocking() && !CaptureOp::Exscan.is_nonblocking());
        assert_eq!(CaptureOp::from_code(48), None);
        assert_eq!(CaptureOp::from_code(32), Some(CaptureOp::BarrierPersistent));
        assert_eq!(CaptureOp::from_code(47), Some(CaptureOp::ExscanPersistent));
        assert_eq!(
            CaptureOp::AllreducePersistent.name(),
            "allreduce_persistent"
        );
        assert_eq!(
            CaptureOp::ReduceScatterBlockPersistent.name(),
            "reduce_scatter_block_persistent"
        );
        for (i, op) in CaptureOp::ALL[32..].iter().enumerate() {
            assert!(op.is_persistent() && !op.is_nonblocking(), "{op:?}");
            assert_eq!(op.blocking(), CaptureOp::ALL[i]);
            assert_eq!(op.wait_kind(), CaptureOp::ALL[i].wait_kind());
            assert_eq!(op.has_count_vector(), CaptureOp::ALL[i].has_count_vector());
            assert!(op.wait_kind().is_some());
            assert_eq!(
                op.name(),
                format!("{}_persistent", CaptureOp::ALL[i].name())
            );
        }
        assert!(!CaptureOp::IreduceScatter.is_persistent());
        assert!(!CaptureOp::Exscan.is_persistent());
        assert_eq!(CaptureOp::Iallreduce.blocking(), CaptureOp::Iallreduce);
        // The codes of captures written before the nonblocking v-forms keep their meaning.
        assert_eq!(CaptureOp::from_code(26), Some(CaptureOp::Iexscan));
        assert_eq!(CaptureOp::IreduceScatter.name(), "ireduce_scatter");
        assert!(CaptureOp::Ialltoallv.is_nonblocking() && CaptureOp::Ialltoallv.has_count_vector());
        assert!(!CaptureOp::Allgather.has_count_vector());
    }

    #[test]
    fn count_vectors_round_trip_and_a_chunk_without_them_still_reads() {
        // A chunk as written before counts were recorded: no `counts`, no `counts_hash`.
        #[derive(Serialize)]
        struct OldEvent {
            op: CaptureOp,
            comm: u64,
            comm_size: u32,
            comm_rank: u32,
            bytes: u64,
            root: i32,
            site: u32,
            t_enter_s: f64,
            t_exit_s: f64,
        }
        #[derive(Serialize)]
        struct OldChunk {
            item: String,
            sites: Vec<CaptureSite>,
            events: Vec<OldEvent>,
        }
        let old = OldChunk {
            item: "capture_chunk".into(),
            sites: vec![],
            events: vec![OldEvent {
                op: CaptureOp::Alltoallv,
                comm: 1,
                comm_size: 2,
                comm_rank: 0,
                bytes: 16,
                root: -1,
                site: 0,
                t_enter_s: 1.0,
                t_exit_s: 2.0,
            }],
        };
        let mut bytes = Vec::new();
        ciborium::into_writer(&old, &mut bytes).unwrap();
        let read: CaptureChunk = ciborium::from_reader(bytes.as_slice()).unwrap();
        assert!(read.counts.is_empty() && read.events[0].counts_hash.is_none());

        let vector = vec![8u64, 24];
        let hash = counts_hash(&vector);
        assert_eq!(hash >> 63, 0);
        assert_ne!(hash, counts_hash(&[24, 8]));
        let mut e = event(1.0);
        e.op = CaptureOp::Ialltoallv;
        e.counts_hash = Some(hash);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rank0.cbor");
        let mut w = CaptureWriter::create(&path, &header(0)).unwrap();
        let counts = vec![CaptureCounts {
            site: 0,
            hash,
            bytes: vector,
        }];
        w.chunk(&CaptureChunk {
            item: "capture_chunk".into(),
            sites: vec![],
            events: vec![e],
            counts: counts.clone(),
        })
        .unwrap();
        let r = read_capture(&path).unwrap();
        assert_eq!(r.counts, counts);
        assert_eq!(r.events[0].counts_hash, Some(hash));
    }

    #[test]
    fn a_capture_round_trips_and_a_killed_rank_reads_partially() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rank0.cbor");
        let mut w = CaptureWriter::create(&path, &header(0)).unwrap();
        let site = CaptureSite {
            id: 0,
            module: "app".into(),
            offset: 0x1234,
            symbol: Some("main".into()),
            symbol_offset: 0x20,
        };
        w.chunk(&CaptureChunk {
            item: "capture_chunk".into(),
            sites: vec![site.clone()],
            events: vec![event(11.0), event(12.0)],
            counts: vec![],
        })
        .unwrap();
        // Killed here: no footer, and half a frame at the end.
        let full = std::fs::read(&path).unwrap();
        w.chunk(&CaptureChunk {
            item: "capture_chunk".into(),
            sites: vec![],
            events: vec![event(13.0)],
            counts: vec![],
        })
        .unwrap();
        let with_two = std::fs::read(&path).unwrap();
        let torn = &with_two[..full.len() + (with_two.len() - full.len()) / 2];
        let torn_path = dir.path().join("torn.cbor");
        std::fs::write(&torn_path, torn).unwrap();
        let r = read_capture(&torn_path).unwrap();
        assert_eq!(r.events.len(), 2);
        assert!(r.footer.is_none() && r.damage.is_some());
        assert_eq!(r.sites, vec![site]);
        // Offset 1 s at init only: global = local − 1.
        assert_eq!(r.to_global(11.0), 10.0);

        w.finish(&CaptureFooter {
            item: "capture_footer".into(),
            sync_finalize: CaptureSync {
                local_s: 20.0,
                offset_s: 3.0,
                rtt_s: 0.0,
            },
            events: 3,
            passed_through: 0,
        })
        .unwrap();
        let r = read_capture(&path).unwrap();
        assert_eq!(r.events.len(), 3);
        assert!(r.footer.is_some() && r.damage.is_none());
        // Halfway between the two synchronisations the offset is halfway: 2 s.
        assert_eq!(r.to_global(15.0), 13.0);
    }

    #[test]
    fn a_records_file_is_not_a_capture() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.cbor");
        let mut bytes = Vec::new();
        write_frame(&mut bytes, FrameKind::Header, &[0xa0]).unwrap();
        std::fs::write(&path, bytes).unwrap();
        assert!(matches!(
            read_capture(&path),
            Err(CaptureFileError::Format { .. })
        ));
    }
}
