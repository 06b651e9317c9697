//! One collective instance ([`Instance`]: every member's call, [`Entry`]) and what it says
//! about the arrivals. With entry times a_i (seconds) of its n ranks:
//! - lateness of rank i: a_i − min_j a_j; spread: max_j a_j − min_j a_j;
//! - the process arrival pattern's average-case imbalance time as Faraj, Patarasuk and Yuan
//!   (2008) define it, (1/n) Σ |a_i − ā| with ā the mean entry (their worst-case one is the
//!   spread);
//! - the waiting time by Scalasca's collective wait states (Geimer et al. 2010; Scalasca's
//!   pattern reference), rank by rank, each at most the rank's own time in the call:
//!   Wait at N×N and Wait at Barrier max_j a_j − a_i; Late Broadcast (non-root i)
//!   max(0, a_root − a_i); Early Reduce (root only) max(0, min_{j≠root} a_j − a_root); Early
//!   Scan max(0, max_{j≤i} a_j − a_i). A nonblocking initiation waits for nothing; a
//!   persistent collective (`allreduce_persistent`: its `MPI_Start` to the completion seen in
//!   `MPI_Wait` or `MPI_Test`) has its blocking collective's wait state.

use super::op::{CaptureOp, WaitKind};
use serde::Serialize;

/// One rank's part of a collective instance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Entry {
    /// World rank.
    pub world_rank: u32,
    /// Rank in the communicator.
    pub comm_rank: u32,
    /// Global entry time, seconds.
    pub enter_s: f64,
    /// Global exit time, seconds.
    pub exit_s: f64,
    /// The hash of the count vector this rank passed ([`CaptureEvent::counts_hash`]); its
    /// vector is [`Matched::vector`]. None for operations without one, for ranks whose
    /// vector is not significant (gatherv and scatterv off the root) and in captures written
    /// before counts were recorded.
    ///
    /// [`CaptureEvent::counts_hash`]: crate::capture::CaptureEvent::counts_hash
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts_hash: Option<u64>,
}

/// One collective instance: every member's call.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// Call site key of the lowest communicator rank (`module+0xoffset`).
    pub site: String,
    /// Readable site name.
    pub site_label: String,
    /// Communicator identity.
    pub comm: u64,
    /// The operation.
    pub op: CaptureOp,
    /// Bytes of the lowest communicator rank.
    pub bytes: u64,
    /// Root in the communicator, −1 without one.
    pub root: i32,
    /// Position among this communicator's collectives, from 0.
    pub index: usize,
    /// The members' calls, ordered by communicator rank.
    pub entries: Vec<Entry>,
}

impl Instance {
    /// Lateness of each member, seconds, by communicator rank: entry minus the earliest.
    pub fn lateness(&self) -> Vec<f64> {
        let first = self
            .entries
            .iter()
            .map(|e| e.enter_s)
            .fold(f64::INFINITY, f64::min);
        self.entries.iter().map(|e| e.enter_s - first).collect()
    }

    /// Arrival spread, seconds: latest entry minus earliest.
    pub fn spread(&self) -> f64 {
        self.lateness().into_iter().fold(0.0, f64::max)
    }

    /// Faraj, Patarasuk and Yuan's (2008) average-case imbalance time, seconds.
    pub fn average_imbalance(&self) -> f64 {
        let n = self.entries.len() as f64;
        let mean = self.entries.iter().map(|e| e.enter_s).sum::<f64>() / n;
        self.entries
            .iter()
            .map(|e| (e.enter_s - mean).abs())
            .sum::<f64>()
            / n
    }

    /// Each member's waiting time, seconds, by communicator rank, by the operation's wait
    /// state (module docs); all zero for a nonblocking initiation.
    pub fn waits(&self) -> Vec<f64> {
        let a: Vec<f64> = self.entries.iter().map(|e| e.enter_s).collect();
        let last = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let root = usize::try_from(self.root).ok().filter(|&r| r < a.len());
        let raw: Vec<f64> = match self.op.wait_kind() {
            None => vec![0.0; a.len()],
            Some(WaitKind::WaitNxN | WaitKind::WaitBarrier) => a.iter().map(|x| last - x).collect(),
            Some(WaitKind::LateBroadcast) => match root {
                Some(r) => a.iter().map(|x| (a[r] - x).max(0.0)).collect(),
                None => vec![0.0; a.len()],
            },
            Some(WaitKind::EarlyReduce) => match root {
                Some(r) => {
                    let first_sender = a
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| i != r)
                        .map(|(_, x)| *x)
                        .fold(f64::INFINITY, f64::min);
                    (0..a.len())
                        .map(|i| {
                            if i == r && first_sender.is_finite() {
                                (first_sender - a[r]).max(0.0)
                            } else {
                                0.0
                            }
                        })
                        .collect()
                }
                None => vec![0.0; a.len()],
            },
            Some(WaitKind::EarlyScan) => {
                let mut latest = f64::NEG_INFINITY;
                a.iter()
                    .map(|&x| {
                        latest = latest.max(x);
                        latest - x
                    })
                    .collect()
            }
        };
        raw.iter()
            .zip(&self.entries)
            .map(|(w, e)| w.min((e.exit_s - e.enter_s).max(0.0)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::match_calls;
    use crate::capture::testdata::rank;
    use CaptureOp::*;

    #[test]
    fn rooted_and_scan_wait_states_follow_scalasca() {
        // Bcast root 1 enters at 2.0; ranks 0 and 2 at 1.0 and 2.5: only rank 0 waits (1.0).
        // Reduce root 0 enters at 10.0, senders at 10.4 and 10.2: the root waits 0.2.
        // Scan entries 20.3, 20.0, 20.5: rank 1 waits 0.3 for rank 0, rank 2 none.
        let caps = vec![
            rank(
                0,
                3,
                0.0,
                &[
                    (Bcast, 1, 1.0, 3.0),
                    (Reduce, 0, 10.0, 11.0),
                    (Scan, -1, 20.3, 21.0),
                ],
            ),
            rank(
                1,
                3,
                0.0,
                &[
                    (Bcast, 1, 2.0, 3.0),
                    (Reduce, 0, 10.4, 11.0),
                    (Scan, -1, 20.0, 21.0),
                ],
            ),
            rank(
                2,
                3,
                0.0,
                &[
                    (Bcast, 1, 2.5, 3.0),
                    (Reduce, 0, 10.2, 11.0),
                    (Scan, -1, 20.5, 21.0),
                ],
            ),
        ];
        let m = match_calls(&caps).unwrap();
        let by_op = |op| m.instances.iter().find(|i| i.op == op).unwrap().waits();
        let close = |a: Vec<f64>, b: [f64; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
        assert!(close(by_op(Bcast), [1.0, 0.0, 0.0]));
        assert!(close(by_op(Reduce), [0.2, 0.0, 0.0]));
        assert!(close(by_op(Scan), [0.0, 0.3, 0.0]));
    }

    #[test]
    fn a_wait_is_at_most_the_time_in_the_call_and_nonblocking_waits_nothing() {
        // Rank 0 enters 1.0 but leaves at 1.1 (an eager send): it waits 0.1, not 0.5.
        let caps = vec![
            rank(
                0,
                2,
                0.0,
                &[(Allreduce, -1, 1.0, 1.1), (Iallreduce, -1, 2.0, 2.0)],
            ),
            rank(
                1,
                2,
                0.0,
                &[(Allreduce, -1, 1.5, 1.6), (Iallreduce, -1, 3.0, 3.0)],
            ),
        ];
        let m = match_calls(&caps).unwrap();
        assert!((m.instances[0].waits()[0] - 0.1).abs() < 1e-12);
        assert_eq!(m.instances[1].waits(), vec![0.0, 0.0]);
    }
}
