//! What a clock synchronisation method is built from: its parameters and its registry entry.
//! Each method's file in `methods/` defines its `ENTRY`; the `methods!` registry in
//! `methods/mod.rs` maps the names to them.

use super::fit::FitParams;
use super::ClockSync;
use serde::{Deserialize, Serialize};

/// What the registry knows of one method; each method's file defines its `ENTRY`.
#[derive(Clone, Copy)]
pub struct MethodEntry {
    /// Its name (the clap value and the serde name of its [`ClockSyncMethod`] variant).
    pub name: &'static str,
    /// Whether it estimates a slope (drift-aware) or only an offset.
    pub models_drift: bool,
    /// The method with the parameters it uses.
    pub build: fn(&ClockSyncParams) -> Box<dyn ClockSync + Send + Sync>,
}

/// Parameters of every method; each method uses the ones it names. Missing fields take the
/// defaults when deserialised.
///
/// The defaults give a drift-aware fit of about 50 ms per pair (50 fit points 1 ms apart, 20
/// ping-pongs each): in the event-driven simulator (`clocksync --simulate`, P = 2, 20 seeds)
/// that is 49 ms per tree level with the same error right after the sync as the earlier
/// 40 × 10 ms fits (treefit median 0.04 µs, largest 0.13 µs), because the final intercepts,
/// not the slope, set that error. The slope of a 50 ms fit is worse (treefit 10 s after the
/// sync: median 1.0 µs instead of 0.17 µs): measurement runs track the drift and refit the
/// slope over the run, so the initial fit only has to start them right. For long
/// extrapolations without tracking use `--fitpoints 40 --fit-interval 10ms`. The paper (Hunold and Carpen-Amarie 2015,
/// §7) uses (N_FITPTS, N_EXCHANGES) = (100, 30) up to (500, 100) with back-to-back exchanges,
/// i.e. 3,000-50,000 ping-pongs per pair; here 50 × 20 = 1,000.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClockSyncParams {
    /// N: consecutive exchanges that do not improve the smallest RTT before a min-RTT offset
    /// measurement stops (Hoefler et al. 2010, §3.1; default 100, the paper's choice). offset, netgauge, and
    /// treefit's intercepts.
    pub nonimproving: u32,
    /// Cap on the exchanges of one min-RTT offset measurement (default 10,000).
    pub max_exchanges: u32,
    /// N_FITPTS: fit points per pairwise regression (Hunold and Carpen-Amarie 2015, §6; default 50). jk, hca, hca3,
    /// treefit.
    pub fitpoints: u32,
    /// N_EXCHANGES: ping-pongs per fit point (Hunold and Carpen-Amarie 2015, §6; default 20). jk, hca, treefit.
    pub exchanges_per_fitpoint: u32,
    /// Seconds between the starts of consecutive fit points (default 0.001 s; 0 = back to
    /// back as in Hunold and Carpen-Amarie 2015). A fit spans about `fitpoints × fit_interval_s`; its slope error falls
    /// with that span. jk, hca, treefit.
    pub fit_interval_s: f64,
    /// N_PINGPONGS of the RTT estimate of Algorithm 3 (Hunold and Carpen-Amarie 2015; default 100). jk, hca.
    pub rtt_pingpongs: u32,
    /// Ping-pongs of one SKaMPI offset measurement (SKaMPI's Number_ping_pongs; default 100).
    /// skampi, hca intercepts.
    pub skampi_pingpongs: u32,
    /// hca: re-measure intercepts per pair in the tree (the second approach of Hunold and Carpen-Amarie 2015, O(log P))
    /// instead of against rank 0 after the tree (first approach, O(P); default false).
    pub hca_hierarchical_intercepts: bool,
}

impl Default for ClockSyncParams {
    fn default() -> Self {
        ClockSyncParams {
            nonimproving: 100,
            max_exchanges: 10_000,
            fitpoints: 50,
            exchanges_per_fitpoint: 20,
            fit_interval_s: 0.001,
            rtt_pingpongs: 100,
            skampi_pingpongs: 100,
            hca_hierarchical_intercepts: false,
        }
    }
}

impl ClockSyncParams {
    /// The command-line flag of the first count that is 0 but must be at least 1 (a method
    /// using it would measure nothing), or `None` when all are usable.
    pub fn zero_count(&self) -> Option<&'static str> {
        [
            (self.skampi_pingpongs, "--skampi-pingpongs"),
            (self.exchanges_per_fitpoint, "--exchanges-per-fitpoint"),
            (self.rtt_pingpongs, "rtt_pingpongs"),
            (self.max_exchanges, "max_exchanges"),
        ]
        .into_iter()
        .find(|(n, _)| *n == 0)
        .map(|(_, flag)| flag)
    }

    /// The pairwise fit parameters of jk, hca and treefit.
    pub fn fit(&self) -> FitParams {
        FitParams {
            fitpoints: self.fitpoints,
            exchanges_per_fitpoint: self.exchanges_per_fitpoint,
            fit_interval_s: self.fit_interval_s,
            rtt_pingpongs: self.rtt_pingpongs,
        }
    }
}
