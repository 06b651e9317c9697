//! Offline analysis of records: t_global per repetition and the per-configuration summary
//! with the delay overlap benefit. Plain Rust over [`crate::records`], no MPI.

mod skew;
mod stats;
mod summary;
mod tglobal;

pub use skew::{exit_skew, ExitSkew};
pub use stats::{median, minimum};
pub use summary::{benefit, summarize, SummaryRow};
pub use tglobal::{t_global, valid_t_globals};
