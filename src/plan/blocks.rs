//! The blocks of a plan in the order a run measures them, and the random stream of each
//! block's delays: per P, per kernel, per size, per algorithm setting, the undelayed
//! baseline then each delay model. Stream numbers count blocks over the whole run, so every
//! rank (and the simulator) draws the same delay matrices without communicating.
//!
//! The measurement (`run::runner`) and `delaybench simulate` (`simulate::blocks`) both
//! enumerate through here, so their blocks and streams cannot drift apart.

use super::{Op, Plan};
use crate::delay::{delay_matrix, DelayModel};

/// One configuration at one P: a kernel, a message size and an algorithm setting `S`
/// (`()` when the run sweeps no algorithms).
#[derive(Debug, Clone, PartialEq)]
pub struct Configuration<S> {
    pub op: Op,
    /// Bytes as the kernel defines them (0 for a barrier).
    pub bytes: u64,
    pub setting: S,
}

/// One block of a configuration: its delay model (`None`: the baseline), the stream its
/// delays are drawn from, and the delays.
#[derive(Debug, Clone, PartialEq)]
pub struct DelayBlock {
    pub model: Option<DelayModel>,
    /// The block's number over the whole run, the delay matrix's stream.
    pub stream: u64,
    /// `[nrep][p]` delays in seconds: zeros for the baseline.
    pub matrix: Vec<f64>,
}

/// The configurations measured at every P, in order: per kernel of the plan, per size the
/// kernel takes ([`Plan::sizes_for`]), per algorithm setting `settings(op)` gives; then
/// rotated left by [`Plan::rotate`].
pub fn configurations<S: Clone>(
    plan: &Plan,
    mut settings: impl FnMut(Op) -> Vec<S>,
) -> Vec<Configuration<S>> {
    let mut out = Vec::new();
    for &op in &plan.ops {
        let settings = settings(op);
        for bytes in plan.sizes_for(op) {
            for setting in &settings {
                out.push(Configuration {
                    op,
                    bytes,
                    setting: setting.clone(),
                });
            }
        }
    }
    if !out.is_empty() {
        let by = plan.rotate as usize % out.len();
        out.rotate_left(by);
    }
    out
}

/// Blocks measured at each P: every configuration times the baseline and each delay model;
/// `settings(op)` is how many algorithm settings `op` is measured with (1 without a sweep).
pub fn blocks_per_p(plan: &Plan, mut settings: impl FnMut(Op) -> usize) -> u64 {
    let per_p: usize = plan
        .ops
        .iter()
        .map(|&op| plan.sizes_for(op).len() * settings(op))
        .sum();
    (per_p * plan.delays_with_baseline().len()) as u64
}

/// The blocks of one configuration at P = `p`, the first drawing stream `first_stream` and
/// each next one the next stream. `hosts`: the host of each of the P ranks, in the order of
/// the sub-communicator (for `host:I` delay ranks).
pub fn delay_blocks(plan: &Plan, p: u32, hosts: &[String], first_stream: u64) -> Vec<DelayBlock> {
    plan.delays_with_baseline()
        .into_iter()
        .zip(first_stream..)
        .map(|(model, stream)| {
            let matrix = match &model {
                Some(m) => {
                    delay_matrix(m, &plan.delay_ranks, p, hosts, plan.nrep, plan.seed, stream)
                }
                None => vec![0.0; (plan.nrep * p) as usize],
            };
            DelayBlock {
                model,
                stream,
                matrix,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_go_by_kernel_size_then_setting() {
        let mut plan = crate::plan::run_plan::tests::plan();
        plan.ops = vec![Op::Allreduce, Op::Barrier];
        plan.sizes = vec![8, 64];
        let c = configurations(&plan, |op| match op {
            Op::Allreduce => vec!["a", "b"],
            _ => vec!["x"],
        });
        let keys: Vec<_> = c.iter().map(|c| (c.op, c.bytes, c.setting)).collect();
        assert_eq!(
            keys,
            vec![
                (Op::Allreduce, 8, "a"),
                (Op::Allreduce, 8, "b"),
                (Op::Allreduce, 64, "a"),
                (Op::Allreduce, 64, "b"),
                (Op::Barrier, 0, "x"),
            ]
        );
        let n = plan.delays_with_baseline().len() as u64;
        assert_eq!(
            blocks_per_p(&plan, |op| if op == Op::Allreduce { 2 } else { 1 }),
            5 * n
        );
        // Rotated by 2 (and by 7 = 2 mod 5): the same configurations from the third on.
        for rotate in [2, 7] {
            plan.rotate = rotate;
            let rotated: Vec<_> = configurations(&plan, |op| match op {
                Op::Allreduce => vec!["a", "b"],
                _ => vec!["x"],
            })
            .iter()
            .map(|c| (c.op, c.bytes, c.setting))
            .collect();
            assert_eq!(rotated[..3], keys[2..]);
            assert_eq!(rotated[3..], keys[..2]);
        }
    }
}
