//! The timing methods of Lastovetsky, Rychkov and O'Flynn 2008 (§2) side by side, per block:
//! t_global on the global clock, the maximum of the ranks' local times, and the root's time.

use crate::analysis::{median, t_global};
use crate::plan::Op;
use crate::records::{Block, Records};
use serde::Serialize;

/// A way of turning per-rank start/end times into one operation time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TimingMethod {
    /// t_global: latest global end − earliest global start (Niethammer et al. 2016, eq. 4).
    Global,
    /// t_max_local: max over ranks of (local end − local start) (the *maximum* method of Lastovetsky, Rychkov and O'Flynn 2008).
    Max,
    /// t_root: rank 0's own local time (rank 0 is the root of rooted kernels). Not MPIBlib's
    /// root timing (Lastovetsky, Rychkov and O'Flynn 2008, §2), which waits for a
    /// confirmation from every rank and subtracts its time: that needs messages the
    /// measurement loop does not send, and is `delaybench schemes`' `root-mpiblib`.
    Root,
}

/// t_max_local of repetition `rep`, seconds: the longest local end − start over the ranks.
pub fn t_max_local(block: &Block, rep: usize) -> f64 {
    (0..block.nprocs as usize)
        .map(|r| {
            let i = block.idx(rep, r);
            block.t_end_local_s.0[i] - block.t_start_local_s.0[i]
        })
        .fold(f64::NEG_INFINITY, f64::max)
}

/// t_root of repetition `rep`, seconds: rank 0's local end − start (no confirmation; see
/// [`TimingMethod::Root`]).
pub fn t_root(block: &Block, rep: usize) -> f64 {
    let i = block.idx(rep, 0);
    block.t_end_local_s.0[i] - block.t_start_local_s.0[i]
}

/// Medians over the valid repetitions of one block by each chosen method, seconds (`None`
/// for a method not chosen or without valid repetitions).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimingRow {
    pub op: Op,
    /// Message size in bytes (0 for barriers).
    pub bytes: u64,
    /// P, the number of processes.
    pub nprocs: u32,
    /// Nominal delay δ in seconds (0 = baseline).
    pub delay_s: f64,
    /// The delay model's label; not a CSV column.
    #[serde(skip)]
    pub delay_model: String,
    /// Repetitions without flags, and measured.
    pub valid: u32,
    pub total: u32,
    pub t_global_median_s: Option<f64>,
    pub t_max_local_median_s: Option<f64>,
    pub t_root_median_s: Option<f64>,
    /// Adaptive blocks: half-width / mean of the Student's t interval of the mean t_global
    /// when repetitions stopped (Lastovetsky, Rychkov and O'Flynn 2008, §3).
    pub ci_rel_error: Option<f64>,
}

/// One [`TimingRow`] per block with the `methods` chosen.
pub fn timing_rows(records: &Records, methods: &[TimingMethod]) -> Vec<TimingRow> {
    records
        .blocks
        .iter()
        .map(|block| timing_row(block, methods))
        .collect()
}

/// The [`TimingRow`] of one block with the `methods` chosen (it needs that block alone).
pub fn timing_row(block: &Block, methods: &[TimingMethod]) -> TimingRow {
    let valid: Vec<usize> = (0..block.nrep as usize)
        .filter(|&r| block.rep_valid(r))
        .collect();
    let by = |m: TimingMethod, f: fn(&Block, usize) -> f64| {
        let v: Vec<f64> = valid.iter().map(|&r| f(block, r)).collect();
        methods.contains(&m).then(|| median(&v)).flatten()
    };
    TimingRow {
        op: block.op,
        bytes: block.bytes,
        nprocs: block.nprocs,
        delay_s: block.delay_s,
        delay_model: block.delay_model.clone(),
        valid: valid.len() as u32,
        total: block.nrep,
        t_global_median_s: by(TimingMethod::Global, t_global),
        t_max_local_median_s: by(TimingMethod::Max, t_max_local),
        t_root_median_s: by(TimingMethod::Root, t_root),
        ci_rel_error: block.adaptive.as_ref().map(|a| a.rel_error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::testdata;

    #[test]
    fn methods_by_hand() {
        // Rank 0 starts 50 us late and all end 10 us (+ rep/10) after it; local times are
        // global + rank ms, so local differences equal global ones.
        let b = testdata::block(Op::Allreduce, 8, 2, 50e-6, 3, 10e-6);
        // t_global spans rank 1's start to rank 0's end: 60 us; rank 1's local time is the
        // longest (it starts 50 us earlier and ends 0.1 us earlier): 59.9 us; root: 10 us.
        assert!((t_global(&b, 0) - 60e-6).abs() < 1e-12);
        assert!(
            (t_max_local(&b, 0) - 59.9e-6).abs() < 1e-9,
            "{}",
            t_max_local(&b, 0)
        );
        assert!((t_root(&b, 0) - 10e-6).abs() < 1e-9, "{}", t_root(&b, 0));
        let records = testdata::records(2, vec![b]);
        let rows = timing_rows(&records, &[TimingMethod::Global, TimingMethod::Root]);
        assert_eq!(rows[0].t_max_local_median_s, None);
        assert!(rows[0].t_global_median_s.unwrap() > rows[0].t_root_median_s.unwrap());
    }
}
