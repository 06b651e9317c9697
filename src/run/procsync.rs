//! Process synchronisation: how the ranks of a sub-communicator start a repetition together.

use super::timing::Timing;
use crate::records::FLAG_STARTED_LATE;
use crate::sync::spin_for;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Starts repetitions together; chosen by `--sync`.
pub trait ProcessSync {
    /// Collective on `comm`, before the first repetition of a block.
    fn begin(&mut self, comm: &SimpleCommunicator, timing: &Timing);
    /// Returns when this rank should enter repetition `rep` after its own `delay_s` (seconds):
    /// the scheduled global start instant (NaN if there is none) and `FLAG_*` bits.
    fn start(
        &mut self,
        comm: &SimpleCommunicator,
        timing: &Timing,
        rep: usize,
        delay_s: f64,
    ) -> (f64, u8);
    /// The window in seconds, for the window-overrun check; `None` if there is no window.
    fn window_s(&self) -> Option<f64>;
}

/// Clock-based synchronisation: rank 0 broadcasts a global start instant; repetition i starts
/// at start + i·window; each rank waits on its global clock until that instant plus its delay
/// (Niethammer et al. 2016, Listing 2; Hunold and Carpen-Amarie 2015, scheme 4).
pub struct WindowSync {
    pub window_s: f64,
    /// Time from the broadcast to the first start instant, seconds.
    pub lead_s: f64,
    start_g: f64,
}

impl WindowSync {
    /// A window of `window_s` seconds, the first one `lead_s` seconds after [`ProcessSync::begin`].
    pub fn new(window_s: f64, lead_s: f64) -> Self {
        WindowSync {
            window_s,
            lead_s,
            start_g: f64::NAN,
        }
    }
}

impl ProcessSync for WindowSync {
    fn begin(&mut self, comm: &SimpleCommunicator, timing: &Timing) {
        let mut start = timing.global_now() + self.lead_s;
        comm.process_at_rank(0).broadcast_into(&mut start);
        self.start_g = start;
    }

    fn start(
        &mut self,
        _: &SimpleCommunicator,
        timing: &Timing,
        rep: usize,
        delay_s: f64,
    ) -> (f64, u8) {
        let scheduled = self.start_g + rep as f64 * self.window_s;
        let late = timing.wait_until_global(scheduled + delay_s);
        (scheduled, if late { FLAG_STARTED_LATE } else { 0 })
    }

    fn window_s(&self) -> Option<f64> {
        Some(self.window_s)
    }
}

/// `MPI_Barrier`, then the delayed ranks busy-wait their delay
/// (Niethammer et al. 2016, §III-B Listing 1 and §III-D).
pub struct BarrierSync;

impl ProcessSync for BarrierSync {
    fn begin(&mut self, _: &SimpleCommunicator, _: &Timing) {}

    fn start(
        &mut self,
        comm: &SimpleCommunicator,
        timing: &Timing,
        _: usize,
        delay_s: f64,
    ) -> (f64, u8) {
        comm.barrier();
        if delay_s > 0.0 {
            spin_for(|| timing.clock.now(), delay_s);
        }
        (f64::NAN, 0)
    }

    fn window_s(&self) -> Option<f64> {
        None
    }
}
