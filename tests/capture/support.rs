//! What the capture tests share: building a test program of tests/capture/ and
//! libdelaybench_capture.so, and running a program under the launcher with the library
//! preloaded (tests/capture_ground_truth.rs, tests/capture_failure.rs).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The MPI compiler wrapper scripts/setup.sh chose, if it runs.
pub fn mpicc() -> Option<String> {
    let cc = std::env::var("MPICC").unwrap_or_else(|_| "mpicc".into());
    Command::new(&cc)
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| cc)
}

/// Builds `tests/capture/NAME.c` with the MPI compiler wrapper into a fresh temporary
/// directory; returns the directory (kept alive by the caller) and the program, or `None`
/// (having said why the test is skipped) when there is no wrapper.
pub fn build_test_program(name: &str) -> Option<(tempfile::TempDir, PathBuf)> {
    let Some(cc) = mpicc() else {
        crate::common::skip("no MPI compiler wrapper (MPICC or mpicc) to build the test program");
        return None;
    };
    let tmp = tempfile::tempdir().unwrap();
    let program = tmp.path().join(name);
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/capture/{name}.c"));
    let built = Command::new(&cc)
        .args(["-O2", "-o"])
        .arg(&program)
        .arg(&source)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    Some((tmp, program))
}

/// Builds libdelaybench_capture.so (release: its per-call cost is what a user gets) with the
/// cargo running these tests, in their target directory, and returns its path.
pub fn build_capture_library() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT.get_or_init(build_once).clone()
}

fn build_once() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "build",
            "--release",
            "-p",
            "delaybench-capture",
            "--message-format=json-render-diagnostics",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cannot run cargo");
    assert!(
        out.status.success(),
        "building the capture library failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| {
            v["reason"] == "compiler-artifact" && v["target"]["name"] == "delaybench_capture"
        })
        .flat_map(|v| {
            v["filenames"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .filter_map(|f| f.as_str().map(PathBuf::from))
        })
        .find(|f| f.extension().is_some_and(|e| e == "so"))
        .expect("cargo named no libdelaybench_capture.so")
}

/// Runs `program` on `np` ranks with the library preloaded, capturing into `dir`.
pub fn capture(np: u32, library: &Path, program: &Path, dir: &Path) -> std::process::Output {
    capture_with(np, library, program, &[], dir)
}

/// [`capture`] of `program` given `args`.
pub fn capture_with(
    np: u32,
    library: &Path,
    program: &Path,
    args: &[&str],
    dir: &Path,
) -> std::process::Output {
    capture_env(
        np,
        library,
        program,
        args,
        dir,
        &[],
        Duration::from_secs(240),
    )
}

/// Whether the tests launch under MPICH (its launcher, or `DELAYBENCH_MPI_FLAVOR=mpich`).
pub fn is_mpich() -> bool {
    crate::common::launcher().contains("mpich")
        || std::env::var("DELAYBENCH_MPI_FLAVOR").as_deref() == Ok("mpich")
}

/// [`capture_with`] with extra environment variables for every rank (`env`, passed on by
/// name under Open MPI, whose launcher forwards only what it is told; MPICH's forwards the
/// whole environment) and its own deadline, after which the job is killed and the test fails.
pub fn capture_env(
    np: u32,
    library: &Path,
    program: &Path,
    args: &[&str],
    dir: &Path,
    env: &[(&str, &str)],
    deadline: Duration,
) -> std::process::Output {
    let launcher = crate::common::launcher();
    let mut cmd = Command::new(&launcher);
    cmd.arg("-np").arg(np.to_string());
    let preload = format!("LD_PRELOAD={}", library.display());
    if is_mpich() {
        cmd.args(["-genv", "LD_PRELOAD"]).arg(library);
    } else {
        cmd.args(["-x", &preload, "-x", "DELAYBENCH_CAPTURE_DIR"]);
        for (k, _) in env {
            cmd.args(["-x", k]);
        }
    }
    cmd.envs(env.iter().copied());
    cmd.arg(program)
        .args(args)
        .env("DELAYBENCH_CAPTURE_DIR", dir)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    crate::common::run_mpi_job(cmd, deadline)
}
