//! t_global: the global collective time of one repetition (Niethammer et al. 2016, eq. 4).

use crate::records::Block;

/// t_global of repetition `rep`, in seconds: the latest global end minus the earliest global
/// start over the ranks of that repetition (Niethammer et al. 2016, eq. 4; ReproMPI's "global" runtime).
pub fn t_global(block: &Block, rep: usize) -> f64 {
    let p = block.nprocs as usize;
    let row = rep * p..(rep + 1) * p;
    let first_start = block.t_start_global_s.0[row.clone()]
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let last_end = block.t_end_global_s.0[row]
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    last_end - first_start
}

/// t_global in seconds of every valid repetition of `block`, in repetition order
/// (invalid repetitions, see [`Block::rep_valid`], are left out).
pub fn valid_t_globals(block: &Block) -> Vec<f64> {
    BlockTimes::of(block).t_globals
}

/// A block's valid repetitions and their t_globals, found once per block so that every
/// reduction a reader makes of the block (digest, figures, distribution) shares them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BlockTimes {
    /// Indices of the valid repetitions ([`Block::rep_valid`]), ascending.
    pub reps: Vec<u32>,
    /// Their t_globals, seconds, aligned with `reps`.
    pub t_globals: Vec<f64>,
}

impl BlockTimes {
    /// The valid repetitions of `block` and their t_globals.
    pub fn of(block: &Block) -> Self {
        let (reps, t_globals) = (0..block.nrep as usize)
            .filter(|&rep| block.rep_valid(rep))
            .map(|rep| (rep as u32, t_global(block, rep)))
            .unzip();
        BlockTimes { reps, t_globals }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    #[test]
    fn t_global_spans_first_start_to_last_end() {
        // Rank 0 starts 50 us late and ends last, 10 us after the latest start.
        let b = testdata::block(Op::Allreduce, 8, 4, 50e-6, 3, 10e-6);
        assert!((t_global(&b, 0) - 60e-6).abs() < 1e-12);
        assert!((t_global(&b, 2) - (50e-6 + 12e-6)).abs() < 1e-12);
    }

    #[test]
    fn invalid_repetitions_are_left_out() {
        let b = testdata::block(Op::Allreduce, 8, 2, 0.0, 3, 10e-6);
        let ts = valid_t_globals(&b);
        assert_eq!(ts.len(), 2);
        assert!((ts[1] - 12e-6).abs() < 1e-12);
    }
}
