//! The analysis as JSON (`delaybench analyze --format json`).

use super::ExportError;
use crate::analysis::{Analysis, ConfigStats, LaunchInfo, ANALYZE_SCHEMA_VERSION};
use serde::Serialize;
use std::io::{BufWriter, Write};

/// Name in every analyze JSON document, so a reader can tell what it holds.
pub const ANALYZE_SCHEMA_NAME: &str = "delaybench-analyze";

/// The JSON document: what was analysed and how, then the rows.
#[derive(Serialize)]
struct Document<'a> {
    schema: &'static str,
    schema_version: u32,
    tool_version: &'static str,
    files: &'a [String],
    /// Per file: its run id, MPI library, hosts, tags and git revision.
    runs: &'a [LaunchInfo],
    /// `posthoc` or `online`: the global times behind every row.
    global_times: &'static str,
    bootstrap: BootstrapInfo,
    /// How `benefit_significant` is decided over the rows.
    multiple_comparisons: MultipleComparisons,
    warnings: &'a [String],
    rows: &'a [ConfigStats],
    /// The application's own pattern per replayed site and kernel family; absent when no
    /// block replayed a capture.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    replay_patterns: Vec<crate::analysis::ReplayPatternRow>,
}

/// The control of many benefits tested at once: the procedure, its false discovery rate and
/// the number of p-values (`benefit_p`) it was applied to.
#[derive(Serialize)]
struct MultipleComparisons {
    method: &'static str,
    false_discovery_rate: f64,
    tests: usize,
}

#[derive(Serialize)]
struct BootstrapInfo {
    method: &'static str,
    /// Launches the intervals rest on (the unit of replication).
    launches: usize,
    resamples: u32,
    level: f64,
    seed: u64,
    /// The verdicts' equivalence margin, a share of δ (`--margin`).
    margin: f64,
}

/// A pretty-printed JSON object: `schema` (`delaybench-analyze`), `schema_version`,
/// `tool_version`, `files`, `runs` (per file: run id, MPI library, hosts, tags, git
/// revision), `global_times` (`posthoc` or `online`), `bootstrap` (method, launches, resamples, confidence level, seed, the verdicts'
/// margin),
/// `multiple_comparisons` (how `benefit_significant` is decided: `method`
/// `benjamini-hochberg`, `false_discovery_rate`, `tests` = the rows with a `benefit_p`),
/// `warnings` (the runs' warnings), `replay_patterns` when blocks replayed a capture
/// ([`crate::analysis::ReplayPatternRow`]) and `rows`, one object per configuration keyed by
/// [`super::SUMMARY_COLUMNS`]: the op by name, seconds as full-precision numbers, benefits as
/// fractions, `null` for `None` (and for non-finite values, which JSON cannot hold): the
/// summary of [`super::formats::Json`].
///
/// Errors: [`ExportError`] when writing fails.
pub(super) fn write_summary_json(a: &Analysis, out: &mut dyn Write) -> Result<(), ExportError> {
    let doc = Document {
        schema: ANALYZE_SCHEMA_NAME,
        schema_version: ANALYZE_SCHEMA_VERSION,
        tool_version: env!("CARGO_PKG_VERSION"),
        files: &a.files,
        runs: &a.runs,
        global_times: a.global_times,
        bootstrap: BootstrapInfo {
            method: crate::analysis::interval_method(a.files.len()),
            launches: a.files.len(),
            resamples: a.bootstrap.resamples,
            level: a.bootstrap.level,
            seed: a.bootstrap.seed,
            margin: a.bootstrap.margin,
        },
        multiple_comparisons: MultipleComparisons {
            method: "benjamini-hochberg",
            false_discovery_rate: a.bootstrap.fdr(),
            tests: a.rows.iter().filter(|r| r.benefit_p.is_some()).count(),
        },
        warnings: &a.warnings,
        rows: &a.rows,
        replay_patterns: crate::analysis::replay_pattern_rows(&a.rows),
    };
    // serde_json writes in many small pieces; standard output is only line-buffered.
    let mut out = BufWriter::new(out);
    serde_json::to_writer_pretty(&mut out, &doc)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::test_support::{analysis, json_numbers, text};
    use crate::export::SUMMARY_COLUMNS;
    use serde_json::Value;

    fn json(a: &Analysis) -> Value {
        serde_json::from_str(&text(|buf| write_summary_json(a, buf))).unwrap()
    }

    #[test]
    fn document_with_version_warnings_and_rows() {
        let mut a = analysis();
        a.warnings = vec!["oversubscribed: node0 (4 ranks on 2 cores)".into()];
        let v = json(&a);
        assert_eq!(v["schema"], "delaybench-analyze");
        assert_eq!(v["schema_version"], ANALYZE_SCHEMA_VERSION);
        assert_eq!(v["files"][0], "test.cbor");
        assert_eq!(v["runs"][0]["file"], "test.cbor");
        assert_eq!(
            v["runs"][0]["run_id"],
            "00000000-0000-4000-8000-000000000007"
        );
        assert_eq!(v["runs"][0]["tags"]["system"], "test");
        assert_eq!(v["runs"][0]["hosts"][0], "node0");
        assert_eq!(v["bootstrap"]["resamples"], 2000);
        assert_eq!(v["bootstrap"]["level"], 0.95);
        assert_eq!(v["multiple_comparisons"]["method"], "benjamini-hochberg");
        let fdr = v["multiple_comparisons"]["false_discovery_rate"]
            .as_f64()
            .unwrap();
        assert!((fdr - 0.05).abs() < 1e-12, "{fdr}");
        // Only iallreduce has no baseline; allreduce's 4 valid are too few: nothing tested.
        assert_eq!(v["multiple_comparisons"]["tests"], 0);
        assert_eq!(v["warnings"][0], a.warnings[0]);
        let rows = v["rows"].as_array().unwrap();
        assert_eq!(rows.len(), a.rows.len());
        for o in rows {
            let keys: Vec<&str> = o.as_object().unwrap().keys().map(String::as_str).collect();
            // serde_json keeps insertion order only with preserve_order; compare as sets.
            let mut keys = keys;
            let mut want = SUMMARY_COLUMNS.to_vec();
            keys.sort_unstable();
            want.sort_unstable();
            assert_eq!(keys, want);
        }
        assert_eq!(rows[0]["op"], "allreduce");
        assert_eq!(rows[0]["valid"], 4);
        // 4 valid repetitions a side: too few for an interval or a significance.
        assert_eq!(rows[1]["benefit_significant"], Value::Null);
        assert_eq!(rows[0]["benefit_min"], Value::Null);
        assert_eq!(rows[3]["t0_min_s"], Value::Null);
        let cost = rows[1]["cost_median_s"].as_f64().unwrap();
        assert!((cost - 50e-6).abs() < 1e-12, "{cost}");
        assert_eq!(rows[1]["cost_median_ci_lo_s"], Value::Null);
        assert_eq!(rows[1]["cost_median_ci_hi_s"], Value::Null);
        assert_eq!(rows[3]["cost_median_s"], Value::Null);
    }

    #[test]
    fn numbers_are_exact() {
        let a = analysis();
        let out = text(|buf| write_summary_json(&a, buf));
        type Get = fn(&ConfigStats) -> Option<f64>;
        let columns: [(&str, Get); 5] = [
            ("delay_s", |x| Some(x.delay_s)),
            ("t_global_min_s", |x| x.t_global_min_s),
            ("t_global_median_ci_hi_s", |x| x.t_global_median_ci_hi_s),
            ("t0_median_s", |x| x.t0_median_s),
            ("benefit_median", |x| x.benefit_median),
        ];
        for (key, get) in columns {
            let want: Vec<Option<f64>> = a.rows.iter().map(get).collect();
            // Bit-exact, read with a correctly rounding parser.
            assert_eq!(json_numbers(&out, key), want, "{key}");
        }
    }
}
