//! The `delaybench` binary: measurement under MPI, or an offline subcommand.

use anyhow::{Context, Result};
use clap::{CommandFactory, FromArgMatches};
use delaybench::analysis::{
    analyze_digests, compare, timing_row, trend_row, truth_rows, Analysis, DistributionRows,
    LaunchDigest, OverlapRows,
};
use delaybench::cli::{Cli, Command};
use delaybench::exit::{is_broken_pipe, said_once};
use delaybench::export::{
    read_clocksync_csv, with_run_columns, write_compare, write_distribution, write_overlap,
    write_rows_streamed, write_serde_rows, write_summary, write_timing, write_trend, write_truth,
    ExportError, ExportRows, Format,
};
use delaybench::output_name::outputs_dir;
use delaybench::plan::config_file::Study;
use delaybench::plot::{
    plottable_rows, write_clock_error_figure, write_compare_figures, write_figures, PlotOptions,
    PlotRun, Side,
};
use delaybench::records::{Block, Header, RunLabel};
use delaybench::timeline::{ClockCorrection, GlobalTimes, Timeline, TimelineEnd, VerdictChanges};
use std::io::Write;
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
    if launched_as_rank_zero() {
        for w in cli.unit_warnings() {
            eprintln!("delaybench: warning: {w}");
        }
    }
    match cli.command {
        #[cfg(feature = "mpi")]
        None => delaybench::run::main(
            cli.measure.request(),
            cli.measure.run_options(),
            study.map(|s| s.text),
        ),
        // Offline: the simulator needs no MPI, so dispatch before MPI is initialised.
        Some(Command::Clocksync(args)) if args.simulate => {
            let done = delaybench::simulate::run(
                &args.scaling_plan(),
                args.format,
                &mut std::io::stdout().lock(),
            );
            finish(done.map_err(anyhow::Error::from))
        }
        // Offline too: SimGrid runs the ranks in its own processes.
        Some(Command::Simulate(args)) => {
            let done = delaybench::smpi::run(&args, &mut std::io::stdout().lock());
            finish(done.map_err(anyhow::Error::from))
        }
        #[cfg(feature = "mpi")]
        Some(Command::Clocksync(args)) => delaybench::run::clocksync_main(args.into()),
        #[cfg(feature = "mpi")]
        Some(Command::Skew(args)) => delaybench::run::skew_main(args.into()),
        #[cfg(feature = "mpi")]
        Some(Command::Schemes(args)) => delaybench::run::schemes_main(args.into()),
        #[cfg(feature = "mpi")]
        Some(Command::Noise(args)) => delaybench::run::noise_main(args.into()),
        #[cfg(feature = "mpi")]
        Some(Command::Algorithms(args)) => delaybench::run::algorithms_main(args.into()),
        #[cfg(feature = "mpi")]
        Some(Command::CheckKernels(args)) => delaybench::run::check_kernels_main(args.into()),
        #[cfg(not(feature = "mpi"))]
        None
        | Some(
            Command::Clocksync(_)
            | Command::Skew(_)
            | Command::Schemes(_)
            | Command::Noise(_)
            | Command::Algorithms(_)
            | Command::CheckKernels(_),
        ) => {
            // A study file only fills in measurement options: checked, then unused here.
            drop(study);
            without_mpi(cli.command.as_ref())
        }
        Some(command) => finish(offline(command)),
    }
}

/// Checks that `dir` may take the figures of `arrivals`: missing or empty; else a message
/// that names it and the way out.
fn fresh_figures_dir(dir: &Path) -> Result<(), String> {
    delaybench::output_name::check_fresh_dir(dir).map_err(|e| {
        if dir.is_dir() {
            format!(
                "{} already holds files (an earlier report's figures?) and figures are never \
                 overwritten: remove it, or name another folder with --figures DIR",
                dir.display()
            )
        } else {
            e
        }
    })
}

/// The exit of an offline command: 0 when it succeeded or its output was closed early
/// (`delaybench export run.cbor | head`), else 1 with the error and its causes, each said
/// once.
fn finish(done: Result<()>) -> ExitCode {
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(e.as_ref()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("delaybench: error: {}", said_once(e.as_ref()));
            ExitCode::FAILURE
        }
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
        Some(Command::Noise(_)) => "`noise` needs",
        Some(Command::Algorithms(_)) => "`algorithms` needs",
        Some(Command::CheckKernels(_)) => "`check-kernels` needs",
        _ => "measuring needs",
    };
    if launched_as_rank_zero() {
        eprintln!(
            "delaybench: error: {what} MPI, and this delaybench was built without MPI (cargo \
             build --no-default-features): rebuild with the default features on a machine with \
             MPI to measure (scripts/setup.sh, then cargo build --release). This build runs the \
             offline commands: analyze, compare, export, plot, info, completions, man, clocksync \
             --simulate."
        );
    }
    ExitCode::FAILURE
}

enum Refused {
    Clap(clap::Error),
    Study(delaybench::plan::config_file::StudyError),
}

/// Parses the command line; with `--config`, the study file's keys fill in what the command
/// line leaves out.
fn parse(argv: &[String]) -> Result<(Cli, Option<Study>), Refused> {
    let cmd = Cli::command();
    let matches = cmd
        .clone()
        .try_get_matches_from(argv)
        .map_err(Refused::Clap)?;
    let mut cli = Cli::from_arg_matches(&matches).map_err(Refused::Clap)?;
    cli.measure.note_given(&matches);
    let Some(path) = cli.measure.config.clone().filter(|_| cli.command.is_none()) else {
        return Ok((cli, None));
    };
    let study = Study::load(&path, &cmd).map_err(Refused::Study)?;
    let merged = study.merge_into(argv, &cmd, &matches);
    let matches = cmd.try_get_matches_from(&merged).map_err(Refused::Clap)?;
    let mut cli = Cli::from_arg_matches(&matches).map_err(Refused::Clap)?;
    cli.measure.note_given(&matches);
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
            algorithms,
            replay,
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
                // Each table is a per-block reduction of one pass over the timeline; CSV and
                // JSON rows then say which run they come from.
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
                    let run = RunLabel::of(&header);
                    with_run_columns(&run, format, out, |w| write_truth(&rows, format, w))?;
                } else if distribution {
                    let mut rows = DistributionRows::default();
                    let run = RunLabel::of(&each_block(file, times, |_, b| rows.add(&b))?);
                    let rows = rows.finish();
                    with_run_columns(&run, format, out, |w| write_distribution(&rows, format, w))?;
                } else if trend {
                    let mut rows = Vec::new();
                    let run =
                        RunLabel::of(&each_block(file, times, |_, b| rows.extend(trend_row(&b)))?);
                    with_run_columns(&run, format, out, |w| write_trend(&rows, format, w))?;
                } else if overlap {
                    let mut rows = OverlapRows::default();
                    let run = RunLabel::of(&each_block(file, times, |_, b| rows.add(&b))?);
                    let rows = rows.finish();
                    with_run_columns(&run, format, out, |w| write_overlap(&rows, format, w))?;
                } else {
                    let mut rows = Vec::new();
                    let run = RunLabel::of(&each_block(file, times, |_, b| {
                        rows.push(timing_row(&b, &timing))
                    })?);
                    with_run_columns(&run, format, out, |w| write_timing(&rows, format, w))?;
                }
            } else if algorithms {
                // Which algorithm hid the late rank: winners per (op, size, P, delay).
                let a = analysis(&files, bootstrap.bootstrap(), times)?;
                let rows = delaybench::analysis::algorithm_rows(&a.rows);
                match format {
                    Format::Json => {
                        serde_json::to_writer_pretty(&mut *out, &rows)?;
                        writeln!(out)?;
                    }
                    f if f.exporter().is_markup() => {
                        write!(out, "{}", delaybench::analysis::algorithm_table_text(&rows))?
                    }
                    _ => anyhow::bail!("analyze --algorithms writes --format table or json"),
                }
            } else if replay {
                // The application's own pattern, on its own: CSV, TSV or JSON rows.
                let a = analysis(&files, bootstrap.bootstrap(), times)?;
                let rows = delaybench::analysis::replay_pattern_rows(&a.rows);
                if rows.is_empty() {
                    eprintln!(
                        "delaybench: no block replayed a capture (--delay replay:CAPTURE@SITE)"
                    );
                }
                if format.exporter().is_markup() {
                    // The summary's own section.
                    write_summary(&a, format, out)?
                } else {
                    write_serde_rows(&rows, format, out)?
                }
            } else {
                let a = analysis(&files, bootstrap.bootstrap(), times)?;
                warn_outside(&a, format);
                write_summary(&a, format, out)?;
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
            if delaybench::records::noise::is_noise_file(&file) {
                // A noise file holds detours, not blocks: one row per detour.
                let run = delaybench::records::noise::read_noise(&file)
                    .with_context(|| format!("reading {}", file.display()))?;
                eprintln!(
                    "delaybench: {} is a noise file: one row per detour, global times as recorded",
                    file.display()
                );
                delaybench::export::write_noise_detours(
                    &run,
                    format,
                    &mut std::io::stdout().lock(),
                )?;
            } else {
                export(&file, times.global_times, rows, format)?;
            }
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
            // Beside the file, in its own folder: the outputs of a run follow its data.
            let out_dir = out.unwrap_or_else(|| outputs_dir(&file));
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
                write_clock_error_figure(&rows, &out_dir)?
            } else if delaybench::records::noise::is_noise_file(&file) {
                let run = delaybench::records::noise::read_noise(&file)
                    .with_context(|| format!("reading {}", file.display()))?;
                let paths = delaybench::plot::write_noise_figures(&run, &out_dir)?;
                if paths.is_empty() {
                    eprintln!("delaybench: no figure to draw from {}: no rank had a detour above the threshold", file.display());
                }
                paths
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
                let paths = write_figures(runs, &out_dir, &opts)?;
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
            let out = &mut std::io::stdout().lock();
            for p in paths {
                writeln!(out, "{}", p.display())?;
            }
        }
        Command::Arrivals {
            files,
            format,
            rows,
            message_time,
            figures,
            no_figures,
        } => {
            // A folder the user named must take the figures: refused before anything is read.
            if let Some(dir) = &figures {
                fresh_figures_dir(dir).map_err(anyhow::Error::msg)?;
            }
            let captures = delaybench::capture::read_captures(&files)?;
            let matched = delaybench::capture::match_calls(&captures)?;
            let report = delaybench::analysis::arrivals::report(&matched, message_time);
            let figures_dir = (!no_figures).then(|| {
                figures
                    .clone()
                    .unwrap_or_else(|| delaybench::plot::arrivals_dir(&files[0]))
            });
            match delaybench::export::write_arrivals(
                &matched,
                &report,
                format,
                rows,
                &mut std::io::stdout().lock(),
            ) {
                Err(delaybench::export::ExportError::Io(e))
                    if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                r => r.context("cannot print the arrivals report")?,
            }
            if let Some(dir) = figures_dir {
                // The default folder of an earlier report is left as it is.
                if let Err(e) = fresh_figures_dir(&dir) {
                    eprintln!("delaybench: warning: no figures: {e}");
                } else {
                    for p in delaybench::plot::write_arrivals_figures(&matched, &report, &dir)? {
                        eprintln!("delaybench: figure {}", p.display());
                    }
                }
            }
        }
        Command::Info { file, format } if delaybench::records::noise::is_noise_file(&file) => {
            let run = delaybench::records::noise::read_noise(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            let mut out = std::io::stdout().lock();
            if format == Format::Table {
                let _ = std::io::Write::write_all(
                    &mut out,
                    delaybench::info::noise_text(&run).as_bytes(),
                );
            }
            let report = delaybench::analysis::noise_report(&run.ranks);
            match delaybench::export::write_noise_report(&report, format, &mut out) {
                Err(delaybench::export::ExportError::Io(e))
                    if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                r => r.context("cannot print the noise report")?,
            }
        }
        Command::Info { file, format } => {
            let info = delaybench::info::RunInfo::read(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            // A closed pipe (`| head`) is no error for a printer.
            match info.write(format, &mut std::io::stdout().lock()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    return Err(e).context("cannot print the info");
                }
                _ => {}
            }
        }
        Command::Completions { shell } => {
            // Generated into memory first: clap_complete panics when stdout closes early
            // (`| head`), and a closed pipe is no error for a script printer.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "delaybench", &mut script);
            std::io::stdout()
                .write_all(&script)
                .context("cannot print the completion script")?;
        }
        Command::Man { dir } => {
            let out = &mut std::io::stdout().lock();
            match dir {
                None => {
                    // Rendered into memory first, so a closed pipe is one write error.
                    let mut page = Vec::new();
                    clap_mangen::Man::new(Cli::command()).render(&mut page)?;
                    out.write_all(&page)?;
                }
                Some(dir) => {
                    std::fs::create_dir_all(&dir)
                        .with_context(|| format!("cannot create {}", dir.display()))?;
                    clap_mangen::generate_to(Cli::command(), &dir).with_context(|| {
                        format!("cannot write the pages into {}", dir.display())
                    })?;
                    let mut pages: Vec<_> = std::fs::read_dir(&dir)?
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| {
                            p.file_name()
                                .and_then(|n| n.to_str())
                                .is_some_and(|n| n.starts_with("delaybench") && n.ends_with(".1"))
                        })
                        .collect();
                    pages.sort();
                    for p in pages {
                        writeln!(out, "{}", p.display())?;
                    }
                }
            }
        }
        Command::Clocksync(_)
        | Command::Skew(_)
        | Command::Schemes(_)
        | Command::Noise(_)
        | Command::Algorithms(_)
        | Command::CheckKernels(_)
        | Command::Simulate(_) => {
            unreachable!("MPI commands and simulate are dispatched in main")
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
fn export(file: &Path, times: GlobalTimes, rows: ExportRows, format: Format) -> Result<()> {
    let reading = || format!("reading {}", file.display());
    let mut timeline = Timeline::open(file, times).with_context(reading)?;
    let run = RunLabel::of(timeline.header());
    let out = &mut std::io::stdout().lock();
    match write_rows_streamed(&run, timeline.by_ref(), rows, format, out) {
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

/// CSV and TSV have no place for the runs' warnings: print them on stderr so they are not
/// lost. (The table, Markdown and JSON carry them.)
fn warn_outside(a: &Analysis, format: Format) {
    if !format.exporter().summary_carries_warnings() {
        for w in &a.warnings {
            eprintln!("delaybench: warning: {w}");
        }
    }
}
