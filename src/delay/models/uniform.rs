//! `uniform:LOW..HIGH`: uniform in [LOW, HIGH), two durations with LOW ≤ HIGH; mean
//! (LOW + HIGH) / 2.

use super::scalar::{self, Bound, Layout, Scalar, ScalarModel};
use super::{Check, ModelEntry};
use crate::delay::{DelayModel, DelayModelError};
use rand::{Rng, RngCore};

/// Uniform in `[low_s, high_s)` seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Uniform {
    /// Lower bound in seconds (≥ 0).
    pub low_s: f64,
    /// Upper bound in seconds (≥ `low_s`).
    pub high_s: f64,
}

pub(super) const ENTRY: ModelEntry = ModelEntry {
    keyword: "uniform",
    aliases: &[],
    syntax: "LOW..HIGH (two durations)",
    example: "uniform:0us..100us",
    help: "",
    parse: scalar::parse::<Uniform>,
    from_params: scalar::from_params::<Uniform>,
    demo: || {
        DelayModel::new(Uniform {
            low_s: 20e-6,
            high_s: 80e-6,
        })
    },
};

impl ScalarModel for Uniform {
    const ENTRY: &'static ModelEntry = &ENTRY;
    const LAYOUT: Layout = Layout::Range;
    const PARAMS: &'static [Scalar] = &[
        Scalar::duration("low_s", "lower bound", Bound::AtLeastZero),
        Scalar::duration("high_s", "upper bound", Bound::AtLeastZero),
    ];

    fn from_values(v: &[f64]) -> Self {
        Uniform {
            low_s: v[0],
            high_s: v[1],
        }
    }

    fn values(&self) -> Vec<f64> {
        vec![self.low_s, self.high_s]
    }

    fn check(&self, c: &Check) -> Result<(), DelayModelError> {
        if self.low_s > self.high_s {
            return Err(DelayModelError::EmptyRange { spec: c.spec() });
        }
        Ok(())
    }

    fn mean_s(&self) -> f64 {
        0.5 * (self.low_s + self.high_s)
    }

    fn sd_s(&self) -> f64 {
        (self.high_s - self.low_s) / 12f64.sqrt()
    }

    fn sample(&self, rng: &mut dyn RngCore, _index: u64) -> f64 {
        let width = self.high_s - self.low_s;
        self.low_s + width * rng.random::<f64>()
    }
}
