//! The report page: `index.md` next to the figures, listing every figure with its caption and
//! the run's metadata, so a directory of figures can be shared and read on its own.

use super::render::Drawable;
use super::{PlotError, RunData, Stat};
use crate::records::provenance::{library_line, printable};
use crate::units::format_duration;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The Markdown of the report page for `figures` (PNG links) drawn from `data`.
pub fn index_markdown(data: &RunData, figures: &[Drawable], stat: Stat) -> String {
    let h = &data.run.launch.header;
    let mut md = String::from("# delaybench figures\n\n## Run\n\n");
    let mut hosts: Vec<&str> = h.hosts.iter().map(String::as_str).collect();
    hosts.dedup();
    let plan = &h.plan;
    let rows = [
        ("command", format!("`{}`", h.command_line.join(" "))),
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
            "process sync",
            format!("{:?}, window rule: {}", plan.sync, h.window_rule).to_lowercase(),
        ),
        (
            "repetitions",
            format!("{} per configuration, {} warm-up", plan.nrep, plan.warmup),
        ),
        ("statistic", stat.describe().to_string()),
        ("global times", data.run.launch.correction.describe()),
        (
            "complete",
            if data.run.launch.complete {
                "yes".to_string()
            } else {
                "no: interrupted, complete blocks recovered".to_string()
            },
        ),
    ];
    md.push_str("| | |\n|---|---|\n");
    let job = h.job.iter().flat_map(|j| j.summary_rows(32));
    for (k, v) in rows.into_iter().chain(job) {
        // No control character: a page to share and grep.
        let v = printable(&v);
        let _ = writeln!(md, "| {k} | {} |", v.replace('|', "\\|"));
    }
    md.push_str("\n## Warnings\n\n");
    if data.warnings.is_empty() {
        md.push_str("None.\n");
    }
    for w in &data.warnings {
        let _ = writeln!(md, "- {w}");
    }
    md.push_str("\n## Figures\n\n");
    for f in figures {
        // The run's identity line is in the table above; the caption says how to read.
        let how = f.subtitle().lines().next().unwrap_or("");
        let caption = how.replace(super::layout::PART_SEP, "; ");
        let _ = write!(
            md,
            "### {title}\n\n![{title}]({stem}.png)\n\n{caption}. ([SVG]({stem}.svg))\n\n",
            title = f.title(),
            stem = f.stem(),
        );
    }
    md
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
    let path = dir.join("index.md");
    std::fs::write(&path, index_markdown(data, figures, stat)).map_err(|e| PlotError::Write {
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
        let md = index_markdown(&data, &figs, Stat::Median);
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
    }
}
