//! The O(log P) schedule shared by the tree methods (Hoefler et al. 2010, §3.2 and
//! Figure 7; Hunold and Carpen-Amarie 2015, Algorithm 2).
//!
//! With t = 2^⌊log2 P⌋, the largest power of two ≤ P, ranks 0..t−1 synchronise in log2 t
//! rounds: in round k (1-based) every rank r < t with r mod 2^k = 0 is the *reference* of
//! client r + 2^(k−1). The ranks t..P−1 then synchronise in one extra step with reference
//! r − t. Pure functions: the methods run them as a bottom-up gather of models (netgauge,
//! hca: rounds in order) or top-down (treefit: rounds in reverse order, so a reference
//! already has its final model when it serves its client).
//!
//! Naming: the *client* is the rank whose clock is measured against the *reference* (HCA's
//! naming in Algorithm 2; Netgauge's text calls the reference "client" and the measured rank
//! "server").

/// One pairwise synchronisation: `client` learns its clock relative to `reference`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TreePair {
    /// Rank whose clock is the reference of this pair.
    pub reference: usize,
    /// Rank whose clock is measured.
    pub client: usize,
}

/// Largest power of two ≤ `p` (`maxpower` in Algorithm 1, t in Hoefler et al. 2010, §3.2); 1 for p ≤ 1.
pub fn largest_power_of_two(p: usize) -> usize {
    if p <= 1 {
        1
    } else {
        1 << (usize::BITS - 1 - p.leading_zeros())
    }
}

/// The rounds of the power-of-two part, in bottom-up order (round 1 first): round k pairs
/// reference r (r mod 2^k = 0, r < t) with client r + 2^(k−1). In round k a client brings the
/// 2^(k−1) ranks client..client+2^(k−1)−1 it collected before (Hoefler et al. 2010, §3.2: "a server
/// communicates 2^(r−1) time differences").
pub fn tree_rounds(p: usize) -> Vec<Vec<TreePair>> {
    let t = largest_power_of_two(p);
    let mut rounds = Vec::new();
    let mut half = 1;
    while 2 * half <= t {
        rounds.push(
            (0..t)
                .step_by(2 * half)
                .map(|r| TreePair {
                    reference: r,
                    client: r + half,
                })
                .collect(),
        );
        half *= 2;
    }
    rounds
}

/// The extra step for the ranks above the largest power of two t: client q with reference
/// q − t, for q = t..P−1 (Hoefler et al. 2010, §3.2 second group; Algorithm 2 SYNC_CLOCKS_REMAINING).
pub fn remaining_pairs(p: usize) -> Vec<TreePair> {
    let t = largest_power_of_two(p);
    (t..p)
        .map(|q| TreePair {
            reference: q - t,
            client: q,
        })
        .collect()
}

/// The pair `rank` belongs to in the round of [`tree_rounds`] whose clients are `half`
/// (= 2^(k−1) for round k) above their references, if any. O(1), so that each of P ranks
/// finds its role without building the O(P) schedule (the simulator runs 65,536 ranks).
pub fn round_pair(p: usize, half: usize, rank: usize) -> Option<TreePair> {
    let t = largest_power_of_two(p);
    if half == 0 || 2 * half > t || rank >= t {
        return None;
    }
    let reference = rank - rank % (2 * half);
    let client = reference + half;
    (rank == reference || rank == client).then_some(TreePair { reference, client })
}

/// The pair of [`remaining_pairs`] `rank` belongs to, if any. O(1).
pub fn remaining_pair(p: usize, rank: usize) -> Option<TreePair> {
    let t = largest_power_of_two(p);
    if rank >= t && rank < p {
        Some(TreePair {
            reference: rank - t,
            client: rank,
        })
    } else if rank + t < p {
        Some(TreePair {
            reference: rank,
            client: rank + t,
        })
    } else {
        None
    }
}

/// The `half` of every round, bottom-up order: 1, 2, 4, ..., t/2.
pub fn round_halves(p: usize) -> impl DoubleEndedIterator<Item = usize> {
    let t = largest_power_of_two(p);
    (0..t.trailing_zeros()).map(|k| 1usize << k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn powers_of_two() {
        let expected = [(1, 1), (2, 2), (3, 2), (4, 4), (7, 4), (8, 8), (33, 32)];
        for (p, t) in expected {
            assert_eq!(largest_power_of_two(p), t, "p = {p}");
        }
    }

    #[test]
    fn figure_7_example_p7() {
        // P = 7: t = 4; rounds (0,1),(2,3) then (0,2); remaining (0,4),(1,5),(2,6).
        let pair = |reference, client| TreePair { reference, client };
        assert_eq!(
            tree_rounds(7),
            vec![vec![pair(0, 1), pair(2, 3)], vec![pair(0, 2)]]
        );
        assert_eq!(remaining_pairs(7), vec![pair(0, 4), pair(1, 5), pair(2, 6)]);
    }

    /// Every P from 2 to 33: every rank but 0 is measured exactly once; no rank is in two
    /// pairs of one round; the bottom-up gather brings every rank's model to rank 0; the
    /// top-down order only lets references serve once they have a route to rank 0.
    #[test]
    fn every_rank_gets_exactly_one_route_for_p_2_to_33() {
        for p in 2..=33 {
            let t = largest_power_of_two(p);
            let rounds = tree_rounds(p);
            let remaining = remaining_pairs(p);
            assert_eq!(rounds.len(), t.trailing_zeros() as usize, "p = {p}");
            assert_eq!(remaining.len(), p - t, "p = {p}");

            // Each rank 1..p-1 is a client exactly once; rank 0 never.
            let mut clients = vec![0; p];
            for pr in rounds.iter().flatten().chain(&remaining) {
                assert!(pr.reference < pr.client && pr.client < p, "p = {p}: {pr:?}");
                clients[pr.client] += 1;
            }
            assert_eq!(clients[0], 0, "p = {p}");
            assert!(clients[1..].iter().all(|&c| c == 1), "p = {p}: {clients:?}");

            // Within a round (and within the remaining step) a rank is in at most one pair.
            for step in rounds.iter().chain(std::iter::once(&remaining)) {
                let mut seen = BTreeSet::new();
                for pr in step {
                    assert!(seen.insert(pr.reference), "p = {p}: {step:?}");
                    assert!(seen.insert(pr.client), "p = {p}: {step:?}");
                }
            }

            // Bottom-up (netgauge, hca): knows[r] = ranks whose model relative to r, r holds.
            // In a round the reference takes over everything its client knows; a client never
            // serves again. At the end rank 0 knows every rank.
            let mut knows: Vec<BTreeSet<usize>> = (0..p).map(|r| BTreeSet::from([r])).collect();
            let mut done = vec![false; p];
            for round in &rounds {
                for pr in round {
                    assert!(!done[pr.reference], "p = {p}: {pr:?} after its client role");
                    let taken = std::mem::take(&mut knows[pr.client]);
                    assert_eq!(taken.len(), round_size(&rounds, round), "p = {p}");
                    knows[pr.reference].extend(taken);
                    done[pr.client] = true;
                }
            }
            assert_eq!(knows[0].len(), t, "p = {p}");
            // Remaining: rank 0 merges the model of q to q − t with that of q − t to 0.
            for pr in &remaining {
                assert!(knows[0].contains(&pr.reference), "p = {p}: {pr:?}");
                knows[0].insert(pr.client);
            }
            assert_eq!(knows[0], (0..p).collect::<BTreeSet<_>>(), "p = {p}");

            // Top-down (treefit): reverse the rounds; a reference must already be synced.
            let mut synced = vec![false; p];
            synced[0] = true;
            for step in rounds.iter().rev().chain(std::iter::once(&remaining)) {
                for pr in step {
                    assert!(synced[pr.reference], "p = {p}: {pr:?} reference not synced");
                    assert!(!synced[pr.client], "p = {p}: {pr:?} client synced twice");
                }
                for pr in step {
                    synced[pr.client] = true;
                }
            }
            assert!(synced.iter().all(|&s| s), "p = {p}");
        }
    }

    /// Ranks a client brings in its round: 2^(k−1) for round k.
    fn round_size(rounds: &[Vec<TreePair>], round: &[TreePair]) -> usize {
        let k = rounds.iter().position(|r| r == round).unwrap();
        1 << k
    }

    /// The O(1) role of each rank agrees with the full schedule, P = 1 to 70.
    #[test]
    fn per_rank_roles_match_the_schedule() {
        for p in 1..=70 {
            let rounds = tree_rounds(p);
            let halves: Vec<usize> = round_halves(p).collect();
            assert_eq!(halves.len(), rounds.len(), "p = {p}");
            for (round, half) in rounds.iter().zip(&halves) {
                for r in 0..p {
                    let expected = round
                        .iter()
                        .find(|pr| pr.reference == r || pr.client == r)
                        .copied();
                    assert_eq!(round_pair(p, *half, r), expected, "p = {p} r = {r}");
                }
            }
            let remaining = remaining_pairs(p);
            for r in 0..p {
                let expected = remaining
                    .iter()
                    .find(|pr| pr.reference == r || pr.client == r)
                    .copied();
                assert_eq!(remaining_pair(p, r), expected, "p = {p} r = {r}");
            }
        }
    }

    #[test]
    fn tiny_worlds() {
        assert!(tree_rounds(1).is_empty() && remaining_pairs(1).is_empty());
        assert_eq!(
            tree_rounds(2),
            vec![vec![TreePair {
                reference: 0,
                client: 1
            }]]
        );
    }
}
