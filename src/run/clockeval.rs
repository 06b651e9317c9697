//! `delaybench clocksync`: per method and P, the synchronisation time and the clock error
//! right after it and after waits (Hunold and Carpen-Amarie 2015, §7, Figures 8-10).

use super::command::{print_table, rows_at_each_p};
use super::session::Session;
use super::tracking::{probe_clocks, ProbeComms};
use super::transport::MpiTransport;
use crate::clock::{build, measure_errors, true_error, ClockSyncMethod, EmulationSpec};
use crate::export::{write_clocksync, ClockSyncRow, Format};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// What `delaybench clocksync` evaluates under MPI and how it reports: plain options,
/// filled from the command line at the edge.
#[derive(Debug, Clone)]
pub struct ClockSyncEvalOptions {
    /// Methods to evaluate.
    pub methods: Vec<ClockSyncMethod>,
    /// Process counts P; empty: the default for the world size.
    pub procs: Vec<u32>,
    /// Waits after the synchronisation at which the clock error is measured, seconds.
    pub waits: Vec<f64>,
    /// Long-run mode: a drift-tracking probe round this often during the waits, seconds.
    pub track_every: Option<f64>,
    /// Parameters of the clock synchronisation methods.
    pub params: crate::clock::ClockSyncParams,
    /// Per-rank clock offsets and skews to emulate, if any.
    pub emulate_clock: Option<crate::clock::EmulationSpec>,
    /// The clock read.
    pub clock: crate::plan::ClockSource,
    /// Output on stdout.
    pub format: Format,
    /// CSV file of the results; `None`: `results/clocksync-<UTC time, µs>-<pid>.csv`.
    pub output: Option<std::path::PathBuf>,
    /// Run even when the waits add up to more than an hour.
    pub yes: bool,
}

/// Runs the evaluation under MPI; rank 0 prints the table and writes the CSV.
pub fn main(opts: ClockSyncEvalOptions) -> ExitCode {
    let check = |procs: &[u32]| check_duration(&opts, procs.len());
    let emulate = opts.emulate_clock.as_ref();
    super::command::command(
        &opts.procs,
        check,
        emulate,
        opts.clock,
        |session, procs, emulation| run(session, procs, &opts, emulation),
    )
}

/// The evaluation of [`main`] once MPI and the session are up.
fn run(
    session: &mut Session,
    procs: Vec<u32>,
    opts: &ClockSyncEvalOptions,
    emulation: Option<&EmulationSpec>,
) -> ExitCode {
    let world = session.world;
    let mut waits = opts.waits.clone();
    waits.sort_by(f64::total_cmp);
    let tracking: Vec<Option<f64>> = match opts.track_every {
        None => vec![None],
        Some(every) => vec![None, Some(every)],
    };
    let rows = rows_at_each_p(session, &procs, None, |session, comm, _| {
        let mut rows = Vec::new();
        for &m in &opts.methods {
            for &track in &tracking {
                let how = Evaluation {
                    method: m,
                    track_every_s: track,
                };
                rows.extend(evaluate(comm, session, how, opts, &waits, emulation));
            }
        }
        rows
    });
    if world.rank() == 0 {
        return report(&rows, opts);
    }
    ExitCode::SUCCESS
}

/// One evaluation: a method, with or without drift tracking during the waits.
#[derive(Clone, Copy)]
struct Evaluation {
    method: ClockSyncMethod,
    /// Seconds between drift-tracking probe rounds during the waits; `None`: no tracking.
    track_every_s: Option<f64>,
}

impl Evaluation {
    fn name(&self) -> String {
        match self.track_every_s {
            None => self.method.name().into(),
            Some(_) => format!("{}+tracking", self.method.name()),
        }
    }
}

/// Synchronises with the method, then measures the error after each wait (probing for drift
/// during the waits when tracking); rows on rank 0.
fn evaluate(
    comm: &SimpleCommunicator,
    session: &mut Session,
    how: Evaluation,
    opts: &ClockSyncEvalOptions,
    waits: &[f64],
    emulation: Option<&EmulationSpec>,
) -> Vec<ClockSyncRow> {
    let method = how.method;
    let sync = build(method, &opts.params);
    comm.barrier();
    let gathered = session.synchronise(comm, sync.as_ref());
    let synced = Instant::now();
    let world_rank = session.world.rank() as usize;
    let probes = how.track_every_s.map(|_| {
        ProbeComms::new(
            comm,
            &session.hosts.names[world_rank],
            world_rank as u32,
            crate::clock::shared::SharedVerdict::Leader,
        )
    });
    let mut rounds_done = 0u64;
    let mut rows = Vec::new();
    for &wait in waits {
        if let (Some(every), Some(probes)) = (how.track_every_s, probes.as_ref()) {
            // The same number of rounds on every rank, each at its own clock's time.
            let rounds = (wait / every).floor() as u64;
            while rounds_done < rounds {
                rounds_done += 1;
                let at = synced + Duration::from_secs_f64(rounds_done as f64 * every);
                std::thread::sleep(at.saturating_duration_since(Instant::now()));
                probe_clocks(&session.timing, probes, 0);
            }
        }
        let until = synced + Duration::from_secs_f64(wait);
        std::thread::sleep(until.saturating_duration_since(Instant::now()));
        let transport = MpiTransport {
            comm,
            clock: session.timing.clock.as_ref(),
        };
        let errors = measure_errors(
            &transport,
            &session.timing.model(),
            opts.params.nonimproving,
        );
        let true_error = emulation.map(|spec| {
            let base = super::command::base_clock_now(opts.clock);
            let mine = true_error(spec, comm.rank() as usize, &session.timing.model(), base).abs();
            let mut max = 0.0;
            comm.all_reduce_into(&mine, &mut max, SystemOperation::max());
            max
        });
        if let Some(errors) = errors {
            rows.push(ClockSyncRow {
                method: how.name(),
                nprocs: comm.size() as u32,
                sync_s: gathered.duration_s,
                wait_s: wait,
                max_error_s: errors.iter().fold(0.0, |m: f64, e| m.max(e.abs())),
                max_true_error_s: true_error,
            });
        }
    }
    rows
}

fn report(rows: &[ClockSyncRow], opts: &ClockSyncEvalOptions) -> ExitCode {
    // A closed stdout (`| head`) is no failure: the results file below is still written.
    if let Err(code) = print_table(|out| write_clocksync(rows, opts.format, out)) {
        return code;
    }
    let path = opts
        .output
        .clone()
        .unwrap_or_else(|| crate::output_name::default_output("results", "clocksync", "csv"));
    // Never overwrite: results of an earlier run stay as they were.
    let written = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|_| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
        })
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => format!(
                "it already exists and is never overwritten (this run's results are the table \
                 printed above); {}",
                // Only a name the user chose may be blamed on --output.
                if opts.output.is_some() {
                    "remove it or give another --output"
                } else {
                    "run again for a new default name"
                }
            ),
            _ => e.to_string(),
        })
        .and_then(|mut f| write_clocksync(rows, Format::Csv, &mut f).map_err(|e| e.to_string()));
    match written {
        Ok(()) => {
            eprintln!(
                "delaybench: results in {} (delaybench plot {0})",
                path.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("delaybench: error: cannot write {}: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}

/// Longest the waits of a `clocksync` evaluation may add up to without `--yes`, seconds.
const MAX_WAITING_S: f64 = 3600.0;

/// Refuses evaluations that would wait for more than an hour in total (every method waits
/// the longest wait once per P) unless `--yes`, and zero clock-sync counts. Every rank
/// decides alike from the same arguments.
fn check_duration(opts: &ClockSyncEvalOptions, nprocs: usize) -> Result<(), String> {
    if let Some(flag) = opts.params.zero_count() {
        return Err(format!(
            "{flag} must be at least 1: a clock synchronisation without measurements gives no \
             clock model"
        ));
    }
    let longest = opts.waits.iter().copied().fold(0.0, f64::max);
    let total = longest * (opts.methods.len() * nprocs) as f64;
    if total > MAX_WAITING_S && !opts.yes {
        return Err(format!(
            "the waits would take about {} ({} methods x {nprocs} process counts x the longest \
             wait {}), more than an hour: pass --yes to run it anyway, or give shorter --waits",
            crate::plan::checks::human(total),
            opts.methods.len(),
            crate::units::format_duration(longest)
        ));
    }
    Ok(())
}
