//! Failures during a run: an interrupted launcher, a killed rank and a
//! frozen rank end every rank without a hang, and the records file keeps what was measured and
//! is read as an interrupted run.

mod common;

use delaybench::records::read_records;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Starts `<launcher> -np 2 delaybench ARGS --output OUT` in the background.
fn launch(dir: &Path, args: &[&str]) -> Child {
    Command::new(common::launcher())
        .args(["-np", "2", common::exe()])
        .args(args)
        .args(["--output", "run.cbor", "--figures", "figs"])
        .current_dir(dir)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the MPI launcher starts")
}

/// Waits for `child` at most `limit`; a hang fails the test (and kills the job).
fn wait_ended(mut child: Child, limit: Duration) -> (std::process::ExitStatus, String) {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                use std::io::Read;
                let _ = e.read_to_string(&mut err);
            }
            return (status, err);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("the job hung for more than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// PID of the delaybench process of world rank `rank` among this test's processes (found by
/// the launcher's environment variable of the rank).
fn rank_pid(dir: &Path, rank: u32) -> Option<u32> {
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cwd = std::fs::read_link(entry.path().join("cwd")).ok();
        let exe = std::fs::read_link(entry.path().join("exe")).ok();
        let ours = std::fs::canonicalize(common::exe()).ok();
        let dir = std::fs::canonicalize(dir).ok();
        if cwd.is_none() || cwd != dir || exe.is_none() || exe != ours {
            continue;
        }
        let env = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        let env = String::from_utf8_lossy(&env);
        let mine = env.split('\0').any(|kv| {
            ["OMPI_COMM_WORLD_RANK=", "PMI_RANK="]
                .iter()
                .any(|k| kv == format!("{k}{rank}"))
        });
        if mine {
            return Some(pid);
        }
    }
    None
}

fn wait_for_rank(dir: &Path, rank: u32) -> u32 {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        if let Some(pid) = rank_pid(dir, rank) {
            return pid;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("rank {rank} did not start");
}

/// Waits until the records file holds a complete block (a loaded machine may take a while).
fn wait_for_a_block(path: &Path) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(120) {
        if read_records(path).is_ok_and(|r| !r.blocks.is_empty()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("no block was written within 120 s");
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(ok.success(), "kill {sig} {pid}");
}

/// Long enough that the signal lands inside the first block.
const LONG_BLOCK: &[&str] = &[
    "--ops",
    "allreduce",
    "--sizes",
    "8",
    "--procs",
    "2",
    "--nrep",
    "1000000",
    "--window",
    "100us",
    "--warmup",
    "5",
];

#[test]
fn sigint_to_the_launcher_keeps_the_repetitions_measured() {
    let _one = common::MPI_JOB.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // A 20 s block: the delay matrices of a million repetitions take seconds in a debug
    // build, and the launcher's grace after forwarding the signal may end before them.
    let mut args = LONG_BLOCK.to_vec();
    args[7] = "200000";
    let child = launch(dir.path(), &args);
    wait_for_rank(dir.path(), 1);
    std::thread::sleep(Duration::from_secs(3));
    signal(child.id(), "-INT");
    let (status, err) = wait_ended(child, Duration::from_secs(60));
    // Every rank exits with 130 (128 + SIGINT). Open MPI's mpirun passes that on; MPICH's
    // hydra, itself interrupted, returns 0 in about half the runs whatever its ranks returned
    // (seen here with a wrapper that printed the ranks' 130), so there the message is checked.
    let hydra = std::env::var("DELAYBENCH_MPI_FLAVOR").is_ok_and(|f| f == "mpich");
    assert!(hydra || !status.success(), "{err}");
    // Open MPI forwards SIGINT to the ranks as SIGTERM.
    assert!(err.contains("interrupted by signal"), "{err}");
    let rec = read_records(&dir.path().join("run.cbor")).unwrap();
    assert!(!rec.complete(), "an interrupted run has no footer");
    let block = rec.blocks.first().expect("the block in flight is kept");
    assert!(
        block.nrep > 100 && block.nrep < 200_000,
        "{} repetitions kept",
        block.nrep
    );
}

#[test]
fn a_killed_rank_ends_the_job_and_complete_blocks_stay_readable() {
    let _one = common::MPI_JOB.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // Many short blocks: some are complete when rank 1 dies.
    let args = [
        "--ops",
        "allreduce,bcast,alltoall,reduce",
        "--sizes",
        "8,64,512,4KiB",
        "--procs",
        "2",
        "--nrep",
        "2000",
        "--window",
        "200us",
    ];
    let child = launch(dir.path(), &args);
    let pid = wait_for_rank(dir.path(), 1);
    wait_for_a_block(&dir.path().join("run.cbor"));
    signal(pid, "-KILL");
    let (status, err) = wait_ended(child, Duration::from_secs(60));
    assert!(!status.success(), "{err}");
    let rec = read_records(&dir.path().join("run.cbor")).unwrap();
    assert!(!rec.complete());
    assert!(!rec.blocks.is_empty(), "complete blocks are kept: {err}");
}

/// A long block is written in chunks of about a second: killing a rank inside it keeps every
/// complete chunk of the block in flight, not nothing.
#[test]
fn a_rank_killed_inside_a_long_block_keeps_its_complete_chunks() {
    let _one = common::MPI_JOB.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    // 200,000 windows of 100 us: 20 s, chunks of 10,000 repetitions.
    let mut args = LONG_BLOCK.to_vec();
    args[7] = "200000";
    let child = launch(dir.path(), &args);
    let pid = wait_for_rank(dir.path(), 1);
    let path = dir.path().join("run.cbor");
    wait_for_a_block(&path);
    signal(pid, "-KILL");
    let (status, err) = wait_ended(child, Duration::from_secs(60));
    assert!(!status.success(), "{err}");
    let rec = read_records(&path).unwrap();
    assert!(!rec.complete());
    let block = rec
        .blocks
        .first()
        .expect("the block in flight keeps its chunks");
    assert!(
        block.nrep >= 10_000 && block.nrep < 200_000 && block.nrep % 10_000 == 0,
        "{} repetitions kept, expected whole chunks of 10,000",
        block.nrep
    );
    assert!(block.shape_ok());
}

#[test]
fn a_frozen_rank_is_ended_by_the_timeout_naming_the_configuration() {
    let _one = common::MPI_JOB.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let mut args = LONG_BLOCK.to_vec();
    // A 20 s block (the delay matrices of a million repetitions take seconds in a debug build).
    args[7] = "200000";
    args.extend(["--timeout", "2s"]);
    let child = launch(dir.path(), &args);
    let pid = wait_for_rank(dir.path(), 1);
    std::thread::sleep(Duration::from_secs(3));
    // Rank 1 stops responding: rank 0 waits in the collective until its watchdog fires.
    signal(pid, "-STOP");
    let (status, err) = wait_ended(child, Duration::from_secs(90));
    let _ = Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status();
    assert!(!status.success());
    assert!(
        err.contains("no progress") && err.contains("allreduce 8 B, P = 2"),
        "{err}"
    );
}
