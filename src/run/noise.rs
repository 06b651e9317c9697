//! `delaybench noise`: the machine's own noise, on every rank at once and on the global clock
//! (docs/noise.md). Every rank runs the same loop (`crate::noise::selfish`) from one agreed
//! global instant, on a core of its own; rank 0 gathers each rank's detours on the global
//! clock with the kernel's counters, writes the noise file, prints the report and draws the
//! figures.

use super::session::Session;
use crate::analysis::noise_report;
use crate::clock::build;
use crate::delay::DetourInjector;
use crate::export::write_noise_report;
use crate::noise::sources::Snapshot;
use crate::noise::{run_loop, NoiseVariant};
use crate::records::noise::{
    NoiseFooter, NoiseHeader, NoiseItem, NoiseRank, NoiseRun, NoiseWriter, NOISE_FORMAT_NAME,
    NOISE_FORMAT_VERSION,
};
use crate::records::{ClockInfo, F64Array};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::process::ExitCode;
use std::time::Instant;

/// Seconds between agreeing on the start instant and reaching it, for `delaybench noise`:
/// time for the broadcast and for every rank to settle on its core.
pub(super) const START_LEAD_S: f64 = 0.05;

/// One noise loop on every rank of `comm` from a common global instant.
pub(super) struct Loop {
    pub variant: NoiseVariant,
    pub duration_s: f64,
    pub threshold_s: f64,
    pub quantum_s: f64,
    /// Detours injected on one world rank while it runs the loop (a self-check).
    pub inject: Option<(u32, crate::delay::DetourSpec)>,
    /// Seconds from agreeing on the start instant to the start (a rank that arrives later
    /// starts late; its own start is recorded).
    pub lead_s: f64,
}

impl Loop {
    /// Collective on `comm`: agrees on a start instant, runs the loop there on every rank and
    /// returns this rank's detours on the global clock with its kernel counters (`rank` and
    /// `host` filled in), and the start instant. Also the sources the snapshot could read.
    pub fn run(
        &self,
        comm: &SimpleCommunicator,
        session: &Session,
        host: &str,
    ) -> (NoiseRank, f64, Vec<String>) {
        let timing = &session.timing;
        let start = super::gather::broadcast(comm, &(timing.global_now() + self.lead_s));
        timing.wait_until_global(start);
        let before = Snapshot::take();
        let me = session.world.rank() as u32;
        let injector = match self.inject {
            Some((rank, spec)) if rank == me => match DetourInjector::start(spec, 0.0) {
                Ok(i) => Some(i),
                Err(e) => super::fail(session.world, &e.to_string()),
            },
            _ => None,
        };
        let r = run_loop(
            self.variant,
            timing.clock.as_ref(),
            self.duration_s,
            self.threshold_s,
            self.quantum_s,
        );
        drop(injector);
        let after = Snapshot::take();
        let (machine, moved) = before.counts_until(&after);
        let model = timing.model();
        let g = |t: f64| model.to_global(t);
        let rank = NoiseRank {
            rank: session.world.rank() as u32,
            host: host.to_string(),
            cpu: before.cpu,
            cpu_moved: moved,
            start_global_s: g(r.start_local_s),
            end_global_s: g(r.end_local_s),
            iterations: r.iterations,
            resolution_s: r.resolution_s,
            dropped: r.dropped,
            detour_start_global_s: F64Array(r.detour_start_local_s.iter().map(|&t| g(t)).collect()),
            detour_duration_s: F64Array(r.detour_duration_s),
            machine,
        };
        (rank, start, before.sources())
    }
}

/// Gathers every rank's [`NoiseRank`] on rank 0 of `comm` (as CBOR: lists and names), in
/// world-rank order.
pub(super) fn gather_ranks(comm: &SimpleCommunicator, mine: &NoiseRank) -> Option<Vec<NoiseRank>> {
    let mut bytes = Vec::new();
    ciborium::into_writer(mine, &mut bytes).expect("a noise rank serialises");
    super::gather::gather_bytes(comm, &bytes).map(|all| {
        let mut ranks: Vec<NoiseRank> = all
            .iter()
            .map(|b| ciborium::from_reader(&b[..]).expect("a gathered noise rank decodes"))
            .collect();
        // In world-rank order whatever order the communicator has: replay maps by position.
        ranks.sort_by_key(|r| r.rank);
        ranks
    })
}

/// What `delaybench noise` measures, where it writes and how it reports: plain options,
/// filled from the command line at the edge.
#[derive(Debug, Clone)]
pub struct NoiseOptions {
    /// How long every rank runs its noise loop, seconds.
    pub duration: f64,
    /// Detours longer than this are recorded, seconds.
    pub threshold: f64,
    /// The loop.
    pub variant: crate::noise::NoiseVariant,
    /// fwq: work per quantum; ftq: the quantum, seconds (`None`: the variant's default).
    pub quantum: Option<f64>,
    /// Clock synchronisation method for the global clock.
    pub clock_sync: crate::clock::ClockSyncMethod,
    /// Parameters of the clock synchronisation methods.
    pub params: crate::clock::ClockSyncParams,
    /// Per-rank clock offsets and skews to emulate, if any.
    pub emulate_clock: Option<crate::clock::EmulationSpec>,
    /// The clock read.
    pub clock: crate::plan::ClockSource,
    /// Noise file; `None`: `results/noise-<UTC time, µs>-<pid>.cbor`.
    pub output: Option<std::path::PathBuf>,
    /// Folder of the figures; `None`: beside the noise file.
    pub figures: Option<std::path::PathBuf>,
    /// Draw no figures.
    pub no_figures: bool,
    /// The report's format.
    pub format: crate::export::Format,
    /// Periodic detours injected into the loop of [`NoiseOptions::inject_rank`].
    pub inject_detour: Option<crate::delay::DetourSpec>,
    /// The world rank that gets [`NoiseOptions::inject_detour`].
    pub inject_rank: Option<u32>,
}

/// Runs the noise measurement under MPI; rank 0 writes the file, prints and draws.
pub fn main(opts: NoiseOptions) -> ExitCode {
    // The default process counts end with the world size.
    let check = |procs: &[u32]| {
        let size = procs.iter().copied().max().unwrap_or(0);
        if opts.threshold >= opts.duration {
            return Err("--threshold must be shorter than --duration".to_string());
        }
        if let Some(r) = opts.inject_rank.filter(|&r| r >= size) {
            return Err(format!(
                "--inject-rank {r} is not a rank: the world has {size} ranks"
            ));
        }
        Ok(())
    };
    let emulate = opts.emulate_clock.as_ref();
    super::command::command(&[], check, emulate, opts.clock, |session, _, _| {
        run(session, &opts)
    })
}

fn run(session: &mut Session, opts: &NoiseOptions) -> ExitCode {
    let world = session.world;
    let started = Instant::now();
    // Rank 0 opens the file first, so a bad --output ends every rank before measuring.
    let mut writer = None;
    let mut refused = String::new();
    if world.rank() == 0 {
        let path = opts
            .output
            .clone()
            .unwrap_or_else(|| crate::output_name::default_output("results", "noise", "cbor"));
        // The figures' folder is checked before the file is created, so a refused folder
        // leaves no file behind and nothing is measured.
        let fresh = figures_dir(opts, &path).map_or(Ok(()), |dir| {
            crate::output_name::check_fresh_dir(&dir, crate::output_name::FIGURES_WAY_OUT)
        });
        match fresh.map(|()| NoiseWriter::create(&path)) {
            Ok(Ok(w)) => writer = Some(w),
            Ok(Err(e)) => refused = e.to_string(),
            Err(e) => refused = e,
        }
    }
    let ok = super::gather::broadcast(world, &f64::from(u8::from(refused.is_empty())));
    if ok == 0.0 {
        if world.rank() == 0 {
            eprintln!("delaybench: error: {refused}");
        }
        return ExitCode::from(2);
    }
    let method = build(opts.clock_sync, &opts.params);
    let gathered = session.synchronise(world, method.as_ref());
    let lp = Loop {
        variant: opts.variant,
        duration_s: opts.duration,
        threshold_s: opts.threshold,
        quantum_s: opts.quantum.unwrap_or(0.0),
        inject: opts.inject_rank.zip(opts.inject_detour),
        lead_s: START_LEAD_S,
    };
    let size = world.size() as u32;
    let host = session.hosts.names[world.rank() as usize].clone();
    let (found, warning) = session.measure_at(size, None, |session, comm| {
        let (mine, start, sources) = lp.run(comm, session, &host);
        (gather_ranks(comm, &mine), start, sources)
    });
    let Some((Some(ranks), start, sources)) = found.filter(|_| world.rank() == 0) else {
        return ExitCode::SUCCESS;
    };
    let clock = session.timing.clock.as_ref();
    let header = NoiseHeader {
        format: NOISE_FORMAT_NAME.into(),
        format_version: NOISE_FORMAT_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").into(),
        command_line: std::env::args().collect(),
        start_utc: chrono::Utc::now().to_rfc3339(),
        world_size: size,
        hosts: session.hosts.names.clone(),
        mpi_library: mpi::environment::library_version().unwrap_or_default(),
        clock: ClockInfo {
            source: clock.name().into(),
            resolution_s: clock.resolution_s(),
            timer_delay_s: f64::NAN,
        },
        clock_sync: method.name().into(),
        clock_min_rtt_s: gathered.rtt_s.clone(),
        variant: opts.variant.name().into(),
        threshold_s: opts.threshold,
        duration_s: opts.duration,
        quantum_s: if opts.variant == NoiseVariant::Selfish {
            0.0
        } else {
            opts.quantum.unwrap_or(opts.variant.default_quantum_s())
        },
        start_global_s: start,
        sources,
        injected: lp.inject.map(|(r, spec)| format!("rank {r}: {spec}")),
    };
    let mut warnings: Vec<String> = warning.into_iter().collect();
    for r in &ranks {
        if r.cpu_moved {
            warnings.push(format!(
                "rank {} moved to another CPU during the loop: its kernel counts are of the CPU it started on",
                r.rank
            ));
        }
        if r.dropped > 0 {
            warnings.push(format!(
                "rank {}: {} detours beyond the limit were not kept",
                r.rank, r.dropped
            ));
        }
        if r.resolution_s * 2.0 > opts.threshold {
            warnings.push(format!(
                "rank {}: the loop's shortest iteration ({:.2} us) is close to --threshold: raise it",
                r.rank,
                r.resolution_s * 1e6
            ));
        }
    }
    let run = NoiseRun {
        header,
        ranks,
        footer: Some(NoiseFooter {
            wall_time_s: started.elapsed().as_secs_f64(),
            warnings,
        }),
    };
    let mut w = writer.expect("rank 0 holds the writer");
    let written = w
        .write(&NoiseItem::NoiseHeader(Box::new(run.header.clone())))
        .and_then(|_| {
            run.ranks
                .iter()
                .try_for_each(|r| w.write(&NoiseItem::NoiseRank(Box::new(r.clone()))))
        })
        .and_then(|_| {
            w.write(&NoiseItem::NoiseFooter(Box::new(
                run.footer.clone().expect("set"),
            )))
        });
    if let Err(e) = written {
        eprintln!("delaybench: error: {e}");
        return ExitCode::FAILURE;
    }
    report(&run, opts, w.path())
}

/// Rank 0: the report on stdout, sources and warnings on stderr, the figures.
fn report(run: &NoiseRun, opts: &NoiseOptions, path: &std::path::Path) -> ExitCode {
    for w in &run.footer.as_ref().expect("a finished run").warnings {
        eprintln!("delaybench: warning: {w}");
    }
    let rep = noise_report(&run.ranks);
    if let Err(e) = write_noise_report(&rep, opts.format, &mut std::io::stdout().lock()) {
        eprintln!("delaybench: error: {e}");
        return ExitCode::FAILURE;
    }
    for s in &run.header.sources {
        eprintln!("delaybench: source: {s}");
    }
    for r in &run.ranks {
        eprintln!(
            "delaybench: rank {} CPU {}: {}",
            r.rank,
            r.cpu.map_or("?".into(), |c| c.to_string()),
            machine_line(r)
        );
    }
    eprintln!(
        "delaybench: correlated share: {} of detour time overlaps another rank's detour (by chance: {})",
        percent(rep.total.correlated_share),
        percent(rep.total.correlated_chance)
    );
    eprintln!("delaybench: wrote {}", path.display());
    if let Some(dir) = figures_dir(opts, path) {
        match crate::plot::write_noise_figures(run, &dir) {
            Ok(paths) => {
                for p in paths {
                    eprintln!("delaybench: {}", crate::plot::announce(&p));
                }
            }
            Err(e) => eprintln!("delaybench: warning: no figures: {e}"),
        }
    }
    ExitCode::SUCCESS
}

/// Where the figures go: `--figures DIR`, else the folder beside the noise file with its
/// stem (`results/noise-X.cbor` → `results/noise-X/`), as a measurement run's outputs;
/// `None` with `--no-figures`.
fn figures_dir(opts: &NoiseOptions, noise_file: &std::path::Path) -> Option<std::path::PathBuf> {
    if opts.no_figures {
        return None;
    }
    Some(
        opts.figures
            .clone()
            .unwrap_or_else(|| crate::output_name::outputs_dir(noise_file)),
    )
}

fn percent(f: f64) -> String {
    if f.is_finite() {
        format!("{:.2} %", f * 100.0)
    } else {
        "n/a (one rank)".into()
    }
}

/// The kernel's counts of one rank in one line: interrupts and softirqs (the three largest
/// each) and context switches.
pub(super) fn machine_line(r: &NoiseRank) -> String {
    let top = |v: &[(String, u64)]| {
        let total: u64 = v.iter().map(|x| x.1).sum();
        let names: Vec<String> = v.iter().take(3).map(|(n, c)| format!("{n} {c}")).collect();
        format!("{total} ({})", names.join(", "))
    };
    let m = &r.machine;
    format!(
        "interrupts {}; softirqs {}; context switches {} voluntary, {} involuntary",
        top(&m.interrupts),
        top(&m.softirqs),
        m.voluntary_switches,
        m.involuntary_switches
    )
}
