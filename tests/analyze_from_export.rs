//! A re-analysis from the per-rank CSV export, using only the definitions (Niethammer et al. 2016, eq. 4 and 5) and
//! an independent median, gives the summary that `delaybench analyze` exports as CSV.
//!
//! The records go through a file (RecordsWriter, read_records), then through both CSV
//! exporters and back through the `csv` crate into plain structs defined here.

use delaybench::analysis::{analyze, Bootstrap};
use delaybench::export::{write_rows_streamed, write_summary, ExportRows, Format};
use delaybench::plan::Op;
use delaybench::records::{
    read_records, testdata, Block, Footer, Records, RecordsWriter, FLAG_STARTED_LATE,
};
use serde::Deserialize;

/// One line of the per-rank CSV, as a user's script would read it.
#[derive(Debug, Deserialize)]
struct RankLine {
    op: String,
    bytes: u64,
    nprocs: u32,
    delay_s: f64,
    rep: u32,
    rank: u32,
    delayed: bool,
    applied_delay_s: f64,
    t_start_local_s: f64,
    t_end_local_s: f64,
    t_start_global_s: f64,
    t_end_global_s: f64,
    valid: bool,
}

/// One line of the summary CSV; empty cells are `None`.
#[derive(Debug, Deserialize)]
struct SummaryLine {
    op: String,
    bytes: u64,
    nprocs: u32,
    delay_s: f64,
    valid: u32,
    total: u32,
    t_global_min_s: Option<f64>,
    t_global_median_s: Option<f64>,
    t0_min_s: Option<f64>,
    t0_median_s: Option<f64>,
    benefit_min: Option<f64>,
    benefit_median: Option<f64>,
}

/// Moves global start and end times by a few tenths of a microsecond in an irregular pattern,
/// so the earliest start and the latest end are not always on the same rank and the fastest
/// repetition is not always the first.
fn jitter(mut b: Block, seed: usize) -> Block {
    for i in 0..b.t_end_global_s.0.len() {
        b.t_start_global_s.0[i] += ((i * 31 + seed) % 5) as f64 * 1e-8;
        b.t_end_global_s.0[i] += ((i * 7919 + seed) % 13) as f64 * 1e-7;
    }
    b
}

/// Several ops, P = 2 and 4, baselines and delays, odd and even numbers of valid repetitions,
/// delays partly hidden (b > 0) and costly (b < 0), a delayed block without a baseline, and
/// a block whose repetitions are all invalid. testdata flags repetition 1 of every block.
fn blocks() -> Vec<Block> {
    use testdata::block;
    let mut all_invalid = block(Op::Allreduce, 8, 2, 100e-6, 3, 10e-6);
    all_invalid.flags[0] = FLAG_STARTED_LATE;
    all_invalid.flags[5] = FLAG_STARTED_LATE;
    vec![
        block(Op::Allreduce, 8, 2, 0.0, 5, 10e-6),
        block(Op::Allreduce, 8, 2, 50e-6, 5, 10e-6),
        jitter(block(Op::Allreduce, 8, 4, 0.0, 6, 15e-6), 1),
        jitter(block(Op::Allreduce, 8, 4, 50e-6, 6, 15e-6), 2),
        all_invalid,
        jitter(block(Op::Iallreduce, 1024, 2, 0.0, 4, 20e-6), 3),
        jitter(block(Op::Iallreduce, 1024, 2, 20e-6, 4, 4e-6), 4),
        block(Op::Iallreduce, 1024, 4, 0.0, 7, 20e-6),
        jitter(block(Op::Iallreduce, 1024, 4, 50e-6, 7, 30e-6), 5),
        block(Op::Iallreduce, 8, 4, 50e-6, 3, 10e-6),
    ]
}

fn footer() -> Footer {
    Footer {
        end_offsets_s: vec![0.0, 1e-3, 2e-3, 3e-3],
        offset_change_s: vec![0.0; 4],
        max_abs_offset_change_s: 0.0,
        wall_time_s: 2.0,
        warnings: vec![],
    }
}

/// Writes the records to a file and reads them back, as `delaybench analyze FILE` would.
fn records_through_a_file() -> Records {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.cbor");
    let mut w = RecordsWriter::create(&path).unwrap();
    w.write_header(&testdata::header(4)).unwrap();
    for b in blocks() {
        w.write_block(&b).unwrap();
    }
    w.finish(&footer()).unwrap();
    let records = read_records(&path).unwrap();
    assert!(records.complete());
    assert_eq!(records.blocks, blocks());
    records
}

fn parse_csv<T: for<'de> Deserialize<'de>>(text: &str) -> Vec<T> {
    csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Median written out here rather than taken from the library: the middle value, or the
/// mean of the two middle values for an even count.
fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

fn minimum(values: &[f64]) -> Option<f64> {
    values.iter().copied().reduce(f64::min)
}

/// A configuration as recovered from the rank lines alone.
struct Config {
    op: String,
    bytes: u64,
    nprocs: u32,
    delay_s: f64,
    /// Per repetition in order of appearance: (rep, earliest global start, latest global
    /// end, valid, ranks seen).
    reps: Vec<(u32, f64, f64, bool, u32)>,
}

impl Config {
    fn same_config(&self, line: &RankLine) -> bool {
        self.op == line.op
            && self.bytes == line.bytes
            && self.nprocs == line.nprocs
            && self.delay_s.to_bits() == line.delay_s.to_bits()
    }

    /// t_global (Niethammer et al. 2016, eq. 4) of every valid repetition, seconds.
    fn valid_t_globals(&self) -> Vec<f64> {
        self.reps
            .iter()
            .filter(|r| r.3)
            .map(|&(_, first_start, last_end, _, _)| last_end - first_start)
            .collect()
    }
}

/// Groups rank lines by configuration, in order of first appearance, and by repetition.
fn configs(lines: &[RankLine]) -> Vec<Config> {
    let mut configs: Vec<Config> = Vec::new();
    for line in lines {
        let i = match configs.iter().position(|c| c.same_config(line)) {
            Some(i) => i,
            None => {
                configs.push(Config {
                    op: line.op.clone(),
                    bytes: line.bytes,
                    nprocs: line.nprocs,
                    delay_s: line.delay_s,
                    reps: Vec::new(),
                });
                configs.len() - 1
            }
        };
        let reps = &mut configs[i].reps;
        match reps.iter_mut().find(|r| r.0 == line.rep) {
            Some(r) => {
                r.1 = r.1.min(line.t_start_global_s);
                r.2 = r.2.max(line.t_end_global_s);
                assert_eq!(r.3, line.valid, "validity differs within rep {}", line.rep);
                r.4 += 1;
            }
            None => reps.push((
                line.rep,
                line.t_start_global_s,
                line.t_end_global_s,
                line.valid,
                1,
            )),
        }
    }
    configs
}

/// What the summary should say, recomputed from the rank lines.
struct Expected {
    op: String,
    bytes: u64,
    nprocs: u32,
    delay_s: f64,
    valid: u32,
    total: u32,
    t_min: Option<f64>,
    t_median: Option<f64>,
    t0_min: Option<f64>,
    t0_median: Option<f64>,
    b_min: Option<f64>,
    b_median: Option<f64>,
}

fn recompute(lines: &[RankLine]) -> Vec<Expected> {
    let configs = configs(lines);
    configs
        .iter()
        .map(|c| {
            for &(rep, _, _, _, ranks) in &c.reps {
                assert_eq!(
                    ranks, c.nprocs,
                    "{} P={} rep {rep}: ranks seen",
                    c.op, c.nprocs
                );
            }
            let ts = c.valid_t_globals();
            let t0s = configs
                .iter()
                .find(|b| {
                    b.delay_s == 0.0 && b.op == c.op && b.bytes == c.bytes && b.nprocs == c.nprocs
                })
                .map(Config::valid_t_globals)
                .unwrap_or_default();
            let (t_min, t_median) = (minimum(&ts), median(&ts));
            let (t0_min, t0_median) = (minimum(&t0s), median(&t0s));
            // Niethammer et al. 2016, eq. 5, for delayed configurations only.
            let benefit = |t0: Option<f64>, t: Option<f64>| match (t0, t) {
                (Some(t0), Some(t)) if c.delay_s > 0.0 => Some((t0 + c.delay_s - t) / t),
                _ => None,
            };
            Expected {
                op: c.op.clone(),
                bytes: c.bytes,
                nprocs: c.nprocs,
                delay_s: c.delay_s,
                valid: ts.len() as u32,
                total: c.reps.len() as u32,
                t_min,
                t_median,
                t0_min,
                t0_median,
                b_min: benefit(t0_min, t_min),
                b_median: benefit(t0_median, t_median),
            }
        })
        .collect()
}

/// Equal within a relative 1e-12 of `scale` or of the larger magnitude. Times use scale 0
/// (purely relative). Benefits use scale 1, their natural unit: a benefit that is 0 in exact
/// arithmetic comes out as ±1e-11 of rounding noise (differences of times near 10 s), and a
/// last-bit difference in a median ((a + b) / 2 here, maybe a + (b - a) / 2 in the library)
/// moves that noise by far more than 1e-12 of itself.
fn close(what: &str, got: Option<f64>, want: Option<f64>, scale: f64) {
    match (got, want) {
        (None, None) => {}
        (Some(g), Some(w)) => {
            let tolerance = 1e-12 * g.abs().max(w.abs()).max(scale);
            assert!(
                (g - w).abs() <= tolerance,
                "{what}: summary {g:e}, recomputed {w:e}"
            );
        }
        _ => panic!("{what}: summary {got:?}, recomputed {want:?}"),
    }
}

#[test]
fn summary_equals_a_recomputation_from_the_rank_export() {
    let records = records_through_a_file();

    let mut rank_csv = Vec::new();
    let blocks = records
        .blocks
        .iter()
        .map(Ok::<_, delaybench::records::RecordsError>);
    let run = delaybench::records::RunLabel::of(&records.header);
    write_rows_streamed(&run, blocks, ExportRows::Rank, Format::Csv, &mut rank_csv).unwrap();
    let rank_csv = String::from_utf8(rank_csv).unwrap();
    assert_eq!(
        rank_csv.lines().next().unwrap(),
        "schema_version,run_id,mpi_library,tags,op,bytes,nprocs,algorithm,delay_model,delay_s,rep,\
         rank,host,delayed,applied_delay_s,scheduled_start_s,t_start_local_s,\
         t_end_local_s,t_start_global_s,t_end_global_s,valid,invalid_reason,rank_flags"
    );
    let lines: Vec<RankLine> = parse_csv(&rank_csv);

    // The rows are the arrays of the records, bit for bit, blocks then reps then ranks.
    let mut k = 0;
    for b in &records.blocks {
        for rep in 0..b.nrep as usize {
            for rank in 0..b.nprocs as usize {
                let (l, i) = (&lines[k], b.idx(rep, rank));
                assert_eq!(
                    (l.op.as_str(), l.bytes, l.nprocs),
                    (b.op.name(), b.bytes, b.nprocs)
                );
                assert_eq!((l.rep as usize, l.rank as usize), (rep, rank));
                assert_eq!(l.delay_s.to_bits(), b.delay_s.to_bits());
                assert_eq!(
                    l.delayed,
                    b.delayed_ranks.contains(&(rank as u32)) || b.applied_delay_s.0[i] > 0.0
                );
                assert_eq!(l.valid, b.rep_valid(rep));
                for (got, want) in [
                    (l.applied_delay_s, b.applied_delay_s.0[i]),
                    (l.t_start_local_s, b.t_start_local_s.0[i]),
                    (l.t_end_local_s, b.t_end_local_s.0[i]),
                    (l.t_start_global_s, b.t_start_global_s.0[i]),
                    (l.t_end_global_s, b.t_end_global_s.0[i]),
                ] {
                    assert_eq!(got.to_bits(), want.to_bits(), "line {}", k + 2);
                }
                k += 1;
            }
        }
    }
    assert_eq!(k, lines.len());

    let mut summary_csv = Vec::new();
    let a = analyze(
        &["test.cbor".to_string()],
        std::slice::from_ref(&records),
        Bootstrap::default(),
    )
    .unwrap();
    write_summary(&a, Format::Csv, &mut summary_csv).unwrap();
    let summary: Vec<SummaryLine> = parse_csv(&String::from_utf8(summary_csv).unwrap());
    let expected = recompute(&lines);

    assert_eq!(summary.len(), records.blocks.len());
    assert_eq!(summary.len(), expected.len());
    for (s, e) in summary.iter().zip(&expected) {
        let name = format!(
            "{} {} B P={} delay {:e} s",
            e.op, e.bytes, e.nprocs, e.delay_s
        );
        assert_eq!(
            (s.op.as_str(), s.bytes, s.nprocs, s.delay_s.to_bits()),
            (e.op.as_str(), e.bytes, e.nprocs, e.delay_s.to_bits()),
            "{name}"
        );
        assert_eq!(
            (s.valid, s.total),
            (e.valid, e.total),
            "{name}: valid/total"
        );
        close(
            &format!("{name} t_global_min_s"),
            s.t_global_min_s,
            e.t_min,
            0.0,
        );
        close(
            &format!("{name} t_global_median_s"),
            s.t_global_median_s,
            e.t_median,
            0.0,
        );
        close(&format!("{name} t0_min_s"), s.t0_min_s, e.t0_min, 0.0);
        close(
            &format!("{name} t0_median_s"),
            s.t0_median_s,
            e.t0_median,
            0.0,
        );
        close(&format!("{name} benefit_min"), s.benefit_min, e.b_min, 1.0);
        close(
            &format!("{name} benefit_median"),
            s.benefit_median,
            e.b_median,
            1.0,
        );
    }

    // The comparison covers every case the data was built for, not just easy ones.
    let benefits: Vec<f64> = summary.iter().filter_map(|s| s.benefit_median).collect();
    assert!(benefits.iter().any(|&b| b > 0.1), "a partly hidden delay");
    assert!(benefits.iter().any(|&b| b < -0.1), "a costly delay");
    assert!(summary
        .iter()
        .any(|s| s.valid == 0 && s.t_global_min_s.is_none()));
    assert!(summary.iter().any(|s| s.delay_s > 0.0
        && s.valid > 0
        && s.t0_min_s.is_none()
        && s.benefit_min.is_none()));
    assert!(summary.iter().any(|s| s.valid % 2 == 0 && s.valid > 0));
    assert!(summary.iter().any(|s| s.valid % 2 == 1));
    assert!(
        summary.iter().all(|s| s.valid < s.total),
        "rep 1 is invalid everywhere"
    );
}
