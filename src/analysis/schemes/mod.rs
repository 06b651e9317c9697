//! The published timing schemes: the ways papers and benchmarks turn one collective's
//! per-rank times into one operation time, and how far each lies from t_global on the
//! global clock.
//!
//! - [`measured`]: the rows of `delaybench schemes`, every scheme measured live under MPI
//!   (OSU, IMB, barrier + max, MPIBlib's root timing, window t_global, ...).
//! - [`from_records`]: the three schemes `analyze --timing` derives from a records file
//!   afterwards (t_global, the maximum of the local times, the root's time; Lastovetsky,
//!   Rychkov and O'Flynn 2008, §2), per block.

pub mod from_records;
pub mod measured;

pub use from_records::{t_max_local, t_root, timing_row, timing_rows, TimingMethod, TimingRow};
pub use measured::{
    compare_with_window, imb_t_avg_max, mpiblib_root, osu_avg_latency, SchemeRow, REFERENCE_SCHEME,
    SCHEMES,
};
