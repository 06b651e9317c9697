//! `parquet`: Apache Parquet, typed columns for data frames (pandas, polars, DuckDB, R's
//! arrow). Seconds are DOUBLE, counts INT64, flags BOOLEAN, names UTF-8 strings; every
//! column is dictionary-encoded where that is smaller (the run's constant columns, such
//! as the run id, the MPI library and the tags, cost a few bytes per row group), and pages
//! are Snappy-compressed. Rows are written in row groups of [`ROW_GROUP_ROWS`], each handed
//! to the output as soon as it is encoded, so memory holds one row group, never the file.
//!
//! The rows reach an exporter as serde rows ([`Row`]); their fields become typed cells
//! ([`Row::write_cells`], the cells their JSON would read back as, without writing it) that
//! go straight into the columns, so any kind of rows (the per-rank export, the summary, the
//! analysis tables) becomes Parquet without a schema of its own. A column's type is that of
//! its first non-null value (an integer column that later holds a fraction becomes DOUBLE
//! within the first row group); a column without any value is a string column. NaN, which
//! JSON has not, is a null. The file's key-value metadata names the writer
//! (`delaybench.version`).

use super::super::{Cell, ExportError, Row, RowExporter, RowSink, RowsSpec};
use std::io::Write;

/// Rows per row group: large enough for good compression and fast scans, small enough
/// that one row group of the per-rank export (23 columns) stays a few tens of MB.
pub const ROW_GROUP_ROWS: usize = 1 << 17;

/// The Parquet exporter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Parquet;

/// The Parquet exporter, for the registry.
pub const PARQUET: Parquet = Parquet;

/// The value type of one column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// BOOLEAN.
    Bool,
    /// INT64.
    Int,
    /// DOUBLE.
    Float,
    /// BYTE_ARRAY annotated as a UTF-8 string.
    Text,
}

/// Typed rows written to Parquet in row groups: the columns, their cells buffered for the
/// row group under way, and the bytes encoded so far.
pub struct ParquetTable<'a> {
    names: Vec<String>,
    kinds: Vec<Option<Kind>>,
    cells: Vec<Vec<Cell>>,
    /// Rows buffered for the row group under way.
    rows: usize,
    writer: Option<parquet::file::writer::SerializedFileWriter<Vec<u8>>>,
    out: &'a mut dyn Write,
}

/// A Parquet error as an export error (an I/O error underneath, or a value of the wrong
/// type for its column).
fn failed(e: impl std::fmt::Display) -> ExportError {
    ExportError::Io(std::io::Error::other(format!("Parquet: {e}")))
}

impl<'a> ParquetTable<'a> {
    /// A table with `names` as its first columns (more are added from the first row).
    pub fn new(names: Vec<String>, out: &'a mut dyn Write) -> ParquetTable<'a> {
        let n = names.len();
        ParquetTable {
            names,
            kinds: vec![None; n],
            cells: vec![Vec::new(); n],
            rows: 0,
            writer: None,
            out,
        }
    }

    /// Adds one row, as (column name, cell) in any order; a column missing from the row is
    /// null in it.
    ///
    /// Errors: a column unknown once the schema is written, a value of another type than
    /// its column's, or writing fails.
    pub fn push<K: AsRef<str>>(
        &mut self,
        fields: impl IntoIterator<Item = (K, Cell)>,
    ) -> Result<(), ExportError> {
        for (i, (name, cell)) in fields.into_iter().enumerate() {
            self.put(i, name.as_ref(), cell)?;
        }
        self.end_row()
    }

    /// Puts `cell` into the column `name` of the row under way, whose `i`-th field it is.
    ///
    /// Errors: a column unknown once the schema is written, or a value of another type
    /// than its column's.
    fn put(&mut self, i: usize, name: &str, cell: Cell) -> Result<(), ExportError> {
        let row = self.rows;
        // Rows of one kind give their fields in the columns' order: try that first.
        let at = match self.names.get(i) {
            Some(n) if n == name => Some(i),
            _ => self.names.iter().position(|n| n == name),
        };
        let k = match at {
            Some(k) => k,
            None if self.writer.is_none() => {
                self.names.push(name.to_string());
                self.kinds.push(None);
                self.cells.push(vec![Cell::Null; row]);
                self.names.len() - 1
            }
            None => {
                return Err(failed(format!(
                    "column `{name}` appeared after the first row group"
                )))
            }
        };
        self.kinds[k] = merge(self.kinds[k], &cell, self.writer.is_some()).ok_or_else(|| {
            failed(format!(
                "column `{}`: {cell:?} is not a {:?}",
                self.names[k], self.kinds[k]
            ))
        })?;
        self.cells[k].push(cell);
        Ok(())
    }

    /// Ends the row under way: its missing columns are null in it; a full row group is
    /// written.
    ///
    /// Errors: [`ExportError`] when encoding or writing fails.
    fn end_row(&mut self) -> Result<(), ExportError> {
        self.rows += 1;
        for column in &mut self.cells {
            if column.len() < self.rows {
                column.push(Cell::Null);
            }
        }
        if self.rows >= ROW_GROUP_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    /// Encodes the buffered rows as one row group and hands its bytes to the output.
    fn flush(&mut self) -> Result<(), ExportError> {
        let rows = std::mem::take(&mut self.rows);
        if self.writer.is_none() {
            self.writer = Some(self.open()?);
        }
        let writer = self.writer.as_mut().expect("opened above");
        if rows > 0 {
            let mut group = writer.next_row_group().map_err(failed)?;
            for (k, column) in self.cells.iter_mut().enumerate() {
                let kind = self.kinds[k].unwrap_or(Kind::Text);
                let mut w = group
                    .next_column()
                    .map_err(failed)?
                    .expect("one writer per column");
                write_column(&mut w, kind, column).map_err(failed)?;
                w.close().map_err(failed)?;
            }
            group.close().map_err(failed)?;
        }
        let bytes = std::mem::take(writer.inner_mut());
        self.out.write_all(&bytes)?;
        Ok(())
    }

    /// The file writer, with the schema the first row group settled.
    fn open(&self) -> Result<parquet::file::writer::SerializedFileWriter<Vec<u8>>, ExportError> {
        use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
        use parquet::schema::types::Type;
        use std::sync::Arc;
        let fields = self
            .names
            .iter()
            .zip(&self.kinds)
            .map(|(name, kind)| {
                let (physical, logical) = match kind.unwrap_or(Kind::Text) {
                    Kind::Bool => (Physical::BOOLEAN, None),
                    Kind::Int => (Physical::INT64, None),
                    Kind::Float => (Physical::DOUBLE, None),
                    Kind::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
                };
                Type::primitive_type_builder(name, physical)
                    .with_repetition(Repetition::OPTIONAL)
                    .with_logical_type(logical)
                    .build()
                    .map(Arc::new)
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(failed)?;
        let schema = Type::group_type_builder("delaybench")
            .with_fields(fields)
            .build()
            .map_err(failed)?;
        let version = parquet::file::metadata::KeyValue::new(
            "delaybench.version".to_string(),
            crate::build_info::version_line().to_string(),
        );
        let mut props = parquet::file::properties::WriterProperties::builder();
        // Seconds rarely repeat: a dictionary of them is tried, found too large and dropped
        // at a cost; the other columns (names, counts, flags) repeat and gain by it.
        for (name, kind) in self.names.iter().zip(&self.kinds) {
            if *kind == Some(Kind::Float) {
                let path = parquet::schema::types::ColumnPath::from(name.as_str());
                props = props.set_column_dictionary_enabled(path, false);
            }
        }
        let props = props
            .set_compression(Compression::SNAPPY)
            .set_key_value_metadata(Some(vec![version]))
            .set_created_by(format!("delaybench {}", env!("CARGO_PKG_VERSION")))
            .build();
        parquet::file::writer::SerializedFileWriter::new(
            Vec::new(),
            Arc::new(schema),
            Arc::new(props),
        )
        .map_err(failed)
    }

    /// Writes the last row group and the footer.
    ///
    /// Errors: [`ExportError`] when encoding or writing fails.
    pub fn close(mut self) -> Result<(), ExportError> {
        self.flush()?;
        let writer = self.writer.take().expect("flush opens the writer");
        let tail = writer.into_inner().map_err(failed)?;
        self.out.write_all(&tail)?;
        self.out.flush()?;
        Ok(())
    }
}

/// The type of a column after `cell`: `None` when the cell does not fit it. Before the
/// schema is written (`fixed` false) an integer column takes a fraction as DOUBLE.
fn merge(kind: Option<Kind>, cell: &Cell, fixed: bool) -> Option<Option<Kind>> {
    let of = match cell {
        Cell::Null => return Some(kind),
        Cell::Bool(_) => Kind::Bool,
        Cell::Int(_) => Kind::Int,
        Cell::Float(_) => Kind::Float,
        Cell::Text(_) => Kind::Text,
    };
    match (kind, of) {
        (None, of) if !fixed => Some(Some(of)),
        (None, _) => None,
        (Some(k), of) if k == of => Some(Some(k)),
        (Some(Kind::Float), Kind::Int) => Some(Some(Kind::Float)),
        (Some(Kind::Int), Kind::Float) if !fixed => Some(Some(Kind::Float)),
        _ => None,
    }
}

/// Writes one column chunk, the non-null values and a definition level per row, and
/// empties `cells` (keeping its room for the next row group); strings move into the
/// column's values uncopied.
fn write_column(
    w: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    kind: Kind,
    cells: &mut Vec<Cell>,
) -> parquet::errors::Result<()> {
    use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
    let levels: Vec<i16> = cells.iter().map(|c| i16::from(*c != Cell::Null)).collect();
    match kind {
        Kind::Bool => {
            let v: Vec<bool> = cells
                .iter()
                .filter_map(|c| match c {
                    Cell::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect();
            w.typed::<BoolType>().write_batch(&v, Some(&levels), None)?;
        }
        Kind::Int => {
            let v: Vec<i64> = cells
                .iter()
                .filter_map(|c| match c {
                    Cell::Int(i) => Some(*i),
                    _ => None,
                })
                .collect();
            w.typed::<Int64Type>()
                .write_batch(&v, Some(&levels), None)?;
        }
        Kind::Float => {
            let v: Vec<f64> = cells
                .iter()
                .filter_map(|c| match c {
                    Cell::Float(f) => Some(*f),
                    Cell::Int(i) => Some(*i as f64),
                    _ => None,
                })
                .collect();
            w.typed::<DoubleType>()
                .write_batch(&v, Some(&levels), None)?;
        }
        Kind::Text => {
            let v: Vec<ByteArray> = cells
                .drain(..)
                .filter_map(|c| match c {
                    Cell::Text(s) => Some(ByteArray::from(s.into_bytes())),
                    _ => None,
                })
                .collect();
            w.typed::<ByteArrayType>()
                .write_batch(&v, Some(&levels), None)?;
        }
    }
    cells.clear();
    Ok(())
}

/// The rows of one export being written.
struct ParquetSink<'a> {
    table: ParquetTable<'a>,
}

impl RowExporter for Parquet {
    fn open<'a>(
        &self,
        spec: &RowsSpec<'_>,
        out: &'a mut dyn Write,
    ) -> Result<Box<dyn RowSink + 'a>, ExportError> {
        let names = spec
            .columns
            .unwrap_or(&[])
            .iter()
            .map(ToString::to_string)
            .collect();
        Ok(Box::new(ParquetSink {
            table: ParquetTable::new(names, out),
        }))
    }

    /// Reads `table` (this format's bytes) back and writes it again with the `front`
    /// columns first, each a constant string column.
    fn prepend_columns(
        &self,
        front: &[(&str, &str)],
        table: &[u8],
        out: &mut dyn Write,
    ) -> Result<(), ExportError> {
        use parquet::file::reader::{FileReader, SerializedFileReader};
        let reader =
            SerializedFileReader::new(bytes::Bytes::copy_from_slice(table)).map_err(failed)?;
        let names = front.iter().map(|(k, _)| k.to_string()).collect();
        let mut t = ParquetTable::new(names, out);
        for row in reader.get_row_iter(None).map_err(failed)? {
            let row = row.map_err(failed)?;
            let mut fields: Vec<(String, Cell)> = front
                .iter()
                .map(|(k, v)| (k.to_string(), Cell::Text(v.to_string())))
                .collect();
            fields.extend(
                row.get_column_iter()
                    .map(|(name, f)| (name.clone(), field_cell(f))),
            );
            t.push(fields)?;
        }
        t.close()
    }
}

/// A cell read back from a Parquet field (the types this writer writes).
pub fn field_cell(f: &parquet::record::Field) -> Cell {
    use parquet::record::Field;
    match f {
        Field::Null => Cell::Null,
        Field::Bool(b) => Cell::Bool(*b),
        Field::Long(i) => Cell::Int(*i),
        Field::Double(d) => Cell::Float(*d),
        Field::Str(s) => Cell::Text(s.clone()),
        other => Cell::Text(other.to_string()),
    }
}

impl RowSink for ParquetSink<'_> {
    fn row(&mut self, row: &dyn Row, _: &dyn Fn() -> Vec<String>) -> Result<(), ExportError> {
        let (table, mut i, mut refused) = (&mut self.table, 0, None);
        row.write_cells(&mut |name, cell| {
            if refused.is_none() {
                refused = table.put(i, name, cell).err();
            }
            i += 1;
        })?;
        match refused {
            Some(e) => Err(e),
            None => self.table.end_row(),
        }
    }

    fn close(self: Box<Self>) -> Result<(), ExportError> {
        self.table.close()
    }
}

/// A Parquet file read back as text: each row's cells as `name=value`, one row per line
/// (what the tests compare).
///
/// Panics: when `raw` is not a Parquet file.
#[cfg(test)]
pub fn as_text(raw: &[u8]) -> String {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(bytes::Bytes::copy_from_slice(raw)).expect("Parquet");
    let mut out = String::new();
    for row in reader.get_row_iter(None).expect("rows") {
        let row = row.expect("a row");
        let cells: Vec<String> = row
            .get_column_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_come_back_typed_and_in_row_groups() {
        let mut raw = Vec::new();
        let mut t = ParquetTable::new(vec!["n".into(), "t_s".into()], &mut raw);
        let rows = ROW_GROUP_ROWS + 3;
        for i in 0..rows {
            let t_s = if i == 1 {
                Cell::Null
            } else {
                Cell::Float(i as f64 * 1e-6)
            };
            let name = Cell::Text(format!("r{}", i % 2));
            t.push(vec![
                ("n", Cell::Int(i as i64)),
                ("t_s", t_s),
                ("name", name),
            ])
            .unwrap();
        }
        t.close().unwrap();
        use parquet::file::reader::{FileReader, SerializedFileReader};
        let reader = SerializedFileReader::new(bytes::Bytes::from(raw)).unwrap();
        let meta = reader.metadata();
        assert_eq!(meta.num_row_groups(), 2);
        assert_eq!(meta.file_metadata().num_rows(), rows as i64);
        let schema = meta.file_metadata().schema_descr();
        let types: Vec<_> = schema.columns().iter().map(|c| c.physical_type()).collect();
        use parquet::basic::Type;
        assert_eq!(types, [Type::INT64, Type::DOUBLE, Type::BYTE_ARRAY]);
        let back: Vec<Vec<Cell>> = reader
            .get_row_iter(None)
            .unwrap()
            .take(3)
            .map(|r| {
                r.unwrap()
                    .get_column_iter()
                    .map(|(_, f)| field_cell(f))
                    .collect()
            })
            .collect();
        assert_eq!(back[1], [Cell::Int(1), Cell::Null, Cell::Text("r1".into())]);
        assert_eq!(
            back[2],
            [Cell::Int(2), Cell::Float(2e-6), Cell::Text("r0".into())]
        );
    }

    #[test]
    fn a_value_of_another_type_is_refused_once_the_schema_is_written() {
        assert_eq!(
            merge(Some(Kind::Int), &Cell::Float(0.5), false),
            Some(Some(Kind::Float))
        );
        assert_eq!(merge(Some(Kind::Int), &Cell::Float(0.5), true), None);
        assert_eq!(
            merge(Some(Kind::Float), &Cell::Int(1), true),
            Some(Some(Kind::Float))
        );
        assert_eq!(merge(Some(Kind::Text), &Cell::Bool(true), false), None);
        assert_eq!(merge(None, &Cell::Null, true), Some(None));
    }
}
