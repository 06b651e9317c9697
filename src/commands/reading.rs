//! How the offline commands read records files: block by block on the chosen global times,
//! saying on stderr which times were used and how the run ended; and captures, matched into
//! collective instances, saying what each lacks.

use crate::analysis::{analyze_digests, Analysis, Bootstrap, LaunchDigest};
use crate::capture::{capture_gaps, match_calls, read_captures, Matched, RankCapture};
use crate::exit::BadInput;
use crate::records::{Block, Header, RecordsStream, RunLabel};
use crate::timeline::{ClockCorrection, GlobalTimes, Timeline, TimelineEnd, VerdictChanges};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// Reads the capture `files` (folders or per-rank files) and matches their calls. Warns on
/// stderr, each note after `prefix` (empty, or `DIR: ` when two captures are read), which
/// rank's file is missing or incomplete and whether the clocks were synchronised at
/// MPI_Finalize: the report's numbers leave those ranks' calls out.
///
/// Errors: a file that cannot be read or matched.
pub(super) fn read_matched(files: &[PathBuf], prefix: &str) -> Result<(Vec<RankCapture>, Matched)> {
    let captures = read_captures(files)?;
    let matched = match_calls(&captures)?;
    for note in capture_gaps(&captures).notes() {
        eprintln!("delaybench: warning: {prefix}{note}");
    }
    Ok((captures, matched))
}

/// Refuses records files that hold one run under two names (`run.cbor` and its copy): pooled
/// they would count every repetition twice and narrow every interval, compared they would
/// test a run against itself. Reads each file's header only (its run id, [`RunLabel`]);
/// files that are not records (a `clocksync` CSV, a noise file) or cannot be opened are left
/// for the command to read and name. The message names both paths; [`BadInput`], so the
/// command exits with 2 through [`super::finish`] like any other bad input.
pub(super) fn refuse_repeated_runs(files: &[PathBuf]) -> Result<(), BadInput> {
    let mut seen: Vec<(String, &Path)> = Vec::new();
    for file in files {
        let Ok(stream) = RecordsStream::open(file) else {
            continue;
        };
        let run_id = RunLabel::of(stream.header()).run_id;
        if let Some((_, first)) = seen.iter().find(|(id, _)| *id == run_id) {
            return Err(BadInput(format!(
                "{} and {} are the same run (run id {run_id}): give each run once; a copy of a \
                 records file is not another launch",
                first.display(),
                file.display()
            )));
        }
        seen.push((run_id, file));
    }
    Ok(())
}

/// Reads a records file once, block by block, on the chosen global times, giving each block
/// to `each` and holding one at a time; says on stderr which times were used and how the run
/// ended. Returns the header.
pub(super) fn each_block(
    file: &Path,
    times: GlobalTimes,
    mut each: impl FnMut(&Header, Block),
) -> Result<Header> {
    let reading = || format!("reading {}", file.display());
    let mut timeline = Timeline::open(file, times).with_context(reading)?;
    let header = timeline.header().clone();
    for block in timeline.by_ref() {
        each(&header, block.with_context(reading)?);
    }
    let end = timeline.end();
    announce_end(file, &end.correction, &end.verdicts, (&end).into());
    Ok(header)
}

/// Reads and analyses records files of one plan (several launches) on the chosen global
/// times, one block at a time: memory follows valid repetitions, not the file's size.
pub(super) fn analysis(files: &[PathBuf], boot: Bootstrap, times: GlobalTimes) -> Result<Analysis> {
    analysis_of(files, &launches(files, times)?, boot)
}

/// The analysis of `launches`, read from `files` by [`launches`].
pub(super) fn analysis_of(
    files: &[PathBuf],
    launches: &[LaunchDigest],
    boot: Bootstrap,
) -> Result<Analysis> {
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    Ok(analyze_digests(&names, launches, boot)?)
}

/// Reads records files block by block into their digests (the valid t_globals per block),
/// saying on stderr which times were used and whether a run was interrupted.
pub(super) fn launches(files: &[PathBuf], times: GlobalTimes) -> Result<Vec<LaunchDigest>> {
    let mut launches = Vec::with_capacity(files.len());
    for file in files {
        let launch = LaunchDigest::read(file, times)
            .with_context(|| format!("reading {}", file.display()))?;
        // The verdict note is among the analysis's warnings; only the times are said here.
        eprintln!("delaybench: {}", launch.correction.describe());
        if !launch.complete {
            warn_interrupted(file, launch.blocks.len(), launch.partial_block);
        }
        launches.push(launch);
    }
    Ok(launches)
}

/// Says on stderr which global times a reader used, how many verdicts they changed, and
/// whether the run was interrupted.
pub(super) fn announce_end(
    file: &Path,
    correction: &ClockCorrection,
    verdicts: &VerdictChanges,
    ended: Ended,
) {
    eprintln!("delaybench: {}", correction.describe());
    if let Some(note) = verdicts.note() {
        eprintln!("delaybench: note: {note}");
    }
    if !ended.complete {
        warn_interrupted(file, ended.blocks, ended.partial_block);
    }
}

/// How a read ended, for [`announce_end`].
pub(super) struct Ended {
    complete: bool,
    blocks: usize,
    partial_block: bool,
}

impl From<&TimelineEnd> for Ended {
    fn from(e: &TimelineEnd) -> Self {
        Ended {
            complete: e.complete,
            blocks: e.blocks,
            partial_block: e.partial_block,
        }
    }
}

impl From<&LaunchDigest> for Ended {
    fn from(l: &LaunchDigest) -> Self {
        Ended {
            complete: l.complete,
            blocks: l.blocks.len(),
            partial_block: l.partial_block,
        }
    }
}

/// Says on stderr that `file` is from an interrupted run and how much of it was recovered.
fn warn_interrupted(file: &Path, recovered: usize, partial_block: bool) {
    eprintln!(
        "delaybench: warning: {} is from an interrupted run: {recovered} complete blocks recovered{}",
        file.display(),
        if partial_block {
            ", the last one partial"
        } else {
            ""
        }
    );
}
