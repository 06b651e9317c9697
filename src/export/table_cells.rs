//! The text cells several tables share: the cells that name a configuration (op, size,
//! delay), a time in microseconds, a fraction in percent, and a value with its interval. One
//! definition each, so that a configuration or an interval reads alike in the wide and the
//! narrow summary and in `compare`.

use crate::analysis::ConfigStats;
use crate::plan::Op;
use crate::timeline::Configuration;
use crate::units::{format_bytes, format_duration};

/// A table as text for a page that lays it out itself (the HTML pages): what the terminal
/// prints, as data.
#[derive(Debug, Clone, PartialEq)]
pub struct TextTable {
    /// Column headers; a line break separates a header's name from its unit.
    pub headers: Vec<String>,
    /// One row of cells (one per header), in the terminal's order.
    pub rows: Vec<Vec<String>>,
    /// The notes' lines under the table, as the terminal prints them (leading spaces of a
    /// continued line trimmed): joined by a space they make one paragraph.
    pub notes: Vec<String>,
}

impl TextTable {
    /// The table of `rows` under `headers`, each row's cells by `cells`, without notes.
    pub fn of<T, H: ToString>(
        rows: &[T],
        headers: &[H],
        cells: impl Fn(&T) -> Vec<String>,
    ) -> Self {
        TextTable {
            headers: headers.iter().map(ToString::to_string).collect(),
            rows: rows.iter().map(cells).collect(),
            notes: Vec::new(),
        }
    }
}

/// The op's name, with the algorithm a run that swept algorithms (`--algorithms`) measured
/// it with: `allreduce [ring]`; the bare name when `algorithm` is empty.
pub(super) fn op_cell(op: Op, algorithm: &str) -> String {
    if algorithm.is_empty() {
        op.name().to_string()
    } else {
        format!("{} [{algorithm}]", op.name())
    }
}

/// The message size (`1KiB`), or `-` for an op without a payload (a barrier).
pub(super) fn size_cell(op: Op, bytes: u64) -> String {
    if op.has_payload() {
        format_bytes(bytes)
    } else {
        "-".into()
    }
}

/// A row's delay: `0` for the baseline ("0s" would read like a measured duration; the
/// baseline has no delay at all), the delay model's label when it has one (`exp:20us`),
/// else the fixed delay (`50us`).
pub(super) fn delay_cell(r: &ConfigStats) -> String {
    if r.is_baseline() {
        "0".into()
    } else if r.delay_model.is_empty() {
        format_duration(r.delay_s)
    } else {
        r.delay_model.clone()
    }
}

/// Seconds as microseconds with two decimals, or `-`.
pub(super) fn us(s: Option<f64>) -> String {
    s.map_or_else(|| "-".into(), |s| format!("{:.2}", s * 1e6))
}

/// A fraction as percent with one decimal, or `-`.
pub(super) fn percent(b: Option<f64>) -> String {
    b.map_or_else(|| "-".into(), |b| format!("{:.1}", b * 100.0))
}

/// `value [lo, hi]`, each written by `f`; just the value when either end of the interval is
/// missing; `-` without a value.
pub(super) fn with_ci(
    v: Option<f64>,
    lo: Option<f64>,
    hi: Option<f64>,
    f: fn(Option<f64>) -> String,
) -> String {
    match (v, lo, hi) {
        (None, ..) => "-".into(),
        (v, Some(lo), Some(hi)) => format!("{} [{}, {}]", f(v), f(Some(lo)), f(Some(hi))),
        (v, ..) => f(v),
    }
}
