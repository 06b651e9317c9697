//! Which ranks share a host, and whether a host runs more ranks than it has cores.

use crate::records::HostLoad;
use crate::sync::WaitStrategy;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Longest host name exchanged; longer names are cut.
const NAME_BYTES: usize = 256;

/// Per rank host names, and per host ranks and cores, known on every rank.
pub struct Hosts {
    /// Per world rank: host name.
    pub names: Vec<String>,
    /// Per host, in order of its first rank.
    pub loads: Vec<HostLoad>,
}

impl Hosts {
    /// Gathers host names and online core counts from every rank (collective on `world`).
    pub fn discover(world: &SimpleCommunicator) -> Hosts {
        let name = mpi::environment::processor_name().unwrap_or_else(|_| "unknown".into());
        let mut mine = [0u8; NAME_BYTES];
        let n = name.len().min(NAME_BYTES);
        mine[..n].copy_from_slice(&name.as_bytes()[..n]);
        let size = world.size() as usize;
        let mut all = vec![0u8; NAME_BYTES * size];
        world.all_gather_into(&mine[..], &mut all[..]);
        let mut cores = vec![0u32; size];
        world.all_gather_into(&online_cores(), &mut cores[..]);

        let names: Vec<String> = all
            .chunks(NAME_BYTES)
            .map(|c| {
                let end = c.iter().position(|&b| b == 0).unwrap_or(c.len());
                String::from_utf8_lossy(&c[..end]).into_owned()
            })
            .collect();
        let mut loads: Vec<HostLoad> = Vec::new();
        for (rank, host) in names.iter().enumerate() {
            match loads.iter_mut().find(|l| &l.host == host) {
                Some(l) => l.ranks += 1,
                None => loads.push(HostLoad {
                    host: host.clone(),
                    ranks: 1,
                    cores: cores[rank],
                }),
            }
        }
        Hosts { names, loads }
    }

    /// How ranks wait when world ranks 0..p-1 measure and the rest sleep: spin when every host
    /// has a core per measuring rank, politely otherwise. Collective decisions must agree, so
    /// the busiest host decides for all.
    pub fn wait_strategy(&self, p: u32, spin_margin_s: f64) -> WaitStrategy {
        let crowded = self
            .loads
            .iter()
            .any(|l| self.measuring_on(&l.host, p) > l.cores);
        if crowded {
            WaitStrategy::Polite { spin_margin_s }
        } else {
            WaitStrategy::Spin
        }
    }

    /// Position of `rank` among the ranks below `p` on its host (0 for the first of them).
    pub fn local_index(&self, rank: usize, p: u32) -> usize {
        let host = &self.names[rank];
        self.names
            .iter()
            .take(rank.min(p as usize))
            .filter(|n| *n == host)
            .count()
    }

    /// Ranks below `p` on `host`.
    fn measuring_on(&self, host: &str, p: u32) -> u32 {
        self.names
            .iter()
            .take(p as usize)
            .filter(|n| *n == host)
            .count() as u32
    }
}

/// Cores online on this host. Not the affinity mask: mpirun binds each rank to one core.
fn online_cores() -> u32 {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    n.max(1) as u32
}
