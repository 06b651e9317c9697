//! How long the library's first instructions take to run after a rank's last stamp before an
//! MPI call: the one part of the way from release into MPI that delaybench cannot stamp
//! inside a collective without a PMPI layer of its own (docs/accuracy.md measured it with a
//! truth log's PMPI wrapper: on one host it spreads the ranks' true entries by about as much
//! as everything before the stamp at the automatic window). The run times it on a call that
//! enters the library the same way and reads a clock first, `MPI_Wtime`, after a spin like
//! the window's; the end-of-run line adds each rank's spread of those times to its entry
//! stamps ([`crate::analysis::EntrySummary`]).

use serde::{Deserialize, Serialize};
use statrs::statistics::{Data, OrderStatistics};

/// Per rank, the spread of the time from the rank's last counter stamp to `MPI_Wtime`'s
/// clock reading inside the library, measured before the blocks. Per-rank vectors are
/// indexed by world rank; seconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallEntry {
    /// Calls timed per rank.
    pub calls: u32,
    /// `MPI_Wtick`, seconds: a tick coarser than 0.1 µs leaves the figures empty.
    pub wtick_s: f64,
    /// Per rank: the percentiles 0, 1, ..., 100 of the time from stamp to the library's clock
    /// reading, minus its median (the two clocks' offset is not known, only their common
    /// rate, so the time itself is not; its variation is), seconds. Empty for a rank whose
    /// clock was too coarse.
    pub percentiles_s: Vec<Vec<f64>>,
}

/// Percentiles per rank: 0, 1, ..., 100.
pub const CALL_ENTRY_PERCENTILES: usize = 101;

impl CallEntry {
    /// The percentiles 0..=100 of `times_s` (one rank's stamp-to-clock times, seconds, any
    /// offset) minus their median; empty when there are none.
    pub fn centred_percentiles(times_s: Vec<f64>) -> Vec<f64> {
        if times_s.is_empty() {
            return Vec::new();
        }
        let mut data = Data::new(times_s);
        let median = data.median();
        (0..CALL_ENTRY_PERCENTILES)
            .map(|p| data.percentile(p) - median)
            .collect()
    }

    /// One line for `info`: per rank, the p5, p95 and p99 of the time around its median, µs.
    pub fn line(&self) -> String {
        let ranks: Vec<String> = self
            .percentiles_s
            .iter()
            .enumerate()
            .map(|(r, q)| match q.len() {
                CALL_ENTRY_PERCENTILES => format!(
                    "rank {r} {:+.3}/{:+.3}/{:+.3}",
                    q[5] * 1e6,
                    q[95] * 1e6,
                    q[99] * 1e6
                ),
                _ => format!("rank {r} not timed"),
            })
            .collect();
        format!(
            "{} calls per rank on MPI_Wtime (tick {:.0e} s); p5/p95/p99 around the median, \
             us: {}",
            self.calls,
            self.wtick_s,
            ranks.join(", ")
        )
    }

    /// Rank `rank`'s entry time at quantile `u` in [0, 1) (linear between its percentiles),
    /// seconds from its median; `None` when the rank has none.
    pub fn at(&self, rank: usize, u: f64) -> Option<f64> {
        let q = self.percentiles_s.get(rank)?;
        if q.len() != CALL_ENTRY_PERCENTILES {
            return None;
        }
        let x = u.clamp(0.0, 1.0) * (CALL_ENTRY_PERCENTILES - 1) as f64;
        let i = (x.floor() as usize).min(CALL_ENTRY_PERCENTILES - 2);
        let f = x - i as f64;
        Some(q[i] + f * (q[i + 1] - q[i]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_centred_and_the_draw_interpolates_them() {
        // 0, 1, ..., 100 ns plus an offset: the median is 50 ns.
        let times: Vec<f64> = (0..=100).map(|i| 7.0 + i as f64 * 1e-9).collect();
        let q = CallEntry::centred_percentiles(times);
        assert_eq!(q.len(), CALL_ENTRY_PERCENTILES);
        assert!(q[50].abs() < 1e-12 && (q[0] + 50e-9).abs() < 1e-12, "{q:?}");
        assert!((q[100] - 50e-9).abs() < 1e-12, "{q:?}");
        assert!(q.windows(2).all(|w| w[0] <= w[1]), "{q:?}");
        // The draw interpolates between percentiles: here percentile i is (i − 50) ns.
        let linear: Vec<f64> = (0..=100).map(|i| (i as f64 - 50.0) * 1e-9).collect();
        let c = CallEntry {
            calls: 101,
            wtick_s: 1e-9,
            percentiles_s: vec![linear, Vec::new()],
        };
        assert!(c.at(0, 0.5).unwrap().abs() < 1e-12);
        assert!((c.at(0, 0.755).unwrap() - 25.5e-9).abs() < 1e-12);
        assert!((c.at(0, 1.0).unwrap() - 50e-9).abs() < 1e-12);
        assert!(c.at(1, 0.5).is_none() && c.at(2, 0.5).is_none());
        assert!(CallEntry::centred_percentiles(Vec::new()).is_empty());
    }
}
