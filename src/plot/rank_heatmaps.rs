//! Rank × repetition heatmaps of one delay model: per rank and repetition its lateness
//! (start − the repetition's earliest start) or its exit time (end − the earliest start), a
//! panel per kernel and size at the largest P, at most [`MAX_PANELS_PER_P`] per P (the worst). A late rank is a bright row; a rank that
//! waits for it shows in the exit map; drift, warm-up or a noisy neighbour show as columns
//! or stripes that a median hides.

use super::heat_grids::HeatBlock;
use super::layout::PART_SEP;
use super::naming::DelayKey;
use super::over_run::{config_title, FEW_REPETITIONS};
use super::rank_timeline::rank_names;
use super::render::Drawable;
use super::spec::{op_order, LegendEntry, Marker, SeriesStyle};
use super::xy::{heat_color, HeatGrid, XyAxis, XyFigure, XyPanel, NO_VALUE_COLOR};
use super::RunData;

/// Which per-rank time a heatmap shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeatKind {
    /// Start − the repetition's earliest start.
    Lateness,
    /// End − the repetition's earliest start.
    Exit,
}

/// Colour-scale steps named in the legend.
const LEGEND_STEPS: usize = 5;
/// The top of the colour scale is this quantile of the cells, so one outlier does not turn
/// every other cell dark; larger values take the top colour (the exit scale's bottom is the
/// opposite quantile).
const SCALE_QUANTILE: f64 = 0.99;

impl HeatKind {
    fn values(self, h: &HeatBlock) -> &[f32] {
        match self {
            HeatKind::Lateness => &h.lateness_us,
            HeatKind::Exit => &h.exit_us,
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            HeatKind::Lateness => "rank_lateness",
            HeatKind::Exit => "rank_exit",
        }
    }
}

/// Most panels a heatmap draws per P: the configurations with the most lateness that was
/// not injected (the lateness map) or the latest exits (the exit map); the others are named
/// by count in the subtitle. A run of every kernel would otherwise draw one panel per
/// configuration, 26 on `scripts/run.sh`'s, each too small to read.
pub const MAX_PANELS_PER_P: usize = 4;
/// A configuration has lateness to show when the 95th percentile of its cells exceeds this
/// many µs or [`SHOW_FRACTION`] of δ, whichever is larger.
const SHOW_FLOOR_US: f64 = 2.0;
/// See [`SHOW_FLOOR_US`].
const SHOW_FRACTION: f64 = 0.05;

/// The lateness that was not injected, µs `[rows][cols]`: per repetition, each rank's start
/// minus its planned delay, less the earliest of those, (lateness_r − d_r) − min_k
/// (lateness_k − d_k) (the earliest start cancels). 0 everywhere means every rank started
/// exactly as planned. `None` where the planned delays are not known per cell: a sampled
/// model, a rank set drawn per repetition, or a binned grid.
fn not_injected(h: &HeatBlock, fixed: bool) -> Option<Vec<f32>> {
    if !fixed || h.delayed_ranks.is_empty() || h.rank_step != 1 || h.rep_step != 1 {
        return None;
    }
    let delay_us = (h.delay_s * 1e6) as f32;
    let planned = |row: usize| {
        if h.delayed_ranks.contains(&(row as u32)) {
            delay_us
        } else {
            0.0
        }
    };
    let mut out = vec![f32::NAN; h.rows * h.cols];
    for col in 0..h.cols {
        let shifted = |row: usize| h.lateness_us[row * h.cols + col] - planned(row);
        let first = (0..h.rows)
            .map(shifted)
            .filter(|v| v.is_finite())
            .fold(f32::INFINITY, f32::min);
        if first.is_finite() {
            for row in 0..h.rows {
                out[row * h.cols + col] = shifted(row) - first;
            }
        }
    }
    Some(out)
}

/// The `q` quantile (nearest rank) of the finite values of `values`.
fn quantile(values: &[f32], q: f64) -> Option<f64> {
    let mut v: Vec<f32> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f32::total_cmp);
    v.get(((v.len().saturating_sub(1)) as f64 * q).round() as usize)
        .map(|&x| f64::from(x))
}

/// Valid repetitions of an unbinned grid: the columns with a value.
fn valid_columns(h: &HeatBlock) -> Option<usize> {
    (h.rep_step == 1).then(|| {
        (0..h.cols)
            .filter(|&c| (0..h.rows).any(|r| !h.lateness_us[r * h.cols + c].is_nan()))
            .count()
    })
}

/// The heatmap of `kind` for delay model `key`, or `None` without a block of that model.
pub fn figure(data: &RunData, kind: HeatKind, key: &DelayKey, stem: String) -> Option<XyFigure> {
    let mut blocks: Vec<&HeatBlock> = data
        .run
        .heat
        .blocks
        .iter()
        .filter(|h| key.matches(&h.delay_model, h.delay_s))
        .collect();
    if blocks.is_empty() {
        return None;
    }
    blocks.sort_by_key(|h| (op_order(h.op), h.bytes));
    // Lateness on the scale of what was not injected where the plan says who was late by
    // how much; the raw lateness otherwise.
    let planned = kind == HeatKind::Lateness
        && blocks
            .iter()
            .all(|h| not_injected(h, key.is_fixed()).is_some());
    let values = |h: &HeatBlock| -> Vec<f32> {
        if planned {
            not_injected(h, true).unwrap_or_default()
        } else {
            kind.values(h).to_vec()
        }
    };
    // Lateness must exceed a floor to be worth a panel; every exit map has something to
    // show (the operation itself), so only the cap applies.
    let floor = match kind {
        HeatKind::Lateness => SHOW_FLOOR_US.max(SHOW_FRACTION * key.delay_s * 1e6),
        HeatKind::Exit => f64::NEG_INFINITY,
    };
    let (kept, left_out) = panels_to_show(&blocks, &values, floor);
    blocks = kept;
    let mut all: Vec<f32> = blocks
        .iter()
        .flat_map(|h| values(h))
        .filter(|v| v.is_finite())
        .collect();
    all.sort_by(f32::total_cmp);
    let at = |q: f64| {
        all.get(((all.len().saturating_sub(1)) as f64 * q).round() as usize)
            .map(|&v| f64::from(v))
    };
    // Lateness starts at 0 (the earliest rank); exit times all include the operation, so
    // their scale starts at the low quantile, or every cell would share one colour.
    let lo = match kind {
        HeatKind::Lateness => 0.0,
        HeatKind::Exit => at(1.0 - SCALE_QUANTILE).unwrap_or(0.0).max(0.0),
    };
    // What was not injected is often near 0: a floor keeps noise from filling the scale.
    let floor = if planned { SHOW_FLOOR_US } else { 1e-3 };
    let hi = at(SCALE_QUANTILE).unwrap_or(1.0).max(lo + floor);
    let binned = blocks.iter().any(|h| h.rank_step > 1 || h.rep_step > 1);
    let panels = blocks
        .iter()
        .map(|h| {
            let p = h.nprocs as usize;
            let late: Vec<usize> = h.delayed_ranks.iter().map(|&r| r as usize).collect();
            let n = valid_columns(h).filter(|&n| n < FEW_REPETITIONS);
            XyPanel {
                title: match n {
                    Some(n) => format!("{}, n = {n}", config_title(h.op, h.bytes, h.nprocs)),
                    None => config_title(h.op, h.bytes, h.nprocs),
                },
                x: XyAxis {
                    lo: -0.5,
                    hi: f64::from(h.nrep) - 0.5,
                    log: false,
                    label: "repetition".into(),
                },
                y: XyAxis {
                    lo: -0.5,
                    hi: p as f64 - 0.5,
                    log: false,
                    label: "rank".into(),
                },
                bars: Vec::new(),
                lines: Vec::new(),
                marks: Vec::new(),
                y_names: if h.rank_step == 1 {
                    rank_names(p, &late)
                } else {
                    Vec::new()
                },
                heat: Some(HeatGrid {
                    rows: h.rows,
                    cols: h.cols,
                    x0: -0.5,
                    x_step: h.rep_step as f64,
                    y0: -0.5,
                    y_step: h.rank_step as f64,
                    values: values(h),
                    lo,
                    hi,
                }),
            }
        })
        .collect();
    let what = match kind {
        HeatKind::Lateness if planned => "Lateness not injected",
        HeatKind::Lateness => "Lateness",
        HeatKind::Exit => "Exit time",
    };
    let colour = match kind {
        HeatKind::Lateness if planned => {
            "colour: the rank's start − its planned delay − the repetition's earliest such \
             start (0: as planned; the injected δ itself is taken out)"
        }
        HeatKind::Lateness => {
            "colour: the rank's start − the repetition's earliest start (the planned delays \
             are not known per cell: sampled, drawn per repetition or binned)"
        }
        HeatKind::Exit => {
            "colour: the rank's end − the repetition's earliest start (the column's largest is t_global)"
        }
    };
    let mut subtitle = vec![
        colour.to_string(),
        "one row per rank, one column per repetition (global clock)".to_string(),
        "grey: invalid repetition".to_string(),
    ];
    let most = match kind {
        HeatKind::Lateness => "the most lateness",
        HeatKind::Exit => "the latest exits",
    };
    for &(p, shown, total, rest_us) in &left_out {
        subtitle.push(if shown == 0 {
            format!(
                "P = {p}: no panel, none of its {total} configurations has lateness beyond the \
                 plan (95th percentile ≤ {} µs)",
                short_us(rest_us)
            )
        } else {
            format!(
                "P = {p}: {shown} of {total} configurations drawn, those with {most}; the \
                 others' 95th percentile ≤ {} µs",
                short_us(rest_us)
            )
        });
    }
    if binned {
        subtitle.push(
            "large blocks binned: a cell shows the largest value of its ranks and repetitions"
                .into(),
        );
    }
    let mut legend: Vec<LegendEntry> = (0..LEGEND_STEPS)
        .map(|i| {
            let v = lo + (hi - lo) * i as f64 / (LEGEND_STEPS - 1) as f64;
            let top = if i + 1 == LEGEND_STEPS {
                " or more"
            } else if i == 0 && lo > 0.0 {
                " or less"
            } else {
                ""
            };
            LegendEntry {
                label: format!("{} µs{top}", short_us(v)),
                style: swatch(heat_color(v, lo, hi)),
            }
        })
        .collect();
    legend.push(LegendEntry {
        label: "invalid".into(),
        style: swatch(NO_VALUE_COLOR),
    });
    Some(XyFigure {
        stem,
        title: format!("{what} per rank and repetition, {}", key.describe()),
        subtitle: subtitle.join(PART_SEP),
        warnings: data.warnings.clone(),
        panels,
        legend,
    })
}

/// Per P, the configurations with something to show (95th percentile of `values`, µs, above
/// `floor`), at most [`MAX_PANELS_PER_P`] of the largest, in figure order; a P with nothing to show gets no panel, unless no P has any (then
/// the largest one is drawn, so the figure has a panel). Also, per P that left some out:
/// (P, drawn, configurations, the largest 95th percentile left out).
#[allow(clippy::type_complexity)]
fn panels_to_show<'a>(
    blocks: &[&'a HeatBlock],
    values: &dyn Fn(&HeatBlock) -> Vec<f32>,
    floor: f64,
) -> (Vec<&'a HeatBlock>, Vec<(u32, usize, usize, f64)>) {
    let mut procs: Vec<u32> = blocks.iter().map(|h| h.nprocs).collect();
    procs.sort_unstable();
    procs.dedup();
    // Per P its configurations, largest 95th percentile first, and how many to draw.
    let mut per_p: Vec<(u32, Vec<(&HeatBlock, f64)>, usize)> = procs
        .into_iter()
        .map(|p| {
            let mut scored: Vec<(&HeatBlock, f64)> = blocks
                .iter()
                .filter(|h| h.nprocs == p)
                .map(|&h| (h, quantile(&values(h), 0.95).unwrap_or(0.0)))
                .collect();
            scored.sort_by(|a, b| b.1.total_cmp(&a.1));
            let shown = scored
                .iter()
                .take(MAX_PANELS_PER_P)
                .filter(|s| s.1 > floor)
                .count();
            (p, scored, shown)
        })
        .collect();
    if per_p.iter().all(|(_, _, shown)| *shown == 0) {
        let top = per_p
            .iter()
            .enumerate()
            .max_by(|a, b| a.1 .1[0].1.total_cmp(&b.1 .1[0].1))
            .map(|(i, _)| i);
        if let Some(i) = top {
            per_p[i].2 = 1;
        }
    }
    let mut kept = Vec::new();
    let mut left_out = Vec::new();
    for (p, scored, shown) in per_p {
        if shown < scored.len() {
            left_out.push((p, shown, scored.len(), scored[shown].1));
        }
        kept.extend(scored.into_iter().take(shown).map(|s| s.0));
    }
    kept.sort_by_key(|h| (h.nprocs, op_order(h.op), h.bytes));
    (kept, left_out)
}

/// `v` µs with about three significant digits: `0`, `1.37`, `13.7`, `137`.
pub(super) fn short_us(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 || a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

pub(super) fn swatch(color: (u8, u8, u8)) -> SeriesStyle {
    SeriesStyle {
        color,
        dashed: false,
        marker: Marker::Swatch,
        reference: false,
    }
}

/// The `rank_lateness_{model}` figures, one per delay model.
pub(super) fn lateness(data: &RunData, _: super::Stat) -> Vec<Drawable> {
    drawables(data, HeatKind::Lateness)
}

/// The `rank_exit_{model}` figures, one per delay model.
pub(super) fn exit(data: &RunData, _: super::Stat) -> Vec<Drawable> {
    drawables(data, HeatKind::Exit)
}

fn drawables(data: &RunData, kind: HeatKind) -> Vec<Drawable> {
    data.per_model(kind.prefix(), |d, stem| {
        figure(data, kind, d, stem).map(Drawable::Custom)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    #[test]
    fn a_panel_per_configuration_of_p_ranks_by_nrep_repetitions() {
        let mut blocks = Vec::new();
        for op in [Op::Iallreduce, Op::Allreduce] {
            for p in [2, 4] {
                for d in [0.0, 50e-6] {
                    blocks.push(testdata::block(op, 8, p, d, 30, 10e-6));
                }
            }
        }
        let r = testdata::records(4, blocks);
        let data = RunData::new(&r);
        let key = DelayKey::fixed(50e-6);
        for kind in [HeatKind::Lateness, HeatKind::Exit] {
            let fig = figure(&data, kind, &key, "h".into()).unwrap();
            let titles: Vec<&str> = fig.panels.iter().map(|p| p.title.as_str()).collect();
            // testdata: one invalid repetition of 30, so n = 29 in the titles.
            match kind {
                HeatKind::Exit => assert_eq!(
                    titles,
                    vec![
                        "allreduce, 8 B, P = 4, n = 29",
                        "iallreduce, 8 B, P = 4, n = 29"
                    ]
                ),
                // Every rank started as planned: nothing to show but one panel for P = 4,
                // and the subtitle says what was left out.
                HeatKind::Lateness => {
                    assert_eq!(titles, vec!["allreduce, 8 B, P = 4, n = 29"]);
                    assert!(
                        fig.title.starts_with("Lateness not injected"),
                        "{}",
                        fig.title
                    );
                    assert!(
                        fig.subtitle.contains("P = 4: 1 of 2 configurations drawn"),
                        "{}",
                        fig.subtitle
                    );
                }
            }
            for panel in &fig.panels {
                let heat = panel.heat.as_ref().unwrap();
                assert_eq!((heat.rows, heat.cols), (4, 30), "P × nrep");
                assert_eq!(heat.values.len(), 4 * 30);
                assert_eq!(panel.y_names[0], "0 (late)");
            }
            assert_eq!(fig.legend.len(), LEGEND_STEPS + 1);
            let first = &fig.legend[0].label;
            match kind {
                HeatKind::Lateness => assert_eq!(first, "0 µs"),
                // Exit times start at the operation time: the scale starts there too.
                HeatKind::Exit => assert!(first.ends_with("µs or less") && first != "0 µs or less"),
            }
        }
        let late = figure(&data, HeatKind::Lateness, &key, "h".into()).unwrap();
        // The planned 50 us of rank 0 is taken out: every cell is 0, and the scale is the
        // floor that keeps noise from filling it.
        let heat = late.panels[0].heat.as_ref().unwrap();
        assert!(heat
            .values
            .iter()
            .filter(|v| v.is_finite())
            .all(|&v| v.abs() < 1e-3));
        assert!((heat.hi - SHOW_FLOOR_US).abs() < 1e-9);
        assert_eq!(late.legend[2].label, "1.00 µs");
        assert!(figure(&data, HeatKind::Exit, &DelayKey::fixed(1e-6), "h".into()).is_none());
    }

    #[test]
    fn lateness_beyond_the_plan_is_shown_per_p_worst_first() {
        let mut blocks = Vec::new();
        for op in [
            Op::Allreduce,
            Op::Iallreduce,
            Op::Bcast,
            Op::Ibcast,
            Op::Reduce,
            Op::Ireduce,
        ] {
            for d in [0.0, 50e-6] {
                blocks.push(testdata::block(op, 8, 4, d, 30, 10e-6));
            }
        }
        let mut r = testdata::records(4, blocks);
        // Rank 2 of bcast starts 20 us late in every repetition: not injected.
        for b in r
            .blocks
            .iter_mut()
            .filter(|b| b.op == Op::Bcast && b.delay_s > 0.0)
        {
            for rep in 0..b.nrep as usize {
                b.t_start_global_s.0[rep * 4 + 2] += 20e-6;
            }
        }
        let data = RunData::new(&r);
        let fig = figure(
            &data,
            HeatKind::Lateness,
            &DelayKey::fixed(50e-6),
            "h".into(),
        )
        .unwrap();
        // Only bcast has lateness to show; the others are counted in the subtitle.
        assert_eq!(
            fig.panels.len(),
            1,
            "{:?}",
            fig.panels.iter().map(|p| &p.title).collect::<Vec<_>>()
        );
        assert!(fig.panels[0].title.starts_with("bcast, 8 B, P = 4"));
        assert!(
            fig.subtitle.contains("P = 4: 1 of 6 configurations drawn"),
            "{}",
            fig.subtitle
        );
        let heat = fig.panels[0].heat.as_ref().unwrap();
        // Row 2, first valid column: 20 us beyond the plan; the late rank 0 shows 0.
        assert!(
            (heat.values[2 * heat.cols] - 20.0).abs() < 0.01,
            "{:?}",
            &heat.values[..]
        );
        assert!(heat.values[0].abs() < 0.01);
        // The exit map draws the four configurations with the latest exits of the six, in
        // figure order: ireduce, whose every rank leaves 40 us later, is among them.
        let mut late_exit = r.clone();
        for b in late_exit
            .blocks
            .iter_mut()
            .filter(|b| b.op == Op::Ireduce && b.delay_s > 0.0)
        {
            for v in b.t_end_global_s.0.iter_mut() {
                *v += 40e-6;
            }
        }
        let exit = figure(
            &RunData::new(&late_exit),
            HeatKind::Exit,
            &DelayKey::fixed(50e-6),
            "h".into(),
        )
        .unwrap();
        let titles: Vec<&str> = exit.panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles.len(), MAX_PANELS_PER_P, "{titles:?}");
        assert!(
            titles.iter().any(|t| t.starts_with("ireduce, 8 B, P = 4")),
            "{titles:?}"
        );
        assert!(
            exit.subtitle
                .contains("P = 4: 4 of 6 configurations drawn, those with the latest exits"),
            "{}",
            exit.subtitle
        );
        // A P with nothing beyond the plan gets no panel, only a line (alltoall is measured
        // at P = 2 only, so its heatmap is at P = 2).
        let mut r = r.clone();
        r.blocks
            .extend([0.0, 50e-6].map(|d| testdata::block(Op::Alltoall, 8, 2, d, 30, 10e-6)));
        let data = RunData::new(&r);
        let fig = figure(
            &data,
            HeatKind::Lateness,
            &DelayKey::fixed(50e-6),
            "h".into(),
        )
        .unwrap();
        assert!(fig.panels.iter().all(|p| p.title.contains("P = 4")));
        assert!(
            fig.subtitle
                .contains("P = 2: no panel, none of its 1 configurations"),
            "{}",
            fig.subtitle
        );
    }
}
