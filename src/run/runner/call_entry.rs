//! Timing the library's first instructions before the blocks: the part of the way into a
//! collective after the last stamp delaybench can take ([`crate::records::CallEntry`]).

use super::Runner;
use crate::clock::tsc;
use crate::records::{CallEntry, CALL_ENTRY_PERCENTILES};
use mpi::traits::*;
use std::time::{Duration, Instant};

/// Calls timed per rank.
const CALLS: usize = 1000;
/// Calls made first and not timed.
const WARM_UP_CALLS: usize = 100;
/// Each call follows a spin this long, so that it enters the library from a spin loop as a
/// released rank does (the automatic window on the machines measured is about 20 µs).
const SPIN: Duration = Duration::from_micros(20);
/// A clock coarser than this cannot time a path of tens of nanoseconds, seconds.
const FINEST_USEFUL_TICK_S: f64 = 1e-7;

impl Runner<'_> {
    /// Times, on every rank at once, [`CALLS`] calls of `MPI_Wtime` each after a spin of
    /// [`SPIN`]: the counter stamp just before the call against the library's clock reading
    /// inside it, both on the rank's counter rate. Collective on the world; rank 0 gets the
    /// result, `None` elsewhere.
    pub(super) fn time_call_entry(&mut self) -> Option<CallEntry> {
        let world = self.session.world;
        let _pin = self.session.pin_for(world.size() as u32);
        let wtick_s = mpi::time_resolution();
        // The first calls bind the symbol and fill the caches: several microseconds.
        for _ in 0..WARM_UP_CALLS {
            std::hint::black_box(mpi::time());
        }
        let mut pairs = Vec::with_capacity(CALLS);
        for _ in 0..CALLS {
            let until = Instant::now() + SPIN;
            while Instant::now() < until {
                std::hint::spin_loop();
            }
            let s = tsc::stamp();
            let w = mpi::time();
            pairs.push((s.cycles, w));
        }
        let mine = if wtick_s <= FINEST_USEFUL_TICK_S {
            CallEntry::centred_percentiles(stamp_to_clock_s(&pairs))
        } else {
            Vec::new()
        };
        // Every rank sends its percentiles, NaN where it has none.
        let mut padded = vec![f64::NAN; CALL_ENTRY_PERCENTILES];
        padded[..mine.len()].copy_from_slice(&mine);
        let mut all = vec![0.0f64; CALL_ENTRY_PERCENTILES * world.size() as usize];
        world.all_gather_into(&padded[..], &mut all[..]);
        (world.rank() == 0).then(|| CallEntry {
            calls: CALLS as u32,
            wtick_s,
            percentiles_s: all
                .chunks(CALL_ENTRY_PERCENTILES)
                .map(|q| {
                    if q.iter().all(|x| x.is_finite()) {
                        q.to_vec()
                    } else {
                        Vec::new()
                    }
                })
                .collect(),
        })
    }
}

/// Per call, the library's clock reading minus the counter stamp before it, seconds up to a
/// constant, on the clock's rate against the counter: the median of the rates between each
/// pair of the first half and the pair half the calls later (Theil and Sen's estimator, so
/// that a call slowed by an interrupt does not tilt the others; the clock, NTP-slewed, and
/// the counter can differ by parts per million, tens of nanoseconds over the calls). Empty
/// when the two clocks did not advance.
fn stamp_to_clock_s(pairs: &[(u64, f64)]) -> Vec<f64> {
    let half = pairs.len() / 2;
    if half == 0 {
        return Vec::new();
    }
    let mut rates: Vec<f64> = (0..half)
        .map(|k| (pairs[k + half].1 - pairs[k].1) / (pairs[k + half].0 - pairs[k].0) as f64)
        .filter(|r| r.is_finite() && *r > 0.0)
        .collect();
    if rates.is_empty() {
        return Vec::new();
    }
    rates.sort_by(f64::total_cmp);
    let s_per_cycle = rates[rates.len() / 2];
    let (c0, w0) = pairs[0];
    pairs
        .iter()
        .map(|&(c, w)| (w - w0) - (c - c0) as f64 * s_per_cycle)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stamp_to_clock_time_is_read_on_the_counters_rate() {
        // A 2 GHz counter; the clock reads 30 ns after the stamp, once 130 ns.
        let pairs: Vec<(u64, f64)> = (0..6)
            .map(|i| {
                let c = 1_000_000 + i * 2_000_000;
                let extra = if i == 2 { 100e-9 } else { 0.0 };
                (c, 5.0 + (c - 1_000_000) as f64 / 2e9 + 30e-9 + extra)
            })
            .collect();
        let t = stamp_to_clock_s(&pairs);
        assert_eq!(t.len(), 6);
        assert!(t.iter().enumerate().all(|(i, x)| if i == 2 {
            (x - 100e-9).abs() < 1e-12
        } else {
            x.abs() < 1e-12
        }));
        assert!(stamp_to_clock_s(&[(1, 1.0), (1, 1.0)]).is_empty());
        assert!(stamp_to_clock_s(&[(1, 1.0)]).is_empty());
        assert!(stamp_to_clock_s(&[]).is_empty());
    }
}
