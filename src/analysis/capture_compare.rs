//! Two captures of one application compared call site by call site: what the application
//! pays in each site's collective before and after a change (a tuning file, a new MPI
//! library, a rebalanced decomposition), decided on the difference.
//!
//! Per collective instance the *time in the call* is the members' mean of exit − entry on
//! the capture's global clock: the waiting for the last rank included, since that is what
//! the application pays there. Per site (key `module+0xoffset`, operation, communicator
//! size, bytes: the same binary must run both times) the difference of the medians, B − A,
//! gets a percentile bootstrap interval with A and B resampled independently
//! ([`Bootstrap::median_difference_test`], as `compare` does for records), and the sites'
//! p-values are controlled together by Benjamini and Hochberg (1995) at the analysis's
//! false discovery rate (Hoefler and Belli 2015: comparisons decided on the difference,
//! many comparisons controlled).
//!
//! The interval resamples the calls of one run on each side: it says the two runs differ at
//! that site, not why. A claim that a change helped needs several runs of each side,
//! alternated, on cores the application has to itself.

use super::arrivals::ArrivalsReport;
use super::fdr::benjamini_hochberg;
use super::stats::median;
use super::Bootstrap;
use crate::capture::Matched;
use serde::Serialize;
use std::collections::BTreeMap;

/// Schema version of the rows of a capture comparison.
pub const CAPTURE_COMPARE_SCHEMA_VERSION: u32 = 1;

/// One call site found in both captures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteComparison {
    /// [`CAPTURE_COMPARE_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Call site key (`module+0xoffset`).
    pub site: String,
    /// Readable site name (symbol when known).
    pub site_label: String,
    /// The operation (`allreduce`).
    pub op: String,
    /// Communicator size.
    pub comm_size: usize,
    /// Bytes of the lowest communicator rank per call.
    pub bytes: u64,
    /// Collective instances at the site in A and in B.
    pub calls_a: usize,
    pub calls_b: usize,
    /// Median over the calls of the time in the call (mean over the members), seconds.
    pub in_call_median_a_s: f64,
    pub in_call_median_b_s: f64,
    /// B − A of those medians, seconds.
    pub in_call_diff_s: f64,
    /// Bootstrap interval of `in_call_diff_s`; empty with too few calls on a side.
    pub in_call_diff_ci_lo_s: Option<f64>,
    pub in_call_diff_ci_hi_s: Option<f64>,
    /// Two-sided p-value of "no difference" from the same resamples.
    pub p_value: Option<f64>,
    /// True when Benjamini and Hochberg over all sites reject "no difference"; empty when
    /// untested.
    pub differs: Option<bool>,
    /// Waiting lost at the site (Scalasca's wait states, summed over calls and ranks) in A
    /// and in B, seconds.
    pub wait_a_s: f64,
    pub wait_b_s: f64,
}

/// Two captures compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaptureComparison {
    /// Sites in both, the largest time in calls of A (median × calls) first.
    pub sites: Vec<SiteComparison>,
    /// Sites only in A and only in B (`site op P bytes`): another binary, or another path.
    pub only_a: Vec<String>,
    pub only_b: Vec<String>,
    /// The application's wall time in A and in B, seconds.
    pub wall_a_s: f64,
    pub wall_b_s: f64,
    /// The false discovery rate of `differs`.
    pub fdr: f64,
}

/// What identifies a site across two runs of one binary.
type SiteKey = (String, String, usize, u64);

/// Per site: its label and the time in each of its calls, seconds, in call order.
fn times_in_call(m: &Matched) -> BTreeMap<SiteKey, (String, Vec<f64>)> {
    let mut out: BTreeMap<SiteKey, (String, Vec<f64>)> = BTreeMap::new();
    for i in &m.instances {
        if i.entries.is_empty() {
            continue;
        }
        let inside: f64 = i.entries.iter().map(|e| e.exit_s - e.enter_s).sum();
        let key = (
            i.site.clone(),
            i.op.name().to_string(),
            i.entries.len(),
            i.bytes,
        );
        out.entry(key)
            .or_insert_with(|| (i.site_label.clone(), Vec::new()))
            .1
            .push(inside / i.entries.len() as f64);
    }
    out
}

/// Waiting per site of a report, seconds, summed over the site's communicators.
fn waiting(r: &ArrivalsReport) -> BTreeMap<SiteKey, f64> {
    let mut out = BTreeMap::new();
    for s in &r.sites {
        *out.entry((s.site.clone(), s.op.clone(), s.comm_size, s.bytes))
            .or_insert(0.0) += s.wait_total_s;
    }
    out
}

fn describe(k: &SiteKey) -> String {
    format!("{} {} P={} {} B", k.0, k.1, k.2, k.3)
}

/// Compares capture A (the reference) with capture B, each matched and reported
/// (`arrivals`' [`super::arrivals::report`] of the same matched calls).
pub fn compare_captures(
    a: (&Matched, &ArrivalsReport),
    b: (&Matched, &ArrivalsReport),
    boot: &Bootstrap,
) -> CaptureComparison {
    let (ta, tb) = (times_in_call(a.0), times_in_call(b.0));
    let (wa, wb) = (waiting(a.1), waiting(b.1));
    let mut sites = Vec::new();
    let mut tests = Vec::new();
    for (key, (label, xa)) in &ta {
        let Some((_, xb)) = tb.get(key) else { continue };
        let (ma, mb) = (
            median(xa).unwrap_or(f64::NAN),
            median(xb).unwrap_or(f64::NAN),
        );
        let test = boot.median_difference_test(xa, xb);
        tests.push(test.map(|t| t.1));
        sites.push(SiteComparison {
            schema_version: CAPTURE_COMPARE_SCHEMA_VERSION,
            site: key.0.clone(),
            site_label: label.clone(),
            op: key.1.clone(),
            comm_size: key.2,
            bytes: key.3,
            calls_a: xa.len(),
            calls_b: xb.len(),
            in_call_median_a_s: ma,
            in_call_median_b_s: mb,
            in_call_diff_s: mb - ma,
            in_call_diff_ci_lo_s: test.map(|t| t.0.lo),
            in_call_diff_ci_hi_s: test.map(|t| t.0.hi),
            p_value: test.map(|t| t.1),
            differs: None,
            wait_a_s: wa.get(key).copied().unwrap_or(0.0),
            wait_b_s: wb.get(key).copied().unwrap_or(0.0),
        });
    }
    let fdr = boot.fdr();
    for (s, d) in sites.iter_mut().zip(benjamini_hochberg(&tests, fdr)) {
        s.differs = d;
    }
    sites.sort_by(|x, y| {
        let cost = |s: &SiteComparison| s.in_call_median_a_s * s.calls_a as f64;
        cost(y).total_cmp(&cost(x))
    });
    let lone = |x: &BTreeMap<SiteKey, (String, Vec<f64>)>, y: &BTreeMap<SiteKey, _>| {
        x.keys()
            .filter(|k| !y.contains_key(*k))
            .map(describe)
            .collect()
    };
    CaptureComparison {
        only_a: lone(&ta, &tb),
        only_b: lone(&tb, &ta),
        sites,
        wall_a_s: a.0.wall_s,
        wall_b_s: b.0.wall_s,
        fdr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::arrivals::report;
    use crate::capture::testdata::rank;
    use crate::capture::{match_calls, CaptureOp};

    /// Two ranks, `n` allreduces 1 ms apart; rank 1 enters `late_s` after rank 0 and both
    /// leave `after_s` after rank 1's entry.
    fn capture(n: usize, late_s: f64, after_s: f64) -> Matched {
        let calls = |me_late: f64| -> Vec<(CaptureOp, i32, f64, f64)> {
            (0..n)
                .map(|i| {
                    let t = i as f64 * 1e-3;
                    (CaptureOp::Allreduce, -1, t + me_late, t + late_s + after_s)
                })
                .collect()
        };
        match_calls(&[
            rank(0, 2, 0.0, &calls(0.0)),
            rank(1, 2, 0.0, &calls(late_s)),
        ])
        .unwrap()
    }

    fn compared(a: &Matched, b: &Matched) -> CaptureComparison {
        compare_captures(
            (a, &report(a, None)),
            (b, &report(b, None)),
            &Bootstrap::default(),
        )
    }

    #[test]
    fn a_shorter_call_is_a_negative_difference_that_differs() {
        let (a, b) = (capture(40, 100e-6, 50e-6), capture(40, 100e-6, 30e-6));
        let c = compared(&a, &b);
        assert_eq!(c.sites.len(), 1);
        let s = &c.sites[0];
        assert_eq!((s.op.as_str(), s.comm_size, s.bytes), ("allreduce", 2, 8));
        assert_eq!((s.calls_a, s.calls_b), (40, 40));
        // Time in the call: rank 0 waits 100 µs and both spend the time after: the mean
        // over the members is 100/2 + after.
        assert!((s.in_call_median_a_s - 100e-6).abs() < 1e-9, "{s:?}");
        assert!((s.in_call_median_b_s - 80e-6).abs() < 1e-9, "{s:?}");
        assert!((s.in_call_diff_s + 20e-6).abs() < 1e-9);
        assert!(s.in_call_diff_ci_hi_s.unwrap() < 0.0);
        assert_eq!(s.differs, Some(true));
        // The waiting (rank 0's) is the same on both sides: the change did not balance.
        assert!((s.wait_a_s - s.wait_b_s).abs() < 1e-9 && s.wait_a_s > 3.9e-3);
        assert!(c.only_a.is_empty() && c.only_b.is_empty());
    }

    #[test]
    fn the_same_run_does_not_differ_and_too_few_calls_are_untested() {
        let a = capture(40, 100e-6, 50e-6);
        let s = &compared(&a, &a).sites[0];
        assert_eq!(s.in_call_diff_s, 0.0);
        assert_eq!(s.differs, Some(false));
        let few = capture(3, 100e-6, 50e-6);
        let s = &compared(&few, &few).sites[0];
        assert_eq!(
            (s.p_value, s.differs, s.in_call_diff_ci_lo_s),
            (None, None, None)
        );
    }

    #[test]
    fn a_site_of_another_size_is_listed_apart() {
        let a = capture(10, 0.0, 10e-6);
        let mut b = capture(10, 0.0, 10e-6);
        for i in &mut b.instances {
            i.bytes = 16;
        }
        let c = compared(&a, &b);
        assert!(c.sites.is_empty());
        assert_eq!(c.only_a.len(), 1);
        assert!(
            c.only_b[0].ends_with("allreduce P=2 16 B"),
            "{:?}",
            c.only_b
        );
    }
}
