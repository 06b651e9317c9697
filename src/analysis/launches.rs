//! What `delaybench analyze` reports about one or more launches of one plan: the
//! per-configuration statistics, the bootstrap settings behind their intervals, and the
//! runs' warnings.

use super::{
    config_stats_of_digests, family_differences, launch_warnings, AnalysisError, Bootstrap,
    ConfigStats, FamilyDifference, LaunchDigest,
};
use crate::records::{Records, RunLabel};
use serde::Serialize;
use std::collections::BTreeMap;

/// The analysis of records files of one plan, ready for an exporter.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// The records files, in the order given (launch 1 first).
    pub files: Vec<String>,
    /// Settings of the bootstrap behind every interval.
    pub bootstrap: Bootstrap,
    /// The runs' warnings ([`run_warnings`]); prefixed with the file when there are several.
    pub warnings: Vec<String>,
    /// One row per configuration ([`config_stats`]).
    pub rows: Vec<ConfigStats>,
    /// The global times the rows were computed on, `posthoc` or `online`
    /// ([`crate::timeline::ClockCorrection::name`]); `posthoc` if any launch had them.
    pub global_times: &'static str,
    /// Per launch, in the order of `files`: what identifies it (the `runs` of the JSON).
    pub runs: Vec<LaunchInfo>,
    /// Each tested comparison of a family's nonblocking or persistent form with its blocking
    /// form at one configuration ([`family_differences`]), decided on the difference of the
    /// two costs with the false discovery rate controlled over all of them.
    pub family_differences: Vec<FamilyDifference>,
}

/// One launch of an analysis as the `analyze` JSON lists it under `runs`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LaunchInfo {
    /// The records file as named.
    pub file: String,
    /// The run id ([`RunLabel::run_id`]).
    pub run_id: String,
    /// The MPI library in one line.
    pub mpi_library: String,
    /// Distinct hosts in order of their first rank.
    pub hosts: Vec<String>,
    /// The `--tag`s as an object.
    pub tags: BTreeMap<String, String>,
    /// Git revision of the delaybench that measured it (`unknown` when not recorded), with
    /// `-dirty` when its build was.
    pub git_revision: String,
}

impl LaunchInfo {
    fn of(file: &str, launch: &LaunchDigest) -> LaunchInfo {
        let label = RunLabel::of(&launch.header);
        let prov = &launch.header.provenance;
        LaunchInfo {
            file: file.to_string(),
            run_id: label.run_id,
            mpi_library: label.mpi_library,
            hosts: crate::records::host_list::distinct(&label.hosts)
                .into_iter()
                .map(str::to_string)
                .collect(),
            tags: prov
                .tags
                .iter()
                .map(|t| (t.key.clone(), t.value.clone()))
                .collect(),
            git_revision: prov.revision_word(),
        }
    }
}

/// Analyses `launches`, named by `files` (same length and order).
///
/// Errors: those of [`super::config_stats`].
pub fn analyze(
    files: &[String],
    launches: &[Records],
    bootstrap: Bootstrap,
) -> Result<Analysis, AnalysisError> {
    let digests: Vec<LaunchDigest> = launches.iter().map(LaunchDigest::of).collect();
    analyze_digests(files, &digests, bootstrap)
}

/// What the rows' metrics could not say: configurations whose benefit exceeded its bound
/// (the bound assumes tδ ≥ t0) and delayed configurations without a benefit, by reason.
pub fn metric_warnings(rows: &[ConfigStats]) -> Vec<String> {
    let mut out = Vec::new();
    let above = rows
        .iter()
        .filter(|r| r.above_ceiling == Some(true))
        .count();
    if above > 0 {
        out.push(format!(
            "{above} configuration(s) have a benefit above its bound min(t0, delta) / max(t0, \
             delta): there t_delta < t0, so the bound's assumption did not hold"
        ));
    }
    let mut reasons: Vec<&str> = rows.iter().filter_map(|r| r.benefit_na).collect();
    reasons.sort_unstable();
    reasons.dedup();
    for reason in reasons {
        let n = rows.iter().filter(|r| r.benefit_na == Some(reason)).count();
        out.push(format!("benefit n/a for {n} configuration(s): {reason}"));
    }
    out
}

/// [`analyze`] of launches read block by block ([`LaunchDigest::read`]).
///
/// Errors: those of [`super::config_stats`].
pub fn analyze_digests(
    files: &[String],
    launches: &[LaunchDigest],
    bootstrap: Bootstrap,
) -> Result<Analysis, AnalysisError> {
    let rows = config_stats_of_digests(launches, &bootstrap)?;
    let several = launches.len() > 1;
    let mut warnings: Vec<String> = files
        .iter()
        .zip(launches)
        .flat_map(|(f, r)| {
            launch_warnings(r)
                .into_iter()
                .map(move |w| if several { format!("{f}: {w}") } else { w })
        })
        .collect();
    warnings.extend(metric_warnings(&rows));
    let global_times = if launches.iter().any(|l| l.correction.is_posthoc()) {
        "posthoc"
    } else {
        "online"
    };
    let runs = files
        .iter()
        .zip(launches)
        .map(|(f, l)| LaunchInfo::of(f, l))
        .collect();
    let family_differences = family_differences(launches, &rows, &bootstrap);
    Ok(Analysis {
        family_differences,
        runs,
        files: files.to_vec(),
        bootstrap,
        warnings,
        rows,
        global_times,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    #[test]
    fn warnings_name_their_file_when_there_are_several() {
        let r = testdata::records(2, vec![testdata::block(Op::Allreduce, 8, 2, 0.0, 3, 1e-5)]);
        let one = analyze(
            &["a.cbor".into()],
            std::slice::from_ref(&r),
            Bootstrap::default(),
        )
        .unwrap();
        assert!(one.warnings[0].starts_with("interrupted run"), "{one:?}");
        let files = ["a.cbor".to_string(), "b.cbor".to_string()];
        let two = analyze(&files, &[r.clone(), r], Bootstrap::default()).unwrap();
        assert_eq!(two.warnings.len(), 2);
        assert!(
            two.warnings[1].starts_with("b.cbor: interrupted run"),
            "{two:?}"
        );
        assert_eq!(two.rows[0].launches, 2);
    }
}
