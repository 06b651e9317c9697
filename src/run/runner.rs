//! The measurement run: every (P, op, bytes, delay) block, written by rank 0 as it finishes.

use super::error::RunError;
use super::hosts::Hosts;
use super::interrupt;
use super::kernels::Kernel;
use super::measure::{
    auto_window, early_probe_reps, gather_detours, measure_block, pure_pass, warm_up, BlockSpec,
};
use super::overlap::Compute;
use super::report::Progress;
use super::session::{at_p, Gathered, Session, WithSession, SPIN_MARGIN_S};
use super::tracking::{probe_clocks, ProbeComms};
use super::window::{BarrierKind, BarrierSync, ProcessSync, WindowSync};
use crate::clock::shared::SharedVerdict;
use crate::clock::{build, timer_delay_s, ClockModel, ClockProbe, ClockSync};
use crate::delay::{
    arrival_orders, rank_column, DelayModel, DetourError, DetourInjector, DetourStats,
};
use crate::end_of_run::EndOfRun;
use crate::noise::replay::{load_trace, schedule_for};
use crate::plan::{blocks, Op, Plan, RunOptions, SyncMethod};
use crate::records::*;
use crate::wait::WaitStrategy;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::time::Instant;

/// How long every rank runs the noise check's loop, seconds.
const NOISE_CHECK_S: f64 = 0.2;
/// The noise check counts detours longer than this, seconds.
const NOISE_CHECK_THRESHOLD_S: f64 = 2e-6;

/// One rank's state during a measurement run.
pub struct Runner<'w> {
    session: Session<'w>,
    plan: Plan,
    /// `--tag key=value`, for the header.
    tags: Vec<Tag>,
    /// On rank 0: what the end of the run makes from the records, and where.
    end: Option<EndOfRun>,
    clock_sync: Box<dyn ClockSync + Send + Sync>,
    /// On rank 0: every world rank's current clock model.
    models: Vec<ClockModel>,
    last_sync: Instant,
    started: Instant,
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
    /// `--quiet`: no start line and no progress.
    quiet: bool,
    /// On rank 0: the blocks in which no repetition was valid, as `op size P delay`.
    empty_blocks: Vec<String>,
    /// The noise file replayed as detours (`--detour trace:`), read by every rank.
    trace: Option<(crate::delay::TraceSpec, crate::records::noise::NoiseRun)>,
    /// `--no-noise-check`.
    no_noise_check: bool,
    /// On rank 0: the noise check's result, for the header and the warnings.
    noise_check: Option<NoiseCheck>,
    /// Whether noise was already warned about (once per run).
    noise_warned: bool,
    /// On rank 0: the job and the ranks' placement, for the header.
    job: Option<JobInfo>,
    /// `--algorithms`, `--algorithm-from-env`: MPI_T and the library's algorithm variables.
    sweep: Option<super::algorithms::Sweep>,
    /// The algorithm the configuration being measured runs with, and its check.
    algorithm: Option<(
        crate::plan::algorithms::AlgorithmSetting,
        crate::plan::algorithms::AlgorithmCheck,
    )>,
}

impl<'w> Runner<'w> {
    /// A runner for `plan` (the same on every rank).
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
        Runner {
            session,
            clock_sync: build(plan.clock_sync, &plan.clock_params),
            plan,
            end,
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
            quiet: opts.quiet,
            empty_blocks: Vec::new(),
            trace: None,
            no_noise_check: opts.no_noise_check,
            noise_check: None,
            noise_warned: false,
            job: None,
            sweep: None,
            algorithm: None,
        }
    }

    /// On rank 0, the job and placement (`job::gather`) for the header; a Slurm job whose
    /// ranks share cores is warned about now and in the footer.
    pub fn set_job(&mut self, job: Option<JobInfo>) {
        if let Some(msg) = job.as_ref().and_then(JobInfo::shared_cpus_warning) {
            eprintln!("delaybench: warning: {msg}");
            self.warnings.push(msg);
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
            .detour_trace
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
        }
        if let Some(w) = writer.as_mut() {
            w.write_header(&self.header(&gathered, machines))?;
        }
        if let Some(w) = writer.as_ref().filter(|_| !self.quiet) {
            eprintln!(
                "delaybench: {} ranks on {} host(s); clock sync {} in {:.3} s ({}), offsets to rank 0: {}; writing {}",
                world.size(),
                self.session.hosts.loads.len(),
                self.clock_sync.name(),
                gathered.duration_s,
                shared_line(&gathered.shared),
                offsets_line(&gathered.models),
                w.path().display()
            );
            for (rank, check) in gathered.shared.iter().enumerate() {
                if check.verdict == SharedVerdict::FailedCheck {
                    eprintln!(
                        "delaybench: warning: rank {rank} has the clock identity of rank {} \
                         (same host, boot and time namespace) but is {:+.3} us off it (RTT \
                         {:.3} us): it was synchronised on its own",
                        check.leader,
                        check.offset_s * 1e6,
                        check.rtt_s * 1e6
                    );
                }
            }
        }
        let mut progress = Progress::new(
            self.is_root() && !self.quiet,
            self.total_blocks(),
            crate::plan::checks::most_repetitions(&self.plan),
        );
        let mut medians = Vec::new();
        for p in self.plan.procs.clone() {
            self.measure_p(p, writer.as_mut(), &mut progress, &mut medians);
            // Every rank, idle or measuring, takes part: the same answer everywhere.
            if interrupt::agreed(world) {
                break;
            }
        }
        progress.finish();
        interrupt::disarm();
        if let Some(sig) = interrupt::signal() {
            if let Some(w) = writer {
                eprintln!(
                    "delaybench: interrupted by signal {sig}: every block measured so far is in \
                     {}, the last one with the repetitions done before the signal; the file has \
                     no footer, so readers call it an interrupted run",
                    w.path().display()
                );
            }
            return Ok(());
        }
        self.warn_empty_blocks();
        let footer = self.end_of_run_check(&medians);
        if let Some(w) = writer {
            let path = w.path().to_path_buf();
            w.finish(&footer)?;
            if let Some(end) = &self.end {
                crate::end_of_run::print_summary(&path, end, &mut std::io::stdout().lock());
            }
        }
        Ok(())
    }

    fn total_blocks(&self) -> u64 {
        self.blocks_per_p() * self.plan.procs.len() as u64
    }

    /// Measures every (op, bytes) on ranks 0..p-1; the other ranks wait without using the CPU.
    fn measure_p(
        &mut self,
        p: u32,
        writer: Option<&mut RecordsWriter>,
        progress: &mut Progress,
        medians: &mut Vec<f64>,
    ) {
        // Delay streams are numbered by block over the whole run, and every rank must number
        // them alike, idle or not.
        let first_block = self.blocks_done;
        let tolerance = self.plan.late_tolerance_s;
        let world = self.session.world;
        let (_, warning) = at_p(self, p, tolerance, |runner, comm| {
            // An error ends every rank at once: waiting for the idle ranks first could hang.
            runner
                .measure_configurations(comm, p, writer, progress, medians)
                .unwrap_or_else(|e| super::fail(world, &e.to_string()));
        });
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
        progress: &mut Progress,
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
            progress.configuration(op, bytes, p);
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
                progress.block_done();
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

    /// Re-synchronises the clocks of `comm`'s ranks when `--resync-every` has passed. Every
    /// rank of `comm` decides alike: rank 0 decides and broadcasts.
    fn resync_if_due(&mut self, comm: &SimpleCommunicator) {
        let Some(every) = self.plan.resync_every_s else {
            return;
        };
        let mut due = u8::from(self.last_sync.elapsed().as_secs_f64() >= every);
        comm.process_at_rank(0).broadcast_into(&mut due);
        if due == 1 {
            let gathered = self
                .session
                .synchronise_shared(comm, self.clock_sync.as_ref());
            self.last_sync = Instant::now();
            self.early_probes = true;
            // Rank 0 gathered per rank of `comm`; the runner keeps models per world rank.
            let members = self.session.hosts.members(comm.size() as u32).to_vec();
            for (&world_rank, model) in members.iter().zip(gathered.models) {
                self.models[world_rank] = model;
            }
        }
    }

    /// Warm-up, window, then the baseline and every delay model; blocks on rank 0.
    fn measure_configuration(
        &mut self,
        comm: &SimpleCommunicator,
        op: Op,
        bytes: u64,
        comms: Option<&ProbeComms>,
        mut writer: Option<&mut RecordsWriter>,
    ) -> Result<Vec<Block>, RunError> {
        interrupt::arm(format!(
            "{op} {bytes} B, P = {} (preparing, warming up)",
            comm.size()
        ));
        let delays = self.delay_matrices(comm.size() as u32);
        let largest = delays
            .iter()
            .flat_map(|(_, matrix)| matrix.iter().copied())
            .fold(0.0, f64::max);
        let timing = &self.session.timing;
        // A v-form replaying a capture's counts: its partitions from them, not from `bytes`.
        let p = comm.size() as usize;
        let captured = crate::plan::vcounts::captured_counts(&self.plan, op, p as u32);
        let mut kernel = match &captured {
            Some(c) => Kernel::with_send_matrix(op, &c.send_matrix, p, comm.rank() as usize),
            None => Kernel::new(op, bytes, p),
        };
        let counts = captured.map(|c| c.record(p));
        // A persistent kernel's request is made here, before the warm-up and the timed calls.
        kernel.prepare(comm);
        let slowest = warm_up(comm, &mut kernel, timing, self.plan.warmup);
        // Overlap mode: a pure pass after the warm-up (as OSU and IMB-NBC run one), whose
        // slowest-rank times size the computation.
        let pure = self
            .plan
            .overlap
            .filter(|_| op.is_nonblocking())
            .map(|_| pure_pass(comm, &mut kernel, timing, self.plan.nrep.max(1)));
        let compute = self.overlap_compute(
            comm,
            op,
            bytes,
            pure.as_ref().map_or(&slowest[..], |p| &p.slowest_s.0[..]),
            pure.as_ref(),
        );
        // Overlap mode adds the computation, t_b long (time-own: up to the largest rank's
        // own pure time), to what the window must hold.
        let computed = compute.map_or(0.0, |c| {
            let own_max = pure
                .as_ref()
                .map_or(0.0, |p| p.mean_s.0.iter().copied().fold(0.0, f64::max));
            match c.mode {
                crate::plan::OverlapMode::TimeOwn => c.t_pure_s.max(own_max),
                _ => c.t_pure_s,
            }
        });
        let suggested = auto_window(&slowest, largest, timing.wait.spin_margin_s()) + computed;
        let mut window = self.plan.window_s.unwrap_or(suggested);
        if self.is_root() && window < suggested {
            self.warn_short_window(op, bytes, comm.size() as u32, window, suggested);
        }
        // Every rank must use the same window; rank 0's is the one.
        comm.process_at_rank(0).broadcast_into(&mut window);
        let mut sync = self.process_sync(window);
        let op_s = crate::analysis::median(&slowest).unwrap_or(0.0);
        self.warn_noise(op, bytes, comm.size() as usize, op_s, sync.window_s());
        let mut blocks = Vec::new();
        for (model, matrix) in delays {
            let mut spec = self.block_spec(comm, op, bytes, model.as_ref(), &matrix);
            spec.counts = counts.clone();
            spec.compute = compute;
            spec.pure_pass = pure.clone();
            if let (Some(comms), Some(every)) = (comms, self.plan.track_every_s) {
                spec.probes = self.probe_if_due(comm, comms, every);
                spec.track_every_reps = sync
                    .window_s()
                    .map(|w| ((every / w).ceil() as usize).max(1));
                if let Some(every_reps) = spec.track_every_reps {
                    if self.early_probes_due(comm) {
                        spec.early_probe_reps = early_probe_reps(every_reps, spec.my_delays.len());
                    }
                }
            }
            spec.chunk_every_reps = Some(match sync.window_s() {
                Some(w) => ((CHUNK_SECONDS / w).ceil() as usize).max(1),
                None => UNSCHEDULED_CHUNK_REPS,
            });
            let w = writer.as_deref_mut();
            let block =
                self.measure_with_detours(comm, &mut kernel, sync.as_mut(), spec, comms, w)?;
            blocks.extend(block);
            if interrupt::stopping() {
                break;
            }
        }
        Ok(blocks)
    }

    /// A drift-tracking probe round before a block when `every_s` seconds have passed since
    /// the last one; rank 0 decides for all. Returns the probes on rank 0.
    /// Collective on `comm`: whether this block probes early, as rank 0 decides (its flag
    /// is the one kept up to date: it measures every block). Consumes the flag.
    fn early_probes_due(&mut self, comm: &SimpleCommunicator) -> bool {
        let mut due = u8::from(self.early_probes);
        comm.process_at_rank(0).broadcast_into(&mut due);
        self.early_probes = false;
        due == 1
    }

    fn probe_if_due(
        &mut self,
        comm: &SimpleCommunicator,
        comms: &ProbeComms,
        every_s: f64,
    ) -> Vec<ClockProbe> {
        let mut due = u8::from(self.last_probe.elapsed().as_secs_f64() >= every_s);
        comm.process_at_rank(0).broadcast_into(&mut due);
        if due == 0 {
            return Vec::new();
        }
        self.last_probe = Instant::now();
        probe_clocks(&self.session.timing, comms, 0)
    }

    /// Overlap mode of a nonblocking `op`: the computation sized to t_b, the median of the
    /// slowest rank's times in the pure pass (`slowest`; post then wait; Hoefler et al. 2010,
    /// Listing 6 takes the maximum over ranks of one timed run, the median of several is
    /// steadier); with `time-own`, to the rank's own mean in the pure pass `pure`, as OSU 7.4
    /// and IMB-NBC 2021 do. Collective on `comm`.
    fn overlap_compute(
        &self,
        comm: &SimpleCommunicator,
        op: Op,
        bytes: u64,
        slowest: &[f64],
        pure: Option<&crate::records::PurePass>,
    ) -> Option<Compute> {
        let spec = self.plan.overlap.filter(|_| op.is_nonblocking())?;
        // Without warm-up there is no t_b yet: the computation is then empty.
        let t_pure = match (spec.mode, pure) {
            // As OSU 7.4 and IMB-NBC 2021: each rank its own mean pure time.
            (crate::plan::OverlapMode::TimeOwn, Some(p)) => p.mean_s.0[comm.rank() as usize],
            _ => crate::analysis::median(slowest).unwrap_or(0.0),
        };
        let clock = self.session.timing.clock.as_ref();
        Some(Compute::new(comm, &spec, bytes, t_pure, clock))
    }

    /// The delay matrices (`[nrep][p]`, seconds) of the next configuration's blocks: zeros for
    /// the baseline, then one per delay model. Each block has its own stream number, so every
    /// rank computes the same matrices without communicating.
    fn delay_matrices(&mut self, p: u32) -> Vec<(Option<DelayModel>, Vec<f64>)> {
        let hosts = self.session.hosts.comm_names();
        let out = blocks::delay_blocks(&self.plan, p, &hosts, self.blocks_done);
        self.blocks_done += out.len() as u64;
        out.into_iter().map(|b| (b.model, b.matrix)).collect()
    }

    fn process_sync(&self, window: f64) -> Box<dyn ProcessSync> {
        let barrier = |kind| Box::new(BarrierSync { kind }) as Box<dyn ProcessSync>;
        match self.plan.sync {
            SyncMethod::Window => Box::new(WindowSync::new(window, self.lead_s(window))),
            SyncMethod::Barrier => barrier(BarrierKind::Mpi),
            SyncMethod::DoubleBarrier => barrier(BarrierKind::DoubleMpi),
            SyncMethod::Dissemination => barrier(BarrierKind::Dissemination),
            SyncMethod::None => barrier(BarrierKind::Nothing),
        }
    }

    /// The block of `model` (`None`: the baseline) with this rank's column of `matrix`.
    fn block_spec(
        &self,
        comm: &SimpleCommunicator,
        op: Op,
        bytes: u64,
        model: Option<&DelayModel>,
        matrix: &[f64],
    ) -> BlockSpec {
        let p = comm.size() as u32;
        let members = self.session.hosts.members(p);
        BlockSpec {
            op,
            bytes,
            delay_s: model.map_or(0.0, |m| m.mean_s()),
            delay_model: model.map_or("0".into(), |m| m.label()),
            delayed_ranks: match model {
                Some(_) => self
                    .plan
                    .delay_ranks
                    .fixed_ranks(p, &self.session.hosts.comm_names()),
                None => vec![],
            },
            my_delays: rank_column(matrix, p, comm.rank() as u32),
            arrival_orders: op
                .family()
                .wants_arrival_order()
                .then(|| arrival_orders(matrix, p)),
            clock_models: if self.is_root() {
                members.iter().map(|&r| self.models[r]).collect()
            } else {
                Vec::new()
            },
            world_ranks: members.iter().map(|&r| r as u32).collect(),
            hosts: self.session.hosts.spanned(p),
            probes: Vec::new(),
            track_every_reps: None,
            early_probe_reps: Vec::new(),
            chunk_every_reps: None,
            compute: None,
            pure_pass: None,
            test_interval_bytes: self.plan.overlap.and_then(|o| o.test_interval_bytes),
            adaptive: self.plan.adaptive,
            algorithm: self.algorithm.as_ref().map(|(s, _)| s.clone()),
            algorithm_check: self.algorithm.as_ref().map(|(_, c)| c.clone()),
            counts: None,
        }
    }

    /// Measures one block, with detours confined to the operation when the plan has them.
    fn measure_with_detours(
        &self,
        comm: &SimpleCommunicator,
        kernel: &mut Kernel,
        sync: &mut dyn ProcessSync,
        spec_block: BlockSpec,
        comms: Option<&ProbeComms>,
        mut writer: Option<&mut RecordsWriter>,
    ) -> Result<Option<Block>, RunError> {
        let timing = &self.session.timing;
        let sink = writer.as_deref_mut();
        let periodic = self.plan.detour.map(|detour| {
            let first = detour.first_fire_in_s(
                timing.global_now(),
                0.0,
                comm.rank() as u32,
                self.plan.seed,
            );
            (detour.to_string(), DetourInjector::start(detour, first))
        });
        let replayed = self.trace.as_ref().map(|(spec, run)| {
            let rank = self.session.world.rank() as u32;
            let schedule = schedule_for(spec, run, rank, self.plan.seed);
            match DetourInjector::start_schedule(&schedule, timing.global_now()) {
                // A recorded rank without detours replays none.
                Err(DetourError::EmptySchedule) => (spec.to_string(), Ok(None)),
                started => (spec.to_string(), started.map(Some)),
            }
        });
        let (spec, injector) = match (periodic, replayed) {
            (Some((spec, i)), _) => (Some(spec), i.map(Some)?),
            (None, Some((spec, i))) => (Some(spec), i?),
            (None, None) => (None, None),
        };
        let anchor = clock_pair(timing);
        let mut measured = measure_block(
            comm,
            kernel,
            sync,
            timing,
            spec_block,
            injector.as_ref(),
            comms,
            sink,
        );
        if let Some(spec) = spec {
            let (stats, events) = match injector {
                Some(i) => i.stop_with_events(),
                None => (DetourStats::default(), Vec::new()),
            };
            let to_global = monotonic_to_global(anchor, clock_pair(timing));
            let events: Vec<[f64; 2]> = events.iter().map(|e| [to_global(e[0]), e[1]]).collect();
            let record = gather_detours(comm, spec, &stats, &events);
            if let Some(b) = measured.block.as_mut() {
                b.detour = record;
            }
        }
        if let Some(e) = measured.write_error.take() {
            return Err(e.into());
        }
        if let (Some(b), Some(w)) = (measured.block.as_ref(), writer) {
            write_measured(w, b, measured.chunked_reps)?;
        }
        Ok(measured.block)
    }

    /// Time between the start-instant broadcast and the first window: enough for every rank to
    /// receive it, longer when ranks share cores.
    fn lead_s(&self, window: f64) -> f64 {
        let base: f64 = match self.session.timing.wait {
            WaitStrategy::Spin => 1e-3,
            WaitStrategy::Polite { .. } => 10e-3,
        };
        base.max(2.0 * window)
    }

    fn header(&self, gathered: &Gathered, machines: Vec<Machine>) -> Header {
        let clock = self.session.timing.clock.as_ref();
        let header = Header::new(
            self.plan.clone(),
            self.session.hosts.names.clone(),
            mpi::environment::library_version().unwrap_or_default(),
            ClockInfo {
                source: clock.name().into(),
                resolution_s: clock.resolution_s(),
                timer_delay_s: timer_delay_s(|| clock.now(), 1000),
            },
            ClockSyncInfo {
                method: self.clock_sync.name().into(),
                params: self.clock_sync.params(),
                models: gathered.models.clone(),
                min_rtt_s: gathered.rtt_s.clone(),
                exchanges: gathered.exchanges.clone(),
                duration_s: gathered.duration_s,
                shared: gathered.shared.clone(),
                slope_se: gathered.slope_se.clone(),
            },
            WaitInfo {
                rule: "spin while every host has a core per measuring rank (unbound measuring \
                       ranks are then pinned to a core each); otherwise polite (sleep, then \
                       spin with yields for the last spin_margin_s)"
                    .into(),
                hosts: self.session.hosts.loads.clone(),
                spin_margin_s: SPIN_MARGIN_S,
                late_tolerance_s: self.plan.late_tolerance_s,
            },
            "auto: 2 x 90th percentile of the slowest rank's warm-up operation time \
             + 1.1 x largest delay + 2 x spin margin + 20 us",
            Provenance::new(self.tags.clone(), machines),
        );
        Header {
            study: self.study.clone(),
            noise_check: self.noise_check.clone(),
            job: self.job.clone(),
            algorithms: self.sweep.as_ref().map(|s| s.info()),
            ..header
        }
    }

    /// On rank 0, a warning (also kept in the footer) that the fixed `--window` is shorter
    /// than the automatic window the warm-up asks for (`suggested`, seconds): many
    /// repetitions will overrun it or start late and be invalid.
    fn warn_short_window(&mut self, op: Op, bytes: u64, p: u32, window: f64, suggested: f64) {
        let msg = format!(
            "{op} {} P={p}: --window {} is shorter than the {} the warm-up and the largest \
             delay need (what --window auto would use); expect invalid repetitions",
            crate::units::format_bytes(bytes),
            crate::units::format_duration(window),
            crate::units::format_duration(suggested)
        );
        eprintln!("delaybench: warning: {msg}");
        self.warnings.push(msg);
    }

    /// The noise check (collective on the world): every rank runs a short selfish-detour
    /// loop at one global instant on a core of its own; rank 0 gets the result.
    fn check_noise(&mut self) -> Option<NoiseCheck> {
        let world = self.session.world;
        let started = Instant::now();
        let _pin = self.session.pin_for(world.size() as u32);
        let check = super::noise::Loop {
            variant: crate::noise::NoiseVariant::Selfish,
            duration_s: NOISE_CHECK_S,
            threshold_s: NOISE_CHECK_THRESHOLD_S,
            quantum_s: 0.0,
            inject: None,
            // Short: the ranks just left the synchronisation together.
            lead_s: 0.01,
        };
        let host = self.session.hosts.names[world.rank() as usize].clone();
        let (mine, _, _) = check.run(world, &self.session, &host);
        let ranks = super::noise::gather_ranks(world, &mine)?;
        let report = crate::analysis::noise_report(&ranks);
        let per =
            |f: fn(&crate::analysis::NoiseStats) -> f64| report.per_rank.iter().map(f).collect();
        let result = NoiseCheck {
            variant: check.variant.name().into(),
            duration_s: NOISE_CHECK_S,
            threshold_s: NOISE_CHECK_THRESHOLD_S,
            cost_s: started.elapsed().as_secs_f64(),
            per_s: per(|s| s.per_s),
            lost_share: per(|s| s.lost_share),
            longest_s: per(|s| s.longest_s),
            correlated_share: report.total.correlated_share,
            correlated_chance: report.total.correlated_chance,
            octaves: ranks
                .iter()
                .map(|r| crate::records::octave_counts(&r.detour_duration_s.0))
                .collect(),
        };
        if !self.quiet {
            eprintln!("delaybench: {}", result.line());
        }
        Some(result)
    }

    /// On rank 0, once per run, a warning (also kept in the footer) when the noise check's
    /// detours are large against this configuration's window or operation time.
    fn warn_noise(&mut self, op: Op, bytes: u64, p: usize, op_s: f64, window_s: Option<f64>) {
        if self.noise_warned {
            return;
        }
        let Some(why) = self
            .noise_check
            .as_ref()
            .and_then(|c| c.concern(p, op_s, window_s))
        else {
            return;
        };
        self.noise_warned = true;
        let msg = format!(
            "noise: at {op} {} P={p}, {why}; expect noisy repetitions (see docs/noise.md; \
             only the first such configuration is named)",
            crate::units::format_bytes(bytes)
        );
        eprintln!("delaybench: warning: {msg}");
        self.warnings.push(msg);
    }

    /// On rank 0, a warning (also kept in the footer) naming the blocks without a valid
    /// repetition: their statistics are empty, and the run will exit non-zero.
    fn warn_empty_blocks(&mut self) {
        if self.empty_blocks.is_empty() {
            return;
        }
        let msg = format!(
            "{} of {} blocks had no valid repetition (in each, a rank started late or the operation overran \
             the window), so they have no statistics: {}. Give a larger --window (or `auto`), a \
             larger --late-tolerance, or fewer ranks per core",
            self.empty_blocks.len(),
            self.total_blocks(),
            self.empty_blocks.join("; ")
        );
        eprintln!("delaybench: warning: {msg}");
        self.warnings.push(msg);
    }

    /// Measures every rank's global clock error at the end (Niethammer et al. 2016, §III-A check) and warns when
    /// it is large against the times measured.
    fn end_of_run_check(&mut self, medians: &[f64]) -> Footer {
        let errors = self
            .session
            .global_clock_errors(&self.shared, self.plan.clock_params.nonimproving)
            .unwrap_or_default();
        let now = self.session.timing.clock.now();
        let max_change = errors.iter().fold(0.0f64, |m, c| m.max(c.abs()));
        let smallest = medians.iter().copied().fold(f64::INFINITY, f64::min);
        if self.is_root() && smallest.is_finite() && max_change > 0.1 * smallest {
            let msg = format!(
                "global clocks were up to {:.2} us apart at the end of the run, more than 10% \
                 of the smallest median t_global ({:.2} us): global times may be off by that \
                 much (re-synchronise with --resync-every; on one host --clock-sync offset is exact)",
                max_change * 1e6,
                smallest * 1e6
            );
            eprintln!("delaybench: warning: {msg}");
            self.warnings.push(msg);
        }
        Footer {
            end_offsets_s: self
                .models
                .iter()
                .zip(&errors)
                .map(|(m, e)| m.offset_at(now + m.intercept_s) + e)
                .collect(),
            offset_change_s: errors,
            max_abs_offset_change_s: max_change,
            wall_time_s: self.started.elapsed().as_secs_f64(),
            warnings: self.warnings.clone(),
        }
    }
}

/// `3 shared a leader's clock, 1 synchronised` for the start message.
fn shared_line(checks: &[SharedClockCheck]) -> String {
    let count = |v: SharedVerdict| checks.iter().filter(|c| c.verdict == v).count();
    format!(
        "{} leader(s) synchronised; {} rank(s) share their leader's clock, checked; {} failed \
         the check and {} emulated, synchronised",
        count(SharedVerdict::Leader),
        count(SharedVerdict::Shared),
        count(SharedVerdict::FailedCheck),
        count(SharedVerdict::Emulated)
    )
}

fn offsets_line(models: &[ClockModel]) -> String {
    models
        .iter()
        .map(|m| format!("{:+.2}us", m.intercept_s * 1e6))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `allreduce 8B P=2 delay 50us` for messages about one block.
fn block_name(block: &Block) -> String {
    // A swept block names its algorithm: the same (op, size, P, delay) occurs once per
    // algorithm, and a name without it would repeat.
    let algorithm = block
        .algorithm
        .as_ref()
        .map_or(String::new(), |a| format!(" algorithm {}", a.name));
    format!(
        "{} {} P={} delay {}{algorithm}",
        block.op,
        crate::units::format_bytes(block.bytes),
        block.nprocs,
        block.delay_model
    )
}

/// A long block is written in chunks of about this many seconds of repetitions (window
/// synchronisation), so a rank killed mid-block costs at most that much measurement.
const CHUNK_SECONDS: f64 = 1.0;

/// Chunk size in repetitions where the schedule is not known in advance (barrier
/// synchronisation).
const UNSCHEDULED_CHUNK_REPS: usize = 10_000;

/// Writes a measured block: whole, or, when its first `chunked_reps` repetitions are already
/// in the file as chunks, the rest as a last chunk and the block's end. The last chunk is
/// written even when it holds no repetition: it carries the block's final per-block values
/// (detour record, adaptive record), which the earlier chunks could not know.
fn write_measured(
    w: &mut RecordsWriter,
    block: &Block,
    chunked_reps: u32,
) -> Result<(), crate::records::RecordsError> {
    if chunked_reps == 0 {
        return w.write_block(block);
    }
    w.write_chunk(
        chunked_reps,
        &crate::records::split_block(block, chunked_reps..block.nrep),
    )?;
    w.finish_block(block.nrep)
}

impl<'w> WithSession<'w> for Runner<'w> {
    fn session(&mut self) -> &mut Session<'w> {
        &mut self.session
    }
}

/// Every rank reads the trace rank 0 checked; a different file (another checksum) on this
/// rank's host is an error, since the ranks would replay different noise.
fn load_agreed(
    agreed: &crate::delay::TraceSpec,
) -> Result<(crate::delay::TraceSpec, crate::records::noise::NoiseRun), RunError> {
    let (spec, run) = load_trace(agreed)?;
    if spec.crc32c != agreed.crc32c {
        return Err(RunError::BadInput(format!(
            "{}: this rank reads a different file than rank 0 (CRC-32C {:08x}, rank 0 {:08x}): \
             give every host the same noise file",
            spec.path, spec.crc32c, agreed.crc32c
        )));
    }
    Ok((spec, run))
}

/// A reading of CLOCK_MONOTONIC and of the global clock, taken together (seconds).
fn clock_pair(timing: &super::timing::Timing) -> (f64, f64) {
    use crate::clock::Clock;
    (crate::clock::MonotonicClock.now(), timing.global_now())
}

/// The linear map from CLOCK_MONOTONIC (the detour log's clock) to the global clock through
/// two readings of both, taken before and after a block.
fn monotonic_to_global(a: (f64, f64), b: (f64, f64)) -> impl Fn(f64) -> f64 {
    let rate = if b.0 > a.0 {
        (b.1 - a.1) / (b.0 - a.0)
    } else {
        1.0
    };
    move |m| a.1 + (m - a.0) * rate
}
