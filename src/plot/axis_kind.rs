//! One y-axis kind per figure. Each panel chooses a log axis when its values span more than
//! [`super::layout::LOG_Y_RATIO`]; side by side, a log panel among linear ones reads as a
//! different shape of the same data. So when the panels of a figure disagree, all go log
//! when every panel's values are positive, else all go linear.

use super::render::Drawable;

/// The y values (points and interval or bar ends) of each panel of `fig`.
fn panel_values(fig: &Drawable) -> Vec<Vec<f64>> {
    match fig {
        Drawable::Grid(f) => f
            .panels
            .iter()
            .map(|p| {
                p.series
                    .iter()
                    .flat_map(|s| {
                        s.values().map(|v| v.1).chain(
                            s.intervals
                                .iter()
                                .chain(&s.boxes)
                                .flat_map(|&(_, lo, hi)| [lo, hi]),
                        )
                    })
                    .filter(|v| v.is_finite())
                    .collect()
            })
            .collect(),
        Drawable::Custom(f) => f
            .panels
            .iter()
            .map(|p| {
                p.lines
                    .iter()
                    .flat_map(|l| l.points.iter().map(|pt| pt.1))
                    .filter(|v| v.is_finite())
                    .collect()
            })
            .collect(),
    }
}

/// The ends and kind of a y axis holding `values`: log pads by a factor, linear by 5 % and
/// starts at 0 when every value is positive (the figures' linear axes do).
fn ends(values: &[f64], log: bool) -> (f64, f64) {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        return (lo / 1.2, hi * 1.2);
    }
    let lo = lo.min(0.0);
    let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-3).max(1e-12);
    (if lo == 0.0 { 0.0 } else { lo - pad }, hi + pad)
}

/// Gives every panel of `fig` the same y-axis kind (see the module's description); a figure
/// whose panels agree, or whose axes are not values (heatmaps, named rows), is left alone.
pub fn one_axis_kind(fig: &mut Drawable) {
    let kinds: Vec<bool> = match fig {
        Drawable::Grid(f) => f.panels.iter().map(|p| p.y.log).collect(),
        Drawable::Custom(f) => {
            if f.panels
                .iter()
                .any(|p| p.heat.is_some() || !p.y_names.is_empty())
            {
                return;
            }
            f.panels.iter().map(|p| p.y.log).collect()
        }
    };
    if kinds.iter().all(|&k| k) || kinds.iter().all(|&k| !k) {
        return;
    }
    let values = panel_values(fig);
    let log = values.iter().flatten().all(|&v| v > 0.0);
    match fig {
        Drawable::Grid(f) => {
            for (p, v) in f.panels.iter_mut().zip(&values) {
                (p.y.lo, p.y.hi) = ends(v, log);
                p.y.log = log;
            }
        }
        Drawable::Custom(f) => {
            for (p, v) in f.panels.iter_mut().zip(&values) {
                (p.y.lo, p.y.hi) = ends(v, log);
                p.y.log = log;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::plot::fixtures::empty_figure;
    use crate::plot::layout::YAxis;
    use crate::plot::spec::{PanelSpec, SeriesSpec, SeriesStyle};

    fn panel(values: &[f64], log: bool) -> PanelSpec {
        PanelSpec {
            title: "p".into(),
            y: YAxis {
                lo: 1.0,
                hi: 2.0,
                log,
            },
            series: vec![SeriesSpec {
                name: "s".into(),
                style: SeriesStyle::new(false, (0, 0, 0)),
                points: values
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| (1 << i, Some(v)))
                    .collect(),
                intervals: Vec::new(),
                boxes: Vec::new(),
            }],
        }
    }

    #[test]
    fn panels_that_disagree_share_one_kind() {
        // One panel spans decades (log), the other not: both go log, all values positive.
        let mut f = empty_figure();
        f.panels = vec![panel(&[5.0, 5000.0], true), panel(&[10.0, 20.0], false)];
        let mut fig = Drawable::Grid(f);
        one_axis_kind(&mut fig);
        let Drawable::Grid(f) = &fig else {
            unreachable!()
        };
        assert!(f.panels.iter().all(|p| p.y.log), "{:?}", f.panels[1].y);
        assert!(f.panels[1].y.lo < 10.0 && f.panels[1].y.hi > 20.0);
        // A value at or below 0 has no place on a log axis: both go linear.
        let mut f = empty_figure();
        f.panels = vec![panel(&[5.0, 5000.0], true), panel(&[-10.0, 20.0], false)];
        let mut fig = Drawable::Grid(f);
        one_axis_kind(&mut fig);
        let Drawable::Grid(f) = &fig else {
            unreachable!()
        };
        assert!(f.panels.iter().all(|p| !p.y.log));
        assert!(f.panels[0].y.lo == 0.0 && f.panels[0].y.hi > 5000.0);
    }

    #[test]
    fn ends_start_linear_axes_at_zero_and_pad_log_ones_by_a_factor() {
        assert_eq!(ends(&[10.0, 20.0], false).0, 0.0);
        let (lo, hi) = ends(&[10.0, 1000.0], true);
        assert!((lo - 10.0 / 1.2).abs() < 1e-9 && (hi - 1200.0).abs() < 1e-9);
        assert!(ends(&[-5.0, 20.0], false).0 < -5.0);
    }
}
