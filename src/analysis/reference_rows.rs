//! The library's allreduce beside the reference algorithms (`ref:*` kernels): per
//! configuration the median t_global of the library's allreduce, of the fastest reference
//! algorithm a real program could run, and of the clairvoyant one, which orders the
//! reduction by the arrival order the benchmark planned (docs/reference-algorithms.md): the
//! clairvoyant reference, not a bound (the lower bounds of t_global are `lower_bound.rs`).

use super::ConfigStats;
use crate::plan::Op;
use crate::timeline::Configuration;

/// One configuration (size, P, delay model) that has the library's allreduce and at least one
/// reference kernel. Times are median t_global of the valid repetitions, seconds; `None`
/// where the kernel was not measured or had no valid repetition.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceRow {
    /// Bytes per rank.
    pub bytes: u64,
    pub nprocs: u32,
    /// The delay model's label (`0` for the undelayed baseline).
    pub delay_model: String,
    /// Nominal delay, seconds (0 for the baseline).
    pub delay_s: f64,
    /// The fastest row of the `allreduce` op: today the one the library chose; rows split by
    /// the library's algorithm would make it the library's best.
    pub library_s: Option<f64>,
    /// That row's cost of the late arrival, t_delta - t0 from medians, seconds (`None` for
    /// the baseline).
    pub library_cost_s: Option<f64>,
    /// The fastest reference kernel other than the clairvoyant one, and its time.
    pub best_reference: Option<(Op, f64)>,
    /// `ref:clairvoyant`: the sorted linear tree on the planned arrival order.
    pub clairvoyant_s: Option<f64>,
    /// Its cost of the late arrival, t_delta - t0 from medians, seconds.
    pub clairvoyant_cost_s: Option<f64>,
}

impl ReferenceRow {
    /// What the clairvoyant ordering would save over the library, seconds (negative: the
    /// library was faster).
    pub fn library_minus_clairvoyant_s(&self) -> Option<f64> {
        Some(self.library_s? - self.clairvoyant_s?)
    }
}

/// The rows of every configuration with the `allreduce` op and at least one `ref:*` kernel,
/// in size, P and delay order (baseline first). Empty when the run measured no reference
/// kernel.
pub fn reference_rows(rows: &[ConfigStats]) -> Vec<ReferenceRow> {
    let median = |r: &ConfigStats| r.t_global_median_s;
    let mut keys: Vec<(u64, u32, String, f64)> = rows
        .iter()
        .filter(|r| r.op.is_reference())
        .map(|r| (r.bytes, r.nprocs, r.delay_model.clone(), r.delay_s))
        .collect();
    keys.sort_by(|a, b| {
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then(a.3.total_cmp(&b.3))
            .then(a.2.cmp(&b.2))
    });
    keys.dedup();
    keys.into_iter()
        .filter_map(|(bytes, nprocs, delay_model, delay_s)| {
            let here: Vec<&ConfigStats> = rows
                .iter()
                .filter(|r| r.bytes == bytes && r.nprocs == nprocs && r.delay_model == delay_model)
                .filter(|r| r.is_baseline() == (delay_s == 0.0))
                .collect();
            let library: Vec<&&ConfigStats> =
                here.iter().filter(|r| r.op == Op::Allreduce).collect();
            if library.is_empty() {
                return None;
            }
            let best_reference = here
                .iter()
                .filter(|r| r.op.is_reference() && r.op != Op::RefClairvoyant)
                .filter_map(|r| Some((r.op, median(r)?)))
                .min_by(|a, b| a.1.total_cmp(&b.1));
            let best_library = library
                .iter()
                .filter(|r| median(r).is_some())
                .min_by(|a, b| median(a).unwrap().total_cmp(&median(b).unwrap()));
            let clairvoyant = here
                .iter()
                .find(|r| r.op == Op::RefClairvoyant && median(r).is_some());
            let cost = |r: &ConfigStats| r.cost_median_s.filter(|_| !r.is_baseline());
            Some(ReferenceRow {
                bytes,
                nprocs,
                delay_model,
                delay_s,
                library_s: best_library.and_then(|r| median(r)),
                library_cost_s: best_library.and_then(|r| cost(r)),
                best_reference,
                clairvoyant_s: clairvoyant.and_then(|r| median(r)),
                clairvoyant_cost_s: clairvoyant.and_then(|r| cost(r)),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(op: Op, bytes: u64, delay_s: f64, median_us: Option<f64>) -> ConfigStats {
        // The figures' fixture is the one builder of a whole row; test code only.
        let mut r = crate::plot::fixtures::stats(op, bytes, 4, delay_s);
        r.delay_model = if delay_s == 0.0 { "0" } else { "50us" }.into();
        r.t_global_median_s = median_us.map(|us| us * 1e-6);
        r.cost_median_s = median_us.map(|us| (us - 20.0) * 1e-6);
        r
    }

    #[test]
    fn library_best_reference_and_clairvoyant_side_by_side() {
        let rows = vec![
            timed(Op::Allreduce, 8, 0.0, Some(20.0)),
            timed(Op::Allreduce, 8, 50e-6, Some(70.0)),
            timed(Op::RefRing, 8, 50e-6, Some(90.0)),
            timed(Op::RefSortedLinearTree, 8, 50e-6, Some(60.0)),
            timed(Op::RefClairvoyant, 8, 50e-6, Some(55.0)),
            timed(Op::RefClairvoyant, 8, 0.0, None),
            // No allreduce at this size: no row.
            timed(Op::RefRing, 1024, 50e-6, Some(1.0)),
            timed(Op::Bcast, 8, 50e-6, Some(1.0)),
        ];
        let got = reference_rows(&rows);
        assert_eq!(got.len(), 2, "{got:#?}");
        // Baseline first: the clairvoyant kernel had no valid repetition there.
        assert_eq!(got[0].delay_s, 0.0);
        assert_eq!(got[0].clairvoyant_s, None);
        assert_eq!(got[0].best_reference, None);
        assert_eq!(got[0].library_minus_clairvoyant_s(), None);
        let d = &got[1];
        assert_eq!(d.best_reference.map(|b| b.0), Some(Op::RefSortedLinearTree));
        assert!((d.library_minus_clairvoyant_s().unwrap() - 15e-6).abs() < 1e-12);
        assert!((d.library_cost_s.unwrap() - 50e-6).abs() < 1e-12);
        assert!((d.clairvoyant_cost_s.unwrap() - 35e-6).abs() < 1e-12);
        assert_eq!(got[0].library_cost_s, None, "a baseline has no cost");
        assert!(
            reference_rows(&rows[..2]).is_empty(),
            "no ref kernel, no row"
        );
    }
}
