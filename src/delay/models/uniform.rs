//! `uniform:LOW..HIGH`: uniform in [LOW, HIGH), two durations with LOW ≤ HIGH; mean
//! (LOW + HIGH) / 2.

use super::{Args, Check, DelaySampler, ModelEntry, Param, ParamError, Params};
use crate::delay::{DelayModel, DelayModelError};
use crate::units::format_duration;
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
    parse,
    from_params,
    demo: || {
        DelayModel::new(Uniform {
            low_s: 20e-6,
            high_s: 80e-6,
        })
    },
};

fn parse(a: &Args) -> Result<DelayModel, DelayModelError> {
    let (low, high) = a
        .text()
        .split_once("..")
        .ok_or_else(|| a.arguments(&ENTRY))?;
    Ok(DelayModel::new(Uniform {
        low_s: a.duration(low, "lower bound", &ENTRY)?,
        high_s: a.duration(high, "upper bound", &ENTRY)?,
    }))
}

fn from_params(p: &Params) -> Result<DelayModel, ParamError> {
    Ok(DelayModel::new(Uniform {
        low_s: p.number("low_s")?,
        high_s: p.number("high_s")?,
    }))
}

impl DelaySampler for Uniform {
    fn keyword(&self) -> &'static str {
        ENTRY.keyword
    }

    fn params(&self) -> Vec<(&'static str, Param)> {
        vec![
            ("low_s", Param::Number(self.low_s)),
            ("high_s", Param::Number(self.high_s)),
        ]
    }

    fn validate(&self, c: &Check) -> Result<(), DelayModelError> {
        c.finite(self.low_s, "lower bound")?;
        c.finite(self.high_s, "upper bound")?;
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

    fn label(&self) -> String {
        let d = format_duration;
        format!("uniform:{}..{}", d(self.low_s), d(self.high_s))
    }

    fn sample(&self, rng: &mut dyn RngCore, _index: u64) -> f64 {
        let width = self.high_s - self.low_s;
        self.low_s + width * rng.random::<f64>()
    }
}
