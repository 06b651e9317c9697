//! What one `smpirun` reads: the blocks of one process count P as text, and every rank's
//! delays as native-endian f64 (the format is described at the top of
//! `smpi/delaybench_smpi.c`).

use crate::plan::Op;
pub use crate::simulate::blocks::SimBlock;
use std::fmt::Write as _;

/// The kernel families `smpi/delaybench_smpi.c` runs, by the blocking kernel's name; a
/// kernel of another family (the `ref:*` algorithms) is refused before anything runs.
pub const SIMULATED_FAMILIES: [&str; 11] = [
    "barrier",
    "bcast",
    "reduce",
    "allreduce",
    "alltoall",
    "allgather",
    "gather",
    "scatter",
    "reduce_scatter_block",
    "scan",
    "exscan",
];

/// Whether the simulated ranks' program has `op`: a blocking or nonblocking kernel of one of
/// [`SIMULATED_FAMILIES`] (not a persistent form).
pub fn simulated(op: Op) -> bool {
    let name = op.name();
    SIMULATED_FAMILIES.contains(&op.family().blocking().name())
        && (SIMULATED_FAMILIES.contains(&name)
            || name
                .strip_prefix('i')
                .is_some_and(|n| SIMULATED_FAMILIES.contains(&n)))
}

/// The plan text and the delays file of `blocks` on `p` ranks: the delays are written
/// rank-major (`[p][nrep]` per block) so each simulated rank reads its own in one piece.
/// `every_warmup` makes the program simulate every warm-up call; otherwise it stops
/// simulating them once two calls agree and extrapolates the rest (the program's header
/// comment and docs/simulate.md say why that gives the same repetitions).
pub fn encode(blocks: &[SimBlock], p: u32, every_warmup: bool) -> (String, Vec<u8>) {
    let p = p as usize;
    let mut text = format!(
        "delaybench-smpi-plan 2\nwarmup {}\nblocks {}\n",
        if every_warmup { "every" } else { "extrapolate" },
        blocks.len()
    );
    let mut bin = Vec::new();
    let mut offset = 0usize;
    for b in blocks {
        let nrep = b.nrep as usize;
        let max_delay = b.delays.iter().copied().fold(0.0, f64::max);
        let _ = writeln!(
            text,
            "block {} {} {} {} {:e} {} {:e}",
            b.op.name(),
            b.bytes,
            b.nrep,
            b.warmup,
            b.window_s.unwrap_or(0.0),
            offset,
            max_delay
        );
        for rank in 0..p {
            for rep in 0..nrep {
                bin.extend_from_slice(&b.delays[rep * p + rank].to_ne_bytes());
            }
        }
        offset += nrep * p;
    }
    (text, bin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eleven_families_are_simulated_in_both_forms_and_nothing_else() {
        let sim: Vec<&str> = Op::ALL
            .iter()
            .filter(|&&op| simulated(op))
            .map(|op| op.name())
            .collect();
        assert_eq!(sim.len(), 2 * SIMULATED_FAMILIES.len(), "{sim:?}");
        for name in ["allreduce", "iexscan", "reduce_scatter_block", "ibarrier"] {
            assert!(sim.contains(&name), "{name}");
        }
        for op in Op::ALL {
            if op.name().starts_with("ref:") || op.name().contains("persistent") {
                assert!(!simulated(op), "{}", op.name());
            }
        }
    }

    #[test]
    fn delays_are_written_rank_major_with_offsets() {
        let b = SimBlock {
            op: Op::Bcast,
            bytes: 8,
            nrep: 2,
            warmup: 3,
            window_s: None,
            // [rep][rank]: rep 0 = (1, 2, 3), rep 1 = (4, 5, 6)
            delays: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        };
        let (text, bin) = encode(&[b.clone(), b.clone()], 3, false);
        assert!(encode(std::slice::from_ref(&b), 3, true)
            .0
            .starts_with("delaybench-smpi-plan 2\nwarmup every\n"));
        let vals: Vec<f64> = bin
            .chunks_exact(8)
            .map(|c| f64::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(&vals[..6], &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        assert_eq!(vals.len(), 12);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "warmup extrapolate");
        assert_eq!(lines[2], "blocks 2");
        assert_eq!(lines[3], "block bcast 8 2 3 0e0 0 6e0");
        assert_eq!(lines[4], "block bcast 8 2 3 0e0 6 6e0");
    }
}
