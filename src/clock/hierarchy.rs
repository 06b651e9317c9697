//! Running the tree schedule of [`tree`](super::tree) with a pairwise method: bottom-up with
//! models gathered and merged towards rank 0 (netgauge, hca), or top-down with each client
//! fitting against its reference's already-global clock (treefit).

use super::fit::serve_model;
use super::pingpong::{handshake_client, handshake_reference, recv_model, send_model};
use super::sync::{Stats, SyncOutcome};
use super::tree::{largest_power_of_two, remaining_pair, round_halves, round_pair, TreePair};
use super::Transport;
use crate::clock::ClockModel;

/// What one pair of the tree does; both ranks of the pair call their side after a handshake.
pub(crate) trait PairLearner {
    /// Client side: returns this rank's model relative to the clock `reference` serves.
    fn client(&self, t: &dyn Transport, reference: usize, stats: &mut Stats) -> ClockModel;
    /// Reference side. `clock` is the clock to serve the client with (local time bottom-up,
    /// global time top-down); methods in which the reference pings use its local clock. By
    /// default it serves the client's fit until the client stops it ([`serve_model`]), the
    /// reference side of every method whose client fits a line (hca, hca3, treefit).
    fn reference(
        &self,
        t: &dyn Transport,
        client: usize,
        clock: &dyn Fn() -> f64,
        stats: &mut Stats,
    ) {
        serve_model(t, client, clock, stats);
    }
}

/// Bottom-up tree (Hoefler et al. 2010, §3.2; Hunold and Carpen-Amarie 2015, Algorithm 2): in each round the client
/// learns its model to its reference and sends it the models of the ranks it collected
/// (client first, then client+1.. relative to the client); the reference merges them with
/// MERGE_LMS ([`ClockModel::merge`]). Ranks above the largest power of two learn against
/// rank q − t and send their model to rank 0, which merges it with that of q − t
/// (SYNC_CLOCKS_REMAINING). Rank 0 finally sends every rank its model (MPI_SCATTER of
/// Algorithm 1). Returns this rank's model relative to rank 0.
pub(crate) fn bottom_up(
    t: &dyn Transport,
    learner: &dyn PairLearner,
    stats: &mut Stats,
) -> ClockModel {
    let (r, p) = (t.rank(), t.size());
    if p < 2 {
        return ClockModel::IDENTITY;
    }
    let maxpower = largest_power_of_two(p);
    // models[i]: rank r + i relative to rank r (index 0: r itself).
    let mut models = vec![ClockModel::IDENTITY];
    // Each rank looks up only its own pair per round (O(log P)), not the whole schedule.
    for half in round_halves(p) {
        let Some(pair) = round_pair(p, half, r) else {
            continue;
        };
        if pair.reference == r {
            handshake_reference(t, pair.client);
            learner.reference(t, pair.client, &|| t.now(), stats);
            let first = recv_model(t, pair.client);
            models.push(first);
            for _ in 1..half {
                let m = recv_model(t, pair.client);
                models.push(first.merge(&m));
            }
        } else {
            handshake_client(t, pair.reference);
            models[0] = learner.client(t, pair.reference, stats);
            for m in &models {
                send_model(t, pair.reference, m);
            }
            break;
        }
    }
    // Remaining ranks q >= maxpower against q - maxpower, gathered at rank 0.
    if let Some(pair) = remaining_pair(p, r) {
        if pair.reference == r {
            handshake_reference(t, pair.client);
            learner.reference(t, pair.client, &|| t.now(), stats);
        } else {
            handshake_client(t, pair.reference);
            let m = learner.client(t, pair.reference, stats);
            send_model(t, 0, &m);
        }
    }
    if r == 0 {
        assert_eq!(
            models.len(),
            maxpower,
            "rank 0 collected every power-of-two rank"
        );
        for q in maxpower..p {
            let m = recv_model(t, q);
            models.push(models[q - maxpower].merge(&m));
        }
        for (q, m) in models.iter().enumerate().skip(1) {
            send_model(t, q, m);
        }
        ClockModel::IDENTITY
    } else {
        recv_model(t, 0)
    }
}

/// Top-down tree: the rounds of [`tree_rounds`](super::tree_rounds) in reverse order, then the remaining ranks.
/// A reference has its final model before it serves, and serves its *global* time
/// (`model.to_global(local)`), so each client's model is directly relative to rank 0 and no
/// models are merged or sent around. Returns this rank's model relative to rank 0.
pub(crate) fn top_down(
    t: &dyn Transport,
    learner: &dyn PairLearner,
    stats: &mut Stats,
) -> ClockModel {
    let (r, p) = (t.rank(), t.size());
    let mut model = (r == 0).then_some(ClockModel::IDENTITY);
    // This rank's own pair per step (O(log P)), largest distance first, then the remaining.
    let steps = round_halves(p)
        .rev()
        .map(|half| round_pair(p, half, r))
        .chain(std::iter::once(remaining_pair(p, r)));
    for pair in steps.flatten() {
        top_down_pair(t, learner, stats, pair, &mut model);
    }
    model.expect("every rank is a client once")
}

/// What a top-down method returns once this rank has `model`: rank 0, the reference, only
/// its count of exchanges; every other rank its model and statistics.
pub(crate) fn top_down_outcome(t: &dyn Transport, stats: &Stats, model: ClockModel) -> SyncOutcome {
    if t.rank() == 0 {
        return SyncOutcome::reference(stats.exchanges);
    }
    stats.outcome(model)
}

/// This rank's side of one top-down pair: serve global time, or learn and keep the model.
fn top_down_pair(
    t: &dyn Transport,
    learner: &dyn PairLearner,
    stats: &mut Stats,
    pair: TreePair,
    model: &mut Option<ClockModel>,
) {
    if pair.reference == t.rank() {
        let m = model.expect("a reference is synchronised before it serves");
        handshake_reference(t, pair.client);
        learner.reference(t, pair.client, &|| m.to_global(t.now()), stats);
    } else {
        handshake_client(t, pair.reference);
        *model = Some(learner.client(t, pair.reference, stats));
    }
}
