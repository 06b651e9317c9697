//! `exp:MEAN` (or `exponential:MEAN`): exponential with mean MEAN > 0.

use super::scalar::{self, Bound, Layout, Scalar, ScalarModel};
use super::{built, ModelEntry};
use crate::delay::DelayModel;
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
    parse: scalar::parse::<Exp>,
    from_params: scalar::from_params::<Exp>,
    demo: || DelayModel::new(Exp { mean_s: 20e-6 }),
};

impl ScalarModel for Exp {
    const ENTRY: &'static ModelEntry = &ENTRY;
    const LAYOUT: Layout = Layout::Commas;
    const PARAMS: &'static [Scalar] = &[Scalar::duration("mean_s", "mean", Bound::AboveZero)];

    fn from_values(v: &[f64]) -> Self {
        Exp { mean_s: v[0] }
    }

    fn values(&self) -> Vec<f64> {
        vec![self.mean_s]
    }

    fn mean_s(&self) -> f64 {
        self.mean_s
    }

    fn sd_s(&self) -> f64 {
        self.mean_s
    }

    fn sample(&self, rng: &mut dyn RngCore, _index: u64) -> f64 {
        built(rand_distr::Exp::new(1.0 / self.mean_s), self).sample(rng)
    }
}
