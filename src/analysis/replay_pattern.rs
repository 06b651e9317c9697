//! The application's own arrival pattern (`--delay replay:CAPTURE@SITE`, docs/capture.md):
//! per replayed site, kernel family, size, P and algorithm, what the pattern cost the
//! blocking kernel and its nonblocking form, and whether the nonblocking form hides it.
//!
//! Nothing new is computed: the cost is the analysis's `cost_median_s`, tδ − t0 from the
//! medians of t_global (Niethammer et al. 2016, eq. 4) with its bootstrap interval
//! (docs/metrics.md), and the delay overlap benefit is `benefit_median` (their eq. 5) where
//! the analysis gives one (a replay delays every rank by a vector, so it is usually `n/a`,
//! as for sampled delays). The verdict compares the two costs' intervals: the nonblocking
//! form hides the pattern when its cost interval lies wholly below the blocking one's, that
//! is when the data tell its cost apart as smaller. A nonblocking row measured with
//! `--overlap` includes the punctual ranks' computation in t0 and tδ alike, so its cost is
//! the part of the pattern the computation did not absorb (Hoefler, Lumsdaine and Rehm 2007
//! on overlapping computation with nonblocking collectives).

use super::config_stats::NA_BENEFIT_OVERLAP;
use super::ConfigStats;
use crate::plan::Op;
use serde::Serialize;

/// Whether the nonblocking form hides the replayed pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Hidden {
    /// The nonblocking cost's interval lies wholly below the blocking cost's.
    Yes,
    /// The intervals overlap, or the nonblocking cost is the larger.
    No,
    /// A cost or an interval is missing (no baseline, too few valid repetitions, or no
    /// nonblocking form measured).
    Unknown,
}

impl Hidden {
    /// `yes`, `no` or `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Hidden::Yes => "yes",
            Hidden::No => "no",
            Hidden::Unknown => "unknown",
        }
    }
}

/// One replayed pattern on one kernel family, size, P and algorithm. Times in seconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayPatternRow {
    /// The delay model's label, `replay:CAPTURE@SITE[:folded]`.
    pub delay_model: String,
    /// The blocking kernel (`allreduce`).
    pub blocking: Op,
    /// Its nonblocking form when it was measured (`iallreduce`).
    pub nonblocking: Option<Op>,
    /// Message size, bytes.
    pub bytes: u64,
    /// P.
    pub nprocs: u32,
    /// The collective algorithm (`--algorithms`), empty when the run chose none.
    pub algorithm: String,
    /// The pattern's cost to the blocking kernel: tδ − t0 from the medians, seconds.
    pub blocking_cost_s: Option<f64>,
    /// Bootstrap interval of `blocking_cost_s`, seconds.
    pub blocking_cost_ci_lo_s: Option<f64>,
    pub blocking_cost_ci_hi_s: Option<f64>,
    /// The blocking kernel's delay overlap benefit from medians (eq. 5), when defined.
    pub blocking_benefit_median: Option<f64>,
    /// The pattern's cost to the nonblocking form, seconds.
    pub nonblocking_cost_s: Option<f64>,
    /// Bootstrap interval of `nonblocking_cost_s`, seconds.
    pub nonblocking_cost_ci_lo_s: Option<f64>,
    pub nonblocking_cost_ci_hi_s: Option<f64>,
    /// The nonblocking form's delay overlap benefit from medians, when defined.
    pub nonblocking_benefit_median: Option<f64>,
    /// True when the nonblocking row was measured with `--overlap` (computation between
    /// post and wait).
    pub nonblocking_overlap: bool,
    /// `blocking_cost_s − nonblocking_cost_s`: what the nonblocking form did not pay,
    /// seconds.
    pub saved_s: Option<f64>,
    /// The verdict (module docs).
    pub hidden: Hidden,
}

/// The replay rows of an analysis (rows whose delay model is `replay:...`), one per pattern,
/// family, size, P and algorithm, in the order of the blocking kernels' rows; empty when no
/// block replayed a capture.
pub fn replay_pattern_rows(rows: &[ConfigStats]) -> Vec<ReplayPatternRow> {
    let replayed = |r: &&ConfigStats| r.delay_model.starts_with("replay:");
    let mut out: Vec<ReplayPatternRow> = Vec::new();
    for r in rows.iter().filter(replayed) {
        let blocking = r.op.family().blocking();
        let same = |x: &ReplayPatternRow| {
            x.delay_model == r.delay_model
                && x.blocking == blocking
                && x.bytes == r.bytes
                && x.nprocs == r.nprocs
                && x.algorithm == r.algorithm
        };
        let i = match out.iter().position(same) {
            Some(i) => i,
            None => {
                out.push(ReplayPatternRow {
                    delay_model: r.delay_model.clone(),
                    blocking,
                    nonblocking: None,
                    bytes: r.bytes,
                    nprocs: r.nprocs,
                    algorithm: r.algorithm.clone(),
                    blocking_cost_s: None,
                    blocking_cost_ci_lo_s: None,
                    blocking_cost_ci_hi_s: None,
                    blocking_benefit_median: None,
                    nonblocking_cost_s: None,
                    nonblocking_cost_ci_lo_s: None,
                    nonblocking_cost_ci_hi_s: None,
                    nonblocking_benefit_median: None,
                    nonblocking_overlap: false,
                    saved_s: None,
                    hidden: Hidden::Unknown,
                });
                out.len() - 1
            }
        };
        let row = &mut out[i];
        if r.op.is_nonblocking() {
            row.nonblocking = Some(r.op);
            row.nonblocking_cost_s = r.cost_median_s;
            row.nonblocking_cost_ci_lo_s = r.cost_median_ci_lo_s;
            row.nonblocking_cost_ci_hi_s = r.cost_median_ci_hi_s;
            row.nonblocking_benefit_median = r.benefit_median;
            row.nonblocking_overlap = r.benefit_na == Some(NA_BENEFIT_OVERLAP);
        } else {
            row.blocking_cost_s = r.cost_median_s;
            row.blocking_cost_ci_lo_s = r.cost_median_ci_lo_s;
            row.blocking_cost_ci_hi_s = r.cost_median_ci_hi_s;
            row.blocking_benefit_median = r.benefit_median;
        }
    }
    for row in &mut out {
        row.saved_s = row
            .blocking_cost_s
            .zip(row.nonblocking_cost_s)
            .map(|(b, n)| b - n);
        row.hidden = verdict(row);
    }
    out
}

fn verdict(r: &ReplayPatternRow) -> Hidden {
    match (r.nonblocking_cost_ci_hi_s, r.blocking_cost_ci_lo_s) {
        (Some(nb_hi), Some(b_lo)) if nb_hi < b_lo => Hidden::Yes,
        (Some(_), Some(_)) => Hidden::No,
        _ => Hidden::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::testdata;

    /// A block whose rank 0 replays a 50 µs late arrival, labelled as a replay.
    fn replayed(op: Op, op_time_s: f64) -> crate::records::Block {
        let mut b = testdata::block(op, 8, 2, 50e-6, 20, op_time_s);
        b.delay_model = "replay:cap@app+0x10".into();
        b
    }

    fn rows(nonblocking_delayed_op_time_s: f64) -> Vec<ReplayPatternRow> {
        let records = testdata::records(
            2,
            vec![
                testdata::block(Op::Allreduce, 8, 2, 0.0, 20, 10e-6),
                replayed(Op::Allreduce, 10e-6),
                // The nonblocking baseline is slow (60 µs): a late arrival shorter than that
                // disappears inside it when the delayed operation runs faster.
                testdata::block(Op::Iallreduce, 8, 2, 0.0, 20, 60e-6),
                replayed(Op::Iallreduce, nonblocking_delayed_op_time_s),
                // Another delay model: not a replay, no row.
                testdata::block(Op::Bcast, 8, 2, 50e-6, 20, 10e-6),
            ],
        );
        let a = crate::analysis::analyze(&["r.cbor".to_string()], &[records], Default::default())
            .unwrap();
        replay_pattern_rows(&a.rows)
    }

    #[test]
    fn a_nonblocking_form_that_pays_less_hides_the_pattern() {
        let got = rows(10e-6);
        assert_eq!(got.len(), 1, "{got:#?}");
        let r = &got[0];
        assert_eq!(
            (r.blocking, r.nonblocking),
            (Op::Allreduce, Some(Op::Iallreduce))
        );
        // Blocking: the whole 50 µs is paid.
        assert!((r.blocking_cost_s.unwrap() - 50e-6).abs() < 1e-6, "{r:#?}");
        assert!(r.nonblocking_cost_s.unwrap() < 0.0, "{r:#?}");
        assert!(r.saved_s.unwrap() > 50e-6);
        assert_eq!(r.hidden, Hidden::Yes);
    }

    #[test]
    fn a_nonblocking_form_that_pays_alike_does_not_hide_it() {
        // Delayed: 50 µs + 60 µs, as slow as the baseline plus the whole late arrival.
        let got = rows(60e-6);
        let r = &got[0];
        assert!(
            (r.nonblocking_cost_s.unwrap() - 50e-6).abs() < 1e-6,
            "{r:#?}"
        );
        assert_eq!(r.hidden, Hidden::No);
        assert!(!r.nonblocking_overlap);
        // Without a nonblocking row the verdict cannot be given.
        let mut only_blocking = got[0].clone();
        only_blocking.nonblocking_cost_ci_hi_s = None;
        assert_eq!(verdict(&only_blocking), Hidden::Unknown);
    }
}
