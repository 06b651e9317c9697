//! The delays of one block as a deterministic `[nrep][p]` matrix.

use super::{DelayModel, RankSelection};
use rand::SeedableRng;
use rand_chacha::ChaCha12Rng;

/// Delays in seconds for every repetition and rank of one block: shape `[nrep][p]`,
/// row-major (index `rep * p + rank`, as the records' `applied_delay_s`), 0 where a rank is not
/// delayed in that repetition.
///
/// A pure function of its arguments, so every MPI rank computes the same matrix without
/// communicating, and the same `seed` and `stream` give the same delays. The run side passes
/// the run seed and a per-block `stream` number; different streams give independent matrices.
/// `hosts` holds the host name per rank (index = rank, at least `p` entries) for `host:I`.
///
/// Repetition by repetition, the delayed ranks are chosen ([`RankSelection::ranks_for_rep`])
/// and then each gets one draw of `model`, in ascending rank order; draws are numbered from 0
/// per block (the `index` of [`DelayModel::sample`], which a trace replays in order). The
/// first `n` rows therefore do not depend on `nrep`.
///
/// The generator is ChaCha12 from `rand_chacha` keyed with `seed` and `stream`, named rather
/// than rand's `StdRng`, whose algorithm rand may change in any release: ChaCha12's stream is
/// fixed, and a unit test pins its first words. The sampling algorithms of rand (rank
/// choice) and rand_distr (the models) are pinned by `tests/delay_models.rs` for the versions
/// in Cargo.lock. Records keep the delays actually applied (`applied_delay_s`), so analysis
/// never needs to redraw them.
///
/// Expects a model that passed [`DelayModel::validate`] and a selection that passed
/// [`RankSelection::validate`] for `p` and `hosts`; ranks the selection names beyond `p` are
/// left out.
pub fn delay_matrix(
    model: &DelayModel,
    ranks: &RankSelection,
    p: u32,
    hosts: &[String],
    nrep: u32,
    seed: u64,
    stream: u64,
) -> Vec<f64> {
    let p_us = p as usize;
    let mut matrix = vec![0.0; nrep as usize * p_us];
    let mut rng = block_rng(seed, stream);
    let mut draws = 0u64;
    for (rep, row) in matrix.chunks_exact_mut(p_us.max(1)).enumerate() {
        // A replayed vector delays every rank and draws nothing.
        if let Some(whole) = model.row(rep as u64, p) {
            row.copy_from_slice(&whole[..p_us]);
            continue;
        }
        for rank in ranks.ranks_for_rep(p, hosts, &mut rng) {
            row[rank as usize] = model.sample(&mut rng, draws);
            draws += 1;
        }
    }
    matrix
}

/// The delays of `rank` in every repetition (a column of a [`delay_matrix`] with `p` ranks),
/// seconds, length nrep: what one MPI rank needs from the matrix.
pub fn rank_column(matrix: &[f64], p: u32, rank: u32) -> Vec<f64> {
    matrix
        .iter()
        .skip(rank as usize)
        .step_by(p.max(1) as usize)
        .copied()
        .collect()
}

/// The planned arrival order of one repetition: the ranks 0..P-1 sorted by their delay in
/// `row` (seconds, one per rank, a row of a [`delay_matrix`]), earliest first, ties by rank.
///
/// "Planned" because every rank's start instant is the same global instant plus its delay
/// (window synchronisation), so the delay alone orders the arrivals; noise and a late start
/// can still reorder the real ones. With no delay (the baseline) the order is 0, 1, ..., P-1.
pub fn arrival_order(row: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..row.len()).collect();
    // Stable sort by delay: equal delays keep rank order. total_cmp: NaN never occurs (the
    // models sample finite delays) but must not panic if it did.
    order.sort_by(|&a, &b| row[a].total_cmp(&row[b]));
    order
}

/// The planned arrival order ([`arrival_order`]) of every repetition of a [`delay_matrix`]
/// with `p` ranks: `nrep` orders of P ranks each.
pub fn arrival_orders(matrix: &[f64], p: u32) -> Vec<Vec<usize>> {
    matrix
        .chunks_exact(p.max(1) as usize)
        .map(arrival_order)
        .collect()
}

/// A generator keyed by (seed, stream): the two words fill distinct bytes of the 32-byte key,
/// so distinct pairs never share a key (unlike `seed ^ stream`), and a fixed tag keeps these
/// keys apart from any other use of the run seed.
fn block_rng(seed: u64, stream: u64) -> ChaCha12Rng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    key[8..16].copy_from_slice(&stream.to_le_bytes());
    key[16..].copy_from_slice(b"delaybench:delay");
    ChaCha12Rng::from_seed(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrival_order_sorts_by_delay_then_rank() {
        assert_eq!(arrival_order(&[50e-6, 0.0, 0.0, 10e-6]), vec![1, 2, 3, 0]);
        assert_eq!(arrival_order(&[0.0; 4]), vec![0, 1, 2, 3]);
        assert_eq!(arrival_order(&[3.0, 2.0, 1.0]), vec![2, 1, 0]);
        let matrix = [0.0, 5.0, 0.0, 2.0, 1.0, 0.0];
        assert_eq!(
            arrival_orders(&matrix, 3),
            vec![vec![0, 2, 1], vec![2, 1, 0]]
        );
    }

    /// The delay streams' first words, pinned: ChaCha12 is a fixed algorithm and rand_chacha
    /// keeps its output stable across versions, so these hold for every build. A change here
    /// changes the delays every seed gives.
    #[test]
    fn delay_streams_are_pinned() {
        use rand::RngCore;
        let first = |seed, stream| {
            let mut rng = block_rng(seed, stream);
            [
                rng.next_u64(),
                rng.next_u64(),
                rng.next_u64(),
                rng.next_u64(),
            ]
        };
        assert_eq!(
            first(11, 5),
            [
                0xf1fcb3ba5b3aa504,
                0xeee781d2942c1077,
                0x9d4f7a3df8bac5f7,
                0x64fb929a363a758d,
            ]
        );
        // Another stream of the same seed is another key, so other words.
        assert_ne!(first(11, 6)[0], first(11, 5)[0]);
    }

    fn hosts(p: u32) -> Vec<String> {
        vec!["node0".to_string(); p as usize]
    }

    #[test]
    fn fixed_late_arrival_matrix() {
        let m = delay_matrix(
            &"50us".parse().unwrap(),
            &RankSelection::rank(1),
            3,
            &hosts(3),
            2,
            7,
            0,
        );
        assert_eq!(m, vec![0.0, 50e-6, 0.0, 0.0, 50e-6, 0.0]);
        assert_eq!(rank_column(&m, 3, 1), vec![50e-6, 50e-6]);
        assert_eq!(rank_column(&m, 3, 2), vec![0.0, 0.0]);
    }

    #[test]
    fn rows_do_not_depend_on_nrep() {
        let model: DelayModel = "exp:20us".parse().unwrap();
        let sel: RankSelection = "random:2".parse().unwrap();
        let short = delay_matrix(&model, &sel, 5, &hosts(5), 10, 3, 4);
        let long = delay_matrix(&model, &sel, 5, &hosts(5), 100, 3, 4);
        assert_eq!(short[..], long[..50]);
    }

    #[test]
    fn trace_replays_in_order_over_delayed_slots() {
        let model = DelayModel::new(crate::delay::models::trace::Trace {
            path: "t".into(),
            values_s: vec![1e-6, 2e-6, 3e-6],
        });
        let m = delay_matrix(&model, &"0,2".parse().unwrap(), 3, &hosts(3), 2, 0, 0);
        assert_eq!(m, vec![1e-6, 0.0, 2e-6, 3e-6, 0.0, 1e-6]);
    }
}
