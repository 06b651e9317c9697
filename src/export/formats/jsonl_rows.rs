//! `jsonl`: JSON Lines (jsonlines.org), one compact object per row and line and nothing
//! else, so every line parses alone and a cut (`head`, an interrupted export) still leaves
//! whole records.

use super::super::{ExportError, Row, RowExporter, RowSink, RowsSpec};
use super::json_rows::add_fields;
use std::io::{BufWriter, Write};

/// One object per line; seconds as full-precision numbers, non-finite values as `null`.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonLines;

impl RowExporter for JsonLines {
    fn open<'a>(
        &self,
        _: &RowsSpec<'_>,
        out: &'a mut dyn Write,
    ) -> Result<Box<dyn RowSink + 'a>, ExportError> {
        // Buffered because serde_json writes in many small pieces.
        Ok(Box::new(Lines(BufWriter::new(out))))
    }

    /// Adds the `front` fields to the object on every line of `table`.
    fn prepend_columns(
        &self,
        front: &[(&str, &str)],
        table: &[u8],
        out: &mut dyn Write,
    ) -> Result<(), ExportError> {
        let mut out = BufWriter::new(out);
        for line in table.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
            let mut row: serde_json::Value = serde_json::from_slice(line)?;
            add_fields(&mut row, front);
            serde_json::to_writer(&mut out, &row)?;
            out.write_all(b"\n")?;
        }
        out.flush()?;
        Ok(())
    }
}

/// JSON Lines being written.
struct Lines<'a>(BufWriter<&'a mut dyn Write>);

impl RowSink for Lines<'_> {
    fn row(&mut self, row: &dyn Row, _: &dyn Fn() -> Vec<String>) -> Result<(), ExportError> {
        row.write_json(&mut self.0)?;
        self.0.write_all(b"\n")?;
        Ok(())
    }

    fn close(mut self: Box<Self>) -> Result<(), ExportError> {
        self.0.flush()?;
        Ok(())
    }
}
