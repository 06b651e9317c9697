//! Rows of `delaybench schemes`: the same operation timed by every published scheme, and how
//! far each lies from window-synchronised t_global.

use crate::plan::Op;
use serde::Serialize;

/// The scheme every other is compared with: window synchronisation on the global clock,
/// median t_global (Niethammer et al. 2016, eq. 4; Hunold and Carpen-Amarie 2015, scheme 4).
pub const REFERENCE_SCHEME: &str = "window";

/// One operation time by one scheme, seconds per operation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemeRow {
    pub op: Op,
    pub bytes: u64,
    pub nprocs: u32,
    /// Scheme name (`osu-7.4-avg`, `imb-2021-tavg`, `imb-2021-tmax`, `barrier-max`,
    /// `pipelined-imb-pre2018`, `barrier-loop`, `root-mpiblib`, `window`, `ol-max`,
    /// `bcast-rounds`, `bcast-barrier`; see [`SCHEMES`]).
    pub scheme: String,
    /// Repetitions (or loop iterations) behind the time: for `window` the valid ones.
    pub n: u32,
    /// Operation time by this scheme, seconds (NaN when no repetition was valid).
    pub time_s: f64,
    /// time / window t_global − 1 of the same (op, bytes, P): < 0 underestimates, > 0
    /// overestimates. `None` for the reference itself or without one.
    pub vs_window: Option<f64>,
}

/// Every scheme name `delaybench schemes` prints, in its order, with the tool (and
/// version) or paper whose timing it mimics. The last three are for bcast only.
pub const SCHEMES: [(&str, &str); 11] = [
    ("osu-7.4-avg", "OSU 7.4 osu_allreduce & co.: Avg Latency"),
    ("imb-2021-tavg", "IMB-MPI1 2021 (-sync 1): t_avg"),
    ("imb-2021-tmax", "IMB-MPI1 2021 (-sync 1): t_max"),
    (
        "barrier-max",
        "delaybench's own: Lastovetsky et al. 2008 maximum method after a barrier",
    ),
    (
        "pipelined-imb-pre2018",
        "IMB before 2018 and mpptest, as Lastovetsky et al. 2008 §2 describe",
    ),
    ("barrier-loop", "Phloem"),
    (
        "root-mpiblib",
        "MPIBlib root timing (Lastovetsky et al. 2008, §2)",
    ),
    (
        "window",
        "Niethammer et al. 2016 eq. 4; Hunold and Carpen-Amarie 2015 scheme 4",
    ),
    ("ol-max", "de Supinski and Karonis 1999, Figure 9"),
    (
        "bcast-rounds",
        "de Supinski and Karonis 1999, §3 (task 0's time)",
    ),
    (
        "bcast-barrier",
        "de Supinski and Karonis 1999, §3 (task 0's time)",
    ),
];

/// Mean of `v` (NaN when empty).
fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// OSU 7.4's "Avg Latency" of a blocking collective (`osu_allreduce.c` & co.): per rank the
/// mean over the iterations of (clock, op, clock), each followed by a barrier; then the mean
/// of those over ranks. `per_rank_mean_s`: each rank's mean, seconds.
pub fn osu_avg_latency(per_rank_mean_s: &[f64]) -> f64 {
    mean(per_rank_mean_s)
}

/// IMB-MPI1 2021's t_avg and t_max of a collective (`IMB_allreduce.c` & co. with the default
/// `-sync 1`: a barrier after each timed call; `IMB_output.c`): per rank the mean time per
/// call, then the mean and the maximum over ranks. Seconds in and out.
pub fn imb_t_avg_max(per_rank_mean_s: &[f64]) -> (f64, f64) {
    let max = per_rank_mean_s
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    (mean(per_rank_mean_s), max)
}

/// MPIBlib's root timing (Lastovetsky, Rychkov and O'Flynn 2008, §2): per repetition the
/// root's time from before the operation until it has received an empty confirmation
/// message from every other rank (`root_s`), averaged, minus the mean time of one
/// confirmation message (`confirmation_s`, measured in the same run). Seconds. Can be
/// negative for very small messages, where the correction exceeds what it corrects.
pub fn mpiblib_root(root_s: &[f64], confirmation_s: f64) -> f64 {
    mean(root_s) - confirmation_s
}

/// Fills `vs_window` of every row from the [`REFERENCE_SCHEME`] row of its (op, bytes, P).
pub fn compare_with_window(rows: &mut [SchemeRow]) {
    let reference: Vec<(Op, u64, u32, f64)> = rows
        .iter()
        .filter(|r| r.scheme == REFERENCE_SCHEME)
        .map(|r| (r.op, r.bytes, r.nprocs, r.time_s))
        .collect();
    for row in rows.iter_mut().filter(|r| r.scheme != REFERENCE_SCHEME) {
        row.vs_window = reference
            .iter()
            .find(|(op, b, p, _)| (*op, *b, *p) == (row.op, row.bytes, row.nprocs))
            .filter(|(.., t)| *t > 0.0)
            .map(|(.., t)| row.time_s / t - 1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_statistics_by_hand() {
        // Ranks' mean times 10, 14, 12 us: OSU's average 12 us, IMB's t_avg 12 and t_max 14.
        let per_rank = [10e-6, 14e-6, 12e-6];
        assert!((osu_avg_latency(&per_rank) - 12e-6).abs() < 1e-15);
        let (avg, max) = imb_t_avg_max(&per_rank);
        assert!((avg - 12e-6).abs() < 1e-15 && max == 14e-6);
        // Root waited 5, 7, 6 us; one confirmation takes 1.5 us: 6 − 1.5 = 4.5 us.
        assert!((mpiblib_root(&[5e-6, 7e-6, 6e-6], 1.5e-6) - 4.5e-6).abs() < 1e-15);
        // A tiny operation: the correction exceeds it and the result is negative.
        assert!(mpiblib_root(&[1e-6, 1e-6], 1.5e-6) < 0.0);
    }

    #[test]
    fn every_scheme_names_its_source() {
        let names: Vec<&str> = SCHEMES.iter().map(|s| s.0).collect();
        assert!(names.contains(&REFERENCE_SCHEME));
        assert!(SCHEMES.iter().all(|(_, source)| !source.is_empty()));
    }

    fn row(scheme: &str, p: u32, time_s: f64) -> SchemeRow {
        SchemeRow {
            op: Op::Bcast,
            bytes: 8,
            nprocs: p,
            scheme: scheme.into(),
            n: 10,
            time_s,
            vs_window: None,
        }
    }

    #[test]
    fn deviation_from_window_by_hand() {
        let mut rows = vec![
            row("pipelined", 2, 5e-6),
            row("window", 2, 10e-6),
            row("barrier-max", 2, 12e-6),
            row("barrier-max", 4, 12e-6),
        ];
        compare_with_window(&mut rows);
        assert!((rows[0].vs_window.unwrap() + 0.5).abs() < 1e-12);
        assert_eq!(rows[1].vs_window, None);
        assert!((rows[2].vs_window.unwrap() - 0.2).abs() < 1e-12);
        // No window row at P = 4: nothing to compare with.
        assert_eq!(rows[3].vs_window, None);
    }
}
