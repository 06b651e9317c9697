//! Noise files as tables: the report of `delaybench noise` (per rank, per host, total) and
//! `export` of a noise file (one row per detour).

use super::table_cells::TextTable;
use super::{write_serde_rows, write_table, ExportError, Format};
use crate::analysis::{NoiseReport, NoiseStats};
use crate::records::noise::NoiseRun;
use serde::Serialize;
use std::io::Write;

const HEADERS: [&str; 11] = [
    "scope",
    "ranks",
    "detours",
    "per s",
    "lost %",
    "longest (us)",
    "p50 (us)",
    "p90 (us)",
    "p99 (us)",
    "correlated %",
    "by chance %",
];

/// The report's rows: ranks, then hosts, then the total.
fn scopes(report: &NoiseReport) -> Vec<&NoiseStats> {
    report
        .per_rank
        .iter()
        .chain(&report.per_host)
        .chain([&report.total])
        .collect()
}

/// One scope's cells as the table shows them: microseconds and percent, `-` where a value
/// is undefined (no detour, one rank).
fn cells(r: &&NoiseStats) -> Vec<String> {
    let us = |s: f64| {
        if s.is_finite() {
            format!("{:.1}", s * 1e6)
        } else {
            "-".into()
        }
    };
    let pct = |f: f64| {
        if f.is_finite() {
            format!("{:.2}", f * 100.0)
        } else {
            "-".into()
        }
    };
    vec![
        r.scope.clone(),
        r.ranks.to_string(),
        r.detours.to_string(),
        format!("{:.1}", r.per_s),
        pct(r.lost_share),
        us(r.longest_s),
        us(r.p50_s),
        us(r.p90_s),
        us(r.p99_s),
        pct(r.correlated_share),
        pct(r.correlated_chance),
    ]
}

/// Writes the report rows (ranks, then hosts, then the total) in `format` (table:
/// microseconds and percent; CSV and JSON: seconds and fractions).
pub fn write_noise_report(
    report: &NoiseReport,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    write_table(&scopes(report), format, &HEADERS, cells, out)
}

/// The report as the table shows it, for the noise page: its headers and rows.
pub fn noise_table(report: &NoiseReport) -> TextTable {
    TextTable::of(&scopes(report), &HEADERS, cells)
}

/// One detour of a noise file, as `export` writes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DetourRow {
    pub rank: u32,
    pub host: String,
    /// CPU the rank ran on (empty when unknown).
    pub cpu: Option<u32>,
    /// Start on the global clock, seconds.
    pub start_global_s: f64,
    /// Length, seconds.
    pub duration_s: f64,
}

/// Writes every detour of `run`, rank by rank, in the data format `format` (CSV, TSV,
/// JSON, JSON Lines; seconds).
pub fn write_noise_detours(
    run: &NoiseRun,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let rows: Vec<DetourRow> = run
        .ranks
        .iter()
        .flat_map(|r| {
            r.detour_start_global_s
                .0
                .iter()
                .zip(&r.detour_duration_s.0)
                .map(|(&s, &d)| DetourRow {
                    rank: r.rank,
                    host: r.host.clone(),
                    cpu: r.cpu,
                    start_global_s: s,
                    duration_s: d,
                })
        })
        .collect();
    write_serde_rows(&rows, format, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::noise_report;
    use crate::records::noise::testdata;

    #[test]
    fn detours_export_one_row_each_and_the_report_has_every_scope() {
        let run = testdata::run(&[vec![(100.1, 1e-5), (100.2, 2e-5)], vec![(100.3, 3e-6)]]);
        let mut csv = Vec::new();
        write_noise_detours(&run, Format::Csv, &mut csv).unwrap();
        let text = String::from_utf8(csv).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        let mut jsonl = Vec::new();
        write_noise_detours(&run, Format::Jsonl, &mut jsonl).unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8(jsonl)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[2]["rank"], 1);
        assert!(
            text.starts_with("rank,host,cpu,start_global_s,duration_s"),
            "{text}"
        );
        assert!(
            text.contains("1,h,1,100.3,3e-6") || text.contains("1,h,1,100.3,0.000003"),
            "{text}"
        );
        let mut table = Vec::new();
        write_noise_report(&noise_report(&run.ranks), Format::Table, &mut table).unwrap();
        let t = String::from_utf8(table).unwrap();
        for scope in ["rank 0", "rank 1", "host h", "total"] {
            assert!(t.contains(scope), "{t}");
        }
    }
}
