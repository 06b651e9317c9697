//! `pareto:SCALE,SHAPE`: Pareto type I, SCALE the minimum (> 0), SHAPE > 1; mean
//! SHAPE · SCALE / (SHAPE − 1).
//!
//! A SHAPE ≤ 1 has an infinite mean, so neither a nominal delay for the records nor a window
//! could be derived; it is rejected. 1 < SHAPE ≤ 2 is accepted (infinite variance:
//! [`super::DelaySampler::sd_s`] is infinite).

use super::scalar::{self, Bound, Layout, Scalar, ScalarModel};
use super::{built, Check, ModelEntry};
use crate::delay::{DelayModel, DelayModelError};
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
    parse: scalar::parse::<Pareto>,
    from_params: scalar::from_params::<Pareto>,
    demo: || {
        DelayModel::new(Pareto {
            scale_s: 10e-6,
            shape: 5.0,
        })
    },
};

impl ScalarModel for Pareto {
    const ENTRY: &'static ModelEntry = &ENTRY;
    const LAYOUT: Layout = Layout::Commas;
    const PARAMS: &'static [Scalar] = &[
        Scalar::duration("scale_s", "scale", Bound::AboveZero),
        Scalar::shape("shape", "shape"),
    ];

    fn from_values(v: &[f64]) -> Self {
        Pareto {
            scale_s: v[0],
            shape: v[1],
        }
    }

    fn values(&self) -> Vec<f64> {
        vec![self.scale_s, self.shape]
    }

    fn check(&self, c: &Check) -> Result<(), DelayModelError> {
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

    fn sample(&self, rng: &mut dyn RngCore, _index: u64) -> f64 {
        built(rand_distr::Pareto::new(self.scale_s, self.shape), self).sample(rng)
    }
}
