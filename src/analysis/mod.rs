//! Offline analysis of records: t_global per repetition and the per-configuration summary
//! with the delay overlap benefit. Plain Rust over [`crate::records`], no MPI.

mod bootstrap;
mod compare;
mod config_stats;
mod launches;
mod sampled;
mod skew;
mod stats;
mod summary;
mod tables;
mod tglobal;
mod trend;
mod warnings;

pub use bootstrap::{Bootstrap, Interval};
pub use compare::{compare, CompareRow, Unmatched, COMPARE_SCHEMA_VERSION};
pub use config_stats::{
    benefit_ceiling, config_stats, AnalysisError, ConfigStats, ANALYZE_SCHEMA_VERSION, FEW_VALID,
};
pub use launches::{analyze, Analysis};
pub use sampled::{
    distribution, noise_amplification, noise_effect, rep_benefits, Distribution, NoiseEffect,
};
pub use skew::{exit_skew, ExitSkew};
pub use stats::{describe, median, minimum, Outliers, SampleStats};
pub use summary::{benefit, summarize, SummaryRow};
pub use tables::{distribution_rows, is_noise, trend_rows, DistributionRow, TrendRow};
pub use tglobal::{t_global, valid_t_globals};
pub use trend::{t_global_trend, Trend};
pub use warnings::run_warnings;
