//! Figures of `delaybench compare A B --figures DIR`: the configurations measured in both
//! runs side by side, per delay model: median t_global (`compare_t_global_{model}`, the
//! undelayed baseline included as `compare_t_global_undelayed`) and the delay overlap benefit
//! from medians (`compare_benefit_{model}`) of A and B against P, each with its 95 %
//! bootstrap interval. Two libraries, machines, sync methods, or a run with `--detour` and
//! one without (noise against none), are compared this way.

use super::benefit::{sorted_distinct, SizeKey};
use super::layout::{benefit_range, time_axis, PART_SEP};
use super::naming::{model_stems, pretty_bytes, same_delay, DelayKey};
use super::render::{write_all, Drawable};
use super::spec::{op_order, FigureSpec, LegendEntry, Marker, PanelSpec, SeriesSpec, SeriesStyle};
use super::PlotError;
use crate::analysis::CompareRow;
use crate::plan::Op;
use std::path::{Path, PathBuf};

/// Colours of A (Okabe–Ito blue) and B (vermillion).
const A_COLOR: (u8, u8, u8) = (0, 114, 178);
const B_COLOR: (u8, u8, u8) = (213, 94, 0);
/// Microseconds per second.
const US: f64 = 1e6;

/// One side of a comparison: a short name (the records file's name) and its identity line
/// ([`super::context::run_context`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub name: String,
    pub context: String,
    /// What the header says of the run, as (name, value) rows (the comparison page's).
    pub identity: Vec<(String, String)>,
}

impl Side {
    /// The side of records file `path` with header `header`.
    pub fn of(path: &Path, header: &crate::records::Header) -> Side {
        Side {
            name: path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            context: super::context::run_context(header, 1),
            identity: super::index::header_rows(header),
        }
    }
}

/// What a compare figure plots of a row: value and interval of A, then of B, in the
/// figure's unit.
type Pick = fn(&CompareRow) -> [Option<f64>; 6];

fn t_global(r: &CompareRow) -> [Option<f64>; 6] {
    [
        r.t_global_median_a_s,
        r.t_global_median_ci_lo_a_s,
        r.t_global_median_ci_hi_a_s,
        r.t_global_median_b_s,
        r.t_global_median_ci_lo_b_s,
        r.t_global_median_ci_hi_b_s,
    ]
    .map(|v| v.map(|t| t * US))
}

fn benefit(r: &CompareRow) -> [Option<f64>; 6] {
    [
        r.benefit_median_a,
        r.benefit_median_ci_lo_a,
        r.benefit_median_ci_hi_a,
        r.benefit_median_b,
        r.benefit_median_ci_lo_b,
        r.benefit_median_ci_hi_b,
    ]
    .map(|v| v.map(|b| b * 100.0))
}

fn style(b_side: bool) -> SeriesStyle {
    SeriesStyle {
        color: if b_side { B_COLOR } else { A_COLOR },
        dashed: b_side,
        marker: if b_side {
            Marker::Square
        } else {
            Marker::Circle
        },
        reference: false,
    }
}

/// One compare figure: rows of `key`, panels per kernel and size, A and B against P.
fn figure(
    rows: &[CompareRow],
    key: &DelayKey,
    pick: Pick,
    is_benefit: bool,
    sides: [&Side; 2],
    stem: String,
) -> Option<FigureSpec> {
    let mine: Vec<&CompareRow> = rows
        .iter()
        .filter(|r| key.matches(&r.delay_model, r.delay_s))
        .collect();
    let mut configs: Vec<(Op, u64)> = mine.iter().map(|r| (r.op, r.bytes)).collect();
    configs.sort_by_key(|&(op, b)| (op_order(op), SizeKey::of(op, b)));
    configs.dedup();
    let mut panels: Vec<PanelSpec> = configs
        .iter()
        .map(|&(op, bytes)| {
            let of: Vec<&CompareRow> = mine
                .iter()
                .copied()
                .filter(|r| r.op == op && r.bytes == bytes)
                .collect();
            let series = [false, true]
                .into_iter()
                .map(|b_side| {
                    let k = if b_side { 3 } else { 0 };
                    let mut points: Vec<(u32, Option<f64>)> = Vec::new();
                    let mut intervals: Vec<(u32, f64, f64)> = Vec::new();
                    for r in &of {
                        if points.iter().any(|p| p.0 == r.nprocs) {
                            continue;
                        }
                        let v = pick(r);
                        points.push((r.nprocs, v[k].filter(|x| x.is_finite())));
                        if let (Some(lo), Some(hi)) = (v[k + 1], v[k + 2]) {
                            intervals.push((r.nprocs, lo, hi));
                        }
                    }
                    points.sort_by_key(|p| p.0);
                    intervals.sort_by_key(|i| i.0);
                    SeriesSpec {
                        name: format!("{} {}", if b_side { "B" } else { "A" }, op),
                        style: style(b_side),
                        points,
                        intervals,
                        boxes: Vec::new(),
                    }
                })
                .collect::<Vec<_>>();
            let values = series.iter().flat_map(|s| {
                s.values()
                    .map(|(_, y)| y)
                    .chain(s.intervals.iter().flat_map(|&(_, lo, hi)| [lo, hi]))
                    .collect::<Vec<_>>()
            });
            PanelSpec {
                title: if op.has_payload() {
                    format!("{op}, {}", pretty_bytes(bytes))
                } else {
                    op.name().to_string()
                },
                y: if is_benefit {
                    super::layout::YAxis::linear(benefit_range(values))
                } else {
                    time_axis(values)
                },
                series,
            }
        })
        .collect();
    if panels.is_empty() {
        return None;
    }
    if is_benefit {
        // One range for every panel, as in benefit_vs_p.
        let lo = panels.iter().map(|p| p.y.lo).fold(f64::INFINITY, f64::min);
        let hi = panels
            .iter()
            .map(|p| p.y.hi)
            .fold(f64::NEG_INFINITY, f64::max);
        for p in &mut panels {
            p.y = super::layout::YAxis::linear((lo, hi));
        }
    }
    let what = if is_benefit {
        "Delay overlap benefit"
    } else {
        "Median t_global"
    };
    Some(FigureSpec {
        stem,
        title: format!("{what} of A and B vs P, {}", key.describe()),
        subtitle: [
            format!("A: {}", sides[0].name),
            format!("B: {}", sides[1].name),
            "medians of valid repetitions".to_string(),
            "error bars: 95 % bootstrap intervals; bars that do not overlap differ by more than chance"
                .to_string(),
        ]
        .join(PART_SEP),
        x_label: "processes P".into(),
        y_label: if is_benefit {
            "delay overlap benefit (%)".into()
        } else {
            "median t_global (µs)".into()
        },
        procs: sorted_distinct(mine.iter().map(|r| r.nprocs)),
        panels,
        legend: vec![
            LegendEntry {
                label: format!("A: {}", sides[0].name),
                style: style(false),
            },
            LegendEntry {
                label: format!("B: {}", sides[1].name),
                style: style(true),
            },
        ],
        zero_line: is_benefit,
        dodge: true,
        x_format: Default::default(),
        hosts: Vec::new(),
        warnings: Vec::new(),
    })
}

/// The compare figures of `rows` (A's and B's common configurations), each with both sides'
/// identity lines under its subtitle: t_global per delay model (undelayed first), benefit per
/// model with δ > 0.
pub(crate) fn compare_figures(rows: &[CompareRow], a: &Side, b: &Side) -> Vec<Drawable> {
    let mut keys = vec![DelayKey {
        model: String::new(),
        delay_s: 0.0,
    }];
    let models =
        super::naming::distinct_models(rows.iter().map(|r| (r.delay_model.as_str(), r.delay_s)));
    keys.extend(models.iter().cloned());
    let mut stems = vec!["compare_t_global_undelayed".to_string()];
    stems.extend(model_stems("compare_t_global", &models));
    let mut figs: Vec<FigureSpec> = keys
        .iter()
        .zip(stems)
        .filter(|(k, _)| k.delay_s > 0.0 || rows.iter().any(|r| same_delay(r.delay_s, 0.0)))
        .filter_map(|(k, stem)| figure(rows, k, t_global, false, [a, b], stem))
        .collect();
    figs.extend(
        models
            .iter()
            .zip(model_stems("compare_benefit", &models))
            .filter_map(|(k, stem)| figure(rows, k, benefit, true, [a, b], stem))
            // Sampled models have no benefit from medians: no empty figure for them.
            .filter(|f| {
                f.panels
                    .iter()
                    .any(|p| p.series.iter().any(|s| s.values().next().is_some()))
            }),
    );
    figs.into_iter()
        .map(|f| {
            let mut d = Drawable::Grid(f);
            d.add_context(&format!("A: {}", a.context));
            d.add_context(&format!("B: {}", b.context));
            d
        })
        .collect()
}

/// Writes [`compare_figures`] into `out_dir` (created if missing) as PNG and SVG and returns
/// the paths.
///
/// Errors: [`PlotError::CreateDir`], [`PlotError::Write`], [`PlotError::Font`].
pub fn write_compare_figures(
    rows: &[CompareRow],
    a: &Side,
    b: &Side,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, PlotError> {
    write_all(&compare_figures(rows, a, b), out_dir)
}
