//! `delaybench check-kernels` (hidden): whether the reduction kernels reduce correctly, checked
//! against `MPI_Allreduce` on the same values, and whether the v-form kernels (allgatherv,
//! gatherv, scatterv, alltoallv and their nonblocking forms) deliver every block where it
//! belongs, without timing anything.
//!
//! A v-form's count is bytes per block; rank r fills the block it sends to rank i (or its one
//! block) with [`tag`]`(r, i)`, and every received block must hold its sender's tag.
//!
//! Rank r contributes element i = r · 1000 + i + 0.5. Every partial sum of such values is a
//! multiple of 0.5 far below 2^52, so it is exact in f64 whatever order an algorithm adds in:
//! the results must equal `MPI_Allreduce`'s bit for bit, and any difference is a wrong
//! reduction, not rounding. In call k of each (kernel, count), rank k mod P enters 20 ms after
//! the others, so the arrival-aware kernels observe and then use an order other than rank
//! order, and the clairvoyant kernel is given that order as its planned one.

use super::kernels::Kernel;
use crate::plan::Op;
use mpi::collective::SystemOperation;
use mpi::traits::*;
use std::process::ExitCode;
use std::time::Duration;

/// How long the late rank of a call waits before entering.
const LATE: Duration = Duration::from_millis(20);

/// The byte rank `sender` puts in the block it sends to rank `block` (block 0 when it sends
/// one block to all).
fn tag(sender: usize, block: usize) -> u8 {
    ((sender * 31 + block * 7) % 250 + 1) as u8
}

/// True for the v-form kernels, which the check verifies block by block.
fn is_vform(op: Op) -> bool {
    use crate::plan::kernel::Family;
    matches!(
        op.family(),
        Family::Allgatherv | Family::Gatherv | Family::Scatterv | Family::Alltoallv
    )
}

/// The blocks rank `me` of `p` must hold after one call of v-form `op` (None where it
/// receives nothing: gatherv's non-roots).
fn expected_blocks(op: Op, me: usize, p: usize) -> Option<Vec<u8>> {
    use crate::plan::kernel::Family;
    match op.family() {
        Family::Allgatherv => Some((0..p).map(|j| tag(j, 0)).collect()),
        Family::Gatherv => (me == 0).then(|| (0..p).map(|j| tag(j, 0)).collect()),
        Family::Scatterv => Some(vec![tag(0, me)]),
        Family::Alltoallv => Some((0..p).map(|j| tag(j, me)).collect()),
        _ => None,
    }
}

/// The value rank `rank` contributes as element `i`.
fn value(rank: usize, i: usize) -> f64 {
    (rank * 1000 + i) as f64 + 0.5
}

/// What the hidden `delaybench check-kernels` checks: plain options, filled from the command
/// line at the edge.
#[derive(Debug, Clone)]
pub struct CheckKernelsOptions {
    /// Kernels to check; empty: every `ref:*` kernel.
    pub ops: Vec<Op>,
    /// Element counts (f64 per rank; bytes per block for the v-forms) to check.
    pub counts: Vec<usize>,
    /// Calls per kernel and count.
    pub calls: u32,
    /// Corrupt one element of rank 0's result before comparing.
    pub inject_error: bool,
}

/// Runs the check on every rank of the world; exit 0 when every result equals
/// `MPI_Allreduce`'s, 1 otherwise (on every rank), 2 when an op's sum is not on every rank.
pub fn main(opts: CheckKernelsOptions) -> ExitCode {
    let Some(universe) = super::init() else {
        return ExitCode::FAILURE;
    };
    let world = universe.world();
    let (p, me) = (world.size() as usize, world.rank() as usize);
    let ops: Vec<Op> = if opts.ops.is_empty() {
        Op::ALL.into_iter().filter(|op| op.is_reference()).collect()
    } else {
        opts.ops.clone()
    };
    // The result must be on every rank: reduce/ireduce leave it on rank 0 only.
    let everywhere =
        |op: &Op| op.is_reduction() && op.family() != crate::plan::kernel::Family::Reduce;
    if let Some(op) = ops.iter().find(|op| !everywhere(op) && !is_vform(**op)) {
        if me == 0 {
            eprintln!(
                "delaybench: error: check-kernels checks the kernels whose sum is on every rank \
                 (allreduce, iallreduce, allreduce_persistent, ref:*) and the v-forms \
                 (allgatherv, gatherv, scatterv, alltoallv and their nonblocking forms); {op} is \
                 none"
            );
        }
        return ExitCode::from(2);
    }
    // Every rank links the same library: a refusal is every rank's.
    if let Err(e) = super::kernels::check_persistent(&ops) {
        if me == 0 {
            eprintln!("delaybench: error: {e}");
        }
        return ExitCode::from(2);
    }
    let mut failed = 0u64;
    for &op in ops.iter().filter(|op| is_vform(**op)) {
        for &count in &opts.counts {
            failed += check_vform(&world, op, count, &opts);
        }
    }
    for &op in ops.iter().filter(|op| !is_vform(**op)) {
        for &count in &opts.counts {
            let mut kernel = Kernel::new(op, 8 * count as u64, p);
            kernel.fill_send(|i| value(me, i));
            let send: Vec<f64> = (0..count).map(|i| value(me, i)).collect();
            let mut expected = vec![0.0f64; count];
            world.all_reduce_into(&send[..], &mut expected[..], SystemOperation::sum());
            let mut wrong = 0u64;
            // Calls after which the observed order ended with that call's late rank.
            let mut seen_last = 0;
            let observes = matches!(
                op.family(),
                crate::plan::kernel::Family::RefSortedLinearTree
                    | crate::plan::kernel::Family::RefPrereducedRing
            );
            for call in 0..opts.calls as usize {
                let late = call % p;
                // The planned order of this call: everyone but the late rank, then it.
                let order: Vec<usize> = (0..p).filter(|&r| r != late).chain([late]).collect();
                world.barrier();
                if me == late {
                    std::thread::sleep(LATE);
                }
                kernel.run_arriving(&world, Some(&order));
                seen_last += usize::from(kernel.observed_order().last() == Some(&late));
                let mut got = kernel.result().to_vec();
                if opts.inject_error && me == 0 && !got.is_empty() {
                    got[0] += 1.0;
                }
                let bad: Vec<usize> = (0..count)
                    .filter(|&i| got[i].to_bits() != expected[i].to_bits())
                    .collect();
                if let Some(&i) = bad.first() {
                    eprintln!(
                        "check-kernels: MISMATCH {op} P={p} count={count} call={call} rank {me}: \
                         {} of {count} elements differ, first element {i}: {} instead of {}",
                        bad.len(),
                        got[i],
                        expected[i]
                    );
                }
                wrong += bad.len() as u64;
            }
            let mut total = 0u64;
            world.all_reduce_into(&wrong, &mut total, SystemOperation::sum());
            failed += total;
            if me == 0 && observes {
                // Information, not a verdict: a descheduled rank can arrive later than the
                // one that slept.
                eprintln!(
                    "check-kernels: {op} P={p} count={count}: the late rank was observed last \
                     after {seen_last} of {} calls",
                    opts.calls
                );
            }
            if me == 0 {
                let verdict = if total == 0 {
                    "ok".to_string()
                } else {
                    format!("FAILED ({total} wrong elements over all ranks and calls)")
                };
                println!("{op} P={p} count={count} calls={}: {verdict}", opts.calls);
            }
        }
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs v-form `op` with `count` bytes per block `opts.calls` times (a rank late in each, as
/// for the reductions) and counts, over all ranks, the received bytes that are not their
/// sender's tag; rank 0 prints the verdict.
fn check_vform(
    world: &mpi::topology::SimpleCommunicator,
    op: Op,
    count: usize,
    opts: &CheckKernelsOptions,
) -> u64 {
    let (p, me) = (world.size() as usize, world.rank() as usize);
    let mut kernel = Kernel::new(op, count as u64, p);
    let expected = expected_blocks(op, me, p);
    let mut wrong = 0u64;
    for call in 0..opts.calls as usize {
        kernel.fill_blocks(|block| tag(me, block));
        world.barrier();
        if me == call % p {
            std::thread::sleep(LATE);
        }
        kernel.run(world);
        let Some(expected) = &expected else {
            continue;
        };
        let got = kernel.received_blocks();
        let mut bad = 0u64;
        for (j, (block, &want)) in got.iter().zip(expected).enumerate() {
            let mut n = block.iter().filter(|&&x| x != want).count() as u64;
            if opts.inject_error && me == 0 && j == 0 && call == 0 {
                n += 1;
            }
            if n > 0 && bad == 0 {
                eprintln!(
                    "check-kernels: MISMATCH {op} P={p} count={count} call={call} rank {me}: \
                     block {j} has {n} bytes other than {want}"
                );
            }
            bad += n;
        }
        wrong += bad;
    }
    let mut total = 0u64;
    world.all_reduce_into(&wrong, &mut total, SystemOperation::sum());
    if me == 0 {
        let verdict = if total == 0 {
            "ok".to_string()
        } else {
            format!("FAILED ({total} wrong bytes over all ranks and calls)")
        };
        println!("{op} P={p} count={count} calls={}: {verdict}", opts.calls);
    }
    total
}
