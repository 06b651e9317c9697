//! `delaybench plot`: figures of records files, of a noise file, or of a `clocksync` CSV.

use super::reading::{announce_end, refuse_repeated_runs};
use super::{finish, Run};
use crate::cli::PlotArgs;
use crate::export::read_clocksync_csv;
use crate::output_name::outputs_dir;
use crate::plot::{
    plottable_rows, write_clock_error_figure, write_figures, write_noise_figures, PlotOptions,
    PlotRun,
};
use crate::records::noise::{is_noise_file, read_noise};
use anyhow::{Context, Result};
use std::io::Write;
use std::process::ExitCode;

impl Run for PlotArgs {
    fn run(self) -> ExitCode {
        finish(
            refuse_repeated_runs(&self.files)
                .map_err(anyhow::Error::from)
                .and_then(|()| plot(self)),
        )
    }
}

fn plot(args: PlotArgs) -> Result<()> {
    let PlotArgs {
        files,
        out,
        stat,
        only,
        select,
        times,
    } = args;
    let file = files[0].clone();
    // Beside the file, in its own folder: the outputs of a run follow its data.
    let out_dir = out.unwrap_or_else(|| outputs_dir(&file));
    let paths = if file.extension().is_some_and(|e| e == "csv") {
        if files.len() > 1 {
            return Err(
                crate::exit::BadInput("plot draws one clocksync CSV at a time".into()).into(),
            );
        }
        let rows = read_clocksync_csv(&file)
            .with_context(|| format!("reading clocksync results {}", file.display()))?;
        let (_, skipped) = plottable_rows(&rows);
        if skipped > 0 {
            eprintln!(
                "delaybench: warning: {skipped} of {} rows of {} have an infinite or NaN \
                 wait or error (a failed synchronisation) and are not drawn",
                rows.len(),
                file.display()
            );
        }
        write_clock_error_figure(&rows, &out_dir)?
    } else if is_noise_file(&file) {
        let run = read_noise(&file).with_context(|| format!("reading {}", file.display()))?;
        let paths = write_noise_figures(&run, &out_dir)?;
        if paths.is_empty() {
            // Without a figure there is no page either: the report on stdout says it all.
            eprintln!(
                "delaybench: no figure to draw from {}: no rank had a detour above the threshold",
                file.display()
            );
        }
        paths
    } else {
        // Reduced block by block: medians, intervals and one repetition per block.
        let mut runs = Vec::with_capacity(files.len());
        for file in &files {
            let run = PlotRun::read_selected(file, times.global_times, &select.selection())
                .with_context(|| format!("reading {}", file.display()))?;
            announce_end(
                file,
                &run.launch.correction,
                &run.launch.verdicts,
                (&run.launch).into(),
            );
            runs.push(run);
        }
        let opts = PlotOptions {
            stat,
            only,
            selection: select.selection(),
        };
        let paths = write_figures(runs, &out_dir, &opts)?;
        if paths.is_empty() {
            eprintln!(
                "delaybench: no figure to draw from {}: it has no complete block, or \
                 none of what --only, --op, --size, --procs and --delay ask for \
                 (δ > 0, two sizes, overlap mode)",
                file.display()
            );
        }
        paths
    };
    let out = &mut std::io::stdout().lock();
    for p in paths {
        writeln!(out, "{}", p.display())?;
    }
    Ok(())
}
