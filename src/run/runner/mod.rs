//! The measurement run: every (P, op, bytes, delay) block, written by rank 0 as it finishes.
//! This file holds the loop over P and configurations; the configuration, block, detour,
//! clock, noise-check, call-entry and header steps are in the files named for them, and what
//! the run tells the user goes through [`Reports`].

mod block;
mod call_entry;
mod clocks;
mod configuration;
mod detours;
mod header;
mod noise_check;
mod p2p;

use super::error::RunError;
use super::hosts::Hosts;
use super::interrupt;
use super::report::{Console, Report, Reports, RunStart, Summary, Warning};
use super::session::{at_p, Session, WithSession};
use super::tracking::ProbeComms;
use crate::clock::{build, ClockModel, ClockSync};
use crate::end_of_run::EndOfRun;
use crate::plan::{blocks, Op, Plan, RunOptions};
use crate::records::*;
use block::block_name;
use detours::load_agreed;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;

/// One rank's state during a measurement run.
pub struct Runner<'w> {
    session: Session<'w>,
    plan: Plan,
    /// `--tag key=value`, for the header.
    tags: Vec<Tag>,
    /// What rank 0 tells the user (none on the other ranks).
    reports: Reports,
    clock_sync: Box<dyn ClockSync + Send + Sync>,
    /// On rank 0: every world rank's current clock model.
    models: Vec<ClockModel>,
    last_sync: Instant,
    started: Instant,
    /// On rank 0: the warnings so far, in order, for the footer.
    warnings: Vec<String>,
    /// Text of the study file (`--config`), for the header.
    study: Option<String>,
    /// Blocks measured so far by this rank (numbers the delay streams).
    blocks_done: u64,
    /// On rank 0: every world rank's shared-clock check from the initial synchronisation.
    shared: Vec<SharedClockCheck>,
    /// When the clocks were last probed for drift tracking.
    last_probe: Instant,
    /// Rank 0: the clocks were (re)synchronised and no block has probed early since
    /// ([`crate::run::measure::early_probe_reps`]).
    early_probes: bool,
    /// On rank 0: the blocks in which no repetition was valid, as `op size P delay`.
    empty_blocks: Vec<String>,
    /// The noise file replayed as detours (`--detour trace:`), read by every rank.
    trace: Option<(crate::delay::NoiseFileSpec, crate::records::noise::NoiseRun)>,
    /// `--no-noise-check`.
    no_noise_check: bool,
    /// `--start-path`: per repetition, the run-queue and steal counters.
    start_path: bool,
    /// On rank 0: the noise check's result, for the header and the warnings.
    noise_check: Option<NoiseCheck>,
    /// On rank 0: the library's first instructions timed (`call_entry.rs`), for the header
    /// and the end-of-run line.
    call_entry: Option<crate::records::CallEntry>,
    /// Whether noise was already warned about (once per run).
    noise_warned: bool,
    /// On rank 0: the job and the ranks' placement, for the header.
    job: Option<JobInfo>,
    /// On rank 0: the point-to-point one-way times (`p2p.rs`), for the header.
    p2p: Option<P2pTimes>,
    /// `--algorithms`, `--algorithm-from-env`: MPI_T and the library's algorithm variables.
    sweep: Option<super::algorithms::Sweep>,
    /// The algorithm the configuration being measured runs with, and its check.
    algorithm: Option<(
        crate::plan::algorithms::AlgorithmSetting,
        crate::plan::algorithms::AlgorithmCheck,
    )>,
}

impl<'w> Runner<'w> {
    /// A runner for `plan` (the same on every rank); on rank 0, `end` says what the end of
    /// the run makes from the records, and where.
    pub fn new(
        world: &'w SimpleCommunicator,
        hosts: Hosts,
        plan: Plan,
        opts: &RunOptions,
        study: Option<String>,
        end: Option<EndOfRun>,
    ) -> Self {
        let mut hosts = hosts;
        hosts.set_subcomm(plan.subcomm);
        let session = Session::new(world, hosts, plan.clock, plan.emulate_clock.as_ref());
        let mut reports = Reports::none();
        if world.rank() == 0 {
            reports.push(Console::new(opts.quiet));
            if let Some(end) = end {
                reports.push(Summary(end));
            }
        }
        Runner {
            session,
            clock_sync: build(plan.clock_sync, &plan.clock_params),
            plan,
            reports,
            tags: opts.tags.clone(),
            models: Vec::new(),
            last_sync: Instant::now(),
            started: Instant::now(),
            warnings: Vec::new(),
            study,
            blocks_done: 0,
            shared: Vec::new(),
            last_probe: Instant::now(),
            early_probes: false,
            empty_blocks: Vec::new(),
            trace: None,
            no_noise_check: opts.no_noise_check,
            start_path: opts.start_path,
            noise_check: None,
            call_entry: None,
            noise_warned: false,
            job: None,
            p2p: None,
            sweep: None,
            algorithm: None,
        }
    }

    /// On rank 0, the job and placement (`job::gather`) for the header; a Slurm job whose
    /// ranks share cores is warned about now and in the footer.
    pub fn set_job(&mut self, job: Option<JobInfo>) {
        if let Some(msg) = job.as_ref().and_then(JobInfo::shared_cpus_warning) {
            self.warn(Warning::SharedCpus(msg));
        }
        self.job = job;
    }

    /// The algorithm sweep (`--algorithms`, `--algorithm-from-env`), started before the run.
    pub fn set_sweep(&mut self, sweep: Option<super::algorithms::Sweep>) {
        self.sweep = sweep;
    }

    /// On rank 0, how many blocks had no valid repetition (0 on the other ranks).
    pub fn blocks_without_valid(&self) -> usize {
        self.empty_blocks.len()
    }

    fn is_root(&self) -> bool {
        self.session.world.rank() == 0
    }

    /// Measures the whole plan; errors are this rank's and end the run.
    pub fn run(&mut self, mut writer: Option<RecordsWriter>) -> Result<(), RunError> {
        let world = self.session.world;
        self.trace = self
            .plan
            .detour_noise_file
            .as_ref()
            .map(load_agreed)
            .transpose()?;
        // The watchdog watches the whole run; ranks waiting for others beat as they poll.
        interrupt::arm("the clock synchronisation".into());
        let gathered = self
            .session
            .synchronise_shared(world, self.clock_sync.as_ref());
        self.last_sync = Instant::now();
        self.early_probes = true;
        self.models = gathered.models.clone();
        self.shared = gathered.shared.clone();
        let machines = super::machines::gather_machines(world, &self.session.hosts.names);
        if !self.no_noise_check {
            interrupt::arm("the noise check".into());
            self.noise_check = self.check_noise();
            if let Some(check) = &self.noise_check {
                self.reports.noise_checked(check);
            }
        }
        // Only window-synchronised blocks have a start spread for the timed calls to widen.
        if self.plan.sync == crate::plan::ProcessSyncMethod::Window {
            interrupt::arm("timing the library's first instructions".into());
            self.call_entry = self.time_call_entry();
        }
        interrupt::arm("the point-to-point ping-pong".into());
        self.p2p = self.measure_p2p();
        if let Some(w) = writer.as_mut() {
            w.write_header(&self.header(&gathered, machines))?;
        }
        if let Some(w) = writer.as_ref() {
            let start = RunStart {
                ranks: world.size(),
                hosts: self.session.hosts.loads.len(),
                clock_sync: self.clock_sync.name(),
                clock_sync_s: gathered.duration_s,
                shared: &gathered.shared,
                models: &gathered.models,
                path: w.path(),
                blocks: self.total_blocks(),
                most_repetitions: crate::plan::checks::most_repetitions(&self.plan),
            };
            self.reports.measurement_start(&start);
        }
        let mut medians = Vec::new();
        for p in self.plan.procs.clone() {
            self.measure_p(p, writer.as_mut(), &mut medians);
            // Every rank, idle or measuring, takes part: the same answer everywhere.
            if interrupt::agreed(world) {
                break;
            }
        }
        self.reports.measurement_end();
        interrupt::disarm();
        if let Some(sig) = interrupt::signal() {
            if let Some(w) = writer {
                self.reports.interrupted(sig, w.path());
            }
            return Ok(());
        }
        if !self.empty_blocks.is_empty() {
            self.warn(Warning::EmptyBlocks {
                names: self.empty_blocks.clone(),
                total: self.total_blocks(),
            });
        }
        let footer = self.end_of_run_check(&medians);
        if let Some(w) = writer {
            let path = w.path().to_path_buf();
            w.finish(&footer)?;
            self.reports.run_end(&path);
        }
        Ok(())
    }

    fn total_blocks(&self) -> u64 {
        self.blocks_per_p() * self.plan.procs.len() as u64
    }

    /// Measures every (op, bytes) on ranks 0..p-1; the other ranks wait without using the CPU.
    fn measure_p(&mut self, p: u32, writer: Option<&mut RecordsWriter>, medians: &mut Vec<f64>) {
        // Delay streams are numbered by block over the whole run, and every rank must number
        // them alike, idle or not.
        let first_block = self.blocks_done;
        let tolerance = self.plan.late_tolerance_s;
        let world = self.session.world;
        let (_, warning) = at_p(self, p, tolerance, |runner, comm| {
            // An error ends every rank at once: waiting for the idle ranks first could hang.
            runner
                .measure_configurations(comm, p, writer, medians)
                .unwrap_or_else(|e| super::fail(world, &e.to_string()));
        });
        // Printed before the measurement at P (`warn_waiting`), kept for the footer after it,
        // behind the warnings that measurement gave.
        if let (Some(msg), true) = (warning, self.is_root()) {
            self.warnings.push(msg);
        }
        self.blocks_done = first_block + self.blocks_per_p();
    }

    /// Every (op, bytes) at P on `comm`, the measuring ranks' part of [`Runner::measure_p`].
    fn measure_configurations(
        &mut self,
        comm: &SimpleCommunicator,
        p: u32,
        mut writer: Option<&mut RecordsWriter>,
        medians: &mut Vec<f64>,
    ) -> Result<(), RunError> {
        let me = self.session.world.rank() as usize;
        let comms = self.plan.track_every_s.map(|_| {
            ProbeComms::new(
                comm,
                &self.session.hosts.names[me],
                me as u32,
                self.session.clock_verdict,
            )
        });
        let configurations = blocks::configurations(&self.plan, |op| self.settings_for(op));
        for blocks::Configuration { op, bytes, setting } in configurations {
            if interrupt::stopping() {
                return Ok(());
            }
            self.resync_if_due(comm);
            self.reports.configuration_start(op, bytes, p);
            // An algorithm is written before its configuration; Open MPI reads it when a
            // communicator is created, so the configuration runs on a new one.
            let fresh = match (&setting, &self.sweep) {
                (Some(s), Some(sweep)) => {
                    let (check, fresh) = sweep.apply(comm, op, s)?;
                    self.algorithm = Some((s.clone(), check));
                    fresh
                }
                _ => None,
            };
            let on = fresh.as_ref().unwrap_or(comm);
            // Blocks are written as they are measured (long ones chunk by chunk).
            let w = writer.as_deref_mut();
            let measured = self.measure_configuration(on, op, bytes, comms.as_ref(), w)?;
            self.algorithm = None;
            // Back to the value every rank started with: a forced value left on the
            // measuring ranks only would give the next communicator (Open MPI) or the
            // next call (MPICH) different algorithms on different ranks, and a
            // collective whose ranks run different algorithms can hang.
            if let (Some(_), Some(sweep)) = (&setting, &self.sweep) {
                sweep.restore(op)?;
            }
            for block in measured {
                let valid = crate::analysis::valid_t_globals(&block);
                if valid.is_empty() {
                    self.empty_blocks.push(block_name(&block));
                }
                medians.extend(crate::analysis::median(&valid));
                self.reports.block_done(&block);
            }
        }
        Ok(())
    }

    /// The algorithms `op` is measured with: `[None]` without a sweep.
    fn settings_for(&self, op: Op) -> Vec<Option<crate::plan::algorithms::AlgorithmSetting>> {
        match &self.sweep {
            None => vec![None],
            Some(s) => s.settings(op).into_iter().map(Some).collect(),
        }
    }

    /// Blocks measured at each P: every (op, size) times the baseline and each delay model.
    fn blocks_per_p(&self) -> u64 {
        blocks::blocks_per_p(&self.plan, |op| self.settings_for(op).len())
    }

    /// A warning: told to the reports now (printed on rank 0) and kept for the footer.
    fn warn(&mut self, warning: Warning) {
        self.reports.warning(&warning);
        self.warnings.push(warning.to_string());
    }
}

impl<'w> WithSession<'w> for Runner<'w> {
    fn session(&mut self) -> &mut Session<'w> {
        &mut self.session
    }

    /// Through the reports, like every other warning of the run.
    fn warn_waiting(&mut self, msg: &str) {
        self.reports.warning(&Warning::Oversubscribed(msg.into()));
    }
}
