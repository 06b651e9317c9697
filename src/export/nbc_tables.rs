//! `analyze --overlap` and `analyze --timing` as a table, CSV or JSON.

use super::table_cells::size_cell;
use super::write_table;
use super::{ExportError, Format};
use crate::analysis::{OverlapRow, SchemeRow, TimingRow};
use crate::plan::Op;
use crate::units::format_duration;
use std::io::Write;

const OVERLAP_HEADERS: [&str; 19] = [
    "op",
    "size",
    "P",
    "delay",
    "mode",
    "valid/total",
    "t_pure (us)",
    "overall (us)",
    "compute (us)",
    "post (us)",
    "test (us)",
    "wait (us)",
    "overhead (us)",
    "OSU 7.4 t_pure (us)",
    "overlap OSU 7.4 (%)",
    "IMB 2021 t_pure (us)",
    "overlap IMB-NBC 2021 (%)",
    "delay hidden (us, %) [95% CI]",
    "n/a because",
];

const TIMING_HEADERS: [&str; 9] = [
    "op",
    "size",
    "P",
    "delay",
    "valid/total",
    "t_global med (us)",
    "t_max_local med (us)",
    "rank 0 local med (us)",
    "CI half-width (%)",
];

/// Op, size ("-" without payload), P and delay cells.
fn key(op: Op, bytes: u64, nprocs: u32, delay_s: f64) -> Vec<String> {
    let size = size_cell(op, bytes);
    let delay = if delay_s > 0.0 {
        format_duration(delay_s)
    } else {
        "0".into()
    };
    vec![op.name().into(), size, nprocs.to_string(), delay]
}

const SCHEME_HEADERS: [&str; 7] = [
    "op",
    "size",
    "P",
    "scheme",
    "n",
    "time (us)",
    "vs window (%)",
];

/// Writes `delaybench schemes` rows (table: microseconds, deviation in percent).
pub fn write_schemes(
    rows: &[SchemeRow],
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let cells = |r: &SchemeRow| {
        let mut c = key(r.op, r.bytes, r.nprocs, 0.0);
        c.pop();
        c.extend([
            r.scheme.clone(),
            r.n.to_string(),
            us(r.time_s),
            r.vs_window
                .map_or_else(|| "-".into(), |v| format!("{:+.1}", v * 100.0)),
        ]);
        c
    };
    write_table(rows, format, &SCHEME_HEADERS, cells, out)
}

fn us(s: f64) -> String {
    format!("{:.2}", s * 1e6)
}

/// Writes overlap rows (table: microseconds and percent).
pub fn write_overlap(
    rows: &[OverlapRow],
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let cells = |r: &OverlapRow| {
        let mut c = key(r.op, r.bytes, r.nprocs, r.delay_s);
        c.push(r.mode.clone());
        c.push(format!("{}/{}", r.valid, r.total));
        c.push(us(r.t_pure_s));
        c.extend(
            [
                r.overall_s,
                r.compute_s,
                r.post_s,
                r.test_s,
                r.wait_s,
                r.overhead_s,
            ]
            // No valid repetition: the OSU and IMB columns may still be there.
            .map(|v| v.map_or_else(|| "-".to_string(), us)),
        );
        let na = || "n/a".to_string();
        let pct = |v: Option<f64>| v.map_or_else(na, |v| format!("{v:.1}"));
        c.push(r.osu_t_pure_s.map_or_else(na, us));
        c.push(pct(r.overlap_osu_pct));
        c.push(r.imb_t_pure_s.map_or_else(na, us));
        c.push(pct(r.overlap_imb_pct));
        c.push(match (r.hidden_delay_s, r.hidden_fraction) {
            (Some(h), Some(f)) => match (r.hidden_ci_lo, r.hidden_ci_hi) {
                (Some(lo), Some(hi)) => format!(
                    "{} ({:.0}%) [{:.0}, {:.0}]",
                    us(h),
                    f * 100.0,
                    lo * 100.0,
                    hi * 100.0
                ),
                // Below the minimum for an interval: say so, not a bare point that reads
                // as settled.
                _ => match r.hidden_n {
                    Some(n) if (n as usize) < crate::analysis::MIN_VALID_FOR_CI => {
                        format!("{} ({:.0}%) too few (n={n})", us(h), f * 100.0)
                    }
                    _ => format!("{} ({:.0}%)", us(h), f * 100.0),
                },
            },
            _ => na(),
        });
        // The reasons, OSU/IMB first, then the delay hidden's (a baseline's is obvious).
        let reasons: Vec<String> = [
            r.tools_na.map(|w| format!("OSU/IMB: {w}")),
            r.hidden_na
                .filter(|w| *w != crate::analysis::overlap::NA_NOT_DELAYED)
                .map(|w| format!("hidden: {w}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        c.push(if reasons.is_empty() {
            "-".into()
        } else {
            reasons.join("; ")
        });
        c
    };
    write_table(rows, format, &OVERLAP_HEADERS, cells, out)
}

/// Writes timing-method rows (table: microseconds; "-" for a method not chosen).
pub fn write_timing(
    rows: &[TimingRow],
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let opt = |v: Option<f64>| v.map_or_else(|| "-".into(), us);
    let cells = |r: &TimingRow| {
        let mut c = key(r.op, r.bytes, r.nprocs, r.delay_s);
        c.push(format!("{}/{}", r.valid, r.total));
        c.extend([
            opt(r.t_global_median_s),
            opt(r.t_max_local_median_s),
            opt(r.t_root_median_s),
            r.ci_rel_error
                .map_or_else(|| "-".into(), |e| format!("{:.1}", e * 100.0)),
        ]);
        c
    };
    write_table(rows, format, &TIMING_HEADERS, cells, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::overlap::overlap_rows;
    use crate::records::testdata::{self, overlap_block, Parts};
    use crate::records::Records;

    /// The `--overlap` table of a late arrival on 2 ranks and its baseline, `nrep`
    /// repetitions each.
    fn table(nrep: u32) -> String {
        let block = |delay: f64| {
            overlap_block(
                Op::Iallreduce,
                2,
                nrep,
                delay,
                move |rep, rank| {
                    let late = if rank == 0 { delay } else { 0.0 };
                    Parts::simple(late, (2 + rep % 3) as f64 * 1e-6)
                },
                Some(vec![5e-6; 2]),
            )
        };
        let records = Records {
            header: testdata::header(2),
            blocks: vec![block(0.0), block(50e-6)],
            footer: None,
            truncated: false,
        };
        let mut out = Vec::new();
        write_overlap(&overlap_rows(&records), Format::Table, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_delay_hidden_below_the_minimum_of_repetitions_says_too_few() {
        let few = table(5);
        assert!(few.contains("(100%) too few (n=5)"), "{few}");
        let enough = table(6);
        assert!(
            !enough.contains("too few") && enough.contains("(100%) ["),
            "{enough}"
        );
    }
}
