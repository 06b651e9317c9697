//! The hidden-delay figure of overlap mode: of a late arrival δ, the share the punctual
//! ranks' computation hid, in % against P, one panel per message size, one line per
//! nonblocking kernel (`analyze --overlap`, column "delay hidden").

use super::benefit::{sorted_distinct, SizeKey};
use super::layout::{YAxis, PART_SEP};
use super::naming::{figure_stems, pretty_duration, DelayKey};
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
/// carry δ but no model label, are keyed by δ as a fixed delay.
pub fn figure(rows: &[OverlapRow], delay_s: f64, stem: String) -> FigureSpec {
    let key = DelayKey::fixed(delay_s);
    let delayed: Vec<&OverlapRow> = rows.iter().filter(|r| key.matches("", r.delay_s)).collect();
    let mut ops = sorted_distinct(delayed.iter().map(|r| r.op));
    ops.sort_by_key(|&op| op_order(op));
    let style = |op: Op| SeriesStyle::for_op(op, family_color(op));
    let panels = sorted_distinct(delayed.iter().map(|r| SizeKey::of(r.op, r.bytes)))
        .into_iter()
        .map(|key| PanelSpec {
            title: key.title(),
            // Not clipped: the axis holds 0-100 % (panels compare) and every value and
            // interval end beyond it.
            y: YAxis::linear(hidden_range(delayed.iter().flat_map(|r| {
                [r.hidden_fraction, r.hidden_ci_lo, r.hidden_ci_hi]
                    .into_iter()
                    .flatten()
                    .map(|f| f * 100.0)
            }))),
            series: ops
                .iter()
                .map(|&op| SeriesSpec {
                    name: op.name().to_string(),
                    style: style(op),
                    points: points(
                        delayed
                            .iter()
                            .copied()
                            .filter(|r| r.op == op && SizeKey::of(r.op, r.bytes) == key),
                        |r| r.nprocs,
                        |r| r.hidden_fraction.map(|f| f * 100.0),
                    ),
                    intervals: delayed
                        .iter()
                        .filter(|r| r.op == op && SizeKey::of(r.op, r.bytes) == key)
                        .filter_map(|r| {
                            Some((r.nprocs, r.hidden_ci_lo? * 100.0, r.hidden_ci_hi? * 100.0))
                        })
                        .collect(),
                    boxes: Vec::new(),
                })
                // A kernel without rows in this panel (ibarrier among sizes) gets no line.
                .filter(|s| !s.points.is_empty())
                .collect(),
        })
        .collect();
    FigureSpec {
        stem,
        title: format!(
            "Late arrival hidden by computation vs P, δ = {} (overlap mode)",
            pretty_duration(delay_s)
        ),
        subtitle: [
            "punctual ranks post, compute t_b + δ, then wait",
            "hidden = δ − (their MPI time − the same ranks' baseline MPI time), not clipped",
            "100 % = the whole delay hidden; bars: 95 % bootstrap interval",
            "delaybench's own metric",
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
        warnings: na_notes(&delayed),
    }
}

/// Delayed rows without a delay hidden, counted by reason (they have no point).
fn na_notes(rows: &[&OverlapRow]) -> Vec<String> {
    let mut reasons: Vec<&str> = rows.iter().filter_map(|r| r.hidden_na).collect();
    reasons.sort_unstable();
    reasons.dedup();
    reasons
        .into_iter()
        .map(|reason| {
            let n = rows.iter().filter(|r| r.hidden_na == Some(reason)).count();
            format!("delay hidden n/a for {n} block(s): {reason}")
        })
        .collect()
}

/// Y range in percent: [0, 100] widened to every value, with 5 % headroom beyond it.
fn hidden_range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((0.0f64, 100.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = (hi - lo) * 0.05;
    (
        if lo < 0.0 { lo - pad } else { 0.0 },
        if hi > 100.0 { hi + pad } else { 100.0 },
    )
}

/// The hidden-delay figures of `rows`, one per δ > 0 with a hidden share, stems
/// `hidden_vs_p_{δ}`.
pub fn figures(rows: &[OverlapRow]) -> Vec<FigureSpec> {
    let delays = super::naming::distinct_delays(
        rows.iter()
            .filter(|r| r.hidden_fraction.is_some())
            .map(|r| r.delay_s),
    );
    let stems = figure_stems("hidden", &delays);
    delays
        .iter()
        .zip(stems)
        .map(|(&d, stem)| figure(rows, d, stem))
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
    figures(&rows).into_iter().map(|f| data.grid(f)).collect()
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
            algorithm: String::new(),
            mode: "time".into(),
            valid: 1,
            total: 1,
            t_pure_s: 1e-6,
            overall_s: Some(2e-6),
            compute_s: Some(1e-6),
            post_s: Some(0.0),
            test_s: Some(0.0),
            wait_s: Some(1e-6),
            overhead_s: Some(1e-6),
            osu_t_pure_s: None,
            osu_t_comp_s: None,
            osu_t_ovrl_s: None,
            overlap_osu_pct: None,
            imb_t_pure_s: None,
            imb_t_comp_s: None,
            imb_t_ovrl_s: None,
            overlap_imb_pct: None,
            imb_rank: None,
            tools_na: Some(crate::analysis::overlap::NA_DELAYED),
            hidden_delay_s: hidden.map(|h| h * delay_s),
            hidden_fraction: hidden,
            hidden_ci_lo: None,
            hidden_ci_hi: None,
            hidden_n: None,
            hidden_na: None,
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
        let f = figure(&rows, 50e-6, "hidden_vs_p_50us".into());
        assert_eq!(f.procs, vec![2, 4]);
        assert_eq!(f.panels.len(), 2, "barrier panel and 8 B panel");
        let allreduce = &f.panels[1].series[0];
        assert_eq!(allreduce.name, "iallreduce");
        assert_eq!(allreduce.points, vec![(2, Some(90.0)), (4, Some(50.0))]);
        assert_eq!(f.panels[0].series[0].points, vec![(2, Some(100.0))]);
    }

    #[test]
    fn blocks_without_a_value_are_counted_in_the_notes() {
        let mut none = row(Op::Iallreduce, 4, 50e-6, None);
        none.hidden_na = Some(crate::analysis::overlap::NA_NO_BASELINE);
        let f = figure(
            &[row(Op::Iallreduce, 2, 50e-6, Some(0.9)), none],
            50e-6,
            "h".into(),
        );
        assert_eq!(
            f.warnings,
            vec![format!(
                "delay hidden n/a for 1 block(s): {}",
                crate::analysis::overlap::NA_NO_BASELINE
            )]
        );
    }

    #[test]
    fn the_axis_holds_values_outside_0_to_100() {
        assert_eq!(hidden_range([50.0]), (0.0, 100.0));
        let (lo, hi) = hidden_range([-20.0, 110.0]);
        assert!(lo < -20.0 && hi > 110.0, "{lo} {hi}");
    }

    #[test]
    fn a_figure_per_delay_with_something_hidden() {
        assert!(figures(&[row(Op::Iallreduce, 2, 0.0, None)]).is_empty());
        let f = figures(&[row(Op::Iallreduce, 2, 50e-6, Some(0.7))]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].stem, "hidden_vs_p_50us");
    }

    #[test]
    fn drawables_of_a_run_carry_bootstrap_error_bars() {
        use crate::records::testdata;
        let mut blocks = Vec::new();
        for p in [2, 4] {
            for d in [0.0, 5e-6] {
                let mut b = testdata::block(Op::Iallreduce, 8, p, d, 30, 10e-6);
                b.flags.iter_mut().for_each(|f| *f = 0);
                blocks.push(testdata::with_overlap(b));
            }
        }
        let r = testdata::records(4, blocks);
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
}
