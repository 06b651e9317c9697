//! What a run measures and whether it may: the one place a plan is defined, built and checked.
//!
//! - [`run_plan`]: the [`Plan`] itself, plain data that rank 0 builds, validates and
//!   broadcasts, and that the records header stores.
//! - [`build`]: the one builder from options (a [`Request`]) to a plan, for a measurement
//!   and for `delaybench simulate`; [`replay_choice`]: what replayed captures settle in it.
//! - [`run_options`]: a measurement's settings besides its plan (output, tags, bounds).
//! - [`blocks`]: the order of a plan's blocks and the random stream of each block's delays.
//! - [`kernel`]: the registry of collective kernels (each operation one table entry).
//! - [`options`]: how a configuration's repetitions are measured (overlap, adaptive).
//! - [`algorithms`]: which collective algorithm a block asks of the MPI library (MPI_T).
//! - [`vcounts`]: a replayed v-form site's count vectors, as each rank's partitions.
//! - [`checks`]: the checks made before a run (memory, MPI counts, estimated time).
//! - [`config_file`]: study files (`--config`), TOML that fills in measurement options.
//! - [`tags`]: `--tag key=value`, checked before a run.

pub mod algorithms;
pub mod blocks;
pub mod build;
pub mod checks;
pub mod config_file;
pub mod kernel;
pub mod options;
pub mod replay_choice;
pub mod run_options;
pub mod run_plan;
pub mod tags;
pub mod vcounts;

pub use build::{default_procs, ReplayRequest, Request};
pub use kernel::Op;
pub use options::{AdaptiveSpec, OverlapMode, OverlapSpec};
pub use replay_choice::ReplayChoice;
pub use run_options::RunOptions;
pub use run_plan::{ClockSource, Plan, PlanError, ProcessSyncMethod, Subcomm};
