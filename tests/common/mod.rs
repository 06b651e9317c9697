//! Launching the real binary under mpirun, with a deadline so a hang fails the test.

#![allow(dead_code)]

mod skip;

// A re-export, like the rest of `common`, that not every test crate uses.
#[allow(unused_imports)]
pub use skip::{skip, skip_cluster, skip_known_limit};

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One MPI job at a time: jobs running side by side would share the cores without knowing it,
/// and each would pick busy-waiting for a host it believes it has to itself.
pub static MPI_JOB: Mutex<()> = Mutex::new(());

/// Path of the delaybench binary cargo built for the tests.
pub fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_delaybench")
}

/// The MPI launcher: `DELAYBENCH_MPIEXEC` as `scripts/setup.sh` exports it (`mpirun`,
/// `mpirun.openmpi`, `mpiexec.mpich`), or `mpirun`.
pub fn launcher() -> String {
    std::env::var("DELAYBENCH_MPIEXEC").unwrap_or_else(|_| "mpirun".into())
}

/// `<launcher> -np <np> delaybench <args>` with the Open MPI settings a test machine needs
/// (root, more ranks than cores); MPICH ignores these variables.
pub fn mpirun(np: u32, args: &[&str], dir: &Path) -> Output {
    mpirun_with(np, args, &[], dir, Duration::from_secs(240))
}

/// [`mpirun`] with extra environment variables for the ranks (`env`) and its own deadline.
pub fn mpirun_with(
    np: u32,
    args: &[&str],
    env: &[(&str, &str)],
    dir: &Path,
    deadline: Duration,
) -> Output {
    let mut cmd = Command::new(launcher());
    cmd.arg("-np")
        .arg(np.to_string())
        .arg(exe())
        .args(args)
        .current_dir(dir)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    run_mpi_job(cmd, deadline)
}

/// Exit status of a run that measured everything but had a block without a valid repetition
/// (`delaybench::exit::NO_VALID_EXIT`): its records are complete.
pub const NO_VALID_EXIT: i32 = 4;

/// Runs `mpirun -np <np> delaybench <args> --output <name>` in `dir`, asserts that it
/// measured everything (exit 0, or [`NO_VALID_EXIT`]: on a loaded 2-core machine an
/// oversubscribed block can lose every repetition; tests about validity check the records'
/// flags), and reads the records it wrote.
pub fn run_records(np: u32, dir: &Path, name: &str, args: &[&str]) -> delaybench::records::Records {
    let mut all = args.to_vec();
    all.extend(["--output", name]);
    let out = mpirun(np, &all, dir);
    assert!(
        matches!(out.status.code(), Some(0 | NO_VALID_EXIT)),
        "{}",
        text(&out)
    );
    delaybench::records::read_records(&dir.join(name)).unwrap()
}

/// `delaybench <args>` without MPI (offline subcommands).
pub fn offline(args: &[&str]) -> Output {
    let mut cmd = Command::new(exe());
    cmd.args(args);
    run_with_deadline(cmd, Duration::from_secs(60))
}

/// Runs `cmd` as one MPI job (never beside another), killing it after `deadline`.
pub fn run_mpi_job(cmd: Command, deadline: Duration) -> Output {
    let _one_job = MPI_JOB.lock().unwrap_or_else(|e| e.into_inner());
    run_with_deadline(cmd, deadline)
}

fn run_with_deadline(mut cmd: Command, deadline: Duration) -> Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot start {cmd:?}: {e} (is MPI installed? run scripts/test.sh)")
        });
    let id = child.id();
    let started = Instant::now();
    let waiter = std::thread::spawn(move || child.wait_with_output().expect("wait"));
    while !waiter.is_finished() {
        if started.elapsed() > deadline {
            let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
            panic!("{cmd:?} hung for more than {deadline:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    waiter.join().expect("waiter")
}

/// Stdout and stderr as text, for assertion messages.
pub fn text(out: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The emulated cluster (`scripts/cluster.sh`, `scripts/slurm-cluster.sh`) has fixed names (a
/// bridge, namespaces, a state directory), and `up` first takes down whatever cluster is up: a
/// test building it holds this lock, so that test binaries running at the same time (from other
/// checkouts too) wait for each other instead of tearing down each other's hosts. Released on
/// drop; keep it alive longer than the cluster's guard.
pub struct ClusterLock(std::fs::File);

/// Blocks until this process holds the emulated cluster's lock (`flock` on
/// /tmp/delaybench-cluster.lock).
pub fn cluster_lock() -> ClusterLock {
    use std::os::fd::AsRawFd;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open("/tmp/delaybench-cluster.lock")
        .expect("lock file");
    // SAFETY: flock on a descriptor this File owns.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
    assert_eq!(rc, 0, "flock: {}", std::io::Error::last_os_error());
    ClusterLock(file)
}

/// The records of `path` on the global times `choice` asks for, read block by block through a
/// [`delaybench::timeline::Timeline`] as the binary reads them, and gathered whole: the
/// in-memory side of the tests that compare a streamed output with it.
pub fn records_on(
    path: &Path,
    choice: delaybench::timeline::GlobalTimes,
) -> delaybench::records::Records {
    let mut timeline = delaybench::timeline::Timeline::open(path, choice).unwrap();
    let blocks = timeline.by_ref().collect::<Result<Vec<_>, _>>().unwrap();
    let end = timeline.end();
    delaybench::records::Records {
        header: end.header,
        blocks,
        footer: end.footer,
        truncated: end.truncated,
    }
}

/// Debian's python3 with the OTF2 library's Python module `otf2` (python3-otf2; the
/// machine's default python3 may be another), or None.
pub fn python_with_otf2() -> Option<&'static str> {
    ["/usr/bin/python3", "python3"].into_iter().find(|py| {
        Command::new(py)
            .args(["-c", "import otf2"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}
