//! `lognormal:MEAN,SD`: log-normal whose delays have this mean (> 0) and standard deviation.
//!
//! The parameters are the mean and standard deviation of the delays themselves, in time units,
//! rather than the μ, σ of the underlying normal, which few users can translate into
//! microseconds: σ² = ln(1 + SD²/MEAN²), μ = ln(MEAN) − σ²/2.

use super::{built, Args, Check, DelaySampler, ModelEntry, Param, ParamError, Params};
use crate::delay::{DelayModel, DelayModelError};
use crate::units::format_duration;
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
    parse,
    from_params,
    demo: || {
        DelayModel::new(LogNormal {
            mean_s: 50e-6,
            sd_s: 20e-6,
        })
    },
};

fn parse(a: &Args) -> Result<DelayModel, DelayModelError> {
    let [mean, sd] = a.two(&ENTRY)?;
    Ok(DelayModel::new(LogNormal {
        mean_s: a.duration(mean, "mean", &ENTRY)?,
        sd_s: a.duration(sd, "standard deviation", &ENTRY)?,
    }))
}

fn from_params(p: &Params) -> Result<DelayModel, ParamError> {
    Ok(DelayModel::new(LogNormal {
        mean_s: p.number("mean_s")?,
        sd_s: p.number("sd_s")?,
    }))
}

impl DelaySampler for LogNormal {
    fn keyword(&self) -> &'static str {
        ENTRY.keyword
    }

    fn params(&self) -> Vec<(&'static str, Param)> {
        vec![
            ("mean_s", Param::Number(self.mean_s)),
            ("sd_s", Param::Number(self.sd_s)),
        ]
    }

    fn validate(&self, c: &Check) -> Result<(), DelayModelError> {
        c.positive(self.mean_s, "mean", &ENTRY)?;
        c.finite(self.sd_s, "standard deviation")
    }

    fn mean_s(&self) -> f64 {
        self.mean_s
    }

    fn sd_s(&self) -> f64 {
        self.sd_s
    }

    fn label(&self) -> String {
        let d = format_duration;
        format!("lognormal:{},{}", d(self.mean_s), d(self.sd_s))
    }

    fn sample(&self, rng: &mut dyn RngCore, _index: u64) -> f64 {
        let sigma2 = (1.0 + (self.sd_s / self.mean_s).powi(2)).ln();
        let mu = self.mean_s.ln() - 0.5 * sigma2;
        built(rand_distr::LogNormal::new(mu, sigma2.sqrt()), self).sample(rng)
    }
}
