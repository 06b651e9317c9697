//! t_global over the run: every repetition's t_global against its index, undelayed and
//! delayed, one panel per kernel and size at the largest P. A slope exposes clock drift
//! (Hunold and Carpen-Amarie 2015, §5, Figures 1 and 7); a high start, warm-up.

use super::benefit::sorted_distinct;
use super::naming::{distinct_models, pretty_bytes, DelayKey};
use super::render::Drawable;
use super::spec::{op_order, LegendEntry, SeriesStyle, BASELINE_COLOR};
use super::thin::{thin_scatter, MAX_POINTS};
use super::xy::{span, Join, XyAxis, XyFigure, XyLine, XyPanel};
use super::BlockExtras;
use super::RunData;
use crate::analysis::BlockDigest;
use crate::plan::Op;

/// Colours of the delays δ > 0, in ascending δ (Okabe–Ito blue, vermillion, green, purple).
pub const DELAY_COLORS: [(u8, u8, u8); 4] =
    [(0, 114, 178), (213, 94, 0), (0, 158, 115), (204, 121, 167)];

/// Microseconds per second.
const US: f64 = 1e6;

/// Below this many valid repetitions a panel's title gives its n (the figures that draw
/// single repetitions: over the run, the ECDF, the heatmaps).
pub const FEW_REPETITIONS: usize = 30;

/// The (op, bytes) of `blocks` in plot order, each with its largest P: the figures that
/// show one panel per configuration show the largest P, where effects are strongest.
pub fn largest_p_configs(blocks: &[BlockDigest]) -> Vec<(Op, u64, u32)> {
    let mut keys = sorted_distinct(blocks.iter().map(|b| (op_order(b.op), b.op, b.bytes)));
    keys.dedup();
    keys.into_iter()
        .map(|(_, op, bytes)| {
            let p = blocks
                .iter()
                .filter(|b| b.op == op && b.bytes == bytes)
                .map(|b| b.nprocs)
                .max()
                .expect("the key came from a block");
            (op, bytes, p)
        })
        .collect()
}

/// Panel title `allreduce, 8 B, P = 4` (no size for barriers).
pub fn config_title(op: Op, bytes: u64, p: u32) -> String {
    if op.has_payload() {
        format!("{op}, {}, P = {p}", pretty_bytes(bytes))
    } else {
        format!("{op}, P = {p}")
    }
}

/// (repetition index, t_global in µs) of the valid repetitions of a block, from its digest
/// (valid t_globals) and extras (their indices).
pub fn rep_points(digest: &BlockDigest, extras: &BlockExtras) -> Vec<(f64, f64)> {
    extras
        .valid_reps
        .iter()
        .zip(&digest.t_globals)
        .map(|(rep, &t)| (rep as f64, t * US))
        .collect()
}

/// The colour of delay model `key` among the run's `delays` (ascending, [`distinct_models`]).
pub fn delay_color(delays: &[DelayKey], key: &DelayKey) -> (u8, u8, u8) {
    let i = delays.iter().position(|d| d == key).unwrap_or(0);
    DELAY_COLORS[i % DELAY_COLORS.len()]
}

/// The colour of a block of model `model` and nominal δ `delay_s` (seconds): grey for the
/// baseline, else its model's among `delays`.
pub fn block_color(delays: &[DelayKey], model: &str, delay_s: f64) -> (u8, u8, u8) {
    if delay_s <= 0.0 {
        return BASELINE_COLOR;
    }
    let i = delays
        .iter()
        .position(|d| d.matches(model, delay_s))
        .unwrap_or(0);
    DELAY_COLORS[i % DELAY_COLORS.len()]
}

/// The figure, or `None` for records without a block.
pub fn figure(data: &RunData) -> Option<XyFigure> {
    let blocks = &data.run.launch.blocks;
    let delays = distinct_models(blocks.iter().map(|b| (b.delay_model.as_str(), b.delay_s)));
    let panels: Vec<XyPanel> = largest_p_configs(blocks)
        .into_iter()
        .map(|(op, bytes, p)| {
            let mine: Vec<(&BlockDigest, &BlockExtras)> = blocks
                .iter()
                .zip(&data.run.extras)
                .filter(|(b, _)| b.op == op && b.bytes == bytes && b.nprocs == p)
                .collect();
            let lines: Vec<XyLine> = mine
                .iter()
                .map(|(b, x)| XyLine {
                    style: SeriesStyle::new(false, block_color(&delays, &b.delay_model, b.delay_s)),
                    join: Join::Scatter,
                    points: thin_scatter(rep_points(b, x), MAX_POINTS),
                })
                .collect();
            let nrep = mine.iter().map(|(b, _)| b.nrep).max().unwrap_or(1);
            let (lo, hi, log) = span(
                lines.iter().flat_map(|l| l.points.iter().map(|p| p.1)),
                true,
            );
            // An empty panel must say why, or it reads as a drawing fault.
            let mut title = config_title(op, bytes, p);
            // The sparser of its series, when too few for a smooth picture.
            let n = mine
                .iter()
                .map(|(b, _)| b.t_globals.len())
                .min()
                .unwrap_or(0);
            if lines.iter().all(|l| l.points.is_empty()) {
                title.push_str(": no valid repetition");
            } else if n < FEW_REPETITIONS {
                title.push_str(&format!(", n = {n}"));
            }
            XyPanel {
                title,
                x: XyAxis {
                    lo: -0.5,
                    hi: f64::from(nrep) - 0.5,
                    log: false,
                    label: "repetition".into(),
                },
                y: XyAxis {
                    lo,
                    hi,
                    log,
                    label: "t_global (µs)".into(),
                },
                bars: Vec::new(),
                lines,
                marks: Vec::new(),
                y_names: Vec::new(),
                heat: None,
            }
        })
        .collect();
    if panels.is_empty() {
        return None;
    }
    let mut legend = vec![LegendEntry {
        label: "undelayed (δ = 0)".into(),
        style: SeriesStyle::new(false, BASELINE_COLOR),
    }];
    legend.extend(delays.iter().map(|d| LegendEntry {
        label: d.describe(),
        style: SeriesStyle::new(false, delay_color(&delays, d)),
    }));
    Some(XyFigure {
        stem: "t_global_over_run".into(),
        title: "t_global of every valid repetition, block by block".into(),
        subtitle: [
            "x: the repetition's index within its block (blocks were measured one after another)",
            "n: valid repetitions of the sparser series, when under 30",
            "a slope means clocks drift apart (or the system changes)",
            "invalid repetitions left out",
        ]
        .join(super::layout::PART_SEP),
        warnings: data.warnings.clone(),
        panels,
        legend,
    })
}

/// The `t_global_over_run` figure of a run (every valid repetition: no statistic).
pub(super) fn drawables(data: &RunData, _: super::Stat) -> Vec<Drawable> {
    figure(data).map(Drawable::Custom).into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{testdata, Records};

    fn records() -> Records {
        let mut blocks = Vec::new();
        for p in [2, 4] {
            for d in [0.0, 50e-6] {
                blocks.push(testdata::block(Op::Iallreduce, 8, p, d, 5, 10e-6));
                blocks.push(testdata::block(Op::Allreduce, 8, p, d, 5, 10e-6));
            }
        }
        testdata::records(4, blocks)
    }

    #[test]
    fn one_panel_per_kernel_at_the_largest_p_valid_reps_only() {
        let r = records();
        assert_eq!(
            largest_p_configs(&crate::analysis::LaunchDigest::of(&r).blocks),
            vec![(Op::Allreduce, 8, 4), (Op::Iallreduce, 8, 4)]
        );
        let data = RunData::new(&r);
        let fig = figure(&data).unwrap();
        assert_eq!(fig.panels.len(), 2);
        // 4 valid repetitions of 5 (under 30): the title gives n.
        assert_eq!(fig.panels[0].title, "allreduce, 8 B, P = 4, n = 4");
        assert!(fig.title.contains("block by block") && fig.subtitle.contains("within its block"));
        let lines = &fig.panels[0].lines;
        assert_eq!(lines.len(), 2, "baseline and δ");
        // testdata: repetition 1 is invalid; rep 3 takes 10 us · 1.3 (+ 50 us when delayed).
        let xs: Vec<f64> = lines[1].points.iter().map(|p| p.0).collect();
        assert_eq!(xs, vec![0.0, 2.0, 3.0, 4.0]);
        assert!(
            (lines[1].points[2].1 - 63.0).abs() < 1e-6,
            "{:?}",
            lines[1].points
        );
        assert_eq!(lines[0].style.color, BASELINE_COLOR);
        assert_eq!(lines[1].style.color, DELAY_COLORS[0]);
        assert!(fig.warnings[0].starts_with("interrupted run"));
        assert_eq!(fig.legend.len(), 2);
        // Every repetition of one configuration invalid: its panel says so.
        let mut r = records();
        for b in r.blocks.iter_mut().filter(|b| b.op == Op::Iallreduce) {
            b.flags.iter_mut().for_each(|f| *f = 1);
        }
        let fig = figure(&RunData::new(&r)).unwrap();
        assert_eq!(
            fig.panels[1].title,
            "iallreduce, 8 B, P = 4: no valid repetition"
        );
        assert_eq!(fig.panels[0].title, "allreduce, 8 B, P = 4, n = 4");
    }
}
