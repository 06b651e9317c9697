//! Noise files: what `delaybench noise` writes. The records format family (checksummed frames,
//! [`super::frame`]), with items of their own: a [`NoiseHeader`] whose `format` is
//! [`NOISE_FORMAT_NAME`] and whose item tag is `noise_header` (so a records reader knows at
//! once it holds a noise file, not a run), one [`NoiseRank`] per rank with every detour on the
//! global clock, and a [`NoiseFooter`] when the command completed (docs/noise.md). Frames use
//! the kinds of the run's items: header 1, rank 2 (a block's kind), footer 3.

use super::{ClockInfo, F64Array, RecordsError};
use crate::frame::{read_frame, write_frame, Frame, FrameKind, MAGIC};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Name in every noise header.
pub const NOISE_FORMAT_NAME: &str = "delaybench-noise";
/// Version of the noise file layout.
pub const NOISE_FORMAT_VERSION: u32 = 1;

/// One item of a noise file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum NoiseItem {
    NoiseHeader(Box<NoiseHeader>),
    NoiseRank(Box<NoiseRank>),
    NoiseFooter(Box<NoiseFooter>),
}

/// What was measured, how and where; written first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoiseHeader {
    /// Always [`NOISE_FORMAT_NAME`].
    pub format: String,
    pub format_version: u32,
    pub tool_version: String,
    pub command_line: Vec<String>,
    /// UTC start, RFC 3339.
    pub start_utc: String,
    pub world_size: u32,
    /// Per rank: host name.
    pub hosts: Vec<String>,
    pub mpi_library: String,
    pub clock: ClockInfo,
    /// Clock synchronisation method that made the global clock (as in a run).
    pub clock_sync: String,
    /// Per rank: smallest RTT to rank 0 seen by the synchronisation, seconds; a detour
    /// instant compared across ranks is uncertain by about half of it.
    pub clock_min_rtt_s: Vec<f64>,
    /// `selfish`, `fwq` or `ftq` (`crate::noise::NoiseVariant`).
    pub variant: String,
    /// Detours longer than this were recorded, seconds.
    pub threshold_s: f64,
    /// How long every rank ran its loop, seconds.
    pub duration_s: f64,
    /// FWQ work target or FTQ quantum, seconds (0 for `selfish`).
    pub quantum_s: f64,
    /// The global instant at which every rank started its loop, seconds.
    pub start_global_s: f64,
    /// Where the noise comes from, as far as the machine tells: each source used, or why
    /// not (e.g. `osnoise: not available: /sys/kernel/tracing is not mounted`).
    pub sources: Vec<String>,
    /// A self-check's injected detours, `rank R: SPEC` (`--inject-detour`), if any.
    #[serde(default)]
    pub injected: Option<String>,
}

/// One rank's detours and what its CPU saw meanwhile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoiseRank {
    pub rank: u32,
    pub host: String,
    /// The CPU the rank ran on at the start, if known; `cpu_moved` says if it changed.
    pub cpu: Option<u32>,
    pub cpu_moved: bool,
    /// The loop's start and end on the global clock, seconds.
    pub start_global_s: f64,
    pub end_global_s: f64,
    /// Loop iterations (selfish: clock reads; fwq: work repetitions; ftq: quanta).
    pub iterations: u64,
    /// The shortest iteration, seconds: detours shorter than this cannot be seen.
    pub resolution_s: f64,
    /// Detours not kept because the per-rank limit was reached.
    pub dropped: u64,
    /// Per detour: its start on the global clock, seconds, ascending.
    pub detour_start_global_s: F64Array,
    /// Per detour: its length, seconds.
    pub detour_duration_s: F64Array,
    /// What the machine counted on this rank's CPU during the loop.
    pub machine: MachineCounts,
}

/// Counters of the kernel over the loop (after minus before), for the rank's CPU. Empty
/// lists where a source was unavailable (the header's `sources` says which).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MachineCounts {
    /// `/proc/interrupts` lines with a non-zero count on the CPU: (name, count).
    pub interrupts: Vec<(String, u64)>,
    /// `/proc/softirqs` lines with a non-zero count on the CPU: (name, count).
    pub softirqs: Vec<(String, u64)>,
    /// getrusage(RUSAGE_THREAD): voluntary and involuntary context switches of the loop.
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
    /// osnoise tracer per-CPU totals, when the tracer ran: (field, value).
    #[serde(default)]
    pub osnoise: Vec<(String, f64)>,
}

/// Written last when the command completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoiseFooter {
    pub wall_time_s: f64,
    pub warnings: Vec<String>,
}

/// A noise file read whole (a few MB at most: detours are sparse).
#[derive(Debug, Clone, PartialEq)]
pub struct NoiseRun {
    pub header: NoiseHeader,
    /// In rank order.
    pub ranks: Vec<NoiseRank>,
    /// `None` when the command was interrupted.
    pub footer: Option<NoiseFooter>,
}

/// Writes a noise file item by item; never overwrites.
pub struct NoiseWriter {
    out: BufWriter<File>,
    path: PathBuf,
}

impl NoiseWriter {
    /// Creates `path` and its parent directories. Errors: [`RecordsError::Exists`],
    /// [`RecordsError::Create`].
    pub fn create(path: &Path) -> Result<Self, RecordsError> {
        Ok(NoiseWriter {
            out: super::writer::create_new(path)?,
            path: path.to_path_buf(),
        })
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one item as one frame and flushes it. Errors: [`RecordsError::Write`].
    pub fn write(&mut self, item: &NoiseItem) -> Result<(), RecordsError> {
        let mut payload = Vec::new();
        ciborium::into_writer(item, &mut payload)
            .map_err(|e| RecordsError::Write(crate::frame::cbor::ser_error(&e)))?;
        write_frame(&mut self.out, kind_of(item), &payload)
            .and_then(|_| self.out.flush())
            .map_err(|e| RecordsError::Write(e.to_string()))
    }
}

fn kind_of(item: &NoiseItem) -> FrameKind {
    match item {
        NoiseItem::NoiseHeader(_) => FrameKind::Header,
        NoiseItem::NoiseRank(_) => FrameKind::Block,
        NoiseItem::NoiseFooter(_) => FrameKind::Footer,
    }
}

/// Just the tag and format of a first item, to tell a noise file from a run's records.
#[derive(Deserialize)]
struct Marker {
    item: String,
    #[serde(default)]
    format: String,
}

/// Whether a frame payload is a noise header (the marker readers look for).
pub fn is_noise_header(payload: &[u8]) -> bool {
    ciborium::from_reader::<Marker, _>(payload)
        .is_ok_and(|m| m.item == "noise_header" && m.format == NOISE_FORMAT_NAME)
}

/// Whether `path` is a noise file: its first frame is intact and holds a noise header.
/// False for anything else, including unreadable files (their readers report why).
pub fn is_noise_file(path: &Path) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    let Ok(size) = file.metadata().map(|m| m.len()) else {
        return false;
    };
    let mut input = BufReader::new(file);
    matches!(read_frame(&mut input, size),
        Ok(Frame::Ok { kind: FrameKind::Header, payload, .. }) if is_noise_header(&payload))
}

/// Reads a noise file whole. A file cut short (interrupted command) gives the complete
/// ranks and no footer. Errors: [`RecordsError::Open`], [`RecordsError::Read`],
/// [`RecordsError::NotRecords`] (not a noise file, an item that does not decode, items out
/// of order), [`RecordsError::Version`], [`RecordsError::Corrupt`] (a damaged frame).
pub fn read_noise(path: &Path) -> Result<NoiseRun, RecordsError> {
    let shown = path.display().to_string();
    let not = |reason: String| RecordsError::NotRecords {
        path: shown.clone(),
        reason,
    };
    let file = File::open(path).map_err(|source| RecordsError::Open {
        path: shown.clone(),
        source,
    })?;
    let size = file
        .metadata()
        .map_err(|source| RecordsError::Read {
            path: shown.clone(),
            source,
        })?
        .len();
    let mut input = BufReader::new(file);
    let mut magic = [0u8; 4];
    if size < 4 || input.read_exact(&mut magic).is_err() || magic != MAGIC {
        return Err(not("it does not start with a records frame".into()));
    }
    // Back to the start: the frame reader expects the magic.
    let file = input.into_inner();
    let mut input = BufReader::new(file);
    std::io::Seek::seek(&mut input, std::io::SeekFrom::Start(0)).map_err(|source| {
        RecordsError::Read {
            path: shown.clone(),
            source,
        }
    })?;
    let mut pos = 0u64;
    let mut items = Vec::new();
    loop {
        let frame = read_frame(&mut input, size - pos).map_err(|source| RecordsError::Read {
            path: shown.clone(),
            source,
        })?;
        match frame {
            Frame::End | Frame::Torn { .. } => break,
            Frame::Bad { reason } => {
                return Err(RecordsError::Corrupt {
                    path: shown.clone(),
                    item: if pos == 0 {
                        "header".into()
                    } else {
                        format!("rank {} or the footer", items.len().saturating_sub(1))
                    },
                    offset: pos,
                    reason,
                    later: 0,
                })
            }
            Frame::Ok { kind, payload, len } => {
                if pos == 0 && !is_noise_header(&payload) {
                    return Err(not(
                        "it is not a noise file (its first item is no noise header); \
                         a run's records file is read by analyze, export and plot as a run"
                            .into(),
                    ));
                }
                let item: NoiseItem = ciborium::from_reader(&payload[..]).map_err(|e| {
                    not(format!(
                        "an item does not decode ({})",
                        crate::frame::cbor::de_error(&e)
                    ))
                })?;
                if kind_of(&item) != kind {
                    return Err(not("an item's kind and content disagree".into()));
                }
                items.push(item);
                pos += len;
            }
        }
    }
    let mut items = items.into_iter();
    let Some(NoiseItem::NoiseHeader(header)) = items.next() else {
        return Err(not("the file holds no complete header".into()));
    };
    if header.format_version != NOISE_FORMAT_VERSION {
        return Err(RecordsError::Version {
            path: shown,
            found: header.format_version,
            expected: NOISE_FORMAT_VERSION,
        });
    }
    let mut run = NoiseRun {
        header: *header,
        ranks: Vec::new(),
        footer: None,
    };
    for item in items {
        match item {
            NoiseItem::NoiseRank(r) if run.footer.is_none() => {
                if r.detour_start_global_s.0.len() != r.detour_duration_s.0.len() {
                    return Err(not(format!(
                        "rank {} has {} detour starts but {} durations",
                        r.rank,
                        r.detour_start_global_s.0.len(),
                        r.detour_duration_s.0.len()
                    )));
                }
                run.ranks.push(*r);
            }
            NoiseItem::NoiseFooter(f) if run.footer.is_none() => run.footer = Some(*f),
            _ => {
                return Err(not(
                    "items out of order (a second header, or after the footer)".into(),
                ))
            }
        }
    }
    Ok(run)
}

#[doc(hidden)]
pub mod testdata {
    //! A small noise run for tests.
    use super::*;

    /// `ranks` ranks on one host `h`, 1 s from global 100 s, each with the given detours
    /// (start, duration) in seconds.
    pub fn run(detours: &[Vec<(f64, f64)>]) -> NoiseRun {
        let n = detours.len();
        NoiseRun {
            header: NoiseHeader {
                format: NOISE_FORMAT_NAME.into(),
                format_version: NOISE_FORMAT_VERSION,
                tool_version: "test".into(),
                command_line: vec!["delaybench".into(), "noise".into()],
                start_utc: "2026-01-01T00:00:00Z".into(),
                world_size: n as u32,
                hosts: vec!["h".into(); n],
                mpi_library: String::new(),
                clock: ClockInfo {
                    source: "monotonic".into(),
                    resolution_s: 1e-9,
                    timer_delay_s: 2e-8,
                },
                clock_sync: "offset".into(),
                clock_min_rtt_s: vec![0.0; n],
                variant: "selfish".into(),
                threshold_s: 2e-6,
                duration_s: 1.0,
                quantum_s: 0.0,
                start_global_s: 100.0,
                sources: vec!["getrusage".into()],
                injected: None,
            },
            ranks: detours
                .iter()
                .enumerate()
                .map(|(rank, d)| NoiseRank {
                    rank: rank as u32,
                    host: "h".into(),
                    cpu: Some(rank as u32),
                    cpu_moved: false,
                    start_global_s: 100.0,
                    end_global_s: 101.0,
                    iterations: 1000,
                    resolution_s: 3e-8,
                    dropped: 0,
                    detour_start_global_s: F64Array(d.iter().map(|x| x.0).collect()),
                    detour_duration_s: F64Array(d.iter().map(|x| x.1).collect()),
                    machine: MachineCounts::default(),
                })
                .collect(),
            footer: Some(NoiseFooter {
                wall_time_s: 1.5,
                warnings: Vec::new(),
            }),
        }
    }

    /// Writes `run` to `path` as the command does.
    pub fn write(run: &NoiseRun, path: &Path) -> Result<(), RecordsError> {
        let mut w = NoiseWriter::create(path)?;
        w.write(&NoiseItem::NoiseHeader(Box::new(run.header.clone())))?;
        for r in &run.ranks {
            w.write(&NoiseItem::NoiseRank(Box::new(r.clone())))?;
        }
        if let Some(f) = &run.footer {
            w.write(&NoiseItem::NoiseFooter(Box::new(f.clone())))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_noise_file_round_trips_and_is_told_apart_from_records() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.cbor");
        let run = testdata::run(&[vec![(100.1, 1e-5)], vec![(100.2, 2e-5), (100.3, 3e-6)]]);
        testdata::write(&run, &path).unwrap();
        assert!(is_noise_file(&path));
        assert_eq!(read_noise(&path).unwrap(), run);
        // A cut-off file keeps its complete ranks.
        let bytes = std::fs::read(&path).unwrap();
        let cut = dir.path().join("cut.cbor");
        std::fs::write(&cut, &bytes[..bytes.len() - 5]).unwrap();
        let got = read_noise(&cut).unwrap();
        assert_eq!((got.ranks.len(), got.footer), (2, None));
        // A damaged byte is reported, not read.
        let mut bad = bytes.clone();
        bad[40] ^= 1;
        let badp = dir.path().join("bad.cbor");
        std::fs::write(&badp, &bad).unwrap();
        assert!(matches!(
            read_noise(&badp),
            Err(RecordsError::Corrupt { .. })
        ));
        // A run's records file is no noise file, and the records reader names a noise file.
        let rec = dir.path().join("r.cbor");
        let mut w = crate::records::RecordsWriter::create(&rec).unwrap();
        w.write_header(&crate::records::testdata::header(2))
            .unwrap();
        drop(w);
        assert!(!is_noise_file(&rec));
        assert!(matches!(
            read_noise(&rec),
            Err(RecordsError::NotRecords { .. })
        ));
        let err = crate::records::RecordsStream::open(&path).err().unwrap();
        assert!(err.to_string().contains("noise file"), "{err}");
    }
}
