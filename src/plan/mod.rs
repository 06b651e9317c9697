//! What a run measures and whether it may: the one place a plan is defined, built and checked.
//!
//! - [`run_plan`]: the [`Plan`] itself, plain data that rank 0 builds, validates and
//!   broadcasts, and that the records header stores.
//! - [`kernel`]: the registry of collective kernels (each operation one table entry).
//! - [`options`]: how a configuration's repetitions are measured (overlap, adaptive).
//! - [`algorithms`]: which collective algorithm a block asks of the MPI library (MPI_T).
//! - [`vcounts`]: a replayed v-form site's count vectors, as each rank's partitions.
//! - [`checks`]: the checks made before a run (memory, MPI counts, estimated time).
//! - [`config_file`]: study files (`--config`), TOML that fills in measurement options.

pub mod algorithms;
pub mod checks;
pub mod config_file;
pub mod kernel;
pub mod options;
pub mod run_plan;
pub mod vcounts;

pub use kernel::Op;
pub use options::{AdaptiveSpec, OverlapMode, OverlapSpec};
pub use run_plan::{ClockSource, Plan, PlanError, Subcomm, SyncMethod};
