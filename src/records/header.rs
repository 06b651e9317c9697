//! The one constructor of a records [`Header`], shared by the measurement (`run`) and
//! `delaybench simulate` (`simulate`), so a field added to the header is filled in one place.

use super::{ClockInfo, ClockSyncInfo, Header, Provenance, WaitInfo, FORMAT_NAME, FORMAT_VERSION};
use crate::plan::Plan;

impl Header {
    /// The header of a run of `plan` that starts now, written by this delaybench: the format
    /// and its version, the tool's version, this process's command line and the UTC start
    /// time are filled in here. `hosts`: one host name per world rank (the world size is
    /// their number). The window rule reads `fixed: W s` for a plan with a fixed window and
    /// `auto_window_rule` otherwise. The parts only some runs have (study file, noise
    /// check, job, algorithms, simulation, point-to-point times) are `None`; set them with struct update syntax.
    // Each argument is a part of the header only the writer knows; a struct of them would
    // repeat the header's own fields.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        plan: Plan,
        hosts: Vec<String>,
        mpi_library: String,
        clock: ClockInfo,
        clock_sync: ClockSyncInfo,
        wait: WaitInfo,
        auto_window_rule: &str,
        provenance: Provenance,
    ) -> Header {
        Header {
            format: FORMAT_NAME.into(),
            format_version: FORMAT_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            command_line: std::env::args().collect(),
            start_utc: chrono::Utc::now().to_rfc3339(),
            world_size: hosts.len() as u32,
            hosts,
            mpi_library,
            clock,
            clock_sync,
            wait,
            window_rule: match plan.window_s {
                Some(w) => format!("fixed: {w} s"),
                None => auto_window_rule.into(),
            },
            plan,
            study: None,
            provenance,
            noise_check: None,
            call_entry: None,
            job: None,
            algorithms: None,
            simulation: None,
            p2p: None,
            transport: Vec::new(),
        }
    }
}
