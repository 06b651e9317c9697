//! `delaybench arrivals`: the report of what a capture (`libdelaybench_capture.so`) says
//! about an application's arrivals at its collectives, per call site and per rank: the
//! statistics over the calls that [`crate::capture`] matched into instances.
//!
//! Per site (call site, communicator, operation, [`crate::capture::by_site`]): the arrival
//! spread's median, 95th percentile and maximum; the process arrival pattern's imbalance as
//! Faraj, Patarasuk and Yuan (2008) define it, the average-case imbalance time
//! ([`Instance::average_imbalance`]) and the worst-case one (the spread), both as means over
//! the calls and divided by the time T of one message (the factors); the ranks that entered
//! last; the waiting by Scalasca's collective wait states ([`Instance::waits`], Geimer et
//! al. 2010) summed over the calls; each rank's median lateness. Per world rank: its
//! waiting. Medians and percentiles are those `analyze` prints ([`super::stats`]: statrs'
//! median and `OrderStatistics::quantile`, R's type 8, Hyndman and Fan 1996).
//!
//! [`Instance::average_imbalance`]: crate::capture::Instance::average_imbalance
//! [`Instance::waits`]: crate::capture::Instance::waits

use crate::capture::{by_site, bytes_per_rank, call_counts, Matched, WaitKind};
use serde::Serialize;
use statrs::statistics::{Data, OrderStatistics};
use std::collections::BTreeMap;

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

/// The median of `values` as `analyze` prints it ([`super::stats::median`], statrs: the
/// mean of the middle two for an even count); NaN when empty.
fn median(values: &[f64]) -> f64 {
    super::stats::median(values).unwrap_or(f64::NAN)
}

/// The `q` quantile (0..=1) of `values` by the definition of `analyze`'s quartiles: statrs'
/// `OrderStatistics::quantile`, R's type 8 (Hyndman and Fan 1996); NaN when empty.
fn quantile(values: &[f64], q: f64) -> f64 {
    Data::new(values.to_vec()).quantile(q)
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
    let groups = by_site(m);
    let denom = m.wall_s * m.world_size.max(1) as f64;
    let mut ranks: BTreeMap<u32, RankRow> = BTreeMap::new();
    let mut sites = Vec::new();
    for ((site, comm, op), insts) in groups {
        let n = insts[0].entries.len();
        // Sorted: the maximum is the last, and the mean sums in this order.
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
            // In the order of `capture::wait_total`, so the first row is the site
            // `capture::busiest_site` gives the replay.
            wait_total += waits.iter().sum::<f64>();
        }
        let mut last_ranks: Vec<(u32, usize)> = last_count.into_iter().collect();
        last_ranks.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        last_ranks.truncate(3);
        let bytes: Vec<f64> = insts.iter().map(|i| i.bytes as f64).collect();
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
            bytes: median(&bytes) as u64,
            calls: insts.len(),
            spread_median_s: median(&spreads),
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
            median_lateness_s: lateness.into_iter().map(|l| median(&l)).collect(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::testdata::{allgatherv_8_24_0, alltoallv_1_to_9, rank, two_sites};
    use crate::capture::{busiest_site, match_calls, CaptureOp, RankCapture};
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
    fn the_report_shows_the_first_calls_counts_per_rank() {
        // Allgatherv: every rank passes the same receive counts.
        let caps = allgatherv_8_24_0();
        let m = match_calls(&caps).unwrap();
        let r = report(&m, None);
        assert_eq!(r.sites[0].counts_bytes, Some(vec![8, 24, 0]));
        assert_eq!(r.sites[0].count_vectors, 1);

        // Alltoallv: the report sums each row of the matrix.
        let caps = alltoallv_1_to_9();
        let m = match_calls(&caps).unwrap();
        assert_eq!(
            report(&m, None).sites[0].counts_bytes,
            Some(vec![6, 15, 24])
        );

        // An old capture without vectors.
        let old: Vec<RankCapture> = (0..2)
            .map(|r| rank(r, 2, 0.0, &[(Scatterv, 0, 1.0, 2.0)]))
            .collect();
        let m = match_calls(&old).unwrap();
        assert_eq!(report(&m, None).sites[0].counts_bytes, None);
    }

    #[test]
    fn percentiles_are_those_analyze_prints() {
        // Ten calls whose spreads are 1..=10 ms (rank 1 late by k ms at call k).
        let calls = |late: f64| -> Vec<(CaptureOp, i32, f64, f64)> {
            (1..=10)
                .map(|k| {
                    let t = 10.0 * k as f64;
                    (Allreduce, -1, t + late * k as f64 * 1e-3, t + 1.0)
                })
                .collect()
        };
        let caps = vec![rank(0, 2, 0.0, &calls(0.0)), rank(1, 2, 0.0, &calls(1.0))];
        let s = &report(&match_calls(&caps).unwrap(), None).sites[0];
        let spreads: Vec<f64> = (1..=10)
            .map(|k| (10.0 * k as f64 + k as f64 * 1e-3) - 10.0 * k as f64)
            .collect();
        assert_eq!(
            s.spread_median_s,
            crate::analysis::stats::median(&spreads).unwrap()
        );
        // R's type 8 at 0.95 of ten values is the largest (type 7 interpolated between the
        // ninth and the tenth).
        assert_eq!(s.spread_p95_s, s.spread_max_s);
        assert!((s.spread_median_s - 5.5e-3).abs() < 1e-12);
    }

    #[test]
    fn the_replays_default_site_is_the_reports_first_row() {
        // Two sites on two communicators: the allreduce at app+0x10 waits 0.1 s, the
        // broadcast at app+0x20 (its root 0.5 s late) 0.5 s; an equal wait would keep the
        // first key, as the report's stable sort does.
        let mut caps = two_sites(vec![
            rank(
                0,
                2,
                0.0,
                &[(Allreduce, -1, 1.0, 2.0), (Bcast, 0, 3.5, 4.0)],
            ),
            rank(
                1,
                2,
                0.0,
                &[(Allreduce, -1, 1.1, 2.0), (Bcast, 0, 3.0, 4.0)],
            ),
        ]);
        for c in &mut caps {
            c.events[1].comm = 98;
        }
        let m = match_calls(&caps).unwrap();
        let r = report(&m, None);
        assert_eq!(busiest_site(&m), Some(r.sites[0].site.clone()));
        assert_eq!(r.sites[0].site, "app+0x20");
        let (first, _) = crate::capture::site_lateness(&m, None).unwrap();
        assert_eq!(first.op, Bcast);
    }
}
