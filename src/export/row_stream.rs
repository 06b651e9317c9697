//! Export rows written block by block, so a records file larger than memory can be exported:
//! the CSV header or the JSON array's opening (JSON Lines have neither)
//! once, then each block's rows as the block arrives, then the closing. The whole file is
//! never held: one block and the writers' buffers.

use super::rank_rows::block_rows;
use super::rep_rows::rep_row;
use super::{ExportError, ExportRows, Format, RowsSpec, RANK_COLUMNS, REP_COLUMNS};
use crate::records::{Block, RecordsError, RunLabel};
use std::borrow::Borrow;
use std::io::Write;

/// Writes the `rows` export of `blocks` (one launch, labelled by `run`: run id, MPI
/// library, hosts, tags) to `out` in `format`, one block at a time, with the format's
/// exporter ([`Format::exporter`]): CSV with a header from [`RANK_COLUMNS`] or
/// [`REP_COLUMNS`] (also for no rows), a JSON array with one compact object per line, or JSON
/// Lines. Seconds are full precision; NaN is `NaN` in CSV and `null` in JSON.
///
/// When a block fails to read (a damaged file), the rows of the blocks before it have been
/// written but the JSON array is left unclosed, so the partial output does not parse as a
/// complete export; CSV and JSON Lines have no closing, so check the exit status (the command
/// fails).
///
/// Errors: [`ExportError::Records`] with the reader's error; [`ExportError`] when writing
/// fails.
pub fn write_rows_streamed<B: Borrow<Block>>(
    run: &RunLabel,
    blocks: impl IntoIterator<Item = Result<B, RecordsError>>,
    rows: ExportRows,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let columns: &[&str] = match rows {
        ExportRows::Rank => &RANK_COLUMNS,
        ExportRows::Rep => &REP_COLUMNS,
    };
    let mut sink = format.exporter().open(&RowsSpec::export(columns), out)?;
    // The per-rank and per-repetition rows have no table view.
    let no_cells = Vec::new;
    for block in blocks {
        let block = block?;
        let b = block.borrow();
        match rows {
            ExportRows::Rank => {
                for row in block_rows(b, run) {
                    sink.row(&row, &no_cells)?;
                }
            }
            ExportRows::Rep => {
                for rep in 0..b.nrep as usize {
                    sink.row(&rep_row(b, rep, run), &no_cells)?;
                }
            }
        }
    }
    sink.close()
}

#[cfg(test)]
mod tests {
    //! The per-rank export in CSV and JSON, written from in-memory records through the
    //! streaming path the command uses.

    use super::*;
    use crate::export::test_support::{json_numbers, records, streamed};
    use crate::export::{rank_rows, RankRow};
    use crate::records::Records;

    /// The per-rank export of `r` in `format`.
    fn rank_text(r: &Records, format: Format) -> String {
        streamed(r, ExportRows::Rank, format)
    }

    #[test]
    fn header_is_exactly_the_columns() {
        let out = rank_text(&records(), Format::Csv);
        assert_eq!(
            out.lines().next().unwrap(),
            "schema_version,run_id,mpi_library,tags,op,bytes,nprocs,algorithm,delay_model,delay_s,rep,\
             rank,host,delayed,applied_delay_s,scheduled_start_s,t_start_local_s,\
             t_end_local_s,t_start_global_s,t_end_global_s,valid,invalid_reason,rank_flags"
        );
    }

    #[test]
    fn serde_field_order_matches_the_header() {
        // The data rows are written by serde: its field order must be the header's.
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(&rank_rows(&records())[0]).unwrap();
        let out = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(out.lines().next().unwrap(), RANK_COLUMNS.join(","));
    }

    #[test]
    fn rows_parse_back_to_the_same_values() {
        let r = records();
        let out = rank_text(&r, Format::Csv);
        let back: Vec<RankRow> = csv::Reader::from_reader(out.as_bytes())
            .deserialize()
            .collect::<Result<_, _>>()
            .unwrap();
        // Exact equality of every f64: shortest round-trip formatting loses nothing.
        assert_eq!(back, rank_rows(&r));
        assert_eq!(out.lines().count(), 1 + back.len());
    }

    #[test]
    fn cells_are_names_and_words() {
        let out = rank_text(&records(), Format::Csv);
        let at = |line: usize, column: &str| -> String {
            let k = RANK_COLUMNS.iter().position(|c| *c == column).unwrap();
            let mut reader = csv::Reader::from_reader(out.as_bytes());
            reader.records().nth(line - 1).unwrap().unwrap()[k].to_string()
        };
        // Delayed allreduce block, rep 0, rank 0: late by 50 us, valid.
        let want = [
            ("schema_version", "5"),
            ("run_id", "00000000-0000-4000-8000-000000000007"),
            ("mpi_library", "synthetic"),
            ("tags", "system=test"),
            ("op", "allreduce"),
            ("bytes", "8"),
            ("nprocs", "2"),
            ("delay_model", "50us"),
            ("delay_s", "0.00005"),
            ("rep", "0"),
            ("rank", "0"),
            ("host", "node0"),
            ("delayed", "true"),
            ("valid", "true"),
            ("invalid_reason", ""),
            ("rank_flags", ""),
        ];
        for (column, value) in want {
            assert_eq!(at(11, column), value, "{column}");
        }
        // Baseline, rep 1, rank 0: not delayed, and invalid (testdata flags rep 1 on rank 1).
        for (column, value) in [
            ("delay_model", "0"),
            ("delay_s", "0.0"),
            ("rep", "1"),
            ("rank", "0"),
            ("delayed", "false"),
            ("valid", "false"),
        ] {
            assert_eq!(at(3, column), value, "{column}");
        }
    }

    #[test]
    fn no_blocks_gives_the_header_alone() {
        let mut r = records();
        r.blocks.clear();
        let out = rank_text(&r, Format::Csv);
        assert_eq!(out, format!("{}\n", RANK_COLUMNS.join(",")));
    }

    #[test]
    fn array_of_objects_with_every_row() {
        let r = records();
        let out = rank_text(&r, Format::Json);
        let back: Vec<RankRow> = serde_json::from_str(&out).unwrap();
        let want = rank_rows(&r);
        assert_eq!(back.len(), want.len());
        for (b, w) in back.iter().zip(&want) {
            assert_eq!(
                (b.op, b.nprocs, b.rep, b.rank),
                (w.op, w.nprocs, w.rep, w.rank)
            );
            assert_eq!((b.delayed, b.valid), (w.delayed, w.valid));
        }
        // Lines: "[", one per row, "]".
        assert_eq!(out.lines().count(), want.len() + 2);
    }

    #[test]
    fn seconds_are_written_exactly() {
        let r = records();
        let out = rank_text(&r, Format::Json);
        let rows = rank_rows(&r);
        type Get = fn(&RankRow) -> f64;
        let columns: [(&str, Get); 6] = [
            ("delay_s", |x| x.delay_s),
            ("applied_delay_s", |x| x.applied_delay_s),
            ("t_start_local_s", |x| x.t_start_local_s),
            ("t_end_local_s", |x| x.t_end_local_s),
            ("t_start_global_s", |x| x.t_start_global_s),
            ("t_end_global_s", |x| x.t_end_global_s),
        ];
        for (key, get) in columns {
            let want: Vec<Option<f64>> = rows.iter().map(|x| Some(get(x))).collect();
            assert_eq!(json_numbers(&out, key), want, "{key}");
        }
    }

    #[test]
    fn objects_have_the_column_keys() {
        let out = rank_text(&records(), Format::Json);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let first = v.as_array().unwrap()[0].as_object().unwrap();
        let mut keys: Vec<&str> = first.keys().map(String::as_str).collect();
        let mut want = RANK_COLUMNS.to_vec();
        keys.sort_unstable();
        want.sort_unstable();
        assert_eq!(keys, want);
        assert_eq!(first["op"], "allreduce");
        assert_eq!(first["delayed"], false);
    }

    #[test]
    fn no_blocks_gives_an_empty_array() {
        let mut r = records();
        r.blocks.clear();
        let out = rank_text(&r, Format::Json);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v, serde_json::json!([]));
    }
}
