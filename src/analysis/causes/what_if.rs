//! What-if: the captured instances re-timed with one (rank, region)'s excess removed, in
//! the spirit of the what-if analysis of stragglers of Lin et al. (2025, "Understanding
//! Stragglers in Large Model Training Using What-if Analysis").
//!
//! Each occurrence of the region on that rank is capped at the median of the other
//! members' regions before the same call (their time since their own previous call), so
//! only the excess over a typical rank is removed. Then every call is replayed in causal
//! order: a rank enters at its previous call's new exit plus its (capped) region; it leaves
//! after its holding time ([`super::attribution::blocking`], recomputed from the new
//! arrivals it depends on, less the part it did not wait for in the capture: an eager
//! send) plus its time in the call after the holding, its *post-release time* (below).
//! Unchanged regions give back the captured times exactly.
//!
//! The post-release time of a rank that waited is not the collective's own work alone: a
//! waiting rank gives up its core (Open MPI yields while it polls, an oversubscribed node
//! deschedules it), and after a long wait it pays its wake-up before it leaves, measured at
//! 1.6 to 2.5 ms per call after 20 ms waits on a loaded two-core node, against tens of
//! microseconds for the rank that came last. Kept as captured, that wake-up outlives the
//! wait that caused it: the waiter leaves late and arrives last at the next call, and the
//! what-if predicted 48 ms of waiting where the run without the cause measured 0.27 ms. So
//! the part of a waiter's post-release time above its site's *reference* goes with the
//! wait, in proportion to the holding the what-if keeps: with captured holding b, re-timed
//! holding b' < b, captured post-release time s and the site's reference r < s, the rank
//! leaves r + (s − r)·b'/b after its release (s itself when b' ≥ b or r ≥ s; r when the
//! wait is gone). The reference of a call site (`inside` region) is the median
//! post-release time of its calls in which the rank waited for no one (no [`causer`]: it
//! came last, or the operation did not make it wait), the time the collective takes
//! without a wake-up; a site without such calls keeps its captured times. The rule is
//! this model's own, from the measurement above (Lin et al. re-time a run without its
//! stragglers; what a waiter pays after its wait is a consequence of the straggler, so it
//! goes too). The proportion is the simplest rule continuous in b' (no model of the
//! scheduler): a shortened but still long wait keeps part of its wake-up.
//!
//! A rank held inside a call beyond its wait state ([`super::inside`]: an interior rank of
//! a reduce tree waiting for a late child) is re-timed the same way, its holding taken from
//! the rank it waited for: with that rank's new arrival, the part of the gap it did not
//! wait for in the capture stays unwaited, so removing the late child's excess removes the
//! wait inside the reduce too.
//!
//! A model of the collectives only: point-to-point messages, computation that depends on
//! the data, and the MPI library's progress are not captured and are taken as they were.

use super::attribution::causer;
use super::inside::holds;
use super::regions::Regions;
use crate::capture::{Instance, Matched};
use serde::Serialize;
use std::collections::BTreeMap;

/// The outcome of one what-if.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WhatIf {
    /// World rank whose region was shortened.
    pub rank: u32,
    /// Region index.
    pub region: usize,
    /// The region's readable name.
    pub region_label: String,
    /// Time removed from the region, summed over its occurrences, seconds.
    pub removed_s: f64,
    /// Total waiting as captured, seconds.
    pub wait_before_s: f64,
    /// Total waiting re-timed, seconds.
    pub wait_after_s: f64,
    /// Wall time as captured (first capture start to last exit), seconds.
    pub wall_before_s: f64,
    /// Wall time re-timed, seconds.
    pub wall_after_s: f64,
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    super::super::stats::median(&v)
}

/// Per call site (the `inside` region index of [`super::regions::RankCall`]): the median
/// post-release time, seconds, of its calls in which the rank waited for no one (module
/// docs). Sites with no such call are absent.
fn references(m: &Matched, r: &Regions) -> BTreeMap<usize, f64> {
    let mut by_site: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for list in r.calls.values() {
        for call in list {
            let Some(i) = call.instance else { continue };
            if causer(&m.instances[i], call.member).is_none() {
                by_site
                    .entry(call.inside)
                    .or_default()
                    .push((call.exit_s - call.enter_s).max(0.0));
            }
        }
    }
    by_site
        .into_iter()
        .filter_map(|(site, v)| median(v).map(|x| (site, x)))
        .collect()
}

/// A rank's re-timed post-release time, seconds: `captured` (its time in the call after
/// its captured holding `held_old`) less the part above the site's `reference` that goes
/// with the holding removed, `held_new` being the re-timed holding (module docs).
fn post_release(captured: f64, held_old: f64, held_new: f64, reference: Option<&f64>) -> f64 {
    match reference {
        Some(&r) if held_new < held_old && r < captured => {
            r + (captured - r) * (held_new / held_old)
        }
        _ => captured,
    }
}

/// Re-times `m` with `rank`'s region `region` capped (module docs); `order` is
/// [`super::regions::causal_order`]. Returns the new total waiting and wall time as a
/// [`WhatIf`] without its label.
pub fn what_if(m: &Matched, r: &Regions, order: &[usize], rank: u32, region: usize) -> WhatIf {
    // Per rank and position: the new exit, filled in the rank's order.
    let mut exits: BTreeMap<u32, Vec<f64>> = r.calls.keys().map(|&k| (k, Vec::new())).collect();
    let mut removed = 0.0;
    let mut instances: Vec<Instance> = m.instances.clone();
    // New region duration of a rank's call at `pos` (capped when it is the chosen one).
    let duration = |rk: u32, pos: usize, removed: &mut f64| -> f64 {
        let call = r.calls[&rk][pos];
        let d = call.region_s();
        if rk != rank || call.region != region {
            return d;
        }
        let Some(i) = call.instance else { return d };
        let others: Vec<f64> = (0..m.instances[i].entries.len())
            .filter(|&k| k != call.member)
            .map(|k| {
                let (ro, po) = r.call(m, i, k);
                r.calls[&ro][po].region_s()
            })
            .collect();
        match median(others) {
            Some(cap) if cap < d => {
                *removed += d - cap;
                cap
            }
            _ => d,
        }
    };
    let reference = references(m, r);
    let hold = holds(m, r);
    // Advances a rank's new exits up to (not including) `pos`: the calls without an
    // instance in between keep their time in the call.
    let advance = |exits: &mut Vec<f64>, rk: u32, pos: usize, removed: &mut f64| {
        while exits.len() < pos {
            let q = exits.len();
            let call = r.calls[&rk][q];
            let start = q.checked_sub(1).map_or(call.region_start_s, |p| exits[p]);
            exits.push(start + duration(rk, q, removed) + (call.exit_s - call.enter_s));
        }
    };
    for &i in order {
        let n = m.instances[i].entries.len();
        let mut enter = vec![0.0; n];
        for (k, e) in enter.iter_mut().enumerate() {
            let (rk, pk) = r.call(m, i, k);
            let list = exits.get_mut(&rk).expect("every rank has a list");
            advance(list, rk, pk, &mut removed);
            let start = pk
                .checked_sub(1)
                .map_or(r.calls[&rk][pk].region_start_s, |p| list[p]);
            *e = start + duration(rk, pk, &mut removed);
        }
        let old = &m.instances[i];
        let mut new = old.clone();
        for (k, e) in new.entries.iter_mut().enumerate() {
            e.enter_s = enter[k];
        }
        for k in 0..n {
            let o = &old.entries[k];
            let in_call = o.exit_s - o.enter_s;
            // Who held it: Scalasca's causer, re-found among the new arrivals, or the rank
            // it waited for inside the call.
            let (held_old, held) = match hold[i][k] {
                // Inside a call: the holding shrinks with the holder's lateness, its
                // wake-up in proportion (super::inside), and grows with it one for one.
                Some(h) if h.basis.is_some() => {
                    let gap_new = enter[h.by] - enter[k];
                    let kept = if h.gap > 0.0 {
                        (gap_new / h.gap).clamp(0.0, 1.0)
                    } else {
                        0.0
                    };
                    (h.s, h.s * kept + (gap_new - h.gap).max(0.0))
                }
                _ => {
                    let c = causer(old, k);
                    let gap_old = c.map_or(0.0, |c| old.entries[c].enter_s - o.enter_s);
                    let held_old = gap_old.min(in_call).max(0.0);
                    let held_new = causer(&new, k).map_or(0.0, |c| enter[c] - enter[k]);
                    // The part of the gap the rank did not wait for in the capture (it left
                    // first).
                    let unwaited = (gap_old - in_call).max(0.0);
                    (held_old, (held_new - unwaited).max(0.0))
                }
            };
            let (rk, pk) = r.call(m, i, k);
            let site = r.calls[&rk][pk].inside;
            let post = post_release(in_call - held_old, held_old, held, reference.get(&site));
            let exit = enter[k] + held + post;
            new.entries[k].exit_s = exit;
            let list = exits.get_mut(&rk).expect("every rank has a list");
            debug_assert_eq!(list.len(), pk);
            list.push(exit);
        }
        instances[i] = new;
    }
    let mut last_old = f64::NEG_INFINITY;
    let mut last_new = f64::NEG_INFINITY;
    for (rk, list) in &r.calls {
        let new = exits.get_mut(rk).expect("every rank has a list");
        advance(new, *rk, list.len(), &mut removed);
        if let (Some(o), Some(n)) = (list.last(), new.last()) {
            last_old = last_old.max(o.exit_s);
            last_new = last_new.max(*n);
        }
    }
    let total = |v: &[Instance]| v.iter().map(|i| i.waits().iter().sum::<f64>()).sum::<f64>();
    let shift = if last_old.is_finite() {
        last_new - last_old
    } else {
        0.0
    };
    WhatIf {
        rank,
        region,
        region_label: String::new(),
        removed_s: removed,
        wait_before_s: total(&m.instances),
        wait_after_s: total(&instances),
        wall_before_s: m.wall_s,
        wall_after_s: m.wall_s + shift,
    }
}
