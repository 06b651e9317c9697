//! One global timeline for every reader of a records file.
//!
//! A records file holds, per rank and repetition, local clock readings and the global times
//! the run's online clock models gave them. A run with drift-tracking probes supports better
//! global times after the fact (post-hoc correction, [`crate::clock::offset_tracks`]). The
//! [`Timeline`] is the only way the end-of-run summary, `analyze`, `export`, `plot` and
//! `compare` read blocks: each block comes out with its global start and end times on the
//! chosen clock ([`GlobalTimes`]) and its validity decided on those same times
//! ([`validity`]), and every command says which times it used.
//!
//! Layers: records (plain storage) and clock (models, post-hoc tracks) below, the analysis,
//! export and plot above. No MPI.

pub mod pairing;
pub mod validity;

pub use pairing::{baseline_among, BaselineKey, Baselines, Configuration};
pub use validity::VerdictChanges;

use crate::clock::shared::SharedVerdict;
use crate::clock::{offset_tracks, ClockProbe, OffsetTrack};
use crate::records::{Block, Footer, Header, RecordsError, RecordsStream};
use std::path::Path;

/// Which global times a reader asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum GlobalTimes {
    /// Recomputed after the run by interpolating each rank's offset between its probes
    /// (Becker et al. 2008); the online times when the run has no probes.
    #[default]
    Posthoc,
    /// As recorded during the run by the online clock models.
    Online,
}

/// Which global times a timeline gives, and what stands behind them, for reports.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockCorrection {
    /// Probes the post-hoc tracks interpolate between (0: the online times are kept).
    pub probes: usize,
    /// Ranks with probes of their own.
    pub ranks: usize,
    /// Median over the probes of RTT/2, seconds: the bound on each probe's offset error.
    pub median_half_rtt_s: f64,
    /// Whether the run had probes but the reader asked for the online times.
    pub online_by_choice: bool,
}

impl ClockCorrection {
    /// The times as recorded, for records already in memory.
    pub fn recorded() -> Self {
        Self::online(false)
    }

    /// The online times, `by_choice` when the run had probes.
    fn online(by_choice: bool) -> Self {
        ClockCorrection {
            probes: 0,
            ranks: 0,
            median_half_rtt_s: f64::NAN,
            online_by_choice: by_choice,
        }
    }

    /// Whether the times are the post-hoc ones.
    pub fn is_posthoc(&self) -> bool {
        self.probes > 0
    }

    /// `posthoc` or `online`: the name of the times used, for files and columns.
    pub fn name(&self) -> &'static str {
        if self.is_posthoc() {
            "posthoc"
        } else {
            "online"
        }
    }

    /// One line for reports.
    pub fn describe(&self) -> String {
        if self.online_by_choice {
            return "global times: online models, as asked (--global-times online); the run \
                    has drift-tracking probes for post-hoc times"
                .into();
        }
        if !self.is_posthoc() {
            return "global times: online models (the run has no drift-tracking probes)".into();
        }
        format!(
            "global times: post-hoc, piecewise-linear between {} drift-tracking probes of {} \
             rank(s); each probe's offset is within RTT/2, median {:.3} us; validity decided \
             on these times",
            self.probes,
            self.ranks,
            self.median_half_rtt_s * 1e6
        )
    }

    fn from_probes(probes: &[ClockProbe]) -> Self {
        let mut half_rtts: Vec<f64> = probes
            .iter()
            .map(|p| p.rtt_s / 2.0)
            .filter(|v| v.is_finite())
            .collect();
        half_rtts.sort_by(f64::total_cmp);
        let mut ranks: Vec<u32> = probes.iter().map(|p| p.world_rank).collect();
        ranks.sort_unstable();
        ranks.dedup();
        ClockCorrection {
            probes: half_rtts.len(),
            ranks: ranks.len(),
            median_half_rtt_s: half_rtts
                .get(half_rtts.len() / 2)
                .copied()
                .unwrap_or(f64::NAN),
            online_by_choice: false,
        }
    }
}

/// How a run read through a [`Timeline`] ended, once every block was read.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineEnd {
    pub header: Header,
    /// `None` for an interrupted run.
    pub footer: Option<Footer>,
    /// True when the run completed and nothing was lost.
    pub complete: bool,
    /// True when the last block is the complete chunks of a block in flight.
    pub partial_block: bool,
    /// True when the file ended inside an item (the block or chunk in flight was lost).
    pub truncated: bool,
    /// Blocks read.
    pub blocks: usize,
    /// Which global times were used.
    pub correction: ClockCorrection,
    /// Repetitions whose verdict the chosen times changed against the recorded one.
    pub verdicts: VerdictChanges,
}

/// A records file read block by block on one global clock. Iterating yields each block with
/// its global times and flags on that clock (the recorded flags in [`Block::flags_online`]
/// when a verdict changed); [`Timeline::end`] then says how the run ended.
///
/// Memory: one block at a time, plus the run's probes (a few dozen bytes each).
pub struct Timeline {
    stream: RecordsStream,
    tracks: Option<Vec<OffsetTrack>>,
    correction: ClockCorrection,
    verdicts: VerdictChanges,
    blocks: usize,
}

impl Timeline {
    /// Opens `path` on the global times `choice` asks for. Post-hoc correction needs every
    /// probe before the first block is corrected, so a run with probes read post-hoc is read
    /// twice: a first pass keeps only the probes, the second yields the blocks.
    ///
    /// Errors: those of [`RecordsStream::open`] and, for the first pass, of its iteration
    /// ([`RecordsError::Corrupt`] for a damaged file, before any block is yielded).
    pub fn open(path: &Path, choice: GlobalTimes) -> Result<Self, RecordsError> {
        let stream = RecordsStream::open(path)?;
        let has_probes = stream.header().plan.track_every_s.is_some();
        let probes = if has_probes && choice == GlobalTimes::Posthoc {
            RecordsStream::probes(path)?
        } else {
            Vec::new()
        };
        let tracks = tracks_of(stream.header(), &probes);
        let correction = match &tracks {
            Some(_) => ClockCorrection::from_probes(&probes),
            None => ClockCorrection::online(has_probes && choice == GlobalTimes::Online),
        };
        Ok(Timeline {
            stream,
            tracks,
            correction,
            verdicts: VerdictChanges::default(),
            blocks: 0,
        })
    }

    /// The run's header.
    pub fn header(&self) -> &Header {
        self.stream.header()
    }

    /// Which global times the blocks come with.
    pub fn correction(&self) -> &ClockCorrection {
        &self.correction
    }

    /// How the run ended; meaningful once iterated to the end.
    pub fn end(self) -> TimelineEnd {
        let partial_block = self.stream.partial_block();
        let (header, footer, truncated) = self.stream.into_parts();
        TimelineEnd {
            complete: footer.is_some() && !truncated,
            header,
            footer,
            partial_block,
            truncated,
            blocks: self.blocks,
            correction: self.correction,
            verdicts: self.verdicts,
        }
    }
}

impl Iterator for Timeline {
    type Item = Result<Block, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut block = match self.stream.next()? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        if let Some(tracks) = &self.tracks {
            correct_block(&mut block, tracks);
            self.verdicts.add(validity::redecide(&mut block));
        }
        self.blocks += 1;
        Some(Ok(block))
    }
}

/// The post-hoc tracks of a run from its header and probes (`None` without probes).
fn tracks_of(h: &Header, probes: &[ClockProbe]) -> Option<Vec<OffsetTrack>> {
    if probes.is_empty() {
        return None;
    }
    let leaders: Vec<Option<usize>> = h
        .clock_sync
        .shared
        .iter()
        .map(|c| (c.verdict == SharedVerdict::Shared).then_some(c.leader as usize))
        .collect();
    offset_tracks(
        &h.clock_sync.models,
        &leaders,
        h.world_size as usize,
        probes,
    )
}

/// Rewrites `b`'s global start and end times from its local times with the post-hoc tracks.
fn correct_block(b: &mut Block, tracks: &[OffsetTrack]) {
    let p = b.nprocs as usize;
    let per_rank: Vec<Option<&OffsetTrack>> = (0..p)
        .map(|r| tracks.get(b.world_ranks.get(r).map_or(r, |&w| w as usize)))
        .collect();
    for i in 0..b.t_start_local_s.0.len() {
        if let Some(track) = per_rank[i % p] {
            b.t_start_global_s.0[i] = track.to_global(b.t_start_local_s.0[i]);
            b.t_end_global_s.0[i] = track.to_global(b.t_end_local_s.0[i]);
        }
    }
}
