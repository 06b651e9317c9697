//! `--format parquet` of `export` and `analyze` on a real run: the Parquet file holds the
//! CSV's rows, row for row and cell for cell, with typed columns (seconds as DOUBLE,
//! counts as INT64, flags as BOOLEAN, names as strings); pyarrow reads it where it is
//! installed; without --output Parquet is refused with exit status 2.

mod common;

use parquet::basic::Type as Physical;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use std::path::Path;

/// The cells of a CSV file, header first.
fn csv_rows(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// Whether the Parquet field `f` is the CSV cell `cell`: numbers equal as numbers (NaN and
/// an empty cell are null), booleans and strings equal as written.
fn same(f: &Field, cell: &str) -> bool {
    match f {
        Field::Null => cell.is_empty() || cell == "NaN",
        Field::Bool(b) => cell == b.to_string(),
        Field::Long(i) => cell.parse::<i64>() == Ok(*i),
        Field::Double(d) => cell.parse::<f64>().is_ok_and(|c| c == *d),
        Field::Str(s) => cell == s,
        _ => false,
    }
}

/// Compares the Parquet file with the CSV file row for row; returns the Parquet column
/// types by name.
fn compare(parquet: &Path, csv: &Path) -> Vec<(String, Physical)> {
    let (header, rows) = csv_rows(csv);
    let reader = SerializedFileReader::new(std::fs::File::open(parquet).unwrap()).unwrap();
    let meta = reader.metadata().file_metadata();
    assert_eq!(meta.num_rows() as usize, rows.len(), "row count");
    let columns: Vec<(String, Physical)> = meta
        .schema_descr()
        .columns()
        .iter()
        .map(|c| (c.name().to_string(), c.physical_type()))
        .collect();
    let names: Vec<&str> = columns.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, header, "the CSV's columns, in its order");
    for (i, (row, want)) in reader.get_row_iter(None).unwrap().zip(&rows).enumerate() {
        let row = row.unwrap();
        for ((name, field), cell) in row.get_column_iter().zip(want) {
            assert!(
                same(field, cell),
                "row {i}, {name}: Parquet {field:?}, CSV {cell:?}"
            );
        }
    }
    columns
}

#[test]
fn parquet_holds_the_csv_rows_with_typed_columns() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--ops",
        "allreduce,bcast",
        "--sizes",
        "8,1KiB",
        "--nrep",
        "30",
    ];
    let args = [
        &args[..],
        &["--no-figures", "--no-summary", "--tag", "system=test"],
    ]
    .concat();
    common::run_records(2, dir.path(), "run.cbor", &args);
    let run = dir.path().join("run.cbor");
    let run = run.to_str().unwrap();
    let at = |name: &str| dir.path().join(name);
    let path = |name: &str| at(name).to_str().unwrap().to_string();

    for (rows, csv, pq) in [
        ("rank", "rank.csv", "rank.parquet"),
        ("rep", "rep.csv", "rep.parquet"),
    ] {
        for (format, file) in [("csv", csv), ("parquet", pq)] {
            let out = common::offline(&[
                "export",
                run,
                "--rows",
                rows,
                "--format",
                format,
                "--output",
                &path(file),
            ]);
            assert!(out.status.success(), "{}", common::text(&out));
        }
        let columns = compare(&at(pq), &at(csv));
        let kind = |name: &str| columns.iter().find(|c| c.0 == name).map(|c| c.1);
        assert_eq!(
            kind("t_start_global_s").or(kind("t_global_s")),
            Some(Physical::DOUBLE)
        );
        assert_eq!(kind("nprocs"), Some(Physical::INT64));
        assert_eq!(kind("valid"), Some(Physical::BOOLEAN));
        assert_eq!(kind("op"), Some(Physical::BYTE_ARRAY));
        let (csv_bytes, pq_bytes) = (
            std::fs::metadata(at(csv)).unwrap().len(),
            std::fs::metadata(at(pq)).unwrap().len(),
        );
        let n = csv_rows(&at(csv)).1.len() as f64;
        eprintln!(
            "--rows {rows}: {n} rows, CSV {:.1} bytes/row, Parquet {:.1} bytes/row",
            csv_bytes as f64 / n,
            pq_bytes as f64 / n
        );
    }

    // The analysis summary too.
    for (format, file) in [("csv", "summary.csv"), ("parquet", "summary.parquet")] {
        let out = common::offline(&["analyze", run, "--format", format, "--output", &path(file)]);
        assert!(out.status.success(), "{}", common::text(&out));
    }
    compare(&at("summary.parquet"), &at("summary.csv"));

    // Parquet is binary: refused on standard output, exit status 2, nothing written.
    for cmd in [
        &["export", run, "--format", "parquet"][..],
        &["analyze", run, "--format", "parquet"],
    ] {
        let out = common::offline(cmd);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{cmd:?}: {}",
            common::text(&out)
        );
        assert!(out.stdout.is_empty(), "{cmd:?}");
        assert!(
            common::text(&out).contains("--output"),
            "{}",
            common::text(&out)
        );
    }
    // And an output is never overwritten.
    let out = common::offline(&[
        "export",
        run,
        "--format",
        "parquet",
        "--output",
        &path("rank.parquet"),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", common::text(&out));

    // pyarrow, where it is installed, reads the same rows and types.
    let script = "import sys, pyarrow.parquet as pq\n\
                  t = pq.read_table(sys.argv[1])\n\
                  print(t.num_rows, t.schema.field('t_start_global_s').type, \
                  t.schema.field('nprocs').type, t.schema.field('valid').type)";
    let Ok(py) = std::process::Command::new("python3")
        .args(["-c", script, &path("rank.parquet")])
        .output()
    else {
        common::skip("reading with pyarrow: python3 is not installed");
        return;
    };
    if !py.status.success() {
        let err = String::from_utf8_lossy(&py.stderr);
        if err.contains("No module named") {
            // scripts/setup.sh installs it with pip where pip may install; Debian's python3
            // has no package of it, so it is a limit of such a host, not a missing part.
            common::skip_known_limit(
                "reading with pyarrow: pyarrow is not installed (pip install pyarrow; Debian \
                 packages none for its python3); the parquet crate read the file",
            );
            return;
        }
        panic!("pyarrow failed: {err}");
    }
    let said = String::from_utf8(py.stdout).unwrap();
    let n = csv_rows(&at("rank.csv")).1.len();
    assert_eq!(said.trim(), format!("{n} double int64 bool"), "{said}");
}
