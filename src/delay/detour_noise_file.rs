//! The detours of a recorded noise file, replayed on the ranks of a run:
//! `--detour noise:FILE[,aligned|shifted]`.
//!
//! # Accepted forms
//!
//! `noise:FILE[,aligned|shifted]`, or `trace:FILE[,aligned|shifted]`, its older name, still
//! accepted so that existing command lines work. (The *delay models* `trace:FILE` and
//! `replay:CAPTURE@SITE` are other things: per-repetition delays, not detours; see
//! [`super::DelayModel`].) A FILE with commas needs the mode given.
//!
//! FILE is a noise file of `delaybench noise` (docs/noise.md). Run rank k replays recorded
//! rank k mod R (R recorded ranks); the recording of T seconds repeats every T seconds.
//! - `aligned` (default): every rank's detours fall on the global instants they had in the
//!   recording, shifted alike for all ranks (the recording's start is put on a multiple of T
//!   of the global clock), so detours that coincided in the recording coincide again.
//! - `shifted`: each rank's recording is shifted by its own offset in [0, T), drawn from the run
//!   seed and the rank: the same noise, without its correlation across ranks.
//!
//! As periodic detours, replayed ones cost CPU only while the rank is inside the operation;
//! a detour due outside it is counted as skipped.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// How recorded phases map onto the run's global clock (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoiseFileMode {
    #[default]
    Aligned,
    Shifted,
}

/// The prefixes of the noise-file form: the documented one first, then the older name.
const PREFIXES: [&str; 2] = ["noise:", "trace:"];

/// `noise:FILE[,aligned|shifted]`: which noise file is replayed and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoiseFileSpec {
    /// The noise file, as given.
    pub path: String,
    pub mode: NoiseFileMode,
    /// CRC-32C of the file's bytes, filled in when the run reads it (0 before): which file
    /// was replayed, even if the file is later replaced.
    #[serde(default)]
    pub crc32c: u32,
    /// Recorded ranks R and the recording's length T in seconds, filled in when read.
    #[serde(default)]
    pub recorded_ranks: u32,
    #[serde(default)]
    pub period_s: f64,
}

impl NoiseFileSpec {
    /// This rank's shift in seconds, in [0, T): 0 when aligned; for `shifted` drawn from
    /// (`seed`, `rank`).
    pub fn shift_s(&self, rank: u32, seed: u64) -> f64 {
        match self.mode {
            NoiseFileMode::Aligned => 0.0,
            NoiseFileMode::Shifted => {
                // The salt spells "trace", the form's first name; kept so that a seed shifts
                // the ranks as it always did.
                let bits = super::detour_spec::splitmix64(
                    super::detour_spec::splitmix64(seed ^ 0x0074_7261_6365) ^ u64::from(rank),
                );
                (bits >> 11) as f64 / (1u64 << 53) as f64 * self.period_s
            }
        }
    }
}

/// Written as `trace:FILE,MODE`, the older name: this text is the `spec` of every block's
/// detours in the records (docs/records-format.md), so files written before and after the
/// rename hold the same bytes.
impl fmt::Display for NoiseFileSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = match self.mode {
            NoiseFileMode::Aligned => "aligned",
            NoiseFileMode::Shifted => "shifted",
        };
        write!(f, "trace:{},{mode}", self.path)
    }
}

/// Why a noise-file spec was rejected.
#[derive(Debug, Error, PartialEq)]
pub enum NoiseFileSpecError {
    #[error("detour '{0}': expected noise:FILE[,aligned|shifted], e.g. noise:noise.cbor,shifted")]
    Form(String),
}

impl FromStr for NoiseFileSpec {
    type Err = NoiseFileSpecError;

    /// Parses the forms of the module docs.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || NoiseFileSpecError::Form(s.to_string());
        let rest = PREFIXES
            .iter()
            .find_map(|p| s.strip_prefix(p))
            .ok_or_else(bad)?;
        let (path, mode) = match rest.rsplit_once(',') {
            Some((p, "aligned")) => (p, NoiseFileMode::Aligned),
            Some((p, "shifted")) => (p, NoiseFileMode::Shifted),
            _ => (rest, NoiseFileMode::Aligned),
        };
        if path.is_empty() {
            return Err(bad());
        }
        Ok(NoiseFileSpec {
            path: path.to_string(),
            mode,
            crc32c: 0,
            recorded_ranks: 0,
            period_s: 0.0,
        })
    }
}

/// What `--detour` takes: periodic detours or the detours of a noise file.
#[derive(Debug, Clone, PartialEq)]
pub enum DetourArg {
    Periodic(super::DetourSpec),
    /// `noise:FILE` (or `trace:FILE`, its older name).
    NoiseFile(NoiseFileSpec),
}

impl FromStr for DetourArg {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if PREFIXES.iter().any(|p| s.starts_with(p)) {
            return s
                .parse()
                .map(DetourArg::NoiseFile)
                .map_err(|e: NoiseFileSpecError| e.to_string());
        }
        s.parse()
            .map(DetourArg::Periodic)
            .map_err(|e: super::DetourSpecError| e.to_string())
    }
}

/// The detours one rank replays from a noise file: detours at `base_s + offsets_s[i] + m · period_s` (any integer
/// m) lasting `durations_s[i]`, all in seconds of the global clock.
#[derive(Debug, Clone, PartialEq)]
pub struct DetourSchedule {
    /// Offsets within one period, ascending, in [0, period).
    pub offsets_s: Vec<f64>,
    pub durations_s: Vec<f64>,
    pub period_s: f64,
    pub base_s: f64,
}

impl DetourSchedule {
    /// The schedule of run rank `rank` from recorded per-rank detours (`starts` global
    /// seconds of the recording, `durations` seconds), the recording's start `t0_s` and
    /// length `period_s`, and the rank's shift (see [`NoiseFileSpec::shift_s`]). Detours starting
    /// outside [t0, t0 + T) are dropped. The recording's start goes to the global instant 0
    /// (mod T) plus the shift.
    pub fn new(starts: &[f64], durations: &[f64], t0_s: f64, period_s: f64, shift_s: f64) -> Self {
        let mut pairs: Vec<(f64, f64)> = starts
            .iter()
            .zip(durations)
            .map(|(&s, &d)| (s - t0_s, d))
            .filter(|&(o, d)| (0.0..period_s).contains(&o) && d > 0.0)
            .collect();
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        DetourSchedule {
            offsets_s: pairs.iter().map(|p| p.0).collect(),
            durations_s: pairs.iter().map(|p| p.1).collect(),
            period_s,
            base_s: shift_s,
        }
    }

    /// The global start instants and durations of the detours due in [from_s, to_s).
    pub fn due_between(&self, from_s: f64, to_s: f64) -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        if self.offsets_s.is_empty() || self.period_s <= 0.0 {
            return out;
        }
        let mut m = ((from_s - self.base_s) / self.period_s).floor() - 1.0;
        loop {
            let cycle = self.base_s + m * self.period_s;
            if cycle >= to_s {
                break;
            }
            for (o, d) in self.offsets_s.iter().zip(&self.durations_s) {
                let t = cycle + o;
                if t >= from_s && t < to_s {
                    out.push((t, *d));
                }
            }
            m += 1.0;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_forms_and_modes() {
        let t: NoiseFileSpec = "trace:n.cbor".parse().unwrap();
        assert_eq!(
            (t.path.as_str(), t.mode),
            ("n.cbor", NoiseFileMode::Aligned)
        );
        let t: NoiseFileSpec = "trace:a,b.cbor,shifted".parse().unwrap();
        assert_eq!(
            (t.path.as_str(), t.mode),
            ("a,b.cbor", NoiseFileMode::Shifted)
        );
        assert_eq!(t.to_string(), "trace:a,b.cbor,shifted");
        assert!("trace:".parse::<NoiseFileSpec>().is_err());
        // The documented name and the older one read the same, and write the older one.
        let n: NoiseFileSpec = "noise:a,b.cbor,shifted".parse().unwrap();
        assert_eq!(n, t);
        assert!("noise:".parse::<NoiseFileSpec>().is_err());
        assert!(matches!(
            "noise:x".parse::<DetourArg>(),
            Ok(DetourArg::NoiseFile(_))
        ));
        assert!(matches!(
            "1kHz,10us".parse::<DetourArg>(),
            Ok(DetourArg::Periodic(_))
        ));
        assert!(matches!(
            "trace:x".parse::<DetourArg>(),
            Ok(DetourArg::NoiseFile(_))
        ));
        assert!("nonsense".parse::<DetourArg>().is_err());
    }

    #[test]
    fn schedule_repeats_the_recording_and_shifts_per_rank() {
        // Recording from 100 s, 1 s long: detours at +0.1 s (10 us) and +0.5 s (20 us).
        let s = DetourSchedule::new(
            &[100.1, 100.5, 99.0],
            &[10e-6, 20e-6, 1e-6],
            100.0,
            1.0,
            0.0,
        );
        assert_eq!(
            s.offsets_s.len(),
            2,
            "the detour before the start is dropped"
        );
        let due = s.due_between(7.0, 9.0);
        let starts: Vec<f64> = due.iter().map(|d| d.0).collect();
        for (got, want) in starts.iter().zip([7.1, 7.5, 8.1, 8.5]) {
            assert!((got - want).abs() < 1e-9, "{starts:?}");
        }
        assert_eq!(due.len(), 4);
        let mut spec: NoiseFileSpec = "trace:x,shifted".parse().unwrap();
        spec.period_s = 1.0;
        let (a, b) = (spec.shift_s(0, 5), spec.shift_s(1, 5));
        assert!(a != b && (0.0..1.0).contains(&a) && (0.0..1.0).contains(&b));
        spec.mode = NoiseFileMode::Aligned;
        assert_eq!(spec.shift_s(1, 5), 0.0);
    }
}
