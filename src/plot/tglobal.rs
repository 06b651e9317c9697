//! The t_global figure: t_global in µs against P for one δ, one panel per kernel family and
//! message size, with the delayed and the undelayed (baseline) series of the blocking and the
//! nonblocking kernel (Niethammer et al. 2016, Figures 5, 7, 9, 11, 13, 15).

use super::benefit::{ops_of, sorted_distinct, SizeKey};
use super::layout::{time_axis, PART_SEP};
use super::naming::DelayKey;
use super::render::Drawable;
use super::spec::{
    family_index, fill_from, points, FigureSpec, LegendEntry, PanelSpec, SeriesSpec, SeriesStyle,
    XFormat, BASELINE_COLOR, DELAYED_COLOR,
};
use super::RunData;
use super::Stat;
use crate::analysis::ConfigStats;
use crate::plan::Op;
use crate::timeline::Configuration;

/// Seconds to the figure's unit.
const US_PER_S: f64 = 1e6;

/// The four kinds of series a panel can hold; also the legend, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    BlockingDelayed,
    NonblockingDelayed,
    BlockingBaseline,
    NonblockingBaseline,
}

impl Kind {
    const LEGEND_ORDER: [Kind; 4] = [
        Kind::BlockingDelayed,
        Kind::NonblockingDelayed,
        Kind::BlockingBaseline,
        Kind::NonblockingBaseline,
    ];

    fn of(op: Op, delayed: bool) -> Kind {
        match (op.is_nonblocking(), delayed) {
            (false, true) => Kind::BlockingDelayed,
            (true, true) => Kind::NonblockingDelayed,
            (false, false) => Kind::BlockingBaseline,
            (true, false) => Kind::NonblockingBaseline,
        }
    }

    fn style(self) -> SeriesStyle {
        match self {
            Kind::BlockingDelayed => SeriesStyle::new(false, DELAYED_COLOR),
            Kind::NonblockingDelayed => SeriesStyle::new(true, DELAYED_COLOR),
            Kind::BlockingBaseline => SeriesStyle::new(false, BASELINE_COLOR),
            Kind::NonblockingBaseline => SeriesStyle::new(true, BASELINE_COLOR),
        }
    }

    fn legend_label(self, delay: &str) -> String {
        match self {
            Kind::BlockingDelayed => format!("blocking, {delay}"),
            Kind::NonblockingDelayed => format!("nonblocking, {delay}"),
            Kind::BlockingBaseline => "blocking, undelayed (δ = 0)".to_string(),
            Kind::NonblockingBaseline => "nonblocking, undelayed (δ = 0)".to_string(),
        }
    }
}

/// What a t_global figure puts on its x axis; the other dimension makes the panels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Along {
    /// x = P, one panel per kernel family and size (Niethammer et al. 2016, Figures 5, 7, ...).
    Procs,
    /// x = message size, one panel per kernel family and P; barriers, without payload, left
    /// out.
    Size,
}

/// Panel key: kernel family index and the size (x = P) or P (x = size).
type Key = (usize, SizeKey);

impl Along {
    fn x(self, r: &ConfigStats) -> u32 {
        match self {
            Along::Procs => r.nprocs,
            // Sizes beyond 4 GiB per rank are not measured; saturate rather than wrap.
            Along::Size => u32::try_from(r.bytes).unwrap_or(u32::MAX),
        }
    }

    fn key(self, r: &ConfigStats) -> Key {
        match self {
            Along::Procs => (family_index(r.op), SizeKey::of(r.op, r.bytes)),
            Along::Size => (family_index(r.op), SizeKey::Bytes(u64::from(r.nprocs))),
        }
    }

    fn includes(self, r: &ConfigStats) -> bool {
        self == Along::Procs || r.op.has_payload()
    }
}

/// The t_global figure of the rows with nominal delay `delay_s` (seconds), values in µs,
/// against P.
///
/// The rows of `rows` measured with algorithm `a`.
fn only<'r>(rows: Vec<&'r ConfigStats>, a: &str) -> Vec<&'r ConfigStats> {
    rows.into_iter().filter(|r| r.algorithm == a).collect()
}

/// A panel exists for every (family, size) measured with this δ. Its baseline series come from
/// the δ = 0 rows; where a P has no δ = 0 row, the t0 the delayed row carries fills in.
pub fn figure(rows: &[ConfigStats], key: &DelayKey, stat: Stat, stem: String) -> FigureSpec {
    figure_along(rows, key, stat, stem, Along::Procs)
}

/// The t_global figure of the rows with nominal delay `delay_s` (seconds) against `along`.
pub fn figure_along(
    rows: &[ConfigStats],
    key: &DelayKey,
    stat: Stat,
    stem: String,
    along: Along,
) -> FigureSpec {
    let delay = key.describe();
    let delayed: Vec<&ConfigStats> = rows
        .iter()
        .filter(|r| key.matches(&r.delay_model, r.delay_s) && along.includes(r))
        .collect();
    let baseline: Vec<&ConfigStats> = rows
        .iter()
        .filter(|r| r.is_baseline() && along.includes(r))
        .collect();
    let keys = sorted_distinct(delayed.iter().map(|r| along.key(r)));
    let mut kinds_used: Vec<Kind> = Vec::new();
    let mut procs: Vec<u32> = Vec::new();
    let panels: Vec<PanelSpec> = keys
        .iter()
        .map(|&key| {
            let (d_rows, b_rows) = (
                in_panel(&delayed, key, None, along),
                in_panel(&baseline, key, None, along),
            );
            let ops = ops_of(d_rows.iter().chain(&b_rows).copied());
            procs.extend(d_rows.iter().chain(&b_rows).map(|r| along.x(r)));
            let mut series = Vec::new();
            // One line per kernel, or per algorithm of a kernel when a run swept several.
            let all: Vec<&ConfigStats> = d_rows.iter().chain(&b_rows).copied().collect();
            let lines = super::benefit::op_algorithms(&all);
            // Baselines first, so the delayed lines are drawn over them.
            for (op, a, color) in &lines {
                let op = *op;
                let (d, b) = (
                    only(in_panel(&delayed, key, Some(op), along), a),
                    only(in_panel(&baseline, key, Some(op), along), a),
                );
                let x = |r: &ConfigStats| along.x(r);
                let pts = fill_from(
                    points(b.iter().copied(), x, |r| stat.t_global_s(r)),
                    &points(d.iter().copied(), x, |r| stat.t0_s(r)),
                );
                series.push((op, a, *color, false, pts, intervals(&b, stat, along)));
            }
            for (op, a, color) in &lines {
                let d = only(in_panel(&delayed, key, Some(*op), along), a);
                if !d.is_empty() {
                    let pts = points(d.iter().copied(), |r| along.x(r), |r| stat.t_global_s(r));
                    series.push((*op, a, *color, true, pts, intervals(&d, stat, along)));
                }
            }
            let several = lines.len() > ops.len();
            let series: Vec<SeriesSpec> = series
                .into_iter()
                .map(|(op, a, color, is_delayed, pts, cis)| {
                    let kind = Kind::of(op, is_delayed);
                    if !kinds_used.contains(&kind) {
                        kinds_used.push(kind);
                    }
                    let mut style = kind.style();
                    if several {
                        // Algorithms by colour; undelayed and delayed still by their marker.
                        style.color = color;
                    }
                    let name = super::benefit::series_name(op, a);
                    SeriesSpec {
                        name: if is_delayed {
                            format!("{name}, {delay}")
                        } else {
                            format!("{name}, undelayed")
                        },
                        style,
                        points: pts
                            .into_iter()
                            .map(|(p, t)| (p, t.map(|t| t * US_PER_S)))
                            .collect(),
                        intervals: cis,
                        boxes: Vec::new(),
                    }
                })
                .collect();
            let y = time_axis(series.iter().flat_map(|s| {
                s.values()
                    .map(|(_, t)| t)
                    .chain(s.intervals.iter().flat_map(|&(_, lo, hi)| [lo, hi]))
            }));
            PanelSpec {
                title: match (along, key.1) {
                    (Along::Size, SizeKey::Bytes(p)) => {
                        let names: Vec<&str> = ops.iter().map(|op| op.name()).collect();
                        format!("{}, P = {p}", names.join(" / "))
                    }
                    _ => panel_title(&ops, key.1),
                },
                y,
                series,
            }
        })
        .collect();
    let mut legend: Vec<LegendEntry> = Kind::LEGEND_ORDER
        .into_iter()
        .filter(|k| kinds_used.contains(k))
        .map(|k| LegendEntry {
            label: k.legend_label(&delay),
            style: k.style(),
        })
        .collect();
    // A run that swept algorithms: their colours too (the kinds above keep their markers).
    let all: Vec<&ConfigStats> = delayed.iter().chain(&baseline).copied().collect();
    let lines = super::benefit::op_algorithms(&all);
    if lines.iter().any(|(_, a, _)| !a.is_empty())
        && lines.len() > ops_of(all.iter().copied()).len()
    {
        legend.extend(lines.into_iter().map(|(op, a, color)| LegendEntry {
            label: super::benefit::series_name(op, &a),
            style: SeriesStyle::for_op(op, color),
        }));
    }
    FigureSpec {
        stem,
        title: format!(
            "t_global vs {}, {delay} and undelayed ({})",
            match along {
                Along::Procs => "P",
                Along::Size => "message size",
            },
            stat.describe()
        ),
        subtitle: [
            "t_global = latest end − earliest start over all ranks",
            "the gap between a blue line and its grey line is what δ cost \
             (δ itself when the delay just adds)",
        ]
        .into_iter()
        .chain(stat.error_bars())
        .collect::<Vec<_>>()
        .join(PART_SEP),
        x_label: match along {
            Along::Procs => "processes P".to_string(),
            Along::Size => "message size (bytes per rank, log2)".to_string(),
        },
        y_label: "t_global (µs)".to_string(),
        procs: sorted_distinct(procs),
        panels,
        legend,
        zero_line: false,
        dodge: false,
        x_format: match along {
            Along::Procs => XFormat::Count,
            Along::Size => XFormat::Bytes,
        },
        hosts: Vec::new(),
        warnings: Vec::new(),
    }
}

/// Error bars of `rows` in µs: the interval of the statistic per x (the first row of an x).
fn intervals(rows: &[&ConfigStats], stat: Stat, along: Along) -> Vec<(u32, f64, f64)> {
    let mut out: Vec<(u32, f64, f64)> = Vec::new();
    for r in rows {
        let x = along.x(r);
        if out.iter().any(|i| i.0 == x) {
            continue;
        }
        if let Some((lo, hi)) = stat.t_global_ci_s(r) {
            out.push((x, lo * US_PER_S, hi * US_PER_S));
        }
    }
    out.sort_by_key(|i| i.0);
    out
}

/// The rows of panel `key` (family index, size), of kernel `op` if given.
fn in_panel<'a>(
    rows: &[&'a ConfigStats],
    key: Key,
    op: Option<Op>,
    along: Along,
) -> Vec<&'a ConfigStats> {
    rows.iter()
        .copied()
        .filter(|r| along.key(r) == key)
        .filter(|r| op.is_none_or(|op| r.op == op))
        .collect()
}

/// `allreduce / iallreduce, 8 B`, or `barrier / ibarrier` for the payload-free barriers.
fn panel_title(ops: &[Op], size: SizeKey) -> String {
    let names: Vec<&str> = ops.iter().map(|op| op.name()).collect();
    match size {
        SizeKey::NoPayload => names.join(" / "),
        SizeKey::Bytes(_) => format!("{}, {}", names.join(" / "), size.title()),
    }
}

/// The `t_global_vs_p_{δ}` figures of a run, one per δ > 0.
pub(super) fn drawables_vs_p(data: &RunData, stat: Stat) -> Vec<Drawable> {
    data.per_model("t_global_vs_p", |d, stem| {
        let mut f = figure(&data.stats, d, stat, stem);
        f.hosts = data.hosts.clone();
        Some(data.grid(f))
    })
}

/// The `t_global_vs_size_{δ}` figures of a run, where it has two sizes or more.
pub(super) fn drawables_vs_size(data: &RunData, stat: Stat) -> Vec<Drawable> {
    data.per_model("t_global_vs_size", |d, stem| {
        let f = figure_along(&data.stats, d, stat, stem, Along::Size);
        // One size per panel is no line: the figure needs two sizes to say anything.
        (f.procs.len() > 1).then(|| data.grid(f))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::spec::Marker;

    /// A row with t_global `t_us` (median, interval ± 1; minimum = t_us - 1) and baseline
    /// t0 `t0_us`.
    fn row(op: Op, bytes: u64, p: u32, delay_s: f64, t_us: Option<f64>, t0_us: f64) -> ConfigStats {
        let mut r = crate::plot::fixtures::stats(op, bytes, p, delay_s);
        r.t_global_min_s = t_us.map(|t| (t - 1.0) * 1e-6);
        r.t_global_median_s = t_us.map(|t| t * 1e-6);
        r.t_global_median_ci_lo_s = t_us.map(|t| (t - 1.0) * 1e-6);
        r.t_global_median_ci_hi_s = t_us.map(|t| (t + 1.0) * 1e-6);
        r.t0_min_s = Some((t0_us - 1.0) * 1e-6);
        r.t0_median_s = Some(t0_us * 1e-6);
        r
    }

    fn sample() -> Vec<ConfigStats> {
        vec![
            row(Op::Allreduce, 8, 2, 0.0, Some(10.0), 10.0),
            row(Op::Allreduce, 8, 2, 50e-6, Some(60.0), 10.0),
            // No baseline row at P = 4: the delayed row's t0 fills in.
            row(Op::Allreduce, 8, 4, 50e-6, Some(62.0), 12.0),
            row(Op::Iallreduce, 8, 2, 0.0, Some(11.0), 11.0),
            row(Op::Iallreduce, 8, 2, 50e-6, None, 11.0),
            row(Op::Iallreduce, 8, 4, 50e-6, Some(55.0), 13.0),
            row(Op::Barrier, 0, 2, 50e-6, Some(52.0), 3.0),
            row(Op::Barrier, 0, 2, 0.0, Some(3.0), 3.0),
            // Baseline of a size never delayed: no panel of its own.
            row(Op::Allreduce, 1024, 2, 0.0, Some(20.0), 20.0),
        ]
    }

    #[test]
    fn one_panel_per_family_and_size_with_delayed_rows() {
        let fig = figure(&sample(), &DelayKey::fixed(50e-6), Stat::Median, "t".into());
        let titles: Vec<&str> = fig.panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, vec!["barrier", "allreduce / iallreduce, 8 B"]);
        assert_eq!(fig.procs, vec![2, 4]);
        assert!(fig.y_label.contains("µs") && !fig.zero_line);
    }

    #[test]
    fn four_series_baselines_first_in_microseconds() {
        let fig = figure(&sample(), &DelayKey::fixed(50e-6), Stat::Median, "t".into());
        let panel = &fig.panels[1];
        let names: Vec<&str> = panel.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "allreduce, undelayed",
                "iallreduce, undelayed",
                "allreduce, δ = 50 µs",
                "iallreduce, δ = 50 µs"
            ]
        );
        let close = |a: &[(u32, Option<f64>)], b: &[(u32, Option<f64>)]| {
            a.len() == b.len()
                && a.iter().zip(b).all(|(x, y)| {
                    x.0 == y.0
                        && match (x.1, y.1) {
                            (Some(u), Some(v)) => (u - v).abs() < 1e-9,
                            (u, v) => u == v,
                        }
                })
        };
        assert!(close(
            &panel.series[0].points,
            &[(2, Some(10.0)), (4, Some(12.0))]
        ));
        assert!(close(
            &panel.series[2].points,
            &[(2, Some(60.0)), (4, Some(62.0))]
        ));
        // The missing median at P = 2 leaves a gap, not a zero.
        assert!(close(
            &panel.series[3].points,
            &[(2, None), (4, Some(55.0))]
        ));
        assert_eq!(panel.series[2].style.color, DELAYED_COLOR);
        assert_eq!(panel.series[0].style.color, BASELINE_COLOR);
        assert_eq!(panel.series[3].style.marker, Marker::Square);
        // Error bars in µs at the delayed P with a median.
        assert_eq!(panel.series[2].intervals.len(), 2);
        assert!((panel.series[2].intervals[0].1 - 59.0).abs() < 1e-6);
        assert!((panel.series[2].intervals[0].2 - 61.0).abs() < 1e-6);
        assert!(panel.series[3].intervals.iter().all(|i| i.0 == 4));
        assert!(panel.y.lo == 0.0 && panel.y.hi > 62.0 && !panel.y.log);
        // Minima are picked with Stat::Min.
        let fig = figure(&sample(), &DelayKey::fixed(50e-6), Stat::Min, "t".into());
        assert!(close(
            &fig.panels[1].series[2].points,
            &[(2, Some(59.0)), (4, Some(61.0))]
        ));
    }

    #[test]
    fn panels_spanning_decades_get_a_log_axis() {
        let rows: Vec<ConfigStats> = [2u32, 64, 4096]
            .into_iter()
            .flat_map(|p| {
                let t0 = 5.0 * f64::from(p);
                [
                    row(Op::Alltoall, 8, p, 0.0, Some(t0), t0),
                    row(Op::Alltoall, 8, p, 50e-6, Some(t0 + 50.0), t0),
                ]
            })
            .chain(sample())
            .collect();
        let fig = figure(&rows, &DelayKey::fixed(50e-6), Stat::Median, "t".into());
        let alltoall = fig.panels.last().unwrap();
        assert_eq!(alltoall.title, "alltoall, 8 B");
        assert!(alltoall.y.log && alltoall.y.lo < 10.0 && alltoall.y.hi > 20_530.0);
        assert!(!fig.panels[1].y.log);
    }

    #[test]
    fn along_size_one_panel_per_family_and_p_without_barriers() {
        let mut rows = sample();
        rows.push(row(Op::Allreduce, 1024, 2, 50e-6, Some(80.0), 20.0));
        let fig = figure_along(
            &rows,
            &DelayKey::fixed(50e-6),
            Stat::Median,
            "v".into(),
            Along::Size,
        );
        let titles: Vec<&str> = fig.panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(
            titles,
            vec![
                "allreduce / iallreduce, P = 2",
                "allreduce / iallreduce, P = 4"
            ]
        );
        assert_eq!(fig.procs, vec![8, 1024], "x holds the sizes");
        assert_eq!(fig.x_format, XFormat::Bytes);
        assert!(fig.title.contains("message size"));
        let p2 = &fig.panels[0];
        let delayed = p2
            .series
            .iter()
            .find(|s| s.name == "allreduce, δ = 50 µs")
            .unwrap();
        assert_eq!(delayed.values().collect::<Vec<_>>().len(), 2);
        assert!((delayed.values().last().unwrap().1 - 80.0).abs() < 1e-6);
        let base = p2
            .series
            .iter()
            .find(|s| s.name == "allreduce, undelayed")
            .unwrap();
        assert!((base.values().last().unwrap().1 - 20.0).abs() < 1e-6);
    }

    #[test]
    fn legend_lists_the_kinds_present_delayed_first() {
        let fig = figure(&sample(), &DelayKey::fixed(50e-6), Stat::Median, "t".into());
        let labels: Vec<&str> = fig.legend.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(
            labels,
            vec![
                "blocking, δ = 50 µs",
                "nonblocking, δ = 50 µs",
                "blocking, undelayed (δ = 0)",
                "nonblocking, undelayed (δ = 0)"
            ]
        );
        let only_blocking: Vec<ConfigStats> = sample()
            .into_iter()
            .filter(|r| !r.op.is_nonblocking())
            .collect();
        let fig = figure(
            &only_blocking,
            &DelayKey::fixed(50e-6),
            Stat::Median,
            "t".into(),
        );
        assert_eq!(fig.legend.len(), 2);
    }
}
