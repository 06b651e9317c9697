//! `analyze --algorithms`: which collective algorithm hides a late rank. Per (op, size, P,
//! delay) of a run that swept the library's algorithms (`--algorithms`, or launches of
//! `--algorithm-from-env` pooled), the fastest algorithm without delay (median t0), the
//! fastest with the late rank (median t_delta), and the one with the highest delay overlap
//! benefit (Niethammer et al. 2016, eq. 5, from medians).
//!
//! A winner is called significant by the bootstrap interval of its difference from the
//! runner-up, the two algorithms' blocks resampled independently (as `compare` decides
//! between two runs), not by whether their two intervals overlap: two 95 % intervals can
//! overlap while the difference is significant at 5 % (Schenker and Gentleman 2001). The
//! table tests up to three winners per row, often hundreds in all, so the p-values of those
//! differences are controlled together at the analysis's false discovery rate
//! (Benjamini and Hochberg 1995, [`super::fdr`]): a winner is significant only when the
//! interval excludes 0 and the procedure keeps it; otherwise it ties with the runner-up.

use super::{benjamini_hochberg, samples_of, Bootstrap, ConfigStats, Interval, LaunchDigest};
use crate::plan::Op;
use serde::Serialize;

/// Version of the `analyze --algorithms` JSON schema (fields of [`AlgorithmRow`] and
/// [`Winner`]). 2: `schema_version` on every row; each winner names its runner-up, the
/// bootstrap interval and p-value of the difference and a `decision`, and `significant`
/// comes from that difference under the false discovery rate instead of from intervals
/// that do not overlap.
pub const ALGORITHMS_SCHEMA_VERSION: u32 = 2;

/// What the difference between a winner and its runner-up says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// The interval of the difference excludes 0 and Benjamini-Hochberg keeps its p-value:
    /// the winner is better than the runner-up.
    Significant,
    /// Not significantly different from the runner-up: the interval contains 0, or the
    /// false discovery rate control does not keep it.
    Tie,
    /// Not tested: no runner-up with the statistic, or fewer valid repetitions on a side
    /// than an interval needs ([`Bootstrap::min_valid`]).
    Untested,
}

impl Decision {
    /// The mark of the text table: `*`, `(tie: RUNNER-UP)` or `(untested)`.
    fn mark(self, runner_up: Option<&str>) -> String {
        match self {
            Decision::Significant => " *".into(),
            Decision::Tie => format!(" (tie: {})", runner_up.unwrap_or("-")),
            Decision::Untested => " (untested)".into(),
        }
    }
}

/// One winner: the algorithm, its value, the runner-up, and the difference between them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Winner {
    pub algorithm: String,
    /// The winning statistic (seconds for times, a fraction for the benefit).
    pub value: f64,
    /// True when [`Winner::decision`] is [`Decision::Significant`]: the interval of the
    /// difference from the runner-up excludes 0 and the table's false discovery rate
    /// control keeps it. (Schema 1: the winner's interval was clear of every other's.)
    pub significant: bool,
    /// The second best algorithm by the same statistic; `None` when no other has it.
    pub runner_up: Option<String>,
    /// The runner-up's statistic (unit of `value`).
    pub runner_up_value: Option<f64>,
    /// How much better the winner is: runner-up − winner for times (seconds), winner −
    /// runner-up for the benefit (a fraction); at least 0.
    pub margin: Option<f64>,
    /// Bootstrap interval of `margin`, the two algorithms' blocks (and, for the benefit,
    /// their baselines) resampled independently; `None` with fewer valid repetitions on a
    /// side than [`Bootstrap::min_valid`].
    pub margin_ci_lo: Option<f64>,
    pub margin_ci_hi: Option<f64>,
    /// Two-sided bootstrap p-value of "margin = 0" from the same resamples
    /// ([`super::two_sided_p`]), before the false discovery rate control.
    pub p_value: Option<f64>,
    pub decision: Decision,
}

/// One row of the table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlgorithmRow {
    /// [`ALGORITHMS_SCHEMA_VERSION`].
    pub schema_version: u32,
    pub op: Op,
    pub bytes: u64,
    pub nprocs: u32,
    pub delay_model: String,
    pub delay_s: f64,
    /// Algorithms compared (rows with the statistic).
    pub algorithms: u32,
    pub fastest_undelayed: Option<Winner>,
    pub fastest_delayed: Option<Winner>,
    pub highest_benefit: Option<Winner>,
}

/// One algorithm of a group with its valid t_globals per launch ([`super::ByLaunch`]):
/// (delayed, baseline), seconds.
struct Member<'a> {
    row: &'a ConfigStats,
    delayed_s: Vec<Vec<f64>>,
    baseline_s: Vec<Vec<f64>>,
}

/// The table of `rows` (an analysis of `launches`, whose valid t_globals the differences
/// resample with `boot`): one row per delayed configuration measured with more than one
/// algorithm, in the order first seen. Every winner's p-value enters one Benjamini-Hochberg
/// procedure at [`Bootstrap::fdr`].
pub fn algorithm_rows(
    rows: &[ConfigStats],
    launches: &[LaunchDigest],
    boot: &Bootstrap,
) -> Vec<AlgorithmRow> {
    let mut out: Vec<AlgorithmRow> = Vec::new();
    let delayed: Vec<&ConfigStats> = rows
        .iter()
        .filter(|r| r.delay_s != 0.0 && !r.algorithm.is_empty())
        .collect();
    let mut seen: Vec<(Op, u64, u32, &str)> = Vec::new();
    for r in &delayed {
        let k = (r.op, r.bytes, r.nprocs, r.delay_model.as_str());
        if seen.contains(&k) {
            continue;
        }
        seen.push(k);
        let group: Vec<Member> = delayed
            .iter()
            .filter(|x| (x.op, x.bytes, x.nprocs, x.delay_model.as_str()) == k)
            .map(|&row| {
                let (delayed_s, baseline_s) = samples_of(launches, row);
                Member {
                    row,
                    delayed_s,
                    baseline_s,
                }
            })
            .collect();
        if group.len() < 2 {
            continue;
        }
        let delay_s = r.delay_s;
        out.push(AlgorithmRow {
            schema_version: ALGORITHMS_SCHEMA_VERSION,
            op: r.op,
            bytes: r.bytes,
            nprocs: r.nprocs,
            delay_model: r.delay_model.clone(),
            delay_s,
            algorithms: group.len() as u32,
            fastest_undelayed: best(
                &group,
                Better::Lower,
                |x| x.t0_median_s,
                |win, run| boot.median_difference_test(&win.baseline_s, &run.baseline_s),
            ),
            fastest_delayed: best(
                &group,
                Better::Lower,
                |x| x.t_global_median_s,
                |win, run| boot.median_difference_test(&win.delayed_s, &run.delayed_s),
            ),
            highest_benefit: best(
                &group,
                Better::Higher,
                |x| x.benefit_median,
                |win, run| {
                    boot.benefit_difference_test(
                        &run.baseline_s,
                        &run.delayed_s,
                        &win.baseline_s,
                        &win.delayed_s,
                        delay_s,
                    )
                },
            ),
        });
    }
    decide(&mut out, boot.fdr());
    out
}

#[derive(Clone, Copy, PartialEq)]
enum Better {
    Lower,
    Higher,
}

/// The best of `group` by `stat` and the runner-up, with the interval and p-value of the
/// margin between them from `test(winner, runner_up)`; the decision is left to [`decide`].
fn best(
    group: &[Member],
    better: Better,
    stat: impl Fn(&ConfigStats) -> Option<f64>,
    test: impl Fn(&Member, &Member) -> Option<(Interval, f64)>,
) -> Option<Winner> {
    let mut with: Vec<(&Member, f64)> = group
        .iter()
        .filter_map(|m| Some((m, stat(m.row).filter(|v| v.is_finite())?)))
        .collect();
    // Stable: among equal values the first seen wins, as before.
    with.sort_by(|a, b| match better {
        Better::Lower => a.1.total_cmp(&b.1),
        Better::Higher => b.1.total_cmp(&a.1),
    });
    let (win, value) = *with.first()?;
    let runner = with.get(1);
    let tested = runner.and_then(|(run, _)| test(win, run));
    Some(Winner {
        algorithm: win.row.algorithm.clone(),
        value,
        significant: false,
        runner_up: runner.map(|(m, _)| m.row.algorithm.clone()),
        runner_up_value: runner.map(|r| r.1),
        margin: runner.map(|r| (value - r.1).abs()),
        margin_ci_lo: tested.map(|t| t.0.lo),
        margin_ci_hi: tested.map(|t| t.0.hi),
        p_value: tested.map(|t| t.1),
        decision: Decision::Untested,
    })
}

/// Decides every winner of `rows` at once: Benjamini-Hochberg at false discovery rate `q`
/// over the p-values of all winners tested, and significant only where it keeps the p-value
/// and the interval of the margin excludes 0 (the two agree but for Monte Carlo error at the
/// edge; both must hold).
fn decide(rows: &mut [AlgorithmRow], q: f64) {
    fn winners(r: &mut AlgorithmRow) -> [Option<&mut Winner>; 3] {
        [
            r.fastest_undelayed.as_mut(),
            r.fastest_delayed.as_mut(),
            r.highest_benefit.as_mut(),
        ]
    }
    let p: Vec<Option<f64>> = rows
        .iter_mut()
        .flat_map(winners)
        .map(|w| w.and_then(|w| w.p_value))
        .collect();
    let kept = benjamini_hochberg(&p, q);
    for (w, kept) in rows.iter_mut().flat_map(winners).zip(kept) {
        let Some(w) = w else { continue };
        let excludes_zero = w
            .margin_ci_lo
            .zip(w.margin_ci_hi)
            .map(|(lo, hi)| !Interval { lo, hi }.contains(0.0));
        w.decision = match (excludes_zero, kept) {
            (Some(true), Some(true)) => Decision::Significant,
            (Some(_), _) => Decision::Tie,
            (None, _) => Decision::Untested,
        };
        w.significant = w.decision == Decision::Significant;
    }
}

/// The table as text: times in microseconds, benefit in percent, `*` for a winner
/// significantly better than the runner-up, `(tie: RUNNER-UP)` for one that is not,
/// `(untested)` where no difference could be tested; a note says how, at `boot`'s level.
pub fn algorithm_table_text(rows: &[AlgorithmRow], boot: &Bootstrap) -> String {
    if rows.is_empty() {
        return "no configuration was measured with more than one algorithm (run with \
                --algorithms, or pool launches of --algorithm-from-env)\n"
            .into();
    }
    let show = |w: &Option<Winner>, scale: f64, unit: &str| match w {
        Some(w) => format!(
            "{} {:.1}{unit}{}",
            w.algorithm,
            w.value * scale,
            w.decision.mark(w.runner_up.as_deref())
        ),
        None => "-".into(),
    };
    let mut lines = vec![vec![
        "op".to_string(),
        "size".into(),
        "P".into(),
        "delay".into(),
        "algorithms".into(),
        "fastest undelayed (t0)".into(),
        "fastest with late rank (t_delta)".into(),
        "highest benefit (b med)".into(),
    ]];
    for r in rows {
        lines.push(vec![
            r.op.name().into(),
            crate::units::format_bytes(r.bytes),
            r.nprocs.to_string(),
            r.delay_model.clone(),
            r.algorithms.to_string(),
            show(&r.fastest_undelayed, 1e6, " us"),
            show(&r.fastest_delayed, 1e6, " us"),
            show(&r.highest_benefit, 100.0, " %"),
        ]);
    }
    let widths: Vec<usize> = (0..lines[0].len())
        .map(|c| {
            lines
                .iter()
                .map(|l| l[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for l in &lines {
        let cells: Vec<String> = l
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    let tested = rows
        .iter()
        .flat_map(|r| [&r.fastest_undelayed, &r.fastest_delayed, &r.highest_benefit])
        .filter(|w| w.as_ref().is_some_and(|w| w.p_value.is_some()))
        .count();
    let percent = |x: f64| format!("{}", (x * 1e4).round() / 1e2);
    out.push_str(&format!(
        "median t_global; *: the {}% bootstrap interval of the difference between the winner \
         and the runner-up excludes 0, and Benjamini-Hochberg at a {}% false discovery rate \
         over the table's {tested} tested winners keeps it (significant); (tie: X): not \
         significantly different from the runner-up X; (untested): no runner-up, or fewer \
         than {} valid repetitions on a side.\n",
        percent(boot.level),
        percent(boot.fdr()),
        boot.min_valid()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::config_stats_of_digests;
    use crate::records::testdata::{block, records, with_algorithm};
    use crate::records::Block;

    /// `name`'s baseline and 50 µs-delayed allreduce blocks (8 B, P = 2, `nrep` repetitions
    /// taking `op_s` to 6.9 × `op_s`), every end later by `base_extra_s` and `late_extra_s`.
    fn algorithm(
        name: &str,
        nrep: u32,
        op_s: f64,
        base_extra_s: f64,
        late_extra_s: f64,
    ) -> [Block; 2] {
        let later = |mut b: Block, extra: f64| {
            for x in b.t_end_global_s.0.iter_mut() {
                *x += extra;
            }
            with_algorithm(b, name)
        };
        [
            later(block(Op::Allreduce, 8, 2, 0.0, nrep, op_s), base_extra_s),
            later(block(Op::Allreduce, 8, 2, 50e-6, nrep, op_s), late_extra_s),
        ]
    }

    /// The analysis rows and the table of `blocks`, one launch, the default bootstrap.
    fn table(blocks: Vec<Block>) -> (Vec<ConfigStats>, Vec<AlgorithmRow>) {
        let launches = vec![LaunchDigest::of(&records(2, blocks))];
        let boot = Bootstrap::default();
        let rows = config_stats_of_digests(&launches, &boot).unwrap();
        let table = algorithm_rows(&rows, &launches, &boot);
        (rows, table)
    }

    fn row(algorithm: &str, t0: f64, t: f64, ci: f64, b: f64, bci: f64) -> ConfigStats {
        ConfigStats {
            algorithm: algorithm.into(),
            delay_model: "50us".into(),
            t0_median_s: Some(t0),
            t0_median_ci_lo_s: Some(t0 - ci),
            t0_median_ci_hi_s: Some(t0 + ci),
            t_global_median_s: Some(t),
            t_global_median_ci_lo_s: Some(t - ci),
            t_global_median_ci_hi_s: Some(t + ci),
            benefit_median: Some(b),
            benefit_median_ci_lo: Some(b - bci),
            benefit_median_ci_hi: Some(b + bci),
            ..crate::plot::fixtures::stats(Op::Allreduce, 8, 4, 50e-6)
        }
    }

    #[test]
    fn winners_are_decided_by_the_difference_from_the_runner_up() {
        // default and linear alike but linear's baseline 13 us later in every repetition;
        // ring twice as slow undelayed, but 100 us faster than both with the late rank.
        let blocks = [
            algorithm("default", 60, 10e-6, 0.0, 100e-6),
            algorithm("linear", 60, 10e-6, 13e-6, 100e-6),
            algorithm("ring", 60, 20e-6, 0.0, 0.0),
        ];
        let (stats, t) = table(blocks.into_iter().flatten().collect());
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].schema_version, ALGORITHMS_SCHEMA_VERSION);
        assert_eq!(t[0].algorithms, 3);
        let w = t[0].fastest_undelayed.as_ref().unwrap();
        assert_eq!(w.algorithm, "default");
        assert_eq!(w.runner_up.as_deref(), Some("linear"));
        // The two baselines' intervals overlap, which the overlap rule called a tie; the
        // interval of the difference (13 us) excludes 0.
        let ci = |name: &str| {
            let r = stats
                .iter()
                .find(|r| r.algorithm == name && r.delay_s > 0.0)
                .unwrap();
            Interval {
                lo: r.t0_median_ci_lo_s.unwrap(),
                hi: r.t0_median_ci_hi_s.unwrap(),
            }
        };
        assert!(ci("default").overlaps(&ci("linear")), "{stats:?}");
        assert!((w.margin.unwrap() - 13e-6).abs() < 1e-9, "{w:?}");
        assert!(w.margin_ci_lo.unwrap() > 0.0, "{w:?}");
        assert_eq!((w.decision, w.significant), (Decision::Significant, true));
        let w = t[0].fastest_delayed.as_ref().unwrap();
        assert_eq!(w.algorithm, "ring");
        assert_eq!(w.decision, Decision::Significant, "{w:?}");
        // ring: b = 0; linear and default: tδ 100 us above t0 + δ, b < 0.
        let w = t[0].highest_benefit.as_ref().unwrap();
        assert_eq!(w.algorithm, "ring");
        assert_eq!(w.runner_up.as_deref(), Some("linear"));
        assert!(
            w.margin_ci_lo.unwrap() > 0.0 && w.p_value.unwrap() < 0.01,
            "{w:?}"
        );
        assert!(w.significant);
        let text = algorithm_table_text(&t, &Bootstrap::default());
        assert!(text.contains("ring 0.0 % *"), "{text}");
        assert!(text.contains("over the table's 3 tested winners"), "{text}");
    }

    #[test]
    fn algorithms_that_do_not_differ_tie_and_too_few_repetitions_are_untested() {
        let same = [
            algorithm("default", 60, 10e-6, 0.0, 0.0),
            algorithm("ring", 60, 10e-6, 0.0, 0.0),
        ];
        let (_, t) = table(same.into_iter().flatten().collect());
        for w in [
            &t[0].fastest_undelayed,
            &t[0].fastest_delayed,
            &t[0].highest_benefit,
        ] {
            let w = w.as_ref().unwrap();
            assert_eq!(
                (w.algorithm.as_str(), w.decision),
                ("default", Decision::Tie),
                "{w:?}"
            );
            assert!(!w.significant);
            assert!(w.margin_ci_lo.unwrap() <= 0.0 && 0.0 <= w.margin_ci_hi.unwrap());
        }
        let text = algorithm_table_text(&t, &Bootstrap::default());
        assert!(text.contains("(tie: ring)"), "{text}");

        // Five repetitions, one invalid: below the 6 an interval needs, however far apart.
        let few = [
            algorithm("default", 5, 10e-6, 0.0, 0.0),
            algorithm("ring", 5, 10e-6, 1e-3, 1e-3),
        ];
        let (_, t) = table(few.into_iter().flatten().collect());
        let w = t[0].fastest_undelayed.as_ref().unwrap();
        assert_eq!(
            (w.decision, w.p_value, w.margin_ci_lo),
            (Decision::Untested, None, None)
        );
        assert_eq!(w.runner_up.as_deref(), Some("ring"));
        assert!(
            algorithm_table_text(&t, &Bootstrap::default()).contains("default 12.5 us (untested)")
        );
    }

    #[test]
    fn the_false_discovery_rate_control_can_turn_a_winner_into_a_tie() {
        let w = |p: f64| Winner {
            algorithm: "ring".into(),
            value: 1.0,
            significant: false,
            runner_up: Some("default".into()),
            runner_up_value: Some(2.0),
            margin: Some(1.0),
            margin_ci_lo: Some(0.1),
            margin_ci_hi: Some(2.0),
            p_value: Some(p),
            decision: Decision::Untested,
        };
        // p = 0.04 alone is below 5 %; beside two p = 0.9 it is above 1 × 0.05 / 3.
        let mut rows = vec![AlgorithmRow {
            schema_version: ALGORITHMS_SCHEMA_VERSION,
            op: Op::Allreduce,
            bytes: 8,
            nprocs: 2,
            delay_model: "50us".into(),
            delay_s: 50e-6,
            algorithms: 2,
            fastest_undelayed: Some(w(0.04)),
            fastest_delayed: Some(w(0.9)),
            highest_benefit: Some(w(0.9)),
        }];
        decide(&mut rows, 0.05);
        let first = rows[0].fastest_undelayed.as_ref().unwrap();
        assert_eq!(first.decision, Decision::Tie);
        rows[0].fastest_delayed = None;
        rows[0].highest_benefit = None;
        decide(&mut rows, 0.05);
        assert!(rows[0].fastest_undelayed.as_ref().unwrap().significant);
    }

    #[test]
    fn a_configuration_of_one_algorithm_or_without_algorithms_has_no_row() {
        let boot = Bootstrap::default();
        assert!(algorithm_rows(&[row("ring", 1.0, 2.0, 0.1, 0.0, 0.1)], &[], &boot).is_empty());
        assert!(algorithm_rows(
            &[
                row("", 1.0, 2.0, 0.1, 0.0, 0.1),
                row("", 1.0, 2.0, 0.1, 0.0, 0.1)
            ],
            &[],
            &boot
        )
        .is_empty());
    }
}
