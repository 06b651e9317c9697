//! The job as the launcher and Slurm describe it to each rank (environment, parent process,
//! CPU affinity), gathered to rank 0 for the header; and the refusal to measure when `srun`
//! started more tasks than MPI put in the world (the PMI did not match the library).

use crate::records::job::cpu_list;
use crate::records::{JobInfo, RankPlacement};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// One environment lookup; the process environment in a run, a table in tests.
type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Collective on `world`: every rank's placement, and on rank 0 the job. `None` on the other
/// ranks. `host`: this rank's host name.
pub fn gather(world: &SimpleCommunicator, host: &str) -> Option<JobInfo> {
    let mine = placement(&process_env, host, &parent_name(), &affinity_cpus());
    let mut bytes = Vec::new();
    ciborium::into_writer(&mine, &mut bytes).expect("placement serialises");
    let size = world.size() as usize;
    let mut lens = vec![0u64; size];
    world.all_gather_into(&(bytes.len() as u64), &mut lens[..]);
    let width = lens.iter().copied().max().unwrap_or(0) as usize;
    bytes.resize(width, 0);
    let root = world.process_at_rank(0);
    if world.rank() != 0 {
        root.gather_into(&bytes[..]);
        return None;
    }
    let mut all = vec![0u8; width * size];
    root.gather_into_root(&bytes[..], &mut all[..]);
    let ranks = all
        .chunks(width.max(1))
        .zip(&lens)
        .map(|(c, &n)| ciborium::from_reader(&c[..n as usize]).unwrap_or_default())
        .collect();
    Some(job(&process_env, ranks))
}

/// This rank's placement from `env`, its parent's name and its CPU list.
fn placement(env: Env, host: &str, parent: &str, cpus: &str) -> RankPlacement {
    RankPlacement {
        host: host.into(),
        parent: parent.into(),
        slurm_procid: env("SLURM_PROCID").and_then(|v| v.parse().ok()),
        slurm_step_id: env("SLURM_STEP_ID"),
        slurm_node: env("SLURMD_NODENAME").or_else(|| env("SLURM_TOPOLOGY_ADDR")),
        slurm_cpu_mask: env("SLURM_CPU_BIND_LIST"),
        cpus: cpus.into(),
    }
}

/// The job-level fields from rank 0's `env`, with every rank's placement.
fn job(env: Env, ranks: Vec<RankPlacement>) -> JobInfo {
    let parent = ranks.first().map(|r| r.parent.clone()).unwrap_or_default();
    JobInfo {
        scheduler: if env("SLURM_JOB_ID").is_some() {
            "slurm"
        } else {
            "none"
        }
        .into(),
        job_id: env("SLURM_JOB_ID"),
        step_id: env("SLURM_STEP_ID"),
        node_list: env("SLURM_JOB_NODELIST").or_else(|| env("SLURM_NODELIST")),
        tasks_per_node: env("SLURM_STEP_TASKS_PER_NODE").or_else(|| env("SLURM_TASKS_PER_NODE")),
        ntasks: slurm_tasks(env),
        cpu_bind: env("SLURM_CPU_BIND_TYPE"),
        pmi: pmi(env, &parent),
        ranks,
    }
}

/// `SLURM_STEP_NUM_TASKS`, else `SLURM_NTASKS`.
fn slurm_tasks(env: Env) -> Option<u32> {
    env("SLURM_STEP_NUM_TASKS")
        .or_else(|| env("SLURM_NTASKS"))
        .and_then(|v| v.parse().ok())
}

/// How this process was wired up, from the variables each process manager sets: Slurm's
/// `SLURM_MPI_TYPE` when `srun` started it, PMIx's `PMIX_RANK` (with `PMIX_VERSION`), the PMI-1/2
/// `PMI_RANK`, or nothing (a singleton).
fn pmi(env: Env, parent: &str) -> String {
    let pmix = env("PMIX_RANK").map(|_| match env("PMIX_VERSION") {
        Some(v) => format!("pmix {v}"),
        None => "pmix".into(),
    });
    let by = if parent == "slurmstepd" {
        "slurm"
    } else if parent.starts_with("hydra") {
        "hydra"
    } else if env("OMPI_COMM_WORLD_SIZE").is_some() {
        "mpirun"
    } else {
        ""
    };
    let kind = match (by, env("SLURM_MPI_TYPE")) {
        ("slurm", Some(t)) if t != "pmix" && !t.starts_with("pmix_") => Some(t),
        _ => pmix.or_else(|| env("PMI_RANK").map(|_| "pmi".into())),
    };
    match (by, kind) {
        (_, None) => "singleton (no PMI variables)".into(),
        ("", Some(k)) => k,
        (by, Some(k)) => format!("{by} {k}"),
    }
}

/// Whether `srun` itself started this process: Slurm's step daemon is its parent and
/// `SLURM_STEP_ID` is set. Processes that `mpirun` started (through its own daemons, which
/// Slurm may have started as one task per node) see another task count and are not checked.
fn started_by_srun(env: Env, parent: &str) -> bool {
    parent == "slurmstepd" && env("SLURM_STEP_ID").is_some()
}

/// The refusal when `srun` started a different number of tasks than MPI's world holds:
/// the PMI `srun` offered is not one the library uses, so each task starts alone (MPICH
/// under `--mpi=pmix` or `none`: N singletons, each rank 0 of 1). `library`:
/// `MPI_Get_library_version`.
fn task_count_mismatch(env: Env, parent: &str, world_size: u32, library: &str) -> Option<String> {
    if !started_by_srun(env, parent) {
        return None;
    }
    let tasks = slurm_tasks(env)?;
    if tasks == world_size {
        return None;
    }
    let offered = env("SLURM_MPI_TYPE").unwrap_or_else(|| "none".into());
    let (name, use_mpi) = if library.contains("Open MPI") {
        (
            "Open MPI",
            "srun --mpi=pmix (Debian's Open MPI has PMIx only)",
        )
    } else if library.contains("MPICH") {
        ("MPICH", "srun --mpi=pmi2")
    } else {
        (
            "this MPI library",
            "the --mpi type it was built for (srun --mpi=list shows Slurm's)",
        )
    };
    Some(format!(
        "srun started {tasks} tasks (SLURM_NTASKS) but MPI's world has {world_size} rank(s): \
         {name} did not take the PMI srun offered (--mpi={offered}), so each task runs on its \
         own; nothing measured. Launch with {use_mpi}"
    ))
}

/// Every rank checks [`task_count_mismatch`] after MPI started, before anything collective.
/// Returns the message when the run must stop; printed by the first Slurm task only, so that
/// N singletons print it once.
pub fn check_task_count(world_size: u32) -> Result<(), String> {
    let library = mpi::environment::library_version().unwrap_or_default();
    match task_count_mismatch(&process_env, &parent_name(), world_size, &library) {
        None => Ok(()),
        Some(msg) => {
            if process_env("SLURM_PROCID").is_none_or(|p| p == "0") {
                eprintln!("delaybench: error: {msg}");
            }
            Err(msg)
        }
    }
}

/// The parent process's name (`/proc/<ppid>/comm`), empty when unreadable.
fn parent_name() -> String {
    let ppid = std::os::unix::process::parent_id();
    std::fs::read_to_string(format!("/proc/{ppid}/comm"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// This process's CPUs from `sched_getaffinity`, as a CPU list; empty when unreadable.
fn affinity_cpus() -> String {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity writes exactly one set.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return String::new();
        }
        let cpus: Vec<u32> = (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .map(|c| c as u32)
            .collect();
        cpu_list(&cpus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    const MPICH_UNDER_PMIX: &[(&str, &str)] = &[
        ("SLURM_JOB_ID", "7"),
        ("SLURM_STEP_ID", "0"),
        ("SLURM_NTASKS", "2"),
        ("SLURM_STEP_NUM_TASKS", "2"),
        ("SLURM_MPI_TYPE", "pmix"),
        ("PMIX_RANK", "1"),
        ("PMIX_VERSION", "4.2.2"),
    ];

    #[test]
    fn srun_tasks_that_mpi_did_not_join_are_refused_naming_the_mpi_type() {
        let env = table(MPICH_UNDER_PMIX);
        let msg = task_count_mismatch(&env, "slurmstepd", 1, "MPICH Version: 4.0.2").unwrap();
        assert!(msg.contains("srun started 2 tasks"), "{msg}");
        assert!(msg.contains("--mpi=pmix"), "{msg}");
        assert!(msg.contains("srun --mpi=pmi2"), "{msg}");
        let ompi = task_count_mismatch(&env, "slurmstepd", 1, "Open MPI v4.1.4").unwrap();
        assert!(ompi.contains("srun --mpi=pmix"), "{ompi}");
        // The right count, or a process mpirun started (another parent), passes.
        assert_eq!(task_count_mismatch(&env, "slurmstepd", 2, "MPICH"), None);
        assert_eq!(task_count_mismatch(&env, "orted", 4, "Open MPI"), None);
        assert_eq!(task_count_mismatch(&table(&[]), "slurmstepd", 4, ""), None);
    }

    #[test]
    fn pmi_names_the_launcher_and_the_interface() {
        let env = table(MPICH_UNDER_PMIX);
        assert_eq!(pmi(&env, "slurmstepd"), "slurm pmix 4.2.2");
        let pmi2 = table(&[("SLURM_MPI_TYPE", "pmi2"), ("PMI_RANK", "0")]);
        assert_eq!(pmi(&pmi2, "slurmstepd"), "slurm pmi2");
        assert_eq!(pmi(&pmi2, "hydra_pmi_proxy"), "hydra pmi");
        let orted = table(&[("OMPI_COMM_WORLD_SIZE", "2"), ("PMIX_RANK", "1")]);
        assert_eq!(pmi(&orted, "orted"), "mpirun pmix");
        assert_eq!(pmi(&table(&[]), "bash"), "singleton (no PMI variables)");
    }

    #[test]
    fn job_fields_come_from_rank_0_and_placements_from_each_rank() {
        let env = table(&[
            ("SLURM_JOB_ID", "12"),
            ("SLURM_STEP_ID", "0"),
            ("SLURM_JOB_NODELIST", "n[0-1]"),
            ("SLURM_STEP_TASKS_PER_NODE", "1(x2)"),
            ("SLURM_STEP_NUM_TASKS", "2"),
            ("SLURM_PROCID", "1"),
            ("SLURMD_NODENAME", "n1"),
            ("SLURM_CPU_BIND_LIST", "0x2"),
        ]);
        let p = placement(&env, "n1", "slurmstepd", "1");
        assert_eq!(p.slurm_procid, Some(1));
        assert_eq!(p.slurm_node.as_deref(), Some("n1"));
        assert_eq!(p.slurm_cpu_mask.as_deref(), Some("0x2"));
        let j = job(&env, vec![p]);
        assert_eq!(j.scheduler, "slurm");
        assert_eq!(
            (j.job_id.as_deref(), j.ntasks, j.tasks_per_node.as_deref()),
            (Some("12"), Some(2), Some("1(x2)"))
        );
        assert_eq!(job(&table(&[]), vec![]).scheduler, "none");
    }
}
