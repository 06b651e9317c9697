//! Post-hoc clock correction (issue 8, item 4): global times recomputed from the recorded
//! local times with the best model the whole run supports, piecewise-linear interpolation of
//! each rank's offset between its drift-tracking probes, as trace tools correct timestamps
//! after the fact (Becker et al., "Implications of non-constant clock drifts for the
//! timestamps of concurrent events", 2008). The online model at a probe only knew the past;
//! interpolation also uses the next probe.

use crate::clock::shared::SharedVerdict;
use crate::records::{Block, ClockModel, ClockProbe, Header, Records};

/// Which global times analyses use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ClockChoice {
    /// The global times recorded during the run (online models).
    Online,
    /// Recomputed after the run from every probe (the default when the run has probes).
    Posthoc,
}

/// How the global times of an analysis were obtained, for reports.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockCorrection {
    /// Probes the post-hoc model interpolates between (0: online times kept).
    pub probes: usize,
    /// Ranks with their own probes.
    pub ranks: usize,
    /// Median over the probes of RTT/2, seconds: the bound on each probe's offset error.
    pub median_half_rtt_s: f64,
}

impl ClockCorrection {
    /// One line for reports.
    pub fn describe(&self) -> String {
        if self.probes == 0 {
            return "global times: online models (the run has no drift-tracking probes)".into();
        }
        format!(
            "global times: post-hoc, piecewise-linear between {} drift-tracking probes of {} \
             rank(s); each probe's offset is within RTT/2, median {:.3} us",
            self.probes,
            self.ranks,
            self.median_half_rtt_s * 1e6
        )
    }
}

/// One rank's offset to the global clock as a function of its local time: piecewise-linear
/// between points, the initial model before the first, the last online model after the last.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetTrack {
    before: ClockModel,
    /// (local time s, offset s), sorted by time.
    points: Vec<(f64, f64)>,
    after: ClockModel,
}

impl OffsetTrack {
    /// Offset (seconds, local − global) at local time `t` (seconds).
    pub fn offset_at(&self, t: f64) -> f64 {
        let pts = &self.points;
        match pts.iter().position(|&(pt, _)| pt >= t) {
            _ if pts.is_empty() => self.before.offset_at(t),
            Some(0) => self.before.offset_at(t) - self.before.offset_at(pts[0].0) + pts[0].1,
            None => {
                let (lt, lo) = pts[pts.len() - 1];
                self.after.offset_at(t) - self.after.offset_at(lt) + lo
            }
            Some(i) => {
                let ((t0, o0), (t1, o1)) = (pts[i - 1], pts[i]);
                o0 + (o1 - o0) * (t - t0) / (t1 - t0)
            }
        }
    }
}

/// The per-world-rank offset tracks of a run (ranks sharing a leader's clock get the
/// leader's), or `None` when the run has no probes.
pub fn offset_tracks(records: &Records) -> Option<Vec<OffsetTrack>> {
    let probes: Vec<ClockProbe> = records
        .blocks
        .iter()
        .flat_map(|b| b.clock_probes.iter().copied())
        .collect();
    offset_tracks_from(&records.header, &probes)
}

/// [`offset_tracks`] from the header and the run's probes, in measurement order (what a
/// streaming reader collects in a first pass).
pub(crate) fn offset_tracks_from(h: &Header, probes: &[ClockProbe]) -> Option<Vec<OffsetTrack>> {
    let n = h.world_size as usize;
    let mut points: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
    let mut last: Vec<ClockModel> = h.clock_sync.models.clone();
    last.resize(n, ClockModel::IDENTITY);
    let mut any = false;
    for probe in probes {
        let r = probe.world_rank as usize;
        if r < n && probe.t_local_s.is_finite() && probe.offset_s.is_finite() {
            points[r].push((probe.t_local_s, probe.offset_s));
            last[r] = probe.model;
            any = true;
        }
    }
    if !any {
        return None;
    }
    let mut tracks: Vec<OffsetTrack> = (0..n)
        .map(|r| {
            let mut pts = std::mem::take(&mut points[r]);
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            pts.dedup_by(|a, b| a.0 == b.0);
            OffsetTrack {
                before: h
                    .clock_sync
                    .models
                    .get(r)
                    .copied()
                    .unwrap_or(ClockModel::IDENTITY),
                points: pts,
                after: last[r],
            }
        })
        .collect();
    for (r, check) in h.clock_sync.shared.iter().enumerate().take(n) {
        if check.verdict == SharedVerdict::Shared && (check.leader as usize) < n {
            tracks[r] = tracks[check.leader as usize].clone();
        }
    }
    Some(tracks)
}

/// Rewrites every block's global start and end times from its local times with the
/// post-hoc tracks, and says what was done; with [`ClockChoice::Online`] or without probes
/// the records are left as recorded.
pub fn apply_clock_choice(records: &mut Records, choice: ClockChoice) -> ClockCorrection {
    let online = ClockCorrection {
        probes: 0,
        ranks: 0,
        median_half_rtt_s: f64::NAN,
    };
    if choice == ClockChoice::Online {
        return online;
    }
    let Some(tracks) = offset_tracks(records) else {
        return online;
    };
    let probes: Vec<ClockProbe> = records
        .blocks
        .iter()
        .flat_map(|b| b.clock_probes.iter().copied())
        .collect();
    for b in &mut records.blocks {
        correct_block(b, &tracks);
    }
    correction_from(Some(&probes))
}

/// Rewrites `b`'s global start and end times from its local times with the post-hoc tracks.
pub(crate) fn correct_block(b: &mut Block, tracks: &[OffsetTrack]) {
    let p = b.nprocs as usize;
    let world: Vec<usize> = (0..p)
        .map(|r| b.world_ranks.get(r).map_or(r, |&w| w as usize))
        .collect();
    for i in 0..b.t_start_local_s.0.len() {
        let track = world.get(i % p).and_then(|&w| tracks.get(w));
        if let Some(track) = track {
            let (t0, t1) = (b.t_start_local_s.0[i], b.t_end_local_s.0[i]);
            b.t_start_global_s.0[i] = t0 - track.offset_at(t0);
            b.t_end_global_s.0[i] = t1 - track.offset_at(t1);
        }
    }
}

/// What a correction from `probes` did (`None`: online times kept).
pub(crate) fn correction_from(probes: Option<&[ClockProbe]>) -> ClockCorrection {
    let Some(probes) = probes else {
        return ClockCorrection {
            probes: 0,
            ranks: 0,
            median_half_rtt_s: f64::NAN,
        };
    };
    let mut half_rtts: Vec<f64> = probes
        .iter()
        .map(|p| p.rtt_s / 2.0)
        .filter(|v| v.is_finite())
        .collect();
    half_rtts.sort_by(f64::total_cmp);
    let mut ranks: Vec<u32> = probes.iter().map(|p| p.world_rank).collect();
    ranks.sort();
    ranks.dedup();
    ClockCorrection {
        probes: half_rtts.len(),
        ranks: ranks.len(),
        median_half_rtt_s: half_rtts
            .get(half_rtts.len() / 2)
            .copied()
            .unwrap_or(f64::NAN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(points: Vec<(f64, f64)>) -> OffsetTrack {
        let slope = |s: f64| ClockModel {
            slope: s,
            intercept_s: 0.0,
            t_ref_s: 0.0,
        };
        OffsetTrack {
            before: slope(1e-6),
            points,
            after: slope(2e-6),
        }
    }

    #[test]
    fn interpolates_between_probes_and_extends_with_the_models_outside() {
        let t = track(vec![(10.0, 1e-3), (20.0, 2e-3)]);
        assert!((t.offset_at(15.0) - 1.5e-3).abs() < 1e-15);
        assert!((t.offset_at(10.0) - 1e-3).abs() < 1e-15);
        // Before: the initial model's slope (1 ppm) from the first probe.
        assert!((t.offset_at(5.0) - (1e-3 - 5e-6)).abs() < 1e-15);
        // After: the last online model's slope (2 ppm) from the last probe.
        assert!((t.offset_at(30.0) - (2e-3 + 20e-6)).abs() < 1e-15);
    }

    #[test]
    fn without_probes_the_initial_model_is_used() {
        let t = track(vec![]);
        assert!((t.offset_at(100.0) - 100e-6).abs() < 1e-15);
    }
}
