//! Simulating each distinct repetition once.
//!
//! Without noise a simulation is deterministic: two repetitions of a block whose ranks wait
//! the same delays start on an idle simulated network and give the same times to the
//! nanosecond. A fixed delay gives every repetition the same delay vector, so 100
//! repetitions repeat one result 100 times, at 100 times its wall time (about 1.3 s per
//! call at 16,384 ranks here). A block is therefore simulated with each distinct delay vector
//! once, in order of first appearance, plus [`CHECK_COPIES`] more copies of the first; the
//! copies must reproduce it within [`SAME_S`], or the whole block is simulated again
//! repetition by repetition. The records still hold every repetition: repetition i is its
//! vector's simulated repetition moved to its own start instant. `simulate
//! --every-repetition` turns this off; the records header says which was done
//! (`simulation.distinct_repetitions`).

use crate::simulate::blocks::{SimBlock, SimulatedTimes};

/// Extra copies of the first delay vector simulated to check that repetitions repeat.
pub const CHECK_COPIES: usize = 2;

/// How far (seconds, relative to their start instants) two simulated repetitions with the
/// same delays may differ and still count as the same: 10 ns. SimGrid solves its network
/// model to `surf/precision` (1e-9 s by default), and at 16,384 ranks on the dragonfly the
/// copies differed by 1.0-1.2 ns, so a 1 ns bound would simulate every repetition for a
/// difference of the solver's own precision.
pub const SAME_S: f64 = 1e-8;

/// A block reduced to its distinct delay vectors.
#[derive(Debug, Clone)]
pub struct Reduced {
    /// What is simulated: the distinct vectors, then the check copies.
    pub sim: SimBlock,
    /// For every repetition of the original block, the simulated repetition with its delays.
    pub source: Vec<usize>,
}

/// `block` (on `p` ranks) reduced to its distinct delay vectors, or `None` when that would
/// not save a repetition.
pub fn reduce(block: &SimBlock, p: u32) -> Option<Reduced> {
    let (p, nrep) = (p as usize, block.nrep as usize);
    let row = |i: usize| &block.delays[i * p..(i + 1) * p];
    let mut firsts: Vec<usize> = Vec::new();
    let mut source = Vec::with_capacity(nrep);
    for i in 0..nrep {
        let same = firsts.iter().position(|&f| bits(row(f)) == bits(row(i)));
        source.push(same.unwrap_or_else(|| {
            firsts.push(i);
            firsts.len() - 1
        }));
    }
    let simulated = firsts.len() + CHECK_COPIES;
    if simulated >= nrep {
        return None;
    }
    let mut delays = Vec::with_capacity(simulated * p);
    for &f in &firsts {
        delays.extend_from_slice(row(f));
    }
    for _ in 0..CHECK_COPIES {
        delays.extend_from_slice(row(firsts[0]));
    }
    Some(Reduced {
        sim: SimBlock {
            nrep: simulated as u32,
            delays,
            ..block.clone()
        },
        source,
    })
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The times of every repetition of `original` on `p` ranks from the simulated times `sim`
/// of `reduced`.
///
/// Repetition i takes the times of simulated repetition `source[i]`, moved from that
/// repetition's start instant to its own (the first instant plus i windows); its delays are
/// the original's, the same as that repetition's, so the records writer gives it the same
/// flags.
///
/// Errors: the largest difference, when a check copy does not reproduce the first vector's
/// repetition within [`SAME_S`] (the simulation is not deterministic: simulate every
/// repetition instead).
pub fn expand(
    sim: SimulatedTimes,
    p: u32,
    original: &SimBlock,
    reduced: &Reduced,
) -> Result<SimulatedTimes, f64> {
    let p = p as usize;
    let window = sim.window_s;
    let sched0 = sim.scheduled_start_s.first().copied().unwrap_or(0.0);
    let rel = |rep: usize, rank: usize| {
        let k = rep * p + rank;
        let s = sim.scheduled_start_s[rep];
        (sim.start_s[k] - s, sim.end_s[k] - s)
    };
    let simulated = sim.scheduled_start_s.len();
    let distinct = simulated - CHECK_COPIES;
    let mut worst = 0.0f64;
    for copy in distinct..simulated {
        for rank in 0..p {
            let (a, b) = (rel(0, rank), rel(copy, rank));
            worst = worst.max((a.0 - b.0).abs()).max((a.1 - b.1).abs());
        }
    }
    if worst > SAME_S {
        return Err(worst);
    }
    let nrep = original.nrep as usize;
    let sched: Vec<f64> = (0..nrep).map(|i| sched0 + i as f64 * window).collect();
    let n = nrep * p;
    let (mut start, mut end) = (vec![0.0; n], vec![0.0; n]);
    for (i, &j) in reduced.source.iter().enumerate() {
        for rank in 0..p {
            let (s, e) = rel(j, rank);
            start[i * p + rank] = sched[i] + s;
            end[i * p + rank] = sched[i] + e;
        }
    }
    Ok(SimulatedTimes {
        window_s: window,
        scheduled_start_s: sched,
        start_s: start,
        end_s: end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::smpi::output::decode;

    fn block(delays: Vec<f64>, nrep: u32) -> SimBlock {
        SimBlock::allreduce_8b(nrep, delays)
    }

    /// The C program's output for `sim` on 2 ranks: window 1 ms, rank 1 starts after its
    /// delay, every call ends 5 us after the later start, plus `jitter` on the last
    /// repetition's end of rank 0.
    fn output(sim: &SimBlock, jitter: f64) -> Vec<u8> {
        let n = sim.nrep as usize;
        let sched: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 * 1e-3).collect();
        let mut v = vec![1e-3];
        for rank in 0..2 {
            let starts: Vec<f64> = (0..n)
                .map(|i| sched[i] + sim.delays[i * 2 + rank])
                .collect();
            let ends: Vec<f64> = (0..n)
                .map(|i| {
                    let last = sched[i] + sim.delays[i * 2].max(sim.delays[i * 2 + 1]);
                    last + 5e-6 + if rank == 0 && i == n - 1 { jitter } else { 0.0 }
                })
                .collect();
            v.extend(starts);
            v.extend(ends);
        }
        v.extend(sched);
        v.iter().flat_map(|x| x.to_ne_bytes()).collect()
    }

    /// The times decoded from [`output`] for the reduced block of `r`.
    fn simulated(r: &Reduced, jitter: f64) -> SimulatedTimes {
        let sims = std::slice::from_ref(&r.sim);
        decode(&output(&r.sim, jitter), 2, sims).unwrap().remove(0)
    }

    #[test]
    fn a_fixed_delay_is_simulated_once_and_checked() {
        let original = block([0.0, 1e-5].repeat(100), 100);
        let r = reduce(&original, 2).expect("saves repetitions");
        assert_eq!(r.sim.nrep as usize, 1 + CHECK_COPIES);
        assert!(r.source.iter().all(|&j| j == 0));
        let full = expand(simulated(&r, 0.0), 2, &original, &r).unwrap();
        assert_eq!(
            (full.scheduled_start_s.len(), full.start_s.len()),
            (100, 200)
        );
        // Repetition 99 is repetition 0 moved by 99 windows.
        let k = 99 * 2 + 1;
        assert!((full.start_s[k] - (1.0 + 99e-3 + 1e-5)).abs() < 1e-12);
        assert!((full.end_s[k] - (1.0 + 99e-3 + 1.5e-5)).abs() < 1e-12);
        // A check copy 5 ns off is the solver's precision; 20 ns off is not deterministic,
        // and the caller simulates every repetition.
        assert!(expand(simulated(&r, 5e-9), 2, &original, &r).is_ok());
        let worst = expand(simulated(&r, 2e-8), 2, &original, &r).unwrap_err();
        assert!((worst - 2e-8).abs() < 1e-12, "{worst}");
    }

    #[test]
    fn distinct_vectors_each_map_to_their_own_simulated_repetition() {
        // Alternating delays of rank 1: two distinct vectors.
        let d: Vec<f64> = (0..10)
            .flat_map(|i| [0.0, if i % 2 == 0 { 1e-5 } else { 2e-5 }])
            .collect();
        let original = block(d, 10);
        let r = reduce(&original, 2).unwrap();
        assert_eq!(r.sim.nrep, 4);
        assert_eq!(r.source, [0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
        let full = expand(simulated(&r, 0.0), 2, &original, &r).unwrap();
        let late = |i: usize| full.start_s[i * 2 + 1] - full.scheduled_start_s[i];
        assert!((late(3) - 2e-5).abs() < 1e-12 && (late(4) - 1e-5).abs() < 1e-12);
    }

    #[test]
    fn sampled_delays_are_simulated_one_by_one() {
        let d: Vec<f64> = (0..20).map(|i| i as f64 * 1e-6).collect();
        assert!(reduce(&block(d, 10), 2).is_none());
    }
}
