use super::measure::MeasureArgs;
use super::parsers::DelayList;
use super::{Cli, Command};
use crate::delay::{DelayModel, RankSelection};
use crate::plan::{ClockSource, Op, OverlapMode, ProcessSyncMethod};
use clap::Parser;

fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("delaybench").chain(args.iter().copied()))
}

/// The measurement options of `args` as `main` makes them (which options were given),
/// with a replay of a captured `op` site of `bytes` bytes as the only delay.
fn replaying(args: &[&str], op: &str, bytes: u64, suffix_map: &str) -> MeasureArgs {
    use crate::delay::models::replay::Replay;
    use clap::{CommandFactory, FromArgMatches};
    let argv: Vec<&str> = std::iter::once("delaybench")
        .chain(args.iter().copied())
        .collect();
    let matches = Cli::command().try_get_matches_from(argv).unwrap();
    let mut cli = Cli::from_arg_matches(&matches).unwrap();
    cli.measure.note_given(&matches);
    cli.measure.delay = DelayList(vec![DelayModel::new(Replay {
        path: "cap".into(),
        site: "app+0x10".into(),
        map: suffix_map.into(),
        op: op.into(),
        bytes,
        recorded_size: 2,
        lateness_s: vec![0.0, 1e-4],
        counts: match op {
            "alltoallv" => vec![8, 24, 8, 8],
            _ if op.ends_with('v') => vec![8, 24],
            _ => vec![],
        },
    })]);
    cli.measure
}

#[test]
fn delay_none_measures_the_baseline_alone() {
    let cli = parse(&["--delay", "none"]).unwrap();
    assert!(cli.measure.delay.0.is_empty());
    let cli = parse(&["--delay", "50us"]).unwrap();
    assert_eq!(cli.measure.delay.0.len(), 1);
    assert!(
        parse(&["--delay", "0"]).is_ok(),
        "0 is refused by the plan, not the parser"
    );
}

#[test]
fn a_replay_measures_its_sites_operation_unless_told_otherwise() {
    // Nothing given: the site's allreduce and iallreduce, at its 4 bytes rounded to f64.
    let m = replaying(&[], "iallreduce", 4, "");
    let c = m.request().replay_choice().unwrap();
    assert_eq!(c.ops, Some(vec![Op::Allreduce, Op::Iallreduce]));
    assert_eq!(c.sizes, Some(vec![8]));
    assert!(c.warnings.is_empty() && c.notes.len() == 2, "{c:?}");
    let plan = m.request().to_plan(2, 1);
    assert_eq!((plan.ops.len(), plan.sizes.clone()), (2, vec![8]));
    // The map defaults to first and is recorded so.
    let r = crate::delay::models::replay::Replay::of(&plan.delays[0]).unwrap();
    assert_eq!(r.map, "first");
    // --ops and --sizes given without the site's op: kept, with a warning naming it.
    let m = replaying(&["--ops", "bcast", "--sizes", "16"], "allreduce", 8, "");
    let c = m.request().replay_choice().unwrap();
    assert_eq!((c.ops.clone(), c.sizes.clone()), (None, None));
    assert!(c.warnings[0].contains("add allreduce,iallreduce"), "{c:?}");
    assert_eq!(m.request().to_plan(2, 1).ops, vec![Op::Bcast]);
    // A barrier site keeps the sizes (no payload).
    let c = replaying(&[], "barrier", 0, "")
        .request()
        .replay_choice()
        .unwrap();
    assert_eq!(
        (c.ops, c.sizes),
        (Some(vec![Op::Barrier, Op::Ibarrier]), None)
    );
    // An operation without a kernel: refused unless --ops names kernels.
    let e = replaying(&[], "reduce_scatter", 64, "")
        .request()
        .replay_choice()
        .unwrap_err();
    assert!(
        e.contains("reduce_scatter has no kernel") && e.contains("--ops"),
        "{e}"
    );
    let c = replaying(&["--ops", "reduce_scatter_block"], "reduce_scatter", 64, "")
        .request()
        .replay_choice()
        .unwrap();
    assert!(
        c.warnings[0].contains("reduce_scatter has no kernel"),
        "{c:?}"
    );
    // A v-form site replays on its own v-form kernel, with the captured counts.
    let c = replaying(&[], "alltoallv", 64, "")
        .request()
        .replay_choice()
        .unwrap();
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("run the counts of the site's first call")),
        "{:?}",
        c.notes
    );
    assert_eq!(c.ops, Some(vec![Op::Alltoallv, Op::Ialltoallv]));
    // A capture without vectors: uniform counts, said before measuring.
    let mut r = crate::delay::models::replay::Replay::of(&c.delays[0]).unwrap();
    r.counts.clear();
    let note =
        crate::plan::replay_choice::counts_note(&r, "replay:cap@app+0x10", "alltoallv", false)
            .unwrap();
    assert!(
        note.contains("no count vectors") && note.contains("uniform"),
        "{note}"
    );
    r.op = "allreduce".into();
    assert_eq!(
        crate::plan::replay_choice::counts_note(&r, "s", "allreduce", false),
        None
    );
    // A persistent site replays on its persistent kernel, beside the other two forms.
    let c = replaying(&[], "allreduce_persistent", 8, "")
        .request()
        .replay_choice()
        .unwrap();
    assert_eq!(
        (c.ops, c.sizes),
        (
            Some(vec![Op::Allreduce, Op::Iallreduce, Op::AllreducePersistent]),
            Some(vec![8])
        )
    );
    // One without a persistent kernel (the v-forms have none) is refused as above.
    let e = replaying(&[], "gatherv_persistent", 64, "")
        .request()
        .replay_choice()
        .unwrap_err();
    assert!(e.contains("gatherv_persistent has no kernel"), "{e}");
    // --replay-map against the spec's suffix.
    let e = replaying(&["--replay-map", "first"], "allreduce", 8, "folded")
        .request()
        .replay_choice()
        .unwrap_err();
    assert!(e.contains("--replay-map is first"), "{e}");
    let plan = replaying(&["--replay-map", "folded"], "allreduce", 8, "")
        .request()
        .to_plan(2, 1);
    let r = crate::delay::models::replay::Replay::of(&plan.delays[0]).unwrap();
    assert_eq!(r.map, "folded");
}

#[test]
fn defaults_are_the_documented_ones() {
    let cli = parse(&[]).unwrap();
    assert!(cli.command.is_none());
    let plan = cli.measure.request().to_plan(6, 42);
    assert_eq!(plan.ops, Op::defaults());
    assert_eq!(plan.sizes, vec![8, 128, 1024]);
    assert_eq!(plan.procs, vec![2, 4, 6]);
    assert_eq!(plan.delay_ranks, RankSelection::rank(0));
    assert_eq!(plan.delays.len(), 1);
    assert_eq!(plan.delays[0].mean_s(), 50e-6);
    assert_eq!((plan.nrep, plan.warmup, plan.seed), (100, 10, 42));
    assert_eq!(plan.sync, ProcessSyncMethod::Window);
    assert_eq!(plan.window_s, None);
    assert_eq!(plan.clock, ClockSource::Monotonic);
}

#[test]
fn delay_help_lists_every_registered_model() {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let arg = cmd
        .get_arguments()
        .find(|a| a.get_long() == Some("delay"))
        .expect("--delay");
    let help = arg.get_help().expect("--delay has a help").to_string();
    for e in crate::delay::models::MODELS {
        assert!(
            help.contains(e.example),
            "--delay help lacks {}: {help}",
            e.example
        );
        assert!(
            help.contains(&format!("{}:", e.keyword)),
            "{}: {help}",
            e.keyword
        );
    }
}

#[test]
fn lists_and_units() {
    let cli = parse(&[
        "--ops",
        "allreduce,ialltoall",
        "--sizes",
        "8,1KiB",
        "--delay",
        "50us,1.5ms",
        "--delay-rank",
        "0,3",
        "--procs",
        "4",
        "--window",
        "2ms",
        "--seed",
        "9",
    ])
    .unwrap();
    let plan = cli.measure.request().to_plan(4, 0);
    assert_eq!(plan.ops, vec![Op::Allreduce, Op::Ialltoall]);
    assert_eq!(plan.sizes, vec![8, 1024]);
    let delays: Vec<f64> = plan.delays.iter().map(|d| d.mean_s()).collect();
    assert_eq!(delays, vec![50e-6, 1.5e-3]);
    assert_eq!(plan.delay_ranks.to_string(), "0,3");
    assert_eq!(plan.window_s, Some(2e-3));
    assert_eq!(plan.seed, 9);
    assert_eq!(plan.validate(4, &vec!["h".to_string(); 4]), Ok(()));
}

#[test]
fn osu_and_imb_spellings() {
    let cli = parse(&["-m", "8:1MiB", "-i", "50", "-x", "5"]).unwrap();
    let plan = cli.measure.request().to_plan(4, 0);
    assert_eq!(plan.sizes, (3..=20).map(|k| 1u64 << k).collect::<Vec<_>>());
    assert_eq!((plan.nrep, plan.warmup), (50, 5));
    assert!(cli.unit_warnings().is_empty());
    let cli = parse(&["--sizes", "8..64,1k"]).unwrap();
    assert_eq!(
        cli.measure.request().to_plan(4, 0).sizes,
        vec![8, 16, 32, 64, 1000]
    );
    let warnings = cli.unit_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("1000 bytes"), "{warnings:?}");
    let cli = parse(&["--overlap", "time", "--test-interval", "2k"]).unwrap();
    assert_eq!(
        cli.measure
            .request()
            .to_plan(4, 0)
            .overlap
            .unwrap()
            .test_interval_bytes,
        Some(2000)
    );
    assert_eq!(cli.unit_warnings().len(), 1);
    let cli = parse(&["schemes", "-m", "8:32", "-i", "7"]).unwrap();
    let Some(Command::Schemes(args)) = cli.command else {
        panic!("not schemes");
    };
    assert_eq!((args.sizes.bytes, args.nrep), (vec![8, 16, 32], 7));
    assert!(parse(&["skew", "-i", "10"]).is_ok());
}

#[test]
fn bad_input_is_a_parse_error() {
    for args in [
        &["--ops", "allgatherw"][..],
        &["--delay", "50"],
        &["--delay", "-5us"],
        &["--window", "-1ms"],
        &["--sizes", "lots"],
        &["--sizes", "1MiB:8"],
        &["-m", "0:8"],
        &["--sync", "telepathy"],
    ] {
        let err = parse(args).unwrap_err();
        assert_eq!(err.exit_code(), 2, "{args:?}");
    }
}

#[test]
fn overlap_and_adaptive_options() {
    let cli = parse(&[
        "--overlap",
        "work",
        "--test-interval",
        "1KiB",
        "--nrep-max",
        "500",
        "--ci-rel",
        "0.02",
    ])
    .unwrap();
    let plan = cli.measure.request().to_plan(4, 0);
    let o = plan.overlap.unwrap();
    assert_eq!(
        (o.mode, o.test_interval_bytes),
        (OverlapMode::Work, Some(1024))
    );
    let a = plan.adaptive.unwrap();
    assert_eq!(
        (a.nrep_min, a.nrep_max, a.ci_level, a.ci_rel),
        (20, 500, 0.95, 0.02)
    );
    // The delay matrices are drawn for the most repetitions a block may take.
    assert_eq!(plan.nrep, 500);
    // Each needs its main option.
    assert!(parse(&["--test-interval", "1KiB"]).is_err());
    assert!(parse(&["--ci-rel", "0.1"]).is_err());
    assert!(parse(&["--overlap", "sometimes"]).is_err());
    assert!(parse(&["analyze", "r.cbor", "--timing", "global,max,root"]).is_ok());
    assert!(parse(&["analyze", "r.cbor", "--overlap", "--trend"]).is_err());
}

#[test]
fn subcommands() {
    let cli = parse(&["analyze", "run.cbor", "--format", "csv"]).unwrap();
    assert!(matches!(cli.command, Some(Command::Analyze(_))));
    assert!(parse(&["plot", "run.cbor", "--out", "figs"]).is_ok());
    assert!(parse(&["plot", "run.cbor", "--only", "timeline"]).is_ok());
    assert!(parse(&["plot", "run.cbor", "--only", "nonsense"]).is_err());
    assert!(parse(&["export", "run.cbor"]).is_ok());
    assert!(parse(&["export", "run.cbor", "--rows", "rep"]).is_ok());
    assert!(parse(&["analyze", "a.cbor", "b.cbor", "--format", "markdown"]).is_ok());
    assert!(parse(&["analyze"]).is_err());
    let cli = parse(&["compare", "a.cbor", "b.cbor", "--confidence", "0.99"]).unwrap();
    let Some(Command::Compare(args)) = cli.command else {
        panic!("not compare");
    };
    assert_eq!(args.bootstrap.bootstrap().level, 0.99);
    assert!(parse(&["compare", "a.cbor", "b.cbor", "--confidence", "95"]).is_err());
    assert!(parse(&["compare", "a.cbor"]).is_err());
}

#[test]
fn the_old_name_of_clock_sync_nonimproving_still_works() {
    use clap::CommandFactory;
    for flag in ["--clock-sync-nonimproving", "--sync-nonimproving"] {
        let cli = parse(&[flag, "7"]).unwrap();
        assert_eq!(cli.measure.request().stated.clock_params.nonimproving, 7);
        let cli = parse(&["skew", flag, "7"]).unwrap();
        let Some(Command::Skew(args)) = cli.command else {
            panic!("not skew");
        };
        assert_eq!(args.params.params().nonimproving, 7);
    }
    // The old name is accepted, not shown.
    let help = Cli::command().render_long_help().to_string();
    assert!(help.contains("--clock-sync-nonimproving") && !help.contains("--sync-nonimproving"));
    // A study file written with the old key keeps working.
    let cmd = Cli::command();
    let study =
        crate::plan::config_file::Study::parse("sync_nonimproving = 7", "s.toml", &cmd).unwrap();
    let argv = ["delaybench".to_string()];
    let matches = cmd.clone().try_get_matches_from(&argv).unwrap();
    let merged = study.merge_into(&argv, &cmd, &matches);
    let cli = Cli::try_parse_from(&merged).unwrap();
    assert_eq!(cli.measure.request().stated.clock_params.nonimproving, 7);
}
