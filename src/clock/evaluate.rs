//! Evaluating a synchronisation: the offset between rank 0's global clock and every other
//! rank's global clock, re-measured by fresh ping-pongs (Hunold and Carpen-Amarie 2015
//! §7: "the root process exchanges a number of ping-pong messages with all other processes
//! and estimates its clock offset relative to the global time computed on each process").

use super::pingpong::{answer_pingpong, measure_offset};
use super::Transport;
use crate::clock::ClockModel;

/// A [`Transport`] whose clock is the global clock of a model: `now()` returns
/// `model.to_global(inner.now())`; messages go through `inner`.
pub struct GlobalClockTransport<'a> {
    /// The transport messages and local clock readings come from.
    pub inner: &'a dyn Transport,
    /// This rank's clock model.
    pub model: ClockModel,
}

impl Transport for GlobalClockTransport<'_> {
    fn rank(&self) -> usize {
        self.inner.rank()
    }
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn now(&self) -> f64 {
        self.model.to_global(self.inner.now())
    }
    fn send(&self, to: usize, msg: &[f64]) {
        self.inner.send(to, msg)
    }
    fn recv(&self, from: usize) -> Vec<f64> {
        self.inner.recv(from)
    }
    fn recv_idle(&self, from: usize) -> Vec<f64> {
        self.inner.recv_idle(from)
    }
    fn pause(&self, seconds: f64) {
        self.inner.pause(seconds)
    }
}

/// Measures, collectively, how far every rank's global clock is from rank 0's: rank 0 runs
/// the min-RTT ping-pong (Niethammer et al. 2016, eq. 2-3, stopped after `nonimproving` non-improving exchanges,
/// Hoefler et al. 2010, §3.1) with each rank in turn, on the global clocks given by each rank's `model`.
/// Returns on rank 0 the offset per rank in seconds (rank's global clock − rank 0's global
/// clock; 0 for rank 0), `None` on the other ranks. The measurement's own uncertainty is
/// up to half the smallest RTT.
pub fn measure_errors(
    t: &dyn Transport,
    model: &ClockModel,
    nonimproving: u32,
) -> Option<Vec<f64>> {
    let g = GlobalClockTransport {
        inner: t,
        model: *model,
    };
    if t.rank() != 0 {
        answer_pingpong(&g, 0);
        return None;
    }
    let mut errors = vec![0.0];
    for peer in 1..t.size() {
        errors.push(measure_offset(&g, peer, nonimproving, 100_000).offset_s);
    }
    Some(errors)
}
