//! The lower bound of t_global holds on real runs: at P = 2, 3 and 4, for allreduce, barrier
//! and alltoall, undelayed, with a fixed late rank (`--delay 50us --delay-rank 0`) and with a
//! sampled delay (`exp:20us`), no valid repetition's t_global is below its bound (the last
//! arrival plus the run's smallest one-way point-to-point time at the block's size) by more
//! than the clocks' stated error; `analyze` gives the bound columns, finite, with bound ≤ model
//! bound. Runs under the MPI library the build uses (`DELAYBENCH_MPI=mpich scripts/test.sh`
//! for MPICH). A records file of format version 2 has no bound, and says so.

mod common;

use common::{offline, run_records, text};
use delaybench::analysis::ArrivalTerms;
use delaybench::records::{read_records, testdata, Records, RecordsWriter};

const OPS: [&str; 3] = ["allreduce", "barrier", "alltoall"];

/// The clocks' stated error: the end-of-run check's largest offset change (the error the
/// clock models did not follow) plus that check's own uncertainty, half the largest of the
/// synchronisation's smallest RTTs (docs/metrics.md, "Clock error").
fn clock_error_s(r: &Records) -> f64 {
    let footer = r.footer.as_ref().expect("a complete run has a footer");
    let half_rtt = r
        .header
        .clock_sync
        .min_rtt_s
        .iter()
        .copied()
        .filter(|t| t.is_finite())
        .fold(0.0, f64::max)
        / 2.0;
    footer.max_abs_offset_change_s + half_rtt
}

#[test]
fn no_valid_repetition_beats_its_bound_at_p_2_3_4_under_every_delay_kind() {
    let dir = tempfile::tempdir().unwrap();
    let records = run_records(
        4,
        dir.path(),
        "run.cbor",
        &[
            "--ops",
            &OPS.join(","),
            "--sizes",
            "8",
            "--procs",
            "2,3,4",
            "--delay",
            "50us,exp:20us",
            "--delay-rank",
            "0",
            "--nrep",
            "20",
            // Generous, so that an oversubscribed P = 4 keeps valid repetitions: MPICH's
            // busy-polling ranks, 4 on 2 cores, lose whole scheduler slices (at 1 ms no barrier
            // at P = 4 stayed valid in CI).
            "--late-tolerance",
            "10ms",
            "--window",
            "20ms",
            "--no-figures",
            "--quiet",
        ],
    );
    let p2p = records
        .header
        .p2p
        .as_ref()
        .expect("a measurement records p2p");
    assert_eq!(p2p.peers, vec![1, 2, 3], "rank 0 with every other rank");
    let sizes: Vec<u64> = p2p.sizes.iter().map(|s| s.bytes).collect();
    assert_eq!(sizes, vec![0, 8], "the barrier's empty message and 8 B");
    for bytes in [0, 8] {
        let t = p2p.one_way_s(bytes).unwrap();
        assert!(t > 0.0 && t < 1e-3, "one-way at {bytes} B: {t} s");
    }
    let tolerance = clock_error_s(&records);
    let mut checked = std::collections::BTreeSet::new();
    for b in &records.blocks {
        let p = b.nprocs as usize;
        let one_way = p2p.one_way_s(b.bytes).unwrap();
        let valid: Vec<usize> = (0..b.nrep as usize).filter(|&i| b.rep_valid(i)).collect();
        let (bound, model) = ArrivalTerms::of(b).unwrap().bounds(one_way);
        assert_eq!(bound.len(), valid.len());
        for (k, &rep) in valid.iter().enumerate() {
            let starts = &b.t_start_global_s.0[rep * p..(rep + 1) * p];
            let ends = &b.t_end_global_s.0[rep * p..(rep + 1) * p];
            let first = starts.iter().copied().fold(f64::INFINITY, f64::min);
            let last = starts.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let end = ends.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            // Every result of these three needs every rank's input: the last arrival plus
            // one message, computed here apart from the library's own code.
            let mine = last - first + one_way;
            assert!(
                (bound[k] - mine).abs() < 1e-12,
                "{} P={p} {}: bound {} against {mine}",
                b.op,
                b.delay_model,
                bound[k]
            );
            assert!(bound[k] <= model[k], "bound above the model bound");
            let t_global = end - first;
            assert!(
                t_global >= mine - tolerance,
                "{} {} B P={p} delay {} repetition {rep}: t_global {:.3} us is below its \
                 bound {:.3} us by more than the clocks' error {:.3} us",
                b.op,
                b.bytes,
                b.delay_model,
                t_global * 1e6,
                mine * 1e6,
                tolerance * 1e6
            );
        }
        if !valid.is_empty() {
            checked.insert((b.op.name(), b.nprocs, b.delay_model.clone()));
        }
    }
    // Something was checked for each op and P (a loaded machine may lose single blocks).
    for op in OPS {
        for p in [2, 3, 4] {
            assert!(
                checked.iter().any(|(o, n, _)| *o == op && *n == p),
                "no valid repetition of {op} at P = {p}: {checked:?}"
            );
        }
    }
    // The analysis gives the columns, finite, ordered, and never below the bound.
    let path = dir.path().join("run.cbor");
    let out = offline(&["analyze", path.to_str().unwrap(), "--format", "csv"]);
    assert!(out.status.success(), "{}", text(&out));
    let csv = String::from_utf8(out.stdout).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let head = reader.headers().unwrap().clone();
    let col = |rec: &csv::StringRecord, name: &str| -> String {
        let k = head.iter().position(|h| h == name).unwrap_or_else(|| {
            panic!("column {name} missing from {head:?}");
        });
        rec[k].to_string()
    };
    let mut rows = 0;
    for rec in reader.records() {
        let rec = rec.unwrap();
        if col(&rec, "valid") == "0" {
            continue;
        }
        rows += 1;
        let num = |name: &str| -> f64 {
            let cell = col(&rec, name);
            let v: f64 = cell
                .parse()
                .unwrap_or_else(|_| panic!("{name} is `{cell}` in {rec:?}"));
            assert!(v.is_finite(), "{name} {v}");
            v
        };
        assert!(num("bound_s") > 0.0);
        assert!(num("bound_s") <= num("model_bound_s"), "{rec:?}");
        assert!(num("above_bound_ratio") > 0.0);
        num("above_bound_s");
        num("above_model_bound_s");
        num("above_model_bound_ratio");
        assert!(num("min_above_bound_s") >= -tolerance, "{rec:?}");
        assert!(num("beat_model_bound_reps") <= num("valid"));
    }
    assert!(rows >= 9, "{rows} rows with valid repetitions:\n{csv}");
    let info = offline(&["info", path.to_str().unwrap()]);
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(
        info.contains("p2p one-way     min RTT/2 of 30 exchanges"),
        "{info}"
    );
}

#[test]
fn a_version_2_file_has_no_bound_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v2.cbor");
    let mut header = testdata::header(2);
    header.format_version = 2;
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&header).unwrap();
    for delay in [0.0, 50e-6] {
        let b = testdata::block(delaybench::plan::Op::Allreduce, 8, 2, delay, 10, 10e-6);
        w.write_block(&b).unwrap();
    }
    w.finish(&testdata::footer(2)).unwrap();
    let r = read_records(&path).expect("version 2 stays readable");
    assert_eq!(r.header.p2p, None);
    let out = offline(&["analyze", path.to_str().unwrap(), "--format", "csv"]);
    assert!(out.status.success(), "{}", text(&out));
    let csv = String::from_utf8(out.stdout).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let head = reader.headers().unwrap().clone();
    let k = head.iter().position(|h| h == "bound_s").unwrap();
    for rec in reader.records() {
        assert_eq!(&rec.unwrap()[k], "", "no one-way time, an empty cell");
    }
    let info = offline(&["info", path.to_str().unwrap()]);
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(info.contains("not recorded (format version 2)"), "{info}");
}
