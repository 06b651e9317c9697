//! `trace:FILE`: durations replayed in order from a text file, read when the spec is parsed.
//!
//! File format: one value per line, either a duration with a unit (`50us`) or seconds as a
//! plain number (`5e-5`, `0.00005`); `#` starts a comment that runs to the end of the line;
//! blank lines are skipped. Replay cycles through the values in file order: the n-th delay
//! drawn (`index` n of [`crate::delay::DelayModel::sample`]) is `values_s[n % len]`.
//! [`crate::delay::delay_matrix`] counts draws per block, repetition by repetition and in
//! ascending rank order within a repetition, so with one delayed rank the file is replayed
//! line by line, one line per repetition, restarting for every block.

use super::{Args, Check, DelaySampler, ModelEntry, Param, ParamError, Params};
use crate::delay::{DelayModel, DelayModelError};
use crate::units::parse_duration_s;
use rand::RngCore;

/// Durations replayed from a text file; the values travel with the model, so a plan can be
/// broadcast and stored without the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The file name as given, for labels.
    pub path: String,
    /// The file's values in seconds, in file order (never empty).
    pub values_s: Vec<f64>,
}

pub(super) const ENTRY: ModelEntry = ModelEntry {
    keyword: "trace",
    aliases: &[],
    syntax: "a file name",
    example: "trace:delays.txt",
    help: "durations replayed in order",
    parse,
    from_params,
    demo: || {
        DelayModel::new(Trace {
            path: "delays.txt".into(),
            values_s: vec![10e-6, 30e-6, 20e-6],
        })
    },
};

fn parse(a: &Args) -> Result<DelayModel, DelayModelError> {
    if a.text().is_empty() {
        return Err(a.arguments(&ENTRY));
    }
    Ok(DelayModel::new(Trace {
        path: a.text().to_string(),
        values_s: read_file(a.text())?,
    }))
}

fn from_params(p: &Params) -> Result<DelayModel, ParamError> {
    Ok(DelayModel::new(Trace {
        path: p.text("path")?,
        values_s: p.numbers("values_s")?,
    }))
}

impl DelaySampler for Trace {
    fn keyword(&self) -> &'static str {
        ENTRY.keyword
    }

    fn params(&self) -> Vec<(&'static str, Param)> {
        vec![
            ("path", Param::Text(self.path.clone())),
            ("values_s", Param::Numbers(self.values_s.clone())),
        ]
    }

    fn validate(&self, c: &Check) -> Result<(), DelayModelError> {
        if self.values_s.is_empty() {
            return Err(DelayModelError::TraceEmpty {
                path: self.path.clone(),
            });
        }
        self.values_s
            .iter()
            .try_for_each(|&v| c.finite(v, "trace value"))
    }

    /// The mean of the file's values.
    fn mean_s(&self) -> f64 {
        self.values_s.iter().sum::<f64>() / self.values_s.len() as f64
    }

    /// The population standard deviation of the file's values.
    fn sd_s(&self) -> f64 {
        let mean = self.mean_s();
        let var = self
            .values_s
            .iter()
            .map(|v| (v - mean).powi(2))
            .sum::<f64>()
            / self.values_s.len() as f64;
        var.sqrt()
    }

    fn label(&self) -> String {
        format!("trace:{}", self.path)
    }

    fn sample(&self, _rng: &mut dyn RngCore, index: u64) -> f64 {
        assert!(
            !self.values_s.is_empty(),
            "delay model {} has no values",
            self.label()
        );
        self.values_s[(index % self.values_s.len() as u64) as usize]
    }
}

/// Reads the values of the trace file at `path`, in seconds, in file order.
///
/// Errors: [`DelayModelError::TraceRead`] (cannot open or not UTF-8),
/// [`DelayModelError::TraceValue`] (a line that is not a non-negative duration, with its
/// 1-based number), [`DelayModelError::TraceEmpty`].
fn read_file(path: &str) -> Result<Vec<f64>, DelayModelError> {
    let text = std::fs::read_to_string(path).map_err(|e| DelayModelError::TraceRead {
        path: path.to_string(),
        cause: e.to_string(),
    })?;
    parse_values(path, &text)
}

/// Parses the text of a trace file; `path` is only used in error messages.
fn parse_values(path: &str, text: &str) -> Result<Vec<f64>, DelayModelError> {
    let mut values = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let item = line.split('#').next().unwrap_or("").trim();
        if item.is_empty() {
            continue;
        }
        let bad = |cause: String| DelayModelError::TraceValue {
            path: path.to_string(),
            line: i + 1,
            cause,
        };
        // Scripts usually write seconds as plain numbers, so those are accepted without a unit
        // here, unlike on the command line where `50` is ambiguous. But a plain 1 or more is
        // far more likely microseconds than a delay of seconds per repetition: it
        // needs its unit.
        let value = match item.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 1.0 => {
                return Err(bad(format!(
                    "'{item}' has no unit and would be {item} seconds per repetition: write it \
                     with a unit, e.g. {item}us, {item}ms or {item}s"
                )))
            }
            Ok(v) if v.is_finite() && v >= 0.0 => v,
            Ok(_) => return Err(bad(format!("'{item}' is not a finite duration >= 0"))),
            Err(_) => parse_duration_s(item).map_err(|e| bad(e.to_string()))?,
        };
        values.push(value);
    }
    if values.is_empty() {
        return Err(DelayModelError::TraceEmpty {
            path: path.to_string(),
        });
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_numbers_of_a_second_or_more_need_a_unit() {
        let err = parse_values("t.txt", "50us\n50\n").unwrap_err();
        assert!(err.to_string().contains("50us, 50ms or 50s"), "{err}");
        assert!(
            err.to_string().contains("line 2") || err.to_string().contains(":2"),
            "{err}"
        );
        assert!(parse_values("t.txt", "50s\n0.5\n").is_ok());
    }

    #[test]
    fn units_plain_seconds_and_comments() {
        let text = "# measured on node7\n50us\n\n  1.5ms  # a long one\n5e-5\n0\n";
        let v = parse_values("t.txt", text).unwrap();
        assert_eq!(v.len(), 4);
        assert!((v[0] - 50e-6).abs() < 1e-15 && (v[1] - 1.5e-3).abs() < 1e-15);
        assert!((v[2] - 5e-5).abs() < 1e-15 && v[3] == 0.0);
    }

    #[test]
    fn bad_lines_are_located() {
        assert_eq!(
            parse_values("t.txt", "50us\n-3\n"),
            Err(DelayModelError::TraceValue {
                path: "t.txt".into(),
                line: 2,
                cause: "'-3' is not a finite duration >= 0".into()
            })
        );
        assert!(matches!(
            parse_values("t.txt", "50us\nfast\n"),
            Err(DelayModelError::TraceValue { line: 2, .. })
        ));
        assert!(matches!(
            parse_values("t.txt", "# nothing\n\n"),
            Err(DelayModelError::TraceEmpty { .. })
        ));
        assert!(matches!(
            read_file("/nonexistent/delays.txt"),
            Err(DelayModelError::TraceRead { .. })
        ));
    }
}
