//! The output formats: one enum for every command that writes rows or tables, and the
//! registry that gives each format its exporter. A new format is one file here (its
//! [`RowExporter`], or [`super::MarkupExporter`] for a table for reading) plus its `mod`
//! line and its entry in the `formats!` registry below; the commands that should offer it
//! list it in their [`Choices`] ([`TABLES`] and the others), the one place where a command's
//! formats are named.

mod csv_rows;
mod json_rows;
mod jsonl_rows;
mod markdown;
#[cfg_attr(not(feature = "otf2"), path = "otf2_off.rs")]
mod otf2_archive;
#[cfg_attr(not(feature = "parquet"), path = "parquet_off.rs")]
mod parquet_rows;
mod table;
mod tsv_rows;

pub use csv_rows::{Csv, Delimited, CSV};
pub use json_rows::Json;
pub use jsonl_rows::JsonLines;
pub use markdown::{write_markdown_table, Markdown};
pub use otf2_archive::{write_archive, write_capture_archive, OTF2};
pub use parquet_rows::PARQUET;
pub use table::{write_plain_table, write_plain_table_within, Table};
pub use tsv_rows::{Tsv, TSV};

use super::RowExporter;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::ValueEnum;

/// Declares [`Format`] (each variant with its doc comment, its `--help` line) and
/// [`Format::exporter`] from one list, so a format cannot be half registered.
macro_rules! formats {
    ($($(#[doc = $doc:literal])* $variant:ident => $exporter:expr,)*) => {
        /// Output format (`--format` of every command that writes rows or tables). Each command
        /// accepts the subset it can write ([`Format::parser`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
        pub enum Format {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Format {
            /// The exporter of this format.
            pub fn exporter(self) -> &'static dyn RowExporter {
                match self {
                    $(Format::$variant => $exporter,)*
                }
            }
        }
    };
}

// The registry of formats: adding one is its file here (its exporter), its `mod` line above
// and one entry in this list; then its line in the `Choices` of each command that offers it.
formats! {
    /// For reading: a plain ASCII table (or labelled lines), safe in any log; times in
    /// microseconds, shares in percent. Not for parsing.
    Table => &Table,
    /// CSV with a header line and one row per line; times in seconds, full precision.
    Csv => &CSV,
    /// Tab-separated values: the CSV's columns, one value per column, for awk, cut and sort.
    Tsv => &TSV,
    /// JSON; times in seconds, full precision.
    Json => &Json,
    /// JSON Lines (jsonlines.org): one object per row and line, nothing else; each line
    /// parses alone (`pandas.read_json(..., lines=True)`, `jq -c`).
    Jsonl => &JsonLines,
    /// GitHub-flavoured Markdown table, for reports and issues.
    Markdown => &Markdown,
    /// Apache Parquet: typed columns (seconds as DOUBLE), compressed; a file, never a
    /// terminal (`--output`).
    Parquet => &PARQUET,
    /// OTF2 (Knüpfer et al. 2012), the trace format of Score-P, Vampir and Scalasca: an
    /// archive, a directory (`--output DIR`), written by `export` from a records file; no
    /// rows.
    Otf2 => &OTF2,
}

impl Format {
    /// Where a command writes this format: the file `path` (created, never overwritten), or
    /// standard output. Parquet is binary and its readers want a file, so it needs a path.
    ///
    /// Errors: [`crate::exit::BadInput`] (exit status 2) when Parquet has no path, or the
    /// file exists or cannot be created.
    pub fn output(
        self,
        path: Option<&std::path::Path>,
    ) -> Result<Box<dyn std::io::Write>, crate::exit::BadInput> {
        match path {
            None if self == Format::Parquet => Err(crate::exit::BadInput(
                "--format parquet writes a binary file: give it with --output FILE.parquet".into(),
            )),
            _ if self == Format::Otf2 => Err(crate::exit::BadInput(otf2_archive::NOT_ROWS.into())),
            None => Ok(Box::new(std::io::stdout().lock())),
            Some(path) => std::fs::File::create_new(path)
                .map(|f| Box::new(std::io::BufWriter::new(f)) as Box<dyn std::io::Write>)
                .map_err(|e| {
                    crate::exit::BadInput(format!(
                        "cannot create {}: {e} (outputs are never overwritten: give a new name)",
                        path.display()
                    ))
                }),
        }
    }

    /// The `--format` parser of a command that offers `choices`: any other name is refused
    /// at parse time (exit status 2, the choices listed), as a `value_enum` would.
    pub fn parser(choices: Choices) -> FormatParser {
        FormatParser(choices)
    }
}

/// What an OTF2 archive's writer (`write_archive`, `write_capture_archive`) wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArchiveSummary {
    /// Blocks read from the records file (0 for a capture).
    pub blocks: usize,
    /// Locations (ranks).
    pub locations: usize,
    /// `Enter` events (as many `Leave`).
    pub enters: u64,
    /// `MpiCollectiveBegin` events (as many `MpiCollectiveEnd`).
    pub collectives: u64,
    /// Repetitions left out for a rank because a time was not finite (none in a complete
    /// run).
    pub skipped: u64,
    /// Regions whose start (and end) moved later to the location's last event, because
    /// OTF2 takes each location's events in time order and their global times overlapped
    /// the previous one's (none in the runs tested; synthetic records have them).
    pub moved: u64,
}

/// The formats one command offers, each with what it holds there (its `--help` line).
#[derive(Debug, Clone, Copy)]
pub struct Choices {
    /// The formats, in the order `--help` lists them, and their help (empty: none, and the
    /// names are listed on the option's line).
    pub formats: &'static [(Format, &'static str)],
    /// Whether `text` is accepted, unlisted, as `table` (the name `info` and `algorithms`
    /// used for it).
    pub text_alias: bool,
}

/// `analyze`, `compare`, `clocksync`, `skew`, `schemes` and the `noise` report.
pub const TABLES: Choices = Choices {
    formats: &[
        (
            Format::Table,
            "Human-readable table: times in microseconds, benefit in percent",
        ),
        (
            Format::Csv,
            "CSV with one row per configuration; times in seconds, full precision",
        ),
        (
            Format::Tsv,
            "Tab-separated values: the CSV's columns, one value per column (intervals in their \
             own columns), for awk, cut and sort",
        ),
        (Format::Json, "JSON; times in seconds, full precision"),
        (
            Format::Markdown,
            "GitHub-flavoured Markdown table, for reports and issues",
        ),
    ],
    text_alias: false,
};

/// `analyze`: the tables of [`TABLES`], and Parquet for data frames.
pub const ANALYSES: Choices = Choices {
    formats: &[
        TABLES.formats[0],
        TABLES.formats[1],
        TABLES.formats[2],
        TABLES.formats[3],
        TABLES.formats[4],
        (
            Format::Parquet,
            "Apache Parquet (needs --output): the CSV's columns, typed, for data frames",
        ),
    ],
    text_alias: false,
};

/// `export`: many rows, for programs.
pub const EXPORTS: Choices = Choices {
    formats: &[
        (
            Format::Csv,
            "CSV with a header line and one row per line; times in seconds, full precision",
        ),
        (
            Format::Json,
            "One JSON document: an array with one object per row, one object per line",
        ),
        (
            Format::Jsonl,
            "JSON Lines (jsonlines.org): one object per row and line, nothing else; each line \
             parses alone (`pandas.read_json(..., lines=True)`, `jq -c`)",
        ),
        (
            Format::Parquet,
            "Apache Parquet (needs --output): typed columns, seconds as DOUBLE, compressed, \
             for pandas, polars, DuckDB and R",
        ),
        (
            Format::Otf2,
            "OTF2 archive (needs --output DIR): every call as Score-P traces MPI, for Vampir \
             and Scalasca; --rows does not apply (build feature `otf2`)",
        ),
    ],
    text_alias: false,
};

/// `arrivals`.
pub const ARRIVALS: Choices = Choices {
    formats: &[
        (Format::Table, "Plain tables: sites, then ranks"),
        (
            Format::Csv,
            "CSV rows (sites, or ranks with `--rows ranks`)",
        ),
        (Format::Json, "The whole report as one JSON document"),
        (
            Format::Otf2,
            "OTF2 archive (needs --output DIR): every captured call at its site, with its \
             waiting and cause, for Vampir and Scalasca (build feature `otf2`)",
        ),
    ],
    text_alias: false,
};

/// `info`.
pub const INFO: Choices = Choices {
    formats: &[
        (Format::Table, "Labelled lines for reading"),
        (
            Format::Json,
            "One JSON object: the header as recorded, the block count and the footer",
        ),
    ],
    text_alias: true,
};

/// `algorithms`.
pub const ALGORITHMS: Choices = Choices {
    formats: &[(Format::Table, ""), (Format::Json, "")],
    text_alias: true,
};

/// The `--format` parser of one command ([`Format::parser`]).
#[derive(Debug, Clone, Copy)]
pub struct FormatParser(Choices);

impl FormatParser {
    fn values(&self) -> impl Iterator<Item = (Format, PossibleValue)> + '_ {
        self.0.formats.iter().filter_map(|&(f, help)| {
            // Without help, clap lists the names on the option's line.
            let help = (!help.is_empty()).then_some(help);
            let v = f.to_possible_value()?.help(help);
            let v = if self.0.text_alias && f == Format::Table {
                v.alias("text")
            } else {
                v
            };
            Some((f, v))
        })
    }
}

impl TypedValueParser for FormatParser {
    type Value = Format;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Format, clap::Error> {
        // The same refusal, and message, as a value_enum's.
        let all = PossibleValuesParser::new(self.values().map(|(_, v)| v));
        let name = all.parse_ref(cmd, arg, value)?;
        let ignore_case = arg.is_some_and(|a| a.is_ignore_case_set());
        self.values()
            .find(|(_, v)| v.matches(&name, ignore_case))
            .map(|(f, _)| f)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.values().map(|(_, v)| v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::test_support::{analysis, records};
    use crate::export::{write_rows, write_rows_streamed, ExportRows, RowsSpec};
    use crate::records::{RecordsError, RunLabel};

    #[derive(serde::Serialize)]
    struct Timed {
        op: &'static str,
        t_s: f64,
    }

    /// Every format of the registry has an exporter of its own that writes every kind of
    /// rows: a table, the streamed per-rank and per-repetition export, the summary, and the
    /// run's columns in front of a table.
    /// What an exporter wrote into memory.
    fn bytes(f: impl FnOnce(&mut Vec<u8>) -> Result<(), crate::export::ExportError>) -> Vec<u8> {
        let mut buf = Vec::new();
        f(&mut buf).expect("export into memory");
        buf
    }

    /// An output as text: the text formats as written, Parquet (binary) read back into
    /// `name=value` cells, one row per line.
    fn shown(format: Format, raw: &[u8]) -> String {
        #[cfg(feature = "parquet")]
        if format == Format::Parquet {
            return parquet_rows::as_text(raw);
        }
        // Without the feature no Parquet reaches here (the test skips it above).
        let _ = format;
        String::from_utf8(raw.to_vec()).expect("text formats are UTF-8")
    }

    #[test]
    fn every_registry_entry_is_complete() {
        let r = records();
        let a = analysis();
        let run = RunLabel::of(&r.header);
        let mut tables: Vec<String> = Vec::new();
        for &format in Format::value_variants() {
            let e = format.exporter();
            if format == Format::Otf2 {
                // An archive is a directory, not rows: `export` writes it from the records
                // (tests/otf2_export.rs); asked for rows, the format refuses and says why.
                let refused = e.open(&RowsSpec::serde(), &mut Vec::new()).err();
                assert!(
                    refused.is_some_and(|r| r.to_string().contains("otf2")),
                    "OTF2 refuses rows"
                );
                continue;
            }
            if cfg!(not(feature = "parquet")) && format == Format::Parquet {
                // A build without the feature names the format and refuses to write it.
                let refused = e.open(&RowsSpec::serde(), &mut Vec::new()).err();
                assert!(
                    refused.is_some_and(|r| r.to_string().contains("--features parquet")),
                    "Parquet without the feature"
                );
                continue;
            }
            // A table of two rows with cells.
            let rows = [
                Timed {
                    op: "allreduce",
                    t_s: 1.5e-6,
                },
                Timed {
                    op: "bcast",
                    t_s: 2e-6,
                },
            ];
            let spec = RowsSpec::table(&["op", "t (us)"]);
            let cells = |x: &Timed| vec![x.op.into(), (x.t_s * 1e6).to_string()];
            let raw = bytes(|b| write_rows(&rows, e, &spec, cells, b));
            let table = shown(format, &raw);
            assert!(
                table.contains("allreduce") && table.contains("bcast"),
                "{format:?}: {table}"
            );
            // The streamed exports, for the data formats.
            if !e.is_markup() {
                for kind in [ExportRows::Rank, ExportRows::Rep] {
                    let blocks = r.blocks.iter().map(Ok::<_, RecordsError>);
                    let out = bytes(|b| write_rows_streamed(&run, blocks, kind, format, b));
                    let out = shown(format, &out);
                    assert!(
                        out.contains("allreduce") && out.contains("iallreduce"),
                        "{format:?} {kind:?}"
                    );
                }
            }
            // The summary.
            let summary = shown(format, &bytes(|b| e.write_summary(&a, b)));
            assert!(summary.contains("allreduce"), "{format:?}: {summary}");
            // The run's columns: kept by the data formats, at least the table itself.
            let mut with = Vec::new();
            e.prepend_columns(&[("run_id", "id-1")], &raw, &mut with)
                .unwrap();
            let with = shown(format, &with);
            assert!(with.contains("allreduce"), "{format:?}: {with}");
            assert_eq!(with.contains("id-1"), !e.is_markup(), "{format:?}: {with}");
            // An exporter of its own: no two entries write the same table.
            assert!(
                !tables.contains(&table),
                "{format:?} writes another's table"
            );
            tables.push(table);
        }
    }

    #[test]
    fn each_format_is_in_some_command() {
        for &format in Format::value_variants() {
            let offered = [TABLES, ANALYSES, EXPORTS, ARRIVALS, INFO, ALGORITHMS]
                .iter()
                .any(|c| c.formats.iter().any(|(f, _)| *f == format));
            assert!(offered, "{format:?} is offered by no command");
        }
    }

    #[test]
    fn parsers_accept_their_choices_and_text_where_it_was_a_name() {
        let cmd = clap::Command::new("t");
        let parse = |p: FormatParser, v: &str| p.parse_ref(&cmd, None, std::ffi::OsStr::new(v));
        let info = Format::parser(INFO);
        assert_eq!(parse(info, "text").unwrap(), Format::Table);
        assert_eq!(parse(info, "table").unwrap(), Format::Table);
        assert_eq!(parse(info, "json").unwrap(), Format::Json);
        assert!(parse(info, "csv").is_err());
        let analyze = Format::parser(TABLES);
        assert!(parse(analyze, "text").is_err());
        assert!(parse(analyze, "jsonl").is_err());
        assert_eq!(parse(analyze, "markdown").unwrap(), Format::Markdown);
        let e = parse(Format::parser(EXPORTS), "table").unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::InvalidValue);
        let names: Vec<String> = info
            .possible_values()
            .unwrap()
            .map(|v| v.get_name().to_string())
            .collect();
        assert_eq!(names, ["table", "json"]);
    }
}
