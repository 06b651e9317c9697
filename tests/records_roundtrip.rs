//! Records files survive a write/read round trip, and interrupted runs are recovered.

use delaybench::plan::Op;
use delaybench::records::{read_records, testdata, Footer, RecordsError, RecordsWriter};
use std::io::Write;

fn footer() -> Footer {
    Footer {
        end_offsets_s: vec![0.0, 1e-3],
        offset_change_s: vec![0.0, 2e-7],
        max_abs_offset_change_s: 2e-7,
        wall_time_s: 1.5,
        warnings: vec![],
    }
}

#[test]
fn round_trip_keeps_every_value() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/run.cbor");
    let header = testdata::header(2);
    let blocks = vec![
        testdata::block(Op::Allreduce, 8, 2, 0.0, 5, 1e-5),
        testdata::block(Op::Allreduce, 8, 2, 50e-6, 5, 1e-5),
    ];
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&header).unwrap();
    for b in &blocks {
        w.write_block(b).unwrap();
    }
    w.finish(&footer()).unwrap();

    let r = read_records(&path).unwrap();
    assert!(r.complete());
    assert_eq!(r.header, header);
    assert_eq!(r.blocks, blocks);
    assert_eq!(r.footer, Some(footer()));
}

#[test]
fn interrupted_run_is_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.cbor");
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&testdata::header(2)).unwrap();
    let b = testdata::block(Op::Bcast, 128, 2, 0.0, 3, 1e-5);
    w.write_block(&b).unwrap();
    w.write_block(&testdata::block(Op::Bcast, 128, 2, 1e-4, 3, 1e-5))
        .unwrap();
    drop(w);
    // Tear the last block in half, as a crash mid-write would.
    let len = std::fs::metadata(&path).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(len - 100).unwrap();

    let r = read_records(&path).unwrap();
    assert!(!r.complete() && r.truncated && r.footer.is_none());
    assert_eq!(r.blocks, vec![b]);
}

#[test]
fn existing_file_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.cbor");
    std::fs::File::create(&path)
        .unwrap()
        .write_all(b"precious")
        .unwrap();
    assert!(matches!(
        RecordsWriter::create(&path),
        Err(RecordsError::Exists(_))
    ));
    assert_eq!(std::fs::read(&path).unwrap(), b"precious");
}

#[test]
fn other_files_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, b"hello").unwrap();
    assert!(matches!(
        read_records(&path),
        Err(RecordsError::NotRecords { .. })
    ));
}
