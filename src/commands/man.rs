//! `delaybench man`: the manual page, or one page per command and the section-7 pages into
//! a folder.
//!
//! clap_mangen renders each command's name, synopsis, description and options; this file
//! adds the sections clap does not know (EXIT STATUS, EXAMPLES, SEE ALSO) and the two
//! section-7 pages, written from short texts here. Every page a SEE ALSO names is one this
//! command writes: the `help` subcommand clap adds at build time is turned off before
//! rendering, as `clap_mangen::generate_to` does, or the one-page form would list a
//! `delaybench-help(1)` that no page is written for.

use super::{finish, Run};
use crate::cli::{Cli, ManArgs};
use anyhow::{Context, Result};
use clap::CommandFactory;
use clap_mangen::roff::{bold, roman, Roff};
use clap_mangen::Man;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

impl Run for ManArgs {
    fn run(self) -> ExitCode {
        finish(man(self))
    }
}

fn man(args: ManArgs) -> Result<()> {
    let out = &mut std::io::stdout().lock();
    match args.dir {
        // Rendered into memory first, so a closed pipe is one write error.
        None => out.write_all(&command_page(&root(), true)?)?,
        Some(dir) => {
            for path in write_pages(&dir)? {
                writeln!(out, "{}", path.display())?;
            }
        }
    }
    Ok(())
}

/// The command tree as the pages show it: built, without clap's `help` subcommand.
fn root() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// A section-7 page: its name (`delaybench-metrics`), its one-line summary and its
/// paragraphs, each a (heading, text) pair.
struct TopicPage {
    name: &'static str,
    summary: &'static str,
    sections: &'static [(&'static str, &'static str)],
}

/// The section-7 pages.
const TOPICS: [TopicPage; 2] = [
    TopicPage {
        name: "delaybench-metrics",
        summary: "what delaybench measures and the statistics it prints",
        sections: &[
            (
                "T_GLOBAL",
                "One repetition's operation time on the global clock: the latest end among \
                 the ranks minus the earliest start (Niethammer et al. 2016, eq. 4). Files \
                 hold seconds; tables show microseconds. Statistics use the valid \
                 repetitions only: those in which no rank started later than the late \
                 tolerance after its start instant and no operation overran its window.",
            ),
            (
                "COST AND BENEFIT",
                "t0 is t_global of the undelayed block of the same operation, size and P; \
                 t_delta that of the block with a late rank. The cost is t_delta - t0 from \
                 the medians, with a bootstrap interval. The delay overlap benefit is \
                 b = (t0 + delta - t_delta) / t_delta (Niethammer et al. 2016, eq. 5): the \
                 share of the delay the collective hid; it is given for a single fixed \
                 delay only. Its bound min(t0, delta) / max(t0, delta) holds when \
                 t_delta >= t0.",
            ),
            (
                "INTERVALS",
                "Confidence intervals are percentile bootstrap intervals (Efron and \
                 Tibshirani 1993), 2000 resamples at 95 % by default (--resamples, \
                 --confidence), given from 6 valid repetitions on; many rows tested at once \
                 are controlled by the Benjamini-Hochberg rule at a 5 % false discovery rate.",
            ),
            (
                "REFERENCE ALGORITHMS",
                "The ref:* kernels are allreduce algorithms on point-to-point messages: \
                 ref:ring, ref:binomial, ref:prereduced-ring, ref:sorted-linear-tree (which \
                 reduces in the order the ranks arrive) and ref:clairvoyant (the sorted \
                 linear tree told the planned arrival order in advance: a reference no \
                 library could run, measured like the others and not a bound; the lower \
                 bound is the analysis's bound_s, the last arrival plus one message).",
            ),
        ],
    },
    TopicPage {
        name: "delaybench-clock-sync",
        summary: "the global clock delaybench measures on",
        sections: &[
            (
                "WHY",
                "A late arrival is a difference of instants on different hosts, so every \
                 rank's clock is mapped onto rank 0's by a linear model (offset and drift). \
                 The window synchronisation starts each repetition at one global instant, \
                 and t_global is read on the same clock.",
            ),
            (
                "METHODS",
                "--clock-sync chooses the method: offset (one min-RTT offset per rank), \
                 skampi, netgauge, jk (Jones and Koenig), hca and hca3 (Hunold and \
                 Carpen-Amarie 2015), and treefit, the default: HCA3's top-down tree, each \
                 rank fitting its model against its parent's global clock, with each fit \
                 point the median of the lowest-RTT quarter of its exchanges (Hoefler et al. \
                 2010).",
            ),
            (
                "PARAMETERS",
                "The drift-aware methods fit --fitpoints points of --exchanges-per-fitpoint \
                 ping-pongs each, --fit-interval apart; --clock-sync-nonimproving ends a \
                 min-RTT offset measurement. During a run, --track-every probes the offsets \
                 again and refits the models, and the offline commands recompute global times \
                 between the probes (--global-times posthoc; Becker et al. 2008).",
            ),
            (
                "CHECKING IT",
                "delaybench clocksync measures each method's clock error after waits; \
                 --emulate-clock gives the ranks of one host known offsets and drifts, so the \
                 error is known exactly; clocksync --simulate runs the methods in an \
                 event-driven simulator at any P.",
            ),
        ],
    },
];

/// Worked command lines, for the EXAMPLES of delaybench(1).
const EXAMPLES: &[(&str, &str)] = &[
    (
        "A late rank in the default collectives, 4 ranks; figures and a summary at the end:",
        "mpirun -np 4 delaybench --delay-rank 0 --delay 50us",
    ),
    (
        "The plan and its duration, without measuring:",
        "delaybench --dry-run --world-size 64 --ops allreduce --sizes 8:1MiB",
    ),
    (
        "Statistics of a run, and its rows for a data frame:",
        "delaybench analyze results/run.cbor\n\
         delaybench export --format parquet --output run.parquet results/run.cbor",
    ),
    (
        "Which MPI algorithm hides the late rank best:",
        "mpirun -np 8 delaybench --ops allreduce --algorithms all\n\
         delaybench analyze --algorithms results/run.cbor",
    ),
    (
        "The arrivals of an application, captured with the PMPI library:",
        "mpirun -np 8 -x LD_PRELOAD=libdelaybench_capture.so -x DELAYBENCH_CAPTURE_DIR=capture ./app\n\
         delaybench arrivals capture/",
    ),
];

/// The page of `cmd` (the root when `root`): clap_mangen's sections, then EXIT STATUS, on
/// the root EXAMPLES, and SEE ALSO.
fn command_page(cmd: &clap::Command, is_root: bool) -> Result<Vec<u8>> {
    let man = Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut page)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut page)?;
    }
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    for line in exit_lines() {
        roff.control("TP", [])
            .text([bold(line.0)])
            .text([roman(line.1)]);
    }
    if is_root {
        roff.control("SH", ["EXAMPLES"]);
        for (what, lines) in EXAMPLES {
            roff.control("PP", []).text([roman(*what)]);
            roff.control("IP", []);
            for line in lines.lines() {
                roff.text([bold(line)]).control("br", []);
            }
        }
    }
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman(see_also(cmd, is_root).join(", "))]);
    roff.to_writer(&mut page)?;
    if cmd.get_version().is_some() {
        man.render_version_section(&mut page)?;
    }
    Ok(page)
}

/// The exit statuses of [`crate::exit::EXIT_STATUS_HELP`], as (status, meaning) pairs.
fn exit_lines() -> Vec<(String, String)> {
    let mut lines: Vec<(String, String)> = Vec::new();
    for line in crate::exit::EXIT_STATUS_HELP.lines().skip(1) {
        let line = line.trim();
        match line.split_once("  ") {
            Some((code, text)) if code.parse::<u8>().is_ok() => {
                lines.push((code.to_string(), text.trim().to_string()));
            }
            _ => {
                if let Some(last) = lines.last_mut() {
                    last.1.push(' ');
                    last.1.push_str(line);
                }
            }
        }
    }
    lines
}

/// The pages a page points to: from the root its commands and the section-7 pages, from a
/// command the root and the section-7 pages.
fn see_also(cmd: &clap::Command, is_root: bool) -> Vec<String> {
    let mut pages = Vec::new();
    if is_root {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            pages.push(format!("{}(1)", page_name(sub)));
        }
    } else {
        pages.push("delaybench(1)".to_string());
    }
    pages.extend(TOPICS.iter().map(|t| format!("{}(7)", t.name)));
    pages
}

/// The name a command's page has (`delaybench-analyze`), as clap_mangen names its file.
fn page_name(cmd: &clap::Command) -> String {
    cmd.get_display_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_string()
}

/// A section-7 page in roff.
fn topic_page(topic: &TopicPage) -> Vec<u8> {
    let mut roff = Roff::new();
    roff.control("TH", [topic.name, "7"]);
    roff.control("SH", ["NAME"]);
    roff.text([roman(format!("{} - {}", topic.name, topic.summary))]);
    for (heading, text) in topic.sections {
        roff.control("SH", [*heading]);
        roff.text([roman(*text)]);
    }
    roff.control("SH", ["SEE ALSO"]);
    let others = TOPICS
        .iter()
        .filter(|t| t.name != topic.name)
        .map(|t| format!("{}(7)", t.name));
    let pages: Vec<String> = ["delaybench(1)".to_string()]
        .into_iter()
        .chain(others)
        .collect();
    roff.text([roman(pages.join(", "))]);
    roff.render().into_bytes()
}

/// Writes every page into `dir` (created when missing): delaybench.1, one page per visible
/// command, and the section-7 pages; returns their paths, sorted.
fn write_pages(dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let write = |name: String, bytes: Vec<u8>| -> Result<PathBuf> {
        let path = dir.join(name);
        std::fs::write(&path, bytes)
            .with_context(|| format!("cannot write the page {}", path.display()))?;
        Ok(path)
    };
    let root = root();
    let mut paths = vec![write("delaybench.1".into(), command_page(&root, true)?)?];
    for sub in root.get_subcommands().filter(|s| !s.is_hide_set()) {
        paths.push(write(
            format!("{}.1", page_name(sub)),
            command_page(sub, false)?,
        )?);
    }
    for topic in &TOPICS {
        paths.push(write(format!("{}.7", topic.name), topic_page(topic))?);
    }
    paths.sort();
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_statuses_are_read_whole_from_the_help_text() {
        let lines = exit_lines();
        let codes: Vec<&str> = lines.iter().map(|l| l.0.as_str()).collect();
        assert_eq!(codes, ["0", "1", "2", "3", "4"]);
        // Continuation lines are joined to their status.
        assert!(lines[2].1.contains("Nothing was measured"), "{lines:?}");
    }

    #[test]
    fn see_also_names_no_help_page() {
        let pages = see_also(&root(), true);
        assert!(
            pages.iter().any(|p| p == "delaybench-analyze(1)"),
            "{pages:?}"
        );
        assert!(!pages.iter().any(|p| p.contains("help")), "{pages:?}");
    }
}
