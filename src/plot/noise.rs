//! The figures of a noise file (`delaybench noise`, `plot NOISE_FILE`): every detour of every
//! rank on the global clock (the selfish-detour picture of Hoefler, Schneider and Lumsdaine,
//! SC10, Figure 2: one point per detour, its length against when it happened), and the
//! empirical distribution of detour lengths per rank.

use super::clock_error::COLORS;
use super::ecdf::ecdf;
use super::render::{write_all, Drawable};
use super::spec::{LegendEntry, SeriesStyle};
use super::thin::{thin_ecdf, thin_scatter, MAX_POINTS};
use super::xy::{span, Join, XyAxis, XyFigure, XyLine, XyPanel};
use super::PlotError;
use crate::records::noise::NoiseRun;
use std::path::{Path, PathBuf};

const US: f64 = 1e6;

fn color(i: usize) -> (u8, u8, u8) {
    COLORS[i % COLORS.len()]
}

fn subtitle(run: &NoiseRun) -> String {
    let h = &run.header;
    format!(
        "{} loop, {} s per rank, detours above {:.1} µs, clock sync {}",
        h.variant,
        h.duration_s,
        h.threshold_s * US,
        h.clock_sync
    )
}

/// `noise_timeline`: per rank, each detour's length (µs, log) against its start on the
/// global clock (seconds since the common start). `None` without any detour.
pub fn timeline(run: &NoiseRun) -> Option<XyFigure> {
    let t0 = run.header.start_global_s;
    let all: Vec<f64> = run
        .ranks
        .iter()
        .flat_map(|r| r.detour_duration_s.0.iter().map(|d| d * US))
        .collect();
    if all.is_empty() {
        return None;
    }
    let (ylo, yhi, _) = span(all.iter().copied(), false);
    let ylo = ylo.max(run.header.threshold_s * US * 0.8);
    let panels = run
        .ranks
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let points: Vec<(f64, f64)> = r
                .detour_start_global_s
                .0
                .iter()
                .zip(&r.detour_duration_s.0)
                .map(|(&s, &d)| (s - t0, d * US))
                .collect();
            XyPanel {
                heat: None,
                title: format!("rank {} ({}, CPU {})", r.rank, r.host, cpu(r.cpu)),
                x: XyAxis {
                    lo: 0.0,
                    hi: run.header.duration_s.max(1e-9),
                    log: false,
                    label: "global time since the common start (s)".into(),
                },
                y: XyAxis {
                    lo: ylo,
                    hi: yhi,
                    log: true,
                    label: "detour length (µs)".into(),
                },
                bars: Vec::new(),
                lines: vec![XyLine {
                    style: SeriesStyle::new(false, color(i)),
                    join: Join::Scatter,
                    points: thin_scatter(points, 4 * MAX_POINTS),
                }],
                marks: Vec::new(),
                y_names: Vec::new(),
            }
        })
        .collect();
    Some(XyFigure {
        stem: "noise_timeline".into(),
        title: "Detours per rank on the global clock".into(),
        subtitle: format!(
            "{}{}one point per detour; points at the same time on several ranks are \
             correlated noise",
            subtitle(run),
            super::layout::PART_SEP
        ),
        warnings: run
            .footer
            .as_ref()
            .map(|f| f.warnings.clone())
            .unwrap_or_default(),
        panels,
        legend: Vec::new(),
    })
}

fn cpu(c: Option<u32>) -> String {
    c.map_or_else(|| "?".into(), |c| c.to_string())
}

/// `noise_ecdf`: the distribution of detour lengths, one staircase per rank. `None` without
/// any detour.
pub fn ecdf_figure(run: &NoiseRun) -> Option<XyFigure> {
    let per_rank: Vec<Vec<f64>> = run
        .ranks
        .iter()
        .map(|r| r.detour_duration_s.0.iter().map(|d| d * US).collect())
        .collect();
    if per_rank.iter().all(Vec::is_empty) {
        return None;
    }
    let (lo, hi, log) = span(per_rank.iter().flatten().copied(), false);
    let lines = per_rank
        .iter()
        .enumerate()
        .map(|(i, d)| XyLine {
            style: SeriesStyle::new(false, color(i)),
            join: Join::Steps,
            points: thin_ecdf(ecdf(d), MAX_POINTS),
        })
        .collect();
    Some(XyFigure {
        stem: "noise_ecdf".into(),
        title: "Distribution of detour lengths per rank".into(),
        subtitle: format!(
            "{}{}empirical CDF of every detour",
            subtitle(run),
            super::layout::PART_SEP
        ),
        warnings: Vec::new(),
        panels: vec![XyPanel {
            heat: None,
            title: "all ranks".into(),
            x: XyAxis {
                lo,
                hi,
                log,
                label: "detour length (µs)".into(),
            },
            y: XyAxis {
                lo: 0.0,
                hi: 1.02,
                log: false,
                label: "fraction of detours ≤ length".into(),
            },
            bars: Vec::new(),
            lines,
            marks: Vec::new(),
            y_names: Vec::new(),
        }],
        legend: run
            .ranks
            .iter()
            .enumerate()
            .map(|(i, r)| LegendEntry {
                label: format!("rank {} ({})", r.rank, r.host),
                style: SeriesStyle::new(false, color(i)),
            })
            .collect(),
    })
}

/// Writes `noise_timeline` and `noise_ecdf` (PNG and SVG) into `out_dir` (created if
/// missing), then the noise page, [`super::INDEX_HTML`] (`noise_page.rs`), and returns the
/// paths, the page's last; none when no rank had a detour (the terminal's report says so).
/// Errors: those of [`super::write_figures_of_run`] and of writing the page.
pub fn write_noise_figures(run: &NoiseRun, out_dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let figs: Vec<Drawable> = [timeline(run), ecdf_figure(run)]
        .into_iter()
        .flatten()
        .map(Drawable::Custom)
        .collect();
    let mut paths = write_all(&figs, out_dir)?;
    if !paths.is_empty() {
        paths.push(super::noise_page::write_noise_page(run, &figs, out_dir)?);
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::noise::testdata;

    #[test]
    fn both_figures_are_drawn_from_the_detours() {
        let run = testdata::run(&[vec![(100.1, 1e-5), (100.6, 2e-4)], vec![(100.3, 3e-6)]]);
        let t = timeline(&run).unwrap();
        assert_eq!(t.panels.len(), 2);
        assert!((t.panels[0].lines[0].points[1].0 - 0.6).abs() < 1e-9);
        assert!((t.panels[0].lines[0].points[1].1 - 200.0).abs() < 1e-9);
        let e = ecdf_figure(&run).unwrap();
        assert_eq!(e.panels[0].lines.len(), 2);
        let dir = tempfile::tempdir().unwrap();
        let paths = write_noise_figures(&run, dir.path()).unwrap();
        // Two figures as PNG and SVG, and the page holding them with a row per scope.
        assert_eq!(paths.len(), 5);
        let page = std::fs::read_to_string(&paths[4]).unwrap();
        assert_eq!(page.matches("<svg role=\"img\"").count(), 2);
        assert!(page.contains("<th scope=\"row\">rank 1</th>"), "{page}");
        assert!(paths.iter().all(|p| p.exists()));
        assert!(write_noise_figures(&testdata::run(&[vec![]]), dir.path())
            .unwrap()
            .is_empty());
    }
}
