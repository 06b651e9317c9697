//! From choices at measured points to rules over ranges. Between two measured message sizes
//! (or process counts) the boundary is their midpoint in log space, the geometric mean:
//! message costs grow about linearly in log size between measured points, so a size is
//! ruled by the measured size it is closer to by ratio (1 KiB is closer to 64 B · 16 than to
//! 64 KiB / 64). A size exactly at the midpoint goes to the larger one. Beyond the largest
//! measured size or P, and below the smallest, nothing was measured: by default the library
//! keeps its own choice there ([`Extrapolation::Stop`]); [`Extrapolation::Extend`] stretches
//! the nearest rule instead, and says so in a warning and in the file.

use super::choice::{Choice, Tuning};
use crate::plan::Op;

/// What the rules say outside the measured sizes and process counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Extrapolation {
    /// The library's own choice (no rule).
    Stop,
    /// The nearest measured rule, with a warning and a comment.
    Extend,
}

/// One rule: an inclusive range of P and of message sizes (bytes), and its algorithm.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub op: Op,
    pub p_lo: u32,
    /// `None`: no upper end.
    pub p_hi: Option<u32>,
    pub size_lo: u64,
    /// `None`: no upper end.
    pub size_hi: Option<u64>,
    /// The algorithm's name (`default`: the library's own choice).
    pub algorithm: String,
    /// Its value in the sweep (`None`: default or simulated).
    pub value: Option<i32>,
    /// Index of the choice in the tuning it comes from; `None` for a range outside the
    /// measured ones left to the library ([`Extrapolation::Stop`]).
    pub choice: Option<usize>,
    /// True when the range reaches beyond what was measured ([`Extrapolation::Extend`]).
    pub extrapolated: bool,
}

/// The rules of one op at one P range, in size order, covering 0 upwards.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleSet {
    pub op: Op,
    pub p_lo: u32,
    pub p_hi: Option<u32>,
    pub rules: Vec<Rule>,
}

/// The smallest integer x with x² ≥ a·b: the boundary between a and b at their midpoint
/// in log space, ties to the larger.
fn log_midpoint(a: u64, b: u64) -> u64 {
    let prod = a as u128 * b as u128;
    let mut x = (prod as f64).sqrt() as u128;
    while x * x < prod {
        x += 1;
    }
    while x > 0 && (x - 1) * (x - 1) >= prod {
        x -= 1;
    }
    x as u64
}

/// Inclusive ranges [lo, hi] for the sorted distinct `points`, split at log midpoints; the
/// first starts at the first point, the last ends at the last.
fn split(points: &[u64]) -> Vec<(u64, u64)> {
    (0..points.len())
        .map(|i| {
            let lo = if i == 0 {
                points[0]
            } else {
                log_midpoint(points[i - 1], points[i])
            };
            let hi = if i + 1 == points.len() {
                points[i]
            } else {
                log_midpoint(points[i], points[i + 1]) - 1
            };
            (lo, hi)
        })
        .collect()
}

/// The rule sets of `tuning`, per op and P range, with `outside` for what lies beyond the
/// measured ones. Warnings (what was extended) are pushed on `warnings`.
pub fn rules_of(
    tuning: &Tuning,
    outside: Extrapolation,
    warnings: &mut Vec<String>,
) -> Vec<RuleSet> {
    let mut ops: Vec<Op> = Vec::new();
    for c in &tuning.choices {
        if !ops.contains(&c.op) {
            ops.push(c.op);
        }
    }
    let extend = outside == Extrapolation::Extend;
    let mut out = Vec::new();
    for op in ops {
        let of_op: Vec<(usize, &Choice)> = tuning
            .choices
            .iter()
            .enumerate()
            .filter(|(_, c)| c.op == op)
            .collect();
        let mut ps: Vec<u64> = of_op.iter().map(|(_, c)| c.nprocs as u64).collect();
        ps.sort_unstable();
        ps.dedup();
        let p_ranges = split(&ps);
        if ps[0] > 1 && !extend {
            out.push(library_set(op, 1, Some(ps[0] as u32 - 1)));
        }
        for (k, (&p, &(p_lo, p_hi))) in ps.iter().zip(&p_ranges).enumerate() {
            let last_p = k + 1 == ps.len();
            let p_lo = if k == 0 && extend { 1 } else { p_lo as u32 };
            let p_hi = if last_p && extend {
                None
            } else {
                Some(p_hi as u32)
            };
            if extend && (k == 0 && ps[0] > 1 || last_p) {
                warnings.push(format!(
                    "{op}: the rules measured at P = {p} extend to P {} (not measured)",
                    if last_p {
                        format!("> {p}")
                    } else {
                        format!("< {p}")
                    }
                ));
            }
            let mut at: Vec<(usize, &Choice)> = of_op
                .iter()
                .copied()
                .filter(|(_, c)| c.nprocs as u64 == p)
                .collect();
            at.sort_by_key(|(_, c)| c.bytes);
            let sizes: Vec<u64> = at.iter().map(|(_, c)| c.bytes).collect();
            let mut rules = Vec::new();
            let rule = |i: Option<usize>, c: Option<&Choice>, lo, hi, ext| Rule {
                op,
                p_lo,
                p_hi,
                size_lo: lo,
                size_hi: hi,
                algorithm: c.map_or_else(|| "default".into(), |c| c.chosen.clone()),
                value: c.and_then(|c| c.chosen_value),
                choice: i,
                extrapolated: ext || (extend && (k == 0 && ps[0] > 1 || last_p)),
            };
            if !op.has_payload() {
                // No message size: one rule for every size.
                let (i, c) = at[0];
                rules.push(rule(Some(i), Some(c), 0, None, false));
            } else {
                if sizes[0] > 0 && !extend {
                    rules.push(rule(None, None, 0, Some(sizes[0] - 1), false));
                }
                let ranges = split(&sizes);
                for (j, ((i, c), (lo, hi))) in at.iter().zip(ranges).enumerate() {
                    let first = j == 0;
                    let last = j + 1 == at.len();
                    let lo = if first && extend { 0 } else { lo };
                    let hi = if last && extend { None } else { Some(hi) };
                    let ext = extend && ((first && sizes[0] > 0) || last);
                    if ext {
                        warnings.push(format!(
                            "{op} at P = {p}: the rule measured at {} B extends {} (not measured)",
                            c.bytes,
                            if last && first && sizes[0] > 0 {
                                "to every size".to_string()
                            } else if last {
                                format!("beyond {} B", c.bytes)
                            } else {
                                format!("below {} B", c.bytes)
                            }
                        ));
                    }
                    rules.push(rule(Some(*i), Some(c), lo, hi, ext));
                }
                if !extend {
                    let top = *sizes.last().unwrap() + 1;
                    rules.push(rule(None, None, top, None, false));
                }
            }
            out.push(RuleSet {
                op,
                p_lo,
                p_hi,
                rules,
            });
        }
        if !extend {
            out.push(library_set(op, *ps.last().unwrap() as u32 + 1, None));
        }
    }
    out
}

/// A P range left to the library: one rule, `default`, for every size.
fn library_set(op: Op, p_lo: u32, p_hi: Option<u32>) -> RuleSet {
    RuleSet {
        op,
        p_lo,
        p_hi,
        rules: vec![Rule {
            op,
            p_lo,
            p_hi,
            size_lo: 0,
            size_hi: None,
            algorithm: "default".into(),
            value: None,
            choice: None,
            extrapolated: false,
        }],
    }
}

/// Gives every choice of `tuning` the ranges its rule in `sets` covers.
pub fn annotate(tuning: &mut Tuning, sets: &[RuleSet]) {
    for r in sets.iter().flat_map(|s| &s.rules) {
        if let Some(c) = r.choice.and_then(|i| tuning.choices.get_mut(i)) {
            c.p_lo = Some(r.p_lo);
            c.p_hi = r.p_hi;
            c.size_lo = Some(r.size_lo);
            c.size_hi = r.size_hi;
        }
    }
}

impl RuleSet {
    /// The rule of message size `bytes` (the set covers every size from 0).
    pub fn rule_at(&self, bytes: u64) -> &Rule {
        self.rules
            .iter()
            .find(|r| r.size_lo <= bytes && r.size_hi.is_none_or(|h| bytes <= h))
            .expect("a rule set covers every size")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tuning::choice::tests::{m, tuned};

    fn tuning(points: &[(u32, u64, &str)]) -> Tuning {
        let mut measured = Vec::new();
        for &(p, bytes, winner) in points {
            let mut d = m("default", "x", bytes, 60e-6, 1e-6, 30);
            let mut w = m(winner, "x", bytes, 50e-6, 1e-6, 30);
            d.nprocs = p;
            w.nprocs = p;
            measured.push(d);
            if winner != "default" {
                measured.push(w);
            }
        }
        tuned(&measured, "x", &["x"])
    }

    #[test]
    fn boundaries_lie_at_log_midpoints() {
        assert_eq!(log_midpoint(8, 1024), 91); // 90.5...
        assert_eq!(log_midpoint(1024, 65536), 8192); // exact: to the larger
        assert_eq!(log_midpoint(2, 4), 3); // 2.83
        assert_eq!(
            split(&[8, 1024, 65536]),
            [(8, 90), (91, 8191), (8192, 65536)]
        );
    }

    #[test]
    fn rules_cover_measured_ranges_and_stop_outside_them() {
        let t = tuning(&[
            (2, 8, "ring"),
            (2, 1024, "default"),
            (4, 8, "linear"),
            (4, 65536, "ring"),
        ]);
        let mut w = Vec::new();
        let sets = rules_of(&t, Extrapolation::Stop, &mut w);
        assert!(w.is_empty(), "{w:?}");
        // P 1 to the library, P = 2 (2), P = 4 (3..4), P >= 5 to the library.
        let ps: Vec<(u32, Option<u32>)> = sets.iter().map(|s| (s.p_lo, s.p_hi)).collect();
        assert_eq!(ps, [(1, Some(1)), (2, Some(2)), (3, Some(4)), (5, None)]);
        let p2 = &sets[1];
        assert_eq!(p2.rule_at(0).algorithm, "default");
        assert_eq!(p2.rule_at(0).choice, None);
        assert_eq!(p2.rule_at(8).algorithm, "ring");
        assert_eq!(p2.rule_at(90).algorithm, "ring");
        assert_eq!(p2.rule_at(91).algorithm, "default");
        assert_eq!(p2.rule_at(91).choice, Some(1));
        assert_eq!(p2.rule_at(1025).choice, None, "no silent extrapolation");
        let p4 = &sets[2];
        assert_eq!(p4.rule_at(724).algorithm, "linear"); // sqrt(8 * 65536) = 724.08
        assert_eq!(p4.rule_at(725).algorithm, "ring");
        assert_eq!(p4.rule_at(1 << 20).choice, None);
        assert!(sets.iter().flat_map(|s| &s.rules).all(|r| !r.extrapolated));
    }

    #[test]
    fn extending_says_so() {
        let t = tuning(&[(2, 8, "ring"), (2, 1024, "linear")]);
        let mut w = Vec::new();
        let sets = rules_of(&t, Extrapolation::Extend, &mut w);
        assert_eq!(sets.len(), 1);
        assert_eq!((sets[0].p_lo, sets[0].p_hi), (1, None));
        assert_eq!(sets[0].rule_at(0).algorithm, "ring");
        assert_eq!(sets[0].rule_at(1 << 30).algorithm, "linear");
        assert!(sets[0].rules.iter().all(|r| r.extrapolated));
        assert!(w.iter().any(|w| w.contains("beyond 1024 B")), "{w:?}");
        assert!(w.iter().any(|w| w.contains("below 8 B")), "{w:?}");
        assert!(w.iter().any(|w| w.contains("P > 2")), "{w:?}");
    }
}
