//! An OTF2 archive in a build without the `otf2` feature: recognised (so it is not taken for
//! a damaged capture) and refused, saying what to install and how to build.

use super::error::CaptureFileError;
use super::reader::RankCapture;
use std::path::Path;

/// Refuses: this build reads no OTF2.
///
/// Errors: always [`CaptureFileError::Format`], naming the archive, the package and the
/// feature.
pub fn read_otf2(anchor: &Path) -> Result<Vec<RankCapture>, CaptureFileError> {
    Err(CaptureFileError::Format {
        path: anchor.display().to_string(),
        reason: "an OTF2 archive, and this build reads no OTF2: install the OTF2 library \
                 (Debian: apt-get install libotf2-trace-dev) and build with `--features otf2`"
            .into(),
    })
}
