//! Post-hoc clock correction: global times recomputed after the run from the recorded local
//! times with the best model the whole run supports, a piecewise-linear interpolation of each
//! rank's offset between its drift-tracking probes, as trace tools correct timestamps after the
//! fact (Becker, Rabenseifner, Wolf and Linford, "Implications of non-constant clock drifts for
//! the timestamps of concurrent events", 2008). The online model at a probe only knew the past;
//! interpolation also uses the next probe.
//!
//! Plain data in, plain data out: the records layer stores the models and probes, the timeline
//! applies the tracks to blocks.

use super::{ClockModel, ClockProbe};

/// One rank's offset to the global clock as a function of its local time: piecewise-linear
/// between probes, the initial model's slope before the first, the last online model's slope
/// after the last.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetTrack {
    before: ClockModel,
    /// (local time s, offset s), sorted by time, one per distinct time.
    points: Vec<(f64, f64)>,
    after: ClockModel,
}

impl OffsetTrack {
    /// Offset (seconds, local − global) at local time `t` (seconds).
    pub fn offset_at(&self, t: f64) -> f64 {
        let pts = &self.points;
        // Probes are few (one per block or per `--track-every`), blocks ask in time order:
        // a binary search keeps a 10^8-event file from paying a linear scan per event.
        match pts.partition_point(|&(pt, _)| pt < t) {
            _ if pts.is_empty() => self.before.offset_at(t),
            0 => self.before.offset_at(t) - self.before.offset_at(pts[0].0) + pts[0].1,
            i if i == pts.len() => {
                let (lt, lo) = pts[pts.len() - 1];
                self.after.offset_at(t) - self.after.offset_at(lt) + lo
            }
            i => interpolate_offset(pts[i - 1], pts[i], t),
        }
    }

    /// Global time (seconds) of local time `t` (seconds).
    pub fn to_global(&self, t: f64) -> f64 {
        t - self.offset_at(t)
    }
}

/// Offset (seconds) at local time `t` (seconds) on the straight line through two
/// synchronisation points `(local time s, offset s)`: the one linear interpolation of a clock
/// offset in delaybench, between two drift-tracking probes here and between a capture's
/// `MPI_Init` and `MPI_Finalize` synchronisations in [`crate::capture::RankCapture::to_global`]
/// (as Score-P corrects its timestamps, Knüpfer et al. 2012). Outside `[t0, t1]` it extends
/// the same line. `t1` must differ from `t0` (else the result is not finite).
pub fn interpolate_offset((t0, o0): (f64, f64), (t1, o1): (f64, f64), t: f64) -> f64 {
    // The order of the operations is part of the results: the post-hoc global times of
    // every records file were computed with it.
    o0 + (o1 - o0) * (t - t0) / (t1 - t0)
}

/// The per-world-rank offset tracks of a run, or `None` when no probe has a finite time and
/// offset (nothing to correct with).
///
/// - `initial`: per world rank, the model of the initial synchronisation (missing ranks: the
///   identity);
/// - `leaders`: per world rank, `Some(leader)` when it shares that leader's clock, so it takes
///   the leader's track;
/// - `probes`: every probe of the run, in measurement order.
pub fn offset_tracks(
    initial: &[ClockModel],
    leaders: &[Option<usize>],
    world_size: usize,
    probes: &[ClockProbe],
) -> Option<Vec<OffsetTrack>> {
    let n = world_size;
    let model_of = |r: usize| initial.get(r).copied().unwrap_or(ClockModel::IDENTITY);
    let mut points: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
    let mut last: Vec<ClockModel> = (0..n).map(model_of).collect();
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
                before: model_of(r),
                points: pts,
                after: last[r],
            }
        })
        .collect();
    for (r, leader) in leaders.iter().enumerate().take(n) {
        if let Some(l) = leader.filter(|&l| l < n) {
            tracks[r] = tracks[l].clone();
        }
    }
    Some(tracks)
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
        assert!((t.offset_at(20.0) - 2e-3).abs() < 1e-15);
        // Before: the initial model's slope (1 ppm) from the first probe.
        assert!((t.offset_at(5.0) - (1e-3 - 5e-6)).abs() < 1e-15);
        // After: the last online model's slope (2 ppm) from the last probe.
        assert!((t.offset_at(30.0) - (2e-3 + 20e-6)).abs() < 1e-15);
        assert!((t.to_global(15.0) - (15.0 - 1.5e-3)).abs() < 1e-12);
    }

    #[test]
    fn the_interpolation_is_the_line_through_both_points_also_outside() {
        let (a, b) = ((10.0, 1.0), (20.0, 3.0));
        assert_eq!(interpolate_offset(a, b, 10.0), 1.0);
        assert_eq!(interpolate_offset(a, b, 15.0), 2.0);
        assert_eq!(interpolate_offset(a, b, 20.0), 3.0);
        assert_eq!(interpolate_offset(a, b, 25.0), 4.0);
        assert_eq!(interpolate_offset(a, b, 5.0), 0.0);
    }

    #[test]
    fn without_probes_the_initial_model_is_used() {
        let t = track(vec![]);
        assert!((t.offset_at(100.0) - 100e-6).abs() < 1e-15);
    }

    #[test]
    fn ranks_sharing_a_clock_take_their_leaders_track_and_no_probe_means_none() {
        let probe = |r: u32, t: f64, o: f64| ClockProbe {
            world_rank: r,
            t_local_s: t,
            offset_s: o,
            rtt_s: 1e-6,
            before_rep: 0,
            model: ClockModel::offset_only(o),
        };
        let initial = [ClockModel::IDENTITY, ClockModel::offset_only(1e-3)];
        let leaders = [None, None, Some(1)];
        let tracks = offset_tracks(&initial, &leaders, 3, &[probe(1, 5.0, 2e-3)]).unwrap();
        assert_eq!(tracks[2], tracks[1]);
        assert!((tracks[1].offset_at(5.0) - 2e-3).abs() < 1e-15);
        // Rank 0 has no probe: its initial model throughout.
        assert_eq!(tracks[0].offset_at(5.0), 0.0);
        assert!(offset_tracks(&initial, &leaders, 3, &[probe(1, f64::NAN, 0.0)]).is_none());
    }
}
