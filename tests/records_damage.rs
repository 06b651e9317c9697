//! Damaged records files: a flipped byte anywhere is reported as corruption
//! with its item and offset, never analysed as data; a torn end is an interrupted run; another
//! format version gets a clear message; and no mutation of a valid file makes the reader
//! panic (a proptest fuzz target; crashers found are kept below as regression tests).

mod common;

use delaybench::plan::Op;
use delaybench::records::{
    read_records, split_block, testdata, Footer, Item, RecordsError, RecordsWriter, FORMAT_VERSION,
};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn footer() -> Footer {
    Footer {
        end_offsets_s: vec![0.0, 1e-3],
        offset_change_s: vec![0.0, 2e-7],
        max_abs_offset_change_s: 2e-7,
        wall_time_s: 1.5,
        warnings: vec![],
    }
}

/// A complete records file of three blocks, the middle one written as three chunks and a
/// block end (as the run writes long blocks); its bytes.
fn valid_file(dir: &Path) -> (PathBuf, Vec<u8>) {
    let path = dir.join("run.cbor");
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&testdata::header(2)).unwrap();
    for delay in [0.0, 50e-6, 100e-6] {
        let block = testdata::block(Op::Allreduce, 8, 2, delay, 20, 1e-5);
        if delay == 50e-6 {
            for reps in [0..7, 7..14, 14..20] {
                w.write_chunk(reps.start, &split_block(&block, reps))
                    .unwrap();
            }
            w.finish_block(block.nrep).unwrap();
        } else {
            w.write_block(&block).unwrap();
        }
    }
    w.finish(&footer()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn a_flipped_byte_in_the_middle_is_corruption_never_data() {
    let dir = tempfile::tempdir().unwrap();
    let (_, bytes) = valid_file(dir.path());
    // Every 97th byte, so that headers, payloads and checksums of every frame are hit.
    for i in (0..bytes.len()).step_by(97) {
        let mut bad = bytes.clone();
        bad[i] ^= 0x04;
        let path = write(dir.path(), "bad.cbor", &bad);
        match read_records(&path) {
            Err(RecordsError::Corrupt { offset, .. }) => assert!(offset <= i as u64),
            // The first frame's magic: not a records file at all.
            Err(RecordsError::NotRecords { .. }) if i < 4 => {}
            other => panic!("byte {i} flipped: {other:?}"),
        }
    }
}

#[test]
fn a_flipped_byte_at_a_block_start_names_the_block_and_the_items_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let (_, bytes) = valid_file(dir.path());
    // Find the second frame (block 1) by its magic after the header's.
    let starts: Vec<usize> = (0..bytes.len() - 4)
        .filter(|&i| bytes[i..i + 4] == *b"DBR2")
        .collect();
    let mut bad = bytes.clone();
    bad[starts[1]] ^= 0xff;
    let err = read_records(&write(dir.path(), "bad.cbor", &bad)).unwrap_err();
    let text = err.to_string();
    assert!(
        // Every frame after it: two blocks' worth of chunks, a block end, a block, the footer.
        matches!(err, RecordsError::Corrupt { later, .. } if later == starts.len() - 2)
            && text.contains("block 1"),
        "{text}"
    );
}

#[test]
fn damage_inside_a_chunked_block_names_that_block() {
    let dir = tempfile::tempdir().unwrap();
    let (_, bytes) = valid_file(dir.path());
    let starts: Vec<usize> = (0..bytes.len() - 4)
        .filter(|&i| bytes[i..i + 4] == *b"DBR2")
        .collect();
    // Frames: header, block 1, chunks 1-3 of block 2, its end, block 3, footer. Damage the
    // second chunk and the block end: both belong to block 2.
    for frame in [3, 5] {
        let mut bad = bytes.clone();
        bad[starts[frame] + 6] ^= 0x10;
        let err = read_records(&write(dir.path(), "bad.cbor", &bad)).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("block 2 (a chunk or its end)"),
            "frame {frame}: {text}"
        );
    }
    // The block after the chunked one is block 3.
    let mut bad = bytes.clone();
    bad[starts[6] + 6] ^= 0x10;
    let text = read_records(&write(dir.path(), "bad.cbor", &bad))
        .unwrap_err()
        .to_string();
    assert!(text.contains("block 3 or the footer"), "{text}");
}

#[test]
fn analyze_reports_a_damaged_file_as_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let (_, mut bytes) = valid_file(dir.path());
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    let path = write(dir.path(), "bad.cbor", &bytes);
    let out = common::offline(&["analyze", path.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("damaged at byte"), "{err}");
    assert!(!err.contains("Error {"), "no debug output: {err}");
}

#[test]
fn a_torn_end_is_an_interrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let (_, bytes) = valid_file(dir.path());
    for cut in [1, 10, 200] {
        let path = write(dir.path(), "torn.cbor", &bytes[..bytes.len() - cut]);
        let r = read_records(&path).unwrap();
        assert!(!r.complete(), "cut {cut}");
        assert!(r.footer.is_none() || r.truncated);
    }
}

#[test]
fn a_version_1_file_gets_a_version_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut header = testdata::header(2);
    header.format_version = 1;
    // Version 1 was a plain CBOR sequence of items.
    let mut bytes = Vec::new();
    ciborium::into_writer(&Item::Header(Box::new(header)), &mut bytes).unwrap();
    let err = read_records(&write(dir.path(), "v1.cbor", &bytes)).unwrap_err();
    assert!(
        matches!(err, RecordsError::Version { found: 1, expected, .. } if expected == FORMAT_VERSION),
        "{err}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("DELAYBENCH_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
        .. ProptestConfig::default()
    })]

    /// Bit flips, truncations, insertions and overwritten lengths: the reader returns records
    /// or a clean error, never panics.
    #[test]
    fn mutated_files_never_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        cut in any::<prop::sample::Index>(),
        do_cut in any::<bool>(),
        insert in proptest::collection::vec(any::<u8>(), 0..16),
        at in any::<prop::sample::Index>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (_, mut bytes) = valid_file(dir.path());
        for (i, v) in flips {
            let i = i.index(bytes.len());
            bytes[i] ^= v;
        }
        let at = at.index(bytes.len());
        bytes.splice(at..at, insert);
        if do_cut {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        let path = write(dir.path(), "fuzz.cbor", &bytes);
        let result = std::panic::catch_unwind(|| read_records(&path).map(|r| r.blocks.len()));
        prop_assert!(result.is_ok(), "the reader panicked");
    }
}
