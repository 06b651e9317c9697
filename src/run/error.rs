//! What can go wrong on the run side once MPI is up. Any of these on one rank ends every rank
//! with a message and `MPI_Abort` (see `fail`), never a hang.

use crate::delay::DetourError;
use crate::records::RecordsError;
use thiserror::Error;

/// An error of the measurement run.
#[derive(Debug, Error)]
pub enum RunError {
    /// The plan was refused before anything was measured (exit status 2): what was wrong
    /// and what to do, as rank 0 decided it for every rank.
    #[error("{0}")]
    BadInput(String),
    /// Rank 0's plan did not reach this rank intact.
    #[error("plan broadcast: {0}")]
    PlanBroadcast(String),
    /// Writing the records file failed.
    #[error(transparent)]
    Records(#[from] RecordsError),
    /// The detour injector could not start.
    #[error(transparent)]
    Detour(#[from] DetourError),
}
