//! Clock synchronisation evaluation rows (`delaybench clocksync`): table, CSV, and reading the
//! CSV back for `delaybench plot`.

use super::write_table;
use super::{ExportError, Format};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

/// Clock error of one method at one P after one wait (Hunold and Carpen-Amarie 2015, §7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockSyncRow {
    /// Method name (`offset`, `hca`, ...).
    pub method: String,
    /// P, the number of processes.
    pub nprocs: u32,
    /// Wall time of the synchronisation on rank 0, seconds.
    pub sync_s: f64,
    /// Time between the end of the synchronisation and the measurement, seconds.
    pub wait_s: f64,
    /// Largest |offset| between rank 0's global clock and any rank's, measured by fresh
    /// min-RTT ping-pongs, seconds (includes the measurement's own error, up to RTT/2).
    pub max_error_s: f64,
    /// Largest |error| of any rank's global clock against the emulated truth, seconds
    /// (only with `--emulate-clock`).
    pub max_true_error_s: Option<f64>,
}

const HEADERS: [&str; 6] = [
    "method",
    "P",
    "sync (ms)",
    "wait (s)",
    "max |error| (us)",
    "max |true error| (us)",
];

/// Writes rows in `format` (table: sync in ms, errors in microseconds).
pub fn write_clocksync(
    rows: &[ClockSyncRow],
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let cells = |r: &ClockSyncRow| {
        vec![
            r.method.clone(),
            r.nprocs.to_string(),
            format!("{:.1}", r.sync_s * 1e3),
            format!("{:.0}", r.wait_s),
            format!("{:.2}", r.max_error_s * 1e6),
            r.max_true_error_s
                .map_or_else(|| "-".into(), |e| format!("{:.2}", e * 1e6)),
        ]
    };
    write_table(rows, format, &HEADERS, cells, out)
}

const SIMULATED_HEADERS: [&str; 9] = [
    "method",
    "P",
    "seeds",
    "sync (ms)",
    "wait (s)",
    "max |error| median (us)",
    "min (us)",
    "max (us)",
    "wall per run (s)",
];

/// Writes the rows of `clocksync --simulate` in `format` (table: sync in ms, errors in
/// microseconds: per seed the largest |error| over the ranks, then median, smallest and
/// largest over the seeds).
pub fn write_simulated(
    rows: &[crate::clock::scaling::ScalingRow],
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let cells = |r: &crate::clock::scaling::ScalingRow| {
        vec![
            r.method.clone(),
            r.nprocs.to_string(),
            r.seeds.to_string(),
            format!("{:.1}", r.sync_s * 1e3),
            format!("{}", r.wait_s),
            format!("{:.3}", r.error_median_s * 1e6),
            format!("{:.3}", r.error_min_s * 1e6),
            format!("{:.3}", r.error_max_s * 1e6),
            format!("{:.2}", r.wall_s),
        ]
    };
    write_table(rows, format, &SIMULATED_HEADERS, cells, out)
}

/// Reads a CSV written by [`write_clocksync`]. Errors: [`ExportError::ReadCsv`].
pub fn read_clocksync_csv(path: &Path) -> Result<Vec<ClockSyncRow>, ExportError> {
    let mut reader = csv::Reader::from_path(path).map_err(ExportError::ReadCsv)?;
    reader
        .deserialize()
        .collect::<Result<_, _>>()
        .map_err(ExportError::ReadCsv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trips() {
        let rows = vec![
            ClockSyncRow {
                method: "hca".into(),
                nprocs: 4,
                sync_s: 0.8,
                wait_s: 10.0,
                max_error_s: 1.5e-6,
                max_true_error_s: Some(1.2e-6),
            },
            ClockSyncRow {
                method: "offset".into(),
                nprocs: 2,
                sync_s: 0.001,
                wait_s: 0.0,
                max_error_s: 3e-7,
                max_true_error_s: None,
            },
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.csv");
        let mut f = std::fs::File::create(&path).unwrap();
        write_clocksync(&rows, Format::Csv, &mut f).unwrap();
        assert_eq!(read_clocksync_csv(&path).unwrap(), rows);
        let mut table = Vec::new();
        write_clocksync(&rows, Format::Table, &mut table).unwrap();
        let text = String::from_utf8(table).unwrap();
        assert!(text.contains("hca") && text.contains("1.50") && text.contains("800.0"));
    }
}
