//! `delaybench analyze`: the summary of records files, or one of the tables that replace it.

use super::reading::{analysis, each_block, refuse_repeated_runs};
use super::{finish, Run};
use crate::analysis::{
    algorithm_rows, algorithm_table_text, replay_pattern_rows, timing_row, trend_row, truth_rows,
    Analysis, DistributionRows, OverlapRows,
};
use crate::cli::AnalyzeArgs;
use crate::export::{
    with_run_columns, write_distribution, write_overlap, write_serde_rows, write_summary,
    write_timing, write_trend, write_truth, Format,
};
use crate::records::RunLabel;
use anyhow::{Context, Result};
use std::io::Write;
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
        times,
        output,
    } = args;
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
            let header = each_block(file, times, |h, b| {
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
            let run = RunLabel::of(&each_block(file, times, |_, b| rows.add(&b))?);
            let rows = rows.finish();
            with_run_columns(&run, format, out, |w| write_distribution(&rows, format, w))?;
        } else if trend {
            let mut rows = Vec::new();
            let run = RunLabel::of(&each_block(file, times, |_, b| rows.extend(trend_row(&b)))?);
            with_run_columns(&run, format, out, |w| write_trend(&rows, format, w))?;
        } else if overlap {
            let mut rows = OverlapRows::default();
            let run = RunLabel::of(&each_block(file, times, |_, b| rows.add(&b))?);
            let rows = rows.finish();
            with_run_columns(&run, format, out, |w| write_overlap(&rows, format, w))?;
        } else {
            let mut rows = Vec::new();
            let run = RunLabel::of(&each_block(file, times, |_, b| {
                rows.push(timing_row(&b, &timing))
            })?);
            with_run_columns(&run, format, out, |w| write_timing(&rows, format, w))?;
        }
    } else if algorithms {
        // Which algorithm hid the late rank: winners per (op, size, P, delay).
        let a = analysis(&files, bootstrap.bootstrap(), times)?;
        let rows = algorithm_rows(&a.rows);
        match format {
            Format::Json => {
                serde_json::to_writer_pretty(&mut *out, &rows)?;
                writeln!(out)?;
            }
            f if f.exporter().is_markup() => write!(out, "{}", algorithm_table_text(&rows))?,
            _ => {
                return Err(crate::exit::BadInput(
                    "analyze --algorithms writes --format table or json".into(),
                )
                .into())
            }
        }
    } else if replay {
        // The application's own pattern, on its own: CSV, TSV or JSON rows.
        let a = analysis(&files, bootstrap.bootstrap(), times)?;
        let rows = replay_pattern_rows(&a.rows);
        if rows.is_empty() {
            eprintln!("delaybench: no block replayed a capture (--delay replay:CAPTURE@SITE)");
        }
        if format.exporter().is_markup() {
            // The summary's own section.
            write_summary(&a, format, out)?
        } else {
            write_serde_rows(&rows, format, out)?
        }
    } else {
        let a = analysis(&files, bootstrap.bootstrap(), times)?;
        warn_outside(&a, format);
        write_summary(&a, format, out)?;
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
