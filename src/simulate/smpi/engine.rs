//! The SMPI engine: [`SmpiSetup::prepare`] checks and builds what every launch needs (the
//! platform of the largest P, SimGrid's tools, the simulated ranks' program, the work
//! directory) before anything runs; [`SmpiEngine`], one per swept algorithm, runs one
//! `smpirun` per P and reads the times back.

use super::distinct;
use super::output::decode;
use super::platform::{self, Builtin, Platform};
use super::toolchain::Toolchain;
use super::watch;
use super::{write_file, SmpiError};
use crate::plan::algorithms::AlgorithmSetting;
use crate::plan::{Op, Plan};
use crate::records::Simulation;
use crate::simulate::blocks::{SimBlock, SimulatedTimes};
use crate::simulate::{progress, Engine, SimulateError, Simulated, SmpiSettings};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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
fn family(op: Op) -> &'static str {
    op.family().blocking().name()
}

/// Checks that the simulated ranks' program runs every kernel of `plan`.
///
/// Errors: [`SmpiError::Plan`] naming `--ops`.
pub fn check_ops(plan: &Plan) -> Result<(), SmpiError> {
    for op in &plan.ops {
        if !super::plan_file::simulated(*op) {
            return Err(SmpiError::Plan(format!(
                "--ops {op}: the simulated ranks' program has no {op} (it runs {} and their \
                 nonblocking forms; not the ref:* algorithms, the v-forms or the persistent \
                 forms)",
                super::plan_file::SIMULATED_FAMILIES.join(", ")
            )));
        }
    }
    Ok(())
}

/// What every SMPI launch of one `simulate` shares, prepared before anything runs.
pub struct SmpiSetup {
    settings: SmpiSettings,
    builtin: Option<Builtin>,
    /// The SMPI families of the kernels, once each: `--algorithms` sets its name in each.
    fams: Vec<&'static str>,
    /// The platform of the largest P.
    largest: Platform,
    tools: Toolchain,
    program: PathBuf,
    work: PathBuf,
    keep_files: bool,
    every_repetition: bool,
}

impl SmpiSetup {
    /// Checks the platform and the sweep, builds the platform of the largest P, finds
    /// SimGrid and builds the simulated ranks' program (at first use).
    ///
    /// Errors: every [`SmpiError`], all before a rank is simulated.
    pub fn prepare(
        plan: &Plan,
        settings: &SmpiSettings,
        algorithms: &[String],
        every_repetition: bool,
        keep_files: bool,
    ) -> Result<Self, SmpiError> {
        let builtin = match settings.platform.as_str() {
            "local" => Some(super::calibrate::local()?),
            name => Builtin::parse(name),
        };
        if builtin.is_none() && settings.hostfile.is_none() {
            return Err(SmpiError::Platform(format!(
                "--platform {} is neither a built-in (fat-tree, torus, dragonfly, local) nor \
                 used with --hostfile: a platform file needs a host file, as smpirun's \
                 -hostfile",
                settings.platform
            )));
        }
        let mut fams: Vec<&str> = plan.ops.iter().map(|&op| family(op)).collect();
        fams.sort_unstable();
        fams.dedup();
        if !algorithms.is_empty() && fams.len() > 1 {
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
        let tools = Toolchain::find()?;
        let program = tools.program()?;
        Ok(SmpiSetup {
            settings: settings.clone(),
            builtin,
            fams,
            largest,
            tools,
            program,
            work,
            keep_files,
            every_repetition,
        })
    }

    /// The host of every rank slot of the largest P.
    pub fn rank_hosts(&self) -> &[String] {
        &self.largest.rank_hosts
    }

    /// The engine of one swept algorithm (`None`: SMPI's selection), with its SimGrid
    /// options.
    pub fn engine(&self, alg: Option<&str>) -> SmpiEngine<'_> {
        let settings = &self.settings;
        let mut cfg: Vec<String> = BASE_CFG.iter().map(|s| s.to_string()).collect();
        let mut selector = Vec::new();
        if let Some(sel) = &settings.coll_selector {
            cfg.push(format!("smpi/coll-selector:{sel}"));
            selector.push(sel.clone());
        }
        if let Some(a) = alg {
            for f in &self.fams {
                cfg.push(format!("smpi/{f}:{a}"));
                selector.push(format!("{f}={a}"));
            }
        }
        if let Some(Builtin::Local(_)) = self.builtin {
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
            engine_version: self.tools.version.clone(),
            platform: self.largest.description.clone(),
            collective_selector: if selector.is_empty() {
                "default".into()
            } else {
                selector.join("; ")
            },
            config: cfg.clone(),
            ranks_per_host: if self.builtin.is_some() {
                settings.ranks_per_host
            } else {
                0
            },
            distinct_repetitions: !self.every_repetition,
            costs: Vec::new(),
            engine_option: "smpi".into(),
            parameters: Vec::new(),
            noise: None,
            progress: None,
        };
        SmpiEngine {
            setup: self,
            alg: alg.map(str::to_string),
            cfg,
            simulation,
        }
    }

    /// Removes the work directory, or says where it is kept (`--keep-files`).
    pub fn finish(&self) {
        if self.keep_files {
            eprintln!(
                "delaybench: simulator files kept in {}",
                self.work.display()
            );
        } else {
            let _ = std::fs::remove_dir_all(&self.work);
        }
    }
}

/// The SMPI engine of one swept algorithm.
pub struct SmpiEngine<'a> {
    setup: &'a SmpiSetup,
    alg: Option<String>,
    /// SimGrid options, `key:value`.
    cfg: Vec<String>,
    simulation: Simulation,
}

impl Engine for SmpiEngine<'_> {
    fn simulation(&self) -> Simulation {
        self.simulation.clone()
    }

    fn rank_hosts(&self) -> &[String] {
        self.setup.rank_hosts()
    }

    fn clock_source(&self) -> String {
        "simulated (SimGrid's clock, MPI_Wtime)".into()
    }

    fn algorithm(&self, op: Op) -> Option<AlgorithmSetting> {
        self.alg.as_ref().map(|a| AlgorithmSetting {
            name: a.clone(),
            variable: format!("smpi/{}", family(op)),
            value: None,
        })
    }

    fn simulate(&mut self, p: u32, sims: &[SimBlock]) -> Result<Simulated, SimulateError> {
        let setup = self.setup;
        // Every P runs on the first P rank slots of one machine, the largest P's.
        let plat = Platform {
            rank_hosts: setup.largest.rank_hosts[..p as usize].to_vec(),
            ..setup.largest.clone()
        };
        let peak = Cell::new(0u64);
        let launch = Launch {
            program: &setup.program,
            plat: &plat,
            p,
            cfg: &self.cfg,
            work: &setup.work,
            keep: setup.keep_files,
            every_warmup: setup.every_repetition,
        };
        let run = |sims: &[SimBlock]| {
            let (times, bytes) = simulate_p(&setup.tools, &launch, sims)?;
            peak.set(peak.get().max(bytes));
            Ok(times)
        };
        let (times, simulated) = if setup.every_repetition {
            run(sims).map(|t| (t, sims.iter().map(|b| b.nrep as usize).sum()))?
        } else {
            simulate_distinct(sims, p, run)?
        };
        Ok(Simulated {
            times,
            simulated_repetitions: simulated,
            peak_memory_bytes: peak.get(),
        })
    }
}

/// The times of one P's blocks with each distinct delay vector simulated once
/// ([`super::distinct`]), and how many repetitions were simulated. A block whose check
/// copies differ from its first repetition is simulated again repetition by repetition (all
/// blocks of the P in one more launch), and says so.
///
/// Errors: those of `run`.
fn simulate_distinct(
    sims: &[SimBlock],
    p: u32,
    run: impl Fn(&[SimBlock]) -> Result<Vec<SimulatedTimes>, SmpiError>,
) -> Result<(Vec<SimulatedTimes>, usize), SmpiError> {
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
    for ((times, original), r) in run(&to_run)?.into_iter().zip(sims).zip(&reduced) {
        match r {
            None => out.push(times),
            Some(r) => match distinct::expand(times, p, original, r) {
                Ok(t) => out.push(t),
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

/// One `smpirun` of `p` ranks over `sims`: writes the plan, runs, reads the times back.
/// Returns the times and the launch's peak resident memory, bytes.
fn simulate_p(
    tools: &Toolchain,
    launch: &Launch,
    sims: &[SimBlock],
) -> Result<(Vec<SimulatedTimes>, u64), SmpiError> {
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
    let (text, delays) = super::plan_file::encode(sims, p, every_warmup);
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
    let times = decode(&bytes, p, sims).map_err(|reason| SmpiError::Output {
        path: out_path.display().to_string(),
        reason,
    })?;
    if !keep {
        for f in [&delays_path, &out_path, &progress_path] {
            let _ = std::fs::remove_file(f);
        }
    }
    Ok((times, peak))
}
