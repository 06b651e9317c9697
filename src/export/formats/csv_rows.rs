//! `csv`: a header line and one row per line (RFC 4180 quoting by the `csv` crate); seconds
//! as shortest round-trip f64, so they parse back to the same value. Also the writer of TSV,
//! which differs only in its delimiter.

use super::super::{ExportError, Row, RowExporter, RowSink, RowsSpec};
use std::io::Write;

/// Rows with the cells separated by `SEP`, written and quoted by the `csv` crate: booleans
/// as `true`/`false`, an empty cell for `None`, NaN as `NaN`. One generic for [`Csv`] and
/// [`super::Tsv`], which differ only in `SEP`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Delimited<const SEP: u8>;

/// CSV rows, cells separated by commas.
pub type Csv = Delimited<b','>;

/// The CSV exporter, for the registry (a type alias names no value).
pub const CSV: Csv = Delimited;

impl<const SEP: u8> RowExporter for Delimited<SEP> {
    fn open<'a>(
        &self,
        spec: &RowsSpec<'_>,
        out: &'a mut dyn Write,
    ) -> Result<Box<dyn RowSink + 'a>, ExportError> {
        open_delimited(SEP, spec, out)
    }

    fn prepend_columns(
        &self,
        front: &[(&str, &str)],
        table: &[u8],
        out: &mut dyn Write,
    ) -> Result<(), ExportError> {
        prepend_delimited(SEP, front, table, out)
    }
}

/// Delimited rows being written.
struct DelimitedSink<'a>(csv::Writer<&'a mut dyn Write>);

/// Opens delimited rows: the header from `spec.columns` when given (so that no rows still
/// give one), else from the first row's serde field names.
fn open_delimited<'a>(
    delimiter: u8,
    spec: &RowsSpec<'_>,
    out: &'a mut dyn Write,
) -> Result<Box<dyn RowSink + 'a>, ExportError> {
    let mut w = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .has_headers(spec.columns.is_none())
        .from_writer(out);
    if let Some(columns) = spec.columns {
        w.write_record(columns)?;
    }
    Ok(Box::new(DelimitedSink(w)))
}

impl RowSink for DelimitedSink<'_> {
    fn row(&mut self, row: &dyn Row, _: &dyn Fn() -> Vec<String>) -> Result<(), ExportError> {
        row.write_csv(&mut self.0)?;
        Ok(())
    }

    fn close(mut self: Box<Self>) -> Result<(), ExportError> {
        self.0.flush()?;
        Ok(())
    }
}

/// Copies the delimited `table` to `out` with the `front` names first in its header and
/// their values first in every row. Cells are copied as text, so numbers keep every digit.
fn prepend_delimited(
    delimiter: u8,
    front: &[(&str, &str)],
    table: &[u8],
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(delimiter)
        .from_reader(table);
    let mut w = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .from_writer(out);
    for (i, record) in reader.records().enumerate() {
        let record = record?;
        let cells = front.iter().map(|(k, v)| if i == 0 { *k } else { *v });
        w.write_record(cells.chain(record.iter()))?;
    }
    w.flush()?;
    Ok(())
}
