//! Learning a linear clock model between two ranks by regression over fit points: the RTT
//! estimate of Algorithm 3 and LEARN_MODEL_HCA of Algorithm 4 (Hunold and Carpen-Amarie 2015,
//! §6), used by `jk` and `hca`, and the low-RTT median fit points used by `treefit`.
//!
//! One addition to the paper: fit points can be spread in time ([`FitParams::fit_interval_s`]).
//! The slope error of a regression falls with the time span of its points; back-to-back
//! exchanges on a fast network span only milliseconds, so the paper needs hundreds of fit
//! points of tens of exchanges each for its slopes. With `fit_interval_s = 0` the exchanges
//! run back to back as in the paper.

use super::pingpong::{ping, send_stop, serve_pings, Exchange};
use super::regression::linear_fit;
use super::sync::Stats;
use super::Transport;
use crate::clock::ClockModel;
use crate::wire::Wire;

/// Warm-up ping-pongs before the RTT estimate (WARMUP_ROUNDS of Algorithm 3; 5 as in the
/// authors' ReproMPI code).
pub const WARMUP_PINGPONGS: u32 = 5;

/// Parameters of one pairwise model fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitParams {
    /// N_FITPTS: points of the regression (Hunold and Carpen-Amarie 2015, §6).
    pub fitpoints: u32,
    /// N_EXCHANGES: ping-pongs per fit point (Hunold and Carpen-Amarie 2015, §6).
    pub exchanges_per_fitpoint: u32,
    /// Seconds between the starts of consecutive fit points (0: back to back, as in Hunold and Carpen-Amarie 2015).
    pub fit_interval_s: f64,
    /// N_PINGPONGS of Algorithm 3: ping-pongs of the RTT estimate.
    pub rtt_pingpongs: u32,
}

/// How one fit point is taken from its N_EXCHANGES ping-pongs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum PointRule {
    /// Algorithm 4: offset of each exchange = local receive time − remote time − RTT/2 with
    /// the RTT estimate of Algorithm 3; the point is the (lower) median offset, at the local
    /// receive time of that exchange.
    Median { rtt_s: f64 },
    /// The quarter of the exchanges with the smallest RTTs (at least one; Hoefler et al. 2010, §3.1 keeps "the
    /// 25% of the results that had the smallest roundtrip time"); the point is the median of
    /// their offsets by Niethammer et al. 2016, eq. 2-3, at the local mid-time of that exchange.
    LowRttMedian,
    /// SKaMPI's causality bounds over the point's exchanges (HCA3's offset per fit point):
    /// the peer read g while this clock was between t0 and t1, so the offset local − peer
    /// lies in [t0 − g, t1 − g]; the point is the midpoint of the tightest bounds, at the
    /// local mid-time of the last exchange.
    Bounds,
}

/// COMPUTE_RTT, client side (Hunold and Carpen-Amarie 2015, Algorithm 3): WARMUP_PINGPONGS dummy ping-pongs, then
/// `pingpongs` timed ones against `reference` (which runs [`serve_pings`]); outliers above 1.5
/// times the upper quartile are removed (REMOVE_OUTLIERS as in the authors' ReproMPI code) and
/// the mean of the rest is returned, seconds. Does not stop the reference.
pub fn estimate_rtt(t: &dyn Transport, reference: usize, pingpongs: u32) -> f64 {
    for _ in 0..WARMUP_PINGPONGS {
        ping(t, reference, false);
    }
    let mut rtts: Vec<f64> = (0..pingpongs.max(1))
        .map(|_| ping(t, reference, false).rtt_s())
        .collect();
    rtts.sort_by(f64::total_cmp);
    let cutoff = 1.5 * quantile_sorted(&rtts, 0.75);
    let kept: Vec<f64> = rtts.into_iter().filter(|&r| r <= cutoff).collect();
    kept.iter().sum::<f64>() / kept.len() as f64
}

/// Quantile of sorted data with linear interpolation between order statistics at
/// (n − 1)·q (GSL's `gsl_stats_quantile_from_sorted_data`, R's type 7).
///
/// Not the type 8 estimator of the percentiles the tool prints (`analysis::stats`): this is
/// a step of the fit, the outlier cutoff of REMOVE_OUTLIERS, and it follows the authors'
/// ReproMPI code, which calls GSL, so the fit matches the published method; nothing prints it.
fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    let pos = (sorted.len() - 1) as f64 * q;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (pos - lo as f64) * (sorted[hi] - sorted[lo])
}

/// LEARN_MODEL_HCA, client side (Hunold and Carpen-Amarie 2015, Algorithm 3 then Algorithm
/// 4): estimates the RTT, takes `fitpoints` fit points of `exchanges_per_fitpoint`
/// ping-pongs each against `reference`, fits offset (client − reference) against local time
/// by least squares, stops the reference, and returns the regression model (slope and the
/// regression's own intercept), counting the exchanges in `stats`. The reference runs
/// [`serve_model`].
pub(crate) fn learn_model(
    t: &dyn Transport,
    reference: usize,
    p: &FitParams,
    stats: &mut Stats,
) -> ClockModel {
    let rtt_s = estimate_rtt(t, reference, p.rtt_pingpongs);
    stats.exchanges += WARMUP_PINGPONGS + p.rtt_pingpongs.max(1);
    let model = fit_points_model(t, reference, p, PointRule::Median { rtt_s }, stats);
    stop_with_model(t, reference, &model);
    model
}

/// Client side of [`serve_model`]: ends the reference's serving loop, handing it `model`.
pub(crate) fn stop_with_model(t: &dyn Transport, reference: usize, model: &ClockModel) {
    let mut payload = Vec::with_capacity(ClockModel::LEN);
    model.put(&mut payload);
    send_stop(t, reference, [payload[0], payload[1], payload[2]]);
}

/// Serves a client's fit with `clock` until STOP; the STOP payload is the client's model
/// (sent with [`stop_with_model`]).
pub(crate) fn serve_model(
    t: &dyn Transport,
    client: usize,
    clock: &dyn Fn() -> f64,
    stats: &mut Stats,
) -> ClockModel {
    let served = serve_pings(t, client, clock);
    stats.exchanges += served.answered;
    ClockModel::take(&served.payload)
}

/// The top-down client of treefit and HCA3: warm-up ping-pongs, a fit of `rule` points
/// against `reference`'s global clock, and the model sent back with the STOP. Returns it.
pub(crate) fn warmed_fit_and_stop(
    t: &dyn Transport,
    reference: usize,
    fit: &FitParams,
    rule: PointRule,
    stats: &mut Stats,
) -> ClockModel {
    for _ in 0..WARMUP_PINGPONGS {
        ping(t, reference, false);
    }
    stats.exchanges += WARMUP_PINGPONGS;
    let model = fit_points_model(t, reference, fit, rule, stats);
    stop_with_model(t, reference, &model);
    model
}

/// Takes the fit points against `reference` (paced by `fit_interval_s`) and returns the
/// least-squares model of offset (this rank − reference clock) vs local time ([`points_model`]:
/// slope 0 when not significant). Does not stop the reference.
pub(crate) fn fit_points_model(
    t: &dyn Transport,
    reference: usize,
    p: &FitParams,
    rule: PointRule,
    stats: &mut Stats,
) -> ClockModel {
    let n_points = p.fitpoints.max(1) as usize;
    let n_ex = p.exchanges_per_fitpoint.max(1) as usize;
    // Slots on the local clock (its rate differs from true time by ppm: irrelevant here).
    let interval = p.fit_interval_s.max(0.0);
    let start = t.now();
    let (mut xs, mut ys) = (Vec::with_capacity(n_points), Vec::with_capacity(n_points));
    let mut exchanges: Vec<Exchange> = Vec::with_capacity(n_ex);
    for k in 0..n_points {
        let slot = start + interval * k as f64;
        let now = t.now();
        if slot > now {
            t.pause(slot - now);
        }
        let next_slot = slot + interval;
        exchanges.clear();
        for i in 0..n_ex {
            // Before a pause of more than 1 ms, let the reference wait without spinning.
            let then_idle = i + 1 == n_ex && k + 1 < n_points && next_slot - t.now() > 1e-3;
            exchanges.push(ping(t, reference, then_idle));
        }
        stats.exchanges += n_ex as u32;
        let (x, y) = match rule {
            PointRule::Median { rtt_s } => median_point(&exchanges, rtt_s),
            PointRule::LowRttMedian => low_rtt_median_point(&mut exchanges),
            PointRule::Bounds => bounds_point(&exchanges),
        };
        for ex in &exchanges {
            stats.measured(ex.rtt_s());
        }
        xs.push(x);
        ys.push(y);
    }
    points_model(&xs, &ys, stats)
}

/// The least-squares model through fit points (x local time, y offset), its slope set to 0
/// when not significant ([`LinearFit::to_model`](super::LinearFit::to_model));
/// the slope test goes into `stats`. An offset-only model at the last point when the
/// regression is degenerate (a single fit point).
pub(crate) fn points_model(xs: &[f64], ys: &[f64], stats: &mut Stats) -> ClockModel {
    match linear_fit(xs, ys) {
        Some(fit) => {
            stats.slope_se = fit.slope_se;
            stats.slope_significant = fit.slope_significant();
            stats.slope_sxx_s2 = fit.sxx;
            fit.to_model()
        }
        None => ClockModel::through(0.0, xs[xs.len() - 1], ys[ys.len() - 1]),
    }
}

/// Algorithm 4 lines 14-19: offsets local − remote − rtt/2 at the local receive time; the
/// fit point is the lower median offset and the receive time of its exchange.
pub(crate) fn median_point(exchanges: &[Exchange], rtt_s: f64) -> (f64, f64) {
    let diffs: Vec<(f64, f64)> = exchanges
        .iter()
        .map(|e| (e.t1, e.t1 - e.remote - rtt_s / 2.0))
        .collect();
    let mut sorted: Vec<f64> = diffs.iter().map(|d| d.1).collect();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[(sorted.len() - 1) / 2];
    *diffs
        .iter()
        .find(|d| d.1 == median)
        .expect("median is one of the offsets")
}

/// [`PointRule::Bounds`]: midpoint of the tightest causality bounds on the offset local −
/// peer, at the local mid-time of the last exchange.
pub(crate) fn bounds_point(exchanges: &[Exchange]) -> (f64, f64) {
    let lo = exchanges
        .iter()
        .map(|e| e.t0 - e.remote)
        .fold(f64::MIN, f64::max);
    let hi = exchanges
        .iter()
        .map(|e| e.t1 - e.remote)
        .fold(f64::MAX, f64::min);
    let last = exchanges[exchanges.len() - 1];
    (last.local_mid_s(), (lo + hi) / 2.0)
}

/// The median offset (this rank − peer, Niethammer et al. 2016, eq. 2-3) of the quarter of `exchanges` with the
/// smallest RTTs (lower median), at the local mid-time of that exchange. Reorders
/// `exchanges`.
pub(crate) fn low_rtt_median_point(exchanges: &mut [Exchange]) -> (f64, f64) {
    exchanges.sort_by(|a, b| a.rtt_s().total_cmp(&b.rtt_s()));
    let keep = exchanges.len().div_ceil(4).max(1);
    let best = &mut exchanges[..keep];
    best.sort_by(|a, b| b.peer_offset_s().total_cmp(&a.peer_offset_s()));
    let e = best[(keep - 1) / 2];
    (e.local_mid_s(), -e.peer_offset_s())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_interpolates_like_gsl() {
        // n = 5, q = 0.75: position 4 · 0.75 = 3 -> the 4th value.
        assert_eq!(quantile_sorted(&[1.0, 2.0, 3.0, 4.0, 10.0], 0.75), 4.0);
        // n = 4, q = 0.75: position 2.25 -> 3 + 0.25 · (4 − 3) = 3.25.
        assert_eq!(quantile_sorted(&[1.0, 2.0, 3.0, 4.0], 0.75), 3.25);
    }

    #[test]
    fn low_rtt_median_point_by_hand() {
        // Exchanges (t0, t1, remote), Δ = 0; the point's offset is mid − remote with
        // mid = (t0 + t1)/2. RTTs 5, 1, 4, 2, 6, 7, 8, 9: the quarter kept (2 of 8) are the
        // RTT-1 exchange (mid 10.5, remote 0.5: offset 10.0) and the RTT-2 one (mid 31,
        // remote 20.8: offset 10.2). Lower median of {10.0, 10.2}: 10.0 at 10.5.
        let ex = |t0: f64, t1: f64, remote: f64| Exchange {
            t0,
            remote,
            t1,
            t2: t1,
        };
        let mut exchanges = [
            ex(0.0, 5.0, -100.0),
            ex(10.0, 11.0, 0.5),
            ex(20.0, 24.0, 100.0),
            ex(30.0, 32.0, 20.8),
            ex(40.0, 46.0, -100.0),
            ex(50.0, 57.0, 100.0),
            ex(60.0, 68.0, -100.0),
            ex(70.0, 79.0, 100.0),
        ];
        let (x, y) = low_rtt_median_point(&mut exchanges);
        assert_eq!(x, 10.5);
        assert!((y - 10.0).abs() < 1e-12, "{y}");
    }

    #[test]
    fn bounds_point_by_hand() {
        // Offsets local − remote lie in [t0 − g, t1 − g]: [10 − 4, 14 − 4] = [6, 10] and
        // [20 − 12.5, 23 − 12.5] = [7.5, 10.5]; tightest [7.5, 10], midpoint 8.75, at the
        // last exchange's mid-time 21.5.
        let ex = |t0: f64, t1: f64, remote: f64| Exchange {
            t0,
            remote,
            t1,
            t2: t1,
        };
        let p = bounds_point(&[ex(10.0, 14.0, 4.0), ex(20.0, 23.0, 12.5)]);
        assert_eq!(p, (21.5, 8.75));
    }

    #[test]
    fn median_point_takes_the_lower_median_exchange() {
        let ex = |t1: f64, remote: f64| Exchange {
            t0: t1 - 2.0,
            remote,
            t1,
            t2: t1,
        };
        // rtt/2 = 1: offsets 10−5−1 = 4, 11−9−1 = 1, 12−8−1 = 3, 13−12−1 = 0.
        // Sorted 0, 1, 3, 4: lower median (index 1) = 1, from the exchange at t1 = 11.
        let exchanges = [ex(10.0, 5.0), ex(11.0, 9.0), ex(12.0, 8.0), ex(13.0, 12.0)];
        assert_eq!(median_point(&exchanges, 2.0), (11.0, 1.0));
    }
}
