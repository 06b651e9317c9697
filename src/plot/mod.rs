//! Figures of a run's summary (plotters, PNG and SVG): the delay overlap benefit and t_global
//! against the number of processes P, one pair of figures per nominal delay δ, in the style of
//! Niethammer et al. 2016 (002, Figures 5–16). Plain Rust over [`SummaryRow`]s, no MPI.
//!
//! Call [`write_figures`] with the rows of [`crate::analysis::summarize`]. For every δ > 0 in
//! the rows it writes
//!
//! - `benefit_vs_p_{δ}.png/.svg`: the delay overlap benefit b = (t0 + δ − tδ) / tδ (002 eq. 5)
//!   in percent against P, one panel per message size (barriers, which carry no payload, get
//!   their own panel), one line per kernel. 100 % means the kernel hides the delay perfectly,
//!   up to the undelayed time t0; 0 % means the delay simply adds to t0; below 0 the delay
//!   costs more than itself. A thin black line marks 0 %.
//! - `t_global_vs_p_{δ}.png/.svg`: t_global (002 eq. 4) in µs against P, one panel per kernel
//!   family and size, with the blocking and nonblocking kernels under δ (blue) and undelayed
//!   (grey), like the paper's Figure 7. The vertical gap between a blue line and the grey line
//!   of the same kernel is what δ cost: δ when it simply adds, less when it is overlapped,
//!   more when it costs extra.
//!   The time axis starts at 0, or is log10 (and says so) when a panel's times span more than
//!   two decades, as alltoall's do.
//!
//! In both, P is on a log2 axis with a labelled tick at every P measured (thinned when labels
//! would collide; the others keep a faint grid line), blocking kernels are solid lines with
//! filled circles, nonblocking kernels dashed lines with hollow squares, a kernel family keeps
//! one colour (Okabe–Ito, safe for colour-vision deficiencies), and the legend sits below the
//! panels so it never covers data. Only values that exist are drawn: a configuration without
//! valid repetitions or without a baseline leaves a gap in its line, and a kernel with no value
//! at all is named in a note under its panel's title.
//!
//! Layout: 600 × 400 px per panel, up to three panels per row; titles that do not fit wrap.
//! Text is DejaVu Sans, embedded, so PNGs look the same on every machine.

mod benefit;
mod clock_error;
mod fonts;
mod hidden;
mod layout;
mod naming;
mod render;
mod spec;
mod tglobal;

pub use clock_error::{plottable_rows, write_clock_error_figure};
pub use hidden::write_hidden_figures;

use crate::analysis::SummaryRow;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Which order statistic over the valid repetitions the figures show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Stat {
    /// Minimum t_global over valid repetitions and the benefit computed from minima, as the
    /// paper reports them (002 §IV): the best the system can do.
    Min,
    /// Median t_global over valid repetitions and the benefit computed from medians: what a
    /// typical call sees, robust to the outliers of a shared or oversubscribed machine.
    #[default]
    Median,
}

impl Stat {
    /// t_global of the row in seconds under this statistic.
    pub fn t_global_s(self, row: &SummaryRow) -> Option<f64> {
        match self {
            Stat::Min => row.t_global_min_s,
            Stat::Median => row.t_global_median_s,
        }
    }

    /// Baseline t_global t0 (same op, bytes and P with δ = 0) in seconds under this statistic.
    pub fn t0_s(self, row: &SummaryRow) -> Option<f64> {
        match self {
            Stat::Min => row.t0_min_s,
            Stat::Median => row.t0_median_s,
        }
    }

    /// Delay overlap benefit of the row as a fraction (1 = 100 %) under this statistic.
    pub fn benefit(self, row: &SummaryRow) -> Option<f64> {
        match self {
            Stat::Min => row.benefit_min,
            Stat::Median => row.benefit_median,
        }
    }

    /// The statistic in words, for figure titles.
    pub fn describe(self) -> &'static str {
        match self {
            Stat::Min => "minimum of valid repetitions",
            Stat::Median => "median of valid repetitions",
        }
    }
}

/// Why figures could not be written. Every variant names the path involved.
#[derive(Debug, Error)]
pub enum PlotError {
    /// The output directory could not be created.
    #[error("cannot create figure directory {}: {source} (choose another output directory or fix its permissions)", .path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Drawing or encoding one figure file failed.
    #[error("cannot write figure {}: {reason}", .path.display())]
    Write { path: PathBuf, reason: String },
    /// The embedded font could not be loaded; no figure can be drawn.
    #[error("cannot draw figure {}: {reason}", .path.display())]
    Font { path: PathBuf, reason: String },
    /// Nothing drawable in the input.
    #[error("nothing to plot: {what} (re-run the measurement that produced it)")]
    NoData { what: String },
}

/// Writes the benefit and t_global figures of `rows` into `out_dir` (created if missing), as
/// PNG and SVG, and returns the paths written, in order: for each δ > 0 ascending,
/// `benefit_vs_p_{δ}.png`, `.svg`, `t_global_vs_p_{δ}.png`, `.svg`, with δ formatted by
/// [`crate::units::format_duration`] (e.g. `50us`). Existing files of those names are
/// overwritten. `stat` chooses minima or medians (see [`Stat`]).
///
/// Rows without a delayed configuration (empty input, or baselines only) give no figure:
/// the result is `Ok` with no paths and nothing is created, so callers can report
/// "nothing to plot" themselves.
///
/// Errors: [`PlotError::CreateDir`] when `out_dir` cannot be created, [`PlotError::Write`]
/// naming the first file that could not be drawn or saved, [`PlotError::Font`] if the
/// embedded font is unusable.
pub fn write_figures(
    rows: &[SummaryRow],
    out_dir: &Path,
    stat: Stat,
) -> Result<Vec<PathBuf>, PlotError> {
    let delays = naming::distinct_delays(rows.iter().map(|r| r.delay_s));
    if delays.is_empty() {
        return Ok(Vec::new());
    }
    std::fs::create_dir_all(out_dir).map_err(|source| PlotError::CreateDir {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let benefit_stems = naming::figure_stems("benefit", &delays);
    let tglobal_stems = naming::figure_stems("t_global", &delays);
    let mut written = Vec::new();
    for (i, &delay_s) in delays.iter().enumerate() {
        let figures = [
            benefit::figure(rows, delay_s, stat, benefit_stems[i].clone()),
            tglobal::figure(rows, delay_s, stat, tglobal_stems[i].clone()),
        ];
        for fig in &figures {
            written.extend(render::write_png_and_svg(fig, out_dir)?);
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::summarize;
    use crate::plan::Op;
    use crate::records::{testdata, Records};

    fn rows() -> Vec<SummaryRow> {
        let mut blocks = Vec::new();
        for p in [2, 4] {
            for delay in [0.0, 50e-6] {
                blocks.push(testdata::block(Op::Allreduce, 8, p, delay, 4, 10e-6));
            }
        }
        summarize(&Records {
            header: testdata::header(4),
            blocks,
            footer: None,
            truncated: false,
        })
    }

    #[test]
    fn stat_picks_the_matching_fields() {
        let r = &rows()[1];
        assert_eq!(Stat::Min.t_global_s(r), r.t_global_min_s);
        assert_eq!(Stat::Median.t_global_s(r), r.t_global_median_s);
        assert_eq!(Stat::Min.t0_s(r), r.t0_min_s);
        assert_eq!(Stat::Median.benefit(r), r.benefit_median);
        assert_ne!(Stat::Min.t_global_s(r), Stat::Median.t_global_s(r));
        assert_eq!(Stat::default(), Stat::Median);
        assert!(Stat::Min.describe().starts_with("minimum"));
    }

    #[test]
    fn no_delayed_rows_means_no_figures_and_no_directory() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("never");
        assert!(write_figures(&[], &out, Stat::Median).unwrap().is_empty());
        let baselines: Vec<SummaryRow> = rows().into_iter().filter(|r| r.delay_s == 0.0).collect();
        assert!(write_figures(&baselines, &out, Stat::Min)
            .unwrap()
            .is_empty());
        assert!(!out.exists());
    }

    #[test]
    fn unwritable_directory_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        std::fs::write(&file, b"x").unwrap();
        let err = write_figures(&rows(), &file.join("sub"), Stat::Median).unwrap_err();
        assert!(matches!(err, PlotError::CreateDir { .. }), "{err}");
        assert!(err.to_string().contains("a-file"), "{err}");
    }
}
