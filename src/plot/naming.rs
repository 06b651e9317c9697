//! Names: which delays get figures, the file stem of each figure and the text of δ and sizes
//! in titles.

use crate::units::{format_bytes, format_duration};

/// Relative tolerance under which two nominal delays are the same δ. Delays come from the plan
/// and are copied, not recomputed, so this only guards against decimal round trips.
const DELAY_RTOL: f64 = 1e-9;

/// True when `a` and `b` (seconds) name the same nominal delay.
pub fn same_delay(a: f64, b: f64) -> bool {
    (a - b).abs() <= DELAY_RTOL * a.abs().max(b.abs())
}

/// The distinct nominal delays δ > 0 (seconds) in `delays`, ascending.
pub fn distinct_delays(delays: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let mut ds: Vec<f64> = delays
        .into_iter()
        .filter(|d| d.is_finite() && *d > 0.0)
        .collect();
    ds.sort_by(f64::total_cmp);
    ds.dedup_by(|a, b| same_delay(*a, *b));
    ds
}

/// File stems (names without extension) `{kind}_vs_p_{δ}` for the ascending delays `delays_s`,
/// e.g. `benefit_vs_p_50us`. Two delays that format alike (they differ below the formatter's
/// 3 decimals) get `_2`, `_3`, ... so no figure overwrites another.
pub fn figure_stems(kind: &str, delays_s: &[f64]) -> Vec<String> {
    delay_stems(&format!("{kind}_vs_p"), delays_s)
}

/// File stems `{prefix}_{δ}` for the ascending delays `delays_s`, made unique as in
/// [`figure_stems`].
pub fn delay_stems(prefix: &str, delays_s: &[f64]) -> Vec<String> {
    unique_stems(
        delays_s
            .iter()
            .map(|&d| format!("{prefix}_{}", format_duration(d))),
    )
}

/// `bases` in order, each one already taken followed by `_2`, `_3`, ... (the first free), so
/// that two figures never share a file.
fn unique_stems(bases: impl ExactSizeIterator<Item = String>) -> Vec<String> {
    let mut stems: Vec<String> = Vec::with_capacity(bases.len());
    for base in bases {
        let mut stem = base.clone();
        let mut n = 2;
        while stems.contains(&stem) {
            stem = format!("{base}_{n}");
            n += 1;
        }
        stems.push(stem);
    }
    stems
}

/// One delay model of a run, the key of every figure that depends on δ: its label as the
/// records give it (`50us`, `exp:20us`, ...) and its nominal δ in seconds (the fixed delay, or
/// the mean of a sampled model). `exp:20us` and `20us` share δ = 20 µs but are different
/// models, so they get different titles, legends and file names.
#[derive(Debug, Clone, PartialEq)]
pub struct DelayKey {
    /// The model's label; empty when the rows do not record one (then δ alone decides).
    pub model: String,
    /// Nominal δ, seconds.
    pub delay_s: f64,
}

impl DelayKey {
    /// The key of a fixed delay of `delay_s` seconds, labelled as the run labels it.
    pub fn fixed(delay_s: f64) -> DelayKey {
        DelayKey {
            model: format_duration(delay_s),
            delay_s,
        }
    }

    /// True for a row of model `model` and nominal δ `delay_s` (seconds). A row or key
    /// without a label matches on δ alone.
    pub fn matches(&self, model: &str, delay_s: f64) -> bool {
        same_delay(self.delay_s, delay_s)
            && (self.model.is_empty() || model.is_empty() || self.model == model)
    }

    /// True when every rank's delay is the same fixed δ (a label without a `keyword:`).
    pub fn is_fixed(&self) -> bool {
        !self.model.contains(':')
    }

    /// The delay for titles and legends: `δ = 50 µs` for a fixed delay, `δ ~ exp:20us
    /// (mean 20 µs)` for a model sampled per repetition and rank.
    pub fn describe(&self) -> String {
        if self.delay_s == 0.0 {
            "undelayed (δ = 0)".to_string()
        } else if self.is_fixed() {
            format!("δ = {}", pretty_duration(self.delay_s))
        } else {
            format!(
                "δ ~ {} (mean {})",
                self.model,
                pretty_duration(self.delay_s)
            )
        }
    }

    /// The delay in a few characters, for panel titles: `δ = 50 µs`, or the model's label
    /// (`exp:20us`) for a sampled model.
    pub fn short(&self) -> String {
        if self.is_fixed() {
            self.describe()
        } else {
            self.model.clone()
        }
    }

    /// The part of a file name that names the model: `50us`, `exp-20us`,
    /// `uniform-0s..100us`; only ASCII letters, digits, `.`, `_` and `-`.
    pub fn file_part(&self) -> String {
        if self.is_fixed() {
            return format_duration(self.delay_s);
        }
        self.model
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .collect()
    }
}

/// The distinct delay models with δ > 0 among `(label, δ in seconds)` pairs, ascending in δ,
/// then by label.
pub fn distinct_models<'a>(rows: impl IntoIterator<Item = (&'a str, f64)>) -> Vec<DelayKey> {
    let mut keys: Vec<DelayKey> = Vec::new();
    for (model, d) in rows {
        if !(d.is_finite() && d > 0.0) {
            continue;
        }
        if !keys
            .iter()
            .any(|k| k.model == model && same_delay(k.delay_s, d))
        {
            keys.push(DelayKey {
                model: model.to_string(),
                delay_s: d,
            });
        }
    }
    keys.sort_by(|a, b| a.delay_s.total_cmp(&b.delay_s).then(a.model.cmp(&b.model)));
    keys
}

/// File stems `{prefix}_{model}` for `keys` (see [`DelayKey::file_part`]), made unique with
/// `_2`, `_3`, ... as in [`figure_stems`].
pub fn model_stems(prefix: &str, keys: &[DelayKey]) -> Vec<String> {
    unique_stems(keys.iter().map(|k| format!("{prefix}_{}", k.file_part())))
}

/// A duration for titles and legends: `50 µs`, `1.5 ms`, `0 s`.
pub fn pretty_duration(seconds: f64) -> String {
    let s = format_duration(seconds);
    let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    let (value, unit) = s.split_at(split);
    let unit = if unit == "us" { "µs" } else { unit };
    format!("{value} {unit}")
}

/// A message size for panel titles: `8 B`, `1 KiB`.
pub fn pretty_bytes(bytes: u64) -> String {
    let s = format_bytes(bytes);
    let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(s.len());
    let (value, unit) = s.split_at(split);
    format!("{value} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_are_distinct_positive_and_sorted() {
        let ds = distinct_delays([50e-6, 0.0, 10e-6, 50e-6, 50e-6 * (1.0 + 1e-12), f64::NAN]);
        assert_eq!(ds, vec![10e-6, 50e-6]);
        assert!(distinct_delays([0.0]).is_empty());
        assert!(same_delay(50e-6, 50e-6 + 1e-20) && !same_delay(50e-6, 51e-6));
    }

    #[test]
    fn stems_name_the_delay_and_never_collide() {
        assert_eq!(
            figure_stems("benefit", &[50e-6, 1.5e-3]),
            vec!["benefit_vs_p_50us", "benefit_vs_p_1.5ms"]
        );
        assert_eq!(
            figure_stems("t_global", &[50e-6, 50.0001e-6]),
            vec!["t_global_vs_p_50us", "t_global_vs_p_50us_2"]
        );
    }

    #[test]
    fn models_with_one_mean_are_distinct_keys_titles_and_files() {
        let keys = distinct_models([
            ("exp:20us", 20e-6),
            ("20us", 20e-6),
            ("0", 0.0),
            ("exp:20us", 20e-6),
            ("50us", 50e-6),
        ]);
        let models: Vec<&str> = keys.iter().map(|k| k.model.as_str()).collect();
        assert_eq!(models, vec!["20us", "exp:20us", "50us"]);
        assert_eq!(keys[0].describe(), "δ = 20 µs");
        assert_eq!(keys[1].describe(), "δ ~ exp:20us (mean 20 µs)");
        assert_ne!(keys[0].describe(), keys[1].describe());
        assert_eq!(
            model_stems("benefit_vs_p", &keys),
            vec![
                "benefit_vs_p_20us",
                "benefit_vs_p_exp-20us",
                "benefit_vs_p_50us"
            ]
        );
        assert!(keys[1].matches("exp:20us", 20e-6) && !keys[1].matches("20us", 20e-6));
        assert!(!keys[0].matches("exp:20us", 20e-6));
        // Rows without a label fall back to δ.
        assert!(DelayKey::fixed(20e-6).matches("", 20e-6));
        let odd = DelayKey {
            model: "trace:/data/d lay.txt".into(),
            delay_s: 1e-6,
        };
        assert_eq!(odd.file_part(), "trace--data-d-lay.txt");
    }

    #[test]
    fn pretty_units_have_a_space_and_micro_sign() {
        assert_eq!(pretty_duration(50e-6), "50 µs");
        assert_eq!(pretty_duration(1.5e-3), "1.5 ms");
        assert_eq!(pretty_duration(0.0), "0 s");
        assert_eq!(pretty_bytes(8), "8 B");
        assert_eq!(pretty_bytes(1024), "1 KiB");
    }
}
