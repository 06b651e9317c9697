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
    let mut stems: Vec<String> = Vec::with_capacity(delays_s.len());
    for &d in delays_s {
        let base = format!("{prefix}_{}", format_duration(d));
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
    fn pretty_units_have_a_space_and_micro_sign() {
        assert_eq!(pretty_duration(50e-6), "50 µs");
        assert_eq!(pretty_duration(1.5e-3), "1.5 ms");
        assert_eq!(pretty_duration(0.0), "0 s");
        assert_eq!(pretty_bytes(8), "8 B");
        assert_eq!(pretty_bytes(1024), "1 KiB");
    }
}
