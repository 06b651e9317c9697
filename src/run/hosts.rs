//! Which ranks share a host, how many cores the job holds there, and which ranks form each P.

use crate::plan::Subcomm;
use crate::records::HostLoad;
use crate::wait::WaitStrategy;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// Longest host name exchanged; longer names are cut.
const NAME_BYTES: usize = 256;
/// Words of a CPU mask as exchanged: `CPU_SETSIZE` (1024) bits.
const MASK_WORDS: usize = 16;

/// Per rank host names, per host ranks and cores, and the order in which ranks join each P;
/// known on every rank.
pub struct Hosts {
    /// Per world rank: host name.
    pub names: Vec<String>,
    /// Per host, in order of its first rank.
    pub loads: Vec<HostLoad>,
    /// Every world rank in [`Subcomm::order`]: the members of P are the first P.
    order: Vec<usize>,
}

impl Hosts {
    /// Gathers host names, CPU affinity masks and online core counts from every rank
    /// (collective on `world`). A host's cores are the union of its ranks' masks, so a job
    /// holding 4 of a node's 128 cores (Slurm CPU sets, cgroups, a launcher's binding) counts
    /// 4; online cores are the fallback when a mask cannot be read.
    pub fn discover(world: &SimpleCommunicator) -> Hosts {
        let name = mpi::environment::processor_name().unwrap_or_else(|_| "unknown".into());
        let mut mine = [0u8; NAME_BYTES];
        let n = name.len().min(NAME_BYTES);
        mine[..n].copy_from_slice(&name.as_bytes()[..n]);
        let size = world.size() as usize;
        let mut all = vec![0u8; NAME_BYTES * size];
        world.all_gather_into(&mine[..], &mut all[..]);
        let mut online = vec![0u32; size];
        world.all_gather_into(&online_cores(), &mut online[..]);
        let mut masks = vec![0u64; MASK_WORDS * size];
        world.all_gather_into(&affinity_mask()[..], &mut masks[..]);

        let names: Vec<String> = all
            .chunks(NAME_BYTES)
            .map(|c| {
                let end = c.iter().position(|&b| b == 0).unwrap_or(c.len());
                String::from_utf8_lossy(&c[..end]).into_owned()
            })
            .collect();
        let masks: Vec<&[u64]> = masks.chunks(MASK_WORDS).collect();
        let loads = host_loads(&names, &masks, &online);
        let order = Subcomm::First.order(&names);
        Hosts {
            names,
            loads,
            order,
        }
    }

    /// Uses `subcomm` to choose the members of each P from now on.
    pub fn set_subcomm(&mut self, subcomm: Subcomm) {
        self.order = subcomm.order(&self.names);
    }

    /// World ranks of P = `p`, in sub-communicator rank order.
    pub fn members(&self, p: u32) -> &[usize] {
        &self.order[..(p as usize).min(self.order.len())]
    }

    /// Host name per sub-communicator rank (all world ranks, the members of P first): what
    /// rank selections (`host:I`) are read against.
    pub fn comm_names(&self) -> Vec<String> {
        self.order.iter().map(|&r| self.names[r].clone()).collect()
    }

    /// Distinct hosts among the members of P.
    pub fn spanned(&self, p: u32) -> u32 {
        let mut hosts: Vec<&String> = self.members(p).iter().map(|&r| &self.names[r]).collect();
        hosts.sort();
        hosts.dedup();
        hosts.len() as u32
    }

    /// How ranks wait while the members of P measure and the rest sleep: spin when every host
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

    /// Position of world rank `rank` among the members of P on its host (0 for the first).
    pub fn local_index(&self, rank: usize, p: u32) -> usize {
        let host = &self.names[rank];
        self.members(p)
            .iter()
            .take_while(|&&r| r != rank)
            .filter(|&&r| &self.names[r] == host)
            .count()
    }

    /// Members of P on `host`.
    pub(crate) fn measuring_on(&self, host: &str, p: u32) -> u32 {
        self.members(p)
            .iter()
            .filter(|&&r| self.names[r] == host)
            .count() as u32
    }
}

/// Per host, in order of first rank: its ranks and the cores of the union of their masks
/// (`masks[rank]`, all-zero when unreadable), or `online[rank]` when any mask is missing.
fn host_loads(names: &[String], masks: &[&[u64]], online: &[u32]) -> Vec<HostLoad> {
    let mut hosts: Vec<(String, Vec<usize>)> = Vec::new();
    for (rank, host) in names.iter().enumerate() {
        match hosts.iter_mut().find(|(h, _)| h == host) {
            Some((_, ranks)) => ranks.push(rank),
            None => hosts.push((host.clone(), vec![rank])),
        }
    }
    hosts
        .into_iter()
        .map(|(host, ranks)| {
            let known = ranks.iter().all(|&r| masks[r].iter().any(|&w| w != 0));
            let mut union = [0u64; MASK_WORDS];
            for &r in &ranks {
                for (u, w) in union.iter_mut().zip(masks[r]) {
                    *u |= w;
                }
            }
            let (cores, cpus, from) = if known {
                let cores = union.iter().map(|w| w.count_ones()).sum();
                (cores, cpu_list(&union), "affinity")
            } else {
                (online[ranks[0]], String::new(), "online")
            };
            HostLoad {
                host,
                ranks: ranks.len() as u32,
                cores,
                cpus,
                cores_from: from.into(),
            }
        })
        .collect()
}

/// `0-3,8` for a CPU mask.
fn cpu_list(mask: &[u64]) -> String {
    let set: Vec<u32> = (0..mask.len() * 64)
        .filter(|&c| mask[c / 64] >> (c % 64) & 1 == 1)
        .map(|c| c as u32)
        .collect();
    crate::records::job::cpu_list(&set)
}

/// This process's CPU affinity mask as 64-bit words, all zero when it cannot be read.
fn affinity_mask() -> [u64; MASK_WORDS] {
    let mut words = [0u64; MASK_WORDS];
    for cpu in crate::affinity::allowed_cpus() {
        if cpu < MASK_WORDS * 64 {
            words[cpu / 64] |= 1 << (cpu % 64);
        }
    }
    words
}

/// Cores this process may use (the standard library asks the affinity, then the online
/// CPUs): the fallback when affinity masks cannot be read.
fn online_cores() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(cpus: &[usize]) -> Vec<u64> {
        let mut m = vec![0u64; MASK_WORDS];
        for &c in cpus {
            m[c / 64] |= 1 << (c % 64);
        }
        m
    }

    #[test]
    fn cores_are_the_union_of_masks_per_host() {
        let names: Vec<String> = ["a", "a", "b", "b"].iter().map(|s| s.to_string()).collect();
        let m = [mask(&[0]), mask(&[0]), mask(&[4, 5]), mask(&[70])];
        let masks: Vec<&[u64]> = m.iter().map(|v| v.as_slice()).collect();
        let loads = host_loads(&names, &masks, &[128; 4]);
        assert_eq!(loads.len(), 2);
        assert_eq!((loads[0].cores, loads[0].cpus.as_str()), (1, "0"));
        assert_eq!((loads[1].cores, loads[1].cpus.as_str()), (3, "4-5,70"));
        assert_eq!(loads[1].cores_from, "affinity");
    }

    #[test]
    fn an_unreadable_mask_falls_back_to_online_cores() {
        let names: Vec<String> = ["a", "a"].iter().map(|s| s.to_string()).collect();
        let m = [mask(&[0]), vec![0u64; MASK_WORDS]];
        let masks: Vec<&[u64]> = m.iter().map(|v| v.as_slice()).collect();
        let loads = host_loads(&names, &masks, &[8, 8]);
        assert_eq!(
            (loads[0].cores, loads[0].cores_from.as_str()),
            (8, "online")
        );
    }
}
