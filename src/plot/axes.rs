//! The axes of a figure as plotters coordinates ([`Ranged`]): P on a log2 scale, y linear or
//! log10, and the axes of x–y panels; where values land in pixels and where grid lines and
//! labels go. [`super::render`] draws with them.

use super::layout::{Log2Axis, YAxis};
use super::xy::XyAxis;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use std::ops::Range;

/// The P axis for plotters: values are P, placed at log2(P) between the ends of a
/// [`Log2Axis`]. Labelled grid lines sit at the axis ticks; P values thinned out of the labels
/// still get a faint grid line, so every measured P is visible.
pub(super) struct PAxis {
    lo: f64,
    hi: f64,
    bold: Vec<f64>,
    light: Vec<f64>,
}

impl PAxis {
    pub(super) fn new(axis: &Log2Axis, procs: &[u32]) -> PAxis {
        PAxis {
            lo: axis.lo,
            hi: axis.hi,
            bold: axis.ticks.iter().map(|&p| f64::from(p)).collect(),
            light: procs
                .iter()
                .filter(|p| !axis.ticks.contains(p))
                .map(|&p| f64::from(p))
                .collect(),
        }
    }
}

impl Ranged for PAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, p: &f64, limit: (i32, i32)) -> i32 {
        let frac = (p.log2() - self.lo) / (self.hi - self.lo);
        limit.0 + (frac * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.light.clone()
        } else {
            self.bold.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.lo.exp2()..self.hi.exp2()
    }
}

/// The y axis for plotters: linear or log10 between the ends of a [`YAxis`], grid lines at its
/// ticks.
pub(super) struct YRanged(pub(super) YAxis);

impl YRanged {
    fn frac(&self, v: f64) -> f64 {
        let YAxis { lo, hi, log } = self.0;
        if log {
            // A non-positive value has no place on a log axis; pin it to the bottom.
            (v.max(lo).log10() - lo.log10()) / (hi.log10() - lo.log10())
        } else {
            (v - lo) / (hi - lo)
        }
    }
}

impl Ranged for YRanged {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        limit.0 + (self.frac(*v) * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.0.minor_ticks()
        } else {
            self.0.ticks()
        }
    }

    fn range(&self) -> Range<f64> {
        self.0.lo..self.0.hi
    }
}

/// An axis of an x–y panel for plotters: a [`YAxis`] (linear or log10), with integer ticks
/// instead of "nice" ones when the panel names its y values (ranks of a timeline).
pub(super) struct XyRanged {
    axis: YAxis,
    /// Explicit tick positions (the named ranks of a timeline); `None`: "nice" ticks.
    ticks: Option<Vec<f64>>,
}

impl XyRanged {
    pub(super) fn new(a: &XyAxis, ticks: Option<Vec<f64>>) -> XyRanged {
        XyRanged {
            axis: YAxis {
                lo: a.lo,
                hi: a.hi,
                log: a.log,
            },
            ticks,
        }
    }
}

impl Ranged for XyRanged {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        YRanged(self.axis).map(v, limit)
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if let Some(ticks) = &self.ticks {
            if hint.weight().allow_light_points() {
                return Vec::new();
            }
            return ticks.clone();
        }
        YRanged(self.axis).key_points(hint)
    }

    fn range(&self) -> Range<f64> {
        self.axis.lo..self.axis.hi
    }
}
