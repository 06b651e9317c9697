//! How a rank waits until its start instant.
//!
//! Busy-waiting on the clock is the most precise (Niethammer et al. 2016, Listing 2), but on a host with more
//! ranks than cores a spinning rank keeps a rank that is still inside the operation off the
//! CPU, so every repetition overruns its window. There a rank sleeps until shortly before the
//! instant and spins with `sched_yield` only for the last stretch.

use std::time::Duration;

/// How a rank waits until a start instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WaitStrategy {
    /// Busy-wait on the clock (one rank per core).
    Spin,
    /// Sleep until `spin_margin_s` seconds before the instant, then spin with yields.
    Polite { spin_margin_s: f64 },
}

impl WaitStrategy {
    /// Name recorded in the header: `spin` or `polite`.
    pub fn name(&self) -> &'static str {
        match self {
            WaitStrategy::Spin => "spin",
            WaitStrategy::Polite { .. } => "polite",
        }
    }

    /// Seconds before an instant at which waiting turns from sleeping to spinning (0 for spin).
    pub fn spin_margin_s(&self) -> f64 {
        match self {
            WaitStrategy::Spin => 0.0,
            WaitStrategy::Polite { spin_margin_s } => *spin_margin_s,
        }
    }

    /// Default tolerance in seconds for a late start: what the strategy can achieve. A spinning
    /// rank leaves its loop within a few clock reads of the instant (1 us); a polite one shares
    /// cores and needs a context switch or two (10 us).
    pub fn default_late_tolerance_s(&self) -> f64 {
        match self {
            WaitStrategy::Spin => 1e-6,
            WaitStrategy::Polite { .. } => 10e-6,
        }
    }

    /// Waits until `now()` (seconds) reaches `target` (seconds, same clock) and returns the
    /// lateness in seconds: how long after `target` the first reading at or past it was taken.
    /// It is large when the instant had passed before the wait began, when a sleep overslept,
    /// or when the rank was descheduled in the last stretch.
    pub fn wait_until(&self, now: impl Fn() -> f64, target: f64) -> f64 {
        self.wait_until_with_margin(now, target, self.spin_margin_s())
            .lateness_s
    }

    /// As [`wait_until`](Self::wait_until), a polite waiter stopping its sleep `margin_s`
    /// seconds before `target`; also says by how much the sleep overslept the target.
    pub fn wait_until_with_margin(
        &self,
        now: impl Fn() -> f64,
        target: f64,
        margin_s: f64,
    ) -> Waited {
        let mut t = now();
        if t >= target {
            return Waited {
                lateness_s: t - target,
                overslept_s: 0.0,
                reached: t,
            };
        }
        let mut overslept_s = 0.0;
        if let WaitStrategy::Polite { .. } = *self {
            let sleep = target - t - margin_s;
            if sleep > 0.0 {
                std::thread::sleep(Duration::from_secs_f64(sleep));
            }
            t = now();
            overslept_s = (t - target).max(0.0);
            while t < target {
                std::thread::yield_now();
                t = now();
            }
        } else {
            // No PAUSE (`spin_loop`) between the reads: under KVM a vCPU that executes
            // thousands of PAUSEs in a short time is taken off its CPU by the hypervisor's
            // pause-loop exiting (Intel PLE, AMD pause filter), and such an exit landing just
            // before the instant makes the rank leave its wait microseconds late.
            while t < target {
                t = now();
            }
        }
        Waited {
            lateness_s: t - target,
            overslept_s,
            reached: t,
        }
    }
}

/// What one wait found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Waited {
    /// How long after the target the first reading at or past it came, seconds.
    pub lateness_s: f64,
    /// How far past the target a polite waiter's sleep ended, seconds (0 when it woke in
    /// time): its spin margin was too short for this machine's wake-up latency.
    pub overslept_s: f64,
    /// The reading that ended the wait (seconds, the clock `now()` reads): the first at or
    /// past the target.
    pub reached: f64,
}

/// Asks the kernel for 1 ns timer slack on the calling thread, so that a polite waiter's sleeps
/// end when asked instead of up to 50 us later (Linux `PR_SET_TIMERSLACK`).
pub fn precise_sleeps() {
    // A kernel without it keeps its default slack: sleeps then end later, which the waiting
    // margin absorbs.
    let _ = nix::sys::prctl::set_timerslack(1);
}

/// Busy-waits `seconds` on `now()` (the delay of barrier-based synchronisation, Niethammer et al. 2016, §III-D),
/// returning the time actually waited in seconds.
pub fn spin_for(now: impl Fn() -> f64, seconds: f64) -> f64 {
    let start = now();
    let mut t = start;
    // No PAUSE between the reads, as in `wait_until_with_margin`.
    while t - start < seconds {
        t = now();
    }
    t - start
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock, MonotonicClock};

    #[test]
    fn tolerances_follow_the_strategy() {
        assert_eq!(WaitStrategy::Spin.default_late_tolerance_s(), 1e-6);
        let polite = WaitStrategy::Polite {
            spin_margin_s: 1e-4,
        };
        assert!(polite.default_late_tolerance_s() > 1e-6);
    }

    #[test]
    fn waits_reach_the_target_and_flag_late_starts() {
        let c = MonotonicClock;
        for strategy in [
            WaitStrategy::Spin,
            WaitStrategy::Polite {
                spin_margin_s: 100e-6,
            },
        ] {
            precise_sleeps();
            let target = c.now() + 2e-3;
            let lateness = strategy.wait_until(|| c.now(), target);
            let reached = c.now();
            assert!(reached >= target, "{strategy:?} woke before the target");
            assert!((0.0..reached - target + 1e-9).contains(&lateness));
            // An instant that has passed gives at least the time since it passed.
            assert!(strategy.wait_until(|| c.now(), target - 1e-3) >= 1e-3);
        }
    }

    #[test]
    fn spin_for_waits_at_least_the_delay() {
        let c = MonotonicClock;
        let waited = spin_for(|| c.now(), 300e-6);
        assert!(waited >= 300e-6);
    }
}
