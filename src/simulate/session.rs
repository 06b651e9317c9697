//! One `delaybench simulate`, whatever the engine: the checks before anything runs, the
//! outputs (one per swept algorithm), the curve of P's through the engine and the one records
//! writer, and the end-of-run summary.

use super::blocks::{blocks_of, to_block};
use super::noise_source::{NoiseSource, NoiseSpec};
use super::progress::{self, Done};
use super::smpi::engine::{check_ops, SmpiSetup};
use super::writer::{header, HeaderParts, SimRecords};
use super::{Engine, EngineKind, Options, SimulateError};
use crate::end_of_run::EndOfRun;
use crate::plan::Plan;
use crate::records::{RecordsError, SimulationCost};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Checks a simulated plan as a measurement checks its plan ([`Plan::check_alone`]; detours,
/// overlap, adaptive repetitions and clock options do not apply), and the options against
/// the engine: what the engine cannot simulate is refused here, before anything runs.
///
/// Errors: [`SimulateError::Plan`] naming the option at fault.
pub fn check_plan(plan: &Plan, opts: &Options) -> Result<(), SimulateError> {
    let bad = |m: String| Err(SimulateError::Plan(m));
    plan.check_alone()
        .map_err(|e| SimulateError::Plan(e.to_string()))?;
    if plan.procs.iter().any(|&p| p < 2) {
        return bad("--procs: every P must be at least 2".into());
    }
    match opts.engine {
        EngineKind::Loggops => {
            if let Some(flag) = opts.smpi_options.first() {
                return bad(format!(
                    "{flag}: an option of the smpi engine (--engine smpi); the loggops engine's \
                     network is its --loggops parameters"
                ));
            }
            noise_asked(opts)?;
            loggops_params(opts)?;
            check_overlap(plan, opts)?;
            // Every operation and swept algorithm must have a schedule (checked at P = 2).
            for op in &plan.ops {
                for alg in &swept(opts) {
                    super::loggops::collective(op.name(), *alg, 2, 8).map_err(|e| {
                        SimulateError::Plan(format!(
                            "--ops {}: the loggops engine has no schedule for it: {e}",
                            op.name()
                        ))
                    })?;
                }
            }
            Ok(())
        }
        EngineKind::Smpi => {
            // The SMPI engine simulates the MPI library's own code on a network model: no
            // OS noise, and its parameters are the platform's, not LogGOPS's.
            if opts.detour.is_some() {
                return Err(super::SmpiError::NotYet(
                    "--detour with the smpi engine (the loggops engine replays it)",
                )
                .into());
            }
            if let Some(n) = &opts.noise {
                return bad(format!(
                    "--noise {n}: the smpi engine simulates no OS noise (the loggops engine \
                     does)"
                ));
            }
            if opts.noise_cosched {
                return bad("--noise-cosched: the smpi engine simulates no OS noise".into());
            }
            if let Some(p) = opts.progress {
                return bad(format!(
                    "--progress {}: a progression model of the loggops engine; the smpi engine \
                     runs the MPI library's own progress",
                    p.name()
                ));
            }
            if opts.overlap_compute_s.is_some() {
                return bad(
                    "--overlap-compute: an option of the loggops engine (--engine loggops)".into(),
                );
            }
            if let Some(l) = &opts.loggops {
                return bad(format!(
                    "--loggops {l}: LogGOPS parameters are the loggops engine's; the smpi \
                     engine's network is its --platform"
                ));
            }
            check_ops(plan)?;
            Ok(())
        }
    }
}

/// Simulates `plan` (built by the measurement's builder) as `opts` say, writing the
/// summary to `out`: checks, then one records file per swept algorithm.
///
/// Errors: every [`SimulateError`]; option, plan, noise-file, platform and output errors
/// come before anything runs.
pub fn run(plan: &Plan, opts: &Options, out: &mut dyn Write) -> Result<(), SimulateError> {
    check_plan(plan, opts)?;
    // Read and checked now, so a bad file stops the run before it simulates; the engines
    // that replay noise take it from here.
    let noise = noise_asked(opts)?
        .map(|(n, cosched)| NoiseSource::load(&n, cosched))
        .transpose()
        .map_err(SimulateError::Plan)?;
    let algorithms = swept(opts);
    if opts.engine == EngineKind::Loggops {
        let params = loggops_params(opts)?;
        let max_p = plan.procs.iter().copied().max().unwrap_or(2);
        let outputs = outputs(opts, &algorithms)?;
        let overlap = opts.overlap_compute_s.map(|t| super::loggops::Overlap {
            compute_ns: (t * 1e9).round() as u64,
            progress: opts.progress.unwrap_or_default(),
        });
        let engine_for = |alg: Option<&str>| {
            super::loggops_engine::LoggopsEngine::new(params, noise.clone(), plan.seed, max_p, alg)
                .with_overlap(overlap)
        };
        for alg in &algorithms {
            check_memory(plan, &engine_for(*alg))?;
        }
        for (alg, (path, end)) in algorithms.iter().zip(&outputs) {
            let mut engine = engine_for(*alg);
            check_delay_ranks(plan, engine.rank_hosts())?;
            simulate_curve(plan, &mut engine, path, &opts.tags, *alg)?;
            crate::end_of_run::print_summary(path, end, out);
        }
        return Ok(());
    }
    let setup = SmpiSetup::prepare(
        plan,
        &opts.smpi,
        &opts.algorithms,
        opts.every_repetition,
        opts.keep_files,
    )?;
    check_delay_ranks(plan, setup.rank_hosts())?;
    let outputs = outputs(opts, &algorithms)?;
    for (alg, (path, end)) in algorithms.iter().zip(&outputs) {
        let mut engine = setup.engine(*alg);
        simulate_curve(plan, &mut engine, path, &opts.tags, *alg)?;
        crate::end_of_run::print_summary(path, end, out);
    }
    setup.finish();
    Ok(())
}

/// The algorithms each output is simulated with: those `--algorithms` sweeps, or the
/// engine's own choice (`None`) once.
fn swept(opts: &Options) -> Vec<Option<&str>> {
    if opts.algorithms.is_empty() {
        vec![None]
    } else {
        opts.algorithms.iter().map(|a| Some(a.as_str())).collect()
    }
}

/// The noise asked for and whether it is co-scheduled: `--noise` with `--noise-cosched`, or
/// the noise a measurement's `--detour` names ([`NoiseSpec::from_detour`]).
///
/// Errors: [`SimulateError::Plan`] when `--detour` comes with `--noise` or `--noise-cosched`
/// (two sources of one noise).
fn noise_asked(opts: &Options) -> Result<Option<(NoiseSpec, bool)>, SimulateError> {
    match &opts.detour {
        Some(d) if opts.noise.is_some() || opts.noise_cosched => Err(SimulateError::Plan(format!(
            "--detour {}: give the noise once, as --detour or as --noise (with \
             --noise-cosched), not both",
            detour_text(d)
        ))),
        Some(d) => Ok(Some(NoiseSpec::from_detour(d))),
        None if opts.noise_cosched && opts.noise.is_none() => Err(SimulateError::Plan(
            "--noise-cosched: co-schedules a noise, and none is given; add --noise (a noise \
             file, periodic:FREQ:DURATION or poisson:RATE:DURATION) or --detour"
                .into(),
        )),
        None => Ok(opts.noise.clone().map(|n| (n, opts.noise_cosched))),
    }
}

/// The overlap options against the plan: `--progress` and `--overlap-compute` act on the
/// nonblocking kernels only, as a measurement's `--overlap` does, and `--progress wait`
/// without a computation to wait behind would give the times of `async`.
///
/// Errors: [`SimulateError::Plan`] naming the option and what to add.
fn check_overlap(plan: &Plan, opts: &Options) -> Result<(), SimulateError> {
    let flag = match (opts.progress, opts.overlap_compute_s) {
        (Some(p), _) => format!("--progress {}", p.name()),
        (None, Some(_)) => "--overlap-compute".to_string(),
        (None, None) => return Ok(()),
    };
    if !plan.ops.iter().any(|op| op.is_nonblocking()) {
        let forms: Vec<String> = plan
            .ops
            .iter()
            .map(|op| format!("i{}", op.name()))
            .collect();
        return Err(SimulateError::Plan(format!(
            "{flag} applies to nonblocking kernels only: add their nonblocking form ({}) to \
             --ops",
            forms.join(", ")
        )));
    }
    if opts.progress == Some(super::loggops::Progress::Wait) && opts.overlap_compute_s.is_none() {
        return Err(SimulateError::Plan(
            "--progress wait: without a computation between start and wait the rank waits at \
             once and both models give the same times; add --overlap-compute DURATION (e.g. \
             100us)"
                .into(),
        ));
    }
    Ok(())
}

/// `--detour`'s value as the user wrote it, near enough to recognise.
fn detour_text(d: &crate::delay::DetourArg) -> String {
    match d {
        crate::delay::DetourArg::NoiseFile(f) => format!("noise:{}", f.path),
        crate::delay::DetourArg::Periodic(p) => format!(
            "{}Hz,{}",
            p.freq_hz,
            crate::units::format_duration(p.duration_s)
        ),
    }
}

/// The LogGOPS parameters: `--loggops` over LogGOPSim's defaults.
///
/// Errors: [`SimulateError::Plan`] naming `--loggops` and what was wrong.
fn loggops_params(opts: &Options) -> Result<super::loggops::Params, SimulateError> {
    match &opts.loggops {
        Some(spec) => super::loggops::Params::from_spec(spec)
            .map_err(|e| SimulateError::Plan(format!("--loggops {spec}: {e}"))),
        None => Ok(super::loggops::Params::default()),
    }
}

/// Refuses, before anything runs, a P whose memory estimate (the engine's) exceeds this
/// machine's available memory (`MemAvailable` of /proc/meminfo; not checked where that
/// cannot be read).
///
/// Errors: [`SimulateError::Plan`] naming the P, the estimate and the machine's figure.
fn check_memory(plan: &Plan, engine: &dyn Engine) -> Result<(), SimulateError> {
    let Some(available) = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| crate::plan::checks::mem_available(&m))
    else {
        return Ok(());
    };
    for &p in &plan.procs {
        if let Some(estimate) = engine.memory_estimate_bytes(plan, p) {
            progress::check_memory(p, estimate, available).map_err(SimulateError::Plan)?;
        }
    }
    Ok(())
}

/// Checks `--delay-rank` at every P on the ranks' hosts (`rank_hosts`: the largest P's).
///
/// Errors: [`SimulateError::Plan`] naming the P.
fn check_delay_ranks(plan: &Plan, rank_hosts: &[String]) -> Result<(), SimulateError> {
    for &p in &plan.procs {
        plan.delay_ranks
            .validate(p, &rank_hosts[..p as usize])
            .map_err(|e| SimulateError::Plan(format!("--delay-rank at P = {p}: {e}")))?;
    }
    Ok(())
}

/// The records file and end of run of every swept algorithm (a suffix each when there are
/// several), checked: nothing is overwritten.
///
/// Errors: [`SimulateError::Plan`] for a figures folder in the way,
/// [`RecordsError::Exists`] for a records file.
fn outputs(
    opts: &Options,
    algorithms: &[Option<&str>],
) -> Result<Vec<(PathBuf, EndOfRun)>, SimulateError> {
    let base_out = opts
        .output
        .clone()
        .unwrap_or_else(|| crate::output_name::default_output("results", "simulated", "cbor"));
    let mut outputs = Vec::new();
    for alg in algorithms {
        let path = match alg {
            Some(a) if algorithms.len() > 1 => with_suffix(&base_out, a),
            _ => base_out.clone(),
        };
        let end = EndOfRun::new(&path, None, opts.no_figures, opts.no_summary);
        end.check().map_err(SimulateError::Plan)?;
        if path.exists() {
            return Err(RecordsError::Exists(path.display().to_string()).into());
        }
        outputs.push((path, end));
    }
    Ok(outputs)
}

/// Simulates every P of `plan` with `engine` into the records file `path`: per P the blocks
/// of the measurement's enumeration (the streams counted over the whole curve), the
/// engine's times, the records blocks, a progress line; then the header with each P's cost.
///
/// Errors: the engine's and the writer's; a file with finished P's is kept.
fn simulate_curve(
    plan: &Plan,
    engine: &mut dyn Engine,
    path: &Path,
    tags: &[crate::records::Tag],
    alg: Option<&str>,
) -> Result<(), SimulateError> {
    let hosts = engine.rank_hosts().to_vec();
    let parts = HeaderParts {
        rank_hosts: &hosts,
        clock_source: engine.clock_source(),
        tags,
    };
    let simulation = engine.simulation();
    let mut records = SimRecords::create(path, &header(plan, &parts, simulation.clone()))?;
    let (mut costs, mut done) = (Vec::new(), Vec::<Done>::new());
    let mut stream = 0u64;
    for (i, &p) in plan.procs.iter().enumerate() {
        let (sims, labels) = blocks_of(plan, p, &hosts[..p as usize], &mut stream);
        let t = Instant::now();
        let simulated = match engine.simulate(p, &sims) {
            Ok(s) => s,
            Err(e) => {
                records.abandon(p);
                return Err(e);
            }
        };
        let blocks: Vec<_> = sims
            .iter()
            .zip(&labels)
            .zip(simulated.times)
            .map(|((sim, label), times)| {
                let mut b = to_block(sim, label, p, times);
                b.algorithm = engine.algorithm(b.op);
                b
            })
            .collect();
        let wall_s = t.elapsed().as_secs_f64();
        done.push(Done { procs: p, wall_s });
        eprintln!(
            "delaybench: simulated P = {p}{}: {} block(s), {} of {} repetitions \
             simulated, in {wall_s:.1} s of wall time{}",
            alg.map(|a| format!(" ({a})")).unwrap_or_default(),
            blocks.len(),
            simulated.simulated_repetitions,
            plan.nrep as usize * sims.len(),
            progress::line_tail(&done, &plan.procs[i + 1..], simulated.peak_memory_bytes)
        );
        costs.push(SimulationCost {
            procs: p,
            wall_time_s: wall_s,
            peak_memory_bytes: simulated.peak_memory_bytes,
            simulated_repetitions: simulated.simulated_repetitions as u64,
        });
        records.write_p(blocks)?;
    }
    let world = *plan.procs.iter().max().expect("validated: procs not empty") as usize;
    let simulation = crate::records::Simulation {
        costs,
        ..simulation
    };
    records.finish(&header(plan, &parts, simulation), world)?;
    Ok(())
}

/// `results/x.cbor` with `alg` → `results/x-alg.cbor`.
fn with_suffix(path: &Path, alg: &str) -> PathBuf {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("simulated");
    let ext = path.extension().and_then(|s| s.to_str()).unwrap_or("cbor");
    let safe: String = alg
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    path.with_file_name(format!("{stem}-{safe}.{ext}"))
}
