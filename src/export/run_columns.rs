//! The run's columns (`run_id`, `mpi_library`, `host_names`, `tags`) in front of a one-file
//! table of `analyze` (`--distribution`, `--trend`, `--overlap`, `--timing`, `--truth`), so
//! that such tables of several runs, concatenated, still say which run each row comes from,
//! as the summary and the exports do. Added around the table's own writer, which need not
//! know about runs; text tables (for reading) are left as they are.

use super::{ExportError, Format};
use crate::records::RunLabel;
use std::io::Write;

/// The columns added, in order.
pub const RUN_COLUMNS: [&str; 4] = ["run_id", "mpi_library", "host_names", "tags"];

fn values(run: &RunLabel) -> [&str; 4] {
    [&run.run_id, &run.mpi_library, &run.host_names, &run.tags]
}

/// Writes the table `write` produces in `format` to `out`, with [`RUN_COLUMNS`] first in
/// every row of the data formats (CSV and TSV rows and header, fields of every JSON row
/// object); the table-like formats pass through unchanged
/// ([`super::RowExporter::prepend_columns`]). Cells are copied as text, so numbers keep
/// every digit.
///
/// Errors: those of `write`, and [`ExportError`] when its CSV or JSON does not parse back
/// or writing fails.
pub fn with_run_columns(
    run: &RunLabel,
    format: Format,
    out: &mut dyn Write,
    write: impl FnOnce(&mut dyn Write) -> Result<(), ExportError>,
) -> Result<(), ExportError> {
    let mut table = Vec::new();
    write(&mut table)?;
    let front: Vec<(&str, &str)> = RUN_COLUMNS.into_iter().zip(values(run)).collect();
    format.exporter().prepend_columns(&front, &table, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label() -> RunLabel {
        RunLabel {
            run_id: "id-1".into(),
            mpi_library: "MPICH Version: 4.0".into(),
            hosts: vec!["a".into(), "b".into()],
            host_names: "a,b".into(),
            tags: "k=v;x=y".into(),
        }
    }

    fn through(format: Format, table: &'static str) -> String {
        let mut out = Vec::new();
        with_run_columns(&label(), format, &mut out, |w| {
            w.write_all(table.as_bytes())?;
            Ok(())
        })
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn csv_rows_start_with_the_run_and_keep_their_cells() {
        let out = through(
            Format::Csv,
            "op,median_s\nallreduce,0.000012345678901234567\n",
        );
        let mut lines = out.lines();
        assert_eq!(
            lines.next(),
            Some("run_id,mpi_library,host_names,tags,op,median_s")
        );
        assert_eq!(
            lines.next(),
            Some("id-1,MPICH Version: 4.0,\"a,b\",k=v;x=y,allreduce,0.000012345678901234567")
        );
        assert_eq!(lines.next(), None);
        // No rows: the header alone gains the columns.
        assert_eq!(
            through(Format::Csv, "op\n"),
            "run_id,mpi_library,host_names,tags,op\n"
        );
    }

    #[test]
    fn tsv_rows_start_with_the_run_one_value_per_column() {
        let out = through(Format::Tsv, "op\tmedian_s\nallreduce\t1.5e-5\n");
        let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(
            lines,
            [
                vec![
                    "run_id",
                    "mpi_library",
                    "host_names",
                    "tags",
                    "op",
                    "median_s"
                ],
                vec![
                    "id-1",
                    "MPICH Version: 4.0",
                    "a,b",
                    "k=v;x=y",
                    "allreduce",
                    "1.5e-5"
                ],
            ]
        );
    }

    #[test]
    fn json_rows_gain_the_fields_and_tables_pass_through() {
        let out = through(Format::Json, "[{\"op\":\"bcast\",\"n\":3}]");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v[0]["run_id"], "id-1");
        assert_eq!(v[0]["host_names"], "a,b");
        assert_eq!(v[0]["n"], 3);
        assert_eq!(through(Format::Table, "plain\n"), "plain\n");
    }
}
