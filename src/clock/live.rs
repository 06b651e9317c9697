//! One rank's live global clock during a run: its local clock, the model that turns local
//! readings into global ones, and the drift tracker that refits that model from probes.
//! The run side holds one per rank; the synchronisation methods, the probe protocol and the
//! shared-clock hand-over change it only through these methods.

use super::tracking::DriftTracker;
use super::{Clock, ClockModel};
use std::cell::{Cell, RefCell};

/// A local clock and its current model to the global clock.
pub struct LiveClock {
    /// The local clock (possibly emulated).
    pub clock: Box<dyn Clock>,
    model: Cell<ClockModel>,
    tracker: RefCell<DriftTracker>,
}

impl LiveClock {
    /// `clock` with the identity model, before any synchronisation.
    pub fn new(clock: Box<dyn Clock>) -> Self {
        LiveClock {
            clock,
            model: Cell::new(ClockModel::IDENTITY),
            tracker: RefCell::new(DriftTracker::new(ClockModel::IDENTITY, 0.0, 0.0)),
        }
    }

    /// The current model: global = local − offset(local).
    pub fn model(&self) -> ClockModel {
        self.model.get()
    }

    /// Installs the model of a (re)synchronisation and restarts drift tracking from it;
    /// `slope_sxx_s2` is Σ(t − t̄)² of the fit points its slope came from (s²; 0 if none),
    /// the weight of that slope against later probes ([`DriftTracker::new`]).
    pub fn set_synchronised(&self, model: ClockModel, slope_sxx_s2: f64) {
        self.model.set(model);
        *self.tracker.borrow_mut() = DriftTracker::new(model, self.clock.now(), slope_sxx_s2);
    }

    /// Takes the model of the leader whose clock this rank shares (its own tracker is not
    /// used: the leader probes for both).
    pub fn follow(&self, leader_model: ClockModel) {
        self.model.set(leader_model);
    }

    /// Adds a drift-tracking probe (local time and offset to the global clock, seconds),
    /// refits the model and installs it; returns the new model.
    pub fn add_probe(&self, t_local_s: f64, offset_s: f64) -> ClockModel {
        let model = self.tracker.borrow_mut().add(t_local_s, offset_s);
        self.model.set(model);
        model
    }

    /// Local time now, seconds.
    pub fn now(&self) -> f64 {
        self.clock.now()
    }

    /// Global time now, seconds.
    pub fn global_now(&self) -> f64 {
        self.model.get().to_global(self.clock.now())
    }
}
