//! Barrier exit skew rows (`delaybench skew`) as a table, CSV or JSON.

use super::write_table;
use super::{ExportError, Format};
use serde::Serialize;
use std::io::Write;

/// Exit time of one rank relative to the first rank to leave a barrier (Hunold and Carpen-Amarie 2015, Figure 4).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkewRow {
    /// `mpi_barrier` or `dissemination`.
    pub barrier: String,
    /// P, the number of processes.
    pub nprocs: u32,
    pub rank: u32,
    /// Mean exit time after the first rank's, seconds.
    pub mean_s: f64,
    /// Half-width of the 95 % confidence interval of the mean, seconds.
    pub ci95_s: f64,
    /// Largest exit time after the first rank's, seconds.
    pub max_s: f64,
    /// Valid repetitions used.
    pub n: u32,
}

const HEADERS: [&str; 7] = [
    "barrier",
    "P",
    "rank",
    "mean (us)",
    "±95% (us)",
    "max (us)",
    "n",
];

/// Writes skew rows in `format` (table: microseconds).
pub fn write_skew(
    rows: &[SkewRow],
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let us = |s: f64| format!("{:.2}", s * 1e6);
    let cells = |r: &SkewRow| {
        vec![
            r.barrier.clone(),
            r.nprocs.to_string(),
            r.rank.to_string(),
            us(r.mean_s),
            us(r.ci95_s),
            us(r.max_s),
            r.n.to_string(),
        ]
    };
    write_table(rows, format, &HEADERS, cells, out)
}
