//! Waiting inside a call, on every rank: what holds a member in a collective beyond
//! Scalasca's wait states.
//!
//! Scalasca's wait states ([`Instance::waits`]) count the waiting that the operation's
//! semantics force: at an Early Reduce only the root's, at a Late Broadcast only the wait
//! for the root. Inside the library the ranks wait for each other along the algorithm's
//! schedule (Faraj, Patarasuk and Yuan 2008 on process arrival patterns inside
//! collectives): in Open MPI 4.1's binary reduce tree on 4 ranks, rank 3 sends to rank 1 and
//! rank 1 to the root, so a late rank 3 holds rank 1 inside the reduce, where Scalasca
//! counts nothing; rank 1 then leaves late, enters its next call late, and without this
//! module its time in the reduce looked like its own (a direct cost of `inside` the
//! reduce).
//!
//! So a member's *time in the call beyond its reference* is waiting too: its reference at a
//! call site is the median of its times in the calls at that site that it entered last
//! (nobody entered after it, so it waited for no one: the time the collective takes on that
//! rank when nobody is late). At an instance where someone entered after it, the excess
//! max(0, t_in − t_ref) (t_in its time in the call) is held by h, the member it waited for.
//! It is not capped at h's lateness a_h − a_k: a rank that waited gave up its core, and on
//! a loaded node its wake-up, and the wake-ups of the ranks between it and h in the
//! algorithm's schedule, cost milliseconds (the root of a reduce on 4 ranks on a loaded
//! 2-core node left 5 ms after the late rank's entry, against a reference of 0.2 ms); that
//! time is a consequence of the wait, and goes with it, as the what-if lets a waiter's
//! wake-up go with its wait ([`super::what_if`]). Where the capture names the library (format
//! 2) and [`super::schedules`] knows the algorithm it ran for the instance's operation, size
//! and P, h is the member that entered last of those k depends on in the algorithm's
//! dependency graph ([`CauseBasis::Algorithm`]): in Open MPI's binary reduce tree on 4 ranks
//! rank 1 depends on rank 3 only, so a rank 2 that entered later holds rank 1 not at all,
//! and a member none of whose dependencies entered after it was held by no one (its time in
//! the call is its own). Elsewhere h is the instance's last entrant
//! ([`CauseBasis::LastEntrant`]): exact whenever one rank is late, an approximation when
//! several are. Where Scalasca's wait state holds the member
//! longer (its causer, [`blocking`]), and at N×N operations and barriers (whose causer is
//! the last entrant), that holding stands as before, and the waiter's wake-up stays its
//! post-release time. An Early Reduce's root takes the wait inside the call with its
//! wake-up: on the loaded node its wake-up along the tree was what made it late. A site without a reference (no rank
//! ever entered it last) keeps Scalasca's holdings only.
//!
//! The holding propagates like a wait state's (Böhme et al. 2010's long-term cost): the
//! member left late because it waited, and the waiting it causes at its next call goes back
//! to the rank that held it.
//!
//! [`Instance::waits`]: crate::capture::Instance::waits
//! [`blocking`]: super::attribution::blocking

use super::attribution::{blocking, causer};
use super::regions::Regions;
use super::schedules::depends_on;
use crate::capture::{Instance, Matched, WaitKind};
use serde::Serialize;
use std::collections::BTreeMap;

/// How the member a wait inside a call was waiting for was found (`cause_basis`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CauseBasis {
    /// The instance's last entrant (module docs).
    LastEntrant,
    /// The member that entered last among those the waiting member depends on in the
    /// library's algorithm ([`super::schedules`]).
    Algorithm,
}

/// What held one member in one call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hold {
    /// The member (by communicator rank) whose arrival ended the holding.
    pub by: usize,
    /// The holding, seconds.
    pub s: f64,
    /// How much later the holder entered, seconds (the holding's part that its lateness
    /// explains is min(s, gap); the rest is the wake-up that goes with it).
    pub gap: f64,
    /// None for Scalasca's wait state ([`blocking`]), the basis for a wait inside the call.
    pub basis: Option<CauseBasis>,
}

/// The member that entered last (ties: the lower rank, so a tie names one rank
/// reproducibly).
fn last_entrant(inst: &Instance) -> Option<usize> {
    latest(inst, &(0..inst.entries.len()).collect::<Vec<_>>())
}

/// Of `members`, the one that entered `inst` last (ties: the lower rank).
fn latest(inst: &Instance, members: &[usize]) -> Option<usize> {
    members.iter().copied().max_by(|&a, &b| {
        inst.entries[a]
            .enter_s
            .total_cmp(&inst.entries[b].enter_s)
            .then(b.cmp(&a))
    })
}

/// The calls a rank's own reference at a site needs: a median of fewer is one scheduler
/// slice or two (a root of a reduce on 8 ranks that came last twice in 200 calls, both times
/// descheduled, had a reference of milliseconds and kept its wake-up as its own time).
pub const OWN_REFERENCE_CALLS: usize = 5;

/// Per world rank and call site (the `inside` region of [`super::regions::RankCall`]): the
/// rank's reference time in the call, seconds, the median of its times in the calls there
/// that it entered last (module docs); a rank that entered last there fewer than
/// [`OWN_REFERENCE_CALLS`] times (the root of a reduce nobody waits for, which comes last only
/// when the scheduler held it) takes the median over every rank's such calls at the site.
/// Sites without such a call are absent.
pub fn references(m: &Matched, r: &Regions) -> BTreeMap<(u32, usize), f64> {
    let mut by: BTreeMap<(u32, usize), Vec<f64>> = BTreeMap::new();
    let mut sites: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for (&rank, list) in &r.calls {
        for call in list {
            let Some(i) = call.instance else { continue };
            let inst = &m.instances[i];
            if inst.op.wait_kind().is_some() && last_entrant(inst) == Some(call.member) {
                let t = (call.exit_s - call.enter_s).max(0.0);
                by.entry((rank, call.inside)).or_default().push(t);
                sites.entry(call.inside).or_default().push(t);
            }
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        crate::analysis::stats::median(&v)
    };
    let sites: BTreeMap<usize, f64> = sites
        .into_iter()
        .filter_map(|(site, v)| median(v).map(|x| (site, x)))
        .collect();
    let mut refs = BTreeMap::new();
    for (&rank, list) in &r.calls {
        for call in list {
            let key = (rank, call.inside);
            if refs.contains_key(&key) {
                continue;
            }
            let own = by
                .remove(&key)
                .filter(|v| v.len() >= OWN_REFERENCE_CALLS)
                .and_then(median);
            if let Some(x) = own.or_else(|| sites.get(&call.inside).copied()) {
                refs.insert(key, x);
            }
        }
    }
    refs
}

/// Member `k`'s holding in `inst` (module docs); `t_ref` is its reference time at the site,
/// seconds; `deps` the members (by communicator rank) `k` depends on in the library's
/// algorithm ([`super::schedules::depends_on`]), None when the algorithm is unknown. None
/// when nothing held it.
pub fn hold(inst: &Instance, k: usize, t_ref: Option<f64>, deps: Option<&[usize]>) -> Option<Hold> {
    let scalasca = causer(inst, k).map(|c| Hold {
        by: c,
        s: blocking(inst, k),
        gap: inst.entries[c].enter_s - inst.entries[k].enter_s,
        basis: None,
    });
    let n_by_n = matches!(
        inst.op.wait_kind(),
        Some(WaitKind::WaitNxN | WaitKind::WaitBarrier)
    );
    let inside = inst.op.wait_kind().and(t_ref).and_then(|t_ref| {
        let (h, basis) = match deps {
            Some(deps) => (latest(inst, deps)?, CauseBasis::Algorithm),
            None => (last_entrant(inst)?, CauseBasis::LastEntrant),
        };
        let e = &inst.entries[k];
        let gap = inst.entries[h].enter_s - e.enter_s;
        (h != k && gap > 0.0).then(|| Hold {
            by: h,
            s: ((e.exit_s - e.enter_s) - t_ref).max(0.0),
            gap,
            basis: Some(basis),
        })
    });
    match (scalasca, inside) {
        // At N×N operations and barriers the wait state's causer is the last entrant: its
        // holding stands, and the waiter's wake-up stays its post-release time, which the
        // what-if treats as before.
        (Some(s), Some(_)) if n_by_n => Some(s),
        (s, Some(x)) if x.s > s.map_or(0.0, |s| s.s) => Some(x),
        (s, _) => s,
    }
}

/// Every member's holding, per instance (by communicator rank), for the regions `r` of `m`.
pub fn holds(m: &Matched, r: &Regions) -> Vec<Vec<Option<Hold>>> {
    let refs = references(m, r);
    m.instances
        .iter()
        .enumerate()
        .map(|(i, inst)| {
            let schedule = r.runtime.schedule(inst);
            (0..inst.entries.len())
                .map(|k| {
                    let (rank, pos) = r.call(m, i, k);
                    let site = r.calls[&rank][pos].inside;
                    let deps = schedule.map(|s| depends_on(s, inst, k));
                    hold(inst, k, refs.get(&(rank, site)).copied(), deps.as_deref())
                })
                .collect()
        })
        .collect()
}
