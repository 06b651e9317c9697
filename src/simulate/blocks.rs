//! What every engine simulates and what it gives back: the blocks of one P in the
//! measurement's order with their delay matrices ([`blocks_of`], on the one enumeration of
//! `plan::blocks`), and each block's simulated times ([`SimulatedTimes`]) turned into a
//! records block ([`to_block`]): one clock for every rank (the engine's), so local and global
//! times are the same and every clock model is the identity.

use crate::clock::ClockModel;
use crate::plan::{blocks, Plan};
use crate::records::{Block, F64Array, FLAG_STARTED_LATE, FLAG_WINDOW_OVERRUN};

/// A simulated rank starting more than this after its instant is flagged *started late*,
/// seconds. The simulated sleep ends on its instant to the nanosecond (its resolution), so
/// only a rank that was still inside the previous repetition can be late.
pub const SIM_LATE_TOLERANCE_S: f64 = 1e-7;

/// `wait_strategy` of every simulated block.
pub const SIM_WAIT: &str = "simulated sleep";

/// One block of a simulation: what the engine runs and the delays the ranks wait.
#[derive(Debug, Clone)]
pub struct SimBlock {
    pub op: crate::plan::Op,
    /// Message size, bytes (0 for barriers).
    pub bytes: u64,
    pub nrep: u32,
    pub warmup: u32,
    /// Fixed window, seconds; `None`: the automatic rule (the header's `window_rule`).
    pub window_s: Option<f64>,
    /// `[nrep][p]` delays, seconds (as `delay::delay_matrix` gives them).
    pub delays: Vec<f64>,
}

#[cfg(test)]
impl SimBlock {
    /// An 8 B allreduce of `nrep` repetitions with `delays` (`[nrep][p]`), 2 warm-up calls
    /// and the automatic window: the block the engines' unit tests simulate.
    pub(crate) fn allreduce_8b(nrep: u32, delays: Vec<f64>) -> Self {
        SimBlock {
            op: crate::plan::Op::Allreduce,
            bytes: 8,
            nrep,
            warmup: 2,
            window_s: None,
            delays,
        }
    }
}

/// What an engine gives back for one block of `p` ranks: its times in seconds of the
/// engine's one clock.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulatedTimes {
    /// The window the repetitions were started in, seconds.
    pub window_s: f64,
    /// `[nrep]` start instants, seconds.
    pub scheduled_start_s: Vec<f64>,
    /// `[nrep][p]` (repetition-major, as a records block) each rank's start of the call.
    pub start_s: Vec<f64>,
    /// `[nrep][p]` each rank's end of the call.
    pub end_s: Vec<f64>,
}

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

/// The blocks of P in the measurement's order with their delay matrices, each drawn from
/// the next stream (`stream`, counted over the whole run): the enumeration a measurement
/// makes ([`crate::plan::blocks`]), without an algorithm sweep (a simulated sweep writes one
/// file per algorithm). `hosts`: the simulated host of every rank slot, at least `p`.
pub fn blocks_of(
    plan: &Plan,
    p: u32,
    hosts: &[String],
    stream: &mut u64,
) -> (Vec<SimBlock>, Vec<BlockLabel>) {
    let mut sims = Vec::new();
    let mut labels = Vec::new();
    let mut distinct: Vec<&String> = hosts.iter().take(p as usize).collect();
    distinct.sort();
    distinct.dedup();
    for c in blocks::configurations(plan, |_| vec![()]) {
        for block in blocks::delay_blocks(plan, p, hosts, *stream) {
            *stream += 1;
            labels.push(BlockLabel {
                delay_s: block.model.as_ref().map_or(0.0, |m| m.mean_s()),
                delay_model: block.model.as_ref().map_or("0".into(), |m| m.label()),
                delayed_ranks: match block.model {
                    Some(_) => plan.delay_ranks.fixed_ranks(p, hosts),
                    None => vec![],
                },
                hosts: distinct.len() as u32,
            });
            sims.push(SimBlock {
                op: c.op,
                bytes: c.bytes,
                nrep: plan.nrep,
                warmup: plan.warmup,
                window_s: plan.window_s,
                delays: block.matrix,
            });
        }
    }
    (sims, labels)
}

/// The records block of `sim` on `p` ranks from its simulated `times`: the one place every
/// engine's results become records, so `analyze`, `plot`, `compare`, `tune` and `info` read
/// them as they read a measurement. A rank starting more than [`SIM_LATE_TOLERANCE_S`] after
/// its instant plus its delay is flagged *started late*; one ending after its repetition's
/// window, *window overrun*.
///
/// Panics when the shapes of `times` are not those of `sim` on `p` ranks (an engine's bug).
pub fn to_block(sim: &SimBlock, label: &BlockLabel, p: u32, times: SimulatedTimes) -> Block {
    let (p_us, nrep) = (p as usize, sim.nrep as usize);
    let SimulatedTimes {
        window_s: window,
        scheduled_start_s: sched,
        start_s: start,
        end_s: end,
    } = times;
    assert!(
        sched.len() == nrep && start.len() == nrep * p_us && end.len() == nrep * p_us,
        "simulated times of {:?} P={p} are not [nrep][p]",
        sim.op
    );
    let mut flags = vec![0u8; nrep * p_us];
    for (rep, &instant) in sched.iter().enumerate() {
        for rank in 0..p_us {
            let k = rep * p_us + rank;
            if start[k] - (instant + sim.delays[k]) > SIM_LATE_TOLERANCE_S {
                flags[k] |= FLAG_STARTED_LATE;
            }
            if end[k] > instant + window {
                flags[k] |= FLAG_WINDOW_OVERRUN;
            }
        }
    }
    Block {
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
        scheduled_start_s: F64Array(sched),
        t_start_local_s: F64Array(start.clone()),
        t_end_local_s: F64Array(end.clone()),
        t_start_global_s: F64Array(start),
        t_end_global_s: F64Array(end),
        applied_delay_s: F64Array(sim.delays.clone()),
        flags,
        clock_models: vec![ClockModel::offset_only(0.0); p_us],
        // A simulated sweep writes one file per algorithm (the header names it); the
        // session sets the block's algorithm.
        algorithm: None,
        algorithm_check: None,
        counts: None,
        placement: Vec::new(),
        start_path: None,
        detour: None,
        world_ranks: (0..p).collect(),
        hosts: label.hosts,
        clock_probes: Vec::new(),
        overlap: None,
        adaptive: None,
        flags_online: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;

    /// The blocks a measurement enumerates (as `run::runner` walks them: per P, per
    /// configuration of [`blocks::configurations`], the next streams from one counter, and
    /// the counter at `blocks_per_p` past the P's first block afterwards, where idle ranks
    /// set it), as (P, op, bytes, setting, delay label, stream, delays).
    #[allow(clippy::type_complexity)]
    fn run_side<S: Clone>(
        plan: &Plan,
        hosts: &[String],
        settings: impl Fn(Op) -> Vec<S>,
    ) -> Vec<(u32, Op, u64, S, String, u64, Vec<f64>)> {
        let mut done = 0u64;
        let mut out = Vec::new();
        for &p in &plan.procs {
            let first = done;
            for c in blocks::configurations(plan, &settings) {
                let delays = blocks::delay_blocks(plan, p, &hosts[..p as usize], done);
                done += delays.len() as u64;
                for b in delays {
                    let label = b.model.as_ref().map_or("0".into(), |m| m.label());
                    out.push((
                        p,
                        c.op,
                        c.bytes,
                        c.setting.clone(),
                        label,
                        b.stream,
                        b.matrix,
                    ));
                }
            }
            assert_eq!(
                done,
                first + blocks::blocks_per_p(plan, |op| settings(op).len())
            );
        }
        out
    }

    #[test]
    fn simulate_enumerates_the_measurements_blocks_and_streams() {
        let mut plan = crate::plan::run_plan::tests::plan();
        plan.ops = vec![Op::Allreduce, Op::Barrier, Op::Ibcast];
        plan.sizes = vec![8, 64];
        plan.procs = vec![2, 3, 4];
        plan.delays = vec!["50us".parse().unwrap(), "exp:20us".parse().unwrap()];
        plan.delay_ranks = "random:1".parse().unwrap();
        plan.nrep = 5;
        plan.seed = 7;
        let hosts: Vec<String> = ["a", "a", "b", "b"].iter().map(|h| h.to_string()).collect();
        // Without a sweep: the simulator's blocks are the measurement's, stream for stream.
        let run = run_side(&plan, &hosts, |_| vec![()]);
        let mut stream = 0;
        let mut sim = Vec::new();
        for &p in &plan.procs {
            let (sims, labels) = blocks_of(&plan, p, &hosts[..p as usize], &mut stream);
            for (s, l) in sims.into_iter().zip(labels) {
                sim.push((p, s.op, s.bytes, l.delay_model, s.delays));
            }
        }
        assert_eq!(run.len(), 3 * (2 + 1 + 2) * 3);
        assert_eq!(stream, run.len() as u64);
        for (i, (r, s)) in run.iter().zip(&sim).enumerate() {
            assert_eq!((r.0, r.1, r.2, &r.4, r.5), (s.0, s.1, s.2, &s.3, i as u64));
            assert_eq!(r.6, s.4, "block {i}: delays differ");
        }
        // Sampled delays: the streams really differ between blocks.
        assert_ne!(run[1].6, run[4].6);
        // With a sweep of two algorithms on allreduce the measurement numbers every block of
        // the run once, in order; each simulated algorithm (one file each) keeps the
        // numbering without a sweep.
        let swept = run_side(&plan, &hosts, |op| match op {
            Op::Allreduce => vec![Some("a"), Some("b")],
            _ => vec![None],
        });
        let streams: Vec<u64> = swept.iter().map(|b| b.5).collect();
        assert_eq!(streams, (0..swept.len() as u64).collect::<Vec<_>>());
        assert_eq!(swept.len(), run.len() + 3 * 2 * 3);
        let (a, b) = (&swept[0], &swept[3]);
        assert_eq!(
            (a.1, a.2, a.3, b.1, b.2, b.3),
            (Op::Allreduce, 8, Some("a"), Op::Allreduce, 8, Some("b"))
        );
    }

    #[test]
    fn times_become_blocks_with_flags() {
        // p = 2, nrep = 2, window 1 ms; rank 1 late by 10 us in rep 0 as planned; rank 0 of
        // rep 1 starts 1 us after its instant (started late) and rank 1 of rep 1 overruns.
        let sim = SimBlock::allreduce_8b(2, vec![0.0, 10e-6, 0.0, 0.0]);
        let label = BlockLabel {
            delay_s: 10e-6,
            delay_model: "10us".into(),
            delayed_ranks: vec![1],
            hosts: 2,
        };
        let times = SimulatedTimes {
            window_s: 1e-3,
            scheduled_start_s: vec![1.0, 1.001],
            start_s: vec![1.0, 1.00001, 1.001001, 1.001],
            end_s: vec![1.0005, 1.0006, 1.0015, 1.0021],
        };
        let b = to_block(&sim, &label, 2, times);
        assert!(b.shape_ok());
        assert_eq!(b.t_start_global_s.0, vec![1.0, 1.00001, 1.001001, 1.001]);
        assert_eq!(b.t_end_local_s.0, b.t_end_global_s.0);
        assert_eq!(b.applied_delay_s.0, sim.delays);
        assert_eq!(b.flags, vec![0, 0, FLAG_STARTED_LATE, FLAG_WINDOW_OVERRUN]);
        assert_eq!((b.window_s, b.delayed_ranks.clone()), (Some(1e-3), vec![1]));
    }
}
