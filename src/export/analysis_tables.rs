//! `analyze --distribution` and `analyze --trend` as a table, CSV or JSON.

use super::plain::{write_csv_rows, write_json_rows, write_plain_table};
use super::{ExportError, SummaryFormat};
use crate::analysis::{DistributionRow, TrendRow};
use crate::units::format_bytes;
use std::io::Write;

fn size(op: crate::plan::Op, bytes: u64) -> String {
    if op.has_payload() {
        format_bytes(bytes)
    } else {
        "-".into()
    }
}

/// Writes distribution rows (table: benefits in percent).
pub fn write_distribution(
    rows: &[DistributionRow],
    format: SummaryFormat,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    match format {
        SummaryFormat::Csv => write_csv_rows(rows, out),
        SummaryFormat::Json => write_json_rows(rows, out),
        SummaryFormat::Table => {
            let pc = |b: f64| format!("{:.1}", b * 100.0);
            let opt = |v: Option<f64>| v.map_or_else(|| "-".into(), |v| format!("{v:.2}"));
            let cells = rows
                .iter()
                .map(|r| {
                    vec![
                        r.op.name().into(),
                        size(r.op, r.bytes),
                        r.nprocs.to_string(),
                        r.delay_model.clone(),
                        r.n.to_string(),
                        pc(r.benefit_p5),
                        pc(r.benefit_p25),
                        pc(r.benefit_median),
                        pc(r.benefit_p75),
                        pc(r.benefit_p95),
                        opt(r.amplification),
                        opt(r.wait_for_slowest),
                    ]
                })
                .collect();
            let headers = [
                "op",
                "size",
                "P",
                "delay",
                "n",
                "b p5 (%)",
                "b p25 (%)",
                "b med (%)",
                "b p75 (%)",
                "b p95 (%)",
                "noise ampl.",
                "wait-slowest",
            ];
            write_plain_table(&headers, cells, out)
        }
    }
}

/// Writes trend rows (table: microseconds, and microseconds per second of run).
pub fn write_trend(
    rows: &[TrendRow],
    format: SummaryFormat,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    match format {
        SummaryFormat::Csv => write_csv_rows(rows, out),
        SummaryFormat::Json => write_json_rows(rows, out),
        SummaryFormat::Table => {
            let us = |s: f64| format!("{:.2}", s * 1e6);
            let cells = rows
                .iter()
                .map(|r| {
                    vec![
                        r.op.name().into(),
                        size(r.op, r.bytes),
                        r.nprocs.to_string(),
                        r.delay_model.clone(),
                        r.n.to_string(),
                        format!("{:.1}", r.span_s),
                        format!("{:.3}", r.slope * 1e6),
                        us(r.first_median_s),
                        us(r.last_median_s),
                    ]
                })
                .collect();
            let headers = [
                "op",
                "size",
                "P",
                "delay",
                "n",
                "span (s)",
                "trend (us/s)",
                "first 10% med (us)",
                "last 10% med (us)",
            ];
            write_plain_table(&headers, cells, out)
        }
    }
}
