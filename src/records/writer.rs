//! Writing a records file as the run goes, so a crash loses at most the block in flight, or,
//! for a block written in chunks, the chunk in flight. Every item is one checksummed frame
//! ([`super::frame`]).

use super::{Block, BlockEnd, Footer, Header, RecordsError};
use crate::frame::{write_frame, FrameKind};
use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The borrowed twin of [`super::Item`], for writing: the same CBOR (same tag and field names,
/// checked by a test) without cloning a block that can hold hundreds of megabytes at large P.
#[derive(Serialize)]
#[serde(tag = "item", rename_all = "lowercase")]
enum ItemRef<'a> {
    Header(&'a Header),
    Block(&'a Block),
    Footer(&'a Footer),
    Chunk(ChunkRef<'a>),
    #[serde(rename = "block_end")]
    BlockEnd(BlockEnd),
}

/// The borrowed twin of [`super::Chunk`].
#[derive(Serialize)]
struct ChunkRef<'a> {
    first_rep: u32,
    part: &'a Block,
}

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
        Ok(RecordsWriter {
            out: create_new(path)?,
            path: path.to_path_buf(),
        })
    }

    /// Whether [`RecordsWriter::create`] of `path` would succeed, found by doing it and
    /// undoing it: the missing parent folders are made and the file created empty, then both
    /// are removed again, so a dry run refuses what the run would and leaves nothing behind.
    /// (Permission bits alone do not tell: root may write anywhere but `/proc`.)
    ///
    /// Errors: [`RecordsError::Exists`], [`RecordsError::Create`], as `create` gives them.
    pub fn check_new(path: &Path) -> Result<(), RecordsError> {
        if path.exists() {
            return Err(RecordsError::Exists(path.display().to_string()));
        }
        // The folders create_new would make, deepest first: the order to remove them in.
        let missing: Vec<&Path> = path
            .ancestors()
            .skip(1)
            .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
            .collect();
        let created = create_new(path).map(drop);
        if created.is_ok() {
            let _ = std::fs::remove_file(path);
        }
        for dir in missing {
            let _ = std::fs::remove_dir(dir);
        }
        created
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the header. Errors: [`RecordsError::Write`].
    pub fn write_header(&mut self, header: &Header) -> Result<(), RecordsError> {
        self.write_item(&ItemRef::Header(header))
    }

    /// Writes one measured configuration. Errors: [`RecordsError::Write`].
    pub fn write_block(&mut self, block: &Block) -> Result<(), RecordsError> {
        self.write_item(&ItemRef::Block(block))
    }

    /// Writes repetitions `first_rep .. first_rep + part.nrep` of the block in flight as one
    /// chunk: `part` has the block's configuration and `[part.nrep][nprocs]` arrays (see
    /// [`super::split_block`]). Chunks of a block follow each other in repetition order from
    /// 0; [`RecordsWriter::finish_block`] closes them. Errors: [`RecordsError::Write`].
    pub fn write_chunk(&mut self, first_rep: u32, part: &Block) -> Result<(), RecordsError> {
        self.write_item(&ItemRef::Chunk(ChunkRef { first_rep, part }))
    }

    /// Closes a block written in chunks; `nrep` is the sum of its chunks' repetitions, which
    /// the reader checks. Errors: [`RecordsError::Write`].
    pub fn finish_block(&mut self, nrep: u32) -> Result<(), RecordsError> {
        self.write_item(&ItemRef::BlockEnd(BlockEnd { nrep }))
    }

    /// Writes the footer and closes the file. Errors: [`RecordsError::Write`].
    pub fn finish(mut self, footer: &Footer) -> Result<(), RecordsError> {
        self.write_item(&ItemRef::Footer(footer))
    }

    fn write_item(&mut self, item: &ItemRef) -> Result<(), RecordsError> {
        let mut payload = Vec::new();
        ciborium::into_writer(item, &mut payload)
            .map_err(|e| RecordsError::Write(crate::frame::cbor::ser_error(&e)))?;
        let kind = match item {
            ItemRef::Header(_) => FrameKind::Header,
            ItemRef::Block(_) => FrameKind::Block,
            ItemRef::Footer(_) => FrameKind::Footer,
            ItemRef::Chunk(_) => FrameKind::Chunk,
            ItemRef::BlockEnd(_) => FrameKind::BlockEnd,
        };
        write_frame(&mut self.out, kind, &payload)
            .and_then(|_| self.out.flush())
            .and_then(|_| self.out.get_ref().sync_data())
            .map_err(|e| RecordsError::Write(e.to_string()))
    }
}

/// Creates `path` for writing, and its parent directories, refusing to overwrite: a records
/// or noise file is the only copy of a measurement. Errors: [`RecordsError::Exists`],
/// [`RecordsError::Create`].
pub(super) fn create_new(path: &Path) -> Result<BufWriter<File>, RecordsError> {
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
    Ok(BufWriter::new(file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::{testdata, Chunk, Item};

    fn cbor<T: Serialize>(value: &T) -> Vec<u8> {
        let mut out = Vec::new();
        ciborium::into_writer(value, &mut out).unwrap();
        out
    }

    #[test]
    fn borrowed_items_encode_exactly_as_the_items_readers_decode() {
        let header = testdata::header(3);
        let block = testdata::block(Op::Allreduce, 8, 3, 50e-6, 4, 1e-5);
        let footer = Footer {
            end_offsets_s: vec![0.0; 3],
            offset_change_s: vec![0.0; 3],
            max_abs_offset_change_s: 0.0,
            wall_time_s: 1.0,
            warnings: vec!["w".into()],
        };
        let pairs = [
            (
                cbor(&ItemRef::Header(&header)),
                cbor(&Item::Header(Box::new(header.clone()))),
            ),
            (
                cbor(&ItemRef::Block(&block)),
                cbor(&Item::Block(Box::new(block.clone()))),
            ),
            (
                cbor(&ItemRef::Chunk(ChunkRef {
                    first_rep: 2,
                    part: &block,
                })),
                cbor(&Item::Chunk(Box::new(Chunk {
                    first_rep: 2,
                    part: block.clone(),
                }))),
            ),
            (
                cbor(&ItemRef::BlockEnd(BlockEnd { nrep: 4 })),
                cbor(&Item::BlockEnd(BlockEnd { nrep: 4 })),
            ),
            (
                cbor(&ItemRef::Footer(&footer)),
                cbor(&Item::Footer(Box::new(footer.clone()))),
            ),
        ];
        for (i, (borrowed, owned)) in pairs.iter().enumerate() {
            assert_eq!(borrowed, owned, "item {i}");
        }
    }
}
