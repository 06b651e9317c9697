//! One row per (block, repetition) with its t_global (`delaybench export --rows rep`): what
//! a dataframe needs to redo `analyze` without unrolling ranks.

use super::rank_rows::{flag_words, rep_flags, EXPORT_SCHEMA_VERSION};
use crate::analysis::t_global;
use crate::plan::Op;
use crate::records::{Block, Records, RunLabel};
use serde::{Deserialize, Serialize};

/// One repetition of one block. Times in seconds (global clock), sizes in bytes.
///
/// Field names are the column names of `delaybench export --rows rep` ([`super::REP_COLUMNS`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepRow {
    /// [`EXPORT_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The launch ([`super::run_id`]).
    pub run_id: String,
    /// The MPI library in one line.
    pub mpi_library: String,
    /// The run's distinct hosts in order of their first rank, joined with `,`.
    pub host_names: String,
    /// The run's `--tag`s, `key=value` joined with `;`.
    pub tags: String,
    pub op: Op,
    pub bytes: u64,
    pub nprocs: u32,
    /// The collective algorithm of the block (`--algorithms`), empty when the run chose none.
    pub algorithm: String,
    /// The block's delay model (`0`, `50us`, `exp:50us`).
    pub delay_model: String,
    /// Nominal delay δ, seconds.
    pub delay_s: f64,
    /// Repetition index within the block, from 0.
    pub rep: u32,
    /// Scheduled global start instant (NaN, or `null` in JSON, with barrier sync).
    pub scheduled_start_s: f64,
    /// Earliest global start over the ranks.
    pub first_start_global_s: f64,
    /// Latest global end over the ranks.
    pub last_end_global_s: f64,
    /// t_global = last end − first start (Niethammer et al. 2016, eq. 4), for invalid repetitions too.
    pub t_global_s: f64,
    /// Largest delay applied to a rank in this repetition.
    pub max_applied_delay_s: f64,
    /// Largest minus smallest applied delay: the δ that t_global sees.
    pub delay_spread_s: f64,
    /// True when no rank has a flag ([`Block::rep_valid`]).
    pub valid: bool,
    /// `started_late`, `window_overrun`, both joined by `+`, or empty.
    pub invalid_reason: String,
}

/// All repetitions of `records`, blocks in measurement order: `sum(nrep)` rows.
pub fn rep_rows(records: &Records) -> Vec<RepRow> {
    let label = RunLabel::of(&records.header);
    records
        .blocks
        .iter()
        .flat_map(|b| (0..b.nrep as usize).map(|rep| rep_row(b, rep, &label)))
        .collect()
}

pub(super) fn rep_row(b: &Block, rep: usize, run: &RunLabel) -> RepRow {
    let p = b.nprocs as usize;
    let span = rep * p..(rep + 1) * p;
    let fold = |a: &[f64], init: f64, f: fn(f64, f64) -> f64| {
        a[span.clone()].iter().fold(init, |x, &y| f(x, y))
    };
    let delays = &b.applied_delay_s.0;
    let (lo, hi) = (
        fold(delays, f64::INFINITY, f64::min),
        fold(delays, f64::NEG_INFINITY, f64::max),
    );
    let reason = flag_words(rep_flags(b, rep));
    RepRow {
        schema_version: EXPORT_SCHEMA_VERSION,
        run_id: run.run_id.clone(),
        mpi_library: run.mpi_library.clone(),
        host_names: run.host_names.clone(),
        tags: run.tags.clone(),
        op: b.op,
        bytes: b.bytes,
        nprocs: b.nprocs,
        algorithm: b.algorithm_name().to_string(),
        delay_model: b.delay_model.clone(),
        delay_s: b.delay_s,
        rep: rep as u32,
        scheduled_start_s: b.scheduled_start_s.0[rep],
        first_start_global_s: fold(&b.t_start_global_s.0, f64::INFINITY, f64::min),
        last_end_global_s: fold(&b.t_end_global_s.0, f64::NEG_INFINITY, f64::max),
        t_global_s: t_global(b, rep),
        max_applied_delay_s: hi,
        delay_spread_s: hi - lo,
        valid: reason.is_empty(),
        invalid_reason: reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::test_support::{records, streamed};
    use crate::export::{ExportRows, Format, REP_COLUMNS};

    #[test]
    fn one_row_per_repetition_with_t_global() {
        let r = records();
        let rows = rep_rows(&r);
        assert_eq!(
            rows.len(),
            r.blocks.iter().map(|b| b.nrep as usize).sum::<usize>()
        );
        // Delayed allreduce, rep 3: rank 0 starts 50 us late, ends 13 us later still.
        let x = &rows[5 + 3];
        assert_eq!((x.rep, x.delay_model.as_str()), (3, "50us"));
        assert!((x.t_global_s - 63e-6).abs() < 1e-12, "{x:?}");
        assert!((x.last_end_global_s - x.first_start_global_s - x.t_global_s).abs() < 1e-15);
        assert_eq!((x.max_applied_delay_s, x.delay_spread_s), (50e-6, 50e-6));
        assert!(x.valid && x.invalid_reason.is_empty());
        assert_eq!(rows[5 + 1].invalid_reason, "window_overrun");
        assert!(!rows[5 + 1].valid);
    }

    #[test]
    fn csv_header_and_json_round_trip() {
        let r = records();
        let csv_out = streamed(&r, ExportRows::Rep, Format::Csv);
        assert_eq!(csv_out.lines().next().unwrap(), REP_COLUMNS.join(","));
        let mut reader = csv::Reader::from_reader(csv_out.as_bytes());
        let back: Vec<RepRow> = reader.deserialize().map(Result::unwrap).collect();
        assert_eq!(back, rep_rows(&r));
        let json = streamed(&r, ExportRows::Rep, Format::Json);
        let back: Vec<RepRow> = serde_json::from_str(&json).unwrap();
        assert_eq!(back.len(), rep_rows(&r).len());
        assert_eq!(back[8].t_global_s, rep_rows(&r)[8].t_global_s);
    }
}
