//! A records file read block by block with its global times on the chosen clock (issue 11):
//! what `export`, `plot` and `analyze` iterate instead of holding the whole file.

use super::posthoc::{correct_block, correction_from, offset_tracks_from, OffsetTrack};
use super::{ClockChoice, ClockCorrection};
use crate::records::{Block, ClockProbe, RecordsError, RecordsStream};
use std::path::Path;

/// An open records file whose blocks come out with their global start and end times on
/// the chosen clock (post-hoc correction applied per block). Iterating yields what
/// [`RecordsStream`] yields; [`ClockedStream::stream`] then says how the run ended.
pub struct ClockedStream {
    stream: RecordsStream,
    tracks: Option<Vec<OffsetTrack>>,
    correction: ClockCorrection,
}

impl ClockedStream {
    /// Opens `path`. Post-hoc correction (Becker et al. 2008, see [`super::apply_clock_choice`])
    /// needs every drift-tracking probe before the first block is corrected, so a run with
    /// probes (`--track-every`) is read twice: a first pass keeps only the probes (a few
    /// dozen bytes each), the second yields the blocks. Memory: one block at a time.
    ///
    /// Errors: those of [`RecordsStream::open`] and, for the first pass, of its iteration
    /// ([`RecordsError::Corrupt`] for a damaged file, before any block is yielded).
    pub fn open(path: &Path, choice: ClockChoice) -> Result<Self, RecordsError> {
        let stream = RecordsStream::open(path)?;
        let probes: Vec<ClockProbe> =
            if choice == ClockChoice::Posthoc && stream.header().plan.track_every_s.is_some() {
                let mut probes = Vec::new();
                for block in RecordsStream::open(path)? {
                    probes.extend(block?.clock_probes);
                }
                probes
            } else {
                Vec::new()
            };
        let tracks = offset_tracks_from(stream.header(), &probes);
        let correction = correction_from(tracks.as_ref().map(|_| &probes[..]));
        Ok(ClockedStream {
            stream,
            tracks,
            correction,
        })
    }

    /// How the global times were obtained.
    pub fn correction(&self) -> &ClockCorrection {
        &self.correction
    }

    /// The underlying stream: its header at once, its footer and truncation after the end.
    pub fn stream(&self) -> &RecordsStream {
        &self.stream
    }

    /// The underlying stream, for [`RecordsStream::into_parts`] after the end.
    pub fn into_stream(self) -> RecordsStream {
        self.stream
    }
}

impl Iterator for ClockedStream {
    type Item = Result<Block, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut block = match self.stream.next()? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        if let Some(tracks) = &self.tracks {
            correct_block(&mut block, tracks);
        }
        Some(Ok(block))
    }
}
