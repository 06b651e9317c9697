//! The CSV and JSON schemas of `analyze` and `export` are the ones documented in
//! docs/exports.md: the column tables there, the column constants, and what the exporters
//! actually write must all agree, in order, with the documented schema versions.

use delaybench::analysis::{analyze, Bootstrap, ANALYZE_SCHEMA_VERSION};
use delaybench::export::{
    write_rows_streamed, write_summary, ExportRows, Format, EXPORT_SCHEMA_VERSION, RANK_COLUMNS,
    REP_COLUMNS, SUMMARY_COLUMNS,
};
use delaybench::plan::Op;
use delaybench::records::{testdata, Records, RecordsError, RunLabel};

const DOC: &str = include_str!("../docs/exports.md");

/// The backticked names in the first column of the table after `<!-- {name} columns -->`.
fn documented(name: &str) -> Vec<String> {
    let marker = format!("<!-- {name} columns -->");
    let start = DOC
        .find(&marker)
        .unwrap_or_else(|| panic!("{marker} missing"))
        + marker.len();
    DOC[start..]
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with('|'))
        .skip(2) // header and rule
        .map(|l| {
            let first = l.split('|').nth(1).unwrap().trim();
            first.trim_matches('`').to_string()
        })
        .collect()
}

fn records() -> Records {
    Records {
        header: testdata::header(2),
        blocks: vec![
            testdata::block(Op::Allreduce, 8, 2, 0.0, 40, 10e-6),
            testdata::block(Op::Allreduce, 8, 2, 50e-6, 40, 10e-6),
        ],
        footer: None,
        truncated: false,
    }
}

fn text(f: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut buf = Vec::new();
    f(&mut buf);
    String::from_utf8(buf).unwrap()
}

fn csv_header(out: &str) -> Vec<String> {
    out.lines()
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect()
}

#[test]
fn documented_columns_are_the_constants() {
    assert_eq!(documented("analyze"), SUMMARY_COLUMNS);
    assert_eq!(documented("rank"), RANK_COLUMNS);
    assert_eq!(documented("rep"), REP_COLUMNS);
    assert!(DOC.contains(&format!(
        "schema `delaybench-analyze`, version {ANALYZE_SCHEMA_VERSION}"
    )));
    assert!(DOC.contains(&format!(
        "`export --rows rank` (default; version {EXPORT_SCHEMA_VERSION})"
    )));
}

#[test]
fn analyze_csv_and_json_follow_the_schema() {
    let a = analyze(&["run.cbor".into()], &[records()], Bootstrap::default()).unwrap();
    let csv = text(|b| write_summary(&a, Format::Csv, b).unwrap());
    assert_eq!(csv_header(&csv), documented("analyze"));
    // Every data row has every column and says its version.
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    for rec in reader.records() {
        let rec = rec.unwrap();
        assert_eq!(rec.len(), SUMMARY_COLUMNS.len());
        assert_eq!(&rec[0], ANALYZE_SCHEMA_VERSION.to_string());
    }
    let json = text(|b| write_summary(&a, Format::Json, b).unwrap());
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["schema"], "delaybench-analyze");
    assert_eq!(v["schema_version"], ANALYZE_SCHEMA_VERSION);
    for key in ["tool_version", "files", "bootstrap", "warnings", "rows"] {
        assert!(v.get(key).is_some(), "{key} missing");
    }
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for row in rows {
        let mut keys: Vec<&String> = row.as_object().unwrap().keys().collect();
        let mut want: Vec<String> = documented("analyze");
        keys.sort();
        want.sort();
        assert_eq!(keys, want.iter().collect::<Vec<_>>());
    }
    // Booleans are JSON booleans and seconds are numbers.
    assert!(rows[1]["benefit_significant"].is_boolean());
    assert!(rows[1]["t_global_median_s"].is_f64());
}

#[test]
fn export_csv_and_json_follow_the_schema() {
    let r = records();
    for (name, rows) in [("rank", "rank"), ("rep", "rep")] {
        let kind = match rows {
            "rank" => ExportRows::Rank,
            _ => ExportRows::Rep,
        };
        let run = RunLabel::of(&r.header);
        let write = |format, b: &mut Vec<u8>| {
            let blocks = r.blocks.iter().map(Ok::<_, RecordsError>);
            write_rows_streamed(&run, blocks, kind, format, b).unwrap()
        };
        let csv = text(|b| write(Format::Csv, b));
        assert_eq!(csv_header(&csv), documented(name), "{name}");
        let json = text(|b| write(Format::Json, b));
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let first = v[0].as_object().unwrap();
        let mut keys: Vec<&String> = first.keys().collect();
        let mut want = documented(name);
        keys.sort();
        want.sort();
        assert_eq!(keys, want.iter().collect::<Vec<_>>(), "{name}");
        assert_eq!(v[0]["schema_version"], EXPORT_SCHEMA_VERSION);
    }
}
