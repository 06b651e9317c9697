//! Delays and their costs (Böhme, Geimer, Wolf, Arnold, Wylie and Schulz 2010): every
//! second of collective waiting given to the (rank, region) whose excess time made someone
//! wait, directly or through a chain of waiting ranks, or to a named remainder.
//!
//! At an instance, member k's waiting w_k (Scalasca's wait state, [`Instance::waits`]) is
//! caused by the member c whose arrival ends it ([`causer`]): the last to enter at N×N and
//! barriers, the root for a Late Broadcast, for an Early Reduce the latest non-root (the
//! root's call cannot end before every contribution is in), for an Early Scan the latest of
//! ranks 0..=k. With x the start of each rank's region before the call and d its duration,
//! a_c − a_k = (d_c − d_k) + (x_c − x_k), and w_k is split, in this order, into:
//! - the *direct cost* min(w_k, max(0, d_c − d_k)) given to (c, c's region): c spent that
//!   much longer in its region than k in k's (the *delay*, Böhme et al.'s short-term cost);
//! - the *propagated cost*: what is left, up to the time c itself was held in its previous
//!   call ([`blocking`]: c arrived late because it had waited), given to the causes of that
//!   earlier holding in their proportions (Böhme et al.'s long-term cost; `via` names the
//!   rank through which it came);
//! - the remainder, *unexplained*: c started its region late for reasons the capture does
//!   not show (a slower call, point-to-point messages, clock error).
//!
//! A rank's holding time in a call, b_k = min(max(0, a_c − a_k), its time in the call), is
//! what propagates: it is w_k except at an Early Reduce's root, where Scalasca counts only
//! the wait for the first sender but the root leaves after the last. The shares of w_k sum
//! to w_k exactly, so attributed + unexplained = total waiting.
//!
//! [`Instance::waits`]: crate::capture::Instance::waits

use super::regions::Regions;
use crate::capture::{Instance, Matched, WaitKind};
use std::collections::BTreeMap;

/// Who a share of waiting is given to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Culprit {
    /// A rank's region (index into `Regions::names`).
    Region {
        /// World rank.
        rank: u32,
        /// Region index.
        region: usize,
    },
    /// Waiting the capture does not explain (module docs).
    Unexplained,
}

/// One share of a waiting time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Share {
    /// Who it is given to.
    pub culprit: Culprit,
    /// None for a direct cost; for a propagated one the world rank through which it came
    /// (the first rank held by the culprit's delay).
    pub via: Option<u32>,
    /// Seconds.
    pub s: f64,
}

/// The member (by communicator rank) whose arrival ends member `k`'s holding in the call,
/// None when `k` depends on no one else (module docs; nonblocking initiations wait for
/// nothing, non-roots of an Early Reduce and the root of a Late Broadcast leave on their own).
pub fn causer(inst: &Instance, k: usize) -> Option<usize> {
    let n = inst.entries.len();
    let root = usize::try_from(inst.root).ok().filter(|&r| r < n);
    let latest = |range: &mut dyn Iterator<Item = usize>| {
        range.max_by(|&a, &b| {
            inst.entries[a]
                .enter_s
                .total_cmp(&inst.entries[b].enter_s)
                // Equal entries: the lower rank, so a tie names one rank reproducibly.
                .then(b.cmp(&a))
        })
    };
    let c = match inst.op.wait_kind()? {
        WaitKind::WaitNxN | WaitKind::WaitBarrier => latest(&mut (0..n)),
        WaitKind::LateBroadcast => root.filter(|&r| r != k),
        WaitKind::EarlyReduce if root == Some(k) => latest(&mut (0..n).filter(|&j| j != k)),
        WaitKind::EarlyReduce => None,
        WaitKind::EarlyScan => latest(&mut (0..=k)),
    }?;
    (c != k && inst.entries[c].enter_s > inst.entries[k].enter_s).then_some(c)
}

/// Member `k`'s holding time in the call, seconds: how long after its entry the causer
/// entered, at most its own time in the call; 0 without a causer.
pub fn blocking(inst: &Instance, k: usize) -> f64 {
    causer(inst, k).map_or(0.0, |c| {
        let e = &inst.entries[k];
        (inst.entries[c].enter_s - e.enter_s)
            .min(e.exit_s - e.enter_s)
            .max(0.0)
    })
}

/// The attribution of every wait of a capture.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribution {
    /// Per instance and member: the shares of its waiting, summing to it (empty when it
    /// did not wait).
    pub waits: Vec<Vec<Vec<Share>>>,
    /// Per culprit region: its delay, seconds (per instance, the largest excess
    /// max(0, d_c − d_k) over the members it made wait, summed over instances), and the
    /// instances at which it caused waiting.
    pub delays: BTreeMap<Culprit, (f64, usize)>,
}

/// Attributes every wait of `m` (module docs).
pub fn attribute(m: &Matched, r: &Regions, order: &[usize]) -> Attribution {
    // Per rank and call position: the shares of that call's holding time.
    let mut held: BTreeMap<u32, Vec<Vec<Share>>> = r
        .calls
        .iter()
        .map(|(&rank, list)| (rank, vec![Vec::new(); list.len()]))
        .collect();
    let mut waits: Vec<Vec<Vec<Share>>> = m
        .instances
        .iter()
        .map(|i| vec![Vec::new(); i.entries.len()])
        .collect();
    let mut delays: BTreeMap<Culprit, (f64, usize)> = BTreeMap::new();
    for &i in order {
        let inst = &m.instances[i];
        let w = inst.waits();
        let mut excess: BTreeMap<Culprit, f64> = BTreeMap::new();
        let mut holds = Vec::new();
        for k in 0..inst.entries.len() {
            let Some(c) = causer(inst, k) else { continue };
            let b = blocking(inst, k);
            let (rk, pk) = r.call(m, i, k);
            let (rc, pc) = r.call(m, i, c);
            let (ck, cc) = (r.calls[&rk][pk], r.calls[&rc][pc]);
            let prev = pc.checked_sub(1).map(|p| held[&rc][p].as_slice());
            let d = cc.region_s() - ck.region_s();
            let culprit = Culprit::Region {
                rank: rc,
                region: cc.region,
            };
            if w[k] > 0.0 {
                waits[i][k] = explain(culprit, rc, d, prev.unwrap_or(&[]), w[k]);
                let e = excess.entry(culprit).or_insert(0.0);
                *e = e.max(d.max(0.0));
            }
            if b > 0.0 {
                holds.push((rk, pk, explain(culprit, rc, d, prev.unwrap_or(&[]), b)));
            }
        }
        // Written after the instance: no member's holding here explains another's.
        for (rk, pk, shares) in holds {
            held.get_mut(&rk).expect("every rank has a list")[pk] = shares;
        }
        for (culprit, e) in excess {
            let entry = delays.entry(culprit).or_insert((0.0, 0));
            entry.0 += e;
            entry.1 += 1;
        }
    }
    Attribution { waits, delays }
}

/// Splits `t` seconds of waiting for `culprit` (rank `rc`, whose region was `d` seconds
/// longer than the waiter's) into direct, propagated (in the proportions of `prev`, the
/// shares of `rc`'s holding in its previous call) and unexplained shares (module docs).
fn explain(culprit: Culprit, rc: u32, d: f64, prev: &[Share], t: f64) -> Vec<Share> {
    let mut out: BTreeMap<(Culprit, Option<u32>), f64> = BTreeMap::new();
    let direct = t.min(d.max(0.0));
    if direct > 0.0 {
        out.insert((culprit, None), direct);
    }
    let mut rest = t - direct;
    let held: f64 = prev.iter().map(|s| s.s).sum();
    if rest > 0.0 && held > 0.0 {
        let p = rest.min(held);
        for s in prev {
            let via = match s.culprit {
                Culprit::Unexplained => None,
                Culprit::Region { .. } => s.via.or(Some(rc)),
            };
            *out.entry((s.culprit, via)).or_insert(0.0) += s.s * p / held;
        }
        rest -= p;
    }
    if rest > 0.0 {
        *out.entry((Culprit::Unexplained, None)).or_insert(0.0) += rest;
    }
    out.into_iter()
        .map(|((culprit, via), s)| Share { culprit, via, s })
        .collect()
}
