//! The choice rule: per (op, size, P) under one arrival pattern, the algorithm with the
//! lowest median t_global, kept only when it beats the library's own choice (`default`).
//!
//! Every non-default algorithm of every configuration is compared with `default` by the
//! bootstrap interval of the difference of the medians (the two blocks resampled
//! independently, as `compare` does: [`Bootstrap::median_difference_test`]) and its
//! two-sided p-value; the false discovery rate over all these comparisons is controlled by
//! Benjamini and Hochberg (1995) at 1 − level. The fastest algorithm is kept when its
//! comparison is a discovery and its interval of the gain lies above zero; otherwise the
//! rule keeps `default`. Picking the fastest of k and then testing it alone would ignore
//! that k were looked at; counting all k in the false discovery rate does not.

use super::sweep::{pattern_to_tune, Measured, Sweep, BALANCED};
use super::TuneError;
use crate::analysis::{benjamini_hochberg, Bootstrap};
use crate::plan::algorithms::DEFAULT_NAME;
use crate::plan::Op;
use serde::Serialize;

/// Version of the `tune` CSV/JSON schema (columns of [`Choice`]).
pub const TUNE_SCHEMA_VERSION: u32 = 1;

/// A configuration: op, message size (bytes) and P.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell {
    pub op: Op,
    pub nprocs: u32,
    pub bytes: u64,
}

/// What the rule decided for one configuration. Times in seconds; field names are the CSV
/// columns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    /// [`TUNE_SCHEMA_VERSION`].
    pub schema_version: u32,
    pub op: Op,
    pub nprocs: u32,
    pub bytes: u64,
    /// The arrival pattern tuned for (`balanced`, `50us@0`).
    pub pattern: String,
    /// The ranges of P and of message sizes (bytes, inclusive) the choice rules in the file
    /// written; `None` above: no upper end (set by [`super::annotate`]).
    pub p_lo: Option<u32>,
    pub p_hi: Option<u32>,
    pub size_lo: Option<u64>,
    pub size_hi: Option<u64>,
    /// The algorithm the rule runs: the winner, or `default`.
    pub chosen: String,
    /// Its variable's value in the sweep (`None`: default, or a simulated sweep).
    pub chosen_value: Option<i32>,
    /// The algorithm with the lowest median, kept or not.
    pub fastest: String,
    /// Algorithms with valid repetitions under the pattern.
    pub algorithms: u32,
    /// Median t_global of the chosen algorithm and of `default`.
    pub chosen_median_s: Option<f64>,
    pub default_median_s: Option<f64>,
    /// Valid repetitions of the fastest algorithm and of `default`.
    pub valid_fastest: u32,
    pub valid_default: u32,
    /// median(default) − median(fastest): what the fastest gains over `default`.
    pub gain_s: Option<f64>,
    /// Bootstrap interval of `gain_s` (blocks resampled independently).
    pub gain_ci_lo_s: Option<f64>,
    pub gain_ci_hi_s: Option<f64>,
    /// Two-sided bootstrap p-value of "no gain" for the fastest.
    pub p_value: Option<f64>,
    /// True when the fastest was kept: a discovery at the false discovery rate and an
    /// interval above zero.
    pub significant: bool,
    /// Why the rule keeps `default` (empty when the winner is kept).
    pub kept_default_because: String,
    /// The choice under `balanced` arrivals when another pattern is tuned (empty otherwise,
    /// or when the sweep has no balanced blocks there).
    pub balanced_choice: String,
    /// Result fingerprints of the chosen algorithm and of `default` in the sweep.
    pub chosen_fingerprint: Option<String>,
    pub default_fingerprint: Option<String>,
    /// Run ids of the blocks the choice rests on.
    pub run_ids: String,
}

/// A tuning: the pattern, and a choice per configuration in (op, P, size) order.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuning {
    pub pattern: String,
    /// The patterns the records hold.
    pub patterns: Vec<String>,
    pub choices: Vec<Choice>,
    /// The false discovery rate of the decisions.
    pub fdr: f64,
    /// Comparisons counted in it.
    pub comparisons: usize,
}

/// The tuning of `sweep` for `pattern` (see [`pattern_to_tune`] for `None`), with the
/// `balanced` choice beside each row when another pattern is tuned.
///
/// Errors: those of [`pattern_to_tune`].
pub fn choose(sweep: &Sweep, pattern: Option<&str>, boot: &Bootstrap) -> Result<Tuning, TuneError> {
    let tuned = pattern_to_tune(sweep, pattern)?;
    let (mut choices, comparisons) = choices_under(&sweep.measured, &tuned, boot);
    if tuned != BALANCED {
        let (balanced, _) = choices_under(&sweep.measured, BALANCED, boot);
        for c in &mut choices {
            if let Some(b) = balanced
                .iter()
                .find(|b| (b.op, b.nprocs, b.bytes) == (c.op, c.nprocs, c.bytes))
            {
                c.balanced_choice = b.chosen.clone();
            }
        }
    }
    Ok(Tuning {
        pattern: tuned,
        patterns: super::sweep::patterns(sweep),
        choices,
        fdr: boot.fdr(),
        comparisons,
    })
}

/// One comparison with `default`: the interval of the gain and its p-value.
struct Test {
    cell: usize,
    algorithm: usize,
    gain: Option<(crate::analysis::Interval, f64)>,
}

/// The choices of every configuration measured under `pattern`, and the number of
/// comparisons with `default` they were decided among.
pub fn choices_under(
    measured: &[Measured],
    pattern: &str,
    boot: &Bootstrap,
) -> (Vec<Choice>, usize) {
    let mut cells: Vec<(Cell, Vec<&Measured>)> = Vec::new();
    for m in measured.iter().filter(|m| m.pattern == pattern) {
        let cell = Cell {
            op: m.op,
            nprocs: m.nprocs,
            bytes: m.bytes,
        };
        match cells.iter_mut().find(|(c, _)| *c == cell) {
            Some((_, v)) => v.push(m),
            None => cells.push((cell, vec![m])),
        }
    }
    cells.sort_by_key(|(c, _)| (c.op.name(), c.nprocs, c.bytes));
    // Every algorithm against default, in every configuration: the family of the FDR.
    let mut tests = Vec::new();
    for (i, (_, algs)) in cells.iter().enumerate() {
        let Some(def) = algs.iter().find(|m| m.algorithm == DEFAULT_NAME) else {
            continue;
        };
        for (j, m) in algs.iter().enumerate() {
            if m.algorithm != DEFAULT_NAME && m.valid() > 0 {
                tests.push(Test {
                    cell: i,
                    algorithm: j,
                    gain: boot.median_difference_test(&m.t_globals, &def.t_globals),
                });
            }
        }
    }
    let p: Vec<Option<f64>> = tests.iter().map(|t| t.gain.map(|g| g.1)).collect();
    let discovered = benjamini_hochberg(&p, boot.fdr());
    let choices = cells
        .iter()
        .enumerate()
        .map(|(i, (cell, algs))| {
            let test = |j: usize| {
                tests
                    .iter()
                    .zip(&discovered)
                    .find(|(t, _)| t.cell == i && t.algorithm == j)
                    .map(|(t, d)| (t.gain, *d == Some(true)))
            };
            decide(*cell, pattern, algs, test)
        })
        .collect();
    (choices, tests.len())
}

type Gain = Option<(crate::analysis::Interval, f64)>;

/// The choice of one configuration from its algorithms `algs` and `test(j)`, the
/// comparison of `algs[j]` with default and whether it is a discovery.
fn decide(
    cell: Cell,
    pattern: &str,
    algs: &[&Measured],
    test: impl Fn(usize) -> Option<(Gain, bool)>,
) -> Choice {
    let med = |m: &Measured| m.median();
    let def = algs.iter().position(|m| m.algorithm == DEFAULT_NAME);
    // The lowest median; default first so that a tie keeps it.
    let mut order: Vec<usize> = (0..algs.len())
        .filter(|&j| med(algs[j]).is_some())
        .collect();
    order.sort_by(|&a, &b| {
        let (ma, mb) = (med(algs[a]).unwrap(), med(algs[b]).unwrap());
        ma.total_cmp(&mb)
            .then((Some(b) == def).cmp(&(Some(a) == def)))
    });
    let fastest = order.first().copied();
    let (gain, discovery) = fastest
        .and_then(test)
        .map_or((None, false), |(g, d)| (g, d));
    let significant = discovery && gain.is_some_and(|(ci, _)| ci.lo > 0.0);
    let because = match (def, fastest) {
        (None, _) => "no `default` block under this pattern: nothing to beat".to_string(),
        (_, None) => "no valid repetition".into(),
        (Some(d), Some(f)) if d == f => "default is the fastest".into(),
        _ if gain.is_none() => format!(
            "too few valid repetitions for an interval (fastest {}, default {})",
            algs[fastest.unwrap()].valid(),
            algs[def.unwrap()].valid()
        ),
        _ if !significant => "not significantly faster than default".into(),
        _ => String::new(),
    };
    let chosen = if significant { fastest } else { def };
    let pick = |j: Option<usize>| j.map(|j| algs[j]);
    let mut run_ids: Vec<&str> = Vec::new();
    for m in algs {
        for r in &m.run_ids {
            if !run_ids.contains(&r.as_str()) {
                run_ids.push(r);
            }
        }
    }
    Choice {
        schema_version: TUNE_SCHEMA_VERSION,
        op: cell.op,
        nprocs: cell.nprocs,
        bytes: cell.bytes,
        pattern: pattern.into(),
        p_lo: None,
        p_hi: None,
        size_lo: None,
        size_hi: None,
        chosen: pick(chosen).map_or_else(|| DEFAULT_NAME.into(), |m| m.algorithm.clone()),
        chosen_value: if significant {
            pick(chosen).and_then(|m| m.value)
        } else {
            None
        },
        fastest: pick(fastest).map_or_else(String::new, |m| m.algorithm.clone()),
        algorithms: order.len() as u32,
        chosen_median_s: pick(chosen).and_then(med),
        default_median_s: pick(def).and_then(med),
        valid_fastest: pick(fastest).map_or(0, |m| m.valid() as u32),
        valid_default: pick(def).map_or(0, |m| m.valid() as u32),
        gain_s: pick(fastest)
            .and_then(med)
            .zip(pick(def).and_then(med))
            .map(|(f, d)| d - f),
        gain_ci_lo_s: gain.map(|g| g.0.lo),
        gain_ci_hi_s: gain.map(|g| g.0.hi),
        p_value: gain.map(|g| g.1),
        significant,
        kept_default_because: because,
        balanced_choice: String::new(),
        chosen_fingerprint: pick(chosen).and_then(|m| m.fingerprint.clone()),
        default_fingerprint: pick(def).and_then(|m| m.fingerprint.clone()),
        run_ids: run_ids.join(" | "),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A measured algorithm whose n valid t_globals spread ±`spread_s` around `median_s`.
    pub(crate) fn m(
        alg: &str,
        pattern: &str,
        bytes: u64,
        median_s: f64,
        spread_s: f64,
        n: usize,
    ) -> Measured {
        Measured {
            op: Op::Allreduce,
            bytes,
            nprocs: 4,
            pattern: pattern.into(),
            algorithm: alg.into(),
            variable: "coll_tuned_allreduce_algorithm".into(),
            value: (alg != DEFAULT_NAME).then_some(alg.len() as i32),
            fingerprint: Some(format!("fp-{alg}")),
            t_globals: vec![(0..n)
                .map(|i| median_s + spread_s * (2.0 * i as f64 / (n - 1).max(1) as f64 - 1.0))
                .collect()],
            run_ids: vec!["run-a".into()],
        }
    }

    /// The tuning of `measured` for `pattern`, the records holding `patterns`: the choices
    /// under the default bootstrap, at a false discovery rate of 5 %.
    pub(crate) fn tuned(measured: &[Measured], pattern: &str, patterns: &[&str]) -> Tuning {
        let (choices, comparisons) = choices_under(measured, pattern, &Bootstrap::default());
        Tuning {
            pattern: pattern.into(),
            patterns: patterns.iter().map(|&p| p.into()).collect(),
            choices,
            fdr: 0.05,
            comparisons,
        }
    }

    fn one(measured: &[Measured]) -> Choice {
        let (c, _) = choices_under(measured, "50us@0", &Bootstrap::default());
        assert_eq!(c.len(), 1);
        c.into_iter().next().unwrap()
    }

    #[test]
    fn a_significant_winner_is_chosen() {
        let c = one(&[
            m("default", "50us@0", 8, 60e-6, 1e-6, 30),
            m("ring", "50us@0", 8, 50e-6, 1e-6, 30),
            m("linear", "50us@0", 8, 70e-6, 1e-6, 30),
        ]);
        assert_eq!((c.chosen.as_str(), c.significant), ("ring", true), "{c:?}");
        assert_eq!(c.chosen_value, Some(4));
        assert!((c.gain_s.unwrap() - 10e-6).abs() < 1e-12);
        assert!(c.gain_ci_lo_s.unwrap() > 0.0 && c.p_value.unwrap() < 0.05);
        assert!(c.kept_default_because.is_empty());
        assert_eq!(c.chosen_fingerprint.as_deref(), Some("fp-ring"));
    }

    #[test]
    fn an_insignificant_gain_keeps_the_default() {
        // 0.2 us faster with ±20 us spread over 8 repetitions: no interval excludes 0.
        let c = one(&[
            m("default", "50us@0", 8, 60e-6, 20e-6, 8),
            m("ring", "50us@0", 8, 59.8e-6, 20e-6, 8),
        ]);
        assert_eq!(c.fastest, "ring");
        assert_eq!(
            (c.chosen.as_str(), c.significant),
            ("default", false),
            "{c:?}"
        );
        assert_eq!(c.chosen_value, None);
        assert!(c.gain_ci_lo_s.unwrap() <= 0.0, "{c:?}");
        assert_eq!(
            c.kept_default_because,
            "not significantly faster than default"
        );
    }

    #[test]
    fn a_tie_keeps_the_default() {
        let c = one(&[
            m("ring", "50us@0", 8, 60e-6, 1e-6, 30),
            m("default", "50us@0", 8, 60e-6, 1e-6, 30),
        ]);
        assert_eq!(
            (c.fastest.as_str(), c.chosen.as_str()),
            ("default", "default")
        );
        assert_eq!(c.kept_default_because, "default is the fastest");
    }

    #[test]
    fn too_few_repetitions_or_no_default_keep_the_default() {
        let c = one(&[
            m("default", "50us@0", 8, 60e-6, 1e-6, 3),
            m("ring", "50us@0", 8, 10e-6, 1e-6, 30),
        ]);
        assert_eq!(c.chosen, "default");
        assert!(c.kept_default_because.starts_with("too few valid"), "{c:?}");
        let c = one(&[m("ring", "50us@0", 8, 10e-6, 1e-6, 30)]);
        assert_eq!(c.chosen, "default");
        assert!(c.kept_default_because.contains("nothing to beat"));
    }

    #[test]
    fn the_false_discovery_rate_counts_every_comparison() {
        // One configuration with a small but clear gain alone is kept; among many
        // configurations without any gain its p-value must pass a stricter threshold.
        let boot = Bootstrap::default();
        let small = [
            m("default", "50us@0", 8, 60e-6, 3e-6, 12),
            m("ring", "50us@0", 8, 57.5e-6, 3e-6, 12),
        ];
        let (alone, n) = choices_under(&small, "50us@0", &boot);
        assert_eq!(n, 1);
        let mut many = small.to_vec();
        for k in 1..40u64 {
            many.push(m("default", "50us@0", 8 << k, 60e-6, 3e-6, 12));
            many.push(m("ring", "50us@0", 8 << k, 60e-6, 3e-6, 12));
        }
        let (crowd, n) = choices_under(&many, "50us@0", &boot);
        assert_eq!(n, 40);
        let first = crowd.iter().find(|c| c.bytes == 8).unwrap();
        // Same interval, same p-value; only the decision over the family differs.
        assert_eq!(first.p_value, alone[0].p_value);
        assert!(alone[0].significant, "{:?}", alone[0]);
        assert!(!first.significant, "{first:?}");
    }

    #[test]
    fn the_balanced_choice_stands_beside_the_pattern() {
        let s = Sweep {
            measured: vec![
                m("default", "balanced", 8, 10e-6, 0.5e-6, 30),
                m("ring", "balanced", 8, 12e-6, 0.5e-6, 30),
                m("default", "50us@0", 8, 60e-6, 1e-6, 30),
                m("ring", "50us@0", 8, 52e-6, 1e-6, 30),
            ],
            ..Sweep::default()
        };
        let t = choose(&s, None, &Bootstrap::default()).unwrap();
        assert_eq!(t.pattern, "50us@0");
        assert_eq!(t.choices[0].chosen, "ring");
        assert_eq!(t.choices[0].balanced_choice, "default");
        let b = choose(&s, Some("balanced"), &Bootstrap::default()).unwrap();
        assert_eq!(b.choices[0].chosen, "default");
        assert_eq!(b.choices[0].balanced_choice, "");
    }
}
