//! `delaybench launches`: a plan launched several times under mpirun, decided over the
//! launches; a single launch says that it is one.

mod common;

use common::{launcher, offline, run_mpi_job, text};
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

/// `delaybench launches <count> --dir <dir> -- mpirun -np 2 delaybench <plan>` in `cwd`.
fn launches(count: u32, dir: &str, plan: &[&str], cwd: &Path) -> Output {
    let mut cmd = Command::new(common::exe());
    cmd.args([
        "launches",
        &count.to_string(),
        "--dir",
        dir,
        "--",
        &launcher(),
        "-np",
        "2",
    ])
    .arg(common::exe())
    .args(plan)
    .current_dir(cwd)
    .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
    .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    run_mpi_job(cmd, Duration::from_secs(600))
}

const PLAN: [&str; 10] = [
    "--ops",
    "allreduce",
    "--sizes",
    "8",
    "--procs",
    "2",
    "--delay-rank",
    "0",
    "--delay",
    "50us",
];

/// The `analyze --format csv` rows of `files`, as header-keyed maps.
fn csv_rows(files: &[String]) -> Vec<std::collections::HashMap<String, String>> {
    let mut args = vec!["analyze", "--format", "csv"];
    args.extend(files.iter().map(String::as_str));
    let out = offline(&args);
    assert!(out.status.success(), "{}", text(&out));
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn number(row: &std::collections::HashMap<String, String>, column: &str) -> f64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column} = {:?}", row[column]))
}

#[test]
fn five_launches_are_decided_over_the_launches() {
    let cwd = tempfile::tempdir().unwrap();
    let mut plan = PLAN.to_vec();
    plan.extend(["--nrep", "60"]);
    let out = launches(5, "study", &plan, cwd.path());
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    for k in 1..=5 {
        assert!(
            said.contains(&format!("launches: launch {k} of 5")),
            "{said}"
        );
    }
    // The table over the launches says so, and the report is drawn once, over all of them.
    assert!(said.contains("(5 launches)"), "{said}");
    assert!(!said.contains("One launch:"), "{said}");
    assert!(cwd.path().join("study/report/index.md").exists(), "{said}");
    let files: Vec<String> = (1..=5)
        .map(|k| {
            cwd.path()
                .join(format!("study/launch-{k}.cbor"))
                .display()
                .to_string()
        })
        .collect();
    let over = csv_rows(&files);
    // Every launch's own median of each configuration lies in the interval over launches,
    // whether or not the launches agree: the interval holds the launches' spread. A launch
    // too thin for an interval of its own (under 6 valid repetitions, on a loaded machine)
    // is left out of the interval over launches, and so of this check.
    for (k, file) in files.iter().enumerate() {
        let own = csv_rows(std::slice::from_ref(file));
        assert_eq!(own.len(), over.len());
        for (row, mine) in over.iter().zip(&own) {
            assert_eq!(row["launches"], "5");
            assert_eq!(mine["launches"], "1");
            if mine["t_global_median_ci_lo_s"].is_empty() {
                eprintln!(
                    "launch {}: {} {} too thin for an interval ({} valid)",
                    k + 1,
                    row["op"],
                    row["delay_model"],
                    mine["valid"]
                );
                continue;
            }
            let (lo, hi) = (
                number(row, "t_global_median_ci_lo_s"),
                number(row, "t_global_median_ci_hi_s"),
            );
            let m = number(mine, "t_global_median_s");
            assert!(
                lo <= m && m <= hi,
                "launch {}: median {m} s outside [{lo}, {hi}] over launches ({} {})",
                k + 1,
                row["op"],
                row["delay_model"]
            );
            if number(row, "delay_s") > 0.0 {
                let (lo, hi) = (
                    number(row, "cost_median_ci_lo_s"),
                    number(row, "cost_median_ci_hi_s"),
                );
                if mine["cost_median_ci_lo_s"].is_empty() {
                    continue;
                }
                let cost = number(mine, "cost_median_s");
                assert!(lo <= cost && cost <= hi, "launch {}: cost {cost} s", k + 1);
                assert!(!row["launches_disagree"].is_empty(), "{row:?}");
            }
        }
    }
}

#[test]
fn one_launch_says_its_verdicts_rest_on_one_launch() {
    let cwd = tempfile::tempdir().unwrap();
    let mut plan = PLAN.to_vec();
    plan.extend(["--nrep", "30"]);
    let out = launches(1, "one", &plan, cwd.path());
    assert!(out.status.success(), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("(1 launch)"), "{said}");
    assert!(
        said.contains("One launch: every verdict rests on"),
        "{said}"
    );
    let file = cwd.path().join("one/launch-1.cbor").display().to_string();
    let row = &csv_rows(&[file])[1];
    assert_eq!(
        (row["launches"].as_str(), row["launches_disagree"].as_str()),
        ("1", "")
    );
}

#[test]
fn options_set_per_launch_are_refused_and_a_failed_launch_says_what_is_kept() {
    let cwd = tempfile::tempdir().unwrap();
    let dir = cwd.path().join("s").display().to_string();
    let out = offline(&[
        "launches", "2", "--dir", &dir, "--", "mpirun", "x", "--output", "a.cbor",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--output is set by `launches` on every launch"));
    assert!(
        !cwd.path().join("s").exists(),
        "refused before anything was made"
    );
    let out = offline(&["launches", "2", "--dir", &dir, "--", "false"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("launch 1 of 2 stopped") && text(&out).contains("no launch finished"),
        "{}",
        text(&out)
    );
}
