//! `simulate --noise`: where the simulated ranks' OS noise comes from.
//!
//! - `FILE`: a noise file of `delaybench noise`. Simulated rank i replays recorded rank
//!   i mod R (R recorded ranks), the recording of T seconds repeating every T seconds, at a
//!   phase in [0, T) drawn from the run's seed and the rank; with `--noise-cosched` every
//!   rank at the same phase, as the recording had them (co-scheduled noise, Beckman et al.
//!   2008). The file is read by the measurement's own reader and mapping
//!   (`noise::schedule`, `delay::NoiseFileSpec`: `shifted` and `aligned`), so a simulated
//!   and a measured run replay the same detours.
//! - `periodic:FREQ:DURATION`: a detour of DURATION every 1/FREQ seconds (`periodic:10Hz:2.5ms`).
//! - `poisson:RATE:DURATION`: detours of DURATION at exponentially distributed intervals of
//!   mean 1/RATE (`poisson:1kHz:25us`).
//!
//! FREQ and RATE take `Hz` or `kHz`, DURATION a unit (`us`, `ms`), as `--detour`'s.
//!
//! A measurement's `--detour` names the same noise ([`NoiseSpec::from_detour`]), so the
//! command line of a measurement simulates as it measured: `noise:FILE` is `FILE`, co-scheduled
//! when `aligned` (the measurement's default) and at random phases when `shifted`;
//! `FREQ,DURATION` is `periodic:FREQ:DURATION`, co-scheduled when `sync`.

use crate::delay::{
    DetourArg, DetourPhase, DetourSchedule, DetourSpec, NoiseFileMode, NoiseFileSpec,
};
use crate::records::noise::NoiseRun;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// `--noise`: a noise file or a synthetic source (module docs).
#[derive(Debug, Clone, PartialEq)]
pub enum NoiseSpec {
    /// A noise file of `delaybench noise`.
    File(PathBuf),
    /// A detour of `duration_s` seconds every `1 / freq_hz` seconds.
    Periodic { freq_hz: f64, duration_s: f64 },
    /// Detours of `duration_s` seconds, `rate_hz` per second on average, at exponentially
    /// distributed intervals.
    Poisson { rate_hz: f64, duration_s: f64 },
}

impl NoiseSpec {
    /// The noise a measurement's `--detour` replays, and whether every rank replays it at
    /// the same phase (`--noise-cosched`): a noise file `aligned` or periodic detours `sync`
    /// are co-scheduled, `shifted` and `async` are at a phase per rank.
    pub fn from_detour(detour: &DetourArg) -> (NoiseSpec, bool) {
        match detour {
            DetourArg::NoiseFile(f) => (
                NoiseSpec::File(PathBuf::from(&f.path)),
                f.mode == NoiseFileMode::Aligned,
            ),
            DetourArg::Periodic(d) => (
                NoiseSpec::Periodic {
                    freq_hz: d.freq_hz,
                    duration_s: d.duration_s,
                },
                d.phase == DetourPhase::Synchronized,
            ),
        }
    }
}

impl FromStr for NoiseSpec {
    type Err = String;

    /// Parses the forms of the module docs; anything else is a file's path.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let synthetic = |kind: &str, rest: &str| -> Result<(f64, f64), String> {
            let (f, d) = rest.split_once(':').ok_or_else(|| {
                format!("--noise {s}: expected {kind}:FREQ:DURATION, e.g. {kind}:1kHz:25us")
            })?;
            // The detour grammar's own parser and checks (unit of FREQ, 0 < DURATION <
            // 1/FREQ), with its message.
            let spec: DetourSpec = format!("{f},{d}")
                .parse()
                .map_err(|e| format!("--noise {s}: {e}"))?;
            Ok((spec.freq_hz, spec.duration_s))
        };
        if let Some(rest) = s.strip_prefix("periodic:") {
            let (freq_hz, duration_s) = synthetic("periodic", rest)?;
            return Ok(NoiseSpec::Periodic {
                freq_hz,
                duration_s,
            });
        }
        if let Some(rest) = s.strip_prefix("poisson:") {
            let (rate_hz, duration_s) = synthetic("poisson", rest)?;
            return Ok(NoiseSpec::Poisson {
                rate_hz,
                duration_s,
            });
        }
        if s.is_empty() {
            return Err("--noise: expected FILE, periodic:FREQ:DURATION or \
                        poisson:RATE:DURATION"
                .into());
        }
        Ok(NoiseSpec::File(PathBuf::from(s)))
    }
}

impl fmt::Display for NoiseSpec {
    /// The form given, with the units written out: `periodic:10Hz:2.5ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dur = |d: f64| crate::units::format_duration(d);
        match self {
            NoiseSpec::File(p) => write!(f, "{}", p.display()),
            NoiseSpec::Periodic {
                freq_hz,
                duration_s,
            } => write!(f, "periodic:{freq_hz}Hz:{}", dur(*duration_s)),
            NoiseSpec::Poisson {
                rate_hz,
                duration_s,
            } => write!(f, "poisson:{rate_hz}Hz:{}", dur(*duration_s)),
        }
    }
}

/// A noise source ready to be replayed: the spec, and for a file its contents, read before
/// anything runs.
#[derive(Debug, Clone)]
pub struct NoiseSource {
    pub spec: NoiseSpec,
    /// Every rank at the same phase (`--noise-cosched`).
    pub cosched: bool,
    /// A noise file's spec (checksum, recorded ranks, period filled in) and its detours.
    pub file: Option<(NoiseFileSpec, NoiseRun)>,
}

impl NoiseSource {
    /// Reads what `spec` needs (a noise file with the measurement's reader).
    ///
    /// Errors: a message naming `--noise` and the file when it cannot be read or holds no
    /// detours to replay.
    pub fn load(spec: &NoiseSpec, cosched: bool) -> Result<Self, String> {
        let file = match spec {
            NoiseSpec::File(path) => {
                let file_spec = NoiseFileSpec {
                    path: path.display().to_string(),
                    mode: if cosched {
                        NoiseFileMode::Aligned
                    } else {
                        NoiseFileMode::Shifted
                    },
                    crc32c: 0,
                    recorded_ranks: 0,
                    period_s: 0.0,
                };
                let loaded = crate::noise::schedule::load_noise_file(&file_spec).map_err(|e| {
                    format!(
                        "--noise {}: not a noise file of `delaybench noise` ({e}); a synthetic \
                         source is periodic:FREQ:DURATION or poisson:RATE:DURATION",
                        path.display()
                    )
                })?;
                Some(loaded)
            }
            _ => None,
        };
        Ok(NoiseSource {
            spec: spec.clone(),
            cosched,
            file,
        })
    }

    /// The detours simulated rank `rank` replays from a noise file (recorded rank
    /// `rank mod R`, at its phase from `seed`, or the recording's own with `cosched`), in
    /// seconds of the global clock; `None` for a synthetic source.
    pub fn file_schedule(&self, rank: u32, seed: u64) -> Option<DetourSchedule> {
        self.file
            .as_ref()
            .map(|(spec, run)| crate::noise::schedule::schedule_for(spec, run, rank, seed))
    }

    /// The header's words for the source: the spec, a file's checksum, recorded ranks and
    /// period, and how the phases were chosen.
    pub fn describe(&self) -> String {
        let phases = if self.cosched {
            "co-scheduled (every rank at the same phase)"
        } else {
            "random phases from the seed"
        };
        match &self.file {
            Some((spec, _)) => format!(
                "noise file {} (crc32c {:08x}, {} recorded ranks, {:.3} s), {phases}",
                spec.path, spec.crc32c, spec.recorded_ranks, spec.period_s
            ),
            None => format!("{}, {phases}", self.spec),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::noise::testdata;

    #[test]
    fn parses_synthetic_sources_and_files() {
        assert_eq!(
            "periodic:10Hz:2.5ms".parse::<NoiseSpec>().unwrap(),
            NoiseSpec::Periodic {
                freq_hz: 10.0,
                duration_s: 2.5e-3
            }
        );
        assert_eq!(
            "poisson:1kHz:25us".parse::<NoiseSpec>().unwrap(),
            NoiseSpec::Poisson {
                rate_hz: 1000.0,
                duration_s: 25e-6
            }
        );
        assert_eq!(
            "results/noise.cbor".parse::<NoiseSpec>().unwrap(),
            NoiseSpec::File("results/noise.cbor".into())
        );
        // Units are required, and a detour longer than its period is refused.
        for bad in [
            "periodic:10:2.5ms",
            "periodic:10Hz:2.5",
            "poisson:1kHz",
            "periodic:1kHz:2ms",
            "",
        ] {
            let e = bad.parse::<NoiseSpec>().unwrap_err();
            assert!(e.contains("--noise"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_measurement_s_detour_names_the_same_noise() {
        let of = |d: &str| NoiseSpec::from_detour(&d.parse::<DetourArg>().unwrap());
        let file = NoiseSpec::File("results/n.cbor".into());
        // The measurement's default for a noise file is aligned: co-scheduled.
        assert_eq!(of("noise:results/n.cbor"), (file.clone(), true));
        assert_eq!(of("noise:results/n.cbor,aligned"), (file.clone(), true));
        assert_eq!(of("noise:results/n.cbor,shifted"), (file, false));
        let periodic = NoiseSpec::Periodic {
            freq_hz: 1000.0,
            duration_s: 25e-6,
        };
        assert_eq!(of("1kHz,25us,sync"), (periodic.clone(), true));
        assert_eq!(of("1kHz,25us,async"), (periodic, false));
    }

    #[test]
    fn a_noise_file_is_read_and_replayed_rank_mod_r() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("n.cbor");
        let run = testdata::run(&[vec![(100.25, 1e-5)], vec![(100.75, 2e-5)]]);
        testdata::write(&run, &path).unwrap();
        let spec = NoiseSpec::File(path.clone());
        let cosched = NoiseSource::load(&spec, true).unwrap();
        let random = NoiseSource::load(&spec, false).unwrap();
        // Co-scheduled: the recording's own phase on every rank; rank 3 replays rank 1.
        let s3 = cosched.file_schedule(3, 7).unwrap();
        assert_eq!((s3.durations_s.clone(), s3.base_s), (vec![2e-5], 0.0));
        // Random phases: drawn from the seed, the same for the same seed, in [0, T).
        let a = random.file_schedule(2, 7).unwrap().base_s;
        assert_eq!(a, random.file_schedule(2, 7).unwrap().base_s);
        assert!((0.0..1.0).contains(&a) && a != 0.0);
        assert_ne!(a, random.file_schedule(2, 8).unwrap().base_s);
        assert!(cosched.describe().contains("co-scheduled"));
        assert!(random.describe().contains("2 recorded ranks"));
        // A file that is not a noise file is refused naming --noise and the file.
        let other = dir.path().join("x.txt");
        std::fs::write(&other, "0 100\n").unwrap();
        let e = NoiseSource::load(&NoiseSpec::File(other.clone()), false).unwrap_err();
        assert!(e.contains("--noise") && e.contains("x.txt"), "{e}");
        assert!(
            NoiseSource::load(&"periodic:1kHz:1us".parse().unwrap(), false)
                .unwrap()
                .file
                .is_none()
        );
    }
}
