//! The report page: `index.md` next to the figures. It opens with the answer (the headline
//! table of `analyze`), names the run (id, build revision, tags), links every file of the
//! folder, then gives the run's metadata, its warnings and every figure with its caption, so
//! a folder can be shared and read on its own. Plain UTF-8 without control characters.

use super::render::Drawable;
use super::{PlotError, RunData, Stat};
use crate::records::provenance::{library_line, printable};
use crate::units::format_duration;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Name of the summary table (Markdown, every column) in a run's folder.
pub const SUMMARY_MD: &str = "summary.md";
/// Name of the summary as CSV (the `analyze --format csv` columns) in a run's folder.
pub const SUMMARY_CSV: &str = "summary.csv";
/// Name of the run's metadata (what `delaybench info` prints) in a run's folder, so that
/// the folder shared alone still says what was measured, where and with which build.
pub const INFO_TXT: &str = "info.txt";

/// The Markdown of the report page for `figures` (PNG links) drawn from `data`.
/// `others` are the folder's files besides the figures, by name ([`SUMMARY_MD`],
/// [`SUMMARY_CSV`], [`INFO_TXT`]), linked with the figures.
pub fn index_markdown(
    data: &RunData,
    figures: &[Drawable],
    stat: Stat,
    others: &[String],
) -> String {
    let h = &data.run.launch.header;
    let p = &h.provenance;
    let mut md = String::from("# delaybench run\n\n");
    let dirty = match p.git_dirty {
        Some(true) => " (with local changes)",
        _ => "",
    };
    let tags = crate::records::provenance::tags_cell(&p.tags);
    let _ = writeln!(
        md,
        "Run `{}`, delaybench {} at git revision `{}`{dirty}; tags: {}.\n",
        printable(&p.run_id),
        printable(&h.tool_version),
        printable(&p.git_revision),
        if tags.is_empty() {
            "none".to_string()
        } else {
            printable(&tags)
        }
    );
    md.push_str("## The answer\n\n");
    let (differences, level) = form_differences(data);
    let answer = crate::export::headline_markdown(
        &data.stats,
        &differences,
        level,
        crate::analysis::DEFAULT_MARGIN,
    );
    md.push_str(&printable(&answer));
    let _ = write!(md, "\n{}\n\n", answer_note());
    md.push_str("## Files\n\n");
    for name in others {
        let what = match name.as_str() {
            SUMMARY_MD => "the analysis with every column (Markdown)",
            SUMMARY_CSV => "the analysis as CSV, one row per configuration",
            INFO_TXT => "the run's metadata (`delaybench info`)",
            _ => "",
        };
        let sep = if what.is_empty() { "" } else { ": " };
        let _ = writeln!(md, "- [{name}]({name}){sep}{what}");
    }
    for f in figures {
        let _ = writeln!(
            md,
            "- [{stem}.png]({stem}.png), [{stem}.svg]({stem}.svg): {}",
            printable(f.title()),
            stem = f.stem()
        );
    }
    md.push_str("\n## Run\n\n");
    md.push_str("| | |\n|---|---|\n");
    for (k, v) in run_rows(data, stat) {
        // No control character: a page to share and grep.
        let v = printable(&v);
        let v = if k == "command" { format!("`{v}`") } else { v };
        let _ = writeln!(md, "| {k} | {} |", v.replace('|', "\\|"));
    }
    md.push_str("\n## Warnings\n\n");
    if data.warnings.is_empty() {
        md.push_str("None.\n");
    }
    for w in &data.warnings {
        let _ = writeln!(md, "- {}", printable(w));
    }
    md.push_str("\n## Figures\n\n");
    for f in figures {
        // The run's identity line is in the table above; the caption says how to read.
        let caption = caption(f);
        let _ = write!(
            md,
            "### {title}\n\n![{title}]({stem}.png)\n\n{caption}. ([SVG]({stem}.svg))\n\n",
            title = f.title(),
            stem = f.stem(),
        );
    }
    md
}

/// The tests of the forms' differences (blocking against nonblocking) over the run's rows,
/// which the answer table's family lines report, and the intervals' level (0.95 for 95 %).
pub(super) fn form_differences(data: &RunData) -> (Vec<crate::analysis::FamilyDifference>, f64) {
    let boot = crate::analysis::Bootstrap::default();
    let launches = if data.launches.is_empty() {
        std::slice::from_ref(&data.run.launch)
    } else {
        &data.launches[..]
    };
    let differences = crate::analysis::family_differences(launches, &data.stats, &boot);
    (differences, boot.level)
}

/// What the answer table's columns and marks mean, in one paragraph under the table.
pub(super) fn answer_note() -> String {
    format!(
        "t0: median t_global without the delay; cost: t_delta - t0 from medians; delay \
         hidden: (t0 + delta - t_delta) / delta; [..]: 95 % bootstrap intervals; verdict: \
         at a margin of {:.0} % of delta (inside it: costs full delay); *: fewer than {} \
         valid repetitions. Every column: {SUMMARY_MD}, {SUMMARY_CSV} (`delaybench analyze \
         --wide`).",
        crate::analysis::DEFAULT_MARGIN * 100.0,
        crate::analysis::FEW_VALID
    )
}

/// A figure's caption: the first line of its subtitle (how to read it), its parts joined by
/// `; `. The run's identity line, under every subtitle, is in the page's metadata already.
pub(super) fn caption(f: &Drawable) -> String {
    let how = f.subtitle().lines().next().unwrap_or("");
    how.replace(super::layout::PART_SEP, "; ")
}

/// The run's metadata as (name, value) rows, for the report pages (`index.md`, `index.html`):
/// the header's rows ([`header_rows`]), then `stat`, the global times used, whether the run
/// is complete, and the job's rows.
pub(super) fn run_rows(data: &RunData, stat: Stat) -> Vec<(String, String)> {
    let h = &data.run.launch.header;
    let mut rows = header_rows(h);
    let more = [
        ("statistic", stat.describe().to_string()),
        // The description starts with its own name; the row's name says it already.
        (
            "global times",
            data.run
                .launch
                .correction
                .describe()
                .trim_start_matches("global times: ")
                .to_string(),
        ),
        (
            "complete",
            if data.run.launch.complete {
                "yes".to_string()
            } else {
                "no: interrupted, complete blocks recovered".to_string()
            },
        ),
    ];
    let job = h.job.iter().flat_map(|j| j.summary_rows(32));
    rows.extend(more.into_iter().chain(job).map(|(k, v)| (k.to_string(), v)));
    rows
}

/// What a records header says of its run as (name, value) rows: run id, command, start, version,
/// ranks and hosts, library, clock, its synchronisation and error bound, process
/// synchronisation, repetitions, seed and noise check. Both sides of the comparison page
/// show them too.
pub(super) fn header_rows(h: &crate::records::Header) -> Vec<(String, String)> {
    let mut hosts: Vec<&str> = h.hosts.iter().map(String::as_str).collect();
    hosts.dedup();
    let plan = &h.plan;
    let rows = [
        ("run id", h.provenance.run_id.clone()),
        ("command", h.command_line.join(" ")),
        ("started (UTC)", h.start_utc.clone()),
        ("delaybench", h.tool_version.clone()),
        (
            "ranks / hosts",
            format!("{} on {} ({})", h.world_size, hosts.len(), hosts.join(", ")),
        ),
        ("MPI library", library_line(&h.mpi_library)),
        (
            "clock",
            format!(
                "{}, timer delay {}, sync {} ({})",
                h.clock.source,
                format_duration(h.clock.timer_delay_s),
                h.clock_sync.method,
                h.clock_sync.params.join(", ")
            ),
        ),
        (
            "clock sync error",
            clock_error_bound(&h.clock_sync.min_rtt_s),
        ),
        (
            "process sync",
            format!("{:?}, window rule: {}", plan.sync, h.window_rule).to_lowercase(),
        ),
        (
            "repetitions",
            format!("{} per configuration, {} warm-up", plan.nrep, plan.warmup),
        ),
        ("seed", plan.seed.to_string()),
        (
            "noise check",
            h.noise_check
                .as_ref()
                .map_or_else(|| "not run".to_string(), |c| c.line()),
        ),
    ];
    rows.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The bound on the clocks' error after their synchronisation: half the largest of the
/// ranks' smallest round-trip times to rank 0 (an offset measured over a round trip is off by
/// at most half of it: Cristian 1989).
fn clock_error_bound(min_rtt_s: &[f64]) -> String {
    let worst = min_rtt_s
        .iter()
        .copied()
        .filter(|r| r.is_finite())
        .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))));
    match worst {
        Some(rtt) if min_rtt_s.len() > 1 => format!(
            "at most {} (half the largest round trip to rank 0)",
            super::naming::pretty_duration(rtt / 2.0)
        ),
        _ => "none: one rank".to_string(),
    }
}

/// The summary files in `dir` by name, which the report pages link: they are written before
/// the figures (end of run); a folder of `plot` may have none of them.
pub(super) fn others_in(dir: &Path) -> Vec<String> {
    [SUMMARY_MD, SUMMARY_CSV, INFO_TXT]
        .iter()
        .filter(|n| dir.join(n).is_file())
        .map(|n| n.to_string())
        .collect()
}

/// Writes [`index_markdown`] to `dir/index.md` and returns its path.
///
/// Errors: [`PlotError::Write`] naming the file.
pub fn write_index(
    data: &RunData,
    figures: &[Drawable],
    stat: Stat,
    dir: &Path,
) -> Result<PathBuf, PlotError> {
    let others = others_in(dir);
    write_page(
        dir.join("index.md"),
        &index_markdown(data, figures, stat, &others),
    )
}

/// Writes a report page's `text` to `path` and returns the path.
///
/// Errors: [`PlotError::Write`] naming `path`.
pub(super) fn write_page(path: PathBuf, text: &str) -> Result<PathBuf, PlotError> {
    std::fs::write(&path, text).map_err(|e| PlotError::Write {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    #[test]
    fn page_lists_metadata_warnings_and_every_figure() {
        let r = testdata::records(
            2,
            vec![
                testdata::block(Op::Allreduce, 8, 2, 0.0, 5, 10e-6),
                testdata::block(Op::Allreduce, 8, 2, 50e-6, 5, 10e-6),
            ],
        );
        let data = RunData::new(&r);
        let figs: Vec<Drawable> = super::super::FigureKind::ALL
            .iter()
            .flat_map(|&k| super::super::build(k, &data, Stat::Median))
            .collect();
        let md = index_markdown(&data, &figs, Stat::Median, &["summary.csv".to_string()]);
        assert!(md.contains("| ranks / hosts | 2 on 1 (node0) |"), "{md}");
        assert!(md.contains("- interrupted run"), "{md}");
        for f in &figs {
            assert!(md.contains(&format!("]({}.png)", f.stem())), "{md}");
        }
        assert!(
            md.contains("![Delay overlap benefit vs P, δ = 50 µs"),
            "{md}"
        );
        assert!(md.contains("(t_global_over_run.png)"));
        // The answer first: the headline table right under the run's identity line.
        let answer = md.find("## The answer").unwrap();
        assert!(answer < md.find("## Files").unwrap() && answer < md.find("## Run\n").unwrap());
        assert!(md.contains("| op | size | P | delay | t0 (us) |"), "{md}");
        assert!(md.contains("| allreduce | 8B | 2 | 50us |"), "{md}");
        let h = &data.run.launch.header.provenance;
        assert!(md.contains(&format!("Run `{}`", h.run_id)), "{md}");
        assert!(
            md.contains(&format!("git revision `{}`", h.git_revision)),
            "{md}"
        );
        assert!(md.contains("tags: system=test"), "{md}");
        assert!(md.contains("- [summary.csv](summary.csv): "), "{md}");
        assert!(!md.contains("| global times | global times"), "{md}");
        assert!(
            !md.chars().any(|c| c.is_control() && c != '\n'),
            "a control character in the page"
        );
    }
}
