//! The end-of-run summary: what a measurement run prints and draws once its records file is
//! complete. It reads that file once through its [`Timeline`](crate::timeline::Timeline) on
//! the default global times, exactly as `delaybench analyze` and `delaybench plot` do, so the
//! table at the end of a run is the table `analyze` prints for the same file. Everything it
//! writes goes into the run's own folder ([`EndOfRun::dir`], by default beside the records
//! file with its stem), which it never shares with another run. Plain Rust, no MPI: rank 0
//! calls it after the ranks are done.

use crate::analysis::{
    analyze_digests, Analysis, Bootstrap, ClockBound, EntrySummary, StartSpread,
};
use crate::clock::shared::SharedVerdict;
use crate::export::{write_distribution, write_summary, Format};
use crate::info::RunInfo;
use crate::output_name::{check_fresh_dir, outputs_dir};
use crate::plot::{write_figures_of_run, PlotRun, Stat};
use crate::timeline::GlobalTimes;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The names of the summary files in a run's folder; the report page (`plot/index.rs`),
/// which links them, holds them.
pub use crate::plot::{INFO_TXT, SUMMARY_CSV, SUMMARY_MD};

/// What the end of a run makes from its records file, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct EndOfRun {
    /// The folder for the figures, the report pages (`index.md`, `index.html`) and the summary
    /// files.
    pub dir: PathBuf,
    /// Draw the figures and the report page (`--no-figures` turns it off).
    pub figures: bool,
    /// Print the summary table and write [`SUMMARY_MD`], [`SUMMARY_CSV`] and [`INFO_TXT`]
    /// (`--no-summary` turns it off).
    pub summary: bool,
}

impl EndOfRun {
    /// The end of the run whose records go to `records`: into `figures` when given
    /// (`--figures DIR`), else into the records file's folder ([`outputs_dir`]).
    pub fn new(records: &Path, figures: Option<&Path>, no_figures: bool, no_summary: bool) -> Self {
        EndOfRun {
            dir: figures.map_or_else(|| outputs_dir(records), Path::to_path_buf),
            figures: !no_figures,
            summary: !no_summary,
        }
    }

    /// True when something is to be written into [`EndOfRun::dir`].
    pub fn writes_files(&self) -> bool {
        self.figures || self.summary
    }

    /// Checks, before anything is measured, that the folder can take the outputs without
    /// overwriting a file: missing or empty (see [`check_fresh_dir`]).
    ///
    /// Errors: the message of [`check_fresh_dir`].
    pub fn check(&self) -> Result<(), String> {
        if self.writes_files() {
            check_fresh_dir(&self.dir, crate::output_name::FIGURES_WAY_OUT)
        } else {
            Ok(())
        }
    }
}

/// Prints the `analyze` table of the records at `path` (and the distribution table when
/// delays were sampled) to `out` and writes it as [`SUMMARY_MD`] and [`SUMMARY_CSV`], draws
/// the figures and the report page, each as `end` asks, into `end.dir`, and says on stderr
/// which global times were used and where everything is. Problems are reported on stderr but
/// do not fail: the records are already safe.
pub fn print_summary(path: &Path, end: &EndOfRun, out: &mut dyn Write) {
    if !end.writes_files() {
        eprintln!("delaybench: records in {}", path.display());
        return;
    }
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
    let spreads = run
        .extras
        .iter()
        .flat_map(|e| e.start_spreads_s.iter().copied());
    let entry = EntrySummary::of(
        run.extras.iter().filter_map(|e| e.entry.as_ref()),
        run.launch.header.call_entry.as_ref(),
    );
    if let Some(spread) = StartSpread::of(spreads.collect()) {
        eprintln!(
            "delaybench: {}",
            spread.line(clock_bound(&run), entry.as_ref())
        );
    }
    let mut written = 0;
    if end.summary {
        if let Some(check) = &run.launch.header.noise_check {
            // At the width of the table under it.
            for line in crate::export::wrap(&check.line(), crate::export::output_width()) {
                let _ = writeln!(out, "{line}");
            }
        }
        let file = path.display().to_string();
        match analyze_digests(
            &[file],
            std::slice::from_ref(&run.launch),
            Bootstrap::default(),
        ) {
            Ok(a) => {
                match write_summary(&a, Format::Table, out) {
                    // Output closed early (`| head`): the reader had what it wanted.
                    Err(e) if crate::exit::is_broken_pipe(&e) => {}
                    Err(e) => eprintln!("delaybench: warning: cannot print the summary: {e}"),
                    Ok(()) => {}
                }
                print_distribution(&run, Format::Table, out);
                match write_summary_files(&a, &run, path, &end.dir) {
                    Ok(n) => written += n,
                    Err(e) => eprintln!("delaybench: warning: summary files not written: {e}"),
                }
            }
            Err(e) => eprintln!("delaybench: warning: cannot analyse the records: {e}"),
        }
    }
    if end.figures {
        match write_figures_of_run(run, &end.dir, Stat::Median, None) {
            Ok(paths) => written += paths.len(),
            Err(e) => eprintln!("delaybench: warning: figures not written: {e}"),
        }
    }
    eprintln!(
        "delaybench: records in {}; {written} files (figures, report pages, summary) in {}",
        path.display(),
        end.dir.display()
    );
    // Last, so it is what the eye finds: the one file to open.
    let page = end.dir.join(crate::plot::INDEX_HTML);
    if end.figures && page.is_file() {
        eprintln!("delaybench: report page: {}", page.display());
    }
}

/// What bounds the clocks' share of the recorded start spread's error: one clock when every
/// rank took its leader's model after a passed check and there is one leader, else the
/// probes' RTT/2 when the times are post-hoc.
fn clock_bound(run: &PlotRun) -> ClockBound {
    let checks = &run.launch.header.clock_sync.shared;
    let leaders = checks
        .iter()
        .filter(|c| c.verdict == SharedVerdict::Leader)
        .count();
    let all_shared = checks
        .iter()
        .all(|c| matches!(c.verdict, SharedVerdict::Leader | SharedVerdict::Shared));
    let half_rtt = run.launch.correction.median_half_rtt_s;
    if leaders == 1 && all_shared {
        ClockBound::OneClock
    } else if half_rtt.is_finite() {
        ClockBound::HalfRtt(half_rtt)
    } else {
        ClockBound::Unknown
    }
}

/// Sampled delays have no single benefit: their distribution follows the summary.
fn print_distribution(run: &PlotRun, format: Format, out: &mut dyn Write) {
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
        if let Err(e) = write_distribution(&run.distribution, format, out) {
            eprintln!("delaybench: warning: cannot print the distribution: {e}");
        }
    }
}

/// Writes [`SUMMARY_MD`] (the table as Markdown, the distribution after it when delays were
/// sampled), [`SUMMARY_CSV`] and [`INFO_TXT`] (of the records at `records`) into `dir`,
/// creating it; never over an existing file. Returns how many files were written.
fn write_summary_files(
    a: &Analysis,
    run: &PlotRun,
    records: &Path,
    dir: &Path,
) -> std::io::Result<usize> {
    std::fs::create_dir_all(dir)?;
    let create = |name: &str| {
        std::fs::File::create_new(dir.join(name))
            .map(std::io::BufWriter::new)
            .map_err(|e| {
                std::io::Error::new(e.kind(), format!("{}: {e}", dir.join(name).display()))
            })
    };
    let mut md = create(SUMMARY_MD)?;
    write_summary(a, Format::Markdown, &mut md).map_err(std::io::Error::other)?;
    print_distribution(run, Format::Markdown, &mut md);
    md.flush()?;
    let mut csv = create(SUMMARY_CSV)?;
    write_summary(a, Format::Csv, &mut csv).map_err(std::io::Error::other)?;
    csv.flush()?;
    let mut info = create(INFO_TXT)?;
    RunInfo::of_digest(records, &run.launch).write(Format::Table, &mut info)?;
    info.flush()?;
    Ok(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_folder_is_beside_the_records_and_flags_turn_parts_off() {
        let end = EndOfRun::new(Path::new("results/r-1.cbor"), None, false, false);
        assert_eq!(end.dir, PathBuf::from("results/r-1"));
        assert!(end.figures && end.summary && end.writes_files());
        let end = EndOfRun::new(Path::new("r.cbor"), Some(Path::new("figs")), true, false);
        assert_eq!(end.dir, PathBuf::from("figs"));
        assert!(!end.figures && end.summary);
        assert!(!EndOfRun::new(Path::new("r.cbor"), None, true, true).writes_files());
    }

    #[test]
    fn a_full_folder_is_refused_unless_nothing_is_written() {
        let tmp = tempfile::tempdir().unwrap();
        let records = tmp.path().join("run.cbor");
        std::fs::create_dir(tmp.path().join("run")).unwrap();
        std::fs::write(tmp.path().join("run").join("index.md"), "old").unwrap();
        let end = EndOfRun::new(&records, None, false, false);
        assert!(end.check().is_err());
        assert_eq!(EndOfRun::new(&records, None, true, true).check(), Ok(()));
    }

    #[test]
    fn summary_files_are_written_once_and_never_over_old_ones() {
        use crate::records::{testdata, RecordsWriter};
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("run.cbor");
        let mut w = RecordsWriter::create(&path).unwrap();
        w.write_header(&testdata::header(2)).unwrap();
        for delay in [0.0, 50e-6] {
            let b = testdata::block(crate::plan::Op::Allreduce, 8, 2, delay, 5, 10e-6);
            w.write_block(&b).unwrap();
        }
        w.finish(&testdata::footer(2)).unwrap();
        let end = EndOfRun::new(&path, None, true, false);
        let mut table = Vec::new();
        print_summary(&path, &end, &mut table);
        let table = String::from_utf8(table).unwrap();
        assert!(table.contains("allreduce"), "{table}");
        let md = std::fs::read_to_string(tmp.path().join("run").join(SUMMARY_MD)).unwrap();
        assert!(md.starts_with('|') && md.contains("allreduce"), "{md}");
        let csv = std::fs::read_to_string(tmp.path().join("run").join(SUMMARY_CSV)).unwrap();
        assert_eq!(csv.lines().count(), 3, "{csv}");
        let info = std::fs::read_to_string(tmp.path().join("run").join(INFO_TXT)).unwrap();
        assert!(info.contains("tags            system=test"), "{info}");
        assert!(info.contains("blocks          2"), "{info}");
        // Figures were turned off: only the summary files.
        assert_eq!(std::fs::read_dir(&end.dir).unwrap().count(), 3);
        // A second summary into the same folder leaves the first one as it was.
        std::fs::write(end.dir.join(SUMMARY_CSV), "first").unwrap();
        print_summary(&path, &end, &mut Vec::new());
        assert_eq!(
            std::fs::read_to_string(end.dir.join(SUMMARY_CSV)).unwrap(),
            "first"
        );
    }
}
