//! `delaybench tune` for an application, before and after (docs/algorithms.md, "Before and
//! after: your application"): tests/capture/tune_app.c, whose last rank computes 200 us more
//! than the others before each of 300 `MPI_Allreduce` calls of 64 KiB, is captured; the
//! loop's call site is replayed under every allreduce algorithm of the build's library;
//! `tune` writes the library's file for that replayed pattern (`--pattern
//! replay:capture@SITE`) and checks it with `--verify`; the application runs again under the
//! capture with the file; and the time its ranks spent in the site's calls before and after
//! is set side by side with a bootstrap interval of the difference of the medians.
//!
//! Two ranks on a shared two-core machine give no gain to assert (and a gain would be the
//! machine's, not the method's): the test asserts the mechanics (every step's output read
//! back, the file's rule for the site's (op, P, size), the library obeying it where the
//! fingerprint can tell) and prints the figures.

mod common;
#[path = "capture/support.rs"]
mod support;

use common::{exe, text};
use delaybench::analysis::tuning::{library_algorithm, OpenMpiLookup, TuneLibrary};
use delaybench::analysis::{median, Bootstrap};
use delaybench::capture::{match_calls, read_captures};
use delaybench::plan::Op;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;
use support::{build_capture_library, build_test_program, capture_env};

/// Ranks: the two cores of the test machine, without oversubscription.
const NP: u32 = 2;
/// The program's loop: calls at the tuned site (its default).
const ITERATIONS: usize = 300;
/// The loop's message: 8192 doubles.
const BYTES: u64 = 65536;
/// Repetitions per block of the replay sweep (the site's calls, cycled).
const NREP: &str = "40";

/// The MPI library of this build: `openmpi`, `mpich` or another, from `delaybench
/// algorithms`.
fn library(dir: &Path) -> String {
    let out = common::mpirun(1, &["algorithms", "--format", "json"], dir);
    assert!(out.status.success(), "{}", text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["library"].as_str().unwrap().to_string()
}

/// `delaybench arrivals DIR --format json`, parsed.
fn arrivals(dir: &Path) -> serde_json::Value {
    let out = common::offline(&[
        "arrivals",
        dir.to_str().unwrap(),
        "--format",
        "json",
        "--no-figures",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)))
}

/// The report's row of `site`.
fn site_row<'a>(report: &'a serde_json::Value, site: &str) -> &'a serde_json::Value {
    report["sites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["site"] == site)
        .unwrap_or_else(|| panic!("no site {site}: {report:#}"))
}

/// Per call of `site`, the time the ranks spent in it (exit − entry on the global clock,
/// averaged over the ranks), seconds, in call order.
fn time_in_calls(dir: &Path, site: &str) -> Vec<f64> {
    let captures = read_captures(&[dir.to_path_buf()]).unwrap();
    assert!(
        captures
            .iter()
            .all(|c| c.footer.is_some() && c.damage.is_none()),
        "{}: a rank's capture is incomplete",
        dir.display()
    );
    let matched = match_calls(&captures).unwrap();
    assert_eq!(matched.incomplete_calls, 0);
    matched
        .instances
        .iter()
        .filter(|i| i.site == site)
        .map(|i| {
            let inside: f64 = i.entries.iter().map(|e| e.exit_s - e.enter_s).sum();
            inside / i.entries.len() as f64
        })
        .collect()
}

/// `delaybench tune ARGS` in `dir` (offline, but --verify launches MPI jobs).
fn tune(dir: &Path, args: &[&str]) -> Output {
    let _one = common::MPI_JOB.lock().unwrap_or_else(|e| e.into_inner());
    Command::new(exe())
        .arg("tune")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("delaybench runs")
}

/// The verification table's lines (stderr with --format json).
fn verdicts(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| {
            ["obeyed", "indistinguishable", "ignored", "unverifiable"]
                .iter()
                .any(|v| l.contains(v))
        })
        .map(str::to_string)
        .collect()
}

fn us(s: f64) -> String {
    format!("{:.1} us", s * 1e6)
}

#[test]
fn an_application_is_rerun_with_the_file_tuned_for_its_captured_pattern() {
    let Some((tmp, program)) = build_test_program("tune_app") else {
        return;
    };
    let dir = tmp.path();
    let lib = library(dir);
    // The launch environment that loads a tuning file, and the variable naming it.
    let (file, sweep_env, file_var): (&str, &[(&str, &str)], &str) = match lib.as_str() {
        "openmpi" => (
            "app.rules",
            &[("OMPI_MCA_coll_tuned_use_dynamic_rules", "1")],
            "OMPI_MCA_coll_tuned_dynamic_rules_filename",
        ),
        "mpich" => ("app.json", &[], "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"),
        other => {
            common::skip_known_limit(&format!(
                "tune writes tuning files for Open MPI and MPICH only; this build uses {other}"
            ));
            return;
        }
    };
    let capture_lib = build_capture_library();
    let deadline = Duration::from_secs(240);

    // 1. The application as it runs, captured.
    let before = dir.join("capture");
    let out = capture_env(NP, &capture_lib, &program, &[], &before, &[], deadline);
    assert!(out.status.success(), "{}", text(&out));
    let report = arrivals(&before);
    let row = report["sites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["calls"] == ITERATIONS)
        .unwrap_or_else(|| panic!("no site with {ITERATIONS} calls: {report:#}"));
    assert_eq!(row["op"], "allreduce", "{row:#}");
    assert_eq!(row["bytes"], BYTES, "{row:#}");
    let site = row["site"].as_str().unwrap().to_string();
    // The last rank is the late one at nearly every call.
    let last = row["last_ranks"][0][0].as_u64().unwrap();
    assert_eq!(last, u64::from(NP - 1), "{row:#}");

    // 2. The site's pattern replayed under every algorithm; without --sizes the site's size.
    let pattern = format!("replay:capture@{site}");
    let out = common::mpirun_with(
        NP,
        &[
            "--delay",
            &pattern,
            "--ops",
            "allreduce",
            "--procs",
            "2",
            "--algorithms",
            "all",
            "--nrep",
            NREP,
            "--no-figures",
            "--no-summary",
            "--output",
            "sweep.cbor",
        ],
        sweep_env,
        dir,
        Duration::from_secs(600),
    );
    // 4: a block without a valid repetition (a loaded machine); the records are complete.
    assert!(
        out.status.success() || out.status.code() == Some(common::NO_VALID_EXIT),
        "{}",
        text(&out)
    );
    let rec = delaybench::records::read_records(&dir.join("sweep.cbor")).unwrap();
    let replayed: Vec<_> = rec
        .blocks
        .iter()
        .filter(|b| b.delay_model == pattern)
        .collect();
    assert!(
        replayed.len() >= 2 && replayed.iter().all(|b| b.bytes == BYTES && b.nprocs == NP),
        "{:?}",
        rec.blocks
            .iter()
            .map(|b| (&b.delay_model, b.bytes, b.algorithm_name()))
            .collect::<Vec<_>>()
    );

    // 3. The library's file for that pattern, checked against the library.
    let out = tune(
        dir,
        &[
            "sweep.cbor",
            "--library",
            &lib,
            "--output",
            file,
            "--pattern",
            &pattern,
            "--format",
            "json",
            "--verify",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    // One configuration: the site's (allreduce, P, size).
    assert_eq!(rows.len(), 1, "{rows:#?}");
    let choice = &rows[0];
    assert_eq!(choice["pattern"], pattern.as_str(), "{choice:#}");
    assert_eq!(
        (&choice["op"], &choice["nprocs"], &choice["bytes"]),
        (
            &serde_json::json!("allreduce"),
            &serde_json::json!(NP),
            &serde_json::json!(BYTES)
        ),
        "{choice:#}"
    );
    let chosen = choice["chosen"].as_str().unwrap().to_string();
    assert_eq!(
        chosen == "default",
        !choice["significant"].as_bool().unwrap(),
        "{choice:#}"
    );
    let v = verdicts(&out);
    assert!(!v.is_empty(), "{}", text(&out));
    assert!(v.iter().all(|l| !l.contains("ignored")), "{v:#?}");
    // The probe gives the site's rule every size: its algorithm ran, or one adding in the
    // same order (at P = 2 every algorithm does).
    assert!(
        v.iter().any(|l| l.contains("allreduce")
            && l.contains(&chosen)
            && (l.contains("obeyed") || l.contains("indistinguishable"))),
        "{chosen}: {v:#?}"
    );
    let written = std::fs::read_to_string(dir.join(file)).unwrap();
    if lib == "openmpi" {
        let rules = OpenMpiLookup::parse(&written).unwrap();
        // What Open MPI will run at the site's own (P, size): the rule, or 0 for its own.
        let want = choice["chosen_value"].as_i64().unwrap_or(0);
        assert_eq!(
            rules.algorithm(2, i64::from(NP), BYTES as i64),
            Some(want),
            "{written}"
        );
        assert!(
            written.contains(&format!("pattern `{pattern}`")),
            "{written}"
        );
    } else {
        let json: serde_json::Value = serde_json::from_str(&written).unwrap();
        let tree = &json["collective=allreduce"]["comm_type=intra"];
        assert!(tree.is_object(), "{written}");
        // The rule names MPICH's function for the chosen algorithm (none for default,
        // which leads into MPICH's own tree), with the pattern in its comment.
        let value = choice["chosen_value"].as_i64().map(|v| v as i32);
        let alg =
            library_algorithm(TuneLibrary::Mpich, Op::Allreduce, &chosen, value, false).unwrap();
        if !alg.mpich.is_empty() {
            assert!(
                written.contains(&alg.mpich) && written.contains(&format!("pattern {pattern}")),
                "{written}"
            );
        }
    }

    // 4. The application again, under the capture, with the file.
    let after = dir.join("rerun");
    let path = dir.join(file);
    let mut env: Vec<(&str, &str)> = sweep_env.to_vec();
    env.push((file_var, path.to_str().unwrap()));
    let out = capture_env(NP, &capture_lib, &program, &[], &after, &env, deadline);
    assert!(out.status.success(), "{}", text(&out));

    // 5. Before and after: the time the ranks spent in the site's calls.
    let rerun = arrivals(&after);
    let (row_b, row_a) = (site_row(&report, &site), site_row(&rerun, &site));
    assert_eq!(row_a["calls"], ITERATIONS, "{row_a:#}");
    let t_before = time_in_calls(&before, &site);
    let t_after = time_in_calls(&after, &site);
    assert_eq!((t_before.len(), t_after.len()), (ITERATIONS, ITERATIONS));
    let boot = Bootstrap {
        resamples: 1000,
        level: 0.95,
        seed: 20_261_127,
        ..Bootstrap::default()
    };
    let (ci, p) = boot
        .median_difference_test(&t_before, &t_after)
        .expect("300 calls on each side give an interval");
    let (m_before, m_after) = (median(&t_before).unwrap(), median(&t_after).unwrap());
    assert!(
        ci.lo <= ci.hi && ci.lo.is_finite() && ci.hi.is_finite(),
        "{ci:?}"
    );
    // A file chooses algorithms; it does not balance the work: the first rank still waits
    // about 200 us per call for the last, so the ranks' mean time in the call stays above
    // 50 us on both sides.
    assert!(
        m_before > 50e-6 && m_after > 50e-6,
        "{m_before} s, {m_after} s"
    );
    // The same comparison as users run it: `compare` of the two capture folders agrees
    // with the crate's reading above.
    let out = Command::new(exe())
        .args(["compare", "capture", "rerun", "--format", "json"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON rows");
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["site"] == site.as_str())
        .unwrap_or_else(|| panic!("compare has no row for {site}: {rows:#}"));
    assert_eq!(
        (row["calls_a"].as_u64(), row["calls_b"].as_u64()),
        (Some(300), Some(300))
    );
    let close = |k: &str, x: f64| (row[k].as_f64().unwrap() - x).abs() < 1e-12;
    assert!(
        close("in_call_median_a_s", m_before) && close("in_call_median_b_s", m_after),
        "{row:#}"
    );
    let (lo, hi) = (
        row["in_call_diff_ci_lo_s"].as_f64().unwrap(),
        row["in_call_diff_ci_hi_s"].as_f64().unwrap(),
    );
    assert!(
        lo <= m_after - m_before && m_after - m_before <= hi,
        "{row:#}"
    );
    assert!(
        row["differs"].is_boolean(),
        "300 calls a side are tested: {row:#}"
    );
    eprintln!(
        "{lib}: site {site} ({ITERATIONS} calls of allreduce {BYTES} B, P = {NP}), pattern \
         {pattern}"
    );
    eprintln!(
        "  tune chose {chosen} (fastest {} at {} vs default {}, gain {} [{}, {}], p = {}; {})",
        choice["fastest"],
        choice["chosen_median_s"].as_f64().map_or("-".into(), us),
        choice["default_median_s"].as_f64().map_or("-".into(), us),
        choice["gain_s"].as_f64().map_or("-".into(), us),
        choice["gain_ci_lo_s"].as_f64().map_or("-".into(), us),
        choice["gain_ci_hi_s"].as_f64().map_or("-".into(), us),
        choice["p_value"],
        choice["kept_default_because"]
    );
    for l in &v {
        eprintln!("  verify: {l}");
    }
    eprintln!(
        "  time in the call per call (mean over ranks), median: before {}, after {}; \
         after - before {} [{}, {}] (95 %, {} resamples), p = {p:.3}",
        us(m_before),
        us(m_after),
        us(m_after - m_before),
        us(ci.lo),
        us(ci.hi),
        boot.resamples
    );
    eprintln!(
        "  waiting at the site: before {:.3} ms, after {:.3} ms; wall time before {:.3} s, \
         after {:.3} s",
        row_b["wait_total_s"].as_f64().unwrap() * 1e3,
        row_a["wait_total_s"].as_f64().unwrap() * 1e3,
        report["wall_s"].as_f64().unwrap(),
        rerun["wall_s"].as_f64().unwrap()
    );
}
