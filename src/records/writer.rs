//! Writing a records file as the run goes, so a crash loses at most the block in flight, or,
//! for a block written in chunks, the chunk in flight. Every item is one checksummed frame
//! ([`super::frame`]).

use super::frame::{encode, FrameKind};
use super::{Block, BlockEnd, Chunk, Footer, Header, Item, RecordsError};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Appends header, blocks and footer to a new records file, flushing each to disk.
pub struct RecordsWriter {
    out: BufWriter<File>,
    path: PathBuf,
}

impl RecordsWriter {
    /// Creates `path` (and its parent directories); never overwrites an existing file.
    ///
    /// Errors: [`RecordsError::Exists`], [`RecordsError::Create`].
    pub fn create(path: &Path) -> Result<Self, RecordsError> {
        let create_err = |source| RecordsError::Create {
            path: path.display().to_string(),
            source,
        };
        if path.exists() {
            return Err(RecordsError::Exists(path.display().to_string()));
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(create_err)?;
        }
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(create_err)?;
        Ok(RecordsWriter {
            out: BufWriter::new(file),
            path: path.to_path_buf(),
        })
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the header. Errors: [`RecordsError::Write`].
    pub fn write_header(&mut self, header: &Header) -> Result<(), RecordsError> {
        self.write_item(&Item::Header(Box::new(header.clone())))
    }

    /// Writes one measured configuration. Errors: [`RecordsError::Write`].
    pub fn write_block(&mut self, block: &Block) -> Result<(), RecordsError> {
        self.write_item(&Item::Block(Box::new(block.clone())))
    }

    /// Writes repetitions `first_rep .. first_rep + part.nrep` of the block in flight as one
    /// chunk: `part` has the block's configuration and `[part.nrep][nprocs]` arrays (see
    /// [`super::split_block`]). Chunks of a block follow each other in repetition order from
    /// 0; [`RecordsWriter::finish_block`] closes them. Errors: [`RecordsError::Write`].
    pub fn write_chunk(&mut self, first_rep: u32, part: &Block) -> Result<(), RecordsError> {
        self.write_item(&Item::Chunk(Box::new(Chunk {
            first_rep,
            part: part.clone(),
        })))
    }

    /// Closes a block written in chunks; `nrep` is the sum of its chunks' repetitions, which
    /// the reader checks. Errors: [`RecordsError::Write`].
    pub fn finish_block(&mut self, nrep: u32) -> Result<(), RecordsError> {
        self.write_item(&Item::BlockEnd(BlockEnd { nrep }))
    }

    /// Writes the footer and closes the file. Errors: [`RecordsError::Write`].
    pub fn finish(mut self, footer: &Footer) -> Result<(), RecordsError> {
        self.write_item(&Item::Footer(Box::new(footer.clone())))
    }

    fn write_item(&mut self, item: &Item) -> Result<(), RecordsError> {
        let mut payload = Vec::new();
        ciborium::into_writer(item, &mut payload)
            .map_err(|e| RecordsError::Write(super::cbor::ser_error(&e)))?;
        let kind = match item {
            Item::Header(_) => FrameKind::Header,
            Item::Block(_) => FrameKind::Block,
            Item::Footer(_) => FrameKind::Footer,
            Item::Chunk(_) => FrameKind::Chunk,
            Item::BlockEnd(_) => FrameKind::BlockEnd,
        };
        self.out
            .write_all(&encode(kind, &payload))
            .and_then(|_| self.out.flush())
            .and_then(|_| self.out.get_ref().sync_data())
            .map_err(|e| RecordsError::Write(e.to_string()))
    }
}
