//! What the files of a capture lack, for `arrivals` to name: the ranks without a file, the
//! files that end without a footer, and whether the MPI_Finalize clock synchronisation was
//! skipped (the interposer skips it on every rank once one rank's capture has stopped, since
//! a synchronisation needs every rank).

use super::reader::RankCapture;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// Ranks named one by one in a note; the rest are counted.
const LISTED: usize = 10;

/// A rank whose file ends without a footer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unfinished {
    /// World rank.
    pub rank: u32,
    /// Its file.
    pub path: PathBuf,
    /// What ended the file early ([`RankCapture::damage`]), None when it ends after a whole
    /// frame.
    pub damage: Option<String>,
}

/// What the files of one capture lack ([`capture_gaps`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CaptureGaps {
    /// World size of the capture (from the headers).
    pub world_size: u32,
    /// World ranks below the world size without a file among those read: the rank's capture
    /// never started (its directory could not be created) or its file was not given.
    pub missing_ranks: Vec<u32>,
    /// Ranks whose file ends without a footer: the rank stopped writing (a write failed) or
    /// was killed before MPI_Finalize. In rank order.
    pub unfinished: Vec<Unfinished>,
    /// Whether a footer says the MPI_Finalize synchronisation was skipped
    /// ([`super::CaptureFooter::finalize_sync_skipped`]).
    pub finalize_sync_skipped: bool,
}

/// The gaps of the files of one capture (as [`super::read_captures`] returns them; files of
/// several captures are [`super::match_calls`]'s error, not a gap).
pub fn capture_gaps(captures: &[RankCapture]) -> CaptureGaps {
    let world_size = captures
        .iter()
        .map(|c| c.header.world_size)
        .max()
        .unwrap_or(0);
    let present: BTreeSet<u32> = captures.iter().map(|c| c.header.rank).collect();
    let mut unfinished: Vec<Unfinished> = captures
        .iter()
        .filter(|c| c.footer.is_none())
        .map(|c| Unfinished {
            rank: c.header.rank,
            path: c.path.clone(),
            damage: c.damage.clone(),
        })
        .collect();
    unfinished.sort_by_key(|u| u.rank);
    CaptureGaps {
        world_size,
        missing_ranks: (0..world_size).filter(|r| !present.contains(r)).collect(),
        unfinished,
        finalize_sync_skipped: captures
            .iter()
            .any(|c| c.footer.as_ref().is_some_and(|f| f.finalize_sync_skipped)),
    }
}

impl CaptureGaps {
    /// Whether nothing is missing.
    pub fn is_empty(&self) -> bool {
        self.missing_ranks.is_empty() && self.unfinished.is_empty() && !self.finalize_sync_skipped
    }

    /// One sentence per gap, for stderr: the missing ranks, each unfinished file (the first
    /// ten, then how many more), the skipped synchronisation. Empty without gaps.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if !self.missing_ranks.is_empty() {
            let n = self.missing_ranks.len();
            notes.push(format!(
                "no capture file of {} {} (of {}): its capture never started (the directory \
                 could not be created: see the application's stderr) or the file was not \
                 given; the calls of its communicators are left out",
                if n == 1 { "rank" } else { "ranks" },
                listed(&self.missing_ranks),
                self.world_size
            ));
        }
        for u in self.unfinished.iter().take(LISTED) {
            let why = u
                .damage
                .as_ref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default();
            notes.push(format!(
                "rank {}'s file {} is incomplete: it ends without a footer{why}; the rank \
                 stopped writing (a write failed: see the application's stderr) or was killed \
                 before MPI_Finalize, and its calls are read up to there",
                u.rank,
                u.path.display()
            ));
        }
        if self.unfinished.len() > LISTED {
            notes.push(format!(
                "and {} more ranks' files end without a footer",
                self.unfinished.len() - LISTED
            ));
        }
        if self.finalize_sync_skipped {
            notes.push(
                "the MPI_Finalize clock synchronisation was skipped on every rank (a rank's \
                 capture had stopped): all times use the MPI_Init clock offsets only, so clock \
                 drift during the run is not corrected"
                    .into(),
            );
        }
        notes
    }
}

/// `2, 3, 5`: the first [`LISTED`] ranks, then how many more.
fn listed(ranks: &[u32]) -> String {
    let mut s = ranks
        .iter()
        .take(LISTED)
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if ranks.len() > LISTED {
        s.push_str(&format!(" and {} more", ranks.len() - LISTED));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::testdata::rank;
    use crate::capture::CaptureOp::Barrier;

    #[test]
    fn a_complete_capture_has_no_gaps() {
        let caps = vec![rank(0, 2, 0.0, &[]), rank(1, 2, 0.0, &[])];
        let g = capture_gaps(&caps);
        assert!(g.is_empty(), "{g:?}");
        assert!(g.notes().is_empty());
    }

    #[test]
    fn the_missing_and_unfinished_ranks_and_the_skipped_sync_are_named() {
        // World of 4: rank 2's directory failed (no file), rank 1's write failed midway (no
        // footer, a torn frame), the others' footers say the finalize sync was skipped.
        let mut r0 = rank(0, 4, 0.0, &[(Barrier, -1, 1.0, 2.0)]);
        let mut r1 = rank(1, 4, 0.0, &[(Barrier, -1, 1.0, 2.0)]);
        let mut r3 = rank(3, 4, 0.0, &[(Barrier, -1, 1.0, 2.0)]);
        r1.footer = None;
        r1.damage = Some("the last 7 bytes are a torn frame".into());
        for c in [&mut r0, &mut r3] {
            c.footer.as_mut().unwrap().finalize_sync_skipped = true;
        }
        let g = capture_gaps(&[r3, r1, r0]);
        assert_eq!(g.world_size, 4);
        assert_eq!(g.missing_ranks, vec![2]);
        assert_eq!(g.unfinished.len(), 1);
        assert_eq!(g.unfinished[0].rank, 1);
        assert!(g.finalize_sync_skipped);
        let notes = g.notes();
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].starts_with("no capture file of rank 2 (of 4)"));
        assert!(notes[1].starts_with("rank 1's file rank1.cbor is incomplete"));
        assert!(notes[1].contains("torn frame"));
        assert!(notes[2].contains("synchronisation was skipped"));
    }

    #[test]
    fn long_lists_are_cut() {
        let mut caps: Vec<_> = (0..30).map(|r| rank(r, 40, 0.0, &[])).collect();
        caps.iter_mut().for_each(|c| c.footer = None);
        let notes = capture_gaps(&caps).notes();
        assert!(notes[0].contains("ranks 30, 31, 32, 33, 34, 35, 36, 37, 38, 39 (of 40)"));
        assert_eq!(notes.len(), 1 + LISTED + 1);
        assert_eq!(
            notes[LISTED + 1],
            "and 20 more ranks' files end without a footer"
        );
    }
}
