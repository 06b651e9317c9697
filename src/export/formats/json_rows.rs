//! `json`: one JSON document; seconds as full-precision numbers, non-finite values as `null`
//! (JSON has no NaN).

use super::super::{ExportError, JsonLayout, Row, RowExporter, RowSink, RowsSpec};
use crate::analysis::Analysis;
use std::io::{BufWriter, Write};

/// An array with one object per row, pretty-printed, or with one compact object per line
/// ([`JsonLayout`]); the summary is its own document (`delaybench-analyze`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Json;

impl RowExporter for Json {
    fn open<'a>(
        &self,
        spec: &RowsSpec<'_>,
        out: &'a mut dyn Write,
    ) -> Result<Box<dyn RowSink + 'a>, ExportError> {
        // Buffered because serde_json writes in many small pieces.
        let mut out = BufWriter::new(out);
        out.write_all(b"[")?;
        Ok(Box::new(JsonArray {
            out,
            layout: spec.json,
            written: 0,
            buf: Vec::new(),
        }))
    }

    fn write_summary(&self, a: &Analysis, out: &mut dyn Write) -> Result<(), ExportError> {
        super::super::summary_json::write_summary_json(a, out)
    }

    fn summary_carries_warnings(&self) -> bool {
        true
    }

    /// Adds the `front` fields to every object of the array `table` and writes it back
    /// pretty-printed.
    fn prepend_columns(
        &self,
        front: &[(&str, &str)],
        table: &[u8],
        out: &mut dyn Write,
    ) -> Result<(), ExportError> {
        let mut doc: serde_json::Value = serde_json::from_slice(table)?;
        if let Some(rows) = doc.as_array_mut() {
            rows.iter_mut().for_each(|row| add_fields(row, front));
        }
        serde_json::to_writer_pretty(&mut *out, &doc)?;
        out.write_all(b"\n")?;
        Ok(())
    }
}

/// Adds the `front` fields (name, string value) to `row` when it is an object, as the JSON
/// and JSON Lines exporters do for a run's columns.
pub(super) fn add_fields(row: &mut serde_json::Value, front: &[(&str, &str)]) {
    if let Some(row) = row.as_object_mut() {
        for (k, v) in front {
            row.insert(k.to_string(), (*v).into());
        }
    }
}

/// A JSON array being written.
struct JsonArray<'a> {
    out: BufWriter<&'a mut dyn Write>,
    layout: JsonLayout,
    written: usize,
    /// One pretty row, re-indented one level before it is written.
    buf: Vec<u8>,
}

impl RowSink for JsonArray<'_> {
    fn row(&mut self, row: &dyn Row, _: &dyn Fn() -> Vec<String>) -> Result<(), ExportError> {
        let first = self.written == 0;
        match self.layout {
            JsonLayout::ObjectPerLine => {
                self.out.write_all(if first { b"\n" } else { b",\n" })?;
                row.write_json(&mut self.out)?;
            }
            JsonLayout::Pretty => {
                // What serde_json's pretty printer writes for an element of an array: the
                // value's own pretty form one level (two spaces) in. JSON strings hold no raw
                // line break, so every line break of the value is between its lines.
                self.out.write_all(if first { b"\n  " } else { b",\n  " })?;
                self.buf.clear();
                row.write_json_pretty(&mut self.buf)?;
                for (i, line) in self.buf.split(|&c| c == b'\n').enumerate() {
                    if i > 0 {
                        self.out.write_all(b"\n  ")?;
                    }
                    self.out.write_all(line)?;
                }
            }
        }
        self.written += 1;
        Ok(())
    }

    fn close(mut self: Box<Self>) -> Result<(), ExportError> {
        let end: &[u8] = match (self.layout, self.written) {
            (JsonLayout::Pretty, 0) => b"]\n",
            _ => b"\n]\n",
        };
        self.out.write_all(end)?;
        self.out.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::write_rows;
    use serde::Serialize;

    #[derive(Serialize)]
    struct Nested {
        op: &'static str,
        t_s: Option<f64>,
        ranks: Vec<u32>,
        none: Vec<u32>,
        inner: Inner,
    }

    #[derive(Serialize)]
    struct Inner {
        a: f64,
        b: Option<String>,
    }

    fn nested(n: usize) -> Vec<Nested> {
        (0..n)
            .map(|i| Nested {
                op: "bcast",
                t_s: (i % 2 == 0).then_some(1.5e-6 * i as f64),
                ranks: (0..i as u32).collect(),
                none: Vec::new(),
                inner: Inner {
                    a: f64::NAN,
                    b: Some("x\ny".into()),
                },
            })
            .collect()
    }

    /// The pretty array is serde_json's own, byte for byte, with nested values, empty
    /// arrays, escaped line breaks and no rows.
    #[test]
    fn pretty_rows_are_serde_jsons_pretty_array() {
        for n in [0, 1, 3] {
            let rows = nested(n);
            let mut ours = Vec::new();
            write_rows(&rows, &Json, &RowsSpec::serde(), |_| vec![], &mut ours).unwrap();
            let mut want = serde_json::to_vec_pretty(&rows).unwrap();
            want.push(b'\n');
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                String::from_utf8(want).unwrap()
            );
        }
    }
}
