//! What rank 0 tells the user: progress while measuring, the summary and figures at the end.

use crate::analysis::{analyze, distribution_rows, summarize, Bootstrap};
use crate::export::{summary_exporter, write_distribution, SummaryFormat};
use crate::limits::Estimate;
use crate::plan::{Op, Plan};
use crate::plot::{write_figures, Stat};
use crate::records::read_records;
use crate::units::format_bytes;
use crate::units::format_duration;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::io::Write;
use std::path::Path;

/// Progress over the blocks of a run: a bar on a terminal, one line per configuration in logs.
pub struct Progress {
    bar: Option<ProgressBar>,
    plain: bool,
    done: u64,
    total: u64,
}

impl Progress {
    /// Progress for `total` blocks, shown only when `show` (rank 0).
    pub fn new(show: bool, total: u64) -> Self {
        let terminal = std::io::stderr().is_terminal();
        let bar = (show && terminal).then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} blocks, {elapsed} elapsed, ETA {eta} | {msg}",
                )
                .expect("valid template"),
            );
            bar
        });
        Progress {
            bar,
            plain: show && !terminal,
            done: 0,
            total,
        }
    }

    /// A new (op, bytes, P) is being measured.
    pub fn configuration(&mut self, op: Op, bytes: u64, p: u32) {
        let size = if op.has_payload() {
            format_bytes(bytes)
        } else {
            "-".into()
        };
        let what = format!("{op} {size} P={p}");
        if let Some(bar) = &self.bar {
            bar.set_message(what);
        } else if self.plain {
            eprintln!("[{:>4}/{} blocks] {what}", self.done, self.total);
        }
    }

    /// A block was measured and written.
    pub fn block_done(&mut self) {
        self.done += 1;
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    /// Clears the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Prints the analyze table of the records at `path` and writes the figures into `figures`.
/// Problems here are reported but do not fail the run: the records are already safe.
pub fn print_summary(path: &Path, figures: &Path) {
    let records = match read_records(path) {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "delaybench: warning: cannot read back {}: {e}",
                path.display()
            );
            return;
        }
    };
    let rows = summarize(&records);
    let mut out = std::io::stdout().lock();
    let file = path.display().to_string();
    match analyze(
        &[file],
        std::slice::from_ref(&records),
        Bootstrap::default(),
    ) {
        Ok(a) => {
            if let Err(e) = summary_exporter(SummaryFormat::Table).write(&a, &mut out) {
                eprintln!("delaybench: warning: cannot print the summary: {e}");
            }
        }
        Err(e) => eprintln!("delaybench: warning: cannot analyse the records: {e}"),
    }
    // Sampled delays have no single benefit: show its distribution instead.
    let sampled = records
        .blocks
        .iter()
        .any(|b| b.delay_s > 0.0 && !b.is_late_arrival());
    if sampled {
        let rows = distribution_rows(&records);
        let _ = writeln!(
            out,
            "\nper-repetition delay overlap benefit and noise amplification:"
        );
        if let Err(e) = write_distribution(&rows, SummaryFormat::Table, &mut out) {
            eprintln!("delaybench: warning: cannot print the distribution: {e}");
        }
    }
    match write_figures(&rows, figures, Stat::Median) {
        Ok(paths) => eprintln!(
            "delaybench: records in {}; {} figure files in {}",
            path.display(),
            paths.len(),
            figures.display()
        ),
        Err(e) => eprintln!("delaybench: warning: figures not written: {e}"),
    }
}

/// The plan as people read it, one item per line, with the block count and estimated
/// duration ([`Estimate`]): what `--dry-run` and `--verbose` print.
pub fn describe_plan(plan: &Plan, world_size: u32) -> String {
    let list = |items: Vec<String>| items.join(", ");
    let window = match plan.window_s {
        Some(w) => format_duration(w),
        None => "auto (sized from the warm-up)".into(),
    };
    let rows = [
        ("world size", world_size.to_string()),
        (
            "ops",
            list(plan.ops.iter().map(|o| o.to_string()).collect()),
        ),
        (
            "sizes",
            list(plan.sizes.iter().map(|&b| format_bytes(b)).collect()),
        ),
        (
            "P",
            list(plan.procs.iter().map(|p| p.to_string()).collect()),
        ),
        ("late ranks", plan.delay_ranks.to_string()),
        (
            "delays",
            list(plan.delays.iter().map(|d| d.label()).collect()),
        ),
        (
            "repetitions",
            format!("{} (+{} warm-up)", plan.nrep, plan.warmup),
        ),
        (
            "process sync",
            format!("{:?}, window {window}", plan.sync).to_lowercase(),
        ),
        ("clock sync", plan.clock_sync.name().to_string()),
        ("seed", plan.seed.to_string()),
        ("estimate", Estimate::of(plan).to_string()),
    ];
    rows.iter()
        .map(|(k, v)| format!("delaybench: plan: {k:<13} {v}\n"))
        .collect()
}
