//! `--format otf2` of `export`: a records file as an OTF2 archive (Knüpfer et al. 2012), the
//! trace format Score-P writes, Vampir draws and Scalasca analyses, written through the OTF2
//! library itself ([`crate::otf2_sys::ArchiveWriter`]).
//!
//! An archive is a directory, not rows: the format's [`RowExporter`] refuses rows, and
//! `export` hands the whole [`Timeline`] to [`write_archive`] instead. The layout is
//! Score-P's for MPI (so Scalasca finds its wait states): a system tree node per host, a
//! process (location group) `MPI Rank r` with one location per rank, the global clock as the
//! timer in nanoseconds; per repetition and rank `Enter` of the kernel's MPI region at the
//! recorded start, `MpiCollectiveBegin`, `MpiCollectiveEnd` (collective, communicator,
//! root, bytes) and `Leave` at the recorded end; the injected delay as the region
//! `delaybench: injected delay` ending at the start; each recorded detour as a region
//! `delaybench: detour (SPEC)`, cut where it crosses a call's boundary so that regions
//! nest. The call's `Enter` carries the attributes block, repetition, δ, algorithm and
//! validity (docs/exports.md).

use super::super::{ExportError, RowExporter, RowSink, RowsSpec};
use super::ArchiveSummary;
use crate::otf2_sys::{
    collective_op, ArchiveWriter, AttrValue, AttributeDef, CommDef, GlobalDefs, LocationDef,
    Otf2Error, RegionDef, RegionRole, OTF2_UNDEFINED_TIMESTAMP, OTF2_UNDEFINED_UINT32,
};
use crate::plan::kernel::{Family, Form};
use crate::plan::Op;
use crate::records::Block;
use crate::timeline::Timeline;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// The OTF2 exporter of the registry: it writes archives ([`write_archive`]), not rows.
#[derive(Debug, Clone, Copy, Default)]
pub struct Otf2;

/// The OTF2 exporter, for the registry.
pub const OTF2: Otf2 = Otf2;

/// What `--format otf2` says when asked for rows.
pub const NOT_ROWS: &str = "--format otf2 writes an archive (a directory), not rows: \
                            `delaybench export RECORDS --format otf2 --output DIR`";

impl RowExporter for Otf2 {
    fn open<'a>(
        &self,
        _: &RowsSpec<'_>,
        _: &'a mut dyn Write,
    ) -> Result<Box<dyn RowSink + 'a>, ExportError> {
        Err(ExportError::Io(std::io::Error::other(NOT_ROWS)))
    }
}

/// The archive's name inside its directory (`DIR/traces.otf2`, as Score-P names it).
pub const ARCHIVE_NAME: &str = "traces";

/// The region of an injected delay.
pub const DELAY_REGION: &str = "delaybench: injected delay";

/// The attributes of every call's `Enter`, in id order: name, description, a value of
/// their type.
const ATTRIBUTES: [(&str, &str, AttrValue); 5] = [
    (
        "delaybench::block",
        "index of the block in the records file, from 0",
        AttrValue::U32(0),
    ),
    (
        "delaybench::repetition",
        "repetition within the block, from 0",
        AttrValue::U32(0),
    ),
    (
        "delaybench::delta_s",
        "the block's nominal delay δ, seconds",
        AttrValue::F64(0.0),
    ),
    (
        "delaybench::algorithm",
        "the collective algorithm (`--algorithms`), empty when none was set",
        AttrValue::Str(0),
    ),
    (
        "delaybench::valid",
        "1 when no rank of the repetition started late or overran its window",
        AttrValue::U8(0),
    ),
];

/// The tick (ns) of a global time in seconds: rounded to the nearest nanosecond.
///
/// Errors: a negative or non-finite time, which no tick holds.
pub fn ticks(t_s: f64) -> Option<u64> {
    (t_s.is_finite() && t_s >= 0.0).then(|| (t_s * 1e9).round() as u64)
}

/// The MPI function a kernel calls, as MPI names it (`MPI_Allreduce`, `MPI_Iallreduce`,
/// `MPI_Start` for the persistent forms), with its collective's OTF2 name; the `ref:*`
/// reference algorithms, built on point-to-point, are user regions without collective
/// records.
fn region_of(op: Op) -> (String, Option<(&'static str, RegionRole)>) {
    if op.is_reference() {
        return (format!("delaybench: {}", op.name()), None);
    }
    let base = op
        .name()
        .trim_end_matches("_persistent")
        .trim_start_matches(if op.is_nonblocking() { "i" } else { "" });
    let role = role_of(base);
    let name = match op.form() {
        Form::Persistent => "MPI_Start".to_string(),
        Form::Nonblocking => format!("MPI_I{base}"),
        Form::Blocking => {
            let mut c = base.chars();
            let first = c.next().map(|f| f.to_ascii_uppercase()).unwrap_or('_');
            format!("MPI_{first}{}", c.as_str())
        }
    };
    (name, Some((base_name(base), role)))
}

/// The role Score-P gives an MPI collective's region, by its name without `MPI_`.
fn role_of(collective: &str) -> RegionRole {
    match collective {
        "barrier" => RegionRole::Barrier,
        "bcast" | "scatter" | "scatterv" => RegionRole::OneToAll,
        "reduce" | "gather" | "gatherv" => RegionRole::AllToOne,
        "scan" | "exscan" => RegionRole::CollOther,
        _ => RegionRole::AllToAll,
    }
}

/// The collective's name as a `'static` str of [`collective_op`]'s table.
fn base_name(base: &str) -> &'static str {
    Op::ALL
        .iter()
        .map(|op| op.name())
        .find(|n| *n == base)
        .unwrap_or("")
}

/// Whether the family roots at rank 0.
fn rooted(family: Family) -> bool {
    matches!(
        family,
        Family::Bcast
            | Family::Reduce
            | Family::Gather
            | Family::Gatherv
            | Family::Scatter
            | Family::Scatterv
    )
}

/// The definitions being gathered while the events are written.
#[derive(Default)]
struct Defs {
    defs: GlobalDefs,
    strings: HashMap<String, u32>,
    regions: HashMap<String, u32>,
    comms: HashMap<Vec<u64>, u32>,
}

impl Defs {
    fn string(&mut self, s: &str) -> u32 {
        if let Some(&r) = self.strings.get(s) {
            return r;
        }
        let r = self.defs.strings.len() as u32;
        self.defs.strings.push(s.to_string());
        self.strings.insert(s.to_string(), r);
        r
    }

    fn region(&mut self, name: &str, role: RegionRole, mpi: bool) -> u32 {
        if let Some(&r) = self.regions.get(name) {
            return r;
        }
        let r = self.defs.regions.len() as u32;
        let name_ref = self.string(name);
        self.defs.regions.push(RegionDef {
            name: name_ref,
            role,
            mpi,
        });
        self.regions.insert(name.to_string(), r);
        r
    }

    /// The definitions every archive starts with: a location `MPI Rank r` per rank under
    /// its host (`host_of(r)`; hosts in order of first appearance), the machine `machine`,
    /// and `attributes` (name, description, a value of their type) as ids 0, 1, ...
    fn new(
        world: usize,
        host_of: impl Fn(usize) -> String,
        machine: &str,
        attributes: &[(&str, &str, AttrValue)],
    ) -> Defs {
        let mut d = Defs::default();
        let mut hosts: Vec<String> = Vec::new();
        for rank in 0..world {
            let host = host_of(rank);
            let h = hosts.iter().position(|x| *x == host).unwrap_or_else(|| {
                hosts.push(host);
                hosts.len() - 1
            });
            let name = d.string(&format!("MPI Rank {rank}"));
            d.defs.locations.push(LocationDef { name, host: h });
        }
        d.defs.hosts = hosts.iter().map(|h| d.string(h)).collect::<Vec<_>>();
        d.defs.machine = d.string(machine);
        for &(name, description, value) in attributes {
            let (name, description) = (d.string(name), d.string(description));
            d.defs.attributes.push(AttributeDef {
                name,
                description,
                otf2_type: value.otf2_type(),
            });
        }
        d
    }

    /// The clock: nanosecond ticks from `first` to `last` (none written: 0), `realtime` the
    /// wall-clock time of `first` in ns since 1970 when known.
    fn clock(&mut self, first: u64, last: u64, realtime: Option<u64>) {
        self.defs.timer_resolution = 1_000_000_000;
        self.defs.global_offset = if first == u64::MAX { 0 } else { first };
        self.defs.trace_length = last.saturating_sub(self.defs.global_offset);
        self.defs.realtime_ns = realtime.unwrap_or(OTF2_UNDEFINED_TIMESTAMP);
    }

    fn comm(&mut self, members: Vec<u64>, world: usize) -> u32 {
        if let Some(&c) = self.comms.get(&members) {
            return c;
        }
        let c = self.defs.comms.len() as u32;
        let name =
            if members.len() == world && members.iter().enumerate().all(|(i, &m)| m == i as u64) {
                "MPI_COMM_WORLD".to_string()
            } else {
                format!("delaybench: {} ranks", members.len())
            };
        let name = self.string(&name);
        self.defs.comms.push(CommDef {
            name,
            members: members.clone(),
        });
        self.comms.insert(members, c);
        c
    }
}

/// A call's collective record: OTF2 op, communicator, root, bytes.
#[derive(Clone, Copy)]
struct Coll {
    op: u8,
    comm: u32,
    root: u32,
    bytes: u64,
}

/// One region instance on one location, with the detour pieces nested in it.
struct Span {
    start: u64,
    end: u64,
    region: u32,
    attributes: Vec<(u32, AttrValue)>,
    coll: Option<Coll>,
    inner: Vec<(u64, u64)>,
}

/// Writes the records read by `timeline` as the OTF2 archive `dir/traces.otf2` (with
/// `dir/traces.def` and `dir/traces/`); `dir` must not exist or be empty.
///
/// Errors: [`ExportError::Records`] when the records file cannot be read,
/// [`ExportError::Otf2`] when the library refuses (the directory cannot be created, a
/// write fails) or a time cannot be a tick.
pub fn write_archive(timeline: &mut Timeline, dir: &Path) -> Result<ArchiveSummary, ExportError> {
    let otf2 = |e: Otf2Error| ExportError::Otf2 {
        path: dir.to_path_buf(),
        what: e.to_string(),
    };
    let header = timeline.header().clone();
    let world = header.world_size as usize;
    let mut d = Defs::new(
        world,
        |rank| header.hosts.get(rank).cloned().unwrap_or_default(),
        &format!("delaybench run {}", header.provenance.run_id),
        &ATTRIBUTES,
    );
    let delay_region = d.region(DELAY_REGION, RegionRole::Artificial, false);
    let creator = format!("delaybench {}", header.tool_version);
    let description = format!("delaybench records of run {}", header.provenance.run_id);
    let mut w = ArchiveWriter::create(dir, ARCHIVE_NAME, &creator, &description).map_err(otf2)?;
    let mut summary = ArchiveSummary {
        locations: world,
        ..ArchiveSummary::default()
    };
    let mut last = vec![0u64; world];
    let (mut first_tick, mut last_tick) = (u64::MAX, 0u64);
    for (b, block) in timeline.by_ref().enumerate() {
        let block = block?;
        summary.blocks += 1;
        let p = block.nprocs as usize;
        let members: Vec<u64> = (0..p)
            .map(|r| block.world_ranks.get(r).map_or(r as u64, |&w| w as u64))
            .collect();
        let (name, coll) = region_of(block.op);
        let region = d.region(
            &name,
            coll.map_or(RegionRole::Function, |c| c.1),
            coll.is_some(),
        );
        let coll = coll
            .and_then(|(base, _)| collective_op(base))
            .map(|op| Coll {
                op,
                comm: d.comm(members.clone(), world),
                root: if rooted(block.op.family()) {
                    0
                } else {
                    OTF2_UNDEFINED_UINT32
                },
                bytes: block.bytes,
            });
        let algorithm = d.string(block.algorithm_name());
        let detour_region = block.detour.as_ref().map(|det| {
            d.region(
                &format!("delaybench: detour ({})", det.spec),
                RegionRole::Artificial,
                false,
            )
        });
        for (rank, &location) in members.iter().enumerate() {
            let spans = spans_of(
                &block,
                b,
                rank,
                last[location as usize],
                region,
                delay_region,
                coll,
                algorithm,
                &mut summary.skipped,
            );
            let mut spans = spans;
            if let (Some(det), Some(detour_region)) = (&block.detour, detour_region) {
                if let Some(applied) = det.applied.get(rank) {
                    let pieces = applied
                        .start_global_s
                        .0
                        .iter()
                        .zip(&applied.duration_s.0)
                        .filter_map(|(&s, &len)| Some((ticks(s)?, ticks(s + len)?)));
                    nest_detours(&mut spans, pieces, last[location as usize], detour_region);
                }
            }
            for s in &spans {
                // The library takes each location's events in time order only: a region
                // that begins before the location's last event (global times that overlap
                // the previous repetition's) begins at that event instead, and is counted.
                let cur = last[location as usize];
                let (start, end) = (s.start.max(cur), s.end.max(s.start.max(cur)));
                summary.moved += u64::from(start != s.start || end != s.end);
                first_tick = first_tick.min(start);
                last_tick = last_tick.max(end);
                w.enter(location, start, s.region, &s.attributes)
                    .map_err(otf2)?;
                summary.enters += 1;
                if s.coll.is_some() {
                    w.collective_begin(location, start).map_err(otf2)?;
                    summary.collectives += 1;
                }
                for &(a, z) in &s.inner {
                    let r = detour_region.expect("pieces only with detours");
                    let a = a.clamp(start, end);
                    w.enter(location, a, r, &[]).map_err(otf2)?;
                    w.leave(location, z.clamp(a, end), r).map_err(otf2)?;
                    summary.enters += 1;
                }
                if let Some(c) = s.coll {
                    w.collective_end(location, end, c.op, c.comm, c.root, c.bytes, c.bytes)
                        .map_err(otf2)?;
                }
                w.leave(location, end, s.region).map_err(otf2)?;
                last[location as usize] = end;
            }
        }
    }
    let start_ns = chrono::DateTime::parse_from_rfc3339(&header.start_utc)
        .ok()
        .and_then(|t| t.timestamp_nanos_opt())
        .and_then(|n| u64::try_from(n).ok());
    d.clock(first_tick, last_tick, start_ns);
    w.finish(&d.defs).map_err(otf2)?;
    Ok(summary)
}

/// The delay and call spans of one rank of a block, in time order: per repetition the
/// injected delay (ending at the start, beginning no earlier than what the location last
/// left) and the call with its attributes.
#[allow(clippy::too_many_arguments)]
fn spans_of(
    block: &Block,
    b: usize,
    rank: usize,
    mut last: u64,
    region: u32,
    delay_region: u32,
    coll: Option<Coll>,
    algorithm: u32,
    skipped: &mut u64,
) -> Vec<Span> {
    let mut spans = Vec::with_capacity(2 * block.nrep as usize);
    for rep in 0..block.nrep as usize {
        let i = block.idx(rep, rank);
        let (Some(start), Some(end)) = (
            ticks(block.t_start_global_s.0[i]),
            ticks(block.t_end_global_s.0[i]),
        ) else {
            *skipped += 1;
            continue;
        };
        let delay = block.applied_delay_s.0.get(i).copied().unwrap_or(0.0);
        if delay > 0.0 {
            let from = ticks(block.t_start_global_s.0[i] - delay)
                .unwrap_or(0)
                .max(last);
            if from < start {
                spans.push(Span {
                    start: from,
                    end: start,
                    region: delay_region,
                    attributes: Vec::new(),
                    coll: None,
                    inner: Vec::new(),
                });
            }
        }
        spans.push(Span {
            start,
            end: end.max(start),
            region,
            attributes: vec![
                (0, AttrValue::U32(b as u32)),
                (1, AttrValue::U32(rep as u32)),
                (2, AttrValue::F64(block.delay_s)),
                (3, AttrValue::Str(algorithm)),
                (4, AttrValue::U8(block.rep_valid(rep) as u8)),
            ],
            coll,
            inner: Vec::new(),
        });
        last = last.max(end);
    }
    spans
}

/// Adds the detours `pieces` (start and end ticks) to `spans`: the part inside a span nests
/// in it, the parts between spans become spans of their own (none before `last`, what the
/// location last left in an earlier block).
fn nest_detours(
    spans: &mut Vec<Span>,
    pieces: impl Iterator<Item = (u64, u64)>,
    last: u64,
    detour: u32,
) {
    let mut gaps = Vec::new();
    for (a, b) in pieces {
        let mut cur = a.max(last);
        for s in spans.iter_mut() {
            if s.end <= cur || cur >= b {
                continue;
            }
            if s.start >= b {
                break;
            }
            if cur < s.start {
                gaps.push((cur, s.start));
            }
            let (x, y) = (cur.max(s.start), b.min(s.end));
            if x < y {
                s.inner.push((x, y));
            }
            cur = s.end;
        }
        if cur < b {
            gaps.push((cur, b));
        }
    }
    spans.extend(gaps.into_iter().map(|(start, end)| Span {
        start,
        end,
        region: detour,
        attributes: Vec::new(),
        coll: None,
        inner: Vec::new(),
    }));
    spans.sort_by_key(|s| (s.start, s.end));
}

/// The attributes of every captured call's `Enter`, in id order: name, description, a
/// value of their type.
const CALL_ATTRIBUTES: [(&str, &str, AttrValue); 4] = [
    (
        "delaybench::waiting_s",
        "the call's waiting (Scalasca's wait state of its collective), seconds",
        AttrValue::F64(0.0),
    ),
    (
        "delaybench::cause_rank",
        "the world rank whose region the waiting is given to (absent: none named)",
        AttrValue::U32(0),
    ),
    (
        "delaybench::cause_region",
        "that region, `from → to` (absent: none named)",
        AttrValue::Str(0),
    ),
    (
        "delaybench::cause_kind",
        "direct, propagated, unexplained or none",
        AttrValue::Str(0),
    ),
];

/// Writes a capture as the OTF2 archive `dir/traces.otf2`: per rank a location under its
/// host, a region `delaybench: capture` from the rank's capture start to its last exit, and
/// per complete call (a matched instance's member) `Enter` of its site's region (the site's
/// name: demangled symbol, file:line), `Enter` of its MPI region (`MPI_Allreduce`),
/// `MpiCollectiveBegin`, `MpiCollectiveEnd` (collective, communicator, root, bytes),
/// `Leave`, `Leave`, on the global clock in nanoseconds; the MPI `Enter` carries the
/// call's waiting and its cause (`causes`, whose `calls` follow `matched`'s instances and
/// members). Calls of incomplete instances are left out (`matched.incomplete_calls`).
///
/// Errors: [`ExportError::Otf2`] when the library refuses or a time cannot be a tick.
pub fn write_capture_archive(
    captures: &[crate::capture::RankCapture],
    matched: &crate::capture::Matched,
    causes: &crate::analysis::causes::CausesReport,
    dir: &Path,
) -> Result<ArchiveSummary, ExportError> {
    let otf2 = |e: Otf2Error| ExportError::Otf2 {
        path: dir.to_path_buf(),
        what: e.to_string(),
    };
    let tick_of = |t: f64| {
        ticks(t).ok_or_else(|| ExportError::Otf2 {
            path: dir.to_path_buf(),
            what: format!("a time of {t} s is no tick (negative or not finite)"),
        })
    };
    let world = matched.world_size as usize;
    let host_of: HashMap<u32, &str> = captures
        .iter()
        .map(|c| (c.header.rank, c.header.host.as_str()))
        .collect();
    let id = captures
        .first()
        .map_or("", |c| c.header.capture_id.as_str());
    let mut d = Defs::new(
        world,
        |rank| {
            host_of
                .get(&(rank as u32))
                .copied()
                .unwrap_or_default()
                .to_string()
        },
        &format!("delaybench capture {id}"),
        &CALL_ATTRIBUTES,
    );
    let span = d.region("delaybench: capture", RegionRole::Artificial, false);
    // Each communicator's members by communicator rank, from the instances.
    let mut members: HashMap<u64, Vec<u64>> = HashMap::new();
    for inst in &matched.instances {
        members.entry(inst.comm).or_insert_with(|| {
            let mut m: Vec<(u32, u64)> = inst
                .entries
                .iter()
                .map(|e| (e.comm_rank, u64::from(e.world_rank)))
                .collect();
            m.sort_unstable();
            m.into_iter().map(|x| x.1).collect()
        });
    }
    // Per rank its calls in time order: (enter, exit, instance, member).
    let mut calls: Vec<Vec<(f64, f64, usize, usize)>> = vec![Vec::new(); world];
    for (i, inst) in matched.instances.iter().enumerate() {
        for (j, e) in inst.entries.iter().enumerate() {
            if let Some(list) = calls.get_mut(e.world_rank as usize) {
                list.push((e.enter_s, e.exit_s, i, j));
            }
        }
    }
    let creator = format!("delaybench {}", crate::build_info::version_line());
    let mut w = ArchiveWriter::create(dir, ARCHIVE_NAME, &creator, &format!("capture {id}"))
        .map_err(otf2)?;
    let mut summary = ArchiveSummary {
        locations: world,
        ..ArchiveSummary::default()
    };
    let (mut first_tick, mut last_tick) = (u64::MAX, 0u64);
    for (rank, list) in calls.iter_mut().enumerate() {
        list.sort_by(|a, b| a.0.total_cmp(&b.0));
        let location = rank as u64;
        let capture = captures.iter().find(|c| c.header.rank as usize == rank);
        let start = capture.map(|c| c.to_global(c.header.t_start_s));
        let start = start.into_iter().chain(list.first().map(|c| c.0));
        let start = tick_of(start.fold(f64::INFINITY, f64::min).min(f64::MAX))?;
        let end = list
            .iter()
            .map(|c| tick_of(c.1))
            .try_fold(start, |m, t| t.map(|t| m.max(t)))?;
        first_tick = first_tick.min(start);
        last_tick = last_tick.max(end);
        w.enter(location, start, span, &[]).map_err(otf2)?;
        for &(enter, exit, i, j) in list.iter() {
            let inst = &matched.instances[i];
            let (enter, exit) = (tick_of(enter)?, tick_of(exit)?);
            let exit = exit.max(enter);
            let site = d.region(&inst.site_label, RegionRole::Function, false);
            let base = inst.op.blocking().name();
            let base = collective_op(&base)
                .map(|_| base.clone())
                .unwrap_or_else(|| base.trim_start_matches('i').to_string());
            let coll = collective_op(&base);
            let name = if inst.op.is_persistent() {
                "MPI_Start".to_string()
            } else {
                let mut name = inst.op.name();
                name[..1].make_ascii_uppercase();
                format!("MPI_{name}")
            };
            let region = d.region(&name, role_of(&base), true);
            let comm = d.comm(members[&inst.comm].clone(), world);
            let waiting = inst.waits().get(j).copied().unwrap_or(0.0);
            let mut attributes = vec![(0, AttrValue::F64(waiting))];
            let cause = causes.calls.get(i).and_then(|c| c.get(j));
            if let Some(c) = cause {
                if let (Some(r), Some(g)) = (c.rank, c.region) {
                    let label = causes.regions.get(g).map_or("", String::as_str);
                    attributes.push((1, AttrValue::U32(r)));
                    attributes.push((2, AttrValue::Str(d.string(label))));
                }
                let kind = serde_json::to_value(c.kind)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default();
                attributes.push((3, AttrValue::Str(d.string(&kind))));
            }
            w.enter(location, enter, site, &[]).map_err(otf2)?;
            w.enter(location, enter, region, &attributes)
                .map_err(otf2)?;
            summary.enters += 2;
            if let Some(op) = coll {
                w.collective_begin(location, enter).map_err(otf2)?;
                let root = u32::try_from(inst.root).unwrap_or(OTF2_UNDEFINED_UINT32);
                w.collective_end(location, exit, op, comm, root, inst.bytes, inst.bytes)
                    .map_err(otf2)?;
                summary.collectives += 1;
            }
            w.leave(location, exit, region).map_err(otf2)?;
            w.leave(location, exit, site).map_err(otf2)?;
        }
        w.leave(location, end, span).map_err(otf2)?;
        summary.enters += 1;
    }
    d.clock(first_tick, last_tick, None);
    w.finish(&d.defs).map_err(otf2)?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_are_named_as_mpi_names_them() {
        assert_eq!(region_of(Op::Allreduce).0, "MPI_Allreduce");
        assert_eq!(region_of(Op::Iallreduce).0, "MPI_Iallreduce");
        assert_eq!(
            region_of(Op::ReduceScatterBlock).0,
            "MPI_Reduce_scatter_block"
        );
        assert!(region_of(Op::Bcast).1.is_some_and(|c| c.0 == "bcast"));
        for op in Op::ALL {
            let (name, coll) = region_of(op);
            if let Some((base, _)) = coll {
                assert!(
                    collective_op(base).is_some(),
                    "{op:?}: {name} has no OTF2 op"
                );
            }
        }
    }

    #[test]
    fn detours_nest_in_calls_and_fill_gaps() {
        let span = |start, end| Span {
            start,
            end,
            region: 0,
            attributes: Vec::new(),
            coll: None,
            inner: Vec::new(),
        };
        let mut spans = vec![span(10, 20), span(30, 40)];
        nest_detours(&mut spans, [(5, 12), (18, 35), (45, 50)].into_iter(), 0, 9);
        type Shape = (u64, u64, Vec<(u64, u64)>);
        let shape: Vec<Shape> = spans
            .iter()
            .map(|s| (s.start, s.end, s.inner.clone()))
            .collect();
        assert_eq!(
            shape,
            vec![
                (5, 10, vec![]),
                (10, 20, vec![(10, 12), (18, 20)]),
                (20, 30, vec![]),
                (30, 40, vec![(30, 35)]),
                (45, 50, vec![]),
            ]
        );
    }
}
