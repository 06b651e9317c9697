//! Checksummed frames: the byte layout of records files from format version 2 on, and of
//! the noise and capture files. Below every component that writes or reads those files
//! (records, noise files, the capture), so that each of them imports it downwards.
//!
//! Every item (header, block, footer) is one frame:
//!
//! | bytes | content |
//! |---|---|
//! | 4 | magic `DBR2` |
//! | 1 | kind: 1 header, 2 block, 3 footer, 4 chunk, 5 block end |
//! | 8 | payload length n, big-endian u64 |
//! | n | payload: the item as CBOR |
//! | 4 | CRC-32C (Castagnoli) of kind, length and payload, big-endian u32 |
//!
//! A damaged byte anywhere fails the checksum of its frame and is reported with the frame,
//! never read as data; a frame cut short by the end of the file is an interrupted run. The
//! length is checked against the bytes left in the file before anything is allocated.

pub mod cbor;

use std::io::{self, Read, Write};

/// First bytes of every frame.
pub const MAGIC: [u8; 4] = *b"DBR2";
/// Magic, kind and length.
pub const HEAD_LEN: usize = 13;
/// The CRC-32C after the payload.
pub const CRC_LEN: usize = 4;

/// Kind byte of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    Header = 1,
    Block = 2,
    Footer = 3,
    /// A repetition range of a block written in chunks ([`super::Chunk`]).
    Chunk = 4,
    /// Closes a block written in chunks ([`super::BlockEnd`]).
    BlockEnd = 5,
}

impl FrameKind {
    fn from_byte(b: u8) -> Option<FrameKind> {
        match b {
            1 => Some(FrameKind::Header),
            2 => Some(FrameKind::Block),
            3 => Some(FrameKind::Footer),
            4 => Some(FrameKind::Chunk),
            5 => Some(FrameKind::BlockEnd),
            _ => None,
        }
    }
}

/// The frame of `payload` (see the module documentation).
pub fn encode(kind: FrameKind, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEAD_LEN + payload.len() + CRC_LEN);
    write_frame(&mut out, kind, payload).expect("writing to a Vec cannot fail");
    out
}

/// Writes the frame of `payload` to `out` piece by piece, without the framed copy that
/// [`encode`] makes: a block's payload can be hundreds of megabytes at large P. Errors: those
/// of `out`.
pub fn write_frame(out: &mut impl Write, kind: FrameKind, payload: &[u8]) -> std::io::Result<()> {
    let mut head = [0u8; HEAD_LEN];
    head[..MAGIC.len()].copy_from_slice(&MAGIC);
    head[MAGIC.len()] = kind as u8;
    head[MAGIC.len() + 1..].copy_from_slice(&(payload.len() as u64).to_be_bytes());
    let crc = crc32c::crc32c_append(crc32c::crc32c(&head[MAGIC.len()..]), payload);
    out.write_all(&head)?;
    out.write_all(payload)?;
    out.write_all(&crc.to_be_bytes())
}

/// What [`read_frame`] found at one position.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A complete frame whose checksum matched; `len` bytes in all.
    Ok {
        kind: FrameKind,
        payload: Vec<u8>,
        len: u64,
    },
    /// The end of the file, exactly at a frame boundary.
    End,
    /// The file ends inside this frame (`n` bytes of it were there).
    Torn { n: u64 },
    /// Not a valid frame: why.
    Bad { reason: String },
}

/// Reads the frame at the current position of `input`, `remaining` bytes before the end of
/// the file. Never allocates more than `remaining` bytes. Errors: I/O errors of `input`.
pub fn read_frame(input: &mut impl Read, remaining: u64) -> io::Result<Frame> {
    if remaining == 0 {
        return Ok(Frame::End);
    }
    if remaining < HEAD_LEN as u64 {
        return Ok(Frame::Torn { n: remaining });
    }
    let mut head = [0u8; HEAD_LEN];
    input.read_exact(&mut head)?;
    if head[..4] != MAGIC {
        return Ok(Frame::Bad {
            reason: "no frame starts here (magic bytes missing)".into(),
        });
    }
    let Some(kind) = FrameKind::from_byte(head[4]) else {
        return Ok(Frame::Bad {
            reason: format!("unknown item kind {}", head[4]),
        });
    };
    let n = u64::from_be_bytes(head[5..13].try_into().expect("8 bytes"));
    let total = n.saturating_add((HEAD_LEN + CRC_LEN) as u64);
    if n > remaining || total > remaining {
        return torn_or_bad_length(input, &head, remaining);
    }
    let mut payload = vec![0u8; n as usize];
    input.read_exact(&mut payload)?;
    let mut crc = [0u8; CRC_LEN];
    input.read_exact(&mut crc)?;
    let expected = checksum(&head, &payload);
    if u32::from_be_bytes(crc) != expected {
        return Ok(Frame::Bad {
            reason: "checksum mismatch (a damaged byte)".into(),
        });
    }
    Ok(Frame::Ok {
        kind,
        payload,
        len: total,
    })
}

/// CRC-32C of a frame's kind, length and payload (`head` without its magic).
fn checksum(head: &[u8; HEAD_LEN], payload: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(&head[MAGIC.len()..]), payload)
}

/// A frame whose declared length runs past the end of the file: torn by an interruption, or
/// a complete last frame whose length field was damaged. The latter is recognised when the
/// bytes left, taken as the payload with the length they imply, match the frame's checksum
/// (a torn frame matches with probability 2^-32). Reads at most `remaining` bytes.
fn torn_or_bad_length(
    input: &mut impl Read,
    head: &[u8; HEAD_LEN],
    remaining: u64,
) -> io::Result<Frame> {
    let torn = Frame::Torn { n: remaining };
    let Some(n) = remaining.checked_sub((HEAD_LEN + CRC_LEN) as u64) else {
        return Ok(torn);
    };
    let mut rest = Vec::new();
    input.take(n + CRC_LEN as u64).read_to_end(&mut rest)?;
    if rest.len() as u64 != n + CRC_LEN as u64 {
        return Ok(torn);
    }
    let (payload, crc) = rest.split_at(n as usize);
    let mut repaired = *head;
    repaired[5..13].copy_from_slice(&n.to_be_bytes());
    let expected = checksum(&repaired, payload);
    if u32::from_be_bytes(crc.try_into().expect("4 bytes")) == expected {
        return Ok(Frame::Bad {
            reason: "its length field is damaged (the frame is complete and its checksum \
                     matches the true length)"
                .into(),
        });
    }
    Ok(torn)
}

/// Counts the complete frames with matching checksums that start after the first byte of
/// `input` (`remaining` bytes long): after a damaged frame, whether the file goes on
/// (corruption) or simply ended (an interrupted run). Reads the rest of the file into memory,
/// on this error path only.
pub fn count_later_frames(input: &mut impl Read, remaining: u64) -> io::Result<usize> {
    let mut data = Vec::new();
    input.take(remaining).read_to_end(&mut data)?;
    let mut count = 0;
    let mut i = 1;
    while i + HEAD_LEN + CRC_LEN <= data.len() {
        if data[i..i + 4] == MAGIC {
            let mut slice = &data[i..];
            if let Ok(Frame::Ok { len, .. }) = read_frame(&mut slice, (data.len() - i) as u64) {
                count += 1;
                i += len as usize;
                continue;
            }
        }
        i += 1;
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_round_trips_and_a_flipped_byte_fails_its_checksum() {
        let frame = encode(FrameKind::Block, b"hello");
        assert_eq!(frame.len(), HEAD_LEN + 5 + CRC_LEN);
        let got = read_frame(&mut &frame[..], frame.len() as u64).unwrap();
        assert_eq!(
            got,
            Frame::Ok {
                kind: FrameKind::Block,
                payload: b"hello".to_vec(),
                len: frame.len() as u64
            }
        );
        for i in 4..frame.len() {
            let mut bad = frame.clone();
            bad[i] ^= 0x10;
            let got = read_frame(&mut &bad[..], bad.len() as u64).unwrap();
            assert!(
                matches!(got, Frame::Bad { .. } | Frame::Torn { .. }),
                "byte {i}: {got:?}"
            );
        }
    }

    #[test]
    fn a_huge_declared_length_is_never_allocated_and_torn_or_damaged_is_told_apart() {
        // A complete frame whose length field says u64::MAX: its checksum matches the true
        // length, so the length field was damaged.
        let mut frame = encode(FrameKind::Block, b"xyz");
        frame[5..13].copy_from_slice(&u64::MAX.to_be_bytes());
        let got = read_frame(&mut &frame[..], frame.len() as u64).unwrap();
        assert!(
            matches!(got, Frame::Bad { ref reason } if reason.contains("length")),
            "{got:?}"
        );
        // A frame cut off by the end of the file (an interrupted write) stays torn.
        let whole = encode(FrameKind::Block, b"a longer payload");
        let cut = &whole[..whole.len() - 3];
        let got = read_frame(&mut &cut[..], cut.len() as u64).unwrap();
        assert_eq!(
            got,
            Frame::Torn {
                n: cut.len() as u64
            }
        );
    }

    #[test]
    fn later_frames_are_counted_after_damage() {
        let mut data = encode(FrameKind::Block, b"one");
        data.extend(encode(FrameKind::Block, b"two"));
        data.extend(encode(FrameKind::Footer, b"end"));
        data[6] ^= 1;
        let later = count_later_frames(&mut &data[..], data.len() as u64).unwrap();
        assert_eq!(later, 2);
    }
}
