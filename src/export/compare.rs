//! `delaybench compare A B` as a table, CSV, JSON or Markdown.

use super::table_cells::{percent, size_cell, us, with_ci, TextTable};
use super::write_table;
use super::{ExportError, Format};
use crate::analysis::{Bootstrap, CompareRow};
use std::io::Write;

const HEADERS: [&str; 13] = [
    "op",
    "size",
    "P",
    "delay",
    "valid reps\nA/B",
    "t_global med A\n[CI] (us)",
    "t_global med B\n[CI] (us)",
    "B vs A\n(%)",
    "B - A med\n[CI] (us)",
    "differs",
    "b med A -> B\n(%)",
    "b B - A\n[CI] (pp)",
    "b\ndiffers",
];

fn yes_no(b: Option<bool>) -> String {
    match b {
        Some(true) => "yes".into(),
        Some(false) => "no".into(),
        None => "-".into(),
    }
}

fn cells(r: &CompareRow) -> Vec<String> {
    vec![
        r.op.name().into(),
        size_cell(r.op, r.bytes),
        r.nprocs.to_string(),
        r.delay_model.clone(),
        format!("{}/{}", r.valid_a, r.valid_b),
        with_ci(
            r.t_global_median_a_s,
            r.t_global_median_ci_lo_a_s,
            r.t_global_median_ci_hi_a_s,
            us,
        ),
        with_ci(
            r.t_global_median_b_s,
            r.t_global_median_ci_lo_b_s,
            r.t_global_median_ci_hi_b_s,
            us,
        ),
        r.t_global_median_rel_diff
            .map_or_else(|| "-".into(), |d| format!("{:+.1}", d * 100.0)),
        with_ci(
            r.t_global_median_diff_s,
            r.t_global_median_diff_ci_lo_s,
            r.t_global_median_diff_ci_hi_s,
            us,
        ),
        yes_no(r.t_global_differs),
        if r.benefit_median_a.is_some() || r.benefit_median_b.is_some() {
            format!(
                "{} -> {}",
                percent(r.benefit_median_a),
                percent(r.benefit_median_b)
            )
        } else {
            "-".into()
        },
        with_ci(
            r.benefit_diff,
            r.benefit_diff_ci_lo,
            r.benefit_diff_ci_hi,
            percent,
        ),
        yes_no(r.benefit_differs),
    ]
}

/// What the table's verdict columns mean, one line each (under 100 characters).
fn notes(boot: &Bootstrap) -> Vec<String> {
    vec![
        format!(
            "B - A: difference of the medians, with its {:.0}% percentile bootstrap interval",
            boot.level * 100.0
        ),
        format!(
            "  ({} resamples, A and B resampled independently); differs: that interval excludes 0.",
            boot.resamples
        ),
        "  The verdict is not whether A's and B's own intervals overlap: they can overlap while"
            .into(),
        "  the difference is real (Schenker and Gentleman 2001); CSV/JSON keep *_ci_overlap."
            .into(),
        "b B - A: the same for the benefit from medians, in percentage points (four blocks)."
            .into(),
        format!(
            "No interval from fewer than {} valid repetitions on a side.",
            boot.min_valid()
        ),
    ]
}

/// The comparison table as data, for a page that lays it out itself (the HTML comparison
/// page): the table's headers (a line break between a name and its unit), each row's cells,
/// and the notes saying what the verdict columns mean, as the terminal prints them.
pub fn compare_table(rows: &[CompareRow], boot: &Bootstrap) -> TextTable {
    TextTable {
        notes: notes(boot)
            .into_iter()
            .map(|l| l.trim_start().to_string())
            .collect(),
        ..TextTable::of(rows, &HEADERS, cells)
    }
}

/// Writes compare rows: the table shows medians in microseconds with their intervals, the
/// relative difference (B − A) / A in percent, the difference B − A with the bootstrap
/// interval of the difference (`boot`'s level and resamples) and whether it excludes 0
/// (`differs`), the same for the benefit, and notes saying so (the Markdown table as a
/// list); CSV and JSON hold every column of [`CompareRow`] in seconds and fractions.
///
/// Errors: [`ExportError`] when writing fails.
pub fn write_compare(
    rows: &[CompareRow],
    boot: &Bootstrap,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    write_table(rows, format, &HEADERS, cells, out)?;
    match format {
        Format::Table => {
            for line in notes(boot) {
                writeln!(out, "{line}")?;
            }
        }
        Format::Markdown => {
            writeln!(out)?;
            for line in notes(boot) {
                match line.strip_prefix("  ") {
                    Some(more) => writeln!(out, "  {more}")?,
                    None => writeln!(out, "- {line}")?,
                }
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{compare, config_stats_of_digests, CompareSide, LaunchDigest};
    use crate::export::test_support::{records, text};

    #[test]
    fn table_and_csv() {
        let boot = Bootstrap::default();
        let launches = [LaunchDigest::of(&records())];
        let a = config_stats_of_digests(&launches, &boot).unwrap();
        let side = CompareSide {
            rows: &a,
            launches: &launches,
        };
        let (rows, _) = compare(side, side, &boot);
        let table = text(|buf| write_compare(&rows, &boot, Format::Table, buf));
        let line = table
            .lines()
            .find(|l| l.contains("50us") && l.contains("allreduce"))
            .unwrap();
        // Identical sides: +0.0 %, b 0.0 -> 0.0; 4 valid repetitions: no intervals to overlap.
        assert!(line.contains("+0.0") && !line.contains("yes"), "{line}");
        assert!(line.contains("0.0 -> 0.0"), "{line}");
        assert!(
            table.contains("differs: that interval excludes 0"),
            "{table}"
        );
        let csv_out = text(|buf| write_compare(&rows, &boot, Format::Csv, buf));
        let header = csv_out.lines().next().unwrap();
        assert!(
            header.starts_with("schema_version,op,bytes,nprocs,delay_model,"),
            "{header}"
        );
        assert!(
            header.contains("t_global_median_rel_diff,t_global_ci_overlap"),
            "{header}"
        );
        assert!(
            header.contains(
                "t_global_median_diff_ci_lo_s,t_global_median_diff_ci_hi_s,t_global_differs"
            ),
            "{header}"
        );
        assert_eq!(csv_out.lines().count(), rows.len() + 1);
    }
}
