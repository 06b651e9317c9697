//! The hidden-delay figure of overlap mode: of a late arrival δ, the share the punctual
//! ranks' computation hid, in % against P, one panel per message size, one line per
//! nonblocking kernel (`analyze --overlap`, column "delay hidden").

use super::benefit::{sorted_distinct, SizeKey};
use super::layout::{YAxis, PART_SEP};
use super::naming::{figure_stems, DelayKey};
use super::render::Drawable;
use super::spec::{
    family_color, op_order, points, FigureSpec, LegendEntry, PanelSpec, SeriesSpec, SeriesStyle,
};
use super::RunData;
use crate::analysis::OverlapRow;
use crate::plan::Op;

/// The figure of the rows with nominal delay `delay_s` (seconds), values in percent.
///
/// Only fixed delays have a hidden share (a late arrival of exactly δ), so overlap rows, which
/// carry δ but no model label, are keyed by δ.
///
/// `ci` gives a row's interval of the hidden share (fractions), drawn as error bars.
pub fn figure(
    rows: &[OverlapRow],
    delay_s: f64,
    stem: String,
    ci: &dyn Fn(&OverlapRow) -> Option<(f64, f64)>,
) -> FigureSpec {
    let key = DelayKey::fixed(delay_s);
    let delayed: Vec<&OverlapRow> = rows.iter().filter(|r| key.matches("", r.delay_s)).collect();
    let mut ops = sorted_distinct(delayed.iter().map(|r| r.op));
    ops.sort_by_key(|&op| op_order(op));
    let style = |op: Op| SeriesStyle::for_op(op, family_color(op));
    let panels = sorted_distinct(delayed.iter().map(|r| SizeKey::of(r.op, r.bytes)))
        .into_iter()
        .map(|key| PanelSpec {
            title: key.title(),
            // Hidden shares are clipped to [0, δ]: a fixed 0-100 % axis compares panels.
            y: YAxis::linear((0.0, 100.0)),
            series: ops
                .iter()
                .map(|&op| {
                    let mine: Vec<&OverlapRow> = delayed
                        .iter()
                        .copied()
                        .filter(|r| r.op == op && SizeKey::of(r.op, r.bytes) == key)
                        .collect();
                    let mut intervals: Vec<(u32, f64, f64)> = Vec::new();
                    for r in mine.iter().filter(|r| r.hidden_fraction.is_some()) {
                        if intervals.iter().all(|i| i.0 != r.nprocs) {
                            if let Some((lo, hi)) = ci(r) {
                                intervals.push((r.nprocs, lo * 100.0, hi * 100.0));
                            }
                        }
                    }
                    intervals.sort_by_key(|i| i.0);
                    SeriesSpec {
                        name: op.name().to_string(),
                        style: style(op),
                        points: points(
                            mine.iter().copied(),
                            |r| r.nprocs,
                            |r| r.hidden_fraction.map(|f| f * 100.0),
                        ),
                        intervals,
                        boxes: Vec::new(),
                    }
                })
                // A kernel without rows in this panel (ibarrier among sizes) gets no line.
                .filter(|s| !s.points.is_empty())
                .collect(),
        })
        .collect();
    FigureSpec {
        stem,
        title: format!(
            "Late arrival hidden by computation vs P, {} (overlap mode)",
            key.describe()
        ),
        subtitle: [
            "punctual ranks post, compute t_b + δ, then wait",
            "hidden = δ − (their MPI time − baseline MPI time)",
            "100 % = the whole delay hidden",
            "error bars: 95 % bootstrap interval over repetitions",
        ]
        .join(PART_SEP),
        x_label: "processes P".to_string(),
        y_label: "delay hidden (%)".to_string(),
        procs: sorted_distinct(delayed.iter().map(|r| r.nprocs)),
        panels,
        legend: ops
            .iter()
            .map(|&op| LegendEntry {
                label: op.name().to_string(),
                style: style(op),
            })
            .collect(),
        zero_line: false,
        dodge: false,
        x_format: Default::default(),
        hosts: Vec::new(),
        warnings: Vec::new(),
    }
}

/// The hidden-delay figures of `rows`, one per δ > 0 with a hidden share, stems
/// `hidden_vs_p_{δ}`.
pub fn figures(
    rows: &[OverlapRow],
    ci: &dyn Fn(&OverlapRow) -> Option<(f64, f64)>,
) -> Vec<FigureSpec> {
    let delays = super::naming::distinct_delays(
        rows.iter()
            .filter(|r| r.hidden_fraction.is_some())
            .map(|r| r.delay_s),
    );
    let stems = figure_stems("hidden", &delays);
    delays
        .iter()
        .zip(stems)
        .map(|(&d, stem)| figure(rows, d, stem, ci))
        .collect()
}

/// The `hidden_vs_p_{δ}` figures of a run measured in overlap mode.
pub(super) fn drawables(data: &RunData, _: super::Stat) -> Vec<Drawable> {
    let rows: Vec<OverlapRow> = data
        .run
        .overlap_rows()
        .into_iter()
        .filter(|r| {
            data.selection
                .keeps_overlap(r.op, r.bytes, r.nprocs, r.delay_s)
        })
        .collect();
    let boot = crate::analysis::Bootstrap::default();
    let ci = |r: &OverlapRow| {
        data.run
            .hidden
            .interval(r.op, r.bytes, r.nprocs, r.delay_s, &boot)
            .map(|i| (i.lo, i.hi))
    };
    figures(&rows, &ci)
        .into_iter()
        .map(|mut f| {
            f.hosts = data.hosts.clone();
            data.grid(f)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(op: Op, p: u32, delay_s: f64, hidden: Option<f64>) -> OverlapRow {
        OverlapRow {
            op,
            bytes: if op.has_payload() { 8 } else { 0 },
            nprocs: p,
            delay_s,
            mode: "time".into(),
            valid: 1,
            total: 1,
            t_pure_s: 1e-6,
            overall_s: 2e-6,
            compute_s: 1e-6,
            post_s: 0.0,
            test_s: 0.0,
            wait_s: 1e-6,
            overhead_s: 1e-6,
            overlap_osu_pct: 0.0,
            overlap_imb_pct: 0.0,
            hidden_delay_s: hidden.map(|h| h * delay_s),
            hidden_fraction: hidden,
        }
    }

    #[test]
    fn one_panel_per_size_one_line_per_kernel_in_percent() {
        let rows = vec![
            row(Op::Iallreduce, 2, 0.0, None),
            row(Op::Iallreduce, 2, 50e-6, Some(0.9)),
            row(Op::Iallreduce, 4, 50e-6, Some(0.5)),
            row(Op::Ibarrier, 2, 50e-6, Some(1.0)),
        ];
        let ci = |r: &OverlapRow| r.hidden_fraction.map(|f| (f - 0.1, f + 0.05));
        let f = figure(&rows, 50e-6, "hidden_vs_p_50us".into(), &ci);
        assert_eq!(f.procs, vec![2, 4]);
        assert_eq!(f.panels.len(), 2, "barrier panel and 8 B panel");
        let allreduce = &f.panels[1].series[0];
        assert_eq!(allreduce.name, "iallreduce");
        assert_eq!(allreduce.points, vec![(2, Some(90.0)), (4, Some(50.0))]);
        assert_eq!(f.panels[0].series[0].points, vec![(2, Some(100.0))]);
        // Error bars in percent at every point with a share.
        let bars = &allreduce.intervals;
        assert_eq!(bars.len(), 2);
        assert!((bars[0].1 - 80.0).abs() < 1e-9 && (bars[0].2 - 95.0).abs() < 1e-9);
        assert!(f.subtitle.contains("error bars"));
    }

    #[test]
    fn drawables_of_a_run_carry_bootstrap_error_bars() {
        use crate::records::{testdata, Records};
        let mut blocks = Vec::new();
        for p in [2, 4] {
            for d in [0.0, 5e-6] {
                let mut b = testdata::block(Op::Iallreduce, 8, p, d, 30, 10e-6);
                b.flags.iter_mut().for_each(|f| *f = 0);
                blocks.push(testdata::with_overlap(b));
            }
        }
        let r = Records {
            header: testdata::header(4),
            blocks,
            footer: None,
            truncated: false,
        };
        let figs = drawables(&RunData::new(&r), crate::plot::Stat::Median);
        assert_eq!(figs.len(), 1);
        let Drawable::Grid(f) = &figs[0] else {
            panic!("a panel grid");
        };
        let s = &f.panels[0].series[0];
        assert_eq!(s.values().count(), 2, "{:?}", s.points);
        assert_eq!(s.intervals.len(), 2, "an error bar at each P");
        for (&(p, lo, hi), (q, v)) in s.intervals.iter().zip(s.values()) {
            assert_eq!(p, q);
            assert!(lo <= v && v <= hi && hi - lo > 0.0, "{lo} <= {v} <= {hi}");
        }
    }

    #[test]
    fn a_figure_per_delay_with_something_hidden() {
        let none = |_: &OverlapRow| None;
        assert!(figures(&[row(Op::Iallreduce, 2, 0.0, None)], &none).is_empty());
        let f = figures(&[row(Op::Iallreduce, 2, 50e-6, Some(0.7))], &none);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].stem, "hidden_vs_p_50us");
    }
}
