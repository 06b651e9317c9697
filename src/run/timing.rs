//! This rank's clock, clock model and waiting strategy.

use crate::clock::tracking::DriftTracker;
use crate::clock::Clock;
use crate::clock::ClockModel;
use crate::wait::WaitStrategy;
use std::cell::{Cell, RefCell};

/// Largest spin margin a polite waiter grows to, seconds.
const MAX_SPIN_MARGIN_S: f64 = 2e-3;

/// Everything a rank needs to read and wait on the global clock.
pub struct Timing {
    pub clock: Box<dyn Clock>,
    /// This rank's model: global = local − offset(local); refitted as drift is tracked.
    pub model: Cell<ClockModel>,
    pub wait: WaitStrategy,
    /// A start more than this many seconds after its instant is flagged *started late*.
    pub late_tolerance_s: f64,
    /// A polite waiter's current spin margin, seconds: it starts at the strategy's and grows
    /// whenever a sleep overshoots its instant, because how long a sleeping rank takes to get
    /// a core back (an idle virtual CPU can take hundreds of microseconds) differs by machine.
    pub spin_margin_s: Cell<f64>,
    /// Drift-tracking probes since the last synchronisation, and the model refitted from them.
    pub tracker: RefCell<DriftTracker>,
}

impl Timing {
    /// Installs the model of a (re)synchronisation and restarts drift tracking from it.
    pub fn set_synchronised(&self, model: ClockModel) {
        self.model.set(model);
        *self.tracker.borrow_mut() = DriftTracker::new(model, self.clock.now());
    }

    /// Adds a drift-tracking probe (local time and offset to the global clock, seconds) and
    /// returns the refitted model (not yet installed).
    pub fn refit(&self, t_local_s: f64, offset_s: f64) -> ClockModel {
        self.tracker.borrow_mut().add(t_local_s, offset_s)
    }

    /// Global time now, seconds.
    pub fn global_now(&self) -> f64 {
        self.model.get().to_global(self.clock.now())
    }

    /// Waits until global time `target_g` (seconds) and returns how late, in seconds, the
    /// rank got there (see [`WaitStrategy::wait_until`]).
    pub fn wait_until_global(&self, target_g: f64) -> f64 {
        let margin = self.spin_margin_s.get();
        let waited = self
            .wait
            .wait_until_with_margin(|| self.global_now(), target_g, margin);
        if waited.overslept_s > 0.0 {
            let wider = (margin + 2.0 * waited.overslept_s).min(MAX_SPIN_MARGIN_S);
            self.spin_margin_s.set(wider);
        }
        waited.lateness_s
    }
}
