//! The default `analyze` table of a real run: within the width, the blocking and nonblocking
//! forms side by side, every old column one flag away (`--wide`), and the filters of `plot`
//! (`--op/--size/--procs/--delay`), a filter matching nothing refused naming what the file has.

mod common;

use common::{mpirun_with, text, NO_VALID_EXIT};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Duration;

/// One small real run shared by the tests: two kernel families in both forms, two sizes,
/// P = 2 and 4, δ = 50 µs. Its records path and the run's own stdout (the end-of-run table,
/// printed with `COLUMNS=100`). In cargo's temporary folder for integration tests.
fn run() -> &'static (PathBuf, String) {
    static RUN: OnceLock<(PathBuf, String)> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("analyze_table");
        // A run never writes into a folder that has outputs: start from none.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let args = [
            "--ops",
            "allreduce,iallreduce,barrier,ibarrier",
            "--sizes",
            "8,1KiB",
            "--procs",
            "2,4",
            "--nrep",
            "30",
            "--warmup",
            "3",
            "--clock-sync",
            "offset",
            "--delay",
            "50us",
            "--no-figures",
            "--output",
            "run.cbor",
        ];
        let out = mpirun_with(
            4,
            &args,
            &[("COLUMNS", "100")],
            &dir,
            Duration::from_secs(240),
        );
        assert!(
            matches!(out.status.code(), Some(0 | NO_VALID_EXIT)),
            "{}",
            text(&out)
        );
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        (dir.join("run.cbor"), stdout)
    })
}

/// `delaybench analyze FILE ARGS` with `COLUMNS` set to `columns`.
fn analyze(file: &Path, args: &[&str], columns: &str) -> Output {
    Command::new(common::exe())
        .arg("analyze")
        .arg(file)
        .args(args)
        .env("COLUMNS", columns)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "{}", text(out));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The cells of the data rows of the first table in `table` (between the `=` rule under the
/// header and the `-` rule under the rows), split at runs of two or more spaces. A cell too
/// long for its column wraps onto continuation lines (their op column blank): each piece is
/// joined to the cell of the row above whose columns it shares, so a row is whole again.
fn data_rows(table: &str) -> Vec<Vec<String>> {
    let rule = |l: &str, c: char| !l.is_empty() && l.chars().all(|x| x == c);
    let mut rows: Vec<Vec<(usize, usize, String)>> = Vec::new();
    for line in table
        .lines()
        .skip_while(|l| !rule(l, '='))
        .skip(1)
        .take_while(|l| !rule(l, '-'))
    {
        let pieces = cells(line);
        match rows.last_mut() {
            Some(row) if line.starts_with("  ") => {
                for (start, end, text) in pieces {
                    let shared =
                        |c: &(usize, usize, String)| end.min(c.1) as i64 - start.max(c.0) as i64;
                    let cell = row.iter_mut().max_by_key(|c| shared(c)).unwrap();
                    cell.2 = format!("{} {text}", cell.2);
                }
            }
            _ => rows.push(pieces),
        }
    }
    rows.into_iter()
        .map(|row| row.into_iter().map(|(_, _, text)| text).collect())
        .collect()
}

/// The cells of one line, split at runs of two or more spaces, each with its character
/// columns [start, end).
fn cells(line: &str) -> Vec<(usize, usize, String)> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == ' ' {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && !(chars[i] == ' ' && chars.get(i + 1).is_none_or(|c| *c == ' ')) {
            i += 1;
        }
        out.push((start, i, chars[start..i].iter().collect()));
    }
    out
}

#[test]
fn the_default_table_fits_100_columns_and_pairs_each_blocking_kernel_with_its_nonblocking_form() {
    let (file, end_of_run) = run();
    let table = stdout(&analyze(file, &[], "100"));
    for (what, out) in [("analyze", &table), ("end of run", end_of_run)] {
        for line in out.lines() {
            assert!(
                line.chars().count() <= 100,
                "{what}: {} characters: {line}",
                line.chars().count()
            );
        }
    }
    // The end of the run prints the table analyze prints.
    let head: Vec<&str> = table.lines().take(4).collect();
    assert!(end_of_run.contains(&head.join("\n")), "{end_of_run}");
    for name in ["t0", "cost td-t0 (us)", "delay hidden", "verdict"] {
        assert!(head[1].contains(name), "{name}: {}", head[1]);
    }
    let rows = data_rows(&table);
    assert!(!rows.is_empty(), "{table}");
    // Every allreduce and barrier row is followed by its nonblocking form at the same size,
    // P and delay.
    let mut pairs = 0;
    for (i, row) in rows.iter().enumerate() {
        let partner = match row[0].as_str() {
            "allreduce" => "iallreduce",
            "barrier" => "ibarrier",
            _ => continue,
        };
        let next = &rows[i + 1];
        assert_eq!(next[0], partner, "{table}");
        assert_eq!(next[1..4], row[1..4], "{table}");
        pairs += 1;
        // Both forms with a share hidden (on a loaded machine a side may have no valid
        // repetition): the family's line compares them.
        if row[6] != "-" && next[6] != "-" {
            let line = format!("{} vs {partner}:", row[0]);
            assert!(table.contains(&line), "{line} missing: {table}");
        }
    }
    assert!(pairs >= 4, "{table}");
    // A verdict in words on every row.
    let verdicts = [
        "hides",
        "costs",
        "too few",
        "inconclusive",
        "faster",
        "no baseline",
        "no valid repetition",
    ];
    for row in &rows {
        let last = row.last().unwrap();
        assert!(verdicts.iter().any(|v| last.contains(v)), "{row:?}");
    }
    // A wider terminal: lines may use its width, never more.
    for line in stdout(&analyze(file, &[], "160")).lines() {
        assert!(line.chars().count() <= 160, "{line}");
    }
}

#[test]
fn wide_prints_the_old_columns_and_leaves_csv_as_it_was() {
    let (file, _) = run();
    let wide = stdout(&analyze(file, &["--wide"], "100"));
    let lines: Vec<&str> = wide.lines().collect();
    // The old table's two header lines, its names in their order.
    let old_first = [
        "op",
        "size",
        "P",
        "hosts",
        "delay",
        "t0 valid",
        "valid",
        "t0 med",
        "t_delta med",
        "cost td-t0",
        "b med",
        "b sig-",
        "b ceil-",
        "b / ceil-",
        "b min",
        "outliers",
    ];
    let first = cells(lines[1]);
    let mut at = first.iter();
    for name in old_first {
        assert!(
            at.any(|c| c.2 == name),
            "{name} missing or out of order: {first:?}"
        );
    }
    for part in ["/total", "[95% CI] (us)", "nificant", "ing (%)", "low/high"] {
        assert!(lines[2].contains(part), "{part}: {}", lines[2]);
    }
    let csv = stdout(&analyze(file, &["--format", "csv"], "100"));
    let csv_wide = stdout(&analyze(file, &["--format", "csv", "--wide"], "100"));
    assert_eq!(csv, csv_wide);
}

#[test]
fn filters_narrow_the_rows_and_a_filter_matching_nothing_names_what_the_file_has() {
    let (file, _) = run();
    let all = data_rows(&stdout(&analyze(file, &[], "100")));
    let some = data_rows(&stdout(&analyze(
        file,
        &["--op", "iallreduce", "--procs", "4"],
        "100",
    )));
    assert!(!some.is_empty() && some.len() < all.len(), "{some:?}");
    for row in &some {
        assert_eq!(
            (row[0].as_str(), row[2].as_str()),
            ("iallreduce", "4"),
            "{row:?}"
        );
    }
    // The measurement's spelling is accepted too.
    let same = data_rows(&stdout(&analyze(
        file,
        &["--ops", "iallreduce", "--procs", "4"],
        "100",
    )));
    assert_eq!(same, some);
    let sized = data_rows(&stdout(&analyze(file, &["--size", "1KiB"], "100")));
    assert!(
        sized.iter().all(|r| r[1] == "1KiB" || r[1] == "-"),
        "{sized:?}"
    );
    for (args, said) in [
        (&["--size", "5KiB"][..], "--size 5 KiB is not in the file"),
        (&["--op", "bcast"][..], "--op bcast is not in the file"),
        (&["--procs", "3"][..], "--procs 3 is not in the file"),
    ] {
        let out = analyze(file, args, "100");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(said), "{args:?}: {err}");
        assert!(
            err.contains("it has ops") && err.contains("iallreduce") && err.contains("P 2, 4"),
            "{args:?} names what the file has: {err}"
        );
    }
}

/// The row parser above on a table whose cells wrapped (as a loaded machine's run printed it):
/// each wrapped piece goes back to its own cell, so the pairing checks see whole rows.
#[test]
fn wrapped_cells_are_joined_to_their_row() {
    let table = "\
 op          size  P  delay    t0     cost td-t0 (us)   delay hidden       above             verdict
====================================================================================================
 barrier        -  2   50us     -                   -              -           -            no valid
                                                                                          repetition
 iallreduce    8B  2   50us  47.2  1038 [221.8, 2385]  -1976 [-4670,        1036       costs extra *
                                                               -344]
----------------------------------------------------------------------------------------------------
";
    let rows = data_rows(table);
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0][0], "barrier");
    assert_eq!(rows[0].last().unwrap(), "no valid repetition");
    assert_eq!(rows[1][6], "-1976 [-4670, -344]");
    assert_eq!(rows[1].last().unwrap(), "costs extra *");
}
