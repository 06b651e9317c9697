//! Reading a records file: checksummed frames ([`super::frame`]), every complete block of an
//! interrupted run recovered, damage reported with its item and byte offset.

use super::frame::{count_later_frames, read_frame, Frame, FrameKind, MAGIC};
use super::{Block, Footer, Header, Item, RecordsError, FORMAT_NAME, FORMAT_VERSION};
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// The content of a records file.
#[derive(Debug, Clone, PartialEq)]
pub struct Records {
    pub header: Header,
    /// Complete blocks in the order they were measured.
    pub blocks: Vec<Block>,
    /// `None` when the run was interrupted (no footer).
    pub footer: Option<Footer>,
    /// True when the file ended inside an item (the block in flight was lost).
    pub truncated: bool,
}

impl Records {
    /// True when the run completed and nothing was lost.
    pub fn complete(&self) -> bool {
        self.footer.is_some() && !self.truncated
    }
}

/// Reads `path`. An interrupted run (no footer, or a torn last frame) is recovered: every
/// complete block is returned and [`Records::complete`] is false.
///
/// Errors: [`RecordsError::Open`], [`RecordsError::Read`]; [`RecordsError::NotRecords`] when
/// the file is not a delaybench records file or an item does not decode; [`RecordsError::Version`]
/// for another format version; [`RecordsError::Corrupt`] when a frame is damaged (a checksum
/// mismatch, or a broken frame followed by more frames).
pub fn read_records(path: &Path) -> Result<Records, RecordsError> {
    let shown = path.display().to_string();
    let file = File::open(path).map_err(|source| RecordsError::Open {
        path: shown.clone(),
        source,
    })?;
    let size = file
        .metadata()
        .map_err(|source| RecordsError::Open {
            path: shown.clone(),
            source,
        })?
        .len();
    let mut input = BufReader::new(file);
    let mut reader = FrameReader {
        path: shown,
        size,
        pos: 0,
        blocks: 0,
    };
    reader.check_magic(&mut input)?;
    let header = match reader.next(&mut input)? {
        Some((Item::Header(h), _)) => *h,
        Some(_) => return Err(reader.not_records("the first item is not a header")),
        None => return Err(reader.not_records("the file holds no complete header")),
    };
    reader.check_header(&header)?;
    let mut records = Records {
        header,
        blocks: Vec::new(),
        footer: None,
        truncated: false,
    };
    loop {
        match reader.next(&mut input)? {
            None => {
                records.truncated = reader.pos < reader.size;
                break;
            }
            Some((Item::Block(b), _)) if b.shape_ok() => records.blocks.push(*b),
            Some((Item::Block(b), _)) => {
                return Err(reader.not_records(&format!(
                    "block {} ({} {} B, P = {}) has arrays of the wrong shape",
                    reader.blocks, b.op, b.bytes, b.nprocs
                )))
            }
            Some((Item::Footer(f), _)) => {
                records.footer = Some(*f);
                break;
            }
            Some((Item::Header(_), _)) => return Err(reader.not_records("a second header")),
        }
    }
    Ok(records)
}

/// Walks the frames of one file, knowing where it is.
struct FrameReader {
    path: String,
    size: u64,
    /// Byte offset of the next frame.
    pos: u64,
    /// Blocks read so far.
    blocks: usize,
}

impl FrameReader {
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
        if h.format_version != FORMAT_VERSION {
            return Err(RecordsError::Version {
                path: self.path.clone(),
                found: h.format_version,
                expected: FORMAT_VERSION,
            });
        }
        Ok(())
    }

    /// The next item, `None` at the end of the file or at a torn last frame.
    fn next(
        &mut self,
        input: &mut BufReader<File>,
    ) -> Result<Option<(Item, FrameKind)>, RecordsError> {
        let remaining = self.size - self.pos;
        let frame = read_frame(input, remaining).map_err(|e| self.read_err(e))?;
        let (kind, payload, len) = match frame {
            Frame::End => return Ok(None),
            Frame::Ok { kind, payload, len } => (kind, payload, len),
            Frame::Torn { .. } => return self.torn_or_corrupt(input, "the file ends inside it"),
            Frame::Bad { reason } => return Err(self.corrupt(input, &reason)?),
        };
        let item = ciborium::from_reader::<Item, _>(&payload[..])
            .map_err(|e| self.not_records(&format!("an item does not decode ({e})")))?;
        let consistent = matches!(
            (&item, kind),
            (Item::Header(_), FrameKind::Header)
                | (Item::Block(_), FrameKind::Block)
                | (Item::Footer(_), FrameKind::Footer)
        );
        if !consistent {
            return Err(self.not_records("an item's kind and content disagree"));
        }
        if kind == FrameKind::Block {
            self.blocks += 1;
        }
        self.pos += len;
        Ok(Some((item, kind)))
    }

    /// A frame cut off by the end of the file is an interrupted run, unless complete frames
    /// follow (then its length was damaged).
    fn torn_or_corrupt(
        &mut self,
        input: &mut BufReader<File>,
        reason: &str,
    ) -> Result<Option<(Item, FrameKind)>, RecordsError> {
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
