//! The SMPI engine of `delaybench simulate`: the plan in simulated time on SimGrid's SMPI
//! (Casanova et al. 2014; Degomme et al. 2017), the MPI library's own collective algorithms
//! on a simulated network. Plain Rust and `std::process`: SimGrid runs the ranks in its own
//! processes.
//!
//! One `smpirun` per process count P ([`engine`]) runs `smpi/delaybench_smpi.c` (in the
//! repository's root, built with `smpicc` at first use, [`toolchain`]) on P simulated ranks:
//! it reads the blocks of P and each rank's delays ([`plan_file`]), runs window-synchronised
//! repetitions on `MPI_Wtime` with the waits as `nanosleep` (an exact sleep in simulated
//! time), and writes every rank's start and end times ([`output`]), which the session turns
//! into records blocks. Without noise a repetition repeats itself, so each distinct delay
//! vector is simulated once ([`distinct`]). The platforms are [`platform`]'s, or this
//! machine's own ([`calibrate`]); [`watch`] reads rank 0's progress while SimGrid runs.
//! See docs/simulate.md.

pub mod calibrate;
pub mod distinct;
pub mod engine;
pub mod output;
pub mod plan_file;
pub mod platform;
pub mod toolchain;
pub mod watch;

use std::path::Path;
use thiserror::Error;

/// Errors of the SMPI engine, all found before or while SimGrid runs.
#[derive(Debug, Error)]
pub enum SmpiError {
    #[error("{0} not found: `delaybench simulate` needs SimGrid's SMPI (Debian and Ubuntu: `apt-get install libsimgrid-dev`, or, in the source tree, `DELAYBENCH_SIMGRID=1 . scripts/setup.sh`)")]
    Missing(&'static str),
    #[error("SimGrid: {0}")]
    Tool(String),
    #[error("cannot build the simulated ranks' program: {0}")]
    Build(String),
    #[error("platform: {0}")]
    Platform(String),
    #[error("{0}")]
    Plan(String),
    #[error("not simulated yet: {0} (the project's simulation documentation lists what is not done yet)")]
    NotYet(&'static str),
    #[error(
        "the simulation of P = {procs} failed ({status}); last lines of its log {log}:\n{tail}"
    )]
    Run {
        procs: u32,
        status: String,
        log: String,
        tail: String,
    },
    #[error("the simulation's output {path} is malformed: {reason}")]
    Output { path: String, reason: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Records(#[from] crate::records::RecordsError),
}

/// Writes `bytes` to `path`. Errors: [`SmpiError::Io`].
pub(crate) fn write_file(path: &Path, bytes: &[u8]) -> Result<(), SmpiError> {
    std::fs::write(path, bytes).map_err(|source| SmpiError::Io {
        path: path.display().to_string(),
        source,
    })
}

/// Renames `part`, written whole beside `path`, over `path`: a reader of `path` sees the old
/// file or the new one, never half of one.
///
/// Errors: [`SmpiError::Io`] naming both.
pub(crate) fn rename_over(part: &Path, path: &Path) -> Result<(), SmpiError> {
    std::fs::rename(part, path).map_err(|source| SmpiError::Io {
        path: format!("{} (renaming {} over it)", path.display(), part.display()),
        source,
    })
}
