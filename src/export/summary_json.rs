//! The summary as JSON (`delaybench analyze --format json`).

use super::{ExportError, SummaryExporter};
use crate::analysis::SummaryRow;
use std::io::{BufWriter, Write};

/// A pretty-printed JSON array with one object per configuration, keyed by
/// [`super::SUMMARY_COLUMNS`]: the op by name, seconds as full-precision numbers, the benefit
/// as a fraction, `null` for `None` (and for non-finite values, which JSON cannot hold).
#[derive(Debug, Clone, Copy, Default)]
pub struct SummaryJson;

impl SummaryExporter for SummaryJson {
    fn write(&self, rows: &[SummaryRow], out: &mut dyn Write) -> Result<(), ExportError> {
        // serde_json writes in many small pieces; standard output is only line-buffered.
        let mut out = BufWriter::new(out);
        serde_json::to_writer_pretty(&mut out, rows)?;
        out.write_all(b"\n")?;
        out.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::summarize;
    use crate::export::test_support::{json_numbers, records, text};
    use crate::export::SUMMARY_COLUMNS;
    use serde_json::Value;

    fn json(rows: &[SummaryRow]) -> Value {
        serde_json::from_str(&text(|buf| SummaryJson.write(rows, buf))).unwrap()
    }

    #[test]
    fn array_of_objects_with_the_column_keys() {
        let rows = summarize(&records());
        let v = json(&rows);
        let objects = v.as_array().unwrap();
        assert_eq!(objects.len(), rows.len());
        for o in objects {
            let mut keys: Vec<&str> = o.as_object().unwrap().keys().map(String::as_str).collect();
            let mut want = SUMMARY_COLUMNS.to_vec();
            keys.sort_unstable();
            want.sort_unstable();
            assert_eq!(keys, want);
        }
        assert_eq!(objects[0]["op"], "allreduce");
        assert_eq!(objects[0]["valid"], 4);
        assert_eq!(objects[0]["total"], 5);
        assert_eq!(json(&[]), serde_json::json!([]));
    }

    #[test]
    fn none_is_null_and_numbers_are_exact() {
        let rows = summarize(&records());
        let out = text(|buf| SummaryJson.write(&rows, buf));
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v[0]["benefit_min"], Value::Null);
        assert_eq!(v[3]["t0_min_s"], Value::Null);
        type Get = fn(&SummaryRow) -> Option<f64>;
        let columns: [(&str, Get); 7] = [
            ("delay_s", |x| Some(x.delay_s)),
            ("t_global_min_s", |x| x.t_global_min_s),
            ("t_global_median_s", |x| x.t_global_median_s),
            ("t0_min_s", |x| x.t0_min_s),
            ("t0_median_s", |x| x.t0_median_s),
            ("benefit_min", |x| x.benefit_min),
            ("benefit_median", |x| x.benefit_median),
        ];
        for (key, get) in columns {
            let want: Vec<Option<f64>> = rows.iter().map(get).collect();
            // Bit-exact, read with a correctly rounding parser.
            assert_eq!(json_numbers(&out, key), want, "{key}");
        }
    }
}
