//! Whom each member waits for inside a collective, by the library's algorithm: one table
//! entry per schedule (as ReproMPI lists its algorithms, Hunold and Carpen-Amarie 2016), and
//! the dependency graph each one's messages make.
//!
//! A member k of a collective leaves when the messages it needs have reached it. Along a
//! reduce tree those come from its subtree (the root's from every member, an interior
//! rank's from its children's subtrees), along a broadcast tree from its ancestors, and in
//! every algorithm of an N×N operation (ring, recursive doubling, Rabenseifner's, linear)
//! from every member: the result needs every contribution (Thakur, Rabenseifner and Gropp
//! 2005). So the member that held k inside the call is the one of those it depends on that
//! entered last ([`super::inside`], `cause_basis` `algorithm`). Where no entry fits (another
//! library or version, a size or P outside the ranges read, a variable that changes the
//! choice), the waiting keeps the instance's last entrant (`last_entrant`).
//!
//! The entries come from the libraries' own sources, read for the versions named:
//! - Open MPI 4.1 (`coll_tuned_decision_fixed.c`, `coll_base_topo.c`): the fixed decision
//!   for a commutative reduce picks `binary` (algorithm 4) below 4096 B at P = 4–7 and below
//!   8192 B at P = 8–15, the tree `ompi_coll_base_topo_build_tree(2, …)` builds: level by
//!   level from the root (shifted rank 0; level l holds 2^l ranks), the children of shifted
//!   rank s at level l are s + 2^l and s + 2·2^l (on 4 ranks 3 → 1 → 0 and 2 → 0). Setting
//!   `coll_tuned_use_dynamic_rules` with `coll_tuned_allreduce_algorithm` 4 forces the ring
//!   allreduce.
//! - MPICH 4.0 (`maint/tuning/coll/ch4/*.json`, `posix/release_gather`): on one node a
//!   commutative reduce up to 2048 B goes to the shared-memory `release_gather` reduce, a
//!   k-ary tree with k = `MPIR_CVAR_REDUCE_INTRANODE_TREE_KVAL` (4): the children of r are
//!   4r + 1 … 4r + 4. MPICH 4.0 has no ring allreduce to force: Debian's 4.0.2 aborts in
//!   `MPI_Init` with "Invalid MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM value (ring)" (its values
//!   are auto, nb, smp, recursive_doubling and reduce_scatter_allgather).
//!
//! No bcast is listed, though both libraries' small bcasts are trees by their sources (Open
//! MPI 4.1's `binary_tree` below 64 B at P = 4–7, MPICH 4.0's 64-ary `release_gather`), in
//! which the root depends on no one: measured, Open MPI 4.1.4's root of an 8 B bcast on 4
//! and 8 ranks of a loaded 2-core node left late when a rank was late, and with those
//! entries the late rank was named at 4 of 19 and 8 of 25 of the following allreduces
//! where the last entrant named 12 of 19 and 24 of 25 (the same captures). Until that is
//! understood a bcast keeps the last entrant; [`depends_on`] has the bcast's direction (the
//! ancestors) for when it is.
//!
//! A capture does not record the reduction's operation: the entries for a reduce assume it
//! is commutative, as every predefined operation on the predefined types is (MPI Forum 2021,
//! §6.9.2).

use crate::capture::{CaptureOp, Instance, RankCapture};
use crate::plan::algorithms::Library;
use std::collections::{BTreeMap, BTreeSet};

/// The shape of an algorithm's messages, ranks relative to the root (shifted rank 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Open MPI's k-ary tree, built level by level (`ompi_coll_base_topo_build_tree`): shifted
    /// rank s at level l (levels hold k^l ranks) has the children s + i·k^l, i = 1 … k.
    LevelTree(usize),
    /// The k-ary tree of MPICH's tree algorithms (`MPIR_Treealgo`, type `kary`): the children
    /// of shifted rank r are k·r + 1 … k·r + k.
    Kary(usize),
    /// Every member's result needs every member's contribution (ring, recursive doubling,
    /// Rabenseifner's, reduce then broadcast).
    Everyone,
}

/// When a schedule is the one the library ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// The library's own choice for P in `p` (inclusive) and the lowest communicator rank's
    /// bytes in `bytes` (inclusive), when no recorded variable names the operation;
    /// `one_node`: only when every member is on one host.
    Default {
        /// Communicator sizes, inclusive.
        p: (usize, usize),
        /// Bytes, inclusive.
        bytes: (u64, u64),
        /// Only when every member runs on one host.
        one_node: bool,
    },
    /// Forced by the environment: every (variable, value) pair set, values compared as the
    /// library reads them (a number, or the algorithm's name).
    Forced(Forcing),
}

/// One schedule: a library's algorithm for one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    /// The library.
    pub library: Library,
    /// Its version, major and minor, as `MPI_Get_library_version` gives it.
    pub version: (u32, u32),
    /// The operation (blocking form only).
    pub op: CaptureOp,
    /// The algorithm's name in the library.
    pub algorithm: &'static str,
    /// When the library runs it.
    pub when: When,
    /// Its messages.
    pub shape: Shape,
}

/// Variables and the values (any of them) that force an algorithm.
pub type Forcing = &'static [(&'static str, &'static [&'static str])];

/// Open MPI's forcing of its tuned component's allreduce algorithm 4, `ring`.
const OMPI_RING: Forcing = &[
    (
        "OMPI_MCA_coll_tuned_use_dynamic_rules",
        &["1", "true", "yes"],
    ),
    ("OMPI_MCA_coll_tuned_allreduce_algorithm", &["4", "ring"]),
];
/// Open MPI 4.1's fixed decision for a commutative reduce on `p` ranks below `below` bytes:
/// `binary` (module docs).
const fn open_mpi_binary_reduce(p: (usize, usize), below: u64) -> Schedule {
    Schedule {
        library: Library::OpenMpi,
        version: (4, 1),
        op: CaptureOp::Reduce,
        algorithm: "binary",
        when: When::Default {
            p,
            bytes: (0, below - 1),
            one_node: false,
        },
        shape: Shape::LevelTree(2),
    }
}

/// The ring allreduce `library` runs when `forced`.
const fn ring_allreduce(library: Library, version: (u32, u32), forced: Forcing) -> Schedule {
    Schedule {
        library,
        version,
        op: CaptureOp::Allreduce,
        algorithm: "ring",
        when: When::Forced(forced),
        shape: Shape::Everyone,
    }
}

/// Every schedule delaybench knows (module docs).
pub const SCHEDULES: &[Schedule] = &[
    open_mpi_binary_reduce((4, 7), 4096),
    open_mpi_binary_reduce((8, 15), 8192),
    ring_allreduce(Library::OpenMpi, (4, 1), OMPI_RING),
    Schedule {
        library: Library::Mpich,
        version: (4, 0),
        op: CaptureOp::Reduce,
        algorithm: "release_gather",
        when: When::Default {
            p: (2, 65),
            bytes: (0, 2048),
            one_node: true,
        },
        shape: Shape::Kary(4),
    },
];
/// What a capture recorded of its MPI library (capture format 2): the context in which a
/// schedule is looked up.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Runtime {
    /// The library and its version (major, minor); None when the capture did not record it
    /// (format 1, OTF2) or its text names neither library.
    pub library: Option<(Library, (u32, u32))>,
    /// The algorithm variables the environment set, name to value.
    pub variables: BTreeMap<String, String>,
    /// Each world rank's host.
    pub hosts: BTreeMap<u32, String>,
}

/// The library and version in `MPI_Get_library_version`'s text: Open MPI's "Open MPI
/// v4.1.4, …", MPICH's "MPICH Version:\t4.0.2 …". None for another library.
pub fn library_version(text: &str) -> Option<(Library, (u32, u32))> {
    let library = Library::of_version(text);
    let rest = match library {
        Library::OpenMpi => text.split_once("Open MPI v")?.1,
        Library::Mpich => text.split_once("MPICH Version:")?.1.trim_start(),
        Library::Other => return None,
    };
    let mut parts = rest.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((library, (major, minor)))
}

impl Runtime {
    /// From rank 0's header (every rank runs the same library) and every rank's host.
    pub fn of(captures: &[RankCapture]) -> Runtime {
        let first = captures.iter().min_by_key(|c| c.header.rank);
        Runtime {
            library: first
                .and_then(|c| c.header.mpi_library.as_deref())
                .and_then(library_version),
            variables: first
                .map(|c| c.header.algorithm_variables.clone())
                .unwrap_or_default(),
            hosts: captures
                .iter()
                .map(|c| (c.header.rank, c.header.host.clone()))
                .collect(),
        }
    }

    /// Whether a recorded variable names `op` (`…_reduce_…` for a reduce, not for an
    /// allreduce): then the library's own choice may not be its default.
    fn names(&self, op: CaptureOp) -> bool {
        let word = format!("_{}_", op.name());
        self.variables
            .keys()
            .any(|k| k.to_ascii_lowercase().contains(&word))
    }

    /// The schedule the library ran for `inst`, None when no entry fits.
    pub fn schedule(&self, inst: &Instance) -> Option<&'static Schedule> {
        let (library, version) = self.library?;
        let p = inst.entries.len();
        let one_node = || {
            let hosts: BTreeSet<_> = inst
                .entries
                .iter()
                .map(|e| self.hosts.get(&e.world_rank))
                .collect();
            hosts.len() == 1 && !hosts.contains(&None)
        };
        SCHEDULES.iter().find(|s| {
            s.library == library
                && s.version == version
                && s.op == inst.op
                && match s.when {
                    When::Default {
                        p: (lo, hi),
                        bytes: (b0, b1),
                        one_node: node,
                    } => {
                        (lo..=hi).contains(&p)
                            && (b0..=b1).contains(&inst.bytes)
                            && !self.names(inst.op)
                            && (!node || one_node())
                    }
                    When::Forced(pairs) => pairs.iter().all(|(var, values)| {
                        self.variables
                            .get(*var)
                            .is_some_and(|v| values.iter().any(|x| v.eq_ignore_ascii_case(x)))
                    }),
                }
        })
    }
}

/// The parent of shifted rank `s` in `shape` on `p` ranks (None for the root and for
/// [`Shape::Everyone`]).
fn parent(shape: Shape, s: usize) -> Option<usize> {
    if s == 0 {
        return None;
    }
    match shape {
        Shape::LevelTree(k) => {
            // Level l spans [first(l), first(l) + k^l); the parent sits k^(l−1) ranks apart
            // per level up, as the builder subtracts delta / fanout until inside the levels above.
            let (mut first, mut width) = (0usize, 1usize);
            while s >= first + width {
                first += width;
                width *= k;
            }
            let step = width / k;
            let mut up = s;
            while up >= first {
                up -= step;
            }
            Some(up)
        }
        Shape::Kary(k) => Some((s - 1) / k),
        Shape::Everyone => None,
    }
}

/// The members (by communicator rank) that member `k` of `inst` depends on inside the call
/// under `schedule`: its subtree for a reduce, its ancestors for a bcast, every other member
/// for [`Shape::Everyone`]. Unordered.
pub fn depends_on(schedule: &Schedule, inst: &Instance, k: usize) -> Vec<usize> {
    let p = inst.entries.len();
    if schedule.shape == Shape::Everyone {
        return (0..p).filter(|&j| j != k).collect();
    }
    let root = usize::try_from(inst.root).unwrap_or(0) % p.max(1);
    let shift = |r: usize| (r + p - root) % p;
    let unshift = |s: usize| (s + root) % p;
    let ancestors = |mut s: usize| {
        let mut up = Vec::new();
        while let Some(a) = parent(schedule.shape, s) {
            up.push(a);
            s = a;
        }
        up
    };
    let me = shift(k);
    match schedule.op {
        CaptureOp::Bcast => ancestors(me).into_iter().map(unshift).collect(),
        _ => (0..p)
            .filter(|&s| s != me && ancestors(s).contains(&me))
            .map(unshift)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::Entry;

    fn inst(op: CaptureOp, p: usize, root: i32, bytes: u64) -> Instance {
        Instance {
            site: "app+0x10".into(),
            site_label: "app+0x10".into(),
            comm: 1,
            op,
            bytes,
            root,
            index: 0,
            entries: (0..p)
                .map(|r| Entry {
                    world_rank: r as u32,
                    comm_rank: r as u32,
                    enter_s: 0.0,
                    exit_s: 0.0,
                    counts_hash: None,
                })
                .collect(),
        }
    }

    fn parents(shape: Shape, p: usize) -> Vec<Option<usize>> {
        (0..p).map(|s| parent(shape, s)).collect()
    }

    #[test]
    fn open_mpi_binary_tree_is_built_level_by_level() {
        // ompi_coll_base_topo_build_tree(2): 0 → 1, 2; 1 → 3, 5; 2 → 4, 6; 3 → 7.
        assert_eq!(
            parents(Shape::LevelTree(2), 8),
            [
                None,
                Some(0),
                Some(0),
                Some(1),
                Some(2),
                Some(1),
                Some(2),
                Some(3)
            ]
        );
        // Level 3 (7 … 14): 7 → 3, 11 → 3, 8 → 4, 12 → 4.
        assert_eq!(parent(Shape::LevelTree(2), 11), Some(3));
        assert_eq!(parent(Shape::LevelTree(2), 12), Some(4));
    }

    #[test]
    fn mpich_kary_tree_has_children_kr_plus_one_to_kr_plus_k() {
        assert_eq!(
            parents(Shape::Kary(4), 8),
            [
                None,
                Some(0),
                Some(0),
                Some(0),
                Some(0),
                Some(1),
                Some(1),
                Some(1)
            ]
        );
    }

    #[test]
    fn a_reduce_member_depends_on_its_subtree_and_a_bcast_member_on_its_ancestors() {
        let s = |op| {
            SCHEDULES
                .iter()
                .find(|s| s.op == op && s.library == Library::OpenMpi)
        };
        let reduce = inst(CaptureOp::Reduce, 8, 0, 8);
        let mut d = depends_on(s(CaptureOp::Reduce).unwrap(), &reduce, 1);
        d.sort();
        assert_eq!(d, [3, 5, 7]);
        assert_eq!(
            depends_on(s(CaptureOp::Reduce).unwrap(), &reduce, 7),
            [0usize; 0]
        );
        // A bcast over the same tree (no table entry: module docs).
        let bcast_tree = Schedule {
            op: CaptureOp::Bcast,
            ..*s(CaptureOp::Reduce).unwrap()
        };
        let bcast = inst(CaptureOp::Bcast, 8, 0, 8);
        assert_eq!(depends_on(&bcast_tree, &bcast, 7), [3, 1, 0]);
        // Root 2 on 4 ranks: shifted ranks 0 1 2 3 are ranks 2 3 0 1; 1 (shifted 3) → 3 → 2.
        let rooted = inst(CaptureOp::Bcast, 4, 2, 8);
        assert_eq!(depends_on(&bcast_tree, &rooted, 1), [3, 2]);
        assert_eq!(s(CaptureOp::Bcast), None);
    }

    #[test]
    fn the_library_text_and_the_environment_choose_the_schedule() {
        assert_eq!(
            library_version("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4"),
            Some((Library::OpenMpi, (4, 1)))
        );
        assert_eq!(
            library_version("MPICH Version:\t4.0.2\nMPICH Release date: …"),
            Some((Library::Mpich, (4, 0)))
        );
        assert_eq!(library_version("Intel(R) MPI Library 2021.6"), None);
        let mut rt = Runtime {
            library: Some((Library::OpenMpi, (4, 1))),
            ..Runtime::default()
        };
        let reduce = inst(CaptureOp::Reduce, 4, 0, 8);
        assert_eq!(rt.schedule(&reduce).map(|s| s.algorithm), Some("binary"));
        assert_eq!(rt.schedule(&inst(CaptureOp::Reduce, 4, 0, 4096)), None);
        assert_eq!(rt.schedule(&inst(CaptureOp::Reduce, 16, 0, 8)), None);
        let allreduce = inst(CaptureOp::Allreduce, 4, -1, 8192);
        assert_eq!(rt.schedule(&allreduce), None);
        for (k, v) in OMPI_RING {
            rt.variables.insert((*k).into(), v[0].into());
        }
        assert_eq!(rt.schedule(&allreduce).map(|s| s.algorithm), Some("ring"));
        // An allreduce variable leaves the reduce's default standing; a reduce one does not.
        assert!(rt.schedule(&reduce).is_some());
        rt.variables
            .insert("OMPI_MCA_coll_tuned_reduce_algorithm".into(), "1".into());
        assert_eq!(rt.schedule(&reduce), None);
        // MPICH's shared-memory trees only on one node.
        let mut mpich = Runtime {
            library: Some((Library::Mpich, (4, 0))),
            ..Runtime::default()
        };
        assert_eq!(mpich.schedule(&reduce), None);
        mpich.hosts = (0..4).map(|r| (r, "n1".to_string())).collect();
        assert_eq!(
            mpich.schedule(&reduce).map(|s| s.shape),
            Some(Shape::Kary(4))
        );
        mpich.hosts.insert(3, "n2".into());
        assert_eq!(mpich.schedule(&reduce), None);
    }
}
