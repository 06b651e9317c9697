//! `pareto:SCALE,SHAPE`: Pareto type I, SCALE the minimum (> 0), SHAPE > 1; mean
//! SHAPE · SCALE / (SHAPE − 1).
//!
//! A SHAPE ≤ 1 has an infinite mean, so neither a nominal delay for the records nor a window
//! could be derived; it is rejected. 1 < SHAPE ≤ 2 is accepted (infinite variance:
//! [`DelaySampler::sd_s`] is infinite).

use super::{built, Args, Check, DelaySampler, ModelEntry, Param, ParamError, Params};
use crate::delay::{DelayModel, DelayModelError};
use crate::units::format_duration;
use rand::RngCore;
use rand_distr::Distribution;

/// Pareto type I with minimum `scale_s` seconds and dimensionless `shape`.
#[derive(Debug, Clone, PartialEq)]
pub struct Pareto {
    /// The minimum delay in seconds (> 0).
    pub scale_s: f64,
    /// Shape, dimensionless (> 1).
    pub shape: f64,
}

pub(super) const ENTRY: ModelEntry = ModelEntry {
    keyword: "pareto",
    aliases: &[],
    syntax: "SCALE,SHAPE (a duration, the minimum, and a number)",
    example: "pareto:10us,2.5",
    help: "minimum, shape",
    parse,
    from_params,
    demo: || {
        DelayModel::new(Pareto {
            scale_s: 10e-6,
            shape: 5.0,
        })
    },
};

fn parse(a: &Args) -> Result<DelayModel, DelayModelError> {
    let [scale, shape] = a.two(&ENTRY)?;
    Ok(DelayModel::new(Pareto {
        scale_s: a.duration(scale, "scale", &ENTRY)?,
        shape: a.number(shape, "shape", &ENTRY)?,
    }))
}

fn from_params(p: &Params) -> Result<DelayModel, ParamError> {
    Ok(DelayModel::new(Pareto {
        scale_s: p.number("scale_s")?,
        shape: p.number("shape")?,
    }))
}

impl DelaySampler for Pareto {
    fn keyword(&self) -> &'static str {
        ENTRY.keyword
    }

    fn params(&self) -> Vec<(&'static str, Param)> {
        vec![
            ("scale_s", Param::Number(self.scale_s)),
            ("shape", Param::Number(self.shape)),
        ]
    }

    fn validate(&self, c: &Check) -> Result<(), DelayModelError> {
        c.positive(self.scale_s, "scale", &ENTRY)?;
        c.positive(self.shape, "shape", &ENTRY)?;
        if self.shape <= 1.0 {
            return Err(DelayModelError::InfiniteMean { spec: c.spec() });
        }
        Ok(())
    }

    fn mean_s(&self) -> f64 {
        self.shape * self.scale_s / (self.shape - 1.0)
    }

    fn sd_s(&self) -> f64 {
        let (xm, a) = (self.scale_s, self.shape);
        if a > 2.0 {
            xm / (a - 1.0) * (a / (a - 2.0)).sqrt()
        } else {
            f64::INFINITY
        }
    }

    fn label(&self) -> String {
        format!("pareto:{},{}", format_duration(self.scale_s), self.shape)
    }

    fn sample(&self, rng: &mut dyn RngCore, _index: u64) -> f64 {
        built(rand_distr::Pareto::new(self.scale_s, self.shape), self).sample(rng)
    }
}
