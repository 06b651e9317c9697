//! Where a run came from, kept in its records header so that the metadata follow the data: a
//! run id, the delaybench build (git revision), the user's tags (`--tag key=value`), and per
//! host the kernel, CPU model, core counts and the environment variables that configure the
//! MPI library, UCX, PMI and Slurm. Like ReproMPI's `--params k:v` (Hunold and Carpen-Amarie
//! 2016), tags travel with every row `analyze` and `export` write. Plain Rust, no MPI: the
//! run layer gathers one [`Machine`] per host.

pub use crate::plan::tags::{check_tags, Tag, TagError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Prefixes of the environment variables recorded: Open MPI (`OMPI_`, and its PMIx), MPICH
/// (`MPICH_`, its control variables `MPIR_CVAR_`, its launcher `HYDRA_`), Intel MPI
/// (`I_MPI_`), UCX (`UCX_`), libfabric (`FI_`), PMI and PMIx (`PMI`), and Slurm (`SLURM_`).
pub const ENV_PREFIXES: [&str; 9] = [
    "OMPI_",
    "MPICH_",
    "MPIR_CVAR_",
    "HYDRA_",
    "I_MPI_",
    "UCX_",
    "FI_",
    "PMI",
    "SLURM_",
];

/// The provenance of a run (header field `provenance`); empty in files written before it
/// was recorded.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Provenance {
    /// The run's id, a random UUID (version 4) drawn by rank 0: the `run_id` of every row of
    /// `analyze` and `export`, so pooled and concatenated tables tell runs apart.
    pub run_id: String,
    /// Full git commit hash delaybench was built from, or `unknown` (built without .git).
    pub git_revision: String,
    /// True when tracked files differed from that commit at build time; `None` unknown.
    pub git_dirty: Option<bool>,
    /// The user's `--tag key=value` pairs, in the order given.
    pub tags: Vec<Tag>,
    /// Per host, in order of its first rank (rank 0's host first): the machine as that
    /// host's first rank saw it.
    pub machines: Vec<Machine>,
}

/// One host as its first rank saw it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Machine {
    /// Host name (`MPI_Get_processor_name`), as in the header's `hosts`.
    pub host: String,
    /// `uname`: system, release, version and machine, e.g. `Linux 6.1.0-18-amd64 #1 SMP ... x86_64`.
    pub kernel: String,
    /// CPU model (`model name` of `/proc/cpuinfo`), or empty when unknown.
    pub cpu_model: String,
    /// Physical cores (distinct `physical id`, `core id` pairs of `/proc/cpuinfo`); 0 when unknown.
    pub cores_physical: u32,
    /// Logical CPUs online (`sysconf(_SC_NPROCESSORS_ONLN)`); 0 when unknown.
    pub cores_logical: u32,
    /// The environment variables whose names start with one of [`ENV_PREFIXES`], by name.
    pub env: BTreeMap<String, String>,
    /// Transparent huge pages: the selected mode of
    /// `/sys/kernel/mm/transparent_hugepage/enabled` (`always`, `madvise`, `never`), empty
    /// when unknown or in files written before it was recorded.
    #[serde(default)]
    pub thp: String,
}

/// Tags in one cell: `key=value` joined with `;`, in the order given (empty for none).
pub fn tags_cell(tags: &[Tag]) -> String {
    tags.iter()
        .map(Tag::to_string)
        .collect::<Vec<_>>()
        .join(";")
}

impl Provenance {
    /// The provenance of a run starting now: a fresh run id, this build's revision, `tags`
    /// and the `machines` gathered from the hosts.
    pub fn new(tags: Vec<Tag>, machines: Vec<Machine>) -> Provenance {
        Provenance {
            run_id: uuid::Uuid::new_v4().to_string(),
            git_revision: crate::build_info::git_revision().into(),
            git_dirty: crate::build_info::git_dirty(),
            tags,
            machines,
        }
    }

    /// The revision in one word: the hash, `-dirty` after it when the build was dirty, or
    /// `unknown` (also for files written before it was recorded).
    pub fn revision_word(&self) -> String {
        match (self.git_revision.as_str(), self.git_dirty) {
            ("", _) => "unknown".into(),
            (rev, Some(true)) => format!("{rev}-dirty"),
            (rev, _) => rev.into(),
        }
    }
}

impl Machine {
    /// This process's machine, on host `host`, with the recorded part of `env`.
    pub fn here(host: &str, env: impl IntoIterator<Item = (String, String)>) -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let (cpu_model, cores_physical) = cpu_from_cpuinfo(&cpuinfo);
        // SAFETY: sysconf only reads a system setting.
        let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
        Machine {
            host: host.into(),
            kernel: uname(),
            cpu_model,
            cores_physical,
            cores_logical: u32::try_from(online).unwrap_or(0),
            env: recorded_env(env),
            thp: selected_mode(
                &std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
                    .unwrap_or_default(),
            ),
        }
    }
}

/// The bracketed choice of a sysfs mode list (`always [madvise] never` → `madvise`), empty
/// when none is bracketed.
fn selected_mode(list: &str) -> String {
    list.split_whitespace()
        .find_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(']')))
        .unwrap_or_default()
        .to_string()
}

/// What tells one launch from another on every row of `analyze` and `export`, from its header:
/// pooled and concatenated tables keep them apart in a dataframe.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunLabel {
    /// [`Provenance::run_id`]; for files written before it, `<UTC start>-<seed>`.
    pub run_id: String,
    /// The MPI library in one line ([`library_line`]).
    pub mpi_library: String,
    /// Per world rank: its host name.
    pub hosts: Vec<String>,
    /// The run's distinct hosts as a folded host list (`node[01-16]`,
    /// [`super::host_list::folded`]).
    pub host_names: String,
    /// The tags ([`tags_cell`]: `key=value` joined with `;`).
    pub tags: String,
}

impl RunLabel {
    /// The label of the run whose header is `h`.
    pub fn of(h: &super::Header) -> RunLabel {
        let run_id = if h.provenance.run_id.is_empty() {
            format!("{}-{}", h.start_utc, h.plan.seed)
        } else {
            h.provenance.run_id.clone()
        };
        RunLabel {
            run_id,
            mpi_library: library_line(&h.mpi_library),
            host_names: super::host_list::folded(&h.hosts),
            hosts: h.hosts.clone(),
            tags: tags_cell(&h.provenance.tags),
        }
    }

    /// The host of rank `rank` of a block whose world ranks are `world_ranks` (empty: world
    /// ranks 0..P-1); empty when the header does not name it.
    pub fn host_of(&self, world_ranks: &[u32], rank: usize) -> &str {
        let world = world_ranks.get(rank).map_or(rank, |&w| w as usize);
        self.hosts.get(world).map_or("", String::as_str)
    }
}

/// `MPI_Get_library_version`'s text (the header's `mpi_library`) in one line: its first
/// line, without the NUL terminators some libraries leave in it or any other control
/// character, runs of white space (MPICH puts a tab after `Version:`) as one space. Every
/// place that prints or writes the library uses this line, so no output carries a NUL.
pub fn library_line(mpi_library: &str) -> String {
    printable(mpi_library.lines().next().unwrap_or(""))
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` without control characters (NUL, escape, carriage return, ...) except line feeds
/// and tabs: strings a library hands over (MPI_T names and descriptions, the version text)
/// may carry their C terminators, which make `file` call a text output data and `grep` call
/// it binary.
pub fn printable(text: &str) -> String {
    text.chars()
        .filter(|&c| !c.is_control() || c == '\n' || c == '\t')
        .collect()
}

/// Parts of a variable's name that mark a credential or an address rather than a setting:
/// Open MPI's per-job transport key (`OMPI_MCA_orte_precondition_transports`, which PSM and
/// OFI providers use to tell jobs apart), anything named a key, secret, token, password or
/// credential, and the launch's addresses (`OMPI_MCA_orte_hnp_uri`, `PMIX_SERVER_URI21`,
/// `PMI_PORT`, `SLURM_SRUN_COMM_PORT`). A records file is meant to be shared, so their values
/// are not kept; the addresses also say nothing about how the library was configured.
pub const ENV_REDACTED_NAME_PARTS: [&str; 8] = [
    "TRANSPORTS",
    "KEY",
    "SECRET",
    "TOKEN",
    "PASSWORD",
    "CRED",
    "_URI",
    "_PORT",
];

/// What a redacted variable's value reads as in the header.
pub const REDACTED: &str = "(redacted)";

/// The variables of `env` whose names start with one of [`ENV_PREFIXES`]; the values of
/// those whose names contain one of [`ENV_REDACTED_NAME_PARTS`] (any case), or that hold a
/// network address ([`holds_address`]), read [`REDACTED`], so the name still says that the
/// variable was set.
pub fn recorded_env(env: impl IntoIterator<Item = (String, String)>) -> BTreeMap<String, String> {
    env.into_iter()
        .filter(|(k, _)| ENV_PREFIXES.iter().any(|p| k.starts_with(p)))
        .map(|(k, v)| {
            let upper = k.to_ascii_uppercase();
            if ENV_REDACTED_NAME_PARTS
                .iter()
                .any(|part| upper.contains(part))
                || holds_address(&v)
            {
                (k, REDACTED.to_string())
            } else {
                (k, v)
            }
        })
        .collect()
}

/// True when `value` holds a network address of the launch: a URI (`tcp://`, `tcp4://`), an
/// IPv4 or IPv6 address (as the standard library parses them, alone or before a port), or a
/// `host:port` whose host is a host name with a letter (`node0:39187`). Device and port pairs
/// such as UCX's `mlx5_0:1` are settings, not addresses: a host name has no `_`.
pub fn holds_address(value: &str) -> bool {
    if value.contains("://") {
        return true;
    }
    let is_separator = |c: char| !(c.is_ascii_alphanumeric() || ".:-_[]%".contains(c));
    value
        .split(is_separator)
        .filter(|t| !t.is_empty())
        .any(address_token)
}

/// One word of a value (no spaces, commas, `;`, `=` or `/`): an IP address, `IP:port`,
/// `[IPv6]:port` or `host:port`.
fn address_token(token: &str) -> bool {
    use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
    if token.parse::<Ipv6Addr>().is_ok() || token.parse::<SocketAddr>().is_ok() {
        return true;
    }
    if token
        .split(':')
        .any(|part| part.parse::<Ipv4Addr>().is_ok())
    {
        return true;
    }
    let Some((host, port)) = token.rsplit_once(':') else {
        return false;
    };
    let host_name = !host.is_empty()
        && host.chars().any(|c| c.is_ascii_alphabetic())
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    host_name && !port.is_empty() && port.len() <= 5 && port.parse::<u16>().is_ok()
}

/// The CPU model and the number of physical cores from the text of `/proc/cpuinfo`: the
/// first `model name` (x86; `cpu model`, `Model name` or `Processor` elsewhere) and the
/// distinct (`physical id`, `core id`) pairs. A file without core ids (some ARM and virtual
/// machines) gives 0 cores: unknown rather than a guess.
pub fn cpu_from_cpuinfo(text: &str) -> (String, u32) {
    let mut model = String::new();
    let mut cores = std::collections::BTreeSet::new();
    let mut physical = String::new();
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        match k {
            "model name" | "cpu model" | "Model name" | "Processor" if model.is_empty() => {
                model = v.to_string();
            }
            "physical id" => physical = v.to_string(),
            "core id" => {
                cores.insert((physical.clone(), v.to_string()));
            }
            _ => {}
        }
    }
    (model, cores.len() as u32)
}

/// `uname -srvm` of this machine, or empty when it cannot be read.
fn uname() -> String {
    // SAFETY: uname fills the zeroed struct; its fields are NUL-terminated C strings.
    unsafe {
        let mut u: libc::utsname = std::mem::zeroed();
        if libc::uname(&mut u) != 0 {
            return String::new();
        }
        let field = |f: &[libc::c_char]| {
            std::ffi::CStr::from_ptr(f.as_ptr())
                .to_string_lossy()
                .into_owned()
        };
        [
            field(&u.sysname),
            field(&u.release),
            field(&u.version),
            field(&u.machine),
        ]
        .join(" ")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bracketed_huge_page_mode_is_the_selected_one() {
        assert_eq!(selected_mode("always [madvise] never\n"), "madvise");
        assert_eq!(selected_mode("[always] madvise never"), "always");
        assert_eq!(selected_mode(""), "");
    }

    use super::*;

    #[test]
    fn tags_parse_and_refuse_what_cannot_be_recorded() {
        let t: Tag = "system=cluster a".parse().unwrap();
        assert_eq!((t.key.as_str(), t.value.as_str()), ("system", "cluster a"));
        assert_eq!(t.to_string(), "system=cluster a");
        // The value may hold `=`: only the first one splits.
        let t: Tag = "opt=a=b".parse().unwrap();
        assert_eq!(t.value, "a=b");
        assert_eq!(
            "novalue".parse::<Tag>(),
            Err(TagError::NoEquals("novalue".into()))
        );
        assert_eq!("=x".parse::<Tag>(), Err(TagError::BadKey("".into())));
        assert_eq!("a b=x".parse::<Tag>(), Err(TagError::BadKey("a b".into())));
        assert_eq!("k=a;b".parse::<Tag>(), Err(TagError::BadValue("k".into())));
        let tags: Vec<Tag> = ["a=1", "b=2"].iter().map(|s| s.parse().unwrap()).collect();
        assert_eq!(check_tags(&tags), Ok(()));
        assert_eq!(tags_cell(&tags), "a=1;b=2");
        let twice: Vec<Tag> = ["a=1", "a=2"].iter().map(|s| s.parse().unwrap()).collect();
        assert_eq!(check_tags(&twice), Err(TagError::Duplicate("a".into())));
    }

    #[test]
    fn only_mpi_ucx_pmi_and_slurm_variables_are_kept() {
        let env = [
            ("OMPI_MCA_btl", "self,vader"),
            ("MPIR_CVAR_ASYNC_PROGRESS", "1"),
            ("UCX_TLS", "rc,sm"),
            ("PMIX_RANK", "0"),
            ("PMI_SIZE", "4"),
            ("SLURM_JOB_ID", "42"),
            ("I_MPI_PIN", "1"),
            ("HOME", "/root"),
            ("PATH", "/bin"),
            ("MY_OMPI_X", "no"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let kept = recorded_env(env);
        let names: Vec<&str> = kept.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "I_MPI_PIN",
                "MPIR_CVAR_ASYNC_PROGRESS",
                "OMPI_MCA_btl",
                "PMIX_RANK",
                "PMI_SIZE",
                "SLURM_JOB_ID",
                "UCX_TLS"
            ]
        );
        assert_eq!(kept["UCX_TLS"], "rc,sm");
    }

    #[test]
    fn credentials_are_named_but_not_kept() {
        let env = [
            ("OMPI_MCA_orte_precondition_transports", "0123abcd-4567ef00"),
            ("SLURM_JOB_TOKEN", "s3cret"),
            ("OMPI_MCA_btl", "self,vader"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let kept = recorded_env(env);
        assert_eq!(kept["OMPI_MCA_orte_precondition_transports"], REDACTED);
        assert_eq!(kept["SLURM_JOB_TOKEN"], REDACTED);
        assert_eq!(kept["OMPI_MCA_btl"], "self,vader");
    }

    #[test]
    fn launch_addresses_and_ports_are_named_but_not_kept() {
        let env = [
            (
                "OMPI_MCA_orte_hnp_uri",
                "2381905920.0;tcp://10.0.0.5,172.17.0.1:41231",
            ),
            (
                "PMIX_SERVER_URI21",
                "pmix-server.4242;tcp4://127.0.0.1:39187",
            ),
            (
                "PMIX_SERVER_URI4",
                "pmix-server.4242;tcp4://127.0.0.1:39187",
            ),
            ("PMI_PORT", "node0:36129"),
            ("SLURM_SRUN_COMM_PORT", "41427"),
            ("SLURM_LAUNCH_NODE_IPADDR", "192.168.1.20"),
            ("SLURM_SRUN_COMM_HOST", "fe80::1"),
            ("HYDRA_CONTROL", "n01.example.org:4000"),
            ("I_MPI_HYDRA_HOST", "[2001:db8::2]:5000"),
            ("OMPI_MCA_btl", "self,vader"),
            ("UCX_NET_DEVICES", "mlx5_0:1"),
            ("SLURM_CPU_BIND", "quiet,mask_cpu:0x3"),
            ("SLURM_JOB_NODELIST", "node[01-04]"),
            ("OMPI_MCA_orte_ess_num_procs", "2"),
            ("MPICH_VERSION", "4.0.2"),
            ("OMPI_MCA_mpi_security", "0:1"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let kept = recorded_env(env);
        for name in [
            "OMPI_MCA_orte_hnp_uri",
            "PMIX_SERVER_URI21",
            "PMIX_SERVER_URI4",
            "PMI_PORT",
            "SLURM_SRUN_COMM_PORT",
            "SLURM_LAUNCH_NODE_IPADDR",
            "SLURM_SRUN_COMM_HOST",
            "HYDRA_CONTROL",
            "I_MPI_HYDRA_HOST",
        ] {
            assert_eq!(kept[name], REDACTED, "{name}");
        }
        for (name, value) in [
            ("OMPI_MCA_btl", "self,vader"),
            ("UCX_NET_DEVICES", "mlx5_0:1"),
            ("SLURM_CPU_BIND", "quiet,mask_cpu:0x3"),
            ("SLURM_JOB_NODELIST", "node[01-04]"),
            ("OMPI_MCA_orte_ess_num_procs", "2"),
            ("MPICH_VERSION", "4.0.2"),
            ("OMPI_MCA_mpi_security", "0:1"),
        ] {
            assert_eq!(kept[name], value, "{name}");
        }
    }

    #[test]
    fn run_label_of_new_and_old_headers() {
        let mut h = crate::records::testdata::header(3);
        h.hosts = vec!["a".into(), "b".into(), "a".into()];
        h.mpi_library = "Open MPI v4.1.4\0".into();
        let l = RunLabel::of(&h);
        assert_eq!(l.run_id, "00000000-0000-4000-8000-000000000007");
        assert_eq!(
            (l.mpi_library.as_str(), l.tags.as_str()),
            ("Open MPI v4.1.4", "system=test")
        );
        assert_eq!(l.host_names, "a,b");
        assert_eq!(l.host_of(&[], 1), "b");
        assert_eq!(l.host_of(&[2, 1], 0), "a");
        assert_eq!(l.host_of(&[], 9), "");
        // Written before provenance: the old id from start time and seed.
        h.provenance = Provenance::default();
        assert_eq!(RunLabel::of(&h).run_id, "2026-01-01T00:00:00Z-7");
        assert_eq!(RunLabel::of(&h).tags, "");
    }

    #[test]
    fn library_line_drops_nuls_and_later_lines() {
        assert_eq!(
            library_line("Open MPI v4.1.4, package: Debian\0\n"),
            "Open MPI v4.1.4, package: Debian"
        );
        assert_eq!(
            library_line("MPICH Version:\t4.0.2\nMPICH Release date: x"),
            "MPICH Version: 4.0.2"
        );
        assert_eq!(library_line(""), "");
        assert_eq!(
            library_line("\0Open\x1b[1m MPI\r\x07 v5\0"),
            "Open[1m MPI v5"
        );
        assert_eq!(printable("a\0b\tc\nd\x7fe\u{9b}"), "ab\tc\nde");
    }

    #[test]
    fn cpu_model_and_physical_cores_from_cpuinfo() {
        // Two sockets, two cores each, two hardware threads per core: 8 logical, 4 physical.
        let mut text = String::new();
        for (socket, core) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
            for _thread in 0..2 {
                text += &format!(
                    "processor\t: x\nmodel name\t: Example CPU @ 2.0GHz\nphysical id\t: {socket}\n\
                     core id\t\t: {core}\n\n"
                );
            }
        }
        assert_eq!(
            cpu_from_cpuinfo(&text),
            ("Example CPU @ 2.0GHz".to_string(), 4)
        );
        // No core ids: the count is unknown, not guessed.
        assert_eq!(
            cpu_from_cpuinfo("processor : 0\nProcessor : ARMv8\n"),
            ("ARMv8".to_string(), 0)
        );
    }

    #[test]
    fn this_machine_is_described_and_a_run_id_is_fresh() {
        let m = Machine::here("h", std::env::vars());
        assert_eq!(m.host, "h");
        assert!(!m.kernel.is_empty());
        assert!(m.cores_logical >= 1);
        let (a, b) = (
            Provenance::new(vec![], vec![]),
            Provenance::new(vec![], vec![]),
        );
        assert_ne!(a.run_id, b.run_id);
        assert_eq!(a.run_id.len(), 36);
        assert_eq!(Provenance::default().revision_word(), "unknown");
    }
}
