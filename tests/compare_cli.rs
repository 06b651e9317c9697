//! `delaybench analyze` over several launches and `delaybench compare A B`, through the
//! binary on records files written to disk (no MPI ranks needed).

mod common;

use common::{offline, text};
use delaybench::plan::Op;
use delaybench::records::{testdata, Footer, RecordsWriter};
use std::path::{Path, PathBuf};

/// Writes a complete records file: allreduce 8 B at P = 2, baseline and 50 us late, 60
/// repetitions whose operation takes `op_time_s`; with a clock warning in the footer. Each
/// file is a run of its own: its run id is its name.
fn write(
    dir: &Path,
    name: &str,
    op_time_s: f64,
    sync: delaybench::plan::ProcessSyncMethod,
) -> PathBuf {
    let path = dir.join(name);
    let mut header = testdata::header(2);
    header.plan.sync = sync;
    header.provenance.run_id = name.into();
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&header).unwrap();
    for delay in [0.0, 50e-6] {
        let b = testdata::block(Op::Allreduce, 8, 2, delay, 60, op_time_s);
        w.write_block(&b).unwrap();
    }
    w.finish(&Footer {
        end_offsets_s: vec![0.0; 2],
        offset_change_s: vec![0.0; 2],
        max_abs_offset_change_s: 3e-6,
        wall_time_s: 1.0,
        warnings: vec!["global clocks were up to 3.00 us apart at the end of the run".into()],
    })
    .unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn compare_two_files_side_by_side() {
    use delaybench::plan::ProcessSyncMethod::{Barrier, Window};
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.cbor", 10e-6, Window);
    let b = write(dir.path(), "b.cbor", 20e-6, Barrier);
    let out = offline(&["compare", s(&a), s(&b), "--format", "csv"]);
    assert!(out.status.success(), "{}", text(&out));
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let headers = reader.headers().unwrap().clone();
    let col = |n: &str| headers.iter().position(|h| h == n).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2);
    // B's baseline takes twice as long (testdata scales every repetition): +100 %, and the
    // intervals are far apart.
    let diff: f64 = rows[0][col("t_global_median_rel_diff")].parse().unwrap();
    assert!((diff - 1.0).abs() < 1e-6, "{diff}");
    assert_eq!(&rows[0][col("t_global_ci_overlap")], "false");
    // The verdict: the bootstrap interval of B − A excludes 0.
    assert_eq!(&rows[0][col("t_global_differs")], "true");
    let lo: f64 = rows[0][col("t_global_median_diff_ci_lo_s")]
        .parse()
        .unwrap();
    assert!(lo > 0.0, "{lo}");
    // Both delayed blocks have t_delta = t0 + delta: b = 0 on each side.
    let bd: f64 = rows[1][col("benefit_diff")].parse().unwrap();
    assert!(bd.abs() < 1e-6, "{bd}");
    // The runs' warnings reach the user.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("A (") && err.contains("global clocks were up to 3.00 us"),
        "{err}"
    );

    let table = offline(&["compare", s(&a), s(&b)]);
    assert!(table.status.success(), "{}", text(&table));
    let stdout = String::from_utf8_lossy(&table.stdout);
    assert!(stdout.contains("+100.0"), "{stdout}");
    assert!(
        stdout.contains("differs: that interval excludes 0"),
        "{stdout}"
    );
}

#[test]
fn compare_two_series_of_launches_decides_over_the_launches() {
    use delaybench::plan::ProcessSyncMethod::Window;
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    // A's launches take 10, 11 and 12 us (run ids: their file names), B's 20, 21 and 22.
    std::fs::create_dir(&a).unwrap();
    std::fs::create_dir(&b).unwrap();
    for k in 1..=3 {
        write(
            &a,
            &format!("launch-{k}.cbor"),
            9e-6 + f64::from(k) * 1e-6,
            Window,
        );
    }
    // B's run ids must differ from A's, which are the same file names.
    for k in 1..=3 {
        let name = format!("launch-{k}.cbor");
        let mut header = testdata::header(2);
        header.provenance.run_id = format!("b-{k}");
        let mut w = RecordsWriter::create(&b.join(&name)).unwrap();
        w.write_header(&header).unwrap();
        for delay in [0.0, 50e-6] {
            let op_time_s = 19e-6 + f64::from(k) * 1e-6;
            w.write_block(&testdata::block(Op::Allreduce, 8, 2, delay, 60, op_time_s))
                .unwrap();
        }
        w.finish(&Footer {
            end_offsets_s: vec![0.0; 2],
            offset_change_s: vec![0.0; 2],
            max_abs_offset_change_s: 0.0,
            wall_time_s: 1.0,
            warnings: Vec::new(),
        })
        .unwrap();
    }
    // Column `c` of the first row (the baseline) of `compare A B --format csv`.
    let first_row = |a: &Path, b: &Path| -> std::collections::HashMap<String, String> {
        let out = offline(&["compare", s(a), s(b), "--format", "csv"]);
        assert!(out.status.success(), "{}", text(&out));
        let mut reader = csv::Reader::from_reader(&out.stdout[..]);
        let headers = reader.headers().unwrap().clone();
        let row = reader.records().next().unwrap().unwrap();
        headers
            .iter()
            .zip(row.iter())
            .map(|(h, v)| (h.to_string(), v.to_string()))
            .collect()
    };
    let num = |r: &std::collections::HashMap<String, String>, c: &str| -> f64 {
        r[c].parse().unwrap_or_else(|_| panic!("{c} = {:?}", r[c]))
    };
    let series = first_row(&a, &b);
    let launch = |k: u32| {
        let name = format!("launch-{k}.cbor");
        first_row(&a.join(&name), &b.join(&name))
    };
    let (first, middle, last) = (launch(1), launch(2), launch(3));
    // Every repetition of every launch counts, and the point is the median over launches.
    assert_eq!(num(&series, "valid_a"), 3.0 * num(&middle, "valid_a"));
    for side in ["a", "b"] {
        let median = format!("t_global_median_{side}_s");
        assert!((num(&series, &median) - num(&middle, &median)).abs() < 1e-12);
        // Each side's interval holds every launch's own median (launches, not
        // repetitions, are the unit).
        assert!(num(&series, &format!("t_global_median_ci_lo_{side}_s")) <= num(&first, &median));
        assert!(num(&series, &format!("t_global_median_ci_hi_{side}_s")) >= num(&last, &median));
    }
    assert_eq!(series["t_global_differs"], "true");
    // The same series on both sides is refused, as the same file is.
    let same = offline(&["compare", s(&a), s(&a)]);
    assert!(!same.status.success(), "{}", text(&same));
}

#[test]
fn analyze_pools_launches_of_one_plan_and_refuses_others() {
    use delaybench::plan::ProcessSyncMethod::{Barrier, Window};
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.cbor", 10e-6, Window);
    let a2 = write(dir.path(), "a2.cbor", 12e-6, Window);
    let out = offline(&["analyze", s(&a), s(&a2), "--format", "json"]);
    assert!(out.status.success(), "{}", text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"].as_array().unwrap().len(), 2);
    let late = &v["rows"][1];
    assert_eq!(late["launches"], 2);
    assert_eq!(late["valid"], 2 * 59);
    assert!(late["launch_median_cv"].as_f64().unwrap() > 0.0);
    // Each file's warning, named by its file.
    let w = v["warnings"].as_array().unwrap();
    assert_eq!(w.len(), 2);
    assert!(
        w[1].as_str().unwrap().contains("a2.cbor: global clocks"),
        "{w:?}"
    );

    // A copy of a run is not another launch: refused before it is read, naming both files.
    let copy = dir.path().join("copy.cbor");
    std::fs::copy(&a, &copy).unwrap();
    for args in [
        &["analyze", s(&a), s(&a2), s(&copy)][..],
        &["compare", s(&a), s(&copy)],
        &["plot", s(&a), s(&copy), "--out", s(dir.path())],
    ] {
        let out = offline(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(s(&a))
                && err.contains(s(&copy))
                && err.contains("same run (run id a.cbor)"),
            "{args:?}: {err}"
        );
    }

    let b = write(dir.path(), "b.cbor", 10e-6, Barrier);
    let out = offline(&["analyze", s(&a), s(&b)]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("plan differs in sync") && err.contains("compare"),
        "{err}"
    );
}
