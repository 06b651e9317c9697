//! `delaybench simulate`: the plan of a measurement run, run in simulated time by an engine
//! and written as an ordinary records file marked as simulated. Plain Rust: no MPI in this
//! process, so it works in the `--no-default-features` build too.
//!
//! One component, several engines behind one interface ([`Engine`]):
//! - [`blocks`]: what every engine is given, the blocks of one P in the measurement's order
//!   with their delay matrices drawn from the measurement's streams (`plan::blocks`), and
//!   what it gives back, each block's per-rank, per-repetition start and end times
//!   ([`blocks::SimulatedTimes`]), which [`blocks::to_block`] turns into records blocks;
//! - [`writer`]: the one records writer every engine's results go through (the header of a
//!   simulated run, each P's blocks as soon as they are simulated, the costs at the end), so
//!   `analyze`, `plot`, `compare`, `tune` and `info` read them as a measurement's;
//! - [`session`]: one `simulate`, engine-independent: the outputs (one per swept algorithm),
//!   the loop over P with its progress lines, the end-of-run summary;
//! - [`options`]: the plain options the command line is turned into at the edge, among them
//!   the engine (`--engine`), the noise source (`--noise`, [`noise_source`]) and the LogGOPS
//!   parameters (`--loggops`);
//! - [`smpi`]: the SimGrid SMPI engine (Casanova et al. 2014; Degomme et al. 2017), one
//!   `smpirun` per P;
//! - [`loggops`]: the built-in LogGOPS engine (Hoefler, Schneider and Lumsdaine 2010): the
//!   event loop, its schedules and GOAL files, noise; [`loggops_engine`] puts it behind
//!   [`Engine`], the default engine (it needs nothing installed).
//!
//! See docs/simulate.md.

pub mod blocks;
pub mod loggops;
pub mod loggops_engine;
pub mod noise_source;
pub mod options;
pub mod progress;
pub mod session;
pub mod smpi;
pub mod writer;

pub use options::{EngineKind, Options, SmpiSettings};
pub use session::run;
pub use smpi::SmpiError;

use crate::plan::algorithms::AlgorithmSetting;
use crate::plan::Op;
use crate::records::Simulation;
use blocks::{SimBlock, SimulatedTimes};
use thiserror::Error;

/// An engine: it simulates the blocks of one P at a time, each block's repetitions started
/// in windows as a measurement starts them, every rank's delays waited before its call.
pub trait Engine {
    /// The header's `simulation` field before any P ran (its `costs` are filled in by the
    /// session): the engine, its version, platform and parameters, the noise source.
    fn simulation(&self) -> Simulation;

    /// The host of every rank slot of the largest P; P ranks run on the first P slots, as a
    /// measurement's sub-communicators do on one cluster.
    fn rank_hosts(&self) -> &[String];

    /// The header's clock source: which clock the engine's times are read on.
    fn clock_source(&self) -> String;

    /// The algorithm setting every block of `op` carries (a swept algorithm), if any.
    fn algorithm(&self, op: Op) -> Option<AlgorithmSetting>;

    /// Simulates `blocks` (those of [`blocks::blocks_of`] for `p`) and returns one
    /// [`SimulatedTimes`] per block, in order, with what the P cost.
    ///
    /// Errors: the engine's, as a [`SimulateError`].
    fn simulate(&mut self, p: u32, blocks: &[SimBlock]) -> Result<Simulated, SimulateError>;

    /// What simulating `plan` at `p` ranks will need, bytes, at most; `None` when the
    /// engine cannot say. The session refuses a P whose estimate exceeds the machine's
    /// available memory before the curve starts.
    fn memory_estimate_bytes(&self, _plan: &crate::plan::Plan, _p: u32) -> Option<u64> {
        None
    }
}

/// What an engine gives back for one P.
#[derive(Debug, Clone, PartialEq)]
pub struct Simulated {
    /// One per block, in the order given.
    pub times: Vec<SimulatedTimes>,
    /// Repetitions really simulated (fewer than the blocks' when repeated delay vectors were
    /// simulated once).
    pub simulated_repetitions: usize,
    /// Peak resident memory, bytes, after this P (0 when not measured): the SMPI engine's
    /// simulator process for this P; the LogGOPS engine's, which runs in this process, the
    /// process's peak so far (`ru_maxrss`), which on an ascending curve is this P's.
    pub peak_memory_bytes: u64,
}

/// Errors of `delaybench simulate`, all found before or while an engine runs.
#[derive(Debug, Error)]
pub enum SimulateError {
    /// An option or the plan is refused before anything runs; the message names the option.
    #[error("{0}")]
    Plan(String),
    /// The SMPI engine's errors.
    #[error(transparent)]
    Smpi(#[from] SmpiError),
    #[error(transparent)]
    Records(#[from] crate::records::RecordsError),
}
