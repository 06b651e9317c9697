//! `fixed:DELAY`, or `DELAY` alone: every delayed rank is late by exactly DELAY.

use super::scalar::{self, Bound, Layout, Scalar, ScalarModel};
use super::ModelEntry;
use crate::delay::DelayModel;
use crate::units::format_duration;
use rand::RngCore;

/// Always `delay_s` seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Fixed {
    /// The delay in seconds (≥ 0).
    pub delay_s: f64,
}

pub(super) const ENTRY: ModelEntry = ModelEntry {
    keyword: "fixed",
    aliases: &[],
    syntax: "one duration",
    example: "fixed:50us",
    help: "",
    parse: scalar::parse::<Fixed>,
    from_params: scalar::from_params::<Fixed>,
    demo: || DelayModel::new(Fixed { delay_s: 50e-6 }),
};

impl ScalarModel for Fixed {
    const ENTRY: &'static ModelEntry = &ENTRY;
    const LAYOUT: Layout = Layout::Whole;
    const PARAMS: &'static [Scalar] = &[Scalar::duration("delay_s", "delay", Bound::AtLeastZero)];

    fn from_values(v: &[f64]) -> Self {
        Fixed { delay_s: v[0] }
    }

    fn values(&self) -> Vec<f64> {
        vec![self.delay_s]
    }

    fn is_fixed(&self) -> bool {
        true
    }

    fn mean_s(&self) -> f64 {
        self.delay_s
    }

    fn sd_s(&self) -> f64 {
        0.0
    }

    /// The bare duration, `50us`: the shortest spec of this model.
    fn label(&self) -> String {
        format_duration(self.delay_s)
    }

    fn sample(&self, _rng: &mut dyn RngCore, _index: u64) -> f64 {
        self.delay_s
    }
}
