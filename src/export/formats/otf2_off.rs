//! `otf2` in a build without the `otf2` feature: the format stays a name (so `--format otf2`
//! parses the same in every build) and refuses, saying what to install and how to build.

use super::super::{ExportError, RowExporter, RowSink, RowsSpec};
use super::ArchiveSummary;
use crate::timeline::Timeline;
use std::io::Write;
use std::path::Path;

/// The OTF2 exporter of a build without OTF2.
#[derive(Debug, Clone, Copy, Default)]
pub struct Otf2;

/// The OTF2 exporter, for the registry.
pub const OTF2: Otf2 = Otf2;

/// What a build without OTF2 says for `--format otf2`.
pub const MISSING: &str = "this build has no OTF2 writer: install the OTF2 library (Debian: \
                           apt-get install libotf2-trace-dev) and build with `--features otf2`";

/// What a build without OTF2 says when asked for rows.
pub const NOT_ROWS: &str = MISSING;

impl RowExporter for Otf2 {
    fn open<'a>(
        &self,
        _: &RowsSpec<'_>,
        _: &'a mut dyn Write,
    ) -> Result<Box<dyn RowSink + 'a>, ExportError> {
        Err(ExportError::Io(std::io::Error::other(MISSING)))
    }
}

/// Refuses: this build cannot write OTF2.
///
/// Errors: always [`ExportError::Otf2`], naming the package and the feature.
pub fn write_archive(_: &mut Timeline, dir: &Path) -> Result<ArchiveSummary, ExportError> {
    Err(ExportError::Otf2 {
        path: dir.to_path_buf(),
        what: MISSING.into(),
    })
}

/// Refuses: this build cannot write OTF2.
///
/// Errors: always [`ExportError::Otf2`], naming the package and the feature.
pub fn write_capture_archive(
    _: &[crate::capture::RankCapture],
    _: &crate::capture::Matched,
    _: &crate::analysis::causes::CausesReport,
    dir: &Path,
) -> Result<ArchiveSummary, ExportError> {
    Err(ExportError::Otf2 {
        path: dir.to_path_buf(),
        what: MISSING.into(),
    })
}
