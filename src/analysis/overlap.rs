//! Overlap of nonblocking kernels (`--overlap`): overhead, overlap % by the OSU and IMB-NBC
//! definitions, and how much of a late arrival the punctual ranks' computation hid.

use crate::plan::Op;
use crate::records::{Block, OverlapRecord, Records};
use crate::timeline::Baselines;
use serde::Serialize;

/// Overlap % as OSU's `osu_iallreduce` & co. define it:
/// `max(0, 100 - (overall - compute) / pure * 100)`. All arguments in seconds; `pure` is the
/// operation time without computation (t_b), `overall` post + compute + tests + wait.
pub fn osu_overlap_pct(overall_s: f64, compute_s: f64, pure_s: f64) -> f64 {
    (100.0 - (overall_s - compute_s) / pure_s * 100.0).max(0.0)
}

/// Overlap % as IMB-NBC defines it: `100 * (t_pure + t_CPU - t_ovrl) / max(t_pure, t_CPU)`,
/// clipped to [0, 100]. All arguments in seconds; `t_ovrl` is the time of the overlapped run.
pub fn imb_overlap_pct(t_pure_s: f64, t_cpu_s: f64, t_ovrl_s: f64) -> f64 {
    (100.0 * (t_pure_s + t_cpu_s - t_ovrl_s) / t_pure_s.max(t_cpu_s)).clamp(0.0, 100.0)
}

/// Overlap summary of one block measured in overlap mode. Times in seconds: means over the
/// valid repetitions and the ranks (OSU averages over ranks; IMB-NBC reports the slowest
/// rank, so its published numbers can differ from the same formula here).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverlapRow {
    pub op: Op,
    pub bytes: u64,
    pub nprocs: u32,
    pub delay_s: f64,
    /// `time` or `work`.
    pub mode: String,
    pub valid: u32,
    pub total: u32,
    /// t_b: the pure operation time the computation was sized to.
    pub t_pure_s: f64,
    /// end − start of a rank: post + compute + tests + wait.
    pub overall_s: f64,
    pub compute_s: f64,
    pub post_s: f64,
    pub test_s: f64,
    pub wait_s: f64,
    /// Time in MPI calls: post + tests + wait.
    pub overhead_s: f64,
    /// [`osu_overlap_pct`] of the means.
    pub overlap_osu_pct: f64,
    /// [`imb_overlap_pct`] of the means.
    pub overlap_imb_pct: f64,
    /// Late arrivals only: of the delay δ, the seconds the punctual ranks' computation hid,
    /// δ − (their MPI time − the baseline's MPI time), clipped to [0, δ].
    pub hidden_delay_s: Option<f64>,
    /// `hidden_delay_s / δ`: 1 = the computation hid the whole late arrival.
    pub hidden_fraction: Option<f64>,
}

/// Means over the valid repetitions of `block` and the ranks `keep(rep, rank)` selects:
/// [overall, compute, post, test, wait], seconds. `None` when nothing is selected.
fn means(
    block: &Block,
    o: &OverlapRecord,
    keep: impl Fn(usize, usize) -> bool,
) -> Option<[f64; 5]> {
    let p = block.nprocs as usize;
    let mut sum = [0.0; 5];
    let mut n = 0usize;
    for rep in (0..block.nrep as usize).filter(|&r| block.rep_valid(r)) {
        for rank in (0..p).filter(|&k| keep(rep, k)) {
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

/// MPI time (post + tests + wait) of the punctual ranks (applied delay 0), mean, seconds.
fn punctual_overhead(block: &Block, o: &OverlapRecord) -> Option<f64> {
    let m = means(block, o, |rep, rank| {
        block.applied_delay_s.0[block.idx(rep, rank)] == 0.0
    })?;
    Some(m[2] + m[3] + m[4])
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

/// [`overlap_rows`] of a file read once, block by block: per overlap block its row and the
/// MPI time of its punctual ranks, per baseline that time alone; each late arrival's hidden
/// delay is filled in against the first overlap baseline of its configuration at the end.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct OverlapRows {
    baselines: Baselines<Option<f64>>,
    rows: Vec<(OverlapRow, Option<f64>, bool)>,
}

crate::timeline::pairing::configuration!(OverlapRow);

impl OverlapRows {
    /// Takes the next block of the pass.
    pub fn add(&mut self, block: &Block) {
        let Some(o) = block.overlap.as_ref() else {
            return;
        };
        self.baselines
            .offer(block, || Some(baseline_overhead(block)));
        if let Some(row) = overlap_row(block, None) {
            self.rows
                .push((row, punctual_overhead(block, o), block.is_late_arrival()));
        }
    }

    /// The rows in block order, with the hidden delays.
    pub fn finish(&self) -> Vec<OverlapRow> {
        self.rows
            .iter()
            .map(|(row, own, late)| {
                let base = self.baselines.of(row).copied().flatten();
                let hidden = hidden_delay(row.delay_s, *late, *own, base);
                OverlapRow {
                    hidden_delay_s: hidden,
                    hidden_fraction: hidden.map(|h| h / row.delay_s),
                    ..row.clone()
                }
            })
            .collect()
    }
}

/// What [`overlap_row`] needs of a baseline (δ = 0, overlap mode, the same op, size and P):
/// the mean MPI time (post + tests + wait) of its punctual ranks, seconds. `None` without
/// overlap records or valid repetitions.
pub fn baseline_overhead(baseline: &Block) -> Option<f64> {
    punctual_overhead(baseline, baseline.overlap.as_ref()?)
}

/// Of a late arrival's delay `delay_s`, the seconds the punctual ranks' computation hid:
/// δ − (their MPI time `own_overhead_s` − the baseline's `baseline_overhead_s`), clipped to
/// [0, δ] (see [`OverlapRow::hidden_delay_s`]). `None` unless `late_arrival` and both
/// overheads are known.
pub fn hidden_delay(
    delay_s: f64,
    late_arrival: bool,
    own_overhead_s: Option<f64>,
    baseline_overhead_s: Option<f64>,
) -> Option<f64> {
    let base = baseline_overhead_s.filter(|_| late_arrival)?;
    let extra = own_overhead_s? - base;
    Some((delay_s - extra).clamp(0.0, delay_s))
}

/// The [`OverlapRow`] of one block measured in overlap mode (`None` otherwise, or without
/// valid repetitions), given its baseline's [`baseline_overhead`] (`None`: no baseline, so
/// no hidden delay): one block and a number, so `--overlap` reads block by block.
pub fn overlap_row(block: &Block, baseline_overhead_s: Option<f64>) -> Option<OverlapRow> {
    let o = block.overlap.as_ref()?;
    let [overall, compute, post, test, wait] = means(block, o, |_, _| true)?;
    let hidden = hidden_delay(
        block.delay_s,
        block.is_late_arrival(),
        punctual_overhead(block, o),
        baseline_overhead_s,
    );
    let valid = (0..block.nrep as usize)
        .filter(|&r| block.rep_valid(r))
        .count();
    Some(OverlapRow {
        op: block.op,
        bytes: block.bytes,
        nprocs: block.nprocs,
        delay_s: block.delay_s,
        mode: o.mode.clone(),
        valid: valid as u32,
        total: block.nrep,
        t_pure_s: o.t_pure_s,
        overall_s: overall,
        compute_s: compute,
        post_s: post,
        test_s: test,
        wait_s: wait,
        overhead_s: post + test + wait,
        overlap_osu_pct: osu_overlap_pct(overall, compute, o.t_pure_s),
        overlap_imb_pct: imb_overlap_pct(o.t_pure_s, compute, overall),
        hidden_delay_s: hidden,
        hidden_fraction: hidden.map(|h| h / block.delay_s),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{testdata, F64Array};

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

    /// `block` with overlap parts: every rank posts 1 us, computes `compute`, tests 0, waits
    /// `wait(rank)`; local start/end spaced to match.
    fn overlapped(delay_s: f64, compute: f64, wait: impl Fn(usize) -> f64) -> Block {
        let mut b = testdata::block(Op::Iallreduce, 8, 2, delay_s, 4, 10e-6);
        let n = b.t_start_local_s.0.len();
        let (mut post, mut comp, mut waits) = (vec![1e-6; n], vec![compute; n], vec![0.0; n]);
        for rep in 0..4 {
            for rank in 0..2 {
                let i = b.idx(rep, rank);
                comp[i] = compute;
                post[i] = 1e-6;
                waits[i] = wait(rank);
                b.t_end_local_s.0[i] = b.t_start_local_s.0[i] + 1e-6 + compute + waits[i];
            }
        }
        b.flags.iter_mut().for_each(|f| *f = 0);
        b.overlap = Some(OverlapRecord {
            mode: "time".into(),
            t_pure_s: 10e-6,
            workload: 0,
            test_interval_bytes: None,
            tests_per_rep: 0,
            post_s: F64Array(post),
            compute_s: F64Array(comp),
            test_s: F64Array(vec![0.0; n]),
            wait_s: F64Array(waits),
        });
        b
    }

    #[test]
    fn rows_and_hidden_delay() {
        let base = overlapped(0.0, 10e-6, |_| 3e-6);
        // Rank 0 is 50 us late; rank 1 (punctual) waits 20 us more than in the baseline, so
        // its computation hid 30 of the 50 us.
        let late = overlapped(50e-6, 10e-6, |rank| if rank == 0 { 3e-6 } else { 23e-6 });
        let records = Records {
            header: testdata::header(2),
            blocks: vec![base, late],
            footer: None,
            truncated: false,
        };
        let rows = overlap_rows(&records);
        assert_eq!(rows.len(), 2);
        let r = &rows[0];
        assert!((r.overall_s - 14e-6).abs() < 1e-12, "{}", r.overall_s);
        assert!((r.overhead_s - 4e-6).abs() < 1e-12);
        assert!((r.overlap_osu_pct - 60.0).abs() < 1e-6);
        assert!((r.overlap_imb_pct - 60.0).abs() < 1e-6);
        assert_eq!(r.hidden_delay_s, None);
        let h = rows[1].hidden_delay_s.unwrap();
        assert!((h - 30e-6).abs() < 1e-12, "{h}");
        assert!((rows[1].hidden_fraction.unwrap() - 0.6).abs() < 1e-9);
    }
}
