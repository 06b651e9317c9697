//! `delaybench compare CAPTURE_A CAPTURE_B` as a table, CSV, JSON or Markdown: per call
//! site found in both captures, the time the application spent in its calls before and
//! after.

use super::table_cells::TextTable;
use super::{write_table, ExportError, Format};
use crate::analysis::capture_compare::{CaptureComparison, SiteComparison};
use crate::analysis::Bootstrap;
use crate::units::format_bytes;
use std::io::Write;

const HEADERS: [&str; 8] = [
    "site",
    "op",
    "size",
    "P",
    "calls\nA/B",
    "in call med\nA -> B (us)",
    "B - A med\n[CI] (us)",
    "differs",
];

fn us(s: f64) -> String {
    format!("{:.2}", s * 1e6)
}

fn cells(s: &SiteComparison) -> Vec<String> {
    vec![
        s.site_label.clone(),
        s.op.clone(),
        format_bytes(s.bytes),
        s.comm_size.to_string(),
        format!("{}/{}", s.calls_a, s.calls_b),
        format!(
            "{} -> {}",
            us(s.in_call_median_a_s),
            us(s.in_call_median_b_s)
        ),
        match (s.in_call_diff_ci_lo_s, s.in_call_diff_ci_hi_s) {
            (Some(lo), Some(hi)) => format!("{} [{}, {}]", us(s.in_call_diff_s), us(lo), us(hi)),
            _ => us(s.in_call_diff_s),
        },
        match s.differs {
            Some(true) => "yes".into(),
            Some(false) => "no".into(),
            None => "-".into(),
        },
    ]
}

/// What the table means and what it leaves out, one line each (under 100 characters).
fn notes(c: &CaptureComparison, boot: &Bootstrap) -> Vec<String> {
    let mut lines = vec![
        "in call: per call, the members' mean of exit - entry (their waiting included);".into(),
        format!(
            "  B - A: difference of the medians over the calls, {:.0}% percentile bootstrap",
            boot.level * 100.0
        ),
        format!(
            "  interval ({} resamples, A and B resampled independently); differs: Benjamini-",
            boot.resamples
        ),
        format!(
            "  Hochberg over the sites at {:.0}%. No interval from fewer than {} calls a side.",
            c.fdr * 100.0,
            boot.min_valid()
        ),
        "  The calls of one run per side: a difference says the runs differ, not why.".into(),
        format!(
            "waiting at these sites: A {:.3} ms, B {:.3} ms; wall time: A {:.3} s, B {:.3} s",
            c.sites.iter().map(|s| s.wait_a_s).sum::<f64>() * 1e3,
            c.sites.iter().map(|s| s.wait_b_s).sum::<f64>() * 1e3,
            c.wall_a_s,
            c.wall_b_s
        ),
    ];
    for (side, lone) in [("A", &c.only_a), ("B", &c.only_b)] {
        if !lone.is_empty() {
            lines.push(format!(
                "{} sites only in {side} (another binary or path?): {}",
                lone.len(),
                lone.join("; ")
            ));
        }
    }
    lines
}

/// The capture comparison as data for the comparison page: the terminal's headers, rows
/// and notes.
pub fn capture_compare_table(c: &CaptureComparison, boot: &Bootstrap) -> TextTable {
    TextTable {
        notes: notes(c, boot)
            .into_iter()
            .map(|l| l.trim_start().to_string())
            .collect(),
        ..TextTable::of(&c.sites, &HEADERS, cells)
    }
}

/// Writes a capture comparison: the table shows per site the median time in the call of A
/// and B in microseconds, the difference with its interval and the decision, then notes
/// (the Markdown table as a list); CSV and JSON hold every column of [`SiteComparison`] in
/// seconds.
///
/// Errors: [`ExportError`] when writing fails.
pub fn write_capture_compare(
    c: &CaptureComparison,
    boot: &Bootstrap,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    write_table(&c.sites, format, &HEADERS, cells, out)?;
    match format {
        Format::Table => {
            for line in notes(c, boot) {
                writeln!(out, "{line}")?;
            }
        }
        Format::Markdown => {
            writeln!(out)?;
            for line in notes(c, boot) {
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
