//! The summary as a table for a terminal or a log (`delaybench analyze`, the default).

use super::{ExportError, SummaryExporter};
use crate::analysis::SummaryRow;
use crate::units::{format_bytes, format_duration};
use std::io::Write;

/// Column headers, in order. Times are shown in microseconds, the benefit in percent.
/// Two lines each, so the numeric columns are no wider than their numbers.
const HEADERS: [&str; 11] = [
    "op",
    "size",
    "P",
    "delay",
    "valid",
    "t_global\nmin (us)",
    "t_global\nmed (us)",
    "t0\nmin (us)",
    "t0\nmed (us)",
    "benefit\nmin (%)",
    "benefit\nmed (%)",
];

/// A human-readable table, one line per configuration: size with a binary unit (`-` for
/// barriers), delay with a unit (`0` for the baseline), valid/total repetitions, t_global and
/// t0 minimum and median in microseconds (2 decimals), the benefit in percent (1 decimal),
/// and `-` where a value is `None`.
///
/// Plain ASCII with rules above, below and under the two-line header, no vertical lines:
/// safe in any log and about 90 characters wide. Not for parsing: use
/// [`super::SummaryCsv`] for that.
#[derive(Debug, Clone, Copy, Default)]
pub struct SummaryTable;

impl SummaryExporter for SummaryTable {
    fn write(&self, rows: &[SummaryRow], out: &mut dyn Write) -> Result<(), ExportError> {
        super::plain::write_plain_table(&HEADERS, rows.iter().map(cells).collect(), out)
    }
}

fn cells(row: &SummaryRow) -> Vec<String> {
    let us = |s: Option<f64>| s.map_or_else(|| "-".into(), |s| format!("{:.2}", s * 1e6));
    let percent = |b: Option<f64>| b.map_or_else(|| "-".into(), |b| format!("{:.1}", b * 100.0));
    vec![
        row.op.name().to_string(),
        if row.op.has_payload() {
            format_bytes(row.bytes)
        } else {
            "-".into()
        },
        row.nprocs.to_string(),
        // "0s" would read like a measured duration; the baseline has no delay at all.
        if row.delay_s == 0.0 {
            "0".into()
        } else if row.delay_model.is_empty() {
            format_duration(row.delay_s)
        } else {
            row.delay_model.clone()
        },
        format!("{}/{}", row.valid, row.total),
        us(row.t_global_min_s),
        us(row.t_global_median_s),
        us(row.t0_min_s),
        us(row.t0_median_s),
        percent(row.benefit_min),
        percent(row.benefit_median),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::summarize;
    use crate::export::test_support::{records, text};

    fn table_lines(rows: &[SummaryRow]) -> Vec<String> {
        let out = text(|buf| SummaryTable.write(rows, buf));
        out.lines().map(str::to_string).collect()
    }

    /// The cells of the data lines (between the header rule and the bottom rule); no cell
    /// holds a space.
    fn data(lines: &[String]) -> Vec<Vec<&str>> {
        lines[4..lines.len() - 1]
            .iter()
            .map(|l| l.split_whitespace().collect())
            .collect()
    }

    fn is_rule(line: &str, c: char) -> bool {
        !line.is_empty() && line.chars().all(|x| x == c)
    }

    #[test]
    fn headers_name_the_units() {
        let lines = table_lines(&summarize(&records()));
        assert!(is_rule(&lines[0], '-') && is_rule(&lines[3], '='));
        assert!(is_rule(lines.last().unwrap(), '-'));
        let names: Vec<&str> = lines[1].split_whitespace().collect();
        assert_eq!(
            names,
            [
                "op", "size", "P", "delay", "valid", "t_global", "t_global", "t0", "t0", "benefit",
                "benefit"
            ]
        );
        for unit in ["min (us)", "med (us)", "min (%)", "med (%)"] {
            assert!(lines[2].contains(unit), "{unit} missing from: {}", lines[2]);
        }
        // One line per row, no rules between them.
        assert_eq!(data(&lines).len(), 4);
    }

    #[test]
    fn narrow_enough_for_a_log() {
        for line in table_lines(&summarize(&records())) {
            assert!(line.len() <= 100, "{} chars: {line}", line.len());
            assert_eq!(line.trim_end(), line, "trailing spaces");
        }
    }

    #[test]
    fn rows_are_formatted_for_people() {
        let lines = table_lines(&summarize(&records()));
        let g = data(&lines);
        // Allreduce 8 B, P = 2, baseline: valid reps 10, 12, 13, 14 us.
        assert_eq!(
            g[0],
            [
                "allreduce",
                "8B",
                "2",
                "0",
                "4/5",
                "10.00",
                "12.50",
                "10.00",
                "12.50",
                "-",
                "-"
            ]
        );
        // Delayed by 50 us: t_delta = t0 + delta exactly, so the benefit is 0.
        assert_eq!(
            g[1],
            [
                "allreduce",
                "8B",
                "2",
                "50us",
                "4/5",
                "60.00",
                "62.50",
                "10.00",
                "12.50",
                "0.0",
                "0.0"
            ]
        );
        // Barriers have no size.
        assert_eq!(&g[2][..5], ["barrier", "-", "4", "0", "2/3"]);
        // No baseline for iallreduce 1 KiB: t0 and benefit unknown.
        assert_eq!(&g[3][..5], ["iallreduce", "1KiB", "4", "50us", "3/4"]);
        assert_eq!(&g[3][7..], ["-", "-", "-", "-"]);
    }

    #[test]
    fn benefit_is_a_percentage() {
        let mut rows = summarize(&records());
        rows[1].benefit_min = Some(0.4567);
        rows[1].benefit_median = Some(-0.05);
        let lines = table_lines(&rows);
        assert_eq!(&data(&lines)[1][9..], ["45.7", "-5.0"]);
    }

    #[test]
    fn empty_summary_is_headers_only() {
        let lines = table_lines(&[]);
        assert_eq!(lines.len(), 5);
        assert!(lines[1].starts_with(" op"));
    }

    #[test]
    #[ignore = "prints the table for a look: cargo test -- --ignored --nocapture"]
    fn show() {
        print!("{}", table_lines(&summarize(&records())).join("\n"));
    }
}
