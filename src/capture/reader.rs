//! Reading capture files back: one rank's file ([`read_capture`]), a capture's files or
//! directory ([`read_captures`]), and a rank's local times on the global clock
//! ([`RankCapture::to_global`]).

use super::error::{io_error, CaptureFileError};
use super::items::{
    CaptureChunk, CaptureCounts, CaptureEvent, CaptureFooter, CaptureHeader, CaptureSite,
    CAPTURE_FORMAT_NAME, CAPTURE_FORMAT_VERSION,
};
use crate::clock::interpolate_offset;
use crate::frame::{read_frame, Frame, FrameKind};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

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
    /// synchronisations by the clock's one interpolation ([`interpolate_offset`], as Score-P
    /// does, Knüpfer et al. 2012); only the first one when the rank did not reach
    /// MPI_Finalize or the MPI_Finalize synchronisation was skipped
    /// ([`CaptureFooter::finalize_sync_skipped`]).
    pub fn to_global(&self, t: f64) -> f64 {
        let a = self.header.sync_init;
        let offset = match &self.footer {
            Some(f) if !f.finalize_sync_skipped && f.sync_finalize.local_s > a.local_s => {
                let b = f.sync_finalize;
                interpolate_offset((a.local_s, a.offset_s), (b.local_s, b.offset_s), t)
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
                let de = |e| bad(crate::frame::cbor::de_error(&e));
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
/// `rank*.cbor` files are all read, or an OTF2 archive (its anchor file or its directory,
/// [`otf2_anchor`]), read as a capture by `otf2_import.rs` (feature `otf2`).
///
/// # Errors
/// [`CaptureFileError`] when a directory or file cannot be read or a file is no capture.
pub fn read_captures(paths: &[PathBuf]) -> Result<Vec<RankCapture>, CaptureFileError> {
    let mut files = Vec::new();
    let mut archives = Vec::new();
    for p in paths {
        if let Some(anchor) = otf2_anchor(p) {
            archives.extend(super::otf2_import::read_otf2(&anchor)?);
        } else if p.is_dir() {
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
    let mut captures: Vec<RankCapture> = files
        .iter()
        .map(|f| read_capture(f.as_path()))
        .collect::<Result<_, _>>()?;
    captures.extend(archives);
    Ok(captures)
}

/// The anchor file of an OTF2 archive (Score-P's `traces.otf2`) when `path` is one or is a
/// directory holding one (`traces.otf2`, or its only `*.otf2` file); None otherwise.
pub fn otf2_anchor(path: &Path) -> Option<PathBuf> {
    let is_otf2 = |p: &Path| p.is_file() && p.extension().is_some_and(|e| e == "otf2");
    if is_otf2(path) {
        return Some(path.to_path_buf());
    }
    if !path.is_dir() {
        return None;
    }
    let traces = path.join("traces.otf2");
    if is_otf2(&traces) {
        return Some(traces);
    }
    let mut found = std::fs::read_dir(path)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_otf2(p));
    let one = found.next()?;
    found.next().is_none().then_some(one)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{counts_hash, CaptureOp, CaptureSync, CaptureWriter};
    use crate::frame::write_frame;
    use serde::Serialize;

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
            mpi_library: None,
            algorithm_variables: Default::default(),
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
            finalize_sync_skipped: false,
        })
        .unwrap();
        let r = read_capture(&path).unwrap();
        assert_eq!(r.events.len(), 3);
        assert!(r.footer.is_some() && r.damage.is_none());
        // Halfway between the two synchronisations the offset is halfway: 2 s.
        assert_eq!(r.to_global(15.0), 13.0);
    }

    #[test]
    fn a_skipped_finalize_sync_is_read_and_leaves_the_init_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rank0.cbor");
        let w = CaptureWriter::create(&path, &header(0)).unwrap();
        let footer = CaptureFooter {
            item: "capture_footer".into(),
            // What the interposer writes when skipping: the MPI_Init synchronisation again.
            sync_finalize: header(0).sync_init,
            events: 0,
            passed_through: 0,
            finalize_sync_skipped: true,
        };
        w.finish(&footer).unwrap();
        let r = read_capture(&path).unwrap();
        assert_eq!(r.footer, Some(footer));
        assert_eq!(r.to_global(15.0), 14.0);
        // A footer written before the field reads as not skipped.
        #[derive(Serialize)]
        struct OldFooter {
            item: String,
            sync_finalize: CaptureSync,
            events: u64,
            passed_through: u64,
        }
        let mut bytes = Vec::new();
        let old = OldFooter {
            item: "capture_footer".into(),
            sync_finalize: header(0).sync_init,
            events: 0,
            passed_through: 0,
        };
        ciborium::into_writer(&old, &mut bytes).unwrap();
        let read: CaptureFooter = ciborium::from_reader(bytes.as_slice()).unwrap();
        assert!(!read.finalize_sync_skipped);
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
