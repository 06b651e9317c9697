//! The figures of `delaybench arrivals` (a capture of an application, docs/capture.md):
//!
//! - `arrival_spread`: the arrival spread (latest entry − earliest, µs, log) of every
//!   collective instance against its earliest entry on the global clock (seconds since the
//!   first call), one colour per call site with the most waiting, the others grey: phases,
//!   warm-up and outliers over the run that the per-site medians hide.
//! - `arrival_lateness`: rank × call heatmaps of lateness (entry − the call's earliest entry,
//!   µs), calls in order: every call of all world ranks, and the site with the most waiting
//!   among those called more than once; a rank that is always late is a bright row. More
//!   than [`MAX_CALLS`] calls are binned, a cell holding the largest lateness of its calls.
//! - `arrival_waiting`: the waiting time per call site (ms, summed over calls and ranks) as
//!   horizontal bars coloured by Scalasca's wait state (Geimer et al. 2010).
//! - `arrival_causes` (`causes.rs`): who made everyone wait, the largest causes split into
//!   direct and propagated costs.

use super::capture_names::{short_name, subtitle};
use super::clock_error::COLORS;
use super::layout::PART_SEP;
use super::rank_heatmaps::{short_us, swatch};
use super::render::{write_all, Drawable};
use super::spec::{LegendEntry, SeriesStyle};
use super::thin::{thin_scatter, MAX_POINTS};
use super::xy::{heat_color, Bar, HeatGrid, Join, XyAxis, XyFigure, XyLine, XyPanel};
use super::PlotError;
use crate::analysis::arrivals::ArrivalsReport;
use crate::analysis::causes::CausesReport;
use crate::capture::{Entry, Instance, Matched};
use std::path::{Path, PathBuf};

const US: f64 = 1e6;
/// Sites drawn in their own colour in `arrival_spread`.
const TOP_SITES: usize = 5;
/// Sites drawn as bars in `arrival_waiting`.
const MAX_BARS: usize = 15;
/// Most call columns of the lateness heatmap.
pub const MAX_CALLS: usize = 250;
/// Spreads below this (µs) are drawn at it, so that a log axis can show them.
const SPREAD_FLOOR_US: f64 = 0.01;
/// Colour of the sites beyond the top ones.
const OTHER: (u8, u8, u8) = (170, 170, 170);

/// The lateness at one call site, ranks × calls, µs: cell (r, c) is communicator rank r's
/// lateness at calls `c * call_step ..` of the site (the largest of the bin).
#[derive(Debug, Clone, PartialEq)]
pub struct LatenessGrid {
    /// Site key (`module+0xoffset`).
    pub site: String,
    /// Readable site name.
    pub site_label: String,
    /// The operation's name.
    pub op: String,
    /// Communicator size: the rows.
    pub ranks: usize,
    /// Calls of the site.
    pub calls: usize,
    /// Calls per column (1 when not binned).
    pub call_step: usize,
    /// Columns.
    pub cols: usize,
    /// `[ranks][cols]`, µs.
    pub lateness_us: Vec<f32>,
}

/// The lateness grid of `site` (its instances on the communicator and operation of its first
/// call), rows by communicator rank; None when the site has no call.
pub fn lateness_grid(m: &Matched, site: &str) -> Option<LatenessGrid> {
    let first = m.instances.iter().find(|i| i.site == site)?;
    let insts: Vec<&Instance> = m
        .instances
        .iter()
        .filter(|i| i.site == site && i.comm == first.comm && i.op == first.op)
        .collect();
    let ranks = first.entries.len();
    Some(LatenessGrid {
        site: first.site.clone(),
        site_label: first.site_label.clone(),
        op: first.op.name(),
        ..grid(&insts, ranks, |_, k| k)
    })
}

/// The lateness grid of every call that involves all world ranks, in order, rows by world
/// rank (`site` and `op` empty); None without such a call.
pub fn world_lateness_grid(m: &Matched) -> Option<LatenessGrid> {
    let n = m.world_size as usize;
    let insts: Vec<&Instance> = m
        .instances
        .iter()
        .filter(|i| i.entries.len() == n)
        .collect();
    if insts.is_empty() {
        return None;
    }
    Some(grid(&insts, n, |e, _| e.world_rank as usize))
}

/// `insts` as a ranks × calls grid, binned to at most [`MAX_CALLS`] columns; `row` gives
/// the row of an entry (and its position among the instance's entries).
fn grid(insts: &[&Instance], ranks: usize, row: impl Fn(&Entry, usize) -> usize) -> LatenessGrid {
    let call_step = insts.len().div_ceil(MAX_CALLS).max(1);
    let cols = insts.len().div_ceil(call_step);
    let mut lateness_us = vec![f32::NAN; ranks * cols];
    for (c, inst) in insts.iter().enumerate() {
        for (k, (e, late)) in inst.entries.iter().zip(inst.lateness()).enumerate() {
            let r = row(e, k);
            if r < ranks {
                let cell = &mut lateness_us[r * cols + c / call_step];
                *cell = cell.max((late * US) as f32);
            }
        }
    }
    LatenessGrid {
        site: String::new(),
        site_label: String::new(),
        op: String::new(),
        ranks,
        calls: insts.len(),
        call_step,
        cols,
        lateness_us,
    }
}

fn color(i: usize) -> (u8, u8, u8) {
    COLORS[i % COLORS.len()]
}

/// `arrival_spread` (module docs); None without a matched call.
pub fn spread_figure(m: &Matched, r: &ArrivalsReport) -> Option<XyFigure> {
    let t0 = m
        .instances
        .iter()
        .flat_map(|i| i.entries.iter().map(|e| e.enter_s))
        .fold(f64::INFINITY, f64::min);
    if !t0.is_finite() {
        return None;
    }
    let top: Vec<&str> = r
        .sites
        .iter()
        .map(|s| s.site.as_str())
        .fold(Vec::new(), |mut v, s| {
            if !v.contains(&s) && v.len() < TOP_SITES {
                v.push(s);
            }
            v
        });
    let mut series: Vec<Vec<(f64, f64)>> = vec![Vec::new(); top.len() + 1];
    for inst in &m.instances {
        let x = inst
            .entries
            .iter()
            .map(|e| e.enter_s)
            .fold(f64::INFINITY, f64::min)
            - t0;
        let y = (inst.spread() * US).max(SPREAD_FLOOR_US);
        let k = top
            .iter()
            .position(|s| *s == inst.site)
            .unwrap_or(top.len());
        series[k].push((x, y));
    }
    let style = |k: usize| SeriesStyle::new(false, if k < top.len() { color(k) } else { OTHER });
    // Always log: spreads span decades (a 0.1 µs allreduce beside a 50 ms broadcast).
    let ylo = series
        .iter()
        .flatten()
        .map(|p| p.1)
        .fold(f64::INFINITY, f64::min)
        / 1.5;
    let yhi = series.iter().flatten().map(|p| p.1).fold(0.0, f64::max) * 1.5;
    let xhi = series
        .iter()
        .flatten()
        .map(|p| p.0)
        .fold(0.0, f64::max)
        .max(1e-6);
    let label_of = |site: &str| {
        r.sites
            .iter()
            .find(|s| s.site == site)
            .map(|s| format!("{} ({})", short_name(&s.site_label), s.op))
            .unwrap_or_else(|| site.to_string())
    };
    let mut legend: Vec<LegendEntry> = top
        .iter()
        .enumerate()
        .map(|(k, s)| LegendEntry {
            label: label_of(s),
            style: style(k),
        })
        .collect();
    if !series[top.len()].is_empty() {
        legend.push(LegendEntry {
            label: "other sites".into(),
            style: style(top.len()),
        });
    }
    // Grey first, so the top sites are drawn over it.
    let mut lines: Vec<XyLine> = series
        .into_iter()
        .enumerate()
        .map(|(k, points)| XyLine {
            style: style(k),
            join: Join::Scatter,
            points: thin_scatter(points, 4 * MAX_POINTS),
        })
        .collect();
    lines.rotate_right(1);
    Some(XyFigure {
        stem: "arrival_spread".into(),
        title: "Arrival spread of every collective call over the run".into(),
        subtitle: format!(
            "{}{PART_SEP}one point per call: latest entry − earliest, at its earliest entry \
             (global clock){PART_SEP}coloured: the {} sites with the most waiting; spreads \
             below {SPREAD_FLOOR_US} µs drawn at it",
            subtitle(m),
            top.len()
        ),
        warnings: Vec::new(),
        panels: vec![XyPanel {
            title: "all calls".into(),
            x: XyAxis {
                lo: 0.0,
                hi: xhi * 1.02,
                log: false,
                label: "global time since the first call (s)".into(),
            },
            y: XyAxis {
                lo: ylo,
                hi: yhi,
                log: true,
                label: "arrival spread (µs)".into(),
            },
            bars: Vec::new(),
            lines,
            marks: Vec::new(),
            y_names: Vec::new(),
            heat: None,
        }],
        legend,
    })
}

/// The site whose heatmap `arrival_lateness` shows: the one with the most waiting among
/// those called more than once (a single call makes no picture), else the one with the most
/// waiting.
fn heatmap_site(r: &ArrivalsReport) -> Option<&str> {
    r.sites
        .iter()
        .find(|s| s.calls > 1)
        .or(r.sites.first())
        .map(|s| s.site.as_str())
}

fn calls(n: usize) -> String {
    if n == 1 {
        "1 call".into()
    } else {
        format!("{n} calls")
    }
}

/// `arrival_lateness` (module docs): every call of all world ranks, and the site with the
/// most waiting among those called more than once; None without a call.
pub fn lateness_figure(m: &Matched, r: &ArrivalsReport) -> Option<XyFigure> {
    let site = heatmap_site(r).and_then(|s| lateness_grid(m, s));
    let world = world_lateness_grid(m);
    let grids: Vec<(String, LatenessGrid, &str)> = world
        .map(|g| {
            (
                format!(
                    "every call of all {} ranks, in order ({})",
                    g.ranks,
                    calls(g.calls)
                ),
                g,
                "world rank",
            )
        })
        .into_iter()
        .chain(site.map(|g| {
            (
                format!(
                    "{} ({}, {}): the site with the most waiting",
                    short_name(&g.site_label),
                    g.op,
                    calls(g.calls)
                ),
                g,
                "communicator rank",
            )
        }))
        .collect();
    if grids.is_empty() {
        return None;
    }
    let mut all: Vec<f32> = grids
        .iter()
        .flat_map(|(_, g, _)| g.lateness_us.iter().copied())
        .filter(|v| v.is_finite())
        .collect();
    all.sort_by(f32::total_cmp);
    // The top of the scale is the 99th percentile, so one outlier does not darken the rest.
    let hi = all
        .get(((all.len().saturating_sub(1)) as f64 * 0.99).round() as usize)
        .map_or(1.0, |&v| f64::from(v))
        .max(1e-3);
    let steps = 5;
    let legend = (0..steps)
        .map(|i| {
            let v = hi * i as f64 / (steps - 1) as f64;
            LegendEntry {
                label: format!(
                    "{} µs{}",
                    short_us(v),
                    if i + 1 == steps { " or more" } else { "" }
                ),
                style: swatch(heat_color(v, 0.0, hi)),
            }
        })
        .collect();
    let mut sub = vec![
        subtitle(m),
        "colour: the rank's entry − the call's earliest entry (global clock)".to_string(),
        "one row per rank, one column per call in order".to_string(),
    ];
    if grids.iter().any(|(_, g, _)| g.call_step > 1) {
        sub.push(format!(
            "more than {MAX_CALLS} calls binned: a cell shows the largest lateness of its calls"
        ));
    }
    let panels = grids
        .into_iter()
        .map(|(title, g, rank)| {
            let step = g.ranks.div_ceil(16).max(1);
            let names = (0..g.ranks)
                .map(|k| {
                    if k % step == 0 || k + 1 == g.ranks {
                        k.to_string()
                    } else {
                        String::new()
                    }
                })
                .collect();
            XyPanel {
                title,
                x: XyAxis {
                    lo: -0.5,
                    hi: g.calls as f64 - 0.5,
                    log: false,
                    label: "call, in order".into(),
                },
                y: XyAxis {
                    lo: -0.5,
                    hi: g.ranks as f64 - 0.5,
                    log: false,
                    label: rank.into(),
                },
                bars: Vec::new(),
                lines: Vec::new(),
                marks: Vec::new(),
                y_names: names,
                heat: Some(HeatGrid {
                    rows: g.ranks,
                    cols: g.cols,
                    x0: -0.5,
                    x_step: g.call_step as f64,
                    y0: -0.5,
                    y_step: 1.0,
                    values: g.lateness_us,
                    lo: 0.0,
                    hi,
                }),
            }
        })
        .collect();
    Some(XyFigure {
        stem: "arrival_lateness".into(),
        title: "Lateness per rank and call".into(),
        subtitle: sub.join(PART_SEP),
        warnings: Vec::new(),
        panels,
        legend,
    })
}

/// `arrival_waiting` (module docs); None when no site waited.
pub fn waiting_figure(m: &Matched, r: &ArrivalsReport) -> Option<XyFigure> {
    let sites: Vec<_> = r
        .sites
        .iter()
        .filter(|s| s.wait_total_s > 0.0)
        .take(MAX_BARS)
        .collect();
    if sites.is_empty() {
        return None;
    }
    let state = |s: &crate::analysis::arrivals::SiteRow| {
        s.wait_state
            .and_then(|w| serde_json::to_value(w).ok())
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "none".into())
    };
    let mut states: Vec<String> = Vec::new();
    for s in &sites {
        if !states.contains(&state(s)) {
            states.push(state(s));
        }
    }
    let n = sites.len();
    // The most waiting at the top: row 0 is the bottom of the axis.
    let bars = sites
        .iter()
        .enumerate()
        .map(|(i, s)| Bar {
            y: (n - 1 - i) as f64,
            x0: 0.0,
            x1: s.wait_total_s * 1e3,
            color: color(states.iter().position(|w| *w == state(s)).unwrap_or(0)),
            half_height: 0.35,
        })
        .collect();
    let y_names = (0..n)
        .map(|row| {
            let s = sites[n - 1 - row];
            format!("{} {}", short_name(&s.site_label), s.op)
        })
        .collect();
    let xhi = sites
        .iter()
        .map(|s| s.wait_total_s * 1e3)
        .fold(0.0, f64::max);
    let legend = states
        .iter()
        .enumerate()
        .map(|(i, w)| LegendEntry {
            label: wait_state_name(w).into(),
            style: swatch(color(i)),
        })
        .collect();
    let shown = if r.sites.iter().filter(|s| s.wait_total_s > 0.0).count() > n {
        format!("{PART_SEP}the {n} sites with the most waiting")
    } else {
        String::new()
    };
    Some(XyFigure {
        stem: "arrival_waiting".into(),
        title: "Waiting time per call site".into(),
        subtitle: format!(
            "{}{PART_SEP}time ranks waited for others, summed over calls and ranks, by \
             Scalasca's wait states (Geimer et al. 2010){shown}",
            subtitle(m)
        ),
        warnings: Vec::new(),
        panels: vec![XyPanel::ranked_bars(
            "call site and operation".into(),
            "waiting time (ms)".into(),
            xhi,
            bars,
            y_names,
        )],
        legend,
    })
}

/// Scalasca's name of a wait state, from its serialised form (`wait_nxn`).
fn wait_state_name(w: &str) -> &'static str {
    match w {
        "wait_nxn" => "Wait at N×N",
        "wait_barrier" => "Wait at Barrier",
        "late_broadcast" => "Late Broadcast",
        "early_reduce" => "Early Reduce",
        "early_scan" => "Early Scan",
        _ => "none (nonblocking)",
    }
}

/// Writes `arrival_spread`, `arrival_lateness`, `arrival_waiting` and `arrival_causes`
/// (of `c`, the causes of `m`'s waiting, `m` matched from `captures`; PNG and SVG) into
/// `out_dir` (created if missing), then the capture's page, [`super::INDEX_HTML`]
/// (`capture_page.rs`), and returns the paths, the page's last; a figure without data is
/// left out.
///
/// Errors: [`PlotError::CreateDir`] and those of writing a figure or the page.
pub fn write_arrivals_figures(
    captures: &[crate::capture::RankCapture],
    m: &Matched,
    r: &ArrivalsReport,
    c: &CausesReport,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, PlotError> {
    let figs: Vec<Drawable> = [
        spread_figure(m, r),
        lateness_figure(m, r),
        waiting_figure(m, r),
        super::causes::causes_figure(m, c),
    ]
    .into_iter()
    .flatten()
    .map(Drawable::Custom)
    .collect();
    let mut paths = write_all(&figs, out_dir)?;
    // Nothing drawn, no folder and no page: the terminal has said there is nothing.
    if paths.is_empty() {
        return Ok(paths);
    }
    paths.push(super::capture_page::write_capture_page(
        captures, m, c, &figs, out_dir,
    )?);
    Ok(paths)
}

/// Where `delaybench arrivals` draws by default: beside the capture, named after it with
/// `-arrivals` (`run/capture/` or `run/capture/rank0.cbor` → `run/capture-arrivals/`).
pub fn arrivals_dir(first_input: &Path) -> PathBuf {
    let capture = if first_input.is_dir() {
        first_input.to_path_buf()
    } else {
        first_input
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    };
    let capture = std::fs::canonicalize(&capture).unwrap_or(capture);
    let mut name = capture.file_name().unwrap_or_default().to_os_string();
    name.push("-arrivals");
    capture.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::arrivals::report;
    use crate::capture::CaptureOp;

    /// Two sites on two ranks: `a` (allreduce, rank 1 late by 100 µs × call) called 300
    /// times, `b` (bcast from 0, rank 0 late by 5 µs) 3 times.
    fn matched() -> Matched {
        let entry = |r: u32, t: f64| Entry {
            world_rank: r,
            comm_rank: r,
            enter_s: t,
            exit_s: t + 1.0,
            counts_hash: None,
        };
        let mut instances = Vec::new();
        for k in 0..300 {
            let t = 1.0 + k as f64 * 1e-2;
            instances.push(Instance {
                site: "app+0xa".into(),
                site_label: "step+0x1 (app+0xa)".into(),
                comm: 7,
                op: CaptureOp::Allreduce,
                bytes: 8,
                root: -1,
                index: k,
                entries: vec![entry(0, t), entry(1, t + (k % 3) as f64 * 100e-6)],
            });
        }
        for k in 0..3 {
            let t = 5.0 + k as f64;
            instances.push(Instance {
                site: "app+0xb".into(),
                site_label: "app+0xb".into(),
                comm: 7,
                op: CaptureOp::Bcast,
                bytes: 4,
                root: 0,
                index: 300 + k,
                entries: vec![entry(0, t + 5e-6), entry(1, t)],
            });
        }
        Matched {
            instances,
            incomplete_calls: 0,
            world_size: 2,
            wall_s: 9.0,
            min_rtt_s: 2e-6,
            unfinished_ranks: vec![],
            vectors: Default::default(),
        }
    }

    #[test]
    fn the_lateness_grid_is_ranks_by_calls_binned_to_the_largest() {
        let m = matched();
        let g = lateness_grid(&m, "app+0xa").unwrap();
        assert_eq!((g.ranks, g.calls), (2, 300));
        // 300 calls in at most 250 columns: two calls per column, 150 columns.
        assert_eq!((g.call_step, g.cols), (2, 150));
        // Rank 0 is never late; rank 1 at calls 0, 1 is 0 and 100 µs: the bin keeps 100.
        assert!(g.lateness_us[..g.cols].iter().all(|&v| v == 0.0));
        assert!((g.lateness_us[g.cols] - 100.0).abs() < 1e-3);
        // Calls 2, 3: 200 and 0 µs.
        assert!((g.lateness_us[g.cols + 1] - 200.0).abs() < 1e-3);
        let b = lateness_grid(&m, "app+0xb").unwrap();
        assert_eq!((b.call_step, b.cols), (1, 3));
        assert!((b.lateness_us[0] - 5.0).abs() < 1e-3 && b.lateness_us[3] == 0.0);
        assert!(lateness_grid(&m, "nowhere").is_none());
    }

    #[test]
    fn the_three_figures_are_drawn_and_written() {
        let m = matched();
        let r = report(&m, None);
        let s = spread_figure(&m, &r).unwrap();
        let points: usize = s.panels[0].lines.iter().map(|l| l.points.len()).sum();
        assert_eq!(points, 303, "one point per call");
        assert!(s.panels[0]
            .lines
            .iter()
            .flat_map(|l| &l.points)
            .all(|p| p.1 >= SPREAD_FLOOR_US));
        let w = waiting_figure(&m, &r).unwrap();
        assert_eq!(w.panels[0].bars.len(), 2);
        // The allreduce site waited most: the top bar, with its wait state in the legend.
        assert_eq!(w.panels[0].y_names[1], "step+0x1 allreduce");
        assert!(w.legend.iter().any(|l| l.label == "Wait at N×N"));
        let l = lateness_figure(&m, &r).unwrap();
        // Every call (303, two per column), then the site with the most waiting.
        assert_eq!(l.panels.len(), 2);
        assert_eq!(l.panels[0].heat.as_ref().unwrap().cols, 152);
        assert_eq!(l.panels[1].heat.as_ref().unwrap().cols, 150);
        let w = world_lateness_grid(&m).unwrap();
        assert_eq!((w.ranks, w.calls), (2, 303));
        // The last bin holds the last bcast alone: rank 0 late by 5 µs.
        assert!((w.lateness_us[w.cols - 1] - 5.0).abs() < 1e-3);
        let dir = tempfile::tempdir().unwrap();
        // No cause named: `arrival_causes` is left out (its own tests draw it).
        let c = CausesReport::default();
        let paths = write_arrivals_figures(&[], &m, &r, &c, &dir.path().join("figs")).unwrap();
        // Three figures as PNG and SVG, and the page holding them.
        assert_eq!(paths.len(), 7);
        let page = std::fs::read_to_string(&paths[6]).unwrap();
        assert_eq!(page.matches("<svg role=\"img\"").count(), 3);
        for p in &paths {
            assert!(
                std::fs::metadata(p).unwrap().len() > 1000,
                "{}",
                p.display()
            );
        }
        let empty = Matched {
            instances: vec![],
            ..matched()
        };
        let none =
            write_arrivals_figures(&[], &empty, &report(&empty, None), &c, dir.path()).unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn the_default_folder_is_beside_the_capture() {
        let dir = tempfile::tempdir().unwrap();
        let cap = dir.path().join("capture");
        std::fs::create_dir(&cap).unwrap();
        std::fs::write(cap.join("rank0.cbor"), b"x").unwrap();
        let want = std::fs::canonicalize(dir.path())
            .unwrap()
            .join("capture-arrivals");
        assert_eq!(arrivals_dir(&cap), want);
        assert_eq!(arrivals_dir(&cap.join("rank0.cbor")), want);
    }
}
