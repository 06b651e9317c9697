//! `tsv`: tab-separated values, the CSV's columns and values with one tab between cells, for
//! awk, cut and sort.

use super::csv_rows::Delimited;

/// A header line and one line per row, cells separated by one tab. Only a cell holding a
/// tab, a quote or a line break is quoted (none of delaybench's numbers, names or flags
/// does), so `awk -F'\t'` splits each line into the header's fields.
pub type Tsv = Delimited<b'\t'>;

/// The TSV exporter, for the registry (a type alias names no value).
pub const TSV: Tsv = Delimited;

#[cfg(test)]
mod tests {
    use crate::export::{write_table, Format};
    use serde::Serialize;

    #[derive(Serialize)]
    struct Row {
        op: &'static str,
        t_s: Option<f64>,
        lo_s: f64,
    }

    #[test]
    fn any_table_as_tsv_has_one_field_per_column() {
        let rows = [
            Row {
                op: "bcast",
                t_s: Some(1.5e-6),
                lo_s: 1e-6,
            },
            Row {
                op: "reduce",
                t_s: None,
                lo_s: 2e-6,
            },
        ];
        let mut out = Vec::new();
        write_table::<_, &str>(&rows, Format::Tsv, &[], |_| Vec::new(), &mut out).unwrap();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(
            lines,
            [
                vec!["op", "t_s", "lo_s"],
                vec!["bcast", "1.5e-6", "1e-6"],
                vec!["reduce", "", "2e-6"],
            ]
        );
    }
}
