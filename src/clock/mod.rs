//! Clocks, the transport clock synchronisation runs over, and the synchronisation methods.
//!
//! Plain Rust: every method is written against [`Transport`], which the run side implements
//! over MPI and [`sim`] over threads, so the same code runs on a cluster and in tests.
//!
//! | method ([`ClockSyncMethod`]) | model | steps | paper |
//! | --- | --- | --- | --- |
//! | [`offset`](OffsetSync) | offset | O(P) against rank 0 | Niethammer et al. 2016, eq. 2-3, Hoefler et al. 2010, §3.1 |
//! | [`skampi`](SkampiSync) | offset | O(P) against rank 0 | Hunold and Carpen-Amarie 2015, §6, SKAMPI_PINGPONG |
//! | [`netgauge`](NetgaugeSync) | offset | O(log P) tree | Hoefler et al. 2010, §3.2, Figure 7 |
//! | [`jk`](JkSync) | linear | O(P) against rank 0, peers round-robin per fit point | Hunold and Carpen-Amarie 2015, §2, §6 (Jones and Koenig), mpits' order |
//! | [`hca`](HcaSync) | linear | O(log P) slopes + O(P) or O(log P) intercepts | Hunold and Carpen-Amarie 2015, §6, Alg. 1-4 |
//! | [`hca3`](Hca3Sync) | linear | O(log P), fits against the parent's global clock | HCA3 of ReproMPI/mpits (our reading) |
//! | [`treefit`](TreefitSync) | linear | O(log P), fits against the parent's global clock | HCA3 of ReproMPI/mpits, with our fit points and intercept pass |
//!
//! Building blocks: ping-pong primitives ([`ping`], [`serve_pings`], [`measure_offset`],
//! [`skampi_offset`]), least squares ([`linear_fit`]), MERGE_LMS
//! ([`ClockModel::merge`](crate::clock::ClockModel::merge)), the tree schedule
//! ([`tree_rounds`], [`remaining_pairs`]), clock emulation ([`emulate`]) and the evaluation
//! of a synchronisation ([`measure_errors`]).

pub mod emulate;
mod evaluate;
pub mod eventsim;
mod fit;
mod hierarchy;
mod live;
mod method;
mod methods;
mod model;
mod pingpong;
mod posthoc;
mod probe;
mod regression;
pub mod scaling;
pub mod shared;
pub mod sim;
mod source;
mod sync;
pub mod tracking;
mod tree;
pub mod tsc;

pub use emulate::{
    true_error, true_global, true_offset, EmulatedClock, EmulationError, EmulationSpec,
};
pub use evaluate::{measure_errors, GlobalClockTransport};
pub use fit::{estimate_rtt, FitParams};
pub use live::LiveClock;
pub use methods::{
    build, skampi_offset, ClockSyncMethod, ClockSyncParams, Hca3Sync, HcaSync, JkSync,
    NetgaugeSync, OffsetSync, SkampiSync, TreefitSync,
};
pub use model::{ClockModel, ClockProbe};
pub use pingpong::{
    answer_pingpong, measure_offset, ping, send_stop, serve_pings, Exchange, OffsetEstimate, Served,
};
pub use posthoc::{interpolate_offset, offset_tracks, OffsetTrack};
pub use probe::probe_round;
pub use regression::{linear_fit, LinearFit};
pub use source::{timer_delay_s, Clock, MonotonicClock};
pub use sync::{ClockSync, SyncOutcome};
pub use tree::{largest_power_of_two, remaining_pairs, tree_rounds, TreePair};

/// Largest message, in f64 values, a method may send through a [`Transport`]. The MPI
/// transport pads every message to this length, so receivers must not rely on the length.
pub const MAX_MSG_LEN: usize = 4;

/// `msg` padded with zeros to [`MAX_MSG_LEN`] values, as the simulated transports carry it.
///
/// Panics when `msg` is longer than [`MAX_MSG_LEN`]: a method's protocol error.
pub(crate) fn padded_message(msg: &[f64]) -> [f64; MAX_MSG_LEN] {
    assert!(
        msg.len() <= MAX_MSG_LEN,
        "message of {} values is longer than MAX_MSG_LEN",
        msg.len()
    );
    let mut data = [0.0; MAX_MSG_LEN];
    data[..msg.len()].copy_from_slice(msg);
    data
}

/// What a clock synchronisation method needs from the machine: its own rank, the clock, and
/// blocking exchanges of small f64 messages (at most [`MAX_MSG_LEN`] values) with one peer.
/// Messages between two ranks arrive in the order they were sent.
pub trait Transport {
    /// This rank, 0..size.
    fn rank(&self) -> usize;
    /// Number of ranks taking part.
    fn size(&self) -> usize;
    /// Local clock reading in seconds.
    fn now(&self) -> f64;
    /// Sends `msg` (at most [`MAX_MSG_LEN`] values) to rank `to` (blocking, small message).
    fn send(&self, to: usize, msg: &[f64]);
    /// Receives a message from rank `from`, waiting as fast as possible (used inside a
    /// ping-pong, where the waiting time is what is measured). The message may be padded
    /// with zeros up to [`MAX_MSG_LEN`] values.
    fn recv(&self, from: usize) -> Vec<f64>;
    /// Receives a message from rank `from` without spinning on the CPU while it is not there
    /// (used by ranks idling until their turn, so they do not slow the pair measuring).
    fn recv_idle(&self, from: usize) -> Vec<f64> {
        self.recv(from)
    }
    /// Waits `seconds` without using the CPU (the pause between fit points). The simulator's
    /// virtual time only advances its clock.
    fn pause(&self, seconds: f64) {
        if seconds > 0.0 {
            std::thread::sleep(std::time::Duration::from_secs_f64(seconds));
        }
    }
}
