//! `delaybench simulate` on SimGrid's SMPI: the applied delays are the plan's, and exact
//! cases whose simulated t_delta follows from the algorithm's structure. Skipped, with a
//! message saying how to get SimGrid, when `smpicc` is missing.

mod common;

use delaybench::analysis::t_global;
use delaybench::delay::delay_matrix;
use delaybench::records::{read_records, Block};
use std::path::{Path, PathBuf};
use std::process::Command;

/// True when SimGrid's tools are on PATH; else records the test as skipped, saying how to
/// get them (a failure under `DELAYBENCH_TESTS_STRICT=1`).
fn simgrid_here() -> bool {
    let found = ["smpicc", "smpirun"].iter().all(|t| {
        std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(t).is_file()))
    });
    if !found {
        common::skip(
            "smpicc/smpirun not found; install SimGrid with `apt-get install libsimgrid-dev` \
             (or `DELAYBENCH_SIMGRID=1 . scripts/setup.sh`) to run it",
        );
    }
    found
}

/// `delaybench simulate ARGS` with this file's program cache ([`cache`]), run to its end:
/// on the SMPI engine (`--engine smpi`, no longer the default) unless ARGS name an engine.
fn simulate_output(args: &[&str]) -> std::process::Output {
    let engine: &[&str] = if args.contains(&"--engine") {
        &[]
    } else {
        &["--engine", "smpi"]
    };
    Command::new(env!("CARGO_BIN_EXE_delaybench"))
        .arg("simulate")
        .args(engine)
        .args(args)
        .env("DELAYBENCH_CACHE", cache())
        .output()
        .expect("delaybench runs")
}

/// Runs `delaybench simulate ARGS --output DIR/NAME.cbor --no-figures --no-summary` and
/// returns the records file.
fn simulate(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    simulate_said(dir, name, args).0
}

/// [`simulate`], and what the run printed on stderr.
fn simulate_said(dir: &Path, name: &str, args: &[&str]) -> (PathBuf, String) {
    let out = dir.join(format!("{name}.cbor"));
    let path = out.to_str().unwrap();
    let all: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--output", path, "--no-figures", "--no-summary"])
        .collect();
    let run = simulate_output(&all);
    let err = String::from_utf8_lossy(&run.stderr).to_string();
    assert!(run.status.success(), "simulate {args:?} failed:\n{err}");
    (out, err)
}

/// One build of the simulated ranks' program for every test of this file.
fn cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("smpi-cache")
}

/// Median t_global of a block, seconds.
fn median_t(b: &Block) -> f64 {
    let mut t: Vec<f64> = (0..b.nrep as usize)
        .filter(|&r| b.rep_valid(r))
        .map(|r| t_global(b, r))
        .collect();
    assert!(
        !t.is_empty(),
        "no valid repetition in {:?} P={}",
        b.op,
        b.nprocs
    );
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// (P, t0, t_delta, delta) of every delayed block of a file with one delay, seconds.
fn pairs(file: &Path) -> Vec<(u32, f64, f64, f64)> {
    let rec = read_records(file).unwrap();
    let mut out = Vec::new();
    for pair in rec.blocks.chunks(2) {
        let (base, late) = (&pair[0], &pair[1]);
        assert_eq!(base.delay_s, 0.0);
        assert_eq!((base.op, base.nprocs), (late.op, late.nprocs));
        out.push((late.nprocs, median_t(base), median_t(late), late.delay_s));
    }
    out
}

/// Benefit b = (t0 + δ − tδ) / tδ (Niethammer et al. 2016, eq. 5).
fn benefit(t0: f64, td: f64, delta: f64) -> f64 {
    (t0 + delta - td) / td
}

#[test]
fn applied_delays_are_the_plan_and_ranks_wait_them_exactly() {
    if !simgrid_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = simulate(
        dir.path(),
        "delays",
        &[
            "--ops",
            "allreduce,barrier",
            "--procs",
            "4,16",
            "--delay-rank",
            "random:2",
            "--delay",
            "exp:20us,50us",
            "--nrep",
            "12",
            "--seed",
            "42",
        ],
    );
    let rec = read_records(&file).unwrap();
    let h = &rec.header;
    let sim = h
        .simulation
        .as_ref()
        .expect("header marks the run as simulated");
    assert_eq!(sim.engine, "SimGrid SMPI");
    assert!(h.mpi_library.starts_with("simulated"));
    assert_eq!(rec.blocks.len(), 2 * 2 * 3);
    for (stream, b) in rec.blocks.iter().enumerate() {
        let p = b.nprocs;
        let hosts: Vec<String> = h.hosts[..p as usize].to_vec();
        let model = h.plan.delays_with_baseline()[stream % 3].clone();
        let want = match &model {
            Some(m) => delay_matrix(m, &h.plan.delay_ranks, p, &hosts, b.nrep, 42, stream as u64),
            None => vec![0.0; (b.nrep * p) as usize],
        };
        assert_eq!(
            b.applied_delay_s.0, want,
            "block {stream}: applied delays differ from the plan"
        );
        for rep in 0..b.nrep as usize {
            for rank in 0..p as usize {
                let i = b.idx(rep, rank);
                let waited = b.t_start_global_s.0[i] - b.scheduled_start_s.0[rep];
                assert!(
                    (waited - want[i]).abs() < 2e-9,
                    "block {stream} rep {rep} rank {rank}: started {waited} s after its instant, planned {} s",
                    want[i]
                );
            }
        }
        assert!(
            b.flags.iter().all(|&f| f == 0),
            "block {stream} has invalid repetitions"
        );
    }
}

/// Runs one exact case: `op` with SimGrid option `cfg`, rank `late` late by `delta`, at P in
/// `procs`; returns (P, t0, tδ, δ, b) per P.
fn exact_case(
    name: &str,
    op: &str,
    cfg: &str,
    late: &str,
    delta: &str,
) -> Vec<(u32, f64, f64, f64, f64)> {
    let dir = tempfile::tempdir().unwrap();
    let file = simulate(
        dir.path(),
        name,
        &[
            "--ops",
            op,
            "--procs",
            "4,16,64",
            "--delay-rank",
            late,
            "--delay",
            delta,
            "--nrep",
            "3",
            "--cfg",
            cfg,
            "--sizes",
            "8",
        ],
    );
    let rows: Vec<_> = pairs(&file)
        .into_iter()
        .map(|(p, t0, td, d)| (p, t0, td, d, benefit(t0, td, d)))
        .collect();
    for (p, t0, td, d, b) in &rows {
        eprintln!(
            "{name}: P={p} t0={:.3} us t_delta={:.3} us delta={:.1} us b={:+.3e} (|t_delta - delta - t0| = {:.3e} s)",
            t0 * 1e6,
            td * 1e6,
            d * 1e6,
            b,
            (td - d - t0).abs()
        );
    }
    rows
}

/// A broadcast cannot start before its root: with the root late by δ, every message goes
/// as in the undelayed run, δ later, so tδ = δ + t0 and b = 0. δ is of the order of t0, so
/// a t_delta off by a few percent of t0 fails the test.
#[test]
fn binomial_bcast_from_a_late_root_adds_the_delay() {
    if !simgrid_here() {
        return;
    }
    for (p, t0, td, d, b) in exact_case(
        "binomial-bcast",
        "bcast",
        "smpi/bcast:binomial_tree",
        "0",
        "5us",
    ) {
        assert!(
            b.abs() < 0.01,
            "P={p}: b = {b}, t0 {t0}, t_delta {td}, delta {d}"
        );
    }
    // The same algorithm with a late leaf hides part of the delay: the check can tell.
    let leaf = exact_case(
        "binomial-bcast-leaf",
        "bcast",
        "smpi/bcast:binomial_tree",
        "last",
        "5us",
    );
    assert!(
        leaf.iter().all(|r| r.4 > 0.05),
        "a late leaf should hide some delay: {leaf:?}"
    );
}

/// The flat tree: the root sends to every rank in turn; late root, same argument.
#[test]
fn flat_tree_bcast_from_a_late_root_adds_the_delay() {
    if !simgrid_here() {
        return;
    }
    for (p, t0, td, d, b) in exact_case("flat-bcast", "bcast", "smpi/bcast:flattree", "0", "5us") {
        assert!(
            b.abs() < 0.01,
            "P={p}: b = {b}, t0 {t0}, t_delta {td}, delta {d}"
        );
    }
}

/// The linear barrier: every rank sends to rank 0, which then releases all. With every
/// send a rendezvous, nothing moves before rank 0 arrives, so a late rank 0 adds δ exactly.
#[test]
fn linear_barrier_with_a_late_root_adds_the_delay() {
    if !simgrid_here() {
        return;
    }
    for (p, t0, td, d, b) in exact_case(
        "linear-barrier",
        "barrier",
        "smpi/barrier:ompi_basic_linear",
        "0",
        "5us",
    ) {
        assert!(
            b.abs() < 0.01,
            "P={p}: b = {b}, t0 {t0}, t_delta {td}, delta {d}"
        );
    }
}

/// Each distinct delay vector simulated once and the warm-up extrapolated (the default)
/// give the records that simulating every repetition and warm-up call gives, to the
/// simulated nanosecond; sampled delays (every vector distinct) are simulated one by one. A
/// swept algorithm is named on every block; the header has each P's cost.
#[test]
fn distinct_repetitions_reproduce_every_repetition() {
    if !simgrid_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let common = [
        "--procs",
        "4,16",
        "--nrep",
        "12",
        "--seed",
        "3",
        "--platform",
        "torus",
        "--delay",
        "30us,exp:20us",
        "--algorithms",
        "rdb",
    ];
    let fast = simulate(dir.path(), "distinct", &common);
    let mut every = common.to_vec();
    every.push("--every-repetition");
    let slow = simulate(dir.path(), "every", &every);
    let (a, b) = (read_records(&fast).unwrap(), read_records(&slow).unwrap());
    assert!(a.header.simulation.as_ref().unwrap().distinct_repetitions);
    assert!(!b.header.simulation.as_ref().unwrap().distinct_repetitions);
    // Each P's cost is in the header, in the order simulated.
    for rec in [&a, &b] {
        let costs = &rec.header.simulation.as_ref().unwrap().costs;
        assert_eq!(costs.iter().map(|c| c.procs).collect::<Vec<_>>(), [4, 16]);
        for c in costs {
            assert!(
                c.wall_time_s > 0.0 && c.peak_memory_bytes > 1_000_000,
                "{c:?}"
            );
            assert!(c.simulated_repetitions > 0, "{c:?}");
        }
    }
    // The file with the costs replaced the one streamed during the curve: nothing is
    // left beside it, and it ends with its footer.
    for f in [&fast, &slow] {
        let mut beside = f.as_os_str().to_owned();
        beside.push(".with-costs");
        assert!(
            !std::path::Path::new(&beside).exists(),
            "{beside:?} left over"
        );
    }
    assert!(a.footer.is_some() && b.footer.is_some());
    assert_eq!(a.blocks.len(), b.blocks.len());
    for (x, y) in a.blocks.iter().zip(&b.blocks) {
        // The distinct run extrapolates the warm-up (--warmup 10: 3 calls simulated), the
        // other simulates every call: the same window (the starts' spacing). Absolute
        // starts differ after a P's first block, which the two runs end at different
        // instants.
        let (sx, sy) = (&x.scheduled_start_s.0, &y.scheduled_start_s.0);
        for i in 1..sx.len() {
            let (wx, wy) = (sx[i] - sx[i - 1], sy[i] - sy[i - 1]);
            assert!(
                (wx - wy).abs() < 2e-9,
                "P={}: window {wx} vs {wy}",
                x.nprocs
            );
        }
        assert_eq!(
            (x.nrep, x.nprocs, &x.delay_model),
            (y.nrep, y.nprocs, &y.delay_model)
        );
        assert_eq!(x.applied_delay_s.0, y.applied_delay_s.0);
        assert_eq!(x.flags, y.flags);
        assert_eq!(x.algorithm.as_ref().unwrap().name, "rdb");
        assert_eq!(x.algorithm.as_ref().unwrap().variable, "smpi/allreduce");
        for k in 0..x.t_start_global_s.0.len() {
            let rep = k / x.nprocs as usize;
            let rel = |b: &Block, t: &[f64]| t[k] - b.scheduled_start_s.0[rep];
            for (tx, ty) in [
                (&x.t_start_global_s.0, &y.t_start_global_s.0),
                (&x.t_end_global_s.0, &y.t_end_global_s.0),
            ] {
                let d = (rel(x, tx) - rel(y, ty)).abs();
                assert!(
                    d < 2e-9,
                    "P={} {} k={k}: {d} s apart",
                    x.nprocs,
                    x.delay_model
                );
            }
        }
    }
}

/// The last repetition of a block runs on an idle network like the others: with every
/// repetition simulated, each repeats the first (times from its own start instant) to 1 ns.
/// Before the ranks waited out the last window, early finishers' next calls shared its
/// links and moved its ends by 4 ns here (mvapich2_rs, P = 128), and by 17 ns on a larger
/// torus, which failed the distinct-repetition check and made a curve simulate every
/// repetition.
#[test]
fn the_last_repetition_repeats_the_first() {
    if !simgrid_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = simulate(
        dir.path(),
        "last",
        &[
            "--ops",
            "allreduce",
            "--sizes",
            "8",
            "--procs",
            "128",
            "--nrep",
            "6",
            "--delay",
            "50us",
            "--delay-rank",
            "0",
            "--platform",
            "torus",
            "--algorithms",
            "mvapich2_rs",
            "--every-repetition",
        ],
    );
    let rec = read_records(&file).unwrap();
    assert_eq!(
        rec.blocks.len(),
        2,
        "one block without and one with the delay"
    );
    for b in &rec.blocks {
        let p = b.nprocs as usize;
        let rel =
            |t: &[f64], rep: usize, rank: usize| t[rep * p + rank] - b.scheduled_start_s.0[rep];
        let last = b.nrep as usize - 1;
        for rank in 0..p {
            for t in [&b.t_start_global_s.0, &b.t_end_global_s.0] {
                let d = (rel(t, last, rank) - rel(t, 0, rank)).abs();
                assert!(
                    d < 1e-9,
                    "delay {} s, rank {rank}: the last repetition is {:.3} ns off the first",
                    b.delay_s,
                    d * 1e9
                );
            }
        }
    }
}

/// The eleven kernel families of the C program run simulated, blocking and nonblocking, and
/// the `ref:*` algorithms and v-forms are refused before anything runs.
#[test]
fn the_library_kernels_are_simulated() {
    if !simgrid_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ops = "barrier,bcast,reduce,allreduce,alltoall,allgather,gather,scatter,\
               reduce_scatter_block,scan,exscan,ibarrier,ibcast,ireduce,iallreduce,ialltoall,\
               iallgather,igather,iscatter,ireduce_scatter_block,iscan,iexscan";
    let file = simulate(
        dir.path(),
        "kernels",
        &[
            "--ops", ops, "--sizes", "16", "--procs", "3", "--nrep", "4", "--delay", "20us",
        ],
    );
    let rec = read_records(&file).unwrap();
    assert_eq!(rec.blocks.len(), 22 * 2);
    for b in &rec.blocks {
        assert!(b.shape_ok());
        assert_eq!(b.nrep, 4);
        assert!(
            (0..4).all(|r| b.rep_valid(r)),
            "{:?} {}",
            b.op,
            b.delay_model
        );
        // A late root or peer costs a kernel that waits for it at least most of the delay.
        if b.delay_s > 0.0 {
            assert!(median_t(b) > 15e-6, "{:?}: {}", b.op, median_t(b));
        }
    }
    // A simulate that fails, with its stderr; `simulate --procs 2 --no-figures` + `args`.
    let fails = |args: &[&str]| {
        let all: Vec<&str> = ["--procs", "2", "--no-figures"]
            .into_iter()
            .chain(args.iter().copied())
            .collect();
        let out = simulate_output(&all);
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    for op in ["ref:ring", "alltoallv"] {
        let err = fails(&["--ops", op]);
        assert!(err.contains(&format!("has no {op}")), "{err}");
    }
    // A delay of 0 is refused as the measurement refuses it (one check, Plan::check_alone):
    // it would simulate the baseline again, in rows that read like the baseline's.
    let err = fails(&["--delay", "0,10us"]);
    assert!(err.contains("delay 0s is not a positive delay"), "{err}");
    // So is a size of 0 B for a kernel with a payload, which simulated a 0 B allreduce.
    let err = fails(&["--ops", "allreduce", "--sizes", "0"]);
    assert!(
        err.contains("size 0 B cannot be used for allreduce"),
        "{err}"
    );
    let err = fails(&["--ops", "bcast", "--sizes", "0"]);
    assert!(err.contains("size 0 B has no payload"), "{err}");
    // An algorithm name is one family's: two families are refused before the launch.
    let out = dir.path().join("two-families.cbor");
    let path = out.to_str().unwrap();
    let err = fails(&[
        "--ops",
        "allreduce,barrier",
        "--algorithms",
        "rdb",
        "--output",
        path,
    ]);
    assert!(err.contains("--ops has 2 (allreduce, barrier)"), "{err}");
    assert!(!out.exists(), "a refused run leaves no records file");
    // A launch that fails at its first P leaves no file of a header alone behind.
    let out = dir.path().join("failed.cbor");
    let path = out.to_str().unwrap();
    let bad = "smpi/allreduce:no_such_algorithm";
    let err = fails(&[
        "--ops",
        "allreduce",
        "--nrep",
        "2",
        "--cfg",
        bad,
        "--output",
        path,
    ]);
    assert!(err.contains("no_such_algorithm"), "{err}");
    assert!(
        !out.exists(),
        "a run that simulated no P leaves no records file"
    );
}

/// Every built-in platform holds the smallest machines too: one host (all ranks on it) and
/// two hosts (a torus of fewer than 2 × 2 × 2 hosts would declare a link twice).
#[test]
fn built_in_platforms_hold_one_and_two_hosts() {
    if !simgrid_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for platform in ["fat-tree", "torus", "dragonfly"] {
        for rph in ["1", "32"] {
            let name = format!("{platform}-{rph}");
            let file = simulate(
                dir.path(),
                &name,
                &[
                    "--procs",
                    "2",
                    "--nrep",
                    "3",
                    "--platform",
                    platform,
                    "--ranks-per-host",
                    rph,
                ],
            );
            let rec = read_records(&file).unwrap();
            assert_eq!(rec.blocks.len(), 2, "{name}");
            assert!(rec.blocks.iter().all(|b| b.rep_valid(0)), "{name}");
        }
    }
}

#[test]
fn a_launch_says_where_it_is_in_its_progress_file() {
    // Rank 0 appends `BLOCK BLOCKS warmup|rep DONE TOTAL` per simulated call, which
    // `delaybench` prints every 20 s of a long P (src/simulate/smpi/watch.rs); `--keep-files` keeps
    // the file. With every warm-up call and repetition simulated, its lines are all of them,
    // in order: the baseline block, then the delayed one.
    if !simgrid_here() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (_, err) = simulate_said(
        dir.path(),
        "progress",
        &[
            "--ops",
            "barrier",
            "--procs",
            "4",
            "--nrep",
            "3",
            "--delay",
            "10us",
            "--warmup",
            "4",
            "--every-repetition",
            "--keep-files",
        ],
    );
    let kept = err
        .lines()
        .find_map(|l| l.strip_prefix("delaybench: simulator files kept in "))
        .unwrap_or_else(|| panic!("no kept folder named:\n{err}"));
    let text = std::fs::read_to_string(Path::new(kept).join("p4/progress.txt")).unwrap();
    let _ = std::fs::remove_dir_all(kept);
    let mut want = Vec::new();
    for block in 1..=2 {
        want.extend((1..=4).map(|w| format!("{block} 2 warmup {w} 4")));
        want.extend((1..=3).map(|r| format!("{block} 2 rep {r} 3")));
    }
    assert_eq!(text.lines().collect::<Vec<_>>(), want, "{text}");
    let at = delaybench::simulate::smpi::watch::Position::last_of(&text).unwrap();
    assert_eq!(at.to_string(), "block 2 of 2, 3 of 3 repetitions simulated");
}

/// The plan of `tests/data/smpi-records-before-engines.cbor`, written by the SMPI engine
/// before the engines shared one writer (delaybench 1346f6f, Debian's SimGrid 3.32) with
/// `delaybench simulate` and these options.
const BEFORE_ENGINES: [&str; 14] = [
    "--procs",
    "2,4",
    "--nrep",
    "5",
    "--sizes",
    "8,64",
    "--ops",
    "allreduce,barrier",
    "--delay",
    "50us,exp:20us",
    "--seed",
    "7",
    "--engine",
    "smpi",
];

#[test]
fn the_smpi_engine_writes_the_records_it_wrote_before() {
    if !simgrid_here() {
        return;
    }
    let before_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/smpi-records-before-engines.cbor");
    let before = read_records(&before_path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // The fixture was written without --engine, the only engine then.
    let now = read_records(&simulate(dir.path(), "now", &BEFORE_ENGINES)).unwrap();
    let (b_sim, n_sim) = (
        before.header.simulation.clone().unwrap(),
        now.header.simulation.clone().unwrap(),
    );
    if b_sim.engine_version != n_sim.engine_version {
        common::skip_known_limit(&format!(
            "the fixture was simulated by SimGrid {} and this machine has {}: its times may \
             differ",
            b_sim.engine_version, n_sim.engine_version
        ));
        return;
    }
    // Every block, every time and flag, to the bit (Debug prints an f64 exactly).
    assert_eq!(before.blocks.len(), now.blocks.len());
    // Per P: allreduce at 2 sizes and barrier, each undelayed, 50us and exp:20us.
    assert_eq!(before.blocks.len(), 2 * (2 + 1) * 3);
    for (i, (b, n)) in before.blocks.iter().zip(&now.blocks).enumerate() {
        assert_eq!(format!("{b:?}"), format!("{n:?}"), "block {i} differs");
    }
    // The header apart from what names this run (its command line, start, identity and
    // build), what it cost (wall times, memory) and the engine's name, new with the engines.
    assert_eq!(
        b_sim.engine_option, "smpi",
        "a file without the field reads as smpi"
    );
    assert_eq!(n_sim.engine_option, "smpi");
    let mut n = now.header.clone();
    n.command_line = before.header.command_line.clone();
    n.start_utc = before.header.start_utc.clone();
    n.provenance = before.header.provenance.clone();
    let costs = |s: &delaybench::records::Simulation| -> Vec<(u32, u64)> {
        s.costs
            .iter()
            .map(|c| (c.procs, c.simulated_repetitions))
            .collect()
    };
    assert_eq!(costs(&b_sim), costs(&n_sim));
    n.simulation = Some(delaybench::records::Simulation {
        costs: b_sim.costs.clone(),
        ..n_sim
    });
    assert_eq!(format!("{:?}", before.header), format!("{n:?}"));
}

/// What no engine of this build simulates is refused before anything runs (no SimGrid is
/// needed to see it), with exit status 2 and a message naming the option.
#[test]
fn options_an_engine_cannot_take_are_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.cbor");
    let not_noise = dir.path().join("not-noise.txt");
    std::fs::write(&not_noise, "0 100\n").unwrap();
    let refused = |args: &[&str], names: &str| {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--output", out.to_str().unwrap(), "--no-figures"]);
        let run = simulate_output(&all);
        let err = String::from_utf8_lossy(&run.stderr).to_string();
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(names), "{args:?} should name {names}: {err}");
        assert!(!out.exists(), "{args:?} wrote a file");
    };
    refused(&["--engine", "loggops", "--loggops", "L=2.5"], "--loggops");
    refused(&["--engine", "loggops", "--ops", "scan"], "--ops scan");
    refused(&["--engine", "logp"], "loggops, smpi");
    refused(&["--noise", "periodic:10Hz:1ms"], "--noise");
    refused(&["--noise", not_noise.to_str().unwrap()], "--noise");
    refused(&["--noise", "periodic:10:1ms"], "Hz");
    refused(&["--noise-cosched"], "--noise-cosched");
    refused(&["--loggops", "L=2.5us"], "--loggops");
    refused(
        &[
            "--ops",
            "iallreduce",
            "--progress",
            "wait",
            "--overlap-compute",
            "100us",
        ],
        "--progress wait",
    );
    refused(
        &["--ops", "iallreduce", "--overlap-compute", "100us"],
        "--overlap-compute",
    );
    refused(&["--detour", "1kHz,10us"], "--detour");
    refused(&["--detour", "noise:x.cbor,shifted"], "--detour");
}
