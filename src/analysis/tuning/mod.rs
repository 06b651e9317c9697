//! `delaybench tune`: the MPI library's own tuning file for an arrival pattern. From sweeps
//! of the library's collective algorithms (`--algorithms`, `--algorithm-from-env`, or
//! `simulate --algorithms`), per (collective, P, message size) the algorithm with the lowest
//! median t_global under one arrival pattern, kept only when it beats the library's own
//! choice (`default`) by a bootstrap interval of the difference that excludes zero, with the
//! false discovery rate controlled over every comparison of the tuning (Benjamini-Hochberg);
//! then the rules as Open MPI 4.1's `coll_tuned` dynamic rules file or MPICH 4.0's collective
//! selection JSON, and the check that the library obeys them.
//!
//! Library tuners (ACCLAiM, Wilkins et al. 2022; Open MPI's OTPO) tune for balanced
//! arrivals only; Salimi Beni, Cosenza and Hunold (2024) show that the best algorithm
//! changes with the process arrival pattern, which is what `--pattern` selects here.

mod choice;
mod mpich;
mod names;
mod openmpi;
mod ranges;
mod sweep;
mod verify;

pub use choice::{choose, Cell, Choice, Tuning, TUNE_SCHEMA_VERSION};
pub use mpich::{mpich_json, mpich_json_for_probe};
pub use names::{library_algorithm, TuneLibrary};
pub use openmpi::{openmpi_rules, openmpi_rules_for_probe, OpenMpiLookup};
pub use ranges::{annotate, rules_of, Extrapolation, Rule, RuleSet};
pub use sweep::{pattern_to_tune, patterns, read_sweep, Measured, Sweep, BALANCED};
pub use verify::{check_rules, probes_needed, RuleCheck, Verdict, FINGERPRINT_BYTES};

use thiserror::Error;

/// Why a tuning cannot be made from the records given.
#[derive(Debug, Error)]
pub enum TuneError {
    /// A records file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: crate::records::RecordsError,
    },
    /// No block of the records was measured with a collective algorithm.
    #[error(
        "{0}: no block names a collective algorithm: measure with --algorithms (or launches \
         of --algorithm-from-env, or simulate --algorithms) first"
    )]
    NoAlgorithms(String),
    /// The records hold several delayed patterns and `--pattern` named none of them.
    #[error("the records hold several arrival patterns: {0}; choose one with --pattern (or --pattern balanced)")]
    SeveralPatterns(String),
    /// `--pattern` names a pattern the records do not hold.
    #[error("no block was measured under the pattern `{asked}`; the records hold: {held}")]
    UnknownPattern { asked: String, held: String },
    /// An algorithm name the chosen library does not have (a simulated sweep's SMPI name
    /// without a counterpart).
    #[error("{0}")]
    Unmapped(String),
}
