//! Open MPI 4.1's `coll_tuned` dynamic rules file (`coll_tuned_use_dynamic_rules=1`,
//! `coll_tuned_dynamic_rules_filename=FILE`), as ompi/mca/coll/tuned/coll_tuned_dynamic_file.c
//! of v4.1.4 reads it: whitespace-separated integers, `#` to the end of a line a comment
//! (`ompi_coll_base_file_getnext_long` skips it), no version line (v4.1.4 reads none; v4.1.8
//! and later accept its absence): the number of collectives; per collective its id, the
//! number of communicator sizes; per size the size and the number of message sizes; per
//! message size `size algorithm fan-in/out segment-size`. The library takes the last
//! communicator size ≤ P (the first when all are larger) and the last message size ≤ the
//! call's (`coll_tuned_dynamic_rules.c`); the first message size must be 0; algorithm 0
//! falls back to the library's fixed decision, which is how a range is left to the library.
//! A rules file that fails to parse is dropped by Open MPI with a message only a debug
//! build prints, so the verification checks the behaviour, not the log.

use super::names::{library_algorithm, openmpi_coll_id, TuneLibrary};
use super::ranges::{Rule, RuleSet};
use super::{TuneError, Tuning};
use crate::plan::Op;
use std::fmt::Write;

/// Fan-in/out written with every rule: 4 is Open MPI 4.1's default of
/// `coll_tuned_<op>_algorithm_tree_fanout` and `_chain_fanout` (`coll_tuned_init_*_fanout`),
/// which a forced algorithm of the sweep ran with (the sweep does not record these MPI_T
/// variables, so their defaults are assumed).
const FANINOUT: u32 = 4;
/// Segment size written with every rule: the default of `coll_tuned_<op>_algorithm_segmentsize`.
const SEGSIZE: u32 = 0;

fn us(s: Option<f64>) -> String {
    s.map_or_else(|| "-".into(), |s| format!("{:.2} us", s * 1e6))
}

/// What chose `rule`, for its comment: the algorithm, the medians, the gain with its
/// interval and p-value, and the run ids.
pub(super) fn why(rule: &Rule, tuning: &Tuning) -> String {
    let range = match rule.size_hi {
        Some(h) => format!("{}..{} B", rule.size_lo, h),
        None => format!("{} B and up", rule.size_lo),
    };
    let Some(c) = rule.choice.map(|i| &tuning.choices[i]) else {
        return format!("{range}: the library's own choice (not measured)");
    };
    let mut s = format!(
        "{range}: {} (measured at {} B, P = {}, pattern {}): median {} vs default {}",
        rule.algorithm,
        c.bytes,
        c.nprocs,
        c.pattern,
        us(c.chosen_median_s),
        us(c.default_median_s)
    );
    if let (Some(g), Some(lo), Some(hi)) = (c.gain_s, c.gain_ci_lo_s, c.gain_ci_hi_s) {
        let _ = write!(
            s,
            "; fastest {} gains {:.2} us [{:.2}, {:.2}], p = {:.3}",
            c.fastest,
            g * 1e6,
            lo * 1e6,
            hi * 1e6,
            c.p_value.unwrap_or(f64::NAN)
        );
    }
    if !c.kept_default_because.is_empty() {
        let _ = write!(s, "; default kept: {}", c.kept_default_because);
    }
    if rule.extrapolated {
        s.push_str("; EXTENDED beyond the measured sizes or P (--outside extend)");
    }
    let _ = write!(s, "; runs {}", c.run_ids);
    s
}

/// The rules file of `sets` (from [`super::rules_of`] of `tuning`); `simulated`: the
/// algorithm names are SimGrid's. One `#` comment per rule says what chose it.
///
/// Errors: [`TuneError::Unmapped`] for an op the file cannot hold or an algorithm without a
/// number.
pub fn openmpi_rules(
    sets: &[RuleSet],
    tuning: &Tuning,
    simulated: bool,
) -> Result<String, TuneError> {
    let mut ops: Vec<Op> = Vec::new();
    for s in sets {
        if !ops.contains(&s.op) {
            ops.push(s.op);
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Open MPI 4.1 coll_tuned dynamic rules written by delaybench tune for the arrival \
         pattern `{}`.\n# Launch with OMPI_MCA_coll_tuned_use_dynamic_rules=1 \
         OMPI_MCA_coll_tuned_dynamic_rules_filename=<this file>.\n# Algorithm 0: the \
         library's own (fixed) decision. Fan-in/out {FANINOUT} and segment size {SEGSIZE}: \
         Open MPI's defaults, which the sweep's forced algorithms ran with.",
        tuning.pattern
    );
    let _ = writeln!(out, "{}  # collectives", ops.len());
    for op in ops {
        let id = openmpi_coll_id(op).ok_or_else(|| {
            TuneError::Unmapped(format!(
                "{op}: Open MPI's rules file holds coll_tuned's blocking collectives; tune \
                 writes allreduce, bcast, reduce and barrier (drop {op} with --op)"
            ))
        })?;
        let of_op: Vec<&RuleSet> = sets.iter().filter(|s| s.op == op).collect();
        let _ = writeln!(out, "{id}  # {op}: collective id");
        let _ = writeln!(out, "{}  # communicator sizes", of_op.len());
        for set in of_op {
            let p = match set.p_hi {
                Some(h) => format!("P {}..{h}", set.p_lo),
                None => format!("P {} and up", set.p_lo),
            };
            let _ = writeln!(out, "{}  # {p}", set.p_lo);
            let _ = writeln!(out, "{}  # message sizes", set.rules.len());
            for r in &set.rules {
                let alg =
                    library_algorithm(TuneLibrary::Openmpi, op, &r.algorithm, r.value, simulated)?;
                let _ = writeln!(
                    out,
                    "{} {} {FANINOUT} {SEGSIZE}  # {}",
                    r.size_lo,
                    alg.openmpi,
                    why(r, tuning)
                );
            }
        }
    }
    Ok(out)
}

/// The probe file of rule `k`: every P range's `k`-th measured rule (its last when it has
/// fewer) for every message size, so that the verification's fingerprint reduction, whose
/// size is fixed, runs that rule's algorithm. Returns the file and, per P range, the rule.
///
/// Errors: as [`openmpi_rules`].
pub fn openmpi_rules_for_probe(
    sets: &[RuleSet],
    tuning: &Tuning,
    simulated: bool,
    k: usize,
) -> Result<(String, Vec<Rule>), TuneError> {
    let (probe, rules) = super::verify::probe_sets(sets, k);
    Ok((openmpi_rules(&probe, tuning, simulated)?, rules))
}

/// A rules file read back as Open MPI 4.1.4 reads it, and its lookup: used to check what a
/// written file selects, independently of the writer.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenMpiLookup {
    /// Per collective id: per communicator size (in file order) its message rules.
    pub rules: Vec<(i64, Vec<CommRule>)>,
}

/// A communicator size and its message rules (message size, algorithm), in file order.
pub type CommRule = (i64, Vec<(i64, i64)>);

impl OpenMpiLookup {
    /// Parses `text` with the reader's rules (`#` comments, integers, anything else skipped).
    ///
    /// Errors: a message naming what was missing, as Open MPI would drop the file.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut nums = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or(""))
            .flat_map(|l| l.split(|c: char| !c.is_ascii_digit()))
            .filter(|t| !t.is_empty())
            .map(|t| t.parse::<i64>().map_err(|e| e.to_string()));
        let mut next = |what: &str| -> Result<i64, String> {
            nums.next().ok_or_else(|| format!("missing {what}"))?
        };
        let mut rules = Vec::new();
        for _ in 0..next("collective count")? {
            let id = next("collective id")?;
            let mut coms = Vec::new();
            for _ in 0..next("communicator count")? {
                let size = next("communicator size")?;
                let mut msgs = Vec::new();
                for n in 0..next("message count")? {
                    let m = next("message size")?;
                    if n == 0 && m != 0 {
                        return Err("the first message size must be 0".into());
                    }
                    let alg = next("algorithm")?;
                    next("fan-in/out")?;
                    next("segment size")?;
                    msgs.push((m, alg));
                }
                coms.push((size, msgs));
            }
            rules.push((id, coms));
        }
        Ok(OpenMpiLookup { rules })
    }

    /// The algorithm Open MPI runs for collective `id` on a communicator of `p` ranks and a
    /// message of `bytes`: `None` without a rule, `Some(0)` for its fixed decision.
    pub fn algorithm(&self, id: i64, p: i64, bytes: i64) -> Option<i64> {
        let (_, coms) = self.rules.iter().find(|r| r.0 == id)?;
        let mut best = coms.first()?;
        for c in coms {
            if c.0 > p {
                break;
            }
            best = c;
        }
        let mut alg = best.1.first()?.1;
        for &(m, a) in &best.1 {
            if m > bytes {
                break;
            }
            alg = a;
        }
        Some(alg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tuning::choice::tests::{m, tuned};
    use crate::analysis::tuning::{rules_of, Extrapolation};

    fn tuning() -> Tuning {
        let mut measured = Vec::new();
        for (p, bytes, winner, value) in [
            (2, 8, "ring", 4),
            (2, 65536, "rabenseifner", 6),
            (4, 8, "recursive_doubling", 3),
            (4, 65536, "default", 0),
        ] {
            let mut d = m("default", "50us@0", bytes, 60e-6, 1e-6, 30);
            d.nprocs = p;
            measured.push(d);
            if winner != "default" {
                let mut w = m(winner, "50us@0", bytes, 50e-6, 1e-6, 30);
                w.nprocs = p;
                w.value = Some(value);
                measured.push(w);
            }
        }
        tuned(&measured, "50us@0", &["balanced", "50us@0"])
    }

    #[test]
    fn the_written_file_selects_what_was_chosen_where_it_was_measured() {
        let t = tuning();
        let sets = rules_of(&t, Extrapolation::Stop, &mut Vec::new());
        let text = openmpi_rules(&sets, &t, false).unwrap();
        assert!(text.starts_with('#') && !text.contains("rule-file-version"));
        // Every rule line carries what chose it.
        assert!(
            text.contains("ring (measured at 8 B, P = 2, pattern 50us@0)"),
            "{text}"
        );
        assert!(text.contains("runs run-a"), "{text}");
        let l = OpenMpiLookup::parse(&text).unwrap();
        assert_eq!(l.rules.len(), 1);
        let alg = |p, b| l.algorithm(2, p, b).unwrap();
        assert_eq!(alg(2, 8), 4);
        assert_eq!(alg(2, 724), 4); // sqrt(8 * 65536) = 724.08
        assert_eq!(alg(2, 725), 6);
        assert_eq!(alg(2, 65536), 6);
        assert_eq!(
            alg(2, 65537),
            0,
            "beyond the largest size: the library's choice"
        );
        assert_eq!(
            alg(2, 7),
            0,
            "below the smallest size: the library's choice"
        );
        assert_eq!(alg(3, 8), 3, "P = 3 is nearer 4 than 2 in log space");
        assert_eq!(alg(4, 65536), 0, "default kept");
        assert_eq!(alg(5, 8), 0, "beyond the largest P: the library's choice");
        assert_eq!(alg(1, 8), 0);
    }

    #[test]
    fn a_probe_file_runs_one_rule_at_every_size() {
        let t = tuning();
        let sets = rules_of(&t, Extrapolation::Stop, &mut Vec::new());
        let (text, rules) = openmpi_rules_for_probe(&sets, &t, false, 1).unwrap();
        let l = OpenMpiLookup::parse(&text).unwrap();
        // The fingerprint's 8 KiB reduction at P = 2 runs the 64 KiB rule.
        assert_eq!(l.algorithm(2, 2, 8192), Some(6));
        assert_eq!(l.algorithm(2, 4, 8192), Some(0));
        assert!(rules.iter().any(|r| r.algorithm == "rabenseifner"));
    }

    #[test]
    fn an_op_outside_the_file_is_refused() {
        let mut t = tuning();
        for c in &mut t.choices {
            c.op = Op::Iallreduce;
        }
        let sets = rules_of(&t, Extrapolation::Stop, &mut Vec::new());
        let e = openmpi_rules(&sets, &t, false).unwrap_err().to_string();
        assert!(e.contains("blocking collectives"), "{e}");
    }
}
