//! What a measurement run needs besides its plan: where it writes, what it makes at the end,
//! how much it says and which bounds it keeps. Plain data, filled from the command line.

use crate::plan::tags::Tag;
use std::path::PathBuf;

/// The settings of one measurement run that are not part of its [`super::Plan`] (the plan is
/// what every rank measures and the header stores; these are rank 0's choices around it).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunOptions {
    /// Records file; `None`: `results/delaybench-<UTC time, µs>-<pid>.cbor`.
    pub output: Option<PathBuf>,
    /// Folder of the end-of-run figures, report page and summary; `None`: beside the records.
    pub figures: Option<PathBuf>,
    /// Make no figures and no report page at the end.
    pub no_figures: bool,
    /// Print and write no summary at the end.
    pub no_summary: bool,
    /// Print the plan and its estimate, then stop without measuring.
    pub dry_run: bool,
    /// A dry run for this many ranks without MPI.
    pub world_size: Option<u32>,
    /// Largest estimated duration a run may have without [`RunOptions::yes`], seconds.
    pub max_duration_s: f64,
    /// Run past [`RunOptions::max_duration_s`].
    pub yes: bool,
    /// No start line and no progress.
    pub quiet: bool,
    /// Also print the plan and its estimate before measuring.
    pub verbose: bool,
    /// Skip the noise check before measuring.
    pub no_noise_check: bool,
    /// Record, per repetition and rank, the run-queue wait and the CPU's steal time beside
    /// the release and entry stamps (a diagnostic of the start spread).
    pub start_path: bool,
    /// Tags kept in the records header.
    pub tags: Vec<Tag>,
}
