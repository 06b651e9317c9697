//! The pure pass of an overlap block: the nonblocking operation posted and waited on with no
//! computation between, as OSU 7.4 (`osu_iallreduce.c` & co., first loop) and IMB-NBC 2021
//! (`IMB_iallreduce_pure` & co.) time it before their overlapped loop.

use super::F64Array;
use serde::{Deserialize, Serialize};

/// Per-rank times of the pure pass of one overlap block. Each of `nrep` repetitions is, on
/// every rank: read the clock, post, wait, read the clock, then `MPI_Barrier` (OSU 7.4 and
/// IMB 2021 both put the barrier after the timed call). It runs after the warm-up, so no
/// repetition of it is discarded (the warm-up stands for OSU's `skip`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PurePass {
    /// Repetitions of the pass.
    pub nrep: u32,
    /// Per rank (`[nprocs]`), the mean over the pass of post + wait, seconds: OSU's and
    /// IMB's per-rank pure time (`latency_in_secs`, `t_pure`).
    pub mean_s: F64Array,
    /// Per repetition (`[nrep]`), the slowest rank's post + wait, seconds: delaybench's t_b
    /// is their median (Hoefler et al. 2010, Listing 6 takes the maximum over ranks).
    pub slowest_s: F64Array,
}
