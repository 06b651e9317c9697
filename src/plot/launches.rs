//! The spread between pooled launches (`plot A.cbor B.cbor ...`, records files of one plan):
//! per kernel and size, each launch's median t_global against P beside the pooled median
//! with its bootstrap interval. Launches that disagree by more than the interval mean the
//! machine or the placement changed between them, which one launch cannot show.

use super::benefit::sorted_distinct;
use super::layout::{time_axis, PART_SEP};
use super::naming::{pretty_bytes, DelayKey};
use super::render::Drawable;
use super::spec::{op_order, FigureSpec, LegendEntry, Marker, PanelSpec, SeriesSpec, SeriesStyle};
use super::{RunData, Stat};
use crate::analysis::median;
use crate::plan::Op;

/// Colours of the launches, in order (Okabe–Ito without black and yellow); more launches
/// reuse them.
const LAUNCH_COLORS: [(u8, u8, u8); 6] = [
    (0, 114, 178),
    (213, 94, 0),
    (0, 158, 115),
    (204, 121, 167),
    (86, 180, 233),
    (230, 159, 0),
];
/// The pooled median: black, drawn over the launches.
const POOLED_COLOR: (u8, u8, u8) = (0, 0, 0);
/// Microseconds per second.
const US: f64 = 1e6;

/// The spread figure of delay model `key`, or `None` unless several launches were pooled.
pub fn figure(data: &RunData, key: &DelayKey, stem: String) -> Option<FigureSpec> {
    if data.launches.len() < 2 {
        return None;
    }
    let delayed = |model: &str, d: f64| key.matches(model, d);
    let mut configs: Vec<(Op, u64)> = data
        .stats
        .iter()
        .filter(|r| delayed(&r.delay_model, r.delay_s))
        .map(|r| (r.op, r.bytes))
        .collect();
    configs.sort_by_key(|&(op, b)| (op_order(op), b));
    configs.dedup();
    let panels: Vec<PanelSpec> = configs
        .iter()
        .map(|&(op, bytes)| {
            let mut series: Vec<SeriesSpec> = data
                .launches
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let mut pts: Vec<(u32, Option<f64>)> = Vec::new();
                    for b in l.blocks.iter().filter(|b| {
                        b.op == op && b.bytes == bytes && delayed(&b.delay_model, b.delay_s)
                    }) {
                        if pts.iter().all(|p| p.0 != b.nprocs) {
                            pts.push((b.nprocs, median(&b.t_globals).map(|t| t * US)));
                        }
                    }
                    pts.sort_by_key(|p| p.0);
                    SeriesSpec {
                        name: format!("launch {}", i + 1),
                        style: launch_style(i),
                        points: pts,
                        intervals: Vec::new(),
                        boxes: Vec::new(),
                    }
                })
                .collect();
            let rows: Vec<&crate::analysis::ConfigStats> = data
                .stats
                .iter()
                .filter(|r| r.op == op && r.bytes == bytes && delayed(&r.delay_model, r.delay_s))
                .collect();
            series.push(SeriesSpec {
                name: "pooled".into(),
                style: SeriesStyle {
                    color: POOLED_COLOR,
                    dashed: false,
                    marker: Marker::Square,
                    reference: false,
                },
                points: super::spec::points(
                    rows.iter().copied(),
                    |r| r.nprocs,
                    |r| Stat::Median.t_global_s(r).map(|t| t * US),
                ),
                intervals: {
                    let mut v: Vec<(u32, f64, f64)> = Vec::new();
                    for r in &rows {
                        if v.iter().all(|i| i.0 != r.nprocs) {
                            if let Some((lo, hi)) = Stat::Median.t_global_ci_s(r) {
                                v.push((r.nprocs, lo * US, hi * US));
                            }
                        }
                    }
                    v.sort_by_key(|i| i.0);
                    v
                },
                boxes: Vec::new(),
            });
            let y = time_axis(series.iter().flat_map(|s| {
                s.values()
                    .map(|(_, t)| t)
                    .chain(s.intervals.iter().flat_map(|&(_, lo, hi)| [lo, hi]))
            }));
            PanelSpec {
                title: if op.has_payload() {
                    format!("{op}, {}", pretty_bytes(bytes))
                } else {
                    op.name().to_string()
                },
                y,
                series,
            }
        })
        .collect();
    if panels.is_empty() {
        return None;
    }
    let mut legend: Vec<LegendEntry> = (0..data.launches.len())
        .map(|i| LegendEntry {
            label: format!("launch {}", i + 1),
            style: launch_style(i),
        })
        .collect();
    legend.push(LegendEntry {
        label: "pooled median, 95 % bootstrap interval".into(),
        style: SeriesStyle {
            color: POOLED_COLOR,
            dashed: false,
            marker: Marker::Square,
            reference: false,
        },
    });
    Some(FigureSpec {
        stem,
        title: format!(
            "Median t_global of each launch vs P, {} ({} launches)",
            key.describe(),
            data.launches.len()
        ),
        subtitle: [
            "one line per records file of the plan",
            "black: all launches pooled, with its interval",
            "launches outside the pooled interval differ by more than chance",
        ]
        .join(PART_SEP),
        x_label: "processes P".into(),
        y_label: "median t_global (µs)".into(),
        procs: sorted_distinct(
            data.stats
                .iter()
                .filter(|r| delayed(&r.delay_model, r.delay_s))
                .map(|r| r.nprocs),
        ),
        panels,
        legend,
        zero_line: false,
        dodge: false,
        x_format: Default::default(),
        hosts: data.hosts.clone(),
        warnings: Vec::new(),
    })
}

/// The style of the `i`-th line of a figure with one line per records file (launches, noise
/// sources): the palette in order, reused past its end.
pub(super) fn launch_style(i: usize) -> SeriesStyle {
    SeriesStyle::new(false, LAUNCH_COLORS[i % LAUNCH_COLORS.len()])
}

/// The `launch_spread_{model}` figures, when several launches were pooled.
pub(super) fn drawables(data: &RunData, _: Stat) -> Vec<Drawable> {
    data.per_model("launch_spread", |d, stem| {
        figure(data, d, stem).map(|f| data.grid(f))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::{PlotRun, Selection};
    use crate::records::testdata;

    fn launch(op_time_s: f64) -> PlotRun {
        let mut blocks = Vec::new();
        for p in [2, 4] {
            for d in [0.0, 50e-6] {
                blocks.push(testdata::block(Op::Allreduce, 8, p, d, 9, op_time_s));
            }
        }
        PlotRun::of(&testdata::records(4, blocks))
    }

    #[test]
    fn a_line_per_launch_and_the_pooled_median() {
        let runs = vec![launch(10e-6), launch(20e-6), launch(30e-6)];
        let data = RunData::of_runs(runs, &Selection::default()).unwrap();
        assert!(
            data.context.contains("3 launches pooled"),
            "{}",
            data.context
        );
        let f = figure(&data, &DelayKey::fixed(50e-6), "s".into()).unwrap();
        assert_eq!(f.panels.len(), 1);
        let names: Vec<&str> = f.panels[0].series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, vec!["launch 1", "launch 2", "launch 3", "pooled"]);
        let at2 = |i: usize| f.panels[0].series[i].points[0].1.unwrap();
        assert!(
            at2(0) < at2(1) && at2(1) < at2(2),
            "slower launches lie higher"
        );
        assert!(
            at2(3) > at2(0) && at2(3) < at2(2),
            "the pooled median lies between"
        );
        assert_eq!(f.panels[0].series[3].intervals.len(), 2);
        // One launch: no spread to show.
        let one = RunData::of_runs(vec![launch(10e-6)], &Selection::default()).unwrap();
        assert!(figure(&one, &DelayKey::fixed(50e-6), "s".into()).is_none());
    }
}
