//! `delaybench compare A B`: the same configurations from two analyses (two MPI libraries,
//! two machines, two sync methods) side by side.

use super::{ConfigStats, Interval};
use crate::plan::Op;
use serde::Serialize;

/// Version of the `compare` CSV/JSON schema (columns of [`CompareRow`]).
pub const COMPARE_SCHEMA_VERSION: u32 = 1;

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
    /// True when the two medians' intervals overlap: the difference may be noise.
    pub t_global_ci_overlap: Option<bool>,
    /// Delay overlap benefit from medians in A and B, with their intervals.
    pub benefit_median_a: Option<f64>,
    pub benefit_median_ci_lo_a: Option<f64>,
    pub benefit_median_ci_hi_a: Option<f64>,
    pub benefit_median_b: Option<f64>,
    pub benefit_median_ci_lo_b: Option<f64>,
    pub benefit_median_ci_hi_b: Option<f64>,
    /// B − A of the benefit (in fractions: 0.05 = 5 percentage points).
    pub benefit_diff: Option<f64>,
    /// True when the two benefits' intervals overlap.
    pub benefit_ci_overlap: Option<bool>,
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

/// Pairs the rows of `a` and `b` by (op, bytes, P, delay model, algorithm), in A's order, and lists the
/// configurations found on one side only.
pub fn compare(a: &[ConfigStats], b: &[ConfigStats]) -> (Vec<CompareRow>, Unmatched) {
    let rows = a
        .iter()
        .filter_map(|x| b.iter().find(|y| same(x, y)).map(|y| pair(x, y)))
        .collect();
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

fn pair(a: &ConfigStats, b: &ConfigStats) -> CompareRow {
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
        benefit_median_a: a.benefit_median,
        benefit_median_ci_lo_a: a.benefit_median_ci_lo,
        benefit_median_ci_hi_a: a.benefit_median_ci_hi,
        benefit_median_b: b.benefit_median,
        benefit_median_ci_lo_b: b.benefit_median_ci_lo,
        benefit_median_ci_hi_b: b.benefit_median_ci_hi,
        benefit_diff: a.benefit_median.zip(b.benefit_median).map(|(x, y)| y - x),
        benefit_ci_overlap: overlap(a.benefit_ci(), b.benefit_ci()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{config_stats, Bootstrap};
    use crate::records::testdata;

    fn stats(op_time_s: f64, delays: &[f64]) -> Vec<ConfigStats> {
        let blocks = delays
            .iter()
            .map(|&d| testdata::block(Op::Allreduce, 8, 2, d, 60, op_time_s))
            .collect();
        let r = testdata::records(2, blocks);
        config_stats(&[r], &Bootstrap::default()).unwrap()
    }

    #[test]
    fn same_configurations_side_by_side() {
        // B takes twice as long: the medians differ by +100 % with disjoint intervals.
        let (rows, un) = compare(&stats(10e-6, &[0.0, 50e-6]), &stats(20e-6, &[0.0, 50e-6]));
        assert_eq!(rows.len(), 2);
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
    }

    #[test]
    fn identical_sides_overlap_and_lone_configurations_are_listed() {
        let (rows, un) = compare(&stats(10e-6, &[0.0, 50e-6]), &stats(10e-6, &[0.0, 80e-6]));
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].t_global_ci_overlap, Some(true));
        assert_eq!(rows[0].t_global_median_rel_diff, Some(0.0));
        assert_eq!(un.only_a, ["allreduce 8 B P=2 delay 50us"]);
        assert_eq!(un.only_b, ["allreduce 8 B P=2 delay 80us"]);
    }
}
