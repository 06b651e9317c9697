//! Rank × repetition heatmaps of one delay model: per rank and repetition its lateness
//! (start − the repetition's earliest start) or its exit time (end − the earliest start), one
//! panel per kernel and size at the largest P. A late rank is a bright row; a rank that
//! waits for it shows in the exit map; drift, warm-up or a noisy neighbour show as columns
//! or stripes that a median hides.

use super::heat_grids::HeatBlock;
use super::layout::PART_SEP;
use super::naming::DelayKey;
use super::over_run::config_title;
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
    let mut all: Vec<f32> = blocks
        .iter()
        .flat_map(|h| kind.values(h).iter().copied())
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
    let hi = at(SCALE_QUANTILE).unwrap_or(1.0).max(lo + 1e-3);
    let binned = blocks.iter().any(|h| h.rank_step > 1 || h.rep_step > 1);
    let panels = blocks
        .iter()
        .map(|h| {
            let p = h.nprocs as usize;
            let late: Vec<usize> = h.delayed_ranks.iter().map(|&r| r as usize).collect();
            XyPanel {
                title: config_title(h.op, h.bytes, h.nprocs),
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
                    values: kind.values(h).to_vec(),
                    lo,
                    hi,
                }),
            }
        })
        .collect();
    let what = match kind {
        HeatKind::Lateness => "Lateness",
        HeatKind::Exit => "Exit time",
    };
    let colour = match kind {
        HeatKind::Lateness => "colour: the rank's start − the repetition's earliest start",
        HeatKind::Exit => {
            "colour: the rank's end − the repetition's earliest start (the column's largest is t_global)"
        }
    };
    let mut subtitle = vec![
        colour.to_string(),
        "one row per rank, one column per repetition (global clock)".to_string(),
        "grey: invalid repetition".to_string(),
    ];
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
            assert_eq!(
                titles,
                vec!["allreduce, 8 B, P = 4", "iallreduce, 8 B, P = 4"]
            );
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
        // The late rank 0 sets the top of the lateness scale: 50 us.
        assert!((late.panels[0].heat.as_ref().unwrap().hi - 50.0).abs() < 1e-3);
        assert_eq!(late.legend[2].label, "25.0 µs");
        assert!(figure(&data, HeatKind::Exit, &DelayKey::fixed(1e-6), "h".into()).is_none());
    }
}
