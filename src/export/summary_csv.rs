//! The analysis as CSV (`delaybench analyze --format csv`): the CSV exporter's summary
//! ([`super::RowExporter::write_summary`]), a header line ([`super::SUMMARY_COLUMNS`]) and one
//! row per configuration: the op by name, bytes, P, seconds as shortest round-trip f64 (they
//! parse back to the same value), benefits as fractions, `true`/`false` flags, and an empty
//! cell for `None`. The run's warnings are not in the CSV (a comment line would trip up
//! plain CSV readers): `delaybench analyze` prints them on standard error. This file holds
//! the tests that pin it.

#[cfg(test)]
mod tests {
    use crate::analysis::{Analysis, ANALYZE_SCHEMA_VERSION};
    use crate::export::test_support::{analysis, text};
    use crate::export::{Format, SUMMARY_COLUMNS};

    fn csv_text(a: &Analysis) -> String {
        text(|buf| Format::Csv.exporter().write_summary(a, buf))
    }

    #[test]
    fn header_is_exactly_the_columns() {
        let out = csv_text(&analysis());
        assert_eq!(out.lines().next().unwrap(), SUMMARY_COLUMNS.join(","));
        let mut empty = analysis();
        empty.rows.clear();
        assert_eq!(csv_text(&empty), format!("{}\n", SUMMARY_COLUMNS.join(",")));
    }

    #[test]
    fn serde_field_order_matches_the_header() {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.serialize(&analysis().rows[0]).unwrap();
        let out = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(out.lines().next().unwrap(), SUMMARY_COLUMNS.join(","));
    }

    /// The cell of `column` in data line `line` (1 = first row).
    fn cell<'a>(rec: &'a [csv::StringRecord], line: usize, column: &str) -> &'a str {
        let k = SUMMARY_COLUMNS.iter().position(|c| *c == column).unwrap();
        &rec[line - 1][k]
    }

    #[test]
    fn cells_hold_versions_units_and_empty_nones() {
        let out = csv_text(&analysis());
        let mut reader = csv::Reader::from_reader(out.as_bytes());
        let rec: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        assert_eq!(rec.len(), 4);
        for line in 1..=4 {
            assert_eq!(
                cell(&rec, line, "schema_version"),
                ANALYZE_SCHEMA_VERSION.to_string()
            );
        }
        // Baseline allreduce 8 B P=2: 4 of 5 valid, no benefit.
        assert_eq!(cell(&rec, 1, "delay_model"), "0");
        assert_eq!((cell(&rec, 1, "valid"), cell(&rec, 1, "total")), ("4", "5"));
        assert_eq!(cell(&rec, 1, "benefit_median"), "");
        assert_eq!(cell(&rec, 1, "few_valid"), "true");
        // Delayed: 4 valid repetitions a side, too few for an interval or a significance.
        assert_eq!(cell(&rec, 2, "delay_model"), "50us");
        assert_eq!(cell(&rec, 2, "delay_s"), "0.00005");
        assert_eq!(cell(&rec, 2, "benefit_significant"), "");
        assert_eq!(cell(&rec, 2, "benefit_median_ci_lo"), "");
        let ceiling: f64 = cell(&rec, 2, "benefit_ceiling").parse().unwrap();
        assert!((ceiling - 0.25).abs() < 1e-9, "{ceiling}");
        // The cost, by hand: valid t_globals 11..14 us at δ = 0 and 61..64 us at 50 us, so
        // 62.5 − 12.5 = 50 us; none on the baseline row.
        let cost: f64 = cell(&rec, 2, "cost_median_s").parse().unwrap();
        assert!((cost - 50e-6).abs() < 1e-12, "{cost}");
        assert_eq!(cell(&rec, 2, "cost_median_ci_lo_s"), "");
        assert_eq!(cell(&rec, 2, "cost_median_ci_hi_s"), "");
        assert_eq!(cell(&rec, 1, "cost_median_s"), "");
        // Iallreduce 1 KiB has no baseline: t0 and benefit are empty, t_global is not.
        assert_eq!(cell(&rec, 4, "t0_median_s"), "");
        assert_eq!(cell(&rec, 4, "benefit_min"), "");
        assert_eq!(cell(&rec, 4, "valid0"), "0");
        assert_ne!(cell(&rec, 4, "t_global_median_s"), "");
    }

    #[test]
    fn values_parse_back_exactly() {
        let a = analysis();
        let out = csv_text(&a);
        let mut reader = csv::Reader::from_reader(out.as_bytes());
        let rec: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        let num = |s: &str| (!s.is_empty()).then(|| s.parse::<f64>().unwrap());
        for (line, row) in a.rows.iter().enumerate() {
            let line = line + 1;
            // Bit-exact, not within a tolerance.
            assert_eq!(num(cell(&rec, line, "t_global_iqm_s")), row.t_global_iqm_s);
            assert_eq!(num(cell(&rec, line, "t_global_std_s")), row.t_global_std_s);
            assert_eq!(
                num(cell(&rec, line, "t_global_median_ci_lo_s")),
                row.t_global_median_ci_lo_s
            );
            assert_eq!(num(cell(&rec, line, "benefit_median")), row.benefit_median);
            assert_eq!(
                num(cell(&rec, line, "benefit_of_ceiling")),
                row.benefit_of_ceiling
            );
        }
    }
}
