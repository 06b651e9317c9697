//! Records files survive a write/read round trip, and interrupted runs are recovered.

mod common;

use delaybench::plan::Op;
use delaybench::records::{
    read_records, split_block, testdata, Footer, RecordsError, RecordsStream, RecordsWriter,
};
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

/// Writes `block` in chunks of `every` repetitions, then a block end.
fn write_chunked(w: &mut RecordsWriter, block: &delaybench::records::Block, every: u32) {
    let mut first = 0;
    while first < block.nrep {
        let end = (first + every).min(block.nrep);
        w.write_chunk(first, &split_block(block, first..end))
            .unwrap();
        first = end;
    }
    w.finish_block(block.nrep).unwrap();
}

#[test]
fn a_chunked_block_reads_back_as_the_whole_block() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chunked.cbor");
    let blocks = vec![
        testdata::block(Op::Allreduce, 8, 2, 0.0, 7, 1e-5),
        testdata::block(Op::Allreduce, 8, 2, 50e-6, 5, 1e-5),
    ];
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&testdata::header(2)).unwrap();
    write_chunked(&mut w, &blocks[0], 3);
    w.write_block(&blocks[1]).unwrap();
    w.finish(&footer()).unwrap();

    let r = read_records(&path).unwrap();
    assert!(r.complete());
    assert_eq!(r.blocks, blocks);
    // The stream yields the same blocks one at a time, then knows the footer.
    let mut stream = RecordsStream::open(&path).unwrap();
    let streamed: Vec<_> = stream.by_ref().map(Result::unwrap).collect();
    assert_eq!(streamed, blocks);
    assert_eq!(stream.footer(), Some(&footer()));
    assert!(!stream.partial_block());
}

#[test]
fn an_interrupted_chunked_block_keeps_its_complete_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.cbor");
    let first = testdata::block(Op::Bcast, 128, 2, 0.0, 3, 1e-5);
    let long = testdata::block(Op::Bcast, 128, 2, 1e-4, 9, 1e-5);
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&testdata::header(2)).unwrap();
    w.write_block(&first).unwrap();
    w.write_chunk(0, &split_block(&long, 0..4)).unwrap();
    w.write_chunk(4, &split_block(&long, 4..8)).unwrap();
    w.write_chunk(8, &split_block(&long, 8..9)).unwrap();
    drop(w);
    // Tear the third chunk, as a kill mid-write would.
    let len = std::fs::metadata(&path).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(len - 20).unwrap();

    let r = read_records(&path).unwrap();
    assert!(!r.complete() && r.truncated);
    assert_eq!(r.blocks.len(), 2);
    assert_eq!(r.blocks[0], first);
    assert_eq!(r.blocks[1], split_block(&long, 0..8));
    let mut stream = RecordsStream::open(&path).unwrap();
    assert_eq!(stream.by_ref().count(), 2);
    assert!(stream.partial_block() && stream.truncated());
}

#[test]
fn a_chunk_that_skips_repetitions_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gap.cbor");
    let long = testdata::block(Op::Bcast, 128, 2, 1e-4, 9, 1e-5);
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&testdata::header(2)).unwrap();
    w.write_chunk(0, &split_block(&long, 0..4)).unwrap();
    w.write_chunk(5, &split_block(&long, 5..9)).unwrap();
    w.finish_block(9).unwrap();
    drop(w);
    let err = read_records(&path).unwrap_err();
    assert!(matches!(err, RecordsError::NotRecords { .. }), "{err}");
    assert!(err.to_string().contains("expected 4"), "{err}");
}

#[test]
fn an_item_that_does_not_decode_is_reported_in_words() {
    use delaybench::frame::{encode, FrameKind};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.cbor");
    let mut header = Vec::new();
    ciborium::into_writer(
        &delaybench::records::Item::Header(Box::new(testdata::header(2))),
        &mut header,
    )
    .unwrap();
    let mut bytes = encode(FrameKind::Header, &header);
    // A checksummed frame whose payload is cut CBOR, and one of the wrong type.
    bytes.extend(encode(FrameKind::Block, &[0xa1]));
    std::fs::write(&path, &bytes).unwrap();
    let text = read_records(&path).unwrap_err().to_string();
    assert!(text.contains("does not decode"), "{text}");
    for debug in ["Io(", "Error {", "kind:", "Semantic(", "None"] {
        assert!(!text.contains(debug), "{text}");
    }
}

#[test]
fn the_python_reader_joins_chunks_and_keeps_a_partial_block() {
    let has_python = std::process::Command::new("python3")
        .args(["-c", "import cbor2, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_python {
        common::skip("python3 with cbor2 and numpy is not installed: pip install cbor2 numpy");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("py.cbor");
    let whole = testdata::block(Op::Allreduce, 8, 2, 0.0, 7, 1e-5);
    let cut = testdata::block(Op::Allreduce, 8, 2, 50e-6, 6, 1e-5);
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&testdata::header(2)).unwrap();
    write_chunked(&mut w, &whole, 3);
    w.write_chunk(0, &split_block(&cut, 0..4)).unwrap();
    drop(w);
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/read_records.py");
    let code = format!(
        "import sys; sys.path.insert(0, '{}'); from read_records import read_records; \
         h, b, f, _ = read_records('{}'); \
         print(len(b), [x['nrep'] for x in b], [x.get('partial', False) for x in b], \
         b[0]['t_end_global_s'].shape, f is None)",
        std::path::Path::new(script).parent().unwrap().display(),
        path.display()
    );
    let out = std::process::Command::new("python3")
        .args(["-c", &code])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text.trim(), "2 [7, 4] [False, True] (7, 2) True");
}
