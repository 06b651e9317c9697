//! One flat row per (block, repetition, rank): the records' `[nrep][nprocs]` arrays unrolled,
//! with the block's configuration repeated on each row so a spreadsheet or dataframe needs no
//! join.

use crate::plan::Op;
use crate::records::{Block, Header, Records, RunLabel, FLAG_STARTED_LATE, FLAG_WINDOW_OVERRUN};
use serde::{Deserialize, Serialize};

/// Version of the `export` schemas (columns of [`RankRow`] and [`super::RepRow`]),
/// documented in `docs/exports.md`. Version 1 had no version column, delay model, reasons,
/// scheduled start or run id; version 2 no MPI library, hosts or tags, and its run id was
/// `<UTC start>-<seed>` (still so for files written before run ids were recorded); version 3
/// no algorithm; version 4 listed every host in the rep rows' `host_names` (now folded,
/// [`crate::records::host_list::folded`]).
pub const EXPORT_SCHEMA_VERSION: u32 = 5;

/// What one rank did in one repetition of one block. Times in seconds, sizes in bytes.
///
/// Field names are the column names of `delaybench export` ([`super::RANK_COLUMNS`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankRow {
    /// [`EXPORT_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The launch these rows come from ([`run_id`]), so exports of several runs concatenate.
    pub run_id: String,
    /// The MPI library in one line (first line of `MPI_Get_library_version`).
    pub mpi_library: String,
    /// The run's `--tag`s, `key=value` joined with `;`.
    pub tags: String,
    /// Kernel, written by name (`iallreduce`).
    pub op: Op,
    /// Message size in bytes as the kernel defines it (0 for barriers).
    pub bytes: u64,
    /// P: ranks 0..nprocs-1 took part.
    pub nprocs: u32,
    /// The collective algorithm of the block (`--algorithms`), empty when the run chose none.
    pub algorithm: String,
    /// The block's delay model (`0`, `50us`, `exp:50us`): tells fixed and sampled delays
    /// of the same mean apart.
    pub delay_model: String,
    /// The block's nominal delay δ in seconds (0 for the undelayed baseline).
    pub delay_s: f64,
    /// Repetition index within the block, from 0.
    pub rep: u32,
    /// Rank within the sub-communicator of P ranks, from 0.
    pub rank: u32,
    /// Host of this rank (`MPI_Get_processor_name`).
    pub host: String,
    /// True when this rank was delayed in this repetition: one of the block's fixed delayed
    /// ranks, or given a delay > 0 (ranks drawn per repetition, `random:K`, sampled models).
    pub delayed: bool,
    /// Delay this rank was given in this repetition, seconds.
    pub applied_delay_s: f64,
    /// The repetition's scheduled global start instant, seconds (NaN, or `null` in JSON,
    /// with barrier sync).
    pub scheduled_start_s: f64,
    /// Local clock reading just before the operation, seconds.
    pub t_start_local_s: f64,
    /// Local clock reading just after the operation, seconds.
    pub t_end_local_s: f64,
    /// `t_start_local_s` on the global clock, seconds.
    pub t_start_global_s: f64,
    /// `t_end_local_s` on the global clock, seconds.
    pub t_end_global_s: f64,
    /// True when no rank of this repetition has a flag set ([`Block::rep_valid`]): the same
    /// value on every row of the repetition.
    pub valid: bool,
    /// Why the repetition is invalid: `started_late`, `window_overrun`, both joined by `+`,
    /// or empty when valid (the flags of all its ranks).
    pub invalid_reason: String,
    /// This rank's own flags in the same words (empty when it has none).
    pub rank_flags: String,
}

/// Identifies one launch: the run id of its header ([`RunLabel::run_id`]).
pub fn run_id(records: &Records) -> String {
    run_id_of(&records.header)
}

/// [`run_id`] from the header alone, for a file read block by block.
pub fn run_id_of(header: &Header) -> String {
    RunLabel::of(header).run_id
}

/// The flag bits `flags` in words: `started_late`, `window_overrun`, joined by `+`.
pub fn flag_words(flags: u8) -> String {
    let mut words = Vec::new();
    if flags & FLAG_STARTED_LATE != 0 {
        words.push("started_late");
    }
    if flags & FLAG_WINDOW_OVERRUN != 0 {
        words.push("window_overrun");
    }
    words.join("+")
}

/// OR of the flags of every rank of repetition `rep`.
pub(super) fn rep_flags(block: &Block, rep: usize) -> u8 {
    let p = block.nprocs as usize;
    block.flags[rep * p..(rep + 1) * p]
        .iter()
        .fold(0, |a, &f| a | f)
}

/// All rows of `records`, blocks in measurement order, then repetitions, then ranks:
/// `sum(nrep * nprocs)` rows. Collects [`iter_rank_rows`]; prefer the iterator for big runs.
///
/// Blocks must have the `[nrep][nprocs]` shape ([`Block::shape_ok`], which
/// [`crate::records::read_records`] checks); a malformed in-memory block panics.
pub fn rank_rows(records: &Records) -> Vec<RankRow> {
    iter_rank_rows(records).collect()
}

/// The rows of [`rank_rows`], produced one at a time: a run with 1000 repetitions of
/// 100 configurations at P = 1024 has 10^8 of them, too many to hold in memory.
pub fn iter_rank_rows(records: &Records) -> impl Iterator<Item = RankRow> + '_ {
    let label = RunLabel::of(&records.header);
    records
        .blocks
        .iter()
        .flat_map(move |b| owned_id_rows(b, label.clone()))
}

/// The rows of one block, repetitions then ranks.
pub(super) fn block_rows<'a>(
    block: &'a Block,
    run: &RunLabel,
) -> impl Iterator<Item = RankRow> + 'a {
    owned_id_rows(block, run.clone())
}

fn owned_id_rows(block: &Block, run: RunLabel) -> impl Iterator<Item = RankRow> + '_ {
    let p = block.nprocs as usize;
    let nrep = block.nrep as usize;
    // Per repetition and per rank once, not per row: both lookups are O(P).
    let reasons: Vec<String> = (0..nrep)
        .map(|rep| flag_words(rep_flags(block, rep)))
        .collect();
    let mut delayed = vec![false; p];
    for &r in &block.delayed_ranks {
        if let Some(d) = delayed.get_mut(r as usize) {
            *d = true;
        }
    }
    let hosts: Vec<String> = (0..p)
        .map(|rank| run.host_of(&block.world_ranks, rank).to_string())
        .collect();
    (0..nrep * p).map(move |i| {
        let (rep, rank) = (i / p, i % p);
        RankRow {
            schema_version: EXPORT_SCHEMA_VERSION,
            run_id: run.run_id.clone(),
            mpi_library: run.mpi_library.clone(),
            tags: run.tags.clone(),
            op: block.op,
            bytes: block.bytes,
            nprocs: block.nprocs,
            algorithm: block.algorithm_name().to_string(),
            delay_model: block.delay_model.clone(),
            delay_s: block.delay_s,
            rep: rep as u32,
            rank: rank as u32,
            host: hosts[rank].clone(),
            delayed: delayed[rank] || block.applied_delay_s.0[i] > 0.0,
            applied_delay_s: block.applied_delay_s.0[i],
            scheduled_start_s: block.scheduled_start_s.0[rep],
            t_start_local_s: block.t_start_local_s.0[i],
            t_end_local_s: block.t_end_local_s.0[i],
            t_start_global_s: block.t_start_global_s.0[i],
            t_end_global_s: block.t_end_global_s.0[i],
            valid: reasons[rep].is_empty(),
            invalid_reason: reasons[rep].clone(),
            rank_flags: flag_words(block.flags[i]),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::test_support::records;

    #[test]
    fn one_row_per_block_repetition_and_rank_in_order() {
        let r = records();
        let rows = rank_rows(&r);
        let expected: usize = r
            .blocks
            .iter()
            .map(|b| b.nrep as usize * b.nprocs as usize)
            .sum();
        assert_eq!(rows.len(), expected);
        // Block 0 is allreduce P = 2: rows (rep 0, rank 0), (0, 1), (1, 0), ...
        let order: Vec<(u32, u32)> = rows[..4].iter().map(|x| (x.rep, x.rank)).collect();
        assert_eq!(order, vec![(0, 0), (0, 1), (1, 0), (1, 1)]);
        // Block 1 (delayed) starts right after block 0's 5 x 2 rows.
        assert_eq!(rows[10].delay_s, 50e-6);
        assert_eq!((rows[10].rep, rows[10].rank), (0, 0));
    }

    #[test]
    fn values_come_from_the_arrays_unchanged() {
        let r = records();
        let rows = rank_rows(&r);
        let b = &r.blocks[1];
        let row = &rows[10 + b.idx(3, 1)];
        assert_eq!((row.op, row.bytes, row.nprocs), (Op::Allreduce, 8, 2));
        assert_eq!((row.rep, row.rank), (3, 1));
        let i = b.idx(3, 1);
        assert_eq!(row.t_start_local_s, b.t_start_local_s.0[i]);
        assert_eq!(row.t_end_local_s, b.t_end_local_s.0[i]);
        assert_eq!(row.t_start_global_s, b.t_start_global_s.0[i]);
        assert_eq!(row.t_end_global_s, b.t_end_global_s.0[i]);
        assert_eq!(row.applied_delay_s, b.applied_delay_s.0[i]);
    }

    #[test]
    fn delayed_and_valid_flags() {
        let r = records();
        let rows = rank_rows(&r);
        // Baseline: nobody delayed. Delayed block: rank 0 only.
        assert!(rows[..10].iter().all(|x| !x.delayed));
        let late = &rows[10..20];
        assert!(late.iter().all(|x| x.delayed == (x.rank == 0)));
        assert_eq!(late[0].applied_delay_s, 50e-6);
        // testdata flags the last rank of rep 1: the whole repetition is invalid on every rank.
        for x in late {
            assert_eq!(x.valid, x.rep != 1, "rep {} rank {}", x.rep, x.rank);
        }
    }

    #[test]
    fn delayed_rank_outside_p_is_ignored() {
        let mut r = records();
        r.blocks[1].delayed_ranks = vec![1, 7];
        r.blocks[1]
            .applied_delay_s
            .0
            .iter_mut()
            .for_each(|d| *d = 0.0);
        let rows = rank_rows(&r);
        assert!(rows[10..20].iter().all(|x| x.delayed == (x.rank == 1)));
    }

    #[test]
    fn ranks_drawn_per_repetition_are_delayed_where_they_got_a_delay() {
        // random:K records no fixed delayed ranks; rep 2 delays rank 1 instead of rank 0.
        let mut r = records();
        let b = &mut r.blocks[1];
        b.delayed_ranks.clear();
        let (i0, i1) = (b.idx(2, 0), b.idx(2, 1));
        b.applied_delay_s.0[i0] = 0.0;
        b.applied_delay_s.0[i1] = 50e-6;
        let rows = rank_rows(&r);
        let late = &rows[10..20];
        for x in late {
            let want = if x.rep == 2 { x.rank == 1 } else { x.rank == 0 };
            assert_eq!(x.delayed, want, "rep {} rank {}", x.rep, x.rank);
        }
    }

    #[test]
    fn reasons_model_schedule_and_run_id() {
        let r = records();
        let rows = rank_rows(&r);
        let late = &rows[10..20];
        // testdata flags the last rank of rep 1 with a window overrun.
        assert_eq!(late[2].invalid_reason, "window_overrun");
        assert_eq!(late[2].rank_flags, "");
        assert_eq!(late[3].rank_flags, "window_overrun");
        assert_eq!(late[0].invalid_reason, "");
        assert!(late.iter().all(|x| x.delay_model == "50us"));
        assert_eq!(
            late[2].scheduled_start_s,
            r.blocks[1].scheduled_start_s.0[1]
        );
        assert_eq!(late[0].run_id, "00000000-0000-4000-8000-000000000007");
        assert_eq!(
            (late[0].mpi_library.as_str(), late[0].tags.as_str()),
            ("synthetic", "system=test")
        );
        assert!(late.iter().all(|x| x.host == "node0"));
        assert!(late
            .iter()
            .all(|x| x.schema_version == EXPORT_SCHEMA_VERSION));
        assert_eq!(
            flag_words(FLAG_STARTED_LATE | FLAG_WINDOW_OVERRUN),
            "started_late+window_overrun"
        );
    }
}
