//! The summary as CSV (`delaybench analyze --format csv`).

use super::{ExportError, SummaryExporter, SUMMARY_COLUMNS};
use crate::analysis::SummaryRow;
use std::io::Write;

/// CSV with a header line ([`SUMMARY_COLUMNS`]) and one row per configuration: the op by
/// name, bytes, P, seconds as shortest round-trip f64 (they parse back to the same value),
/// the benefit as a fraction, and an empty cell for `None`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SummaryCsv;

impl SummaryExporter for SummaryCsv {
    fn write(&self, rows: &[SummaryRow], out: &mut dyn Write) -> Result<(), ExportError> {
        // The header comes from the column list rather than from serde so that an empty
        // summary still gives a header; a unit test pins the serde field order to the list.
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(out);
        w.write_record(SUMMARY_COLUMNS)?;
        for row in rows {
            w.serialize(row)?;
        }
        w.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::summarize;
    use crate::export::test_support::{records, text};

    fn csv_text(rows: &[SummaryRow]) -> String {
        text(|buf| SummaryCsv.write(rows, buf))
    }

    #[test]
    fn header_is_exactly_the_columns() {
        let out = csv_text(&summarize(&records()));
        assert_eq!(
            out.lines().next().unwrap(),
            "op,bytes,nprocs,delay_s,valid,total,t_global_min_s,t_global_median_s,\
             t0_min_s,t0_median_s,benefit_min,benefit_median"
        );
        assert_eq!(csv_text(&[]), format!("{}\n", SUMMARY_COLUMNS.join(",")));
    }

    #[test]
    fn serde_field_order_matches_the_header() {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(&summarize(&records())[0]).unwrap();
        let out = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(out.lines().next().unwrap(), SUMMARY_COLUMNS.join(","));
    }

    #[test]
    fn none_is_an_empty_cell() {
        let out = csv_text(&summarize(&records()));
        let lines: Vec<&str> = out.lines().collect();
        // Baseline: t0 is known but there is no benefit.
        assert!(
            lines[1].starts_with("allreduce,8,2,0.0,4,5,"),
            "{}",
            lines[1]
        );
        assert!(lines[1].ends_with(",,"), "{}", lines[1]);
        // Iallreduce 1 KiB has no baseline: t0 and benefit are all empty.
        assert!(
            lines[4].starts_with("iallreduce,1024,4,0.00005,3,4,"),
            "{}",
            lines[4]
        );
        assert!(lines[4].ends_with(",,,,"), "{}", lines[4]);
    }

    #[test]
    fn values_parse_back_exactly() {
        let rows = summarize(&records());
        let out = csv_text(&rows);
        let mut reader = csv::Reader::from_reader(out.as_bytes());
        let parsed: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(parsed.len(), rows.len());
        let cell = |s: &str| (!s.is_empty()).then(|| s.parse::<f64>().unwrap());
        for (rec, row) in parsed.iter().zip(&rows) {
            assert_eq!(&rec[0], row.op.name());
            assert_eq!(rec[1].parse::<u64>().unwrap(), row.bytes);
            assert_eq!(rec[3].parse::<f64>().unwrap(), row.delay_s);
            assert_eq!(rec[4].parse::<u32>().unwrap(), row.valid);
            let want = [
                row.t_global_min_s,
                row.t_global_median_s,
                row.t0_min_s,
                row.t0_median_s,
                row.benefit_min,
                row.benefit_median,
            ];
            for (k, want) in want.into_iter().enumerate() {
                // Bit-exact, not within a tolerance.
                assert_eq!(cell(&rec[6 + k]), want, "column {}", SUMMARY_COLUMNS[6 + k]);
            }
        }
    }
}
