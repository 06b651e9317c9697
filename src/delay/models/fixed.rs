//! `fixed:DELAY`, or `DELAY` alone: every delayed rank is late by exactly DELAY.

use super::{Args, Check, DelaySampler, ModelEntry, Param, ParamError, Params};
use crate::delay::{DelayModel, DelayModelError};
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
    parse,
    from_params,
    demo: || DelayModel::new(Fixed { delay_s: 50e-6 }),
};

fn parse(a: &Args) -> Result<DelayModel, DelayModelError> {
    Ok(DelayModel::new(Fixed {
        delay_s: a.duration(a.text(), "delay", &ENTRY)?,
    }))
}

fn from_params(p: &Params) -> Result<DelayModel, ParamError> {
    Ok(DelayModel::new(Fixed {
        delay_s: p.number("delay_s")?,
    }))
}

impl DelaySampler for Fixed {
    fn keyword(&self) -> &'static str {
        ENTRY.keyword
    }

    fn params(&self) -> Vec<(&'static str, Param)> {
        vec![("delay_s", Param::Number(self.delay_s))]
    }

    fn validate(&self, c: &Check) -> Result<(), DelayModelError> {
        c.finite(self.delay_s, "delay")
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
