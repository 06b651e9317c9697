//! Figures of a run (plotters, PNG and SVG) that explain themselves: titles, axis units,
//! legends, log axes where data spans decades, confidence intervals as error bars, the run's
//! warnings under every subtitle, and a report page (`index.md`, and `index.html` for a
//! browser) with a caption per figure and the run's metadata. Plain Rust over [`Records`] and [`ConfigStats`], no MPI.
//!
//! [`write_figures_of_run`] draws what the records contain, each kind once per delay model where it
//! depends on δ (see [`FigureKind`] for the list and the paper figure each follows):
//!
//! - `benefit_vs_p_{δ}`: the delay overlap benefit b = (t0 + δ − tδ) / tδ (Niethammer et al. 2016, eq. 5) in
//!   percent against P, one panel per message size, one line per kernel (blocking solid with
//!   circles, nonblocking dashed with squares), the bootstrap interval of the median as error
//!   bars, and the benefit ceiling min(t0, δ) / max(t0, δ) as a thin dotted line.
//! - `t_global_vs_p_{δ}`: t_global (Niethammer et al. 2016, eq. 4) in µs against P, delayed (blue) and undelayed
//!   (grey), one panel per kernel family and size.
//! - `t_global_vs_size_{δ}`: the same against the message size, one panel per family and P.
//! - `timeline_{δ}`: per rank, the wait, the operation and its end on the global clock for
//!   the median repetition, delayed ranks marked (the trace pictures of Niethammer et al. 2016, Figures 2 and 3).
//! - `t_global_ecdf_{δ}`: the empirical distribution of t_global, δ = 0 against δ.
//! - `t_global_over_run`: t_global of every repetition against its index, which exposes
//!   clock drift and warm-up.
//! - `hidden_vs_p_{δ}` (overlap mode only), with bootstrap intervals.
//! - `rank_lateness_{δ}`, `rank_exit_{δ}`: rank × repetition heatmaps of lateness and exit time.
//! - `benefit_distribution_{δ}`, `noise_amplification_{δ}`: what `analyze --distribution`
//!   computes.
//! - `launch_spread_{δ}`: several launches of one plan pooled, each launch's median.
//! - `noise_slowdown_vs_p`: simulated files of one plan with and without noise, the
//!   undelayed call's slowdown against P, one line per noise source.
//!
//! `{δ}` names the delay model (`50us`, `exp-20us`), not the nominal δ, so models with one
//! mean do not collide. Every subtitle ends with the run's identity (MPI library, hosts, date,
//! late ranks, nrep, sync methods). [`Selection`] (`plot --op/--size/--procs/--delay`) chooses
//! the configurations every figure draws. `compare A B --figures DIR` draws two runs side by
//! side ([`write_compare_figures`]).
//! `delaybench arrivals` draws a capture's arrival spread, rank × call lateness and waiting
//! per call site and who made everyone wait ([`write_arrivals_figures`]).
//!
//! P (or the size) is on a log2 axis with a labelled tick at every value measured (thinned
//! when labels would collide); tick labels carry the host count, `P (hosts)`, when the P span
//! different numbers of hosts. Colours are Okabe–Ito, safe for colour-vision deficiencies;
//! the legend sits below the panels so it never covers data; a configuration without valid
//! repetitions leaves a gap, and a kernel with no value at all is named under its panel's
//! title. Text is DejaVu Sans, embedded, so PNGs look the same on every machine.

mod arrivals;
mod axes;
mod axis_kind;
mod benefit;
mod caption;
mod capture_names;
mod capture_page;
mod causes;
mod clock_error;
mod compare;
mod compare_page;
mod context;
mod distribution;
mod ecdf;
mod fonts;
mod heat_grids;
mod hidden;
mod html;
mod index;
mod launches;
mod layout;
mod naming;
mod noise;
mod noise_page;
mod noise_slowdown;
mod over_run;
mod rank_heatmaps;
mod rank_timeline;
mod reduced;
mod render;
mod select;
mod spec;
mod tglobal;
mod thin;
mod xy;

pub use arrivals::{arrivals_dir, lateness_grid, write_arrivals_figures, LatenessGrid};
pub use capture_page::capture_side;
pub use clock_error::{plottable_rows, write_clock_error_figure};
pub use compare::{write_compare_figures, Side};
pub use compare_page::{write_capture_compare_page, write_compare_page};
pub use html::{announce, INDEX_HTML};
pub use index::{INFO_TXT, SUMMARY_CSV, SUMMARY_MD};
pub use noise::write_noise_figures;
pub use reduced::{BlockExtras, PlotRun, ValidSet};
pub use select::{Offered, SelectError, Selection};

use crate::analysis::{
    config_stats_of_digests, launch_warnings, Bootstrap, ConfigStats, LaunchDigest,
};
use crate::records::Records;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Which order statistic over the valid repetitions the figures show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Stat {
    /// Minimum t_global over valid repetitions and the benefit computed from minima, as the
    /// paper reports them (Niethammer et al. 2016, §IV): the best the system can do. Minima have no interval, so
    /// no error bars are drawn.
    Min,
    /// Median t_global over valid repetitions and the benefit computed from medians: what a
    /// typical call sees, robust to the outliers of a shared or oversubscribed machine.
    /// Error bars show their percentile bootstrap intervals.
    #[default]
    Median,
}

impl Stat {
    /// t_global of the row in seconds under this statistic.
    pub fn t_global_s(self, row: &ConfigStats) -> Option<f64> {
        match self {
            Stat::Min => row.t_global_min_s,
            Stat::Median => row.t_global_median_s,
        }
    }

    /// The confidence interval (seconds) of [`Stat::t_global_s`], if the statistic has one.
    pub fn t_global_ci_s(self, row: &ConfigStats) -> Option<(f64, f64)> {
        match self {
            Stat::Min => None,
            Stat::Median => row.median_ci().map(|c| (c.lo, c.hi)),
        }
    }

    /// Baseline t_global t0 (same op, bytes and P with δ = 0) in seconds under this statistic.
    pub fn t0_s(self, row: &ConfigStats) -> Option<f64> {
        match self {
            Stat::Min => row.t0_min_s,
            Stat::Median => row.t0_median_s,
        }
    }

    /// Delay overlap benefit of the row as a fraction (1 = 100 %) under this statistic.
    pub fn benefit(self, row: &ConfigStats) -> Option<f64> {
        match self {
            Stat::Min => row.benefit_min,
            Stat::Median => row.benefit_median,
        }
    }

    /// The bound on [`Stat::benefit`] from the same statistic's t0, under the assumption
    /// tδ ≥ t0 ([`crate::analysis::benefit_ceiling`]), as a fraction.
    pub fn benefit_ceiling(self, row: &ConfigStats) -> Option<f64> {
        match self {
            Stat::Min => row.benefit_ceiling_min,
            Stat::Median => row.benefit_ceiling,
        }
    }

    /// The confidence interval (fractions) of [`Stat::benefit`], if the statistic has one.
    pub fn benefit_ci(self, row: &ConfigStats) -> Option<(f64, f64)> {
        match self {
            Stat::Min => None,
            Stat::Median => row.benefit_ci().map(|c| (c.lo, c.hi)),
        }
    }

    /// What the error bars show, for subtitles; `None` when the statistic has no interval
    /// (minima), so no subtitle promises bars that are not drawn.
    pub fn error_bars(self) -> Option<&'static str> {
        match self {
            Stat::Min => None,
            Stat::Median => Some("error bars: 95 % bootstrap interval of the median"),
        }
    }

    /// The statistic in words, for figure titles.
    pub fn describe(self) -> &'static str {
        match self {
            Stat::Min => "minimum of valid repetitions",
            Stat::Median => "median of valid repetitions, 95 % bootstrap intervals",
        }
    }
}

/// Declares [`FigureKind`] (each variant with its doc comment, the `--only` help, and its
/// name), builds `ALL` in the registry's order and [`build`] from the same list, so a figure
/// cannot be half registered.
macro_rules! figures {
    ($($(#[doc = $doc:literal])* $variant:ident = $name:literal => $drawables:path,)*) => {
        /// The kinds of figure `plot` draws; `--only NAME` draws one of them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
        pub enum FigureKind {
            $($(#[doc = $doc])* #[value(name = $name)] $variant,)*
        }

        impl FigureKind {
            /// Every kind, in the order the report lists them.
            pub const ALL: [FigureKind; [$($name),*].len()] = [$(FigureKind::$variant),*];

            /// Each kind's drawing function as the registry names it (`file::function`),
            /// for the test that holds the registry to the figure files.
            #[cfg(test)]
            const DRAWABLES: [&'static str; [$($name),*].len()] = [$(stringify!($drawables)),*];
        }

        /// The figures of one kind, ready to draw (none when the records lack what it needs),
        /// each drawn by its own file.
        fn build(kind: FigureKind, data: &RunData, stat: Stat) -> Vec<render::Drawable> {
            match kind {
                $(FigureKind::$variant => $drawables(data, stat),)*
            }
        }
    };
}

// The registry of figures: adding one is its file (`drawables(data, stat)`) and one entry
// here, in the order the report lists them.
figures! {
    /// Delay overlap benefit vs P per kernel, blocking vs nonblocking, one panel per size
    /// (Niethammer et al. 2016, Figures 6, 8, 10, 12, 14, 16).
    BenefitVsP = "benefit_vs_p" => benefit::drawables,
    /// t_global vs P, delayed vs undelayed (Niethammer et al. 2016, Figures 5, 7, 9, 11, 13, 15).
    TGlobalVsP = "t_global_vs_p" => tglobal::drawables_vs_p,
    /// t_global vs message size, delayed vs undelayed, one panel per family and P.
    TGlobalVsSize = "t_global_vs_size" => tglobal::drawables_vs_size,
    /// Per-rank timeline of the median repetition on the global clock (Niethammer et al. 2016, Figures 2, 3).
    Timeline = "timeline" => rank_timeline::drawables,
    /// Empirical distribution of t_global per configuration, δ = 0 against δ.
    Ecdf = "t_global_ecdf" => ecdf::drawables,
    /// t_global of every repetition against its index: drift and warm-up show as trends.
    OverRun = "t_global_over_run" => over_run::drawables,
    /// Overlap mode: the share of the late arrival hidden by computation vs P.
    HiddenVsP = "hidden_vs_p" => hidden::drawables,
    /// Heatmap of each rank's lateness (start − earliest start) per repetition.
    RankLateness = "rank_lateness" => rank_heatmaps::lateness,
    /// Heatmap of each rank's exit time (end − earliest start) per repetition.
    RankExit = "rank_exit" => rank_heatmaps::exit,
    /// `analyze --distribution`: the per-repetition benefit's median, quartiles and 5–95 %
    /// range per kernel vs P.
    BenefitDistribution = "benefit_distribution" => distribution::benefit_drawables,
    /// `analyze --distribution` of noise blocks (every rank delayed): noise amplification vs P.
    NoiseAmplification = "noise_amplification" => distribution::amplification_drawables,
    /// Several launches of one plan pooled: each launch's median t_global vs P beside the
    /// pooled median and its interval.
    LaunchSpread = "launch_spread" => launches::drawables,
    /// Simulated files of one plan, one without noise: each noise source's slowdown of the
    /// undelayed call (median t_global / the noiseless one) vs P.
    NoiseSlowdown = "noise_slowdown_vs_p" => noise_slowdown::drawables,
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
    /// Several records files that are not launches of one plan cannot be pooled.
    #[error("cannot pool the records files: {reason} (give launches of one plan, or compare two runs with `delaybench compare A B --figures DIR`)")]
    Pool { reason: String },
}

/// What `plot` draws: the statistic, one figure kind or all, and the configurations.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PlotOptions {
    pub stat: Stat,
    /// Only this kind; `None`: every kind the records can give.
    pub only: Option<FigureKind>,
    /// The configurations drawn (`--op/--size/--procs/--delay`).
    pub selection: Selection,
}

/// What every figure of one run is drawn from: the run reduced block by block
/// ([`PlotRun`]), its per-configuration statistics, its warnings and the host count per P.
/// Several launches of one plan are pooled: the statistics come from all of them, the
/// figures of single repetitions (timeline, heatmaps, ECDF, t_global over the run) from the
/// first.
pub struct RunData {
    /// The first launch, reduced to the selected blocks.
    pub run: PlotRun,
    /// Every launch's digest when several were pooled (the first included), else empty.
    pub launches: Vec<LaunchDigest>,
    /// The configurations drawn.
    pub selection: Selection,
    /// [`config_stats_of_digests`] of the run, one launch.
    pub stats: Vec<ConfigStats>,
    /// [`launch_warnings`] of the run.
    pub warnings: Vec<String>,
    /// Distinct hosts per P, ascending in P (see [`spec::hosts_per_p`]).
    pub hosts: Vec<(u32, u32)>,
    /// The run's identity line ([`context::run_context`]), the last line of every subtitle.
    pub context: String,
}

impl RunData {
    /// Statistics (default bootstrap: 95 % percentile intervals), warnings and host counts
    /// of `records`.
    pub fn new(records: &Records) -> RunData {
        RunData::of_run(PlotRun::of(records))
    }

    /// The same for a run reduced while it was read ([`PlotRun::read`]).
    pub fn of_run(run: PlotRun) -> RunData {
        let stats =
            config_stats_of_digests(std::slice::from_ref(&run.launch), &Bootstrap::default())
                .expect("one launch always has a plan of its own");
        RunData {
            launches: Vec::new(),
            selection: Selection::default(),
            context: context::run_context(&run.launch.header, 1),
            warnings: launch_warnings(&run.launch),
            hosts: spec::hosts_per_p(&run.launch.blocks),
            stats,
            run,
        }
    }
}

impl RunData {
    /// The data of launches `runs` of one plan (at least one), reduced to `selection`:
    /// statistics pooled over the launches, single-repetition figures from the first.
    ///
    /// Errors: [`PlotError::NoData`] for no run, [`PlotError::Pool`] when the launches are not
    /// of one plan.
    pub fn of_runs(runs: Vec<PlotRun>, selection: &Selection) -> Result<RunData, PlotError> {
        let mut runs: Vec<PlotRun> = runs.into_iter().map(|r| selection.apply(r)).collect();
        if runs.is_empty() {
            return Err(PlotError::NoData {
                what: "no records file".into(),
            });
        }
        let first = runs.remove(0);
        if runs.is_empty() {
            let mut data = RunData::of_run(first);
            data.selection = selection.clone();
            return Ok(data);
        }
        let launches: Vec<LaunchDigest> = std::iter::once(first.launch.clone())
            .chain(runs.into_iter().map(|r| r.launch))
            .collect();
        let stats = config_stats_of_digests(&launches, &Bootstrap::default()).map_err(|e| {
            PlotError::Pool {
                reason: e.to_string(),
            }
        })?;
        let warnings = launches
            .iter()
            .enumerate()
            .flat_map(|(i, l)| {
                launch_warnings(l)
                    .into_iter()
                    .map(move |w| format!("launch {}: {w}", i + 1))
            })
            .collect();
        Ok(RunData {
            context: context::run_context(&first.launch.header, launches.len()),
            hosts: spec::hosts_per_p(&first.launch.blocks),
            warnings,
            stats,
            launches,
            selection: selection.clone(),
            run: first,
        })
    }
}

/// Writes the figures of a run reduced while it was read ([`PlotRun::read`]; [`PlotRun::of`]
/// for records in memory) into `out_dir` (created if missing) as PNG and SVG, then the report
/// pages `index.md` and [`INDEX_HTML`] (self-contained, for a browser) listing every figure
/// written with its caption and the run's metadata, and returns the paths written (figures
/// first, the pages last). `stat` chooses minima or medians
/// (see [`Stat`]); `only` restricts the output to one [`FigureKind`]. Existing files of the
/// same names are overwritten.
///
/// Records without anything a kind needs (no δ > 0, no overlap mode) give no figure of that
/// kind; records with nothing to draw at all give `Ok` with no paths and nothing is created,
/// so callers can report "nothing to plot" themselves.
///
/// Errors: [`PlotError::CreateDir`] when `out_dir` cannot be created, [`PlotError::Write`]
/// naming the first file that could not be drawn or saved, [`PlotError::Font`] if the
/// embedded font is unusable.
pub fn write_figures_of_run(
    run: PlotRun,
    out_dir: &Path,
    stat: Stat,
    only: Option<FigureKind>,
) -> Result<Vec<PathBuf>, PlotError> {
    let opts = PlotOptions {
        stat,
        only,
        selection: Selection::default(),
    };
    write_figures(vec![run], out_dir, &opts)
}

/// [`write_figures_of_run`] of one or more launches of one plan (pooled, see
/// [`RunData::of_runs`]) with the options of `plot`: the figures of `opts.only` (or every
/// kind) for the selected configurations, then `index.md` and [`INDEX_HTML`].
///
/// Errors: as [`write_figures_of_run`], and those of [`RunData::of_runs`].
pub fn write_figures(
    runs: Vec<PlotRun>,
    out_dir: &Path,
    opts: &PlotOptions,
) -> Result<Vec<PathBuf>, PlotError> {
    let data = RunData::of_runs(runs, &opts.selection)?;
    let (stat, only) = (opts.stat, opts.only);
    let kinds: Vec<FigureKind> = match only {
        Some(k) => vec![k],
        None => FigureKind::ALL.to_vec(),
    };
    let mut specs: Vec<render::Drawable> = Vec::new();
    for kind in kinds {
        specs.extend(build_stamped(kind, &data, stat));
    }
    if specs.is_empty() {
        return Ok(Vec::new());
    }
    let mut written = render::write_all(&specs, out_dir)?;
    written.push(index::write_index(&data, &specs, stat, out_dir)?);
    written.push(html::write_index_html(&data, &specs, stat, out_dir)?);
    Ok(written)
}

/// [`build`] with the run's identity line under each figure's subtitle.
fn build_stamped(kind: FigureKind, data: &RunData, stat: Stat) -> Vec<render::Drawable> {
    let mut figs = build(kind, data, stat);
    let selected = data.selection.describe();
    for f in &mut figs {
        if !selected.is_empty() {
            f.add_context(&selected);
        }
        f.add_context(&data.context);
        caption::keep_relevant_warnings(f);
        axis_kind::one_axis_kind(f);
    }
    figs
}

impl RunData {
    /// The distinct delay models of the run with δ > 0, ascending in δ: the key of every
    /// figure that depends on the delay.
    pub(crate) fn delays(&self) -> Vec<naming::DelayKey> {
        naming::distinct_models(
            self.stats
                .iter()
                .map(|r| (r.delay_model.as_str(), r.delay_s)),
        )
    }

    /// One figure per delay model of the run ([`RunData::delays`]), each given its unique
    /// file stem `{prefix}_{model}` ([`naming::model_stems`]); `figure` returns `None` for a
    /// model it has nothing to draw of.
    pub(crate) fn per_model<T>(
        &self,
        prefix: &str,
        mut figure: impl FnMut(&naming::DelayKey, String) -> Option<T>,
    ) -> Vec<T> {
        let delays = self.delays();
        delays
            .iter()
            .zip(naming::model_stems(prefix, &delays))
            .filter_map(|(d, stem)| figure(d, stem))
            .collect()
    }

    /// A panel-grid figure with the run's warnings under its subtitle.
    pub(crate) fn grid(&self, mut f: spec::FigureSpec) -> render::Drawable {
        // The figure's own notes (n/a, bounds exceeded) follow the run's warnings.
        let own = std::mem::take(&mut f.warnings);
        f.warnings = self.warnings.iter().cloned().chain(own).collect();
        render::Drawable::Grid(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    /// Every figure function in this folder's files (`pub(super) fn NAME(data: &RunData,
    /// _: Stat) -> Vec<Drawable>`, the shape the registry calls), as `file::NAME`: a list
    /// read from the files themselves, independent of the registry.
    fn figure_functions_in_the_folder() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/plot");
        let mut found = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            for line in std::fs::read_to_string(&path).unwrap().lines() {
                let Some(rest) = line.trim_start().strip_prefix("pub(super) fn ") else {
                    continue;
                };
                let Some((name, args)) = rest.split_once('(') else {
                    continue;
                };
                if args.starts_with("data: &RunData, ") && args.contains("Stat) -> Vec<Drawable>") {
                    found.push(format!("{stem}::{name}"));
                }
            }
        }
        found.sort();
        found
    }

    #[test]
    fn every_figure_kind_is_registered() {
        use clap::ValueEnum;
        // The registry against the figure files: a figure function that is not in
        // `figures!` (or an entry whose function is gone) fails here.
        let mut registered: Vec<String> = FigureKind::DRAWABLES
            .iter()
            .map(|d| d.replace(' ', ""))
            .collect();
        registered.sort();
        let in_files = figure_functions_in_the_folder();
        assert!(in_files.len() >= 10, "{in_files:?}");
        assert_eq!(registered, in_files);
        // `--only` offers every kind, each under its own name.
        assert_eq!(&FigureKind::ALL[..], FigureKind::value_variants());
        let names: std::collections::BTreeSet<String> = FigureKind::ALL
            .iter()
            .map(|k| k.to_possible_value().unwrap().get_name().to_string())
            .collect();
        assert_eq!(names.len(), FigureKind::ALL.len());
    }

    fn records(delays: &[f64]) -> Records {
        let mut blocks = Vec::new();
        for p in [2, 4] {
            for &delay in delays {
                // 7 valid repetitions: enough for intervals (MIN_VALID_FOR_CI).
                blocks.push(testdata::block(Op::Allreduce, 8, p, delay, 8, 10e-6));
            }
        }
        testdata::records(4, blocks)
    }

    #[test]
    fn stat_picks_the_matching_fields() {
        let r = records(&[0.0, 50e-6]);
        let rows = RunData::new(&r).stats;
        let r = &rows[1];
        assert_eq!(Stat::Min.t_global_s(r), r.t_global_min_s);
        assert_eq!(Stat::Median.t_global_s(r), r.t_global_median_s);
        assert_eq!(Stat::Min.t0_s(r), r.t0_min_s);
        assert_eq!(Stat::Median.benefit(r), r.benefit_median);
        assert_ne!(Stat::Min.t_global_s(r), Stat::Median.t_global_s(r));
        assert_eq!(Stat::Min.t_global_ci_s(r), None);
        let (lo, hi) = Stat::Median.t_global_ci_s(r).unwrap();
        assert!(lo <= r.t_global_median_s.unwrap() && hi >= r.t_global_median_s.unwrap());
        assert!(Stat::Median.benefit_ci(r).is_some() && Stat::Min.benefit_ci(r).is_none());
        assert_eq!(Stat::default(), Stat::Median);
        assert!(Stat::Min.describe().starts_with("minimum"));
        assert!(Stat::Min.error_bars().is_none() && Stat::Median.error_bars().is_some());
    }

    #[test]
    fn empty_records_give_no_figures_and_no_directory() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("never");
        let written =
            write_figures_of_run(PlotRun::of(&records(&[])), &out, Stat::Median, None).unwrap();
        assert!(written.is_empty());
        assert!(!out.exists());
        // Baselines only: no benefit, but t_global over the run still shows them.
        let written =
            write_figures_of_run(PlotRun::of(&records(&[0.0])), &out, Stat::Min, None).unwrap();
        let names: Vec<String> = written
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "t_global_over_run.png",
                "t_global_over_run.svg",
                "index.md",
                INDEX_HTML
            ]
        );
    }

    #[test]
    fn only_draws_one_kind_and_every_kind_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let r = records(&[0.0, 50e-6]);
        let only = write_figures_of_run(
            PlotRun::of(&r),
            dir.path(),
            Stat::Median,
            Some(FigureKind::Timeline),
        );
        let only = only.unwrap();
        assert_eq!(only.len(), 4, "{only:?}");
        assert!(only[0].ends_with("timeline_50us.png"));
        let all = write_figures_of_run(PlotRun::of(&r), dir.path(), Stat::Median, None).unwrap();
        let stems: Vec<String> = all
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "png"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        // One size only: no t_global-vs-size figure; no overlap mode: no hidden figure.
        assert_eq!(
            stems,
            [
                "benefit_vs_p_50us",
                "t_global_vs_p_50us",
                "timeline_50us",
                "t_global_ecdf_50us",
                "t_global_over_run",
                "rank_lateness_50us",
                "rank_exit_50us",
                "benefit_distribution_50us"
            ]
        );
        assert!(all.iter().all(|p| p.exists()));
        let md = std::fs::read_to_string(dir.path().join("index.md")).unwrap();
        assert_eq!(md.matches("![").count(), 8, "{md}");
    }

    #[test]
    fn every_subtitle_names_library_hosts_and_nrep() {
        let mut r = records(&[0.0, 50e-6]);
        r.header.mpi_library = "Open MPI v4.1.4, package: Debian".into();
        let data = RunData::new(&r);
        let figs: Vec<render::Drawable> = FigureKind::ALL
            .iter()
            .flat_map(|&k| build_stamped(k, &data, Stat::Median))
            .collect();
        assert!(figs.len() >= 5);
        for f in &figs {
            let s = f.subtitle();
            for want in [
                "Open MPI v4.1.4",
                "1 host: node0",
                "nrep ",
                "late: rank 0",
                "sync",
            ] {
                assert!(s.contains(want), "{}: {want:?} not in {s:?}", f.stem());
            }
        }
    }

    #[test]
    fn unwritable_directory_names_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        std::fs::write(&file, b"x").unwrap();
        let r = records(&[0.0, 50e-6]);
        let err = write_figures_of_run(PlotRun::of(&r), &file.join("sub"), Stat::Median, None)
            .unwrap_err();
        assert!(matches!(err, PlotError::CreateDir { .. }), "{err}");
        assert!(err.to_string().contains("a-file"), "{err}");
    }
}

/// Builders of synthetic statistics for the figure tests.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::spec::FigureSpec;
    use crate::analysis::ConfigStats;
    use crate::plan::Op;

    /// A row of `op`, `bytes`, P = `p` and δ = `delay_s` with every statistic missing.
    pub fn stats(op: Op, bytes: u64, p: u32, delay_s: f64) -> ConfigStats {
        ConfigStats {
            schema_version: crate::analysis::ANALYZE_SCHEMA_VERSION,
            run_id: String::new(),
            mpi_library: String::new(),
            host_names: String::new(),
            tags: String::new(),
            op,
            bytes,
            nprocs: p,
            hosts: 0,
            algorithm: String::new(),
            delay_model: String::new(),
            delay_s,
            launches: 1,
            valid: 4,
            total: 5,
            valid0: 4,
            total0: 5,
            few_valid: true,
            t_global_min_s: None,
            t_global_q1_s: None,
            t_global_median_s: None,
            t_global_q3_s: None,
            t_global_max_s: None,
            t_global_mean_s: None,
            t_global_iqm_s: None,
            t_global_std_s: None,
            t_global_median_ci_lo_s: None,
            t_global_median_ci_hi_s: None,
            outliers_low: 0,
            outliers_high: 0,
            outliers_severe: 0,
            t0_min_s: None,
            t0_median_s: None,
            t0_median_ci_lo_s: None,
            t0_median_ci_hi_s: None,
            cost_median_s: None,
            cost_median_ci_lo_s: None,
            cost_median_ci_hi_s: None,
            benefit_min: None,
            benefit_median: None,
            benefit_median_ci_lo: None,
            benefit_median_ci_hi: None,
            benefit_p: None,
            benefit_significant: None,
            verdict: None,
            benefit_ceiling: None,
            benefit_of_ceiling: None,
            launch_median_min_s: None,
            launch_median_max_s: None,
            launch_median_cv: None,
            benefit_launch_min: None,
            benefit_launch_max: None,
            launches_disagree: None,
            benefit_ceiling_min: None,
            above_ceiling: None,
            benefit_na: None,
            bound_s: None,
            model_bound_s: None,
            above_bound_s: None,
            above_bound_ratio: None,
            min_above_bound_s: None,
            above_model_bound_s: None,
            above_model_bound_ratio: None,
            beat_model_bound_reps: None,
        }
    }

    /// A figure without panels, for tests of axis text.
    pub fn empty_figure() -> FigureSpec {
        FigureSpec {
            stem: "f".into(),
            title: String::new(),
            subtitle: String::new(),
            x_label: "processes P".into(),
            y_label: String::new(),
            procs: Vec::new(),
            panels: Vec::new(),
            legend: Vec::new(),
            zero_line: false,
            dodge: false,
            x_format: Default::default(),
            hosts: Vec::new(),
            warnings: Vec::new(),
        }
    }
}
