//! What a figure shows, as plain data: panels, series, points, styles and legend entries.
//!
//! The figure builders ([`super::benefit`], [`super::tglobal`]) turn summary rows into a
//! [`FigureSpec`] without drawing anything, so grouping and styling are unit-tested; the
//! renderer ([`super::render`]) draws any spec the same way to PNG and SVG.

use super::layout::YAxis;
use crate::plan::Op;

/// Marker shape of a series: blocking kernels get filled circles, nonblocking ones hollow
/// squares, as in the paper's figures (circles vs squares), so coinciding points stay visible.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Square,
    /// No marker: reference lines such as the benefit ceiling, which are not measurements.
    None,
    /// A filled box without a line: a colour of a heatmap's scale, in legends only.
    Swatch,
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesStyle {
    /// Line and marker colour, RGB.
    pub color: (u8, u8, u8),
    /// Dashed line (nonblocking kernels) instead of solid (blocking).
    pub dashed: bool,
    pub marker: Marker,
    /// Thin dotted line (a reference such as the benefit ceiling, not a measurement).
    pub reference: bool,
}

impl SeriesStyle {
    /// Style of a kernel in colour `color`: solid with circles when blocking, dashed with
    /// squares when nonblocking, dashed with circles when persistent (a form that meets both
    /// others in a family's panel).
    pub fn for_op(op: Op, color: (u8, u8, u8)) -> SeriesStyle {
        let mut style = SeriesStyle::new(op.is_nonblocking(), color);
        if op.is_persistent() {
            style.dashed = true;
        }
        style
    }

    /// Style of a blocking (`nonblocking = false`) or nonblocking series in colour `color`.
    pub fn new(nonblocking: bool, color: (u8, u8, u8)) -> SeriesStyle {
        SeriesStyle {
            color,
            dashed: nonblocking,
            marker: if nonblocking {
                Marker::Square
            } else {
                Marker::Circle
            },
            reference: false,
        }
    }

    /// Style of a reference line in colour `color`: thin, dotted, no marker.
    pub fn reference(color: (u8, u8, u8)) -> SeriesStyle {
        SeriesStyle {
            color,
            dashed: true,
            marker: Marker::None,
            reference: true,
        }
    }
}

/// Colour of the series under delay δ in t_global figures (the paper's blue).
pub const DELAYED_COLOR: (u8, u8, u8) = (0, 114, 178);
/// Colour of the undelayed baseline in t_global figures (the paper's black, softened so the
/// delayed series stays in front).
pub const BASELINE_COLOR: (u8, u8, u8) = (60, 60, 60);

/// Position of `op`'s family among the kernel families, for colours and ordering (the
/// registry's [`crate::plan::kernel::Family::index`]).
pub fn family_index(op: Op) -> usize {
    op.family().index()
}

/// The colour shared by a blocking kernel and its nonblocking form (the registry's
/// [`crate::plan::kernel::Family::color`]: one per family, no two alike).
pub fn family_color(op: Op) -> (u8, u8, u8) {
    op.family().color()
}

/// Sort key that puts each blocking kernel right before its nonblocking form and then its
/// persistent form, families in registry order (barrier, ibarrier, barrier_persistent, bcast,
/// ibcast, ...).
pub fn op_order(op: Op) -> (usize, crate::plan::kernel::Form) {
    (family_index(op), op.form())
}

/// One line of a panel.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesSpec {
    /// Says what the series is (e.g. `iallreduce` or `allreduce, δ = 0`); shown in the panel
    /// when the series has no point, so a missing line is explained rather than silent.
    pub name: String,
    pub style: SeriesStyle,
    /// (P, y) in ascending P, y in the figure's unit (% or µs); `None` where a configuration
    /// was measured but has no value (no valid repetition, no baseline).
    pub points: Vec<(u32, Option<f64>)>,
    /// Confidence intervals drawn as error bars: (x, low, high) in the figure's unit; empty
    /// when the statistic has none (minima) or the series is a reference line.
    pub intervals: Vec<(u32, f64, f64)>,
    /// Boxes drawn as wide translucent bars: (x, low, high), e.g. the interquartile range of
    /// a distribution whose whiskers are the `intervals`; usually empty.
    pub boxes: Vec<(u32, f64, f64)>,
}

impl SeriesSpec {
    /// The points that have a value.
    pub fn values(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.points.iter().filter_map(|&(p, v)| v.map(|v| (p, v)))
    }

    /// The stretches of consecutive points with values. Lines are drawn within a stretch only:
    /// a line across a missing value would suggest a measurement that does not exist.
    pub fn runs(&self) -> Vec<Vec<(u32, f64)>> {
        let mut runs: Vec<Vec<(u32, f64)>> = Vec::new();
        let mut open = false;
        for &(p, v) in &self.points {
            match v {
                Some(v) if open => runs.last_mut().expect("open run").push((p, v)),
                Some(v) => {
                    runs.push(vec![(p, v)]);
                    open = true;
                }
                None => open = false,
            }
        }
        runs
    }
}

/// One panel: a title, its y range and its lines.
#[derive(Debug, Clone, PartialEq)]
pub struct PanelSpec {
    pub title: String,
    /// The y axis, in the figure's unit.
    pub y: YAxis,
    pub series: Vec<SeriesSpec>,
}

/// One entry of the figure legend.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendEntry {
    pub label: String,
    pub style: SeriesStyle,
}

/// A whole figure: a grid of panels sharing the x axis (P) and one legend for all panels,
/// drawn below them so it never covers data.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureSpec {
    /// File name without extension.
    pub stem: String,
    pub title: String,
    /// One line under the title on how to read the figure.
    pub subtitle: String,
    pub x_label: String,
    pub y_label: String,
    /// Every P of the figure, ascending; each panel's x axis spans all of them so panels line
    /// up and can be compared by eye.
    pub procs: Vec<u32>,
    pub panels: Vec<PanelSpec>,
    pub legend: Vec<LegendEntry>,
    /// Draw a horizontal line at y = 0 (the benefit's "delay just adds" level).
    pub zero_line: bool,
    /// Set the series of a panel slightly apart in x (not the references), so error bars and
    /// boxes of series at the same P do not cover each other.
    pub dodge: bool,
    /// How x values are labelled: process counts or message sizes.
    pub x_format: XFormat,
    /// Distinct hosts per P: tick labels read `P (hosts)` when they differ between
    /// P; empty when the records do not say.
    pub hosts: Vec<(u32, u32)>,
    /// The run's warnings ([`crate::analysis::run_warnings`]), repeated under the subtitle so
    /// a figure shown alone still says what to distrust.
    pub warnings: Vec<String>,
}

/// What the x values of a [`FigureSpec`] are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum XFormat {
    /// Process counts P: `64`.
    #[default]
    Count,
    /// Message sizes in bytes: `64 KiB`.
    Bytes,
}

impl FigureSpec {
    /// The label of x tick `x`: a count (with its host count when the figure's P span
    /// different numbers of hosts) or a size.
    pub fn x_tick_label(&self, x: u32) -> String {
        match self.x_format {
            XFormat::Bytes => super::naming::pretty_bytes(u64::from(x)),
            XFormat::Count if self.hosts_differ() => {
                match self.hosts.iter().find(|(p, _)| *p == x) {
                    Some((_, h)) => format!("{x} ({h})"),
                    None => x.to_string(),
                }
            }
            XFormat::Count => x.to_string(),
        }
    }

    /// The x axis title: with `(hosts)` when ticks carry host counts, or the one host count
    /// every P shares.
    pub fn x_title(&self) -> String {
        if self.x_format != XFormat::Count || self.hosts.is_empty() {
            return self.x_label.clone();
        }
        if self.hosts_differ() {
            return format!("{} (hosts)", self.x_label);
        }
        let h = self.hosts[0].1;
        let s = if h == 1 { "" } else { "s" };
        format!("{}, all on {h} host{s}", self.x_label)
    }

    fn hosts_differ(&self) -> bool {
        self.hosts.windows(2).any(|w| w[0].1 != w[1].1)
    }
}

/// Distinct hosts per P among `blocks` (the largest count seen for a P), ascending in P;
/// blocks that did not record it (0) are left out.
pub fn hosts_per_p(blocks: &[crate::analysis::BlockDigest]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for b in blocks.iter().filter(|b| b.hosts > 0) {
        match out.iter_mut().find(|(p, _)| *p == b.nprocs) {
            Some(slot) => slot.1 = slot.1.max(b.hosts),
            None => out.push((b.nprocs, b.hosts)),
        }
    }
    out.sort_unstable();
    out
}

/// One point per P measured among `rows`, ascending in P, holding the first value `value`
/// gives for that P (`None` if no row of that P has one). Repeated measurements of one
/// configuration thus show the first, like the baseline choice of
/// [`crate::timeline::baseline_among`].
pub fn points<'a, R: 'a>(
    rows: impl IntoIterator<Item = &'a R>,
    nprocs: impl Fn(&R) -> u32,
    value: impl Fn(&R) -> Option<f64>,
) -> Vec<(u32, Option<f64>)> {
    let mut pts: Vec<(u32, Option<f64>)> = Vec::new();
    for r in rows {
        let (p, v) = (nprocs(r), value(r).filter(|v| v.is_finite()));
        match pts.iter_mut().find(|(q, _)| *q == p) {
            Some(slot) => slot.1 = slot.1.or(v),
            None => pts.push((p, v)),
        }
    }
    pts.sort_by_key(|&(p, _)| p);
    pts
}

/// `primary` with its missing values, and the P it lacks, filled from `fallback`.
pub fn fill_from(
    primary: Vec<(u32, Option<f64>)>,
    fallback: &[(u32, Option<f64>)],
) -> Vec<(u32, Option<f64>)> {
    let mut pts = primary;
    for &(p, v) in fallback {
        match pts.iter_mut().find(|(q, _)| *q == p) {
            Some(slot) => slot.1 = slot.1.or(v),
            None => pts.push((p, v)),
        }
    }
    pts.sort_by_key(|&(p, _)| p);
    pts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_share_colours_and_order_blocking_first() {
        assert_eq!(family_color(Op::Allreduce), family_color(Op::Iallreduce));
        assert_ne!(family_color(Op::Allreduce), family_color(Op::Barrier));
        // The figures' colours, pinned: a registry change must not repaint old figures.
        let colors = [
            Op::Barrier,
            Op::Bcast,
            Op::Reduce,
            Op::Allreduce,
            Op::Alltoall,
        ]
        .map(family_color);
        assert_eq!(
            colors,
            [
                (230, 159, 0),
                (0, 114, 178),
                (0, 158, 115),
                (213, 94, 0),
                (204, 121, 167)
            ]
        );
        let mut ops = vec![Op::Iallreduce, Op::Ibarrier, Op::Allreduce, Op::Barrier];
        ops.sort_by_key(|&op| op_order(op));
        assert_eq!(
            ops,
            vec![Op::Barrier, Op::Ibarrier, Op::Allreduce, Op::Iallreduce]
        );
        let b = SeriesStyle::for_op(Op::Allreduce, (1, 2, 3));
        let nb = SeriesStyle::for_op(Op::Iallreduce, (1, 2, 3));
        assert!(!b.dashed && b.marker == Marker::Circle);
        assert!(nb.dashed && nb.marker == Marker::Square);
    }

    #[test]
    fn points_keep_missing_values_as_gaps_and_first_repeats() {
        let rows = [
            (8u32, Some(3.0)),
            (2, Some(1.0)),
            (4, None),
            (2, Some(9.0)),
            (16, Some(f64::NAN)),
            (32, None),
            (32, Some(5.0)),
        ];
        let pts = points(&rows, |r| r.0, |r| r.1);
        assert_eq!(
            pts,
            vec![
                (2, Some(1.0)),
                (4, None),
                (8, Some(3.0)),
                (16, None),
                (32, Some(5.0))
            ]
        );
        let s = SeriesSpec {
            name: "x".into(),
            style: SeriesStyle::for_op(Op::Bcast, (0, 0, 0)),
            points: pts,
            intervals: Vec::new(),
            boxes: Vec::new(),
        };
        assert_eq!(s.values().count(), 3);
        assert_eq!(
            s.runs(),
            vec![vec![(2, 1.0)], vec![(8, 3.0)], vec![(32, 5.0)]]
        );
    }

    #[test]
    fn hosts_go_into_ticks_only_when_they_differ() {
        let mut fig = crate::plot::fixtures::empty_figure();
        fig.hosts = vec![(2, 1), (4, 1)];
        assert_eq!(fig.x_tick_label(4), "4");
        assert_eq!(fig.x_title(), "processes P, all on 1 host");
        fig.hosts = vec![(2, 1), (4, 2)];
        assert_eq!(fig.x_tick_label(4), "4 (2)");
        assert_eq!(fig.x_tick_label(8), "8");
        assert_eq!(fig.x_title(), "processes P (hosts)");
        fig.hosts.clear();
        assert_eq!(fig.x_title(), "processes P");
        fig.x_format = XFormat::Bytes;
        assert_eq!(fig.x_tick_label(65536), "64 KiB");
    }

    #[test]
    fn hosts_per_p_takes_the_largest_count_and_skips_unrecorded() {
        use crate::records::testdata::block;
        let mut a = block(Op::Allreduce, 8, 2, 0.0, 2, 1e-5);
        let mut b = block(Op::Allreduce, 8, 4, 0.0, 2, 1e-5);
        let mut c = block(Op::Bcast, 8, 4, 0.0, 2, 1e-5);
        (a.hosts, b.hosts, c.hosts) = (0, 1, 2);
        assert_eq!(
            hosts_per_p(&[a, b, c].map(|x| crate::analysis::BlockDigest::of(&x))),
            vec![(4, 2)]
        );
    }

    #[test]
    fn fill_from_completes_missing_values() {
        let primary = vec![(2, Some(1.0)), (4, None)];
        let fallback = [(2, Some(7.0)), (4, Some(2.0)), (8, Some(3.0)), (16, None)];
        assert_eq!(
            fill_from(primary, &fallback),
            vec![(2, Some(1.0)), (4, Some(2.0)), (8, Some(3.0)), (16, None)]
        );
    }
}
