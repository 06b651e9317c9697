//! `analyze`, `export` and `plot` read records block by block: a small always-on check that
//! the streamed analysis equals the in-memory one (export and plot have theirs in
//! tests/export_stream.rs and tests/plot_stream.rs), and an ignored large one that measures
//! throughput, peak memory and bytes read of all three (and of the Parquet export, with that
//! feature) on ~10^7-10^8 rank-repetition events.
//!
//! Large run (about 4.1 GB of disk, 2 GB more for the Parquet export, a release build):
//! `DELAYBENCH_SCALE_EVENTS=100000000 cargo test --release --test records_scale -- --ignored --nocapture`

mod common;

use delaybench::analysis::{analyze, analyze_digests, Bootstrap, LaunchDigest};
use delaybench::plan::Op;
use delaybench::records::{read_records, split_block, testdata, Footer, RecordsWriter};
use delaybench::timeline::GlobalTimes;
use std::path::Path;
use std::time::Instant;

/// Writes a records file of `blocks` blocks of `nrep` repetitions at P = `nprocs`, every
/// other block in chunks of 1000 repetitions; the delayed blocks follow a baseline.
fn write_file(path: &Path, nprocs: u32, nrep: u32, blocks: u32) {
    let mut w = RecordsWriter::create(path).unwrap();
    w.write_header(&testdata::header(nprocs)).unwrap();
    for i in 0..blocks {
        let delay = if i % 2 == 0 { 0.0 } else { 50e-6 };
        let bytes = 8u64 << (i / 2);
        let b = testdata::block(Op::Allreduce, bytes, nprocs, delay, nrep, 1e-5);
        if i % 2 == 0 {
            w.write_block(&b).unwrap();
        } else {
            let mut first = 0;
            while first < nrep {
                let end = (first + 1000).min(nrep);
                w.write_chunk(first, &split_block(&b, first..end)).unwrap();
                first = end;
            }
            w.finish_block(nrep).unwrap();
        }
    }
    w.finish(&Footer {
        end_offsets_s: vec![0.0; nprocs as usize],
        offset_change_s: vec![0.0; nprocs as usize],
        max_abs_offset_change_s: 0.0,
        wall_time_s: 1.0,
        warnings: vec![],
    })
    .unwrap();
}

#[test]
fn streamed_analysis_equals_the_in_memory_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.cbor");
    write_file(&path, 4, 1500, 4);
    let names = vec![path.display().to_string()];
    // Few resamples: the bootstrap is not what is tested here, and it is slow unoptimised.
    let boot = Bootstrap {
        resamples: 50,
        ..Bootstrap::default()
    };
    let whole = analyze(&names, &[read_records(&path).unwrap()], boot).unwrap();
    let digest = LaunchDigest::read(&path, GlobalTimes::Posthoc).unwrap();
    assert_eq!(digest.blocks.len(), 4);
    assert_eq!(digest.blocks[1].nrep, 1500);
    let streamed = analyze_digests(&names, &[digest], boot).unwrap();
    assert_eq!(streamed, whole);
    // And the binary says the same thing.
    // The binary refuses fewer than MIN_RESAMPLES; intervals do not change the row count.
    let out = common::offline(&[
        "analyze",
        "--format",
        "csv",
        "--resamples",
        "1000",
        &names[0],
    ]);
    assert!(out.status.success(), "{}", common::text(&out));
    let csv = String::from_utf8_lossy(&out.stdout);
    assert_eq!(csv.lines().count(), 1 + 4, "{csv}");
}

/// Peak resident memory in kB of a finished `/usr/bin/time -v` run, from its stderr.
fn max_rss_kb(stderr: &str) -> Option<u64> {
    stderr
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("Maximum resident set size (kbytes): ")
        })
        .and_then(|v| v.trim().parse().ok())
}

#[test]
#[ignore = "writes ~4 GB for 10^8 events; run by hand, see the module documentation"]
fn analyze_export_and_plot_of_a_large_file_run_in_bounded_memory() {
    let events: u64 = std::env::var("DELAYBENCH_SCALE_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000);
    let (nprocs, nrep) = (16u32, 62_500u32); // 10^6 events per block
    let blocks = (events / (nprocs as u64 * nrep as u64)).max(2) as u32;
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let path = dir.path().join("large.cbor");
    let t = Instant::now();
    write_file(&path, nprocs, nrep, blocks);
    let size = std::fs::metadata(&path).unwrap().len();
    let events = blocks as u64 * nprocs as u64 * nrep as u64;
    eprintln!(
        "wrote {events} events, {size} bytes in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let block_bytes = size / blocks as u64;
    // Up to 10^8 events (the documented run) every reader stays within 256 MB; beyond, the
    // per-reader bounds below grow with the valid repetitions. The file has no one-way times
    // (testdata's header), so no lower bound: a measured file's digest keeps 8 bytes more per
    // valid repetition and bound term (allreduce: 2), 100 MB more here.
    let cap: u64 = if events <= 100_000_000 {
        256_000_000
    } else {
        u64::MAX
    };
    // The fewest resamples the command line takes (MIN_RESAMPLES; each costs O(1) per
    // interval, nothing beside reading 10^8 events): analyze then times reading and reducing
    // the file, the reference plot, which draws the default 2000 resamples per interval, is
    // held to below.
    let analyze = ["analyze", "--format", "csv", "--resamples", "1000"];
    let a = measured("analyze", &analyze, &path, events, size);
    assert_eq!(a.stdout.lines().count(), 1 + blocks as usize);
    // Bounded: a few blocks' worth plus 8 bytes per valid repetition, far below the file.
    let reps = events / nprocs as u64;
    within(
        "analyze",
        a.rss,
        (6 * block_bytes + 8 * reps + (64 << 20)).min(cap),
    );
    let export = ["export", "--rows", "rep", "--format", "csv"];
    let e = measured("export --rows rep", &export, &path, events, size);
    assert_eq!(e.stdout.lines().count() as u64, 1 + reps);
    // Rows are written as each block arrives: a few blocks' worth, whatever the file.
    within("export", e.rss, (6 * block_bytes + (64 << 20)).min(cap));
    // Not under the 256 MB cap: a block's rows (10^6 here, one per rank and repetition) are
    // made before they are written, about 230 MB from 10^7 events on (256 MB at 10^8, the
    // rest the footer's per-row-group statistics).
    #[cfg(feature = "parquet")]
    {
        let parquet_secs = parquet_export(dir.path(), &path, events, size, 6 * block_bytes);
        // OTF2 is held to twice Parquet's time when the build has it.
        #[cfg(feature = "otf2")]
        otf2_export(dir.path(), &path, events, size, parquet_secs);
        #[cfg(not(feature = "otf2"))]
        let _ = parquet_secs;
    }
    let figures = dir.path().join("figures");
    let plot = ["plot", "--out", figures.to_str().unwrap()];
    let p = measured("plot", &plot, &path, events, size);
    assert!(
        p.stdout.lines().any(|l| l.ends_with("index.md")),
        "{}",
        p.stdout
    );
    // 8 bytes per valid repetition (its t_global) and a bit per repetition (valid or not),
    // one repetition per block, and the drawing's own buffers.
    let plot_bound = 6 * block_bytes + 8 * reps + reps / 8 + (160 << 20);
    within("plot", p.rss, plot_bound.min(cap));
    // Every figure comes from the one reduction of the file, with intervals whose cost does
    // not grow with resamples x repetitions: at 10^8 events plot took 28 times as long as
    // analyze when each resample drew all 62 500 values of a block.
    assert!(
        p.secs <= 2.0 * a.secs,
        "plot took {:.1} s, more than twice analyze's {:.1} s",
        p.secs,
        a.secs
    );
}

/// Times `export --format parquet` of the whole file with the default rows (one per rank
/// and repetition) into a file, checks its row count from the Parquet footer, prints its
/// bytes per row, and holds its memory to `blocks_bytes` (a few blocks) plus one row group
/// of column buffers; the file is removed after, as it is not small.
#[cfg(feature = "parquet")]
fn parquet_export(dir: &Path, path: &Path, events: u64, size: u64, blocks_bytes: u64) -> f64 {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let out = dir.join("large.parquet");
    let args = [
        "export",
        "--format",
        "parquet",
        "--output",
        out.to_str().unwrap(),
    ];
    let q = measured("export --format parquet", &args, path, events, size);
    let bytes = std::fs::metadata(&out).unwrap().len();
    let reader = SerializedFileReader::new(std::fs::File::open(&out).unwrap()).unwrap();
    let rows = reader.metadata().file_metadata().num_rows() as u64;
    assert_eq!(rows, events, "one Parquet row per rank and repetition");
    eprintln!(
        "export --format parquet: {rows} rows, {bytes} bytes, {:.1} bytes per row",
        bytes as f64 / rows as f64
    );
    // A block's rows are made before they are written, and a row group holds
    // ROW_GROUP_ROWS rows of ~30 columns before it is written out.
    within("export parquet", q.rss, blocks_bytes + (128 << 20));
    std::fs::remove_file(&out).unwrap();
    q.secs
}

/// Times `export --format otf2` of the whole file beside the per-rank CSV export into a
/// file (the same rows as Parquet's), prints the bytes of each per rank-repetition, and
/// holds OTF2 to the goal of at most twice Parquet's time (`parquet_secs`).
#[cfg(all(feature = "otf2", feature = "parquet"))]
fn otf2_export(dir: &Path, path: &Path, events: u64, size: u64, parquet_secs: f64) {
    let archive = dir.join("large-otf2");
    let args = [
        "export",
        "--format",
        "otf2",
        "--output",
        archive.to_str().unwrap(),
    ];
    let o = measured("export --format otf2", &args, path, events, size);
    let bytes: u64 = walk_bytes(&archive);
    eprintln!(
        "export --format otf2: {bytes} bytes, {:.1} bytes per rank-repetition",
        bytes as f64 / events as f64
    );
    std::fs::remove_dir_all(&archive).unwrap();
    let csv = dir.join("large.csv");
    let args = [
        "export",
        "--format",
        "csv",
        "--output",
        csv.to_str().unwrap(),
    ];
    let c = measured("export --format csv", &args, path, events, size);
    let csv_bytes = std::fs::metadata(&csv).unwrap().len();
    eprintln!(
        "export --format csv: {csv_bytes} bytes, {:.1} bytes per rank-repetition; OTF2 took \
         {:.2} x Parquet's time and {:.2} x CSV's",
        csv_bytes as f64 / events as f64,
        o.secs / parquet_secs,
        o.secs / c.secs
    );
    std::fs::remove_file(&csv).unwrap();
    assert!(
        o.secs <= 2.0 * parquet_secs,
        "OTF2 took {:.1} s, more than twice Parquet's {parquet_secs:.1} s",
        o.secs
    );
}

/// The bytes of the files under `dir`.
#[cfg(feature = "otf2")]
fn walk_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk_bytes(&p)
            } else {
                std::fs::metadata(&p).unwrap().len()
            }
        })
        .sum()
}

/// What [`measured`] saw of one run.
struct Measured {
    /// Wall time, seconds.
    secs: f64,
    /// Peak resident memory, bytes.
    rss: u64,
    stdout: String,
}

/// Bytes this process and its waited-for children have read with read(2) and the like
/// (`rchar` of /proc/self/io, which includes reaped children: a child's reads count here
/// once it has been waited for). Page-cache hits count too, so this is what the program
/// asked for, not what the disk delivered.
fn bytes_read() -> u64 {
    let io = std::fs::read_to_string("/proc/self/io").expect("/proc/self/io (Linux)");
    io.lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|v| v.trim().parse().ok())
        .expect("rchar in /proc/self/io")
}

/// Runs `delaybench <args> FILE` under `/usr/bin/time -v`, prints its throughput, peak RSS
/// and the bytes it read, and checks that it read the file once: a command reads each block
/// once, whatever the number of tables or figures it makes of them (the file has no
/// drift-tracking probes, so no first pass for the post-hoc correction either).
fn measured(what: &str, args: &[&str], file: &Path, events: u64, size: u64) -> Measured {
    let before = bytes_read();
    let t = Instant::now();
    let out = std::process::Command::new("/usr/bin/time")
        .arg("-v")
        .arg(common::exe())
        .args(args)
        .arg(file)
        .output()
        .unwrap();
    let secs = t.elapsed().as_secs_f64();
    // This process read the child's output through pipes; the rest is the child's.
    let read = bytes_read() - before - (out.stdout.len() + out.stderr.len()) as u64;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what}: {stderr}");
    let rss_kb = max_rss_kb(&stderr).expect("/usr/bin/time -v reports the peak RSS");
    eprintln!(
        "{what}: {secs:.1} s, {:.2e} events/s, peak RSS {:.0} MiB for a {:.0} MB file, read {:.2} x the file",
        events as f64 / secs,
        rss_kb as f64 / 1024.0,
        size as f64 / 1e6,
        read as f64 / size as f64
    );
    // Once, and a little more for the program's own start (its libraries, /proc).
    assert!(
        read >= size && read < size + size / 10,
        "{what}: read {read} bytes of a {size}-byte file"
    );
    Measured {
        secs,
        rss: rss_kb * 1024,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
    }
}

fn within(what: &str, rss: u64, bound: u64) {
    assert!(
        rss < bound,
        "{what}: peak RSS {rss} B above the bound {bound} B"
    );
}
