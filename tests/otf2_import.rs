//! OTF2 in: an archive written by the OTF2 library's own writer (its Python API,
//! python3-otf2) in Score-P's record layout for MPI collectives (`Enter` of `MPI_Allreduce`,
//! `MpiCollectiveBegin`, `MpiCollectiveEnd`, `Leave`, inside an application region, two
//! ranks per host, a non-zero clock offset, a timer of 10 ns ticks) is read as a capture:
//! `arrivals` and its causes find the same late rank, the same causes and the same what-if
//! as the same pattern written as delaybench capture files, and `replay:` takes its site; a
//! capture exported by `arrivals --format otf2` reads back to the same printed causes. A
//! damaged or truncated archive is refused naming the file, never with a panic.

mod common;

use delaybench::analysis::causes::{Causes, CausesReport};
use delaybench::capture::{
    match_calls, read_captures, site_names, CaptureChunk, CaptureEvent, CaptureFooter,
    CaptureHeader, CaptureOp, CaptureSite, CaptureSync, CaptureWriter, RankCapture,
    CAPTURE_FORMAT_NAME, CAPTURE_FORMAT_VERSION,
};
use std::path::{Path, PathBuf};
use std::process::Command;

const RANKS: u64 = 4;
const ITERATIONS: u64 = 30;
/// The late rank and how long it computes, against everyone else's 100 µs, in ns.
const LATE: u64 = 3;
const LATE_WORK_NS: u64 = 400_000;
/// The first tick of the trace, in ticks of 10 ns (the archive's clock offset).
const START_TICKS: u64 = 500_000_000_000;
/// Ticks per second: 10 ns ticks, as a timer of 100 MHz.
const RESOLUTION: u64 = 100_000_000;

/// When rank `r` computes, arrives and leaves at iteration `i`, in ns after the start.
fn pattern(r: u64, i: u64) -> (u64, u64, u64) {
    let base = 10_000 + i * 1_000_000;
    let work = |r: u64| {
        if r == LATE {
            LATE_WORK_NS
        } else {
            100_000 + r * 1_000
        }
    };
    let arrive = |r: u64| base + work(r) + 1_000;
    let last = (0..RANKS).map(arrive).max().unwrap();
    (base, arrive(r), last + 20_000 + r * 100)
}

/// Writes the pattern with the OTF2 library's Python writer, in Score-P's layout.
const WRITER: &str = r#"
import sys, otf2
from otf2.enums import Type, LocationGroupType, LocationType, RegionRole, Paradigm, GroupType, CollectiveOp
path, ranks, iterations, late, late_work, start, resolution = sys.argv[1], *map(int, sys.argv[2:])
def pattern(r, i):
    base = 10_000 + i * 1_000_000
    work = lambda r: late_work if r == late else 100_000 + r * 1_000
    arrive = lambda r: base + work(r) + 1_000
    last = max(arrive(q) for q in range(ranks))
    return base, arrive(r), last + 20_000 + r * 100
tick = lambda ns: start + ns * resolution // 1_000_000_000
with otf2.writer.open(path, timer_resolution=resolution) as trace:
    d = trace.definitions
    machine = d.system_tree_node("machine")
    hosts = [d.system_tree_node("node-%d" % h, parent=machine) for h in range(ranks // 2)]
    groups = [d.location_group("MPI Rank %d" % r, location_group_type=LocationGroupType.PROCESS,
                               system_tree_parent=hosts[r // 2]) for r in range(ranks)]
    locations = [d.location("Master thread", type=LocationType.CPU_THREAD, group=groups[r])
                 for r in range(ranks)]
    world = d.group("", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                    members=locations)
    comm_group = d.group("", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                         members=list(range(ranks)))
    comm = d.comm("MPI_COMM_WORLD", group=comm_group)
    main = d.region("main", region_role=RegionRole.FUNCTION, paradigm=Paradigm.COMPILER,
                    source_file="solver.c", begin_line_number=10)
    compute = d.region("compute", region_role=RegionRole.FUNCTION, paradigm=Paradigm.COMPILER,
                       source_file="solver.c", begin_line_number=20)
    step = d.region("solver_step", region_role=RegionRole.FUNCTION, paradigm=Paradigm.COMPILER,
                    source_file="solver.c", begin_line_number=42)
    allreduce = d.region("MPI_Allreduce", region_role=RegionRole.COLL_ALL2ALL,
                         paradigm=Paradigm.MPI)
    for r in range(ranks):
        w = trace.event_writer_from_location(locations[r])
        w.enter(tick(0), main)
        for i in range(iterations):
            base, arrive, leave = pattern(r, i)
            w.enter(tick(base), compute)
            w.leave(tick(arrive - 1_000), compute)
            w.enter(tick(arrive - 1_000), step)
            w.enter(tick(arrive), allreduce)
            w.mpi_collective_begin(tick(arrive))
            w.mpi_collective_end(tick(leave), CollectiveOp.ALLREDUCE, comm, 0xFFFFFFFF, 8, 8)
            w.leave(tick(leave), allreduce)
            w.leave(tick(leave + 500), step)
        w.leave(tick(iterations * 1_000_000 + 100_000), main)
"#;

/// The archive of the pattern in `dir/otf2` (its anchor `traces.otf2`), or None (skipped:
/// a build without the `otf2` feature, which could not read it, or no Python writer).
fn write_archive(dir: &Path) -> Option<PathBuf> {
    if cfg!(not(feature = "otf2")) {
        common::skip("built without the `otf2` feature (libotf2-trace-dev)");
        return None;
    }
    let Some(python) = common::python_with_otf2() else {
        common::skip("no python3 with the otf2 module (Debian's python3-otf2)");
        return None;
    };
    let archive = dir.join("otf2");
    let args: Vec<String> = [
        RANKS,
        ITERATIONS,
        LATE,
        LATE_WORK_NS,
        START_TICKS,
        RESOLUTION,
    ]
    .iter()
    .map(u64::to_string)
    .collect();
    let out = Command::new(python)
        .args(["-c", WRITER, archive.to_str().unwrap()])
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the Python writer failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(archive)
}

/// The same pattern as delaybench capture files, one per rank, in `dir/capture`; times on
/// the archive's clock (seconds after its first event, which is the start of `main`).
fn write_capture(dir: &Path) -> PathBuf {
    let capture = dir.join("capture");
    std::fs::create_dir(&capture).unwrap();
    let zero = CaptureSync {
        local_s: 0.0,
        offset_s: 0.0,
        rtt_s: 0.0,
    };
    // Ticks of 10 ns, as the archive holds them, then seconds as the import computes them.
    let seconds = |ns: u64| (ns * RESOLUTION / 1_000_000_000) as f64 / RESOLUTION as f64;
    for r in 0..RANKS {
        let header = CaptureHeader {
            item: "capture_header".into(),
            format: CAPTURE_FORMAT_NAME.into(),
            version: CAPTURE_FORMAT_VERSION,
            rank: r as u32,
            world_size: RANKS as u32,
            capture_id: "pattern".into(),
            host: format!("node-{}", r / 2),
            pid: 1,
            command: vec!["solver".into()],
            clock: "monotonic".into(),
            sync_init: zero,
            t_start_s: 0.0,
            mpi_library: None,
            algorithm_variables: Default::default(),
        };
        let path = capture.join(format!("rank{r}.cbor"));
        let mut w = CaptureWriter::create(&path, &header).unwrap();
        let events: Vec<CaptureEvent> = (0..ITERATIONS)
            .map(|i| {
                let (_, arrive, leave) = pattern(r, i);
                CaptureEvent {
                    op: CaptureOp::Allreduce,
                    comm: 1,
                    comm_size: RANKS as u32,
                    comm_rank: r as u32,
                    bytes: 8,
                    root: -1,
                    site: 0,
                    t_enter_s: seconds(arrive),
                    t_exit_s: seconds(leave),
                    counts_hash: None,
                }
            })
            .collect();
        w.chunk(&CaptureChunk {
            item: "capture_chunk".into(),
            sites: vec![CaptureSite {
                id: 0,
                module: "solver".into(),
                offset: 0x42,
                symbol: Some("solver_step".into()),
                symbol_offset: 0,
            }],
            events,
            counts: Vec::new(),
        })
        .unwrap();
        w.finish(&CaptureFooter {
            item: "capture_footer".into(),
            sync_finalize: zero,
            events: ITERATIONS,
            passed_through: 0,
            finalize_sync_skipped: false,
        })
        .unwrap();
    }
    capture
}

/// The causes of a capture (as `arrivals --rows causes` computes them) and the what-if of
/// removing the top cause.
fn causes_of(path: &Path) -> (Vec<RankCapture>, CausesReport) {
    let captures = read_captures(&[path.to_path_buf()]).unwrap();
    let m = match_calls(&captures).unwrap();
    assert_eq!(m.incomplete_calls, 0, "{}", path.display());
    let names = site_names(&captures, &[]);
    let name = |k: &str| names.get(k).cloned().unwrap_or_else(|| k.to_owned());
    let mut c = Causes::new(&captures, &m, &name);
    let top = c.report.causes[0].clone();
    c.what_if(top.rank, top.region).unwrap();
    (captures.clone(), c.report)
}

#[test]
fn a_score_p_layout_archive_reads_as_the_same_capture() {
    let dir = tempfile::tempdir().unwrap();
    let Some(archive) = write_archive(dir.path()) else {
        return;
    };
    let capture = write_capture(dir.path());
    let (imported, from_otf2) = causes_of(&archive);
    let (_, from_capture) = causes_of(&capture);
    // The ranks, their hosts and their calls.
    assert_eq!(imported.len(), RANKS as usize);
    for c in &imported {
        assert_eq!(c.header.host, format!("node-{}", c.header.rank / 2));
        assert_eq!(c.events.len(), ITERATIONS as usize);
        assert!(c
            .events
            .iter()
            .all(|e| e.op == CaptureOp::Allreduce && e.bytes == 8));
        // The site is the calling region, with its file and line.
        let site = &c.sites[c.events[0].site as usize];
        assert_eq!(site.symbol.as_deref(), Some("solver_step solver.c:42"));
    }
    // The first call of rank 0 on the archive's clock: offset subtracted, 10 ns ticks.
    let (_, arrive, _) = pattern(0, 0);
    assert!((imported[0].events[0].t_enter_s - arrive as f64 * 1e-9).abs() < 1e-12);
    // The same late rank, causes and what-if as the capture files.
    let top = &from_otf2.causes[0];
    assert_eq!(top.rank, LATE as u32, "{:?}", from_otf2.causes);
    assert!(
        top.region_label.contains("solver_step"),
        "{}",
        top.region_label
    );
    assert_eq!(from_otf2.causes.len(), from_capture.causes.len());
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * (1.0 + a.abs());
    assert!(close(from_otf2.wait_total_s, from_capture.wait_total_s));
    assert!(close(from_otf2.unexplained_s, from_capture.unexplained_s));
    for (a, b) in from_otf2.causes.iter().zip(&from_capture.causes) {
        assert_eq!((a.rank, a.region, a.calls), (b.rank, b.region, b.calls));
        assert!(close(a.delay_s, b.delay_s), "{a:?} {b:?}");
        assert!(close(a.direct_s, b.direct_s), "{a:?} {b:?}");
        assert!(close(a.propagated_s, b.propagated_s), "{a:?} {b:?}");
    }
    let (w1, w2) = (&from_otf2.what_if[0], &from_capture.what_if[0]);
    assert!(close(w1.wait_after_s, w2.wait_after_s), "{w1:?} {w2:?}");
    assert!(close(w1.removed_s, w2.removed_s), "{w1:?} {w2:?}");

    // The command reads the archive's directory and its anchor file alike.
    for path in [archive.clone(), archive.join("traces.otf2")] {
        let out = common::offline(&[
            "arrivals",
            path.to_str().unwrap(),
            "--rows",
            "causes",
            "--format",
            "csv",
            "--no-figures",
        ]);
        let text = common::text(&out);
        assert!(out.status.success(), "{text}");
        assert!(text.contains("solver_step solver.c:42"), "{text}");
    }
    // The replay model reads it too: the site by its region's name, its 30 calls of 4 ranks.
    if cfg!(feature = "mpi") {
        let spec = format!("replay:{}@solver_step", archive.display());
        let out = common::offline(&[
            "--dry-run",
            "--world-size",
            "4",
            "--ops",
            "allreduce",
            "--sizes",
            "8",
            "--delay",
            &spec,
        ]);
        let text = common::text(&out);
        assert!(out.status.success(), "{text}");
        assert!(text.contains("allreduce 8B, 30 calls of 4 ranks"), "{text}");
    }
}

/// Round trip: a capture folder exported by `arrivals --format otf2` and read back gives the
/// same causes table and what-if as the folder, as `arrivals` prints them, and the archive's
/// calls carry their waiting and cause.
#[test]
fn a_capture_exported_to_otf2_reads_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let capture = write_capture(dir.path());
    let archive = dir.path().join("roundtrip");
    let (c, a) = (capture.to_str().unwrap(), archive.to_str().unwrap());
    let out = common::offline(&["arrivals", c, "--format", "otf2", "--output", a]);
    if cfg!(not(feature = "otf2")) {
        assert!(
            common::text(&out).contains("libotf2-trace-dev"),
            "{}",
            common::text(&out)
        );
        common::skip("built without the `otf2` feature (libotf2-trace-dev)");
        return;
    }
    assert!(out.status.success(), "{}", common::text(&out));
    let table = |path: &str| {
        let out = common::offline(&["arrivals", path, "--rows", "causes", "--no-figures"]);
        assert!(out.status.success(), "{}", common::text(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let (from_capture, from_archive) = (table(c), table(a));
    assert!(from_capture.contains("what if rank 3"), "{from_capture}");
    assert_eq!(
        from_archive, from_capture,
        "the causes and the what-if, as printed"
    );
    // The waiting and the cause of each call, as the OTF2 library's Python reader sees them.
    let Some(python) = common::python_with_otf2() else {
        common::skip("no python3 with the otf2 module (Debian's python3-otf2)");
        return;
    };
    let script = "import sys, otf2\n\
                  with otf2.reader.open(sys.argv[1]) as t:\n\
                  \x20   for l, e in t.events:\n\
                  \x20       a = {k.name: v for k, v in (e.attributes or {}).items()}\n\
                  \x20       if 'delaybench::cause_rank' in a: print(a['delaybench::cause_rank'], a['delaybench::waiting_s'])";
    let out = Command::new(python)
        .args(["-c", script, archive.join("traces.otf2").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let late: Vec<&str> = text.lines().filter(|l| l.starts_with("3 ")).collect();
    // Every rank but the late one waits at every call for rank 3.
    assert_eq!(late.len() as u64, (RANKS - 1) * ITERATIONS, "{text}");
}

/// Every file of the archive truncated at several points, and its bytes flipped: each read
/// is refused with a message naming the archive, or reads; none panics or aborts.
#[test]
fn a_damaged_archive_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let Some(archive) = write_archive(dir.path()) else {
        return;
    };
    let files = [
        archive.join("traces.otf2"),
        archive.join("traces.def"),
        archive.join("traces/0.evt"),
        archive.join("traces/3.evt"),
    ];
    let mut refused = 0;
    for file in &files {
        let whole = std::fs::read(file).unwrap();
        let cuts = [0, 1, whole.len() / 3, whole.len() / 2, whole.len() - 1];
        let flips = (0..whole.len()).step_by(whole.len().div_ceil(7).max(1));
        let damaged = cuts
            .iter()
            .map(|&n| whole[..n].to_vec())
            .chain(flips.map(|i| {
                let mut b = whole.clone();
                b[i] ^= 0xa5;
                b
            }));
        for bytes in damaged {
            std::fs::write(file, &bytes).unwrap();
            // The command, in its own process: a library abort would show as a signal.
            let out = common::offline(&["arrivals", archive.to_str().unwrap(), "--no-figures"]);
            let text = common::text(&out);
            assert!(
                matches!(out.status.code(), Some(0..=2)),
                "{} damaged: {:?} {text}",
                file.display(),
                out.status
            );
            if !out.status.success() {
                refused += 1;
                assert!(text.contains("traces.otf2"), "names the archive: {text}");
                assert!(!text.contains("panicked"), "{text}");
            }
        }
        std::fs::write(file, &whole).unwrap();
    }
    assert!(refused > 0, "some damage is refused");
    // A directory without any archive or capture is no archive.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = common::offline(&["arrivals", empty.to_str().unwrap(), "--no-figures"]);
    assert!(!out.status.success());
}
