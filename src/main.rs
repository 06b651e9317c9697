//! The `delaybench` binary: measurement under MPI, or an offline subcommand.

use anyhow::{Context, Result};
use clap::{CommandFactory, FromArgMatches, Parser};
use delaybench::analysis::{
    analyze_digests, compare, timing_row, trend_row, truth_rows, Analysis, DistributionRows,
    LaunchDigest, OverlapRows,
};
use delaybench::cli::{Cli, Command};
use delaybench::export::{
    read_clocksync_csv, run_id_of, summary_exporter, write_compare, write_distribution,
    write_overlap, write_rows_streamed, write_timing, write_trend, write_truth, ExportError,
    ExportRows, SummaryFormat,
};
use delaybench::plot::{
    plottable_rows, write_clock_error_figure, write_compare_figures, write_figures, PlotOptions,
    PlotRun, Side,
};
use delaybench::records::{Block, Header};
use delaybench::study::Study;
use delaybench::timeline::{ClockCorrection, GlobalTimes, Timeline, TimelineEnd, VerdictChanges};
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    let (cli, study) = match parse(&argv) {
        Ok(parsed) => parsed,
        Err(Refused::Clap(e)) => {
            // Every rank parses the same arguments: let one of them speak.
            if launched_as_rank_zero() {
                let _ = e.print();
            }
            return ExitCode::from(e.exit_code() as u8);
        }
        Err(Refused::Study(e)) => {
            if launched_as_rank_zero() {
                eprintln!("delaybench: error: {e}");
            }
            return ExitCode::from(2);
        }
    };
    match cli.command {
        #[cfg(feature = "mpi")]
        None => delaybench::run::main(cli.measure, study.map(|s| s.text)),
        // Offline: the simulator needs no MPI, so dispatch before MPI is initialised.
        Some(Command::Clocksync(args)) if args.simulate => {
            match delaybench::simulate::run(&args, &mut std::io::stdout().lock()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("delaybench: error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        #[cfg(feature = "mpi")]
        Some(Command::Clocksync(args)) => delaybench::run::clocksync_main(args),
        #[cfg(feature = "mpi")]
        Some(Command::Skew(args)) => delaybench::run::skew_main(args),
        #[cfg(feature = "mpi")]
        Some(Command::Schemes(args)) => delaybench::run::schemes_main(args),
        #[cfg(not(feature = "mpi"))]
        None | Some(Command::Clocksync(_) | Command::Skew(_) | Command::Schemes(_)) => {
            // A study file only fills in measurement options: checked, then unused here.
            drop(study);
            without_mpi(cli.command.as_ref())
        }
        Some(command) => match offline(command) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("delaybench: error: {e:#}");
                ExitCode::FAILURE
            }
        },
    }
}

/// A command that needs MPI ranks, in a binary built without MPI: the command line parsed as
/// in the full build, but nothing can be measured, so say what to do instead.
#[cfg(not(feature = "mpi"))]
fn without_mpi(command: Option<&Command>) -> ExitCode {
    let what = match command {
        Some(Command::Clocksync(_)) => "`clocksync` without --simulate needs",
        Some(Command::Skew(_)) => "`skew` needs",
        Some(Command::Schemes(_)) => "`schemes` needs",
        _ => "measuring needs",
    };
    if launched_as_rank_zero() {
        eprintln!(
            "delaybench: error: {what} MPI, and this delaybench was built without MPI (cargo \
             build --no-default-features): rebuild with the default features on a machine with \
             MPI to measure (scripts/setup.sh, then cargo build --release). This build runs the \
             offline commands: analyze, compare, export, plot, completions, clocksync --simulate."
        );
    }
    ExitCode::FAILURE
}

enum Refused {
    Clap(clap::Error),
    Study(delaybench::study::StudyError),
}

/// Parses the command line; with `--config`, the study file's keys fill in what the command
/// line leaves out.
fn parse(argv: &[String]) -> Result<(Cli, Option<Study>), Refused> {
    let cmd = Cli::command();
    let matches = cmd
        .clone()
        .try_get_matches_from(argv)
        .map_err(Refused::Clap)?;
    let cli = Cli::from_arg_matches(&matches).map_err(Refused::Clap)?;
    let Some(path) = cli.measure.config.clone().filter(|_| cli.command.is_none()) else {
        return Ok((cli, None));
    };
    let study = Study::load(&path, &cmd).map_err(Refused::Study)?;
    let merged = study.merge_into(argv, &cmd, &matches);
    let cli = Cli::try_parse_from(&merged).map_err(Refused::Clap)?;
    Ok((cli, Some(study)))
}

/// Whether this process is rank 0 (or not under a launcher), read from the launcher's
/// environment because MPI is not initialised yet when arguments are parsed.
fn launched_as_rank_zero() -> bool {
    [
        "OMPI_COMM_WORLD_RANK",
        "PMIX_RANK",
        "PMI_RANK",
        "SLURM_PROCID",
    ]
    .iter()
    .find_map(|v| std::env::var(v).ok())
    .is_none_or(|r| r.trim() == "0")
}

fn offline(command: Command) -> Result<()> {
    match command {
        Command::Analyze {
            files,
            format,
            bootstrap,
            distribution,
            trend,
            overlap,
            timing,
            truth,
            times,
        } => {
            let out = &mut std::io::stdout().lock();
            let times = times.global_times;
            if distribution || trend || overlap || truth || !timing.is_empty() {
                let [file] = &files[..] else {
                    anyhow::bail!(
                        "--distribution, --trend, --overlap, --timing and --truth take one records file"
                    );
                };
                // Each table is a per-block reduction of one pass over the timeline.
                if truth {
                    let mut rows = Vec::new();
                    let header = each_block(file, times, |h, b| {
                        if let Some(spec) = &h.plan.emulate_clock {
                            rows.extend(truth_rows(spec, &b));
                        }
                    })?;
                    header.plan.emulate_clock.as_ref().context(
                        "--truth needs a run with --emulate-clock: only then are the true clocks known",
                    )?;
                    write_truth(&rows, format, out)?;
                } else if distribution {
                    let mut rows = DistributionRows::default();
                    each_block(file, times, |_, b| rows.add(&b))?;
                    write_distribution(&rows.finish(), format, out)?;
                } else if trend {
                    let mut rows = Vec::new();
                    each_block(file, times, |_, b| rows.extend(trend_row(&b)))?;
                    write_trend(&rows, format, out)?;
                } else if overlap {
                    let mut rows = OverlapRows::default();
                    each_block(file, times, |_, b| rows.add(&b))?;
                    write_overlap(&rows.finish(), format, out)?;
                } else {
                    let mut rows = Vec::new();
                    each_block(file, times, |_, b| rows.push(timing_row(&b, &timing)))?;
                    write_timing(&rows, format, out)?;
                }
            } else {
                let a = analysis(&files, bootstrap.bootstrap(), times)?;
                warn_outside(&a, format);
                summary_exporter(format).write(&a, out)?;
            }
        }
        Command::Compare {
            a,
            b,
            format,
            figures,
            bootstrap,
            times,
        } => {
            let boot = bootstrap.bootstrap();
            let times = times.global_times;
            let (sa, sb) = (
                analysis(std::slice::from_ref(&a), boot, times)?,
                analysis(std::slice::from_ref(&b), boot, times)?,
            );
            for (side, x) in [("A", &sa), ("B", &sb)] {
                for w in &x.warnings {
                    eprintln!("delaybench: warning: {side} ({}): {w}", x.files[0]);
                }
            }
            let (rows, unmatched) = compare(&sa.rows, &sb.rows);
            for (side, lone) in [("A", &unmatched.only_a), ("B", &unmatched.only_b)] {
                if !lone.is_empty() {
                    eprintln!(
                        "delaybench: note: {} configurations only in {side}, not compared: {}",
                        lone.len(),
                        lone.join("; ")
                    );
                }
            }
            if rows.is_empty() {
                anyhow::bail!(
                    "{} and {} share no configuration (op, size, P, delay model): compare runs \
                     of the same plan",
                    sa.files[0],
                    sb.files[0]
                );
            }
            write_compare(&rows, format, &mut std::io::stdout().lock())?;
            if let Some(dir) = figures {
                // The headers name each side's library, hosts and date under every figure.
                let side = |path: &Path| -> Result<Side> {
                    let t = Timeline::open(path, GlobalTimes::Online)
                        .with_context(|| format!("reading {}", path.display()))?;
                    Ok(Side::of(path, t.header()))
                };
                for p in write_compare_figures(&rows, &side(&a)?, &side(&b)?, &dir)? {
                    eprintln!("delaybench: figure {}", p.display());
                }
            }
        }
        Command::Export {
            file,
            format,
            rows,
            times,
        } => {
            export(&file, times.global_times, rows, format)?;
        }
        Command::Plot {
            files,
            out,
            stat,
            only,
            select,
            times,
        } => {
            let file = files[0].clone();
            let paths = if file.extension().is_some_and(|e| e == "csv") {
                if files.len() > 1 {
                    anyhow::bail!("plot draws one clocksync CSV at a time");
                }
                let rows = read_clocksync_csv(&file)
                    .with_context(|| format!("reading clocksync results {}", file.display()))?;
                let (_, skipped) = plottable_rows(&rows);
                if skipped > 0 {
                    eprintln!(
                        "delaybench: warning: {skipped} of {} rows of {} have an infinite or NaN \
                         wait or error (a failed synchronisation) and are not drawn",
                        rows.len(),
                        file.display()
                    );
                }
                write_clock_error_figure(&rows, &out)?
            } else {
                // Reduced block by block: medians, intervals and one repetition per block.
                let mut runs = Vec::with_capacity(files.len());
                for file in &files {
                    let run = PlotRun::read_selected(file, times.global_times, &select.selection())
                        .with_context(|| format!("reading {}", file.display()))?;
                    announce_end(
                        file,
                        &run.launch.correction,
                        &run.launch.verdicts,
                        (&run.launch).into(),
                    );
                    runs.push(run);
                }
                let opts = PlotOptions {
                    stat,
                    only,
                    selection: select.selection(),
                };
                let paths = write_figures(runs, &out, &opts)?;
                if paths.is_empty() {
                    eprintln!(
                        "delaybench: no figure to draw from {}: it has no complete block, or \
                         none of what --only, --op, --size, --procs and --delay ask for \
                         (δ > 0, two sizes, overlap mode)",
                        file.display()
                    );
                }
                paths
            };
            for p in paths {
                println!("{}", p.display());
            }
        }
        Command::Completions { shell } => {
            // Generated into memory first: clap_complete panics when stdout closes early
            // (`| head`), and a closed pipe is no error for a script printer.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "delaybench", &mut script);
            match std::io::Write::write_all(&mut std::io::stdout(), &script) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    return Err(e).context("cannot print the completion script");
                }
                _ => {}
            }
        }
        Command::Clocksync(_) | Command::Skew(_) | Command::Schemes(_) => {
            unreachable!("MPI commands are dispatched in main")
        }
    }
    Ok(())
}

/// Reads a records file once, block by block, on the chosen global times, giving each block
/// to `each` and holding one at a time; says on stderr which times were used and how the run
/// ended. Returns the header.
fn each_block(
    file: &Path,
    times: GlobalTimes,
    mut each: impl FnMut(&Header, Block),
) -> Result<Header> {
    let reading = || format!("reading {}", file.display());
    let mut timeline = Timeline::open(file, times).with_context(reading)?;
    let header = timeline.header().clone();
    for block in timeline.by_ref() {
        each(&header, block.with_context(reading)?);
    }
    let end = timeline.end();
    announce_end(file, &end.correction, &end.verdicts, (&end).into());
    Ok(header)
}

/// Exports a records file one block at a time: memory holds one block, not the file. A read
/// error keeps the message it had when the file was read whole.
fn export(
    file: &Path,
    times: GlobalTimes,
    rows: ExportRows,
    format: delaybench::export::RankFormat,
) -> Result<()> {
    let reading = || format!("reading {}", file.display());
    let mut timeline = Timeline::open(file, times).with_context(reading)?;
    let id = run_id_of(timeline.header());
    let out = &mut std::io::stdout().lock();
    match write_rows_streamed(&id, timeline.by_ref(), rows, format, out) {
        Err(ExportError::Records(e)) => return Err(anyhow::Error::new(e).context(reading())),
        other => other?,
    }
    let end = timeline.end();
    announce_end(file, &end.correction, &end.verdicts, (&end).into());
    Ok(())
}

/// Reads and analyses records files of one plan (several launches) on the chosen global
/// times, one block at a time: memory follows valid repetitions, not the file's size.
fn analysis(
    files: &[std::path::PathBuf],
    boot: delaybench::analysis::Bootstrap,
    times: GlobalTimes,
) -> Result<Analysis> {
    let mut launches = Vec::with_capacity(files.len());
    for file in files {
        let launch = LaunchDigest::read(file, times)
            .with_context(|| format!("reading {}", file.display()))?;
        // The verdict note is among the analysis's warnings; only the times are said here.
        eprintln!("delaybench: {}", launch.correction.describe());
        if !launch.complete {
            warn_interrupted(file, launch.blocks.len(), launch.partial_block);
        }
        launches.push(launch);
    }
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    Ok(analyze_digests(&names, &launches, boot)?)
}

/// Says on stderr which global times a reader used, how many verdicts they changed, and
/// whether the run was interrupted.
fn announce_end(
    file: &Path,
    correction: &ClockCorrection,
    verdicts: &VerdictChanges,
    ended: Ended,
) {
    eprintln!("delaybench: {}", correction.describe());
    if let Some(note) = verdicts.note() {
        eprintln!("delaybench: note: {note}");
    }
    if !ended.complete {
        warn_interrupted(file, ended.blocks, ended.partial_block);
    }
}

/// How a read ended, for [`announce_end`].
struct Ended {
    complete: bool,
    blocks: usize,
    partial_block: bool,
}

impl From<&TimelineEnd> for Ended {
    fn from(e: &TimelineEnd) -> Self {
        Ended {
            complete: e.complete,
            blocks: e.blocks,
            partial_block: e.partial_block,
        }
    }
}

impl From<&LaunchDigest> for Ended {
    fn from(l: &LaunchDigest) -> Self {
        Ended {
            complete: l.complete,
            blocks: l.blocks.len(),
            partial_block: l.partial_block,
        }
    }
}

/// Says on stderr that `file` is from an interrupted run and how much of it was recovered.
fn warn_interrupted(file: &Path, recovered: usize, partial_block: bool) {
    eprintln!(
        "delaybench: warning: {} is from an interrupted run: {recovered} complete blocks recovered{}",
        file.display(),
        if partial_block {
            ", the last one partial"
        } else {
            ""
        }
    );
}

/// CSV has no place for the runs' warnings: print them on stderr so they are not lost.
/// (The table, Markdown and JSON carry them.)
fn warn_outside(a: &Analysis, format: SummaryFormat) {
    if format == SummaryFormat::Csv {
        for w in &a.warnings {
            eprintln!("delaybench: warning: {w}");
        }
    }
}
