//! The processor's time-stamp counter, read with the CPU it was read on: the cheapest time
//! stamp there is (no system call, no clock model), for the path from a rank's release to its
//! entry into MPI. On x86-64 `rdtscp`, which also waits for the instructions before it and
//! returns `IA32_TSC_AUX`, where Linux keeps the CPU number (Intel SDM vol. 2B, RDTSCP;
//! Linux's `vgetcpu`); elsewhere `CLOCK_MONOTONIC_RAW` in nanoseconds and `sched_getcpu`.
//!
//! Counts are per machine: Linux checks at boot that the counters of all CPUs agree
//! (`constant_tsc`, `nonstop_tsc`), so on one host the stamps of different ranks are on one
//! time line; across hosts they are not comparable.

/// One time stamp: counter cycles and the logical CPU the reading ran on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stamp {
    /// Counter value, cycles (nanoseconds where there is no TSC).
    pub cycles: u64,
    /// Logical CPU number, as `sched_getcpu` numbers it.
    pub cpu: u32,
}

/// Reads the counter and the CPU now.
#[inline(always)]
pub fn stamp() -> Stamp {
    #[cfg(target_arch = "x86_64")]
    {
        let mut aux = 0u32;
        // SAFETY: rdtscp is present on every x86-64 CPU Linux runs MPI jobs on (the flag
        // `rdtscp`); it reads a counter and writes `aux`, nothing else.
        let cycles = unsafe { core::arch::x86_64::__rdtscp(&mut aux) };
        // Linux stores (node << 12) | cpu in TSC_AUX.
        Stamp {
            cycles,
            cpu: aux & 0xfff,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid pointer to a timespec; sched_getcpu has no arguments.
        let (cpu, _) = unsafe {
            (
                libc::sched_getcpu(),
                libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts),
            )
        };
        Stamp {
            cycles: ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64,
            cpu: cpu.max(0) as u32,
        }
    }
}

/// Counter rate in Hz from two (seconds, cycles) pairs of one rank, or NaN when they are
/// too close (under 1 ms) to tell.
pub fn rate_hz(a: (f64, u64), b: (f64, u64)) -> f64 {
    let dt = b.0 - a.0;
    if dt.abs() < 1e-3 {
        return f64::NAN;
    }
    (b.1 as f64 - a.1 as f64) / dt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_advance_at_a_rate_near_the_clock() {
        let t = std::time::Instant::now();
        let a = stamp();
        while t.elapsed().as_secs_f64() < 5e-3 {}
        let b = stamp();
        let rate = rate_hz((0.0, a.cycles), (t.elapsed().as_secs_f64(), b.cycles));
        // Any counter from 1 MHz to 10 GHz; a counter that stood still or ran backwards fails.
        assert!(rate > 1e6 && rate < 1e10, "rate {rate} Hz");
        assert!(b.cycles > a.cycles);
    }

    #[test]
    fn rates_from_pairs_too_close_are_not_known() {
        assert!(rate_hz((1.0, 0), (1.0005, 1_000_000)).is_nan());
        assert_eq!(rate_hz((1.0, 0), (2.0, 3_000_000_000)), 3e9);
    }
}
