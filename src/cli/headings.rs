//! The headings of `--help`, in the order a user decides a run: what to measure, who is
//! late, how repetitions start, the clock, the outputs, how the run is controlled; then the
//! expert knobs, which `-h` leaves out (`hide_short_help`) and `--help` and the manual page
//! show under the same headings.

/// Kernels, sizes, process counts, repetitions.
pub const MEASURE: &str = "What to measure";
/// Which ranks arrive late and by how much.
pub const LATE: &str = "Who is late";
/// How the ranks start each repetition together.
pub const START: &str = "How repetitions start";
/// Which clock is read and which global clock is built from it.
pub const CLOCK: &str = "Clock";
/// Files, figures and what is printed.
pub const OUTPUT: &str = "Output";
/// Study files, dry runs, seeds and the bounds of a run.
pub const RUN: &str = "Run control";
/// The parameters of the clock-synchronisation methods.
pub const EXPERT_CLOCK: &str = "Expert: clock synchronisation";
/// OS-noise injection and the noise check.
pub const EXPERT_NOISE: &str = "Expert: noise";
/// The event-driven simulator of `clocksync --simulate`.
pub const SIMULATION: &str = "Simulation (clocksync --simulate)";
