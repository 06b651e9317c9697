//! One `delaybench simulate`: checks, the plan, one `smpirun` per P (and per swept
//! algorithm), and the records file with its end-of-run summary.

use super::blocks::{blocks_of, decode, BlockLabel, SIM_LATE_TOLERANCE_S};
use super::distinct;
use super::plan_file::{encode, SimBlock};
use super::platform::{self, Builtin, Platform};
use super::progress::{self, Done};
use super::toolchain::Toolchain;
use super::watch;
use super::{rename_over, write_file, SmpiError};
use crate::clock::ClockModel;
use crate::plan::algorithms::AlgorithmSetting;
use crate::plan::Plan;
use crate::records::{
    ClockInfo, ClockSyncInfo, Footer, Header, Provenance, RecordsWriter, Simulation,
    SimulationCost, WaitInfo,
};
use std::cell::Cell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// SimGrid options every simulation sets, and why (docs/simulate.md, "How the ranks run"):
/// computation between MPI calls is not simulated (deterministic, faster); every send is
/// rendezvous (SimGrid 3.32 scans its eager sends linearly: cost P² without it); ranks share
/// globals (the program has none; the default privatization fails at about 6,500 ranks on
/// `vm.max_map_count`); raw contexts (10× faster than threads); MPI_Wtime costs no time (the
/// waits are computed from it).
pub const BASE_CFG: [&str; 5] = [
    "smpi/simulate-computation:no",
    "smpi/send-is-detached-thresh:0",
    "smpi/privatization:no",
    "contexts/factory:raw",
    "smpi/wtime:0",
];

/// From this P on, contexts get no guard page (`contexts/guard-size:0`), which 65,536 ranks
/// need under the kernel's default `vm.max_map_count`.
pub const NO_GUARD_FROM: u32 = 32768;

/// The SMPI family name of a kernel (`smpi/<family>:<algorithm>`).
fn family(op: crate::plan::Op) -> &'static str {
    op.family().blocking().name()
}

/// What `delaybench simulate` needs besides its plan: the platform, SMPI's collective
/// selection, the output and what the end of the run makes. Plain data, filled from the
/// command line ([`super::SmpiArgs::settings`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SimSettings {
    /// A built-in platform (`fat-tree`, `torus`, `dragonfly`, `local`) or a platform file.
    pub platform: String,
    /// With a platform file: the host of each rank slot, as smpirun's -hostfile.
    pub hostfile: Option<PathBuf>,
    /// Ranks per simulated host of a built-in platform.
    pub ranks_per_host: u32,
    /// SMPI's collective selector (`smpi/coll-selector`).
    pub coll_selector: Option<String>,
    /// SMPI algorithm names to sweep: one simulation and one records file each.
    pub algorithms: Vec<String>,
    /// Further SimGrid options, `key:value`.
    pub cfg: Vec<String>,
    /// Simulate every repetition, not each distinct delay vector once.
    pub every_repetition: bool,
    /// Records file; `None`: `results/simulated-<UTC time, µs>-<pid>.cbor`.
    pub output: Option<PathBuf>,
    /// Tags kept in the header.
    pub tags: Vec<crate::records::Tag>,
    /// Draw no figures and no report page at the end.
    pub no_figures: bool,
    /// Print and write no summary at the end.
    pub no_summary: bool,
    /// Keep the simulator's work files.
    pub keep_files: bool,
}

/// Checks a simulated plan as a measurement checks its plan ([`Plan::check_alone`]; detours,
/// overlap, adaptive repetitions and clock options do not apply), and that the simulated
/// ranks' program runs its kernels.
///
/// Errors: [`SmpiError::Plan`] naming the option at fault.
pub fn check_plan(plan: &Plan) -> Result<(), SmpiError> {
    let bad = |m: String| Err(SmpiError::Plan(m));
    plan.check_alone()
        .map_err(|e| SmpiError::Plan(e.to_string()))?;
    if plan.procs.iter().any(|&p| p < 2) {
        return bad("--procs: every P must be at least 2".into());
    }
    for op in &plan.ops {
        if !super::plan_file::simulated(*op) {
            return bad(format!(
                "--ops {op}: the simulated ranks' program has no {op} (it runs {} and their \
                 nonblocking forms; not the ref:* algorithms, the v-forms or the persistent \
                 forms)",
                super::plan_file::SIMULATED_FAMILIES.join(", ")
            ));
        }
    }
    Ok(())
}

/// Simulates `plan` (checked by [`check_plan`]) with `settings`, writing the summary to `out`.
///
/// Errors: every [`SmpiError`]; platform errors come before anything runs.
pub fn run(plan: &Plan, settings: &SimSettings, out: &mut dyn Write) -> Result<(), SmpiError> {
    let builtin = match settings.platform.as_str() {
        "local" => Some(super::calibrate::local()?),
        name => Builtin::parse(name),
    };
    if builtin.is_none() && settings.hostfile.is_none() {
        return Err(SmpiError::Platform(format!(
            "--platform {} is neither a built-in (fat-tree, torus, dragonfly, local) nor used \
             with --hostfile: a platform file needs a host file, as smpirun's -hostfile",
            settings.platform
        )));
    }
    // The SMPI families of the kernels, once each: `--algorithms` sets its name in each.
    let mut fams: Vec<&str> = plan.ops.iter().map(|&op| family(op)).collect();
    fams.sort_unstable();
    fams.dedup();
    if !settings.algorithms.is_empty() && fams.len() > 1 {
        // Else SMPI aborts at the first launch ("Collective 'barrier' has no
        // algorithm 'rdb'"), after the platform and the program are built.
        return Err(SmpiError::Plan(format!(
            "--algorithms names algorithms of one SMPI family, and --ops has {} ({}): \
             the names differ per family, so sweep one at a time (e.g. --ops {})",
            fams.len(),
            fams.join(", "),
            fams[0]
        )));
    }
    let pmax = *plan.procs.iter().max().expect("validated: procs not empty");
    let work = work_dir()?;
    let largest = match builtin {
        Some(b) => platform::builtin(b, pmax, settings.ranks_per_host, &work)?,
        None => platform::from_files(
            Path::new(&settings.platform),
            settings.hostfile.as_deref().expect("checked above"),
            pmax,
        )?,
    };
    for &p in &plan.procs {
        plan.delay_ranks
            .validate(p, &largest.rank_hosts[..p as usize])
            .map_err(|e| SmpiError::Plan(format!("--delay-rank at P = {p}: {e}")))?;
    }
    let tools = Toolchain::find()?;
    let program = tools.program()?;

    let algorithms: Vec<Option<&str>> = if settings.algorithms.is_empty() {
        vec![None]
    } else {
        settings
            .algorithms
            .iter()
            .map(|a| Some(a.as_str()))
            .collect()
    };
    let base_out = settings
        .output
        .clone()
        .unwrap_or_else(|| crate::output_name::default_output("results", "simulated", "cbor"));
    let mut outputs = Vec::new();
    for alg in &algorithms {
        let path = match alg {
            Some(a) if algorithms.len() > 1 => with_suffix(&base_out, a),
            _ => base_out.clone(),
        };
        let end =
            crate::end_of_run::EndOfRun::new(&path, None, settings.no_figures, settings.no_summary);
        end.check().map_err(SmpiError::Plan)?;
        if path.exists() {
            return Err(crate::records::RecordsError::Exists(path.display().to_string()).into());
        }
        outputs.push((path, end));
    }
    for (alg, (path, end)) in algorithms.iter().zip(&outputs) {
        let mut cfg: Vec<String> = BASE_CFG.iter().map(|s| s.to_string()).collect();
        let mut selector = Vec::new();
        if let Some(sel) = &settings.coll_selector {
            cfg.push(format!("smpi/coll-selector:{sel}"));
            selector.push(sel.clone());
        }
        if let Some(a) = alg {
            for f in &fams {
                cfg.push(format!("smpi/{f}:{a}"));
                selector.push(format!("{f}={a}"));
            }
        }
        if let Some(Builtin::Local(_)) = builtin {
            // The calibration measured this machine's own latency and bandwidth: SMPI's
            // default correction factors (fitted to another cluster) would change them.
            cfg.push("smpi/lat-factor:0:1".into());
            cfg.push("smpi/bw-factor:0:1".into());
        }
        for c in &settings.cfg {
            if let Some(rest) = c.strip_prefix("smpi/") {
                if rest.contains(':') && !rest.starts_with("coll-selector") {
                    selector.push(rest.replacen(':', "=", 1));
                }
            }
            cfg.push(c.clone());
        }
        let simulation = Simulation {
            engine: "SimGrid SMPI".into(),
            engine_version: tools.version.clone(),
            platform: largest.description.clone(),
            collective_selector: if selector.is_empty() {
                "default".into()
            } else {
                selector.join("; ")
            },
            config: cfg.clone(),
            ranks_per_host: if builtin.is_some() {
                settings.ranks_per_host
            } else {
                0
            },
            distinct_repetitions: !settings.every_repetition,
            costs: Vec::new(),
        };
        let started = Instant::now();
        // Each P's blocks go into the file as soon as they are simulated, so an interrupted
        // curve keeps the P's it finished. The header's costs of every P are known only at
        // the end: the finished file is then written again beside it with them and renamed
        // over it (at 16,384 ranks a block of 100 repetitions is about 40 MB, small beside
        // the simulator's own memory). The file is created now, so a path that cannot be
        // written stops the run before it simulates.
        let mut writer = RecordsWriter::create(path)?;
        writer.write_header(&header(plan, &largest, simulation.clone(), &settings.tags))?;
        let mut costs = Vec::new();
        let mut done: Vec<Done> = Vec::new();
        let mut curve = Vec::new();
        let mut stream = 0u64;
        for (i, &p) in plan.procs.iter().enumerate() {
            // Every P runs on the first P rank slots of one machine, the largest P's, as a
            // measurement's sub-communicators do on one cluster.
            let plat = Platform {
                rank_hosts: largest.rank_hosts[..p as usize].to_vec(),
                ..largest.clone()
            };
            let (sims, labels) = blocks_of(plan, p, &plat.rank_hosts, &mut stream);
            let t = Instant::now();
            let peak = Cell::new(0u64);
            let run = |sims: &[SimBlock]| {
                let (blocks, bytes) = simulate_p(
                    &tools,
                    &Launch {
                        program: &program,
                        plat: &plat,
                        p,
                        cfg: &cfg,
                        work: &work,
                        keep: settings.keep_files,
                        every_warmup: settings.every_repetition,
                    },
                    sims,
                    &labels,
                )?;
                peak.set(peak.get().max(bytes));
                Ok(blocks)
            };
            let result = if settings.every_repetition {
                run(&sims).map(|b| (b, plan.nrep as usize * sims.len()))
            } else {
                simulate_distinct(&sims, p, run)
            };
            let (mut blocks, simulated) = match result {
                Ok(r) => r,
                Err(e) => {
                    // A file with a header alone holds nothing and would only make the
                    // same command refuse its --output next time; a file with finished
                    // P's is kept, as an interrupted curve's.
                    drop(writer);
                    if curve.is_empty() {
                        let _ = std::fs::remove_file(path);
                    } else {
                        eprintln!(
                            "delaybench: the P's simulated before P = {p} are kept in {}",
                            path.display()
                        );
                    }
                    return Err(e);
                }
            };
            if let Some(a) = alg {
                for b in &mut blocks {
                    b.algorithm = Some(AlgorithmSetting {
                        name: (*a).to_string(),
                        variable: format!("smpi/{}", family(b.op)),
                        value: None,
                    });
                }
            }
            let wall_s = t.elapsed().as_secs_f64();
            done.push(Done { procs: p, wall_s });
            eprintln!(
                "delaybench: simulated P = {p}{}: {} block(s), {simulated} of {} repetitions \
                 simulated, in {wall_s:.1} s of wall time{}",
                alg.map(|a| format!(" ({a})")).unwrap_or_default(),
                blocks.len(),
                plan.nrep as usize * sims.len(),
                progress::line_tail(&done, &plan.procs[i + 1..], peak.get())
            );
            costs.push(SimulationCost {
                procs: p,
                wall_time_s: wall_s,
                peak_memory_bytes: peak.get(),
                simulated_repetitions: simulated as u64,
            });
            for b in &blocks {
                writer.write_block(b)?;
            }
            curve.extend(blocks);
        }
        let footer = Footer {
            end_offsets_s: vec![0.0; pmax as usize],
            offset_change_s: vec![0.0; pmax as usize],
            max_abs_offset_change_s: 0.0,
            wall_time_s: started.elapsed().as_secs_f64(),
            warnings: Vec::new(),
        };
        writer.finish(&footer)?;
        let simulation = Simulation {
            costs,
            ..simulation
        };
        let with_costs = header(plan, &largest, simulation, &settings.tags);
        let mut whole = path.as_os_str().to_owned();
        whole.push(".with-costs");
        let whole = std::path::PathBuf::from(whole);
        let mut again = RecordsWriter::create(&whole)?;
        again.write_header(&with_costs)?;
        for b in &curve {
            again.write_block(b)?;
        }
        again.finish(&footer)?;
        rename_over(&whole, path)?;
        crate::end_of_run::print_summary(path, end, out);
    }
    if settings.keep_files {
        eprintln!("delaybench: simulator files kept in {}", work.display());
    } else {
        let _ = std::fs::remove_dir_all(&work);
    }
    Ok(())
}

/// The blocks of one P with each distinct delay vector simulated once
/// ([`super::distinct`]), and how many repetitions were simulated. A block whose check
/// copies differ from its first repetition is simulated again repetition by repetition (all
/// blocks of the P in one more launch), and says so.
///
/// Errors: those of `run`.
fn simulate_distinct(
    sims: &[SimBlock],
    p: u32,
    run: impl Fn(&[SimBlock]) -> Result<Vec<crate::records::Block>, SmpiError>,
) -> Result<(Vec<crate::records::Block>, usize), SmpiError> {
    let reduced: Vec<Option<distinct::Reduced>> =
        sims.iter().map(|b| distinct::reduce(b, p)).collect();
    if reduced.iter().all(Option::is_none) {
        return Ok((run(sims)?, sims.iter().map(|b| b.nrep as usize).sum()));
    }
    let to_run: Vec<SimBlock> = sims
        .iter()
        .zip(&reduced)
        .map(|(b, r)| r.as_ref().map_or_else(|| b.clone(), |r| r.sim.clone()))
        .collect();
    let simulated: usize = to_run.iter().map(|b| b.nrep as usize).sum();
    let mut out = Vec::with_capacity(sims.len());
    for ((block, original), r) in run(&to_run)?.into_iter().zip(sims).zip(&reduced) {
        match r {
            None => out.push(block),
            Some(r) => match distinct::expand(block, original, r) {
                Ok(b) => out.push(b),
                Err(worst) => {
                    eprintln!(
                        "delaybench: P = {p}: repetitions with the same delays differ by {:.3} \
                         ns in simulated time, so every repetition is simulated",
                        worst * 1e9
                    );
                    let all = run(sims)?;
                    return Ok((
                        all,
                        simulated + sims.iter().map(|b| b.nrep as usize).sum::<usize>(),
                    ));
                }
            },
        }
    }
    Ok((out, simulated))
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

/// A fresh work directory for the plan, delays and output files.
fn work_dir() -> Result<PathBuf, SmpiError> {
    let dir = std::env::temp_dir().join(format!(
        "delaybench-simulate-{}-{}",
        std::process::id(),
        chrono::Utc::now().format("%H%M%S%6f")
    ));
    std::fs::create_dir_all(&dir).map_err(|source| SmpiError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    Ok(dir)
}

/// What one launch of the simulator runs, besides its blocks.
struct Launch<'a> {
    /// The simulated ranks' program.
    program: &'a Path,
    plat: &'a Platform,
    /// Process count.
    p: u32,
    /// SimGrid options, `key:value`.
    cfg: &'a [String],
    /// The run's work directory (a `p<P>` folder is made in it).
    work: &'a Path,
    /// Keep the delays and output files.
    keep: bool,
    /// Simulate every warm-up call (no extrapolation, [`super::plan_file::encode`]).
    every_warmup: bool,
}

/// One `smpirun` of `p` ranks over `sims`: writes the plan, runs, reads the blocks back.
/// Returns the blocks and the launch's peak resident memory, bytes.
fn simulate_p(
    tools: &Toolchain,
    launch: &Launch,
    sims: &[SimBlock],
    labels: &[BlockLabel],
) -> Result<(Vec<crate::records::Block>, u64), SmpiError> {
    let Launch {
        program,
        plat,
        p,
        cfg,
        work,
        keep,
        every_warmup,
    } = *launch;
    let dir = work.join(format!("p{p}"));
    std::fs::create_dir_all(&dir).map_err(|source| SmpiError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    let (text, delays) = encode(sims, p, every_warmup);
    let (plan_path, delays_path) = (dir.join("plan.txt"), dir.join("delays.bin"));
    let (out_path, hostfile) = (dir.join("out.bin"), dir.join("hostfile.txt"));
    let progress_path = dir.join("progress.txt");
    // Created empty here: each simulated rank writes its own part into it; rank 0 appends
    // its position to the progress file.
    write_file(&out_path, &[])?;
    write_file(&progress_path, &[])?;
    write_file(&plan_path, text.as_bytes())?;
    write_file(&delays_path, &delays)?;
    write_file(&hostfile, (plat.rank_hosts.join("\n") + "\n").as_bytes())?;
    let log_path = dir.join("smpirun.log");
    let log = std::fs::File::create(&log_path).map_err(|source| SmpiError::Io {
        path: log_path.display().to_string(),
        source,
    })?;
    let mut cmd = Command::new(&tools.smpirun);
    cmd.arg("-np")
        .arg(p.to_string())
        .arg("-platform")
        .arg(&plat.xml)
        .arg("-hostfile")
        .arg(&hostfile);
    for c in cfg {
        cmd.arg(format!("--cfg={c}"));
    }
    if p >= NO_GUARD_FROM {
        cmd.arg("--cfg=contexts/guard-size:0");
    }
    cmd.arg("--log=root.thres:warning")
        .arg(program)
        .args([&plan_path, &delays_path, &out_path, &progress_path])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|source| SmpiError::Io {
            path: log_path.display().to_string(),
            source,
        })?)
        .stderr(log);
    let tool_err = |e: std::io::Error| SmpiError::Tool(format!("{}: {e}", tools.smpirun.display()));
    let mut child = cmd.spawn().map_err(tool_err)?;
    let (status, peak) = watch::while_watching(
        &progress_path,
        p,
        watch::PROGRESS_EVERY,
        |line| eprintln!("{line}"),
        || progress::wait_with_peak(&mut child),
    )
    .map_err(tool_err)?;
    if !status.success() {
        let text = std::fs::read_to_string(&log_path).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(15)..].join("\n");
        return Err(SmpiError::Run {
            procs: p,
            status: status.to_string(),
            log: log_path.display().to_string(),
            tail,
        });
    }
    let bytes = std::fs::read(&out_path).map_err(|source| SmpiError::Io {
        path: out_path.display().to_string(),
        source,
    })?;
    let blocks = decode(&bytes, p, sims, labels).map_err(|reason| SmpiError::Output {
        path: out_path.display().to_string(),
        reason,
    })?;
    if !keep {
        for f in [&delays_path, &out_path, &progress_path] {
            let _ = std::fs::remove_file(f);
        }
    }
    Ok((blocks, peak))
}

/// The header of a simulated run: the plan, the simulated hosts of the largest P, one
/// perfect clock (identity models, no synchronisation) and the simulation's identity. The
/// MPI library reads `simulated: SimGrid SMPI <version>`, so every table row and figure
/// subtitle that names the library says the run was simulated.
fn header(
    plan: &Plan,
    largest: &Platform,
    sim: Simulation,
    tags: &[crate::records::Tag],
) -> Header {
    let world = largest.rank_hosts.len();
    let header = Header::new(
        plan.clone(),
        largest.rank_hosts.clone(),
        format!(
            "simulated: {} {}, platform {}",
            sim.engine, sim.engine_version, sim.platform
        ),
        ClockInfo {
            source: "simulated (SimGrid's clock, MPI_Wtime)".into(),
            resolution_s: 1e-9,
            timer_delay_s: 0.0,
        },
        ClockSyncInfo {
            method: "none (simulated: one clock)".into(),
            params: Vec::new(),
            models: vec![ClockModel::offset_only(0.0); world],
            min_rtt_s: vec![0.0; world],
            exchanges: vec![0; world],
            duration_s: 0.0,
            shared: Vec::new(),
            slope_se: Vec::new(),
        },
        WaitInfo {
            rule: "simulated: nanosleep to the start instant in simulated time".into(),
            hosts: Vec::new(),
            spin_margin_s: 0.0,
            late_tolerance_s: Some(SIM_LATE_TOLERANCE_S),
        },
        "auto: 2 x 90th percentile of the slowest rank's warm-up operation time \
         + 1.1 x largest delay + 20 us (simulated time)",
        Provenance::new(tags.to_vec(), Vec::new()),
    );
    Header {
        simulation: Some(sim),
        ..header
    }
}
