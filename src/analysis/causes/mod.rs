//! Who made everyone wait: the root causes of a capture's collective wait states.
//!
//! - `regions.rs`: per rank, the code regions between consecutive captured calls, named by
//!   the two call sites.
//! - `attribution.rs`: delays, direct and propagated costs after Böhme, Geimer, Wolf,
//!   Arnold, Wylie and Schulz (2010): every second of waiting given to one (rank, region)
//!   or to the remainder, *unexplained*.
//! - `inside.rs`: waiting inside a call beyond Scalasca's wait states (a rank of a reduce
//!   tree held by a late child) and who it was held by, on every rank.
//! - `what_if.rs`: the instances re-timed with one region's excess removed (Lin et al. 2025).
//! - `replayed.rs`: for `analyze` of a replay, the top cause of each late rank's lateness at
//!   the replayed site, from the capture's attribution.
//!
//! What the capture sees: the collectives (blocking ones, persistent ones from start to
//! completion; a nonblocking initiation waits for nothing, and the waiting in its
//! `MPI_Wait` is not a collective's). Point-to-point messages are not captured: time a rank
//! spent in them is part of its regions, and waiting that a message passed on shows up as
//! unexplained.

mod attribution;
mod inside;
mod regions;
mod replayed;
mod schedules;
mod what_if;

pub use attribution::{attribute, blocking, causer, Attribution, Culprit, Share};
pub use inside::{hold, holds, CauseBasis, Hold};
pub use regions::{causal_order, regions, RankCall, RegionName, Regions, INIT_SITE};
pub use replayed::{
    late_rank_causes, parse_replay_label, replay_cause_line, replay_causes, LateRankCause,
    ReplayCausesError,
};
pub use schedules::{
    depends_on, library_version, Forcing, Runtime, Schedule, Shape, When, SCHEDULES,
};
pub use what_if::WhatIf;

use crate::capture::{Matched, RankCapture};
use serde::Serialize;
use std::collections::BTreeMap;

/// One (rank, region) that made others wait.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CauseRow {
    /// World rank.
    pub rank: u32,
    /// Region index (as `--what-if RANK:REGION` takes it).
    pub region: usize,
    /// The region's readable name (`from → to`).
    pub region_label: String,
    /// Its delay, seconds: per instance the largest excess of its region over a waiting
    /// member's, summed over instances.
    pub delay_s: f64,
    /// Waiting it caused at the calls it arrived late at, seconds.
    pub direct_s: f64,
    /// Waiting it caused later through ranks it held, seconds.
    pub propagated_s: f64,
    /// (direct + propagated) over all waiting.
    pub share: f64,
    /// Instances at which it was the direct cause of waiting.
    pub calls: usize,
    /// The ranks its propagated cost came through, with seconds, the largest first.
    pub via: Vec<(u32, f64)>,
}

/// What a call's waiting on one rank is given to, for `--rows calls`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CauseKind {
    /// The rank did not wait.
    None,
    /// The largest share is a direct cost.
    Direct,
    /// The largest share is a propagated cost.
    Propagated,
    /// The largest share is unexplained.
    Unexplained,
}

/// The cause of one rank's waiting at one call: its largest share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallCause {
    /// World rank of the culprit, None when none is named.
    pub rank: Option<u32>,
    /// Its region index.
    pub region: Option<usize>,
    /// The kind of the share.
    pub kind: CauseKind,
    /// None when the share came through wait states only; else how the rank waited for
    /// inside a call on its way was found ([`Share::basis`]).
    pub basis: Option<CauseBasis>,
}

/// The causes of a capture's waiting. The default is the report of a capture without
/// waiting: all zero, nothing named.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CausesReport {
    /// All waiting (Scalasca's wait states summed over calls and ranks), seconds.
    pub wait_total_s: f64,
    /// Waiting given to a (rank, region), seconds.
    pub attributed_s: f64,
    /// Waiting the capture does not explain, seconds; attributed + unexplained = total.
    pub unexplained_s: f64,
    /// Every (rank, region) that caused waiting, the largest cost first.
    pub causes: Vec<CauseRow>,
    /// Region names by index.
    pub regions: Vec<String>,
    /// What-if outcomes asked for.
    pub what_if: Vec<WhatIf>,
    /// Per instance and member, its cause.
    #[serde(skip)]
    pub calls: Vec<Vec<CallCause>>,
}

/// Everything a causes report is built from, kept for the what-ifs.
pub struct Causes<'a> {
    matched: &'a Matched,
    regions: Regions,
    order: Vec<usize>,
    /// The report.
    pub report: CausesReport,
}

impl<'a> Causes<'a> {
    /// Finds the causes of `m`'s waiting; `captures` are the files `m` was matched from and
    /// `name` turns a site key into a readable name.
    pub fn new(captures: &[RankCapture], m: &'a Matched, name: &dyn Fn(&str) -> String) -> Self {
        let regions = regions::regions(captures, m);
        let order = causal_order(m, &regions);
        let a = attribute(m, &regions, &order);
        let labels: Vec<String> = regions.names.iter().map(|n| n.label(name)).collect();
        let mut rows: BTreeMap<(u32, usize), CauseRow> = BTreeMap::new();
        let mut vias: BTreeMap<(u32, usize), BTreeMap<u32, f64>> = BTreeMap::new();
        let (mut total, mut unexplained) = (0.0, 0.0);
        let mut calls = Vec::with_capacity(a.waits.len());
        for inst in &a.waits {
            let mut per = Vec::with_capacity(inst.len());
            for shares in inst {
                let biggest = shares.iter().max_by(|x, y| x.s.total_cmp(&y.s));
                per.push(match biggest {
                    None => CallCause {
                        rank: None,
                        region: None,
                        kind: CauseKind::None,
                        basis: None,
                    },
                    Some(Share {
                        culprit: Culprit::Region { rank, region },
                        via,
                        basis,
                        ..
                    }) => CallCause {
                        rank: Some(*rank),
                        region: Some(*region),
                        kind: if via.is_some() {
                            CauseKind::Propagated
                        } else {
                            CauseKind::Direct
                        },
                        basis: *basis,
                    },
                    Some(s) => CallCause {
                        rank: None,
                        region: None,
                        kind: CauseKind::Unexplained,
                        basis: s.basis,
                    },
                });
                for s in shares {
                    total += s.s;
                    let Culprit::Region { rank, region } = s.culprit else {
                        unexplained += s.s;
                        continue;
                    };
                    let row = rows.entry((rank, region)).or_insert_with(|| CauseRow {
                        rank,
                        region,
                        region_label: labels[region].clone(),
                        delay_s: 0.0,
                        direct_s: 0.0,
                        propagated_s: 0.0,
                        share: 0.0,
                        calls: 0,
                        via: Vec::new(),
                    });
                    match s.via {
                        None => row.direct_s += s.s,
                        Some(v) => {
                            row.propagated_s += s.s;
                            *vias
                                .entry((rank, region))
                                .or_default()
                                .entry(v)
                                .or_default() += s.s;
                        }
                    }
                }
            }
            calls.push(per);
        }
        for (culprit, (delay, n)) in &a.delays {
            if let Culprit::Region { rank, region } = *culprit {
                if let Some(row) = rows.get_mut(&(rank, region)) {
                    row.delay_s = *delay;
                    row.calls = *n;
                }
            }
        }
        let mut causes: Vec<CauseRow> = rows
            .into_iter()
            .map(|(key, mut row)| {
                row.share = if total > 0.0 {
                    (row.direct_s + row.propagated_s) / total
                } else {
                    0.0
                };
                let mut via: Vec<(u32, f64)> =
                    vias.remove(&key).unwrap_or_default().into_iter().collect();
                via.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                row.via = via;
                row
            })
            .collect();
        causes.sort_by(|a, b| {
            (b.direct_s + b.propagated_s)
                .total_cmp(&(a.direct_s + a.propagated_s))
                .then((a.rank, a.region).cmp(&(b.rank, b.region)))
        });
        let report = CausesReport {
            wait_total_s: total,
            attributed_s: total - unexplained,
            unexplained_s: unexplained,
            causes,
            regions: labels,
            what_if: Vec::new(),
            calls,
        };
        Causes {
            matched: m,
            regions,
            order,
            report,
        }
    }

    /// Re-times the capture with `rank`'s region `region` capped ([`what_if`]) and keeps
    /// the outcome in the report.
    ///
    /// # Errors
    /// A message naming the regions when `region` is not one of `rank`'s.
    ///
    /// [`what_if`]: what_if::what_if
    pub fn what_if(&mut self, rank: u32, region: usize) -> Result<&WhatIf, String> {
        let known = self
            .regions
            .calls
            .get(&rank)
            .is_some_and(|l| l.iter().any(|c| c.region == region));
        if !known {
            return Err(format!(
                "rank {rank} has no region {region} between calls: the causes table's rank and region columns name them (0..{} regions, ranks {:?}; an `inside` region is a call's own time, which a what-if does not change)",
                self.report.regions.len(),
                self.regions.calls.keys().collect::<Vec<_>>()
            ));
        }
        let mut w = what_if::what_if(self.matched, &self.regions, &self.order, rank, region);
        w.region_label = self.report.regions[region].clone();
        self.report.what_if.push(w);
        Ok(self.report.what_if.last().expect("just pushed"))
    }

    /// Whether region `region` is a region between calls (not the inside of a call).
    pub fn is_region(&self, region: usize) -> bool {
        self.regions
            .names
            .get(region)
            .is_some_and(|n| n.from != regions::INSIDE)
    }

    /// The regions and calls the report was built on.
    pub fn regions(&self) -> &Regions {
        &self.regions
    }
}

impl CausesReport {
    /// The one-line summary: who caused the most waiting, how, and through whom; None when
    /// nobody is named.
    pub fn headline(&self) -> Option<String> {
        let top = self.causes.first()?;
        let mut line = format!(
            "rank {} in `{}` caused {:.0} % of all waiting: {} direct",
            top.rank,
            top.region_label,
            top.share * 100.0,
            crate::units::format_duration(top.direct_s),
        );
        if let Some((via, s)) = top.via.first() {
            line.push_str(&format!(
                ", {} through rank {via}",
                crate::units::format_duration(*s)
            ));
        }
        Some(line)
    }
}

#[cfg(test)]
mod tests;
