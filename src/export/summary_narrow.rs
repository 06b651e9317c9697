//! The answer at a glance: the default table of `delaybench analyze` and of the end of a run.
//! Per (op, size, P, δ) it says what the undelayed operation took, what the late arrival cost
//! and which share of the delay was hidden, in words as well as numbers, with the blocking,
//! nonblocking and persistent forms of one family side by side and a line per family saying
//! which form hid more. It fits [`MIN_WIDTH`] columns; `analyze --wide` prints every column
//! (the table of `summary_table.rs`), and the CSV and JSON keep their names and values.

use super::table_cells::{delay_cell, op_cell, size_cell, with_ci};
use super::ExportError;
use crate::analysis::{
    hidden_share, Analysis, ConfigStats, FamilyDifference, Verdict, FEW_VALID, MIN_VALID_FOR_CI,
};
use crate::plan::kernel::Form;
use crate::plan::Op;
use crate::timeline::Configuration;
use crate::units::format_bytes;
use std::io::Write;

/// The narrowest width (columns) the default table and its notes are laid out for: rows stay
/// under 90 columns, which leaves room for one more short column, and notes are wrapped at
/// the width.
pub const MIN_WIDTH: usize = 100;

/// The width to lay the default table out for: `COLUMNS` when set to a number, else the
/// terminal's width when standard output is a terminal (comfy-table's probe), never less than
/// [`MIN_WIDTH`] (a narrower terminal wraps the rows rather than losing columns).
pub fn output_width() -> usize {
    use std::io::IsTerminal;
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok());
    let terminal = || {
        std::io::stdout()
            .is_terminal()
            .then(|| comfy_table::Table::new().width().map(usize::from))
            .flatten()
    };
    columns
        .or_else(terminal)
        .map_or(MIN_WIDTH, |w| w.max(MIN_WIDTH))
}

/// Writes the narrow summary of `a` for a terminal `width` columns wide (at least
/// [`MIN_WIDTH`] is assumed): the table, a line per kernel family comparing its forms, then
/// notes and warnings wrapped at the width. The summary of [`super::formats::Table`].
///
/// Errors: [`ExportError::Io`] when writing fails.
pub(super) fn write_narrow_summary(
    a: &Analysis,
    width: usize,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let width = width.max(MIN_WIDTH);
    // A simulated run says so above its table (`delaybench simulate`).
    for run in a
        .runs
        .iter()
        .filter(|r| r.mpi_library.starts_with("simulated"))
    {
        writeln!(out, "{}", run.mpi_library)?;
    }
    // Rows are laid out to stay under 90 columns, but a cell can be wider than planned
    // (a long interval, a large P): the table then wraps cells rather than pass the width.
    super::write_plain_table_within(
        &headline_headers(a.bootstrap.level, launches_of(&a.rows)),
        headline_rows(&a.rows, a.bootstrap.margin),
        Some(width),
        out,
    )?;
    let families = family_lines(&a.rows, &a.family_differences);
    if !families.is_empty() {
        writeln!(out, "\nBlocking and nonblocking forms side by side:")?;
        for line in &families {
            for l in wrap(line, width) {
                writeln!(out, "{l}")?;
            }
        }
    }
    writeln!(out)?;
    for line in narrow_notes(a) {
        for l in wrap(&line, width) {
            writeln!(out, "{l}")?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The headline table as GitHub-flavoured Markdown (the report page opens with it), followed
/// by the family lines as a list: the rows of [`write_narrow_summary`] of `rows`, intervals
/// at `level` (0.95 for 95 %), verdicts at `margin` (a share of δ), the forms' differences
/// decided by `differences` ([`crate::analysis::family_differences`] of the same rows).
pub fn headline_markdown(
    rows: &[ConfigStats],
    differences: &[FamilyDifference],
    level: f64,
    margin: f64,
) -> String {
    let h = headline(rows, differences, level, margin);
    let cells: Vec<Vec<String>> = h.rows.into_iter().map(|(_, c)| c).collect();
    let mut buf = Vec::new();
    // Writing into memory cannot fail.
    let _ = super::write_markdown_table(&h.headers, &cells, &mut buf);
    let mut md = String::from_utf8_lossy(&buf).into_owned();
    if !h.families.is_empty() {
        md.push('\n');
        for line in h.families {
            md.push_str(&format!("- {line}\n"));
        }
    }
    md
}

/// The headline table as data, for a page that lays it out itself (the HTML report): the
/// same headers, rows and family lines as the terminal's table and [`headline_markdown`].
#[derive(Debug, Clone)]
pub struct Headline<'a> {
    /// Column headers; a line break separates a header's name from its unit.
    pub headers: Vec<String>,
    /// Each shown row, in table order, with its cells (one per header).
    pub rows: Vec<(&'a ConfigStats, Vec<String>)>,
    /// One line per kernel family comparing its forms (blocking against nonblocking).
    pub families: Vec<String>,
}

/// The [`Headline`] of `rows`, intervals at `level` (0.95 for 95 %), verdicts at `margin`
/// (a share of δ, [`Verdict`]), the forms' differences decided by `differences`.
pub fn headline<'a>(
    rows: &'a [ConfigStats],
    differences: &[FamilyDifference],
    level: f64,
    margin: f64,
) -> Headline<'a> {
    Headline {
        headers: headline_headers(level, launches_of(rows)),
        rows: shown(rows)
            .into_iter()
            .map(|r| (r, cells(r, margin)))
            .collect(),
        families: family_lines(rows, differences),
    }
}

/// The launches the verdicts rest on: the most any row pooled (1 for a single file).
fn launches_of(rows: &[ConfigStats]) -> u32 {
    rows.iter().map(|r| r.launches).max().unwrap_or(1).max(1)
}

/// Column headers, two lines each, broken between words; the interval's level is `level`,
/// and the verdict's header says on how many launches it rests (`launches`).
fn headline_headers(level: f64, launches: u32) -> Vec<String> {
    let level = format!("{:.0}%", level * 100.0);
    vec![
        "op".into(),
        "size".into(),
        "P".into(),
        "delay".into(),
        "t0\n(us)".into(),
        format!("cost td-t0 (us)\n[{level} CI]"),
        format!("delay hidden\n(%) [{level} CI]"),
        "above\nbound (us)".into(),
        match launches {
            1 => "verdict\n(1 launch)".to_string(),
            n => format!("verdict\n({n} launches)"),
        },
    ]
}

/// The rows shown, in table order: by family (the order of the figures), algorithm, size, P
/// and delay, then form, so a family's blocking, nonblocking and persistent rows of one
/// configuration are adjacent. A baseline shows only where nothing of its configuration was
/// delayed (elsewhere it is the t0 of the delayed rows).
fn shown(rows: &[ConfigStats]) -> Vec<&ConfigStats> {
    let mut shown: Vec<&ConfigStats> = rows
        .iter()
        .filter(|r| {
            !r.is_baseline()
                || !rows
                    .iter()
                    .any(|d| !d.is_baseline() && d.baseline_key() == r.baseline_key())
        })
        .collect();
    shown.sort_by(|x, y| {
        (x.op.family(), &x.algorithm, x.bytes, x.nprocs)
            .cmp(&(y.op.family(), &y.algorithm, y.bytes, y.nprocs))
            .then(x.delay_s.total_cmp(&y.delay_s))
            .then(x.delay_model.cmp(&y.delay_model))
            .then(x.op.form().cmp(&y.op.form()))
            .then(op_index(x.op).cmp(&op_index(y.op)))
    });
    shown
}

fn op_index(op: Op) -> usize {
    Op::ALL.iter().position(|&o| o == op).unwrap_or(usize::MAX)
}

/// The cells of every shown row.
fn headline_rows(rows: &[ConfigStats], margin: f64) -> Vec<Vec<String>> {
    shown(rows).into_iter().map(|r| cells(r, margin)).collect()
}

/// The verdict of a row in a few words: [`Verdict`] at the analysis' margin (`hides 62 %`,
/// `costs full delay`, `hides all`, `costs 4 % extra`, `inconclusive`, `too few (n=3)`,
/// `launches disagree`), and why there is none otherwise. `*` marks fewer than
/// [`FEW_VALID`] valid repetitions on a side.
fn verdict(r: &ConfigStats, margin: f64) -> String {
    if r.is_baseline() {
        return "nothing delayed".into();
    }
    if r.t_global_median_s.is_none() {
        return "no valid repetition".into();
    }
    if r.t0_median_s.is_none() {
        return "no baseline".into();
    }
    if let Some(why) = r.benefit_na {
        return if why.starts_with("overlap") {
            "overlap: --overlap".into()
        } else if why.starts_with("sampled") {
            "sampled: --distribution".into()
        } else {
            "-".into()
        };
    }
    let Some(v) = Verdict::of(r, margin) else {
        return "-".into();
    };
    let few = if r.valid.min(r.valid0) < FEW_VALID && !matches!(v, Verdict::TooFew(_)) {
        " *"
    } else {
        ""
    };
    format!("{v}{few}")
}

/// Microseconds with three or four significant digits: 0.90, 34.8, 1234.
fn short_us(s: Option<f64>) -> String {
    s.map_or_else(
        || "-".into(),
        |s| {
            let us = s * 1e6;
            match us.abs() {
                a if a < 10.0 => format!("{us:.2}"),
                a if a < 1000.0 => format!("{us:.1}"),
                _ => format!("{us:.0}"),
            }
        },
    )
}

fn cells(r: &ConfigStats, margin: f64) -> Vec<String> {
    let cost = with_ci(
        r.cost_median_s,
        r.cost_median_ci_lo_s,
        r.cost_median_ci_hi_s,
        short_us,
    );
    // `-0` would read as a sign where there is none.
    let pct = |x: f64| {
        let p = (x * 100.0).round();
        if p == 0.0 {
            "0".to_string()
        } else {
            format!("{p:.0}")
        }
    };
    let share = match hidden_share(r) {
        None => "-".to_string(),
        Some((v, Some((lo, hi)))) => format!("{} [{}, {}]", pct(v), pct(lo), pct(hi)),
        Some((v, None)) => pct(v),
    };
    vec![
        op_cell(r.op, &r.algorithm),
        size_cell(r.op, r.bytes),
        r.nprocs.to_string(),
        delay_cell(r),
        // A baseline row's t0 is its own median.
        short_us(if r.is_baseline() {
            r.t_global_median_s
        } else {
            r.t0_median_s
        }),
        cost,
        share,
        short_us(r.above_bound_s),
        verdict(r, margin),
    ]
}

/// One comparison of a family's form with its blocking form at one configuration.
struct Pair<'a> {
    blocking: &'a ConfigStats,
    other: &'a ConfigStats,
    /// The test of the difference of their costs, `None` where there was none (too few).
    difference: Option<&'a FamilyDifference>,
}

impl Pair<'_> {
    /// The shares hidden by the blocking and the other form.
    fn shares(&self) -> Option<(f64, f64)> {
        Some((hidden_share(self.blocking)?.0, hidden_share(self.other)?.0))
    }

    /// True when the two costs differ significantly (the interval of their difference,
    /// false discoveries controlled over every comparison); `None` without a test.
    fn differs(&self) -> Option<bool> {
        self.difference.map(|d| d.significant)
    }

    /// `8B P=4 50us`.
    fn config(&self) -> String {
        let r = self.other;
        let size = if r.op.has_payload() {
            format!("{} ", format_bytes(r.bytes))
        } else {
            String::new()
        };
        format!("{size}P={} {}", r.nprocs, r.delay_model)
    }
}

/// One line per (family, non-blocking or persistent form) with a blocking form measured at
/// the same (size, P, delay, algorithm): in how many configurations each form hid the larger
/// share of the delay, and where their costs differ beyond the noise by `differences` (the
/// interval of the difference of the two costs, not the overlap of the two intervals, which
/// misses real differences: Schenker and Gentleman 2001).
fn family_lines(rows: &[ConfigStats], differences: &[FamilyDifference]) -> Vec<String> {
    let shown = shown(rows);
    let mut lines = Vec::new();
    let mut others: Vec<Op> = shown
        .iter()
        .map(|r| r.op)
        .filter(|op| op.form() != Form::Blocking)
        .collect();
    others.sort_by_key(|&op| (op.family(), op.form(), op_index(op)));
    others.dedup();
    for op in others {
        let blocking = op.family().blocking();
        let pairs: Vec<Pair> = shown
            .iter()
            .filter(|r| r.op == op && !r.is_baseline())
            .filter_map(|&other| {
                let blocking = shown.iter().find(|b| {
                    b.op == blocking
                        && b.bytes == other.bytes
                        && b.nprocs == other.nprocs
                        && b.algorithm == other.algorithm
                        && b.delay_model == other.delay_model
                })?;
                let difference = differences.iter().find(|d| d.is_of(other));
                Some(Pair {
                    blocking,
                    other,
                    difference,
                })
            })
            .filter(|p| p.shares().is_some())
            .collect();
        if pairs.is_empty() {
            continue;
        }
        lines.push(family_line(blocking, op, &pairs));
    }
    lines
}

/// The line of [`family_lines`] for `other` against `blocking`.
fn family_line(blocking: Op, other: Op, pairs: &[Pair]) -> String {
    let more = |p: &Pair| p.shares().is_some_and(|(b, o)| o > b);
    let n_other = pairs.iter().filter(|p| more(p)).count();
    let n_blocking = pairs.len() - n_other;
    let (winner, loser, wins) = if n_other > n_blocking {
        (other, blocking, n_other)
    } else {
        (blocking, other, n_blocking)
    };
    let differ: Vec<&Pair> = pairs.iter().filter(|p| p.differs() == Some(true)).collect();
    let untested = pairs.iter().filter(|p| p.differs().is_none()).count();
    let mut line = format!("{} vs {}: ", blocking.name(), other.name());
    if n_other == n_blocking {
        line.push_str(&format!(
            "each hides more in {wins} of {} configurations",
            pairs.len()
        ));
    } else {
        line.push_str(&format!(
            "{} hides more in {wins} of {} configurations",
            winner.name(),
            pairs.len()
        ));
        if wins < pairs.len() {
            line.push_str(&format!(", {} in {}", loser.name(), pairs.len() - wins));
        }
    }
    if differ.is_empty() {
        line.push_str("; their costs differ significantly in none");
    } else {
        let shown: Vec<String> = differ
            .iter()
            .take(4)
            .map(|p| {
                let (b, o) = p.shares().unwrap_or_default();
                let who = if o > b { other } else { blocking };
                format!(
                    "{}: {} ({:.0} % vs {:.0} %)",
                    p.config(),
                    who.name(),
                    o.max(b) * 100.0,
                    o.min(b) * 100.0
                )
            })
            .collect();
        let more = if differ.len() > 4 { ", ..." } else { "" };
        line.push_str(&format!(
            "; their costs differ significantly in {}: {}{more}",
            differ.len(),
            shown.join(", ")
        ));
    }
    if untested > 0 {
        line.push_str(&format!(" ({untested} untested: too few)"));
    }
    line.push('.');
    line
}

/// What the columns mean and which statistic each uses, then the runs' warnings, one note
/// per entry (wrapped by the writer).
fn narrow_notes(a: &Analysis) -> Vec<String> {
    let level = format!("{:.0}%", a.bootstrap.level * 100.0);
    let launches = launches_of(&a.rows);
    let interval = if launches > 1 {
        format!(
            "{level} interval over the {launches} launches: launches, then repetitions within \
             them, resampled (hierarchical bootstrap, {} resamples; Davison and Hinkley 1997); \
             t0, cost and delay hidden are medians over launches of each launch's own",
            a.bootstrap.resamples
        )
    } else {
        format!(
            "{level} percentile bootstrap interval ({} resamples)",
            a.bootstrap.resamples
        )
    };
    let mut lines = vec![
        format!(
            "t0: median t_global without the delay; cost: t_delta - t0 from medians, what the \
             late arrival cost; [..]: {interval}."
        ),
        "above bound: median t_global minus the lower bound (last arrival + one one-way \
         point-to-point time of the size; Culler et al. 1993), what any algorithm must take; \
         - where the file has no one-way time."
            .into(),
        "delay hidden: (t0 + delta - t_delta) / delta, the share of the delay the operation \
         absorbed: 100% = it cost nothing, 0% = it cost the full delay, below 0 = it cost more."
            .into(),
        format!(
            "verdict: from the interval of delay hidden at a margin of {m:.0} % of delta \
             (--margin; equivalence as in Schuirmann 1987): inside +-{m:.0} % costs full \
             delay, above {m:.0} % hides, below -{m:.0} % costs extra, across a margin \
             inconclusive; too few (n=..): under {} valid repetitions on a side, no interval \
             (at least {MIN_VALID_FOR_CI}: Le Boudec 2010); *: fewer than {FEW_VALID} valid; \
             launches disagree: one launch's own interval hides over {m:.0} % of the delay and \
             another's costs over {m:.0} % more than it.",
            a.bootstrap.min_valid(),
            m = a.bootstrap.margin * 100.0
        ),
    ];
    if launches == 1 {
        lines.push(
            "One launch: every verdict rests on the repetitions of one mpirun, whose interval \
             cannot show how far the next launch lands (results differ between launches by \
             more than within one: Hunold and Carpen-Amarie 2016). Measure several launches \
             (delaybench launches 5 -- mpirun ...; LAUNCHES=5 scripts/run.sh) and analyze \
             them together."
                .into(),
        );
    }
    if !family_lines(&a.rows, &a.family_differences).is_empty() {
        lines.push(format!(
            "Forms side by side: two forms' costs differ significantly where the bootstrap \
             test of the difference of their costs (t_delta - t0 of each, the four samples \
             resampled independently) rejects no difference, the false discovery rate held at \
             {:.0}% over every comparison (Benjamini and Hochberg 1995); their two cost \
             intervals may overlap even so (Schenker and Gentleman 2001).",
            a.bootstrap.fdr() * 100.0
        ));
    }
    let mut more = vec![
        "the benefit b of Niethammer et al. 2016",
        "valid counts",
        "outliers",
    ];
    if super::summary_table::reference_table(a).is_some() {
        more.push("the reference algorithms' table");
    }
    if super::summary_table::replay_patterns(a).is_some() {
        more.push("the replayed pattern's table");
    }
    lines.push(format!(
        "Every column ({}): analyze --wide; --format csv or json for the numbers.",
        more.join(", ")
    ));
    lines.extend(a.warnings.iter().map(|w| format!("warning: {w}")));
    lines
}

/// `text` broken at spaces into lines of at most `width` characters (a word longer than the
/// width stays whole); lines after the first are indented by two spaces. The notes of the
/// default table, and the end of a run's other lines, are wrapped with it.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let indent = if lines.is_empty() { 0 } else { 2 };
        if !line.is_empty() && indent + line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| if i == 0 { l } else { format!("  {l}") })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::test_support::{analysis, text};

    fn lines(a: &Analysis, width: usize) -> Vec<String> {
        text(|buf| write_narrow_summary(a, width, buf))
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// The analysis of the test records with an allreduce and its iallreduce at the same
    /// configuration, both with intervals.
    fn paired() -> Analysis {
        let mut a = analysis();
        let mut b = a
            .rows
            .iter()
            .find(|r| r.op == Op::Allreduce && !r.is_baseline())
            .unwrap()
            .clone();
        b.cost_median_s = Some(40e-6);
        b.cost_median_ci_lo_s = Some(38e-6);
        b.cost_median_ci_hi_s = Some(42e-6);
        b.valid = 40;
        b.valid0 = 40;
        let mut nb = b.clone();
        nb.op = Op::Iallreduce;
        nb.cost_median_s = Some(20e-6);
        nb.cost_median_ci_lo_s = Some(18e-6);
        nb.cost_median_ci_hi_s = Some(22e-6);
        a.family_differences = vec![difference(&b, &nb, true)];
        a.rows.retain(|r| r.op == Op::Barrier);
        a.rows.push(b);
        a.rows.push(nb);
        a
    }

    /// A hand-made test of `other` against `blocking`, significant or not, its interval the
    /// difference of their cost intervals' bounds.
    fn difference(
        blocking: &ConfigStats,
        other: &ConfigStats,
        significant: bool,
    ) -> FamilyDifference {
        FamilyDifference {
            blocking: blocking.op,
            other: other.op,
            bytes: other.bytes,
            nprocs: other.nprocs,
            delay_model: other.delay_model.clone(),
            algorithm: other.algorithm.clone(),
            interval: crate::analysis::Interval {
                lo: other.cost_median_ci_lo_s.unwrap() - blocking.cost_median_ci_hi_s.unwrap(),
                hi: other.cost_median_ci_hi_s.unwrap() - blocking.cost_median_ci_lo_s.unwrap(),
            },
            p: if significant { 0.001 } else { 0.4 },
            significant,
        }
    }

    #[test]
    fn fits_the_width_and_headers_break_between_words() {
        let mut a = paired();
        a.warnings = vec!["x ".repeat(200)];
        for width in [100, 140] {
            for l in lines(&a, width) {
                assert!(l.chars().count() <= width, "{} > {width}: {l}", l.len());
            }
        }
        // The rows, bound column included, fit 100 columns without wrapping.
        let table = lines(&a, 100);
        assert!(
            table.iter().take(8).all(|l| l.chars().count() <= 100),
            "{table:#?}"
        );
        for h in headline_headers(0.95, 12) {
            for part in h.split('\n') {
                assert!(!part.ends_with('-'), "{h}");
            }
        }
    }

    #[test]
    fn the_forms_of_a_family_are_side_by_side_with_a_verdict() {
        let a = paired();
        let rows = headline_rows(&a.rows, a.bootstrap.margin);
        let ops: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(ops, ["barrier", "allreduce", "iallreduce"]);
        // δ = 50 us, cost 40 us [38, 42]: hidden 20 % [16, 24].
        assert_eq!(rows[1][6], "20 [16, 24]");
        assert_eq!(rows[1][7], "-", "no one-way time, no bound");
        assert_eq!(rows[1][8], "hides 20 %");
        assert_eq!(rows[2][8], "hides 60 %");
        let fam = family_lines(&a.rows, &a.family_differences);
        assert_eq!(fam.len(), 1, "{fam:?}");
        assert!(
            fam[0].starts_with("allreduce vs iallreduce: iallreduce hides more in 1 of 1")
                && fam[0]
                    .contains("differ significantly in 1: 8B P=2 50us: iallreduce (60 % vs 20 %)"),
            "{}",
            fam[0]
        );
    }

    #[test]
    fn the_forms_differ_by_the_test_of_the_difference_not_by_overlap() {
        let mut a = paired();
        // Overlapping cost intervals, [38, 42] and [36, 44] us, with a significant
        // difference: reported as a difference.
        let nb = a.rows.iter_mut().find(|r| r.op == Op::Iallreduce).unwrap();
        nb.cost_median_s = Some(37e-6);
        nb.cost_median_ci_lo_s = Some(36e-6);
        nb.cost_median_ci_hi_s = Some(44e-6);
        let fam = family_lines(&a.rows, &a.family_differences);
        assert!(
            fam[0].contains("differ significantly in 1: 8B P=2 50us: iallreduce (26 % vs 20 %)"),
            "{}",
            fam[0]
        );
        // Intervals apart but the test (after false discovery control) not significant: no
        // difference.
        let nb = a.rows.iter_mut().find(|r| r.op == Op::Iallreduce).unwrap();
        nb.cost_median_ci_lo_s = Some(18e-6);
        nb.cost_median_ci_hi_s = Some(22e-6);
        a.family_differences[0].significant = false;
        let fam = family_lines(&a.rows, &a.family_differences);
        assert!(
            fam[0].ends_with("differ significantly in none."),
            "{}",
            fam[0]
        );
        // No test at all: counted as untested.
        a.family_differences.clear();
        let fam = family_lines(&a.rows, &a.family_differences);
        assert!(fam[0].ends_with("(1 untested: too few)."), "{}", fam[0]);
        let notes = narrow_notes(&a).join("\n");
        assert!(notes.contains("Benjamini and Hochberg 1995"), "{notes}");
    }

    #[test]
    fn verdicts_follow_the_interval() {
        let a = paired();
        let mut r = a.rows[1].clone();
        let mut say = |lo: f64, hi: f64, margin: f64| {
            r.cost_median_s = Some((lo + hi) / 2.0 * 1e-6);
            r.cost_median_ci_lo_s = Some(lo * 1e-6);
            r.cost_median_ci_hi_s = Some(hi * 1e-6);
            verdict(&r, margin)
        };
        assert_eq!(say(45.5, 54.5, 0.1), "costs full delay");
        assert_eq!(say(-2.0, 5.0, 0.1), "hides all");
        // δ = 50 us: a median cost of 55.5 us is 11 % more than δ; across a 10 % margin.
        assert_eq!(say(51.0, 60.0, 0.0), "costs 11 % extra");
        assert_eq!(say(51.0, 60.0, 0.1), "inconclusive");
        assert_eq!(say(50.0001, 50.0002, 0.0), "costs < 1 % extra");
        assert_eq!(say(10.0, 45.0, 0.1), "inconclusive");
        // Two launches on opposite sides of δ: whatever the interval over launches says.
        r.launches_disagree = Some(true);
        assert_eq!(verdict(&r, 0.1), "launches disagree");
        r.launches_disagree = Some(false);
        assert_eq!(verdict(&r, 0.1), "inconclusive");
        r.cost_median_ci_lo_s = None;
        r.valid = 4;
        assert_eq!(verdict(&r, 0.1), "too few (n=4)");
    }

    #[test]
    fn the_verdict_says_how_many_launches_it_rests_on() {
        let mut a = paired();
        let table = lines(&a, 100).join("\n");
        assert!(table.contains("(1 launch)"), "{table}");
        assert!(
            table.contains("One launch: every verdict rests on"),
            "{table}"
        );
        for r in a.rows.iter_mut() {
            r.launches = 5;
        }
        let table = lines(&a, 100).join("\n");
        assert!(table.contains("(5 launches)"), "{table}");
        assert!(!table.contains("One launch:"), "{table}");
        assert!(table.contains("interval over the 5 launches"), "{table}");
    }

    #[test]
    fn wrap_keeps_words_whole() {
        let w = wrap("aaa bbb ccc ddd", 8);
        assert_eq!(w, ["aaa bbb", "  ccc", "  ddd"]);
        assert_eq!(wrap("", 8), [""]);
    }

    #[test]
    fn markdown_has_the_same_rows() {
        let a = paired();
        let md = headline_markdown(&a.rows, &a.family_differences, 0.95, 0.1);
        assert!(
            md.starts_with("| op | size | P | delay | t0 (us) |"),
            "{md}"
        );
        assert!(md.contains("| iallreduce |"), "{md}");
        assert!(md.contains("- allreduce vs iallreduce"), "{md}");
    }
}
