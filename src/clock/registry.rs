//! The clock synchronisation methods by name, and their parameters.

use super::fit::FitParams;
use super::ClockSync;
use serde::{Deserialize, Serialize};

/// The clock synchronisation methods, chosen by name on the command line and in configs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ClockSyncMethod {
    /// Offset only, min-RTT ping-pong against rank 0, O(P) (Niethammer et al. 2016, eq. 2-3, Hoefler et al. 2010, §3.1).
    Offset,
    /// Offset only, SKaMPI's fixed-count bounds method against rank 0, O(P) (Hunold and Carpen-Amarie 2015, §6).
    Skampi,
    /// Offset only, O(log P) tree of min-RTT offsets (Hoefler et al. 2010, §3.2, Figure 7).
    Netgauge,
    /// Linear drift model per peer against rank 0, O(P) (Jones and Koenig; Hunold and Carpen-Amarie 2015, §2, §6).
    Jk,
    /// Hierarchical linear models merged with MERGE_LMS, SKaMPI intercepts (Hunold and Carpen-Amarie 2015, §6, Alg. 1-4).
    Hca,
    /// HCA3 of ReproMPI/mpits: O(log P) top-down fits against the parent's global clock,
    /// SKaMPI-bounds fit points, regression intercepts.
    Hca3,
    /// O(log P) top-down fits against the reference's global clock (HCA3 of ReproMPI/mpits),
    /// with low-RTT midpoint fit points and a final intercept pass.
    Treefit,
}

impl ClockSyncMethod {
    /// Every method, in the order of the table in the module documentation.
    pub const ALL: [ClockSyncMethod; 7] = [
        ClockSyncMethod::Offset,
        ClockSyncMethod::Skampi,
        ClockSyncMethod::Netgauge,
        ClockSyncMethod::Jk,
        ClockSyncMethod::Hca,
        ClockSyncMethod::Hca3,
        ClockSyncMethod::Treefit,
    ];

    /// The method's registry entry: one arm per method, each from the method's own file.
    fn entry(self) -> MethodEntry {
        match self {
            ClockSyncMethod::Offset => super::offset::ENTRY,
            ClockSyncMethod::Skampi => super::skampi::ENTRY,
            ClockSyncMethod::Netgauge => super::netgauge::ENTRY,
            ClockSyncMethod::Jk => super::jk::ENTRY,
            ClockSyncMethod::Hca => super::hca::ENTRY,
            ClockSyncMethod::Hca3 => super::hca3::ENTRY,
            ClockSyncMethod::Treefit => super::treefit::ENTRY,
        }
    }

    /// The method's name on the command line, in configs and in records.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// True for methods that estimate a slope (drift-aware), false for offset-only ones.
    pub fn models_drift(self) -> bool {
        self.entry().models_drift
    }
}

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

impl std::fmt::Display for ClockSyncMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
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

/// The method `method` with the parameters it uses from `p`.
pub fn build(method: ClockSyncMethod, p: &ClockSyncParams) -> Box<dyn ClockSync + Send + Sync> {
    (method.entry().build)(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn every_method_is_registered_once() {
        assert_eq!(&ClockSyncMethod::ALL[..], ClockSyncMethod::value_variants());
        let mut names: Vec<&str> = ClockSyncMethod::ALL.iter().map(|m| m.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ClockSyncMethod::ALL.len());
    }

    #[test]
    fn names_agree_everywhere() {
        let p = ClockSyncParams::default();
        for m in ClockSyncMethod::ALL {
            assert_eq!(build(m, &p).name(), m.name());
            assert_eq!(m.to_possible_value().unwrap().get_name(), m.name());
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                format!("\"{}\"", m.name())
            );
            assert!(!build(m, &p).params().is_empty());
        }
    }

    #[test]
    fn params_default_when_missing() {
        let p: ClockSyncParams = serde_json::from_str(r#"{"fitpoints": 7}"#).unwrap();
        assert_eq!(p.fitpoints, 7);
        assert_eq!(p.nonimproving, 100);
        assert!(!p.hca_hierarchical_intercepts);
    }
}
