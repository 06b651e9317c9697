//! `delaybench tune` on real sweeps: Open MPI loads the rules file it writes and runs every
//! rule's algorithm (the fingerprint of an order-sensitive reduction, docs/algorithms.md),
//! the same under MPICH when the build uses it, and a simulated sweep's SimGrid names are
//! mapped to the library's or refused.

mod common;

use common::{exe, text};
use delaybench::analysis::tuning::OpenMpiLookup;
use delaybench::records::{read_records, RecordsWriter};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

/// The MPI library of this build: `openmpi`, `mpich` or another, from `delaybench
/// algorithms`.
fn library(dir: &Path) -> String {
    let out = common::mpirun(1, &["algorithms", "--format", "json"], dir);
    assert!(out.status.success(), "{}", text(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["library"].as_str().unwrap().to_string()
}

/// Sweeps allreduce and bcast at 8 B, 1 KiB and 64 KiB, P = 2 and 4, balanced and with rank
/// 0 late by 50 us, every algorithm (few repetitions: the test is about the files, not the
/// timings).
fn sweep(dir: &Path, env: &[(&str, &str)]) -> PathBuf {
    let out = common::mpirun_with(
        4,
        &[
            "--ops",
            "allreduce,bcast",
            "--sizes",
            "8,1KiB,64KiB",
            "--procs",
            "2,4",
            "--delay",
            "50us",
            "--delay-rank",
            "0",
            "--algorithms",
            "all",
            "--nrep",
            "12",
            "--no-figures",
            "--no-summary",
            "--output",
            "sweep.cbor",
        ],
        env,
        dir,
        Duration::from_secs(600),
    );
    // 4: a block without a valid repetition (a loaded machine); the records are complete.
    assert!(
        out.status.success() || out.status.code() == Some(common::NO_VALID_EXIT),
        "{}",
        text(&out)
    );
    dir.join("sweep.cbor")
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

fn rows(out: &Output) -> Vec<serde_json::Value> {
    serde_json::from_slice::<Vec<serde_json::Value>>(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", text(out)))
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

/// A copy of the sweep in which `winner` is clearly the fastest allreduce everywhere (t_global
/// about 1 us against 100 us for default, every repetition valid): the choice is forced by
/// construction, so that a rule other than the library's own is written and checked. The
/// fingerprints stay the sweep's own.
fn forced(dir: &Path, sweep: &Path, winner: &str) -> PathBuf {
    let rec = read_records(sweep).unwrap();
    let path = dir.join(format!("forced-{winner}.cbor"));
    let mut w = RecordsWriter::create(&path).unwrap();
    let mut header = rec.header.clone();
    // Online times: a post-hoc pass would recompute the global times from the local ones.
    header.plan.track_every_s = None;
    w.write_header(&header).unwrap();
    for b in &rec.blocks {
        let mut b = b.clone();
        let name = b.algorithm_name().to_string();
        if b.op == delaybench::plan::Op::Allreduce && (name == winner || name == "default") {
            let base = if name == winner { 1e-6 } else { 100e-6 };
            let p = b.nprocs as usize;
            for (k, f) in b.flags.iter_mut().enumerate() {
                *f = 0;
                b.t_start_global_s.0[k] = 0.0;
                b.t_end_global_s.0[k] = base * (1.0 + 0.01 * ((k / p) % 7) as f64);
            }
        }
        w.write_block(&b).unwrap();
    }
    w.finish(rec.footer.as_ref().unwrap()).unwrap();
    path
}

/// An allreduce algorithm of the sweep whose fingerprint at P = 4 differs from default's.
fn distinguishable(sweep: &Path) -> Option<String> {
    let rec = read_records(sweep).unwrap();
    let fp = |name: &str| {
        rec.blocks
            .iter()
            .find(|b| {
                b.op == delaybench::plan::Op::Allreduce
                    && b.nprocs == 4
                    && b.algorithm_name() == name
            })
            .and_then(|b| b.algorithm_check.as_ref()?.fingerprint.clone())
    };
    let default = fp("default").expect("default has a fingerprint");
    [
        "ring",
        "basic_linear",
        "recursive_doubling",
        "rabenseifner",
        "segmented_ring",
        "reduce_scatter_allgather",
        "smp",
        "nb",
    ]
    .into_iter()
    .find(|a| fp(a).is_some_and(|f| f != default))
    .map(str::to_string)
}

fn check_library(dir: &Path, lib: &str, files: &[&str]) {
    let env: &[(&str, &str)] = if lib == "openmpi" {
        &[("OMPI_MCA_coll_tuned_use_dynamic_rules", "1")]
    } else {
        &[]
    };
    let swept = sweep(dir, env);
    let sweep_name = swept.to_str().unwrap();

    // The real sweep, for the late rank and for balanced arrivals.
    for (pattern, file) in [("50us@0", files[0]), ("balanced", files[1])] {
        let out = tune(
            dir,
            &[
                sweep_name,
                "--library",
                lib,
                "--output",
                file,
                "--pattern",
                pattern,
                "--format",
                "json",
                "--verify",
            ],
        );
        assert!(out.status.success(), "{pattern}: {}", text(&out));
        let rows = rows(&out);
        // 2 ops x 2 P x 3 sizes, each with its range, its pattern and what chose it.
        assert_eq!(rows.len(), 12, "{rows:#?}");
        for r in &rows {
            assert_eq!(r["pattern"], pattern);
            assert!(r["size_lo"].as_u64().unwrap() <= r["bytes"].as_u64().unwrap());
            assert!(r["size_hi"].as_u64().unwrap() >= r["bytes"].as_u64().unwrap());
            assert!(!r["run_ids"].as_str().unwrap().is_empty());
            let kept = r["chosen"] == "default";
            assert_eq!(kept, !r["significant"].as_bool().unwrap(), "{r:#}");
        }
        let v = verdicts(&out);
        assert!(!v.is_empty(), "{}", text(&out));
        assert!(v.iter().all(|l| !l.contains("ignored")), "{v:#?}");
        // The file as written loaded: its allreduce rules ran what they name.
        assert!(
            v.iter()
                .any(|l| l.contains("allreduce") && l.contains("file") && l.contains("obeyed")),
            "{v:#?}"
        );
        if lib == "openmpi" {
            let written = std::fs::read_to_string(dir.join(file)).unwrap();
            let l = OpenMpiLookup::parse(&written).unwrap();
            for r in &rows {
                let id = if r["op"] == "allreduce" { 2 } else { 7 };
                let alg = l
                    .algorithm(
                        id,
                        r["nprocs"].as_i64().unwrap(),
                        r["bytes"].as_i64().unwrap(),
                    )
                    .unwrap();
                assert_eq!(alg, r["chosen_value"].as_i64().unwrap_or(0), "{r:#}");
            }
        }
    }

    // A sweep whose allreduce winner is forced: the file holds that algorithm for every
    // allreduce rule, and the library runs it.
    let Some(winner) = distinguishable(&swept) else {
        // MPICH 4.0.2's blocking allreduce algorithms all pair (0+1)+(2+3) at P = 4.
        assert_eq!(
            lib, "mpich",
            "Open MPI's basic_linear adds in rank order at P = 4"
        );
        common::skip_known_limit(
            "every allreduce algorithm of the sweep adds in the order of the library's own \
             choice at P = 4, so a forced rule cannot be told from default by its fingerprint",
        );
        return;
    };
    let forced = forced(dir, &swept, &winner);
    let out = tune(
        dir,
        &[
            forced.to_str().unwrap(),
            "--library",
            lib,
            "--output",
            files[2],
            "--format",
            "json",
            "--global-times",
            "online",
            "--verify",
        ],
    );
    assert!(out.status.success(), "{}", text(&out));
    let rows = rows(&out);
    for r in rows.iter().filter(|r| r["op"] == "allreduce") {
        assert_eq!(r["chosen"], winner.as_str(), "{r:#}");
    }
    let v = verdicts(&out);
    assert!(v.iter().all(|l| !l.contains("ignored")), "{v:#?}");
    let obeyed: Vec<&String> = v
        .iter()
        .filter(|l| l.contains(&winner) && l.contains(" 4 ") && l.contains("obeyed"))
        .collect();
    // At P = 4 each of the three allreduce rules, and the file's own at 8 KiB.
    assert!(obeyed.len() >= 4, "{winner}: {v:#?}");
}

/// The library this build uses obeys the file `tune` writes for it: Open MPI's rules file or
/// MPICH's selection JSON. `.ci/run` builds and tests once with each library, so both are
/// checked there; another library has no file format in `tune`.
#[test]
fn the_build_s_library_obeys_the_file_tune_writes() {
    let dir = tempfile::tempdir().unwrap();
    match library(dir.path()).as_str() {
        "openmpi" => check_library(
            dir.path(),
            "openmpi",
            &["late.rules", "balanced.rules", "forced.rules"],
        ),
        "mpich" => check_library(
            dir.path(),
            "mpich",
            &["late.json", "balanced.json", "forced.json"],
        ),
        other => common::skip_known_limit(&format!(
            "tune writes tuning files for Open MPI and MPICH only; this build uses {other}"
        )),
    }
}

/// The SimGrid simulation's records, one file per algorithm.
fn simulate(dir: &Path, algorithms: &str) -> Option<Vec<PathBuf>> {
    let found = ["smpicc", "smpirun"].iter().all(|t| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(t).is_file()))
    });
    if !found {
        common::skip("smpicc/smpirun not found; install SimGrid (apt-get install libsimgrid-dev)");
        return None;
    }
    let run = Command::new(exe())
        .args([
            "simulate",
            "--engine",
            "smpi",
            "--ops",
            "allreduce",
            "--sizes",
            "8,1KiB,64KiB",
            "--procs",
            "2,4",
        ])
        .args([
            "--delay",
            "50us",
            "--delay-rank",
            "0",
            "--nrep",
            "8",
            "--algorithms",
        ])
        .arg(algorithms)
        .args(["--output", "sim.cbor", "--no-figures", "--no-summary"])
        .env(
            "DELAYBENCH_CACHE",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("smpi-cache"),
        )
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run));
    Some(
        algorithms
            .split(',')
            .map(|a| dir.join(format!("sim-{a}.cbor")))
            .collect(),
    )
}

#[test]
fn a_simulated_sweep_is_tuned_with_the_library_s_names() {
    let dir = tempfile::tempdir().unwrap();
    let Some(files) = simulate(dir.path(), "default,rdb,lr,rab1") else {
        return;
    };
    let names: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
    // rab1 has no counterpart in Open MPI: refused, naming it.
    let mut args = names.clone();
    args.extend(["--library", "openmpi", "--output", "all.rules"]);
    let out = tune(dir.path(), &args);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("`rab1` has no counterpart in Open MPI"),
        "{said}"
    );
    assert!(!dir.path().join("all.rules").exists());
    // Without it every rule names an Open MPI algorithm, over the measured sizes.
    let mut args = names[..3].to_vec();
    args.extend([
        "--library",
        "openmpi",
        "--output",
        "sim.rules",
        "--format",
        "json",
    ]);
    let out = tune(dir.path(), &args);
    assert!(out.status.success(), "{}", text(&out));
    let rows = rows(&out);
    assert_eq!(rows.len(), 6, "{rows:#?}");
    let written = std::fs::read_to_string(dir.path().join("sim.rules")).unwrap();
    let l = OpenMpiLookup::parse(&written).unwrap();
    for r in &rows {
        let (p, b) = (r["nprocs"].as_i64().unwrap(), r["bytes"].as_i64().unwrap());
        let alg = l.algorithm(2, p, b).unwrap();
        let want = match r["chosen"].as_str().unwrap() {
            // The rows keep SimGrid's names; the file holds Open MPI's numbers.
            "default" => 0,
            "rdb" => 3,
            "lr" => 4,
            other => panic!("{other} is no SimGrid counterpart tune maps"),
        };
        assert_eq!(alg, want, "{r:#}");
        // The rules cover from the smallest to the largest measured size and stop there.
        assert_eq!(l.algorithm(2, p, 65537), Some(0));
        assert_eq!(l.algorithm(2, p, 7), Some(0));
    }
    assert!(written.contains("pattern 50us@0"), "{written}");
}
