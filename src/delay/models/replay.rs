//! `replay:CAPTURE[@SITE][:first|:folded]`: the arrival pattern of one call site of a capture
//! (`libdelaybench_capture.so`, docs/capture.md) replayed as whole delay vectors. The map is
//! also chosen by `--replay-map first|folded` ([`ReplayMap`]); the suffix still works, and
//! the two must agree when both are given ([`ReplayMap::resolve`]).
//!
//! Repetition i delays every rank by the lateness that rank had at the i-th recorded call of
//! the site (its entry minus the earliest entry of that call), cycling when there are more
//! repetitions than calls. Ranks map by rank in the recorded communicator. When the measured
//! P differs from the recorded size n, the map chooses: `first` (the default) takes the
//! first P ranks' lateness (ranks from n on get none); `folded` gives rank r the largest
//! lateness of the recorded ranks k ≡ r (mod P) when P < n, and recorded rank r mod n when
//! P > n. Either way the vector is shifted so that its earliest rank has no delay.
//!
//! SITE is a site key (`app+0x11c8`), a readable label or a prefix of one; without it, the
//! site with the most waiting. The capture is read when the spec is parsed (the one place
//! where `delay/` reads through `records::capture` and `analysis::arrivals`); the lateness
//! matrix travels with the model, so the plan can be broadcast and stored without the files.

use super::{Args, Check, DelaySampler, ModelEntry, Param, ParamError, Params};
use crate::delay::{DelayModel, DelayModelError};
use rand::RngCore;

/// How the recorded ranks map onto the measured P when they differ (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReplayMap {
    /// The first P recorded ranks' lateness; ranks beyond the recorded size get none.
    First,
    /// Rank r gets the latest of the recorded ranks k ≡ r (mod P) (P < n), or recorded rank
    /// r mod n (P > n).
    Folded,
}

impl ReplayMap {
    /// `first` or `folded`, as in the spec suffix and the records.
    pub fn name(self) -> &'static str {
        match self {
            ReplayMap::First => "first",
            ReplayMap::Folded => "folded",
        }
    }

    /// The map of `model` after `--replay-map` (`flag`): a replay whose spec named no map
    /// takes the flag's (else `first`); one whose spec named the flag's map is unchanged; a
    /// model that is not a replay is returned as it is.
    ///
    /// Errors: a message naming both when the spec's suffix and the flag disagree.
    pub fn resolve(model: &DelayModel, flag: Option<ReplayMap>) -> Result<DelayModel, String> {
        let Some(mut r) = Replay::of(model) else {
            return Ok(model.clone());
        };
        match (r.map.as_str(), flag) {
            ("", f) => r.map = f.unwrap_or(ReplayMap::First).name().into(),
            (m, Some(f)) if m != f.name() => {
                return Err(format!(
                    "--delay {} ends in :{m} but --replay-map is {}: give the map once \
                     (--replay-map {m}, or drop the :{m} suffix)",
                    r.spec_text(),
                    f.name()
                ))
            }
            _ => {}
        }
        Ok(DelayModel::new(r))
    }
}

/// A site's lateness vectors replayed whole.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// The capture (directory or file) as given.
    pub path: String,
    /// The replayed site's key (`module+0xoffset`).
    pub site: String,
    /// `first` or `folded` (module docs); empty between parsing a spec without a suffix and
    /// [`ReplayMap::resolve`] (replayed as `first`).
    pub map: String,
    /// The site's operation as the capture names it (`allreduce`, `iallreduce`); empty in
    /// records written before delaybench kept it.
    pub op: String,
    /// The site's message size, bytes: the median over its calls of the lowest
    /// communicator rank's count × type size (0 when not recorded).
    pub bytes: u64,
    /// Size n of the recorded communicator.
    pub recorded_size: usize,
    /// `[calls][n]`: lateness of each recorded rank at each call, seconds.
    pub lateness_s: Vec<f64>,
}

pub(super) const ENTRY: ModelEntry = ModelEntry {
    keyword: "replay",
    aliases: &[],
    syntax: "a capture directory or file, optionally @SITE and :first or :folded",
    example: "replay:capture-dir@app+0x11c8",
    help: "a captured site's lateness vectors",
    parse,
    from_params,
    demo: || {
        DelayModel::new(Replay {
            path: "capture-dir".into(),
            site: "app+0x11c8".into(),
            map: "first".into(),
            op: "allreduce".into(),
            bytes: 8,
            recorded_size: 2,
            lateness_s: vec![0.0, 10e-6, 30e-6, 0.0],
        })
    },
};

/// Splits `CAPTURE[@SITE][:first|:folded]`; the map is empty without a suffix.
fn split_spec(text: &str) -> (&str, Option<&str>, &str) {
    let (rest, map) = match text.rsplit_once(':') {
        Some((r, m)) if m == "first" || m == "folded" => (r, m),
        _ => (text, ""),
    };
    match rest.rsplit_once('@') {
        Some((p, s)) if !s.contains('/') && !s.is_empty() => (p, Some(s), map),
        _ => (rest, None, map),
    }
}

fn parse(a: &Args) -> Result<DelayModel, DelayModelError> {
    if a.text().is_empty() {
        return Err(a.arguments(&ENTRY));
    }
    let (path, site, map) = split_spec(a.text());
    let fail = |cause: String| DelayModelError::TraceRead {
        path: a.text().to_string(),
        cause,
    };
    let captures =
        crate::records::capture::read_captures(&[path.into()]).map_err(|e| fail(e.to_string()))?;
    let matched =
        crate::analysis::arrivals::match_calls(&captures).map_err(|e| fail(e.to_string()))?;
    let (first, vectors) =
        crate::analysis::arrivals::site_lateness(&matched, site).ok_or_else(|| {
            fail(format!(
                "no call site {} in the capture (`delaybench arrivals {path}` lists them)",
                site.unwrap_or("(any)")
            ))
        })?;
    let mut bytes: Vec<u64> = matched
        .instances
        .iter()
        .filter(|i| i.site == first.site && i.op == first.op)
        .map(|i| i.bytes)
        .collect();
    bytes.sort_unstable();
    Ok(DelayModel::new(Replay {
        path: path.to_string(),
        site: first.site.clone(),
        map: map.to_string(),
        op: first.op.name(),
        bytes: bytes.get(bytes.len() / 2).copied().unwrap_or(0),
        recorded_size: first.entries.len(),
        lateness_s: vectors.concat(),
    }))
}

fn from_params(p: &Params) -> Result<DelayModel, ParamError> {
    Ok(DelayModel::new(Replay::from_params(p)?))
}

impl Replay {
    fn calls(&self) -> usize {
        self.lateness_s.len() / self.recorded_size.max(1)
    }

    fn from_params(p: &Params) -> Result<Replay, ParamError> {
        Ok(Replay {
            path: p.text("path")?,
            site: p.text("site")?,
            map: p.text("map")?,
            // Records written before the site's operation was kept have neither field.
            op: p.text("op").unwrap_or_default(),
            bytes: p.number("bytes").map_or(0, |b| b as u64),
            recorded_size: p.number("recorded_size")? as usize,
            lateness_s: p.numbers("lateness_s")?,
        })
    }

    /// The replay inside `model`, or None when `model` is another kind of delay.
    pub fn of(model: &DelayModel) -> Option<Replay> {
        if model.keyword() != ENTRY.keyword {
            return None;
        }
        let params = Params {
            fields: model
                .params()
                .into_iter()
                .map(|(name, v)| (name.to_string(), Some(v)))
                .collect(),
        };
        Replay::from_params(&params).ok()
    }

    /// `CAPTURE@SITE` with the map suffix when one was chosen.
    fn spec_text(&self) -> String {
        let map = if self.map.is_empty() {
            String::new()
        } else {
            format!(":{}", self.map)
        };
        format!("replay:{}@{}{map}", self.path, self.site)
    }
}

impl DelaySampler for Replay {
    fn keyword(&self) -> &'static str {
        ENTRY.keyword
    }

    fn params(&self) -> Vec<(&'static str, Param)> {
        vec![
            ("path", Param::Text(self.path.clone())),
            ("site", Param::Text(self.site.clone())),
            ("map", Param::Text(self.map.clone())),
            ("op", Param::Text(self.op.clone())),
            ("bytes", Param::Number(self.bytes as f64)),
            ("recorded_size", Param::Number(self.recorded_size as f64)),
            ("lateness_s", Param::Numbers(self.lateness_s.clone())),
        ]
    }

    fn validate(&self, c: &Check) -> Result<(), DelayModelError> {
        if self.recorded_size == 0
            || self.lateness_s.is_empty()
            || self.lateness_s.len() % self.recorded_size != 0
        {
            return Err(DelayModelError::TraceEmpty {
                path: self.path.clone(),
            });
        }
        if !["", "first", "folded"].contains(&self.map.as_str()) {
            return Err(DelayModelError::Arguments {
                spec: c.spec(),
                model: ENTRY.keyword,
                expected: ENTRY.syntax,
                example: ENTRY.example,
            });
        }
        self.lateness_s
            .iter()
            .try_for_each(|&v| c.finite(v, "replayed lateness"))
    }

    /// The mean lateness over all recorded calls and ranks.
    fn mean_s(&self) -> f64 {
        self.lateness_s.iter().sum::<f64>() / self.lateness_s.len() as f64
    }

    /// The population standard deviation of all recorded lateness values.
    fn sd_s(&self) -> f64 {
        let mean = self.mean_s();
        let var = self
            .lateness_s
            .iter()
            .map(|v| (v - mean).powi(2))
            .sum::<f64>()
            / self.lateness_s.len() as f64;
        var.sqrt()
    }

    fn label(&self) -> String {
        let map = if self.map == "folded" { ":folded" } else { "" };
        format!("replay:{}@{}{map}", self.path, self.site)
    }

    /// Per-rank draws are not how a replay is used ([`DelaySampler::row`] is): the values
    /// in order, cycling.
    fn sample(&self, _rng: &mut dyn RngCore, index: u64) -> f64 {
        self.lateness_s[(index % self.lateness_s.len() as u64) as usize]
    }

    fn row(&self, rep: u64, p: u32) -> Option<Vec<f64>> {
        let n = self.recorded_size;
        let call = (rep % self.calls().max(1) as u64) as usize;
        let v = &self.lateness_s[call * n..(call + 1) * n];
        let p = p as usize;
        let mut row: Vec<f64> = if self.map == "folded" {
            (0..p)
                .map(|r| {
                    if p >= n {
                        v[r % n]
                    } else {
                        (r..n).step_by(p).map(|k| v[k]).fold(0.0, f64::max)
                    }
                })
                .collect()
        } else {
            (0..p).map(|r| v.get(r).copied().unwrap_or(0.0)).collect()
        };
        let first = row.iter().copied().fold(f64::INFINITY, f64::min);
        if first.is_finite() {
            row.iter_mut().for_each(|x| *x -= first);
        }
        Some(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replay(map: &str) -> Replay {
        // Two calls of four ranks.
        Replay {
            path: "c".into(),
            site: "s".into(),
            map: map.into(),
            op: "allreduce".into(),
            bytes: 8,
            recorded_size: 4,
            lateness_s: vec![0.0, 1.0, 2.0, 3.0, 3.0, 0.0, 5.0, 1.0],
        }
    }

    #[test]
    fn rows_replay_calls_in_order_and_cycle() {
        let r = replay("first");
        assert_eq!(r.row(0, 4), Some(vec![0.0, 1.0, 2.0, 3.0]));
        assert_eq!(r.row(1, 4), Some(vec![3.0, 0.0, 5.0, 1.0]));
        assert_eq!(r.row(2, 4), r.row(0, 4));
        // First two ranks of call 1, shifted so the earliest is 0.
        assert_eq!(r.row(1, 2), Some(vec![3.0, 0.0]));
        assert_eq!(r.row(0, 6), Some(vec![0.0, 1.0, 2.0, 3.0, 0.0, 0.0]));
    }

    #[test]
    fn folded_takes_the_latest_of_the_folded_ranks() {
        let r = replay("folded");
        // Call 1 on 2 ranks: rank 0 ← max(3, 5) = 5, rank 1 ← max(0, 1) = 1; shifted by 1.
        assert_eq!(r.row(1, 2), Some(vec![4.0, 0.0]));
        // More ranks than recorded: they repeat.
        assert_eq!(r.row(0, 6), Some(vec![0.0, 1.0, 2.0, 3.0, 0.0, 1.0]));
    }

    #[test]
    fn the_spec_splits_into_capture_site_and_map() {
        assert_eq!(split_spec("dir"), ("dir", None, ""));
        assert_eq!(
            split_spec("a/dir@app+0x10"),
            ("a/dir", Some("app+0x10"), "")
        );
        assert_eq!(
            split_spec("dir@main:folded"),
            ("dir", Some("main"), "folded")
        );
        assert_eq!(split_spec("x@y/dir"), ("x@y/dir", None, ""));
    }

    #[test]
    fn the_flag_fills_an_unnamed_map_and_refuses_a_contradiction() {
        let unnamed = DelayModel::new(replay(""));
        let m = |d: &DelayModel| Replay::of(d).unwrap().map;
        assert_eq!(m(&ReplayMap::resolve(&unnamed, None).unwrap()), "first");
        assert_eq!(
            m(&ReplayMap::resolve(&unnamed, Some(ReplayMap::Folded)).unwrap()),
            "folded"
        );
        let folded = DelayModel::new(replay("folded"));
        assert_eq!(
            m(&ReplayMap::resolve(&folded, Some(ReplayMap::Folded)).unwrap()),
            "folded"
        );
        let e = ReplayMap::resolve(&folded, Some(ReplayMap::First)).unwrap_err();
        assert!(
            e.contains(":folded") && e.contains("--replay-map is first"),
            "{e}"
        );
        // Not a replay: untouched.
        let fixed: DelayModel = "50us".parse().unwrap();
        assert_eq!(
            ReplayMap::resolve(&fixed, Some(ReplayMap::First)),
            Ok(fixed)
        );
        // The site's operation and size survive the records' round trip.
        let back = Replay::of(&folded).unwrap();
        assert_eq!((back.op.as_str(), back.bytes), ("allreduce", 8));
    }
}
