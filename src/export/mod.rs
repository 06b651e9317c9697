//! Exporters: the per-configuration summary as a terminal table, CSV or JSON
//! (`delaybench analyze`), and one row per (block, repetition, rank) as CSV or JSON
//! (`delaybench export`). Plain Rust over [`crate::analysis`] and [`crate::records`], no MPI.
//!
//! Summary exporters sit behind one trait, [`SummaryExporter`], chosen by [`SummaryFormat`]
//! (hyperfine's exporters are the model): adding a format touches one file and one match arm.
//!
//! Machine-readable outputs (CSV, JSON) keep seconds as full-precision f64 written in the
//! shortest form that parses back to the same value, so a re-analysis from an export gives the
//! same numbers as one from the records file.

mod analysis_tables;
mod clocksync;
mod plain;
mod rank_csv;
mod rank_json;
mod rank_rows;
mod skew;
mod summary_csv;
mod summary_json;
mod summary_table;

pub use analysis_tables::{write_distribution, write_trend, write_truth};
pub use clocksync::{read_clocksync_csv, write_clocksync, write_simulated, ClockSyncRow};
pub use plain::{write_csv_rows, write_json_rows, write_plain_table};
pub use rank_csv::write_rank_csv;
pub use rank_json::write_rank_json;
pub use rank_rows::{iter_rank_rows, rank_rows, RankRow};
pub use skew::{write_skew, SkewRow};
pub use summary_csv::SummaryCsv;
pub use summary_json::SummaryJson;
pub use summary_table::SummaryTable;

use crate::analysis::SummaryRow;
use crate::records::Records;
use std::io::Write;
use thiserror::Error;

/// Column names of the summary CSV, in order; the JSON objects have the same keys.
///
/// They are the field names of [`SummaryRow`]: seconds in `*_s` columns, bytes in `bytes`,
/// `benefit_*` as a fraction (1 = delay fully hidden), empty cell / `null` for `None`.
pub const SUMMARY_COLUMNS: [&str; 12] = [
    "op",
    "bytes",
    "nprocs",
    "delay_s",
    "valid",
    "total",
    "t_global_min_s",
    "t_global_median_s",
    "t0_min_s",
    "t0_median_s",
    "benefit_min",
    "benefit_median",
];

/// Column names of the per-rank CSV, in order; the JSON objects have the same keys.
/// They are the field names of [`RankRow`].
pub const RANK_COLUMNS: [&str; 13] = [
    "op",
    "bytes",
    "nprocs",
    "delay_s",
    "rep",
    "rank",
    "delayed",
    "applied_delay_s",
    "t_start_local_s",
    "t_end_local_s",
    "t_start_global_s",
    "t_end_global_s",
    "valid",
];

/// Why an export could not be written.
#[derive(Debug, Error)]
pub enum ExportError {
    /// Writing to the output (file or standard output) failed.
    #[error("cannot write the export: {0}")]
    Io(#[from] std::io::Error),
    /// The CSV writer failed (usually an I/O error underneath).
    #[error("cannot write the CSV export: {0}")]
    Csv(#[from] csv::Error),
    /// The JSON serializer failed (usually an I/O error underneath).
    #[error("cannot write the JSON export: {0}")]
    Json(#[from] serde_json::Error),
}

/// Writes summary rows (one per measured configuration, from
/// [`crate::analysis::summarize`]) in one output format.
pub trait SummaryExporter {
    /// Writes all of `rows`, in order, to `out`, and flushes what it buffered itself.
    /// An empty slice still gives a well-formed output (header only, or `[]`).
    ///
    /// Errors: [`ExportError`] when writing fails.
    fn write(&self, rows: &[SummaryRow], out: &mut dyn Write) -> Result<(), ExportError>;
}

/// Output format of the summary (`delaybench analyze --format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SummaryFormat {
    /// Human-readable table: times in microseconds, benefit in percent.
    #[default]
    Table,
    /// CSV with one row per configuration; times in seconds, full precision.
    Csv,
    /// JSON array of row objects; times in seconds, full precision.
    Json,
}

/// The exporter for `format`.
pub fn summary_exporter(format: SummaryFormat) -> Box<dyn SummaryExporter> {
    match format {
        SummaryFormat::Table => Box::new(SummaryTable),
        SummaryFormat::Csv => Box::new(SummaryCsv),
        SummaryFormat::Json => Box::new(SummaryJson),
    }
}

/// Output format of the per-rank export (`delaybench export --format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum RankFormat {
    /// CSV with one row per (block, repetition, rank); times in seconds, full precision.
    #[default]
    Csv,
    /// JSON array with one object per (block, repetition, rank), one object per line.
    Json,
}

/// Writes one row per (block, repetition, rank) of `records` to `out` in `format`
/// (see [`write_rank_csv`], [`write_rank_json`]).
///
/// Errors: [`ExportError`] when writing fails.
pub fn write_rank_rows(
    records: &Records,
    format: RankFormat,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    match format {
        RankFormat::Csv => write_rank_csv(records, out),
        RankFormat::Json => write_rank_json(records, out),
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use crate::plan::Op;
    use crate::records::{testdata, Records};

    /// Allreduce 8 B at P = 2 (baseline and 50 us late), barrier at P = 4 (baseline), and an
    /// iallreduce 1 KiB block whose baseline is missing, so its t0 and benefit are `None`.
    pub fn records() -> Records {
        Records {
            header: testdata::header(4),
            blocks: vec![
                testdata::block(Op::Allreduce, 8, 2, 0.0, 5, 10e-6),
                testdata::block(Op::Allreduce, 8, 2, 50e-6, 5, 10e-6),
                testdata::block(Op::Barrier, 0, 4, 0.0, 3, 3e-6),
                testdata::block(Op::Iallreduce, 1024, 4, 50e-6, 4, 20e-6),
            ],
            footer: None,
            truncated: false,
        }
    }

    /// Every value of `"key":` in JSON `text`, in order, read with Rust's own (correctly
    /// rounded) f64 parser; `null` is `None`. serde_json's reader, as this crate builds it
    /// (without the `float_roundtrip` feature), may be 1 ULP off, so it cannot show that the
    /// written text is exact.
    pub fn json_numbers(text: &str, key: &str) -> Vec<Option<f64>> {
        let tag = format!("\"{key}\":");
        text.match_indices(&tag)
            .map(|(at, _)| {
                let rest = &text[at + tag.len()..];
                let value = rest[..rest.find([',', '}', '\n']).unwrap()].trim();
                (value != "null").then(|| value.parse().expect("a JSON number"))
            })
            .collect()
    }

    /// Writes into a byte buffer and returns it as text.
    pub fn text(f: impl FnOnce(&mut Vec<u8>) -> Result<(), super::ExportError>) -> String {
        let mut buf = Vec::new();
        f(&mut buf).expect("export into memory");
        String::from_utf8(buf).expect("exports are UTF-8")
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::{records, text};
    use super::*;
    use crate::analysis::summarize;
    use clap::ValueEnum;

    #[test]
    fn every_format_has_an_exporter_that_writes() {
        let rows = summarize(&records());
        for format in SummaryFormat::value_variants() {
            let out = text(|buf| summary_exporter(*format).write(&rows, buf));
            assert!(out.contains("allreduce"), "{format:?}: {out}");
        }
    }

    #[test]
    fn cli_names_are_lowercase() {
        let name = |f: SummaryFormat| f.to_possible_value().unwrap().get_name().to_string();
        assert_eq!(name(SummaryFormat::Table), "table");
        assert_eq!(name(SummaryFormat::Csv), "csv");
        assert_eq!(name(SummaryFormat::Json), "json");
        assert_eq!(RankFormat::from_str("json", false), Ok(RankFormat::Json));
    }

    #[test]
    fn rank_rows_dispatch_by_format() {
        let r = records();
        let csv = text(|buf| write_rank_rows(&r, RankFormat::Csv, buf));
        assert!(csv.starts_with("op,bytes,"));
        let json = text(|buf| write_rank_rows(&r, RankFormat::Json, buf));
        assert!(json.starts_with('['));
    }

    /// An output that always fails, like a full disk or a closed pipe.
    struct Broken;

    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Err(std::io::Error::other("disk full"))
        }
    }

    #[test]
    fn write_failures_are_errors_not_panics() {
        let r = records();
        let rows = summarize(&r);
        for format in SummaryFormat::value_variants() {
            let e = summary_exporter(*format).write(&rows, &mut Broken);
            let message = e.expect_err("a broken output must fail").to_string();
            assert!(message.contains("disk full"), "{format:?}: {message}");
        }
        for format in RankFormat::value_variants() {
            let e = write_rank_rows(&r, *format, &mut Broken);
            let message = e.expect_err("a broken output must fail").to_string();
            assert!(message.contains("disk full"), "{format:?}: {message}");
        }
    }

    #[test]
    fn errors_say_what_failed() {
        let e = ExportError::from(std::io::Error::other("disk full"));
        assert_eq!(e.to_string(), "cannot write the export: disk full");
    }
}
