//! Reading a whole records file into memory: every complete block of an interrupted run
//! recovered (with the complete chunks of a chunked block in flight), damage reported with
//! its item and byte offset. Built on [`super::RecordsStream`].

use super::{Block, Footer, Header, RecordsError, RecordsStream};
use std::path::Path;

/// The content of a records file.
#[derive(Debug, Clone, PartialEq)]
pub struct Records {
    pub header: Header,
    /// Complete blocks in the order they were measured; the last one may be the complete
    /// chunks of a block an interrupted run was writing.
    pub blocks: Vec<Block>,
    /// `None` when the run was interrupted (no footer).
    pub footer: Option<Footer>,
    /// True when the file ended inside an item (the block or chunk in flight was lost).
    pub truncated: bool,
}

impl Records {
    /// True when the run completed and nothing was lost.
    pub fn complete(&self) -> bool {
        self.footer.is_some() && !self.truncated
    }
}

/// Reads `path` whole. An interrupted run (no footer, or a torn last frame) is recovered:
/// every complete block is returned, the complete chunks of the block in flight as a last
/// block, and [`Records::complete`] is false. For files larger than memory, iterate a
/// [`RecordsStream`] instead.
///
/// Errors: those of [`RecordsStream::open`] and of its iteration: [`RecordsError::Read`];
/// [`RecordsError::NotRecords`] when an item does not decode or chunks do not join;
/// [`RecordsError::Corrupt`] when a frame is damaged (a checksum mismatch, or a broken frame
/// followed by more frames).
pub fn read_records(path: &Path) -> Result<Records, RecordsError> {
    let mut stream = RecordsStream::open(path)?;
    let blocks = stream.by_ref().collect::<Result<Vec<_>, _>>()?;
    let (header, footer, truncated) = stream.into_parts();
    Ok(Records {
        header,
        blocks,
        footer,
        truncated,
    })
}
