//! Figures from synthetic records: file names, PNG and SVG content, error reporting.
//!
//! `PLOT_CHECK_DIR=/tmp/plot_check cargo test --test plot_figures -- --ignored` writes a richer
//! set of figures to look at.

mod common;

use delaybench::plan::kernel::Family;
use delaybench::plan::Op;
use delaybench::plot::{
    write_compare_figures, write_figures, write_figures_of_run, FigureKind, PlotError, PlotOptions,
    PlotRun, Selection, Side, Stat,
};
use delaybench::records::{testdata, Block, Records, FLAG_WINDOW_OVERRUN};
use std::path::Path;

const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

/// Undelayed t_global in µs of a made-up machine: logarithmic in P, larger for 1 KiB, a little
/// slower for the nonblocking forms.
fn t0_us(op: Op, bytes: u64, p: u32) -> f64 {
    let steps = f64::from(p).log2();
    let base = match (op.family(), bytes) {
        (Family::Barrier, _) => 2.0 + 1.5 * steps,
        (_, b) if b >= 1024 => 6.0 + 4.0 * steps,
        _ => 3.0 + 2.0 * steps,
    };
    if op.is_nonblocking() {
        base * 1.1
    } else {
        base
    }
}

/// Part of δ (µs) the made-up kernels overlap: nonblocking forms more, less with growing P,
/// and 1 KiB allreduce at P >= 32 pays extra.
fn overlap_us(op: Op, bytes: u64, p: u32, delay_us: f64, t0: f64) -> f64 {
    if delay_us == 0.0 {
        return 0.0;
    }
    if op.family() == Family::Allreduce && bytes >= 1024 && p >= 32 {
        return -4.0;
    }
    let frac = if op.is_nonblocking() { 0.6 } else { 0.35 } / f64::from(p).log2().max(1.0).sqrt();
    frac * delay_us.min(t0)
}

/// A block whose t_global is the made-up machine's (see `testdata::block` for the layout).
fn block(op: Op, bytes: u64, p: u32, delay_s: f64) -> Block {
    let t0 = t0_us(op, bytes, p);
    let op_time_us = t0 - overlap_us(op, bytes, p, delay_s * 1e6, t0);
    testdata::block(op, bytes, p, delay_s, 8, op_time_us * 1e-6)
}

fn records(procs: &[u32], delays_s: &[f64]) -> Records {
    let mut blocks = Vec::new();
    for &p in procs {
        for op in [Op::Allreduce, Op::Iallreduce, Op::Barrier, Op::Ibarrier] {
            let sizes: &[u64] = if op.has_payload() { &[8, 1024] } else { &[0] };
            for &bytes in sizes {
                for &delay in std::iter::once(&0.0).chain(delays_s) {
                    blocks.push(block(op, bytes, p, delay));
                }
            }
        }
    }
    Records {
        header: testdata::header(procs.iter().copied().max().unwrap_or(1)),
        blocks,
        footer: None,
        truncated: false,
    }
}

fn small_records() -> Records {
    records(&[2, 4, 8], &[50e-6])
}

/// The file names of `paths`.
fn names(paths: &[std::path::PathBuf]) -> Vec<String> {
    paths
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

fn png_size(bytes: &[u8]) -> (u32, u32) {
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn writes_benefit_and_t_global_figures_as_png_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("figures");
    let written =
        write_figures_of_run(PlotRun::of(&small_records()), &out, Stat::Median, None).unwrap();
    assert_eq!(
        names(&written),
        vec![
            "benefit_vs_p_50us.png",
            "benefit_vs_p_50us.svg",
            "t_global_vs_p_50us.png",
            "t_global_vs_p_50us.svg",
            "t_global_vs_size_50us.png",
            "t_global_vs_size_50us.svg",
            "timeline_50us.png",
            "timeline_50us.svg",
            "t_global_ecdf_50us.png",
            "t_global_ecdf_50us.svg",
            "t_global_over_run.png",
            "t_global_over_run.svg",
            "rank_lateness_50us.png",
            "rank_lateness_50us.svg",
            "rank_exit_50us.png",
            "rank_exit_50us.svg",
            "benefit_distribution_50us.png",
            "benefit_distribution_50us.svg",
            "index.md",
            "index.html",
        ]
    );
    for path in &written {
        assert_eq!(path.parent(), Some(out.as_path()));
        assert!(path.exists(), "{} missing", path.display());
    }
    for png in written.iter().filter(|p| p.extension().unwrap() == "png") {
        let bytes = std::fs::read(png).unwrap();
        assert!(
            bytes.len() > 20_000,
            "{} is only {} B",
            png.display(),
            bytes.len()
        );
        assert_eq!(bytes[..8], PNG_SIGNATURE, "{}", png.display());
    }
    // Benefit: three panels (barrier, 8 B, 1 KiB) in one row. t_global: barrier, allreduce 8 B
    // and allreduce 1 KiB, also one row of three.
    let benefit_png = std::fs::read(out.join("benefit_vs_p_50us.png")).unwrap();
    let (w, h) = png_size(&benefit_png);
    assert_eq!(w, 1800);
    assert!(h > 400 && h < 700, "height {h}");

    let svg = std::fs::read_to_string(out.join("benefit_vs_p_50us.svg")).unwrap();
    for text in [
        "Delay overlap benefit vs P",
        "50 µs",
        "median of valid repetitions",
        "processes P",
        "delay overlap benefit (%)",
        "no payload (barrier)",
        "1 KiB",
        "iallreduce",
        "ibarrier",
    ] {
        assert!(svg.contains(text), "benefit SVG lacks {text:?}");
    }
    let svg = std::fs::read_to_string(out.join("t_global_vs_p_50us.svg")).unwrap();
    for text in [
        "t_global vs P",
        "processes P",
        "t_global (µs)",
        "allreduce / iallreduce, 8 B",
        "barrier / ibarrier",
        "nonblocking, undelayed (δ = 0)",
    ] {
        assert!(svg.contains(text), "t_global SVG lacks {text:?}");
    }
    // The figures beyond the paper's: each names what it shows and its unit.
    for (stem, texts) in [
        (
            "timeline_50us",
            &["rank", "0 (late)", "µs after", "t_global"][..],
        ),
        (
            "t_global_ecdf_50us",
            &["t_global (µs)", "fraction of repetitions", "t0 + δ"][..],
        ),
        (
            "t_global_over_run",
            &["repetition", "t_global (µs)", "δ = 50 µs"][..],
        ),
        ("t_global_vs_size_50us", &["message size", "1 KiB"][..]),
    ] {
        let svg = std::fs::read_to_string(out.join(format!("{stem}.svg"))).unwrap();
        for text in texts {
            assert!(svg.contains(text), "{stem} SVG lacks {text:?}");
        }
        // The testdata header's run has no footer: the warning rides along in every figure.
        assert!(
            svg.contains("interrupted run"),
            "{stem} SVG lacks the run warning"
        );
    }
    let page = std::fs::read_to_string(out.join("index.md")).unwrap();
    assert_eq!(page.matches("![").count(), 9, "{page}");
}

#[test]
fn minimum_statistic_is_named_in_the_title() {
    let dir = tempfile::tempdir().unwrap();
    write_figures_of_run(PlotRun::of(&small_records()), dir.path(), Stat::Min, None).unwrap();
    let svg = std::fs::read_to_string(dir.path().join("t_global_vs_p_50us.svg")).unwrap();
    assert!(svg.contains("minimum of valid repetitions"));
}

#[test]
fn one_figure_pair_per_delay_and_single_p_still_draws() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records(&[4], &[10e-6, 1.5e-3]);
    let written = write_figures_of_run(PlotRun::of(&recs), dir.path(), Stat::Median, None).unwrap();
    // Eight kinds per δ (benefit, t_global vs P and vs size, timeline, ECDF, two heatmaps,
    // benefit distribution), one over the run, each as PNG and SVG, and the two pages.
    assert_eq!(written.len(), (2 * 8 + 1) * 2 + 2, "{:?}", names(&written));
    for stem in [
        "benefit_vs_p_10us",
        "benefit_vs_p_1.5ms",
        "t_global_vs_p_1.5ms",
    ] {
        let png = std::fs::read(dir.path().join(format!("{stem}.png"))).unwrap();
        assert!(png.len() > 20_000, "{stem}.png is only {} B", png.len());
    }
}

#[test]
fn rows_without_values_are_skipped_and_named() {
    let mut recs = records(&[2, 4, 8], &[50e-6]);
    // Every repetition of the delayed ibarrier blocks is invalid: no t_global, no benefit.
    for b in recs
        .blocks
        .iter_mut()
        .filter(|b| b.op == Op::Ibarrier && b.delay_s > 0.0)
    {
        b.flags.iter_mut().for_each(|f| *f = FLAG_WINDOW_OVERRUN);
    }
    let dir = tempfile::tempdir().unwrap();
    let only = Some(FigureKind::BenefitVsP);
    write_figures_of_run(PlotRun::of(&recs), dir.path(), Stat::Median, only).unwrap();
    let svg = std::fs::read_to_string(dir.path().join("benefit_vs_p_50us.svg")).unwrap();
    assert!(svg.contains("no valid value: ibarrier"), "note missing");
}

#[test]
fn empty_input_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("none");
    let none = records(&[], &[]);
    assert!(
        write_figures_of_run(PlotRun::of(&none), &out, Stat::Median, None)
            .unwrap()
            .is_empty()
    );
    assert!(!out.exists());
}

#[test]
fn a_file_that_cannot_be_written_is_named() {
    let dir = tempfile::tempdir().unwrap();
    // A directory where the PNG should go makes saving it fail.
    std::fs::create_dir(dir.path().join("benefit_vs_p_50us.png")).unwrap();
    let err = write_figures_of_run(
        PlotRun::of(&small_records()),
        dir.path(),
        Stat::Median,
        None,
    )
    .unwrap_err();
    assert!(matches!(err, PlotError::Write { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("benefit_vs_p_50us.png"), "{msg}");
}

#[test]
#[ignore = "writes figures to look at: PLOT_CHECK_DIR=/tmp/plot_check cargo test --test plot_figures -- --ignored"]
fn write_figures_for_inspection() {
    let dir = std::env::var("PLOT_CHECK_DIR").unwrap_or_else(|_| "/tmp/plot_check".into());
    let dir = Path::new(&dir);
    let cases = [
        (
            "",
            records(&[2, 4, 8, 16, 32, 64], &[10e-6, 50e-6]),
            Stat::Median,
        ),
        ("small", small_records(), Stat::Min),
        ("single_p", records(&[4], &[50e-6]), Stat::Median),
    ];
    for (sub, recs, stat) in cases {
        for path in write_figures_of_run(PlotRun::of(&recs), &dir.join(sub), stat, None).unwrap() {
            println!("{}", path.display());
        }
    }
}

/// A clocksync CSV holding `inf` (a failed synchronisation) made `plot` spin
/// forever; now those rows are left out with a warning, and a file of only such rows is a
/// clear error. `common::offline` fails the test if the command hangs.
#[test]
fn plot_of_a_clocksync_csv_with_inf_skips_those_rows_and_never_hangs() {
    use delaybench::export::{write_clocksync, ClockSyncRow, Format};
    let dir = tempfile::tempdir().unwrap();
    let row = |wait_s: f64, max_error_s: f64| ClockSyncRow {
        method: "hca".into(),
        nprocs: 2,
        sync_s: 0.2,
        wait_s,
        max_error_s,
        max_true_error_s: None,
    };
    let write = |name: &str, rows: &[ClockSyncRow]| {
        let path = dir.path().join(name);
        let mut f = std::fs::File::create(&path).unwrap();
        write_clocksync(rows, Format::Csv, &mut f).unwrap();
        path.display().to_string()
    };
    let mixed = write("mixed.csv", &[row(0.0, 2e-6), row(1.0, f64::INFINITY)]);
    let out_dir = dir.path().join("fig");
    let out = common::offline(&["plot", &mixed, "--out", out_dir.to_str().unwrap()]);
    let said = common::text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("1 of 2 rows"), "{said}");
    assert!(out_dir.join("clock_error_vs_time.png").exists());

    let only_inf = write("inf.csv", &[row(0.0, f64::INFINITY)]);
    let out = common::offline(&["plot", &only_inf, "--out", out_dir.to_str().unwrap()]);
    let said = common::text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("nothing to plot"), "{said}");
}

/// The texts of every SVG in `paths`, by file stem.
fn svgs(paths: &[std::path::PathBuf]) -> Vec<(String, String)> {
    paths
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(p).unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_figure_names_library_hosts_date_late_ranks_nrep_and_sync() {
    let dir = tempfile::tempdir().unwrap();
    let mut r = small_records();
    r.header.mpi_library = "Open MPI v4.1.4, package: Debian OpenMPI".into();
    let written = write_figures_of_run(PlotRun::of(&r), dir.path(), Stat::Median, None).unwrap();
    let all = svgs(&written);
    assert!(all.len() >= 9);
    for (stem, svg) in &all {
        for text in [
            "Open MPI v4.1.4",
            "1 host: node0",
            "2026-01-01 00:00 UTC",
            "late: rank 0",
            "nrep ",
            "sync, clock sync",
        ] {
            assert!(svg.contains(text), "{stem} SVG lacks {text:?}");
        }
        assert!(
            !svg.contains("package: Debian"),
            "{stem}: library not shortened"
        );
    }
}

#[test]
fn op_size_procs_and_delay_choose_what_is_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let opts = PlotOptions {
        stat: Stat::Median,
        only: None,
        selection: Selection {
            ops: vec![Op::Iallreduce],
            sizes: vec![1024],
            procs: vec![2, 4],
            delays: Vec::new(),
        },
    };
    let written = write_figures(vec![PlotRun::of(&small_records())], dir.path(), &opts).unwrap();
    for (stem, svg) in svgs(&written) {
        assert!(
            !svg.contains("ibarrier"),
            "{stem} draws an unselected kernel"
        );
        assert!(!svg.contains("8 B"), "{stem} draws an unselected size");
        assert!(
            svg.contains("selected: iallreduce, 1 KiB, P = 2, 4"),
            "{stem}"
        );
    }
    let timeline = std::fs::read_to_string(dir.path().join("timeline_50us.svg")).unwrap();
    assert!(
        timeline.contains("iallreduce, 1 KiB, P = 4"),
        "largest selected P"
    );
    assert!(!timeline.contains("P = 8"));
    assert!(
        timeline.contains("iallreduce, 1 KiB, P = 2"),
        "each selected P"
    );
}

#[test]
fn delay_models_with_one_mean_get_their_own_figures() {
    let mut r = records(&[2, 4], &[20e-6]);
    let extra: Vec<Block> = r
        .blocks
        .iter()
        .filter(|b| b.delay_s > 0.0)
        .map(|b| {
            let mut e = b.clone();
            e.delay_model = "exp:20us".into();
            e
        })
        .collect();
    r.blocks.extend(extra);
    let dir = tempfile::tempdir().unwrap();
    let written = write_figures_of_run(PlotRun::of(&r), dir.path(), Stat::Median, None).unwrap();
    let names = names(&written);
    for stem in ["t_global_vs_p", "timeline", "rank_lateness"] {
        assert!(names.contains(&format!("{stem}_20us.png")), "{names:?}");
        assert!(names.contains(&format!("{stem}_exp-20us.png")), "{names:?}");
    }
    let fixed = std::fs::read_to_string(dir.path().join("t_global_vs_p_20us.svg")).unwrap();
    let exp = std::fs::read_to_string(dir.path().join("t_global_vs_p_exp-20us.svg")).unwrap();
    assert!(fixed.contains("δ = 20 µs") && !fixed.contains("exp:20us"));
    assert!(exp.contains("δ ~ exp:20us (mean 20 µs)"));
}

#[test]
fn heatmaps_and_the_pooled_spread_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let opts = PlotOptions::default();
    let runs = vec![PlotRun::of(&small_records()), PlotRun::of(&small_records())];
    let written = write_figures(runs, dir.path(), &opts).unwrap();
    let names = names(&written);
    for n in [
        "rank_lateness_50us.png",
        "rank_exit_50us.png",
        "launch_spread_50us.png",
    ] {
        assert!(names.contains(&n.to_string()), "{names:?}");
    }
    let spread = std::fs::read_to_string(dir.path().join("launch_spread_50us.svg")).unwrap();
    for text in ["launch 1", "launch 2", "pooled median", "2 launches pooled"] {
        assert!(spread.contains(text), "spread SVG lacks {text:?}");
    }
    // Launches of different plans are refused, with a way out.
    let mut other = small_records();
    other.header.plan.nrep += 1;
    let runs = vec![PlotRun::of(&small_records()), PlotRun::of(&other)];
    let err = write_figures(runs, dir.path(), &opts).unwrap_err();
    assert!(matches!(err, PlotError::Pool { .. }), "{err}");
}

#[test]
fn compare_figures_show_both_runs_with_intervals() {
    use delaybench::analysis::{
        compare, config_stats_of_digests, Bootstrap, CompareSide, LaunchDigest,
    };
    let a = small_records();
    let mut b = small_records();
    b.header.mpi_library = "MPICH Version:\t4.2.0".into();
    let boot = Bootstrap::default();
    let (la, lb) = ([LaunchDigest::of(&a)], [LaunchDigest::of(&b)]);
    let (sa, sb) = (
        config_stats_of_digests(&la, &boot).unwrap(),
        config_stats_of_digests(&lb, &boot).unwrap(),
    );
    let side = |rows, launches| CompareSide { rows, launches };
    let (rows, _) = compare(side(&sa, &la), side(&sb, &lb), &boot);
    let dir = tempfile::tempdir().unwrap();
    let side = |name: &str, r: &Records| Side::of(Path::new(name), &r.header);
    let written =
        write_compare_figures(&rows, &side("a.cbor", &a), &side("b.cbor", &b), dir.path()).unwrap();
    assert_eq!(
        names(&written),
        vec![
            "compare_t_global_undelayed.png",
            "compare_t_global_undelayed.svg",
            "compare_t_global_50us.png",
            "compare_t_global_50us.svg",
            "compare_benefit_50us.png",
            "compare_benefit_50us.svg",
        ]
    );
    for (stem, svg) in svgs(&written) {
        for text in ["A: a.cbor", "B: b.cbor", "MPICH 4.2.0", "bootstrap"] {
            assert!(svg.contains(text), "{stem} SVG lacks {text:?}");
        }
    }
}

/// The texts of an SVG with their y positions (pixels from the top), in document order.
fn svg_texts(svg: &str) -> Vec<(f64, String)> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let y = t.split(" y=\"").nth(1)?.split('"').next()?.parse().ok()?;
            let body = t.split_once('>')?.1.split("</text>").next()?;
            Some((y, body.trim().to_string()))
        })
        .collect()
}

/// Panel titles among `texts`: `op, size, P = n` and what follows.
fn panel_titles(texts: &[(f64, String)]) -> Vec<&str> {
    texts
        .iter()
        .map(|t| t.1.as_str())
        .filter(|t| {
            t.contains(", P = ") && Op::ALL.iter().any(|op| t.starts_with(&format!("{op},")))
        })
        .collect()
}

#[test]
fn the_lateness_heatmap_shows_what_was_not_injected_in_few_panels_per_p() {
    let mut r = small_records();
    // Rank 3 of the delayed allreduce 1 KiB at P = 8 starts 20 us after the plan, every time.
    for b in r.blocks.iter_mut() {
        if (b.op, b.bytes, b.nprocs) == (Op::Allreduce, 1024, 8) && b.delay_s > 0.0 {
            for rep in 0..b.nrep as usize {
                b.t_start_global_s.0[rep * 8 + 3] += 20e-6;
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    write_figures_of_run(PlotRun::of(&r), dir.path(), Stat::Median, None).unwrap();
    let svg = std::fs::read_to_string(dir.path().join("rank_lateness_50us.svg")).unwrap();
    let texts = svg_texts(&svg);
    assert!(
        texts[0].1.starts_with("Lateness not injected"),
        "{}",
        texts[0].1
    );
    // Only the configuration with lateness beyond the plan; the other five are counted.
    let titles = panel_titles(&texts);
    assert_eq!(titles.len(), 1, "{titles:?}");
    assert!(
        titles[0].starts_with("allreduce, 1 KiB, P = 8"),
        "{titles:?}"
    );
    // 8 repetitions, one invalid: the panel gives its n.
    assert!(titles[0].ends_with(", n = 7"), "{titles:?}");
    assert!(svg.contains("P = 8: 1 of 6 configurations drawn"), "{svg}");
    // The exit heatmap draws at most four panels per P too, each saying its P, and counts
    // the rest.
    let exit = std::fs::read_to_string(dir.path().join("rank_exit_50us.svg")).unwrap();
    assert_eq!(panel_titles(&svg_texts(&exit)).len(), 4);
    assert!(
        exit.contains("P = 8: 4 of 6 configurations drawn"),
        "{exit}"
    );
}

#[test]
fn the_exit_heatmap_draws_the_latest_exits_in_few_panels_per_p() {
    let mut r = small_records();
    // Every rank of the delayed iallreduce 8 B at P = 8 leaves 200 us late, every time: the
    // latest exits of the run, so it is drawn.
    for b in r.blocks.iter_mut() {
        if (b.op, b.bytes, b.nprocs) == (Op::Iallreduce, 8, 8) && b.delay_s > 0.0 {
            for v in b.t_end_global_s.0.iter_mut() {
                *v += 200e-6;
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    write_figures_of_run(PlotRun::of(&r), dir.path(), Stat::Median, None).unwrap();
    let svg = std::fs::read_to_string(dir.path().join("rank_exit_50us.svg")).unwrap();
    let texts = svg_texts(&svg);
    assert!(texts[0].1.starts_with("Exit time"), "{}", texts[0].1);
    let titles = panel_titles(&texts);
    assert!(
        (1..=4).contains(&titles.len()) && titles.iter().all(|t| t.contains("P = 8")),
        "{titles:?}"
    );
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("iallreduce, 8 B, P = 8")),
        "{titles:?}"
    );
    assert!(
        svg.contains("configurations drawn, those with the latest exits"),
        "{svg}"
    );
}

#[test]
fn over_the_run_says_what_its_x_axis_is_and_warnings_are_a_caption() {
    let dir = tempfile::tempdir().unwrap();
    let written = write_figures_of_run(
        PlotRun::of(&small_records()),
        dir.path(),
        Stat::Median,
        None,
    )
    .unwrap();
    let over = std::fs::read_to_string(dir.path().join("t_global_over_run.svg")).unwrap();
    let texts = svg_texts(&over);
    assert_eq!(
        texts[0].1,
        "t_global of every valid repetition, block by block"
    );
    assert!(over.contains("index within its block"), "{over}");
    assert!(panel_titles(&texts).iter().all(|t| t.ends_with(", n = 7")));
    // The records have no footer: the interrupted run's warning concerns every figure, and
    // sits under the panels, not above them.
    for (stem, svg) in svgs(&written) {
        let texts = svg_texts(&svg);
        let warning = texts
            .iter()
            .find(|t| t.1.starts_with("warning: interrupted run"))
            .unwrap_or_else(|| panic!("{stem} lacks the warning"));
        let lowest_title = panel_titles(&texts).len().checked_sub(1).map(|_| {
            texts
                .iter()
                .filter(|t| panel_titles(std::slice::from_ref(t)).len() == 1)
                .map(|t| t.0)
                .fold(0.0, f64::max)
        });
        if let Some(y) = lowest_title {
            assert!(
                warning.0 > y,
                "{stem}: warning at {} above a panel at {y}",
                warning.0
            );
        }
    }
}
