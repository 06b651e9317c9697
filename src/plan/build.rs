//! The one way from options to a [`Plan`]: a measurement's command line (`cli`) and
//! `delaybench simulate` (`simulate`) each state their options as a [`Request`], and
//! [`Request::to_plan`] settles what the options leave to the run (the default process
//! counts, the drawn seed, the kernels and sizes of a replayed site).
//!
//! The two commands do not share one flattened set of clap options: the same option has a
//! different default (`--ops` allreduce, `--sizes` 8 in `simulate`), parser (`--procs`
//! takes MIN:MAX, `--delay` refuses `none`, `--window` is checked later) and help there, so
//! sharing it would change a command line. The request is where they meet instead: each
//! command states its options as a [`Plan`] once, in its one conversion.

use super::Plan;
use crate::delay::models::replay::ReplayMap;

/// The options of a run, as a plan-level value with no command-line parser behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The plan as the options state it. [`Request::to_plan`] replaces three things: empty
    /// `procs` (the default for the world size, [`default_procs`]), `seed` (from
    /// [`Request::seed`] or the drawn one), and, with [`Request::replay`], `ops`, `sizes` and
    /// `delays` as the replayed sites choose them ([`Request::replay_choice`]).
    pub stated: Plan,
    /// The seed the options name; `None`: the run draws one.
    pub seed: Option<u64>,
    /// How replayed captures settle their map, kernels and sizes; `None` keeps the stated
    /// delays, kernels and sizes as they are (`delaybench simulate` does not settle replays).
    pub replay: Option<ReplayRequest>,
}

/// What the options say about replayed captures besides the delays themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReplayRequest {
    /// `--replay-map`, when given.
    pub map: Option<ReplayMap>,
    /// Whether the kernels were given (command line or study file) rather than defaulted; a
    /// replay chooses them otherwise.
    pub ops_given: bool,
    /// Whether the sizes were given rather than defaulted; a replay chooses them otherwise.
    pub sizes_given: bool,
}

impl Request {
    /// The plan of this request on `world_size` ranks, with `seed` used when the request
    /// names none. Not yet validated: see [`Plan::validate`].
    pub fn to_plan(&self, world_size: u32, seed: u64) -> Plan {
        // A contradiction is refused by [`Request::replay_choice`] before any plan is made;
        // here the delays then stay as stated.
        let replay = self.replay_choice().ok();
        let stated = &self.stated;
        Plan {
            ops: replay
                .as_ref()
                .and_then(|r| r.ops.clone())
                .unwrap_or_else(|| stated.ops.clone()),
            sizes: replay
                .as_ref()
                .and_then(|r| r.sizes.clone())
                .unwrap_or_else(|| stated.sizes.clone()),
            procs: if stated.procs.is_empty() {
                default_procs(world_size)
            } else {
                stated.procs.clone()
            },
            delays: replay.map_or_else(|| stated.delays.clone(), |r| r.delays),
            seed: self.seed.unwrap_or(seed),
            ..stated.clone()
        }
    }
}

/// Powers of two from 2 up to `world_size`, and `world_size` itself.
pub fn default_procs(world_size: u32) -> Vec<u32> {
    let mut procs: Vec<u32> = (1..32)
        .map(|k| 1u32 << k)
        .take_while(|&p| p <= world_size)
        .collect();
    if procs.last() != Some(&world_size) && world_size >= 2 {
        procs.push(world_size);
    }
    procs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_procs_are_powers_of_two_and_world() {
        assert_eq!(default_procs(2), vec![2]);
        assert_eq!(default_procs(4), vec![2, 4]);
        assert_eq!(default_procs(12), vec![2, 4, 8, 12]);
    }
}
