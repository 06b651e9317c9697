//! Delays and their costs (Böhme, Geimer, Wolf, Arnold, Wylie and Schulz 2010): every
//! second of collective waiting given to the (rank, region) whose excess time made someone
//! wait, directly or through a chain of waiting ranks, or to a named remainder.
//!
//! At an instance, member k's waiting w_k (Scalasca's wait state, [`Instance::waits`]) is
//! caused by the member c whose arrival ends it ([`causer`]): the last to enter at N×N and
//! barriers, the root for a Late Broadcast, for an Early Reduce the latest non-root (the
//! root's call cannot end before every contribution is in), for an Early Scan the latest of
//! ranks 0..=k. Each rank's entry is a = L + s + d: L the release time in its previous call
//! (its entry there plus its holding, [`blocking`]), s its service time there (exit minus
//! L: the collective's own work, and on an oversubscribed node the wait for a core), d its
//! region since. So a_c − a_k = (d_c − d_k) + (s_c − s_k) + (L_c − L_k), and w_k is split,
//! in this order, into:
//! - the *direct cost* min(w_k, max(0, d_c − d_k)) given to (c, c's region): c spent that
//!   much longer in its region than k in k's (the *delay*, Böhme et al.'s short-term cost);
//! - a direct cost up to max(0, s_c − s_k) given to (c, `inside` its previous call): c left
//!   that call later than k without having waited longer (Böhme et al. count the time in
//!   an MPI call outside its wait states as its call path's delay);
//! - the *propagated cost*: what is left, up to max(0, L_c − L_k) and to c's holding in its
//!   previous call (c arrived late because it had waited longer than k), given to the causes
//!   of that holding in their proportions (Böhme et al.'s long-term cost; `via` names the
//!   rank through which it came);
//! - where c and k came from the same instance, what c's holding there does not explain of
//!   L_c − L_k, up to d'_c − d'_k (their regions before that instance), given to (c, its
//!   region before it) as a direct cost: c entered that call late and nobody waited for it
//!   there (a leaf of a broadcast tree whose root had sent), so the call did not end the
//!   synchronisation interval over which Böhme et al. measure a delay;
//! - the remainder, *unexplained*: c entered its previous call late for reasons the capture
//!   does not show (point-to-point messages, a call whose instance misses a member, clock
//!   error).
//!
//! A rank's holding time in a call, b_k = min(max(0, a_c − a_k), its time in the call), is
//! what propagates: it is w_k except at an Early Reduce's root, where Scalasca counts only
//! the wait for the first sender but the root leaves after the last. Where the rank waited
//! inside the call longer than its wait state says ([`super::inside`]: an interior rank of
//! a reduce tree held by a late child), that waiting is its holding instead, held by the
//! rank it waited for, and the shares carry how that rank was found ([`Share::basis`]).
//! The shares of w_k sum to w_k exactly, so attributed + unexplained = total waiting.
//!
//! [`Instance::waits`]: crate::capture::Instance::waits

use super::inside::{holds, CauseBasis, Hold};
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
    /// None when the share came through wait states only; else how the rank waited for
    /// inside a call was found, at the wait inside a call nearest the waiter.
    pub basis: Option<CauseBasis>,
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
    let hold = holds(m, r);
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
            let (rk, pk) = r.call(m, i, k);
            let ck = r.calls[&rk][pk];
            // What member `k`'s lateness against causer `c` is made of, with the shares of
            // c's holding in its previous call.
            let terms = |c: usize| {
                let (rc, pc) = r.call(m, i, c);
                let cc = r.calls[&rc][pc];
                let prev = pc
                    .checked_sub(1)
                    .map_or(&[][..], |p| held[&rc][p].as_slice());
                let (lc, sc) = release(r, &hold, rc, pc);
                let (lk, sk) = release(r, &hold, rk, pk);
                let t = Terms {
                    region: Culprit::Region {
                        rank: rc,
                        region: cc.region,
                    },
                    d: cc.region_s() - ck.region_s(),
                    inside: pc.checked_sub(1).map(|p| Culprit::Region {
                        rank: rc,
                        region: r.calls[&rc][p].inside,
                    }),
                    sigma: sc - sk,
                    lambda: lc - lk,
                    earlier: earlier_region(r, (rc, pc), (rk, pk)),
                    rc,
                };
                (t, prev)
            };
            if let Some(c) = causer(inst, k).filter(|_| w[k] > 0.0) {
                let (t, prev) = terms(c);
                waits[i][k] = explain(&t, prev, w[k], None);
                let e = excess.entry(t.region).or_insert(0.0);
                *e = e.max(t.d.max(0.0));
                if let Some(inside) = t.inside {
                    let e = excess.entry(inside).or_insert(0.0);
                    *e = e.max(t.sigma.max(0.0));
                }
                if let Some((region, d)) = t.earlier {
                    if waits[i][k].iter().any(|x| x.culprit == region) {
                        let e = excess.entry(region).or_insert(0.0);
                        *e = e.max(d.max(0.0));
                    }
                }
            }
            if let Some(h) = hold[i][k].filter(|h| h.s > 0.0) {
                let (t, prev) = terms(h.by);
                // The part of the holding the holder's lateness explains, and the wake-up
                // after it in the same proportions (super::inside).
                let part = h.s.min(h.gap);
                let mut shares = explain(&t, prev, part, h.basis);
                if part < h.s {
                    shares.iter_mut().for_each(|x| x.s *= h.s / part);
                }
                holds.push((rk, pk, shares));
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

/// What a causer's lateness over a waiter is made of (module docs).
struct Terms {
    /// The causer's region before the call.
    region: Culprit,
    /// d_c − d_k, seconds.
    d: f64,
    /// The causer's previous call as a region, None without one.
    inside: Option<Culprit>,
    /// s_c − s_k, seconds.
    sigma: f64,
    /// L_c − L_k, seconds.
    lambda: f64,
    /// Where both ranks' previous calls are one instance: the causer's region before that
    /// call and d'_c − d'_k, seconds, the excess of its region there over the waiter's.
    earlier: Option<(Culprit, f64)>,
    /// The causer's world rank.
    rc: u32,
}

/// The causer's region before its previous call, and how much longer it was than the
/// waiter's, when the causer `(rank, pos)` and the waiter `(rank, pos)` came to their calls
/// from the same instance: a rank late into a call in which nobody waited for it (a leaf of
/// a broadcast tree, whose root had sent already) leaves it late without any holding, and
/// its lateness at the next call was made in the region before that call. Böhme et al.
/// (2010) measure a delay over the synchronisation interval, which such a call does not end.
fn earlier_region(r: &Regions, c: (u32, usize), k: (u32, usize)) -> Option<(Culprit, f64)> {
    let (pc, pk) = (c.1.checked_sub(1)?, k.1.checked_sub(1)?);
    let (cc, ck) = (r.calls[&c.0][pc], r.calls[&k.0][pk]);
    (cc.instance.is_some() && cc.instance == ck.instance).then(|| {
        (
            Culprit::Region {
                rank: c.0,
                region: cc.region,
            },
            cc.region_s() - ck.region_s(),
        )
    })
}

/// A rank's release time L and service time s in the call before its call at `pos`
/// (module docs), seconds, from every member's holding `hold` ([`holds`]); (its region's
/// start, 0) for its first call.
fn release(r: &Regions, hold: &[Vec<Option<Hold>>], rank: u32, pos: usize) -> (f64, f64) {
    let list = &r.calls[&rank];
    let Some(p) = pos.checked_sub(1) else {
        return (list[pos].region_start_s, 0.0);
    };
    let prev = list[p];
    let held = prev
        .instance
        .and_then(|i| hold[i][prev.member])
        .map_or(0.0, |h| h.s);
    let l = prev.enter_s + held;
    (l, (prev.exit_s - l).max(0.0))
}

/// Splits `t` seconds of waiting into direct (region, then inside the previous call),
/// propagated (in the proportions of `prev`, the shares of the causer's holding in its
/// previous call) and unexplained shares (module docs); `basis` is that of the holding `t`
/// explains when it is a wait inside a call ([`Share::basis`]).
fn explain(terms: &Terms, prev: &[Share], t: f64, basis: Option<CauseBasis>) -> Vec<Share> {
    let mut out: BTreeMap<(Culprit, Option<u32>, Option<CauseBasis>), f64> = BTreeMap::new();
    let mut rest = t;
    let give = |out: &mut BTreeMap<_, f64>, culprit: Culprit, limit: f64, rest: &mut f64| {
        let s = rest.min(limit.max(0.0));
        // Rounding of equal times is no cause.
        if s > 1e-12 {
            *out.entry((culprit, None, basis)).or_insert(0.0) += s;
            *rest -= s;
        }
    };
    give(&mut out, terms.region, terms.d, &mut rest);
    if let Some(inside) = terms.inside {
        give(&mut out, inside, terms.sigma, &mut rest);
    }
    let held: f64 = prev.iter().map(|s| s.s).sum();
    if rest > 0.0 && held > 0.0 && terms.lambda > 0.0 {
        let p = rest.min(held).min(terms.lambda);
        for s in prev {
            let via = match s.culprit {
                Culprit::Unexplained => None,
                Culprit::Region { .. } => s.via.or(Some(terms.rc)),
            };
            *out.entry((s.culprit, via, basis.or(s.basis)))
                .or_insert(0.0) += s.s * p / held;
        }
        rest -= p;
    }
    // What the causer's holding does not explain of its late release: it entered its
    // previous call late, by its region before that call (`Terms::earlier`).
    if let Some((region, d)) = terms.earlier {
        let unheld = terms.lambda - held;
        give(&mut out, region, d.min(unheld), &mut rest);
    }
    if rest > 0.0 {
        *out.entry((Culprit::Unexplained, None, basis))
            .or_insert(0.0) += rest;
    }
    out.into_iter()
        .map(|((culprit, via, basis), s)| Share {
            culprit,
            via,
            basis,
            s,
        })
        .collect()
}
