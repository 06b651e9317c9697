//! The libraries' collective algorithms as schedules, one function each, named as Open MPI
//! (`coll_tuned`) and MPICH (`MPIR_CVAR_*_INTRA_ALGORITHM`) name them, written from the
//! published algorithms (Thakur, Rabenseifner and Gropp 2005; Hensgen, Finkel and Manber
//! 1988 for the dissemination barrier; Barnett et al. 1994 for van de Geijn's broadcast;
//! Rabenseifner 2004; Open MPI 4.1's `coll_base` for the pipelined broadcasts' chains and
//! where the libraries differ) in the shape of LogGOPSim's Schedgen: within a rank,
//! a step's sends wait for the previous step's receives; receives are posted at once (a
//! posted receive costs nothing); each step's messages carry the step as their tag.
//!
//! Messages of a barrier are 1 B (LogGOPSim charges (s-1)G, so 0 B is not portable). The
//! nonblocking form of a collective (`iallreduce`) runs the same schedule, with an overlap
//! computation between its start and its wait if one is asked for ([`Overlap`]), under one
//! of the two progression models of Hoefler and Lumsdaine (2008) ([`Progress`]):
//! asynchronous (every operation starts as soon as its dependencies allow, as if a progress
//! thread or the NIC drove it; their ideal progression, the default) or only inside the wait
//! (an MPI library without a progress thread). No reduction's computation is charged (γ = 0).

mod collectives;

use super::schedule::{Schedule, ScheduleBuilder};
use super::LoggopsError;
pub use collectives::*;

/// One algorithm of one collective.
#[derive(Debug, Clone, Copy)]
pub struct Algorithm {
    /// The blocking collective's kernel name (`allreduce`).
    pub op: &'static str,
    /// The algorithm's name (Open MPI's where both libraries have it).
    pub name: &'static str,
    /// Other names the libraries use for it (MPICH's).
    pub aliases: &'static [&'static str],
    /// Adds the schedule of `procs` ranks and `bytes` to the builder.
    pub build: fn(&mut ScheduleBuilder, usize, u64),
}

macro_rules! algorithms {
    ($($op:literal $name:literal [$($alias:literal),*] $f:path;)*) => {
        /// Every algorithm; the first of each collective is its default.
        pub const ALGORITHMS: &[Algorithm] = &[
            $(Algorithm { op: $op, name: $name, aliases: &[$($alias),*], build: $f },)*
        ];
    };
}

algorithms! {
    "barrier" "dissemination" ["bruck", "k_dissemination"] barrier_dissemination;
    "barrier" "recursive_doubling" [] barrier_recursive_doubling;
    "barrier" "tree" ["binomial"] barrier_tree;
    "bcast" "binomial" [] bcast_binomial;
    "bcast" "scatter_allgather" ["scatter_recursive_doubling_allgather"] bcast_scatter_allgather;
    "bcast" "scatter_allgather_ring" ["scatter_ring_allgather"] bcast_scatter_allgather_ring;
    "bcast" "pipeline" [] bcast_pipeline;
    "bcast" "chain" [] bcast_chain;
    "reduce" "binomial" [] reduce_binomial;
    "reduce" "rabenseifner" ["reduce_scatter_gather"] reduce_rabenseifner;
    "allreduce" "recursive_doubling" [] allreduce_recursive_doubling;
    "allreduce" "rabenseifner" ["reduce_scatter_allgather"] allreduce_rabenseifner;
    "allreduce" "ring" [] allreduce_ring;
    "allreduce" "reduce_bcast" ["nonoverlapping"] allreduce_reduce_bcast;
    "allgather" "ring" [] allgather_ring;
    "allgather" "bruck" ["brucks"] allgather_bruck;
    "allgather" "recursive_doubling" [] allgather_recursive_doubling;
    "alltoall" "pairwise" [] alltoall_pairwise;
    "alltoall" "linear" ["basic_linear"] alltoall_linear;
    "alltoall" "bruck" ["brucks"] alltoall_bruck;
    "gather" "binomial" [] gather_binomial;
    "gather" "linear" ["basic_linear"] gather_linear;
    "scatter" "binomial" [] scatter_binomial;
    "scatter" "linear" ["basic_linear"] scatter_linear;
}

/// How a nonblocking collective progresses between its start and its wait (Hoefler and
/// Lumsdaine 2008, "Message progression in parallel computing — to thread or not to
/// thread?").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Progress {
    /// Asynchronous progress: every operation starts as soon as its dependencies allow,
    /// beside the overlap computation (a progress thread or an offloading NIC).
    #[default]
    Async,
    /// Progress only inside the wait: the start posts the receives and the sends without a
    /// dependency (the first step's); everything else runs after the overlap computation.
    Wait,
}

impl Progress {
    /// The names `--progress` takes, the default first.
    pub const NAMES: [&'static str; 2] = ["async", "wait"];

    /// The name `--progress` takes.
    pub fn name(self) -> &'static str {
        match self {
            Progress::Async => "async",
            Progress::Wait => "wait",
        }
    }

    /// What the model does, for the records' header.
    pub fn describe(self) -> &'static str {
        match self {
            Progress::Async => {
                "async: every operation of a nonblocking collective starts as soon as its \
                 dependencies allow, the overlap computation on a second CPU of the rank"
            }
            Progress::Wait => {
                "wait: the start posts the receives and the first step's sends; the rest of a \
                 nonblocking collective runs after the overlap computation, in the wait"
            }
        }
    }
}

impl std::str::FromStr for Progress {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "async" => Ok(Progress::Async),
            "wait" => Ok(Progress::Wait),
            _ => Err(format!(
                "progress '{s}': expected one of {}",
                Progress::NAMES.join(", ")
            )),
        }
    }
}

/// The overlap computation of a nonblocking collective: `compute_ns` nanoseconds on every
/// rank between the start and the wait, progressing as `progress` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overlap {
    pub compute_ns: u64,
    pub progress: Progress,
}

/// The schedule of collective `op_name` (a kernel name of the plan: `allreduce`, or its
/// nonblocking form `iallreduce`) with `algorithm` (its name or an alias; `None`: the
/// collective's first) among `procs` ranks, `bytes` per rank's message (per block for
/// allgather, alltoall, gather and scatter).
///
/// Errors: [`LoggopsError::Algorithm`] naming the collectives or the algorithms there are.
pub fn collective(
    op_name: &str,
    algorithm: Option<&str>,
    procs: usize,
    bytes: u64,
) -> Result<Schedule, LoggopsError> {
    collective_with(op_name, algorithm, procs, bytes, None)
}

/// [`collective`] with, for a nonblocking `op_name` and an `overlap`, the overlap
/// computation between its start and its wait
/// ([`ScheduleBuilder::compute_between_start_and_wait`]); a blocking collective or `None`:
/// the collective alone.
///
/// Errors: as [`collective`].
pub fn collective_with(
    op_name: &str,
    algorithm: Option<&str>,
    procs: usize,
    bytes: u64,
    overlap: Option<Overlap>,
) -> Result<Schedule, LoggopsError> {
    let op = blocking_name(op_name);
    let of_op: Vec<&Algorithm> = ALGORITHMS.iter().filter(|a| a.op == op).collect();
    if of_op.is_empty() {
        let mut ops: Vec<&str> = ALGORITHMS.iter().map(|a| a.op).collect();
        ops.dedup();
        return Err(LoggopsError::Algorithm(format!(
            "the LogGOPS engine has no schedule of {op_name}; it has {} and their \
             nonblocking forms",
            ops.join(", ")
        )));
    }
    let chosen = match algorithm {
        None => of_op[0],
        Some(name) => of_op
            .iter()
            .find(|a| a.name == name || a.aliases.contains(&name))
            .ok_or_else(|| {
                let names: Vec<&str> = of_op.iter().map(|a| a.name).collect();
                LoggopsError::Algorithm(format!(
                    "no {op} algorithm '{name}' in the LogGOPS engine; it has {}",
                    names.join(", ")
                ))
            })?,
    };
    if procs == 0 {
        return Err(LoggopsError::Algorithm(
            "a collective needs at least one rank".into(),
        ));
    }
    let mut b = ScheduleBuilder::new(procs);
    (chosen.build)(&mut b, procs, bytes);
    if let Some(o) = overlap.filter(|o| op != op_name && o.compute_ns > 0) {
        b.compute_between_start_and_wait(o.compute_ns, o.progress == Progress::Wait);
    }
    b.build()
}

/// `iallreduce` → `allreduce`; a blocking name as it is.
fn blocking_name(op: &str) -> &str {
    match op.strip_prefix('i') {
        Some(rest) if ALGORITHMS.iter().any(|a| a.op == rest) => rest,
        _ => op,
    }
}
