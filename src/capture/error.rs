//! What can go wrong writing or reading a capture file.

use std::path::Path;
use thiserror::Error;

/// Errors writing or reading a capture file.
#[derive(Debug, Error)]
pub enum CaptureFileError {
    /// The file could not be created, written, opened or read.
    #[error("capture file {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// A frame's CBOR could not be encoded or decoded, or it is not a capture file.
    #[error("capture file {path}: {reason}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong, in words.
        reason: String,
    },
}
/// The [`CaptureFileError::Io`] of `path`.
pub(super) fn io_error(path: &Path, source: std::io::Error) -> CaptureFileError {
    CaptureFileError::Io {
        path: path.display().to_string(),
        source,
    }
}
