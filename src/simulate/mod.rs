//! Simulation of a plan without MPI: the built-in LogGOPS engine (`loggops/`).
pub mod loggops;
