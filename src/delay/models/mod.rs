//! The delay models, one file each, and [`MODELS`], the registry through which
//! [`DelayModel`] parses, validates, describes, serialises and samples them.
//!
//! # Design
//!
//! Each model is a struct of its parameters (seconds, or dimensionless shapes) implementing
//! [`DelaySampler`], plus a [`ModelEntry`] (keyword, argument syntax, example, parser,
//! deserialiser) listed in [`MODELS`]. [`DelayModel`] wraps an `Arc<dyn DelaySampler>`.
//!
//! Why a trait object and not an enum whose arms call into the model files: an enum needs a
//! variant, and an arm in each of its matches (parse, validate, mean, spread, label, sample,
//! serde), for every model, so a model would still be spread over the crate's central file.
//! With the trait, the compiler demands every method in the model's own file, and the
//! registry line is the only place that names the model elsewhere. The `Arc` keeps a clone as
//! cheap as the enum's for the small models and cheaper for a trace; plans are cloned freely.
//! A model builds its `rand_distr` distribution at every draw, which costs a few float
//! operations next to the generator's and keeps each model a plain struct of its parameters.
//!
//! Serialisation stays the map tagged by `model` that earlier versions derived from an enum
//! (`{"model": "exp", "mean_s": 2e-5}`, fields in declaration order, the same bytes in CBOR),
//! produced from [`DelaySampler::params`] and read back by [`ModelEntry::from_params`], so
//! records files written before this layout still read.
//!
//! # Adding a model
//!
//! 1. A file `models/NAME.rs` with the parameter struct, its `impl DelaySampler`, and
//!    `pub(super) const ENTRY: ModelEntry` pointing at its parser and deserialiser. A model
//!    whose parameters are a list of durations and numbers implements
//!    [`scalar::ScalarModel`] (its parameters, each once, with their bounds) and takes its
//!    parser, deserialiser, `params`, `validate` and label from [`scalar`]; `exp.rs` and
//!    `gamma.rs` are the templates. A model with other arguments (a file, a map) writes its
//!    own, as `trace.rs` does. Rustdoc lists the files' summary lines as the catalogue.
//! 2. `pub mod NAME;` and `NAME::ENTRY,` in [`MODELS`] below. A `mod` without its registry
//!    line leaves `ENTRY` unused, which the build refuses under `-D warnings`.
//!
//! The tests of this module walk [`MODELS`]: each entry's demo model round-trips through its
//! label, JSON and CBOR, draws finite non-negative delays whose mean and spread agree with
//! [`DelaySampler::mean_s`] and [`DelaySampler::sd_s`], and its example appears in the
//! `--delay` help (a test in `src/cli/tests.rs`), the README and, with its fields, the records format
//! (`docs/records-format.md`).

pub mod exp;
pub mod fixed;
pub mod gamma;
pub mod lognormal;
pub mod normal;
pub mod pareto;
pub mod replay;
pub mod scalar;
pub mod trace;
pub mod uniform;

use super::{DelayModel, DelayModelError};
use crate::units::{parse_duration_s, UnitError};
use rand::RngCore;
use serde::{Serialize, Serializer};
use std::fmt;

/// Every delay model, in the order the help texts and error messages list them.
pub const MODELS: &[ModelEntry] = &[
    fixed::ENTRY,
    uniform::ENTRY,
    normal::ENTRY,
    exp::ENTRY,
    lognormal::ENTRY,
    gamma::ENTRY,
    pareto::ENTRY,
    trace::ENTRY,
    replay::ENTRY,
];

/// One delay model: its parameters and what follows from them. Parameters are in seconds
/// except dimensionless shapes.
///
/// Implementations are built by their [`ModelEntry`]'s parser or deserialiser, which check
/// them with [`DelaySampler::validate`]; the other methods may assume a valid model.
pub trait DelaySampler: Send + Sync + 'static {
    /// The registry keyword: the `NAME` of `NAME:ARGS` and the serialised `model` tag.
    fn keyword(&self) -> &'static str;

    /// The parameters in serialised order, named as in records files (`delay_s`, `shape`):
    /// durations in seconds, shapes dimensionless. Also what equality and `Debug` compare and
    /// print.
    fn params(&self) -> Vec<(&'static str, Param)>;

    /// Checks the parameters against the model's rules; `check` names the spec in errors.
    fn validate(&self, check: &Check) -> Result<(), DelayModelError>;

    /// True when every delayed rank is late by the same amount.
    fn is_fixed(&self) -> bool {
        false
    }

    /// Mean in seconds of the distribution actually sampled.
    fn mean_s(&self) -> f64;

    /// Standard deviation in seconds of the distribution actually sampled (may be infinite).
    fn sd_s(&self) -> f64;

    /// Short name in the spec grammar, durations by [`crate::units::format_duration`], such
    /// that parsing it gives the model back (a trace: when its file is still there).
    fn label(&self) -> String;

    /// Draws one delay in seconds; `index` is the draw number within a block.
    ///
    /// Must draw from `rng` exactly as earlier versions did for the same model: the
    /// measurement seeds its delays, and the pinned samples in `tests/delay_models.rs` hold
    /// every model to that.
    fn sample(&self, rng: &mut dyn RngCore, index: u64) -> f64;

    /// The delays of all `p` ranks in repetition `rep` (seconds), for a model that gives whole
    /// vectors (`replay`); None (the default) for models drawn rank by rank with
    /// [`DelaySampler::sample`]. A whole vector delays every rank, whatever `--delay-rank`.
    fn row(&self, _rep: u64, _p: u32) -> Option<Vec<f64>> {
        None
    }
}

/// A delay model in the registry: how it is written, parsed and read back.
#[derive(Clone, Copy)]
pub struct ModelEntry {
    /// `NAME` in `NAME:ARGS` (lowercase) and the serialised `model` tag.
    pub keyword: &'static str,
    /// Other names accepted in specs, never written (`exponential` for `exp`).
    pub aliases: &'static [&'static str],
    /// What the arguments are, as error messages say it: "MEAN,SD (two durations)".
    pub syntax: &'static str,
    /// A correct spec, shown by error messages and help texts. Its commas are the model's own:
    /// [`super::parse_delay_list`] keeps that many commas inside one list item.
    pub example: &'static str,
    /// What the example's arguments mean, for help texts ("mean, sd"); may be empty.
    pub help: &'static str,
    /// Parses the arguments after `NAME:`; the caller validates the result.
    pub parse: fn(&Args) -> Result<DelayModel, DelayModelError>,
    /// Rebuilds the model from its serialised fields; the caller validates the result.
    pub from_params: fn(&Params) -> Result<DelayModel, ParamError>,
    /// A valid model of this kind built without reading files, for the tests that walk the
    /// registry.
    pub demo: fn() -> DelayModel,
}

impl ModelEntry {
    /// The entry whose keyword or alias is `name` (already lowercase).
    pub fn find(name: &str) -> Option<&'static ModelEntry> {
        MODELS
            .iter()
            .find(|e| e.keyword == name || e.aliases.contains(&name))
    }

    /// The entry of `keyword`, exactly as serialised.
    pub fn by_keyword(keyword: &str) -> Option<&'static ModelEntry> {
        MODELS.iter().find(|e| e.keyword == keyword)
    }

    /// How many commas of a `--delay` list belong to one spec of this model.
    pub(crate) fn commas(&self) -> usize {
        let args = self.example.split_once(':').map_or("", |(_, a)| a);
        args.matches(',').count()
    }

    /// The example with its meaning: `exp:20us (mean)`.
    fn described(&self, quote: &str) -> String {
        let ex = format!("{quote}{}{quote}", self.example);
        if self.help.is_empty() {
            ex
        } else {
            format!("{ex} ({})", self.help)
        }
    }
}

/// The keywords as an error message lists them: `fixed, uniform, ... or trace`.
pub fn choices() -> String {
    let names: Vec<&str> = MODELS.iter().map(|e| e.keyword).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The models as the `--delay` help lists them: `fixed:50us, ..., exp:20us (mean), ...`.
pub fn help_list() -> String {
    list(MODELS.iter().map(|e| e.described("")))
}

/// The models as the README's options table lists them, each example in backticks.
pub fn help_list_markdown() -> String {
    list(MODELS.iter().map(|e| e.described("`")))
}

fn list(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

/// One serialised parameter of a model.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// A duration in seconds or a dimensionless number.
    Number(f64),
    /// Text, such as a trace's file name.
    Text(String),
    /// Several durations in seconds, such as a trace's values.
    Numbers(Vec<f64>),
}

impl Serialize for Param {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Param::Number(v) => s.serialize_f64(*v),
            Param::Text(t) => s.serialize_str(t),
            Param::Numbers(v) => v.serialize(s),
        }
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Param::Number(v) => write!(f, "{v:?}"),
            Param::Text(t) => write!(f, "{t:?}"),
            Param::Numbers(v) => write!(f, "{v:?}"),
        }
    }
}

/// The fields of a serialised model other than its `model` tag, as read.
#[derive(Debug, Default)]
pub struct Params {
    /// Field name and value; `None` for a value of no [`Param`] shape (a map, a bool, ...),
    /// which is an error only if the model asks for that field.
    pub(crate) fields: Vec<(String, Option<Param>)>,
}

/// A serialised field a model needs that is missing or of the wrong kind.
#[derive(Debug, PartialEq)]
pub enum ParamError {
    /// No field of this name.
    Missing(&'static str),
    /// The field holds something else than what is named.
    Kind {
        field: &'static str,
        expected: &'static str,
    },
}

impl Params {
    fn get(&self, field: &'static str) -> Result<&Option<Param>, ParamError> {
        self.fields
            .iter()
            .find(|(name, _)| name == field)
            .map(|(_, v)| v)
            .ok_or(ParamError::Missing(field))
    }

    /// The number in `field` (seconds for durations).
    pub fn number(&self, field: &'static str) -> Result<f64, ParamError> {
        match self.get(field)? {
            Some(Param::Number(v)) => Ok(*v),
            _ => Err(ParamError::Kind {
                field,
                expected: "a number",
            }),
        }
    }

    /// The text in `field`.
    pub fn text(&self, field: &'static str) -> Result<String, ParamError> {
        match self.get(field)? {
            Some(Param::Text(t)) => Ok(t.clone()),
            _ => Err(ParamError::Kind {
                field,
                expected: "a string",
            }),
        }
    }

    /// The list of numbers in `field` (seconds for durations).
    pub fn numbers(&self, field: &'static str) -> Result<Vec<f64>, ParamError> {
        match self.get(field)? {
            Some(Param::Numbers(v)) => Ok(v.clone()),
            _ => Err(ParamError::Kind {
                field,
                expected: "a list of numbers",
            }),
        }
    }
}

/// The argument text of one spec (after `NAME:`, trimmed), with the spec at hand for error
/// messages.
pub struct Args<'a> {
    pub(crate) spec: &'a str,
    pub(crate) text: &'a str,
}

impl<'a> Args<'a> {
    /// The argument text, trimmed.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The error for arguments of the wrong number or shape, with the entry's syntax and
    /// example.
    pub fn arguments(&self, entry: &ModelEntry) -> DelayModelError {
        DelayModelError::Arguments {
            spec: self.spec.to_string(),
            model: entry.keyword,
            expected: entry.syntax,
            example: entry.example,
        }
    }

    /// `text` as a non-negative duration in seconds; `param` names it in errors.
    pub fn duration(
        &self,
        text: &str,
        param: &'static str,
        entry: &ModelEntry,
    ) -> Result<f64, DelayModelError> {
        parse_duration_s(text).map_err(|cause: UnitError| DelayModelError::Duration {
            spec: self.spec.to_string(),
            param,
            cause,
            example: entry.example,
        })
    }
}

/// Parameter checks of [`DelaySampler::validate`], naming the spec (or the label of a model
/// not parsed from text) in errors.
pub struct Check<'a> {
    pub(crate) spec: &'a str,
}

impl Check<'_> {
    /// The spec the errors name.
    pub fn spec(&self) -> String {
        self.spec.to_string()
    }

    /// `v` (seconds or a number) must be finite and ≥ 0.
    pub fn finite(&self, v: f64, param: &'static str) -> Result<(), DelayModelError> {
        if v.is_finite() && v >= 0.0 {
            Ok(())
        } else {
            Err(DelayModelError::NotFinite {
                spec: self.spec(),
                param,
            })
        }
    }

    /// `v` (seconds or a number) must be finite and > 0.
    pub fn positive(
        &self,
        v: f64,
        param: &'static str,
        entry: &ModelEntry,
    ) -> Result<(), DelayModelError> {
        self.finite(v, param)?;
        if v > 0.0 {
            Ok(())
        } else {
            Err(DelayModelError::Zero {
                spec: self.spec(),
                param,
                example: entry.example,
            })
        }
    }
}

/// Unwraps a distribution built from a model's parameters in [`DelaySampler::sample`].
///
/// # Panics
/// When `made` is an error: the model was built by hand and not validated.
pub fn built<T, E: fmt::Display>(made: Result<T, E>, model: &dyn DelaySampler) -> T {
    made.unwrap_or_else(|e| {
        panic!(
            "delay model {} is invalid ({e}); check it with DelayModel::validate",
            model.label()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use std::collections::HashSet;

    #[test]
    fn keywords_and_aliases_are_unique_and_lowercase() {
        let mut seen = HashSet::new();
        for e in MODELS {
            for name in std::iter::once(&e.keyword).chain(e.aliases) {
                assert_eq!(*name, name.to_ascii_lowercase(), "{name}");
                assert!(!name.contains(':') && !name.contains(','), "{name}");
                assert!(seen.insert(*name), "{name} registered twice");
            }
            assert_eq!(ModelEntry::find(e.keyword).unwrap().keyword, e.keyword);
            assert!(
                e.example.starts_with(&format!("{}:", e.keyword)),
                "{}: example {}",
                e.keyword,
                e.example
            );
            assert!(!e.syntax.is_empty(), "{}", e.keyword);
        }
    }

    /// Every registered model through every part of [`DelaySampler`] and its entry.
    #[test]
    fn every_registered_model_is_complete() {
        for e in MODELS {
            let m = (e.demo)();
            let kw = e.keyword;
            assert_eq!(m.keyword(), kw);
            m.validate()
                .unwrap_or_else(|err| panic!("{kw}: demo invalid: {err}"));
            assert_eq!(m.to_string(), m.label(), "{kw}");
            assert!(format!("{m:?}").starts_with(kw), "{kw}: {m:?}");

            // The label reads back, unless it names a file that is not there.
            match m.label().parse::<DelayModel>() {
                Ok(back) => assert_eq!(back, m, "{kw}: label {}", m.label()),
                Err(DelayModelError::TraceRead { path, .. }) => {
                    assert!(m.label().ends_with(&path), "{kw}: {path}")
                }
                Err(err) => panic!("{kw}: label {} does not parse: {err}", m.label()),
            }

            // Serialised as a map tagged by the keyword, fields as `params` names them, and
            // read back the same from JSON and CBOR.
            let json: serde_json::Value = serde_json::to_value(&m).unwrap();
            assert_eq!(json["model"], kw, "{json}");
            let names: Vec<&str> = m.params().iter().map(|(n, _)| *n).collect();
            assert_eq!(json.as_object().unwrap().len(), names.len() + 1, "{json}");
            for n in &names {
                assert!(json.get(n).is_some(), "{kw}: {n} missing in {json}");
            }
            assert_eq!(serde_json::from_value::<DelayModel>(json).unwrap(), m);
            let mut cbor = Vec::new();
            ciborium::into_writer(&m, &mut cbor).unwrap();
            assert_eq!(
                ciborium::from_reader::<DelayModel, _>(&cbor[..]).unwrap(),
                m
            );

            // Draws: finite, non-negative, reproducible, and spread as `sd_s` says.
            let draw = |seed| {
                let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
                (0..20_000u64)
                    .map(|i| m.sample(&mut rng, i))
                    .collect::<Vec<f64>>()
            };
            let v = draw(5);
            assert_eq!(v, draw(5), "{kw}");
            assert!(v.iter().all(|x| x.is_finite() && *x >= 0.0), "{kw}");
            let (mean, sd) = (m.mean_s(), m.sd_s());
            assert!(mean.is_finite() && mean >= 0.0 && sd >= 0.0, "{kw}");
            let spread = v.iter().any(|x| *x != v[0]);
            assert_eq!(
                spread,
                sd > 0.0,
                "{kw}: sd_s {sd} but draws spread {spread}"
            );
            if m.is_fixed() {
                assert!(!spread && sd == 0.0, "{kw}: fixed but spread");
            }
            let sample_mean = v.iter().sum::<f64>() / v.len() as f64;
            if sd.is_finite() {
                // Ten standard errors: loose, but a wrong `mean_s` is off by far more.
                let tol = 10.0 * sd / (v.len() as f64).sqrt() + 1e-15;
                assert!(
                    (sample_mean - mean).abs() <= tol,
                    "{kw}: sample mean {sample_mean:e}, mean_s {mean:e}"
                );
                // 15 %: several standard errors even for the heavy tail of the Pareto demo
                // (shape 5, kurtosis about 74), far less than a wrong formula's error.
                let var =
                    v.iter().map(|x| (x - sample_mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64;
                assert!(
                    (var.sqrt() - sd).abs() <= 0.15 * sd + 1e-15,
                    "{kw}: sample sd {:e}, sd_s {sd:e}",
                    var.sqrt()
                );
            }
        }
    }

    #[test]
    fn unknown_names_list_every_model() {
        let err = "poisson:5us".parse::<DelayModel>().unwrap_err().to_string();
        for e in MODELS {
            assert!(err.contains(e.keyword), "{}: {err}", e.keyword);
        }
    }

    #[test]
    fn examples_parse_and_keep_their_commas_in_lists() {
        for e in MODELS {
            let list = format!("{},50us", e.example);
            let items = super::super::list::split_items(&list);
            assert_eq!(items, vec![e.example.to_string(), "50us".to_string()]);
            // An example naming a file parses where the file exists; the rest parse here.
            match e.example.parse::<DelayModel>() {
                Ok(m) => assert_eq!(m.keyword(), e.keyword),
                Err(DelayModelError::TraceRead { .. }) => {}
                Err(err) => panic!("{}: {err}", e.example),
            }
        }
    }

    #[test]
    fn help_texts_list_every_model() {
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
        let row = readme
            .lines()
            .find(|l| l.starts_with("| `--delay "))
            .expect("README has a --delay row");
        assert!(
            row.contains(&help_list_markdown()),
            "README's --delay row should list {}",
            help_list_markdown()
        );
        let format = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/docs/records-format.md"
        ))
        .unwrap();
        for e in MODELS {
            let m = (e.demo)();
            let fields: Vec<String> = m.params().iter().map(|(n, _)| format!("`{n}`")).collect();
            let entry = format!("`{}` {{{}}}", e.keyword, fields.join(", "));
            assert!(
                format.contains(&entry),
                "docs/records-format.md should list {entry}"
            );
        }
    }
}
