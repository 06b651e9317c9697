//! What a laptop without MPI gets from `cargo build --no-default-features`: every offline
//! command, end to end through the binary, on records files written here. The same commands
//! need no MPI in the default build either, so this test runs in both; in the build without
//! MPI it also checks that the MPI commands still parse but refuse, saying how to rebuild.
//!
//! CI runs it as `cargo test --no-default-features --test offline_no_mpi` with no MPI on
//! `PATH` (`.ci/run`).

mod common;

use common::{offline, text};
use delaybench::export::{write_clocksync, ClockSyncRow, Format};
use delaybench::plan::Op;
use delaybench::records::{testdata, RecordsWriter};
use std::path::{Path, PathBuf};

/// A complete records file: allreduce 8 B at P = 2, baseline and 50 us late, 60 repetitions
/// whose operation takes `op_time_s`; a run of its own, whose run id is its name.
fn write_records(dir: &Path, name: &str, op_time_s: f64) -> PathBuf {
    let path = dir.join(name);
    let mut w = RecordsWriter::create(&path).unwrap();
    let mut header = testdata::header(2);
    header.provenance.run_id = name.into();
    w.write_header(&header).unwrap();
    for delay in [0.0, 50e-6] {
        w.write_block(&testdata::block(Op::Allreduce, 8, 2, delay, 60, op_time_s))
            .unwrap();
    }
    w.finish(&testdata::footer(2)).unwrap();
    path
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Runs `delaybench <args>`, asserts that it succeeded, and returns its stdout.
fn succeeds(args: &[&str]) -> String {
    let out = offline(args);
    assert!(out.status.success(), "{args:?}: {}", text(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// Data rows of a CSV output.
fn csv_rows(out: &str) -> usize {
    csv::Reader::from_reader(out.as_bytes()).records().count()
}

#[test]
fn analyze_export_plot_and_compare_records_files() {
    let dir = tempfile::tempdir().unwrap();
    let a = write_records(dir.path(), "a.cbor", 1e-5);
    let b = write_records(dir.path(), "b.cbor", 2e-5);

    // One row per (op, size, P, delay model).
    let summary = succeeds(&["analyze", s(&a), "--format", "csv"]);
    assert_eq!(csv_rows(&summary), 2, "{summary}");
    let trend = succeeds(&["analyze", s(&a), "--trend", "--format", "csv"]);
    assert_eq!(csv_rows(&trend), 2, "{trend}");

    // One row per (block, repetition, rank), or per (block, repetition).
    let ranks = succeeds(&["export", s(&a), "--format", "csv"]);
    assert_eq!(csv_rows(&ranks), 2 * 60 * 2);
    let reps = succeeds(&["export", s(&a), "--rows", "rep", "--format", "json"]);
    serde_json::from_str::<serde_json::Value>(&reps).expect("export --format json is JSON");

    let compared = succeeds(&["compare", s(&a), s(&b), "--format", "csv"]);
    assert_eq!(csv_rows(&compared), 2, "{compared}");

    let figures = dir.path().join("figures");
    let drawn = succeeds(&["plot", s(&a), "--out", s(&figures)]);
    assert!(!drawn.trim().is_empty(), "plot drew nothing");
    for path in drawn.lines() {
        assert!(
            Path::new(path).is_file(),
            "plot named {path} but did not write it"
        );
    }

    // A clocksync CSV (written by `clocksync` on the cluster) gives the clock error figure.
    let clocksync = dir.path().join("clocksync.csv");
    let row = |wait_s: f64, max_error_s: f64| ClockSyncRow {
        method: "treefit".into(),
        nprocs: 2,
        sync_s: 0.2,
        wait_s,
        max_error_s,
        max_true_error_s: None,
    };
    let mut f = std::fs::File::create(&clocksync).unwrap();
    write_clocksync(&[row(0.0, 1e-6), row(10.0, 2e-6)], Format::Csv, &mut f).unwrap();
    succeeds(&["plot", s(&clocksync), "--out", s(&figures)]);
    assert!(figures.join("clock_error_vs_time.png").is_file());
}

#[test]
fn clocksync_simulate_and_completions() {
    let simulated = succeeds(&[
        "clocksync",
        "--simulate",
        "--procs",
        "2,4",
        "--seeds",
        "2",
        "--methods",
        "offset,treefit",
        "--waits",
        "0s,1s",
        "--format",
        "csv",
    ]);
    // 2 P × 2 methods × 2 waits.
    assert_eq!(csv_rows(&simulated), 8, "{simulated}");

    let script = succeeds(&["completions", "bash"]);
    for word in ["analyze", "clocksync", "skew", "schemes", "dry-run"] {
        assert!(script.contains(word), "the completion script lacks {word}");
    }
}

/// Without MPI the command line is the same (the help lists and explains every command), but
/// a command that needs MPI ranks fails with a message that says how to get them, before
/// touching any file.
#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_commands_parse_but_refuse_without_mpi() {
    let help = succeeds(&["--help"]);
    for command in ["clocksync", "skew", "schemes", "analyze"] {
        assert!(help.contains(command), "--help lacks {command}: {help}");
    }
    succeeds(&["skew", "--help"]);

    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("run.cbor");
    let commands: [&[&str]; 7] = [
        &["--ops", "allreduce", "--output", s(&output)],
        &["--dry-run"],
        &["clocksync", "--procs", "2"],
        &["skew"],
        &["schemes"],
        &["algorithms"],
        &["--algorithms", "all", "--output", s(&output)],
    ];
    for args in commands {
        let out = offline(args);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {said}");
        assert!(said.contains("built without MPI"), "{args:?}: {said}");
        assert!(
            said.contains("rebuild with the default features"),
            "{args:?}: {said}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: {said}");
    }
    assert!(!output.exists(), "a refused run wrote {}", output.display());

    // Bad input is still bad input (exit 2), as in the MPI build.
    let out = offline(&["skew", "--nrep", "many"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

/// Every command names its human-readable format `table`; `info`, which called it `text`,
/// still takes that name and writes the same bytes. A format a command never wrote is
/// refused when the arguments are parsed (exit 2), naming the ones it takes.
#[test]
fn format_names_and_the_text_alias() {
    let dir = tempfile::tempdir().unwrap();
    let a = write_records(dir.path(), "a.cbor", 1e-5);
    let table = succeeds(&["info", s(&a), "--format", "table"]);
    assert_eq!(succeeds(&["info", s(&a), "--format", "text"]), table);
    assert_eq!(succeeds(&["info", s(&a)]), table);
    for (args, names) in [
        (
            &["info", s(&a), "--format", "csv"][..],
            "[possible values: table, json]",
        ),
        (
            &["analyze", s(&a), "--format", "text"],
            "table, csv, tsv, json, markdown",
        ),
        (
            &["analyze", s(&a), "--format", "jsonl"],
            "table, csv, tsv, json, markdown",
        ),
        (&["export", s(&a), "--format", "table"], "csv, json, jsonl"),
        (
            &["compare", s(&a), s(&a), "--format", "jsonl"],
            "table, csv, tsv",
        ),
    ] {
        let out = offline(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(text(&out).contains(names), "{args:?}: {}", text(&out));
    }
}

/// Runs `delaybench <args>`, asserts that it exited with `code` and said `said` on stderr,
/// and returns the stderr.
fn exits(args: &[&str], code: i32, said: &str) -> String {
    let out = offline(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {}", text(&out));
    assert!(stderr.contains(said), "{args:?}: no {said:?} in {stderr}");
    stderr
}

/// One exit status per class of error across the offline commands: a missing input file is
/// bad input (2) as a refused value is, and `plot` filters the file cannot satisfy are too,
/// naming what the file has; nothing is drawn.
#[test]
fn missing_files_and_filters_that_match_nothing_are_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let a = write_records(dir.path(), "a.cbor", 1e-5);
    let missing = dir.path().join("missing.cbor");
    let m = s(&missing);
    for args in [
        &["analyze", m][..],
        &["export", m],
        &["info", m],
        &["plot", m],
        &["compare", m, s(&a)],
        &["arrivals", m],
    ] {
        exits(args, 2, "No such file or directory");
    }
    let figures = dir.path().join("figures");
    let has = "it has ops allreduce; sizes 8 B; P 2; delays 50us";
    for (filter, asked) in [
        (["--size", "5KiB"], "--size 5 KiB is not in the file"),
        (["--delay", "20us"], "--delay 20us is not in the file"),
        (["--procs", "3"], "--procs 3 is not in the file"),
        (["--op", "bcast"], "--op bcast is not in the file"),
    ] {
        let mut args = vec!["plot", s(&a), "--out", s(&figures)];
        args.extend(filter);
        let said = exits(&args, 2, &format!("{asked}: {has}"));
        assert!(said.contains(s(&a)), "the file is not named: {said}");
        assert!(!figures.exists(), "{filter:?} drew figures");
    }
    // Values the file has still draw.
    succeeds(&[
        "plot",
        s(&a),
        "--out",
        s(&figures),
        "--size",
        "8",
        "--delay",
        "50us",
    ]);
    // Options that do not fit together, found while the command runs, are bad input too.
    let b = write_records(dir.path(), "b.cbor", 1e-5);
    exits(
        &["analyze", s(&a), s(&b), "--trend"],
        2,
        "take one records file",
    );
    exits(
        &["analyze", s(&a), "--algorithms", "--format", "csv"],
        2,
        "writes --format table or json",
    );
    // A failure while running is 1: here a figure folder below a file.
    let blocked = dir.path().join("a.cbor").join("figures");
    exits(&["man", "--dir", s(&blocked)], 1, "cannot create");
}

/// Bytes of `out` that are control characters other than line feed and tab, with the
/// output's name, for a message.
fn control_characters(name: &str, out: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(out)
        .char_indices()
        .filter(|&(_, c)| c.is_control() && c != '\n' && c != '\t')
        .map(|(i, c)| format!("{name}: {c:?} at byte {i}"))
        .collect()
}

/// A library string with a NUL terminator and an escape (as `MPI_Get_library_version` may
/// leave them) reaches no text output of the offline commands: every format of `analyze`,
/// `export`, `compare` and `info`, the report page `index.md` of `plot`, and the man page.
#[test]
fn no_text_output_carries_a_control_character() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nul.cbor");
    let mut h = testdata::header(2);
    h.mpi_library = "Open MPI v4.1.4\u{1b}[1m, package: Debian\0\nsecond line\u{7}\0".into();
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&h).unwrap();
    for delay in [0.0, 50e-6] {
        w.write_block(&testdata::block(Op::Allreduce, 8, 2, delay, 60, 1e-5))
            .unwrap();
    }
    w.finish(&testdata::footer(2)).unwrap();
    let f = s(&path);
    let mut found = Vec::new();
    let mut outputs: Vec<Vec<String>> = Vec::new();
    for format in ["table", "csv", "tsv", "json", "markdown"] {
        outputs.push(vec![
            "analyze".into(),
            f.into(),
            "--format".into(),
            format.into(),
        ]);
        outputs.push(
            ["compare", f, f, "--format", format]
                .map(String::from)
                .to_vec(),
        );
    }
    for format in ["csv", "json", "jsonl"] {
        for rows in ["rank", "rep"] {
            outputs.push(
                ["export", f, "--format", format, "--rows", rows]
                    .map(String::from)
                    .to_vec(),
            );
        }
    }
    for format in ["table", "json"] {
        outputs.push(["info", f, "--format", format].map(String::from).to_vec());
    }
    outputs.push(vec!["man".into()]);
    outputs.push(vec!["--help".into()]);
    for args in &outputs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = offline(&args);
        if !out.status.success() {
            // compare takes table, csv and tsv only: the others are refused at parsing.
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
            continue;
        }
        found.extend(control_characters(&args.join(" "), &out.stdout));
    }
    let figures = dir.path().join("figures");
    succeeds(&["plot", f, "--out", s(&figures)]);
    let page = std::fs::read(figures.join("index.md")).unwrap();
    assert!(
        String::from_utf8_lossy(&page)
            .contains("| MPI library | Open MPI v4.1.4[1m, package: Debian |"),
        "{}",
        String::from_utf8_lossy(&page)
    );
    found.extend(control_characters("index.md", &page));
    // The page for a browser too (its newlines are the SVGs' own).
    let html = std::fs::read(figures.join("index.html")).unwrap();
    assert!(String::from_utf8_lossy(&html).contains("Open MPI v4.1.4[1m, package: Debian"));
    found.extend(control_characters("index.html", &html));
    assert!(found.is_empty(), "{found:#?}");
}

/// `info` of a file written before launch addresses were redacted prints none of them: its
/// output is shared as the files are.
#[test]
fn info_redacts_the_launch_addresses_of_older_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.cbor");
    let mut h = testdata::header(2);
    let env = &mut h.provenance.machines[0].env;
    env.insert(
        "OMPI_MCA_orte_hnp_uri".into(),
        "2381905920.0;tcp://10.0.0.5:41231".into(),
    );
    env.insert(
        "PMIX_SERVER_URI4".into(),
        "pmix-server.1;tcp4://127.0.0.1:3918".into(),
    );
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&h).unwrap();
    w.finish(&testdata::footer(2)).unwrap();
    for format in ["table", "json"] {
        let out = succeeds(&["info", s(&path), "--format", format]);
        assert!(out.contains("OMPI_MCA_orte_hnp_uri"), "{out}");
        assert!(out.contains("(redacted)"), "{out}");
        for address in ["10.0.0.5", "41231", "127.0.0.1"] {
            assert!(!out.contains(address), "{format}: {address} in {out}");
        }
    }
}

/// A records file with what makes statistics degenerate: a block of 60 repetitions and
/// its late twin, blocks with 3 and 2 valid repetitions (too few for an interval), and
/// an overlap-mode pair; `op_time_s` as in [`write_records`], the run id `run_id`.
fn write_awkward_records(dir: &Path, name: &str, op_time_s: f64, run_id: &str) -> PathBuf {
    let path = dir.join(name);
    let mut w = RecordsWriter::create(&path).unwrap();
    let mut header = testdata::header(4);
    header.provenance.run_id = run_id.into();
    w.write_header(&header).unwrap();
    for delay in [0.0, 50e-6] {
        w.write_block(&testdata::block(Op::Allreduce, 8, 2, delay, 60, op_time_s))
            .unwrap();
        w.write_block(&testdata::block(Op::Allreduce, 8, 4, delay, 4, op_time_s))
            .unwrap();
        let overlap = testdata::block(Op::Iallreduce, 1024, 4, delay, 8, op_time_s);
        w.write_block(&testdata::with_overlap(overlap)).unwrap();
    }
    w.write_block(&testdata::block(Op::Barrier, 0, 4, 0.0, 3, op_time_s))
        .unwrap();
    w.finish(&testdata::footer(4)).unwrap();
    path
}

/// No output of an offline command says `NaN`: an interval, a p-value or a statistic that
/// cannot be computed is an empty cell, JSON `null` or `-`, in every format. And
/// `--resamples` below its minimum is refused when the arguments are parsed (exit 2).
#[test]
fn no_output_says_nan() {
    let dir = tempfile::tempdir().unwrap();
    let a = write_awkward_records(dir.path(), "a.cbor", 1e-5, "run-a");
    let b = write_awkward_records(dir.path(), "b.cbor", 2e-5, "run-b");
    let formats = ["table", "csv", "tsv", "json", "markdown"];
    let mut runs: Vec<Vec<String>> = Vec::new();
    let owned = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    for f in formats {
        for mode in [
            &[][..],
            &["--distribution"],
            &["--trend"],
            &["--overlap"],
            &["--timing", "global,max,root"],
            &["--algorithms"],
            &["--replay"],
            &["--resamples", "1000"],
        ] {
            let mut args = owned(&["analyze", s(&a), "--format", f]);
            args.extend(owned(mode));
            runs.push(args);
        }
        runs.push(owned(&["compare", s(&a), s(&b), "--format", f]));
        runs.push(owned(&["analyze", s(&a), s(&b), "--format", f]));
    }
    for f in ["csv", "json", "jsonl"] {
        for rows in ["rank", "rep"] {
            runs.push(owned(&["export", s(&a), "--format", f, "--rows", rows]));
        }
    }
    for args in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = offline(&args);
        let said = text(&out);
        assert!(!said.contains("NaN"), "{args:?}: {said}");
        // The summary and compare succeed in every format; the other tables may refuse one.
        if args.len() == 4 || args[0] == "compare" {
            assert!(out.status.success(), "{args:?}: {said}");
        }
    }
    for n in ["0", "1", "999"] {
        let out = offline(&["analyze", s(&a), "--resamples", n]);
        assert_eq!(out.status.code(), Some(2), "{n}: {}", text(&out));
        assert!(text(&out).contains("at least 1000"), "{}", text(&out));
        assert!(out.stdout.is_empty());
    }
}
