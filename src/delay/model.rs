//! Delay models: how late a delayed rank enters the operation, in seconds.
//!
//! # Grammar
//!
//! A model is written `NAME:ARGS`, or as a plain duration for a fixed delay. Durations use the
//! grammar of [`crate::units::parse_duration_s`] (a number and a unit: `ns`, `us`/`µs`, `ms`,
//! `s`; `0` alone needs no unit); they must not be negative. Model names are case-insensitive,
//! blanks around names and arguments are ignored.
//!
//! The names, their arguments and what is drawn are those of the registry
//! [`super::models::MODELS`], one file per model under [`super::models`]: `50us`,
//! `fixed:50us`, `uniform:0us..100us`, `normal:50us,10us`, `exp:20us`,
//! `lognormal:50us,20us`, `gamma:2,10us`, `pareto:10us,2.5`, `trace:delays.txt`.
//!
//! [`DelayModel`] is the type the rest of the crate holds (plans, the command line, the run,
//! records headers): a shared handle on one registered model, see [`super::models`] for why
//! it is a trait object and not an enum.

use super::models::{Args, Check, DelaySampler, ModelEntry, Param, ParamError, Params};
use crate::units::{parse_duration_s, UnitError};
use rand::Rng;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use thiserror::Error;

/// How long a delayed rank is late, fixed or sampled: one of the models registered in
/// [`super::models::MODELS`]. Parameters are in seconds except dimensionless shapes.
///
/// Built by [`FromStr`] (grammar in the module docs) or deserialised; both check the
/// parameters, so a model from either source samples without panicking. A model built by hand
/// with [`DelayModel::new`] should be checked with [`DelayModel::validate`].
///
/// Serialised (serde) as a map tagged by `model` (`{"model": "exp", "mean_s": 2e-5}`); a trace
/// carries its values, so a plan can be broadcast and stored without the file.
#[derive(Clone)]
pub struct DelayModel(Arc<dyn DelaySampler>);

/// Why a delay model spec was rejected. Every message names the offending spec and shows an
/// example of a correct one.
#[derive(Debug, Error, PartialEq)]
pub enum DelayModelError {
    /// `NAME:...` with a name that is not a model.
    #[error(
        "unknown delay model '{name}' in '{spec}': choose {}, e.g. exp:20us",
        super::models::choices()
    )]
    UnknownModel { spec: String, name: String },
    /// A spec without `:` that is not a duration either.
    #[error(
        "cannot read delay '{spec}': {cause}; sampled delays are written MODEL:ARGS, e.g. exp:20us"
    )]
    NotADelay { spec: String, cause: UnitError },
    /// Wrong number or shape of arguments.
    #[error("delay model '{spec}': {model} takes {expected}, e.g. {example}")]
    Arguments {
        spec: String,
        model: &'static str,
        expected: &'static str,
        example: &'static str,
    },
    /// An argument that should be a duration is not one.
    #[error("delay model '{spec}': the {param}: {cause}; e.g. {example}")]
    Duration {
        spec: String,
        param: &'static str,
        cause: UnitError,
        example: &'static str,
    },
    /// A dimensionless argument (a shape) that is not a positive number.
    #[error(
        "delay model '{spec}': the {param} '{value}' is not a positive number; e.g. {example}"
    )]
    Number {
        spec: String,
        param: &'static str,
        value: String,
        example: &'static str,
    },
    /// A parameter that must be strictly positive is 0.
    #[error("delay model '{spec}': the {param} must be greater than 0; e.g. {example}")]
    Zero {
        spec: String,
        param: &'static str,
        example: &'static str,
    },
    /// A parameter of a hand-built or deserialised model that is negative, NaN or infinite.
    #[error("delay model '{spec}': the {param} must be a finite number >= 0")]
    NotFinite { spec: String, param: &'static str },
    /// `uniform:LOW..HIGH` with LOW > HIGH.
    #[error("delay model '{spec}': the lower bound is above the upper bound; write LOW..HIGH, e.g. uniform:0us..100us")]
    EmptyRange { spec: String },
    /// `pareto:SCALE,SHAPE` with SHAPE ≤ 1.
    #[error("delay model '{spec}': a Pareto shape <= 1 has an infinite mean, so no nominal delay or window can be derived; use a shape > 1, e.g. pareto:10us,2.5")]
    InfiniteMean { spec: String },
    /// The trace file cannot be read.
    #[error("cannot read delay trace '{path}': {cause}")]
    TraceRead { path: String, cause: String },
    /// A line of the trace file is not a non-negative duration.
    #[error("delay trace '{path}', line {line}: {cause}; write one duration per line such as 50us, or seconds as a plain number such as 5e-5")]
    TraceValue {
        path: String,
        line: usize,
        cause: String,
    },
    /// The trace file has no values.
    #[error("delay trace '{path}' holds no values: write one duration per line, e.g. 50us ('#' starts a comment)")]
    TraceEmpty { path: String },
}

type Error = DelayModelError;

impl FromStr for DelayModel {
    type Err = DelayModelError;

    /// Parses the grammar of the module docs, reading the file of `trace:FILE` now.
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let text = spec.trim();
        let Some((name, args)) = text.split_once(':') else {
            // The grammar's one shorthand: a bare duration is a fixed delay.
            return parse_duration_s(text)
                .map(|delay_s| DelayModel::new(super::models::fixed::Fixed { delay_s }))
                .map_err(|cause| Error::NotADelay {
                    spec: spec.to_string(),
                    cause,
                });
        };
        let name = name.trim().to_ascii_lowercase();
        let entry = ModelEntry::find(&name).ok_or_else(|| Error::UnknownModel {
            spec: spec.to_string(),
            name,
        })?;
        let model = (entry.parse)(&Args {
            spec,
            text: args.trim(),
        })?;
        model.0.validate(&Check { spec })?;
        Ok(model)
    }
}

impl DelayModel {
    /// Wraps a model built by hand, unchecked: see [`DelayModel::validate`].
    pub fn new(model: impl DelaySampler) -> Self {
        DelayModel(Arc::new(model))
    }

    /// The model's registry keyword (`fixed`, `exp`, ...), also its serialised `model` tag.
    pub fn keyword(&self) -> &'static str {
        self.0.keyword()
    }

    /// The parameters as serialised: names as in records files, durations in seconds.
    pub fn params(&self) -> Vec<(&'static str, Param)> {
        self.0.params()
    }

    /// Checks the parameters against the model's rules; [`FromStr`] and deserialisation do
    /// this already. Errors: [`DelayModelError::NotFinite`], [`DelayModelError::Zero`],
    /// [`DelayModelError::EmptyRange`], [`DelayModelError::InfiniteMean`],
    /// [`DelayModelError::TraceEmpty`].
    pub fn validate(&self) -> Result<(), DelayModelError> {
        self.0.validate(&Check {
            spec: &self.label(),
        })
    }

    /// True for a fixed delay: every delayed rank is late by the same amount.
    pub fn is_fixed(&self) -> bool {
        self.0.is_fixed()
    }

    /// Nominal delay in seconds, for labels and the records' `delay_s`: the fixed value, or the
    /// mean of the distribution actually sampled (for `normal`, of the truncated normal; for a
    /// trace, of the file's values).
    pub fn mean_s(&self) -> f64 {
        self.0.mean_s()
    }

    /// Standard deviation in seconds of the distribution actually sampled (0 for fixed;
    /// infinite for a Pareto shape ≤ 2; the population SD of a trace's values).
    pub fn sd_s(&self) -> f64 {
        self.0.sd_s()
    }

    /// Short name for legends, tables and file names, in the grammar of the module docs:
    /// `50us` for a fixed delay, `exp:20us`, `uniform:0s..100us`, `gamma:2,10us`,
    /// `trace:FILE`. Durations are rounded to 3 decimals by [`crate::units::format_duration`].
    pub fn label(&self) -> String {
        self.0.label()
    }

    /// The delays of all `p` ranks of repetition `rep`, seconds, when the model gives whole
    /// vectors (`replay`); None for models drawn per rank.
    pub fn row(&self, rep: u64, p: u32) -> Option<Vec<f64>> {
        self.0.row(rep, p)
    }

    /// Draws one delay in seconds (≥ 0, finite except for pathological Pareto tails).
    ///
    /// `index` numbers the draws of a block from 0; only a trace uses it (value
    /// `index % len`). [`crate::delay::delay_matrix`] is the deterministic way to draw a whole
    /// block.
    ///
    /// # Panics
    /// On a hand-built model that [`DelayModel::validate`] rejects.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R, index: u64) -> f64 {
        // `&mut R` is itself a generator, and a sized one, so it can stand behind the trait
        // object; the draws are the generator's own, unchanged.
        let mut rng = rng;
        self.0.sample(&mut rng, index)
    }
}

impl PartialEq for DelayModel {
    /// The same model with the same parameters (floats compared with `==`).
    fn eq(&self, other: &Self) -> bool {
        self.keyword() == other.keyword() && self.params() == other.params()
    }
}

impl fmt::Debug for DelayModel {
    /// `exp { mean_s: 2e-5 }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct(self.keyword());
        for (name, value) in self.params() {
            d.field(name, &format_args!("{value}"));
        }
        d.finish()
    }
}

impl fmt::Display for DelayModel {
    /// Writes [`DelayModel::label`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// The tag of the serialised map, and the type name serde's derived enum gave it: the name is
/// invisible in JSON and CBOR, but kept so that every format sees the same calls as before.
const TAG: &str = "model";
const REPR_NAME: &str = "ModelRepr";

impl Serialize for DelayModel {
    /// A map: `model` first, then [`DelayModel::params`] in order.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let params = self.params();
        let mut map = s.serialize_struct(REPR_NAME, params.len() + 1)?;
        map.serialize_field(TAG, self.keyword())?;
        for (name, value) in &params {
            map.serialize_field(name, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for DelayModel {
    /// Reads the map of [`Serialize`], the tag anywhere in it, and validates the model.
    /// Fields the model does not know are ignored.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(ReprVisitor)
    }
}

struct ReprVisitor;

impl<'de> Visitor<'de> for ReprVisitor {
    type Value = DelayModel;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a delay model: a map tagged by `model`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DelayModel, A::Error> {
        let mut tag: Option<String> = None;
        let mut params = Params::default();
        while let Some(key) = map.next_key::<String>()? {
            if key == TAG {
                tag = Some(map.next_value()?);
            } else {
                let value = map.next_value::<AnyParam>()?.0;
                params.fields.push((key, value));
            }
        }
        let tag = tag.ok_or_else(|| de::Error::missing_field(TAG))?;
        let entry = ModelEntry::by_keyword(&tag).ok_or_else(|| {
            let known: Vec<String> = super::models::MODELS
                .iter()
                .map(|e| format!("`{}`", e.keyword))
                .collect();
            de::Error::custom(format_args!(
                "unknown variant `{tag}`, expected one of {}",
                known.join(", ")
            ))
        })?;
        let model = (entry.from_params)(&params).map_err(|e| match e {
            ParamError::Missing(field) => de::Error::missing_field(field),
            ParamError::Kind { field, expected } => de::Error::custom(format_args!(
                "field `{field}` of `{tag}`: expected {expected}"
            )),
        })?;
        model.validate().map_err(de::Error::custom)?;
        Ok(model)
    }
}

/// A field value: a [`Param`] when it has one of its shapes, `None` for anything else.
struct AnyParam(Option<Param>);

impl<'de> Deserialize<'de> for AnyParam {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(AnyParamVisitor)
    }
}

struct AnyParamVisitor;

impl<'de> Visitor<'de> for AnyParamVisitor {
    type Value = AnyParam;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number, a string or a list of numbers")
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<AnyParam, E> {
        Ok(AnyParam(Some(Param::Number(v))))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<AnyParam, E> {
        Ok(AnyParam(Some(Param::Number(v as f64))))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<AnyParam, E> {
        Ok(AnyParam(Some(Param::Number(v as f64))))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<AnyParam, E> {
        Ok(AnyParam(Some(Param::Text(v.to_string()))))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AnyParam, A::Error> {
        let mut values = Vec::new();
        while let Some(v) = seq.next_element::<AnyParam>()? {
            match v.0 {
                Some(Param::Number(x)) => values.push(x),
                // Drain the rest: a list that is not all numbers is no parameter shape.
                _ => {
                    while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                    return Ok(AnyParam(None));
                }
            }
        }
        Ok(AnyParam(Some(Param::Numbers(values))))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AnyParam, A::Error> {
        while map
            .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
            .is_some()
        {}
        Ok(AnyParam(None))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<AnyParam, E> {
        Ok(AnyParam(None))
    }

    fn visit_unit<E: de::Error>(self) -> Result<AnyParam, E> {
        Ok(AnyParam(None))
    }

    fn visit_none<E: de::Error>(self) -> Result<AnyParam, E> {
        Ok(AnyParam(None))
    }

    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<AnyParam, E> {
        Ok(AnyParam(None))
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::delay::models::{exp::Exp, fixed::Fixed, gamma::Gamma, lognormal::LogNormal};
    use crate::delay::models::{normal::Normal, pareto::Pareto, uniform::Uniform};

    fn parse(s: &str) -> DelayModel {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn grammar() {
        assert_eq!(parse("50us"), DelayModel::new(Fixed { delay_s: 50e-6 }));
        assert_eq!(
            parse(" Fixed: 50us "),
            DelayModel::new(Fixed { delay_s: 50e-6 })
        );
        assert_eq!(
            parse("uniform:0us..100us"),
            DelayModel::new(Uniform {
                low_s: 0.0,
                high_s: 100e-6
            })
        );
        assert_eq!(
            parse("normal:50us, 10us"),
            DelayModel::new(Normal {
                mean_s: 50e-6,
                sd_s: 10e-6
            })
        );
        assert_eq!(parse("exp:20us"), DelayModel::new(Exp { mean_s: 20e-6 }));
        assert_eq!(
            parse("exponential:20us"),
            DelayModel::new(Exp { mean_s: 20e-6 })
        );
        assert_eq!(
            parse("lognormal:50us,20us"),
            DelayModel::new(LogNormal {
                mean_s: 50e-6,
                sd_s: 20e-6
            })
        );
        assert_eq!(
            parse("gamma:2,10us"),
            DelayModel::new(Gamma {
                shape: 2.0,
                scale_s: 10e-6
            })
        );
        assert_eq!(
            parse("pareto:10us,2.5"),
            DelayModel::new(Pareto {
                scale_s: 10e-6,
                shape: 2.5
            })
        );
    }

    #[test]
    fn labels_round_trip() {
        for s in [
            "50us",
            "uniform:0s..100us",
            "normal:50us,10us",
            "exp:20us",
            "lognormal:50us,20us",
            "gamma:2,10us",
            "pareto:10us,2.5",
        ] {
            assert_eq!(parse(s).label(), s);
            assert_eq!(parse(&parse(s).label()), parse(s));
        }
        assert_eq!(parse("fixed:50us").label(), "50us");
        assert!(parse("50us").is_fixed() && !parse("exp:50us").is_fixed());
    }

    #[test]
    fn means_and_spreads() {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-12);
        assert!(close(parse("uniform:10us..30us").mean_s(), 20e-6));
        assert!(close(parse("gamma:2,10us").mean_s(), 20e-6));
        assert!(close(parse("pareto:10us,2").mean_s(), 20e-6));
        assert!(parse("pareto:10us,2").sd_s().is_infinite());
        // Far from 0 the truncation does not matter; at mean 0 it is the half-normal.
        assert!(close(parse("normal:50us,1us").mean_s(), 50e-6));
        let half = parse("normal:0us,10us");
        assert!(close(
            half.mean_s(),
            10e-6 * (2.0 / std::f64::consts::PI).sqrt()
        ));
        assert!(close(
            half.sd_s(),
            10e-6 * (1.0 - 2.0 / std::f64::consts::PI).sqrt()
        ));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let err = |s: &str| s.parse::<DelayModel>().unwrap_err();
        assert!(matches!(
            err("50"),
            Error::NotADelay {
                cause: UnitError::MissingUnit(_),
                ..
            }
        ));
        assert!(matches!(
            err("-5us"),
            Error::NotADelay {
                cause: UnitError::Negative(_),
                ..
            }
        ));
        assert!(matches!(err("poisson:5us"), Error::UnknownModel { .. }));
        assert!(matches!(
            err("exp:20"),
            Error::Duration {
                cause: UnitError::MissingUnit(_),
                ..
            }
        ));
        assert!(matches!(
            err("normal:-5us,1us"),
            Error::Duration {
                cause: UnitError::Negative(_),
                ..
            }
        ));
        assert!(matches!(err("normal:5us"), Error::Arguments { .. }));
        assert!(matches!(err("exp:5us,1us"), Error::Arguments { .. }));
        assert!(matches!(err("uniform:5us,1us"), Error::Arguments { .. }));
        assert!(matches!(err("uniform:5us..1us"), Error::EmptyRange { .. }));
        assert!(matches!(err("exp:0"), Error::Zero { .. }));
        assert!(matches!(err("gamma:-2,10us"), Error::Number { .. }));
        assert!(matches!(err("gamma:2us,10us"), Error::Number { .. }));
        assert!(matches!(err("pareto:10us,1"), Error::InfiniteMean { .. }));
        assert!(matches!(err("trace:"), Error::Arguments { .. }));
        let msg = err("exp:20").to_string();
        assert!(msg.contains("exp:20") && msg.contains("no unit") && msg.contains("e.g. exp:20us"));
    }

    #[test]
    fn serde_round_trip_validates() {
        let m = parse("gamma:2,10us");
        let json = serde_json::to_string(&m).unwrap();
        assert!(json.contains("\"model\":\"gamma\""), "{json}");
        assert_eq!(serde_json::from_str::<DelayModel>(&json).unwrap(), m);
        let bad = r#"{"model":"pareto","scale_s":1e-5,"shape":0.5}"#;
        assert!(serde_json::from_str::<DelayModel>(bad).is_err());
        assert!(DelayModel::new(Exp { mean_s: f64::NAN })
            .validate()
            .is_err());
    }

    #[test]
    fn normal_never_negative() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let m = parse("normal:0us,10us");
        assert!((0..10_000).all(|i| m.sample(&mut rng, i) >= 0.0));
    }
}
