//! `analyze --distribution/--trend/--overlap/--timing/--truth` read records block by block
//! (so a file larger than memory can be analysed): each table must be what the in-memory functions give for the same file, also
//! when a delayed block comes before its baseline and when the run was interrupted.

mod common;

use delaybench::analysis::{
    distribution_rows, overlap_rows, timing_rows, trend_rows, true_start_spread, TimingMethod,
};
use delaybench::export::{
    with_run_columns, write_distribution, write_overlap, write_timing, write_trend, write_truth,
    Format,
};
use delaybench::plan::Op;
use delaybench::records::{split_block, testdata, RecordsWriter, RunLabel};
use delaybench::timeline::GlobalTimes;
use std::path::Path;

/// A delayed block before its baseline, a noise block (every rank delayed), overlap blocks,
/// the emulated clocks `--truth` needs; the noise block is written in chunks and, when
/// `complete` is false, left without block end or footer.
fn write_file(path: &Path, complete: bool) {
    let mut header = testdata::header(2);
    header.plan.emulate_clock = Some("offset=1ms*rank".parse().unwrap());
    let late = testdata::block(Op::Allreduce, 8, 2, 50e-6, 30, 1e-5);
    let base = testdata::block(Op::Allreduce, 8, 2, 0.0, 30, 1e-5);
    let mut noise = testdata::block(Op::Allreduce, 8, 2, 20e-6, 30, 1e-5);
    noise.delayed_ranks = vec![0, 1];
    for rep in 0..30 {
        let i = noise.idx(rep, 1);
        noise.applied_delay_s.0[i] = rep as f64 * 1e-6;
        noise.t_start_global_s.0[i] += rep as f64 * 1e-6;
        noise.t_start_local_s.0[i] += rep as f64 * 1e-6;
    }
    let nbc_base = testdata::with_overlap(testdata::block(Op::Iallreduce, 64, 2, 0.0, 30, 2e-5));
    let nbc_late = testdata::with_overlap(testdata::block(Op::Iallreduce, 64, 2, 50e-6, 30, 2e-5));
    let mut w = RecordsWriter::create(path).unwrap();
    w.write_header(&header).unwrap();
    for b in [&late, &nbc_late, &base, &nbc_base] {
        w.write_block(b).unwrap();
    }
    for reps in [0..10, 10..20, 20..30] {
        w.write_chunk(reps.start, &split_block(&noise, reps))
            .unwrap();
    }
    if complete {
        w.finish_block(30).unwrap();
        w.finish(&testdata::footer(2)).unwrap();
    }
}

/// The table `option` as the whole file in memory gives it, with the run's columns.
fn in_memory(path: &Path, option: &str, format: Format) -> Vec<u8> {
    let r = common::records_on(path, GlobalTimes::Posthoc);
    let mut out = Vec::new();
    let run = RunLabel::of(&r.header);
    with_run_columns(&run, format, &mut out, |w| table(&r, option, format, w)).unwrap();
    out
}

fn table(
    r: &delaybench::records::Records,
    option: &str,
    format: Format,
    mut out: &mut dyn std::io::Write,
) -> Result<(), delaybench::export::ExportError> {
    let methods = [TimingMethod::Global, TimingMethod::Max, TimingMethod::Root];
    match option {
        "--distribution" => write_distribution(&distribution_rows(r), format, &mut out),
        "--trend" => write_trend(&trend_rows(r), format, &mut out),
        "--overlap" => write_overlap(&overlap_rows(r), format, &mut out),
        "--timing" => write_timing(&timing_rows(r, &methods), format, &mut out),
        _ => write_truth(&true_start_spread(r).unwrap(), format, &mut out),
    }
}

#[test]
fn streamed_tables_equal_the_in_memory_ones() {
    let dir = tempfile::tempdir().unwrap();
    for complete in [true, false] {
        let path = dir.path().join(format!("run-{complete}.cbor"));
        write_file(&path, complete);
        let file = path.to_str().unwrap();
        for option in [
            "--distribution",
            "--trend",
            "--overlap",
            "--timing",
            "--truth",
        ] {
            for (name, format) in [("csv", Format::Csv), ("json", Format::Json)] {
                let mut args = vec!["analyze", option, "--format", name, file];
                if option == "--timing" {
                    args.insert(2, "global,max,root");
                }
                let out = common::offline(&args);
                let what = format!("{option} {name} complete={complete}");
                assert!(out.status.success(), "{what}: {}", common::text(&out));
                let want = in_memory(&path, option, format);
                // Every table has rows here: a header-only match would prove little.
                assert!(String::from_utf8_lossy(&want).lines().count() > 1, "{what}");
                assert!(out.stdout == want, "{what}: streamed table differs");
                let err = String::from_utf8_lossy(&out.stderr);
                assert_eq!(
                    err.contains("interrupted run: 5 complete blocks"),
                    !complete,
                    "{err}"
                );
            }
        }
    }
}

#[test]
fn truth_without_emulated_clocks_still_says_what_it_needs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plain.cbor");
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&testdata::header(2)).unwrap();
    w.write_block(&testdata::block(Op::Allreduce, 8, 2, 0.0, 5, 1e-5))
        .unwrap();
    drop(w);
    let out = common::offline(&["analyze", "--truth", path.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(common::text(&out).contains("--truth needs a run with --emulate-clock"));
}
