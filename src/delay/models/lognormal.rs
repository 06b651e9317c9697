//! `lognormal:MEAN,SD`: log-normal whose delays have this mean (> 0) and standard deviation.
//!
//! The parameters are the mean and standard deviation of the delays themselves, in time units,
//! rather than the μ, σ of the underlying normal, which few users can translate into
//! microseconds: σ² = ln(1 + SD²/MEAN²), μ = ln(MEAN) − σ²/2.

use super::scalar::{self, Bound, Layout, Scalar, ScalarModel};
use super::{built, ModelEntry};
use crate::delay::DelayModel;
use rand::RngCore;
use rand_distr::Distribution;

/// Log-normal whose values have mean `mean_s` and standard deviation `sd_s` seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct LogNormal {
    /// Mean of the delays in seconds (> 0).
    pub mean_s: f64,
    /// Standard deviation of the delays in seconds (≥ 0).
    pub sd_s: f64,
}

pub(super) const ENTRY: ModelEntry = ModelEntry {
    keyword: "lognormal",
    aliases: &[],
    syntax: "MEAN,SD (two durations)",
    example: "lognormal:50us,20us",
    help: "mean, sd",
    parse: scalar::parse::<LogNormal>,
    from_params: scalar::from_params::<LogNormal>,
    demo: || {
        DelayModel::new(LogNormal {
            mean_s: 50e-6,
            sd_s: 20e-6,
        })
    },
};

impl ScalarModel for LogNormal {
    const ENTRY: &'static ModelEntry = &ENTRY;
    const LAYOUT: Layout = Layout::Commas;
    const PARAMS: &'static [Scalar] = &[
        Scalar::duration("mean_s", "mean", Bound::AboveZero),
        Scalar::duration("sd_s", "standard deviation", Bound::AtLeastZero),
    ];

    fn from_values(v: &[f64]) -> Self {
        LogNormal {
            mean_s: v[0],
            sd_s: v[1],
        }
    }

    fn values(&self) -> Vec<f64> {
        vec![self.mean_s, self.sd_s]
    }

    fn mean_s(&self) -> f64 {
        self.mean_s
    }

    fn sd_s(&self) -> f64 {
        self.sd_s
    }

    fn sample(&self, rng: &mut dyn RngCore, _index: u64) -> f64 {
        let sigma2 = (1.0 + (self.sd_s / self.mean_s).powi(2)).ln();
        let mu = self.mean_s.ln() - 0.5 * sigma2;
        built(rand_distr::LogNormal::new(mu, sigma2.sqrt()), self).sample(rng)
    }
}
