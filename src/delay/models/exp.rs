//! `exp:MEAN` (or `exponential:MEAN`): exponential with mean MEAN > 0.

use super::{built, Args, Check, DelaySampler, ModelEntry, Param, ParamError, Params};
use crate::delay::{DelayModel, DelayModelError};
use crate::units::format_duration;
use rand::RngCore;
use rand_distr::Distribution;

/// Exponential with mean `mean_s` seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Exp {
    /// The mean (and standard deviation) in seconds (> 0).
    pub mean_s: f64,
}

pub(super) const ENTRY: ModelEntry = ModelEntry {
    keyword: "exp",
    aliases: &["exponential"],
    syntax: "one duration, the mean",
    example: "exp:20us",
    help: "mean",
    parse,
    from_params,
    demo: || DelayModel::new(Exp { mean_s: 20e-6 }),
};

fn parse(a: &Args) -> Result<DelayModel, DelayModelError> {
    if a.text().contains(',') {
        return Err(a.arguments(&ENTRY));
    }
    Ok(DelayModel::new(Exp {
        mean_s: a.duration(a.text(), "mean", &ENTRY)?,
    }))
}

fn from_params(p: &Params) -> Result<DelayModel, ParamError> {
    Ok(DelayModel::new(Exp {
        mean_s: p.number("mean_s")?,
    }))
}

impl DelaySampler for Exp {
    fn keyword(&self) -> &'static str {
        ENTRY.keyword
    }

    fn params(&self) -> Vec<(&'static str, Param)> {
        vec![("mean_s", Param::Number(self.mean_s))]
    }

    fn validate(&self, c: &Check) -> Result<(), DelayModelError> {
        c.positive(self.mean_s, "mean", &ENTRY)
    }

    fn mean_s(&self) -> f64 {
        self.mean_s
    }

    fn sd_s(&self) -> f64 {
        self.mean_s
    }

    fn label(&self) -> String {
        format!("exp:{}", format_duration(self.mean_s))
    }

    fn sample(&self, rng: &mut dyn RngCore, _index: u64) -> f64 {
        built(rand_distr::Exp::new(1.0 / self.mean_s), self).sample(rng)
    }
}
