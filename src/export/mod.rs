//! Exporters: the per-configuration summary as a terminal table, CSV, TSV, JSON or Markdown
//! (`delaybench analyze`), one row per (block, repetition, rank) as CSV, JSON or JSON Lines
//! (`delaybench export`), and the tables of the other commands. Plain Rust over
//! [`crate::analysis`] and [`crate::records`], no MPI.
//!
//! Every output format is one [`RowExporter`] (after hyperfine's exporters, Peter 2018), chosen by
//! the one [`Format`] enum of every command; the table-like formats share one renderer
//! ([`MarkupExporter`]). Adding a format is one file in `formats/` and its registry line.
//!
//! Machine-readable outputs (CSV, JSON) keep seconds as full-precision f64 written in the
//! shortest form that parses back to the same value, so a re-analysis from an export gives the
//! same numbers as one from the records file.

mod analysis_tables;
mod arrivals;
mod capture_compare;
mod cells;
mod clocksync;
mod compare;
mod exporter;
mod formats;
mod nbc_tables;
mod noise;
mod rank_rows;
mod rep_rows;
mod row_stream;
mod run_columns;
mod skew;
#[cfg(test)]
mod summary_csv;
mod summary_json;
mod summary_markdown;
mod summary_narrow;
mod summary_table;
#[cfg(test)]
mod summary_tsv;
mod table_cells;

pub use analysis_tables::{
    distribution_table, write_distribution, write_placement, write_trend, write_truth,
};
pub use arrivals::{call_rows, causes_table, write_arrivals, ArrivalsRows, CallRow};
pub use capture_compare::{capture_compare_table, write_capture_compare};
pub use cells::Cell;
pub use clocksync::{read_clocksync_csv, write_clocksync, write_simulated, ClockSyncRow};
pub use compare::{compare_table, write_compare};
pub use exporter::{
    write_rows, write_serde_rows, write_table, JsonLayout, MarkupExporter, Row, RowExporter,
    RowSink, RowsSpec,
};
pub use formats::{
    write_archive, write_capture_archive, write_markdown_table, write_plain_table,
    write_plain_table_within, ArchiveSummary, Choices, Csv, Delimited, Format, FormatParser, Json,
    JsonLines, Markdown, Table, Tsv, ALGORITHMS, ANALYSES, ARRIVALS, EXPORTS, INFO, TABLES,
};
pub use nbc_tables::{write_overlap, write_schemes, write_timing};
pub use noise::{noise_table, write_noise_detours, write_noise_report, DetourRow};
pub use rank_rows::{
    flag_words, iter_rank_rows, rank_rows, run_id, run_id_of, RankRow, EXPORT_SCHEMA_VERSION,
};
pub use rep_rows::{rep_rows, RepRow};
pub use row_stream::write_rows_streamed;
pub use run_columns::{with_run_columns, RUN_COLUMNS};
pub use skew::{write_skew, SkewRow};
pub use summary_narrow::{headline, headline_markdown, output_width, wrap, Headline, MIN_WIDTH};
pub use table_cells::TextTable;

use crate::analysis::Analysis;
use std::io::Write;
use thiserror::Error;

/// Column names of the `analyze` CSV, in order; the JSON row objects have the same keys.
///
/// They are the field names of [`crate::analysis::ConfigStats`] (schema
/// [`crate::analysis::ANALYZE_SCHEMA_VERSION`], documented in `docs/exports.md`): seconds in
/// `*_s` columns, bytes in `bytes`, benefits and `benefit_of_ceiling` as fractions (1 = 100 %),
/// `true`/`false` flags, empty cell / `null` for `None`.
pub const SUMMARY_COLUMNS: [&str; 64] = [
    "schema_version",
    "run_id",
    "mpi_library",
    "host_names",
    "tags",
    "op",
    "bytes",
    "nprocs",
    "hosts",
    "algorithm",
    "delay_model",
    "delay_s",
    "launches",
    "valid",
    "total",
    "valid0",
    "total0",
    "few_valid",
    "t_global_min_s",
    "t_global_q1_s",
    "t_global_median_s",
    "t_global_q3_s",
    "t_global_max_s",
    "t_global_mean_s",
    "t_global_iqm_s",
    "t_global_std_s",
    "t_global_median_ci_lo_s",
    "t_global_median_ci_hi_s",
    "outliers_low",
    "outliers_high",
    "outliers_severe",
    "t0_min_s",
    "t0_median_s",
    "t0_median_ci_lo_s",
    "t0_median_ci_hi_s",
    "cost_median_s",
    "cost_median_ci_lo_s",
    "cost_median_ci_hi_s",
    "benefit_min",
    "benefit_median",
    "benefit_median_ci_lo",
    "benefit_median_ci_hi",
    "benefit_p",
    "benefit_significant",
    "verdict",
    "benefit_ceiling",
    "benefit_of_ceiling",
    "launch_median_min_s",
    "launch_median_max_s",
    "launch_median_cv",
    "benefit_launch_min",
    "benefit_launch_max",
    "launches_disagree",
    "benefit_ceiling_min",
    "above_ceiling",
    "benefit_na",
    "bound_s",
    "model_bound_s",
    "above_bound_s",
    "above_bound_ratio",
    "min_above_bound_s",
    "above_model_bound_s",
    "above_model_bound_ratio",
    "beat_model_bound_reps",
];

/// Column names of the per-rank CSV, in order; the JSON objects have the same keys.
/// They are the field names of [`RankRow`].
pub const RANK_COLUMNS: [&str; 23] = [
    "schema_version",
    "run_id",
    "mpi_library",
    "tags",
    "op",
    "bytes",
    "nprocs",
    "algorithm",
    "delay_model",
    "delay_s",
    "rep",
    "rank",
    "host",
    "delayed",
    "applied_delay_s",
    "scheduled_start_s",
    "t_start_local_s",
    "t_end_local_s",
    "t_start_global_s",
    "t_end_global_s",
    "valid",
    "invalid_reason",
    "rank_flags",
];

/// Column names of the per-repetition CSV, in order; the JSON objects have the same keys.
/// They are the field names of [`RepRow`].
pub const REP_COLUMNS: [&str; 20] = [
    "schema_version",
    "run_id",
    "mpi_library",
    "host_names",
    "tags",
    "op",
    "bytes",
    "nprocs",
    "algorithm",
    "delay_model",
    "delay_s",
    "rep",
    "scheduled_start_s",
    "first_start_global_s",
    "last_end_global_s",
    "t_global_s",
    "max_applied_delay_s",
    "delay_spread_s",
    "valid",
    "invalid_reason",
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
    /// A CSV file could not be read (missing, unreadable, or not the expected columns).
    #[error("cannot read the CSV file: {0}")]
    ReadCsv(#[source] csv::Error),
    /// The JSON serializer failed (usually an I/O error underneath).
    #[error("cannot write the JSON export: {0}")]
    Json(#[from] serde_json::Error),
    /// The records file being exported block by block could not be read (damaged, not a
    /// records file, an I/O error); the message is the reader's.
    #[error(transparent)]
    Records(#[from] crate::records::RecordsError),
    /// The OTF2 archive could not be written (the library refused, or this build has no
    /// OTF2: the message says what to install).
    #[error("cannot write the OTF2 archive {}: {what}", path.display())]
    Otf2 {
        /// The archive's directory.
        path: std::path::PathBuf,
        /// What went wrong.
        what: String,
    },
}

/// Writes the summary of `analysis` (one row per measured configuration, from
/// [`crate::analysis::analyze`]) in `format` ([`RowExporter::write_summary`]).
///
/// Errors: [`ExportError`] when writing fails.
pub fn write_summary(
    analysis: &Analysis,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    format.exporter().write_summary(analysis, out)
}

/// The summary table with every column (`analyze --wide`): the table that
/// [`write_summary`] printed for [`Format::Table`] before the narrow one became the default.
///
/// Errors: [`ExportError::Io`] when writing fails.
pub fn write_summary_wide(analysis: &Analysis, out: &mut dyn Write) -> Result<(), ExportError> {
    summary_table::write_summary_table(analysis, out)
}

/// What one exported row stands for (`delaybench export --rows`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ExportRows {
    /// One row per (block, repetition, rank): local and global start and end times.
    #[default]
    Rank,
    /// One row per (block, repetition): t_global and the repetition's delays.
    Rep,
}

#[cfg(test)]
pub(crate) mod test_support {
    use crate::plan::Op;
    use crate::records::{testdata, Records};

    /// Allreduce 8 B at P = 2 (baseline and 50 us late), barrier at P = 4 (baseline), and an
    /// iallreduce 1 KiB block whose baseline is missing, so its t0 and benefit are `None`.
    pub fn records() -> Records {
        testdata::records(
            4,
            vec![
                testdata::block(Op::Allreduce, 8, 2, 0.0, 5, 10e-6),
                testdata::block(Op::Allreduce, 8, 2, 50e-6, 5, 10e-6),
                testdata::block(Op::Barrier, 0, 4, 0.0, 3, 3e-6),
                testdata::block(Op::Iallreduce, 1024, 4, 50e-6, 4, 20e-6),
            ],
        )
    }

    /// Every value of `"key":` in JSON `text`, in order, read with Rust's own (correctly
    /// rounded) f64 parser; `null` is `None`. Cargo.toml enables serde_json's `float_roundtrip`
    /// feature, so its reader would round correctly too; parsing the text directly keeps the
    /// check that the written text is exact independent of the library that wrote it.
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

    /// The analysis of [`records`] as `delaybench analyze test.cbor` gives it.
    pub fn analysis() -> crate::analysis::Analysis {
        let files = ["test.cbor".to_string()];
        crate::analysis::analyze(&files, &[records()], Default::default()).unwrap()
    }

    /// The `rows` export of `r` in `format`, through the streaming path the command uses.
    pub fn streamed(r: &Records, rows: super::ExportRows, format: super::Format) -> String {
        let run = crate::records::RunLabel::of(&r.header);
        let blocks = r.blocks.iter().map(Ok::<_, crate::records::RecordsError>);
        text(|buf| super::write_rows_streamed(&run, blocks, rows, format, buf))
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
    use super::test_support::{analysis, records, streamed, text};
    use super::*;
    use crate::records::RunLabel;
    use clap::ValueEnum;

    #[test]
    fn every_format_has_an_exporter_that_writes() {
        let a = analysis();
        for (format, _) in TABLES.formats {
            let out = text(|buf| write_summary(&a, *format, buf));
            assert!(out.contains("allreduce"), "{format:?}: {out}");
        }
    }

    #[test]
    fn cli_names_are_lowercase() {
        let name = |f: Format| f.to_possible_value().unwrap().get_name().to_string();
        assert_eq!(name(Format::Table), "table");
        assert_eq!(name(Format::Csv), "csv");
        assert_eq!(name(Format::Tsv), "tsv");
        assert_eq!(name(Format::Json), "json");
        assert_eq!(name(Format::Jsonl), "jsonl");
        assert_eq!(name(Format::Markdown), "markdown");
        assert_eq!(Format::from_str("json", false), Ok(Format::Json));
    }

    #[test]
    fn json_lines_are_each_one_json_object() {
        let r = records();
        let out = streamed(&r, ExportRows::Rank, Format::Jsonl);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), rank_rows(&r).len());
        for line in &lines {
            let v: serde_json::Value = serde_json::from_str(line).expect("a JSON object");
            assert_eq!(v["schema_version"], EXPORT_SCHEMA_VERSION, "{line}");
            let keys = v.as_object().unwrap().len();
            assert_eq!(keys, RANK_COLUMNS.len(), "{line}");
        }
        // The same rows as the JSON document, object for object.
        let doc: Vec<serde_json::Value> =
            serde_json::from_str(&streamed(&r, ExportRows::Rank, Format::Json)).unwrap();
        let each: Vec<serde_json::Value> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(doc, each);
        let mut none = records();
        none.blocks.clear();
        assert_eq!(streamed(&none, ExportRows::Rank, Format::Jsonl), "");
    }

    #[test]
    fn rank_rows_dispatch_by_format() {
        let r = records();
        let csv = streamed(&r, ExportRows::Rank, Format::Csv);
        assert!(csv.starts_with("schema_version,run_id,mpi_library,tags,op,bytes,"));
        let json = streamed(&r, ExportRows::Rank, Format::Json);
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
        let a = analysis();
        for (format, _) in TABLES.formats {
            let e = write_summary(&a, *format, &mut Broken);
            let message = e.expect_err("a broken output must fail").to_string();
            assert!(message.contains("disk full"), "{format:?}: {message}");
        }
        let run = RunLabel::of(&r.header);
        for (format, _) in EXPORTS.formats {
            let blocks = r.blocks.iter().map(Ok::<_, crate::records::RecordsError>);
            let e = write_rows_streamed(&run, blocks, ExportRows::Rank, *format, &mut Broken);
            let message = e.expect_err("a broken output must fail").to_string();
            // A build without the Parquet writer refuses before writing a byte,
            // and says which feature is missing; OTF2 writes archives, never rows, and
            // says so (or, without its feature, what to install); every other format meets
            // the disk.
            let expected = if !cfg!(feature = "parquet") && message.contains("Parquet") {
                "--features parquet"
            } else if *format == Format::Otf2 {
                "otf2"
            } else {
                "disk full"
            };
            assert!(message.contains(expected), "{format:?}: {message}");
        }
    }

    #[test]
    fn errors_say_what_failed() {
        let e = ExportError::from(std::io::Error::other("disk full"));
        assert_eq!(e.to_string(), "cannot write the export: disk full");
    }
}
