//! delaybench: how MPI collective operations behave under late arrivals and noise.
//!
//! Components on floors, bottom up (docs/architecture.md draws them; `tests/architecture.rs`
//! holds the imports to it): the building blocks ([`units`], [`affinity`], [`wire`],
//! [`frame`], [`exit`], [`output_name`], [`build_info`]); [`clock`], the global clock;
//! [`wait`] (how a rank waits for an instant) and [`capture`] (reading an application's
//! capture); [`delay`]; [`plan`], what a run measures and whether it may; [`records`], which
//! stores what it is given; [`noise`]; [`timeline`], the one way to read a records file's
//! global times and validity; [`analysis`], [`export`], [`plot`] and [`info`] on top of it;
//! [`end_of_run`], what a run prints and draws once its records are complete; `run` (MPI,
//! the `mpi` feature, the default) and [`smpi`] (simulation). The command-line edge sits on
//! top: [`cli`] parses the command line into the plan's and the run's plain options,
//! [`commands`] does what each command asks; nothing below the edge imports either.

pub mod affinity;
pub mod analysis;
pub mod build_info;
pub mod capture;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod delay;
pub mod end_of_run;
pub mod exit;
pub mod export;
pub mod frame;
pub mod info;
pub mod noise;
#[cfg(feature = "otf2")]
pub mod otf2_sys;
pub mod output_name;
pub mod plan;
pub mod plot;
pub mod records;
#[cfg(feature = "mpi")]
pub mod run;
pub mod simulate;
pub mod smpi;
pub mod timeline;
pub mod units;
pub mod wait;
pub mod wire;
