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
//! A site whose operation passes count vectors (the v-forms and reduce_scatter) also keeps
//! the vectors of its first call ([`crate::capture::call_counts`]: n entries, or
//! n × n for alltoallv), and [`Replay::send_matrix`] maps them onto P as the lateness is:
//! `first` takes the first P ranks' entries (the rows and columns of the first P ranks for
//! alltoallv; ranks from n on send and receive nothing); `folded` sums the bytes of the
//! ranks k ≡ r (mod P) into rank r when P < n (for alltoallv, entry [a][b] is the sum of the
//! recorded [i][j] with i ≡ a and j ≡ b), so the bytes moved per call stay those recorded,
//! and repeats recorded rank r mod n when P > n. Summing rather than taking the largest, as
//! the lateness does, keeps the volume: a rank standing for several recorded ranks carries
//! all their data, as it would if their processes were placed on it.
//!
//! SITE is a site key (`app+0x11c8`), a readable label or a prefix of one; without it, the
//! site with the most waiting. The capture is read when the spec is parsed (the one place
//! where `delay/` reads a capture, through [`crate::capture`], which sits below it); the
//! lateness matrix travels with the model, so the plan can be broadcast and stored without
//! the files.

use super::{Args, Check, DelaySampler, ModelEntry, Param, ParamError, Params};
use crate::capture::{call_counts, match_calls, read_captures, site_lateness, CaptureOp};
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
    /// The count vectors of the site's first call, bytes
    /// ([`crate::capture::call_counts`]): n entries (rank i's block; allgatherv,
    /// gatherv, scatterv, reduce_scatter) or n × n row-major (alltoallv: [i][j] the bytes
    /// recorded rank i sends to recorded rank j). Empty for operations without vectors, for
    /// captures without them and in records written before they were kept.
    pub counts: Vec<u64>,
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
            counts: vec![],
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
    let captures = read_captures(&[path.into()]).map_err(|e| fail(e.to_string()))?;
    let matched = match_calls(&captures).map_err(|e| fail(e.to_string()))?;
    let (first, vectors) = site_lateness(&matched, site).ok_or_else(|| {
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
    // A capture without vectors replays with uniform counts: the run says so (plan/replay_choice.rs).
    let counts = call_counts(&matched, first).unwrap_or_default();
    Ok(DelayModel::new(Replay {
        path: path.to_string(),
        site: first.site.clone(),
        map: map.to_string(),
        op: first.op.name(),
        bytes: bytes.get(bytes.len() / 2).copied().unwrap_or(0),
        recorded_size: first.entries.len(),
        lateness_s: vectors.concat(),
        counts,
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
            // Absent when there were none, and in records written before they were kept.
            counts: p
                .numbers("counts")
                .unwrap_or_default()
                .into_iter()
                .map(|b| b as u64)
                .collect(),
        })
    }

    /// The captured operation ([`Replay::op`]), None when not recorded or unknown.
    pub fn capture_op(&self) -> Option<CaptureOp> {
        CaptureOp::from_name(&self.op)
    }

    /// The bytes each rank sends to each rank at one call on P ranks, `[P][P]` row-major
    /// (entry [i][j]: rank i to rank j), from the site's recorded [`Replay::counts`] mapped
    /// by [`Replay::map`] (module docs). What a rank sends is by operation: allgatherv rank
    /// i's block to every rank ([i][j] = block i); gatherv its block to rank 0 (column 0);
    /// scatterv rank 0's block j to rank j (row 0); reduce_scatter block j of every rank to
    /// rank j ([i][j] = block j); alltoallv the matrix itself. The roots of gatherv and
    /// scatterv are rank 0, as in delaybench's kernels, whatever the recorded root.
    ///
    /// None without counts, or when their length is neither n nor n × n.
    pub fn send_matrix(&self, p: usize) -> Option<Vec<u64>> {
        use CaptureOp::*;
        let n = self.recorded_size;
        let folded = self.map == "folded";
        let op = self.capture_op()?;
        if self.counts.is_empty() || p == 0 {
            return None;
        }
        if matches!(op, Alltoallv | Ialltoallv) {
            return (self.counts.len() == n * n).then(|| map_matrix(&self.counts, n, p, folded));
        }
        if self.counts.len() != n {
            return None;
        }
        let v = map_vector(&self.counts, p, folded);
        let mut s = vec![0u64; p * p];
        for i in 0..p {
            for j in 0..p {
                s[i * p + j] = match op {
                    Allgatherv | Iallgatherv => v[i],
                    ReduceScatter | IreduceScatter => v[j],
                    Gatherv | Igatherv if j == 0 => v[i],
                    Scatterv | Iscatterv if i == 0 => v[j],
                    _ => 0,
                };
            }
        }
        Some(s)
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

/// A vector of bytes per recorded rank (n entries) on P ranks: `first` the first P entries
/// (0 beyond n), `folded` the sum over k ≡ r (mod P) when P < n, entry r mod n when P ≥ n.
fn map_vector(v: &[u64], p: usize, folded: bool) -> Vec<u64> {
    let n = v.len();
    (0..p)
        .map(|r| match (folded, p >= n) {
            (false, _) => v.get(r).copied().unwrap_or(0),
            (true, true) => v[r % n],
            (true, false) => (r..n).step_by(p).map(|k| v[k]).sum(),
        })
        .collect()
}

/// An n × n matrix of bytes (row-major) on P ranks, as [`map_vector`] maps each of its two
/// indices: `first` the top-left P × P (0 beyond n), `folded` entry [a][b] the sum of [i][j]
/// over i ≡ a and j ≡ b (mod P) when P < n, entry [a mod n][b mod n] when P ≥ n.
fn map_matrix(m: &[u64], n: usize, p: usize, folded: bool) -> Vec<u64> {
    let at = |i: usize, j: usize| m[i * n + j];
    let mut out = vec![0u64; p * p];
    for a in 0..p {
        for b in 0..p {
            out[a * p + b] = match (folded, p >= n) {
                (false, _) if a < n && b < n => at(a, b),
                (false, _) => 0,
                (true, true) => at(a % n, b % n),
                (true, false) => (a..n)
                    .step_by(p)
                    .flat_map(|i| (b..n).step_by(p).map(move |j| (i, j)))
                    .map(|(i, j)| at(i, j))
                    .sum(),
            };
        }
    }
    out
}

impl DelaySampler for Replay {
    fn keyword(&self) -> &'static str {
        ENTRY.keyword
    }

    fn params(&self) -> Vec<(&'static str, Param)> {
        let mut params = vec![
            ("path", Param::Text(self.path.clone())),
            ("site", Param::Text(self.site.clone())),
            ("map", Param::Text(self.map.clone())),
            ("op", Param::Text(self.op.clone())),
            ("bytes", Param::Number(self.bytes as f64)),
            ("recorded_size", Param::Number(self.recorded_size as f64)),
            ("lateness_s", Param::Numbers(self.lateness_s.clone())),
        ];
        // Only when there are some: a replay without vectors is stored as before.
        if !self.counts.is_empty() {
            let bytes = self.counts.iter().map(|&b| b as f64).collect();
            params.push(("counts", Param::Numbers(bytes)));
        }
        params
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
        let n = self.recorded_size;
        if !["", "first", "folded"].contains(&self.map.as_str())
            || ![0, n, n * n].contains(&self.counts.len())
        {
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
            counts: vec![],
        }
    }

    /// `replay(map)` of a captured `op` with the counts `counts`.
    fn counted(map: &str, op: &str, counts: Vec<u64>) -> Replay {
        Replay {
            op: op.into(),
            counts,
            ..replay(map)
        }
    }

    #[test]
    fn first_takes_the_first_ranks_counts() {
        // Allgatherv on 4 recorded ranks, blocks 8, 16, 24, 32 bytes.
        let r = counted("first", "allgatherv", vec![8, 16, 24, 32]);
        // On 2 ranks: blocks 8 and 16, each sent to both.
        assert_eq!(r.send_matrix(2), Some(vec![8, 8, 16, 16]));
        // On 5: the fifth rank contributes nothing.
        let s = r.send_matrix(5).unwrap();
        assert_eq!((s[3 * 5], s[4 * 5 + 2]), (32, 0));
        // Gatherv to rank 0 and scatterv from rank 0 on 3 ranks.
        let g = counted("first", "igatherv", vec![8, 16, 24, 32]);
        assert_eq!(g.send_matrix(3), Some(vec![8, 0, 0, 16, 0, 0, 24, 0, 0]));
        let sc = counted("first", "scatterv", vec![8, 16, 24, 32]);
        assert_eq!(sc.send_matrix(3), Some(vec![8, 16, 24, 0, 0, 0, 0, 0, 0]));
        // Reduce_scatter: block j of every rank goes to rank j.
        let rs = counted("first", "reduce_scatter", vec![8, 16, 24, 32]);
        assert_eq!(rs.send_matrix(2), Some(vec![8, 16, 8, 16]));
        // Alltoallv: the top-left P x P of the matrix.
        let m: Vec<u64> = (1..=16).collect();
        let a = counted("first", "alltoallv", m);
        assert_eq!(a.send_matrix(2), Some(vec![1, 2, 5, 6]));
        assert_eq!(a.send_matrix(5).unwrap()[4], 0);
    }

    #[test]
    fn folded_sums_the_bytes_of_the_folded_ranks() {
        let r = counted("folded", "allgatherv", vec![8, 16, 24, 32]);
        // Rank 0 stands for recorded 0 and 2 (8 + 24), rank 1 for 1 and 3 (16 + 32).
        assert_eq!(r.send_matrix(2), Some(vec![32, 32, 48, 48]));
        // The bytes of one call are those recorded.
        assert_eq!(map_vector(&[8, 16, 24, 32], 3, true), vec![8 + 32, 16, 24]);
        // More ranks than recorded: they repeat.
        assert_eq!(
            map_vector(&[8, 16, 24, 32], 6, true),
            vec![8, 16, 24, 32, 8, 16]
        );
        // Alltoallv 4 x 4 on 2: [a][b] sums [i][j] with i = a, j = b (mod 2).
        let m: Vec<u64> = (1..=16).collect();
        let a = counted("folded", "ialltoallv", m.clone());
        // [0][0] = m00 + m02 + m20 + m22 = 1 + 3 + 9 + 11.
        assert_eq!(a.send_matrix(2), Some(vec![24, 28, 40, 44]));
        assert_eq!(
            a.send_matrix(2).unwrap().iter().sum::<u64>(),
            m.iter().sum::<u64>()
        );
        assert_eq!(
            map_matrix(&[1, 2, 3, 4], 2, 3, true),
            vec![1, 2, 1, 3, 4, 3, 1, 2, 1]
        );
    }

    #[test]
    fn counts_survive_the_records_and_bad_ones_are_refused() {
        let r = counted("first", "alltoallv", (1..=16).collect());
        let back = Replay::of(&DelayModel::new(r.clone())).unwrap();
        assert_eq!(back.counts, r.counts);
        // A replay without counts stores no field, and reads back without.
        assert!(!replay("first").params().iter().any(|(n, _)| *n == "counts"));
        let back = Replay::of(&DelayModel::new(replay("first"))).unwrap();
        assert!(back.counts.is_empty());
        // Neither n nor n x n entries: no matrix; an operation without vectors: none.
        assert_eq!(
            counted("first", "alltoallv", vec![1, 2, 3]).send_matrix(2),
            None
        );
        assert_eq!(replay("first").send_matrix(2), None);
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
