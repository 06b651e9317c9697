//! The one row-exporter trait every output format implements, and the shared table
//! renderer of the table-like formats. The model is hyperfine's `Exporter` and
//! `MarkupExporter` (Peter 2018): one trait per output, the markup formats sharing one
//! table writer.
//!
//! Every command that writes rows (`analyze` and its one-file tables, `compare`, `export`,
//! `arrivals`, the noise report, `clocksync`, `skew`, `schemes`) opens a [`RowSink`] from the
//! [`RowExporter`] of its [`super::Format`], gives it the rows one at a time and closes it.
//! A row is any serde row ([`Row`]) together with its cells for the tables; what a kind of
//! rows looks like in each format (CSV header, table headers, JSON layout) is its
//! [`RowsSpec`].

use super::ExportError;
use crate::analysis::Analysis;
use serde::Serialize;
use std::io::Write;

/// A row as the exporters write it: its serde fields through the serializers the formats
/// use. Implemented for every `Serialize` type; a `dyn Row` keeps [`RowExporter`] usable as a
/// trait object, which a generic `serialize<T>` method would not be.
pub trait Row {
    /// Writes the row as one record of `w` (serde field order).
    ///
    /// Errors: those of the CSV writer.
    fn write_csv(&self, w: &mut csv::Writer<&mut dyn Write>) -> Result<(), csv::Error>;
    /// Writes the row as one compact JSON value.
    ///
    /// Errors: those of the serializer (an I/O error underneath).
    fn write_json(&self, out: &mut dyn Write) -> Result<(), serde_json::Error>;
    /// Writes the row as one pretty-printed JSON value (two-space indent, at level 0).
    ///
    /// Errors: those of the serializer (an I/O error underneath).
    fn write_json_pretty(&self, out: &mut dyn Write) -> Result<(), serde_json::Error>;
    /// Gives the row's fields to `out` as (name, typed cell), in serde order (the typed
    /// formats' columns: the cells the row's JSON would read back as).
    ///
    /// Errors: a row that is not named fields, or the row's own serialize error.
    fn write_cells(&self, out: &mut dyn FnMut(&str, super::Cell)) -> Result<(), serde_json::Error>;
}

impl<T: Serialize + ?Sized> Row for T {
    fn write_csv(&self, w: &mut csv::Writer<&mut dyn Write>) -> Result<(), csv::Error> {
        w.serialize(self)
    }

    fn write_json(&self, out: &mut dyn Write) -> Result<(), serde_json::Error> {
        serde_json::to_writer(out, self)
    }

    fn write_json_pretty(&self, out: &mut dyn Write) -> Result<(), serde_json::Error> {
        serde_json::to_writer_pretty(out, self)
    }

    fn write_cells(&self, out: &mut dyn FnMut(&str, super::Cell)) -> Result<(), serde_json::Error> {
        super::cells::write_cells(self, out)
    }
}

/// How a JSON document of rows is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonLayout {
    /// `serde_json`'s pretty array (two-space indent): the small tables.
    Pretty,
    /// `[`, one compact object per line, `]`: the per-rank and per-repetition exports, which
    /// can have millions of rows and still read and diff well this way.
    ObjectPerLine,
}

/// What one kind of rows looks like in every format.
#[derive(Debug, Clone)]
pub struct RowsSpec<'s> {
    /// The CSV and TSV header, the rows' serde field names in order, so that no rows still
    /// give a header; `None`: the first row's field names (no rows, no header).
    pub columns: Option<&'s [&'s str]>,
    /// The headers of the table-like formats (a `\n` breaks a header onto two lines).
    pub headers: Vec<String>,
    /// The JSON layout.
    pub json: JsonLayout,
}

impl<'s> RowsSpec<'s> {
    /// A table shown under `headers`: CSV header from serde, pretty JSON.
    pub fn table<H: ToString>(headers: &[H]) -> RowsSpec<'s> {
        RowsSpec {
            columns: None,
            headers: headers.iter().map(ToString::to_string).collect(),
            json: JsonLayout::Pretty,
        }
    }

    /// Rows without a table view (the headers are empty): CSV header from serde, pretty JSON.
    pub fn serde() -> RowsSpec<'s> {
        RowsSpec::table::<&str>(&[])
    }

    /// An export of many rows: the header from `columns` and one JSON object per line.
    pub fn export(columns: &'s [&'s str]) -> RowsSpec<'s> {
        RowsSpec {
            columns: Some(columns),
            headers: columns.iter().map(ToString::to_string).collect(),
            json: JsonLayout::ObjectPerLine,
        }
    }
}

/// Rows being written in one format: give it the rows in order, then close it.
pub trait RowSink {
    /// Writes (or, for a table, keeps) one row; `cells` gives its cells for the table-like
    /// formats, which call it, and the others do not.
    ///
    /// Errors: [`ExportError`] when writing fails.
    fn row(&mut self, row: &dyn Row, cells: &dyn Fn() -> Vec<String>) -> Result<(), ExportError>;

    /// Writes what closes the output (a JSON array's `]`, a whole table) and flushes.
    ///
    /// Errors: [`ExportError`] when writing fails.
    fn close(self: Box<Self>) -> Result<(), ExportError>;
}

/// One output format: writes rows of any kind, an analysis summary, and adds a run's
/// columns to a table it wrote. One per [`super::Format`] (the registry,
/// [`super::Format::exporter`]).
pub trait RowExporter: Sync {
    /// Starts writing rows shaped as `spec` to `out` (a CSV header, a JSON array's `[`).
    ///
    /// Errors: [`ExportError`] when writing fails.
    fn open<'a>(
        &self,
        spec: &RowsSpec<'_>,
        out: &'a mut dyn Write,
    ) -> Result<Box<dyn RowSink + 'a>, ExportError>;

    /// Writes the summary of `analysis` ([`crate::analysis::analyze`]). By default its rows
    /// under [`super::SUMMARY_COLUMNS`] (the CSV, TSV and JSON Lines summary).
    ///
    /// Errors: [`ExportError`] when writing fails.
    fn write_summary(&self, analysis: &Analysis, out: &mut dyn Write) -> Result<(), ExportError> {
        write_rows(
            &analysis.rows,
            self,
            &RowsSpec::export(&super::SUMMARY_COLUMNS),
            |_| Vec::new(),
            out,
        )
    }

    /// Whether [`RowExporter::write_summary`] carries the runs' warnings (otherwise the
    /// command prints them on standard error).
    fn summary_carries_warnings(&self) -> bool {
        false
    }

    /// Whether this is a table for reading ([`MarkupExporter`]) rather than data.
    fn is_markup(&self) -> bool {
        false
    }

    /// Writes `table` (this format's output of one kind of rows) to `out` with the columns
    /// `front` (name, value) first in every row. By default `table` unchanged: a table for
    /// reading need not say its run on every row.
    ///
    /// Errors: [`ExportError`] when `table` does not parse back or writing fails.
    fn prepend_columns(
        &self,
        front: &[(&str, &str)],
        table: &[u8],
        out: &mut dyn Write,
    ) -> Result<(), ExportError> {
        let _ = front;
        out.write_all(table)?;
        out.flush()?;
        Ok(())
    }
}

/// Writes `rows` shaped as `spec` with `exporter`, `cells` giving each row's cells for the
/// table-like formats.
///
/// Errors: [`ExportError`] when writing fails.
pub fn write_rows<T: Serialize, E: RowExporter + ?Sized>(
    rows: &[T],
    exporter: &E,
    spec: &RowsSpec<'_>,
    cells: impl Fn(&T) -> Vec<String>,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let mut sink = exporter.open(spec, out)?;
    for row in rows {
        sink.row(row, &|| cells(row))?;
    }
    sink.close()
}

/// A table-like format: renders whole tables of cells (so columns can be aligned) and the
/// summary with its notes. Every markup exporter is a [`RowExporter`] that keeps the rows'
/// cells and renders them when closed.
pub trait MarkupExporter: Sync + Copy + 'static {
    /// Writes one table: `headers` (a `\n` breaks a header onto two lines) over `rows` of
    /// cells, the first column left-aligned and the others right-aligned, then flushes.
    ///
    /// Errors: [`ExportError`] when writing fails.
    fn table(
        &self,
        headers: &[String],
        rows: &[Vec<String>],
        out: &mut dyn Write,
    ) -> Result<(), ExportError>;

    /// Writes the summary of `analysis`: its tables and the notes on what the columns mean.
    ///
    /// Errors: [`ExportError`] when writing fails.
    fn summary(&self, analysis: &Analysis, out: &mut dyn Write) -> Result<(), ExportError>;
}

impl<M: MarkupExporter> RowExporter for M {
    fn open<'a>(
        &self,
        spec: &RowsSpec<'_>,
        out: &'a mut dyn Write,
    ) -> Result<Box<dyn RowSink + 'a>, ExportError> {
        Ok(Box::new(MarkupSink {
            markup: *self,
            headers: spec.headers.clone(),
            rows: Vec::new(),
            out,
        }))
    }

    fn write_summary(&self, analysis: &Analysis, out: &mut dyn Write) -> Result<(), ExportError> {
        self.summary(analysis, out)
    }

    fn summary_carries_warnings(&self) -> bool {
        true
    }

    fn is_markup(&self) -> bool {
        true
    }
}

/// The shared renderer's sink: keeps the cells, renders the table on close.
struct MarkupSink<'a, M> {
    markup: M,
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
    out: &'a mut dyn Write,
}

impl<M: MarkupExporter> RowSink for MarkupSink<'_, M> {
    fn row(&mut self, _: &dyn Row, cells: &dyn Fn() -> Vec<String>) -> Result<(), ExportError> {
        self.rows.push(cells());
        Ok(())
    }

    fn close(self: Box<Self>) -> Result<(), ExportError> {
        self.markup.table(&self.headers, &self.rows, self.out)
    }
}

/// Writes `rows` in `format` as a table shown under `headers` (`cells` gives a row's cells
/// for the table-like formats); CSV and TSV take their header from the rows' serde field
/// names, JSON is a pretty array.
///
/// Errors: [`ExportError`] when writing fails.
pub fn write_table<T: Serialize, H: ToString>(
    rows: &[T],
    format: super::Format,
    headers: &[H],
    cells: impl Fn(&T) -> Vec<String>,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    write_rows(
        rows,
        format.exporter(),
        &RowsSpec::table(headers),
        cells,
        out,
    )
}

/// Writes `rows`, which have no table view, in the data format `format` (CSV, TSV, JSON,
/// JSON Lines; headers from the serde field names).
///
/// Errors: [`ExportError`] when writing fails.
pub fn write_serde_rows<T: Serialize>(
    rows: &[T],
    format: super::Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    write_rows(
        rows,
        format.exporter(),
        &RowsSpec::serde(),
        |_| Vec::new(),
        out,
    )
}
