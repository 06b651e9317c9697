//! Waiting for a start instant: busy-waiting, or polite waiting on oversubscribed hosts.

mod strategy;

pub use strategy::{precise_sleeps, spin_for, WaitStrategy, Waited};
