//! Per-rank rows as CSV (`delaybench export --format csv`).

use super::{run_id, write_rows_streamed, ExportError, ExportRows, RankFormat};
use crate::records::{Records, RecordsError};
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
        &run_id(records),
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
            "schema_version,run_id,op,bytes,nprocs,delay_model,delay_s,rep,rank,delayed,\
             applied_delay_s,scheduled_start_s,t_start_local_s,t_end_local_s,\
             t_start_global_s,t_end_global_s,valid,invalid_reason,rank_flags"
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
        // Delayed allreduce block, rep 0, rank 0: late by 50 us, valid.
        let line = out.lines().nth(11).unwrap();
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(
            &cells[..10],
            [
                "2",
                "2026-01-01T00:00:00Z-7",
                "allreduce",
                "8",
                "2",
                "50us",
                "0.00005",
                "0",
                "0",
                "true"
            ]
        );
        assert_eq!((cells[16], cells[17], cells[18]), ("true", "", ""));
        // Baseline, rep 1, rank 0: not delayed, and invalid (testdata flags rep 1 on rank 1).
        let cells: Vec<&str> = out.lines().nth(3).unwrap().split(',').collect();
        assert_eq!(
            (cells[5], cells[6], cells[7], cells[8], cells[9], cells[16]),
            ("0", "0.0", "1", "0", "false", "false")
        );
        assert_eq!((cells[17], cells[18]), ("window_overrun", ""));
    }

    #[test]
    fn no_blocks_gives_the_header_alone() {
        let mut r = records();
        r.blocks.clear();
        let out = text(|buf| write_rank_csv(&r, buf));
        assert_eq!(out, format!("{}\n", RANK_COLUMNS.join(",")));
    }
}
