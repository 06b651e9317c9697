//! Ranks that read the same kernel clock: found by identity, then verified by ping-pong.
//!
//! Ranks on one host with the same boot and the same time namespace read one
//! `CLOCK_MONOTONIC`, so their true offset and drift are exactly 0 and a synchronisation can
//! only add error (we measured 10 µs on 4 ranks of one 2-core host). They take their host
//! leader's model instead. The identity is a presumption, not a proof (an emulated clock, a
//! container with its own time namespace, `--clock wtime` on a library with a per-process
//! timer): each such rank checks its clock against its leader's with a short min-RTT
//! ping-pong, and a rank whose offset is not within the bound gets a full synchronisation.

use serde::{Deserialize, Serialize};
use std::hash::Hasher;

/// What a rank's clock model came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SharedVerdict {
    /// The lowest rank of its clock group: synchronised with the chosen method.
    Leader,
    /// Shares its leader's clock (checked) and took the leader's model exactly.
    Shared,
    /// Same identity as its leader, but the check found an offset outside the bound:
    /// synchronised with the chosen method.
    FailedCheck,
    /// Its clock is emulated with a skew (`--emulate-clock`), which a short check cannot see:
    /// synchronised with the chosen method.
    Emulated,
}

impl SharedVerdict {
    /// True when the rank takes part in the chosen synchronisation method itself.
    pub fn synchronises(self) -> bool {
        self != SharedVerdict::Shared
    }

    /// Every verdict, in the order of their codes ([`SharedVerdict::code`]).
    pub const ALL: [SharedVerdict; 4] = [
        SharedVerdict::Leader,
        SharedVerdict::Shared,
        SharedVerdict::FailedCheck,
        SharedVerdict::Emulated,
    ];

    /// A small number for messages between ranks.
    pub fn code(self) -> u8 {
        Self::ALL.iter().position(|&v| v == self).unwrap_or(0) as u8
    }

    /// The verdict of [`SharedVerdict::code`] (an unknown code reads as a leader's).
    pub fn from_code(code: u8) -> Self {
        Self::ALL
            .get(code as usize)
            .copied()
            .unwrap_or(SharedVerdict::Leader)
    }
}

/// A 64-bit identity of the clock a process reads: equal for processes on one host (`host`),
/// in one boot (`boot_id`, `/proc/sys/kernel/random/boot_id`) and one time namespace
/// (`time_ns`, the target of `/proc/self/ns/time`).
pub fn clock_identity(host: &str, boot_id: &str, time_ns: &str) -> u64 {
    // FNV-1a (a specified hash, unlike std's DefaultHasher, whose algorithm may change
    // between Rust releases): ranks compare identities they computed in separate
    // processes. Each part ends in 0xff, a byte UTF-8 never holds, so ("ab", "c") and
    // ("a", "bc") differ.
    let mut h = fnv::FnvHasher::default();
    for part in [host, boot_id.trim(), time_ns] {
        h.write(part.as_bytes());
        h.write_u8(0xff);
    }
    h.finish()
}

/// [`clock_identity`] of this process. Missing `/proc` entries count as empty strings, so
/// such ranks are grouped by host name alone and the check decides.
pub fn local_clock_identity(host: &str) -> u64 {
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    let time_ns = std::fs::read_link("/proc/self/ns/time")
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    clock_identity(host, &boot, &time_ns)
}

/// Per rank: the lowest rank with the same identity (its leader; itself for a leader).
pub fn leaders(identities: &[u64]) -> Vec<usize> {
    identities
        .iter()
        .map(|id| identities.iter().position(|other| other == id).unwrap_or(0))
        .collect()
}

/// Whether a measured offset (seconds, this clock minus the leader's) is consistent with one
/// shared clock, given the smallest RTT (seconds) of the ping-pong that measured it: with one
/// clock the min-RTT midpoint estimate errs by at most half the RTT (any split of the RTT
/// between the two directions), plus the resolution `resolution_s` of one clock read.
pub fn consistent_with_shared(offset_s: f64, rtt_s: f64, resolution_s: f64) -> bool {
    offset_s.is_finite() && rtt_s.is_finite() && offset_s.abs() <= rtt_s / 2.0 + resolution_s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_separates_hosts_boots_and_time_namespaces() {
        let a = clock_identity("n1", "boot\n", "time:[4026531834]");
        assert_eq!(a, clock_identity("n1", "boot", "time:[4026531834]"));
        assert_ne!(a, clock_identity("n2", "boot", "time:[4026531834]"));
        assert_ne!(a, clock_identity("n1", "other", "time:[4026531834]"));
        assert_ne!(a, clock_identity("n1", "boot", "time:[4026532999]"));
    }

    #[test]
    fn leaders_are_the_lowest_rank_of_each_identity() {
        assert_eq!(leaders(&[7, 7, 9, 7, 9, 3]), vec![0, 0, 2, 0, 2, 5]);
    }

    #[test]
    fn the_check_bound_is_half_the_rtt_plus_resolution() {
        assert!(consistent_with_shared(0.4e-6, 1e-6, 1e-9));
        assert!(consistent_with_shared(-0.5e-6, 1e-6, 1e-9));
        assert!(!consistent_with_shared(0.6e-6, 1e-6, 1e-9));
        assert!(!consistent_with_shared(1e-3, 1e-6, 1e-9));
        assert!(!consistent_with_shared(f64::NAN, 1e-6, 1e-9));
    }
}
