//! Per-rank rows as CSV (`delaybench export --format csv`).

use super::{write_rows_streamed, ExportError, ExportRows, RankFormat};
use crate::records::{Records, RecordsError, RunLabel};
use std::io::Write;

/// Writes a header line ([`RANK_COLUMNS`]) and one CSV row per (block, repetition, rank) of
/// `records` (see [`super::RankRow`]): seconds as shortest round-trip f64 (they parse back to
/// the same value), booleans as `true`/`false`, the op by name. Rows are streamed, not
/// collected.
///
/// Errors: [`ExportError::Csv`] when writing fails.
pub fn write_rank_csv(records: &Records, out: &mut dyn Write) -> Result<(), ExportError> {
    let blocks = records.blocks.iter().map(Ok::<_, RecordsError>);
    write_rows_streamed(
        &RunLabel::of(&records.header),
        blocks,
        ExportRows::Rank,
        RankFormat::Csv,
        out,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::test_support::{records, text};
    use crate::export::{rank_rows, RankRow, RANK_COLUMNS};

    #[test]
    fn header_is_exactly_the_columns() {
        let out = text(|buf| write_rank_csv(&records(), buf));
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
        let out = text(|buf| write_rank_csv(&r, buf));
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
        let out = text(|buf| write_rank_csv(&records(), buf));
        let at = |line: usize, column: &str| -> String {
            let k = RANK_COLUMNS.iter().position(|c| *c == column).unwrap();
            let mut reader = csv::Reader::from_reader(out.as_bytes());
            reader.records().nth(line - 1).unwrap().unwrap()[k].to_string()
        };
        // Delayed allreduce block, rep 0, rank 0: late by 50 us, valid.
        let want = [
            ("schema_version", "4"),
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
        let out = text(|buf| write_rank_csv(&r, buf));
        assert_eq!(out, format!("{}\n", RANK_COLUMNS.join(",")));
    }
}
