//! An OTF2 archive (Knüpfer et al. 2012) read as a capture: the MPI collectives Score-P
//! records, as the per-rank [`RankCapture`]s `arrivals`, `arrivals --rows causes` and the
//! `replay:` delay model read from a capture folder.
//!
//! Score-P writes each blocking collective as `Enter` of its `MPI_*` region,
//! `MpiCollectiveBegin`, `MpiCollectiveEnd` (collective, communicator, root, bytes) and
//! `Leave`, on the location of the calling rank; a rank is a location of the MPI group of
//! type `COMM_LOCATIONS` (its index there is its world rank), a communicator a group of type
//! `COMM_GROUP` whose members index that group. A call becomes one [`CaptureEvent`]: its
//! entry and exit are the MPI region's `Enter` and `Leave` on the archive's clock (ticks
//! minus the clock's offset, over its resolution, so the times are already global and the
//! capture's clock offsets are zero); its site is the region the call was made from (the
//! region below the MPI region on the location's stack), named with its source file and line
//! when the archive gives them. What the archive lacks is named: no `COMM_LOCATIONS` group,
//! no collective records.

use super::error::CaptureFileError;
use super::items::{
    CaptureEvent, CaptureFooter, CaptureHeader, CaptureSite, CaptureSync, CAPTURE_FORMAT_NAME,
    CAPTURE_FORMAT_VERSION, OTF2_MODULE,
};
use super::op::CaptureOp;
use super::reader::RankCapture;
use crate::otf2_sys::{read_trace, EventKind, Trace, OTF2_UNDEFINED_UINT32};
use std::collections::HashMap;
use std::path::Path;

/// Reads the archive whose anchor file is `anchor` as one capture, a [`RankCapture`] per MPI
/// rank.
///
/// Errors: [`CaptureFileError::Format`] naming the anchor file and what was wrong: the
/// library could not read it (missing or damaged files), it has no `COMM_LOCATIONS` group
/// (no MPI ranks), no clock properties, or not one MPI collective record.
pub fn read_otf2(anchor: &Path) -> Result<Vec<RankCapture>, CaptureFileError> {
    let bad = |reason: String| CaptureFileError::Format {
        path: anchor.display().to_string(),
        reason,
    };
    let trace = read_trace(anchor).map_err(|e| bad(format!("not a readable OTF2 archive: {e}")))?;
    if !trace.has_clock || trace.timer_resolution == 0 {
        return Err(bad(
            "the archive has no clock properties (timer resolution)".into(),
        ));
    }
    let world = trace
        .groups
        .values()
        .find(|g| g.comm_locations && g.mpi)
        .ok_or_else(|| {
            bad(
                "no MPI ranks: the archive has no group of type COMM_LOCATIONS (was MPI \
                 recorded?)"
                    .into(),
            )
        })?;
    let rank_of: HashMap<u64, u32> = world
        .members
        .iter()
        .enumerate()
        .map(|(r, &l)| (l, r as u32))
        .collect();
    let world_size = world.members.len() as u32;
    let seconds =
        |tick: u64| tick.saturating_sub(trace.global_offset) as f64 / trace.timer_resolution as f64;
    let mut ranks: Vec<RankState> = world
        .members
        .iter()
        .enumerate()
        .map(|(r, &l)| RankState::new(&trace, anchor, r as u32, world_size, l))
        .collect();
    let mut collectives = 0usize;
    for ev in &trace.events {
        let Some(&rank) = rank_of.get(&ev.location) else {
            continue;
        };
        let s = &mut ranks[rank as usize];
        match ev.kind {
            EventKind::Enter(region) => s.stack.push((region, ev.time, None)),
            EventKind::CollectiveBegin => {}
            EventKind::CollectiveEnd {
                op,
                comm,
                root,
                sent,
                ..
            } => {
                if let Some(top) = s.stack.last_mut() {
                    top.2 = Some((op, comm, root, sent));
                }
            }
            EventKind::Leave(_) => {
                let Some((region, enter, Some((op, comm, root, sent)))) = s.stack.pop() else {
                    continue;
                };
                collectives += 1;
                let caller = s.stack.last().map(|f| f.0);
                let members = comm_members(&trace, comm, &world.members, &rank_of);
                let Some(comm_rank) = members.iter().position(|&m| m == rank) else {
                    continue;
                };
                let Some(op) = capture_op(&trace, region, op) else {
                    continue;
                };
                let site = s.site(&trace, caller);
                s.capture.events.push(CaptureEvent {
                    op,
                    comm: comm_identity(&members),
                    comm_size: members.len() as u32,
                    comm_rank: comm_rank as u32,
                    bytes: sent,
                    root: if root == OTF2_UNDEFINED_UINT32 {
                        -1
                    } else {
                        root as i32
                    },
                    site,
                    t_enter_s: seconds(enter),
                    t_exit_s: seconds(ev.time),
                    counts_hash: None,
                });
            }
        }
    }
    if collectives == 0 {
        return Err(bad(
            "the archive holds no MPI collective records (MpiCollectiveBegin/End inside an \
             MPI_* region): was it recorded with MPI event recording on?"
                .into(),
        ));
    }
    Ok(ranks
        .into_iter()
        .map(|mut s| {
            if let Some(f) = s.capture.footer.as_mut() {
                f.events = s.capture.events.len() as u64;
            }
            s.capture
        })
        .collect())
}

/// The collective recorded inside a region: OTF2 op, communicator, root, bytes sent.
type Collective = (u8, u32, u32, u64);

/// One rank while its events are read.
struct RankState {
    capture: RankCapture,
    /// The regions entered and not yet left: region, enter tick, the collective recorded
    /// inside it (op, comm, root, bytes sent).
    stack: Vec<(u32, u64, Option<Collective>)>,
    sites: HashMap<Option<u32>, u32>,
}

impl RankState {
    fn new(trace: &Trace, anchor: &Path, rank: u32, world_size: u32, location: u64) -> Self {
        let host = trace
            .locations
            .iter()
            .find(|l| l.0 == location)
            .and_then(|l| trace.location_groups.get(&l.1))
            .and_then(|g| trace.nodes.get(&g.1))
            .cloned()
            .unwrap_or_default();
        let zero = CaptureSync {
            local_s: 0.0,
            offset_s: 0.0,
            rtt_s: 0.0,
        };
        RankState {
            capture: RankCapture {
                path: anchor.to_path_buf(),
                header: CaptureHeader {
                    item: "capture_header".into(),
                    format: CAPTURE_FORMAT_NAME.into(),
                    version: CAPTURE_FORMAT_VERSION,
                    rank,
                    world_size,
                    capture_id: anchor.display().to_string(),
                    host,
                    pid: 0,
                    command: Vec::new(),
                    clock: "otf2".into(),
                    sync_init: zero,
                    t_start_s: 0.0,
                    mpi_library: None,
                    algorithm_variables: Default::default(),
                },
                sites: Vec::new(),
                events: Vec::new(),
                counts: Vec::new(),
                footer: Some(CaptureFooter {
                    item: "capture_footer".into(),
                    sync_finalize: zero,
                    events: 0,
                    passed_through: 0,
                    finalize_sync_skipped: false,
                }),
                damage: None,
            },
            stack: Vec::new(),
            sites: HashMap::new(),
        }
    }

    /// The site id of calls made from `caller` (None: from no region), defined on first use.
    fn site(&mut self, trace: &Trace, caller: Option<u32>) -> u32 {
        if let Some(&id) = self.sites.get(&caller) {
            return id;
        }
        let id = self.capture.sites.len() as u32;
        let symbol = caller.and_then(|r| trace.regions.get(&r)).map(|r| {
            if r.file.is_empty() {
                r.name.clone()
            } else {
                format!("{} {}:{}", r.name, r.file, r.line)
            }
        });
        self.capture.sites.push(CaptureSite {
            id,
            module: OTF2_MODULE.into(),
            offset: caller.map_or(u64::from(u32::MAX), u64::from),
            symbol: Some(symbol.unwrap_or_else(|| "(no calling region)".into())),
            symbol_offset: 0,
        });
        self.sites.insert(caller, id);
        id
    }
}

/// The world ranks of communicator `comm`, in its rank order: its `COMM_GROUP` members index
/// the `COMM_LOCATIONS` group; an undefined communicator is every rank.
fn comm_members(trace: &Trace, comm: u32, world: &[u64], rank_of: &HashMap<u64, u32>) -> Vec<u32> {
    match trace.comms.get(&comm).and_then(|g| trace.groups.get(g)) {
        Some(g) if g.comm_group => g
            .members
            .iter()
            .filter_map(|&i| world.get(i as usize).and_then(|l| rank_of.get(l)).copied())
            .collect(),
        _ => (0..world.len() as u32).collect(),
    }
}

/// The communicator's identity as the capture library computes it: FNV-1a over its
/// members' world ranks in its rank order, each as four little-endian bytes.
fn comm_identity(members: &[u32]) -> u64 {
    use std::hash::Hasher;
    let mut h = fnv::FnvHasher::default();
    for m in members {
        h.write(&m.to_le_bytes());
    }
    h.finish()
}

/// The capture's operation of a call: by its MPI region's name (`MPI_Allreduce` ->
/// `allreduce`), else by the record's `OTF2_CollectiveOp`.
fn capture_op(trace: &Trace, region: u32, op: u8) -> Option<CaptureOp> {
    let by_name = trace
        .regions
        .get(&region)
        .and_then(|r| r.name.strip_prefix("MPI_"))
        .map(str::to_lowercase)
        .and_then(|n| CaptureOp::from_name(&n));
    by_name.or_else(|| {
        let name = crate::otf2_sys::collective_name(op)?;
        CaptureOp::from_name(name)
    })
}
