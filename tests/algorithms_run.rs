//! The MPI library's collective algorithms under mpirun: `delaybench algorithms` lists them,
//! `--algorithms` forces two of one kernel and the records name them and show they differ,
//! `--algorithm-from-env` records what the launch environment chose. Runs under whichever
//! MPI the build uses (Open MPI or MPICH: `DELAYBENCH_MPI=mpich scripts/test.sh`).

mod common;

use common::{exe, text};
use delaybench::records::read_records;
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

/// `<launcher> -np <np> delaybench <args>` in `dir` with extra environment variables.
fn launch(np: u32, args: &[&str], env: &[(&str, &str)], dir: &Path) -> Output {
    common::mpirun_with(np, args, env, dir, Duration::from_secs(300))
}

/// `delaybench algorithms --format json` under `env`.
fn catalogue(env: &[(&str, &str)]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let out = launch(1, &["algorithms", "--format", "json"], env, dir.path());
    assert!(out.status.success(), "{}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)))
}

fn library(c: &serde_json::Value) -> String {
    c["library"].as_str().unwrap().to_string()
}

/// The swept variable of kernel `op` in catalogue `c`.
fn swept<'a>(c: &'a serde_json::Value, op: &str) -> &'a serde_json::Value {
    c["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["role"] == "swept" && v["ops"].as_array().unwrap().iter().any(|o| o == op))
        .unwrap_or_else(|| panic!("no swept variable for {op} in {c:#}"))
}

/// The number of value `name` of variable `v`.
fn value_of(v: &serde_json::Value, name: &str) -> i64 {
    v["values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == name)
        .unwrap_or_else(|| panic!("{name} not among {v:#}"))["value"]
        .as_i64()
        .unwrap()
}

#[test]
fn the_list_names_the_algorithms_of_every_blocking_kernel() {
    let c = catalogue(&[]);
    let lib = library(&c);
    assert!(lib == "openmpi" || lib == "mpich", "{lib}");
    for op in ["barrier", "bcast", "reduce", "allreduce", "alltoall"] {
        let v = swept(&c, op);
        let names: Vec<&str> = v["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["name"].as_str().unwrap())
            .collect();
        // The library's own choice and at least two forced algorithms, all by name.
        assert!(names.len() >= 3, "{op}: {names:?}");
        assert!(
            names
                .iter()
                .all(|n| !n.is_empty() && n.parse::<i64>().is_err()),
            "{op}: {names:?}"
        );
        assert_eq!(names[0], if lib == "openmpi" { "ignore" } else { "auto" });
        assert!(
            ["all", "all_eq"].contains(&v["scope"].as_str().unwrap()),
            "{v:#}"
        );
        assert_eq!(v["writable"], true, "{v:#}");
    }
    // No MPI_T performance variable exposes the decision in either library here.
    assert_eq!(c["decision_pvars"].as_array().unwrap().len(), 0, "{c:#}");
}

#[test]
fn a_value_set_at_launch_reads_back_under_the_listed_name() {
    // The names must be the library's own: set one from the environment by name (MPICH) or
    // number (Open MPI) and find it read back as that value.
    let lib = library(&catalogue(&[]));
    let (var, env_name, env_value, name) = if lib == "openmpi" {
        (
            "coll_tuned_allreduce_algorithm",
            "OMPI_MCA_coll_tuned_allreduce_algorithm",
            "4",
            "ring",
        )
    } else {
        (
            "MPIR_CVAR_BCAST_INTRA_ALGORITHM",
            "MPIR_CVAR_BCAST_INTRA_ALGORITHM",
            "scatter_ring_allgather",
            "scatter_ring_allgather",
        )
    };
    let c = catalogue(&[(env_name, env_value)]);
    let v = c["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == var)
        .unwrap();
    assert_eq!(v["current"].as_i64().unwrap(), value_of(v, name), "{v:#}");
}

/// The blocks of a run, by algorithm name: (name, variable, value, read back, fingerprint).
type Seen = Vec<(String, String, Option<i64>, Option<i64>, Option<String>)>;

fn blocks_by_algorithm(path: &Path) -> Seen {
    let records = read_records(path).unwrap();
    records
        .blocks
        .iter()
        .map(|b| {
            let a = b
                .algorithm
                .as_ref()
                .expect("every block names its algorithm");
            let c = b.algorithm_check.as_ref().expect("and its check");
            (
                a.name.clone(),
                a.variable.clone(),
                a.value.map(i64::from),
                c.read_back.map(i64::from),
                c.fingerprint.clone(),
            )
        })
        .collect()
}

#[test]
fn two_forced_algorithms_of_one_kernel_differ_and_the_records_name_them() {
    let c = catalogue(&[]);
    let lib = library(&c);
    // Two algorithms that add the four ranks' contributions in different orders (found with
    // the fingerprint on this machine, docs/algorithms.md): Open MPI's linear reduce-then-
    // broadcast against its ring; MPICH's generic-transport tree against its ring.
    let (op, a, b, env): (&str, &str, &str, Vec<(&str, &str)>) = if lib == "openmpi" {
        (
            "allreduce",
            "basic_linear",
            "ring",
            vec![("OMPI_MCA_coll_tuned_use_dynamic_rules", "1")],
        )
    } else {
        ("iallreduce", "tsp_tree", "tsp_ring", vec![])
    };
    let dir = tempfile::tempdir().unwrap();
    let algorithms = format!("{a},{b}");
    let out = launch(
        4,
        &[
            "--ops",
            op,
            "--sizes",
            "8KiB",
            "--procs",
            "4",
            "--delay",
            "50us",
            "--nrep",
            "5",
            "--warmup",
            "2",
            "--algorithms",
            &algorithms,
            "--output",
            "r.cbor",
            "--no-figures",
            "--no-summary",
        ],
        &env,
        dir.path(),
    );
    assert!(matches!(out.status.code(), Some(0 | 4)), "{}", text(&out));
    let seen = blocks_by_algorithm(&dir.path().join("r.cbor"));
    let names: Vec<&str> = seen.iter().map(|s| s.0.as_str()).collect();
    // Baseline and delayed block per algorithm, the library's own choice first.
    assert_eq!(names, ["default", "default", a, a, b, b], "{seen:?}");
    let var = swept(&c, op);
    for (name, variable, value, read_back, fingerprint) in &seen {
        assert_eq!(variable, var["name"].as_str().unwrap());
        let want = if name == "default" {
            0
        } else {
            value_of(var, name)
        };
        assert_eq!(value.unwrap_or(0), want);
        // The value written is the value the library holds.
        assert_eq!(*read_back, Some(want), "{name}");
        assert!(fingerprint.is_some(), "{name}");
    }
    // The behavioural check: the two algorithms combined the ranks in different orders.
    let fp = |n: &str| seen.iter().find(|s| s.0 == n).unwrap().4.clone();
    assert_ne!(fp(a), fp(b), "{seen:?}");
    // One algorithm gives one result, block after block.
    assert_eq!(seen[2].4, seen[3].4);

    // analyze splits by algorithm and pairs within it; --algorithms names winners.
    let analyzed = Command::new(exe())
        .args(["analyze", "--format", "json", "r.cbor"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&analyzed.stdout).unwrap();
    let algos: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["algorithm"].as_str().unwrap())
        .collect();
    assert_eq!(algos, names);
    let table = Command::new(exe())
        .args(["analyze", "--algorithms", "r.cbor"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(table.contains(op) && table.contains(" 3 "), "{table}");
}

#[test]
fn a_forced_algorithm_is_undone_before_the_next_process_count() {
    // At P = 2 only ranks 0 and 1 force bcast's algorithms, bcast measured last; were the
    // last one left on them, P = 4's first configuration (allreduce: its new communicator in
    // Open MPI, every call in MPICH) would run the run's own broadcasts with different
    // algorithms on different ranks, and hang (it did, before the reset).
    let c = catalogue(&[]);
    let lib = library(&c);
    let (a, b, env) = if lib == "openmpi" {
        (
            "binomial",
            "scatter_allgather_ring",
            vec![("OMPI_MCA_coll_tuned_use_dynamic_rules", "1")],
        )
    } else {
        ("binomial", "scatter_ring_allgather", vec![])
    };
    let dir = tempfile::tempdir().unwrap();
    let algorithms = format!("{a},{b}");
    let out = launch(
        4,
        &[
            "--ops",
            "allreduce,bcast",
            "--sizes",
            "64KiB",
            "--procs",
            "2,4",
            "--nrep",
            "3",
            "--warmup",
            "2",
            "--algorithms",
            &algorithms,
            "--output",
            "r.cbor",
            "--no-figures",
            "--no-summary",
        ],
        &env,
        dir.path(),
    );
    assert!(matches!(out.status.code(), Some(0 | 4)), "{}", text(&out));
    let seen = blocks_by_algorithm(&dir.path().join("r.cbor"));
    // P = 2: allreduce its own way, bcast three ways; P = 4 the same.
    assert_eq!(seen.len(), 2 * (3 + 1) * 2, "{seen:?}");
}

#[test]
fn an_unknown_algorithm_is_refused_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let out = launch(
        2,
        &[
            "--ops",
            "allreduce",
            "--sizes",
            "8",
            "--nrep",
            "3",
            "--algorithms",
            "nonesuch",
            "--output",
            "r.cbor",
        ],
        &[("OMPI_MCA_coll_tuned_use_dynamic_rules", "1")],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("no algorithm named nonesuch"),
        "{}",
        text(&out)
    );
    assert!(!dir.path().join("r.cbor").exists());
}

#[test]
fn launches_from_the_environment_record_their_algorithm_and_pool_by_it() {
    let lib = library(&catalogue(&[]));
    let (forced, name): (Vec<(&str, &str)>, &str) = if lib == "openmpi" {
        (
            vec![
                ("OMPI_MCA_coll_tuned_use_dynamic_rules", "1"),
                ("OMPI_MCA_coll_tuned_allreduce_algorithm", "4"),
            ],
            "ring",
        )
    } else {
        (
            vec![("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "recursive_doubling")],
            "recursive_doubling",
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let args = |out: &'static str| {
        vec![
            "--ops",
            "allreduce",
            "--sizes",
            "8",
            "--procs",
            "2",
            "--nrep",
            "5",
            "--warmup",
            "2",
            "--algorithm-from-env",
            "--output",
            out,
            "--no-figures",
            "--no-summary",
        ]
    };
    if lib == "openmpi" {
        // Without dynamic rules, forcing at run time is refused with the launch lines.
        let out = launch(
            2,
            &["--ops", "allreduce", "--sizes", "8", "--algorithms", "ring"],
            &[],
            dir.path(),
        );
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(
            text(&out).contains(
                "OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allreduce_algorithm=4"
            ),
            "{}",
            text(&out)
        );
    }
    let out = launch(2, &args("own.cbor"), &[], dir.path());
    assert!(matches!(out.status.code(), Some(0 | 4)), "{}", text(&out));
    let out = launch(2, &args("forced.cbor"), &forced, dir.path());
    assert!(matches!(out.status.code(), Some(0 | 4)), "{}", text(&out));
    let own = blocks_by_algorithm(&dir.path().join("own.cbor"));
    let set = blocks_by_algorithm(&dir.path().join("forced.cbor"));
    assert!(own.iter().all(|s| s.0 == "default"), "{own:?}");
    assert!(set.iter().all(|s| s.0 == name), "{set:?}");
    let analyzed = Command::new(exe())
        .args(["analyze", "--format", "json", "own.cbor", "forced.cbor"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        analyzed.status.success(),
        "{}",
        String::from_utf8_lossy(&analyzed.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&analyzed.stdout).unwrap();
    let mut algos: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["algorithm"].as_str().unwrap())
        .collect();
    // Baseline and delayed row of each launch's algorithm, each from its own launch.
    assert!(
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["launches"] == 1),
        "{v:#}"
    );
    algos.dedup();
    assert_eq!(algos, ["default", name], "{v:#}");
    let header = read_records(&dir.path().join("forced.cbor"))
        .unwrap()
        .header;
    assert_eq!(header.algorithms.unwrap().request, "env");
}
