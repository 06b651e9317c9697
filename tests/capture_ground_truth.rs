//! Ground truth for the capture (docs/capture.md): tests/capture/imbalance.c makes rank r
//! compute r × 100 µs before each of 500 MPI_Allreduce calls; run under mpirun with
//! libdelaybench_capture.so preloaded, the captured lateness of rank r must be within 1 µs
//! of r × 100 µs at the median. Skips with a message without an MPI compiler wrapper. A
//! second test captures Debian's LAMMPS (`lmp`, the `melt` example) when it is installed; a
//! third, tests/capture/vforms.c, the nonblocking v-forms and `MPI_Ireduce_scatter` with
//! their count vectors; a fourth, tests/capture/persistent.c, MPI-4 persistent collectives
//! (rank r arrives r × 100 µs late at each of 200 `MPI_Start`s of a persistent allreduce); a
//! fifth, tests/capture/unequal.c, MPI_Allgatherv and MPI_Alltoallv with unequal counts,
//! replayed with the captured counts.

mod common;
#[path = "capture/support.rs"]
mod support;

use delaybench::analysis::arrivals::report;
use delaybench::capture::{counts_hash, match_calls, read_captures, CaptureOp, WaitKind};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use support::{build_capture_library, build_test_program, capture, capture_with};

#[test]
fn captured_lateness_matches_the_programmed_imbalance() {
    let Some((tmp, program)) = build_test_program("imbalance") else {
        return;
    };
    let library = build_capture_library();

    let np = 2;
    let dir = tmp.path().join("capture");
    let out = capture(np, &library, &program, &dir);
    assert!(out.status.success(), "{}", common::text(&out));

    let captures = read_captures(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(captures.len(), np as usize);
    assert!(captures
        .iter()
        .all(|c| c.footer.is_some() && c.damage.is_none()));
    let matched = match_calls(&captures).unwrap();
    // One warm-up call at its own site, then the 500 timed ones.
    assert_eq!(matched.instances.len(), 501);
    assert_eq!(matched.incomplete_calls, 0);
    let r = report(&matched, None);
    let site = r
        .sites
        .iter()
        .find(|s| s.calls == 500)
        .unwrap_or_else(|| panic!("no site with 500 calls: {:?}", r.sites));
    assert_eq!(site.op, CaptureOp::Allreduce.name());
    assert_eq!(site.bytes, 8);
    for (rank, late) in site.median_lateness_s.iter().enumerate() {
        let want = rank as f64 * 100e-6;
        let err = (late - want).abs();
        eprintln!(
            "rank {rank}: median lateness {:.3} us, programmed {:.0} us, error {:.3} us",
            late * 1e6,
            want * 1e6,
            err * 1e6
        );
        assert!(err < 1e-6, "rank {rank}: {late} s against {want} s");
    }

    // The command prints the same site.
    let dir_arg = dir.to_str().unwrap();
    let json = common::offline(&["arrivals", dir_arg, "--format", "json"]);
    assert!(json.status.success(), "{}", common::text(&json));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["sites"].as_array().unwrap().len(), 2);
    // The first report drew its figures beside the capture; the second leaves them alone.
    let figures = tmp.path().join("capture-arrivals");
    for stem in ["arrival_spread", "arrival_lateness", "arrival_waiting"] {
        for ext in ["png", "svg"] {
            let f = figures.join(format!("{stem}.{ext}"));
            let len = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
            assert!(len > 1000, "{} missing or empty", f.display());
        }
    }
    let table = common::offline(&["arrivals", dir_arg]);
    assert!(table.status.success(), "{}", common::text(&table));
    assert!(common::text(&table).contains("wait_nxn"));
    assert!(common::text(&table).contains("no figures"));

    // Replaying the site applies its lateness vectors, repetition i the i-th call; without
    // --ops and --sizes the run measures the site's allreduce, iallreduce at its 8 bytes.
    let spec = format!("replay:{}@{}", dir.display(), site.site);
    let nrep = 20;
    let (procs, reps) = (np.to_string(), nrep.to_string());
    let rec = common::run_records(
        np,
        tmp.path(),
        "replay.cbor",
        &replay_args(&procs, &spec, &reps),
    );
    let measured = measured(&rec);
    assert!(
        measured.contains(&("allreduce".into(), 8)) && measured.contains(&("iallreduce".into(), 8)),
        "{measured:?}"
    );
    let replayed = delaybench::delay::models::replay::Replay::of(&rec.header.plan.delays[0])
        .expect("the plan's delay is the replay");
    assert_eq!(
        (replayed.op.as_str(), replayed.bytes, replayed.map.as_str()),
        ("allreduce", 8, "first")
    );
    let block = rec
        .blocks
        .iter()
        .find(|b| b.delay_model.starts_with("replay:"))
        .expect("a replay block");
    assert!(
        block.delay_model.ends_with(&site.site),
        "{}",
        block.delay_model
    );
    let (_, vectors) = delaybench::capture::site_lateness(&matched, Some(&site.site)).unwrap();
    let applied = &block.applied_delay_s.0;
    assert_eq!(applied.len(), nrep * np as usize);
    for (i, row) in applied.chunks(np as usize).enumerate() {
        let want = &vectors[i];
        let least = want.iter().copied().fold(f64::INFINITY, f64::min);
        for (r, got) in row.iter().enumerate() {
            assert!(
                (got - (want[r] - least)).abs() < 1e-12,
                "repetition {i}, rank {r}: applied {got} s, captured {} s",
                want[r] - least
            );
        }
    }
    // analyze pairs the blocking and nonblocking replay of the site.
    let file = tmp.path().join("replay.cbor");
    let json = common::offline(&[
        "analyze",
        file.to_str().unwrap(),
        "--replay",
        "--format",
        "json",
    ]);
    assert!(json.status.success(), "{}", common::text(&json));
    let rows: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(rows[0]["blocking"], "allreduce", "{rows}");
    assert_eq!(rows[0]["nonblocking"], "iallreduce", "{rows}");
    assert!(["yes", "no", "unknown"].contains(&rows[0]["hidden"].as_str().unwrap()));
}

#[test]
fn a_debian_packaged_application_is_captured_whole() {
    let input = Path::new("/usr/share/lammps/examples/melt/in.melt");
    let lmp = Command::new("lmp").arg("-h").output();
    if !input.exists() || !lmp.is_ok_and(|o| o.status.success()) {
        common::skip("Debian's lammps and lammps-examples are not installed");
        return;
    }
    let library = build_capture_library();
    let tmp = tempfile::tempdir().unwrap();
    std::fs::copy(input, tmp.path().join("in.melt")).unwrap();
    let dir = tmp.path().join("capture");
    let launcher = common::launcher();
    let mut cmd = Command::new(&launcher);
    cmd.args(["-np", "2"]);
    if launcher.contains("mpich") {
        // Debian's lmp is built for Open MPI.
        common::skip_known_limit(&format!(
            "lmp is built for Open MPI, the launcher is {launcher}"
        ));
        return;
    }
    cmd.args(["-x", &format!("LD_PRELOAD={}", library.display())])
        .args(["-x", "DELAYBENCH_CAPTURE_DIR", "lmp", "-in", "in.melt"])
        .current_dir(tmp.path())
        .env("DELAYBENCH_CAPTURE_DIR", &dir)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1");
    let out = common::run_mpi_job(cmd, Duration::from_secs(240));
    assert!(out.status.success(), "{}", common::text(&out));
    let captures = read_captures(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(captures.len(), 2);
    assert!(captures
        .iter()
        .all(|c| c.footer.is_some() && c.damage.is_none()));
    let matched = match_calls(&captures).unwrap();
    assert_eq!(matched.incomplete_calls, 0);
    let r = report(&matched, None);
    // LAMMPS broadcasts its input and reduces its thermo output from several sites.
    assert!(r.sites.len() > 5, "{:?}", r.sites);
    assert!(r.sites.iter().any(|s| s.op == "bcast") && r.sites.iter().any(|s| s.op == "allreduce"));
    assert!(r.sites.iter().any(|s| s.site.starts_with("liblammps")));
}

#[test]
fn nonblocking_v_forms_are_captured_with_their_count_vectors() {
    let Some((tmp, program)) = build_test_program("vforms") else {
        return;
    };
    let library = build_capture_library();
    let np = 3u64;
    let dir = tmp.path().join("capture");
    let out = capture(np as u32, &library, &program, &dir);
    assert!(out.status.success(), "{}", common::text(&out));
    let captures = read_captures(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(captures.len(), np as usize);
    let matched = match_calls(&captures).unwrap();
    assert_eq!(matched.incomplete_calls, 0);
    for c in &captures {
        let r = u64::from(c.header.rank);
        let calls = |op: CaptureOp| c.events.iter().filter(move |e| e.op == op);
        // The vector of an op's calls at one site: its hash on every call, written once.
        let vectors_of = |op: CaptureOp| {
            let site = calls(op).next().unwrap_or_else(|| panic!("no {op:?}")).site;
            c.counts
                .iter()
                .filter(|v| v.site == site)
                .map(|v| v.bytes.clone())
                .collect::<Vec<_>>()
        };
        let ints = |f: &dyn Fn(u64) -> u64| (0..np).map(|j| 4 * f(j)).collect::<Vec<u64>>();
        let row = ints(&|j| (r + 1) * (j + 1));
        assert_eq!(calls(CaptureOp::Ialltoallv).count(), 10, "rank {r}");
        for e in calls(CaptureOp::Ialltoallv) {
            assert_eq!(
                e.counts_hash,
                Some(counts_hash(&row)),
                "rank {r}: {:?}",
                c.counts
            );
        }
        assert_eq!(
            vectors_of(CaptureOp::Ialltoallv),
            vec![row.clone()],
            "rank {r}"
        );
        let doubled: Vec<u64> = row.iter().map(|b| 2 * b).collect();
        assert_eq!(
            vectors_of(CaptureOp::Alltoallv),
            vec![row, doubled],
            "rank {r}"
        );
        let per_rank = ints(&|j| j + 1);
        for op in [CaptureOp::Iallgatherv, CaptureOp::IreduceScatter] {
            assert_eq!(vectors_of(op), vec![per_rank.clone()], "rank {r} {op:?}");
        }
        // The root's vector only: the others' counts are not significant.
        for op in [CaptureOp::Igatherv, CaptureOp::Iscatterv] {
            let e = calls(op).next().unwrap();
            assert_eq!(e.root, 0);
            if r == 0 {
                assert_eq!(e.counts_hash, Some(counts_hash(&per_rank)), "{op:?}");
            } else {
                assert_eq!(e.counts_hash, None, "rank {r} {op:?}");
            }
        }
        assert_eq!(
            calls(CaptureOp::Iallgatherv).next().unwrap().bytes,
            4 * (r + 1)
        );
    }
}

#[test]
fn persistent_collectives_are_captured_from_start_to_completion() {
    let Some((tmp, program)) = build_test_program("persistent") else {
        return;
    };
    let library = build_capture_library();
    let np = 2u32;
    let dir = tmp.path().join("capture");
    let out = capture(np, &library, &program, &dir);
    assert!(out.status.success(), "{}", common::text(&out));
    if common::text(&out).contains("skipped: this MPI has no persistent collectives") {
        common::skip_known_limit("this MPI has neither MPI_<Coll>_init nor MPIX_<Coll>_init");
        return;
    }
    let captures = read_captures(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(captures.len(), np as usize);
    assert!(captures
        .iter()
        .all(|c| c.footer.is_some() && c.damage.is_none()));
    let matched = match_calls(&captures).unwrap();
    // Warm-up allreduce, 200 persistent allreduces, 10 × (barrier, bcast), 10 allreduces
    // completed by MPI_Test, the closing barrier.
    assert_eq!(matched.instances.len(), 1 + 200 + 20 + 10 + 1);
    assert_eq!(matched.incomplete_calls, 0);
    for c in &captures {
        let count = |op: CaptureOp| c.events.iter().filter(|e| e.op == op).count();
        assert_eq!(
            count(CaptureOp::AllreducePersistent),
            210,
            "rank {}",
            c.header.rank
        );
        assert_eq!(count(CaptureOp::BarrierPersistent), 10);
        assert_eq!(count(CaptureOp::BcastPersistent), 10);
        assert_eq!(
            (count(CaptureOp::Allreduce), count(CaptureOp::Barrier)),
            (1, 1)
        );
        // Startall's requests in their array order, each call exiting after it entered.
        let started: Vec<CaptureOp> = c
            .events
            .iter()
            .filter(|e| {
                matches!(
                    e.op,
                    CaptureOp::BarrierPersistent | CaptureOp::BcastPersistent
                )
            })
            .map(|e| e.op)
            .take(2)
            .collect();
        assert_eq!(
            started,
            vec![CaptureOp::BarrierPersistent, CaptureOp::BcastPersistent]
        );
        assert!(c.events.iter().all(|e| e.t_exit_s >= e.t_enter_s));
    }
    let r = report(&matched, None);
    let site = r
        .sites
        .iter()
        .find(|s| s.calls == 200)
        .unwrap_or_else(|| panic!("no site with 200 calls: {:?}", r.sites));
    assert_eq!(site.op, "allreduce_persistent");
    assert_eq!(site.bytes, 8);
    assert_eq!(site.wait_state, Some(WaitKind::WaitNxN));
    for (rank, late) in site.median_lateness_s.iter().enumerate() {
        let want = rank as f64 * 100e-6;
        let err = (late - want).abs();
        eprintln!(
            "rank {rank}: median lateness {:.3} us, programmed {:.0} us, error {:.3} us",
            late * 1e6,
            want * 1e6,
            err * 1e6
        );
        assert!(err < 50e-6, "rank {rank}: {late} s against {want} s");
    }
    // The exit is the MPI_Wait's return, not the MPI_Start's: rank 0 waits there for rank 1,
    // about 100 µs per call (the waiting is capped by the time from entry to exit).
    assert!(
        site.wait_total_s > 200.0 * 50e-6,
        "waiting {} s at the persistent site",
        site.wait_total_s
    );
    let startall = r
        .sites
        .iter()
        .filter(|s| s.calls == 10)
        .map(|s| (s.op.as_str(), s.wait_state))
        .collect::<Vec<_>>();
    for want in [
        ("barrier_persistent", Some(WaitKind::WaitBarrier)),
        ("bcast_persistent", Some(WaitKind::LateBroadcast)),
        ("allreduce_persistent", Some(WaitKind::WaitNxN)),
    ] {
        assert!(startall.contains(&want), "{want:?} not in {startall:?}");
    }

    // Replaying the site measures the persistent allreduce kernel beside the other forms.
    let spec = format!("replay:{}@{}", dir.display(), site.site);
    let procs = np.to_string();
    let rec = common::run_records(
        np,
        tmp.path(),
        "replay.cbor",
        &replay_args(&procs, &spec, "10"),
    );
    let measured = measured(&rec);
    for op in ["allreduce", "iallreduce", "allreduce_persistent"] {
        assert!(measured.contains(&(op.into(), 8)), "{op}: {measured:?}");
    }
}

/// delaybench's arguments for a short replay of `spec` on `procs` ranks, `nrep` repetitions
/// (no noise check, figures or summary: the tests read the records).
fn replay_args<'a>(procs: &'a str, spec: &'a str, nrep: &'a str) -> Vec<&'a str> {
    vec![
        "--procs",
        procs,
        "--delay",
        spec,
        "--nrep",
        nrep,
        "--warmup",
        "2",
        "--no-noise-check",
        "--no-figures",
        "--no-summary",
    ]
}

/// Each block's (kernel, bytes).
fn measured(rec: &delaybench::records::Records) -> Vec<(String, u64)> {
    rec.blocks
        .iter()
        .map(|b| (b.op.to_string(), b.bytes))
        .collect()
}

/// The records' counts of every block, as (source, bytes sent, bytes received per rank).
fn block_counts(rec: &delaybench::records::Records) -> Vec<(String, Vec<u64>, Vec<u64>)> {
    rec.blocks
        .iter()
        .map(|b| {
            let c = b
                .counts
                .as_ref()
                .unwrap_or_else(|| panic!("{} {} B: no counts recorded", b.op, b.bytes));
            (c.source.clone(), c.send_bytes.clone(), c.recv_bytes.clone())
        })
        .collect()
}

#[test]
fn a_v_form_site_is_replayed_with_its_captured_counts() {
    let Some((tmp, program)) = build_test_program("unequal") else {
        return;
    };
    let library = build_capture_library();
    let np = 3u32;
    let dir = tmp.path().join("capture");
    let out = capture(np, &library, &program, &dir);
    assert!(out.status.success(), "{}", common::text(&out));

    // arrivals shows each site's bytes per rank: allgatherv 10 (r + 1)^2 ints, alltoallv
    // rank r sends 2 (r + 1)(j + 1) ints to rank j, so 8 (r + 1) x 6 bytes in all.
    let dir_arg = dir.to_str().unwrap();
    let json = common::offline(&["arrivals", dir_arg, "--format", "json", "--no-figures"]);
    assert!(json.status.success(), "{}", common::text(&json));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let site = |op: &str| {
        v["sites"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["op"] == op)
            .unwrap_or_else(|| panic!("no {op} site: {v}"))
            .clone()
    };
    let (gather, all2all) = (site("allgatherv"), site("alltoallv"));
    assert_eq!(
        gather["counts_bytes"],
        serde_json::json!([40, 160, 360]),
        "{gather}"
    );
    assert_eq!(
        all2all["counts_bytes"],
        serde_json::json!([48, 96, 144]),
        "{all2all}"
    );
    assert_eq!(gather["count_vectors"], 1);
    let table = common::offline(&["arrivals", dir_arg, "--no-figures"]);
    assert!(
        common::text(&table).contains("40 160 360"),
        "{}",
        common::text(&table)
    );

    let run = |name: &str, spec: &str, procs: &str, extra: &[&str]| {
        let mut args = replay_args(procs, spec, "10");
        args.extend(extra);
        common::run_records(np, tmp.path(), name, &args)
    };

    // Allgatherv on the recorded 3 ranks: rank i's block v_i goes to all 3; every block of
    // the configuration, the baseline too, runs those partitions and says where from.
    let spec = format!("replay:{dir_arg}@{}", gather["site"].as_str().unwrap());
    let rec = run("gatherv.cbor", &spec, "3", &[]);
    let ops: Vec<String> = rec.blocks.iter().map(|b| b.op.to_string()).collect();
    assert!(
        ops.contains(&"allgatherv".into()) && ops.contains(&"iallgatherv".into()),
        "{ops:?}"
    );
    for (source, send, recv) in block_counts(&rec) {
        assert_eq!(source, spec);
        assert_eq!(send, vec![120, 480, 1080]);
        assert_eq!(recv, vec![560, 560, 560]);
    }
    let replayed = delaybench::delay::models::replay::Replay::of(&rec.header.plan.delays[0])
        .expect("the plan's delay is the replay");
    assert_eq!(replayed.counts, vec![40, 160, 360]);

    // The kernels really pass those counts: delaybench itself captured while replaying
    // records the site's vector at its allgatherv and iallgatherv calls, at least once per
    // repetition of each of the four blocks (the kernel check before measuring runs its own
    // uniform counts, at the same sites).
    let again = tmp.path().join("capture-of-the-replay");
    let output = tmp.path().join("captured-replay.cbor");
    let out = capture_with(
        np,
        &library,
        Path::new(common::exe()),
        &[
            replay_args("3", &spec, "10"),
            vec!["--output", output.to_str().unwrap()],
        ]
        .concat(),
        &again,
    );
    // As for common::run_records: on a loaded machine a block may have no valid repetition,
    // and its calls were made all the same.
    assert!(
        matches!(out.status.code(), Some(0 | common::NO_VALID_EXIT)),
        "{}",
        common::text(&out)
    );
    let captured = vec![40u64, 160, 360];
    let hash = counts_hash(&captured);
    for c in read_captures(std::slice::from_ref(&again)).unwrap() {
        assert!(
            c.counts.iter().any(|v| v.bytes == captured),
            "{:?}",
            c.counts
        );
        let calls = c
            .events
            .iter()
            .filter(|e| matches!(e.op, CaptureOp::Allgatherv | CaptureOp::Iallgatherv))
            .filter(|e| e.counts_hash == Some(hash))
            .count();
        assert!(calls >= 40, "rank {}: {calls} calls", c.header.rank);
    }

    // Alltoallv folded onto 2 ranks: [a][b] sums the recorded [i][j] with i = a, j = b
    // (mod 2), 8 (i + 1)(j + 1) bytes each: [[128, 64], [64, 32]], the 288 bytes recorded.
    let spec = format!("replay:{dir_arg}@{}", all2all["site"].as_str().unwrap());
    let rec = run("alltoallv.cbor", &spec, "2", &["--replay-map", "folded"]);
    for (source, send, recv) in block_counts(&rec) {
        assert_eq!(source, format!("{spec}:folded"));
        assert_eq!((send, recv), (vec![192, 96], vec![192, 96]));
    }

    // A capture without count vectors (as written before they were recorded): the run says
    // so before measuring and falls back to uniform counts.
    let old = tmp.path().join("old");
    std::fs::create_dir(&old).unwrap();
    for c in read_captures(std::slice::from_ref(&dir)).unwrap() {
        use delaybench::capture::{CaptureChunk, CaptureWriter};
        let path = old.join(c.path.file_name().unwrap());
        let mut w = CaptureWriter::create(&path, &c.header).unwrap();
        let mut events = c.events.clone();
        events.iter_mut().for_each(|e| e.counts_hash = None);
        w.chunk(&CaptureChunk {
            item: "capture_chunk".into(),
            sites: c.sites.clone(),
            events,
            counts: vec![],
        })
        .unwrap();
        w.finish(c.footer.as_ref().unwrap()).unwrap();
    }
    let spec = format!(
        "replay:{}@{}",
        old.display(),
        gather["site"].as_str().unwrap()
    );
    let dry = common::offline(&[
        "--dry-run",
        "--world-size",
        "3",
        "--procs",
        "3",
        "--delay",
        &spec,
    ]);
    let said = common::text(&dry);
    assert!(dry.status.success(), "{said}");
    assert!(
        said.contains("no count vectors") && said.contains("uniform"),
        "{said}"
    );
}
