//! Clock sources: where timestamps come from.

/// A clock that reads absolute seconds.
pub trait Clock: Send + Sync {
    /// Current reading in seconds.
    fn now(&self) -> f64;
    /// Resolution in seconds as reported by the source.
    fn resolution_s(&self) -> f64;
    /// Short name used in records (`monotonic`, `wtime`).
    fn name(&self) -> &'static str;
}

/// `clock_gettime(CLOCK_MONOTONIC)` as absolute seconds. All ranks of one host read the same
/// clock, so their true offset is zero, which tests use.
#[derive(Debug, Default, Clone, Copy)]
pub struct MonotonicClock;

impl Clock for MonotonicClock {
    fn now(&self) -> f64 {
        monotonic_seconds(libc::clock_gettime)
    }

    fn resolution_s(&self) -> f64 {
        monotonic_seconds(libc::clock_getres)
    }

    fn name(&self) -> &'static str {
        "monotonic"
    }
}

/// Seconds from `call` (clock_gettime or clock_getres) on CLOCK_MONOTONIC.
fn monotonic_seconds(
    call: unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> libc::c_int,
) -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write into; CLOCK_MONOTONIC always exists on Linux.
    unsafe { call(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Timer delay Δ in seconds: the median difference of `reads` back-to-back clock readings
/// (Niethammer et al. 2016, eq. 3 measures it as t2 − t1 inside each ping-pong; this is the run's typical value).
pub fn timer_delay_s(now: impl Fn() -> f64, reads: usize) -> f64 {
    let mut diffs: Vec<f64> = (0..reads.max(1))
        .map(|_| {
            let a = now();
            now() - a
        })
        .collect();
    diffs.sort_by(f64::total_cmp);
    diffs[diffs.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_clock_advances() {
        let c = MonotonicClock;
        let a = c.now();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = c.now();
        assert!(b - a >= 1.9e-3, "clock advanced only {} s", b - a);
        assert!(c.resolution_s() > 0.0 && c.resolution_s() < 1e-3);
    }

    #[test]
    fn timer_delay_is_small_and_positive() {
        let d = timer_delay_s(|| MonotonicClock.now(), 1000);
        assert!((0.0..1e-4).contains(&d), "timer delay {d} s");
    }
}
