//! The analysis as a table for a terminal or a log (`delaybench analyze`, the default), and
//! the rows and notes it shares with the Markdown table.

use super::table_cells::{delay_cell, op_cell, percent, size_cell, us, with_ci};
use super::ExportError;
use crate::analysis::{Analysis, ConfigStats, FEW_VALID, MIN_VALID_FOR_CI};
use crate::plan::Op;
use crate::timeline::Configuration;
use crate::units::format_bytes;
use std::io::Write;

/// A human-readable table grouped by op (the op named on the first row of its group), one
/// line per (op, size, P, delay): valid/total repetitions of the baseline and of the row
/// (`*` when fewer than [`FEW_VALID`] are valid), the median t0 and tδ in microseconds with tδ's bootstrap interval, the
/// cost tδ − t0 with its interval, the benefit from medians in percent with its interval and whether it is significant, its
/// ceiling and hidden fraction, the benefit from minima, and Tukey outlier counts. Baselines
/// appear as the t0 of their delayed rows (a baseline row only where nothing was delayed).
/// Notes under the table say which statistic each column uses and repeat the runs' warnings.
///
/// Plain ASCII, no vertical lines: safe in any log. Not for parsing: the CSV summary is.
/// The summary of [`super::formats::Table`].
///
/// Errors: [`ExportError::Io`] when writing fails.
pub(super) fn write_summary_table(a: &Analysis, out: &mut dyn Write) -> Result<(), ExportError> {
    // A simulated run says so above its table (`delaybench simulate`).
    for run in a
        .runs
        .iter()
        .filter(|r| r.mpi_library.starts_with("simulated"))
    {
        writeln!(out, "{}", run.mpi_library)?;
    }
    super::write_plain_table(&headers(a), grouped_rows(a), out)?;
    if let Some((title, head, rows)) = reference_table(a) {
        writeln!(out, "\n{title}")?;
        super::write_plain_table(&head, rows, out)?;
    }
    if let Some((title, head, rows)) = replay_patterns(a) {
        writeln!(out, "\n{title}")?;
        super::write_plain_table(&head, rows, out)?;
        for line in replay_causes(a) {
            writeln!(out, "{line}")?;
        }
    }
    for line in notes(a) {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(())
}

/// Column headers, two lines each; the interval's level comes from the bootstrap.
pub(super) fn headers(a: &Analysis) -> Vec<String> {
    let level = format!("{:.0}%", a.bootstrap.level * 100.0);
    vec![
        "op".into(),
        "size".into(),
        "P".into(),
        "hosts".into(),
        "delay".into(),
        "t0 valid\n/total".into(),
        "valid\n/total".into(),
        "t0 med\n(us)".into(),
        format!("t_delta med\n[{level} CI] (us)"),
        format!("cost td-t0\n[{level} CI] (us)"),
        format!("b med\n[{level} CI] (%)"),
        "b sig-\nnificant".into(),
        "b ceil-\ning (%)".into(),
        "b / ceil-\ning (%)".into(),
        "b min\n(%)".into(),
        "outliers\nlow/high".into(),
        "above\nbound (us)".into(),
    ]
}

/// With `ref:*` kernels in the run: the title, headers and rows of the table that puts the
/// library's allreduce beside the fastest reference algorithm and the clairvoyant reference
/// (`analysis::reference_rows`), median t_global in microseconds; `None` otherwise.
pub(super) fn reference_table(a: &Analysis) -> Option<(String, Vec<String>, Vec<Vec<String>>)> {
    let rows = crate::analysis::reference_rows(&a.rows);
    if rows.is_empty() {
        return None;
    }
    let head = [
        "size",
        "P",
        "delay",
        "allreduce\nmed (us)",
        "best ref:*\n(not clairvoyant)",
        "its med\n(us)",
        "ref:clairvoyant\nmed (us)",
        "allreduce minus\nclairvoyant (us)",
        "allreduce\ncost (us)",
        "clairvoyant\ncost (us)",
    ]
    .map(String::from)
    .to_vec();
    let body = rows
        .iter()
        .map(|r| {
            vec![
                format_bytes(r.bytes),
                r.nprocs.to_string(),
                r.delay_model.clone(),
                us(r.library_s),
                r.best_reference
                    .map_or("-".to_string(), |(op, _)| op.name().to_string()),
                us(r.best_reference.map(|b| b.1)),
                us(r.clairvoyant_s),
                us(r.library_minus_clairvoyant_s()),
                us(r.library_cost_s),
                us(r.clairvoyant_cost_s),
            ]
        })
        .collect();
    let title = "The library's allreduce beside the reference algorithms (median t_global; \
                 cost = t_delta - t0; ref:clairvoyant: the clairvoyant reference, the sorted \
                 linear tree on the planned arrival order, not a bound; \
                 delaybench-metrics(7), REFERENCE ALGORITHMS):"
        .to_string();
    Some((title, head, body))
}

/// With blocks that replayed a capture (`--delay replay:...`): the title, headers and rows of
/// the table of the application's own pattern per kernel family (cost tδ − t0 of the
/// blocking and the nonblocking form in µs with their intervals, what the nonblocking form
/// saved, whether it hides the pattern; `analysis::replay_pattern_rows`); `None` otherwise.
pub(super) fn replay_patterns(a: &Analysis) -> Option<(String, Vec<String>, Vec<Vec<String>>)> {
    let rows = crate::analysis::replay_pattern_rows(&a.rows);
    if rows.is_empty() {
        return None;
    }
    let level = format!("{:.0}%", a.bootstrap.level * 100.0);
    let head = vec![
        "replay".to_string(),
        "op".into(),
        "size".into(),
        "P".into(),
        format!("blocking cost\n[{level} CI] (us)"),
        "nonblocking".into(),
        format!("its cost\n[{level} CI] (us)"),
        "saved\n(us)".into(),
        "nonblocking\nhides it".into(),
    ];
    let body = rows
        .iter()
        .map(|r| {
            let algorithm = if r.algorithm.is_empty() {
                String::new()
            } else {
                format!(" ({})", r.algorithm)
            };
            vec![
                r.delay_model.clone(),
                format!("{}{algorithm}", r.blocking.name()),
                format_bytes(r.bytes),
                r.nprocs.to_string(),
                with_ci(
                    r.blocking_cost_s,
                    r.blocking_cost_ci_lo_s,
                    r.blocking_cost_ci_hi_s,
                    us,
                ),
                r.nonblocking.map_or("-".into(), |o| {
                    let overlap = if r.nonblocking_overlap {
                        " (overlap)"
                    } else {
                        ""
                    };
                    format!("{}{overlap}", o.name())
                }),
                with_ci(
                    r.nonblocking_cost_s,
                    r.nonblocking_cost_ci_lo_s,
                    r.nonblocking_cost_ci_hi_s,
                    us,
                ),
                us(r.saved_s),
                r.hidden.name().into(),
            ]
        })
        .collect();
    let title = "The application's own pattern (replayed capture sites; cost = t_delta - t0 \
                 from medians; hides it: the nonblocking cost's interval lies wholly below \
                 the blocking one's; the project's capture documentation):"
        .to_string();
    Some((title, head, body))
}

/// Below the replay table: per replayed capture site, which cause each late rank's
/// lateness came from in the capture (`analysis::causes::replay_cause_line`; the capture is
/// read again from the path the records name, and a line says when it is not readable).
pub(super) fn replay_causes(a: &Analysis) -> Vec<String> {
    let mut labels: Vec<&str> = Vec::new();
    for r in a
        .rows
        .iter()
        .filter(|r| r.delay_model.starts_with("replay:"))
    {
        if !labels.contains(&r.delay_model.as_str()) {
            labels.push(&r.delay_model);
        }
    }
    if labels.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![
        "Causes of the replayed lateness in the capture (per late rank: the (rank, region) that \
         caused most of the waiting it made, Böhme et al. 2010; arrivals CAPTURE for all):"
            .to_string(),
    ];
    lines.extend(
        labels
            .iter()
            .map(|l| format!("  {}", crate::analysis::causes::replay_cause_line(l, 3))),
    );
    lines
}

/// What the columns mean, then the warnings, one line each (under 100 characters, apart
/// from long warnings).
pub(super) fn notes(a: &Analysis) -> Vec<String> {
    let mut lines = vec![
        "t0, t_delta: median t_global of the valid repetitions without and with the delay.".into(),
        "cost: t_delta - t0, what the late arrival cost (delta when nothing of it was hidden)."
            .into(),
        format!(
            "[..]: {:.0}% percentile bootstrap interval ({} resamples).",
            a.bootstrap.level * 100.0,
            a.bootstrap.resamples
        ),
        "b med: delay overlap benefit (t0 + delta - t_delta) / t_delta from medians".into(),
        "  (Niethammer et al. 2016, eq. 5); b min: the same from minima, as that paper reports it;"
            .into(),
        format!(
            "  significant: b told from 0, Benjamini-Hochberg at {:.0}% false discovery rate over",
            a.bootstrap.fdr() * 100.0
        ),
        format!(
            "  the {} benefits tested here (p: twice the bootstrap share beyond 0; benefit_p).",
            a.rows.iter().filter(|r| r.benefit_p.is_some()).count()
        ),
        "b ceiling: min(t0, delta) / max(t0, delta) from median t0: the largest b IF t_delta >= t0"
            .into(),
        "  (delaybench's own; !: b exceeded it, so t_delta < t0); b / ceiling: 100% = as well"
            .into(),
        "  as the ceiling allows. n/a: overlap mode (b <= 0 by construction) or sampled delays."
            .into(),
        "outliers: repetitions beyond Tukey's 1.5 IQR fences, counted and kept in every statistic."
            .into(),
        "above bound: t_global - (last arrival + one-way p2p time), median; more in the CSV/JSON."
            .into(),
        format!(
            "*: fewer than {FEW_VALID} valid repetitions. Sampled delays: analyze --distribution."
        ),
        format!(
            "too few (n=..): under {} valid repetitions on a side: no interval, no significance",
            a.bootstrap.min_valid()
        ),
        format!(
            "  (the median's distribution-free interval needs at least {}; Le Boudec 2010).",
            MIN_VALID_FOR_CI
        ),
    ];
    if a.files.len() > 1 {
        let worst = a
            .rows
            .iter()
            .filter_map(|r| r.launch_median_cv)
            .fold(0.0f64, f64::max);
        lines.push(format!(
            "{} launches pooled; their medians differ by up to {:.1}% (coefficient of variation;",
            a.files.len(),
            worst * 100.0
        ));
        lines.push("  per row: launch_median_cv in the CSV/JSON).".into());
    }
    lines.extend(a.warnings.iter().map(|w| format!("warning: {w}")));
    lines
}

/// The rows of the table, grouped by op in [`Op::ALL`] order, then size, P and delay.
pub(super) fn grouped_rows(a: &Analysis) -> Vec<Vec<String>> {
    let op_index = |op: Op| Op::ALL.iter().position(|&o| o == op).unwrap_or(usize::MAX);
    let mut shown: Vec<&ConfigStats> = a
        .rows
        .iter()
        // A baseline shows as the t0 of its delayed rows; alone only where nothing was delayed.
        .filter(|r| {
            !r.is_baseline()
                || !a
                    .rows
                    .iter()
                    .any(|d| !d.is_baseline() && d.baseline_key() == r.baseline_key())
        })
        .collect();
    shown.sort_by(|x, y| {
        (op_index(x.op), &x.algorithm, x.bytes, x.nprocs)
            .cmp(&(op_index(y.op), &y.algorithm, y.bytes, y.nprocs))
            .then(x.delay_s.total_cmp(&y.delay_s))
    });
    let mut last_op = None;
    shown
        .into_iter()
        .map(|r| {
            let mut c = cells(r);
            if last_op == Some((r.op, &r.algorithm)) {
                c[0] = String::new();
            }
            last_op = Some((r.op, &r.algorithm));
            c
        })
        .collect()
}

/// `valid/total`, with `*` when fewer than [`FEW_VALID`] repetitions are valid.
fn counts(valid: u32, total: u32) -> String {
    let few = if valid < FEW_VALID { "*" } else { "" };
    format!("{valid}/{total}{few}")
}

fn cells(r: &ConfigStats) -> Vec<String> {
    vec![
        op_cell(r.op, &r.algorithm),
        size_cell(r.op, r.bytes),
        r.nprocs.to_string(),
        if r.hosts > 0 {
            r.hosts.to_string()
        } else {
            "-".into()
        },
        delay_cell(r),
        // The baseline's counts, then the row's own: valid/total means the same in every table.
        if r.is_baseline() {
            "-".into()
        } else {
            counts(r.valid0, r.total0)
        },
        counts(r.valid, r.total),
        us(r.t0_median_s),
        with_ci(
            r.t_global_median_s,
            r.t_global_median_ci_lo_s,
            r.t_global_median_ci_hi_s,
            us,
        ),
        with_ci(
            r.cost_median_s,
            r.cost_median_ci_lo_s,
            r.cost_median_ci_hi_s,
            us,
        ),
        if r.benefit_na.is_some() {
            "n/a".into()
        } else {
            with_ci(
                r.benefit_median,
                r.benefit_median_ci_lo,
                r.benefit_median_ci_hi,
                percent,
            )
        },
        match r.benefit_significant {
            Some(true) => "yes".into(),
            Some(false) => "no".into(),
            // A benefit without an interval: too few valid repetitions on one side.
            None if r.benefit_median.is_some() && r.benefit_median_ci_lo.is_none() => {
                format!("too few (n={})", r.valid.min(r.valid0))
            }
            None => "-".into(),
        },
        match r.above_ceiling {
            Some(true) => format!("{}!", percent(r.benefit_ceiling)),
            _ => percent(r.benefit_ceiling),
        },
        percent(r.benefit_of_ceiling),
        percent(r.benefit_min),
        format!("{}/{}", r.outliers_low, r.outliers_high),
        us(r.above_bound_s),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::test_support::{analysis, text};

    fn table_lines(a: &Analysis) -> Vec<String> {
        let out = text(|buf| write_summary_table(a, buf));
        out.lines().map(str::to_string).collect()
    }

    fn is_rule(line: &str, c: char) -> bool {
        !line.is_empty() && line.chars().all(|x| x == c)
    }

    /// The data lines: between the header rule and the bottom rule.
    fn data(lines: &[String]) -> Vec<&String> {
        let bottom = lines.iter().skip(4).position(|l| is_rule(l, '-')).unwrap() + 4;
        lines[4..bottom].iter().collect()
    }

    #[test]
    fn headers_say_the_statistic_and_the_unit() {
        let lines = table_lines(&analysis());
        assert!(is_rule(&lines[0], '-') && is_rule(&lines[3], '='));
        for name in [
            "t0 med",
            "t_delta med",
            "cost td-t0",
            "b med",
            "b min",
            "b ceil-",
            "outliers",
        ] {
            assert!(lines[1].contains(name), "{name} missing from: {}", lines[1]);
        }
        for unit in ["[95% CI] (us)", "[95% CI] (%)", "ing (%)", "low/high"] {
            assert!(lines[2].contains(unit), "{unit} missing from: {}", lines[2]);
        }
    }

    #[test]
    fn one_row_per_delayed_configuration_grouped_by_op() {
        let lines = table_lines(&analysis());
        let rows = data(&lines);
        // In the op order of Op::ALL: barrier P=4 (nothing delayed, so its baseline row),
        // allreduce 8 B P=2 50us (its baseline folded in), iallreduce 1 KiB P=4 50us (no
        // baseline).
        assert_eq!(rows.len(), 3, "{lines:#?}");
        let cells: Vec<Vec<&str>> = rows
            .iter()
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(&cells[0][..7], ["barrier", "-", "4", "1", "0", "-", "2/3*"]);
        assert_eq!(
            &cells[1][..8],
            ["allreduce", "8B", "2", "1", "50us", "4/5*", "4/5*", "12.50"]
        );
        // 4 valid repetitions on each side, under MIN_VALID_FOR_CI: the medians without an
        // interval, and no significance but the reason.
        assert!(rows[1].contains("62.50 "), "{}", rows[1]);
        assert!(!rows[1].contains('['), "{}", rows[1]);
        // The cost, t_delta - t0 = 62.50 - 12.50 us.
        assert!(rows[1].contains(" 50.00 "), "{}", rows[1]);
        assert!(rows[1].contains(" too few (n=4) "), "{}", rows[1]);
        // Ceiling 12.5/50.
        assert!(rows[1].contains("25.0"), "{}", rows[1]);
        // No baseline: none of its repetitions, valid or measured.
        assert_eq!(
            &cells[2][..7],
            ["iallreduce", "1KiB", "4", "1", "50us", "0/0*", "3/4*"]
        );
    }

    #[test]
    fn ops_are_named_once_per_group() {
        let mut a = analysis();
        let mut second = a.rows[1].clone();
        second.nprocs = 4;
        a.rows.push(second);
        let lines = table_lines(&a);
        let rows = data(&lines);
        assert!(rows[1].trim_start().starts_with("allreduce"));
        // The second allreduce row starts with its size, not the op.
        assert!(rows[2].trim_start().starts_with("8B"), "{}", rows[2]);
    }

    #[test]
    fn notes_and_warnings_follow_the_table() {
        let mut a = analysis();
        a.warnings = vec!["global clocks were up to 3.00 us apart".into()];
        let lines = table_lines(&a);
        let after: Vec<&String> = lines
            .iter()
            .skip_while(|l| !l.starts_with("t0, t_delta"))
            .collect();
        assert!(after
            .iter()
            .any(|l| l.contains("Niethammer et al. 2016, eq. 5")));
        assert!(after
            .iter()
            .any(|l| l.contains("min(t0, delta) / max(t0, delta)")));
        assert_eq!(
            after.last().unwrap().as_str(),
            "warning: global clocks were up to 3.00 us apart"
        );
    }

    #[test]
    fn notes_fit_a_log_and_name_the_launch_spread() {
        let mut a = analysis();
        for line in table_lines(&a) {
            assert_eq!(line.trim_end(), line, "trailing spaces");
        }
        for line in notes(&a) {
            assert!(line.len() < 100, "{} chars: {line}", line.len());
        }
        a.files.push("second.cbor".into());
        a.rows[1].launch_median_cv = Some(0.123);
        let n = notes(&a);
        assert!(
            n.iter()
                .any(|l| l.contains("2 launches pooled") && l.contains("12.3%")),
            "{n:?}"
        );
    }
}
