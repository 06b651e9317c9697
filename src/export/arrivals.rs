//! The writers of `delaybench arrivals`: the per-site and per-rank tables of
//! [`ArrivalsReport`] and the causes of the waiting ([`CausesReport`]) as a plain table,
//! CSV (one flat row per site, per rank, per call and rank, or per cause) or JSON (the
//! whole report).

use super::table_cells::TextTable;
use super::{write_plain_table, write_serde_rows, ExportError, Format};
use crate::analysis::arrivals::{ArrivalsReport, SiteRow};
use crate::analysis::causes::{CauseBasis, CauseKind, CauseRow, CausesReport};
use serde::Serialize;
use std::io::Write;

/// Which rows the CSV holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ArrivalsRows {
    /// One row per call site, communicator and operation.
    Sites,
    /// One row per world rank.
    Ranks,
    /// One row per call and rank (`call_rows`): the data of a rank × call heatmap and of
    /// the spread over the run, with the cause of each wait.
    Calls,
    /// One row per (rank, region) that caused waiting (`cause_rows`), the largest first.
    Causes,
}

/// One rank's part of one collective instance, for `--rows calls`.
#[derive(Debug, Serialize)]
pub struct CallRow<'a> {
    /// Call site key.
    pub site: &'a str,
    /// Operation name.
    pub op: String,
    /// Communicator identity, hexadecimal.
    pub comm: String,
    /// Position of the call among its communicator's collectives, from 0.
    pub call: usize,
    /// World rank.
    pub rank: u32,
    /// Rank in the communicator.
    pub comm_rank: u32,
    /// Global entry time, seconds.
    pub enter_s: f64,
    /// Entry minus the call's earliest entry, seconds.
    pub lateness_s: f64,
    /// Waiting time by the operation's wait state, seconds.
    pub wait_s: f64,
    /// World rank of the cause of the largest share of this wait (empty: none named).
    pub cause_rank: Option<u32>,
    /// Its region (`from → to`; empty: none named).
    pub cause_region: Option<&'a str>,
    /// `direct`, `propagated`, `unexplained`, or `none` (no waiting).
    pub cause_kind: CauseKind,
    /// How the rank waited for inside a call on the cause's way was found: `algorithm` (the
    /// library's algorithm, `analysis::causes::SCHEDULES`) or `last_entrant` (the call's last
    /// entrant); empty when the cause came through wait states only.
    pub cause_basis: Option<CauseBasis>,
}

/// The rows of `--rows calls`: every rank of every matched instance, in call order, with
/// the cause of its waiting from `causes` (the report of the same `m`).
pub fn call_rows<'a>(m: &'a crate::capture::Matched, causes: &'a CausesReport) -> Vec<CallRow<'a>> {
    let mut rows = Vec::new();
    for (i, inst) in m.instances.iter().enumerate() {
        let late = inst.lateness();
        let waits = inst.waits();
        for (k, e) in inst.entries.iter().enumerate() {
            rows.push(CallRow {
                site: &inst.site,
                op: inst.op.name(),
                comm: format!("{:016x}", inst.comm),
                call: inst.index,
                rank: e.world_rank,
                comm_rank: e.comm_rank,
                enter_s: e.enter_s,
                lateness_s: late[k],
                wait_s: waits[k],
                cause_rank: causes.calls.get(i).and_then(|c| c[k].rank),
                cause_region: causes
                    .calls
                    .get(i)
                    .and_then(|c| c[k].region)
                    .map(|r| causes.regions[r].as_str()),
                cause_kind: causes.calls.get(i).map_or(CauseKind::None, |c| c[k].kind),
                cause_basis: causes.calls.get(i).and_then(|c| c[k].basis),
            });
        }
    }
    rows
}

/// A cause row for CSV and JSON rows: `via` as `rank:seconds` separated by spaces.
#[derive(Debug, Serialize)]
struct CauseCsv<'a> {
    rank: u32,
    region: usize,
    region_label: &'a str,
    delay_s: f64,
    direct_s: f64,
    propagated_s: f64,
    share: f64,
    calls: usize,
    via: String,
}

fn cause_rows(c: &CausesReport) -> Vec<CauseCsv<'_>> {
    c.causes
        .iter()
        .map(|r: &CauseRow| CauseCsv {
            rank: r.rank,
            region: r.region,
            region_label: &r.region_label,
            delay_s: r.delay_s,
            direct_s: r.direct_s,
            propagated_s: r.propagated_s,
            share: r.share,
            calls: r.calls,
            via: r
                .via
                .iter()
                .map(|(k, s)| format!("{k}:{s:e}"))
                .collect::<Vec<_>>()
                .join(" "),
        })
        .collect()
}

/// The whole report as `--format json` writes it: the arrivals report's fields, then the
/// causes.
#[derive(Serialize)]
struct FullJson<'a> {
    #[serde(flatten)]
    report: &'a ArrivalsReport,
    causes: &'a CausesReport,
}

/// A site row with its lists flattened for CSV: `last_ranks` as `rank:calls` separated by
/// spaces, `median_lateness_s` as values separated by spaces (by communicator rank).
#[derive(Debug, Serialize)]
struct SiteCsv<'a> {
    site: &'a str,
    site_label: &'a str,
    op: &'a str,
    comm: &'a str,
    comm_size: usize,
    bytes: u64,
    calls: usize,
    spread_median_s: f64,
    spread_p95_s: f64,
    spread_max_s: f64,
    avg_imbalance_s: f64,
    worst_imbalance_s: f64,
    avg_imbalance_factor: Option<f64>,
    worst_imbalance_factor: Option<f64>,
    last_ranks: String,
    wait_state: String,
    wait_total_s: f64,
    wait_share: f64,
    median_lateness_s: String,
    counts_min: Option<u64>,
    counts_median: Option<u64>,
    counts_max: Option<u64>,
    counts_bytes: String,
    count_vectors: usize,
}

/// Smallest, median (the lower of the middle two) and largest bytes per rank of a site's
/// counts ([`SiteRow::counts_bytes`]), None without counts.
fn counts_spread(s: &SiteRow) -> Option<(u64, u64, u64)> {
    let mut v = s.counts_bytes.clone()?;
    v.sort_unstable();
    Some((*v.first()?, v[(v.len() - 1) / 2], *v.last()?))
}

/// Most ranks whose counts the table and CSV list one by one; more are summarised as
/// min/median/max.
const COUNTS_LISTED: usize = 8;

/// A site's counts for the table: the bytes per rank separated by spaces when few, else
/// `min/median/max`; `-` without counts.
fn counts_cell(s: &SiteRow) -> String {
    match (&s.counts_bytes, counts_spread(s)) {
        (Some(v), _) if v.len() <= COUNTS_LISTED => {
            v.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
        }
        (_, Some((lo, mid, hi))) => format!("{lo}/{mid}/{hi}"),
        _ => "-".into(),
    }
}

fn last_ranks(s: &SiteRow) -> String {
    s.last_ranks
        .iter()
        .map(|(r, n)| format!("{r}:{n}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn wait_state(s: &SiteRow) -> String {
    s.wait_state
        .and_then(|w| serde_json::to_value(w).ok())
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "none".into())
}

fn us(s: f64) -> String {
    format!("{:.1}", s * 1e6)
}

/// Writes the report `r` of the matched calls `m` and the causes `c` of their waiting
/// (`--rows calls` writes `m`'s calls; the plain table lists the `top` largest causes).
///
/// # Errors
/// [`ExportError`] when writing fails.
pub fn write_arrivals(
    m: &crate::capture::Matched,
    r: &ArrivalsReport,
    c: &CausesReport,
    format: Format,
    rows: ArrivalsRows,
    top: usize,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let markup = format.exporter().is_markup();
    match (format, rows) {
        (Format::Json, ArrivalsRows::Sites | ArrivalsRows::Ranks) => {
            let full = FullJson {
                report: r,
                causes: c,
            };
            serde_json::to_writer_pretty(&mut *out, &full)?;
            writeln!(out)?;
            Ok(())
        }
        // Too many rows for a readable table: CSV.
        (_, ArrivalsRows::Calls) if markup => write_serde_rows(&call_rows(m, c), Format::Csv, out),
        (_, ArrivalsRows::Calls) => write_serde_rows(&call_rows(m, c), format, out),
        (_, ArrivalsRows::Causes) if markup => write_causes_table(c, usize::MAX, out),
        (_, ArrivalsRows::Causes) => write_serde_rows(&cause_rows(c), format, out),
        (_, ArrivalsRows::Sites | ArrivalsRows::Ranks) if markup => {
            write_tables(r, out)?;
            writeln!(out)?;
            write_causes_table(c, top, out)
        }
        (_, ArrivalsRows::Ranks) => write_serde_rows(&r.ranks, format, out),
        (_, ArrivalsRows::Sites) => {
            let rows: Vec<SiteCsv> = r
                .sites
                .iter()
                .map(|s| SiteCsv {
                    site: &s.site,
                    site_label: &s.site_label,
                    op: &s.op,
                    comm: &s.comm,
                    comm_size: s.comm_size,
                    bytes: s.bytes,
                    calls: s.calls,
                    spread_median_s: s.spread_median_s,
                    spread_p95_s: s.spread_p95_s,
                    spread_max_s: s.spread_max_s,
                    avg_imbalance_s: s.avg_imbalance_s,
                    worst_imbalance_s: s.worst_imbalance_s,
                    avg_imbalance_factor: s.avg_imbalance_factor,
                    worst_imbalance_factor: s.worst_imbalance_factor,
                    last_ranks: last_ranks(s),
                    wait_state: wait_state(s),
                    wait_total_s: s.wait_total_s,
                    wait_share: s.wait_share,
                    median_lateness_s: s
                        .median_lateness_s
                        .iter()
                        .map(|x| format!("{x:e}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                    counts_min: counts_spread(s).map(|c| c.0),
                    counts_median: counts_spread(s).map(|c| c.1),
                    counts_max: counts_spread(s).map(|c| c.2),
                    counts_bytes: s
                        .counts_bytes
                        .iter()
                        .flatten()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(" "),
                    count_vectors: s.count_vectors,
                })
                .collect();
            write_serde_rows(&rows, format, out)
        }
    }
}

fn write_tables(r: &ArrivalsReport, out: &mut dyn Write) -> Result<(), ExportError> {
    let factor = |f: Option<f64>| f.map_or("-".into(), |x| format!("{x:.1}"));
    let site_rows = r
        .sites
        .iter()
        .map(|s| {
            vec![
                s.site_label.clone(),
                s.op.clone(),
                s.comm_size.to_string(),
                s.bytes.to_string(),
                counts_cell(s),
                s.calls.to_string(),
                us(s.spread_median_s),
                us(s.spread_p95_s),
                us(s.spread_max_s),
                format!(
                    "{} / {}",
                    factor(s.avg_imbalance_factor),
                    factor(s.worst_imbalance_factor)
                ),
                last_ranks(s),
                wait_state(s),
                format!("{:.3}", s.wait_total_s * 1e3),
                format!("{:.2}", s.wait_share * 100.0),
            ]
        })
        .collect();
    write_plain_table(
        &[
            "site",
            "op",
            "P",
            "bytes",
            "counts B/rank",
            "calls",
            "spread med us",
            "p95 us",
            "max us",
            "imbalance avg / worst",
            "last rank:calls",
            "wait state",
            "wait ms",
            "wait %",
        ],
        site_rows,
        out,
    )?;
    writeln!(out)?;
    let rank_rows = r
        .ranks
        .iter()
        .map(|k| {
            vec![
                k.rank.to_string(),
                k.calls.to_string(),
                format!("{:.3}", k.wait_s * 1e3),
                format!("{:.2}", k.wait_share * 100.0),
                k.last.to_string(),
            ]
        })
        .collect();
    write_plain_table(
        &["rank", "calls", "wait ms", "wait %", "last"],
        rank_rows,
        out,
    )?;
    writeln!(
        out,
        "\nwall time {:.3} s on {} ranks; imbalance factors over one message of {}; wait % of wall time x ranks (sites) or of wall time (ranks)",
        r.wall_s,
        r.world_size,
        r.message_time_s
            .map_or("(unknown: no factors)".into(), |t| format!("{} us", us(t)))
    )?;
    if r.incomplete_calls > 0 {
        writeln!(
            out,
            "{} calls left out: a member's file is missing or ends early",
            r.incomplete_calls
        )?;
    }
    if !r.unfinished_ranks.is_empty() {
        writeln!(
            out,
            "ranks {:?}: the capture stopped before MPI_Finalize (a write failed or the rank was killed; the file is incomplete, without a footer): their times use the MPI_Init clock offset only",
            r.unfinished_ranks
        )?;
    }
    Ok(())
}

const CAUSES_HEADERS: [&str; 8] = [
    "cause rank",
    "region",
    "from → to",
    "delay ms",
    "direct ms",
    "propagated ms",
    "through rank:ms",
    "waiting %",
];

/// The causes table as data (the `top` largest causes; the terminal's rows, headers and the
/// lines under it: how many causes are left out, the waiting attributed, the headline, the
/// what-ifs), for the terminal and the capture's page alike.
pub fn causes_table(c: &CausesReport, top: usize) -> TextTable {
    let ms = |s: f64| format!("{:.3}", s * 1e3);
    let cells = |k: &&CauseRow| {
        vec![
            k.rank.to_string(),
            k.region.to_string(),
            k.region_label.clone(),
            ms(k.delay_s),
            ms(k.direct_s),
            ms(k.propagated_s),
            k.via
                .iter()
                .take(3)
                .map(|(r, s)| format!("{r}:{}", ms(*s)))
                .collect::<Vec<_>>()
                .join(" "),
            format!("{:.1}", k.share * 100.0),
        ]
    };
    let shown: Vec<_> = c.causes.iter().take(top).collect();
    let mut notes = Vec::new();
    if c.causes.len() > top {
        notes.push(format!(
            "{} more causes (--top N, or --rows causes for all)",
            c.causes.len() - top
        ));
    }
    let share = |s: f64| {
        if c.wait_total_s > 0.0 {
            s / c.wait_total_s * 100.0
        } else {
            0.0
        }
    };
    notes.push(format!(
        "waiting {} ms: {} ms attributed ({:.1} %), {} ms unexplained ({:.1} %; point-to-point messages are not captured)",
        ms(c.wait_total_s),
        ms(c.attributed_s),
        share(c.attributed_s),
        ms(c.unexplained_s),
        share(c.unexplained_s),
    ));
    notes.extend(c.headline());
    for w in &c.what_if {
        notes.push(format!(
            "what if rank {} in `{}` took the other ranks' median (−{} ms): waiting {} → {} ms, wall time {:.6} → {:.6} s (a model of the collectives only)",
            w.rank,
            w.region_label,
            ms(w.removed_s),
            ms(w.wait_before_s),
            ms(w.wait_after_s),
            w.wall_before_s,
            w.wall_after_s,
        ));
    }
    TextTable {
        notes,
        ..TextTable::of(&shown, &CAUSES_HEADERS, cells)
    }
}

/// The causes table (the `top` largest), the headline, the what-ifs and what the capture
/// cannot see.
fn write_causes_table(
    c: &CausesReport,
    top: usize,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let t = causes_table(c, top);
    write_plain_table(&CAUSES_HEADERS, t.rows, out)?;
    // The count of causes left out stays under the table; the rest follows a blank line.
    let more = usize::from(c.causes.len() > top);
    for line in &t.notes[..more] {
        writeln!(out, "{line}")?;
    }
    writeln!(out)?;
    for line in &t.notes[more..] {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::arrivals::RankRow;
    use crate::capture::WaitKind;

    fn report() -> ArrivalsReport {
        ArrivalsReport {
            sites: vec![SiteRow {
                site: "app+0x10".into(),
                site_label: "step+0x4 (app+0x10)".into(),
                op: "allreduce".into(),
                comm: "0000000000000063".into(),
                comm_size: 2,
                bytes: 8,
                calls: 3,
                spread_median_s: 1e-4,
                spread_p95_s: 2e-4,
                spread_max_s: 3e-4,
                avg_imbalance_s: 5e-5,
                worst_imbalance_s: 1e-4,
                avg_imbalance_factor: Some(50.0),
                worst_imbalance_factor: Some(100.0),
                last_ranks: vec![(1, 2), (0, 1)],
                wait_state: Some(WaitKind::WaitNxN),
                wait_total_s: 3e-4,
                wait_share: 0.25,
                median_lateness_s: vec![0.0, 1e-4],
                counts_bytes: None,
                count_vectors: 0,
            }],
            ranks: vec![RankRow {
                rank: 0,
                calls: 3,
                wait_s: 2e-4,
                wait_share: 0.1,
                last: 1,
            }],
            world_size: 2,
            wall_s: 6e-4,
            message_time_s: Some(1e-6),
            incomplete_calls: 0,
            unfinished_ranks: vec![],
        }
    }

    fn empty() -> crate::capture::Matched {
        crate::capture::Matched {
            instances: vec![],
            incomplete_calls: 0,
            world_size: 2,
            wall_s: 0.0,
            min_rtt_s: 0.0,
            unfinished_ranks: vec![],
            vectors: Default::default(),
        }
    }

    #[test]
    fn counts_show_per_rank_when_few_and_as_min_median_max_when_many() {
        let mut r = report();
        r.sites[0].op = "allgatherv".into();
        r.sites[0].counts_bytes = Some(vec![8, 24]);
        r.sites[0].count_vectors = 1;
        let write = |r: &ArrivalsReport, f| {
            let mut out = Vec::new();
            write_arrivals(
                &empty(),
                r,
                &CausesReport::default(),
                f,
                ArrivalsRows::Sites,
                10,
                &mut out,
            )
            .unwrap();
            String::from_utf8(out).unwrap()
        };
        let table = write(&r, Format::Table);
        assert!(
            table.contains("counts B/rank") && table.contains("8 24"),
            "{table}"
        );
        let csv = write(&r, Format::Csv);
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
        let col = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
        assert_eq!(
            (col("counts_min"), col("counts_max"), col("counts_bytes")),
            ("8", "24", "8 24")
        );
        let json: serde_json::Value = serde_json::from_str(&write(&r, Format::Json)).unwrap();
        assert_eq!(json["sites"][0]["counts_bytes"][1], 24);
        r.sites[0].counts_bytes = Some((1..=10).map(|x| x * 100).collect());
        let table = write(&r, Format::Table);
        assert!(table.contains("100/500/1000"), "{table}");
        // Without counts: a dash, empty CSV cells.
        r.sites[0].counts_bytes = None;
        r.sites[0].count_vectors = 0;
        let csv = write(&r, Format::Csv);
        assert!(csv.lines().nth(1).unwrap().ends_with(",,,,0"), "{csv}");
    }

    #[test]
    fn csv_flattens_the_lists_and_json_keeps_them() {
        let mut out = Vec::new();
        write_arrivals(
            &empty(),
            &report(),
            &CausesReport::default(),
            Format::Csv,
            ArrivalsRows::Sites,
            10,
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut lines = text.lines();
        assert!(lines.next().unwrap().starts_with("site,site_label,op,"));
        let row = lines.next().unwrap();
        assert!(row.contains("1:2 0:1") && row.contains("wait_nxn") && row.contains("0e0 1e-4"));
        let mut out = Vec::new();
        write_arrivals(
            &empty(),
            &report(),
            &CausesReport::default(),
            Format::Json,
            ArrivalsRows::Sites,
            10,
            &mut out,
        )
        .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["sites"][0]["last_ranks"][0][0], 1);
        assert_eq!(v["ranks"][0]["rank"], 0);
        let mut out = Vec::new();
        write_arrivals(
            &empty(),
            &report(),
            &CausesReport::default(),
            Format::Table,
            ArrivalsRows::Sites,
            10,
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("step+0x4 (app+0x10)") && text.contains("50.0 / 100.0"));
    }

    #[test]
    fn call_rows_give_every_rank_of_every_call() {
        use crate::capture::{Entry, Instance};
        let mut m = empty();
        let entry = |r: u32, t: f64| Entry {
            world_rank: r,
            comm_rank: r,
            enter_s: t,
            exit_s: 2.0,
            counts_hash: None,
        };
        m.instances.push(Instance {
            site: "app+0x10".into(),
            site_label: "app+0x10".into(),
            comm: 1,
            op: crate::capture::CaptureOp::Barrier,
            bytes: 0,
            root: -1,
            index: 0,
            entries: vec![entry(0, 1.0), entry(1, 1.25)],
        });
        let none = CausesReport::default();
        let rows = call_rows(&m, &none);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[1].rank, rows[1].lateness_s, rows[1].wait_s),
            (1, 0.25, 0.0)
        );
        assert_eq!((rows[0].lateness_s, rows[0].wait_s), (0.0, 0.25));
        let mut out = Vec::new();
        write_arrivals(
            &m,
            &report(),
            &CausesReport::default(),
            Format::Csv,
            ArrivalsRows::Calls,
            10,
            &mut out,
        )
        .unwrap();
        assert_eq!(String::from_utf8(out).unwrap().lines().count(), 3);
    }

    #[test]
    fn causes_give_a_table_with_the_headline_and_rows_in_csv() {
        use crate::analysis::causes::CauseRow;
        let c = CausesReport {
            wait_total_s: 2e-3,
            attributed_s: 1.5e-3,
            unexplained_s: 0.5e-3,
            regions: vec!["a → b".into()],
            causes: vec![CauseRow {
                rank: 3,
                region: 0,
                region_label: "a → b".into(),
                delay_s: 1e-3,
                direct_s: 1e-3,
                propagated_s: 0.5e-3,
                share: 0.75,
                calls: 2,
                via: vec![(0, 0.5e-3)],
            }],
            ..CausesReport::default()
        };
        let write = |f, rows, top| {
            let mut out = Vec::new();
            write_arrivals(&empty(), &report(), &c, f, rows, top, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let table = write(Format::Table, ArrivalsRows::Sites, 10);
        assert!(
            table.contains(
                "rank 3 in `a → b` caused 75 % of all waiting: 1ms direct, 500us through rank 0"
            ),
            "{table}"
        );
        assert!(table.contains("0.500 ms unexplained (25.0 %"), "{table}");
        assert!(write(Format::Table, ArrivalsRows::Sites, 0).contains("1 more causes"));
        let csv = write(Format::Csv, ArrivalsRows::Causes, 10);
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().unwrap(),
            "rank,region,region_label,delay_s,direct_s,propagated_s,share,calls,via"
        );
        assert!(lines.next().unwrap().ends_with(",2,0:5e-4"), "{csv}");
        let json: serde_json::Value =
            serde_json::from_str(&write(Format::Json, ArrivalsRows::Sites, 10)).unwrap();
        assert_eq!(json["causes"]["causes"][0]["rank"], 3);
        assert_eq!(json["sites"][0]["calls"], 3);
    }
}
