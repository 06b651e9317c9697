//! Every reader of a records file sees the same global timeline: a real measurement with
//! drift-tracking probes, then, under `posthoc` and under `online`, the t_global and the
//! validity of every block as the end-of-run summary, `analyze` (summary and `--timing`),
//! `export --rows rep`, `plot`'s data, `compare` and `scripts/read_records.py` give them.

mod common;

use common::{mpirun, text, NO_VALID_EXIT};
use delaybench::plot::PlotRun;
use delaybench::records::read_records;
use delaybench::timeline::{validity, GlobalTimes};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// (op, bytes, P, delay model).
type Key = (String, u64, u32, String);

/// Per block: valid repetitions and the median t_global of the valid ones (seconds).
type Blocks = BTreeMap<Key, (u32, Option<f64>)>;

fn offline(args: &[&str]) -> std::process::Output {
    let out = Command::new(common::exe()).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out));
    out
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    (n > 0).then(|| {
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    })
}

fn key_of(v: &Value) -> Key {
    (
        v["op"].as_str().unwrap().to_string(),
        v["bytes"].as_u64().unwrap(),
        v["nprocs"].as_u64().unwrap() as u32,
        v["delay_model"].as_str().unwrap().to_string(),
    )
}

fn analyze_json(file: &str, times: &str) -> Blocks {
    let out = offline(&["analyze", file, "--format", "json", "--global-times", times]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["global_times"], times,
        "analyze names the times it used"
    );
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let k = key_of(r);
            (
                k,
                (
                    r["valid"].as_u64().unwrap() as u32,
                    r["t_global_median_s"].as_f64(),
                ),
            )
        })
        .collect()
}

/// `analyze --timing global` (JSON: no delay model column, so keyed by δ in the caller).
fn timing_json(file: &str, times: &str) -> Vec<(u32, Option<f64>)> {
    let out = offline(&[
        "analyze",
        file,
        "--timing",
        "global",
        "--format",
        "json",
        "--global-times",
        times,
    ]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = doc.as_array().or_else(|| doc["rows"].as_array()).unwrap();
    rows.iter()
        .map(|r| {
            (
                r["valid"].as_u64().unwrap() as u32,
                r["t_global_median_s"].as_f64(),
            )
        })
        .collect()
}

fn export_rep(file: &str, times: &str) -> Blocks {
    let out = offline(&["export", file, "--rows", "rep", "--global-times", times]);
    let mut reader = csv::Reader::from_reader(&out.stdout[..]);
    let mut per: BTreeMap<Key, (u32, Vec<f64>)> = BTreeMap::new();
    for row in reader.deserialize::<BTreeMap<String, String>>() {
        let row = row.unwrap();
        let k = (
            row["op"].clone(),
            row["bytes"].parse().unwrap(),
            row["nprocs"].parse().unwrap(),
            row["delay_model"].clone(),
        );
        let e = per.entry(k).or_default();
        if row["valid"] == "true" {
            e.0 += 1;
            e.1.push(row["t_global_s"].parse().unwrap());
        }
    }
    per.into_iter()
        .map(|(k, (n, ts))| (k, (n, median(ts))))
        .collect()
}

fn plot_data(file: &Path, times: GlobalTimes) -> Blocks {
    let run = PlotRun::read(file, times).unwrap();
    run.launch
        .blocks
        .iter()
        .map(|b| {
            let k = (
                b.op.name().to_string(),
                b.bytes,
                b.nprocs,
                b.delay_model.clone(),
            );
            (k, (b.t_globals.len() as u32, median(b.t_globals.clone())))
        })
        .collect()
}

/// A copy of the records file `file` under another run id, as another launch of its plan:
/// `compare` refuses a run beside itself.
fn another_run(file: &str) -> String {
    let mut r = read_records(Path::new(file)).unwrap();
    r.header.provenance.run_id.push_str("-copy");
    let copy = format!("{file}.copy.cbor");
    let mut w = delaybench::records::RecordsWriter::create(Path::new(&copy)).unwrap();
    w.write_header(&r.header).unwrap();
    for b in &r.blocks {
        w.write_block(b).unwrap();
    }
    w.finish(r.footer.as_ref().unwrap()).unwrap();
    copy
}

fn compare_json(file: &str, times: &str) -> Blocks {
    let copy = another_run(file);
    let out = offline(&[
        "compare",
        file,
        &copy,
        "--format",
        "json",
        "--global-times",
        times,
    ]);
    // Removed for the next choice of times: the records writer never overwrites.
    std::fs::remove_file(&copy).unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = doc.as_array().or_else(|| doc["rows"].as_array()).unwrap();
    rows.iter()
        .map(|r| {
            assert_eq!(r["t_global_median_a_s"], r["t_global_median_b_s"]);
            (
                key_of(r),
                (
                    r["valid_a"].as_u64().unwrap() as u32,
                    r["t_global_median_a_s"].as_f64(),
                ),
            )
        })
        .collect()
}

/// `scripts/read_records.py`, or `None` (the test recorded as skipped) without python3, cbor2
/// or numpy.
fn python(file: &str, times: &str) -> Option<Blocks> {
    let script_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts");
    let code = format!(
        "import sys, json; sys.path.insert(0, '{script_dir}'); import numpy as np; \
         from read_records import read_records; \
         h, bs, f, used = read_records('{file}', '{times}'); \
         assert used == '{times}', used; \
         out = []\n\
         for b in bs:\n\
         \x20   valid = (b['flags'] == 0).all(axis=1)\n\
         \x20   t = b['t_end_global_s'].max(axis=1) - b['t_start_global_s'].min(axis=1)\n\
         \x20   out.append([b['op'], b['bytes'], b['nprocs'], b['delay_model'], int(valid.sum()), \
                 float(np.median(t[valid])) if valid.any() else None])\n\
         print(json.dumps(out))"
    );
    let out = match Command::new("python3").args(["-c", &code]).output() {
        Ok(out) => out,
        Err(err) => {
            common::skip(&format!("read_records.py: python3 does not run: {err}"));
            return None;
        }
    };
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        if err.contains("No module named") {
            let missing = err.lines().rfind(|l| l.contains("No module named"));
            let missing = missing.unwrap_or_default().trim();
            common::skip(&format!(
                "read_records.py: {missing}: pip install cbor2 numpy"
            ));
            return None;
        }
        panic!("read_records.py failed: {err}");
    }
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    Some(
        rows.iter()
            .map(|r| {
                let k = (
                    r[0].as_str().unwrap().to_string(),
                    r[1].as_u64().unwrap(),
                    r[2].as_u64().unwrap() as u32,
                    r[3].as_str().unwrap().to_string(),
                );
                (k, (r[4].as_u64().unwrap() as u32, r[5].as_f64()))
            })
            .collect(),
    )
}

fn assert_same(what: &str, want: &Blocks, got: &Blocks) {
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>(),
        "{what}: blocks"
    );
    for (k, (n, t)) in want {
        let (m, u) = &got[k];
        assert_eq!(n, m, "{what}: valid repetitions of {k:?}");
        match (t, u) {
            (Some(t), Some(u)) => assert!(
                (t - u).abs() <= 1e-12 + 1e-9 * t.abs(),
                "{what}: median t_global of {k:?}: {t} vs {u}"
            ),
            (None, None) => {}
            _ => panic!("{what}: median t_global of {k:?}: {t:?} vs {u:?}"),
        }
    }
}

#[test]
fn every_reader_gives_the_same_t_global_and_validity_under_each_choice_of_times() {
    let dir = tempfile::tempdir().unwrap();
    // Emulated clocks that drift apart, so the ranks synchronise themselves rather than share
    // one host clock, and probes every 20 ms, also inside blocks: post-hoc times differ from
    // the online ones.
    let out = mpirun(
        3,
        &[
            "--ops",
            "allreduce,ibcast",
            "--sizes",
            "8",
            "--procs",
            "2,3",
            "--nrep",
            "150",
            "--delay",
            "50us",
            "--track-every",
            "20ms",
            "--emulate-clock",
            "offset=1.5ms*rank,skew=20ppm*rank",
            "--output",
            "run.cbor",
            "--figures",
            "figs",
        ],
        dir.path(),
    );
    assert!(
        matches!(out.status.code(), Some(0 | NO_VALID_EXIT)),
        "{}",
        text(&out)
    );
    let path = dir.path().join("run.cbor");
    let file = path.to_str().unwrap();
    let raw = read_records(&path).unwrap();
    assert!(
        raw.blocks.iter().any(|b| !b.clock_probes.is_empty()),
        "the run must have probes for post-hoc times to differ"
    );
    // One rule: deciding validity again on the recorded (online) times gives the run's flags.
    for b in &raw.blocks {
        let mut again = b.clone();
        let changes = validity::redecide(&mut again);
        assert!(!changes.any(), "{} P={}: {changes:?}", b.op, b.nprocs);
        assert_eq!(again.flags, b.flags);
    }

    // The end-of-run summary is the table `analyze` prints (default: post-hoc).
    let table = offline(&["analyze", file]);
    let summary = String::from_utf8_lossy(&out.stdout);
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        summary.contains(table.trim()),
        "end-of-run summary:\n{summary}\nanalyze:\n{table}"
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("global times: post-hoc"));

    let mut differ = false;
    for (name, times) in [
        ("posthoc", GlobalTimes::Posthoc),
        ("online", GlobalTimes::Online),
    ] {
        let want = analyze_json(file, name);
        assert_same(&format!("export {name}"), &want, &export_rep(file, name));
        assert_same(&format!("plot {name}"), &want, &plot_data(&path, times));
        assert_same(&format!("compare {name}"), &want, &compare_json(file, name));
        if let Some(py) = python(file, name) {
            assert_same(&format!("read_records.py {name}"), &want, &py);
        }
        // --timing has one row per block in file order; so has plot's digest.
        let timing = timing_json(file, name);
        let digest = PlotRun::read(&path, times).unwrap().launch.blocks;
        assert_eq!(timing.len(), digest.len());
        for ((n, t), b) in timing.iter().zip(&digest) {
            let k = (
                b.op.name().to_string(),
                b.bytes,
                b.nprocs,
                b.delay_model.clone(),
            );
            assert_eq!(want[&k], (*n, *t), "--timing {name} {k:?}");
        }
        if name == "online" {
            differ = want != analyze_json(file, "posthoc");
        }
    }
    // Otherwise nothing above could tell a reader that ignored the choice apart.
    assert!(differ, "post-hoc and online times gave identical medians");
}
