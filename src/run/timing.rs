//! This rank's clock, clock model and waiting strategy.

use crate::clock::Clock;
use crate::records::ClockModel;
use crate::sync::WaitStrategy;

/// Everything a rank needs to read and wait on the global clock.
pub struct Timing {
    pub clock: Box<dyn Clock>,
    /// This rank's model: global = local − offset(local).
    pub model: ClockModel,
    pub wait: WaitStrategy,
    /// A start more than this many seconds after its instant is flagged *started late*.
    pub late_tolerance_s: f64,
}

impl Timing {
    /// Global time now, seconds.
    pub fn global_now(&self) -> f64 {
        self.model.to_global(self.clock.now())
    }

    /// Waits until global time `target_g` (seconds) and returns how late, in seconds, the
    /// rank got there (see [`WaitStrategy::wait_until`]).
    pub fn wait_until_global(&self, target_g: f64) -> f64 {
        self.wait.wait_until(|| self.global_now(), target_g)
    }
}
