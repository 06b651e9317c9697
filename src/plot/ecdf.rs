//! The distribution of t_global per configuration: the empirical cumulative distribution
//! (ECDF) of the valid repetitions, undelayed (δ = 0) against δ, one panel per kernel and size
//! at the largest P. A dotted line marks t0 + δ, where the delayed curve sits when the delay
//! just adds; a delayed curve left of it hid part of δ.

use super::naming::{distinct_models, DelayKey};
use super::over_run::{config_title, delay_color, largest_p_configs};
use super::render::Drawable;
use super::spec::{LegendEntry, SeriesStyle, BASELINE_COLOR};
use super::thin::{thin_ecdf, MAX_POINTS};
use super::xy::{span, Join, XyAxis, XyFigure, XyLine, XyPanel};
use super::RunData;
use crate::analysis::{median, BlockDigest};
use crate::timeline::baseline_among;

/// Microseconds per second.
const US: f64 = 1e6;

/// The ECDF of `values` as (value, fraction ≤ value) points, ascending; a leading point at
/// fraction 0 so the staircase starts on the axis. Empty for no values.
pub fn ecdf(values: &[f64]) -> Vec<(f64, f64)> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(v.len() + 1);
    if let Some(&first) = v.first() {
        out.push((first, 0.0));
    }
    out.extend(v.iter().enumerate().map(|(i, &x)| (x, (i + 1) as f64 / n)));
    out
}

/// The figure for delay model `key`, or `None` when no configuration has both a block of
/// that model and its baseline with valid repetitions.
pub fn figure(data: &RunData, key: &DelayKey, stem: String) -> Option<XyFigure> {
    let blocks = &data.run.launch.blocks;
    let delays = distinct_models(blocks.iter().map(|b| (b.delay_model.as_str(), b.delay_s)));
    let color = delay_color(&delays, key);
    // The delayed block of (op, size, P) and its baseline as `timeline::pairing` pairs them
    // (same algorithm too, in a run with `--algorithms`).
    let find = |op, bytes, p| -> Option<(&BlockDigest, &BlockDigest)> {
        let late = blocks.iter().find(|b| {
            b.op == op
                && b.bytes == bytes
                && b.nprocs == p
                && key.matches(&b.delay_model, b.delay_s)
        })?;
        Some((baseline_among(blocks, late, |_| true)?, late))
    };
    let delay_s = key.delay_s;
    // Per kernel and size the largest P whose baseline and delayed block both have valid
    // repetitions: on an oversubscribed machine the largest P may have none.
    let shown = largest_p_configs(blocks)
        .into_iter()
        .filter_map(|(op, bytes, top)| {
            let mut ps: Vec<u32> = blocks
                .iter()
                .filter(|b| b.op == op && b.bytes == bytes && b.nprocs <= top)
                .map(|b| b.nprocs)
                .collect();
            ps.sort_unstable_by(|a, b| b.cmp(a));
            ps.dedup();
            ps.into_iter()
                .find(|&p| {
                    find(op, bytes, p).is_some_and(|(base, late)| {
                        !base.t_globals.is_empty() && !late.t_globals.is_empty()
                    })
                })
                .map(|p| (op, bytes, p))
        });
    let panels: Vec<XyPanel> = shown
        .filter_map(|(op, bytes, p)| {
            let (base, late) = find(op, bytes, p)?;
            let (t0s, ts) = (us(base.t_globals.clone()), us(late.t_globals.clone()));
            let t0 = median(&t0s)?;
            median(&ts)?;
            let adds = t0 + delay_s * US;
            let (lo, hi, log) = span(t0s.iter().chain(&ts).copied().chain([adds]), false);
            // An empirical distribution of a few points is a staircase: say how few.
            let n = t0s.len().min(ts.len());
            let title = if n < super::over_run::FEW_REPETITIONS {
                format!("{}, n = {n}", config_title(op, bytes, p))
            } else {
                config_title(op, bytes, p)
            };
            Some(XyPanel {
                title,
                x: XyAxis {
                    lo,
                    hi,
                    log,
                    label: "t_global (µs)".into(),
                },
                y: XyAxis {
                    lo: 0.0,
                    hi: 1.02,
                    log: false,
                    label: "fraction of repetitions ≤ t".into(),
                },
                bars: Vec::new(),
                lines: vec![
                    XyLine {
                        style: SeriesStyle::new(false, BASELINE_COLOR),
                        join: Join::Steps,
                        points: thin_ecdf(ecdf(&t0s), MAX_POINTS),
                    },
                    XyLine {
                        style: SeriesStyle::new(false, color),
                        join: Join::Steps,
                        points: thin_ecdf(ecdf(&ts), MAX_POINTS),
                    },
                ],
                marks: vec![(adds, " t0 + δ".into())],
                y_names: Vec::new(),
                heat: None,
            })
        })
        .collect();
    if panels.is_empty() {
        return None;
    }
    let delay = key.describe();
    Some(XyFigure {
        stem,
        title: format!("Distribution of t_global, undelayed and {delay}"),
        subtitle: [
            "empirical CDF of the valid repetitions",
            "dotted: t0 + δ with t0 the undelayed median and δ the nominal (mean) delay, \
             where the delayed curve sits when a fixed delay just adds",
            "left of it: part of δ hidden",
        ]
        .join(super::layout::PART_SEP),
        warnings: data.warnings.clone(),
        panels,
        legend: vec![
            LegendEntry {
                label: "undelayed (δ = 0)".into(),
                style: SeriesStyle::new(false, BASELINE_COLOR),
            },
            LegendEntry {
                label: delay.clone(),
                style: SeriesStyle::new(false, color),
            },
            LegendEntry {
                label: "t0 + δ".into(),
                style: SeriesStyle::reference((0, 0, 0)),
            },
        ],
    })
}

fn us(v: Vec<f64>) -> Vec<f64> {
    v.into_iter().map(|t| t * US).collect()
}

/// The `t_global_ecdf_{δ}` figures of a run (every valid repetition: no statistic).
pub(super) fn drawables(data: &RunData, _: super::Stat) -> Vec<Drawable> {
    data.per_model("t_global_ecdf", |d, stem| {
        figure(data, d, stem).map(Drawable::Custom)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    #[test]
    fn ecdf_climbs_from_zero_to_one_in_order() {
        assert_eq!(
            ecdf(&[3.0, 1.0, 2.0, f64::NAN]),
            vec![(1.0, 0.0), (1.0, 1.0 / 3.0), (2.0, 2.0 / 3.0), (3.0, 1.0)]
        );
        assert!(ecdf(&[]).is_empty());
    }

    #[test]
    fn a_panel_needs_both_baseline_and_delay() {
        let r = testdata::records(
            2,
            vec![
                testdata::block(Op::Allreduce, 8, 2, 0.0, 5, 10e-6),
                testdata::block(Op::Allreduce, 8, 2, 50e-6, 5, 10e-6),
                testdata::block(Op::Bcast, 8, 2, 50e-6, 5, 10e-6),
            ],
        );
        let data = RunData::new(&r);
        let fig = figure(&data, &DelayKey::fixed(50e-6), "e".into()).unwrap();
        assert_eq!(fig.panels.len(), 1, "bcast has no baseline");
        let panel = &fig.panels[0];
        // Baseline valid reps 10, 12, 13, 14 us: median 12.5, so t0 + δ = 62.5 us.
        assert!((panel.marks[0].0 - 62.5).abs() < 1e-6);
        assert_eq!(panel.lines[1].points.len(), 5);
        assert!((panel.lines[1].points[4].0 - 64.0).abs() < 1e-6);
        assert!(panel.x.lo < 10.0 && panel.x.hi > 64.0);
        assert!(figure(&data, &DelayKey::fixed(10e-6), "e".into()).is_none());
    }

    #[test]
    fn the_baseline_is_the_delayed_blocks_own_algorithms() {
        // The library's own choice first, three times slower than the ring.
        let r = testdata::two_algorithms(30e-6);
        let fig = figure(&RunData::new(&r), &DelayKey::fixed(50e-6), "e".into()).unwrap();
        // The ring's baseline: median 12.5 us, so t0 + δ = 62.5 us.
        assert!((fig.panels[0].marks[0].0 - 62.5).abs() < 1e-6);
    }
}
