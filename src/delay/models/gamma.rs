//! `gamma:SHAPE,SCALE`: gamma, SHAPE a positive number, SCALE a duration > 0; mean
//! SHAPE · SCALE.

use super::scalar::{self, Bound, Layout, Scalar, ScalarModel};
use super::{built, ModelEntry};
use crate::delay::DelayModel;
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
    parse: scalar::parse::<Gamma>,
    from_params: scalar::from_params::<Gamma>,
    demo: || {
        DelayModel::new(Gamma {
            shape: 2.0,
            scale_s: 10e-6,
        })
    },
};

impl ScalarModel for Gamma {
    const ENTRY: &'static ModelEntry = &ENTRY;
    const LAYOUT: Layout = Layout::Commas;
    const PARAMS: &'static [Scalar] = &[
        Scalar::shape("shape", "shape"),
        Scalar::duration("scale_s", "scale", Bound::AboveZero),
    ];

    fn from_values(v: &[f64]) -> Self {
        Gamma {
            shape: v[0],
            scale_s: v[1],
        }
    }

    fn values(&self) -> Vec<f64> {
        vec![self.shape, self.scale_s]
    }

    fn mean_s(&self) -> f64 {
        self.shape * self.scale_s
    }

    fn sd_s(&self) -> f64 {
        self.shape.sqrt() * self.scale_s
    }

    fn sample(&self, rng: &mut dyn RngCore, _index: u64) -> f64 {
        built(rand_distr::Gamma::new(self.shape, self.scale_s), self).sample(rng)
    }
}
