//! What `delaybench simulate` needs besides its plan, as plain data: the command line's
//! arguments (`cli::SimulateArgs`) are turned into [`Options`] at the edge, as every other
//! command's are.

use super::noise_source::NoiseSpec;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// `--engine`: which engine simulates the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineKind {
    /// SimGrid's SMPI: the ranks run the MPI library's algorithms on a simulated network
    /// (Casanova et al. 2014; Degomme et al. 2017). Needs SimGrid installed.
    Smpi,
    /// The built-in LogGOPS engine (Hoefler, Schneider and Lumsdaine 2010), the default: it
    /// needs nothing installed.
    #[default]
    Loggops,
}

impl EngineKind {
    /// The names `--engine` takes, in the order the help lists them.
    pub const NAMES: [&'static str; 2] = ["loggops", "smpi"];

    /// The name `--engine` takes and the header's `engine_option` holds.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Smpi => "smpi",
            EngineKind::Loggops => "loggops",
        }
    }
}

impl fmt::Display for EngineKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for EngineKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "smpi" => Ok(EngineKind::Smpi),
            "loggops" => Ok(EngineKind::Loggops),
            _ => Err(format!(
                "engine '{s}': expected one of {}",
                EngineKind::NAMES.join(", ")
            )),
        }
    }
}

/// The SMPI engine's settings: the platform and SMPI's collective selection.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SmpiSettings {
    /// A built-in platform (`fat-tree`, `torus`, `dragonfly`, `local`) or a platform file.
    pub platform: String,
    /// With a platform file: the host of each rank slot, as smpirun's -hostfile.
    pub hostfile: Option<PathBuf>,
    /// Ranks per simulated host of a built-in platform.
    pub ranks_per_host: u32,
    /// SMPI's collective selector (`smpi/coll-selector`).
    pub coll_selector: Option<String>,
    /// Further SimGrid options, `key:value`.
    pub cfg: Vec<String>,
}

/// What `delaybench simulate` needs besides its plan. Plain data, filled from the command
/// line at the edge.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Options {
    /// The engine (`--engine`).
    pub engine: EngineKind,
    /// The SMPI engine's platform and selection.
    pub smpi: SmpiSettings,
    /// The flags of the SMPI engine's settings that were given (`--platform`, `--cfg`, ...),
    /// refused by the LogGOPS engine rather than ignored.
    pub smpi_options: Vec<&'static str>,
    /// Algorithm names to sweep (the engine's names): one simulation and one records file
    /// each.
    pub algorithms: Vec<String>,
    /// Simulate every repetition, not each distinct delay vector once.
    pub every_repetition: bool,
    /// A measurement's `--detour`: the LogGOPS engine replays it as the `--noise` it names
    /// ([`super::noise_source::NoiseSpec::from_detour`]); the SMPI engine refuses it.
    pub detour: Option<crate::delay::DetourArg>,
    /// The simulated ranks' OS noise (`--noise`).
    pub noise: Option<NoiseSpec>,
    /// Every rank replays the noise at the same phase (`--noise-cosched`).
    pub noise_cosched: bool,
    /// How the nonblocking collectives progress (`--progress`; `None`: not given, the
    /// LogGOPS engine's asynchronous progress).
    pub progress: Option<super::loggops::Progress>,
    /// The overlap computation of the nonblocking collectives between start and wait,
    /// seconds (`--overlap-compute`; `None`: the wait follows the start at once).
    pub overlap_compute_s: Option<f64>,
    /// The LogGOPS engine's parameters as given (`--loggops L=2.5us,o=1.5us,...`).
    pub loggops: Option<String>,
    /// Records file; `None`: `results/simulated-<UTC time, µs>-<pid>.cbor`.
    pub output: Option<PathBuf>,
    /// Tags kept in the header.
    pub tags: Vec<crate::records::Tag>,
    /// Draw no figures and no report page at the end.
    pub no_figures: bool,
    /// Print and write no summary at the end.
    pub no_summary: bool,
    /// Keep the engine's work files.
    pub keep_files: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_names_round_trip_and_a_wrong_one_lists_them() {
        for name in EngineKind::NAMES {
            assert_eq!(name.parse::<EngineKind>().unwrap().name(), name);
        }
        let e = "logp".parse::<EngineKind>().unwrap_err();
        assert!(e.contains("loggops, smpi"), "{e}");
    }
}
