//! `gamma:SHAPE,SCALE`: gamma, SHAPE a positive number, SCALE a duration > 0; mean
//! SHAPE · SCALE.

use super::{built, Args, Check, DelaySampler, ModelEntry, Param, ParamError, Params};
use crate::delay::{DelayModel, DelayModelError};
use crate::units::format_duration;
use rand::RngCore;
use rand_distr::Distribution;

/// Gamma with dimensionless `shape` and scale `scale_s` seconds; mean shape · scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Gamma {
    /// Shape, dimensionless (> 0).
    pub shape: f64,
    /// Scale in seconds (> 0).
    pub scale_s: f64,
}

pub(super) const ENTRY: ModelEntry = ModelEntry {
    keyword: "gamma",
    aliases: &[],
    syntax: "SHAPE,SCALE (a number and a duration)",
    example: "gamma:2,10us",
    help: "shape, scale",
    parse,
    from_params,
    demo: || {
        DelayModel::new(Gamma {
            shape: 2.0,
            scale_s: 10e-6,
        })
    },
};

fn parse(a: &Args) -> Result<DelayModel, DelayModelError> {
    let [shape, scale] = a.two(&ENTRY)?;
    Ok(DelayModel::new(Gamma {
        shape: a.number(shape, "shape", &ENTRY)?,
        scale_s: a.duration(scale, "scale", &ENTRY)?,
    }))
}

fn from_params(p: &Params) -> Result<DelayModel, ParamError> {
    Ok(DelayModel::new(Gamma {
        shape: p.number("shape")?,
        scale_s: p.number("scale_s")?,
    }))
}

impl DelaySampler for Gamma {
    fn keyword(&self) -> &'static str {
        ENTRY.keyword
    }

    fn params(&self) -> Vec<(&'static str, Param)> {
        vec![
            ("shape", Param::Number(self.shape)),
            ("scale_s", Param::Number(self.scale_s)),
        ]
    }

    fn validate(&self, c: &Check) -> Result<(), DelayModelError> {
        c.positive(self.shape, "shape", &ENTRY)?;
        c.positive(self.scale_s, "scale", &ENTRY)
    }

    fn mean_s(&self) -> f64 {
        self.shape * self.scale_s
    }

    fn sd_s(&self) -> f64 {
        self.shape.sqrt() * self.scale_s
    }

    fn label(&self) -> String {
        format!("gamma:{},{}", self.shape, format_duration(self.scale_s))
    }

    fn sample(&self, rng: &mut dyn RngCore, _index: u64) -> f64 {
        built(rand_distr::Gamma::new(self.shape, self.scale_s), self).sample(rng)
    }
}
