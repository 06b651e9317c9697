//! Overlap of nonblocking kernels (`--overlap`): the parts of each repetition, overlap % as
//! OSU 7.4 and IMB-NBC 2021 compute it from their own statistics, and delaybench's own
//! "delay hidden": how much of a late arrival the punctual ranks' computation hid.
//!
//! Every formula is given where its assumption holds and is `n/a`, with the reason, where it
//! does not (see `docs/metrics.md`).

use super::bootstrap::Bootstrap;
use crate::plan::Op;
use crate::records::{Block, OverlapRecord, Records};
use crate::timeline::Baselines;
use serde::Serialize;

/// Why the OSU and IMB columns of a delayed block are `n/a`: both formulas assume that all
/// ranks start together, so the late rank's delay would count as missing overlap.
pub const NA_DELAYED: &str = "delayed block (OSU/IMB assume a common start)";
/// Why the OSU and IMB columns of a block without a pure pass are `n/a` (records written
/// before delaybench measured each rank's pure time).
pub const NA_NO_PURE_PASS: &str = "no pure pass in the records (older file)";
/// Why a baseline has no delay hidden.
pub const NA_NOT_DELAYED: &str = "baseline (no delay)";
/// Why a block with sampled or all-rank delays has no delay hidden.
pub const NA_NOT_LATE_ARRIVAL: &str = "sampled or all-rank delays (no single δ)";
/// Why a late arrival without an overlap baseline has no delay hidden.
pub const NA_NO_BASELINE: &str = "no overlap baseline of the same op, size and P";
/// Why a late arrival without a rank that is punctual in every valid repetition has none.
pub const NA_NO_PUNCTUAL: &str = "no rank punctual in every valid repetition";

/// Overlap % as OSU 7.4 prints it (`print_stats_nbc`, `c/util/osu_util_mpi.c`):
/// `max(0, 100 − (overall − compute) / pure × 100)`, with `compute` the computation without
/// the `MPI_Test` calls. Seconds in; not clipped above (overall < compute gives > 100).
pub fn osu_overlap_pct(overall_s: f64, compute_s: f64, pure_s: f64) -> f64 {
    (100.0 - (overall_s - compute_s) / pure_s * 100.0).max(0.0)
}

/// Overlap % as IMB 2021 prints it for IMB-NBC (`IMB_output.c`):
/// `100 · max(0, min(1, (t_pure + t_CPU − t_ovrl) / max(t_pure, t_CPU)))`. Seconds in.
pub fn imb_overlap_pct(t_pure_s: f64, t_cpu_s: f64, t_ovrl_s: f64) -> f64 {
    100.0 * ((t_pure_s + t_cpu_s - t_ovrl_s) / t_pure_s.max(t_cpu_s)).clamp(0.0, 1.0)
}

/// One tool's overlap of a block: the three times its formula takes and the result.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ToolOverlap {
    /// Pure time (post + wait, no computation), seconds.
    pub t_pure_s: f64,
    /// Computation between post and wait, `MPI_Test` calls excluded, seconds.
    pub t_comp_s: f64,
    /// Overlapped repetition (post + computation + tests + wait), seconds.
    pub t_ovrl_s: f64,
    /// The overlap in percent by the tool's formula.
    pub overlap_pct: f64,
    /// IMB only: the rank whose values these are (the largest t_ovrl); `None` for OSU,
    /// which averages over ranks.
    pub rank: Option<u32>,
}

/// Per-rank means of an overlap block over every repetition (OSU and IMB filter none), as
/// the tools form them before combining ranks: `[rank]` of (pure, compute, overall), seconds.
fn tool_rank_means(block: &Block, o: &OverlapRecord) -> Option<Vec<(f64, f64, f64)>> {
    let pure = o.pure_pass.as_ref()?;
    let (p, n) = (block.nprocs as usize, block.nrep as usize);
    if n == 0 || pure.mean_s.0.len() != p {
        return None;
    }
    Some(
        (0..p)
            .map(|rank| {
                let (mut comp, mut ovrl) = (0.0, 0.0);
                for rep in 0..n {
                    let i = block.idx(rep, rank);
                    comp += o.compute_s.0[i];
                    ovrl += block.t_end_local_s.0[i] - block.t_start_local_s.0[i];
                }
                (pure.mean_s.0[rank], comp / n as f64, ovrl / n as f64)
            })
            .collect(),
    )
}

/// OSU 7.4's overlap of an undelayed block (`calculate_and_print_stats`): per rank the mean
/// over the repetitions of the pure time, the computation and the overlapped time, each then
/// averaged over the ranks, into [`osu_overlap_pct`]. `None` without a pure pass.
pub fn osu_overlap(block: &Block) -> Option<ToolOverlap> {
    let ranks = tool_rank_means(block, block.overlap.as_ref()?)?;
    let p = ranks.len() as f64;
    let sum = ranks
        .iter()
        .fold((0.0, 0.0, 0.0), |a, r| (a.0 + r.0, a.1 + r.1, a.2 + r.2));
    let (pure, comp, ovrl) = (sum.0 / p, sum.1 / p, sum.2 / p);
    Some(ToolOverlap {
        t_pure_s: pure,
        t_comp_s: comp,
        t_ovrl_s: ovrl,
        overlap_pct: osu_overlap_pct(ovrl, comp, pure),
        rank: None,
    })
}

/// IMB-NBC 2021's overlap of an undelayed block (`IMB_output.c`): per rank the mean over the
/// repetitions of t_pure (its `_pure` pass), t_CPU and t_ovrl; the rank with the largest
/// t_ovrl (the first on ties) gives all three, into [`imb_overlap_pct`]. `None` without a
/// pure pass.
pub fn imb_overlap(block: &Block) -> Option<ToolOverlap> {
    let ranks = tool_rank_means(block, block.overlap.as_ref()?)?;
    let (rank, &(pure, comp, ovrl)) =
        ranks
            .iter()
            .enumerate()
            .reduce(|a, b| if b.1 .2 > a.1 .2 { b } else { a })?;
    Some(ToolOverlap {
        t_pure_s: pure,
        t_comp_s: comp,
        t_ovrl_s: ovrl,
        overlap_pct: imb_overlap_pct(pure, comp, ovrl),
        rank: Some(rank as u32),
    })
}

/// delaybench's own "delay hidden" of a late arrival: of the delay δ, the part that did not
/// reappear as MPI time (post + tests + wait) of the punctual ranks, compared with the same
/// ranks in the baseline. Not clipped: below 0 the late arrival cost those ranks more MPI
/// time than δ, above δ less than in the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DelayHidden {
    /// δ − (O_δ − O_0), seconds.
    pub hidden_s: f64,
    /// `hidden_s / δ` (1 = the whole delay hidden).
    pub fraction: f64,
    /// Percentile bootstrap interval of `fraction` (delayed and baseline repetitions
    /// resampled independently); `None` with fewer than [`Bootstrap::min_valid`]
    /// repetitions (6 at 95 %, [`super::MIN_VALID_FOR_CI`]) on either side, where an
    /// interval would cover far less than its level claims.
    pub ci_lo: Option<f64>,
    pub ci_hi: Option<f64>,
    /// Repetitions of the smaller side, delayed or baseline: the n the interval rests on.
    pub n: u32,
    /// The punctual ranks the means run over (the same on both sides).
    pub ranks: u32,
}

/// [`DelayHidden`] from per-repetition MPI times (seconds) of the punctual ranks `ranks`:
/// `delayed[i]` and `baseline[j]` are the mean over those ranks of repetition i of the
/// delayed block and j of the baseline. hidden = δ − (mean delayed − mean baseline).
/// `None` when either side is empty or δ ≤ 0.
pub fn delay_hidden(
    delay_s: f64,
    delayed: &[f64],
    baseline: &[f64],
    ranks: u32,
    boot: &Bootstrap,
) -> Option<DelayHidden> {
    if delayed.is_empty() || baseline.is_empty() || delay_s <= 0.0 {
        return None;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let hidden = delay_s - (mean(delayed) - mean(baseline));
    let n = delayed.len().min(baseline.len());
    // As for the medians' intervals: below the minimum, no interval (and so no claim).
    let ci = (n >= boot.min_valid())
        .then(|| boot.mean_difference_ci(delayed, baseline))
        .flatten();
    Some(DelayHidden {
        hidden_s: hidden,
        fraction: hidden / delay_s,
        // hidden falls as the difference grows: the interval's ends swap.
        ci_lo: ci.map(|c| (delay_s - c.hi) / delay_s),
        ci_hi: ci.map(|c| (delay_s - c.lo) / delay_s),
        n: n as u32,
        ranks,
    })
}

/// Overlap summary of one block measured in overlap mode. Times in seconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverlapRow {
    pub op: Op,
    pub bytes: u64,
    pub nprocs: u32,
    pub delay_s: f64,
    /// The collective algorithm (`--algorithms`), empty when the run chose none.
    pub algorithm: String,
    /// `time` or `work`.
    pub mode: String,
    pub valid: u32,
    pub total: u32,
    /// t_b: the pure time delaybench sized its computation to (median over the pure pass of
    /// the slowest rank's time; older files: over the warm-up; `time-own`: rank 0's own mean).
    pub t_pure_s: f64,
    /// Means over the valid repetitions and all ranks: end − start of a rank (post +
    /// compute + tests + wait), and each part; `None` without valid repetitions (the OSU
    /// and IMB columns, over every repetition, may still be there).
    pub overall_s: Option<f64>,
    pub compute_s: Option<f64>,
    pub post_s: Option<f64>,
    pub test_s: Option<f64>,
    pub wait_s: Option<f64>,
    /// Time in MPI calls: post + tests + wait.
    pub overhead_s: Option<f64>,
    /// OSU 7.4's times and overlap ([`osu_overlap`]: means over all repetitions, then over
    /// ranks); `None` with the reason in `tools_na`.
    pub osu_t_pure_s: Option<f64>,
    pub osu_t_comp_s: Option<f64>,
    pub osu_t_ovrl_s: Option<f64>,
    pub overlap_osu_pct: Option<f64>,
    /// IMB-NBC 2021's times and overlap ([`imb_overlap`]: the rank `imb_rank` with the
    /// largest mean t_ovrl); `None` with the reason in `tools_na`.
    pub imb_t_pure_s: Option<f64>,
    pub imb_t_comp_s: Option<f64>,
    pub imb_t_ovrl_s: Option<f64>,
    pub overlap_imb_pct: Option<f64>,
    pub imb_rank: Option<u32>,
    /// Why `osu` and `imb` are `n/a`.
    pub tools_na: Option<&'static str>,
    /// Late arrivals only: of δ, the seconds the punctual ranks' computation hid
    /// ([`DelayHidden::hidden_s`]), not clipped.
    pub hidden_delay_s: Option<f64>,
    /// `hidden_delay_s / δ` (1 = the whole late arrival hidden).
    pub hidden_fraction: Option<f64>,
    /// Bootstrap interval of `hidden_fraction`; empty with fewer than
    /// [`super::MIN_VALID_FOR_CI`] valid repetitions in the block or its baseline.
    pub hidden_ci_lo: Option<f64>,
    pub hidden_ci_hi: Option<f64>,
    /// Valid repetitions of the smaller side (block or baseline) behind the delay hidden
    /// ([`DelayHidden::n`]); the table says `too few (n=K)` when it is below the minimum.
    pub hidden_n: Option<u32>,
    /// Why the delay hidden is `n/a`.
    pub hidden_na: Option<&'static str>,
}

/// Means over the valid repetitions of `block` and all ranks: [overall, compute, post, test,
/// wait], seconds. `None` without valid repetitions.
fn means(block: &Block, o: &OverlapRecord) -> Option<[f64; 5]> {
    let p = block.nprocs as usize;
    let mut sum = [0.0; 5];
    let mut n = 0usize;
    for rep in (0..block.nrep as usize).filter(|&r| block.rep_valid(r)) {
        for rank in 0..p {
            let i = block.idx(rep, rank);
            let overall = block.t_end_local_s.0[i] - block.t_start_local_s.0[i];
            let v = [
                overall,
                o.compute_s.0[i],
                o.post_s.0[i],
                o.test_s.0[i],
                o.wait_s.0[i],
            ];
            sum.iter_mut().zip(v).for_each(|(s, x)| *s += x);
            n += 1;
        }
    }
    (n > 0).then(|| sum.map(|s| s / n as f64))
}

/// Per valid repetition of an overlap block, each rank's MPI time (post + tests + wait),
/// seconds, `[valid rep][rank]`, with the repetitions' applied delays alike.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MpiTimes {
    nprocs: usize,
    mpi_s: Vec<f64>,
    applied_s: Vec<f64>,
}

impl MpiTimes {
    /// The MPI times of `block`'s valid repetitions; `None` without overlap records.
    pub fn of(block: &Block) -> Option<MpiTimes> {
        let o = block.overlap.as_ref()?;
        let p = block.nprocs as usize;
        let mut t = MpiTimes {
            nprocs: p,
            ..Default::default()
        };
        for rep in (0..block.nrep as usize).filter(|&r| block.rep_valid(r)) {
            for rank in 0..p {
                let i = block.idx(rep, rank);
                t.mpi_s.push(o.post_s.0[i] + o.test_s.0[i] + o.wait_s.0[i]);
                t.applied_s.push(block.applied_delay_s.0[i]);
            }
        }
        Some(t)
    }

    fn reps(&self) -> impl Iterator<Item = (&[f64], &[f64])> {
        let p = self.nprocs.max(1);
        self.mpi_s.chunks(p).zip(self.applied_s.chunks(p))
    }

    /// Ranks with applied delay 0 in every valid repetition.
    fn punctual(&self) -> Vec<usize> {
        (0..self.nprocs)
            .filter(|&r| self.reps().all(|(_, applied)| applied[r] == 0.0))
            .collect()
    }

    /// Per valid repetition, the mean MPI time over `ranks`.
    fn mean_over(&self, ranks: &[usize]) -> Vec<f64> {
        self.reps()
            .map(|(mpi, _)| ranks.iter().map(|&r| mpi[r]).sum::<f64>() / ranks.len() as f64)
            .collect()
    }
}

/// The delay hidden of a block with nominal delay `delay_s` (seconds) against its
/// baseline's MPI times, or why it is `n/a`; `late_arrival`: [`Block::is_late_arrival`].
fn hidden_of(
    delay_s: f64,
    late_arrival: bool,
    own: Option<&MpiTimes>,
    baseline: Option<&MpiTimes>,
    boot: &Bootstrap,
) -> Result<DelayHidden, &'static str> {
    if delay_s <= 0.0 {
        return Err(NA_NOT_DELAYED);
    }
    if !late_arrival {
        return Err(NA_NOT_LATE_ARRIVAL);
    }
    let own = own.filter(|o| !o.mpi_s.is_empty()).ok_or(NA_NO_PUNCTUAL)?;
    let base = baseline
        .filter(|b| b.nprocs == own.nprocs && !b.mpi_s.is_empty())
        .ok_or(NA_NO_BASELINE)?;
    let ranks = own.punctual();
    if ranks.is_empty() {
        return Err(NA_NO_PUNCTUAL);
    }
    delay_hidden(
        delay_s,
        &own.mean_over(&ranks),
        &base.mean_over(&ranks),
        ranks.len() as u32,
        boot,
    )
    .ok_or(NA_NO_PUNCTUAL)
}

/// One [`OverlapRow`] per block with overlap records; delayed late-arrival blocks are
/// compared with the baseline of the same (op, bytes, P).
pub fn overlap_rows(records: &Records) -> Vec<OverlapRow> {
    let mut rows = OverlapRows::default();
    for b in &records.blocks {
        rows.add(b);
    }
    rows.finish()
}

/// [`overlap_rows`] of a file read once, block by block: per overlap block its row, per
/// late arrival and per baseline its [`MpiTimes`]; each late arrival's delay hidden is
/// filled in against the first overlap baseline of its configuration at the end. Intervals
/// use [`Bootstrap::default`].
#[derive(Debug, Default, Clone, PartialEq)]
pub struct OverlapRows {
    baselines: Baselines<MpiTimes>,
    rows: Vec<(OverlapRow, Option<MpiTimes>)>,
}

crate::timeline::pairing::configuration!(OverlapRow);

impl OverlapRows {
    /// Takes the next block of the pass.
    pub fn add(&mut self, block: &Block) {
        if block.overlap.is_none() {
            return;
        }
        self.baselines.offer(block, || MpiTimes::of(block));
        if let Some(row) = overlap_row(block, None) {
            // A late arrival keeps its MPI times until its baseline is known (it may come
            // later in the file).
            let own = (row.hidden_na == Some(NA_NO_BASELINE))
                .then(|| MpiTimes::of(block))
                .flatten();
            self.rows.push((row, own));
        }
    }

    /// The rows in block order, with the delays hidden.
    pub fn finish(&self) -> Vec<OverlapRow> {
        self.rows
            .iter()
            .map(|(row, own)| match own {
                None => row.clone(),
                Some(own) => {
                    let hidden = hidden_of(
                        row.delay_s,
                        true,
                        Some(own),
                        self.baselines.of(row),
                        &Bootstrap::default(),
                    );
                    row.clone().with_hidden(hidden)
                }
            })
            .collect()
    }
}

impl OverlapRow {
    fn with_hidden(self, hidden: Result<DelayHidden, &'static str>) -> OverlapRow {
        let h = hidden.as_ref().ok();
        OverlapRow {
            hidden_delay_s: h.map(|h| h.hidden_s),
            hidden_fraction: h.map(|h| h.fraction),
            hidden_ci_lo: h.and_then(|h| h.ci_lo),
            hidden_ci_hi: h.and_then(|h| h.ci_hi),
            hidden_n: h.map(|h| h.n),
            hidden_na: hidden.err(),
            ..self
        }
    }
}

/// The [`OverlapRow`] of one block measured in overlap mode (`None` otherwise, or when it
/// has neither a valid repetition nor OSU/IMB columns), given its baseline's [`MpiTimes`]
/// (`None`: no baseline, so no delay hidden).
pub fn overlap_row(block: &Block, baseline: Option<&MpiTimes>) -> Option<OverlapRow> {
    let o = block.overlap.as_ref()?;
    let m = means(block, o);
    let part = |k: usize| m.map(|m| m[k]);
    let valid = (0..block.nrep as usize)
        .filter(|&r| block.rep_valid(r))
        .count();
    let delayed = block.delay_s > 0.0 || block.applied_delay_s.0.iter().any(|&d| d > 0.0);
    let (osu, imb, tools_na) = if delayed {
        (None, None, Some(NA_DELAYED))
    } else {
        match (osu_overlap(block), imb_overlap(block)) {
            (Some(a), Some(b)) => (Some(a), Some(b), None),
            _ => (None, None, Some(NA_NO_PURE_PASS)),
        }
    };
    if m.is_none() && osu.is_none() {
        return None;
    }
    let hidden = hidden_of(
        block.delay_s,
        block.is_late_arrival(),
        MpiTimes::of(block).as_ref(),
        baseline,
        &Bootstrap::default(),
    );
    let row = OverlapRow {
        op: block.op,
        bytes: block.bytes,
        nprocs: block.nprocs,
        delay_s: block.delay_s,
        algorithm: block.algorithm_name().to_string(),
        mode: o.mode.clone(),
        valid: valid as u32,
        total: block.nrep,
        t_pure_s: o.t_pure_s,
        overall_s: part(0),
        compute_s: part(1),
        post_s: part(2),
        test_s: part(3),
        wait_s: part(4),
        overhead_s: m.map(|m| m[2] + m[3] + m[4]),
        osu_t_pure_s: osu.map(|t| t.t_pure_s),
        osu_t_comp_s: osu.map(|t| t.t_comp_s),
        osu_t_ovrl_s: osu.map(|t| t.t_ovrl_s),
        overlap_osu_pct: osu.map(|t| t.overlap_pct),
        imb_t_pure_s: imb.map(|t| t.t_pure_s),
        imb_t_comp_s: imb.map(|t| t.t_comp_s),
        imb_t_ovrl_s: imb.map(|t| t.t_ovrl_s),
        overlap_imb_pct: imb.map(|t| t.overlap_pct),
        imb_rank: imb.and_then(|t| t.rank),
        tools_na,
        hidden_delay_s: None,
        hidden_fraction: None,
        hidden_ci_lo: None,
        hidden_ci_hi: None,
        hidden_n: None,
        hidden_na: None,
    };
    Some(row.with_hidden(hidden))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::testdata::{self, overlap_block, Parts};

    #[test]
    fn osu_formula_by_hand() {
        // pure 10 us, compute 10 us, overall 14 us: 4 us not overlapped = 40 % of pure.
        assert!((osu_overlap_pct(14e-6, 10e-6, 10e-6) - 60.0).abs() < 1e-9);
        // Perfect overlap: overall = compute.
        assert!((osu_overlap_pct(10e-6, 10e-6, 10e-6) - 100.0).abs() < 1e-9);
        // No overlap at all, and worse: never below 0.
        assert!(osu_overlap_pct(20e-6, 10e-6, 10e-6).abs() < 1e-9);
        assert_eq!(osu_overlap_pct(35e-6, 10e-6, 10e-6), 0.0);
    }

    #[test]
    fn imb_formula_by_hand() {
        // t_pure 10, t_CPU 10, t_ovrl 14: 100 * 6 / 10 = 60 %.
        assert!((imb_overlap_pct(10e-6, 10e-6, 14e-6) - 60.0).abs() < 1e-9);
        // t_pure 10, t_CPU 20, t_ovrl 25: 100 * 5 / 20 = 25 %.
        assert!((imb_overlap_pct(10e-6, 20e-6, 25e-6) - 25.0).abs() < 1e-9);
        // Clipped to [0, 100].
        assert_eq!(imb_overlap_pct(10e-6, 10e-6, 30e-6), 0.0);
        assert_eq!(imb_overlap_pct(10e-6, 10e-6, 5e-6), 100.0);
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1e-6)
    }

    /// Rank 0: post 1, compute 10, wait 3 (overall 14 us), pure 8; rank 1: post 1, compute
    /// 10, wait 7 (overall 18 us), pure 12.
    fn two_ranks() -> Block {
        overlap_block(
            Op::Iallreduce,
            2,
            4,
            0.0,
            |_, rank| Parts {
                post: 1e-6,
                compute: 10e-6,
                test: 0.0,
                wait: if rank == 0 { 3e-6 } else { 7e-6 },
                delay: 0.0,
            },
            Some(vec![8e-6, 12e-6]),
        )
    }

    #[test]
    fn osu_averages_each_time_over_ranks() {
        // OSU: pure (8 + 12) / 2 = 10, compute 10, overall (14 + 18) / 2 = 16:
        // 100 − (16 − 10) / 10 · 100 = 40 %.
        let t = osu_overlap(&two_ranks()).unwrap();
        assert!(
            close(t.t_pure_s, 10e-6) && close(t.t_ovrl_s, 16e-6),
            "{t:?}"
        );
        assert!(close(t.overlap_pct, 40.0), "{t:?}");
        assert_eq!(t.rank, None);
    }

    #[test]
    fn imb_takes_the_rank_with_the_largest_t_ovrl() {
        // IMB: rank 1 has the largest t_ovrl (18): its pure 12 and compute 10:
        // 100 · (12 + 10 − 18) / max(12, 10) = 33.3 %.
        let t = imb_overlap(&two_ranks()).unwrap();
        assert_eq!(t.rank, Some(1));
        assert!(close(t.overlap_pct, 100.0 * 4.0 / 12.0), "{t:?}");
    }

    #[test]
    fn tools_are_na_on_delayed_blocks_and_without_a_pure_pass() {
        let row = overlap_row(&two_ranks(), None).unwrap();
        assert!(close(row.overlap_osu_pct.unwrap(), 40.0));
        assert_eq!(row.tools_na, None);
        assert_eq!(row.hidden_na, Some(NA_NOT_DELAYED));

        let late = overlap_block(
            Op::Iallreduce,
            2,
            4,
            50e-6,
            |_, rank| Parts::simple(if rank == 0 { 50e-6 } else { 0.0 }, 3e-6),
            Some(vec![8e-6, 8e-6]),
        );
        let row = overlap_row(&late, None).unwrap();
        assert_eq!((row.overlap_osu_pct, row.overlap_imb_pct), (None, None));
        assert_eq!(row.tools_na, Some(NA_DELAYED));

        let mut old = two_ranks();
        old.overlap.as_mut().unwrap().pure_pass = None;
        let row = overlap_row(&old, None).unwrap();
        assert_eq!(
            (row.overlap_osu_pct, row.tools_na),
            (None, Some(NA_NO_PURE_PASS))
        );
    }

    /// A late arrival (rank `late` delayed by 50 us, P = 3) whose punctual ranks wait
    /// `wait(rank)` us, and its baseline, where rank r waits `base(r)` us; everything else 1 us
    /// post and 10 us compute.
    fn hidden_case(late: usize, base: fn(usize) -> f64, wait: fn(usize) -> f64) -> OverlapRow {
        let block = |delay: f64, w: fn(usize) -> f64| {
            overlap_block(
                Op::Ibcast,
                3,
                6,
                delay,
                move |_, rank| {
                    Parts::simple(if rank == late { delay } else { 0.0 }, w(rank) * 1e-6)
                },
                Some(vec![5e-6; 3]),
            )
        };
        let records = Records {
            header: testdata::header(3),
            // The delayed block first: its baseline is paired at the end of the pass.
            blocks: vec![block(50e-6, wait), block(0.0, base)],
            footer: None,
            truncated: false,
        };
        let rows = overlap_rows(&records);
        assert_eq!(rows.len(), 2);
        rows[0].clone()
    }

    #[test]
    fn delay_hidden_by_hand() {
        // Fully hidden: the punctual ranks wait as long as in the baseline (2 us).
        let r = hidden_case(0, |_| 2.0, |_| 2.0);
        assert!(close(r.hidden_fraction.unwrap(), 1.0), "{r:?}");
        assert!(close(r.hidden_delay_s.unwrap(), 50e-6));
        // Constant values: the interval is the point itself.
        assert!(close(r.hidden_ci_lo.unwrap(), 1.0) && close(r.hidden_ci_hi.unwrap(), 1.0));
        // Half hidden: they wait 25 us more than in the baseline.
        let r = hidden_case(0, |_| 2.0, |_| 27.0);
        assert!(close(r.hidden_fraction.unwrap(), 0.5), "{r:?}");
        // Not hidden: the whole 50 us reappears in their wait.
        let r = hidden_case(0, |_| 2.0, |_| 52.0);
        assert!(r.hidden_fraction.unwrap().abs() < 1e-9, "{r:?}");
        // Worse than not hidden: not clipped to 0.
        let r = hidden_case(0, |_| 2.0, |_| 62.0);
        assert!(close(r.hidden_fraction.unwrap(), -0.2), "{r:?}");
        assert_eq!(r.hidden_na, None);
    }

    #[test]
    fn delay_hidden_of_a_late_root_compares_the_same_ranks() {
        // ibcast, root 0 late. Baseline: the root waits 1 us, the others 5 us. Delayed: the
        // non-roots wait 5 us as before: fully hidden. Over all ranks in the baseline
        // (mean 11/3 us) it would read 1 − (5 − 11/3)/50 = 97.3 %.
        let r = hidden_case(
            0,
            |rank| if rank == 0 { 1.0 } else { 5.0 },
            |rank| if rank == 0 { 1.0 } else { 5.0 },
        );
        assert!(close(r.hidden_fraction.unwrap(), 1.0), "{r:?}");
        // Rank 1 late instead: the root and rank 2 are punctual, (1 + 5) / 2 = 3 us on both
        // sides.
        let r = hidden_case(
            1,
            |rank| if rank == 0 { 1.0 } else { 5.0 },
            |rank| if rank == 0 { 1.0 } else { 5.0 },
        );
        assert!(close(r.hidden_fraction.unwrap(), 1.0), "{r:?}");
    }

    #[test]
    fn tools_use_every_repetition_even_without_a_valid_one() {
        let mut b = two_ranks();
        b.flags
            .iter_mut()
            .for_each(|f| *f = crate::records::FLAG_STARTED_LATE);
        let row = overlap_row(&b, None).unwrap();
        assert_eq!((row.valid, row.overall_s), (0, None));
        assert!(close(row.overlap_osu_pct.unwrap(), 40.0), "{row:?}");
        // Without the tools' columns either, there is no row.
        b.overlap.as_mut().unwrap().pure_pass = None;
        assert_eq!(overlap_row(&b, None), None);
    }

    #[test]
    fn delay_hidden_needs_a_baseline() {
        let late = overlap_block(
            Op::Iallreduce,
            2,
            4,
            50e-6,
            |_, rank| Parts::simple(if rank == 0 { 50e-6 } else { 0.0 }, 3e-6),
            None,
        );
        let row = overlap_row(&late, None).unwrap();
        assert_eq!(row.hidden_fraction, None);
        assert_eq!(row.hidden_na, Some(NA_NO_BASELINE));
    }

    #[test]
    fn delay_hidden_has_no_interval_below_the_minimum_of_valid_repetitions() {
        let boot = Bootstrap::default();
        let waits = |n: usize, base: f64| -> Vec<f64> {
            (0..n).map(|i| base + (i % 5) as f64 * 1e-6).collect()
        };
        // Five baseline repetitions: a fraction, but no interval.
        let h = delay_hidden(50e-6, &waits(40, 27e-6), &waits(5, 2e-6), 1, &boot).unwrap();
        assert!(close(h.fraction, 0.5), "{h:?}");
        assert_eq!((h.ci_lo, h.ci_hi, h.n), (None, None, 5));
        // Six: the interval.
        let h = delay_hidden(50e-6, &waits(40, 27e-6), &waits(6, 2e-6), 1, &boot).unwrap();
        assert!(h.ci_lo.is_some() && h.ci_hi.is_some() && h.n == 6, "{h:?}");
        assert_eq!(crate::analysis::MIN_VALID_FOR_CI, 6);
    }

    #[test]
    fn delay_hidden_interval_covers_the_estimate() {
        // Waits that vary between repetitions: an interval of non-zero width around 0.5.
        let boot = Bootstrap::default();
        let delayed: Vec<f64> = (0..40).map(|i| 27e-6 + (i % 5) as f64 * 1e-6).collect();
        let base: Vec<f64> = (0..40).map(|i| 2e-6 + (i % 5) as f64 * 1e-6).collect();
        let h = delay_hidden(50e-6, &delayed, &base, 1, &boot).unwrap();
        assert!(close(h.fraction, 0.5), "{h:?}");
        let (lo, hi) = (h.ci_lo.unwrap(), h.ci_hi.unwrap());
        assert!(lo < 0.5 && 0.5 < hi && hi - lo < 0.1, "{lo} {hi}");
    }
}
