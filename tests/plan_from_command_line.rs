//! Plans built from measurement command lines, checked by the plan's own checks: the
//! command line is parsed as `main` parses it (`cli`), turned into a request and built by
//! the one plan builder (`plan::build`). These tests parse command lines, so they live here
//! rather than inside `plan`, which knows nothing of the command line.

use clap::{CommandFactory, Parser};
use delaybench::cli::Cli;
use delaybench::delay::models::replay::Replay;
use delaybench::delay::DelayModel;
use delaybench::plan::checks::{check_captured_counts, check_sizes, Estimate, LimitError};
use delaybench::plan::config_file::{Study, StudyError};
use delaybench::plan::vcounts::captured_counts;
use delaybench::plan::{Op, Plan};

/// The plan of a measurement command line `args` on 4 ranks with seed 1.
fn plan(args: &[&str]) -> Plan {
    let argv = std::iter::once("delaybench").chain(args.iter().copied());
    Cli::try_parse_from(argv)
        .unwrap()
        .measure
        .request()
        .to_plan(4, 1)
}

// From plan/checks.rs.

#[test]
fn sizes_past_mpi_count_are_refused() {
    // Sizes that used to make rsmpi panic: alltoall 1GiB and bcast 3GiB.
    let err = check_sizes(&plan(&["--ops", "alltoall", "--sizes", "1GiB"]), None);
    assert!(
        matches!(err, Err(LimitError::Count { p: 4, .. })),
        "{err:?}"
    );
    let err = check_sizes(&plan(&["--ops", "bcast", "--sizes", "3GiB"]), None).unwrap_err();
    assert!(err.to_string().contains("count limit 2147483647"), "{err}");
    // Reductions count f64 elements: 8 GiB is 1 Gi elements, within the limit.
    assert_eq!(
        check_sizes(&plan(&["--ops", "allreduce", "--sizes", "8GiB"]), None),
        Ok(())
    );
    assert_eq!(check_sizes(&plan(&["--sizes", "1MiB"]), None), Ok(()));
}

#[test]
fn sizes_past_memory_are_refused() {
    // 15 GiB of f64 is within MPI's count, but send and receive buffers need 30 GiB.
    let p = plan(&["--ops", "allreduce", "--sizes", "8,15GiB"]);
    let err = check_sizes(&p, Some(8 << 30)).unwrap_err();
    assert!(matches!(err, LimitError::Memory { .. }), "{err:?}");
    assert!(err.to_string().contains("30.0 GiB of buffers"), "{err}");
    assert_eq!(check_sizes(&p, Some(64 << 30)), Ok(()));
    assert_eq!(
        check_sizes(&plan(&["--sizes", "1KiB"]), Some(8 << 30)),
        Ok(())
    );
}

#[test]
fn captured_counts_are_checked_like_sizes() {
    // An alltoallv site of 2 ranks whose rank 1 sends 3 GiB to rank 0.
    let mut p = plan(&["--ops", "alltoallv", "--procs", "2"]);
    let site = |counts: Vec<u64>| {
        DelayModel::new(Replay {
            path: "cap".into(),
            site: "app+0x10".into(),
            map: "first".into(),
            op: "alltoallv".into(),
            bytes: 8,
            recorded_size: 2,
            lateness_s: vec![0.0, 1e-6],
            counts,
        })
    };
    p.delays = vec![site(vec![8, 8, 3 << 30, 8])];
    let err = check_captured_counts(&p, None).unwrap_err();
    assert!(
        matches!(err, LimitError::CapturedCount { count, .. } if count == (3 << 30) + 8),
        "{err:?}"
    );
    assert!(err.to_string().contains("replay:cap@app+0x10"), "{err}");
    // 1 KiB per peer fits the count limit but not 1 KiB of memory.
    p.delays = vec![site(vec![1024, 1024, 1024, 1024])];
    assert_eq!(check_captured_counts(&p, None), Ok(()));
    assert!(matches!(
        check_captured_counts(&p, Some(1024)),
        Err(LimitError::CapturedMemory { .. })
    ));
    // Another kernel's configurations are not sized by the site.
    p.ops = vec![Op::Allreduce];
    assert_eq!(check_captured_counts(&p, Some(1024)), Ok(()));
}

#[test]
fn estimate_counts_blocks_and_windows() {
    let p = plan(&[
        "--ops", "bcast", "--sizes", "8,64", "--procs", "2,4", "--window", "1ms", "--nrep", "10",
    ]);
    let e = Estimate::of(&p);
    // 2 sizes x 2 P x (baseline + 50us).
    assert_eq!((e.blocks, e.repetitions), (8, 80));
    assert!((e.total_s() - (80.0 * 1e-3 + e.clock_sync_s)).abs() < 1e-9);
    assert!(!e.lower_bound);
    assert_eq!(e.check(3600.0), Ok(()));
}

#[test]
fn only_a_fixed_window_gives_more_than_a_lower_bound() {
    assert!(Estimate::of(&plan(&[])).lower_bound);
    assert!(Estimate::of(&plan(&["--sync", "barrier", "--window", "1ms"])).lower_bound);
    let e = Estimate::of(&plan(&[
        "--sync", "barrier", "--delay", "1ms", "--nrep", "10",
    ]));
    // Half of the blocks are the undelayed baseline: 0.5 ms per repetition on average.
    assert!((e.per_repetition_s - 0.5e-3).abs() < 1e-12, "{e:?}");
    assert!(e.to_string().starts_with("at least"), "{e}");
}

#[test]
fn huge_delays_and_windows_are_refused() {
    for args in [
        &["--delay", "1000000000s"][..],
        &["--window", "1000000000s"],
    ] {
        let e = Estimate::of(&plan(args));
        let err = e.check(3600.0).unwrap_err();
        assert!(err.to_string().contains("--yes"), "{err}");
        assert!(err.to_string().contains("years"), "{err}");
    }
    // The default plan is short.
    assert_eq!(Estimate::of(&plan(&[])).check(3600.0), Ok(()));
}

// From plan/vcounts.rs.

#[test]
fn only_the_sites_family_takes_its_counts() {
    let mut plan = Cli::try_parse_from(["delaybench"])
        .unwrap()
        .measure
        .request()
        .to_plan(2, 1);
    let replay = |op: &str, counts: Vec<u64>| {
        DelayModel::new(Replay {
            path: "cap".into(),
            site: "app+0x10".into(),
            map: "first".into(),
            op: op.into(),
            bytes: 8,
            recorded_size: 2,
            lateness_s: vec![0.0, 1e-6],
            counts,
        })
    };
    plan.delays = vec![
        "50us".parse().unwrap(),
        replay("allreduce", vec![]),
        replay("iallgatherv", vec![8, 24]),
    ];
    let c = captured_counts(&plan, Op::Allgatherv, 2).unwrap();
    assert_eq!(c.source, "replay:cap@app+0x10");
    assert_eq!(c.send_matrix, vec![8, 8, 24, 24]);
    assert!(captured_counts(&plan, Op::Iallgatherv, 2).is_some());
    for op in [Op::Alltoallv, Op::Allgather, Op::Allreduce] {
        assert_eq!(captured_counts(&plan, op, 2), None, "{op}");
    }
    // A site without counts leaves the kernel to --sizes.
    plan.delays = vec![replay("allgatherv", vec![])];
    assert_eq!(captured_counts(&plan, Op::Allgatherv, 2), None);
}

// From plan/config_file.rs.

fn argv(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

#[test]
fn keys_become_flags_and_the_command_line_wins() {
    let cmd = Cli::command();
    let study = Study::parse(
        "ops = [\"allreduce\", \"bcast\"]\nsizes = [8, \"1KiB\"]\ndelay_rank = 1\nnrep = 20\n",
        "s.toml",
        &cmd,
    )
    .unwrap();
    let user = argv(&["delaybench", "--nrep", "5"]);
    let matches = cmd.clone().try_get_matches_from(&user).unwrap();
    let merged = study.merge_into(&user, &cmd, &matches);
    assert_eq!(
        merged,
        argv(&[
            "delaybench",
            "--delay-rank",
            "1",
            "--ops",
            "allreduce,bcast",
            "--sizes",
            "8,1KiB",
            "--nrep",
            "5"
        ])
    );
    let plan = Cli::try_parse_from(&merged)
        .unwrap()
        .measure
        .request()
        .to_plan(4, 0);
    assert_eq!((plan.nrep, plan.sizes.clone()), (5, vec![8, 1024]));
}

#[test]
fn unknown_keys_and_bad_values_are_errors() {
    let cmd = Cli::command();
    let err = Study::parse("nreps = 3", "s.toml", &cmd).unwrap_err();
    assert!(matches!(err, StudyError::UnknownKey { ref key, .. } if key == "nreps"));
    assert!(err.to_string().contains("nrep"), "{err}");
    let err = Study::parse("[ops]\nx = 1", "s.toml", &cmd).unwrap_err();
    assert!(matches!(err, StudyError::BadValue { .. }));
    assert!(matches!(
        Study::parse("ops = ", "s.toml", &cmd),
        Err(StudyError::Toml { .. })
    ));
    // A value its flag refuses names the file and the key, and says what the flag said.
    let err = Study::parse("ops = \"allreduce\"\nnrep = \"ten\"\n", "s.toml", &cmd).unwrap_err();
    assert!(matches!(err, StudyError::Refused { ref key, .. } if key == "nrep"));
    let said = err.to_string();
    assert!(
        said.starts_with("study file s.toml: key 'nrep': invalid value 'ten' for '--nrep"),
        "{said}"
    );
    let err = Study::parse("sync = \"sometimes\"", "s.toml", &cmd).unwrap_err();
    assert!(
        err.to_string().contains("study file s.toml: key 'sync'"),
        "{err}"
    );
    let err = Study::parse("nrep = 5\nops = [", "s.toml", &cmd).unwrap_err();
    assert!(err.to_string().contains("(line 2)"), "{err}");
}
