//! `delaybench compare A B`: the same configurations from two analyses (two MPI libraries,
//! two machines, two sync methods) side by side, each difference decided by a bootstrap
//! interval of the difference itself (each run resampled on its own), not by whether the
//! two runs' intervals overlap.

use super::{samples_of, Bootstrap, ConfigStats, Interval, LaunchDigest};
use crate::plan::Op;
use serde::Serialize;

/// Version of the `compare` CSV/JSON schema (columns of [`CompareRow`]).
pub const COMPARE_SCHEMA_VERSION: u32 = 2;

/// One side of a comparison: the rows of its analysis and the launches (digests) they come
/// from, whose valid t_globals the difference intervals resample.
#[derive(Debug, Clone, Copy)]
pub struct CompareSide<'a> {
    pub rows: &'a [ConfigStats],
    pub launches: &'a [LaunchDigest],
}

/// One configuration measured in both A and B. Times in seconds, benefits as fractions;
/// `None` where a side has nothing to compute. Field names are the CSV columns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompareRow {
    /// [`COMPARE_SCHEMA_VERSION`].
    pub schema_version: u32,
    pub op: Op,
    pub bytes: u64,
    pub nprocs: u32,
    pub delay_model: String,
    pub delay_s: f64,
    /// Valid repetitions in A and in B.
    pub valid_a: u32,
    pub valid_b: u32,
    /// Median t_global and its bootstrap interval in A.
    pub t_global_median_a_s: Option<f64>,
    pub t_global_median_ci_lo_a_s: Option<f64>,
    pub t_global_median_ci_hi_a_s: Option<f64>,
    /// The same in B.
    pub t_global_median_b_s: Option<f64>,
    pub t_global_median_ci_lo_b_s: Option<f64>,
    pub t_global_median_ci_hi_b_s: Option<f64>,
    /// (B − A) / A of the median t_global: +0.1 = B is 10 % slower.
    pub t_global_median_rel_diff: Option<f64>,
    /// True when the two medians' intervals overlap. Kept for readers of schema 1; the
    /// verdict is `t_global_differs`, as overlapping intervals can hide a real difference.
    pub t_global_ci_overlap: Option<bool>,
    /// B − A of the median t_global, seconds.
    pub t_global_median_diff_s: Option<f64>,
    /// Bootstrap interval of `t_global_median_diff_s`, A and B resampled independently
    /// ([`Bootstrap::median_difference_ci`]); empty with too few valid repetitions a side.
    pub t_global_median_diff_ci_lo_s: Option<f64>,
    pub t_global_median_diff_ci_hi_s: Option<f64>,
    /// True when the interval of the difference excludes 0: B and A differ.
    pub t_global_differs: Option<bool>,
    /// Delay overlap benefit from medians in A and B, with their intervals.
    pub benefit_median_a: Option<f64>,
    pub benefit_median_ci_lo_a: Option<f64>,
    pub benefit_median_ci_hi_a: Option<f64>,
    pub benefit_median_b: Option<f64>,
    pub benefit_median_ci_lo_b: Option<f64>,
    pub benefit_median_ci_hi_b: Option<f64>,
    /// B − A of the benefit (in fractions: 0.05 = 5 percentage points).
    pub benefit_diff: Option<f64>,
    /// True when the two benefits' intervals overlap (kept for schema 1; the verdict is
    /// `benefit_differs`).
    pub benefit_ci_overlap: Option<bool>,
    /// Bootstrap interval of `benefit_diff`, the four blocks (baseline and delayed of A and
    /// of B) resampled independently ([`Bootstrap::benefit_difference_ci`]).
    pub benefit_diff_ci_lo: Option<f64>,
    pub benefit_diff_ci_hi: Option<f64>,
    /// True when the interval of `benefit_diff` excludes 0: the benefits differ.
    pub benefit_differs: Option<bool>,
}

/// Configurations of one side that the other lacks, as `op bytes B P=p delay d`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Unmatched {
    pub only_a: Vec<String>,
    pub only_b: Vec<String>,
}

fn same(a: &ConfigStats, b: &ConfigStats) -> bool {
    (a.op, a.bytes, a.nprocs, &a.delay_model, &a.algorithm)
        == (b.op, b.bytes, b.nprocs, &b.delay_model, &b.algorithm)
}

fn name(r: &ConfigStats) -> String {
    let algorithm = if r.algorithm.is_empty() {
        String::new()
    } else {
        format!(" algorithm {}", r.algorithm)
    };
    format!(
        "{} {} B P={} delay {}{algorithm}",
        r.op, r.bytes, r.nprocs, r.delay_model
    )
}

/// Pairs the rows of `a` and `b` by (op, bytes, P, delay model, algorithm), in A's order,
/// with the bootstrap intervals of their differences from `boot`, and lists the
/// configurations found on one side only.
pub fn compare(a: CompareSide, b: CompareSide, boot: &Bootstrap) -> (Vec<CompareRow>, Unmatched) {
    let rows = a
        .rows
        .iter()
        .filter_map(|x| {
            let y = b.rows.iter().find(|y| same(x, y))?;
            let diff = differences(
                samples_of(a.launches, x),
                samples_of(b.launches, y),
                x.benefit_median.is_some() && y.benefit_median.is_some(),
                x.delay_s,
                boot,
            );
            Some(pair(x, y, diff))
        })
        .collect();
    let (a, b) = (a.rows, b.rows);
    let unmatched = Unmatched {
        only_a: a
            .iter()
            .filter(|x| !b.iter().any(|y| same(x, y)))
            .map(name)
            .collect(),
        only_b: b
            .iter()
            .filter(|y| !a.iter().any(|x| same(x, y)))
            .map(name)
            .collect(),
    };
    (rows, unmatched)
}

fn overlap(a: Option<Interval>, b: Option<Interval>) -> Option<bool> {
    Some(a?.overlaps(&b?))
}

/// The intervals of B − A: of the medians, and of the benefits when both sides have one.
struct Differences {
    median: Option<Interval>,
    benefit: Option<Interval>,
}

/// [`Differences`] from each side's (own, baseline) valid t_globals, per launch
/// ([`super::ByLaunch`]; each side's launches resampled on their own).
fn differences(
    (ad, a0): (Vec<Vec<f64>>, Vec<Vec<f64>>),
    (bd, b0): (Vec<Vec<f64>>, Vec<Vec<f64>>),
    benefits: bool,
    delay_s: f64,
    boot: &Bootstrap,
) -> Differences {
    Differences {
        median: boot.median_difference_ci(&ad, &bd),
        benefit: benefits
            .then(|| boot.benefit_difference_ci(&a0, &ad, &b0, &bd, delay_s))
            .flatten(),
    }
}

fn pair(a: &ConfigStats, b: &ConfigStats, diff: Differences) -> CompareRow {
    let (ta, tb) = (a.t_global_median_s, b.t_global_median_s);
    CompareRow {
        schema_version: COMPARE_SCHEMA_VERSION,
        op: a.op,
        bytes: a.bytes,
        nprocs: a.nprocs,
        delay_model: a.delay_model.clone(),
        delay_s: a.delay_s,
        valid_a: a.valid,
        valid_b: b.valid,
        t_global_median_a_s: ta,
        t_global_median_ci_lo_a_s: a.t_global_median_ci_lo_s,
        t_global_median_ci_hi_a_s: a.t_global_median_ci_hi_s,
        t_global_median_b_s: tb,
        t_global_median_ci_lo_b_s: b.t_global_median_ci_lo_s,
        t_global_median_ci_hi_b_s: b.t_global_median_ci_hi_s,
        t_global_median_rel_diff: ta.zip(tb).map(|(ta, tb)| (tb - ta) / ta),
        t_global_ci_overlap: overlap(a.median_ci(), b.median_ci()),
        t_global_median_diff_s: ta.zip(tb).map(|(ta, tb)| tb - ta),
        t_global_median_diff_ci_lo_s: diff.median.map(|c| c.lo),
        t_global_median_diff_ci_hi_s: diff.median.map(|c| c.hi),
        t_global_differs: diff.median.map(|c| !c.contains(0.0)),
        benefit_median_a: a.benefit_median,
        benefit_median_ci_lo_a: a.benefit_median_ci_lo,
        benefit_median_ci_hi_a: a.benefit_median_ci_hi,
        benefit_median_b: b.benefit_median,
        benefit_median_ci_lo_b: b.benefit_median_ci_lo,
        benefit_median_ci_hi_b: b.benefit_median_ci_hi,
        benefit_diff: a.benefit_median.zip(b.benefit_median).map(|(x, y)| y - x),
        benefit_ci_overlap: overlap(a.benefit_ci(), b.benefit_ci()),
        benefit_diff_ci_lo: diff.benefit.map(|c| c.lo),
        benefit_diff_ci_hi: diff.benefit.map(|c| c.hi),
        benefit_differs: diff.benefit.map(|c| !c.contains(0.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::config_stats_of_digests;
    use crate::records::testdata;

    /// One launch's digest and its rows.
    struct Run(Vec<LaunchDigest>, Vec<ConfigStats>);

    impl Run {
        fn side(&self) -> CompareSide<'_> {
            CompareSide {
                rows: &self.1,
                launches: &self.0,
            }
        }
    }

    fn run_of(blocks: Vec<crate::records::Block>) -> Run {
        let digests = vec![LaunchDigest::of(&testdata::records(2, blocks))];
        let rows = config_stats_of_digests(&digests, &Bootstrap::default()).unwrap();
        Run(digests, rows)
    }

    fn stats(op_time_s: f64, delays: &[f64]) -> Run {
        run_of(
            delays
                .iter()
                .map(|&d| testdata::block(Op::Allreduce, 8, 2, d, 60, op_time_s))
                .collect(),
        )
    }

    fn compare(a: &Run, b: &Run) -> (Vec<CompareRow>, Unmatched) {
        super::compare(a.side(), b.side(), &Bootstrap::default())
    }

    #[test]
    fn same_configurations_side_by_side() {
        // B takes twice as long: the medians differ by +100 % with disjoint intervals.
        let (rows, un) = compare(&stats(10e-6, &[0.0, 50e-6]), &stats(20e-6, &[0.0, 50e-6]));
        assert_eq!(rows.len(), 2);
        // The difference's interval excludes 0: B differs.
        assert_eq!(rows[0].t_global_differs, Some(true));
        assert!(rows[0].t_global_median_diff_ci_lo_s.unwrap() > 0.0);
        assert_eq!(un, Unmatched::default());
        let base = &rows[0];
        let (ta, tb) = (
            base.t_global_median_a_s.unwrap(),
            base.t_global_median_b_s.unwrap(),
        );
        assert!((tb / ta - 2.0).abs() < 1e-9, "{base:?}");
        assert!((base.t_global_median_rel_diff.unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(base.t_global_ci_overlap, Some(false));
        assert_eq!(base.benefit_diff, None);
        // Both delayed blocks have tδ = t0 + δ: b = 0 on each side, intervals overlap.
        let late = &rows[1];
        assert!(late.benefit_diff.unwrap().abs() < 1e-9, "{late:?}");
        assert_eq!(late.benefit_ci_overlap, Some(true));
        assert_eq!(late.benefit_differs, Some(false));
        let (lo, hi) = (
            late.benefit_diff_ci_lo.unwrap(),
            late.benefit_diff_ci_hi.unwrap(),
        );
        assert!(lo <= 0.0 && 0.0 <= hi, "[{lo}, {hi}]");
    }

    #[test]
    fn the_verdict_comes_from_the_difference_not_the_overlap() {
        // B 13 us slower in every repetition, the spread the same (t_global 10..69 us, each
        // median's interval about ±7.5 us wide): the two intervals overlap, but the interval
        // of the difference, about ±10.6 us, excludes 0.
        let mut slower = testdata::block(Op::Allreduce, 8, 2, 0.0, 60, 10e-6);
        for x in slower.t_end_global_s.0.iter_mut() {
            *x += 13e-6;
        }
        let (rows, _) = compare(&stats(10e-6, &[0.0]), &run_of(vec![slower]));
        let r = &rows[0];
        assert_eq!(r.t_global_ci_overlap, Some(true), "{r:?}");
        assert_eq!(r.t_global_differs, Some(true), "{r:?}");
    }

    #[test]
    fn identical_sides_overlap_and_lone_configurations_are_listed() {
        let (rows, un) = compare(&stats(10e-6, &[0.0, 50e-6]), &stats(10e-6, &[0.0, 80e-6]));
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].t_global_ci_overlap, Some(true));
        assert_eq!(rows[0].t_global_median_rel_diff, Some(0.0));
        assert_eq!(rows[0].t_global_differs, Some(false));
        assert_eq!(un.only_a, ["allreduce 8 B P=2 delay 50us"]);
        assert_eq!(un.only_b, ["allreduce 8 B P=2 delay 80us"]);
    }
}
