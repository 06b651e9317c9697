//! What OS-noise detours to inject: frequency, duration and phase.
//!
//! # Grammar
//!
//! `FREQ,DURATION[,PHASE]`, e.g. `1kHz,10us` or `100Hz,50us,sync`.
//! - FREQ: a positive number with the unit `Hz` or `kHz` (case-insensitive).
//! - DURATION: a duration > 0 ([`crate::units::parse_duration_s`]), shorter than the period
//!   1/FREQ.
//! - PHASE: `sync` (every rank's detours happen at the same global instants) or `async` (each
//!   rank has its own phase, drawn from the run seed and its rank); default `async`, since the
//!   OS noise of different nodes is not coordinated; `sync` is the co-scheduled best case.
//!
//! This is the noise injection of Ferreira, Bridges and Brightwell ("Characterizing
//! application sensitivity to OS interference using kernel-level noise injection", SC08):
//! periodic detours of a fixed length, synchronised or not across nodes.

use crate::units::{format_duration, parse_duration_s, UnitError};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// Whether the detours of different ranks happen at the same global instants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DetourPhase {
    /// `sync`: every rank's detours at the same global instants.
    #[serde(rename = "sync")]
    Synchronized,
    /// `async`: a phase per rank, drawn from the run seed and the rank.
    #[serde(rename = "async")]
    Unsynchronized,
}

/// Periodic detours: every `1 / freq_hz` seconds the rank loses `duration_s` seconds of CPU.
/// Grammar in the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DetourSpec {
    /// Detours per second (Hz), > 0.
    pub freq_hz: f64,
    /// Length of one detour in seconds, 0 < duration < 1 / freq.
    pub duration_s: f64,
    pub phase: DetourPhase,
}

/// Why a detour spec was rejected.
#[derive(Debug, Error, PartialEq)]
pub enum DetourSpecError {
    #[error(
        "detour '{spec}': expected FREQ,DURATION[,sync|async], e.g. 1kHz,10us or 100Hz,50us,sync"
    )]
    Arguments { spec: String },
    #[error("detour '{spec}': frequency '{value}' {problem}; write a positive number with Hz or kHz, e.g. 1kHz or 100Hz")]
    Frequency {
        spec: String,
        value: String,
        problem: &'static str,
    },
    #[error("detour '{spec}': duration: {cause}; e.g. 1kHz,10us")]
    Duration { spec: String, cause: UnitError },
    #[error("detour '{spec}': the duration must be greater than 0, e.g. 1kHz,10us")]
    ZeroDuration { spec: String },
    #[error("detour '{spec}': a detour of {} every {} leaves no time to run: the duration must be shorter than the period 1/FREQ", format_duration(*duration_s), format_duration(*period_s))]
    TooLong {
        spec: String,
        duration_s: f64,
        period_s: f64,
    },
    #[error("detour '{spec}': phase '{value}' is neither sync nor async, e.g. 1kHz,10us,sync")]
    Phase { spec: String, value: String },
}

impl DetourSpec {
    /// Seconds between detours, 1 / `freq_hz`.
    pub fn period_s(&self) -> f64 {
        1.0 / self.freq_hz
    }

    /// Fraction of CPU time the detours take, `freq_hz · duration_s` (e.g. 1 % for `1kHz,10us`).
    pub fn cpu_fraction(&self) -> f64 {
        self.freq_hz * self.duration_s
    }

    /// Checks a spec built by hand or deserialised, as [`FromStr`] does. Errors:
    /// [`DetourSpecError::Frequency`], [`DetourSpecError::ZeroDuration`],
    /// [`DetourSpecError::TooLong`].
    pub fn validate(&self) -> Result<(), DetourSpecError> {
        let spec = self.to_string();
        if !(self.freq_hz.is_finite() && self.freq_hz > 0.0) {
            return Err(DetourSpecError::Frequency {
                spec,
                value: self.freq_hz.to_string(),
                problem: "is not positive",
            });
        }
        if !(self.duration_s.is_finite() && self.duration_s > 0.0) {
            return Err(DetourSpecError::ZeroDuration { spec });
        }
        if self.duration_s >= self.period_s() {
            return Err(DetourSpecError::TooLong {
                spec,
                duration_s: self.duration_s,
                period_s: self.period_s(),
            });
        }
        Ok(())
    }

    /// This rank's phase in seconds, in [0, period): 0 for `sync`; for `async` a value drawn
    /// uniformly from (`seed`, `rank`), the same on every call.
    pub fn phase_s(&self, rank: u32, seed: u64) -> f64 {
        match self.phase {
            DetourPhase::Synchronized => 0.0,
            DetourPhase::Unsynchronized => {
                let bits = splitmix64(splitmix64(seed) ^ u64::from(rank));
                (bits >> 11) as f64 / (1u64 << 53) as f64 * self.period_s()
            }
        }
    }

    /// Seconds from `now_global_s` to this rank's next detour, for
    /// [`super::DetourInjector::start`]: the detours of `rank` fall on the global instants
    /// `epoch_global_s + phase_s(rank, seed) + k · period` (k any integer), so with `sync`
    /// every rank that uses the same epoch (e.g. the first scheduled start) is hit at the same
    /// instants. Result in (0, period], at least 1 ns (a zero would disarm a POSIX timer).
    pub fn first_fire_in_s(
        &self,
        now_global_s: f64,
        epoch_global_s: f64,
        rank: u32,
        seed: u64,
    ) -> f64 {
        let period = self.period_s();
        let since = (now_global_s - epoch_global_s - self.phase_s(rank, seed)).rem_euclid(period);
        (period - since).clamp(1e-9, period)
    }
}

/// SplitMix64 (Steele, Lea and Flood 2014): a stateless mix of 64 bits, here to turn
/// (seed, rank) into a phase without a generator.
pub(super) fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FromStr for DetourSpec {
    type Err = DetourSpecError;

    /// Parses `FREQ,DURATION[,sync|async]` (module docs).
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let parts: Vec<&str> = spec.split(',').map(str::trim).collect();
        let (freq, duration, phase) = match parts[..] {
            [f, d] => (f, d, None),
            [f, d, p] => (f, d, Some(p)),
            _ => {
                return Err(DetourSpecError::Arguments {
                    spec: spec.to_string(),
                })
            }
        };
        let freq_hz = parse_frequency(spec, freq)?;
        let duration_s = parse_duration_s(duration).map_err(|cause| DetourSpecError::Duration {
            spec: spec.to_string(),
            cause,
        })?;
        let phase = match phase.map(str::to_ascii_lowercase).as_deref() {
            None | Some("async") | Some("unsynchronized") => DetourPhase::Unsynchronized,
            Some("sync") | Some("synchronized") => DetourPhase::Synchronized,
            Some(_) => {
                return Err(DetourSpecError::Phase {
                    spec: spec.to_string(),
                    value: phase.unwrap_or_default().to_string(),
                })
            }
        };
        let parsed = DetourSpec {
            freq_hz,
            duration_s,
            phase,
        };
        parsed.validate().map_err(|e| match e {
            DetourSpecError::ZeroDuration { .. } => DetourSpecError::ZeroDuration {
                spec: spec.to_string(),
            },
            DetourSpecError::TooLong {
                duration_s,
                period_s,
                ..
            } => DetourSpecError::TooLong {
                spec: spec.to_string(),
                duration_s,
                period_s,
            },
            other => other,
        })?;
        Ok(parsed)
    }
}

fn parse_frequency(spec: &str, text: &str) -> Result<f64, DetourSpecError> {
    let bad = |problem| DetourSpecError::Frequency {
        spec: spec.to_string(),
        value: text.to_string(),
        problem,
    };
    let lower = text.to_ascii_lowercase();
    let (number, factor) = if let Some(n) = lower.strip_suffix("khz") {
        (n, 1e3)
    } else if let Some(n) = lower.strip_suffix("hz") {
        (n, 1.0)
    } else if lower.parse::<f64>().is_ok() {
        return Err(bad("has no unit"));
    } else {
        return Err(bad("cannot be read"));
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v * factor),
        Ok(_) => Err(bad("is not positive")),
        Err(_) => Err(bad("cannot be read")),
    }
}

impl fmt::Display for DetourSpec {
    /// Writes the spec in the grammar of the module docs, e.g. `1kHz,10us,async`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let khz = self.freq_hz / 1e3;
        if self.freq_hz >= 1e3 && (khz - khz.round()).abs() < 1e-9 {
            write!(f, "{khz}kHz")?;
        } else {
            write!(f, "{}Hz", self.freq_hz)?;
        }
        let phase = match self.phase {
            DetourPhase::Synchronized => "sync",
            DetourPhase::Unsynchronized => "async",
        };
        write!(f, ",{},{phase}", format_duration(self.duration_s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let s: DetourSpec = "1kHz,10us".parse().unwrap();
        assert_eq!(
            s,
            DetourSpec {
                freq_hz: 1000.0,
                duration_s: 10e-6,
                phase: DetourPhase::Unsynchronized
            }
        );
        assert_eq!(s.to_string(), "1kHz,10us,async");
        assert!((s.cpu_fraction() - 0.01).abs() < 1e-12);
        let s: DetourSpec = " 100hz , 50us , SYNC ".parse().unwrap();
        assert_eq!(s.phase, DetourPhase::Synchronized);
        assert_eq!(s.to_string(), "100Hz,50us,sync");
        assert_eq!(s.to_string().parse::<DetourSpec>().unwrap(), s);
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"sync\""), "{json}");
    }

    #[test]
    fn rejects() {
        let err = |s: &str| s.parse::<DetourSpec>().unwrap_err();
        assert!(matches!(err("1kHz"), DetourSpecError::Arguments { .. }));
        assert!(matches!(
            err("1000,10us"),
            DetourSpecError::Frequency {
                problem: "has no unit",
                ..
            }
        ));
        assert!(matches!(
            err("-1kHz,10us"),
            DetourSpecError::Frequency { .. }
        ));
        assert!(matches!(err("1kHz,10"), DetourSpecError::Duration { .. }));
        assert!(matches!(
            err("1kHz,0"),
            DetourSpecError::ZeroDuration { .. }
        ));
        assert!(matches!(err("1kHz,1ms"), DetourSpecError::TooLong { .. }));
        assert!(matches!(
            err("1kHz,10us,maybe"),
            DetourSpecError::Phase { .. }
        ));
        let msg = err("1kHz,2ms").to_string();
        assert!(msg.contains("2ms every 1ms"), "{msg}");
    }

    #[test]
    fn phases_and_first_fire() {
        let sync: DetourSpec = "1kHz,10us,sync".parse().unwrap();
        // Epoch 10 s, now 10.0003 s: the next instant is 10.001 s.
        let t = sync.first_fire_in_s(10.0003, 10.0, 3, 1);
        assert!((t - 0.7e-3).abs() < 1e-9, "{t}");
        assert_eq!(
            sync.first_fire_in_s(10.0003, 10.0, 3, 1),
            sync.first_fire_in_s(10.0003, 10.0, 4, 1)
        );
        let asy: DetourSpec = "1kHz,10us,async".parse().unwrap();
        let phases: Vec<f64> = (0..8).map(|r| asy.phase_s(r, 9)).collect();
        assert!(phases.iter().all(|&p| (0.0..1e-3).contains(&p)));
        assert!(phases.windows(2).all(|w| w[0] != w[1]));
        assert_eq!(asy.phase_s(2, 9), phases[2]);
        for r in 0..8 {
            let t = asy.first_fire_in_s(5.0, 1.0, r, 9);
            assert!(t > 0.0 && t <= 1e-3);
            // The fire instant is epoch + phase + k * period.
            let k = (5.0 + t - 1.0 - phases[r as usize]) / 1e-3;
            assert!((k - k.round()).abs() < 1e-6, "{k}");
        }
    }
}
