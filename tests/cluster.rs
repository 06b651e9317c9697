//! Multi-host behaviour on the emulated cluster of `scripts/cluster.sh`: two hosts,
//! each its own network, UTS and time namespace (CLOCK_MONOTONIC 1000 s apart) and one core.
//! Skipped, with a message, where this machine does not permit the namespaces or where
//! DELAYBENCH_SKIP_CLUSTER is set. The launcher follows DELAYBENCH_MPI_FLAVOR (openmpi or
//! mpich), as `scripts/setup.sh` exports it.

mod common;

use delaybench::clock::shared::SharedVerdict;
use delaybench::records::{read_records, Records};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// CLOCK_MONOTONIC step between emulated hosts, seconds.
const STEP_S: f64 = 1000.0;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/cluster.sh")
}

fn cluster(args: &[&str]) -> std::process::Output {
    Command::new(script())
        .args(args)
        .output()
        .expect("cluster.sh runs")
}

/// Takes the emulated cluster down when dropped, also when an assertion fails.
struct Cluster;

impl Cluster {
    fn up(hosts: u32, cores: u32) -> Cluster {
        // The guard exists before `up`, so that a half-built cluster (a bridge, a namespace)
        // is taken down too when `up` fails.
        let guard = Cluster;
        let out = cluster(&["up", "-H", &hosts.to_string(), "-c", &cores.to_string()]);
        assert!(out.status.success(), "{}", common::text(&out));
        guard
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = cluster(&["down"]);
    }
}

/// `cluster.sh run -n per_host -- delaybench ARGS --output DIR/NAME`, then the records.
fn run(per_host: u32, dir: &Path, name: &str, args: &[&str]) -> Records {
    run_allowing(per_host, dir, name, args, &[0])
}

/// As [`run`], accepting any exit status in `codes` (4: a block without a valid repetition,
/// records kept).
fn run_allowing(per_host: u32, dir: &Path, name: &str, args: &[&str], codes: &[i32]) -> Records {
    let flavor = flavor();
    let out_path = dir.join(name);
    let mut cmd = Command::new(script());
    cmd.args(["run", "-n", &per_host.to_string(), "--mpi", &flavor, "--"])
        .arg(common::exe())
        .args(args)
        .arg("--output")
        .arg(&out_path)
        .current_dir(dir);
    let out = common::run_mpi_job(cmd, Duration::from_secs(300));
    assert!(
        out.status.code().is_some_and(|c| codes.contains(&c)),
        "{}",
        common::text(&out)
    );
    read_records(&out_path).unwrap()
}

fn permitted() -> bool {
    if std::env::var_os("DELAYBENCH_SKIP_CLUSTER").is_some() {
        common::skip("the cluster tests: DELAYBENCH_SKIP_CLUSTER is set");
        return false;
    }
    let out = cluster(&["check"]);
    if !out.status.success() {
        common::skip_cluster(&format!(
            "the cluster tests: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    out.status.success()
}

/// One test, so that the cluster is built once and nothing else uses it meanwhile.
#[test]
fn two_emulated_hosts() {
    if !permitted() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let _lock = common::cluster_lock();
    let _cluster = Cluster::up(2, 1);
    one_rank_per_host(dir.path());
    if flavor() == "mpich" {
        // Debian's MPICH 4.0 (UCX netmod) hangs in MPI_Finalize when UCX is limited to TCP
        // (needed here: UCX otherwise finds shared memory between the namespaces) and two
        // ranks share a core; the same hang happens on one host without namespaces.
        common::skip_known_limit("two ranks per host: not under MPICH (UCX TCP finalize hang)");
        return;
    }
    two_ranks_per_host_on_one_core(dir.path());
}

fn flavor() -> String {
    std::env::var("DELAYBENCH_MPI_FLAVOR").unwrap_or_else(|_| "openmpi".into())
}

/// Host detection, clocks 1000 s apart found, `host:1` delays the rank on the other host.
fn one_rank_per_host(dir: &Path) {
    let args = [
        "--ops",
        "allreduce",
        "--sizes",
        "8",
        "--nrep",
        "100",
        "--warmup",
        "5",
        "--delay-rank",
        "host:1",
        "--delay",
        "300us",
        // Mapping and delays are checked here, not precision: a debug build on a loaded
        // machine often starts more than the default 1 us late.
        "--late-tolerance",
        "20us",
    ];
    let rec = run(1, dir, "one.cbor", &args);
    let h = &rec.header;
    assert_eq!(h.hosts, ["dbc-host0", "dbc-host1"]);
    // Every row that names the run's hosts names them as one folded host list.
    assert_eq!(
        delaybench::records::RunLabel::of(h).host_names,
        "dbc-host[0-1]"
    );
    let library = if flavor() == "mpich" {
        "MPICH"
    } else {
        "Open MPI"
    };
    assert!(h.mpi_library.contains(library), "{}", h.mpi_library);
    for load in &h.wait.hosts {
        assert_eq!((load.ranks, load.cores), (1, 1), "{load:?}");
        assert_eq!(load.cores_from, "affinity");
    }
    let offset = h.clock_sync.models[1].intercept_s;
    assert!((offset - STEP_S).abs() < 100e-6, "offset found {offset} s");
    assert!(h
        .clock_sync
        .shared
        .iter()
        .all(|c| c.verdict == SharedVerdict::Leader));
    let delayed = rec.blocks.iter().find(|b| b.delay_s > 0.0).unwrap();
    assert_eq!(delayed.delayed_ranks, [1]);
    assert_eq!(delayed.hosts, 2);
    assert_eq!(delayed.wait_strategy, "spin");
    for rep in 0..delayed.nrep as usize {
        assert_eq!(delayed.applied_delay_s.0[rep * 2], 0.0);
        assert!((delayed.applied_delay_s.0[rep * 2 + 1] - 300e-6).abs() < 1e-12);
    }
    // The late rank on the other host starts about 300 us after rank 0 on the global clock.
    let valid: Vec<usize> = (0..delayed.nrep as usize)
        .filter(|&r| delayed.flags[r * 2] == 0 && delayed.flags[r * 2 + 1] == 0)
        .collect();
    assert!(!valid.is_empty(), "no valid repetition");
    for rep in valid {
        let gap = delayed.t_start_global_s.0[rep * 2 + 1] - delayed.t_start_global_s.0[rep * 2];
        assert!((gap - 300e-6).abs() < 30e-6, "rep {rep}: start gap {gap} s");
    }
}

/// Two ranks per one-core host: cores from the affinity masks, shared clocks per host, polite
/// waiting at P = 4, spin at P = 2 spread over both hosts.
fn two_ranks_per_host_on_one_core(dir: &Path) {
    let args = [
        "--ops",
        "bcast",
        "--sizes",
        "8",
        "--nrep",
        "20",
        "--warmup",
        "3",
        "--subcomm",
        "spread",
        "--procs",
        "2,4",
    ];
    // Two ranks sharing one core at P = 4 may leave a block without a valid repetition
    // (exit 4, records kept): this test checks mapping, clocks and waiting, not validity.
    let rec = run_allowing(2, dir, "two.cbor", &args, &[0, 4]);
    let h = &rec.header;
    assert_eq!(
        h.hosts,
        ["dbc-host0", "dbc-host0", "dbc-host1", "dbc-host1"]
    );
    for load in &h.wait.hosts {
        assert_eq!((load.ranks, load.cores), (2, 1), "{load:?}");
    }
    let verdicts: Vec<(u32, SharedVerdict)> = h
        .clock_sync
        .shared
        .iter()
        .map(|c| (c.leader, c.verdict))
        .collect();
    use SharedVerdict::{Leader, Shared};
    assert_eq!(
        verdicts,
        [(0, Leader), (0, Shared), (2, Leader), (2, Shared)]
    );
    let models = &h.clock_sync.models;
    assert_eq!(models[1], models[0]);
    assert_eq!(models[3], models[2]);
    assert!(
        (models[2].intercept_s - STEP_S).abs() < 100e-6,
        "{models:?}"
    );
    let at = |p: u32| rec.blocks.iter().find(|b| b.nprocs == p).unwrap();
    assert_eq!(at(2).world_ranks, [0, 2]);
    assert_eq!(at(2).hosts, 2);
    assert_eq!(at(2).wait_strategy, "spin");
    assert_eq!(at(4).world_ranks, [0, 2, 1, 3]);
    assert_eq!(at(4).wait_strategy, "polite");
}
