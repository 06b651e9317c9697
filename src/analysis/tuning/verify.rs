//! Whether the library obeys a written tuning file, rule by rule, by behaviour: a launch
//! with `--algorithm-from-env` under the file records, per (op, P), the fingerprint of one
//! order-sensitive reduction (docs/algorithms.md), which is compared with the fingerprint
//! the sweep recorded for the rule's algorithm at that P.
//!
//! The fingerprint reduction has a fixed size ([`FINGERPRINT_BYTES`]), so under the real
//! file it runs the rule covering that size only. Each other rule is checked under a probe
//! file ([`probe_sets`]) that gives the rule's line every message size of its P range; the
//! real file's launch shows that the file as written loads and that its ranges are looked
//! up as written, and the lookup of every size is checked against a port of the library's
//! reader (`OpenMpiLookup`, unit tests).

use super::ranges::{Rule, RuleSet};
use super::sweep::Sweep;
use super::Tuning;
use crate::plan::algorithms::DEFAULT_NAME;
use crate::plan::Op;
use serde::Serialize;

/// Bytes of the fingerprint reduction: 1024 f64 (`run/algorithms.rs`).
pub const FINGERPRINT_BYTES: u64 = 8 * 1024;

/// The probe sets of rule `k`: every set's `k`-th measured rule (its last when it has
/// fewer) over every size; sets without a measured rule are kept. Returns them and the
/// measured rule each probes.
pub fn probe_sets(sets: &[RuleSet], k: usize) -> (Vec<RuleSet>, Vec<Rule>) {
    let mut probed = Vec::new();
    let out = sets
        .iter()
        .map(|s| {
            let measured: Vec<&Rule> = s.rules.iter().filter(|r| r.choice.is_some()).collect();
            let Some(r) = measured.get(k.min(measured.len().saturating_sub(1))) else {
                return s.clone();
            };
            probed.push((*r).clone());
            RuleSet {
                rules: vec![Rule {
                    size_lo: 0,
                    size_hi: None,
                    ..(*r).clone()
                }],
                ..s.clone()
            }
        })
        .collect();
    (out, probed)
}

/// How many probe launches check every measured rule: the most measured rules of a set.
pub fn probes_needed(sets: &[RuleSet]) -> usize {
    sets.iter()
        .map(|s| s.rules.iter().filter(|r| r.choice.is_some()).count())
        .max()
        .unwrap_or(0)
}

/// The verdict on one rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The fingerprint is the rule's algorithm's, and differs from the library's own choice.
    Obeyed,
    /// The fingerprint is the rule's algorithm's, which the library's own choice shares: the
    /// reduction cannot tell them apart.
    Indistinguishable,
    /// Another fingerprint: the library did not run the rule's algorithm.
    Ignored,
    /// No fingerprint: the kernel computes nothing (bcast, barrier).
    Unverifiable,
}

/// One rule checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleCheck {
    pub op: Op,
    /// The P the launch ran at (the measured P of the rule's range).
    pub nprocs: u32,
    pub size_lo: u64,
    pub size_hi: Option<u64>,
    pub algorithm: String,
    /// `file` (the file as written, at the fingerprint's size) or `probe N`.
    pub launch: String,
    pub expected: Option<String>,
    pub observed: Option<String>,
    pub verdict: Verdict,
    pub why: String,
}

/// The sweep's fingerprint of `algorithm` for `op` at P.
fn swept(sweep: &Sweep, op: Op, p: u32, algorithm: &str) -> Option<String> {
    sweep
        .measured
        .iter()
        .filter(|m| m.op == op && m.nprocs == p && m.algorithm == algorithm)
        .find_map(|m| m.fingerprint.clone())
}

/// Checks the rules a launch exercised: `probe` `None` for the file as written (the rule
/// covering [`FINGERPRINT_BYTES`] of each set), `Some(k)` for probe `k`
/// ([`probe_sets`]); `observed` holds the launch's (op, P, fingerprint) per block.
pub fn check_rules(
    sweep: &Sweep,
    tuning: &Tuning,
    sets: &[RuleSet],
    probe: Option<usize>,
    observed: &[(Op, u32, Option<String>)],
) -> Vec<RuleCheck> {
    let rules: Vec<Rule> = match probe {
        Some(k) => probe_sets(sets, k).1,
        None => sets
            .iter()
            .filter(|s| s.rules.iter().any(|r| r.choice.is_some()))
            .map(|s| s.rule_at(FINGERPRINT_BYTES).clone())
            .collect(),
    };
    let launch = probe.map_or_else(|| "file".to_string(), |k| format!("probe {}", k + 1));
    let mut out = Vec::new();
    for r in rules {
        // The P the launch ran this range at: the measured one.
        let Some(p) = sets
            .iter()
            .find(|s| s.op == r.op && s.p_lo == r.p_lo && s.p_hi == r.p_hi)
            .and_then(|s| s.rules.iter().find_map(|x| x.choice))
            .map(|i| tuning.choices[i].nprocs)
        else {
            continue;
        };
        let expected = swept(sweep, r.op, p, &r.algorithm);
        let default = swept(sweep, r.op, p, DEFAULT_NAME);
        let seen = observed
            .iter()
            .find(|(op, q, _)| *op == r.op && *q == p)
            .map(|o| o.2.clone());
        let (verdict, why) = match (&seen, &expected) {
            (None, _) => (
                Verdict::Ignored,
                format!("the launch measured no {} block at P = {p}", r.op),
            ),
            (Some(None), _) | (_, None) if !r.op.is_reduction() => (
                Verdict::Unverifiable,
                format!("{} computes nothing, so it has no fingerprint", r.op),
            ),
            (Some(None), _) => (
                Verdict::Ignored,
                "the launch recorded no fingerprint".into(),
            ),
            (_, None) => (
                Verdict::Unverifiable,
                format!(
                    "the sweep recorded no fingerprint of {} at P = {p}",
                    r.algorithm
                ),
            ),
            (Some(Some(o)), Some(e)) if o == e => {
                if r.algorithm != DEFAULT_NAME && default.as_ref() == Some(e) {
                    (
                        Verdict::Indistinguishable,
                        format!(
                            "{} adds in the order of the library's own choice",
                            r.algorithm
                        ),
                    )
                } else {
                    (Verdict::Obeyed, String::new())
                }
            }
            (Some(Some(o)), Some(_)) => {
                let ran = sweep
                    .measured
                    .iter()
                    .find(|m| m.op == r.op && m.nprocs == p && m.fingerprint.as_ref() == Some(o))
                    .map(|m| m.algorithm.clone());
                (
                    Verdict::Ignored,
                    match ran {
                        Some(a) if a == DEFAULT_NAME => "the library ran its own choice: the file \
                            was not loaded or this rule not applied"
                            .into(),
                        Some(a) => format!("the library ran {a} instead"),
                        None => "the library ran an algorithm the sweep did not measure".into(),
                    },
                )
            }
        };
        out.push(RuleCheck {
            op: r.op,
            nprocs: p,
            size_lo: r.size_lo,
            size_hi: r.size_hi,
            algorithm: r.algorithm.clone(),
            launch: launch.clone(),
            expected,
            observed: seen.flatten(),
            verdict,
            why,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tuning::choice::tests::{m, tuned};
    use crate::analysis::tuning::{rules_of, Extrapolation};

    fn setup() -> (Sweep, Tuning, Vec<RuleSet>) {
        let s = Sweep {
            measured: vec![
                m("default", "x", 8, 60e-6, 1e-6, 30),
                m("ring", "x", 8, 50e-6, 1e-6, 30),
                m("default", "x", 65536, 60e-6, 1e-6, 30),
                m("linear", "x", 65536, 70e-6, 1e-6, 30),
            ],
            ..Sweep::default()
        };
        let t = tuned(&s.measured, "x", &["x"]);
        let sets = rules_of(&t, Extrapolation::Stop, &mut Vec::new());
        (s, t, sets)
    }

    #[test]
    fn fingerprints_decide_each_rule() {
        let (s, t, sets) = setup();
        assert_eq!(probes_needed(&sets), 2);
        // Probe 1 runs ring at P = 4 everywhere.
        let ok = check_rules(
            &s,
            &t,
            &sets,
            Some(0),
            &[(Op::Allreduce, 4, Some("fp-ring".into()))],
        );
        assert_eq!(ok.len(), 1);
        assert_eq!(
            (ok[0].algorithm.as_str(), ok[0].verdict),
            ("ring", Verdict::Obeyed)
        );
        let bad = check_rules(
            &s,
            &t,
            &sets,
            Some(0),
            &[(Op::Allreduce, 4, Some("fp-default".into()))],
        );
        assert_eq!(bad[0].verdict, Verdict::Ignored);
        assert!(bad[0].why.contains("its own choice"), "{:?}", bad[0]);
        // The file as written: 8 KiB falls in the 64 KiB rule (from 724 B), kept at default.
        let file = check_rules(
            &s,
            &t,
            &sets,
            None,
            &[(Op::Allreduce, 4, Some("fp-default".into()))],
        );
        assert_eq!(
            (file[0].algorithm.as_str(), file[0].verdict),
            ("default", Verdict::Obeyed)
        );
        let missing = check_rules(&s, &t, &sets, None, &[]);
        assert_eq!(missing[0].verdict, Verdict::Ignored);
    }

    #[test]
    fn a_kernel_without_fingerprint_is_unverifiable() {
        let (mut s, mut t, _) = setup();
        for x in &mut s.measured {
            x.op = Op::Bcast;
            x.fingerprint = None;
        }
        for c in &mut t.choices {
            c.op = Op::Bcast;
        }
        let sets = rules_of(&t, Extrapolation::Stop, &mut Vec::new());
        let c = check_rules(&s, &t, &sets, Some(0), &[(Op::Bcast, 4, None)]);
        assert_eq!(c[0].verdict, Verdict::Unverifiable);
    }
}
