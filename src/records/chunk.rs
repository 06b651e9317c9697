//! Blocks written in chunks: a long block is written as consecutive repetition
//! ranges, each in its own checksummed frame, so an interrupted run keeps every complete chunk
//! of the block in flight, not only whole blocks. A [`BlockEnd`] closes a chunked block.

use super::{Block, F64Array, OverlapRecord};
use serde::{Deserialize, Serialize};

/// Repetitions `first_rep .. first_rep + part.nrep` of one block. `part` has the block's
/// configuration and `[part.nrep][nprocs]` arrays; the chunks of a block follow each other
/// in repetition order and an [`BlockEnd`] closes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// Index of the chunk's first repetition within the block, from 0.
    pub first_rep: u32,
    /// The repetitions of this chunk, as a block of `part.nrep` repetitions.
    pub part: Block,
}

/// Closes a block written in chunks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockEnd {
    /// Repetitions of the whole block: the sum of its chunks' `nrep`.
    pub nrep: u32,
}

/// Appends the repetitions of `part` to `block`, which holds the chunks so far. Per-repetition
/// arrays (overlap parts included) and clock probes are concatenated; the other per-block values
/// (clock models, detour record, wait strategy, adaptive record) are taken from the latest
/// chunk, which knows the most.
///
/// Errors: a text saying how `part` does not continue `block` (another configuration, or not
/// the next repetition).
pub fn append_chunk(block: &mut Block, first_rep: u32, part: Block) -> Result<(), String> {
    if first_rep != block.nrep {
        return Err(format!(
            "chunk starts at repetition {first_rep}, expected {}",
            block.nrep
        ));
    }
    let same = block.op == part.op
        && block.bytes == part.bytes
        && block.nprocs == part.nprocs
        && block.delay_s.to_bits() == part.delay_s.to_bits();
    if !same {
        return Err(format!(
            "chunk of {} {} B P={} continues a block of {} {} B P={}",
            part.op, part.bytes, part.nprocs, block.op, block.bytes, block.nprocs
        ));
    }
    let Block {
        nrep,
        scheduled_start_s,
        t_start_local_s,
        t_end_local_s,
        t_start_global_s,
        t_end_global_s,
        applied_delay_s,
        flags,
        clock_models,
        detour,
        clock_probes,
        wait_strategy,
        late_tolerance_s,
        overlap,
        adaptive,
        start_path,
        ..
    } = part;
    match (block.overlap.as_mut(), overlap) {
        (None, None) => {}
        (Some(mine), Some(more)) => {
            mine.post_s.0.extend(more.post_s.0);
            mine.compute_s.0.extend(more.compute_s.0);
            mine.test_s.0.extend(more.test_s.0);
            mine.wait_s.0.extend(more.wait_s.0);
        }
        _ => return Err("chunk and block disagree on overlap mode".into()),
    }
    match (block.start_path.as_mut(), start_path) {
        (Some(mine), Some(more)) => mine.append(&more),
        (None, None) => {}
        _ => return Err("chunk and block disagree on the start path's stamps".into()),
    }
    block.nrep += nrep;
    block.scheduled_start_s.0.extend(scheduled_start_s.0);
    block.t_start_local_s.0.extend(t_start_local_s.0);
    block.t_end_local_s.0.extend(t_end_local_s.0);
    block.t_start_global_s.0.extend(t_start_global_s.0);
    block.t_end_global_s.0.extend(t_end_global_s.0);
    block.applied_delay_s.0.extend(applied_delay_s.0);
    block.flags.extend(flags);
    block.clock_probes.extend(clock_probes);
    block.clock_models = clock_models;
    block.detour = detour;
    block.wait_strategy = wait_strategy;
    block.late_tolerance_s = late_tolerance_s;
    if adaptive.is_some() {
        block.adaptive = adaptive;
    }
    Ok(())
}

/// Repetitions `reps` of `block` as a block of its own: the piece a chunk holds. Clock probes
/// go with the chunk that holds the repetition they were taken before.
///
/// Panics when `reps` is outside `0..=block.nrep` (a caller bug, not bad input).
pub fn split_block(block: &Block, reps: std::ops::Range<u32>) -> Block {
    let p = block.nprocs as usize;
    let (a, b) = (reps.start as usize, reps.end as usize);
    let cut = |v: &F64Array| F64Array(v.0[a * p..b * p].to_vec());
    Block {
        nrep: reps.end - reps.start,
        scheduled_start_s: F64Array(block.scheduled_start_s.0[a..b].to_vec()),
        t_start_local_s: cut(&block.t_start_local_s),
        t_end_local_s: cut(&block.t_end_local_s),
        t_start_global_s: cut(&block.t_start_global_s),
        t_end_global_s: cut(&block.t_end_global_s),
        applied_delay_s: cut(&block.applied_delay_s),
        flags: block.flags[a * p..b * p].to_vec(),
        clock_probes: block
            .clock_probes
            .iter()
            .filter(|pr| {
                let r = pr.before_rep as usize;
                (r >= a && r < b) || (a == 0 && r == 0)
            })
            .copied()
            .collect(),
        overlap: block.overlap.as_ref().map(|o| OverlapRecord {
            mode: o.mode.clone(),
            post_s: cut(&o.post_s),
            compute_s: cut(&o.compute_s),
            test_s: cut(&o.test_s),
            wait_s: cut(&o.wait_s),
            pure_pass: o.pure_pass.clone(),
            ..*o
        }),
        // Only the per-block values are cloned: `..block.clone()` would copy every array of a
        // long block for the sake of its last chunk.
        op: block.op,
        bytes: block.bytes,
        nprocs: block.nprocs,
        delay_s: block.delay_s,
        delay_model: block.delay_model.clone(),
        delayed_ranks: block.delayed_ranks.clone(),
        window_s: block.window_s,
        wait_strategy: block.wait_strategy.clone(),
        late_tolerance_s: block.late_tolerance_s,
        clock_models: block.clock_models.clone(),
        detour: block.detour.clone(),
        world_ranks: block.world_ranks.clone(),
        hosts: block.hosts,
        adaptive: block.adaptive.clone(),
        algorithm: block.algorithm.clone(),
        algorithm_check: block.algorithm_check.clone(),
        counts: block.counts.clone(),
        placement: block.placement.clone(),
        start_path: block.start_path.as_ref().map(|s| s.cut(a, b, p)),
        flags_online: if block.flags_online.is_empty() {
            Vec::new()
        } else {
            block.flags_online[a * p..b * p].to_vec()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    #[test]
    fn splitting_and_appending_gives_the_block_back() {
        let whole = testdata::block(Op::Allreduce, 8, 3, 50e-6, 7, 1e-5);
        let mut joined = split_block(&whole, 0..3);
        append_chunk(&mut joined, 3, split_block(&whole, 3..5)).unwrap();
        append_chunk(&mut joined, 5, split_block(&whole, 5..7)).unwrap();
        assert_eq!(joined, whole);
        assert!(joined.shape_ok());
    }

    #[test]
    fn start_path_stamps_survive_chunking_with_and_without_the_counters() {
        let series = |k: f64, n: usize| F64Array((0..n).map(|i| k + i as f64).collect());
        for diagnosed in [false, true] {
            // 2 ranks, 5 repetitions.
            let mut whole = testdata::block(Op::Allreduce, 8, 2, 0.0, 5, 1e-5);
            let counters = |k| {
                if diagnosed {
                    series(k, 10)
                } else {
                    F64Array(Vec::new())
                }
            };
            whole.start_path = Some(crate::records::StartPathRecord {
                tsc_base_cycles: vec![1 << 40, (1 << 40) + 7],
                tsc_hz: vec![2.4e9, 2.4e9],
                release_cycles: series(0.0, 10),
                entry_cycles: series(50.0, 10),
                release_cpu: series(0.0, 10),
                entry_cpu: series(0.0, 10),
                run_delay_s: counters(1e-6),
                steal_s: counters(0.0),
            });
            let mut joined = split_block(&whole, 0..2);
            assert_eq!(
                joined.start_path.as_ref().unwrap().entry_cycles.0,
                vec![50.0, 51.0, 52.0, 53.0]
            );
            append_chunk(&mut joined, 2, split_block(&whole, 2..5)).unwrap();
            assert_eq!(joined, whole);
            // A chunk without the stamps does not continue a block with them.
            let mut bare = split_block(&whole, 0..2);
            let mut later = split_block(&whole, 2..5);
            later.start_path = None;
            assert!(append_chunk(&mut bare, 2, later).is_err());
        }
    }

    #[test]
    fn overlap_parts_and_the_adaptive_record_survive_chunking() {
        let mut whole = testdata::block(Op::Iallreduce, 8, 2, 0.0, 5, 1e-5);
        let series = |k: f64| F64Array((0..10).map(|i| k + i as f64).collect());
        whole.overlap = Some(OverlapRecord {
            mode: "time".into(),
            t_pure_s: 1e-5,
            workload: 0,
            test_interval_bytes: None,
            tests_per_rep: 0,
            post_s: series(100.0),
            compute_s: series(200.0),
            test_s: series(300.0),
            wait_s: series(400.0),
            pure_pass: Some(crate::records::PurePass {
                nrep: 5,
                mean_s: F64Array(vec![1e-5, 2e-5]),
                slowest_s: F64Array(vec![2e-5; 5]),
            }),
        });
        let mut last = split_block(&whole, 3..5);
        last.adaptive = Some(crate::records::AdaptiveRecord {
            nrep_min: 2,
            nrep_max: 5,
            ci_level: 0.95,
            ci_rel: 0.05,
            reached: 5,
            rel_error: 0.01,
            converged: true,
        });
        let mut joined = split_block(&whole, 0..3);
        // Each chunk holds only its own repetitions' overlap parts, as the run gathers them.
        assert!(joined.shape_ok() && last.shape_ok());
        append_chunk(&mut joined, 3, last.clone()).unwrap();
        assert!(joined.shape_ok());
        assert_eq!(joined.overlap, whole.overlap);
        assert_eq!(joined.adaptive, last.adaptive);
    }

    #[test]
    fn a_gap_or_another_configuration_is_refused() {
        let whole = testdata::block(Op::Allreduce, 8, 3, 50e-6, 6, 1e-5);
        let mut joined = split_block(&whole, 0..2);
        let err = append_chunk(&mut joined, 3, split_block(&whole, 3..6)).unwrap_err();
        assert!(err.contains("expected 2"), "{err}");
        let other = testdata::block(Op::Bcast, 8, 3, 50e-6, 6, 1e-5);
        assert!(append_chunk(&mut joined, 2, split_block(&other, 2..4)).is_err());
        assert_eq!(joined.nrep, 2);
    }
}
