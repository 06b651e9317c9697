//! The shared shape of the models whose parameters are a fixed list of numbers (durations in
//! seconds and dimensionless shapes): `fixed`, `uniform`, `normal`, `exp`, `lognormal`,
//! `gamma`, `pareto`.
//!
//! Such a model lists its parameters once, as a [`Scalar`] each in [`ScalarModel::PARAMS`],
//! and says how its arguments are separated ([`Layout`]); the spec parser, the reader of
//! serialised fields, the keyword, [`DelaySampler::params`], the bounds checked by
//! [`DelaySampler::validate`] and the label all follow from that list here, so the model file
//! holds only what is its own: the struct, the registry entry, the moments and the draw.
//! Models whose arguments are a file or a map (`trace`, `replay`) keep their own parsers.

use super::{Args, Check, DelaySampler, ModelEntry, Param, ParamError, Params};
use crate::delay::{DelayModel, DelayModelError};
use crate::units::format_duration;
use rand::RngCore;

/// How the arguments after `NAME:` are separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One argument, the whole text, commas and all (`fixed:50us`): a comma then fails as a
    /// duration, not as a wrong argument count.
    Whole,
    /// Split at every comma; a count other than the number of parameters is an argument error
    /// (`normal:50us,10us`, and `exp:20us`, where any comma is one).
    Commas,
    /// Two arguments split at the first `..`; no `..` is an argument error
    /// (`uniform:0us..100us`).
    Range,
}

/// What a parameter is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A non-negative duration in the grammar of [`crate::units::parse_duration_s`], stored
    /// in seconds.
    Duration,
    /// A dimensionless number, finite and > 0 when parsed.
    Shape,
}

/// The bound [`DelaySampler::validate`] checks on a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Finite and ≥ 0.
    AtLeastZero,
    /// Finite and > 0.
    AboveZero,
}

/// One parameter of a [`ScalarModel`].
#[derive(Debug, Clone, Copy)]
pub struct Scalar {
    /// The serialised field name, as in records files (`mean_s`, `shape`).
    pub field: &'static str,
    /// The name error messages give it ("standard deviation").
    pub name: &'static str,
    /// Duration or dimensionless shape.
    pub kind: Kind,
    /// What validation demands of it.
    pub bound: Bound,
}

impl Scalar {
    /// A duration in seconds serialised as `field`, named `name` in errors.
    pub const fn duration(field: &'static str, name: &'static str, bound: Bound) -> Self {
        Scalar {
            field,
            name,
            kind: Kind::Duration,
            bound,
        }
    }

    /// A dimensionless shape (> 0) serialised as `field`, named `name` in errors.
    pub const fn shape(field: &'static str, name: &'static str) -> Self {
        Scalar {
            field,
            name,
            kind: Kind::Shape,
            bound: Bound::AboveZero,
        }
    }
}

/// A delay model whose parameters are the numbers listed in [`ScalarModel::PARAMS`]: it
/// writes what is its own (values, moments, draw, rules across parameters) and is a
/// [`DelaySampler`] through the impl below, which derives the rest from the list.
///
/// Its registry entry points `parse` at [`parse::<Self>`](parse) and `from_params` at
/// [`from_params::<Self>`](from_params).
pub trait ScalarModel: Send + Sync + Sized + 'static {
    /// The model's registry entry: its keyword, syntax and example.
    const ENTRY: &'static ModelEntry;
    /// How the arguments are separated.
    const LAYOUT: Layout;
    /// The parameters in spec, serialisation and validation order.
    const PARAMS: &'static [Scalar];

    /// The model from its parameter values, in [`ScalarModel::PARAMS`] order (seconds or
    /// numbers); always as many as there are parameters.
    fn from_values(v: &[f64]) -> Self;

    /// The parameter values in [`ScalarModel::PARAMS`] order.
    fn values(&self) -> Vec<f64>;

    /// Rules across parameters (`uniform`'s LOW ≤ HIGH), checked after each parameter's
    /// [`Bound`]; none by default.
    fn check(&self, _c: &Check) -> Result<(), DelayModelError> {
        Ok(())
    }

    /// As [`DelaySampler::is_fixed`].
    fn is_fixed(&self) -> bool {
        false
    }

    /// As [`DelaySampler::mean_s`].
    fn mean_s(&self) -> f64;

    /// As [`DelaySampler::sd_s`].
    fn sd_s(&self) -> f64;

    /// As [`DelaySampler::label`]; by default [`label`], the spec that parses back.
    fn label(&self) -> String {
        label(self)
    }

    /// As [`DelaySampler::sample`], with the same duty to draw as earlier versions did.
    fn sample(&self, rng: &mut dyn RngCore, index: u64) -> f64;
}

impl<M: ScalarModel> DelaySampler for M {
    fn keyword(&self) -> &'static str {
        M::ENTRY.keyword
    }

    fn params(&self) -> Vec<(&'static str, Param)> {
        M::PARAMS
            .iter()
            .zip(self.values())
            .map(|(s, v)| (s.field, Param::Number(v)))
            .collect()
    }

    /// Each parameter's [`Bound`] in order, then [`ScalarModel::check`].
    fn validate(&self, c: &Check) -> Result<(), DelayModelError> {
        M::PARAMS
            .iter()
            .zip(self.values())
            .try_for_each(|(s, v)| match s.bound {
                Bound::AtLeastZero => c.finite(v, s.name),
                Bound::AboveZero => c.positive(v, s.name, M::ENTRY),
            })?;
        self.check(c)
    }

    fn is_fixed(&self) -> bool {
        ScalarModel::is_fixed(self)
    }

    fn mean_s(&self) -> f64 {
        ScalarModel::mean_s(self)
    }

    fn sd_s(&self) -> f64 {
        ScalarModel::sd_s(self)
    }

    fn label(&self) -> String {
        ScalarModel::label(self)
    }

    fn sample(&self, rng: &mut dyn RngCore, index: u64) -> f64 {
        ScalarModel::sample(self, rng, index)
    }
}

/// Parses the arguments after `NAME:` (untrimmed pieces, as the unit parser trims), one per
/// parameter in order, so the first bad one is the one reported.
pub fn parse<M: ScalarModel>(a: &Args) -> Result<DelayModel, DelayModelError> {
    let entry = M::ENTRY;
    let pieces: Vec<&str> = match M::LAYOUT {
        Layout::Whole => vec![a.text()],
        Layout::Commas => a.text().split(',').collect(),
        Layout::Range => {
            let (low, high) = a
                .text()
                .split_once("..")
                .ok_or_else(|| a.arguments(entry))?;
            vec![low, high]
        }
    };
    if pieces.len() != M::PARAMS.len() {
        return Err(a.arguments(entry));
    }
    let values = M::PARAMS
        .iter()
        .zip(pieces)
        .map(|(s, text)| match s.kind {
            Kind::Duration => a.duration(text, s.name, entry),
            Kind::Shape => shape(a, text, s.name, entry),
        })
        .collect::<Result<Vec<f64>, _>>()?;
    Ok(DelayModel::new(M::from_values(&values)))
}

/// `text` as a finite number > 0 (a dimensionless shape); `param` names it in errors.
fn shape(
    a: &Args,
    text: &str,
    param: &'static str,
    entry: &ModelEntry,
) -> Result<f64, DelayModelError> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(DelayModelError::Number {
            spec: a.spec.to_string(),
            param,
            value: text.trim().to_string(),
            example: entry.example,
        }),
    }
}

/// Rebuilds the model from its serialised fields, read in [`ScalarModel::PARAMS`] order.
pub fn from_params<M: ScalarModel>(p: &Params) -> Result<DelayModel, ParamError> {
    let values = M::PARAMS
        .iter()
        .map(|s| p.number(s.field))
        .collect::<Result<Vec<f64>, _>>()?;
    Ok(DelayModel::new(M::from_values(&values)))
}

/// `NAME:ARGS` with durations by [`format_duration`] and shapes as Rust prints them, joined
/// as the layout separates them: the spec that parses back to `m`.
pub fn label<M: ScalarModel>(m: &M) -> String {
    let args: Vec<String> = M::PARAMS
        .iter()
        .zip(m.values())
        .map(|(s, v)| match s.kind {
            Kind::Duration => format_duration(v),
            Kind::Shape => v.to_string(),
        })
        .collect();
    let sep = match M::LAYOUT {
        Layout::Range => "..",
        Layout::Whole | Layout::Commas => ",",
    };
    format!("{}:{}", M::ENTRY.keyword, args.join(sep))
}
