//! What `analyze --distribution` computes, drawn: the distribution of the per-repetition
//! delay overlap benefit b_i (eq. 5 of Niethammer et al. 2016 applied to each repetition, with
//! t0 the baseline median and δ_i the repetition's arrival spread) per kernel against P, and
//! for noise blocks (every rank delayed) the noise amplification A against P with the value
//! an operation that waits for the slowest rank would have. Both are delaybench's own
//! extensions (see [`crate::analysis::DistributionRow`]).

use super::benefit::{by_size, share_benefit_axis, sorted_distinct, SizeKey};
use super::layout::{time_range, YAxis, PART_SEP};
use super::naming::DelayKey;
use super::render::Drawable;
use super::spec::{
    family_color, op_order, FigureSpec, LegendEntry, PanelSpec, SeriesSpec, SeriesStyle,
};
use super::RunData;
use crate::analysis::DistributionRow;
use crate::plan::Op;

/// Grey of the "waits for the slowest rank" reference.
const REFERENCE_COLOR: (u8, u8, u8) = (90, 90, 90);

/// The rows of model `key` (rows carry the model's label, not δ).
fn rows_of<'a>(rows: &'a [DistributionRow], key: &DelayKey) -> Vec<&'a DistributionRow> {
    rows.iter()
        .filter(|r| r.delay_model == key.model || key.model.is_empty())
        .collect()
}

/// The 5th, 25th, 50th, 75th and 95th percentiles of a row.
type Quantiles = (f64, f64, f64, f64, f64);

/// One point per P of `rows` (the first row of a P), ascending.
fn per_p(
    rows: &[&DistributionRow],
    value: impl Fn(&DistributionRow) -> Option<Quantiles>,
) -> Vec<(u32, Option<Quantiles>)> {
    let mut out: Vec<(u32, Option<Quantiles>)> = Vec::new();
    for r in rows {
        if out.iter().all(|o| o.0 != r.nprocs) {
            out.push((r.nprocs, value(r)));
        }
    }
    out.sort_by_key(|o| o.0);
    out
}

/// The benefit-distribution figure of model `key`: per panel (size) and kernel the median
/// b_i (point), its 25–75 % range (box) and 5–95 % range (whiskers), in percent.
pub fn benefit_figure(
    rows: &[DistributionRow],
    key: &DelayKey,
    stem: String,
) -> Option<FigureSpec> {
    let mine = rows_of(rows, key);
    if mine.is_empty() {
        return None;
    }
    let mut panels: Vec<PanelSpec> = by_size(&mine, |r| SizeKey::of(r.op, r.bytes))
        .into_iter()
        .map(|(k, in_panel)| {
            let series = ops_of_kind(in_panel.iter().map(|r| r.op))
                .into_iter()
                .map(|op| {
                    let of_op: Vec<&DistributionRow> =
                        in_panel.iter().copied().filter(|r| r.op == op).collect();
                    let pts = per_p(&of_op, |r| {
                        Some((
                            r.benefit_p5,
                            r.benefit_p25,
                            r.benefit_median,
                            r.benefit_p75,
                            r.benefit_p95,
                        ))
                    });
                    SeriesSpec {
                        name: op.name().to_string(),
                        style: SeriesStyle::for_op(op, family_color(op)),
                        points: pts
                            .iter()
                            .map(|&(p, v)| (p, v.map(|v| v.2 * 100.0)))
                            .collect(),
                        intervals: pts
                            .iter()
                            .filter_map(|&(p, v)| v.map(|v| (p, v.0 * 100.0, v.4 * 100.0)))
                            .collect(),
                        boxes: pts
                            .iter()
                            .filter_map(|&(p, v)| v.map(|v| (p, v.1 * 100.0, v.3 * 100.0)))
                            .collect(),
                    }
                })
                .collect();
            PanelSpec {
                title: k.title(),
                y: YAxis::linear((0.0, 1.0)),
                series,
            }
        })
        .collect();
    share_benefit_axis(&mut panels);
    Some(FigureSpec {
        stem,
        title: format!(
            "Distribution of the per-repetition benefit vs P, {}",
            key.describe()
        ),
        subtitle: [
            "b_i = (t0 + δ_i − t_i) / t_i per repetition, t0 the undelayed median, δ_i the \
             repetition's arrival spread",
            "marker: median",
            "box: 25–75 %",
            "whiskers: 5–95 % of the repetitions",
        ]
        .join(PART_SEP),
        x_label: "processes P".into(),
        y_label: "per-repetition benefit b_i (%)".into(),
        procs: sorted_distinct(mine.iter().map(|r| r.nprocs)),
        legend: legend(&mine),
        panels,
        zero_line: true,
        dodge: true,
        x_format: Default::default(),
        hosts: Vec::new(),
        warnings: Vec::new(),
    })
}

/// The noise-amplification figure of model `key`, or `None` when no row of it is a noise
/// block (every rank delayed): A per kernel against P, and per panel the A of an operation
/// that waits for the slowest rank and hides nothing (dotted, the highest of its kernels).
pub fn amplification_figure(
    rows: &[DistributionRow],
    key: &DelayKey,
    stem: String,
) -> Option<FigureSpec> {
    let mine: Vec<&DistributionRow> = rows_of(rows, key)
        .into_iter()
        .filter(|r| r.amplification.is_some())
        .collect();
    if mine.is_empty() {
        return None;
    }
    let mut panels: Vec<PanelSpec> = by_size(&mine, |r| SizeKey::of(r.op, r.bytes))
        .into_iter()
        .map(|(k, in_panel)| {
            let mut slowest: Vec<(u32, Option<f64>)> = Vec::new();
            for r in &in_panel {
                let w = r.wait_for_slowest.filter(|w| w.is_finite());
                match slowest.iter_mut().find(|s| s.0 == r.nprocs) {
                    Some(s) => {
                        s.1 = match (s.1, w) {
                            (Some(a), Some(b)) => Some(a.max(b)),
                            (a, b) => a.or(b),
                        }
                    }
                    None => slowest.push((r.nprocs, w)),
                }
            }
            slowest.sort_by_key(|s| s.0);
            let reference = SeriesSpec {
                name: "waits for the slowest rank".into(),
                style: SeriesStyle::reference(REFERENCE_COLOR),
                points: slowest,
                intervals: Vec::new(),
                boxes: Vec::new(),
            };
            let series = Some(reference)
                .filter(|s| s.values().next().is_some())
                .into_iter()
                .chain(
                    ops_of_kind(in_panel.iter().map(|r| r.op))
                        .into_iter()
                        .map(|op| {
                            let of_op: Vec<&DistributionRow> =
                                in_panel.iter().copied().filter(|r| r.op == op).collect();
                            SeriesSpec {
                                name: op.name().to_string(),
                                style: SeriesStyle::for_op(op, family_color(op)),
                                points: per_p(&of_op, |r| r.amplification.map(|a| (a, a, a, a, a)))
                                    .into_iter()
                                    .map(|(p, v)| (p, v.map(|v| v.0)))
                                    .collect(),
                                intervals: Vec::new(),
                                boxes: Vec::new(),
                            }
                        }),
                )
                .collect();
            PanelSpec {
                title: k.title(),
                y: YAxis::linear((0.0, 1.0)),
                series,
            }
        })
        .collect();
    let y = YAxis::linear(time_range(
        panels
            .iter()
            .flat_map(|p| &p.series)
            .flat_map(|s| s.values().map(|(_, y)| y))
            .chain([1.0]),
    ));
    for p in &mut panels {
        p.y = y;
    }
    let mut legend = legend(&mine);
    legend.push(LegendEntry {
        label: "A if it waits for the slowest rank and hides nothing".into(),
        style: SeriesStyle::reference(REFERENCE_COLOR),
    });
    Some(FigureSpec {
        stem,
        title: format!("Noise amplification vs P, {}", key.describe()),
        subtitle: [
            "every rank delayed (noise)",
            "A = (mean t_global − mean t0) / mean per-rank delay",
            "1: the noise adds its mean",
            "above 1: the operation amplifies it by waiting for late ranks",
            "below 1: it absorbs it",
        ]
        .join(PART_SEP),
        x_label: "processes P".into(),
        y_label: "noise amplification A".into(),
        procs: sorted_distinct(mine.iter().map(|r| r.nprocs)),
        legend,
        panels,
        zero_line: false,
        dodge: false,
        x_format: Default::default(),
        hosts: Vec::new(),
        warnings: Vec::new(),
    })
}

fn legend(rows: &[&DistributionRow]) -> Vec<LegendEntry> {
    ops_of_kind(rows.iter().map(|r| r.op))
        .into_iter()
        .map(|op| LegendEntry {
            label: op.name().to_string(),
            style: SeriesStyle::for_op(op, family_color(op)),
        })
        .collect()
}

/// The distinct kernels of `ops`, each blocking kernel before its nonblocking form.
fn ops_of_kind(ops: impl IntoIterator<Item = Op>) -> Vec<Op> {
    let mut v = sorted_distinct(ops);
    v.sort_by_key(|&op| op_order(op));
    v
}

/// The `benefit_distribution_{model}` figures of a run, one per delay model.
pub(super) fn benefit_drawables(data: &RunData, _: super::Stat) -> Vec<Drawable> {
    data.per_model("benefit_distribution", |d, stem| {
        let mut f = benefit_figure(&data.run.distribution, d, stem)?;
        f.hosts = data.hosts.clone();
        Some(data.grid(f))
    })
}

/// The `noise_amplification_{model}` figures of a run, one per model with noise blocks.
pub(super) fn amplification_drawables(data: &RunData, _: super::Stat) -> Vec<Drawable> {
    data.per_model("noise_amplification", |d, stem| {
        let mut f = amplification_figure(&data.run.distribution, d, stem)?;
        f.hosts = data.hosts.clone();
        Some(data.grid(f))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(op: Op, p: u32, model: &str, median: f64, amp: Option<f64>) -> DistributionRow {
        DistributionRow {
            op,
            bytes: 8,
            nprocs: p,
            delay_model: model.into(),
            n: 40,
            benefit_mean: median,
            benefit_p5: median - 0.2,
            benefit_p25: median - 0.1,
            benefit_median: median,
            benefit_p75: median + 0.1,
            benefit_p95: median + 0.2,
            amplification: amp,
            wait_for_slowest: amp.map(|_| 1.5 + f64::from(p) / 10.0),
        }
    }

    #[test]
    fn median_box_and_whiskers_per_kernel_in_percent() {
        let rows = vec![
            row(Op::Allreduce, 2, "exp:20us", 0.1, None),
            row(Op::Allreduce, 4, "exp:20us", 0.3, None),
            row(Op::Iallreduce, 4, "exp:20us", 0.5, None),
            row(Op::Allreduce, 4, "20us", 0.9, None),
        ];
        let key = DelayKey {
            model: "exp:20us".into(),
            delay_s: 20e-6,
        };
        let f = benefit_figure(&rows, &key, "d".into()).unwrap();
        assert_eq!(f.panels.len(), 1);
        let s = &f.panels[0].series[0];
        assert_eq!(s.name, "allreduce");
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(
            close(s.points[1].1.unwrap(), 30.0),
            "the 20us row stays out"
        );
        assert!(close(s.boxes[1].1, 20.0) && close(s.boxes[1].2, 40.0));
        assert!(close(s.intervals[1].1, 10.0) && close(s.intervals[1].2, 50.0));
        assert!(amplification_figure(&rows, &key, "a".into()).is_none());
    }

    #[test]
    fn amplification_with_one_slowest_rank_reference_per_panel() {
        let rows = vec![
            row(Op::Allreduce, 2, "exp:20us", 0.1, Some(1.2)),
            row(Op::Allreduce, 4, "exp:20us", 0.1, Some(1.4)),
            row(Op::Iallreduce, 4, "exp:20us", 0.1, Some(0.9)),
        ];
        let key = DelayKey {
            model: "exp:20us".into(),
            delay_s: 20e-6,
        };
        let f = amplification_figure(&rows, &key, "a".into()).unwrap();
        let refs: Vec<&SeriesSpec> = f.panels[0]
            .series
            .iter()
            .filter(|s| s.style.reference)
            .collect();
        assert_eq!(refs.len(), 1);
        assert_eq!(refs[0].points, vec![(2, Some(1.7)), (4, Some(1.9))]);
        let a = f.panels[0]
            .series
            .iter()
            .find(|s| s.name == "allreduce")
            .unwrap();
        assert_eq!(a.points, vec![(2, Some(1.2)), (4, Some(1.4))]);
        assert!(f.panels[0].y.hi > 1.9);
    }
}
