//! One block's set-up: its [`BlockSpec`], the name messages give it, and its writing.

use super::Runner;
use crate::delay::{arrival_orders, rank_column, DelayModel};
use crate::plan::Op;
use crate::records::{Block, RecordsWriter};
use crate::run::measure::BlockSpec;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

impl Runner<'_> {
    /// The block of `model` (`None`: the baseline) with this rank's column of `matrix`.
    pub(super) fn block_spec(
        &self,
        comm: &SimpleCommunicator,
        op: Op,
        bytes: u64,
        model: Option<&DelayModel>,
        matrix: &[f64],
    ) -> BlockSpec {
        let p = comm.size() as u32;
        let members = self.session.hosts.members(p);
        BlockSpec {
            op,
            bytes,
            delay_s: model.map_or(0.0, |m| m.mean_s()),
            delay_model: model.map_or("0".into(), |m| m.label()),
            delayed_ranks: match model {
                Some(_) => self
                    .plan
                    .delay_ranks
                    .fixed_ranks(p, &self.session.hosts.comm_names()),
                None => vec![],
            },
            my_delays: rank_column(matrix, p, comm.rank() as u32),
            arrival_orders: op
                .family()
                .wants_arrival_order()
                .then(|| arrival_orders(matrix, p)),
            clock_models: if self.is_root() {
                members.iter().map(|&r| self.models[r]).collect()
            } else {
                Vec::new()
            },
            world_ranks: members.iter().map(|&r| r as u32).collect(),
            hosts: self.session.hosts.spanned(p),
            probes: Vec::new(),
            track_every_reps: None,
            early_probe_reps: Vec::new(),
            chunk_every_reps: None,
            compute: None,
            pure_pass: None,
            test_interval_bytes: self.plan.overlap.and_then(|o| o.test_interval_bytes),
            adaptive: self.plan.adaptive,
            algorithm: self.algorithm.as_ref().map(|(s, _)| s.clone()),
            algorithm_check: self.algorithm.as_ref().map(|(_, c)| c.clone()),
            counts: None,
            placement: Vec::new(),
            start_path: self.start_path,
        }
    }
}

/// `allreduce 8B P=2 delay 50us` for messages about one block.
pub(super) fn block_name(block: &Block) -> String {
    // A swept block names its algorithm: the same (op, size, P, delay) occurs once per
    // algorithm, and a name without it would repeat.
    let algorithm = block
        .algorithm
        .as_ref()
        .map_or(String::new(), |a| format!(" algorithm {}", a.name));
    format!(
        "{} {} P={} delay {}{algorithm}",
        block.op,
        crate::units::format_bytes(block.bytes),
        block.nprocs,
        block.delay_model
    )
}

/// Writes a measured block: whole, or, when its first `chunked_reps` repetitions are already
/// in the file as chunks, the rest as a last chunk and the block's end. The last chunk is
/// written even when it holds no repetition: it carries the block's final per-block values
/// (detour record, adaptive record), which the earlier chunks could not know.
pub(super) fn write_measured(
    w: &mut RecordsWriter,
    block: &Block,
    chunked_reps: u32,
) -> Result<(), crate::records::RecordsError> {
    if chunked_reps == 0 {
        return w.write_block(block);
    }
    w.write_chunk(
        chunked_reps,
        &crate::records::split_block(block, chunked_reps..block.nrep),
    )?;
    w.finish_block(block.nrep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::algorithms::AlgorithmSetting;
    use crate::records::testdata;

    #[test]
    fn block_name_gives_op_size_p_and_delay() {
        let b = testdata::block(Op::Allreduce, 8, 2, 50e-6, 4, 1e-6);
        assert_eq!(block_name(&b), "allreduce 8B P=2 delay 50us");
        let baseline = testdata::block(Op::Bcast, 1024, 4, 0.0, 4, 1e-6);
        assert_eq!(block_name(&baseline), "bcast 1KiB P=4 delay 0");
    }

    #[test]
    fn block_name_of_a_swept_block_names_its_algorithm() {
        let mut b = testdata::block(Op::Allreduce, 8, 2, 50e-6, 4, 1e-6);
        b.algorithm = Some(AlgorithmSetting {
            name: "ring".into(),
            variable: "coll_tuned_allreduce_algorithm".into(),
            value: Some(4),
        });
        assert_eq!(block_name(&b), "allreduce 8B P=2 delay 50us algorithm ring");
    }
}
