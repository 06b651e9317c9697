//! Delays actually applied in real runs follow their models, are reproducible from the seed,
//! and detours are recorded.

mod common;

use common::run_records;
use delaybench::delay::DelayModel;
use delaybench::records::Records;
use std::path::Path;

fn run(dir: &Path, name: &str, args: &[&str]) -> Records {
    run_records(2, dir, name, args)
}

#[test]
fn applied_delays_follow_every_model() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("trace.txt"),
        "# us\n10us\n30us\n20us\n40us\n",
    )
    .unwrap();
    let delays = "fixed:50us,uniform:0us..100us,normal:50us,10us,exp:20us,lognormal:50us,20us,\
                  gamma:2,10us,pareto:10us,3,trace:trace.txt";
    let r = run(
        dir.path(),
        "models.cbor",
        &[
            "--ops",
            "barrier",
            "--procs",
            "2",
            "--delay-rank",
            "all",
            "--delay",
            delays,
            "--nrep",
            "400",
            "--warmup",
            "2",
            "--window",
            "2ms",
            "--seed",
            "11",
        ],
    );
    let delayed: Vec<_> = r.blocks.iter().filter(|b| b.delay_s > 0.0).collect();
    assert_eq!(delayed.len(), 8, "one block per model");
    for b in delayed {
        let model: DelayModel = b
            .delay_model
            .replace(
                "trace.txt",
                &dir.path().join("trace.txt").display().to_string(),
            )
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", b.delay_model));
        let xs = &b.applied_delay_s.0;
        assert_eq!(xs.len(), 800);
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
        // 800 samples: the mean is within a few standard errors; heavy tails get room.
        let tolerance = 4.0 * model.sd_s().min(model.mean_s()) / n.sqrt() + 1e-9;
        assert!(
            (mean - model.mean_s()).abs() <= tolerance.max(0.08 * model.mean_s()),
            "{}: mean {mean} vs {}",
            b.delay_model,
            model.mean_s()
        );
        if model.sd_s().is_finite() {
            assert!(
                (sd - model.sd_s()).abs() <= 0.35 * model.sd_s() + 1e-9,
                "{}: sd {sd} vs {}",
                b.delay_model,
                model.sd_s()
            );
        }
        assert!(xs.iter().all(|&x| x >= 0.0));
    }
}

#[test]
fn the_same_seed_gives_the_same_delays() {
    let dir = tempfile::tempdir().unwrap();
    let args = |seed: &'static str| {
        [
            "--ops",
            "barrier",
            "--procs",
            "2",
            "--delay-rank",
            "random:1",
            "--delay",
            "exp:20us",
            "--nrep",
            "50",
            "--warmup",
            "1",
            "--seed",
            seed,
        ]
    };
    let delays = |r: &Records| r.blocks[1].applied_delay_s.0.clone();
    let a = run(dir.path(), "a.cbor", &args("5"));
    let b = run(dir.path(), "b.cbor", &args("5"));
    let c = run(dir.path(), "c.cbor", &args("6"));
    assert_eq!(delays(&a), delays(&b));
    assert_ne!(delays(&a), delays(&c));
    // random:1: exactly one of the two ranks is late in each repetition.
    for rep in delays(&a).chunks(2) {
        assert_eq!(rep.iter().filter(|&&d| d > 0.0).count(), 1, "{rep:?}");
    }
}

#[test]
fn detours_are_injected_at_their_frequency_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let r = run(
        dir.path(),
        "detours.cbor",
        &[
            "--ops",
            "allreduce",
            "--sizes",
            "8",
            "--procs",
            "2",
            "--detour",
            "2kHz,20us,sync",
            "--nrep",
            "300",
            "--window",
            "1ms",
        ],
    );
    for b in &r.blocks {
        let d = b.detour.as_ref().expect("detours recorded per block");
        assert_eq!(d.spec, "2kHz,20us,sync");
        for rank in 0..2 {
            // The timer runs for the whole block (about nrep x window plus the lead);
            // detours cost CPU only inside the operation, the rest are counted as skipped.
            // Under MPI some expiries go uncounted (tests/delay_detour.rs checks the rate
            // precisely in a plain process), so the band only catches a wrong frequency.
            let expiries = (d.fired[rank] + d.skipped[rank] + d.missed[rank]) as f64;
            // The block's real span from its schedule (slip recoveries and the stop
            // agreements can stretch it beyond nrep x window), plus the 1 ms lead.
            let starts = &b.scheduled_start_s.0;
            let span = starts[starts.len() - 1] - starts[0] + 1e-3 + 1e-3;
            let expected = 2000.0 * span;
            assert!(
                expiries > 0.3 * expected && expiries < 2.0 * expected,
                "rank {rank}: {expiries} timer expiries, expected about {expected}"
            );
            // Each detour busy-waits its 20 us; preemption inside the handler can only add.
            let per_detour = d.lost_s[rank] / d.fired[rank].max(1) as f64;
            assert!(
                d.fired[rank] == 0 || (19e-6..200e-6).contains(&per_detour),
                "rank {rank}: {per_detour} s per detour"
            );
        }
    }
}

#[test]
fn every_rank_applies_the_planned_delays_at_every_p() {
    // Four ranks, P = 2 then 4: ranks idle at P = 2 must number the delay streams like the
    // others, or at P = 4 they apply other delays (and the run can hang).
    let dir = tempfile::tempdir().unwrap();
    let r = run_records(
        4,
        dir.path(),
        "noise.cbor",
        &[
            "--ops",
            "allreduce",
            "--sizes",
            "8",
            "--procs",
            "2,4",
            "--delay-rank",
            "all",
            "--delay",
            "exp:20us,uniform:0us..40us",
            "--nrep",
            "60",
            "--seed",
            "3",
        ],
    );
    let plan = &r.header.plan;
    assert_eq!(r.blocks.len(), 6);
    for (stream, block) in r.blocks.iter().enumerate() {
        let Some(model) = plan.delays.iter().find(|m| m.label() == block.delay_model) else {
            assert_eq!(block.delay_model, "0");
            continue;
        };
        let planned = delaybench::delay::delay_matrix(
            model,
            &plan.delay_ranks,
            block.nprocs,
            &r.header.hosts,
            plan.nrep,
            plan.seed,
            stream as u64,
        );
        let differing = planned
            .iter()
            .zip(&block.applied_delay_s.0)
            .filter(|(p, a)| p != a)
            .count();
        assert_eq!(
            differing,
            0,
            "block {stream} at P = {}: {differing} of {} delays differ from the plan",
            block.nprocs,
            planned.len()
        );
    }
}
