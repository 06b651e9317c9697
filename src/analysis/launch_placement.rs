//! `analyze --placement`: per configuration, each launch's median t_global beside where its
//! ranks and buffers were ([`crate::records::BufferPlacement`]), and which of those
//! conditions separates the launches' medians.
//!
//! A condition *separates* the launches when grouping them by its value puts the groups'
//! medians in disjoint ranges. By chance alone, with the group sizes fixed and the labels
//! shuffled over the sorted launch medians, that happens with probability
//! g! · ∏ nᵢ! / n! (g groups of nᵢ launches, n in all): the permutation p-value given beside
//! each separation (Good 2005, ch. 3). With 5 launches it is at least 0.2, so 5 launches can
//! point at a condition but not show it; 10 launches split 5/5 reach 0.008.

use super::digest::{BlockDigest, LaunchDigest};
use super::stats::median;
use crate::plan::Op;
use crate::records::{BufferPlacement, RunLabel};
use serde::Serialize;
use std::collections::BTreeMap;

/// One launch of one configuration. Seconds; per-rank lists joined by `,` in rank order
/// (`?` where a value is unknown).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacementRow {
    pub op: Op,
    pub bytes: u64,
    pub nprocs: u32,
    pub algorithm: String,
    pub delay_model: String,
    /// The launch's place among the files given, from 1.
    pub launch: usize,
    /// The launch's run id.
    pub run_id: String,
    /// Its valid repetitions.
    pub valid: usize,
    /// Its median t_global, seconds (NaN without valid repetitions).
    pub t_global_median_s: f64,
    /// Per rank: the CPU it ran on.
    pub cpus: String,
    /// `yes` when two ranks of the block shared a physical core (SMT siblings).
    pub smt_siblings: String,
    /// Per rank: the send and the receive buffer's offset in its 4 KiB page, bytes.
    pub send_page_offsets: String,
    pub recv_page_offsets: String,
    /// Per rank: `y` when the buffer's first page is part of a huge page.
    pub send_huge: String,
    pub recv_huge: String,
    /// The conditions that separate this configuration's launches, with their
    /// permutation p-values (`recv_page_offsets p=0.20`), `;`-joined; `none` when none does
    /// (a condition with a value of its own in every launch separates nothing); empty with
    /// fewer than 3 launches with a median and a recorded placement.
    pub separated_by: String,
}

/// How a condition is read off a row.
type Condition = fn(&PlacementRow) -> &str;

/// The conditions compared, by column name.
const CONDITIONS: [(&str, Condition); 6] = [
    ("cpus", |r| &r.cpus),
    ("smt_siblings", |r| &r.smt_siblings),
    ("send_page_offsets", |r| &r.send_page_offsets),
    ("recv_page_offsets", |r| &r.recv_page_offsets),
    ("send_huge", |r| &r.send_huge),
    ("recv_huge", |r| &r.recv_huge),
];

/// One row per (configuration, launch) over `launches` (records files of one plan), in the
/// order of the first launch's blocks; configurations are keyed by op, size, P, algorithm
/// and delay model.
pub fn placement_rows(launches: &[LaunchDigest]) -> Vec<PlacementRow> {
    let mut order: Vec<Key> = Vec::new();
    let mut by_key: BTreeMap<Key, Vec<PlacementRow>> = BTreeMap::new();
    for (i, launch) in launches.iter().enumerate() {
        let run_id = RunLabel::of(&launch.header).run_id;
        for b in &launch.blocks {
            let key = Key::of(b);
            if !by_key.contains_key(&key) {
                order.push(key.clone());
            }
            by_key.entry(key).or_default().push(row(b, i + 1, &run_id));
        }
    }
    let mut rows = Vec::new();
    for key in order {
        let mut group = by_key.remove(&key).unwrap_or_default();
        let separated = separated_by(&group);
        for r in &mut group {
            r.separated_by.clone_from(&separated);
        }
        rows.extend(group);
    }
    rows
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key(Op, u64, u32, String, String);

impl Key {
    fn of(b: &BlockDigest) -> Key {
        Key(
            b.op,
            b.bytes,
            b.nprocs,
            b.algorithm.clone(),
            b.delay_model.clone(),
        )
    }
}

fn row(b: &BlockDigest, launch: usize, run_id: &str) -> PlacementRow {
    let p = &b.placement;
    let list =
        |f: &dyn Fn(&BufferPlacement) -> String| p.iter().map(f).collect::<Vec<_>>().join(",");
    let yes_no = |h: Option<bool>| match h {
        Some(true) => "y".to_string(),
        Some(false) => "n".to_string(),
        None => "?".to_string(),
    };
    let cores: Vec<(i32, i32)> = p
        .iter()
        .filter(|x| x.core >= 0)
        .map(|x| (x.package, x.core))
        .collect();
    let mut distinct = cores.clone();
    distinct.sort_unstable();
    distinct.dedup();
    PlacementRow {
        op: b.op,
        bytes: b.bytes,
        nprocs: b.nprocs,
        algorithm: b.algorithm.clone(),
        delay_model: b.delay_model.clone(),
        launch,
        run_id: run_id.to_string(),
        valid: b.t_globals.len(),
        t_global_median_s: median(&b.t_globals).unwrap_or(f64::NAN),
        cpus: list(&|x| {
            if x.cpu < 0 {
                "?".into()
            } else {
                x.cpu.to_string()
            }
        }),
        smt_siblings: match (p.is_empty(), distinct.len() < cores.len()) {
            (true, _) => String::new(),
            (false, true) => "yes".into(),
            (false, false) => "no".into(),
        },
        send_page_offsets: list(&|x| x.send_page_offset().to_string()),
        recv_page_offsets: list(&|x| x.recv_page_offset().to_string()),
        send_huge: list(&|x| yes_no(x.send_huge)),
        recv_huge: list(&|x| yes_no(x.recv_huge)),
        separated_by: String::new(),
    }
}

/// The conditions that separate the launches of one configuration (see the module's
/// documentation), `none`, or empty when fewer than 3 launches have a median and a placement.
fn separated_by(group: &[PlacementRow]) -> String {
    let known: Vec<&PlacementRow> = group
        .iter()
        .filter(|r| !r.t_global_median_s.is_nan() && !r.cpus.is_empty())
        .collect();
    if known.len() < 3 {
        return String::new();
    }
    let found: Vec<String> = CONDITIONS
        .iter()
        .filter_map(|(name, value)| {
            let groups: Vec<Vec<f64>> = {
                let mut by: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
                for r in &known {
                    by.entry(value(r)).or_default().push(r.t_global_median_s);
                }
                by.into_values().collect()
            };
            // Every launch in a group of its own separates trivially (p = 1): not a finding.
            separation_p(&groups)
                .filter(|&p| p < 1.0)
                .map(|p| format!("{name} p={}", short(p)))
        })
        .collect();
    if found.is_empty() {
        "none".into()
    } else {
        found.join(";")
    }
}

/// The permutation p-value of the separation of `groups` (launch medians by condition
/// value), `None` when there is one group or their ranges overlap.
pub fn separation_p(groups: &[Vec<f64>]) -> Option<f64> {
    if groups.len() < 2 {
        return None;
    }
    let mut spans: Vec<(f64, f64)> = groups
        .iter()
        .map(|g| {
            g.iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                    (lo.min(x), hi.max(x))
                })
        })
        .collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    if spans.windows(2).any(|w| w[1].0 <= w[0].1) {
        return None;
    }
    // g! · ∏ nᵢ! / n!, as a running product of small ratios so no factorial overflows.
    let n: usize = groups.iter().map(Vec::len).sum();
    let mut p = (1..=groups.len()).map(|i| i as f64).product::<f64>();
    let mut denominators = (1..=n).map(|i| i as f64);
    for g in groups {
        for i in 1..=g.len() {
            p *= i as f64 / denominators.next().unwrap_or(1.0);
        }
    }
    Some(p)
}

fn short(p: f64) -> String {
    if p >= 0.01 {
        format!("{p:.2}")
    } else {
        format!("{p:.1e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_separation_p_is_the_share_of_labellings_that_separate() {
        // 5 launches, 2 and 3: 2 of the C(5,2) = 10 labellings of sorted medians separate.
        let p = separation_p(&[vec![10.0, 11.0], vec![20.0, 21.0, 22.0]]).unwrap();
        assert!((p - 0.2).abs() < 1e-12, "{p}");
        // 10 launches, 5 and 5: 2 of 252.
        let lo: Vec<f64> = (0..5).map(f64::from).collect();
        let hi: Vec<f64> = (10..15).map(f64::from).collect();
        let p = separation_p(&[hi, lo]).unwrap();
        assert!((p - 2.0 / 252.0).abs() < 1e-12, "{p}");
        // Three groups of one of three launches: every labelling separates.
        let p = separation_p(&[vec![1.0], vec![2.0], vec![3.0]]).unwrap();
        assert!((p - 1.0).abs() < 1e-12, "{p}");
        // Overlapping ranges and a single group separate nothing.
        assert!(separation_p(&[vec![1.0, 5.0], vec![3.0]]).is_none());
        assert!(separation_p(&[vec![1.0, 2.0, 3.0]]).is_none());
    }

    #[test]
    fn a_condition_that_splits_the_medians_is_named_and_one_that_does_not_is_not() {
        let at = |median: f64, offset: u64, cpu: &str| PlacementRow {
            op: Op::Allreduce,
            bytes: 65536,
            nprocs: 2,
            algorithm: String::new(),
            delay_model: "0".into(),
            launch: 1,
            run_id: String::new(),
            valid: 100,
            t_global_median_s: median,
            cpus: cpu.into(),
            smt_siblings: "no".into(),
            send_page_offsets: format!("{offset},{offset}"),
            recv_page_offsets: "16,16".into(),
            send_huge: "n,n".into(),
            recv_huge: "n,n".into(),
            separated_by: String::new(),
        };
        let launches = [
            at(24e-6, 16, "0,1"),
            at(44e-6, 2064, "1,0"),
            at(43e-6, 2064, "0,1"),
            at(25e-6, 16, "1,0"),
            at(25e-6, 16, "0,1"),
        ];
        assert_eq!(separated_by(&launches), "send_page_offsets p=0.20");
        let same: Vec<PlacementRow> = launches
            .iter()
            .map(|r| at(r.t_global_median_s, 16, "0,1"))
            .collect();
        assert_eq!(separated_by(&same), "none");
        assert_eq!(separated_by(&launches[..2]), "");
        // A value of its own in every launch is no finding.
        let own: Vec<PlacementRow> = launches
            .iter()
            .enumerate()
            .map(|(i, r)| at(r.t_global_median_s, 16 * i as u64, "0,1"))
            .collect();
        assert_eq!(separated_by(&own), "none");
    }
}
