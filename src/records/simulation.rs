//! The header's mark of a simulated run (`delaybench simulate`): which simulator ran the plan,
//! on which platform, with which collective algorithms. A measured run has none.

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
    /// collectives default`.
    pub fn line(&self) -> String {
        format!(
            "simulated: {} {}, platform {}, collectives {}",
            self.engine, self.engine_version, self.platform, self.collective_selector
        )
    }
}
