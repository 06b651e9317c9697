//! What the simulated ranks' program writes (its OUT file): per block the window, every rank's
//! start and end times and the start instants, read back as [`SimulatedTimes`].

use crate::simulate::blocks::{SimBlock, SimulatedTimes};

/// Reads the times of one simulation of `p` ranks from `bytes` (the C program's OUT file:
/// per block the window, `[p][2 nrep]` start and end times, `[nrep]` start instants, all
/// native-endian f64 seconds), one [`SimulatedTimes`] per block of `sims`.
///
/// Errors: a description of what is missing or left over.
pub fn decode(bytes: &[u8], p: u32, sims: &[SimBlock]) -> Result<Vec<SimulatedTimes>, String> {
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
    for (i, sim) in sims.iter().enumerate() {
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
        let (mut start, mut end) = (vec![0.0; n], vec![0.0; n]);
        for rank in 0..p_us {
            let row = &times[rank * 2 * nrep..(rank + 1) * 2 * nrep];
            for rep in 0..nrep {
                start[rep * p_us + rank] = row[rep];
                end[rep * p_us + rank] = row[nrep + rep];
            }
        }
        out.push(SimulatedTimes {
            window_s: window,
            scheduled_start_s: sched.to_vec(),
            start_s: start,
            end_s: end,
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

    #[test]
    fn rank_major_output_becomes_repetition_major_times() {
        // p = 2, nrep = 2, window 1 ms.
        let sim = SimBlock::allreduce_8b(2, vec![0.0; 4]);
        let mut v: Vec<f64> = vec![1e-3];
        v.extend([1.0, 1.001001, 1.0005, 1.0015]); // rank 0: starts, ends
        v.extend([1.00001, 1.001, 1.0006, 1.0021]); // rank 1
        v.extend([1.0, 1.001]);
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_ne_bytes()).collect();
        let t = &decode(&bytes, 2, std::slice::from_ref(&sim)).unwrap()[0];
        assert_eq!(t.window_s, 1e-3);
        assert_eq!(t.start_s, vec![1.0, 1.00001, 1.001001, 1.001]);
        assert_eq!(t.end_s, vec![1.0005, 1.0006, 1.0015, 1.0021]);
        assert_eq!(t.scheduled_start_s, vec![1.0, 1.001]);
        assert!(decode(&bytes[..40], 2, std::slice::from_ref(&sim)).is_err());
        let mut more = bytes.clone();
        more.extend(0f64.to_ne_bytes());
        assert!(decode(&more, 2, &[sim]).is_err());
    }
}
