//! Per-rank, per-repetition times of one block kept for the heatmaps: each rank's lateness
//! (its start − the repetition's earliest start) and its exit time (its end − the earliest
//! start, so a column's largest exit time is that repetition's t_global), in µs. Blocks
//! larger than [`MAX_ROWS`] ranks or [`MAX_COLS`] repetitions are binned, each cell holding
//! the largest value of its bin, so a late rank or a slow repetition stays visible.

use crate::plan::Op;
use crate::records::Block;

/// Most rank rows a heatmap keeps.
pub const MAX_ROWS: usize = 64;
/// Most repetition columns a heatmap keeps.
pub const MAX_COLS: usize = 250;
/// Microseconds per second.
const US: f64 = 1e6;

/// A block's ranks × repetitions grids. Cell (row, col) covers ranks
/// `row * rank_step ..` and repetitions `col * rep_step ..`; NaN where no repetition of the
/// bin is valid.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatBlock {
    pub op: Op,
    pub bytes: u64,
    pub nprocs: u32,
    pub delay_model: String,
    /// Nominal δ, seconds.
    pub delay_s: f64,
    pub nrep: u32,
    /// Ranks that were to be delayed in every repetition (empty when drawn per repetition).
    pub delayed_ranks: Vec<u32>,
    /// Ranks per row and repetitions per column (1 when not binned).
    pub rank_step: usize,
    pub rep_step: usize,
    pub rows: usize,
    pub cols: usize,
    /// Lateness, µs, `[rows][cols]`.
    pub lateness_us: Vec<f32>,
    /// Exit time after the earliest start, µs, `[rows][cols]`.
    pub exit_us: Vec<f32>,
}

impl HeatBlock {
    /// True when some cell has a value (some repetition was valid).
    pub fn any_valid(&self) -> bool {
        self.lateness_us.iter().any(|v| !v.is_nan())
    }

    /// The grids of `block`.
    pub fn of(block: &Block) -> Self {
        let p = block.nprocs as usize;
        let nrep = block.nrep as usize;
        let rank_step = p.div_ceil(MAX_ROWS).max(1);
        let rep_step = nrep.div_ceil(MAX_COLS).max(1);
        let (rows, cols) = (p.div_ceil(rank_step), nrep.div_ceil(rep_step));
        let mut lateness_us = vec![f32::NAN; rows * cols];
        let mut exit_us = vec![f32::NAN; rows * cols];
        for rep in (0..nrep).filter(|&r| block.rep_valid(r)) {
            let row = rep * p..(rep + 1) * p;
            let starts = &block.t_start_global_s.0[row.clone()];
            let ends = &block.t_end_global_s.0[row];
            let first = starts.iter().copied().fold(f64::INFINITY, f64::min);
            let col = rep / rep_step;
            for rank in 0..p {
                let cell = (rank / rank_step) * cols + col;
                let late = ((starts[rank] - first) * US) as f32;
                let exit = ((ends[rank] - first) * US) as f32;
                // f32::max ignores NaN, so the first valid value replaces the empty cell.
                lateness_us[cell] = lateness_us[cell].max(late);
                exit_us[cell] = exit_us[cell].max(exit);
            }
        }
        HeatBlock {
            op: block.op,
            bytes: block.bytes,
            nprocs: block.nprocs,
            delay_model: block.delay_model.clone(),
            delay_s: block.delay_s,
            nrep: block.nrep,
            delayed_ranks: block.delayed_ranks.clone(),
            rank_step,
            rep_step,
            rows,
            cols,
            lateness_us,
            exit_us,
        }
    }
}

/// The heatmap grids of a run, one per (op, size, delay model) with δ > 0, of its largest P:
/// a block of a larger P replaces the one kept, so memory stays at one grid per
/// configuration and model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeatBlocks {
    pub blocks: Vec<HeatBlock>,
}

impl HeatBlocks {
    /// Takes the next block of the pass.
    pub fn add(&mut self, block: &Block) {
        if block.delay_s <= 0.0 {
            return;
        }
        let same = |h: &HeatBlock| {
            h.op == block.op && h.bytes == block.bytes && h.delay_model == block.delay_model
        };
        // A block without a valid repetition (oversubscribed, the largest P) is all grey: a
        // smaller P with valid ones shows more.
        let valid = (0..block.nrep as usize).any(|r| block.rep_valid(r));
        match self.blocks.iter_mut().find(|h| same(h)) {
            Some(h)
                if (h.nprocs < block.nprocs && (valid || !h.any_valid()))
                    || (valid && !h.any_valid()) =>
            {
                *h = HeatBlock::of(block)
            }
            Some(_) => {}
            None => self.blocks.push(HeatBlock::of(block)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::testdata;

    #[test]
    fn small_blocks_are_kept_whole_ranks_by_repetitions() {
        let b = testdata::block(Op::Allreduce, 8, 4, 50e-6, 50, 10e-6);
        let h = HeatBlock::of(&b);
        assert_eq!((h.rows, h.cols), (4, 50), "P × nrep");
        assert_eq!(h.lateness_us.len(), 4 * 50);
        // testdata: rank 0 starts 50 us late, repetition 1 is invalid.
        assert!((h.lateness_us[0] - 50.0).abs() < 1e-3);
        assert!(h.lateness_us[1].is_nan() && h.exit_us[50 + 1].is_nan());
        assert!(h.lateness_us[50].abs() < 1e-3);
        // Rank 0's exit is δ + its operation time: 60 us.
        assert!((h.exit_us[0] - 60.0).abs() < 1e-3);
    }

    #[test]
    fn large_blocks_are_binned_to_their_largest_values() {
        let b = testdata::block(Op::Allreduce, 8, 130, 50e-6, 600, 10e-6);
        let h = HeatBlock::of(&b);
        assert_eq!((h.rank_step, h.rep_step), (3, 3));
        assert_eq!((h.rows, h.cols), (44, 200));
        assert!(h.rows <= MAX_ROWS && h.cols <= MAX_COLS);
        // Row 0 holds ranks 0-2: the late rank 0 sets it.
        assert!((h.lateness_us[0] - 50.0).abs() < 1e-3);
    }

    #[test]
    fn only_the_largest_p_of_a_configuration_is_kept() {
        let mut hs = HeatBlocks::default();
        for p in [2, 8, 4] {
            hs.add(&testdata::block(Op::Allreduce, 8, p, 50e-6, 5, 10e-6));
            hs.add(&testdata::block(Op::Allreduce, 8, p, 0.0, 5, 10e-6));
        }
        assert_eq!(hs.blocks.len(), 1);
        assert_eq!(hs.blocks[0].nprocs, 8);
        // A larger P without a valid repetition does not replace one with.
        let mut none = testdata::block(Op::Allreduce, 8, 16, 50e-6, 5, 10e-6);
        none.flags.iter_mut().for_each(|f| *f = 1);
        hs.add(&none);
        assert_eq!(hs.blocks[0].nprocs, 8);
    }
}
