//! `delaybench compare A B` as a table, CSV, JSON or Markdown.

use super::write_table;
use super::{ExportError, Format};
use crate::analysis::CompareRow;
use crate::units::format_bytes;
use std::io::Write;

const HEADERS: [&str; 11] = [
    "op",
    "size",
    "P",
    "delay",
    "valid reps\nA/B",
    "t_global med A\n[CI] (us)",
    "t_global med B\n[CI] (us)",
    "B vs A\n(%)",
    "CIs\noverlap",
    "b med A -> B\n(%)",
    "b CIs\noverlap",
];

fn us(s: Option<f64>) -> String {
    s.map_or_else(|| "-".into(), |s| format!("{:.2}", s * 1e6))
}

fn with_ci(v: Option<f64>, lo: Option<f64>, hi: Option<f64>) -> String {
    match (v, lo, hi) {
        (None, ..) => "-".into(),
        (v, Some(lo), Some(hi)) => format!("{} [{}, {}]", us(v), us(Some(lo)), us(Some(hi))),
        (v, ..) => us(v),
    }
}

fn yes_no(b: Option<bool>) -> String {
    match b {
        Some(true) => "yes".into(),
        Some(false) => "no".into(),
        None => "-".into(),
    }
}

fn cells(r: &CompareRow) -> Vec<String> {
    let pc = |b: Option<f64>| b.map_or_else(|| "-".into(), |b| format!("{:.1}", b * 100.0));
    vec![
        r.op.name().into(),
        if r.op.has_payload() {
            format_bytes(r.bytes)
        } else {
            "-".into()
        },
        r.nprocs.to_string(),
        r.delay_model.clone(),
        format!("{}/{}", r.valid_a, r.valid_b),
        with_ci(
            r.t_global_median_a_s,
            r.t_global_median_ci_lo_a_s,
            r.t_global_median_ci_hi_a_s,
        ),
        with_ci(
            r.t_global_median_b_s,
            r.t_global_median_ci_lo_b_s,
            r.t_global_median_ci_hi_b_s,
        ),
        r.t_global_median_rel_diff
            .map_or_else(|| "-".into(), |d| format!("{:+.1}", d * 100.0)),
        yes_no(r.t_global_ci_overlap),
        if r.benefit_median_a.is_some() || r.benefit_median_b.is_some() {
            format!("{} -> {}", pc(r.benefit_median_a), pc(r.benefit_median_b))
        } else {
            "-".into()
        },
        yes_no(r.benefit_ci_overlap),
    ]
}

/// Writes compare rows: the table shows medians in microseconds with their intervals, the
/// relative difference (B − A) / A in percent and whether the intervals overlap ("no" = the
/// difference is larger than the noise of either side); CSV and JSON hold every column of
/// [`CompareRow`] in seconds and fractions.
///
/// Errors: [`ExportError`] when writing fails.
pub fn write_compare(
    rows: &[CompareRow],
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    write_table(rows, format, &HEADERS, cells, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{compare, config_stats, Bootstrap};
    use crate::export::test_support::{records, text};

    #[test]
    fn table_and_csv() {
        let a = config_stats(&[records()], &Bootstrap::default()).unwrap();
        let (rows, _) = compare(&a, &a);
        let table = text(|buf| write_compare(&rows, Format::Table, buf));
        let line = table
            .lines()
            .find(|l| l.contains("50us") && l.contains("allreduce"))
            .unwrap();
        // Identical sides: +0.0 %, b 0.0 -> 0.0; 4 valid repetitions: no intervals to overlap.
        assert!(line.contains("+0.0") && !line.contains("yes"), "{line}");
        assert!(line.contains("0.0 -> 0.0"), "{line}");
        let csv_out = text(|buf| write_compare(&rows, Format::Csv, buf));
        let header = csv_out.lines().next().unwrap();
        assert!(
            header.starts_with("schema_version,op,bytes,nprocs,delay_model,"),
            "{header}"
        );
        assert!(
            header.contains("t_global_median_rel_diff,t_global_ci_overlap"),
            "{header}"
        );
        assert_eq!(csv_out.lines().count(), rows.len() + 1);
    }
}
