//! The LogGOPS engine's speed (scripts/eval/loggops-bench.sh runs it optimised): per P, a
//! 1-byte dissemination barrier written to GOAL, read back and simulated, with the wall time
//! of each part and the events per second (LogGOPSim's count: one per operation and one per
//! message). Ignored in the ordinary test run; its assertions check the simulated time, so
//! a fast wrong answer fails.
//!
//! `LOGGOPS_BENCH_PROCS=1024,65536` chooses the P's (default 1024, 16384 and 65536);
//! `LOGGOPS_BENCH_NOISE=periodic:1kHz:25us` adds noise (then only the time's lower bound is
//! checked).

use delaybench::simulate::loggops::noise::Phase;
use delaybench::simulate::loggops::{
    collective, parse_goal, write_goal, Noise, OpKind, Params, Simulator,
};
use std::time::Instant;

#[test]
#[ignore = "a benchmark: scripts/eval/loggops-bench.sh"]
fn dissemination_from_goal_events_per_second() {
    let procs: Vec<usize> = std::env::var("LOGGOPS_BENCH_PROCS")
        .unwrap_or_else(|_| "1024,16384,65536".into())
        .split(',')
        .map(|p| {
            p.trim()
                .parse()
                .expect("LOGGOPS_BENCH_PROCS: comma-separated P's")
        })
        .collect();
    let noise_spec = std::env::var("LOGGOPS_BENCH_NOISE").ok();
    let params = Params::default();
    println!(
        "{:>9} {:>10} {:>10} {:>9} {:>9} {:>9} {:>12} {:>12}",
        "P", "events", "goal_MB", "write_s", "parse_s", "sim_s", "sim_ev/s", "total_ev/s"
    );
    for p in procs {
        let built = collective("barrier", Some("dissemination"), p, 1).unwrap();
        let t = Instant::now();
        let mut text = Vec::new();
        write_goal(&built, &mut text).unwrap();
        let write_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let s = parse_goal(std::str::from_utf8(&text).unwrap(), "bench.goal").unwrap();
        let parse_s = t.elapsed().as_secs_f64();
        let mut noise = match &noise_spec {
            Some(spec) => Noise::from_spec(spec, p, Phase::Random(1)).unwrap(),
            None => Noise::None,
        };
        let mut sim = Simulator::new(&params);
        let t = Instant::now();
        let end = sim.run(&s, &vec![0.0; p], &mut noise).unwrap();
        let sim_s = t.elapsed().as_secs_f64();
        let sends = (0..s.num_ops() as u32)
            .filter(|&op| s.op(op).0 == OpKind::Send)
            .count();
        let events = (s.num_ops() + sends) as f64;
        let k = p.next_power_of_two().trailing_zeros() as f64;
        let closed_form = k * (params.l_ns + 2.0 * params.o_ns);
        if noise_spec.is_none() {
            assert!(end.iter().all(|&t| t == closed_form), "P={p}");
        } else {
            assert!(end.iter().all(|&t| t >= closed_form), "P={p}");
        }
        println!(
            "{p:>9} {events:>10} {:>10.1} {write_s:>9.3} {parse_s:>9.3} {sim_s:>9.3} {:>12.3e} {:>12.3e}",
            text.len() as f64 / 1e6,
            events / sim_s,
            events / (parse_s + sim_s)
        );
    }
}

/// For scripts/eval/loggopsim.sh: writes the GOAL file of every algorithm at the P's and
/// sizes asked for into `LOGGOPS_EMIT_DIR` (`<op>-<algorithm>-<P>-<bytes>.goal`), and beside
/// each the end times the engine gives it (`.ends`, one rank a line, LogGOPSim's defaults).
#[test]
#[ignore = "an evaluation helper: scripts/eval/loggopsim.sh"]
fn emit_goal_files_and_their_end_times() {
    let Ok(dir) = std::env::var("LOGGOPS_EMIT_DIR") else {
        panic!("set LOGGOPS_EMIT_DIR");
    };
    let procs = [2usize, 7, 8, 16, 64];
    let sizes = [1u64, 1024, 100_000];
    let mut sim = Simulator::new(&Params::default());
    for a in delaybench::simulate::loggops::ALGORITHMS {
        for p in procs {
            for bytes in sizes {
                let s = collective(a.op, Some(a.name), p, bytes).unwrap();
                let stem = format!("{dir}/{}-{}-{p}-{bytes}", a.op, a.name);
                write_goal(
                    &s,
                    &mut std::fs::File::create(format!("{stem}.goal")).unwrap(),
                )
                .unwrap();
                let end = sim.run(&s, &vec![0.0; p], &mut Noise::None).unwrap();
                let text: String = end.iter().map(|t| format!("{t}\n")).collect();
                std::fs::write(format!("{stem}.ends"), text).unwrap();
            }
        }
    }
    assert!(std::fs::read_dir(&dir).unwrap().count() >= 2 * procs.len() * sizes.len());
}

/// For scripts/eval/loggopsim.sh: the end times the engine gives each GOAL file of
/// `LOGGOPS_GOAL_FILES` (comma-separated), printed as LogGOPSim prints them (`Host i: t`).
#[test]
#[ignore = "an evaluation helper: scripts/eval/loggopsim.sh"]
fn end_times_of_goal_files() {
    let files = std::env::var("LOGGOPS_GOAL_FILES").expect("set LOGGOPS_GOAL_FILES");
    let mut sim = Simulator::new(&Params::default());
    for file in files.split(',') {
        let s = delaybench::simulate::loggops::goal::read_goal(std::path::Path::new(file))
            .unwrap_or_else(|e| panic!("{e}"));
        let end = sim
            .run(&s, &vec![0.0; s.num_ranks()], &mut Noise::None)
            .unwrap();
        println!("{file}");
        for (i, t) in end.iter().enumerate() {
            println!("Host {i}: {t}");
        }
        assert_eq!(end.len(), s.num_ranks());
    }
}
