//! The built-in LogGOPS engine: collective schedules simulated event by event on the LogGOPS
//! model (Hoefler, Schneider and Lumsdaine, HPDC 2010, after LogGP: Alexandrov et al. 1995,
//! and LogGPS: Ino et al. 2001), with operating-system noise stretching the CPU's busy
//! intervals only (Hoefler, Schneider and Lumsdaine, SC 2010).
//!
//! - `params.rs`: the parameters L, o, g, G, O and S ([`Params`]).
//! - `schedule.rs`: a GOAL-like dependency graph of send, recv and calc operations per rank
//!   ([`Schedule`], built with [`ScheduleBuilder`]), struct-of-arrays with `u32` indices.
//! - `engine.rs`: the discrete-event simulator ([`Simulator`]), LogGOPSim's semantics.
//! - `noise.rs`: detour sources ([`Noise`], [`DetourTrace`]): LogGOPSim's trace format,
//!   periodic and Poisson detours, a rank's phase from a seed or co-scheduled.
//! - `goal.rs`: GOAL text in and out ([`parse_goal`], [`write_goal`]).
//! - `algorithms/`: the libraries' collective algorithms as schedules ([`collective`],
//!   [`ALGORITHMS`]).
//!
//! No MPI and no command line here: `simulate` builds the schedules and hands the engine
//! each rank's start time (a late arrival is a later start).

pub mod algorithms;
pub mod engine;
pub mod goal;
pub mod noise;
pub mod params;
pub mod schedule;

pub use algorithms::{collective, collective_with, Overlap, Progress, ALGORITHMS};
pub use engine::Simulator;
pub use goal::{parse_goal, write_goal};
pub use noise::{DetourTrace, Noise};
pub use params::Params;
pub use schedule::{OpKind, Schedule, ScheduleBuilder, ANY};

use thiserror::Error;

/// What the LogGOPS engine refuses, each naming what was wrong.
#[derive(Debug, Error)]
pub enum LoggopsError {
    /// A parameter specification (`L=2.5us,o=1.5us,...`) that cannot be read.
    #[error("LogGOPS parameters '{spec}': {reason}")]
    Params { spec: String, reason: String },
    /// A GOAL text that does not follow the grammar, at `file:line`.
    #[error("{file}:{line}: {message}")]
    Goal {
        file: String,
        line: usize,
        message: String,
    },
    /// A schedule whose dependencies form a cycle: these operations can never start.
    #[error("the schedule has a dependency cycle; operations that can never start: {left}")]
    Cycle { left: String },
    /// A schedule that ended with operations left waiting (a receive no send matches, a send
    /// no receive matches), named by rank and operation.
    #[error("the schedule cannot finish; operations left waiting: {left}")]
    Unfinished { left: String },
    /// An operation or rank out of range while building a schedule.
    #[error("invalid schedule: {0}")]
    Invalid(String),
    /// An unknown collective or algorithm name.
    #[error("{0}")]
    Algorithm(String),
    /// A noise source that is neither a trace nor a synthetic specification.
    #[error("noise {source_name}: {message}")]
    Noise {
        source_name: String,
        message: String,
    },
    /// A file that cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}
