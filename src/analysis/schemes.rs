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
    /// Scheme name (`barrier-max`, `pipelined`, `barrier-loop`, `window`, `ol-max`,
    /// `bcast-rounds`, `bcast-barrier`).
    pub scheme: String,
    /// Repetitions (or loop iterations) behind the time: for `window` the valid ones.
    pub n: u32,
    /// Operation time by this scheme, seconds (NaN when no repetition was valid).
    pub time_s: f64,
    /// time / window t_global − 1 of the same (op, bytes, P): < 0 underestimates, > 0
    /// overestimates. `None` for the reference itself or without one.
    pub vs_window: Option<f64>,
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
