//! `delaybench analyze`: the summary of records files, or one of the tables that replace it.

use super::reading::{analysis, analysis_of, each_block, launches, refuse_repeated_runs};
use super::{finish, Run};
use crate::analysis::{
    algorithm_rows, algorithm_table_text, placement_rows, replay_pattern_rows, timing_row,
    trend_row, truth_rows, Analysis, DistributionRows, OverlapRows,
};
use crate::analysis::{Bootstrap, LaunchDigest};
use crate::cli::AnalyzeArgs;
use crate::export::{
    with_run_columns, write_distribution, write_overlap, write_placement, write_serde_rows,
    write_summary, write_summary_wide, write_timing, write_trend, write_truth, Format,
};
use crate::plot::{Offered, Selection};
use crate::records::RunLabel;
use crate::records::{Block, Header};
use crate::timeline::GlobalTimes;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

impl Run for AnalyzeArgs {
    fn run(self) -> ExitCode {
        finish(
            refuse_repeated_runs(&self.files)
                .map_err(anyhow::Error::from)
                .and_then(|()| analyze(self)),
        )
    }
}

fn analyze(args: AnalyzeArgs) -> Result<()> {
    let AnalyzeArgs {
        files,
        format,
        bootstrap,
        distribution,
        trend,
        overlap,
        timing,
        truth,
        algorithms,
        replay,
        placement,
        wide,
        select,
        times,
        output,
    } = args;
    let select = select.selection();
    let out = &mut format.output(output.as_deref())?;
    let times = times.global_times;
    if distribution || trend || overlap || truth || !timing.is_empty() {
        let [file] = &files[..] else {
            return Err(crate::exit::BadInput(
                "--distribution, --trend, --overlap, --timing and --truth take one records file"
                    .into(),
            )
            .into());
        };
        // Each table is a per-block reduction of one pass over the timeline; CSV and
        // JSON rows then say which run they come from.
        if truth {
            let mut rows = Vec::new();
            let header = each_selected(file, times, &select, |h, b| {
                if let Some(spec) = &h.plan.emulate_clock {
                    rows.extend(truth_rows(spec, &b));
                }
            })?;
            header.plan.emulate_clock.as_ref().context(
                "--truth needs a run with --emulate-clock: only then are the true clocks known",
            )?;
            let run = RunLabel::of(&header);
            with_run_columns(&run, format, out, |w| write_truth(&rows, format, w))?;
        } else if distribution {
            let mut rows = DistributionRows::default();
            let run = RunLabel::of(&each_selected(file, times, &select, |_, b| rows.add(&b))?);
            let rows = rows.finish();
            with_run_columns(&run, format, out, |w| write_distribution(&rows, format, w))?;
        } else if trend {
            let mut rows = Vec::new();
            let run = RunLabel::of(&each_selected(file, times, &select, |_, b| {
                rows.extend(trend_row(&b))
            })?);
            with_run_columns(&run, format, out, |w| write_trend(&rows, format, w))?;
        } else if overlap {
            let mut rows = OverlapRows::default();
            let run = RunLabel::of(&each_selected(file, times, &select, |_, b| rows.add(&b))?);
            let rows = rows.finish();
            with_run_columns(&run, format, out, |w| write_overlap(&rows, format, w))?;
        } else {
            let mut rows = Vec::new();
            let run = RunLabel::of(&each_selected(file, times, &select, |_, b| {
                rows.push(timing_row(&b, &timing))
            })?);
            with_run_columns(&run, format, out, |w| write_timing(&rows, format, w))?;
        }
    } else if algorithms {
        // Which algorithm hid the late rank: winners per (op, size, P, delay).
        let launches = selected_launches(&files, times, &select)?;
        let a = analysis_of(&files, &launches, bootstrap.bootstrap())?;
        let rows = algorithm_rows(&a.rows, &launches, &a.bootstrap);
        match format {
            Format::Json => {
                serde_json::to_writer_pretty(&mut *out, &rows)?;
                writeln!(out)?;
            }
            f if f.exporter().is_markup() => {
                write!(out, "{}", algorithm_table_text(&rows, &a.bootstrap))?
            }
            _ => {
                return Err(crate::exit::BadInput(
                    "analyze --algorithms writes --format table or json".into(),
                )
                .into())
            }
        }
    } else if placement {
        // What differed between launches, beside each launch's median.
        let launches = selected_launches(&files, times, &select)?;
        let rows = placement_rows(&launches);
        if rows.iter().all(|r| r.cpus.is_empty()) {
            eprintln!(
                "delaybench: these records hold no placements (written before they were \
                 recorded, or simulated)"
            );
        }
        write_placement(&rows, format, out)?;
    } else if replay {
        // The application's own pattern, on its own: CSV, TSV or JSON rows.
        let a = selected_analysis(&files, bootstrap.bootstrap(), times, &select)?;
        let rows = replay_pattern_rows(&a.rows);
        if rows.is_empty() {
            eprintln!("delaybench: no block replayed a capture (--delay replay:CAPTURE@SITE)");
        }
        if format.exporter().is_markup() {
            // The summary's own section, which only the table with every column has.
            if format == Format::Table {
                write_summary_wide(&a, out)?
            } else {
                write_summary(&a, format, out)?
            }
        } else {
            write_serde_rows(&rows, format, out)?
        }
    } else {
        let a = selected_analysis(&files, bootstrap.bootstrap(), times, &select)?;
        warn_outside(&a, format);
        if wide && format == Format::Table {
            write_summary_wide(&a, out)?;
        } else {
            write_summary(&a, format, out)?;
        }
    }
    Ok(())
}

/// CSV and TSV have no place for the runs' warnings: print them on stderr so they are not
/// lost. (The table, Markdown and JSON carry them.)
fn warn_outside(a: &Analysis, format: Format) {
    if !format.exporter().summary_carries_warnings() {
        for w in &a.warnings {
            eprintln!("delaybench: warning: {w}");
        }
    }
}

/// [`each_block`] of the blocks `select` keeps (`analyze --op/--size/--procs/--delay`), the
/// others skipped as they are read; then the values asked for are checked against the
/// file's configurations.
///
/// Errors: as [`each_block`], and [`crate::plot::SelectError::NoMatch`] (bad input, exit 2)
/// naming what the file has.
fn each_selected(
    file: &Path,
    times: GlobalTimes,
    select: &Selection,
    mut each: impl FnMut(&Header, Block),
) -> Result<Header> {
    let mut offered = Offered::default();
    let header = each_block(file, times, |h, b| {
        offered.add(&b);
        if select.keeps_block(&b) {
            each(h, b)
        }
    })?;
    select.check(&offered)?;
    Ok(header)
}

/// The analysis of the blocks of `files` that `select` keeps: every launch's values checked
/// against its configurations, then the others dropped before any statistic is computed.
///
/// Errors: as [`super::reading::analysis`], and [`crate::plot::SelectError::NoMatch`].
fn selected_analysis(
    files: &[PathBuf],
    boot: Bootstrap,
    times: GlobalTimes,
    select: &Selection,
) -> Result<Analysis> {
    if select.is_everything() {
        return analysis(files, boot, times);
    }
    analysis_of(files, &selected_launches(files, times, select)?, boot)
}

/// The files' launches with only the blocks `select` keeps; an error when a filter matches
/// nothing a launch offers (it lists what the file has).
fn selected_launches(
    files: &[PathBuf],
    times: GlobalTimes,
    select: &Selection,
) -> Result<Vec<LaunchDigest>> {
    let mut launches = launches(files, times)?;
    if select.is_everything() {
        return Ok(launches);
    }
    for launch in &mut launches {
        let mut offered = Offered::default();
        for b in &launch.blocks {
            offered.add_digest(b);
        }
        select.check(&offered)?;
        launch.blocks.retain(|b| select.keeps(b));
    }
    Ok(launches)
}
