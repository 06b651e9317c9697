//! Synthetic records with known values, for tests of the offline layers (no MPI).

use super::*;
use crate::clock::ClockModel;
use crate::plan::{ClockSource, Op, Plan, ProcessSyncMethod};

/// A header for `world_size` ranks on one host whose clock offsets are `rank * 1 ms`.
pub fn header(world_size: u32) -> Header {
    Header {
        format: FORMAT_NAME.into(),
        format_version: FORMAT_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        command_line: vec!["delaybench".into()],
        start_utc: "2026-01-01T00:00:00Z".into(),
        world_size,
        hosts: vec!["node0".into(); world_size as usize],
        mpi_library: "synthetic".into(),
        clock: ClockInfo {
            source: "monotonic".into(),
            resolution_s: 1e-9,
            timer_delay_s: 2e-8,
        },
        clock_sync: ClockSyncInfo {
            method: "offset".into(),
            params: vec!["nonimproving=100".into()],
            models: (0..world_size)
                .map(|r| ClockModel::offset_only(r as f64 * 1e-3))
                .collect(),
            min_rtt_s: vec![1e-6; world_size as usize],
            exchanges: vec![150; world_size as usize],
            duration_s: 0.01,
            shared: Vec::new(),
            slope_se: Vec::new(),
        },
        wait: WaitInfo {
            rule: "spin".into(),
            hosts: vec![HostLoad {
                host: "node0".into(),
                ranks: world_size,
                cores: world_size,
                cpus: String::new(),
                cores_from: "online".into(),
            }],
            spin_margin_s: 0.0,
            late_tolerance_s: None,
        },
        window_rule: "fixed".into(),
        plan: Plan {
            subcomm: Default::default(),
            track_every_s: None,
            timeout_s: None,
            ops: vec![Op::Allreduce, Op::Iallreduce],
            sizes: vec![8],
            procs: vec![2, world_size],
            delay_ranks: crate::delay::RankSelection::rank(0),
            delays: vec![crate::delay::DelayModel::new(
                crate::delay::models::fixed::Fixed { delay_s: 50e-6 },
            )],
            detour: None,
            detour_noise_file: None,
            nrep: 5,
            warmup: 0,
            sync: ProcessSyncMethod::Window,
            window_s: Some(1e-3),
            late_tolerance_s: None,
            clock: ClockSource::Monotonic,
            seed: 7,
            clock_sync: crate::clock::ClockSyncMethod::Offset,
            clock_params: crate::clock::ClockSyncParams::default(),
            resync_every_s: None,
            emulate_clock: None,
            overlap: None,
            adaptive: None,
            algorithms: None,
            algorithm_from_env: false,
            rotate: 0,
        },
        study: None,
        provenance: Provenance {
            run_id: "00000000-0000-4000-8000-000000000007".into(),
            git_revision: "0123456789abcdef0123456789abcdef01234567".into(),
            git_dirty: Some(false),
            tags: vec![Tag {
                key: "system".into(),
                value: "test".into(),
            }],
            machines: vec![Machine {
                host: "node0".into(),
                kernel: "Linux 6.1.0 #1 SMP x86_64".into(),
                cpu_model: "Example CPU".into(),
                cores_physical: 2,
                cores_logical: 4,
                env: [("OMPI_MCA_btl".to_string(), "self,vader".to_string())].into(),
                thp: "madvise".into(),
            }],
        },
        noise_check: None,
        call_entry: None,
        job: None,
        algorithms: None,
        simulation: None,
        p2p: None,
        transport: Vec::new(),
    }
}

/// A block in which rank 0 is late by `delay_s`, every operation ends `op_time_s * (1 + rep/10)`
/// after the last rank started, and repetition 1 is flagged as a window overrun on the last rank.
/// Local times are global times plus `rank * 1 ms`.
pub fn block(op: Op, bytes: u64, nprocs: u32, delay_s: f64, nrep: u32, op_time_s: f64) -> Block {
    let p = nprocs as usize;
    let n = nrep as usize * p;
    let window = 1e-3;
    let mut b = Block {
        op,
        bytes,
        nprocs,
        delay_s,
        delay_model: if delay_s > 0.0 {
            crate::units::format_duration(delay_s)
        } else {
            "0".into()
        },
        delayed_ranks: if delay_s > 0.0 { vec![0] } else { vec![] },
        window_s: Some(window),
        wait_strategy: "spin".into(),
        late_tolerance_s: 1e-6,
        nrep,
        scheduled_start_s: F64Array((0..nrep).map(|i| 10.0 + i as f64 * window).collect()),
        t_start_local_s: F64Array(vec![0.0; n]),
        t_end_local_s: F64Array(vec![0.0; n]),
        t_start_global_s: F64Array(vec![0.0; n]),
        t_end_global_s: F64Array(vec![0.0; n]),
        applied_delay_s: F64Array(vec![0.0; n]),
        flags: vec![0; n],
        clock_models: (0..nprocs)
            .map(|r| ClockModel::offset_only(r as f64 * 1e-3))
            .collect(),
        detour: None,
        world_ranks: (0..nprocs).collect(),
        hosts: 1,
        clock_probes: Vec::new(),
        overlap: None,
        adaptive: None,
        flags_online: Vec::new(),
        algorithm: None,
        algorithm_check: None,
        counts: None,
        placement: Vec::new(),
        start_path: None,
    };
    for rep in 0..nrep as usize {
        let start = b.scheduled_start_s.0[rep];
        let end = start + delay_s + op_time_s * (1.0 + rep as f64 / 10.0);
        for rank in 0..p {
            let i = b.idx(rep, rank);
            let applied = if rank == 0 { delay_s } else { 0.0 };
            // Later ranks finish a little earlier, so the max end is rank 0's.
            let g_end = end - rank as f64 * 1e-7;
            b.applied_delay_s.0[i] = applied;
            b.t_start_global_s.0[i] = start + applied;
            b.t_end_global_s.0[i] = g_end;
            b.t_start_local_s.0[i] = start + applied + rank as f64 * 1e-3;
            b.t_end_local_s.0[i] = g_end + rank as f64 * 1e-3;
        }
    }
    if nrep > 1 {
        let last = b.idx(1, p - 1);
        b.flags[last] = FLAG_WINDOW_OVERRUN;
    }
    b
}

/// A footer for `world_size` ranks whose end offsets are those of [`header`] (`rank * 1 ms`)
/// and whose clocks did not move during the run; wall time 1 s, no warnings.
pub fn footer(world_size: u32) -> Footer {
    let n = world_size as usize;
    Footer {
        end_offsets_s: (0..n).map(|r| r as f64 * 1e-3).collect(),
        offset_change_s: vec![0.0; n],
        max_abs_offset_change_s: 0.0,
        wall_time_s: 1.0,
        warnings: vec![],
    }
}

/// Records of `blocks` under [`header`]`(world_size)`, without footer, not truncated.
pub fn records(world_size: u32, blocks: Vec<Block>) -> Records {
    Records {
        header: header(world_size),
        blocks,
        footer: None,
        truncated: false,
    }
}

/// `b` measured with the collective algorithm `name` as `--algorithms` records it: `default`,
/// the library's own choice, sets no value of the variable.
pub fn with_algorithm(mut b: Block, name: &str) -> Block {
    b.algorithm = Some(crate::plan::algorithms::AlgorithmSetting {
        name: name.into(),
        variable: "coll_tuned_allreduce_algorithm".into(),
        value: (name != "default").then_some(4),
    });
    b
}

/// An allreduce of 8 bytes on 2 ranks, 5 repetitions per block, measured with two
/// algorithms: `default` undelayed taking `default_op_time_s`, first, then `ring` undelayed
/// and delayed 50 µs taking 10 µs. A figure of the delayed block must take its baseline
/// from the ring's undelayed block, not from the first undelayed one.
pub fn two_algorithms(default_op_time_s: f64) -> Records {
    records(
        2,
        vec![
            with_algorithm(
                block(Op::Allreduce, 8, 2, 0.0, 5, default_op_time_s),
                "default",
            ),
            with_algorithm(block(Op::Allreduce, 8, 2, 0.0, 5, 10e-6), "ring"),
            with_algorithm(block(Op::Allreduce, 8, 2, 50e-6, 5, 10e-6), "ring"),
        ],
    )
}

/// `b` with time-based overlap parts (t_pure 10 us): a post that grows with the
/// rank-repetition index, 8 us of computation, no tests and a wait of 0, 1 or 2 us, so
/// overlap tables and figures have non-trivial means.
pub fn with_overlap(mut b: Block) -> Block {
    let n = b.t_start_local_s.0.len();
    let col = |f: fn(usize) -> f64| F64Array((0..n).map(f).collect());
    b.overlap = Some(OverlapRecord {
        mode: "time".into(),
        t_pure_s: 1e-5,
        workload: 100,
        test_interval_bytes: None,
        tests_per_rep: 0,
        post_s: col(|i| 1e-6 + i as f64 * 1e-9),
        compute_s: col(|_| 8e-6),
        test_s: col(|_| 0.0),
        wait_s: col(|i| (i % 3) as f64 * 1e-6),
        pure_pass: None,
    });
    b
}

/// One rank's repetition in [`overlap_block`], seconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Parts {
    pub post: f64,
    pub compute: f64,
    pub test: f64,
    pub wait: f64,
    /// Applied delay of the rank.
    pub delay: f64,
}

impl Parts {
    /// Post 1 us, compute 10 us, no tests, `wait` seconds, applied delay `delay` seconds.
    pub fn simple(delay: f64, wait: f64) -> Parts {
        Parts {
            post: 1e-6,
            compute: 10e-6,
            test: 0.0,
            wait,
            delay,
        }
    }
}

/// A time-based overlap block of `op` (t_b 10 us) with `nprocs` ranks and `nrep` valid
/// repetitions, nominal delay `delay_s`, in which repetition `rep` of rank `rank` is
/// `parts(rep, rank)`: it starts at its applied delay after the repetition's start instant
/// and ends post + compute + test + wait later (local = global times). `pure`: the per-rank
/// means of the pure pass, if it was measured.
pub fn overlap_block(
    op: Op,
    nprocs: u32,
    nrep: u32,
    delay_s: f64,
    parts: impl Fn(usize, usize) -> Parts,
    pure: Option<Vec<f64>>,
) -> Block {
    let mut b = block(op, 8, nprocs, delay_s, nrep, 10e-6);
    let n = b.t_start_local_s.0.len();
    let (mut post, mut comp, mut test, mut wait) =
        (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut delayed = Vec::new();
    for rep in 0..nrep as usize {
        for rank in 0..nprocs as usize {
            let i = b.idx(rep, rank);
            let x = parts(rep, rank);
            (post[i], comp[i], test[i], wait[i]) = (x.post, x.compute, x.test, x.wait);
            let start = b.scheduled_start_s.0[rep] + x.delay;
            let end = start + x.post + x.compute + x.test + x.wait;
            b.applied_delay_s.0[i] = x.delay;
            b.t_start_local_s.0[i] = start;
            b.t_start_global_s.0[i] = start;
            b.t_end_local_s.0[i] = end;
            b.t_end_global_s.0[i] = end;
            if x.delay > 0.0 && !delayed.contains(&(rank as u32)) {
                delayed.push(rank as u32);
            }
        }
    }
    b.delayed_ranks = delayed;
    b.flags.iter_mut().for_each(|f| *f = 0);
    b.overlap = Some(OverlapRecord {
        mode: "time".into(),
        t_pure_s: 10e-6,
        workload: 0,
        test_interval_bytes: None,
        tests_per_rep: 0,
        post_s: F64Array(post),
        compute_s: F64Array(comp),
        test_s: F64Array(test),
        wait_s: F64Array(wait),
        pure_pass: pure.map(|m| PurePass {
            nrep,
            mean_s: F64Array(m),
            slowest_s: F64Array(vec![10e-6; nrep as usize]),
        }),
    });
    b
}
