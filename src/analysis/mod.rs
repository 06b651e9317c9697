//! Offline analysis of records: t_global per repetition and the per-configuration summary
//! with the delay overlap benefit. Plain Rust over [`crate::records`], no MPI.

mod posthoc;
mod sampled;
mod skew;
mod stats;
mod summary;
mod tables;
mod tglobal;
mod trend;
mod truth;

pub use posthoc::{apply_clock_choice, offset_tracks, ClockChoice, ClockCorrection, OffsetTrack};
pub use sampled::{
    distribution, noise_amplification, noise_effect, rep_benefits, Distribution, NoiseEffect,
};
pub use skew::{exit_skew, ExitSkew};
pub use stats::{median, minimum};
pub use summary::{benefit, summarize, SummaryRow};
pub use tables::{distribution_rows, trend_rows, DistributionRow, TrendRow};
pub use tglobal::{t_global, valid_t_globals};
pub use trend::{t_global_trend, Trend};
pub use truth::{true_start_spread, true_time, TruthRow};
