//! Delay models: how late a delayed rank enters the operation, in seconds.
//!
//! # Grammar
//!
//! A model is written `NAME:ARGS`, or as a plain duration for a fixed delay. Durations use the
//! grammar of [`crate::units::parse_duration_s`] (a number and a unit: `ns`, `us`/`µs`, `ms`,
//! `s`; `0` alone needs no unit); they must not be negative. Model names are case-insensitive,
//! blanks around names and arguments are ignored.
//!
//! | spec                  | delay of a delayed rank                                  | mean ([`DelayModel::mean_s`]) |
//! |-----------------------|----------------------------------------------------------|-------------------------------|
//! | `50us`, `fixed:50us`  | exactly 50 µs                                            | 50 µs                         |
//! | `uniform:LOW..HIGH`   | uniform in [LOW, HIGH), two durations, LOW ≤ HIGH         | (LOW + HIGH) / 2              |
//! | `normal:MEAN,SD`      | normal, truncated at 0 by resampling (see below)         | of the truncated normal       |
//! | `exp:MEAN`            | exponential, MEAN > 0                                    | MEAN                          |
//! | `lognormal:MEAN,SD`   | log-normal with this mean and standard deviation, MEAN > 0 | MEAN                        |
//! | `gamma:SHAPE,SCALE`   | gamma, SHAPE a positive number, SCALE a duration > 0     | SHAPE · SCALE                 |
//! | `pareto:SCALE,SHAPE`  | Pareto type I, SCALE the minimum (> 0), SHAPE > 1        | SHAPE · SCALE / (SHAPE − 1)   |
//! | `trace:FILE`          | durations replayed from FILE (see [`DelayModel::Trace`]) | mean of the file's values     |
//!
//! Examples: `50us`, `uniform:0us..100us`, `normal:50us,10us`, `exp:20us`,
//! `lognormal:50us,20us`, `gamma:2,10us`, `pareto:10us,2.5`, `trace:delays.txt`.
//!
//! Choices, and why:
//! - **normal** draws below 0 are discarded and drawn again, so delays follow the normal
//!   distribution conditioned on δ ≥ 0; clamping would instead pile a spike of exact zeros at 0.
//!   The reported mean and spread are those of the truncated distribution; when MEAN ≥ 3 SD
//!   they differ from MEAN by less than 0.005 SD and from SD by less than 1 %.
//! - **lognormal** takes the mean and standard deviation of the delays themselves, in time units,
//!   rather than the μ, σ of the underlying normal, which few users can translate into
//!   microseconds: σ² = ln(1 + SD²/MEAN²), μ = ln(MEAN) − σ²/2.
//! - **pareto** with SHAPE ≤ 1 has an infinite mean, so neither a nominal delay for the records
//!   nor a window could be derived; it is rejected. 1 < SHAPE ≤ 2 is accepted (infinite
//!   variance: [`DelayModel::sd_s`] is infinite).

use super::trace;
use crate::units::{format_duration, parse_duration_s, UnitError};
use rand::Rng;
use rand_distr::{Distribution, Exp, Gamma, LogNormal, Normal, Pareto};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// How long a delayed rank is late, fixed or sampled. Every parameter in seconds except the
/// dimensionless shapes.
///
/// Built by [`FromStr`] (grammar in the module docs) or deserialised; both check the
/// parameters, so a model from either source samples without panicking. A model built by hand
/// should be checked with [`DelayModel::validate`].
///
/// Serialised (serde) as a map tagged by `model` (`{"model": "exp", "mean_s": 2e-5}`); a trace
/// carries its values, so a plan can be broadcast and stored without the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ModelRepr", into = "ModelRepr")]
pub enum DelayModel {
    /// Always `delay_s`.
    Fixed { delay_s: f64 },
    /// Uniform in `[low_s, high_s)`.
    Uniform { low_s: f64, high_s: f64 },
    /// Normal with mean `mean_s` and standard deviation `sd_s`, truncated at 0 by resampling.
    Normal { mean_s: f64, sd_s: f64 },
    /// Exponential with mean `mean_s` (> 0).
    Exp { mean_s: f64 },
    /// Log-normal whose values have mean `mean_s` (> 0) and standard deviation `sd_s`.
    LogNormal { mean_s: f64, sd_s: f64 },
    /// Gamma with dimensionless `shape` (> 0) and scale `scale_s` (> 0); mean shape · scale.
    Gamma { shape: f64, scale_s: f64 },
    /// Pareto type I with minimum `scale_s` (> 0) and dimensionless `shape` (> 1).
    Pareto { scale_s: f64, shape: f64 },
    /// Durations replayed from a text file, read when the spec is parsed.
    ///
    /// File format: one value per line, either a duration with a unit (`50us`) or seconds as
    /// a plain number (`5e-5`, `0.00005`); `#` starts a comment that runs to the end of the
    /// line; blank lines are skipped. Replay cycles through the values in file order: the n-th
    /// delay drawn (`index` n of [`DelayModel::sample`]) is `values_s[n % len]`.
    /// [`crate::delay::delay_matrix`] counts draws per block, repetition by repetition and in
    /// ascending rank order within a repetition, so with one delayed rank the file is replayed
    /// line by line, one line per repetition, restarting for every block.
    Trace {
        /// The file name as given, for labels.
        path: String,
        /// The file's values in seconds, in file order (never empty).
        values_s: Vec<f64>,
    },
}

/// Why a delay model spec was rejected. Every message names the offending spec and shows an
/// example of a correct one.
#[derive(Debug, Error, PartialEq)]
pub enum DelayModelError {
    /// `NAME:...` with a name that is not a model.
    #[error("unknown delay model '{name}' in '{spec}': choose fixed, uniform, normal, exp, lognormal, gamma, pareto or trace, e.g. exp:20us")]
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
            return parse_duration_s(text)
                .map(|delay_s| DelayModel::Fixed { delay_s })
                .map_err(|cause| Error::NotADelay {
                    spec: spec.to_string(),
                    cause,
                });
        };
        let args = args.trim();
        let p = Parser { spec };
        let model = match name.trim().to_ascii_lowercase().as_str() {
            "fixed" => DelayModel::Fixed {
                delay_s: p.duration(args, "delay", "fixed:50us")?,
            },
            "uniform" => {
                const EX: &str = "uniform:0us..100us";
                let (low, high) = args
                    .split_once("..")
                    .ok_or_else(|| p.arguments("uniform", "LOW..HIGH (two durations)", EX))?;
                DelayModel::Uniform {
                    low_s: p.duration(low, "lower bound", EX)?,
                    high_s: p.duration(high, "upper bound", EX)?,
                }
            }
            "normal" => {
                const EX: &str = "normal:50us,10us";
                let [mean, sd] = p.two(args, "normal", "MEAN,SD (two durations)", EX)?;
                DelayModel::Normal {
                    mean_s: p.duration(mean, "mean", EX)?,
                    sd_s: p.duration(sd, "standard deviation", EX)?,
                }
            }
            "exp" | "exponential" => {
                const EX: &str = "exp:20us";
                if args.contains(',') {
                    return Err(p.arguments("exp", "one duration, the mean", EX));
                }
                DelayModel::Exp {
                    mean_s: p.duration(args, "mean", EX)?,
                }
            }
            "lognormal" => {
                const EX: &str = "lognormal:50us,20us";
                let [mean, sd] = p.two(args, "lognormal", "MEAN,SD (two durations)", EX)?;
                DelayModel::LogNormal {
                    mean_s: p.duration(mean, "mean", EX)?,
                    sd_s: p.duration(sd, "standard deviation", EX)?,
                }
            }
            "gamma" => {
                const EX: &str = "gamma:2,10us";
                let [shape, scale] =
                    p.two(args, "gamma", "SHAPE,SCALE (a number and a duration)", EX)?;
                DelayModel::Gamma {
                    shape: p.number(shape, "shape", EX)?,
                    scale_s: p.duration(scale, "scale", EX)?,
                }
            }
            "pareto" => {
                const EX: &str = "pareto:10us,2.5";
                let [scale, shape] = p.two(
                    args,
                    "pareto",
                    "SCALE,SHAPE (a duration, the minimum, and a number)",
                    EX,
                )?;
                DelayModel::Pareto {
                    scale_s: p.duration(scale, "scale", EX)?,
                    shape: p.number(shape, "shape", EX)?,
                }
            }
            "trace" => {
                if args.is_empty() {
                    return Err(p.arguments("trace", "a file name", "trace:delays.txt"));
                }
                DelayModel::Trace {
                    path: args.to_string(),
                    values_s: trace::read_file(args)?,
                }
            }
            other => {
                return Err(Error::UnknownModel {
                    spec: spec.to_string(),
                    name: other.to_string(),
                })
            }
        };
        model.check(spec)?;
        Ok(model)
    }
}

/// Argument parsing with the spec at hand for error messages.
struct Parser<'a> {
    spec: &'a str,
}

impl Parser<'_> {
    fn arguments(
        &self,
        model: &'static str,
        expected: &'static str,
        example: &'static str,
    ) -> Error {
        Error::Arguments {
            spec: self.spec.to_string(),
            model,
            expected,
            example,
        }
    }

    fn two<'t>(
        &self,
        args: &'t str,
        model: &'static str,
        expected: &'static str,
        example: &'static str,
    ) -> Result<[&'t str; 2], Error> {
        let parts: Vec<&str> = args.split(',').collect();
        match parts[..] {
            [a, b] => Ok([a, b]),
            _ => Err(self.arguments(model, expected, example)),
        }
    }

    fn duration(
        &self,
        text: &str,
        param: &'static str,
        example: &'static str,
    ) -> Result<f64, Error> {
        parse_duration_s(text).map_err(|cause| Error::Duration {
            spec: self.spec.to_string(),
            param,
            cause,
            example,
        })
    }

    fn number(&self, text: &str, param: &'static str, example: &'static str) -> Result<f64, Error> {
        match text.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
            _ => Err(Error::Number {
                spec: self.spec.to_string(),
                param,
                value: text.trim().to_string(),
                example,
            }),
        }
    }
}

impl DelayModel {
    /// Checks the parameters against the rules of the module docs; [`FromStr`] and
    /// deserialisation do this already. Errors: [`DelayModelError::NotFinite`],
    /// [`DelayModelError::Zero`], [`DelayModelError::EmptyRange`],
    /// [`DelayModelError::InfiniteMean`], [`DelayModelError::TraceEmpty`].
    pub fn validate(&self) -> Result<(), DelayModelError> {
        self.check(&self.label())
    }

    fn check(&self, spec: &str) -> Result<(), Error> {
        let spec = || spec.to_string();
        let finite = |v: f64, param: &'static str| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(Error::NotFinite {
                    spec: spec(),
                    param,
                })
            }
        };
        let positive = |v: f64, param: &'static str, example: &'static str| {
            finite(v, param)?;
            if v > 0.0 {
                Ok(())
            } else {
                Err(Error::Zero {
                    spec: spec(),
                    param,
                    example,
                })
            }
        };
        match *self {
            DelayModel::Fixed { delay_s } => finite(delay_s, "delay"),
            DelayModel::Uniform { low_s, high_s } => {
                finite(low_s, "lower bound")?;
                finite(high_s, "upper bound")?;
                if low_s > high_s {
                    return Err(Error::EmptyRange { spec: spec() });
                }
                Ok(())
            }
            DelayModel::Normal { mean_s, sd_s } => {
                finite(mean_s, "mean")?;
                finite(sd_s, "standard deviation")
            }
            DelayModel::Exp { mean_s } => positive(mean_s, "mean", "exp:20us"),
            DelayModel::LogNormal { mean_s, sd_s } => {
                positive(mean_s, "mean", "lognormal:50us,20us")?;
                finite(sd_s, "standard deviation")
            }
            DelayModel::Gamma { shape, scale_s } => {
                positive(shape, "shape", "gamma:2,10us")?;
                positive(scale_s, "scale", "gamma:2,10us")
            }
            DelayModel::Pareto { scale_s, shape } => {
                positive(scale_s, "scale", "pareto:10us,2.5")?;
                positive(shape, "shape", "pareto:10us,2.5")?;
                if shape <= 1.0 {
                    return Err(Error::InfiniteMean { spec: spec() });
                }
                Ok(())
            }
            DelayModel::Trace {
                ref path,
                ref values_s,
            } => {
                if values_s.is_empty() {
                    return Err(Error::TraceEmpty { path: path.clone() });
                }
                values_s.iter().try_for_each(|&v| finite(v, "trace value"))
            }
        }
    }

    /// True for [`DelayModel::Fixed`]: every delayed rank is late by the same amount.
    pub fn is_fixed(&self) -> bool {
        matches!(self, DelayModel::Fixed { .. })
    }

    /// Nominal delay in seconds, for labels and the records' `delay_s`: the fixed value, or the
    /// mean of the distribution actually sampled (for `normal`, of the truncated normal; for a
    /// trace, of the file's values).
    pub fn mean_s(&self) -> f64 {
        match *self {
            DelayModel::Fixed { delay_s } => delay_s,
            DelayModel::Uniform { low_s, high_s } => 0.5 * (low_s + high_s),
            DelayModel::Normal { mean_s, sd_s } => truncated_normal(mean_s, sd_s).0,
            DelayModel::Exp { mean_s } | DelayModel::LogNormal { mean_s, .. } => mean_s,
            DelayModel::Gamma { shape, scale_s } => shape * scale_s,
            DelayModel::Pareto { scale_s, shape } => shape * scale_s / (shape - 1.0),
            DelayModel::Trace { ref values_s, .. } => {
                values_s.iter().sum::<f64>() / values_s.len() as f64
            }
        }
    }

    /// Standard deviation in seconds of the distribution actually sampled (0 for fixed;
    /// infinite for a Pareto shape ≤ 2; the population SD of a trace's values).
    pub fn sd_s(&self) -> f64 {
        match *self {
            DelayModel::Fixed { .. } => 0.0,
            DelayModel::Uniform { low_s, high_s } => (high_s - low_s) / 12f64.sqrt(),
            DelayModel::Normal { mean_s, sd_s } => truncated_normal(mean_s, sd_s).1,
            DelayModel::Exp { mean_s } => mean_s,
            DelayModel::LogNormal { sd_s, .. } => sd_s,
            DelayModel::Gamma { shape, scale_s } => shape.sqrt() * scale_s,
            DelayModel::Pareto { scale_s, shape } if shape > 2.0 => {
                scale_s / (shape - 1.0) * (shape / (shape - 2.0)).sqrt()
            }
            DelayModel::Pareto { .. } => f64::INFINITY,
            DelayModel::Trace { ref values_s, .. } => {
                let mean = self.mean_s();
                let var = values_s.iter().map(|v| (v - mean).powi(2)).sum::<f64>()
                    / values_s.len() as f64;
                var.sqrt()
            }
        }
    }

    /// Short name for legends, tables and file names, in the grammar of the module docs:
    /// `50us` for a fixed delay, `exp:20us`, `uniform:0s..100us`, `gamma:2,10us`,
    /// `trace:FILE`. Durations are rounded to 3 decimals by [`format_duration`].
    pub fn label(&self) -> String {
        let d = format_duration;
        match *self {
            DelayModel::Fixed { delay_s } => d(delay_s),
            DelayModel::Uniform { low_s, high_s } => format!("uniform:{}..{}", d(low_s), d(high_s)),
            DelayModel::Normal { mean_s, sd_s } => format!("normal:{},{}", d(mean_s), d(sd_s)),
            DelayModel::Exp { mean_s } => format!("exp:{}", d(mean_s)),
            DelayModel::LogNormal { mean_s, sd_s } => {
                format!("lognormal:{},{}", d(mean_s), d(sd_s))
            }
            DelayModel::Gamma { shape, scale_s } => format!("gamma:{shape},{}", d(scale_s)),
            DelayModel::Pareto { scale_s, shape } => format!("pareto:{},{shape}", d(scale_s)),
            DelayModel::Trace { ref path, .. } => format!("trace:{path}"),
        }
    }

    /// Draws one delay in seconds (≥ 0, finite except for pathological Pareto tails).
    ///
    /// `index` numbers the draws of a block from 0; only [`DelayModel::Trace`] uses it (value
    /// `index % len`). [`crate::delay::delay_matrix`] is the deterministic way to draw a whole
    /// block.
    ///
    /// # Panics
    /// On a hand-built model that [`DelayModel::validate`] rejects.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R, index: u64) -> f64 {
        self.sampler().sample(rng, index)
    }

    /// The model with its distribution objects built once, for drawing many delays.
    pub(crate) fn sampler(&self) -> Sampler<'_> {
        match *self {
            DelayModel::Fixed { delay_s } => Sampler::Fixed(delay_s),
            DelayModel::Uniform { low_s, high_s } => Sampler::Uniform(low_s, high_s - low_s),
            DelayModel::Normal { mean_s, sd_s } => {
                Sampler::Normal(self.built(Normal::new(mean_s, sd_s)))
            }
            DelayModel::Exp { mean_s } => Sampler::Exp(self.built(Exp::new(1.0 / mean_s))),
            DelayModel::LogNormal { mean_s, sd_s } => {
                let sigma2 = (1.0 + (sd_s / mean_s).powi(2)).ln();
                let mu = mean_s.ln() - 0.5 * sigma2;
                Sampler::LogNormal(self.built(LogNormal::new(mu, sigma2.sqrt())))
            }
            DelayModel::Gamma { shape, scale_s } => {
                Sampler::Gamma(self.built(Gamma::new(shape, scale_s)))
            }
            DelayModel::Pareto { scale_s, shape } => {
                Sampler::Pareto(self.built(Pareto::new(scale_s, shape)))
            }
            DelayModel::Trace { ref values_s, .. } => {
                assert!(!values_s.is_empty(), "delay model {self} has no values");
                Sampler::Trace(values_s)
            }
        }
    }

    /// Unwraps a distribution built from this model's parameters.
    fn built<T, E: fmt::Display>(&self, made: Result<T, E>) -> T {
        made.unwrap_or_else(|e| {
            panic!("delay model {self} is invalid ({e}); check it with DelayModel::validate")
        })
    }
}

/// Mean and standard deviation of a normal(μ, σ) conditioned on X ≥ 0 (the standard results
/// for a truncated normal with α = −μ/σ and λ = φ(α) / (1 − Φ(α))).
fn truncated_normal(mu: f64, sigma: f64) -> (f64, f64) {
    use statrs::distribution::{Continuous, ContinuousCDF, Normal as StdNormal};
    if sigma == 0.0 {
        return (mu.max(0.0), 0.0);
    }
    let n = StdNormal::standard();
    let alpha = -mu / sigma;
    let lambda = n.pdf(alpha) / (1.0 - n.cdf(alpha));
    let mean = mu + sigma * lambda;
    let var = sigma * sigma * (1.0 + alpha * lambda - lambda * lambda);
    (mean, var.max(0.0).sqrt())
}

/// A [`DelayModel`] ready to draw from.
pub(crate) enum Sampler<'a> {
    Fixed(f64),
    /// Lower bound and width.
    Uniform(f64, f64),
    Normal(Normal<f64>),
    Exp(Exp<f64>),
    LogNormal(LogNormal<f64>),
    Gamma(Gamma<f64>),
    Pareto(Pareto<f64>),
    Trace(&'a [f64]),
}

impl Sampler<'_> {
    /// One delay in seconds; `index` is the draw number (used by traces only).
    pub(crate) fn sample<R: Rng + ?Sized>(&self, rng: &mut R, index: u64) -> f64 {
        match self {
            Sampler::Fixed(v) => *v,
            Sampler::Uniform(low, width) => low + width * rng.random::<f64>(),
            // Mean >= 0, so each draw is accepted with probability >= 1/2.
            Sampler::Normal(d) => loop {
                let x = d.sample(rng);
                if x >= 0.0 {
                    break x.abs();
                }
            },
            Sampler::Exp(d) => d.sample(rng),
            Sampler::LogNormal(d) => d.sample(rng),
            Sampler::Gamma(d) => d.sample(rng),
            Sampler::Pareto(d) => d.sample(rng),
            Sampler::Trace(values) => values[(index % values.len() as u64) as usize],
        }
    }
}

impl fmt::Display for DelayModel {
    /// Writes [`DelayModel::label`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// The serialised form of [`DelayModel`]; converting back validates.
#[derive(Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "lowercase")]
enum ModelRepr {
    Fixed { delay_s: f64 },
    Uniform { low_s: f64, high_s: f64 },
    Normal { mean_s: f64, sd_s: f64 },
    Exp { mean_s: f64 },
    LogNormal { mean_s: f64, sd_s: f64 },
    Gamma { shape: f64, scale_s: f64 },
    Pareto { scale_s: f64, shape: f64 },
    Trace { path: String, values_s: Vec<f64> },
}

impl From<DelayModel> for ModelRepr {
    fn from(m: DelayModel) -> Self {
        match m {
            DelayModel::Fixed { delay_s } => ModelRepr::Fixed { delay_s },
            DelayModel::Uniform { low_s, high_s } => ModelRepr::Uniform { low_s, high_s },
            DelayModel::Normal { mean_s, sd_s } => ModelRepr::Normal { mean_s, sd_s },
            DelayModel::Exp { mean_s } => ModelRepr::Exp { mean_s },
            DelayModel::LogNormal { mean_s, sd_s } => ModelRepr::LogNormal { mean_s, sd_s },
            DelayModel::Gamma { shape, scale_s } => ModelRepr::Gamma { shape, scale_s },
            DelayModel::Pareto { scale_s, shape } => ModelRepr::Pareto { scale_s, shape },
            DelayModel::Trace { path, values_s } => ModelRepr::Trace { path, values_s },
        }
    }
}

impl TryFrom<ModelRepr> for DelayModel {
    type Error = DelayModelError;
    fn try_from(r: ModelRepr) -> Result<Self, Self::Error> {
        let m = match r {
            ModelRepr::Fixed { delay_s } => DelayModel::Fixed { delay_s },
            ModelRepr::Uniform { low_s, high_s } => DelayModel::Uniform { low_s, high_s },
            ModelRepr::Normal { mean_s, sd_s } => DelayModel::Normal { mean_s, sd_s },
            ModelRepr::Exp { mean_s } => DelayModel::Exp { mean_s },
            ModelRepr::LogNormal { mean_s, sd_s } => DelayModel::LogNormal { mean_s, sd_s },
            ModelRepr::Gamma { shape, scale_s } => DelayModel::Gamma { shape, scale_s },
            ModelRepr::Pareto { scale_s, shape } => DelayModel::Pareto { scale_s, shape },
            ModelRepr::Trace { path, values_s } => DelayModel::Trace { path, values_s },
        };
        m.validate()?;
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> DelayModel {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn grammar() {
        assert_eq!(parse("50us"), DelayModel::Fixed { delay_s: 50e-6 });
        assert_eq!(parse(" Fixed: 50us "), DelayModel::Fixed { delay_s: 50e-6 });
        assert_eq!(
            parse("uniform:0us..100us"),
            DelayModel::Uniform {
                low_s: 0.0,
                high_s: 100e-6
            }
        );
        assert_eq!(
            parse("normal:50us, 10us"),
            DelayModel::Normal {
                mean_s: 50e-6,
                sd_s: 10e-6
            }
        );
        assert_eq!(parse("exp:20us"), DelayModel::Exp { mean_s: 20e-6 });
        assert_eq!(parse("exponential:20us"), DelayModel::Exp { mean_s: 20e-6 });
        assert_eq!(
            parse("lognormal:50us,20us"),
            DelayModel::LogNormal {
                mean_s: 50e-6,
                sd_s: 20e-6
            }
        );
        assert_eq!(
            parse("gamma:2,10us"),
            DelayModel::Gamma {
                shape: 2.0,
                scale_s: 10e-6
            }
        );
        assert_eq!(
            parse("pareto:10us,2.5"),
            DelayModel::Pareto {
                scale_s: 10e-6,
                shape: 2.5
            }
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
        assert!(DelayModel::Exp { mean_s: f64::NAN }.validate().is_err());
    }

    #[test]
    fn normal_never_negative() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let m = parse("normal:0us,10us");
        assert!((0..10_000).all(|i| m.sample(&mut rng, i) >= 0.0));
    }
}
