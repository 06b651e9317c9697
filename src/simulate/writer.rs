//! The one records writer of `delaybench simulate`, whatever the engine: the header of a
//! simulated run ([`header`]), each P's blocks as soon as they are simulated, and at the end
//! the header again with every P's cost ([`SimRecords::finish`]).

use super::blocks::SIM_LATE_TOLERANCE_S;
use super::SimulateError;
use crate::clock::ClockModel;
use crate::plan::Plan;
use crate::records::{
    Block, ClockInfo, ClockSyncInfo, Footer, Header, Provenance, RecordsError, RecordsWriter,
    Simulation, WaitInfo,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What the header says of a simulated run besides its plan and simulation.
#[derive(Debug, Clone)]
pub struct HeaderParts<'a> {
    /// The host of every rank slot of the largest P.
    pub rank_hosts: &'a [String],
    /// The header's clock source (the engine's clock).
    pub clock_source: String,
    /// Tags kept in the header.
    pub tags: &'a [crate::records::Tag],
}

/// The header of a simulated run: the plan, the simulated hosts of the largest P, one
/// perfect clock (identity models, no synchronisation) and the simulation's identity. The
/// MPI library reads `simulated: <engine> <version>, platform <platform>`, so every table
/// row and figure subtitle that names the library says the run was simulated.
pub fn header(plan: &Plan, parts: &HeaderParts, sim: Simulation) -> Header {
    let world = parts.rank_hosts.len();
    let header = Header::new(
        plan.clone(),
        parts.rank_hosts.to_vec(),
        format!(
            "simulated: {} {}, platform {}",
            sim.engine, sim.engine_version, sim.platform
        ),
        ClockInfo {
            source: parts.clock_source.clone(),
            resolution_s: 1e-9,
            timer_delay_s: 0.0,
        },
        ClockSyncInfo {
            method: "none (simulated: one clock)".into(),
            params: Vec::new(),
            models: vec![ClockModel::offset_only(0.0); world],
            min_rtt_s: vec![0.0; world],
            exchanges: vec![0; world],
            duration_s: 0.0,
            shared: Vec::new(),
            slope_se: Vec::new(),
        },
        WaitInfo {
            rule: "simulated: nanosleep to the start instant in simulated time".into(),
            hosts: Vec::new(),
            spin_margin_s: 0.0,
            late_tolerance_s: Some(SIM_LATE_TOLERANCE_S),
        },
        "auto: 2 x 90th percentile of the slowest rank's warm-up operation time \
         + 1.1 x largest delay + 20 us (simulated time)",
        Provenance::new(parts.tags.to_vec(), Vec::new()),
    );
    Header {
        simulation: Some(sim),
        ..header
    }
}

/// A simulated run's records file while its P's are simulated.
///
/// Each P's blocks go into the file as soon as they are simulated, so an interrupted curve
/// keeps the P's it finished. The header's costs of every P are known only at the end: the
/// finished file is then written again beside it with them and renamed over it (at 16,384
/// ranks a block of 100 repetitions is about 40 MB, small beside an engine's own memory).
pub struct SimRecords {
    path: PathBuf,
    writer: RecordsWriter,
    curve: Vec<Block>,
    started: Instant,
}

impl SimRecords {
    /// Creates `path` (never overwritten) and writes `header`, so a path that cannot be
    /// written stops the run before it simulates.
    ///
    /// Errors: [`RecordsError::Exists`] and the writer's.
    pub fn create(path: &Path, header: &Header) -> Result<Self, RecordsError> {
        if path.exists() {
            return Err(RecordsError::Exists(path.display().to_string()));
        }
        let mut writer = RecordsWriter::create(path)?;
        writer.write_header(header)?;
        Ok(SimRecords {
            path: path.to_path_buf(),
            writer,
            curve: Vec::new(),
            started: Instant::now(),
        })
    }

    /// Writes one P's blocks. Errors: the writer's.
    pub fn write_p(&mut self, blocks: Vec<Block>) -> Result<(), RecordsError> {
        for b in &blocks {
            self.writer.write_block(b)?;
        }
        self.curve.extend(blocks);
        Ok(())
    }

    /// After an engine's error: a file with a header alone holds nothing and would only make
    /// the same command refuse its --output next time, so it is removed; a file with
    /// finished P's is kept, as an interrupted curve's, and said (`failed_at`: the P that
    /// failed).
    pub fn abandon(self, failed_at: u32) {
        let SimRecords {
            path,
            writer,
            curve,
            ..
        } = self;
        drop(writer);
        if curve.is_empty() {
            let _ = std::fs::remove_file(&path);
        } else {
            eprintln!(
                "delaybench: the P's simulated before P = {failed_at} are kept in {}",
                path.display()
            );
        }
    }

    /// Ends the file, then writes it again whole with `final_header` (the costs filled in)
    /// and renames that over it; `world`: the largest P.
    ///
    /// Errors: the writer's, and the rename's.
    pub fn finish(self, final_header: &Header, world: usize) -> Result<(), SimulateError> {
        let footer = Footer {
            end_offsets_s: vec![0.0; world],
            offset_change_s: vec![0.0; world],
            max_abs_offset_change_s: 0.0,
            wall_time_s: self.started.elapsed().as_secs_f64(),
            warnings: Vec::new(),
        };
        self.writer.finish(&footer)?;
        let mut whole = self.path.as_os_str().to_owned();
        whole.push(".with-costs");
        let whole = PathBuf::from(whole);
        let mut again = RecordsWriter::create(&whole)?;
        again.write_header(final_header)?;
        for b in &self.curve {
            again.write_block(b)?;
        }
        again.finish(&footer)?;
        super::smpi::rename_over(&whole, &self.path)?;
        Ok(())
    }
}
