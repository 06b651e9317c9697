//! The simulated ranks' output turned into records blocks: one clock for every rank (the
//! simulator's), so local and global times are the same and every clock model is the identity.

use super::plan_file::SimBlock;
use crate::clock::ClockModel;
use crate::records::{Block, F64Array, FLAG_STARTED_LATE, FLAG_WINDOW_OVERRUN};

/// A simulated rank starting more than this after its instant is flagged *started late*,
/// seconds. The simulated sleep ends on its instant to the nanosecond (its resolution), so
/// only a rank that was still inside the previous repetition can be late.
pub const SIM_LATE_TOLERANCE_S: f64 = 1e-7;

/// `wait_strategy` of every simulated block.
pub const SIM_WAIT: &str = "simulated sleep";

/// What a block is besides its simulated times: the delay model's nominal value and name,
/// and the ranks delayed in every repetition (as a measurement records them).
#[derive(Debug, Clone)]
pub struct BlockLabel {
    pub delay_s: f64,
    pub delay_model: String,
    pub delayed_ranks: Vec<u32>,
    /// Distinct simulated hosts among the block's ranks.
    pub hosts: u32,
}

/// Reads the blocks of one simulation of `p` ranks from `bytes` (the C program's OUT file:
/// per block the window, `[p][2 nrep]` start and end times, `[nrep]` start instants).
///
/// Errors: a description of what is missing.
pub fn decode(
    bytes: &[u8],
    p: u32,
    sims: &[SimBlock],
    labels: &[BlockLabel],
) -> Result<Vec<Block>, String> {
    if bytes.len() % 8 != 0 {
        return Err(format!(
            "{} bytes is not a whole number of f64",
            bytes.len()
        ));
    }
    let vals: Vec<f64> = bytes
        .chunks_exact(8)
        .map(|c| f64::from_ne_bytes(c.try_into().expect("8 bytes")))
        .collect();
    let p_us = p as usize;
    let mut at = 0usize;
    let mut out = Vec::with_capacity(sims.len());
    for (i, (sim, label)) in sims.iter().zip(labels).enumerate() {
        let nrep = sim.nrep as usize;
        let need = 1 + 2 * nrep * p_us + nrep;
        if vals.len() < at + need {
            return Err(format!(
                "block {} of {}: {} values, {need} needed",
                i + 1,
                sims.len(),
                vals.len() - at
            ));
        }
        let window = vals[at];
        let times = &vals[at + 1..at + 1 + 2 * nrep * p_us];
        let sched = &vals[at + 1 + 2 * nrep * p_us..at + need];
        at += need;
        let n = nrep * p_us;
        let (mut start, mut end, mut flags) = (vec![0.0; n], vec![0.0; n], vec![0u8; n]);
        for rank in 0..p_us {
            let row = &times[rank * 2 * nrep..(rank + 1) * 2 * nrep];
            for rep in 0..nrep {
                let k = rep * p_us + rank;
                start[k] = row[rep];
                end[k] = row[nrep + rep];
                if start[k] - (sched[rep] + sim.delays[k]) > SIM_LATE_TOLERANCE_S {
                    flags[k] |= FLAG_STARTED_LATE;
                }
                if end[k] > sched[rep] + window {
                    flags[k] |= FLAG_WINDOW_OVERRUN;
                }
            }
        }
        out.push(Block {
            op: sim.op,
            bytes: sim.bytes,
            nprocs: p,
            delay_s: label.delay_s,
            delay_model: label.delay_model.clone(),
            delayed_ranks: label.delayed_ranks.clone(),
            window_s: Some(window),
            wait_strategy: SIM_WAIT.into(),
            late_tolerance_s: SIM_LATE_TOLERANCE_S,
            nrep: sim.nrep,
            scheduled_start_s: F64Array(sched.to_vec()),
            t_start_local_s: F64Array(start.clone()),
            t_end_local_s: F64Array(end.clone()),
            t_start_global_s: F64Array(start),
            t_end_global_s: F64Array(end),
            applied_delay_s: F64Array(sim.delays.clone()),
            flags,
            clock_models: vec![ClockModel::offset_only(0.0); p_us],
            // A simulated sweep writes one file per SMPI algorithm (the header names it).
            algorithm: None,
            algorithm_check: None,
            counts: None,
            detour: None,
            world_ranks: (0..p).collect(),
            hosts: label.hosts,
            clock_probes: Vec::new(),
            overlap: None,
            adaptive: None,
            flags_online: Vec::new(),
        });
    }
    if at != vals.len() {
        return Err(format!(
            "{} values left over after the last block",
            vals.len() - at
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;

    #[test]
    fn output_becomes_blocks_with_flags() {
        // p = 2, nrep = 2, window 1 ms; rank 1 late by 10 us in rep 0 as planned; rank 0 of
        // rep 1 starts 1 us after its instant (started late) and rank 1 of rep 1 overruns.
        let sim = SimBlock {
            op: Op::Allreduce,
            bytes: 8,
            nrep: 2,
            warmup: 2,
            window_s: None,
            delays: vec![0.0, 10e-6, 0.0, 0.0],
        };
        let label = BlockLabel {
            delay_s: 10e-6,
            delay_model: "10us".into(),
            delayed_ranks: vec![1],
            hosts: 2,
        };
        let mut v: Vec<f64> = vec![1e-3];
        v.extend([1.0, 1.001001, 1.0005, 1.0015]); // rank 0: starts, ends
        v.extend([1.00001, 1.001, 1.0006, 1.0021]); // rank 1
        v.extend([1.0, 1.001]);
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
        let b = &decode(
            &bytes,
            2,
            std::slice::from_ref(&sim),
            std::slice::from_ref(&label),
        )
        .unwrap()[0];
        assert!(b.shape_ok());
        assert_eq!(b.t_start_global_s.0, vec![1.0, 1.00001, 1.001001, 1.001]);
        assert_eq!(b.flags, vec![0, 0, FLAG_STARTED_LATE, FLAG_WINDOW_OVERRUN]);
        assert!(decode(&bytes[..40], 2, &[sim], &[label]).is_err());
    }
}
