//! Offline analysis of records, captures and noise files. Plain Rust over
//! [`crate::records`] and [`crate::capture`], no MPI.
//!
//! - t_global and its statistics: `tglobal` (per repetition), `stats`, `bootstrap`,
//!   `launch_level` (launches as the unit of replication), `confidence`, `fdr`; `digest`
//!   (what `analyze` keeps of a file), `config_stats` and `launches` (the per-configuration
//!   summary with the delay overlap benefit), `verdict` (its verdict at an equivalence
//!   margin), `sampled` (sampled delays), `overlap`
//!   (`--overlap`), `lower_bound`, `start_spread`, `warnings`.
//! - Comparisons and tables: `compare` (`delaybench compare`), `family_differences`
//!   (blocking vs nonblocking), `algorithm_table` (`analyze --algorithms`), `reference_rows`
//!   (the `ref:*` algorithms), `launch_placement` (`analyze --placement`), `tables`
//!   (`--distribution`, `--trend`), `trend`, `replay_pattern` (a replayed capture's pattern).
//! - [`tuning`]: `delaybench tune`, the MPI library's tuning file for an arrival pattern from
//!   algorithm sweeps, and the check that the library obeys it.
//! - Captures: [`arrivals`] (`delaybench arrivals`), [`causes`] (who made everyone wait: root
//!   causes of the wait states, the waiting inside a call, the libraries' schedules,
//!   what-if), [`capture_compare`] (two captures site by site).
//! - The clocks and timing schemes: `skew` (a barrier's exit skew), `truth` (the true clock
//!   error of emulated clocks), `schemes` (the published timing schemes against t_global).
//! - `noise`: what a noise file says.

mod algorithm_table;
pub mod arrivals;
mod bootstrap;
pub mod capture_compare;
pub mod causes;
mod compare;
mod confidence;
mod config_stats;
mod digest;
mod entry_spread;
mod family_differences;
mod fdr;
mod launch_level;
mod launch_placement;
mod launches;
mod lower_bound;
mod noise;
pub mod overlap;
mod reference_rows;
mod replay_pattern;
mod sampled;
mod schemes;
mod skew;
mod start_spread;
mod stats;
mod tables;
mod tglobal;
mod trend;
mod truth;
pub mod tuning;
mod verdict;

pub use confidence::ci_rel_half_width;
pub use overlap::{
    delay_hidden, imb_overlap, imb_overlap_pct, osu_overlap, osu_overlap_pct, overlap_row,
    overlap_rows, DelayHidden, MpiTimes, OverlapRow, OverlapRows, ToolOverlap,
};
mod warnings;

pub use algorithm_table::{
    algorithm_rows, algorithm_table_text, AlgorithmRow, Decision, Winner, ALGORITHMS_SCHEMA_VERSION,
};
pub use bootstrap::{two_sided_p, Bootstrap, Interval, MIN_RESAMPLES, MIN_VALID_FOR_CI};
pub use compare::{compare, CompareRow, CompareSide, Unmatched, COMPARE_SCHEMA_VERSION};
pub use config_stats::{
    benefit, benefit_ceiling, config_stats, config_stats_of_digests, samples_of, AnalysisError,
    ConfigStats, LaunchLabels, ANALYZE_SCHEMA_VERSION, FEW_VALID,
};
pub use digest::{BlockDigest, LaunchDigest};
pub use entry_spread::{entry_spreads, EntrySpreads, EntrySummary};
pub use family_differences::{
    family_differences, form_pairs, test_forms, FamilyDifference, FormSamples,
};
pub use fdr::benjamini_hochberg;
pub use launch_level::{interval_method, over_launches, ByLaunch};
pub use launch_placement::{placement_rows, separation_p, PlacementRow};
pub use launches::{analyze, analyze_digests, Analysis, LaunchInfo};
pub use lower_bound::{bound_columns, dependents, rounds, ArrivalTerms, BoundColumns};
pub use noise::{noise_report, NoiseReport, NoiseStats};
pub use reference_rows::{reference_rows, ReferenceRow};
pub use replay_pattern::{replay_pattern_rows, Hidden, ReplayPatternRow};
pub use sampled::{
    distribution, noise_amplification, noise_effect, noise_effect_t0s, rep_benefits,
    rep_benefits_t0s, BaselineT0, Distribution, NoiseEffect, ValidReps,
};
pub use schemes::{
    compare_with_window, imb_t_avg_max, mpiblib_root, osu_avg_latency, t_max_local, t_root,
    timing_row, timing_rows, SchemeRow, TimingMethod, TimingRow, REFERENCE_SCHEME, SCHEMES,
};
pub use skew::{exit_skew, ExitSkew};
pub use start_spread::{start_spreads, ClockBound, StartSpread};
pub use stats::{describe, median, minimum, Outliers, SampleStats};
pub use tables::{
    distribution_row, distribution_rows, is_noise, trend_row, trend_rows, DistributionRow,
    DistributionRows, TrendRow,
};
pub use tglobal::{t_global, valid_t_globals, BlockTimes};
pub use trend::{t_global_trend, Trend};
pub use truth::{true_start_spread, true_time, truth_rows, TruthRow};
pub use verdict::{hidden_share, Verdict, DEFAULT_MARGIN, WIDE_INTERVAL};
pub use warnings::{launch_warnings, run_warnings};
