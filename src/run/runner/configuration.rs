//! One configuration, an (op, bytes) at one P: the warm-up, the window sized from it, and
//! its blocks (the baseline, then one per delay model).

use super::Runner;
use crate::delay::DelayModel;
use crate::plan::{blocks, Op};
use crate::records::{Block, RecordsWriter};
use crate::run::error::RunError;
use crate::run::gather::gather_one;
use crate::run::interrupt;
use crate::run::kernels::Kernel;
use crate::run::measure::{auto_window, early_probe_reps, pure_pass, warm_up};
use crate::run::overlap::Compute;
use crate::run::process_sync;
use crate::run::report::Warning;
use crate::run::tracking::ProbeComms;
use crate::wait::WaitStrategy;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// A long block is written in chunks of about this many seconds of repetitions (window
/// synchronisation), so a rank killed mid-block costs at most that much measurement.
const CHUNK_SECONDS: f64 = 1.0;

/// Chunk size in repetitions where the schedule is not known in advance (barrier
/// synchronisation).
const UNSCHEDULED_CHUNK_REPS: usize = 10_000;

impl Runner<'_> {
    /// Warm-up, window, then the baseline and every delay model; blocks on rank 0.
    pub(super) fn measure_configuration(
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
        // Where the ranks and their buffers are, once the warm-up has touched every page.
        let (send, recv) = kernel.buffer_addresses();
        let placement =
            gather_one(comm, crate::run::buffer_placement::here(send, recv)).unwrap_or_default();
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
            self.warn(Warning::ShortWindow {
                op,
                bytes,
                p: comm.size() as u32,
                window_s: window,
                suggested_s: suggested,
            });
        }
        // Every rank must use the same window; rank 0's is the one.
        comm.process_at_rank(0).broadcast_into(&mut window);
        let lead = lead_s(self.session.timing.wait, window);
        let mut sync = process_sync::for_method(self.plan.sync, window, lead);
        let op_s = crate::analysis::median(&slowest).unwrap_or(0.0);
        self.warn_noise(op, bytes, comm.size() as usize, op_s, sync.window_s());
        let mut blocks = Vec::new();
        for (model, matrix) in delays {
            let mut spec = self.block_spec(comm, op, bytes, model.as_ref(), &matrix);
            spec.counts = counts.clone();
            spec.placement = placement.clone();
            spec.compute = compute;
            spec.pure_pass = pure.clone();
            if let (Some(comms), Some(every)) = (comms, self.plan.track_every_s) {
                spec.probes = self.probe_if_due(comm, comms, every);
                spec.track_every_reps = sync.window_s().map(|w| reps_per(every, w));
                if let Some(every_reps) = spec.track_every_reps {
                    if self.early_probes_due(comm) {
                        spec.early_probe_reps = early_probe_reps(every_reps, spec.my_delays.len());
                    }
                }
            }
            spec.chunk_every_reps = Some(chunk_every_reps(sync.window_s()));
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
        self.warn(Warning::Noise { op, bytes, p, why });
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
}

/// Time between the start-instant broadcast and the first window (`window_s`), seconds:
/// enough for every rank to receive it, longer when ranks wait politely (share cores).
fn lead_s(wait: WaitStrategy, window_s: f64) -> f64 {
    let base: f64 = match wait {
        WaitStrategy::Spin => 1e-3,
        WaitStrategy::Polite { .. } => 10e-3,
    };
    base.max(2.0 * window_s)
}

/// Repetitions of `window_s` seconds each that span `every_s` seconds: at least one.
fn reps_per(every_s: f64, window_s: f64) -> usize {
    ((every_s / window_s).ceil() as usize).max(1)
}

/// Repetitions per chunk of a long block: about [`CHUNK_SECONDS`] of windows, or
/// [`UNSCHEDULED_CHUNK_REPS`] without a window.
fn chunk_every_reps(window_s: Option<f64>) -> usize {
    match window_s {
        Some(w) => reps_per(CHUNK_SECONDS, w),
        None => UNSCHEDULED_CHUNK_REPS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lead_is_the_strategy_base_or_two_windows() {
        assert_eq!(lead_s(WaitStrategy::Spin, 100e-6), 1e-3);
        assert_eq!(lead_s(WaitStrategy::Spin, 2e-3), 4e-3);
        let polite = WaitStrategy::Polite {
            spin_margin_s: 200e-6,
        };
        assert_eq!(lead_s(polite, 100e-6), 10e-3);
        assert_eq!(lead_s(polite, 8e-3), 16e-3);
    }

    #[test]
    fn reps_round_up_and_never_vanish() {
        assert_eq!(reps_per(1.0, 0.3), 4);
        assert_eq!(reps_per(1.0, 0.25), 4);
        assert_eq!(reps_per(0.001, 1.0), 1);
    }

    #[test]
    fn chunks_hold_about_a_second_of_windows() {
        assert_eq!(chunk_every_reps(Some(0.25)), 4);
        assert_eq!(chunk_every_reps(Some(3.0)), 1);
        assert_eq!(chunk_every_reps(None), UNSCHEDULED_CHUNK_REPS);
    }
}
