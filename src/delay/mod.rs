//! Delay injection: who is late, by how much, and OS-noise detours. Plain Rust, no MPI.
//!
//! - [`DelayModel`]: how long a delayed rank is late, fixed or sampled from a distribution
//!   (`50us`, `exp:20us`, `trace:FILE`, ...); one file per model under [`models`], each
//!   registered by one line in [`models::MODELS`].
//! - [`RankSelection`]: which ranks are late in a repetition (`0`, `2-5`, `last`, `all`,
//!   `random:K`, `host:I`).
//! - [`delay_matrix`]: the delays of one block, shape `[nrep][p]` in seconds, a pure function of
//!   the plan and a seed, so every MPI rank computes the same matrix without communicating.
//!   [`arrival_orders`] turns it into each repetition's planned arrival order, which the
//!   clairvoyant reference kernel is given.
//! - [`DetourSpec`] and [`DetourInjector`]: periodic CPU detours while the operation runs
//!   (Ferreira, Bridges and Brightwell, SC08), driven by a POSIX timer and a signal handler;
//!   [`NoiseFileSpec`] and [`DetourSchedule`]: the detours of a noise file (`--detour
//!   noise:FILE`) replayed on the ranks.
//!
//! A *late arrival* (Niethammer et al. 2016, §III-D: one rank enters at t_b = t_a + δ) is a selection such as `0`
//! with a fixed model; *noise* (Hoefler et al. 2010, §1.2: process skew from operating system noise) is the
//! selection `all` with a sampled model, so that every rank gets its own random delay.

mod detour;
mod detour_noise_file;
mod detour_spec;
mod list;
mod matrix;
mod model;
pub mod models;
mod ranks;

pub use detour::{DetourError, DetourInjector, DetourStats, LOG_CAPACITY};
pub use detour_noise_file::{
    DetourArg, DetourSchedule, NoiseFileMode, NoiseFileSpec, NoiseFileSpecError,
};
pub use detour_spec::{DetourPhase, DetourSpec, DetourSpecError};
pub use list::parse_delay_list;
pub use matrix::{arrival_order, arrival_orders, delay_matrix, rank_column};
pub use model::{DelayModel, DelayModelError};
pub use ranks::{RankError, RankItem, RankSelection};
