//! Waiting for a start instant: busy-waiting, or polite waiting on oversubscribed hosts.

mod wait;

pub use wait::{precise_sleeps, spin_for, WaitStrategy, Waited};
