//! What the launcher and the batch system said about the job: the Slurm job and step, the
//! nodes and tasks per node Slurm gave it, the PMI that started the ranks, and per rank its
//! host, its parent (the process that launched it) and the CPU set it ran on. The header's
//! `job` field; the run side (`run/job.rs`) reads it on every rank and gathers it to rank 0.

use serde::{Deserialize, Serialize};

/// The job as seen from every rank. Job-level fields are rank 0's view; under `mpirun` inside
/// an allocation the ranks that `mpirun` started on other nodes see another step (the one that
/// runs its daemons), which their [`RankPlacement`] keeps.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JobInfo {
    /// `slurm` when rank 0 runs inside a Slurm job (`SLURM_JOB_ID` set), else `none`.
    pub scheduler: String,
    /// `SLURM_JOB_ID`.
    pub job_id: Option<String>,
    /// `SLURM_STEP_ID` of rank 0: the step `srun` started (0, 1, ...), absent in a batch
    /// script's own step (where `mpirun` runs).
    pub step_id: Option<String>,
    /// `SLURM_JOB_NODELIST` in Slurm's compressed form (`node[0-3]`).
    pub node_list: Option<String>,
    /// `SLURM_STEP_TASKS_PER_NODE`, else `SLURM_TASKS_PER_NODE` (`2(x4)`: 2 on each of 4 nodes).
    pub tasks_per_node: Option<String>,
    /// `SLURM_STEP_NUM_TASKS`, else `SLURM_NTASKS`: the tasks Slurm launched or allotted.
    pub ntasks: Option<u32>,
    /// `SLURM_CPU_BIND_TYPE` of rank 0 (`mask_cpu:`, `cores`, ...), set by `srun`'s binding.
    pub cpu_bind: Option<String>,
    /// How rank 0 was wired up: `slurm pmix` / `slurm pmi2` (`srun --mpi=`, `SLURM_MPI_TYPE`),
    /// `mpirun pmix` (Open MPI's runtime), `hydra pmi` (MPICH's `mpiexec`), or `singleton`.
    pub pmi: String,
    /// Per world rank.
    pub ranks: Vec<RankPlacement>,
}

/// Where one rank ran and what it was told.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RankPlacement {
    /// Host name (`MPI_Get_processor_name`).
    pub host: String,
    /// Name of the parent process: `slurmstepd` when `srun` started the rank itself, `orted`
    /// or `mpirun` under Open MPI's launcher, `hydra_pmi_proxy` under MPICH's.
    pub parent: String,
    /// `SLURM_PROCID`: the task number Slurm gave the process (every rank that `mpirun`
    /// started through one Slurm task shares it).
    pub slurm_procid: Option<u32>,
    /// `SLURM_STEP_ID` the rank saw.
    pub slurm_step_id: Option<String>,
    /// `SLURMD_NODENAME`, else `SLURM_TOPOLOGY_ADDR`: the Slurm node name.
    pub slurm_node: Option<String>,
    /// `SLURM_CPU_BIND_LIST`: the CPU mask(s) `srun` bound the task to (`0x1`).
    pub slurm_cpu_mask: Option<String>,
    /// The CPUs the rank may run on (`sched_getaffinity` at start, before any pinning of its
    /// own) as a CPU list (`0-3,8`); empty when it could not be read.
    pub cpus: String,
}

impl JobInfo {
    /// Ranks on one host whose CPU sets share a CPU, as `host: ranks 0 and 1 share CPU 0`; each
    /// pair once. Ranks with an unreadable CPU set are left out.
    pub fn shared_cpus(&self) -> Vec<String> {
        let sets: Vec<Vec<u32>> = self.ranks.iter().map(|r| parse_cpu_list(&r.cpus)).collect();
        let mut out = Vec::new();
        for (a, ra) in self.ranks.iter().enumerate() {
            for (b, rb) in self.ranks.iter().enumerate().skip(a + 1) {
                if ra.host != rb.host {
                    continue;
                }
                let common: Vec<u32> = sets[a]
                    .iter()
                    .filter(|c| sets[b].contains(c))
                    .copied()
                    .collect();
                if !common.is_empty() {
                    out.push(format!(
                        "{}: ranks {a} and {b} share CPU {}",
                        ra.host,
                        cpu_list(&common)
                    ));
                }
            }
        }
        out
    }

    /// The warning for a Slurm job whose ranks share CPUs, as the oversubscription warning
    /// says it for ranks on too few cores; `None` outside Slurm or when every rank has CPUs of
    /// its own. At most three pairs are named.
    pub fn shared_cpus_warning(&self) -> Option<String> {
        if self.scheduler != "slurm" {
            return None;
        }
        let shared = self.shared_cpus();
        if shared.is_empty() {
            return None;
        }
        let more = if shared.len() > 3 {
            format!(" and {} more pairs", shared.len() - 3)
        } else {
            String::new()
        };
        Some(format!(
            "under Slurm, ranks share cores ({}{more}), so timings include waiting for a core; \
             give each rank its own core (srun --cpu-bind=cores with --ntasks-per-node at most \
             the cores per node, --exclusive)",
            shared[..shared.len().min(3)].join("; ")
        ))
    }
}

impl JobInfo {
    /// The job as (label, text) rows for a report page: the batch job (Slurm's id, step,
    /// nodes, tasks per node, CPU binding), the PMI, and per host its ranks with their CPU sets
    /// (at most `max_ranks` ranks listed, the rest counted).
    pub fn summary_rows(&self, max_ranks: usize) -> Vec<(&'static str, String)> {
        let mut rows = Vec::new();
        if self.scheduler == "slurm" {
            let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
            rows.push((
                "Slurm job",
                format!(
                    "job {}, step {}, nodes {}, tasks per node {}, {} tasks, CPU binding {}",
                    opt(&self.job_id),
                    self.step_id
                        .clone()
                        .unwrap_or_else(|| "- (batch script)".into()),
                    opt(&self.node_list),
                    opt(&self.tasks_per_node),
                    self.ntasks.map_or("-".into(), |n| n.to_string()),
                    opt(&self.cpu_bind),
                ),
            ));
        }
        rows.push(("launch (PMI)", self.pmi.clone()));
        let mut hosts: Vec<(&str, Vec<String>)> = Vec::new();
        for (rank, r) in self.ranks.iter().enumerate().take(max_ranks) {
            let cpus = if r.cpus.is_empty() { "?" } else { &r.cpus };
            let item = format!("{rank} on CPU {cpus}");
            match hosts.iter_mut().find(|(h, _)| *h == r.host) {
                Some((_, items)) => items.push(item),
                None => hosts.push((&r.host, vec![item])),
            }
        }
        let mut placement: Vec<String> = hosts
            .iter()
            .map(|(h, items)| format!("{h}: rank {}", items.join(", ")))
            .collect();
        if self.ranks.len() > max_ranks {
            placement.push(format!("{} more ranks", self.ranks.len() - max_ranks));
        }
        rows.push(("rank CPUs", placement.join("; ")));
        rows
    }
}

/// CPUs of a CPU list (`0-3,8`); malformed parts are skipped.
pub fn parse_cpu_list(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
                    out.extend(a..=b);
                }
            }
            None => out.extend(part.parse::<u32>().ok()),
        }
    }
    out
}

/// A CPU list (`0-3,8`) of sorted CPUs.
pub fn cpu_list(cpus: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank(host: &str, cpus: &str) -> RankPlacement {
        RankPlacement {
            host: host.into(),
            cpus: cpus.into(),
            ..Default::default()
        }
    }

    #[test]
    fn summary_rows_name_the_job_and_each_ranks_cpus() {
        let job = JobInfo {
            scheduler: "slurm".into(),
            job_id: Some("7".into()),
            step_id: Some("0".into()),
            node_list: Some("n[0-1]".into()),
            tasks_per_node: Some("1(x2)".into()),
            ntasks: Some(2),
            cpu_bind: None,
            pmi: "slurm pmi2".into(),
            ranks: vec![rank("n0", "0"), rank("n1", "1"), rank("n1", "")],
        };
        let rows = job.summary_rows(2);
        assert_eq!(rows[0].0, "Slurm job");
        assert!(rows[0]
            .1
            .starts_with("job 7, step 0, nodes n[0-1], tasks per node 1(x2), 2 tasks"));
        assert_eq!(rows[1], ("launch (PMI)", "slurm pmi2".to_string()));
        assert_eq!(
            rows[2].1,
            "n0: rank 0 on CPU 0; n1: rank 1 on CPU 1; 1 more ranks"
        );
    }

    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(parse_cpu_list("0-3,8"), [0, 1, 2, 3, 8]);
        assert_eq!(cpu_list(&[0, 1, 2, 3, 8]), "0-3,8");
        assert_eq!(parse_cpu_list(""), Vec::<u32>::new());
    }

    #[test]
    fn ranks_sharing_a_cpu_on_one_host_are_named_under_slurm_only() {
        let mut job = JobInfo {
            scheduler: "slurm".into(),
            ranks: vec![
                rank("a", "0"),
                rank("a", "0-1"),
                rank("b", "0"),
                rank("b", "1"),
            ],
            ..Default::default()
        };
        assert_eq!(job.shared_cpus(), ["a: ranks 0 and 1 share CPU 0"]);
        let w = job.shared_cpus_warning().unwrap();
        assert!(w.contains("a: ranks 0 and 1 share CPU 0"), "{w}");
        job.ranks[1].cpus = "1".into();
        assert_eq!(job.shared_cpus_warning(), None);
        job.ranks[1].cpus = "0".into();
        job.scheduler = "none".into();
        assert_eq!(job.shared_cpus_warning(), None);
    }
}
