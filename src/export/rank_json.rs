//! Per-rank rows as JSON (`delaybench export --format json`).

use super::{write_rows_streamed, ExportError, ExportRows, RankFormat};
use crate::records::{Records, RecordsError, RunLabel};
use std::io::Write;

/// Writes one JSON array whose elements are the rows of [`super::rank_rows`] as objects with
/// the [`super::RANK_COLUMNS`] keys, one object per line. Seconds are full-precision numbers;
/// non-finite values become `null` (JSON has no NaN).
///
/// Errors: [`ExportError::Json`] or [`ExportError::Io`] when writing fails.
pub fn write_rank_json(records: &Records, out: &mut dyn Write) -> Result<(), ExportError> {
    // One compact object per line rather than pretty-printing: per-rank exports can have
    // millions of rows, and line-wise objects still read well and diff well.
    let blocks = records.blocks.iter().map(Ok::<_, RecordsError>);
    write_rows_streamed(
        &RunLabel::of(&records.header),
        blocks,
        ExportRows::Rank,
        RankFormat::Json,
        out,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::test_support::{json_numbers, records, text};
    use crate::export::{rank_rows, RankRow, RANK_COLUMNS};

    #[test]
    fn array_of_objects_with_every_row() {
        let r = records();
        let out = text(|buf| write_rank_json(&r, buf));
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
        let out = text(|buf| write_rank_json(&r, buf));
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
        let out = text(|buf| write_rank_json(&records(), buf));
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
        let out = text(|buf| write_rank_json(&r, buf));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v, serde_json::json!([]));
    }
}
