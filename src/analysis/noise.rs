//! What a noise file says: detours per second, share of time lost, longest detour and
//! quantiles of detour lengths, per rank, per host and in total; and how much of the detour
//! time is correlated across ranks (docs/noise.md, "Correlated share").
//!
//! Correlated share. Let U_r be the union of rank r's detour intervals [start, start +
//! duration) on the global clock, and O_r the union of the U_q of every other rank q (or, for
//! the cross-host share, of every rank on another host). Rank r's correlated detour time is
//! |U_r ∩ O_r|: the time r was in a detour while at least one other rank was too. The
//! correlated share of a set of ranks is Σ|U_r ∩ O_r| / Σ|U_r|. Independent noise still
//! overlaps by chance: if O_r covers a fraction c_r of the measured span, the expected share
//! is Σ|U_r| c_r / Σ|U_r|, reported beside it as the chance level. A share well above the
//! chance level means detours that happen together (a shared interrupt source, co-scheduled
//! daemons, a hypervisor stealing both cores); close to it, independent noise.

use crate::records::noise::NoiseRank;
use serde::Serialize;
use statrs::statistics::{Data, OrderStatistics};

/// Statistics of one scope (a rank, a host, or all ranks). Durations in seconds, shares as
/// fractions (0.01 = 1 %).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoiseStats {
    /// `rank N`, `host NAME` or `total`.
    pub scope: String,
    pub ranks: u32,
    /// Detours above the threshold.
    pub detours: u64,
    /// Detours per second per rank: detours / Σ measured seconds of the ranks.
    pub per_s: f64,
    /// Share of the ranks' time lost in detours: Σ durations / Σ measured seconds.
    pub lost_share: f64,
    /// The longest detour, seconds (0 without detours).
    pub longest_s: f64,
    /// Quantiles of the detour lengths (NaN without detours), seconds.
    pub p50_s: f64,
    pub p90_s: f64,
    pub p99_s: f64,
    /// Share of detour time overlapping a detour of another rank (module docs); NaN with
    /// one rank or no detour time.
    pub correlated_share: f64,
    /// The share expected by chance for independent noise.
    pub correlated_chance: f64,
    /// The same against ranks on other hosts only (NaN on one host).
    pub cross_host_share: f64,
    pub cross_host_chance: f64,
}

/// Per rank, per host (in order of first rank) and total.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoiseReport {
    pub per_rank: Vec<NoiseStats>,
    pub per_host: Vec<NoiseStats>,
    pub total: NoiseStats,
}

/// Sorted, merged intervals [a, b).
type Union = Vec<(f64, f64)>;

fn union_of<'a>(ranks: impl IntoIterator<Item = &'a NoiseRank>) -> Union {
    let mut iv: Vec<(f64, f64)> = ranks
        .into_iter()
        .flat_map(|r| {
            r.detour_start_global_s
                .0
                .iter()
                .zip(&r.detour_duration_s.0)
                .map(|(&s, &d)| (s, s + d))
        })
        .filter(|(a, b)| a.is_finite() && b > a)
        .collect();
    iv.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut out: Union = Vec::with_capacity(iv.len());
    for (a, b) in iv {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

fn length(u: &Union) -> f64 {
    u.iter().map(|(a, b)| b - a).sum()
}

/// |x ∩ y| of two unions.
fn overlap(x: &Union, y: &Union) -> f64 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < x.len() && j < y.len() {
        let lo = x[i].0.max(y[j].0);
        let hi = x[i].1.min(y[j].1);
        if hi > lo {
            sum += hi - lo;
        }
        if x[i].1 < y[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    sum
}

/// The quantile `q` of the values, NaN when empty: statrs' `OrderStatistics::quantile`, the
/// R type 8 estimator (Hyndman and Fan 1996) that `analyze`'s quartiles use
/// ([`super::stats::SampleStats`]), so every percentile the tool prints has one definition.
fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    Data::new(values.to_vec()).quantile(q)
}

/// Per rank: (|U_r|, |U_r ∩ O_r|, chance) against all other ranks and against other hosts.
struct Overlaps {
    own: Vec<f64>,
    all: Vec<(f64, f64)>,
    cross: Vec<(f64, f64)>,
}

fn overlaps(ranks: &[NoiseRank]) -> Overlaps {
    let unions: Vec<Union> = ranks.iter().map(|r| union_of([r])).collect();
    let mut o = Overlaps {
        own: unions.iter().map(length).collect(),
        all: Vec::new(),
        cross: Vec::new(),
    };
    for (i, r) in ranks.iter().enumerate() {
        let span = (r.end_global_s - r.start_global_s).max(1e-12);
        let pair = |keep: &dyn Fn(&NoiseRank) -> bool| {
            let others = union_of(
                ranks
                    .iter()
                    .enumerate()
                    .filter(|(j, q)| *j != i && keep(q))
                    .map(|(_, q)| q),
            );
            let window = vec![(r.start_global_s, r.end_global_s)];
            let covered = overlap(&others, &window) / span;
            (overlap(&unions[i], &others), covered)
        };
        o.all.push(pair(&|_| true));
        o.cross.push(pair(&|q| q.host != r.host));
    }
    o
}

fn stats_of(all: &[NoiseRank], scope: String, members: &[usize], o: &Overlaps) -> NoiseStats {
    let ranks: Vec<&NoiseRank> = members.iter().map(|&i| &all[i]).collect();
    let measured: f64 = ranks
        .iter()
        .map(|r| (r.end_global_s - r.start_global_s).max(0.0))
        .sum();
    let mut d: Vec<f64> = ranks
        .iter()
        .flat_map(|r| r.detour_duration_s.0.iter().copied())
        .collect();
    d.sort_by(f64::total_cmp);
    let own: f64 = members.iter().map(|&i| o.own[i]).sum();
    let share = |pairs: &[(f64, f64)], meaningful: bool| -> (f64, f64) {
        if !meaningful || own <= 0.0 {
            return (f64::NAN, f64::NAN);
        }
        let hit: f64 = members.iter().map(|&i| pairs[i].0).sum();
        let chance: f64 = members.iter().map(|&i| o.own[i] * pairs[i].1).sum();
        (hit / own, chance / own)
    };
    let several = all.len() > 1;
    let hosts_differ = all.iter().any(|r| r.host != all[0].host);
    let (correlated_share, correlated_chance) = share(&o.all, several);
    let (cross_host_share, cross_host_chance) = share(&o.cross, hosts_differ);
    let per = |x: f64| {
        if measured > 0.0 {
            x / measured
        } else {
            f64::NAN
        }
    };
    NoiseStats {
        scope,
        ranks: ranks.len() as u32,
        detours: d.len() as u64,
        per_s: per(d.len() as f64),
        lost_share: per(d.iter().sum()),
        longest_s: d.last().copied().unwrap_or(0.0),
        p50_s: quantile(&d, 0.5),
        p90_s: quantile(&d, 0.9),
        p99_s: quantile(&d, 0.99),
        correlated_share,
        correlated_chance,
        cross_host_share,
        cross_host_chance,
    }
}

/// The report of the ranks of a noise file or check (module docs).
pub fn noise_report(ranks: &[NoiseRank]) -> NoiseReport {
    let o = overlaps(ranks);
    let per_rank = (0..ranks.len())
        .map(|i| stats_of(ranks, format!("rank {}", ranks[i].rank), &[i], &o))
        .collect();
    let mut hosts: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, r) in ranks.iter().enumerate() {
        match hosts.iter_mut().find(|(h, _)| *h == r.host) {
            Some((_, m)) => m.push(i),
            None => hosts.push((r.host.clone(), vec![i])),
        }
    }
    let per_host = hosts
        .iter()
        .map(|(h, m)| stats_of(ranks, format!("host {h}"), m, &o))
        .collect();
    let all: Vec<usize> = (0..ranks.len()).collect();
    NoiseReport {
        per_rank,
        per_host,
        total: stats_of(ranks, "total".into(), &all, &o),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::noise::testdata;

    #[test]
    fn rates_shares_and_quantiles() {
        // Rank 0: 4 detours of 10, 20, 30, 40 us in 1 s; rank 1: none.
        let run = testdata::run(&[
            vec![
                (100.1, 10e-6),
                (100.2, 20e-6),
                (100.3, 30e-6),
                (100.4, 40e-6),
            ],
            vec![],
        ]);
        let rep = noise_report(&run.ranks);
        let r0 = &rep.per_rank[0];
        assert_eq!(r0.detours, 4);
        assert!((r0.per_s - 4.0).abs() < 1e-9);
        assert!((r0.lost_share - 100e-6).abs() < 1e-12);
        assert_eq!(r0.longest_s, 40e-6);
        assert!((r0.p50_s - 25e-6).abs() < 1e-12);
        // R's type 8, as `analyze`: position (n + 1/3) q + 1/3 = 4.23 of 4 is the largest
        // value (type 7, interpolating at (n - 1) q, would give 37 us).
        assert!((r0.p90_s - 40e-6).abs() < 1e-12, "{}", r0.p90_s);
        assert_eq!(rep.per_rank[1].detours, 0);
        assert!(rep.per_rank[1].p50_s.is_nan());
        // Total: 4 detours over 2 rank-seconds.
        assert!((rep.total.per_s - 2.0).abs() < 1e-9);
        assert_eq!(rep.per_host.len(), 1);
        assert_eq!(rep.total.correlated_share, 0.0);
        assert!(rep.total.cross_host_share.is_nan(), "one host");
    }

    #[test]
    fn correlated_share_counts_overlapping_time_only() {
        // Rank 0: [100.1, 100.1 + 100 us); rank 1: starts 50 us later, 100 us long.
        // Overlap 50 us on each side: share 100 / 200 = 0.5.
        let run = testdata::run(&[vec![(100.1, 100e-6)], vec![(100.10005, 100e-6)]]);
        let rep = noise_report(&run.ranks);
        assert!(
            (rep.total.correlated_share - 0.5).abs() < 1e-6,
            "{:?}",
            rep.total
        );
        // The chance level: the other rank covers 100 us of 1 s.
        assert!((rep.total.correlated_chance - 1e-4).abs() < 1e-9);
        // Apart, nothing is correlated.
        let run = testdata::run(&[vec![(100.1, 100e-6)], vec![(100.5, 100e-6)]]);
        assert_eq!(noise_report(&run.ranks).total.correlated_share, 0.0);
    }
}
