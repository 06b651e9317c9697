//! Exit codes of the binary that scripts read, beside 0 (success), 1 (failure) and 2 (bad
//! input, nothing measured). Kept out of `run` so that they exist in a build without MPI.

/// Exit code of a run that measured but had a block without any valid repetition: its
/// records are kept, but scripts must notice (2 is bad input, 3 the `--timeout` watchdog).
pub const NO_VALID_EXIT: u8 = 4;
