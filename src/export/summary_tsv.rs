//! The analysis as tab-separated values (`delaybench analyze --format tsv`), for awk, cut and
//! sort: the TSV exporter's summary ([`super::RowExporter::write_summary`]), a header line
//! ([`super::SUMMARY_COLUMNS`]) and one line per configuration, cells separated by one tab:
//! the CSV's columns and values (seconds as shortest round-trip f64, benefits as fractions,
//! `true`/`false`, an empty cell for `None`), one value per column, so each interval bound
//! has its own column. No cell holds a tab or a quote, so `awk -F'\t'` splits every line
//! into exactly the header's fields. The runs' warnings go to standard error, as for CSV.
//! This file holds the tests that pin it.

#[cfg(test)]
mod tests {
    use crate::export::test_support::{analysis, text};
    use crate::export::{Format, SUMMARY_COLUMNS};

    #[test]
    fn every_line_has_one_field_per_column() {
        let a = analysis();
        let out = text(|buf| Format::Tsv.exporter().write_summary(&a, buf));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), a.rows.len() + 1);
        assert_eq!(lines[0], SUMMARY_COLUMNS.join("\t"));
        for line in &lines {
            // What awk -F'\t' sees: exactly the columns, no quoted cell.
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), SUMMARY_COLUMNS.len(), "{line}");
            assert!(!line.contains('"'), "{line}");
        }
    }

    #[test]
    fn cells_parse_back_to_the_rows() {
        let a = analysis();
        let out = text(|buf| Format::Tsv.exporter().write_summary(&a, buf));
        let col = |name: &str| SUMMARY_COLUMNS.iter().position(|c| *c == name).unwrap();
        for (line, row) in out.lines().skip(1).zip(&a.rows) {
            let f: Vec<&str> = line.split('\t').collect();
            let num = |name: &str| {
                let cell = f[col(name)];
                (!cell.is_empty()).then(|| cell.parse::<f64>().unwrap())
            };
            assert_eq!(f[col("op")], row.op.name());
            assert_eq!(f[col("valid")], row.valid.to_string());
            // Bit-exact, and each interval bound in its own column.
            assert_eq!(num("t_global_median_s"), row.t_global_median_s);
            assert_eq!(num("t_global_median_ci_lo_s"), row.t_global_median_ci_lo_s);
            assert_eq!(num("t_global_median_ci_hi_s"), row.t_global_median_ci_hi_s);
            assert_eq!(num("benefit_median"), row.benefit_median);
        }
    }
}
