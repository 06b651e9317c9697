//! The end-of-run summary: what a measurement run prints and draws once its records file is
//! complete. It reads that file once through its [`Timeline`](crate::timeline::Timeline) on
//! the default global times, exactly as `delaybench analyze` and `delaybench plot` do, so the
//! table at the end of a run is the table `analyze` prints for the same file. Plain Rust, no
//! MPI: rank 0 calls it after the ranks are done.

use crate::analysis::{analyze_digests, Bootstrap};
use crate::export::{summary_exporter, write_distribution, SummaryFormat};
use crate::plot::{write_figures_of_run, PlotRun, Stat};
use crate::timeline::GlobalTimes;
use std::io::Write;
use std::path::Path;

/// Prints the `analyze` table of the records at `path` (and the distribution table when
/// delays were sampled) to `out`, writes the figures into `figures`, and says on stderr which
/// global times were used. Problems are reported on stderr but do not fail: the records are
/// already safe.
pub fn print_summary(path: &Path, figures: &Path, out: &mut dyn Write) {
    let run = match PlotRun::read(path, GlobalTimes::default()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "delaybench: warning: cannot read back {}: {e}",
                path.display()
            );
            return;
        }
    };
    eprintln!("delaybench: {}", run.launch.correction.describe());
    let file = path.display().to_string();
    match analyze_digests(
        &[file],
        std::slice::from_ref(&run.launch),
        Bootstrap::default(),
    ) {
        Ok(a) => {
            match summary_exporter(SummaryFormat::Table).write(&a, out) {
                // Output closed early (`| head`): the reader had what it wanted.
                Err(e) if crate::exit::is_broken_pipe(&e) => {}
                Err(e) => eprintln!("delaybench: warning: cannot print the summary: {e}"),
                Ok(()) => {}
            }
        }
        Err(e) => eprintln!("delaybench: warning: cannot analyse the records: {e}"),
    }
    // Sampled delays have no single benefit: show its distribution instead.
    let sampled = run
        .launch
        .blocks
        .iter()
        .any(|b| b.delay_s > 0.0 && !b.late_arrival);
    if sampled {
        let _ = writeln!(
            out,
            "\nper-repetition delay overlap benefit and noise amplification:"
        );
        if let Err(e) = write_distribution(&run.distribution, SummaryFormat::Table, out) {
            eprintln!("delaybench: warning: cannot print the distribution: {e}");
        }
    }
    match write_figures_of_run(run, figures, Stat::Median, None) {
        Ok(paths) => eprintln!(
            "delaybench: records in {}; {} figure files in {}",
            path.display(),
            paths.len(),
            figures.display()
        ),
        Err(e) => eprintln!("delaybench: warning: figures not written: {e}"),
    }
}
