//! `parquet` in a build without the `parquet` feature: the format stays a name (so
//! `--format parquet` parses the same in every build) and refuses to write, saying how to
//! get it.

use super::super::{ExportError, RowExporter, RowSink, RowsSpec};
use std::io::Write;

/// The Parquet exporter of a build without Parquet.
#[derive(Debug, Clone, Copy, Default)]
pub struct Parquet;

/// The Parquet exporter, for the registry.
pub const PARQUET: Parquet = Parquet;

impl RowExporter for Parquet {
    fn open<'a>(
        &self,
        _: &RowsSpec<'_>,
        _: &'a mut dyn Write,
    ) -> Result<Box<dyn RowSink + 'a>, ExportError> {
        Err(ExportError::Io(std::io::Error::other(
            "this build has no Parquet writer: build with `--features parquet` (a default \
             feature), or use --format csv",
        )))
    }
}
