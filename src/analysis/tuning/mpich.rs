//! MPICH 4.0's collective selection JSON (`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`), as
//! src/mpi/coll/src/csel.c of v4.0.2 reads it: nested objects whose keys are tests
//! (`collective=allreduce`, `comm_type=intra`, `comm_size<=4`, `avg_msg_size<=1024`,
//! `comm_size=any`), tried in file order, down to an `algorithm=MPIR_..._intra_...` key.
//! Search does not backtrack (a matched test whose subtree matches nothing aborts), and an
//! unknown key aborts the parse, so every subtree here ends in an `=any` test and every
//! collective the file does not tune keeps MPICH 4.0.2's own tree: the file is MPICH's
//! generic selection (maint/tuning/coll/mpir/generic.json, embedded; Copyright Argonne
//! National Laboratory, redistributed under its COPYRIGHT notice) with the tuned
//! collectives' intra-communicator trees put in front of MPICH's, which they fall back to
//! outside the measured ranges. The reader ignores the keys of an algorithm's object that
//! its parameters do not name, so each rule's `comment` goes there.

use super::names::{library_algorithm, mpich_restrictions, TuneLibrary};
use super::openmpi::why;
use super::ranges::{Rule, RuleSet};
use super::{TuneError, Tuning};
use crate::plan::Op;
use std::fmt::Write;

/// MPICH 4.0.2's own selection tree.
const GENERIC: &str = include_str!("mpich_4.0.2_generic.json");

/// The (key, raw value) pairs of the JSON object starting at `text` (after whitespace), in
/// file order. The file is MPICH's, known to be well formed: strings without escaped quotes
/// at key level are enough, but escapes are honoured anyway.
fn members(text: &str) -> Vec<(&str, &str)> {
    let b = text.as_bytes();
    let mut i = text.find('{').map_or(b.len(), |i| i + 1);
    let mut out = Vec::new();
    loop {
        while i < b.len() && b[i] != b'"' && b[i] != b'}' {
            i += 1;
        }
        if i >= b.len() || b[i] == b'}' {
            return out;
        }
        let key_end = string_end(b, i);
        let key = &text[i + 1..key_end - 1];
        i = key_end;
        while b[i] != b':' {
            i += 1;
        }
        i += 1;
        while b[i].is_ascii_whitespace() {
            i += 1;
        }
        let start = i;
        let mut depth = 0i32;
        loop {
            if depth == 0 && (b[i] == b',' || b[i] == b'}') {
                break;
            }
            match b[i] {
                b'"' => {
                    i = string_end(b, i);
                    if depth == 0 {
                        break;
                    }
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        out.push((key, text[start..i].trim_end()));
    }
}

/// The index after the string that starts with the quote at `i`.
fn string_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

/// A JSON string literal of `s`.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

/// MPICH's own intra-communicator tree of `op`, and the collective's other members.
fn generic_of(op: Op) -> Result<(String, Vec<(String, String)>), TuneError> {
    let key = format!("collective={}", op.name());
    let missing = || TuneError::Unmapped(format!("MPICH 4.0.2's selection has no `{key}`"));
    let (_, tree) = members(GENERIC)
        .into_iter()
        .find(|(k, _)| *k == key)
        .ok_or_else(missing)?;
    let mut intra = None;
    let mut rest = Vec::new();
    for (k, v) in members(tree) {
        if k == "comm_type=intra" {
            intra = Some(v.to_string());
        } else {
            rest.push((k.to_string(), v.to_string()));
        }
    }
    Ok((intra.ok_or_else(missing)?, rest))
}

/// One rule's object: its algorithm with the comment, or MPICH's own tree. An algorithm
/// with conditions ([`mpich_restrictions`]) sits behind MPICH's tests of them, and every
/// call outside them goes to MPICH's own tree, as MPICH's own file does: without them a
/// Rabenseifner allreduce chosen for 8 B aborted MPICH 4.0.2 on a one-element reduction.
fn rule_json(r: &Rule, tuning: &Tuning, simulated: bool, own: &str) -> Result<String, TuneError> {
    let alg = library_algorithm(TuneLibrary::Mpich, r.op, &r.algorithm, r.value, simulated)?;
    if alg.mpich.is_empty() {
        return Ok(own.to_string());
    }
    let mut object = format!(
        "{{{}: {{\"comment\": {}}}}}",
        quoted(&alg.mpich),
        quoted(&why(r, tuning))
    );
    for restriction in mpich_restrictions(r.op, &alg.name).iter().rev() {
        let (admit, other) = restriction.tests();
        object = if restriction.excluded_first() {
            format!("{{{}: {own}, {}: {object}}}", quoted(other), quoted(admit))
        } else {
            format!("{{{}: {object}, {}: {own}}}", quoted(admit), quoted(other))
        };
    }
    Ok(object)
}

/// The selection file of `sets` (from [`super::rules_of`] of `tuning`).
///
/// Errors: [`TuneError::Unmapped`] for an algorithm without an MPICH name.
pub fn mpich_json(sets: &[RuleSet], tuning: &Tuning, simulated: bool) -> Result<String, TuneError> {
    let mut ops: Vec<Op> = Vec::new();
    for s in sets {
        if !ops.contains(&s.op) {
            ops.push(s.op);
        }
    }
    let mut out = String::from("{\n");
    let mut tuned_keys = Vec::new();
    for op in &ops {
        let (own, rest) = generic_of(*op)?;
        let key = format!("collective={}", op.name());
        let _ = writeln!(out, "{}: {{\n \"comm_type=intra\": {{", quoted(&key));
        for set in sets.iter().filter(|s| s.op == *op) {
            let test = match set.p_hi {
                Some(h) => format!("comm_size<={h}"),
                None => "comm_size=any".into(),
            };
            let _ = writeln!(out, "  {}: {{", quoted(&test));
            for r in &set.rules {
                let test = match r.size_hi {
                    Some(h) => format!("avg_msg_size<={h}"),
                    None => "avg_msg_size=any".into(),
                };
                let _ = writeln!(
                    out,
                    "   {}: {},",
                    quoted(&test),
                    rule_json(r, tuning, simulated, &own)?
                );
            }
            if set.rules.last().is_some_and(|r| r.size_hi.is_some()) {
                let _ = writeln!(out, "   \"avg_msg_size=any\": {own},");
            }
            trim_comma(&mut out);
            out.push_str("  },\n");
        }
        if sets
            .iter()
            .filter(|s| s.op == *op)
            .all(|s| s.p_hi.is_some())
        {
            let _ = writeln!(out, "  \"comm_size=any\": {own},");
        }
        trim_comma(&mut out);
        out.push_str(" },\n");
        for (k, v) in rest {
            let _ = writeln!(out, " {}: {v},", quoted(&k));
        }
        trim_comma(&mut out);
        out.push_str("},\n");
        tuned_keys.push(key);
    }
    for (k, v) in members(GENERIC) {
        if !tuned_keys.iter().any(|t| t == k) {
            let _ = writeln!(out, "{}: {v},", quoted(k));
        }
    }
    trim_comma(&mut out);
    out.push_str("}\n");
    Ok(out)
}

/// Drops the comma after the last member written.
fn trim_comma(out: &mut String) {
    if out.ends_with(",\n") {
        out.truncate(out.len() - 2);
        out.push('\n');
    }
}

/// The probe file of rule `k` (see `super::verify::probe_sets`).
///
/// Errors: as [`mpich_json`].
pub fn mpich_json_for_probe(
    sets: &[RuleSet],
    tuning: &Tuning,
    simulated: bool,
    k: usize,
) -> Result<(String, Vec<Rule>), TuneError> {
    let (probe, rules) = super::verify::probe_sets(sets, k);
    Ok((mpich_json(&probe, tuning, simulated)?, rules))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tuning::choice::tests::{m, tuned};
    use crate::analysis::tuning::{rules_of, Extrapolation};

    #[test]
    fn members_keep_file_order() {
        let m = members(r#"{ "b": {"x": [1, "}"]}, "a": "q\"}" , "c": 3 }"#);
        assert_eq!(
            m,
            [("b", r#"{"x": [1, "}"]}"#), ("a", r#""q\"}""#), ("c", "3")]
        );
        let all = members(GENERIC);
        assert_eq!(all[0].0, "collective=bcast");
        assert!(all.iter().any(|(k, _)| *k == "collective=allreduce"));
    }

    /// A tuning at P = 4, 8 B where `alg` beats default clearly, and its rule sets.
    fn one_winner(alg: &str) -> (Tuning, Vec<RuleSet>) {
        let mut measured = vec![m("default", "x", 8, 60e-6, 1e-6, 30)];
        let mut w = m(alg, "x", 8, 50e-6, 1e-6, 30);
        w.value = Some(3);
        measured.push(w);
        let t = tuned(&measured, "x", &["x"]);
        let sets = rules_of(&t, Extrapolation::Stop, &mut Vec::new());
        (t, sets)
    }

    #[test]
    fn rabenseifner_is_guarded_as_mpich_guards_it() {
        let (t, sets) = one_winner("reduce_scatter_allgather");
        let (text, _) = mpich_json_for_probe(&sets, &t, false, 0).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).expect(&text);
        let g: serde_json::Value = serde_json::from_str(GENERIC).unwrap();
        let own = &g["collective=allreduce"]["comm_type=intra"];
        let rule =
            &v["collective=allreduce"]["comm_type=intra"]["comm_size<=4"]["avg_msg_size=any"];
        // A user-defined operation or fewer elements than pof2: MPICH's own tree.
        assert_eq!(&rule["is_op_built_in=no"], own);
        assert_eq!(&rule["is_op_built_in=yes"]["count<pow2"], own);
        let alg = &rule["is_op_built_in=yes"]["count=any"];
        assert!(alg["algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather"].is_object());
        // MPICH tries tests in file order: the exclusion must come before `count=any`.
        let block = &text[text
            .find("\"is_op_built_in=yes\": {\"count<pow2\"")
            .expect(&text)..];
        assert!(block.find("count<pow2").unwrap() < block.find("count=any").unwrap());
    }

    #[test]
    fn the_file_is_mpich_s_own_with_the_rules_in_front() {
        let (t, sets) = one_winner("recursive_doubling");
        let text = mpich_json(&sets, &t, false).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).expect(&text);
        let g: serde_json::Value = serde_json::from_str(GENERIC).unwrap();
        // Every collective of MPICH's file is there, the untuned ones unchanged.
        assert_eq!(v.as_object().unwrap().len(), g.as_object().unwrap().len());
        assert_eq!(v["collective=bcast"], g["collective=bcast"]);
        let intra = &v["collective=allreduce"]["comm_type=intra"];
        let at4 = &intra["comm_size<=4"];
        let rule = &at4["avg_msg_size<=8"]["algorithm=MPIR_Allreduce_intra_recursive_doubling"];
        assert!(rule["comment"]
            .as_str()
            .unwrap()
            .contains("recursive_doubling (measured at 8 B"));
        // Below and beyond the measured: MPICH's own tree; in file order the rule comes
        // after the smaller sizes and before `any`.
        assert_eq!(
            at4["avg_msg_size<=7"],
            g["collective=allreduce"]["comm_type=intra"]
        );
        assert_eq!(
            at4["avg_msg_size=any"],
            g["collective=allreduce"]["comm_type=intra"]
        );
        assert_eq!(
            intra["comm_size=any"]["avg_msg_size=any"],
            g["collective=allreduce"]["comm_type=intra"]
        );
        let block = &text[text.find("\"comm_size<=4\"").unwrap()..];
        let at = |k: &str| block.find(k).unwrap();
        assert!(at("avg_msg_size<=7") < at("avg_msg_size<=8"));
        assert!(at("avg_msg_size<=8") < at("avg_msg_size=any"));
        assert_eq!(
            v["collective=allreduce"]["comm_type=inter"],
            g["collective=allreduce"]["comm_type=inter"]
        );
    }
}
