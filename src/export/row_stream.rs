//! Export rows written block by block, so a records file larger than memory can be exported: the CSV header or the JSON array's opening
//! once, then each block's rows as the block arrives, then the closing. The whole file is
//! never held: one block and the writers' buffers.

use super::rank_rows::block_rows;
use super::rep_rows::rep_row;
use super::{ExportError, ExportRows, RankFormat, RANK_COLUMNS, REP_COLUMNS};
use crate::records::{Block, RecordsError, RunLabel};
use serde::Serialize;
use std::borrow::Borrow;
use std::io::{BufWriter, Write};

/// Writes the `rows` export of `blocks` (one launch, labelled by `run`: run id, MPI
/// library, hosts, tags) to `out` in `format`, one block at a time. The bytes are those of
/// [`super::write_rank_rows`] and [`super::write_rep_rows`] over the same blocks.
///
/// When a block fails to read (a damaged file), the rows of the blocks before it have been
/// written but the JSON array is left unclosed, so the partial output does not parse as a
/// complete export; the CSV has no closing, so check the exit status (the command fails).
///
/// Errors: [`ExportError::Records`] with the reader's error; [`ExportError`] when writing
/// fails.
pub fn write_rows_streamed<B: Borrow<Block>>(
    run: &RunLabel,
    blocks: impl IntoIterator<Item = Result<B, RecordsError>>,
    rows: ExportRows,
    format: RankFormat,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let columns: &[&str] = match rows {
        ExportRows::Rank => &RANK_COLUMNS,
        ExportRows::Rep => &REP_COLUMNS,
    };
    let mut sink = RowSink::open(format, columns, out)?;
    for block in blocks {
        let block = block?;
        let b = block.borrow();
        match rows {
            ExportRows::Rank => {
                for row in block_rows(b, run) {
                    sink.row(&row)?;
                }
            }
            ExportRows::Rep => {
                for rep in 0..b.nrep as usize {
                    sink.row(&rep_row(b, rep, run))?;
                }
            }
        }
    }
    sink.close()
}

/// An export being written: CSV rows after a header line, or JSON objects one per line in
/// an array.
enum RowSink<'a> {
    // Boxed: the CSV writer carries its own buffer state, far larger than the JSON side.
    Csv(Box<csv::Writer<&'a mut dyn Write>>),
    // Buffered because serde_json writes in many small pieces.
    Json {
        out: BufWriter<&'a mut dyn Write>,
        written: usize,
    },
}

impl<'a> RowSink<'a> {
    fn open(
        format: RankFormat,
        columns: &[&str],
        out: &'a mut dyn Write,
    ) -> Result<Self, ExportError> {
        Ok(match format {
            RankFormat::Csv => {
                // The header comes from the column list rather than from serde so that a run
                // with no blocks still gives a header; unit tests pin the serde field order
                // to the same list.
                let mut w = csv::WriterBuilder::new()
                    .has_headers(false)
                    .from_writer(out);
                w.write_record(columns)?;
                RowSink::Csv(Box::new(w))
            }
            RankFormat::Json => {
                let mut out = BufWriter::new(out);
                out.write_all(b"[")?;
                RowSink::Json { out, written: 0 }
            }
        })
    }

    fn row(&mut self, row: &impl Serialize) -> Result<(), ExportError> {
        match self {
            RowSink::Csv(w) => w.serialize(row)?,
            RowSink::Json { out, written } => {
                out.write_all(if *written == 0 { b"\n" } else { b",\n" })?;
                serde_json::to_writer(&mut *out, row)?;
                *written += 1;
            }
        }
        Ok(())
    }

    fn close(self) -> Result<(), ExportError> {
        match self {
            RowSink::Csv(mut w) => w.flush()?,
            RowSink::Json { mut out, .. } => {
                out.write_all(b"\n]\n")?;
                out.flush()?;
            }
        }
        Ok(())
    }
}
