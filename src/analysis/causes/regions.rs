//! Code regions: per rank, the time between its exit from one captured call (any
//! communicator) and its entry into the next, named by the two call sites
//! (`app+0x11c0 → app+0x11e0`). A rank's first region starts where its capture started
//! (inside MPI_Init, after the clock synchronisation) and is named `MPI_Init → site`.
//!
//! Every call a rank made is a region boundary, also one whose instance misses a member
//! (`Matched::incomplete_calls`): it has times on that rank even if it has no wait state.

use super::schedules::Runtime;
use crate::capture::{Matched, RankCapture};
use std::collections::{BTreeMap, HashMap};

/// The start of every rank's first region.
pub const INIT_SITE: &str = "MPI_Init";

/// The `from` of the pseudo-region that is a call itself: the time a rank spent in a
/// collective after what it waited for (its service time), which can hold others too.
pub const INSIDE: &str = "inside";

/// A region's name: the call sites that open and close it (site keys, `module+0xoffset`,
/// or [`INIT_SITE`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegionName {
    /// The call the region starts after.
    pub from: String,
    /// The call the region ends in.
    pub to: String,
}

impl RegionName {
    /// `from → to` with each site given by `name` (a site key to its readable name);
    /// `inside to` for a call itself.
    pub fn label(&self, name: &dyn Fn(&str) -> String) -> String {
        if self.from == INSIDE {
            return format!("{INSIDE} {}", name(&self.to));
        }
        format!("{} → {}", name(&self.from), name(&self.to))
    }
}

/// One captured call of one rank, with the region before it. Times are global seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankCall {
    /// The call's instance (index into `Matched::instances`), None when it misses a member.
    pub instance: Option<usize>,
    /// The rank's position among the instance's entries (by communicator rank).
    pub member: usize,
    /// Entry into the call.
    pub enter_s: f64,
    /// Exit from the call.
    pub exit_s: f64,
    /// The region before the call (index into [`Regions::names`]).
    pub region: usize,
    /// The call itself as a region (`inside site`, index into [`Regions::names`]).
    pub inside: usize,
    /// Where that region started: the previous call's exit, or the capture's start.
    pub region_start_s: f64,
}

impl RankCall {
    /// Time spent in the region before the call, seconds (0 when clocks disagree).
    pub fn region_s(&self) -> f64 {
        (self.enter_s - self.region_start_s).max(0.0)
    }
}

/// Every rank's calls with the regions between them.
#[derive(Debug, Clone, PartialEq)]
pub struct Regions {
    /// The distinct region names, in order of first appearance (rank by rank).
    pub names: Vec<RegionName>,
    /// Per world rank its calls, in the order the rank made them.
    pub calls: BTreeMap<u32, Vec<RankCall>>,
    /// Per instance and member, the position of that call in its rank's list.
    pub position: Vec<Vec<usize>>,
    /// What the capture recorded of its MPI library, for the algorithms' schedules.
    pub runtime: Runtime,
}

impl Regions {
    /// The call of member `k` of instance `i`.
    pub fn call(&self, m: &Matched, i: usize, k: usize) -> (u32, usize) {
        (m.instances[i].entries[k].world_rank, self.position[i][k])
    }
}

/// Cuts each rank's time into regions (module docs). The captures are those `m` was
/// matched from; a rank's calls are found by the matching's rule (the k-th call on a
/// communicator is its instance k).
pub fn regions(captures: &[RankCapture], m: &Matched) -> Regions {
    let by_key: HashMap<(u64, usize), usize> = m
        .instances
        .iter()
        .enumerate()
        .map(|(i, inst)| ((inst.comm, inst.index), i))
        .collect();
    let mut names: Vec<RegionName> = Vec::new();
    let mut ids: HashMap<RegionName, usize> = HashMap::new();
    let mut calls = BTreeMap::new();
    let mut position: Vec<Vec<usize>> = m
        .instances
        .iter()
        .map(|i| vec![usize::MAX; i.entries.len()])
        .collect();
    for c in captures {
        let rank = c.header.rank;
        let mut next: HashMap<u64, usize> = HashMap::new();
        let mut from = INIT_SITE.to_owned();
        let mut start = c.to_global(c.header.t_start_s);
        let mut list = Vec::with_capacity(c.events.len());
        for e in &c.events {
            let k = next.entry(e.comm).or_insert(0);
            let key = (e.comm, *k);
            *k += 1;
            let to = c
                .sites
                .get(e.site as usize)
                .map(|s| s.key())
                .unwrap_or_else(|| "?".into());
            let mut intern = |name: RegionName| {
                *ids.entry(name.clone()).or_insert_with(|| {
                    names.push(name);
                    names.len() - 1
                })
            };
            let inside = intern(RegionName {
                from: INSIDE.into(),
                to: to.clone(),
            });
            let region = intern(RegionName {
                from: std::mem::replace(&mut from, to.clone()),
                to,
            });
            let instance = by_key.get(&key).copied();
            let member = instance
                .and_then(|i| {
                    m.instances[i]
                        .entries
                        .iter()
                        .position(|en| en.world_rank == rank)
                })
                .unwrap_or(0);
            if let Some(i) = instance {
                position[i][member] = list.len();
            }
            let (enter_s, exit_s) = (c.to_global(e.t_enter_s), c.to_global(e.t_exit_s));
            list.push(RankCall {
                instance,
                member,
                enter_s,
                exit_s,
                region,
                inside,
                region_start_s: start,
            });
            start = exit_s;
        }
        calls.insert(rank, list);
    }
    Regions {
        runtime: Runtime::of(captures),
        names,
        calls,
        position,
    }
}

/// The instances in an order in which every rank's earlier calls come first (Kahn's
/// topological sort of the per-rank call orders, ties by first entry); instances on a
/// cycle (inconsistent clocks cannot make one: the order is each rank's own) follow in
/// first-entry order.
pub fn causal_order(m: &Matched, r: &Regions) -> Vec<usize> {
    let n = m.instances.len();
    let mut indegree = vec![0usize; n];
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
    for list in r.calls.values() {
        let mut prev: Option<usize> = None;
        for call in list {
            if let Some(i) = call.instance {
                if let Some(p) = prev {
                    next[p].push(i);
                    indegree[i] += 1;
                }
                prev = Some(i);
            }
        }
    }
    // Instances are in first-entry order: a min-heap on the index keeps that order.
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> = (0..n)
        .filter(|&i| indegree[i] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut order = Vec::with_capacity(n);
    let mut done = vec![false; n];
    while let Some(std::cmp::Reverse(i)) = ready.pop() {
        order.push(i);
        done[i] = true;
        for &j in &next[i] {
            indegree[j] -= 1;
            if indegree[j] == 0 {
                ready.push(std::cmp::Reverse(j));
            }
        }
    }
    order.extend((0..n).filter(|&i| !done[i]));
    order
}
