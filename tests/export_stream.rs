//! `export` reads records block by block: what it writes must be byte for byte
//! what the in-memory export of the same file writes, for a complete file with post-hoc
//! clock correction, a chunked block and an interrupted run whose last chunk is torn; a
//! damaged file still fails with the reader's message and leaves no JSON that parses.

mod common;

use delaybench::clock::{ClockModel, ClockProbe};
use delaybench::export::{write_rows_streamed, ExportRows, Format};
use delaybench::plan::Op;
use delaybench::records::{
    read_records, split_block, testdata, RecordsError, RecordsWriter, RunLabel,
};
use delaybench::timeline::GlobalTimes;
use std::path::{Path, PathBuf};

/// Drift-tracking probes of world rank 1 whose offsets differ from its initial model by a
/// few microseconds, so post-hoc global times differ from the recorded ones.
fn probes(at_s: f64) -> Vec<ClockProbe> {
    (0..2)
        .map(|k| ClockProbe {
            world_rank: 1,
            t_local_s: at_s + k as f64 * 0.01,
            offset_s: 1e-3 + (k as f64 + 1.0) * 2e-6,
            rtt_s: 1e-6,
            before_rep: 0,
            model: ClockModel::offset_only(1e-3 + 4e-6),
        })
        .collect()
}

/// Four blocks at P = 2 (the second written in chunks), with probes; `complete: false`
/// leaves the last block in chunks without a block end or footer and tears its last chunk.
fn write_file(path: &Path, complete: bool) {
    let mut header = testdata::header(2);
    header.plan.track_every_s = Some(0.01);
    let mut w = RecordsWriter::create(path).unwrap();
    w.write_header(&header).unwrap();
    for (i, delay) in [0.0, 50e-6, 100e-6, 25e-6].into_iter().enumerate() {
        let mut b = testdata::block(Op::Allreduce, 8 << i, 2, delay, 30, 1e-5);
        b.clock_probes = probes(10.0 + i as f64 * 0.02);
        let chunked = i == 1 || (i == 3 && !complete);
        if chunked {
            for reps in [0..10, 10..20, 20..30] {
                w.write_chunk(reps.start, &split_block(&b, reps)).unwrap();
            }
            if i == 1 {
                w.finish_block(b.nrep).unwrap();
            }
        } else {
            w.write_block(&b).unwrap();
        }
    }
    if complete {
        w.finish(&testdata::footer(2)).unwrap();
    } else {
        drop(w);
        // Tear the last chunk: the file ends inside its frame.
        let bytes = std::fs::read(path).unwrap();
        std::fs::write(path, &bytes[..bytes.len() - 40]).unwrap();
    }
}

const CASES: [(&str, ExportRows, &str, Format); 4] = [
    ("rank", ExportRows::Rank, "csv", Format::Csv),
    ("rank", ExportRows::Rank, "json", Format::Json),
    ("rep", ExportRows::Rep, "csv", Format::Csv),
    ("rep", ExportRows::Rep, "json", Format::Json),
];

/// The export of the whole file read into memory, then corrected, written from its blocks.
fn in_memory(path: &Path, clock: GlobalTimes, rows: ExportRows, format: Format) -> Vec<u8> {
    let records = common::records_on(path, clock);
    let mut out = Vec::new();
    let blocks = records.blocks.iter().map(Ok::<_, RecordsError>);
    let run = RunLabel::of(&records.header);
    write_rows_streamed(&run, blocks, rows, format, &mut out).unwrap();
    out
}

fn export(path: &Path, rows: &str, format: &str, clock: &str) -> std::process::Output {
    let file = path.to_str().unwrap();
    let args = [
        "export",
        "--rows",
        rows,
        "--format",
        format,
        "--global-times",
        clock,
        file,
    ];
    common::offline(&args)
}

fn files(dir: &Path) -> [PathBuf; 2] {
    let (whole, torn) = (dir.join("whole.cbor"), dir.join("torn.cbor"));
    write_file(&whole, true);
    write_file(&torn, false);
    [whole, torn]
}

#[test]
fn streamed_export_equals_the_in_memory_one_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for path in files(dir.path()) {
        let records = read_records(&path).unwrap();
        let torn = path.ends_with("torn.cbor");
        // The torn file recovers its first three blocks and two chunks of the fourth.
        assert_eq!(records.blocks.len(), 4);
        assert_eq!(records.blocks[3].nrep, if torn { 20 } else { 30 });
        for (clock_name, clock) in [
            ("posthoc", GlobalTimes::Posthoc),
            ("online", GlobalTimes::Online),
        ] {
            for (rows_name, rows, format_name, format) in CASES {
                let out = export(&path, rows_name, format_name, clock_name);
                let what = format!("{} {rows_name} {format_name} {clock_name}", path.display());
                assert!(out.status.success(), "{what}: {}", common::text(&out));
                assert!(!out.stdout.is_empty(), "{what}");
                assert!(
                    out.stdout == in_memory(&path, clock, rows, format),
                    "{what}: streamed export differs"
                );
                let err = String::from_utf8_lossy(&out.stderr);
                assert_eq!(
                    err.contains("interrupted run: 4 complete blocks"),
                    torn,
                    "{err}"
                );
            }
        }
    }
}

#[test]
fn posthoc_correction_changes_what_is_exported() {
    // Otherwise the comparison above could not tell a missed correction apart.
    let dir = tempfile::tempdir().unwrap();
    let [whole, _] = files(dir.path());
    let post = export(&whole, "rank", "csv", "posthoc").stdout;
    let online = export(&whole, "rank", "csv", "online").stdout;
    assert_ne!(post, online);
}

#[test]
fn a_damaged_file_fails_with_the_readers_message_and_no_complete_json() {
    let dir = tempfile::tempdir().unwrap();
    let [whole, _] = files(dir.path());
    let mut bytes = std::fs::read(&whole).unwrap();
    // Inside the third block, after rows of the first two could have been written.
    let at = bytes.len() * 3 / 4;
    bytes[at] ^= 0x10;
    let bad = dir.path().join("bad.cbor");
    std::fs::write(&bad, &bytes).unwrap();
    let reader_says = format!(
        "reading {}: {}",
        bad.display(),
        read_records(&bad).unwrap_err()
    );
    for clock in ["posthoc", "online"] {
        for (rows, _, format, _) in CASES {
            let out = export(&bad, rows, format, clock);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{rows} {format} {clock}");
            assert!(err.contains(&reader_says), "{err}\nwant: {reader_says}");
            if format == "json" {
                let parsed = serde_json::from_slice::<serde_json::Value>(&out.stdout);
                assert!(parsed.is_err(), "{rows} {clock}: partial JSON parses");
            }
        }
    }
}
