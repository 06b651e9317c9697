//! The ranks' calls of a capture matched into collective instances, on the global clock.
//!
//! MPI requires the members of a communicator to call its collectives in the same order, so
//! the k-th call on communicator C of every member is one instance. Times are global
//! ([`RankCapture::to_global`]).

use super::instance::{Entry, Instance};
use super::reader::RankCapture;
use std::collections::{BTreeMap, HashMap};
use thiserror::Error;

/// Errors matching captures.
#[derive(Debug, Error)]
pub enum MatchError {
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
    /// [`crate::capture::MAX_VECTORS_PER_SITE`] distinct vectors at the site, or a
    /// vector longer than the shim's buffer).
    pub fn vector(&self, e: &Entry) -> Option<&[u64]> {
        self.vectors.get(&e.counts_hash?).map(Vec::as_slice)
    }
}

/// Matches the ranks' calls into collective instances (module docs).
///
/// # Errors
/// [`MatchError`] when no file is given, files of different captures are mixed, or a rank
/// comes twice.
pub fn match_calls(captures: &[RankCapture]) -> Result<Matched, MatchError> {
    let first = captures.first().ok_or(MatchError::Empty)?;
    let mut by_rank: BTreeMap<u32, &RankCapture> = BTreeMap::new();
    for c in captures {
        if c.header.capture_id != first.header.capture_id {
            return Err(MatchError::Mixed {
                a: first.path.display().to_string(),
                id_a: first.header.capture_id.clone(),
                b: c.path.display().to_string(),
                id_b: c.header.capture_id.clone(),
            });
        }
        if let Some(other) = by_rank.insert(c.header.rank, c) {
            return Err(MatchError::DuplicateRank {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::testdata::rank;
    use crate::capture::CaptureOp::*;

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
        assert!(matches!(match_calls(&mixed), Err(MatchError::Mixed { .. })));
        assert!(matches!(match_calls(&[]), Err(MatchError::Empty)));
    }
}
