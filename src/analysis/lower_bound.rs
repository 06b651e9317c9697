//! Lower bounds of t_global per repetition (docs/metrics.md, "Lower bounds of t_global").
//!
//! t_global runs from the first rank's start to the last rank's end (Niethammer et al. 2016,
//! eq. 4). A rank whose result depends on the input of rank r cannot end before r started
//! plus one message from r: the one-way point-to-point time at the block's message size,
//! the smallest this run measured (records header `p2p`). So, with a_r the start of rank r
//! relative to the first start,
//!
//! - **bound** = max( max_r a_r, max over ranks r that some other rank depends on of
//!   a_r + one-way ). For the collectives whose every result needs every input (barrier,
//!   allreduce, allgather, alltoall, reduce_scatter_block, their nonblocking, persistent and
//!   v forms, the `ref:*` allreduces) that is the last arrival plus one one-way time.
//! - **model bound**: the same with a_r + ⌈log₂(d_r + 1)⌉ × one-way, d_r the number of ranks
//!   that depend on r: with one message at a time per rank and each message taking the
//!   one-way time (LogP, Culler et al. 1993; LogGP, Alexandrov et al. 1995), the ranks that
//!   hold r's contribution at most double per one-way time. The last arrival plus
//!   ⌈log₂ P⌉ one-way times for the collectives above. An algorithm on shared memory, on
//!   several ports at once, or sending faster than one message per one-way time can beat it.
//!
//! Rooted forms (root 0): reduce and gather need every input at the root (d_r = 1 for r ≠ 0,
//! so both levels are the last non-root arrival plus one one-way time, or the root's own
//! arrival); bcast and scatter need only the root's input (the root's arrival plus one
//! one-way time for the bound, ⌈log₂ P⌉ for the model bound, or the last arrival); scan and
//! exscan make rank s depend on the ranks below it (d_r = P − 1 − r).

use super::BlockDigest;
use crate::plan::kernel::Family;
use crate::plan::Op;
use crate::records::{Block, P2pTimes};

/// How many other ranks' results depend on rank `r`'s input in `op` on `p` ranks (rank 0 is
/// the root of rooted kernels).
pub fn dependents(op: Op, p: u32, r: u32) -> u32 {
    let others = p.saturating_sub(1);
    match op.family() {
        Family::Barrier
        | Family::Allreduce
        | Family::RefRing
        | Family::RefBinomial
        | Family::RefSortedLinearTree
        | Family::RefPrereducedRing
        | Family::RefClairvoyant
        | Family::Alltoall
        | Family::Allgather
        | Family::ReduceScatterBlock
        | Family::Allgatherv
        | Family::Alltoallv => others,
        Family::Reduce | Family::Gather | Family::Gatherv => u32::from(r != 0),
        Family::Bcast | Family::Scatter | Family::Scatterv => {
            if r == 0 {
                others
            } else {
                0
            }
        }
        Family::Scan | Family::Exscan => others.saturating_sub(r),
    }
}

/// ⌈log₂(d + 1)⌉: the one-way times a contribution needs to reach `d` other ranks when the
/// ranks holding it at most double per one-way time (0 for d = 0).
pub fn rounds(d: u32) -> u32 {
    u32::BITS - d.leading_zeros()
}

/// What the bounds of a block's valid repetitions need from its start times, kept without
/// the per-rank arrays: per valid repetition the last arrival and, per number of rounds k ≥ 1
/// ([`rounds`] of the rank's dependents), the last arrival among the ranks with k rounds;
/// seconds after the repetition's first start.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrivalTerms {
    /// Per valid repetition: max_r a_r.
    pub latest_s: Vec<f64>,
    /// (k, per valid repetition the largest a_r over the ranks with k rounds), k ascending.
    pub groups: Vec<(u32, Vec<f64>)>,
}

impl ArrivalTerms {
    /// The terms of `block`'s valid repetitions ([`Block::rep_valid`], in repetition order,
    /// aligned with [`super::BlockTimes`]). `None` for P < 2 (nothing to wait for) and for a
    /// replayed capture's counts (a zero count removes a dependency the bound assumes).
    pub fn of(block: &Block) -> Option<Self> {
        let p = block.nprocs;
        if p < 2 || block.counts.is_some() {
            return None;
        }
        let ks: Vec<u32> = (0..p).map(|r| rounds(dependents(block.op, p, r))).collect();
        let mut distinct: Vec<u32> = ks.iter().copied().filter(|&k| k > 0).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let mut terms = ArrivalTerms {
            latest_s: Vec::new(),
            groups: distinct.iter().map(|&k| (k, Vec::new())).collect(),
        };
        let p = p as usize;
        for rep in (0..block.nrep as usize).filter(|&rep| block.rep_valid(rep)) {
            let starts = &block.t_start_global_s.0[rep * p..(rep + 1) * p];
            let first = starts.iter().copied().fold(f64::INFINITY, f64::min);
            let latest = |keep: &dyn Fn(usize) -> bool| {
                (0..p)
                    .filter(|&r| keep(r))
                    .map(|r| starts[r] - first)
                    .fold(f64::NEG_INFINITY, f64::max)
            };
            terms.latest_s.push(latest(&|_| true));
            for (k, at) in terms.groups.iter_mut() {
                at.push(latest(&|r| ks[r] == *k));
            }
        }
        Some(terms)
    }

    /// Per valid repetition the bound and the model bound, seconds after the first start,
    /// for the one-way time `one_way_s`.
    pub fn bounds(&self, one_way_s: f64) -> (Vec<f64>, Vec<f64>) {
        let at = |i: usize, hops: fn(u32) -> f64| {
            self.groups
                .iter()
                .map(|(k, a)| a[i] + hops(*k) * one_way_s)
                .fold(self.latest_s[i], f64::max)
        };
        (0..self.latest_s.len())
            .map(|i| (at(i, |_| 1.0), at(i, f64::from)))
            .unzip()
    }
}

/// The lower-bound columns of one `analyze` row, pooled over its launches; `None` (an empty
/// cell) where a launch has no one-way time at the row's size (format version 2, a
/// simulated run) or the block has no bound ([`ArrivalTerms::of`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BoundColumns {
    /// Median over valid repetitions of the bound, seconds.
    pub bound_s: Option<f64>,
    /// Median of the model bound, seconds.
    pub model_bound_s: Option<f64>,
    /// Median over valid repetitions of t_global − bound, seconds.
    pub above_bound_s: Option<f64>,
    /// Median of t_global / bound.
    pub above_bound_ratio: Option<f64>,
    /// Smallest t_global − bound, seconds: below 0 (beyond the clocks' error) would be a
    /// repetition faster than physics allows.
    pub min_above_bound_s: Option<f64>,
    /// Median of t_global − model bound, seconds.
    pub above_model_bound_s: Option<f64>,
    /// Median of t_global / model bound.
    pub above_model_bound_ratio: Option<f64>,
    /// Valid repetitions whose t_global was below their model bound.
    pub beat_model_bound_reps: Option<u32>,
}

/// The columns of a configuration from its block in each launch: (that launch's one-way
/// times, the block's digest).
pub fn bound_columns<'a>(
    blocks: impl IntoIterator<Item = (Option<&'a P2pTimes>, &'a BlockDigest)>,
) -> BoundColumns {
    let (mut t, mut bound, mut model) = (Vec::new(), Vec::new(), Vec::new());
    for (p2p, block) in blocks {
        let one_way = p2p.and_then(|p| p.one_way_s(block.bytes));
        let (Some(one_way), Some(terms)) = (one_way, &block.arrivals) else {
            return BoundColumns::default();
        };
        if terms.latest_s.len() != block.t_globals.len() {
            return BoundColumns::default();
        }
        let (b, m) = terms.bounds(one_way);
        t.extend_from_slice(&block.t_globals);
        bound.extend(b);
        model.extend(m);
    }
    if t.is_empty() {
        return BoundColumns::default();
    }
    let diff = |lo: &[f64]| -> Vec<f64> { t.iter().zip(lo).map(|(t, b)| t - b).collect() };
    let ratio = |lo: &[f64]| -> Vec<f64> {
        t.iter()
            .zip(lo)
            .filter(|(_, b)| **b > 0.0)
            .map(|(t, b)| t / b)
            .collect()
    };
    let above = diff(&bound);
    BoundColumns {
        bound_s: super::median(&bound),
        model_bound_s: super::median(&model),
        above_bound_s: super::median(&above),
        above_bound_ratio: super::median(&ratio(&bound)),
        min_above_bound_s: super::minimum(&above),
        above_model_bound_s: super::median(&diff(&model)),
        above_model_bound_ratio: super::median(&ratio(&model)),
        beat_model_bound_reps: Some(t.iter().zip(&model).filter(|(t, m)| t < m).count() as u32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{testdata, P2pSize};

    fn p2p(bytes: u64, one_way_s: f64) -> P2pTimes {
        P2pTimes {
            exchanges: 30,
            peers: vec![1, 2, 3],
            sizes: vec![P2pSize {
                bytes,
                one_way_s: vec![one_way_s, 2.0 * one_way_s, 3.0 * one_way_s],
            }],
        }
    }

    #[test]
    fn dependents_follow_who_needs_whose_input() {
        assert_eq!(dependents(Op::Allreduce, 4, 2), 3);
        assert_eq!(dependents(Op::Ibarrier, 4, 0), 3);
        assert_eq!(dependents(Op::Reduce, 4, 0), 0);
        assert_eq!(dependents(Op::Reduce, 4, 3), 1);
        assert_eq!(dependents(Op::Bcast, 4, 0), 3);
        assert_eq!(dependents(Op::Scatter, 4, 1), 0);
        assert_eq!(dependents(Op::Scan, 4, 0), 3);
        assert_eq!(dependents(Op::Exscan, 4, 3), 0);
        assert_eq!(
            [0, 1, 2, 3, 4, 7, 8].map(rounds),
            [0, 1, 2, 2, 3, 3, 4],
            "ceil(log2(d + 1))"
        );
    }

    #[test]
    fn allreduce_bound_is_the_last_arrival_plus_one_and_log_p_one_way_times() {
        // testdata: rank 0 starts 50 us after the others, every rank ends 10 us after the
        // latest start (repetition 2: 12 us), repetition 1 invalid.
        let b = testdata::block(Op::Allreduce, 8, 4, 50e-6, 3, 10e-6);
        let terms = ArrivalTerms::of(&b).unwrap();
        assert_eq!(terms.latest_s.len(), 2, "valid repetitions only");
        let (bound, model) = terms.bounds(1e-6);
        assert!((bound[0] - 51e-6).abs() < 1e-12, "{bound:?}");
        assert!((model[0] - 52e-6).abs() < 1e-12, "log2 4 = 2: {model:?}");
        let digest = BlockDigest::of(&b);
        let c = bound_columns([(Some(&p2p(8, 1e-6)), &digest)]);
        // t_global 60 and 62 us against a bound of 51 us.
        assert!((c.min_above_bound_s.unwrap() - 9e-6).abs() < 1e-12, "{c:?}");
        assert!((c.above_bound_s.unwrap() - 10e-6).abs() < 1e-12, "{c:?}");
        assert!((c.above_bound_ratio.unwrap() - 61.0 / 51.0).abs() < 1e-9);
        assert!(c.bound_s.unwrap() <= c.model_bound_s.unwrap());
        assert_eq!(c.beat_model_bound_reps, Some(0));
    }

    #[test]
    fn rooted_forms_wait_for_whom_they_need() {
        // Rank 0 (the root) is the late one: a bcast waits for it, a reduce only to the
        // extent that the root itself is late.
        let mut b = testdata::block(Op::Bcast, 8, 4, 50e-6, 1, 10e-6);
        let (bound, model) = ArrivalTerms::of(&b).unwrap().bounds(1e-6);
        assert!((bound[0] - 51e-6).abs() < 1e-12 && (model[0] - 52e-6).abs() < 1e-12);
        b.op = Op::Reduce;
        let (bound, model) = ArrivalTerms::of(&b).unwrap().bounds(1e-6);
        // The non-roots started together: max(root's 50 us, 0 + 1 us).
        assert!((bound[0] - 50e-6).abs() < 1e-12 && (model[0] - 50e-6).abs() < 1e-12);
    }

    #[test]
    fn no_one_way_time_no_columns() {
        let b = testdata::block(Op::Allreduce, 8, 4, 50e-6, 3, 10e-6);
        let digest = BlockDigest::of(&b);
        assert_eq!(bound_columns([(None, &digest)]), BoundColumns::default());
        // Another size was measured, not this one.
        assert_eq!(
            bound_columns([(Some(&p2p(64, 1e-6)), &digest)]),
            BoundColumns::default()
        );
        let mut one = testdata::block(Op::Allreduce, 8, 1, 0.0, 3, 10e-6);
        one.nprocs = 1;
        assert_eq!(ArrivalTerms::of(&one), None, "P = 1 has no bound");
    }
}
