//! When a repetition is valid: the one rule, applied by the run as it measures and by the
//! timeline to whichever global times a reader uses, so that a verdict is always decided on
//! the times that are reported beside it.
//!
//! A rank *started late* when it recorded its start more than the late tolerance after its
//! start instant (the scheduled window start plus its delay), and *overran its window* when it
//! ended after the window closed (Hunold and Carpen-Amarie 2015, §2 and §1: in the
//! window-based scheme all ranks wait for a common start instant, and SKaMPI repeats a
//! measurement that cannot be completed within its window; a repetition whose ranks did not
//! start together, or that ran into the next window, measures something else). Barrier synchronisation has no schedule and no verdict.

use crate::records::{Block, FLAG_STARTED_LATE, FLAG_WINDOW_OVERRUN};

/// Whether a rank that recorded its start at global time `start_g` (seconds) started more than
/// `tolerance_s` after its instant `scheduled_g + delay_s`. Never without a schedule
/// (`scheduled_g` NaN: barrier synchronisation).
pub fn started_late(scheduled_g: f64, delay_s: f64, start_g: f64, tolerance_s: f64) -> bool {
    scheduled_g.is_finite() && start_g - (scheduled_g + delay_s) > tolerance_s
}

/// Whether an operation that ended at global time `end_g` (seconds) ran past the window
/// `[scheduled_g, scheduled_g + window_s)`. Never without a window.
pub fn overran_window(scheduled_g: f64, window_s: Option<f64>, end_g: f64) -> bool {
    window_s.is_some_and(|w| scheduled_g.is_finite() && end_g > scheduled_g + w)
}

/// The `FLAG_*` bits of one rank in one repetition.
pub fn flags(
    scheduled_g: f64,
    delay_s: f64,
    (start_g, end_g): (f64, f64),
    window_s: Option<f64>,
    tolerance_s: f64,
) -> u8 {
    let mut f = 0;
    if started_late(scheduled_g, delay_s, start_g, tolerance_s) {
        f |= FLAG_STARTED_LATE;
    }
    if overran_window(scheduled_g, window_s, end_g) {
        f |= FLAG_WINDOW_OVERRUN;
    }
    f
}

/// How many repetitions changed verdict when a block's flags were decided again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VerdictChanges {
    /// Valid on the recorded (online) times, invalid on the new ones.
    pub to_invalid: u64,
    /// Invalid on the recorded times, valid on the new ones.
    pub to_valid: u64,
}

impl VerdictChanges {
    /// Whether any verdict changed.
    pub fn any(&self) -> bool {
        self.to_invalid + self.to_valid > 0
    }

    /// One sentence for reports, `None` when nothing changed.
    pub fn note(&self) -> Option<String> {
        self.any().then(|| {
            format!(
                "post-hoc global times changed the verdict of {} repetition(s): {} valid by the \
                 run's online models are invalid post-hoc, {} the other way \
                 (--global-times online shows the run's own verdicts)",
                self.to_invalid + self.to_valid,
                self.to_invalid,
                self.to_valid
            )
        })
    }

    /// Adds `other`'s counts.
    pub fn add(&mut self, other: VerdictChanges) {
        self.to_invalid += other.to_invalid;
        self.to_valid += other.to_valid;
    }
}

/// Decides every flag of `block` again from its global times, keeping the recorded flags in
/// [`Block::flags_online`] when a verdict changed; returns what changed per repetition.
pub fn redecide(block: &mut Block) -> VerdictChanges {
    let p = block.nprocs as usize;
    let mut fresh = Vec::with_capacity(block.flags.len());
    for rep in 0..block.nrep as usize {
        let scheduled = block.scheduled_start_s.0[rep];
        for rank in 0..p {
            let i = rep * p + rank;
            fresh.push(flags(
                scheduled,
                block.applied_delay_s.0[i],
                (block.t_start_global_s.0[i], block.t_end_global_s.0[i]),
                block.window_s,
                block.late_tolerance_s,
            ));
        }
    }
    let mut changes = VerdictChanges::default();
    for rep in 0..block.nrep as usize {
        let row = rep * p..(rep + 1) * p;
        let was = block.flags[row.clone()].iter().all(|&f| f == 0);
        let now = fresh[row].iter().all(|&f| f == 0);
        match (was, now) {
            (true, false) => changes.to_invalid += 1,
            (false, true) => changes.to_valid += 1,
            _ => {}
        }
    }
    if fresh != block.flags {
        block.flags_online = std::mem::replace(&mut block.flags, fresh);
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Op;
    use crate::records::testdata;

    #[test]
    fn lateness_is_judged_on_the_recorded_start() {
        assert!(!started_late(10.0, 50e-6, 10.0 + 50e-6 + 0.5e-6, 1e-6));
        assert!(started_late(10.0, 50e-6, 10.0 + 50e-6 + 1.5e-6, 1e-6));
        assert!(!started_late(f64::NAN, 0.0, 99.0, 1e-6));
        assert!(overran_window(10.0, Some(1e-3), 10.0 + 1.1e-3));
        assert!(!overran_window(10.0, None, 99.0));
    }

    #[test]
    fn redeciding_keeps_the_recorded_verdicts_and_counts_the_changes() {
        // Every repetition starts on schedule and ends in its window; the test data flag
        // repetition 1 as overrun all the same, as a run's online model could have.
        let mut b = testdata::block(Op::Allreduce, 8, 2, 0.0, 3, 10e-6);
        let recorded = b.flags.clone();
        let changes = redecide(&mut b);
        assert_eq!(
            changes,
            VerdictChanges {
                to_invalid: 0,
                to_valid: 1
            }
        );
        assert!(b.flags.iter().all(|&f| f == 0));
        assert_eq!(b.flags_online, recorded);
        // Rank 1 of repetition 2 now starts 5 us late.
        b.t_start_global_s.0[5] += 5e-6;
        let changes = redecide(&mut b);
        assert_eq!(changes.to_invalid, 1);
        assert_eq!(b.flags[5], FLAG_STARTED_LATE);
    }
}
