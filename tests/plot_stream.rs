//! `plot` reads records block by block, keeping per block its digest, valid
//! repetition indices, median repetition and overlap summary: the figures and report page
//! must be byte for byte those drawn from the whole file in memory.

mod common;

use delaybench::plan::Op;
use delaybench::plot::{write_figures_of_run, PlotRun, Stat};
use delaybench::records::{read_records, split_block, testdata, RecordsWriter};
use std::path::Path;

/// Allreduce and iallreduce (overlap mode) at two sizes and P = 2, 4, undelayed and 50 us
/// late, every other block in chunks; no footer, so the run is interrupted between blocks.
fn write_file(path: &Path) {
    let mut w = RecordsWriter::create(path).unwrap();
    w.write_header(&testdata::header(4)).unwrap();
    let mut i = 0;
    for p in [2, 4] {
        for op in [Op::Allreduce, Op::Iallreduce] {
            for bytes in [8, 1024] {
                for delay in [0.0, 50e-6] {
                    let t = 1e-5 * (1.0 + p as f64 / 4.0) + bytes as f64 * 1e-9;
                    let mut b = testdata::block(op, bytes, p, delay, 12, t);
                    if op == Op::Iallreduce {
                        b = testdata::with_overlap(b);
                    }
                    if i % 2 == 1 {
                        for reps in [0..5, 5..12] {
                            w.write_chunk(reps.start, &split_block(&b, reps)).unwrap();
                        }
                        w.finish_block(12).unwrap();
                    } else {
                        w.write_block(&b).unwrap();
                    }
                    i += 1;
                }
            }
        }
    }
}

#[test]
fn streamed_figures_equal_the_in_memory_ones_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.cbor");
    write_file(&file);
    let whole = dir.path().join("whole");
    let mut want = write_figures_of_run(
        PlotRun::of(&read_records(&file).unwrap()),
        &whole,
        Stat::Median,
        None,
    )
    .unwrap();
    let streamed = dir.path().join("streamed");
    let out = common::offline(&[
        "plot",
        "--out",
        streamed.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", common::text(&out));
    // Every kind, the timeline and the overlap figure among them.
    let names: Vec<String> = want
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for stem in [
        "timeline_50us.svg",
        "hidden_vs_p_50us.svg",
        "t_global_over_run.svg",
    ] {
        assert!(names.iter().any(|n| n == stem), "{stem} missing: {names:?}");
    }
    want.sort();
    let mut got: Vec<_> = std::fs::read_dir(&streamed)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    got.sort();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.file_name(), w.file_name());
        let same = std::fs::read(g).unwrap() == std::fs::read(w).unwrap();
        assert!(same, "{} differs", g.display());
    }
}
