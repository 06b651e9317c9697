//! The header's mark of a simulated run (`delaybench simulate`): which engine ran the plan,
//! on which platform or with which parameters, with which collective algorithms and which
//! noise. A measured run has none.

use serde::{Deserialize, Serialize};

/// A run simulated rather than measured: every time in its blocks is the simulator's one
/// clock (seconds of simulated time), shared by all ranks, so no clock synchronisation was
/// needed and none was made.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Simulation {
    /// The simulator, e.g. `SimGrid SMPI`.
    pub engine: String,
    /// Its version, e.g. `3.32`.
    pub engine_version: String,
    /// The platform: a built-in name (`fat-tree`, `torus`, `dragonfly`, `local`) with its
    /// parameters, or the path of a SimGrid platform file.
    pub platform: String,
    /// How SMPI chose the collective algorithms: `smpi/coll-selector` and any per-collective
    /// algorithm (`allreduce:rdb`), e.g. `default` or `mpich; allreduce=rdb`.
    pub collective_selector: String,
    /// Every `--cfg` given to the simulator, `key:value`.
    pub config: Vec<String>,
    /// MPI ranks per simulated host.
    pub ranks_per_host: u32,
    /// Whether each distinct delay vector of a block was simulated once and repeated
    /// (`true`, checked by two extra copies) rather than every repetition simulated
    /// (`false`; also in files written before this field existed).
    #[serde(default)]
    pub distinct_repetitions: bool,
    /// What each simulated P cost, in the order simulated (empty in files written before
    /// this field existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub costs: Vec<SimulationCost>,
    /// The engine as `simulate --engine` names it: `smpi` or `loggops` (`smpi` in files
    /// written before this field existed, when SMPI was the only engine).
    #[serde(default = "smpi")]
    pub engine_option: String,
    /// The engine's parameters, `name=value` with units (the LogGOPS engine's `L=2.5us`,
    /// ...); empty for SMPI, whose network is its platform.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<String>,
    /// The simulated OS noise: its source and how its phases were chosen; `None`: no noise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<String>,
    /// How the nonblocking collectives progressed (the LogGOPS engine's `--progress`: `async`
    /// or `wait`, what the model does, and the overlap computation between start and wait);
    /// `None`: SMPI (the MPI library's own progress) or a file written before this field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<String>,
}

/// The engine of a file written before `engine_option` existed.
fn smpi() -> String {
    "smpi".into()
}

/// The cost of simulating one P: wall time and the simulator's peak memory (`delaybench info`
/// prints one line per P under its `simulated` line).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SimulationCost {
    /// Process count.
    pub procs: u32,
    /// Wall time of its simulator launch(es), seconds.
    pub wall_time_s: f64,
    /// Largest resident memory of a launch (`smpirun` and the simulator), bytes.
    pub peak_memory_bytes: u64,
    /// Repetitions simulated (the rest repeat a simulated one, docs/simulate.md).
    pub simulated_repetitions: u64,
}

impl Simulation {
    /// One line for tables and subtitles: `simulated: SimGrid SMPI 3.32, platform torus,
    /// collectives default`, then the parameters and the noise when there are any.
    pub fn line(&self) -> String {
        let mut line = format!(
            "simulated: {} {}, platform {}, collectives {}",
            self.engine, self.engine_version, self.platform, self.collective_selector
        );
        if !self.parameters.is_empty() {
            line.push_str(&format!(", parameters {}", self.parameters.join(",")));
        }
        if let Some(noise) = &self.noise {
            line.push_str(&format!(", noise {noise}"));
        }
        if let Some(progress) = &self.progress {
            // The model's name, not its description: the line is a subtitle.
            let name = progress.split(':').next().unwrap_or(progress);
            line.push_str(&format!(", progress {name}"));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header's simulation as CBOR without the fields added with the LogGOPS engine.
    #[derive(Serialize)]
    struct Older {
        engine: String,
        engine_version: String,
        platform: String,
        collective_selector: String,
        config: Vec<String>,
        ranks_per_host: u32,
    }

    #[test]
    fn an_older_simulation_reads_as_smpi_without_noise() {
        let older = Older {
            engine: "SimGrid SMPI".into(),
            engine_version: "3.32".into(),
            platform: "torus".into(),
            collective_selector: "default".into(),
            config: vec![],
            ranks_per_host: 1,
        };
        let mut bytes = Vec::new();
        ciborium::into_writer(&older, &mut bytes).unwrap();
        let read: Simulation = ciborium::from_reader(&bytes[..]).unwrap();
        assert_eq!(read.engine_option, "smpi");
        assert_eq!((read.parameters.len(), read.noise.clone()), (0, None));
        assert_eq!(
            read.line(),
            "simulated: SimGrid SMPI 3.32, platform torus, collectives default"
        );
        let noisy = Simulation {
            parameters: vec!["L=2.5us".into(), "o=1.5us".into()],
            noise: Some("periodic:10Hz:2.5ms, random phases from the seed".into()),
            ..read
        };
        assert!(noisy.line().ends_with(
            ", parameters L=2.5us,o=1.5us, noise periodic:10Hz:2.5ms, random phases from the seed"
        ));
        let waiting = Simulation {
            progress: Some("wait: the start posts ...; overlap computation 100us".into()),
            ..noisy
        };
        assert!(waiting
            .line()
            .ends_with("random phases from the seed, progress wait"));
    }
}
