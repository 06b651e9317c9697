//! `analyze --distribution`, `--trend`, `--truth` and `--placement` as a table, CSV or JSON.

use super::table_cells::{size_cell, TextTable};
use super::write_table;
use super::{ExportError, Format};
use crate::analysis::{DistributionRow, PlacementRow, TrendRow, TruthRow};
use crate::plan::Op;
use std::io::Write;

const DISTRIBUTION_HEADERS: [&str; 12] = [
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

const TREND_HEADERS: [&str; 9] = [
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

const TRUTH_HEADERS: [&str; 10] = [
    "op",
    "size",
    "P",
    "delay",
    "tenth",
    "valid reps",
    "true start spread med (us)",
    "true start spread p95 (us)",
    "global clock error med (us)",
    "global clock error p95 (us)",
];

const PLACEMENT_HEADERS: [&str; 14] = [
    "op",
    "size",
    "P",
    "delay",
    "launch",
    "valid",
    "t_global med (us)",
    "CPUs",
    "SMT siblings",
    "send page offset (B)",
    "recv page offset (B)",
    "send huge",
    "recv huge",
    "separated by",
];

/// Writes `analyze --placement` rows (table: microseconds; the launch by its place among
/// the files, CSV and JSON also by its run id).
pub fn write_placement(
    rows: &[PlacementRow],
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let cells = |r: &PlacementRow| {
        let mut c = key(r.op, r.bytes, r.nprocs, &r.delay_model);
        c.extend([
            r.launch.to_string(),
            r.valid.to_string(),
            format!("{:.2}", r.t_global_median_s * 1e6),
            r.cpus.clone(),
            r.smt_siblings.clone(),
            r.send_page_offsets.clone(),
            r.recv_page_offsets.clone(),
            r.send_huge.clone(),
            r.recv_huge.clone(),
            r.separated_by.clone(),
        ]);
        c
    };
    write_table(rows, format, &PLACEMENT_HEADERS, cells, out)
}

/// Writes `analyze --truth` rows (table: microseconds).
pub fn write_truth(
    rows: &[TruthRow],
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let cells = |r: &TruthRow| {
        let mut c = key(r.op, r.bytes, r.nprocs, &r.delay_model);
        c.extend([
            r.tenth.to_string(),
            r.reps.to_string(),
            format!("{:.3}", r.median_s * 1e6),
            format!("{:.3}", r.p95_s * 1e6),
            format!("{:.3}", r.clock_error_median_s * 1e6),
            format!("{:.3}", r.clock_error_p95_s * 1e6),
        ]);
        c
    };
    write_table(rows, format, &TRUTH_HEADERS, cells, out)
}

/// The identifying cells of a row: op, size, P, delay model.
fn key(op: Op, bytes: u64, nprocs: u32, delay_model: &str) -> Vec<String> {
    let size = size_cell(op, bytes);
    vec![
        op.name().into(),
        size,
        nprocs.to_string(),
        delay_model.into(),
    ]
}

/// One distribution row's cells: benefits in percent, `-` where a metric does not apply.
fn distribution_cells(r: &DistributionRow) -> Vec<String> {
    let pc = |b: f64| format!("{:.1}", b * 100.0);
    let opt = |v: Option<f64>| v.map_or_else(|| "-".into(), |v| format!("{v:.2}"));
    let mut c = key(r.op, r.bytes, r.nprocs, &r.delay_model);
    c.push(r.n.to_string());
    c.extend(
        [
            r.benefit_p5,
            r.benefit_p25,
            r.benefit_median,
            r.benefit_p75,
            r.benefit_p95,
        ]
        .map(pc),
    );
    c.extend([opt(r.amplification), opt(r.wait_for_slowest)]);
    c
}

/// What the distribution table's metrics are, one line each.
const DISTRIBUTION_NOTES: [&str; 5] = [
    "b: per-repetition delay overlap benefit, delaybench's own extension of",
    "Niethammer et al. 2016, eq. 5.",
    "noise ampl.: delaybench's own, for noise blocks (every rank delayed) only.",
    "Both are defined in the project's metrics documentation; b also in",
    "delaybench-metrics(7).",
];

/// Writes distribution rows (table: benefits in percent, then a note that both metrics are
/// delaybench's own; noise amplification `-` for blocks that are not noise blocks).
pub fn write_distribution(
    rows: &[DistributionRow],
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    write_table(rows, format, &DISTRIBUTION_HEADERS, distribution_cells, out)?;
    if format == Format::Table {
        for line in DISTRIBUTION_NOTES {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// The distribution table as the terminal prints it, for the run's page.
pub fn distribution_table(rows: &[DistributionRow]) -> TextTable {
    TextTable {
        notes: DISTRIBUTION_NOTES.iter().map(|l| l.to_string()).collect(),
        ..TextTable::of(rows, &DISTRIBUTION_HEADERS, distribution_cells)
    }
}

/// Writes trend rows (table: microseconds, and microseconds per second of run).
pub fn write_trend(
    rows: &[TrendRow],
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let us = |s: f64| format!("{:.2}", s * 1e6);
    let cells = |r: &TrendRow| {
        let mut c = key(r.op, r.bytes, r.nprocs, &r.delay_model);
        c.extend([
            r.n.to_string(),
            format!("{:.1}", r.span_s),
            format!("{:.3}", r.slope * 1e6),
            us(r.first_median_s),
            us(r.last_median_s),
        ]);
        c
    };
    write_table(rows, format, &TREND_HEADERS, cells, out)
}
