//! Fewer points for the figures that draw every valid repetition (the t_global ECDF and
//! t_global over the run). A figure is about a thousand pixels wide, but its SVG holds one
//! element per point: at 10^8 rank-repetitions (6.25 million valid repetitions) `plot` peaked
//! at 864 MB, most of it the drawings. Series longer than [`MAX_POINTS`] are thinned so that
//! what a reader can see stays: the ECDF's shape and, over the run, every bin's extremes.

/// Most points a series of one figure keeps.
pub const MAX_POINTS: usize = 2000;

/// An ascending ECDF staircase with at most `max` points: points evenly spaced in rank,
/// always the first (fraction 0) and the last (fraction 1). The fractions are untouched, so
/// the thinned curve lies on the full one; steps narrower than 1/`max` merge.
pub fn thin_ecdf(points: Vec<(f64, f64)>, max: usize) -> Vec<(f64, f64)> {
    let n = points.len();
    if n <= max || max < 2 {
        return points;
    }
    (0..max).map(|i| points[i * (n - 1) / (max - 1)]).collect()
}

/// A scatter series in x order with at most `max` points: consecutive points are split into
/// `max / 2` bins and each bin keeps its lowest and its highest point (in x order), so
/// outliers stay visible wherever they are.
pub fn thin_scatter(points: Vec<(f64, f64)>, max: usize) -> Vec<(f64, f64)> {
    let n = points.len();
    let bins = max / 2;
    if n <= max || bins == 0 {
        return points;
    }
    let mut out = Vec::with_capacity(2 * bins);
    for b in 0..bins {
        let bin = &points[b * n / bins..(b + 1) * n / bins];
        let lowest = bin
            .iter()
            .enumerate()
            .min_by(|a, b| a.1 .1.total_cmp(&b.1 .1));
        let highest = bin
            .iter()
            .enumerate()
            .max_by(|a, b| a.1 .1.total_cmp(&b.1 .1));
        if let (Some((i, &lo)), Some((j, &hi))) = (lowest, highest) {
            match i.cmp(&j) {
                std::cmp::Ordering::Less => out.extend([lo, hi]),
                std::cmp::Ordering::Greater => out.extend([hi, lo]),
                std::cmp::Ordering::Equal => out.push(lo),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_series_are_untouched() {
        let p: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, i as f64)).collect();
        assert_eq!(thin_ecdf(p.clone(), 10), p);
        assert_eq!(thin_scatter(p.clone(), 10), p);
    }

    #[test]
    fn ecdf_keeps_both_ends_and_stays_on_the_curve() {
        let p: Vec<(f64, f64)> = (0..=1000)
            .map(|i| (i as f64 * 2.0, i as f64 / 1000.0))
            .collect();
        let t = thin_ecdf(p.clone(), 11);
        assert_eq!(t.len(), 11);
        assert_eq!((t[0], t[10]), (p[0], p[1000]));
        assert!(t.iter().all(|q| p.contains(q)));
        assert!(t.windows(2).all(|w| w[0].1 <= w[1].1));
    }

    #[test]
    fn scatter_keeps_every_bins_extremes_in_order() {
        let mut p: Vec<(f64, f64)> = (0..10_000).map(|i| (i as f64, 5.0)).collect();
        p[1234].1 = 900.0; // a lone outlier
        p[8765].1 = -3.0;
        let t = thin_scatter(p, 100);
        assert!(t.len() <= 100);
        assert!(t.contains(&(1234.0, 900.0)) && t.contains(&(8765.0, -3.0)));
        assert!(t.windows(2).all(|w| w[0].0 < w[1].0), "x order kept");
    }
}
