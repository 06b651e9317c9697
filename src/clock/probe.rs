//! The drift-tracking probe protocol: between blocks and inside long window-synchronised
//! blocks, the ranks that synchronise themselves probe their offset to the global clock
//! against their reference in the synchronisation tree, top-down, so that a reference has its
//! new model before it serves its client, and refit their online model over every probe so far
//! ([`super::tracking`]). Written against [`Transport`], like the synchronisation methods.

use super::evaluate::GlobalClockTransport;
use super::live::LiveClock;
use super::pingpong::{answer_pingpong, measure_offset};
use super::tree::{remaining_pairs, tree_rounds, TreePair};
use super::{ClockProbe, Transport};

/// Consecutive non-improving ping-pongs that end a probe: cheaper than a full offset
/// measurement, since the refit averages over many probes.
const PROBE_NONIMPROVING: u32 = 20;
/// Safety cap on exchanges per probe.
const PROBE_MAX_EXCHANGES: u32 = 2000;

/// The pairs of a top-down probe round over `p` ranks: the tree's rounds from the root down,
/// then the ranks above the largest power of two.
fn top_down_pairs(p: usize) -> Vec<TreePair> {
    let mut rounds = tree_rounds(p);
    rounds.reverse();
    rounds
        .into_iter()
        .flatten()
        .chain(remaining_pairs(p))
        .collect()
}

/// This rank's part in one top-down round over `local` (the ranks that synchronise
/// themselves, on their local clocks): it serves its clients on its global clock and, as a
/// client, measures its local clock against its reference's global clock and refits `live`.
/// Returns its own probe (`None` on the root), labelled with `world_rank` and `before_rep`
/// (the block's repetition the round comes before).
pub fn probe_round(
    live: &LiveClock,
    local: &dyn Transport,
    world_rank: u32,
    before_rep: u32,
) -> Option<ClockProbe> {
    let me = local.rank();
    let mut own = None;
    for pair in top_down_pairs(local.size()) {
        if pair.reference == me {
            let global = GlobalClockTransport {
                inner: local,
                model: live.model(),
            };
            measure_offset(
                &global,
                pair.client,
                PROBE_NONIMPROVING,
                PROBE_MAX_EXCHANGES,
            );
        } else if pair.client == me {
            // Reference's global time + offset = this rank's local time.
            let est = answer_pingpong(local, pair.reference);
            let t = live.now();
            let model = live.add_probe(t, est.offset_s);
            own = Some(ClockProbe {
                world_rank,
                t_local_s: t,
                offset_s: est.offset_s,
                rtt_s: est.rtt_s,
                before_rep,
                model,
            });
        }
    }
    own
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_probed_before_they_serve() {
        for p in 2..40 {
            let pairs = top_down_pairs(p);
            // Every rank but the root is a client exactly once.
            let mut clients: Vec<usize> = pairs.iter().map(|x| x.client).collect();
            clients.sort_unstable();
            assert_eq!(clients, (1..p).collect::<Vec<_>>(), "P = {p}");
            for (i, pair) in pairs.iter().enumerate() {
                if pair.reference != 0 {
                    let probed = pairs[..i].iter().position(|x| x.client == pair.reference);
                    assert!(probed.is_some(), "P = {p}: {pair:?} before its reference");
                }
            }
        }
    }
}
