//! A machine's own noise: the loops that measure it on one rank ([`selfish`]), where it comes
//! from ([`sources`]), and each rank's detours from a noise file ([`schedule`]).
//! Plain Rust, no MPI: `run/noise.rs` runs the loops on every rank at one global instant and
//! writes the noise file (`records::noise`); `analysis::noise_report` reads it.

pub mod schedule;
pub mod selfish;
pub mod sources;

pub use selfish::{run_loop, LoopResult, NoiseVariant};
