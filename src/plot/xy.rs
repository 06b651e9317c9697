//! Figures whose x axis is not P: free x–y panels (ECDFs, t_global over the run, timelines).
//! Plain data like [`super::spec`], drawn by [`super::render`] with the same header, warnings
//! and legend as the P figures.

use super::spec::{LegendEntry, SeriesStyle};

/// One axis of an [`XyPanel`]: its ends, whether it is log10, and its title with unit.
#[derive(Debug, Clone, PartialEq)]
pub struct XyAxis {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
    pub label: String,
}

/// A horizontal bar from `x0` to `x1` at height `y` (a timeline segment).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bar {
    pub y: f64,
    pub x0: f64,
    pub x1: f64,
    pub color: (u8, u8, u8),
    /// Half the bar's height, in y units.
    pub half_height: f64,
}

/// How the points of an [`XyLine`] are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Join {
    /// A staircase: horizontal to the next x, then vertical (an ECDF).
    Steps,
    /// Not joined: markers only (one point per repetition).
    Scatter,
}

/// A series of (x, y) points.
#[derive(Debug, Clone, PartialEq)]
pub struct XyLine {
    pub style: SeriesStyle,
    pub join: Join,
    pub points: Vec<(f64, f64)>,
}

/// One panel of an [`XyFigure`].
#[derive(Debug, Clone, PartialEq)]
pub struct XyPanel {
    pub title: String,
    pub x: XyAxis,
    pub y: XyAxis,
    /// Horizontal bars, drawn first.
    pub bars: Vec<Bar>,
    pub lines: Vec<XyLine>,
    /// Vertical reference lines at these x values, thin and dotted, with a short label.
    pub marks: Vec<(f64, String)>,
    /// Labels of integer y ticks (rank names in a timeline); empty: numeric labels.
    pub y_names: Vec<String>,
    /// A grid of coloured cells (a heatmap), drawn under everything else.
    pub heat: Option<HeatGrid>,
}

impl XyPanel {
    /// A panel of named rows of horizontal bars, one row per name of `y_names` (row 0 at
    /// the bottom, as the y axis runs): x from 0 to 5 % past `x_hi` (at least 1e-6, so that
    /// a panel of zeros still has an axis), titled `x_label`; y from −0.6 to n − 0.4, so that
    /// bars of half-height up to 0.4 stay inside. A ranking (the sites with the most
    /// waiting, the largest causes) draws its largest row at the top.
    pub fn ranked_bars(
        title: String,
        x_label: String,
        x_hi: f64,
        bars: Vec<Bar>,
        y_names: Vec<String>,
    ) -> XyPanel {
        let n = y_names.len();
        XyPanel {
            title,
            x: XyAxis {
                lo: 0.0,
                hi: (x_hi * 1.05).max(1e-6),
                log: false,
                label: x_label,
            },
            y: XyAxis {
                lo: -0.6,
                hi: n as f64 - 0.4,
                log: false,
                label: String::new(),
            },
            bars,
            lines: Vec::new(),
            marks: Vec::new(),
            y_names,
            heat: None,
        }
    }
}

/// A heatmap: `rows` × `cols` cells, cell (r, c) spanning x from `x0 + c·x_step` and y from
/// `y0 + r·y_step`, coloured by its value on the scale `lo..hi` ([`heat_color`]); NaN cells
/// (no valid value) are drawn in [`NO_VALUE_COLOR`].
#[derive(Debug, Clone, PartialEq)]
pub struct HeatGrid {
    pub rows: usize,
    pub cols: usize,
    pub x0: f64,
    pub x_step: f64,
    pub y0: f64,
    pub y_step: f64,
    /// `[rows][cols]`, in the figure's unit.
    pub values: Vec<f32>,
    pub lo: f64,
    pub hi: f64,
}

/// Colour of a heatmap cell without a value (no valid repetition in it).
pub const NO_VALUE_COLOR: (u8, u8, u8) = (235, 235, 235);

/// Stops of the heatmap colour scale, low to high: viridis (van der Walt and Smith 2015),
/// sampled at five points, perceptually uniform and readable in grey and with colour-vision
/// deficiencies.
const VIRIDIS: [(u8, u8, u8); 5] = [
    (68, 1, 84),
    (59, 82, 139),
    (33, 145, 140),
    (94, 201, 98),
    (253, 231, 37),
];

/// The colour of `v` on a scale from `lo` to `hi` (clamped), interpolated between the
/// [`VIRIDIS`] stops; [`NO_VALUE_COLOR`] for NaN.
pub fn heat_color(v: f64, lo: f64, hi: f64) -> (u8, u8, u8) {
    if v.is_nan() {
        return NO_VALUE_COLOR;
    }
    let t = if hi > lo {
        ((v - lo) / (hi - lo)).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * f).round() as u8;
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// A whole x–y figure: header, panels in a grid, legend below.
#[derive(Debug, Clone, PartialEq)]
pub struct XyFigure {
    /// File name without extension.
    pub stem: String,
    pub title: String,
    pub subtitle: String,
    /// The run's warnings, repeated under the subtitle.
    pub warnings: Vec<String>,
    pub panels: Vec<XyPanel>,
    pub legend: Vec<LegendEntry>,
}

/// The range `values` span, padded by 5 % on each side (a log axis pads by a factor), with
/// `log` chosen when the positive values span more than [`super::layout::LOG_Y_RATIO`].
/// `(0, 1)` linear when there is nothing.
pub fn span(values: impl IntoIterator<Item = f64>, from_zero: bool) -> (f64, f64, bool) {
    let vals: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
    let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if vals.is_empty() {
        return (0.0, 1.0, false);
    }
    if lo > 0.0 && hi / lo > super::layout::LOG_Y_RATIO {
        return (lo / 1.2, hi * 1.2, true);
    }
    let lo = if from_zero { lo.min(0.0) } else { lo };
    let pad = ((hi - lo) * 0.05).max(hi.abs() * 1e-3).max(1e-12);
    let lo = if from_zero && lo == 0.0 {
        0.0
    } else {
        lo - pad
    };
    (lo, hi + pad, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_colours_run_from_dark_to_light_and_mark_missing_values() {
        assert_eq!(heat_color(0.0, 0.0, 10.0), VIRIDIS[0]);
        assert_eq!(heat_color(10.0, 0.0, 10.0), VIRIDIS[4]);
        assert_eq!(heat_color(99.0, 0.0, 10.0), VIRIDIS[4]);
        assert_eq!(heat_color(5.0, 0.0, 10.0), VIRIDIS[2]);
        assert_eq!(heat_color(f64::NAN, 0.0, 10.0), NO_VALUE_COLOR);
    }

    #[test]
    fn span_pads_and_switches_to_log_over_two_decades() {
        let (lo, hi, log) = span([10.0, 20.0], false);
        assert!(!log && lo < 10.0 && lo > 9.0 && hi > 20.0 && hi < 21.0);
        let (lo, _, log) = span([10.0, 20.0], true);
        assert!(!log && lo == 0.0);
        let (lo, hi, log) = span([1.0, 500.0, f64::NAN], false);
        assert!(log && lo < 1.0 && hi > 500.0);
        assert_eq!(span([], false), (0.0, 1.0, false));
    }
}
