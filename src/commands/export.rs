//! `delaybench export`: the rows of a records file (or the detours of a noise file).

use super::reading::announce_end;
use super::{finish, Run};
use crate::cli::ExportArgs;
use crate::exit::BadInput;
use crate::export::{
    write_archive, write_noise_detours, write_rows_streamed, ExportError, ExportRows, Format,
};
use crate::records::noise::{is_noise_file, read_noise};
use crate::records::RunLabel;
use crate::timeline::{GlobalTimes, Timeline};
use anyhow::{Context, Result};
use std::path::Path;
use std::process::ExitCode;

impl Run for ExportArgs {
    fn run(self) -> ExitCode {
        finish(export_file(self))
    }
}

fn export_file(args: ExportArgs) -> Result<()> {
    let ExportArgs {
        file,
        format,
        rows,
        times,
        output,
    } = args;
    if format == Format::Otf2 {
        return export_otf2(&file, times.global_times, output.as_deref());
    }
    let out = &mut format.output(output.as_deref())?;
    if is_noise_file(&file) {
        // A noise file holds detours, not blocks: one row per detour.
        let run = read_noise(&file).with_context(|| format!("reading {}", file.display()))?;
        eprintln!(
            "delaybench: {} is a noise file: one row per detour, global times as recorded",
            file.display()
        );
        write_noise_detours(&run, format, out)?;
    } else {
        export(&file, times.global_times, rows, format, out)?;
    }
    Ok(())
}

/// Writes a records file as an OTF2 archive in the new or empty directory `dir`, one block
/// at a time, and says on stderr what it wrote.
fn export_otf2(file: &Path, times: GlobalTimes, dir: Option<&Path>) -> Result<()> {
    let Some(dir) = dir else {
        return Err(BadInput(
            "--format otf2 writes an archive, a directory: give it with --output DIR".into(),
        )
        .into());
    };
    crate::output_name::check_fresh_dir(dir, "--output DIR").map_err(BadInput)?;
    if is_noise_file(file) {
        return Err(BadInput(format!(
            "{} is a noise file: --format otf2 writes the blocks of a records file",
            file.display()
        ))
        .into());
    }
    let reading = || format!("reading {}", file.display());
    let mut timeline = Timeline::open(file, times).with_context(reading)?;
    let wrote = match write_archive(&mut timeline, dir) {
        Err(ExportError::Records(e)) => return Err(anyhow::Error::new(e).context(reading())),
        other => other?,
    };
    let end = timeline.end();
    announce_end(file, &end.correction, &end.verdicts, (&end).into());
    eprintln!(
        "delaybench: wrote {}: {} blocks, {} locations, {} regions entered, {} collectives{}",
        dir.join("traces.otf2").display(),
        wrote.blocks,
        wrote.locations,
        wrote.enters,
        wrote.collectives,
        if wrote.skipped > 0 {
            format!(
                ", {} rank repetitions without finite times left out",
                wrote.skipped
            )
        } else {
            String::new()
        }
    );
    if wrote.moved > 0 {
        eprintln!(
            "delaybench: warning: {} regions began before their rank's previous one ended \
             (overlapping global times) and were moved later to keep each rank's events in \
             time order, as OTF2 requires",
            wrote.moved
        );
    }
    Ok(())
}

/// Exports a records file one block at a time: memory holds one block, not the file. A read
/// error keeps the message it had when the file was read whole.
fn export(
    file: &Path,
    times: GlobalTimes,
    rows: ExportRows,
    format: Format,
    out: &mut dyn std::io::Write,
) -> Result<()> {
    let reading = || format!("reading {}", file.display());
    let mut timeline = Timeline::open(file, times).with_context(reading)?;
    let run = RunLabel::of(timeline.header());
    match write_rows_streamed(&run, timeline.by_ref(), rows, format, out) {
        Err(ExportError::Records(e)) => return Err(anyhow::Error::new(e).context(reading())),
        other => other?,
    }
    let end = timeline.end();
    announce_end(file, &end.correction, &end.verdicts, (&end).into());
    Ok(())
}
