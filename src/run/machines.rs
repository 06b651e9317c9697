//! The machines of a run for its header's provenance: each host's first rank describes its
//! host (kernel, CPU, cores, MPI-related environment without credentials or launch addresses:
//! [`crate::records::provenance::recorded_env`]) and rank 0 gathers one description per host,
//! its own first. Other ranks send nothing, so the cost grows with hosts, not ranks.

use super::gather::gather_bytes;
use crate::records::Machine;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Collective on `world`; `names` is every world rank's host name. On rank 0: one
/// [`Machine`] per host in order of its first rank; empty elsewhere. A description that does
/// not decode is left out (the header is still written).
pub fn gather_machines(world: &SimpleCommunicator, names: &[String]) -> Vec<Machine> {
    let rank = world.rank() as usize;
    let first_of_host = names.iter().position(|n| *n == names[rank]) == Some(rank);
    let mut mine = Vec::new();
    if first_of_host {
        let machine = Machine::here(&names[rank], std::env::vars());
        ciborium::into_writer(&machine, &mut mine).expect("a machine serialises");
    }
    gather_bytes(world, &mine)
        .unwrap_or_default()
        .into_iter()
        .filter(|bytes| !bytes.is_empty())
        .filter_map(|bytes| ciborium::from_reader(&bytes[..]).ok())
        .collect()
}
