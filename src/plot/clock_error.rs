//! Clock error vs time since synchronisation, one line per method, one panel per P
//! (Hunold and Carpen-Amarie 2015, Figure 9), from `delaybench clocksync` results.

use super::fonts::{ensure_registered, FAMILY};
use super::PlotError;
use crate::export::ClockSyncRow;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

const PANEL_W: u32 = 620;
const PANEL_H: u32 = 440;
/// Okabe–Ito colours, one per method in order of appearance.
pub(super) const COLORS: [(u8, u8, u8); 6] = [
    (230, 159, 0),
    (86, 180, 233),
    (0, 158, 115),
    (213, 94, 0),
    (0, 114, 178),
    (204, 121, 167),
];

/// The rows that can be drawn (finite wait and error) and how many were left out: an `inf`
/// or `nan` error (a failed synchronisation) has no place on a log axis, and an infinite
/// axis range makes the tick search never end.
pub fn plottable_rows(rows: &[ClockSyncRow]) -> (Vec<ClockSyncRow>, usize) {
    let kept: Vec<ClockSyncRow> = rows
        .iter()
        .filter(|r| r.wait_s.is_finite() && error_us(r).is_finite())
        .cloned()
        .collect();
    let skipped = rows.len() - kept.len();
    (kept, skipped)
}

/// Writes `clock_error_vs_time.png` and `.svg` into `out_dir`: per P a panel with the largest
/// |clock error| (µs, log scale; the true error when the run emulated clocks, else the
/// measured one) against the wait after synchronisation (s). Rows with a non-finite wait or
/// error are left out ([`plottable_rows`]; callers say how many). Returns the paths written.
///
/// Errors: [`PlotError`] naming the directory or file that failed; [`PlotError::NoData`]
/// when no row is finite.
pub fn write_clock_error_figure(
    rows: &[ClockSyncRow],
    out_dir: &Path,
) -> Result<Vec<PathBuf>, PlotError> {
    let (rows, skipped) = plottable_rows(rows);
    if rows.is_empty() {
        return Err(PlotError::NoData {
            what: format!("{skipped} clocksync row(s), none with a finite wait and error"),
        });
    }
    let rows = &rows[..];
    std::fs::create_dir_all(out_dir).map_err(|source| PlotError::CreateDir {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::new();
    for ext in ["png", "svg"] {
        let path = out_dir.join(format!("clock_error_vs_time.{ext}"));
        ensure_registered().map_err(|reason| PlotError::Font {
            path: path.clone(),
            reason,
        })?;
        let fail = |e: &dyn std::fmt::Display| PlotError::Write {
            path: path.clone(),
            reason: e.to_string(),
        };
        let procs = distinct(rows.iter().map(|r| r.nprocs));
        let size = (PANEL_W * procs.len().max(1) as u32, PANEL_H);
        if ext == "png" {
            let root = BitMapBackend::new(&path, size).into_drawing_area();
            draw(&root, rows, &procs).map_err(|e| fail(&e))?;
            root.present().map_err(|e| fail(&e))?;
        } else {
            let root = SVGBackend::new(&path, size).into_drawing_area();
            draw(&root, rows, &procs).map_err(|e| fail(&e))?;
            root.present().map_err(|e| fail(&e))?;
        }
        written.push(path);
    }
    Ok(written)
}

fn distinct<T: PartialOrd + Copy>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = Vec::new();
    for i in items {
        if !v.contains(&i) {
            v.push(i);
        }
    }
    v.sort_by(|a, b| a.partial_cmp(b).expect("comparable"));
    v
}

/// The error plotted for a row, in µs: the true error when known.
fn error_us(r: &ClockSyncRow) -> f64 {
    r.max_true_error_s.unwrap_or(r.max_error_s).abs() * 1e6
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    rows: &[ClockSyncRow],
    procs: &[u32],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let truth = rows.iter().any(|r| r.max_true_error_s.is_some());
    let methods: Vec<String> = rows.iter().fold(Vec::new(), |mut v, r| {
        if !v.contains(&r.method) {
            v.push(r.method.clone());
        }
        v
    });
    let max_wait = rows.iter().map(|r| r.wait_s).fold(1.0, f64::max);
    let (lo, hi) = rows
        .iter()
        .map(error_us)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), e| {
            (lo.min(e.max(1e-3)), hi.max(e))
        });
    let (lo, hi) = (lo.min(0.1) / 2.0, hi.max(1.0) * 2.0);
    for (panel, &p) in root.split_evenly((1, procs.len().max(1))).iter().zip(procs) {
        let title = format!(
            "P = {p}: max |{} clock error| after sync",
            if truth { "true" } else { "measured" }
        );
        let mut chart = ChartBuilder::on(panel)
            .caption(title, (FAMILY, 18).into_font().style(FontStyle::Bold))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..max_wait * 1.05, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("time since synchronisation (s)")
            .y_desc("clock error (µs, log scale)")
            .label_style((FAMILY, 14))
            .axis_desc_style((FAMILY, 15))
            .draw()?;
        for (i, method) in methods.iter().enumerate() {
            let (r, g, b) = COLORS[i % COLORS.len()];
            let color = RGBColor(r, g, b);
            let mut points: Vec<(f64, f64)> = rows
                .iter()
                .filter(|row| &row.method == method && row.nprocs == p)
                .map(|row| (row.wait_s, error_us(row).max(lo)))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
                .label(method.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
                });
            chart.draw_series(points.iter().map(|&pt| Circle::new(pt, 4, color.filled())))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font((FAMILY, 14))
            .draw()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(wait_s: f64, max_error_s: f64) -> ClockSyncRow {
        ClockSyncRow {
            method: "hca".into(),
            nprocs: 2,
            sync_s: 0.1,
            wait_s,
            max_error_s,
            max_true_error_s: None,
        }
    }

    #[test]
    fn non_finite_rows_are_left_out_and_counted() {
        let rows = [row(0.0, 1e-6), row(1.0, f64::INFINITY), row(f64::NAN, 1e-6)];
        let (kept, skipped) = plottable_rows(&rows);
        assert_eq!((kept.len(), skipped), (1, 2));
    }

    #[test]
    fn only_infinite_errors_are_an_error_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_clock_error_figure(&[row(0.0, f64::INFINITY)], dir.path()).unwrap_err();
        assert!(err.to_string().contains("finite"), "{err}");
    }
}
