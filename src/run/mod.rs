//! The measurement run: the only layer that uses MPI.
//!
//! Sequence (every rank runs the same plan): agree on the plan, find hosts and the waiting
//! strategy, synchronise clocks, then per P on ranks 0..P-1 and per (op, bytes): warm up, size
//! the window, measure the baseline and each delay as blocks that rank 0 writes as they finish;
//! finally re-measure the clock offsets and write the footer.

mod agree;
mod hosts;
mod kernels;
mod measure;
mod pinning;
mod procsync;
mod report;
mod timing;
mod transport;

use crate::cli::MeasureArgs;
use crate::clock::{timer_delay_s, Clock, ClockSync, MonotonicClock, OffsetSync, SyncOutcome};
use crate::plan::{ClockSource, Plan, SyncMethod};
use crate::records::*;
use crate::sync::WaitStrategy;
use hosts::Hosts;
use kernels::Kernel;
use measure::{auto_window, measure_block, warm_up, BlockSpec};
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;
use procsync::{BarrierKind, BarrierSync, ProcessSync, WindowSync};
use report::Progress;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use timing::Timing;
use transport::{MpiTransport, WtimeClock};

/// Seconds before a start instant at which a polite waiter stops sleeping and spins.
const SPIN_MARGIN_S: f64 = 200e-6;

/// Runs a measurement under MPI. Exit code 2 for bad input (nothing measured, no file
/// written); a failure during the run aborts every rank.
pub fn main(args: MeasureArgs, study: Option<String>) -> ExitCode {
    let Some(universe) = mpi::initialize() else {
        eprintln!("delaybench: error: MPI was already initialised");
        return ExitCode::FAILURE;
    };
    let world = universe.world();
    let agreed = match agree::agree(&world, &args) {
        Ok(a) => a,
        Err(msg) => {
            if world.rank() == 0 {
                eprintln!("delaybench: error: {msg}");
            }
            return ExitCode::from(2);
        }
    };
    let mut runner = Runner::new(&world, agreed.plan, &args);
    runner.study = study;
    if let Err(msg) = runner.run(agreed.writer) {
        eprintln!("delaybench: error on rank {}: {msg}", world.rank());
        world.abort(1);
    }
    ExitCode::SUCCESS
}

struct Runner<'w> {
    world: &'w SimpleCommunicator,
    plan: Plan,
    args: MeasureArgs,
    timing: Timing,
    hosts: Hosts,
    sync_method: OffsetSync,
    started: Instant,
    warnings: Vec<String>,
    /// Text of the study file (`--config`), for the header.
    study: Option<String>,
}

impl<'w> Runner<'w> {
    fn new(world: &'w SimpleCommunicator, plan: Plan, args: &MeasureArgs) -> Self {
        let clock: Box<dyn Clock> = match plan.clock {
            ClockSource::Monotonic => Box::new(MonotonicClock),
            ClockSource::Wtime => Box::new(WtimeClock),
        };
        let hosts = Hosts::discover(world);
        crate::sync::precise_sleeps();
        Runner {
            world,
            sync_method: OffsetSync {
                nonimproving: plan.sync_nonimproving,
                ..OffsetSync::default()
            },
            plan,
            args: args.clone(),
            timing: Timing {
                clock,
                model: ClockModel::IDENTITY,
                wait: WaitStrategy::Spin,
                late_tolerance_s: 0.0,
            },
            hosts,
            started: Instant::now(),
            warnings: Vec::new(),
            study: None,
        }
    }

    fn is_root(&self) -> bool {
        self.world.rank() == 0
    }

    fn run(&mut self, writer: Option<RecordsWriter>) -> Result<(), String> {
        let sync_started = Instant::now();
        let outcome = self.synchronise_clocks();
        self.timing.model = outcome.model;
        let header = self.header(&outcome, sync_started.elapsed().as_secs_f64());
        let mut writer = writer;
        if let Some(w) = writer.as_mut() {
            w.write_header(&header).map_err(|e| e.to_string())?;
            eprintln!(
                "delaybench: {} ranks on {} host(s); clock offsets to rank 0: {}; writing {}",
                self.world.size(),
                self.hosts.loads.len(),
                offsets_line(&outcome.models),
                w.path().display()
            );
        }
        let mut progress = Progress::new(self.is_root(), self.total_blocks());
        let mut medians = Vec::new();
        for &p in &self.plan.procs.clone() {
            self.measure_p(p, writer.as_mut(), &mut progress, &mut medians)?;
        }
        progress.finish();
        let footer = self.end_of_run_check(&outcome, &medians);
        if let Some(w) = writer {
            let path = w.path().to_path_buf();
            w.finish(&footer).map_err(|e| e.to_string())?;
            report::print_summary(&path, &self.args.figures);
        }
        Ok(())
    }

    /// Chooses how ranks wait while ranks 0..p-1 measure, and warns when they share cores.
    fn set_waiting(&mut self, p: u32) {
        let wait = self.hosts.wait_strategy(p, SPIN_MARGIN_S);
        self.timing.wait = wait;
        self.timing.late_tolerance_s = self
            .plan
            .late_tolerance_s
            .unwrap_or_else(|| wait.default_late_tolerance_s());
        if !self.is_root() || wait == WaitStrategy::Spin {
            return;
        }
        let msg = format!(
            "P = {p}: a host runs more measuring ranks than it has cores ({}); ranks wait \
             politely (sleep, then spin with yields for the last {:.0} us; late-start tolerance \
             {:.0} us); timings on an oversubscribed host are not publishable",
            self.hosts
                .loads
                .iter()
                .map(|l| format!("{}: {} cores", l.host, l.cores))
                .collect::<Vec<_>>()
                .join(", "),
            SPIN_MARGIN_S * 1e6,
            self.timing.late_tolerance_s * 1e6
        );
        eprintln!("delaybench: warning: {msg}");
        self.warnings.push(msg);
    }

    fn synchronise_clocks(&self) -> SyncOutcome {
        let transport = MpiTransport {
            comm: self.world,
            clock: self.timing.clock.as_ref(),
        };
        self.sync_method.synchronize(&transport)
    }

    fn total_blocks(&self) -> u64 {
        let per_p: usize = self
            .plan
            .ops
            .iter()
            .map(|&op| self.plan.sizes_for(op).len())
            .sum();
        (per_p * self.plan.procs.len() * self.plan.delays_with_baseline().len()) as u64
    }

    /// Measures every (op, bytes) on ranks 0..p-1; the other ranks wait without using the CPU.
    fn measure_p(
        &mut self,
        p: u32,
        mut writer: Option<&mut RecordsWriter>,
        progress: &mut Progress,
        medians: &mut Vec<f64>,
    ) -> Result<(), String> {
        self.set_waiting(p);
        let inside = (self.world.rank() as u32) < p;
        let color = if inside {
            Color::with_value(0)
        } else {
            Color::undefined()
        };
        if let Some(comm) = self.world.split_by_color(color) {
            // Busy-waiting ranks each get a core of their own for the time of this P.
            let _pin = (self.timing.wait == WaitStrategy::Spin)
                .then(|| {
                    let rank = self.world.rank() as usize;
                    pinning::Pin::to_own_core(self.hosts.local_index(rank, p))
                })
                .flatten();
            for op in self.plan.ops.clone() {
                for bytes in self.plan.sizes_for(op) {
                    progress.configuration(op, bytes, p);
                    let blocks = self.measure_configuration(&comm, op, bytes);
                    for block in blocks.into_iter().flatten() {
                        medians.extend(crate::analysis::median(&crate::analysis::valid_t_globals(
                            &block,
                        )));
                        if let Some(w) = writer.as_deref_mut() {
                            w.write_block(&block).map_err(|e| e.to_string())?;
                        }
                        progress.block_done();
                    }
                }
            }
        }
        idle_barrier(self.world);
        Ok(())
    }

    /// Warm-up, window, then the baseline and every delay; blocks are returned on rank 0.
    fn measure_configuration(
        &self,
        comm: &SimpleCommunicator,
        op: crate::plan::Op,
        bytes: u64,
    ) -> Vec<Option<Block>> {
        let mut kernel = Kernel::new(op, bytes, comm.size() as usize);
        let slowest = warm_up(comm, &mut kernel, &self.timing, self.plan.warmup);
        let max_delay = self.plan.delays_s.iter().copied().fold(0.0, f64::max);
        let window = self
            .plan
            .window_s
            .unwrap_or_else(|| auto_window(&slowest, max_delay, self.timing.wait.spin_margin_s()));
        let mut sync: Box<dyn ProcessSync> = match self.plan.sync {
            SyncMethod::Window => Box::new(WindowSync::new(window, self.lead_s(window))),
            SyncMethod::Barrier => Box::new(BarrierSync {
                kind: BarrierKind::Mpi,
            }),
            SyncMethod::DoubleBarrier => Box::new(BarrierSync {
                kind: BarrierKind::DoubleMpi,
            }),
            SyncMethod::Dissemination => Box::new(BarrierSync {
                kind: BarrierKind::Dissemination,
            }),
            SyncMethod::None => Box::new(BarrierSync {
                kind: BarrierKind::Nothing,
            }),
        };
        self.plan
            .delays_with_baseline()
            .into_iter()
            .map(|delay_s| {
                let spec = BlockSpec {
                    op,
                    bytes,
                    delay_s,
                    delayed_ranks: if delay_s > 0.0 {
                        self.plan.delay_ranks.clone()
                    } else {
                        vec![]
                    },
                    nrep: self.plan.nrep,
                };
                measure_block(comm, &mut kernel, sync.as_mut(), &self.timing, spec)
            })
            .collect()
    }

    /// Time between the start-instant broadcast and the first window: enough for every rank to
    /// receive it, longer when ranks share cores.
    fn lead_s(&self, window: f64) -> f64 {
        let base: f64 = match self.timing.wait {
            WaitStrategy::Spin => 1e-3,
            WaitStrategy::Polite { .. } => 10e-3,
        };
        base.max(2.0 * window)
    }

    fn header(&self, outcome: &SyncOutcome, sync_duration_s: f64) -> Header {
        let clock = self.timing.clock.as_ref();
        Header {
            format: FORMAT_NAME.into(),
            format_version: FORMAT_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            command_line: std::env::args().collect(),
            start_utc: chrono::Utc::now().to_rfc3339(),
            world_size: self.world.size() as u32,
            hosts: self.hosts.names.clone(),
            mpi_library: mpi::environment::library_version().unwrap_or_default(),
            clock: ClockInfo {
                source: clock.name().into(),
                resolution_s: clock.resolution_s(),
                timer_delay_s: timer_delay_s(|| clock.now(), 1000),
            },
            clock_sync: ClockSyncInfo {
                method: self.sync_method.name().into(),
                params: self.sync_method.params(),
                models: outcome.models.clone(),
                min_rtt_s: outcome.min_rtt_s.clone(),
                exchanges: outcome.exchanges.clone(),
                duration_s: sync_duration_s,
            },
            wait: WaitInfo {
                rule: "spin while every host has a core per measuring rank (unbound measuring \
                       ranks are then pinned to a core each); otherwise polite (sleep, then \
                       spin with yields for the last spin_margin_s)"
                    .into(),
                hosts: self.hosts.loads.clone(),
                spin_margin_s: SPIN_MARGIN_S,
                late_tolerance_s: self.plan.late_tolerance_s,
            },
            window_rule: match self.plan.window_s {
                Some(w) => format!("fixed: {w} s"),
                None => "auto: 2 x 90th percentile of the slowest rank's warm-up operation time \
                         + 1.1 x largest delay + 2 x spin margin + 20 us"
                    .into(),
            },
            plan: self.plan.clone(),
            study: self.study.clone(),
        }
    }

    /// Re-measures the offsets (002 §III-A) and reports how far they moved from the models.
    fn end_of_run_check(&mut self, start: &SyncOutcome, medians: &[f64]) -> Footer {
        let end = self.synchronise_clocks();
        let now = self.timing.clock.now();
        let change: Vec<f64> = end
            .models
            .iter()
            .zip(&start.models)
            .map(|(e, s)| e.offset_at(now) - s.offset_at(now))
            .collect();
        let max_change = change.iter().fold(0.0f64, |m, c| m.max(c.abs()));
        let smallest = medians.iter().copied().fold(f64::INFINITY, f64::min);
        if self.is_root() && smallest.is_finite() && max_change > 0.1 * smallest {
            let msg = format!(
                "clock offsets moved by up to {:.2} us during the run, more than 10% of the \
                 smallest median t_global ({:.2} us): global times may be off by that much",
                max_change * 1e6,
                smallest * 1e6
            );
            eprintln!("delaybench: warning: {msg}");
            self.warnings.push(msg);
        }
        Footer {
            end_offsets_s: end.models.iter().map(|m| m.intercept_s).collect(),
            offset_change_s: change,
            max_abs_offset_change_s: max_change,
            wall_time_s: self.started.elapsed().as_secs_f64(),
            warnings: self.warnings.clone(),
        }
    }
}

/// A barrier on `world` that waits with sleeps, so ranks outside the measuring
/// sub-communicator leave its ranks the CPU.
fn idle_barrier(world: &SimpleCommunicator) {
    let mut request = world.immediate_barrier();
    loop {
        match request.test() {
            Ok(_) => return,
            Err(r) => request = r,
        }
        // Rarely, so that idle ranks do not take the measuring ranks' cores.
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn offsets_line(models: &[ClockModel]) -> String {
    models
        .iter()
        .map(|m| format!("{:+.2}us", m.intercept_s * 1e6))
        .collect::<Vec<_>>()
        .join(" ")
}
