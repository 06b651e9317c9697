//! Reading a records file one block at a time: the header when opened, then one
//! [`Block`] per step with the chunks of a chunked block joined, so `analyze` and `export`
//! hold one block, never the whole file. Every frame's checksum is verified before its
//! payload is decoded ([`super::frame`]).

use super::chunk::append_chunk;
use super::{
    Block, Footer, Header, Item, RecordsError, FORMAT_NAME, FORMAT_VERSION, MIN_FORMAT_VERSION,
};
use crate::clock::ClockProbe;
use crate::frame::{count_later_frames, read_frame, Frame, FrameKind, MAGIC};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// An open records file. Iterating yields the blocks in measurement order (chunked blocks
/// joined); after the last one, [`RecordsStream::footer`], [`RecordsStream::truncated`] and
/// [`RecordsStream::partial_block`] say how the run ended. An error ends the iteration.
pub struct RecordsStream {
    input: BufReader<File>,
    frames: FramePos,
    header: Header,
    footer: Option<Footer>,
    truncated: bool,
    partial_block: bool,
    done: bool,
    /// The chunks so far of a block written in chunks.
    pending: Option<Block>,
}

impl RecordsStream {
    /// Opens `path` and reads its header.
    ///
    /// Errors: [`RecordsError::Open`], [`RecordsError::Read`]; [`RecordsError::NotRecords`]
    /// when the file is not a delaybench records file; [`RecordsError::Version`] for another
    /// format version; [`RecordsError::Corrupt`] when the header's frame is damaged.
    pub fn open(path: &Path) -> Result<Self, RecordsError> {
        let shown = path.display().to_string();
        let open_err = |source| RecordsError::Open {
            path: shown.clone(),
            source,
        };
        let file = File::open(path).map_err(open_err)?;
        let size = file.metadata().map_err(open_err)?.len();
        // Large reads: a block of 10^6 events is ~50 MB, read in few system calls.
        let mut input = BufReader::with_capacity(1 << 20, file);
        let mut frames = FramePos {
            path: shown,
            size,
            pos: 0,
            blocks: 0,
            in_chunks: false,
        };
        frames.check_magic(&mut input)?;
        let header = match frames.next(&mut input)? {
            Some(Item::Header(h)) => *h,
            Some(_) => return Err(frames.not_records("the first item is not a header")),
            None => return Err(frames.not_records("the file holds no complete header")),
        };
        frames.check_header(&header)?;
        Ok(RecordsStream {
            input,
            frames,
            header,
            footer: None,
            truncated: false,
            partial_block: false,
            done: false,
            pending: None,
        })
    }

    /// The run's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The footer, once iterated to the end; `None` for an interrupted run.
    pub fn footer(&self) -> Option<&Footer> {
        self.footer.as_ref()
    }

    /// True once the iteration found the file ending inside an item (it was lost).
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// True when the last block yielded is the recovered part (its complete chunks) of a
    /// chunked block that an interrupted run was writing.
    pub fn partial_block(&self) -> bool {
        self.partial_block
    }

    /// Every drift-tracking probe of the file at `path`, in measurement order: the first pass
    /// of a post-hoc correction. Only the probes of each block are decoded, not its per-rank
    /// arrays; every frame's checksum is still verified.
    ///
    /// Errors: those of [`RecordsStream::open`] and of reading a damaged file.
    pub fn probes(path: &Path) -> Result<Vec<ClockProbe>, RecordsError> {
        let mut s = RecordsStream::open(path)?;
        let mut probes = Vec::new();
        while let Some((kind, payload, len)) = s.frames.next_frame(&mut s.input)? {
            // Counted as the full reader counts, so that damage is reported at the same block.
            s.frames.in_chunks = kind == FrameKind::Chunk;
            match kind {
                FrameKind::Block => {
                    s.frames.blocks += 1;
                    let b: ProbesOf = s.frames.decode(&payload)?;
                    probes.extend(b.clock_probes);
                }
                FrameKind::Chunk => {
                    let c: ChunkProbes = s.frames.decode(&payload)?;
                    if c.first_rep == 0 {
                        s.frames.blocks += 1;
                    }
                    probes.extend(c.part.clock_probes);
                }
                FrameKind::Footer => break,
                _ => {}
            }
            s.frames.pos += len;
        }
        Ok(probes)
    }

    /// Header, footer and whether the file was truncated, once iterated to the end.
    pub fn into_parts(self) -> (Header, Option<Footer>, bool) {
        (self.header, self.footer, self.truncated)
    }

    fn next_block(&mut self) -> Result<Option<Block>, RecordsError> {
        loop {
            let Some(item) = self.frames.next(&mut self.input)? else {
                return Ok(self.finish_interrupted());
            };
            match item {
                Item::Block(b) => {
                    self.no_pending()?;
                    return self.checked(*b).map(Some);
                }
                Item::Chunk(c) => {
                    let c = *c;
                    match self.pending.as_mut() {
                        None if c.first_rep == 0 => self.pending = Some(c.part),
                        None => {
                            return Err(self.frames.not_records(&format!(
                                "a chunk from repetition {} without the chunks before it",
                                c.first_rep
                            )))
                        }
                        Some(block) => {
                            append_chunk(block, c.first_rep, c.part)
                                .map_err(|why| self.frames.not_records(&why))?;
                        }
                    }
                }
                Item::BlockEnd(end) => {
                    let Some(block) = self.pending.take() else {
                        return Err(self.frames.not_records("a block end without chunks"));
                    };
                    if block.nrep != end.nrep {
                        return Err(self.frames.not_records(&format!(
                            "a block end says {} repetitions, its chunks hold {}",
                            end.nrep, block.nrep
                        )));
                    }
                    return self.checked(block).map(Some);
                }
                Item::Footer(f) => {
                    self.no_pending()?;
                    self.footer = Some(*f);
                    self.done = true;
                    return Ok(None);
                }
                Item::Header(_) => return Err(self.frames.not_records("a second header")),
            }
        }
    }

    /// At the end of the file without a footer: the complete chunks of the block in flight,
    /// if any, are the last (partial) block.
    fn finish_interrupted(&mut self) -> Option<Block> {
        self.done = true;
        self.truncated = self.frames.pos < self.frames.size;
        let block = self.pending.take().filter(|b| b.nrep > 0 && b.shape_ok())?;
        self.partial_block = true;
        Some(block)
    }

    fn no_pending(&self) -> Result<(), RecordsError> {
        match self.pending {
            Some(_) => Err(self
                .frames
                .not_records("a block's chunks were not closed by a block end")),
            None => Ok(()),
        }
    }

    fn checked(&mut self, block: Block) -> Result<Block, RecordsError> {
        if !block.shape_ok() {
            return Err(self.frames.not_records(&format!(
                "block {} ({} {} B, P = {}) has arrays of the wrong shape",
                self.frames.blocks, block.op, block.bytes, block.nprocs
            )));
        }
        Ok(block)
    }
}

impl Iterator for RecordsStream {
    type Item = Result<Block, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let step = self.next_block();
        if step.is_err() {
            self.done = true;
        }
        step.transpose()
    }
}

/// A block's (or chunk's) probes, decoded without its arrays.
#[derive(serde::Deserialize)]
struct ProbesOf {
    #[serde(default)]
    clock_probes: Vec<ClockProbe>,
}

#[derive(serde::Deserialize)]
struct ChunkProbes {
    first_rep: u32,
    part: ProbesOf,
}

/// Walks the frames of one file, knowing where it is.
struct FramePos {
    path: String,
    size: u64,
    /// Byte offset of the next frame.
    pos: u64,
    /// Blocks (or block starts, for chunked ones) read so far, for messages.
    blocks: usize,
    /// Inside a chunked block (chunks read, its end not yet): damage there belongs to block
    /// `blocks`, not to the next one.
    in_chunks: bool,
}

impl FramePos {
    fn not_records(&self, reason: &str) -> RecordsError {
        RecordsError::NotRecords {
            path: self.path.clone(),
            reason: reason.into(),
        }
    }

    fn read_err(&self, source: std::io::Error) -> RecordsError {
        RecordsError::Read {
            path: self.path.clone(),
            source,
        }
    }

    /// A file of format version 1 (a plain CBOR sequence) gets a version message.
    fn check_magic(&self, input: &mut BufReader<File>) -> Result<(), RecordsError> {
        let mut start = [0u8; 4];
        let n = input.read(&mut start).map_err(|e| self.read_err(e))?;
        input
            .seek(SeekFrom::Start(0))
            .map_err(|e| self.read_err(e))?;
        if n == 4 && start == MAGIC {
            return Ok(());
        }
        match ciborium::from_reader::<Item, _>(input.take(self.size)) {
            Ok(Item::Header(h)) if h.format == FORMAT_NAME => Err(RecordsError::Version {
                path: self.path.clone(),
                found: h.format_version,
                expected: FORMAT_VERSION,
            }),
            _ => Err(self.not_records("it does not start with a records frame")),
        }
    }

    fn check_header(&self, h: &Header) -> Result<(), RecordsError> {
        if h.format != FORMAT_NAME {
            return Err(self.not_records(&format!("format is '{}'", h.format)));
        }
        // Version 2 lacks only the header's optional `p2p`, which its readers leave absent.
        if !(MIN_FORMAT_VERSION..=FORMAT_VERSION).contains(&h.format_version) {
            return Err(RecordsError::Version {
                path: self.path.clone(),
                found: h.format_version,
                expected: FORMAT_VERSION,
            });
        }
        Ok(())
    }

    /// The next item, `None` at the end of the file or at a torn last frame.
    fn next(&mut self, input: &mut BufReader<File>) -> Result<Option<Item>, RecordsError> {
        let Some((kind, payload, len)) = self.next_frame(input)? else {
            return Ok(None);
        };
        if self.pos == 0 && super::noise::is_noise_header(&payload) {
            return Err(self.not_records(
                "it is a noise file written by `delaybench noise`: `export` and `plot` read it",
            ));
        }
        let item: Item = self.decode(&payload)?;
        let consistent = matches!(
            (&item, kind),
            (Item::Header(_), FrameKind::Header)
                | (Item::Block(_), FrameKind::Block)
                | (Item::Footer(_), FrameKind::Footer)
                | (Item::Chunk(_), FrameKind::Chunk)
                | (Item::BlockEnd(_), FrameKind::BlockEnd)
        );
        if !consistent {
            return Err(self.not_records("an item's kind and content disagree"));
        }
        match &item {
            Item::Block(_) => self.blocks += 1,
            Item::Chunk(c) if c.first_rep == 0 => self.blocks += 1,
            _ => {}
        }
        self.in_chunks = matches!(item, Item::Chunk(_));
        self.pos += len;
        Ok(Some(item))
    }

    /// The next checksummed frame (kind, payload, length on disk), `None` at the end of the
    /// file or at a torn last frame; the position is not advanced.
    fn next_frame(
        &mut self,
        input: &mut BufReader<File>,
    ) -> Result<Option<(FrameKind, Vec<u8>, u64)>, RecordsError> {
        let remaining = self.size - self.pos;
        let frame = read_frame(input, remaining).map_err(|e| self.read_err(e))?;
        match frame {
            Frame::End => Ok(None),
            Frame::Ok { kind, payload, len } => Ok(Some((kind, payload, len))),
            Frame::Torn { .. } => self
                .torn_or_corrupt(input, "the file ends inside it")
                .map(|_| None),
            Frame::Bad { reason } => Err(self.corrupt(input, &reason)?),
        }
    }

    fn decode<T: serde::de::DeserializeOwned>(&self, payload: &[u8]) -> Result<T, RecordsError> {
        ciborium::from_reader::<T, _>(payload).map_err(|e| {
            self.not_records(&format!(
                "an item does not decode ({})",
                crate::frame::cbor::de_error(&e)
            ))
        })
    }

    /// A frame cut off by the end of the file is an interrupted run, unless complete frames
    /// follow (then its length was damaged).
    fn torn_or_corrupt(
        &mut self,
        input: &mut BufReader<File>,
        reason: &str,
    ) -> Result<Option<()>, RecordsError> {
        match self.corrupt(input, reason)? {
            RecordsError::Corrupt { later: 0, .. } => Ok(None),
            e => Err(e),
        }
    }

    /// The corruption error for the frame at `pos`, counting the frames after it.
    fn corrupt(
        &self,
        input: &mut BufReader<File>,
        reason: &str,
    ) -> Result<RecordsError, RecordsError> {
        input
            .seek(SeekFrom::Start(self.pos))
            .map_err(|e| self.read_err(e))?;
        let later =
            count_later_frames(input, self.size - self.pos).map_err(|e| self.read_err(e))?;
        let item = if self.pos == 0 {
            "header".to_string()
        } else if self.in_chunks {
            format!("block {} (a chunk or its end)", self.blocks)
        } else {
            format!("block {} or the footer", self.blocks + 1)
        };
        Ok(RecordsError::Corrupt {
            path: self.path.clone(),
            item,
            offset: self.pos,
            reason: reason.into(),
            later,
        })
    }
}
