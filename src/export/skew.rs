//! Barrier exit skew rows (`delaybench skew`) as a table, CSV or JSON.

use super::plain::{write_csv_rows, write_json_rows, write_plain_table};
use super::{ExportError, SummaryFormat};
use serde::Serialize;
use std::io::Write;

/// Exit time of one rank relative to the first rank to leave a barrier (004 Figure 4).
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

/// Writes skew rows in `format` (table: microseconds).
pub fn write_skew(
    rows: &[SkewRow],
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
                        r.barrier.clone(),
                        r.nprocs.to_string(),
                        r.rank.to_string(),
                        us(r.mean_s),
                        us(r.ci95_s),
                        us(r.max_s),
                        r.n.to_string(),
                    ]
                })
                .collect();
            let headers = [
                "barrier",
                "P",
                "rank",
                "mean (us)",
                "±95% (us)",
                "max (us)",
                "n",
            ];
            write_plain_table(&headers, cells, out)
        }
    }
}
