//! Where a replayed site's lateness came from: a run with `--delay replay:CAPTURE@SITE`
//! replays the lateness a capture recorded at one call site; when the capture is still
//! readable, its causes analysis (Böhme et al. 2010, [`super::attribution`]) says which
//! (rank, region) made each late rank late there.
//!
//! At an instance of the site, the waiting of every member held by a late rank c (its
//! [`causer`]) is c's lateness as the others paid it; its shares name who caused it: c's own
//! region (a direct cost), or a rank that held c earlier (a propagated cost). Summed over
//! the site's instances, per late rank, the largest share is its top cause.

use super::attribution::{attribute, causer, Culprit};
use super::regions::{causal_order, regions};
use crate::capture::{
    match_calls, read_captures, site_names, CaptureFileError, MatchError, Matched,
};
use std::collections::BTreeMap;
use std::path::PathBuf;
use thiserror::Error;

/// Why a replayed site's causes cannot be given.
#[derive(Debug, Error)]
pub enum ReplayCausesError {
    /// The delay model is not `replay:CAPTURE@SITE[:map]`.
    #[error("`{0}` is not a replay delay model (replay:CAPTURE@SITE)")]
    Label(String),
    /// The capture could not be read.
    #[error("the capture {path} is not readable here ({source}); run analyze where the replay ran, or give the capture at the same path")]
    Read {
        /// The capture as the records name it.
        path: String,
        /// Why.
        source: CaptureFileError,
    },
    /// Its calls could not be matched.
    #[error("the capture {path} cannot be matched: {source}")]
    Match {
        /// The capture as the records name it.
        path: String,
        /// Why.
        source: MatchError,
    },
}

/// The top cause of one late rank's lateness at a replayed site.
#[derive(Debug, Clone, PartialEq)]
pub struct LateRankCause {
    /// World rank of the late rank.
    pub rank: u32,
    /// Instances of the site at which it held someone.
    pub calls: usize,
    /// Instances of the site.
    pub site_calls: usize,
    /// Waiting it caused at the site (its lateness as the others paid it), seconds.
    pub wait_s: f64,
    /// The rank of its top cause, None when the top share is unexplained.
    pub cause_rank: Option<u32>,
    /// The top cause's region label (`from → to`), empty when unexplained.
    pub region_label: String,
    /// The top cause's share of `wait_s`, 0..=1.
    pub share: f64,
}

/// `replay:CAPTURE@SITE[:first|:folded]` split into the capture path and the site.
pub fn parse_replay_label(label: &str) -> Option<(&str, &str)> {
    let rest = label.strip_prefix("replay:")?;
    let rest = rest
        .strip_suffix(":folded")
        .or_else(|| rest.strip_suffix(":first"))
        .unwrap_or(rest);
    rest.rsplit_once('@')
}

/// Per late rank at `site` of `m` (matched from `captures`), the top cause of its lateness,
/// the rank that caused the most waiting first. `site` is a site key, a readable name or a
/// prefix of one (as `--delay replay:` takes it).
pub fn late_rank_causes(
    captures: &[crate::capture::RankCapture],
    m: &Matched,
    site: &str,
) -> Vec<LateRankCause> {
    let names = site_names(captures, &[]);
    let name = |k: &str| names.get(k).cloned().unwrap_or_else(|| k.to_owned());
    let r = regions(captures, m);
    let order = causal_order(m, &r);
    let a = attribute(m, &r, &order);
    let at_site = |i: &crate::capture::Instance| {
        i.site == site || i.site_label.starts_with(site) || name(&i.site).starts_with(site)
    };
    let mut per: BTreeMap<u32, (usize, f64, BTreeMap<Culprit, f64>)> = BTreeMap::new();
    let mut site_calls = 0;
    for (i, inst) in m.instances.iter().enumerate() {
        if !at_site(inst) {
            continue;
        }
        site_calls += 1;
        let mut held_by: Vec<u32> = Vec::new();
        for k in 0..inst.entries.len() {
            let Some(c) = causer(inst, k).filter(|&c| c != k) else {
                continue;
            };
            let late = inst.entries[c].world_rank;
            for s in &a.waits[i][k] {
                let e = per.entry(late).or_default();
                e.1 += s.s;
                *e.2.entry(s.culprit).or_default() += s.s;
                if !held_by.contains(&late) {
                    held_by.push(late);
                    e.0 += 1;
                }
            }
        }
    }
    let label = |region: usize| r.names[region].label(&name);
    let mut out: Vec<LateRankCause> = per
        .into_iter()
        .filter(|(_, (_, w, _))| *w > 0.0)
        .map(|(rank, (calls, w, shares))| {
            let (top, s) = shares
                .into_iter()
                .max_by(|x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0)))
                .expect("waiting has shares");
            let (cause_rank, region_label) = match top {
                Culprit::Region { rank, region } => (Some(rank), label(region)),
                Culprit::Unexplained => (None, String::new()),
            };
            LateRankCause {
                rank,
                calls,
                site_calls,
                wait_s: w,
                cause_rank,
                region_label,
                share: s / w,
            }
        })
        .collect();
    out.sort_by(|x, y| y.wait_s.total_cmp(&x.wait_s).then(x.rank.cmp(&y.rank)));
    out
}

/// [`late_rank_causes`] of the replay delay model `label` (`replay:CAPTURE@SITE`), reading
/// the capture at the path the label names.
///
/// # Errors
/// [`ReplayCausesError`] when the label is not a replay's or the capture cannot be read or
/// matched.
pub fn replay_causes(label: &str) -> Result<Vec<LateRankCause>, ReplayCausesError> {
    let (path, site) =
        parse_replay_label(label).ok_or_else(|| ReplayCausesError::Label(label.to_owned()))?;
    let captures =
        read_captures(&[PathBuf::from(path)]).map_err(|source| ReplayCausesError::Read {
            path: path.to_owned(),
            source,
        })?;
    let m = match_calls(&captures).map_err(|source| ReplayCausesError::Match {
        path: path.to_owned(),
        source,
    })?;
    Ok(late_rank_causes(&captures, &m, site))
}

/// One line per replayed site (`label`): per late rank, at most `top` of them, its top
/// cause with its share, or why there is none.
pub fn replay_cause_line(label: &str, top: usize) -> String {
    match replay_causes(label) {
        Err(e) => format!("{label}: no causes: {e}"),
        Ok(rows) if rows.is_empty() => format!("{label}: no rank made another wait there"),
        Ok(rows) => {
            let parts: Vec<String> = rows
                .iter()
                .take(top)
                .map(|c| {
                    let cause = match c.cause_rank {
                        Some(r) => format!("rank {r} in `{}`", c.region_label),
                        None => "unexplained".to_owned(),
                    };
                    format!(
                        "rank {} (late at {} of {} calls, {} caused): {cause} {:.0} %",
                        c.rank,
                        c.calls,
                        c.site_calls,
                        crate::units::format_duration(c.wait_s),
                        c.share * 100.0
                    )
                })
                .collect();
            format!("{label}: {}", parts.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_label_gives_its_capture_and_site() {
        assert_eq!(
            parse_replay_label("replay:run/cap@app+0x11c8:folded"),
            Some(("run/cap", "app+0x11c8"))
        );
        assert_eq!(
            parse_replay_label("replay:a@b@app+0x1"),
            Some(("a@b", "app+0x1"))
        );
        assert_eq!(parse_replay_label("uniform:1us"), None);
    }

    #[test]
    fn a_late_rank_at_the_site_is_named_with_its_own_region() {
        // Rank 2 is late by 0.3 s at the first allreduce (site app+0x10) and 0.5 s at the
        // second (app+0x20), each time from its own region.
        let caps = crate::capture::testdata::rank_2_late_at_two_sites();
        let m = match_calls(&caps).unwrap();
        let rows = late_rank_causes(&caps, &m, "app+0x20");
        assert_eq!(rows.len(), 1, "{rows:?}");
        let r = &rows[0];
        assert_eq!((r.rank, r.calls, r.site_calls), (2, 1, 1));
        assert!((r.wait_s - 1.0).abs() < 1e-9, "{r:?}");
        assert_eq!(r.cause_rank, Some(2));
        // The region between the two sites (each named as the capture's sites read).
        let (from, to) = r.region_label.split_once(" → ").unwrap();
        assert!(
            from.contains("app+0x10") && to.contains("app+0x20"),
            "{r:?}"
        );
        assert!((r.share - 1.0).abs() < 1e-9);
        assert!(late_rank_causes(&caps, &m, "elsewhere+0x1").is_empty());
    }

    #[test]
    fn an_unreadable_capture_is_said_so() {
        let line = replay_cause_line("replay:/nonexistent/capture@app+0x1", 3);
        assert!(
            line.starts_with("replay:/nonexistent/capture@app+0x1: no causes: the capture /nonexistent/capture is not readable"),
            "{line}"
        );
    }
}
