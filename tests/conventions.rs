//! What OSU, IMB, awk and pandas users expect, through the binary: size ranges and the
//! decimal-unit warning on stderr, TSV with one value per column, JSON Lines.

mod common;

use delaybench::export::SUMMARY_COLUMNS;
use delaybench::plan::Op;
use delaybench::records::{testdata, RecordsWriter};

#[test]
fn a_decimal_size_unit_is_warned_about_once_before_anything_runs() {
    // A dry run plans without MPI; a build without MPI refuses, after the warning.
    let out = common::offline(&["-m", "8:1k", "--dry-run", "--world-size", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warning = "warning: size '1k' has a decimal unit and means 1000 bytes";
    assert_eq!(stderr.matches(warning).count(), 1, "{stderr}");
    let out = common::offline(&["-m", "8:1KiB", "--dry-run", "--world-size", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("decimal unit"), "{stderr}");
    if cfg!(feature = "mpi") {
        // The plan holds the powers of two from 8 B to 1 KiB.
        assert!(out.status.success(), "{stderr}");
        assert!(
            stderr.contains("8B, 16B, 32B, 64B, 128B, 256B, 512B, 1KiB"),
            "{stderr}"
        );
    }
}

fn records(dir: &std::path::Path) -> String {
    let path = dir.join("run.cbor");
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&testdata::header(2)).unwrap();
    for delay in [0.0, 50e-6] {
        w.write_block(&testdata::block(Op::Allreduce, 8, 2, delay, 40, 1e-5))
            .unwrap();
    }
    w.finish(&testdata::footer(2)).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn tsv_has_one_field_per_column_and_jsonl_one_object_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = records(dir.path());
    let out = common::offline(&["analyze", &file, "--format", "tsv"]);
    assert!(out.status.success(), "{}", common::text(&out));
    let tsv = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Vec<&str>> = tsv.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines.len(), 3, "{tsv}");
    assert_eq!(lines[0], SUMMARY_COLUMNS);
    let col = |name| SUMMARY_COLUMNS.iter().position(|c| *c == name).unwrap();
    for line in &lines {
        assert_eq!(line.len(), SUMMARY_COLUMNS.len());
    }
    // The delayed row's cost: 50 us late, t_global 50 us longer at every repetition.
    let cost: f64 = lines[2][col("cost_median_s")].parse().unwrap();
    assert!((cost - 50e-6).abs() < 1e-9, "{cost}");

    let out = common::offline(&["export", &file, "--rows", "rep", "--format", "jsonl"]);
    assert!(out.status.success(), "{}", common::text(&out));
    let jsonl = String::from_utf8(out.stdout).unwrap();
    assert_eq!(jsonl.lines().count(), 80);
    for line in jsonl.lines() {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(row["t_global_s"].is_number(), "{line}");
    }
}
