//! delaybench: how MPI collective operations behave under late arrivals and noise.
//!
//! Layers, bottom up (docs/architecture.md draws them): [`units`], [`affinity`],
//! [`plan`] (with [`plan::kernel`], the registry of collective kernels), [`delay`] and
//! [`wait`] (how a rank waits for an instant); [`clock`], the global clock (models, the
//! synchronisation methods over a transport trait, drift tracking, post-hoc correction);
//! [`records`], which stores what it is given; [`timeline`], the one way to read a records
//! file's global times and validity; [`analysis`], [`export`] and [`plot`] on top of it;
//! [`end_of_run`], what a run prints and draws once its records are complete.
//! `run` is the only module that uses MPI and is built only with the `mpi` feature (the
//! default). The command-line edge sits on top: [`cli`] parses the command line into the
//! plan's and the run's plain options, [`commands`] does what each command asks (calling
//! `run` for the MPI ones); nothing below the edge imports either.

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
pub mod output_name;
pub mod plan;
pub mod plot;
pub mod records;
#[cfg(feature = "mpi")]
pub mod run;
pub mod smpi;
pub mod timeline;
pub mod units;
pub mod wait;
pub mod wire;
