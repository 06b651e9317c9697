//! The clock-synchronisation parameters, one argument group for every MPI command and the
//! measurement.

use super::headings::EXPERT_CLOCK;
use super::parsers::parse_duration_s;
use crate::clock::{ClockSyncParams, EmulationSpec};
use clap::Args;

/// Clock synchronisation parameters shared by every MPI command.
#[derive(Debug, Clone, Args)]
pub struct ClockArgs {
    /// Clock sync: consecutive non-improving ping-pongs that end a min-RTT offset measurement.
    // Named with its group, as --clock-sync is; the old name stays accepted, unshown.
    #[arg(
        long,
        alias = "sync-nonimproving",
        default_value_t = ClockSyncParams::default().nonimproving,
        help_heading = EXPERT_CLOCK,
        hide_short_help = true
    )]
    pub clock_sync_nonimproving: u32,
    /// Drift-aware methods (jk, hca, hca3, treefit): fit points per linear regression
    /// (N_FITPTS).
    #[arg(long, default_value_t = ClockSyncParams::default().fitpoints, help_heading = EXPERT_CLOCK, hide_short_help = true)]
    pub fitpoints: u32,
    /// Drift-aware methods: ping-pongs per fit point (N_EXCHANGES).
    #[arg(long, default_value_t = ClockSyncParams::default().exchanges_per_fitpoint, help_heading = EXPERT_CLOCK, hide_short_help = true)]
    pub exchanges_per_fitpoint: u32,
    /// Drift-aware methods: time between fit points (e.g. 10ms); the fit spans about
    /// fitpoints x this.
    #[arg(long, value_parser = parse_duration_s, default_value = "1ms", help_heading = EXPERT_CLOCK, hide_short_help = true)]
    pub fit_interval: f64,
    /// skampi and hca intercepts: ping-pongs per offset measurement.
    #[arg(long, default_value_t = ClockSyncParams::default().skampi_pingpongs, help_heading = EXPERT_CLOCK, hide_short_help = true)]
    pub skampi_pingpongs: u32,
    /// hca: measure intercepts in the tree (the second approach of Hunold and Carpen-Amarie
    /// 2015, O(log P)) instead of against rank 0 (first approach, O(P)).
    #[arg(long, help_heading = EXPERT_CLOCK, hide_short_help = true)]
    pub hca_hierarchical_intercepts: bool,
    /// Emulate per-rank clock offsets and skews on every clock reading, e.g.
    /// `offset=1ms*rank,skew=20ppm*alt` (one host only: the truth is then known).
    #[arg(long, help_heading = EXPERT_CLOCK, hide_short_help = true)]
    pub emulate_clock: Option<EmulationSpec>,
}

impl ClockArgs {
    /// The parameters of the clock synchronisation methods.
    pub fn params(&self) -> ClockSyncParams {
        ClockSyncParams {
            nonimproving: self.clock_sync_nonimproving,
            fitpoints: self.fitpoints,
            exchanges_per_fitpoint: self.exchanges_per_fitpoint,
            fit_interval_s: self.fit_interval,
            skampi_pingpongs: self.skampi_pingpongs,
            hca_hierarchical_intercepts: self.hca_hierarchical_intercepts,
            ..ClockSyncParams::default()
        }
    }
}
