//! Clocks, the transport clock synchronisation runs over, and the synchronisation methods.
//!
//! Plain Rust: the methods are written against [`Transport`], which the run side implements
//! over MPI, so the same code can later run on a simulated cluster.

mod pingpong;
mod source;
mod sync;

pub use pingpong::{answer_pingpong, measure_offset, OffsetEstimate};
pub use source::{timer_delay_s, Clock, MonotonicClock};
pub use sync::{ClockSync, OffsetSync, SyncOutcome};

/// What a clock synchronisation method needs from the machine: its own rank, the clock, and
/// blocking exchanges of small f64 messages with one peer.
pub trait Transport {
    /// This rank, 0..size.
    fn rank(&self) -> usize;
    /// Number of ranks taking part.
    fn size(&self) -> usize;
    /// Local clock reading in seconds.
    fn now(&self) -> f64;
    /// Sends `msg` to rank `to` (blocking, small message).
    fn send(&self, to: usize, msg: &[f64]);
    /// Receives a message from rank `from`, waiting as fast as possible (used inside a
    /// ping-pong, where the waiting time is what is measured).
    fn recv(&self, from: usize) -> Vec<f64>;
    /// Receives a message from rank `from` without spinning on the CPU while it is not there
    /// (used by ranks idling until their turn, so they do not slow the pair measuring).
    fn recv_idle(&self, from: usize) -> Vec<f64> {
        self.recv(from)
    }
}
