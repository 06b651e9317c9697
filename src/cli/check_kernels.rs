//! The arguments of `delaybench check-kernels` (run under mpirun).

use super::parsers::parse_op;
use crate::plan::Op;
#[cfg(feature = "mpi")]
use crate::run::CheckKernelsOptions;
use clap::Args;

/// Options of the hidden `delaybench check-kernels` (run under mpirun): the correctness check
/// of the reduction kernels, tests/reference_kernels.rs runs it at several P.
#[derive(Debug, Clone, Args)]
pub struct CheckKernelsArgs {
    /// Reduction kernels (sum on every rank) or v-form kernels to check [default: every
    /// ref:* kernel].
    #[arg(long, value_delimiter = ',', value_parser = parse_op)]
    pub ops: Vec<Op>,
    /// Element counts (f64 per rank; bytes per block for the v-forms) to check, e.g.
    /// 1,5,7,13,1000.
    #[arg(long, value_delimiter = ',', default_value = "1,2,5,7,13,1000")]
    pub counts: Vec<usize>,
    /// Calls per kernel and count; in call k, rank k mod P enters 20 ms late, so the
    /// arrival-aware kernels see (and learn) an order other than rank order.
    #[arg(long, default_value_t = 4)]
    pub calls: u32,
    /// Corrupt one element of rank 0's result before comparing, to see the check fail.
    #[arg(long, hide = true)]
    pub inject_error: bool,
}

/// The run side's plain options: it never sees a command-line type.
#[cfg(feature = "mpi")]
impl From<CheckKernelsArgs> for CheckKernelsOptions {
    fn from(a: CheckKernelsArgs) -> Self {
        CheckKernelsOptions {
            ops: a.ops,
            counts: a.counts,
            calls: a.calls,
            inject_error: a.inject_error,
        }
    }
}
