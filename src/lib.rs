//! delaybench: how MPI collective operations behave under late arrivals and noise.
//!
//! Layers (see `DESIGN.md` of the project): `run` is the only module that uses MPI, and is
//! built only with the `mpi` feature (the default); it measures and writes [`records`].
//! [`analysis`], [`export`] and [`plot`] work on records files without MPI. [`clock`] holds
//! the clock synchronisation methods, written against a transport trait; [`sync`] how ranks
//! wait for a start instant.

pub mod analysis;
pub mod cli;
pub mod clock;
pub mod delay;
pub mod exit;
pub mod export;
pub mod limits;
pub mod measure_options;
pub mod output_name;
pub mod plan;
pub mod plot;
pub mod records;
#[cfg(feature = "mpi")]
pub mod run;
pub mod simulate;
pub mod study;
pub mod summary;
pub mod sync;
pub mod timeline;
pub mod units;
