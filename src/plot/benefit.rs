//! The benefit figure: delay overlap benefit in % against P for one δ, one panel per message
//! size, one line per kernel (Niethammer et al. 2016, Figures 6, 8, 10, 12, 14, 16).

use super::layout::{benefit_range, YAxis, PART_SEP};
use super::naming::{pretty_bytes, DelayKey};
use super::render::Drawable;
use super::spec::{
    family_color, op_order, points, FigureSpec, LegendEntry, PanelSpec, SeriesSpec, SeriesStyle,
};
use super::RunData;
use super::Stat;
use crate::analysis::ConfigStats;
use crate::plan::Op;

/// Grey of the benefit ceiling: a reference, not a measurement, so it takes no kernel's colour.
const CEILING_COLOR: (u8, u8, u8) = (90, 90, 90);

/// Which panel a row belongs to. Barriers have no payload and their own panel, first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SizeKey {
    NoPayload,
    Bytes(u64),
}

impl SizeKey {
    /// The panel of a row's kernel and size.
    pub fn of(op: Op, bytes: u64) -> SizeKey {
        if op.has_payload() {
            SizeKey::Bytes(bytes)
        } else {
            SizeKey::NoPayload
        }
    }

    /// Panel title of a benefit figure.
    pub fn title(self) -> String {
        match self {
            SizeKey::NoPayload => "no payload (barrier)".to_string(),
            SizeKey::Bytes(b) => pretty_bytes(b),
        }
    }
}

/// The distinct values of `items`, sorted.
pub fn sorted_distinct<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = items.into_iter().collect();
    v.sort();
    v.dedup();
    v
}

/// `rows` by panel: one (size, rows of that size) per distinct [`SizeKey`] of `size`,
/// ascending, each panel's rows in their order in `rows`.
pub fn by_size<'a, R>(rows: &[&'a R], size: impl Fn(&R) -> SizeKey) -> Vec<(SizeKey, Vec<&'a R>)> {
    sorted_distinct(rows.iter().map(|r| size(r)))
        .into_iter()
        .map(|k| (k, rows.iter().copied().filter(|r| size(r) == k).collect()))
        .collect()
}

/// Gives every panel one y axis, the [`benefit_range`] of all their values and intervals, so
/// that sizes can be compared at a glance as in the paper's single-plot figures.
pub fn share_benefit_axis(panels: &mut [PanelSpec]) {
    let y = YAxis::linear(benefit_range(
        panels.iter().flat_map(|p| &p.series).flat_map(|s| {
            s.values()
                .map(|(_, y)| y)
                .chain(s.intervals.iter().flat_map(|&(_, lo, hi)| [lo, hi]))
        }),
    ));
    for p in panels {
        p.y = y;
    }
}

/// Colours of the algorithms of one kernel when a run swept several (`--algorithms`): the
/// first is the kernel's own colour, the others distinct hues (Okabe and Ito 2008).
const ALGORITHM_COLORS: [(u8, u8, u8); 8] = [
    (0, 114, 178),
    (86, 180, 233),
    (0, 158, 115),
    (204, 121, 167),
    (0, 0, 0),
    (240, 228, 66),
    (213, 94, 0),
    (230, 159, 0),
];

/// The (kernel, algorithm, colour) series of `rows`: one per kernel, or, for a kernel
/// measured with several algorithms, one per algorithm in the order first measured.
pub fn op_algorithms(rows: &[&ConfigStats]) -> Vec<(Op, String, (u8, u8, u8))> {
    let mut out = Vec::new();
    for op in ops_of(rows.iter().copied()) {
        let mut algorithms: Vec<&str> = Vec::new();
        for r in rows.iter().filter(|r| r.op == op) {
            if !algorithms.contains(&r.algorithm.as_str()) {
                algorithms.push(&r.algorithm);
            }
        }
        let several = algorithms.len() > 1;
        for (i, a) in algorithms.into_iter().enumerate() {
            let color = if several && i > 0 {
                ALGORITHM_COLORS[(i - 1) % ALGORITHM_COLORS.len()]
            } else {
                family_color(op)
            };
            out.push((op, a.to_string(), color));
        }
    }
    out
}

/// A series' legend name: the kernel, with its algorithm when the run named one.
pub fn series_name(op: Op, algorithm: &str) -> String {
    if algorithm.is_empty() {
        op.name().to_string()
    } else {
        format!("{} {algorithm}", op.name())
    }
}

/// The kernels among `rows`, each blocking kernel before its nonblocking form.
pub fn ops_of<'a>(rows: impl IntoIterator<Item = &'a ConfigStats>) -> Vec<Op> {
    let mut ops = sorted_distinct(rows.into_iter().map(|r| r.op));
    ops.sort_by_key(|&op| op_order(op));
    ops
}

/// The benefit figure of the rows of delay model `key`, values in percent.
pub fn figure(rows: &[ConfigStats], key: &DelayKey, stat: Stat, stem: String) -> FigureSpec {
    let delayed: Vec<&ConfigStats> = rows
        .iter()
        .filter(|r| key.matches(&r.delay_model, r.delay_s))
        .collect();
    let mut panels: Vec<PanelSpec> = by_size(&delayed, |r| SizeKey::of(r.op, r.bytes))
        .into_iter()
        .map(|(key, in_panel)| {
            // One ceiling per panel: at each P the highest of its kernels' ceilings, so no
            // kernel's b lies above it; a ceiling per kernel stacked up to eight dotted lines.
            let ceiling = SeriesSpec {
                name: "ceiling".to_string(),
                style: SeriesStyle::reference(CEILING_COLOR),
                points: ceiling_points(&in_panel),
                intervals: Vec::new(),
                boxes: Vec::new(),
            };
            // A ceiling without values (sampled delays) is no missing measurement; it is drawn
            // first, under the measurements.
            let series: Vec<SeriesSpec> = Some(ceiling)
                .filter(|c| c.values().next().is_some())
                .into_iter()
                .chain(
                    op_algorithms(&in_panel)
                        .into_iter()
                        .map(|(op, algorithm, color)| {
                            let rows: Vec<&ConfigStats> = in_panel
                                .iter()
                                .copied()
                                .filter(|r| r.op == op && r.algorithm == algorithm)
                                .collect();
                            SeriesSpec {
                                name: series_name(op, &algorithm),
                                style: SeriesStyle::for_op(op, color),
                                points: points(
                                    rows.iter().copied(),
                                    |r| r.nprocs,
                                    |r| stat.benefit(r).map(|b| b * 100.0),
                                ),
                                intervals: intervals(&rows, stat),
                                boxes: Vec::new(),
                            }
                        }),
                )
                .collect();
            PanelSpec {
                title: key.title(),
                y: YAxis::linear((0.0, 0.0)),
                series,
            }
        })
        .collect();
    share_benefit_axis(&mut panels);
    let mut legend: Vec<LegendEntry> = op_algorithms(&delayed)
        .into_iter()
        .map(|(op, algorithm, color)| LegendEntry {
            label: series_name(op, &algorithm),
            style: SeriesStyle::for_op(op, color),
        })
        .collect();
    if delayed.iter().any(|r| stat.benefit_ceiling(r).is_some()) {
        legend.push(LegendEntry {
            label: "bound min(t0, δ) / max(t0, δ) if tδ ≥ t0, highest of the panel's kernels"
                .to_string(),
            style: SeriesStyle::reference(CEILING_COLOR),
        });
    }
    FigureSpec {
        stem,
        title: format!(
            "Delay overlap benefit vs P, {} ({})",
            key.describe(),
            stat.describe()
        ),
        subtitle: [
            "b = (t0 + δ − tδ) / tδ",
            "0 % = delay just adds",
            "below 0 = delay costs extra",
            "dotted: delaybench's bound on b if tδ ≥ t0 (100 % only when t0 = δ)",
        ]
        .into_iter()
        .chain(stat.error_bars())
        .collect::<Vec<_>>()
        .join(PART_SEP),
        x_label: "processes P".to_string(),
        y_label: "delay overlap benefit (%)".to_string(),
        procs: sorted_distinct(delayed.iter().map(|r| r.nprocs)),
        panels,
        legend,
        zero_line: true,
        dodge: false,
        x_format: Default::default(),
        hosts: Vec::new(),
        warnings: benefit_notes(&delayed),
    }
}

/// The panel's ceiling in percent per P: the highest [`ConfigStats::benefit_ceiling`] of its
/// rows at that P (`None` where no row has one).
fn ceiling_points(rows: &[&ConfigStats]) -> Vec<(u32, Option<f64>)> {
    let mut pts: Vec<(u32, Option<f64>)> = Vec::new();
    for r in rows {
        let c = r
            .benefit_ceiling
            .map(|c| c * 100.0)
            .filter(|c| c.is_finite());
        match pts.iter_mut().find(|(p, _)| *p == r.nprocs) {
            Some(slot) => {
                slot.1 = match (slot.1, c) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                }
            }
            None => pts.push((r.nprocs, c)),
        }
    }
    pts.sort_by_key(|p| p.0);
    pts
}

/// Error bars of `rows` in percent: the benefit interval per P (the first row of a P, as
/// [`points`] takes the first value), ascending in P.
fn intervals(rows: &[&ConfigStats], stat: Stat) -> Vec<(u32, f64, f64)> {
    let mut out: Vec<(u32, f64, f64)> = Vec::new();
    for r in rows {
        if out.iter().any(|i| i.0 == r.nprocs) {
            continue;
        }
        if let Some((lo, hi)) = stat.benefit_ci(r) {
            out.push((r.nprocs, lo * 100.0, hi * 100.0));
        }
    }
    out.sort_by_key(|i| i.0);
    out
}

/// The `benefit_vs_p_{δ}` figures of a run, one per δ > 0.
pub(super) fn drawables(data: &RunData, stat: Stat) -> Vec<Drawable> {
    data.per_model("benefit_vs_p", |d, stem| {
        let mut f = figure(&data.stats, d, stat, stem);
        f.hosts = data.hosts.clone();
        // A sampled model has no benefit from medians (δ varies per repetition and rank):
        // benefit_distribution shows its per-repetition benefit instead of empty panels.
        let drawn = f
            .panels
            .iter()
            .any(|p| p.series.iter().any(|s| s.values().next().is_some()));
        (d.is_fixed() || drawn).then(|| data.grid(f))
    })
}

/// What the figure cannot show: configurations whose b is `n/a` (with the reason) and those
/// whose b exceeded its bound (so tδ < t0 there and the bound did not hold).
fn benefit_notes(rows: &[&ConfigStats]) -> Vec<String> {
    let mut notes = Vec::new();
    let mut reasons: Vec<&str> = rows.iter().filter_map(|r| r.benefit_na).collect();
    reasons.sort_unstable();
    reasons.dedup();
    for reason in reasons {
        let n = rows.iter().filter(|r| r.benefit_na == Some(reason)).count();
        notes.push(format!("b n/a for {n} configuration(s): {reason}"));
    }
    let above = rows
        .iter()
        .filter(|r| r.above_ceiling == Some(true))
        .count();
    if above > 0 {
        notes.push(format!(
            "{above} configuration(s) exceed their bound: there tδ < t0, the bound's assumption"
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::spec::Marker;

    /// A delayed row whose medians give benefit `b` (fraction) and minima `b / 2`, with
    /// interval b ± 0.05 and ceiling 0.5.
    fn row(op: Op, bytes: u64, p: u32, delay_s: f64, b: Option<f64>) -> ConfigStats {
        let mut r = crate::plot::fixtures::stats(op, bytes, p, delay_s);
        r.benefit_min = b.map(|b| b / 2.0);
        r.benefit_median = b;
        r.benefit_median_ci_lo = b.map(|b| b - 0.05);
        r.benefit_median_ci_hi = b.map(|b| b + 0.05);
        r.benefit_ceiling = Some(0.5);
        r.benefit_ceiling_min = Some(0.5);
        r
    }

    fn sample() -> Vec<ConfigStats> {
        vec![
            row(Op::Iallreduce, 8, 4, 50e-6, Some(0.3)),
            row(Op::Allreduce, 8, 4, 50e-6, Some(0.1)),
            row(Op::Allreduce, 8, 2, 50e-6, Some(-0.2)),
            row(Op::Allreduce, 8, 8, 50e-6, None),
            row(Op::Allreduce, 1024, 2, 50e-6, Some(0.0)),
            row(Op::Barrier, 0, 2, 50e-6, Some(0.5)),
            row(Op::Ibarrier, 0, 2, 50e-6, Some(0.6)),
            row(Op::Allreduce, 8, 16, 10e-6, Some(0.9)),
            row(Op::Allreduce, 8, 32, 0.0, None),
        ]
    }

    #[test]
    fn panels_are_barrier_first_then_sizes() {
        let fig = figure(&sample(), &DelayKey::fixed(50e-6), Stat::Median, "s".into());
        let titles: Vec<&str> = fig.panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, vec!["no payload (barrier)", "8 B", "1 KiB"]);
        let names: Vec<&str> = fig.panels[0]
            .series
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(names, vec!["ceiling", "barrier", "ibarrier"]);
        // P of other delays and of the baseline stay out of the axis.
        assert_eq!(fig.procs, vec![2, 4, 8]);
    }

    #[test]
    fn series_hold_percent_points_in_p_order_without_missing_values() {
        let fig = figure(&sample(), &DelayKey::fixed(50e-6), Stat::Median, "s".into());
        let panel = &fig.panels[1];
        assert_eq!(panel.series.len(), 3, "two kernels and one ceiling");
        let allreduce = &panel.series[1];
        assert_eq!(allreduce.name, "allreduce");
        // P = 8 was measured without a value: a gap, not a point.
        let expected = [(2u32, Some(-20.0)), (4, Some(10.0)), (8, None)];
        assert_eq!(allreduce.points.len(), expected.len());
        for ((p, y), (ep, ey)) in allreduce.points.iter().zip(expected) {
            assert_eq!(*p, ep);
            match (y, ey) {
                (Some(y), Some(ey)) => assert!((y - ey).abs() < 1e-9, "{y} vs {ey}"),
                (y, ey) => assert_eq!(*y, ey),
            }
        }
        // Error bars at the points with an interval, in percent; none at the gap.
        let ps: Vec<u32> = allreduce.intervals.iter().map(|i| i.0).collect();
        assert_eq!(ps, vec![2, 4]);
        assert!((allreduce.intervals[0].1 + 25.0).abs() < 1e-9);
        assert!((allreduce.intervals[0].2 + 15.0).abs() < 1e-9);
        let ceiling = &panel.series[0];
        assert!(ceiling.style.reference && ceiling.intervals.is_empty());
        assert_eq!(ceiling.values().next(), Some((2, 50.0)));
        let iallreduce = &panel.series[2];
        assert!(iallreduce.style.dashed && iallreduce.style.marker == Marker::Square);
        assert_eq!(iallreduce.style.color, allreduce.style.color);
        // Minima are picked with Stat::Min.
        let fig = figure(&sample(), &DelayKey::fixed(50e-6), Stat::Min, "s".into());
        assert!((fig.panels[1].series[1].points[0].1.unwrap() + 10.0).abs() < 1e-9);
        assert!(
            fig.panels[1].series[1].intervals.is_empty(),
            "minima have none"
        );
        assert!(fig.title.contains("minimum") && fig.title.contains("50 µs"));
    }

    #[test]
    fn y_range_is_shared_and_holds_every_point_and_zero() {
        let fig = figure(&sample(), &DelayKey::fixed(50e-6), Stat::Median, "s".into());
        let y = fig.panels[0].y;
        assert!(fig.panels.iter().all(|p| p.y == y));
        assert!(y.lo < -20.0 && y.hi > 60.0 && !y.log);
        assert!(fig.zero_line);
        let labels: Vec<&str> = fig.legend.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels.len(), 5);
        assert_eq!(
            labels[..4],
            ["barrier", "ibarrier", "allreduce", "iallreduce"]
        );
        assert!(labels[4].starts_with("bound"));
        // Sampled delays have no ceiling: no reference line, no legend entry.
        let no_ceiling: Vec<ConfigStats> = sample()
            .into_iter()
            .map(|mut r| {
                r.benefit_ceiling = None;
                r
            })
            .collect();
        let fig = figure(
            &no_ceiling,
            &DelayKey::fixed(50e-6),
            Stat::Median,
            "s".into(),
        );
        assert_eq!(fig.legend.len(), 4);
        assert!(fig
            .panels
            .iter()
            .flat_map(|p| &p.series)
            .all(|s| !s.style.reference));
    }

    #[test]
    fn one_ceiling_per_panel_the_highest_of_its_kernels() {
        let mut rows = sample();
        rows[0].benefit_ceiling = Some(0.8); // iallreduce, 8 B, P = 4
        let fig = figure(&rows, &DelayKey::fixed(50e-6), Stat::Median, "s".into());
        for panel in &fig.panels {
            let refs: Vec<&SeriesSpec> =
                panel.series.iter().filter(|s| s.style.reference).collect();
            assert_eq!(refs.len(), 1, "{}: one ceiling", panel.title);
            assert_eq!(refs[0].style.color, CEILING_COLOR, "grey, not a kernel's");
        }
        let ceiling = &fig.panels[1].series[0];
        assert_eq!(
            ceiling.points,
            vec![(2, Some(50.0)), (4, Some(80.0)), (8, Some(50.0))]
        );
        let refs = fig.legend.iter().filter(|e| e.style.reference).count();
        assert_eq!(refs, 1, "one legend entry for the ceilings");
    }

    #[test]
    fn other_delays_are_not_mixed_in() {
        let fig = figure(&sample(), &DelayKey::fixed(10e-6), Stat::Median, "s".into());
        assert_eq!(fig.panels.len(), 1);
        assert_eq!(fig.panels[0].series[0].points.len(), 1);
        assert_eq!(fig.procs, vec![16]);
    }
}
