//! What rank 0 tells the user: progress while measuring, the summary and figures at the end.

use crate::analysis::{analyze, distribution_rows, Bootstrap};
use crate::export::{summary_exporter, write_distribution, SummaryFormat};
use crate::plan::Op;
use crate::plot::{write_run_figures, Stat};
use crate::records::read_records;
use crate::units::format_bytes;
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
                ProgressStyle::with_template("{bar:30} {pos}/{len} blocks {elapsed} {msg}")
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
    match write_run_figures(&records, figures, Stat::Median, None) {
        Ok(paths) => eprintln!(
            "delaybench: records in {}; {} figure files in {}",
            path.display(),
            paths.len(),
            figures.display()
        ),
        Err(e) => eprintln!("delaybench: warning: figures not written: {e}"),
    }
}
