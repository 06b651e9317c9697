//! Studies: `delaybench --config configs/FILE.toml` runs a whole study.
//!
//! A study file is flat TOML whose keys are the long options of a measurement run, in
//! snake_case or kebab-case (`ops`, `sizes`, `delay_rank`, `sync`, ...), with the same values
//! the flags take: strings (`delay = "50us"`), numbers (`nrep = 100`), lists
//! (`sizes = ["8", "1KiB"]` or `procs = [2, 4]`) and booleans for switches. Each key becomes
//! its flag placed before the command line's own, so the flags' parsers and checks apply
//! unchanged; a flag given on the command line overrides the file; an unknown key is an error.

use clap::parser::ValueSource;
use clap::{ArgMatches, Command};
use std::path::Path;
use thiserror::Error;

/// Why a study file cannot be used.
#[derive(Debug, Error)]
pub enum StudyError {
    #[error("cannot read study file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("study file {path} is not valid TOML: {message}")]
    Toml { path: String, message: String },
    #[error("study file {path}: unknown key '{key}' (known keys: {known})")]
    UnknownKey {
        path: String,
        key: String,
        known: String,
    },
    #[error("study file {path}: key '{key}' must be a string, number, boolean or list of those")]
    BadValue { path: String, key: String },
    /// The value is of a right kind, but its flag refuses it (`nrep = "ten"`): the message
    /// is the flag's own, after the file and the key, so the user knows where to look.
    #[error("study file {path}: key '{key}': {message}")]
    Refused {
        path: String,
        key: String,
        message: String,
    },
}

/// A study file read and turned into flags.
#[derive(Debug, Clone, PartialEq)]
pub struct Study {
    /// The file's text, kept for the records header.
    pub text: String,
    /// `(long flag, value)` pairs in key order; value `None` for a switch.
    pub flags: Vec<(String, Option<String>)>,
}

impl Study {
    /// Reads `path` and checks its keys against the long options of `cmd` (the measurement
    /// command). Errors: [`StudyError`].
    pub fn load(path: &Path, cmd: &Command) -> Result<Study, StudyError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| StudyError::Read {
            path: shown.clone(),
            source,
        })?;
        Study::parse(&text, &shown, cmd)
    }

    /// As [`Study::load`], from text; `path` is only used in messages.
    pub fn parse(text: &str, path: &str, cmd: &Command) -> Result<Study, StudyError> {
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| StudyError::Toml {
                path: path.into(),
                message: match e.span() {
                    Some(span) => format!(
                        "{} (line {})",
                        e.message(),
                        1 + text[..span.start.min(text.len())].matches('\n').count()
                    ),
                    None => e.message().to_string(),
                },
            })?;
        let known = known_flags(cmd);
        let mut flags = Vec::new();
        for (key, value) in table {
            let flag = key.replace('_', "-");
            // A renamed flag's old name (a hidden alias) keeps old study files working.
            if !known.contains(&flag) && !is_alias(cmd, &flag) {
                return Err(StudyError::UnknownKey {
                    path: path.into(),
                    key,
                    known: known.join(", ").replace('-', "_"),
                });
            }
            let bad = || StudyError::BadValue {
                path: path.into(),
                key: key.clone(),
            };
            let value = match value {
                toml::Value::Boolean(false) => continue,
                toml::Value::Boolean(true) => None,
                other => Some(scalar_or_list(&other).ok_or_else(bad)?),
            };
            if let Some(message) = refusal(cmd, &flag, value.as_deref()) {
                return Err(StudyError::Refused {
                    path: path.into(),
                    key,
                    message,
                });
            }
            flags.push((flag, value));
        }
        Ok(Study {
            text: text.to_string(),
            flags,
        })
    }

    /// The command line with the study's flags put before the user's arguments, leaving out
    /// those the user gave on the command line (`matches` is the parse of `argv` alone).
    pub fn merge_into(&self, argv: &[String], cmd: &Command, matches: &ArgMatches) -> Vec<String> {
        let given = |flag: &str| {
            cmd.get_arguments()
                .find(|a| {
                    a.get_long() == Some(flag)
                        || a.get_all_aliases().is_some_and(|v| v.contains(&flag))
                })
                .is_some_and(|a| {
                    matches.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine)
                })
        };
        let mut merged = vec![argv.first().cloned().unwrap_or_else(|| "delaybench".into())];
        for (flag, value) in self.flags.iter().filter(|(f, _)| !given(f)) {
            merged.push(format!("--{flag}"));
            merged.extend(value.clone());
        }
        merged.extend(argv.iter().skip(1).cloned());
        merged
    }
}

/// The long options a study may set: every long flag but `config`, `help` and `version`.
fn known_flags(cmd: &Command) -> Vec<String> {
    cmd.get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|l| !["config", "help", "version"].contains(l))
        .map(str::to_string)
        .collect()
}

/// Whether `flag` is the hidden alias of a long option of `cmd` (its name before a rename).
fn is_alias(cmd: &Command, flag: &str) -> bool {
    cmd.get_arguments()
        .any(|a| a.get_all_aliases().is_some_and(|v| v.contains(&flag)))
}

/// What the parser of `--flag` says of `value` (`None`: a switch) on its own, or `None` when
/// it takes it. Only refusals of the value count: a flag that needs another one is the
/// command line's business once the study is merged.
fn refusal(cmd: &Command, flag: &str, value: Option<&str>) -> Option<String> {
    use clap::error::ErrorKind;
    let mut argv = vec!["delaybench".to_string(), format!("--{flag}")];
    argv.extend(value.map(str::to_string));
    let e = cmd.clone().try_get_matches_from(&argv).err()?;
    let about_the_value = matches!(
        e.kind(),
        ErrorKind::InvalidValue
            | ErrorKind::ValueValidation
            | ErrorKind::WrongNumberOfValues
            | ErrorKind::TooManyValues
            | ErrorKind::TooFewValues
            | ErrorKind::NoEquals
            | ErrorKind::InvalidUtf8
    );
    // clap's own text without its `error: ` and the usage lines after the first.
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or("");
    about_the_value.then(|| first.trim_start_matches("error: ").to_string())
}

fn scalar_or_list(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Array(items) => items
            .iter()
            .map(scalar_or_list)
            .collect::<Option<Vec<_>>>()
            .map(|parts| parts.join(",")),
        _ => None,
    }
}
