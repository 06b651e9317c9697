//! `delaybench arrivals`: what a capture (`libdelaybench_capture.so`) says about an
//! application's arrivals at its collectives, per call site and per rank.
//!
//! The ranks' calls are matched into collective instances by communicator: MPI requires the
//! members of a communicator to call its collectives in the same order, so the k-th call on
//! communicator C of every member is one instance. Times are global
//! ([`RankCapture::to_global`]). For each instance, with entry times a_i (seconds) of its n
//! ranks:
//! - lateness of rank i: a_i − min_j a_j; spread: max_j a_j − min_j a_j;
//! - the process arrival pattern's imbalance as Faraj, Patarasuk and Yuan (2008) define it:
//!   average-case imbalance time (1/n) Σ |a_i − ā| with ā the mean entry, worst-case imbalance
//!   time max a − min a, and both divided by the time T of one message (the factors);
//! - the waiting time by Scalasca's collective wait states (Geimer et al. 2010; Scalasca's
//!   pattern reference), rank by rank, each at most the rank's own time in the call:
//!   Wait at N×N and Wait at Barrier max_j a_j − a_i; Late Broadcast (non-root i)
//!   max(0, a_root − a_i); Early Reduce (root only) max(0, min_{j≠root} a_j − a_root); Early
//!   Scan max(0, max_{j≤i} a_j − a_i). A nonblocking initiation waits for nothing; a
//!   persistent collective (`allreduce_persistent`: its `MPI_Start` to the completion seen in
//!   `MPI_Wait` or `MPI_Test`) has its blocking collective's wait state.

use crate::records::capture::{CaptureOp, RankCapture, WaitKind};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use thiserror::Error;

/// Errors matching captures.
#[derive(Debug, Error)]
pub enum ArrivalsError {
    /// No capture files were given.
    #[error("no capture files given")]
    Empty,
    /// The files come from different captures.
    #[error("{a} and {b} belong to different captures ({id_a} and {id_b})")]
    Mixed {
        /// One file.
        a: String,
        /// Its capture.
        id_a: String,
        /// Another file.
        b: String,
        /// Its capture.
        id_b: String,
    },
    /// Two files are of the same rank.
    #[error("two files of rank {rank}: {a} and {b}")]
    DuplicateRank {
        /// The rank.
        rank: u32,
        /// One file.
        a: String,
        /// The other.
        b: String,
    },
}

/// Why one call's count vectors cannot be had from a capture ([`call_counts`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CountsMissing {
    /// The operation passes no count vector ([`CaptureOp::has_count_vector`]).
    #[error("{0} passes no count vector")]
    NoVector(String),
    /// No rank recorded a vector's hash: a capture written before counts were recorded.
    #[error("the capture has no count vectors (written before they were recorded)")]
    NotRecorded,
    /// A rank recorded only the hash: more than
    /// [`crate::records::capture::MAX_VECTORS_PER_SITE`] distinct vectors at the site on
    /// that rank, or a vector longer than the shim's buffer.
    #[error(
        "the capture holds only the hash of communicator rank {0}'s count vector (more \
         distinct vectors at the site than the shim writes, or a vector longer than its buffer)"
    )]
    HashOnly(u32),
}

/// One rank's part of a collective instance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Entry {
    /// World rank.
    pub world_rank: u32,
    /// Rank in the communicator.
    pub comm_rank: u32,
    /// Global entry time, seconds.
    pub enter_s: f64,
    /// Global exit time, seconds.
    pub exit_s: f64,
    /// The hash of the count vector this rank passed ([`CaptureEvent::counts_hash`]); its
    /// vector is [`Matched::vector`]. None for operations without one, for ranks whose
    /// vector is not significant (gatherv and scatterv off the root) and in captures written
    /// before counts were recorded.
    ///
    /// [`CaptureEvent::counts_hash`]: crate::records::capture::CaptureEvent::counts_hash
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts_hash: Option<u64>,
}

/// One collective instance: every member's call.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// Call site key of the lowest communicator rank (`module+0xoffset`).
    pub site: String,
    /// Readable site name.
    pub site_label: String,
    /// Communicator identity.
    pub comm: u64,
    /// The operation.
    pub op: CaptureOp,
    /// Bytes of the lowest communicator rank.
    pub bytes: u64,
    /// Root in the communicator, −1 without one.
    pub root: i32,
    /// Position among this communicator's collectives, from 0.
    pub index: usize,
    /// The members' calls, ordered by communicator rank.
    pub entries: Vec<Entry>,
}

impl Instance {
    /// Lateness of each member, seconds, by communicator rank: entry minus the earliest.
    pub fn lateness(&self) -> Vec<f64> {
        let first = self
            .entries
            .iter()
            .map(|e| e.enter_s)
            .fold(f64::INFINITY, f64::min);
        self.entries.iter().map(|e| e.enter_s - first).collect()
    }

    /// Arrival spread, seconds: latest entry minus earliest.
    pub fn spread(&self) -> f64 {
        self.lateness().into_iter().fold(0.0, f64::max)
    }

    /// Faraj, Patarasuk and Yuan's (2008) average-case imbalance time, seconds.
    pub fn average_imbalance(&self) -> f64 {
        let n = self.entries.len() as f64;
        let mean = self.entries.iter().map(|e| e.enter_s).sum::<f64>() / n;
        self.entries
            .iter()
            .map(|e| (e.enter_s - mean).abs())
            .sum::<f64>()
            / n
    }

    /// Each member's waiting time, seconds, by communicator rank, by the operation's wait
    /// state (module docs); all zero for a nonblocking initiation.
    pub fn waits(&self) -> Vec<f64> {
        let a: Vec<f64> = self.entries.iter().map(|e| e.enter_s).collect();
        let last = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let root = usize::try_from(self.root).ok().filter(|&r| r < a.len());
        let raw: Vec<f64> = match self.op.wait_kind() {
            None => vec![0.0; a.len()],
            Some(WaitKind::WaitNxN | WaitKind::WaitBarrier) => a.iter().map(|x| last - x).collect(),
            Some(WaitKind::LateBroadcast) => match root {
                Some(r) => a.iter().map(|x| (a[r] - x).max(0.0)).collect(),
                None => vec![0.0; a.len()],
            },
            Some(WaitKind::EarlyReduce) => match root {
                Some(r) => {
                    let first_sender = a
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != r)
                        .map(|(_, x)| *x)
                        .fold(f64::INFINITY, f64::min);
                    (0..a.len())
                        .map(|i| {
                            if i == r && first_sender.is_finite() {
                                (first_sender - a[r]).max(0.0)
                            } else {
                                0.0
                            }
                        })
                        .collect()
                }
                None => vec![0.0; a.len()],
            },
            Some(WaitKind::EarlyScan) => {
                let mut latest = f64::NEG_INFINITY;
                a.iter()
                    .map(|&x| {
                        latest = latest.max(x);
                        latest - x
                    })
                    .collect()
            }
        };
        raw.iter()
            .zip(&self.entries)
            .map(|(w, e)| w.min((e.exit_s - e.enter_s).max(0.0)))
            .collect()
    }
}

/// The captures matched into instances.
#[derive(Debug, Clone, PartialEq)]
pub struct Matched {
    /// Complete instances, in order of their first entry.
    pub instances: Vec<Instance>,
    /// Calls whose instance misses a member (a rank killed, or its file not given).
    pub incomplete_calls: usize,
    /// World size of the capture.
    pub world_size: u32,
    /// The application's wall time between the first capture start and the last exit,
    /// seconds (global).
    pub wall_s: f64,
    /// Smallest clock-synchronisation round-trip time among the ranks, seconds (0 if none):
    /// twice the time of one small message on this machine.
    pub min_rtt_s: f64,
    /// Ranks whose file ended without a footer (killed before MPI_Finalize).
    pub unfinished_ranks: Vec<u32>,
    /// Every count vector of the capture by its hash (bytes per communicator rank; the
    /// `counts` of all files: a hash names one vector whichever rank or site wrote it).
    pub vectors: HashMap<u64, Vec<u64>>,
}

impl Matched {
    /// The count vector (bytes per communicator rank) an entry passed, None when it passed
    /// none or the capture holds only its hash (more than
    /// [`crate::records::capture::MAX_VECTORS_PER_SITE`] distinct vectors at the site, or a
    /// vector longer than the shim's buffer).
    pub fn vector(&self, e: &Entry) -> Option<&[u64]> {
        self.vectors.get(&e.counts_hash?).map(Vec::as_slice)
    }
}

/// Matches the ranks' calls into collective instances (module docs).
///
/// # Errors
/// [`ArrivalsError`] when no file is given, files of different captures are mixed, or a rank
/// comes twice.
pub fn match_calls(captures: &[RankCapture]) -> Result<Matched, ArrivalsError> {
    let first = captures.first().ok_or(ArrivalsError::Empty)?;
    let mut by_rank: BTreeMap<u32, &RankCapture> = BTreeMap::new();
    for c in captures {
        if c.header.capture_id != first.header.capture_id {
            return Err(ArrivalsError::Mixed {
                a: first.path.display().to_string(),
                id_a: first.header.capture_id.clone(),
                b: c.path.display().to_string(),
                id_b: c.header.capture_id.clone(),
            });
        }
        if let Some(other) = by_rank.insert(c.header.rank, c) {
            return Err(ArrivalsError::DuplicateRank {
                rank: c.header.rank,
                a: other.path.display().to_string(),
                b: c.path.display().to_string(),
            });
        }
    }
    // (comm, index) -> per member (comm_rank, world rank, event, capture)
    type Key = (u64, usize);
    let mut calls: HashMap<Key, Vec<(u32, &RankCapture, usize)>> = HashMap::new();
    let mut wall_start = f64::INFINITY;
    let mut wall_end = f64::NEG_INFINITY;
    for c in by_rank.values() {
        wall_start = wall_start.min(c.to_global(c.header.t_start_s));
        let mut next: HashMap<u64, usize> = HashMap::new();
        for (i, e) in c.events.iter().enumerate() {
            let k = next.entry(e.comm).or_insert(0);
            calls
                .entry((e.comm, *k))
                .or_default()
                .push((c.header.rank, c, i));
            *k += 1;
            wall_end = wall_end.max(c.to_global(e.t_exit_s));
        }
    }
    let mut instances = Vec::new();
    let mut incomplete_calls = 0;
    for ((comm, index), members) in calls {
        let (_, c0, i0) = members[0];
        let size = c0.events[i0].comm_size as usize;
        if members.len() != size {
            incomplete_calls += members.len();
            continue;
        }
        let mut entries: Vec<(Entry, &RankCapture, usize)> = members
            .iter()
            .map(|&(world_rank, c, i)| {
                let e = &c.events[i];
                (
                    Entry {
                        world_rank,
                        comm_rank: e.comm_rank,
                        enter_s: c.to_global(e.t_enter_s),
                        exit_s: c.to_global(e.t_exit_s),
                        counts_hash: e.counts_hash,
                    },
                    c,
                    i,
                )
            })
            .collect();
        entries.sort_by_key(|(e, _, _)| e.comm_rank);
        let (_, lc, li) = entries[0];
        let ev = &lc.events[li];
        let site = lc.sites.get(ev.site as usize);
        instances.push(Instance {
            site: site.map(|s| s.key()).unwrap_or_else(|| "?".into()),
            site_label: site.map(|s| s.label()).unwrap_or_else(|| "?".into()),
            comm,
            op: ev.op,
            bytes: ev.bytes,
            root: ev.root,
            index,
            entries: entries.into_iter().map(|(e, _, _)| e).collect(),
        });
    }
    instances.sort_by(|a, b| {
        let fa = a
            .entries
            .iter()
            .map(|e| e.enter_s)
            .fold(f64::INFINITY, f64::min);
        let fb = b
            .entries
            .iter()
            .map(|e| e.enter_s)
            .fold(f64::INFINITY, f64::min);
        fa.total_cmp(&fb)
    });
    let min_rtt_s = captures
        .iter()
        .map(|c| c.header.sync_init.rtt_s)
        .filter(|r| *r > 0.0)
        .fold(f64::INFINITY, f64::min);
    Ok(Matched {
        instances,
        incomplete_calls,
        world_size: first.header.world_size,
        wall_s: if wall_end > wall_start {
            wall_end - wall_start
        } else {
            0.0
        },
        min_rtt_s: if min_rtt_s.is_finite() {
            min_rtt_s
        } else {
            0.0
        },
        unfinished_ranks: by_rank
            .values()
            .filter(|c| c.footer.is_none())
            .map(|c| c.header.rank)
            .collect(),
        vectors: by_rank
            .values()
            .flat_map(|c| c.counts.iter().map(|v| (v.hash, v.bytes.clone())))
            .collect(),
    })
}

/// One row per (call site, communicator, operation).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteRow {
    /// Call site key (`module+0xoffset`).
    pub site: String,
    /// Readable site name (symbol when known).
    pub site_label: String,
    /// The operation (`allreduce`).
    pub op: String,
    /// Communicator identity, hexadecimal.
    pub comm: String,
    /// Communicator size.
    pub comm_size: usize,
    /// Median bytes per call (of the lowest communicator rank).
    pub bytes: u64,
    /// Collective instances (each counted once).
    pub calls: usize,
    /// Arrival spread, seconds: median, 95th percentile, maximum over the calls.
    pub spread_median_s: f64,
    /// 95th percentile of the spread, seconds.
    pub spread_p95_s: f64,
    /// Largest spread, seconds.
    pub spread_max_s: f64,
    /// Faraj, Patarasuk and Yuan's (2008) average-case imbalance time, mean over calls, s.
    pub avg_imbalance_s: f64,
    /// Their worst-case imbalance time (the spread), mean over calls, seconds.
    pub worst_imbalance_s: f64,
    /// Average-case imbalance factor: avg_imbalance_s over the time of one message, or
    /// None without that time.
    pub avg_imbalance_factor: Option<f64>,
    /// Worst-case imbalance factor.
    pub worst_imbalance_factor: Option<f64>,
    /// Ranks (world) that entered last, with how many calls, most often first (at most 3).
    pub last_ranks: Vec<(u32, usize)>,
    /// The Scalasca wait state of this operation (`wait_nxn`, ...), None for nonblocking.
    pub wait_state: Option<WaitKind>,
    /// Waiting time lost at this site, summed over calls and ranks, seconds.
    pub wait_total_s: f64,
    /// wait_total_s over (wall time × world size).
    pub wait_share: f64,
    /// Median lateness of each communicator rank over the calls, seconds.
    pub median_lateness_s: Vec<f64>,
    /// For an operation with count vectors: the bytes per communicator rank at the site's
    /// first call ([`bytes_per_rank`] of [`call_counts`]: each rank's block, or for
    /// alltoallv what each rank sends); None for other operations and when the capture has
    /// no vector for that call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts_bytes: Option<Vec<u64>>,
    /// Distinct count vectors over the site's calls (by the members' hashes); 0 when none
    /// was recorded.
    pub count_vectors: usize,
}

/// Waiting per world rank.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankRow {
    /// World rank.
    pub rank: u32,
    /// Collective calls of this rank that were matched.
    pub calls: usize,
    /// Time this rank waited for others, seconds.
    pub wait_s: f64,
    /// wait_s over the wall time.
    pub wait_share: f64,
    /// Calls at which this rank entered last.
    pub last: usize,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArrivalsReport {
    /// Per site, the largest waiting first.
    pub sites: Vec<SiteRow>,
    /// Per world rank.
    pub ranks: Vec<RankRow>,
    /// World size.
    pub world_size: u32,
    /// Wall time, seconds.
    pub wall_s: f64,
    /// The time of one message used for the imbalance factors, seconds (None: no factors).
    pub message_time_s: Option<f64>,
    /// Calls left out because their instance misses a member.
    pub incomplete_calls: usize,
    /// Ranks without a footer (their clock offset is the MPI_Init one only).
    pub unfinished_ranks: Vec<u32>,
}

/// Linear-interpolation quantile of sorted values (q in 0..=1); NaN when empty.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (pos - lo as f64) * (sorted[hi] - sorted[lo])
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

/// Builds the report. `message_time_s` is the time T of one message for the imbalance
/// factors (seconds); None uses half the smallest synchronisation round trip when the
/// capture has one (a small message), else leaves the factors out.
pub fn report(m: &Matched, message_time_s: Option<f64>) -> ArrivalsReport {
    let t_msg = message_time_s.or((m.min_rtt_s > 0.0).then_some(m.min_rtt_s / 2.0));
    let mut groups: BTreeMap<(String, u64, CaptureOp), Vec<&Instance>> = BTreeMap::new();
    for inst in &m.instances {
        groups
            .entry((inst.site.clone(), inst.comm, inst.op))
            .or_default()
            .push(inst);
    }
    let denom = m.wall_s * m.world_size.max(1) as f64;
    let mut ranks: BTreeMap<u32, RankRow> = BTreeMap::new();
    let mut sites = Vec::new();
    for ((site, comm, op), insts) in groups {
        let n = insts[0].entries.len();
        let spreads = sorted(insts.iter().map(|i| i.spread()).collect());
        let avg_imb = insts.iter().map(|i| i.average_imbalance()).sum::<f64>() / insts.len() as f64;
        let worst_imb = spreads.iter().sum::<f64>() / spreads.len() as f64;
        let mut last_count: BTreeMap<u32, usize> = BTreeMap::new();
        let mut wait_total = 0.0;
        let mut lateness: Vec<Vec<f64>> = vec![Vec::new(); n];
        for inst in &insts {
            let late = inst.lateness();
            let waits = inst.waits();
            let last = inst
                .entries
                .iter()
                .max_by(|a, b| a.enter_s.total_cmp(&b.enter_s))
                .expect("an instance has members");
            *last_count.entry(last.world_rank).or_default() += 1;
            for (k, e) in inst.entries.iter().enumerate() {
                let row = ranks.entry(e.world_rank).or_insert(RankRow {
                    rank: e.world_rank,
                    calls: 0,
                    wait_s: 0.0,
                    wait_share: 0.0,
                    last: 0,
                });
                row.calls += 1;
                row.wait_s += waits[k];
                if e.world_rank == last.world_rank {
                    row.last += 1;
                }
                if let Some(l) = lateness.get_mut(k) {
                    l.push(late[k]);
                }
            }
            wait_total += waits.iter().sum::<f64>();
        }
        let mut last_ranks: Vec<(u32, usize)> = last_count.into_iter().collect();
        last_ranks.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        last_ranks.truncate(3);
        let bytes = sorted(insts.iter().map(|i| i.bytes as f64).collect());
        let counts_bytes = call_counts(m, insts[0]).ok().map(|c| bytes_per_rank(&c, n));
        let count_vectors = insts
            .iter()
            .map(|i| i.entries.iter().map(|e| e.counts_hash).collect::<Vec<_>>())
            .filter(|h| h.iter().any(Option::is_some))
            .collect::<std::collections::HashSet<_>>()
            .len();
        sites.push(SiteRow {
            site,
            site_label: insts[0].site_label.clone(),
            op: op.name(),
            comm: format!("{comm:016x}"),
            comm_size: n,
            bytes: quantile(&bytes, 0.5) as u64,
            calls: insts.len(),
            spread_median_s: quantile(&spreads, 0.5),
            spread_p95_s: quantile(&spreads, 0.95),
            spread_max_s: *spreads.last().expect("one call at least"),
            avg_imbalance_s: avg_imb,
            worst_imbalance_s: worst_imb,
            avg_imbalance_factor: t_msg.map(|t| avg_imb / t),
            worst_imbalance_factor: t_msg.map(|t| worst_imb / t),
            last_ranks,
            wait_state: op.wait_kind(),
            wait_total_s: wait_total,
            wait_share: if denom > 0.0 { wait_total / denom } else { 0.0 },
            median_lateness_s: lateness
                .into_iter()
                .map(|l| quantile(&sorted(l), 0.5))
                .collect(),
            counts_bytes,
            count_vectors,
        });
    }
    sites.sort_by(|a, b| b.wait_total_s.total_cmp(&a.wait_total_s));
    let ranks = ranks
        .into_values()
        .map(|mut r| {
            r.wait_share = if m.wall_s > 0.0 {
                r.wait_s / m.wall_s
            } else {
                0.0
            };
            r
        })
        .collect();
    ArrivalsReport {
        sites,
        ranks,
        world_size: m.world_size,
        wall_s: m.wall_s,
        message_time_s: t_msg,
        incomplete_calls: m.incomplete_calls,
        unfinished_ranks: m.unfinished_ranks.clone(),
    }
}

/// The count vectors of one call, bytes, by communicator rank, from the ranks that pass a
/// significant one (docs/capture.md): for allgatherv and reduce_scatter the receive counts
/// (n entries: rank i's block), for gatherv the root's receive counts and for scatterv the
/// root's send counts (n entries: rank i's block), for alltoallv every rank's send counts
/// (n × n entries, row-major: entry [i][j] the bytes rank i sends to rank j); the nonblocking
/// forms alike.
///
/// # Errors
/// [`CountsMissing`] when the operation has no vector, the capture recorded none, or a
/// needed vector is a hash only.
pub fn call_counts(m: &Matched, inst: &Instance) -> Result<Vec<u64>, CountsMissing> {
    use CaptureOp::*;
    if !inst.op.has_count_vector() {
        return Err(CountsMissing::NoVector(inst.op.name()));
    }
    let n = inst.entries.len();
    let of = |e: &Entry| -> Result<Vec<u64>, CountsMissing> {
        e.counts_hash.ok_or(CountsMissing::NotRecorded)?;
        m.vector(e)
            .filter(|v| v.len() == n)
            .map(<[u64]>::to_vec)
            .ok_or(CountsMissing::HashOnly(e.comm_rank))
    };
    match inst.op {
        Alltoallv | Ialltoallv => {
            let rows: Result<Vec<Vec<u64>>, _> = inst.entries.iter().map(of).collect();
            Ok(rows?.concat())
        }
        Gatherv | Igatherv | Scatterv | Iscatterv => {
            let root = usize::try_from(inst.root)
                .ok()
                .and_then(|r| inst.entries.get(r))
                .ok_or(CountsMissing::NotRecorded)?;
            of(root)
        }
        _ => inst
            .entries
            .iter()
            .find(|e| e.counts_hash.is_some())
            .map_or(Err(CountsMissing::NotRecorded), of),
    }
}

/// Bytes per communicator rank of a call's counts ([`call_counts`]): the vector itself, or
/// for alltoallv (n × n) what each rank sends, its row's sum.
pub fn bytes_per_rank(counts: &[u64], n: usize) -> Vec<u64> {
    if n > 1 && counts.len() == n * n {
        counts.chunks(n).map(|row| row.iter().sum()).collect()
    } else {
        counts.to_vec()
    }
}

/// The lateness vectors of one site's calls, in call order, by communicator rank (seconds):
/// what `--delay replay:FILE@SITE` replays. `site` matches a site key, a label, or a
/// prefix of either; None takes the site with the most waiting.
pub fn site_lateness<'a>(
    m: &'a Matched,
    site: Option<&str>,
) -> Option<(&'a Instance, Vec<Vec<f64>>)> {
    let chosen = match site {
        Some(s) => m
            .instances
            .iter()
            .find(|i| i.site == s || i.site_label == s || i.site_label.starts_with(s))?
            .site
            .clone(),
        None => report(m, None).sites.first()?.site.clone(),
    };
    let insts: Vec<&Instance> = m.instances.iter().filter(|i| i.site == chosen).collect();
    Some((insts[0], insts.iter().map(|i| i.lateness()).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::capture::{
        CaptureEvent, CaptureFooter, CaptureHeader, CaptureSite, CaptureSync, CAPTURE_FORMAT_NAME,
        CAPTURE_FORMAT_VERSION,
    };

    /// A rank's capture: offset `offset_s` (global = local − offset), events as
    /// (op, root, global enter, global exit).
    fn rank(r: u32, size: u32, offset_s: f64, calls: &[(CaptureOp, i32, f64, f64)]) -> RankCapture {
        let sync = CaptureSync {
            local_s: 0.0,
            offset_s,
            rtt_s: 2e-6,
        };
        RankCapture {
            path: format!("rank{r}.cbor").into(),
            header: CaptureHeader {
                item: "capture_header".into(),
                format: CAPTURE_FORMAT_NAME.into(),
                version: CAPTURE_FORMAT_VERSION,
                rank: r,
                world_size: size,
                capture_id: "c".into(),
                host: "h".into(),
                pid: r,
                command: vec![],
                clock: "monotonic".into(),
                sync_init: sync,
                t_start_s: offset_s,
            },
            sites: vec![CaptureSite {
                id: 0,
                module: "app".into(),
                offset: 0x10,
                symbol: Some("step".into()),
                symbol_offset: 4,
            }],
            events: calls
                .iter()
                .map(|&(op, root, a, b)| CaptureEvent {
                    op,
                    comm: 99,
                    comm_size: size,
                    comm_rank: r,
                    bytes: 8,
                    root,
                    site: 0,
                    t_enter_s: a + offset_s,
                    t_exit_s: b + offset_s,
                    counts_hash: None,
                })
                .collect(),
            counts: vec![],
            footer: Some(CaptureFooter {
                item: "capture_footer".into(),
                sync_finalize: CaptureSync {
                    local_s: 100.0,
                    offset_s,
                    rtt_s: 2e-6,
                },
                events: calls.len() as u64,
                passed_through: 0,
            }),
            damage: None,
        }
    }

    use CaptureOp::*;

    #[test]
    fn allreduce_waits_for_the_last_and_clocks_are_corrected() {
        // Three ranks with different clock offsets; global entries 1.0, 1.3, 1.1, all exit 1.5.
        let caps = vec![
            rank(0, 3, 0.0, &[(Allreduce, -1, 1.0, 1.5)]),
            rank(1, 3, 7.0, &[(Allreduce, -1, 1.3, 1.5)]),
            rank(2, 3, -2.0, &[(Allreduce, -1, 1.1, 1.5)]),
        ];
        let m = match_calls(&caps).unwrap();
        assert_eq!(m.instances.len(), 1);
        let i = &m.instances[0];
        let late = i.lateness();
        assert!((late[1] - 0.3).abs() < 1e-12 && (late[2] - 0.1).abs() < 1e-12);
        // Wait at NxN: 0.3, 0, 0.2.
        let w = i.waits();
        assert!((w[0] - 0.3).abs() < 1e-12 && w[1].abs() < 1e-12 && (w[2] - 0.2).abs() < 1e-12);
        // FPY: mean 1.1333.., |dev| = .1333, .1667, .0333 -> mean 0.1111..
        assert!((i.average_imbalance() - (1.0 / 9.0)).abs() < 1e-12);
        let r = report(&m, Some(0.01));
        let s = &r.sites[0];
        assert_eq!((s.calls, s.comm_size, s.op.as_str()), (1, 3, "allreduce"));
        assert!((s.wait_total_s - 0.5).abs() < 1e-12);
        assert!((s.worst_imbalance_factor.unwrap() - 30.0).abs() < 1e-9);
        assert_eq!(s.last_ranks, vec![(1, 1)]);
        assert!((r.ranks[0].wait_s - 0.3).abs() < 1e-12);
    }

    #[test]
    fn rooted_and_scan_wait_states_follow_scalasca() {
        // Bcast root 1 enters at 2.0; ranks 0 and 2 at 1.0 and 2.5: only rank 0 waits (1.0).
        // Reduce root 0 enters at 10.0, senders at 10.4 and 10.2: the root waits 0.2.
        // Scan entries 20.3, 20.0, 20.5: rank 1 waits 0.3 for rank 0, rank 2 none.
        let caps = vec![
            rank(
                0,
                3,
                0.0,
                &[
                    (Bcast, 1, 1.0, 3.0),
                    (Reduce, 0, 10.0, 11.0),
                    (Scan, -1, 20.3, 21.0),
                ],
            ),
            rank(
                1,
                3,
                0.0,
                &[
                    (Bcast, 1, 2.0, 3.0),
                    (Reduce, 0, 10.4, 11.0),
                    (Scan, -1, 20.0, 21.0),
                ],
            ),
            rank(
                2,
                3,
                0.0,
                &[
                    (Bcast, 1, 2.5, 3.0),
                    (Reduce, 0, 10.2, 11.0),
                    (Scan, -1, 20.5, 21.0),
                ],
            ),
        ];
        let m = match_calls(&caps).unwrap();
        let by_op = |op| m.instances.iter().find(|i| i.op == op).unwrap().waits();
        let close = |a: Vec<f64>, b: [f64; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
        assert!(close(by_op(Bcast), [1.0, 0.0, 0.0]));
        assert!(close(by_op(Reduce), [0.2, 0.0, 0.0]));
        assert!(close(by_op(Scan), [0.0, 0.3, 0.0]));
    }

    #[test]
    fn a_wait_is_at_most_the_time_in_the_call_and_nonblocking_waits_nothing() {
        // Rank 0 enters 1.0 but leaves at 1.1 (an eager send): it waits 0.1, not 0.5.
        let caps = vec![
            rank(
                0,
                2,
                0.0,
                &[(Allreduce, -1, 1.0, 1.1), (Iallreduce, -1, 2.0, 2.0)],
            ),
            rank(
                1,
                2,
                0.0,
                &[(Allreduce, -1, 1.5, 1.6), (Iallreduce, -1, 3.0, 3.0)],
            ),
        ];
        let m = match_calls(&caps).unwrap();
        assert!((m.instances[0].waits()[0] - 0.1).abs() < 1e-12);
        assert_eq!(m.instances[1].waits(), vec![0.0, 0.0]);
    }

    #[test]
    fn a_persistent_call_waits_as_its_blocking_form() {
        // Started at 1.0 and 1.5, completion seen in MPI_Wait at 1.6 and 1.7: Wait at N×N,
        // rank 0 waits 0.5; a persistent bcast with root 1 is a Late Broadcast.
        let caps = vec![
            rank(
                0,
                2,
                0.0,
                &[
                    (AllreducePersistent, -1, 1.0, 1.6),
                    (BcastPersistent, 1, 2.0, 2.6),
                ],
            ),
            rank(
                1,
                2,
                0.0,
                &[
                    (AllreducePersistent, -1, 1.5, 1.7),
                    (BcastPersistent, 1, 2.4, 2.6),
                ],
            ),
        ];
        let m = match_calls(&caps).unwrap();
        let close = |a: Vec<f64>, b: [f64; 2]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
        assert!(close(m.instances[0].waits(), [0.5, 0.0]));
        assert!(close(m.instances[1].waits(), [0.4, 0.0]));
        let r = report(&m, None);
        let ops: Vec<(&str, Option<WaitKind>)> = r
            .sites
            .iter()
            .map(|s| (s.op.as_str(), s.wait_state))
            .collect();
        assert!(
            ops.contains(&("allreduce_persistent", Some(WaitKind::WaitNxN))),
            "{ops:?}"
        );
        assert!(
            ops.contains(&("bcast_persistent", Some(WaitKind::LateBroadcast))),
            "{ops:?}"
        );
    }

    #[test]
    fn a_missing_rank_leaves_calls_incomplete_and_mixed_captures_are_refused() {
        let caps = vec![
            rank(0, 3, 0.0, &[(Barrier, -1, 1.0, 2.0)]),
            rank(1, 3, 0.0, &[(Barrier, -1, 1.0, 2.0)]),
        ];
        let m = match_calls(&caps).unwrap();
        assert_eq!((m.instances.len(), m.incomplete_calls), (0, 2));
        let mut other = rank(2, 3, 0.0, &[]);
        other.header.capture_id = "d".into();
        let mixed = vec![caps[0].clone(), other];
        assert!(matches!(
            match_calls(&mixed),
            Err(ArrivalsError::Mixed { .. })
        ));
        assert!(matches!(match_calls(&[]), Err(ArrivalsError::Empty)));
    }

    #[test]
    fn site_lateness_gives_the_vectors_in_call_order() {
        let caps = vec![
            rank(
                0,
                2,
                0.0,
                &[(Allreduce, -1, 1.0, 2.0), (Allreduce, -1, 3.2, 4.0)],
            ),
            rank(
                1,
                2,
                0.0,
                &[(Allreduce, -1, 1.25, 2.0), (Allreduce, -1, 3.0, 4.0)],
            ),
        ];
        let m = match_calls(&caps).unwrap();
        let (first, v) = site_lateness(&m, Some("step")).unwrap();
        assert_eq!(first.op, Allreduce);
        assert_eq!(v.len(), 2);
        assert!((v[0][1] - 0.25).abs() < 1e-12 && (v[1][0] - 0.2).abs() < 1e-9);
        assert!(site_lateness(&m, Some("nope")).is_none());
    }

    /// `rank(..)` whose calls pass `vector` (bytes per rank), written in its file.
    fn with_vector(mut c: RankCapture, vector: &[u64]) -> RankCapture {
        let hash = crate::records::capture::counts_hash(vector);
        c.events.iter_mut().for_each(|e| e.counts_hash = Some(hash));
        c.counts.push(crate::records::capture::CaptureCounts {
            site: 0,
            hash,
            bytes: vector.to_vec(),
        });
        c
    }

    #[test]
    fn call_counts_come_from_the_ranks_that_pass_them() {
        // Allgatherv: every rank passes the same receive counts.
        let caps: Vec<RankCapture> = (0..3)
            .map(|r| with_vector(rank(r, 3, 0.0, &[(Allgatherv, -1, 1.0, 2.0)]), &[8, 24, 0]))
            .collect();
        let m = match_calls(&caps).unwrap();
        assert_eq!(call_counts(&m, &m.instances[0]), Ok(vec![8, 24, 0]));
        let r = report(&m, None);
        assert_eq!(r.sites[0].counts_bytes, Some(vec![8, 24, 0]));
        assert_eq!(r.sites[0].count_vectors, 1);

        // Alltoallv: the rows make the matrix; the report sums each row.
        let rows = [[1, 2, 3], [4, 5, 6], [7, 8, 9]];
        let caps: Vec<RankCapture> = (0..3)
            .map(|r| {
                with_vector(
                    rank(r, 3, 0.0, &[(Alltoallv, -1, 1.0, 2.0)]),
                    &rows[r as usize],
                )
            })
            .collect();
        let m = match_calls(&caps).unwrap();
        assert_eq!(
            call_counts(&m, &m.instances[0]),
            Ok(vec![1, 2, 3, 4, 5, 6, 7, 8, 9])
        );
        assert_eq!(
            report(&m, None).sites[0].counts_bytes,
            Some(vec![6, 15, 24])
        );

        // Gatherv at root 1: only the root's vector counts; a non-root's hash is ignored.
        let mut caps: Vec<RankCapture> = (0..2)
            .map(|r| rank(r, 2, 0.0, &[(Gatherv, 1, 1.0, 2.0)]))
            .collect();
        caps[1] = with_vector(caps[1].clone(), &[16, 32]);
        let m = match_calls(&caps).unwrap();
        assert_eq!(call_counts(&m, &m.instances[0]), Ok(vec![16, 32]));

        // Without vectors: an old capture, or only the hash written.
        let old: Vec<RankCapture> = (0..2)
            .map(|r| rank(r, 2, 0.0, &[(Scatterv, 0, 1.0, 2.0)]))
            .collect();
        let m = match_calls(&old).unwrap();
        assert_eq!(
            call_counts(&m, &m.instances[0]),
            Err(CountsMissing::NotRecorded)
        );
        assert_eq!(report(&m, None).sites[0].counts_bytes, None);
        let mut hashed = old.clone();
        hashed[0] = with_vector(hashed[0].clone(), &[1, 2]);
        hashed[0].counts.clear();
        let m = match_calls(&hashed).unwrap();
        assert_eq!(
            call_counts(&m, &m.instances[0]),
            Err(CountsMissing::HashOnly(0))
        );
        let m = match_calls(&[rank(0, 1, 0.0, &[(Allreduce, -1, 1.0, 2.0)])]).unwrap();
        assert!(matches!(
            call_counts(&m, &m.instances[0]),
            Err(CountsMissing::NoVector(_))
        ));
    }
}
