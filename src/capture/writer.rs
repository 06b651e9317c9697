//! Writing one rank's capture file, frame by frame (the interposer's side, and tests).

use super::error::{io_error, CaptureFileError};
use super::items::{CaptureChunk, CaptureFooter, CaptureHeader};
use crate::frame::{write_frame, FrameKind};
use serde::Serialize;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes one rank's capture file frame by frame (each frame is written whole, so a rank
/// killed between frames leaves a readable file).
#[derive(Debug)]
pub struct CaptureWriter {
    file: File,
    path: PathBuf,
}

impl CaptureWriter {
    /// Creates `path` (refusing an existing file) and writes the header.
    ///
    /// # Errors
    /// [`CaptureFileError::Io`] when the file exists or cannot be written.
    pub fn create(path: &Path, header: &CaptureHeader) -> Result<Self, CaptureFileError> {
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|source| io_error(path, source))?;
        let mut w = CaptureWriter {
            file,
            path: path.to_owned(),
        };
        w.frame(FrameKind::Header, header)?;
        Ok(w)
    }

    /// Appends one chunk frame.
    ///
    /// # Errors
    /// [`CaptureFileError::Io`] on a write error.
    pub fn chunk(&mut self, chunk: &CaptureChunk) -> Result<(), CaptureFileError> {
        self.frame(FrameKind::Chunk, chunk)
    }

    /// Appends the footer and flushes.
    ///
    /// # Errors
    /// [`CaptureFileError::Io`] on a write error.
    pub fn finish(mut self, footer: &CaptureFooter) -> Result<(), CaptureFileError> {
        self.frame(FrameKind::Footer, footer)?;
        self.file
            .sync_data()
            .map_err(|source| io_error(&self.path, source))
    }

    fn frame<T: Serialize>(&mut self, kind: FrameKind, item: &T) -> Result<(), CaptureFileError> {
        let mut payload = Vec::new();
        ciborium::into_writer(item, &mut payload).map_err(|e| CaptureFileError::Format {
            path: self.path.display().to_string(),
            reason: crate::frame::cbor::ser_error(&e),
        })?;
        let mut bytes = Vec::with_capacity(payload.len() + 32);
        write_frame(&mut bytes, kind, &payload).expect("writing to a Vec cannot fail");
        self.file
            .write_all(&bytes)
            .map_err(|source| io_error(&self.path, source))
    }
}
