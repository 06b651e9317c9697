//! The registry of collective kernels: one entry per kernel says its name, its [`Family`],
//! whether it is the nonblocking form, and (through the family) the buffers it needs.
//!
//! Everything that has to know the kernels reads this registry instead of listing them again:
//! the plan and the CLI's default `--ops` ([`Op::ALL`]), the memory and count checks of
//! `plan::checks` ([`Buffers`]), the figures' colours and order ([`Family::color`],
//! [`Family::index`]). Plain Rust without MPI; the MPI calls of each family live in
//! `run::kernels`, which matches on [`Family`] exhaustively, so a family without them does not
//! compile.
//!
//! Adding a kernel: a line in the `kernels!` invocation below (which declares the `Op`
//! variant, [`Op::ALL`] and the registry entry together, so they cannot disagree) and, for a
//! new family, a [`Family`] variant with its colour and buffers plus one file of MPI calls
//! under `run/kernels/`.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// A family of kernels: one collective operation, in its blocking form and its MPI-3
/// nonblocking form. Members share buffers, colour and the MPI calls' arguments.
///
/// The `Ref*` families are reference allreduce algorithms written on MPI point-to-point
/// (`run/kernels/reference.rs`, docs/reference-algorithms.md): blocking only, one family
/// each, so each has its own colour and its own t_global panel. They sit right after the
/// library's allreduce, which they are compared with.
///
/// Families are listed in the order figures show them ([`Family::index`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    /// Ring allreduce (reduce-scatter, then allgather) in rank order.
    RefRing,
    /// Binomial-tree reduce to rank 0, then binomial-tree broadcast.
    RefBinomial,
    /// Proficz (2018): a linear reduction along the estimated arrival order, then a broadcast
    /// from the last arriver; the order is the one observed in the previous call.
    RefSortedLinearTree,
    /// Proficz (2018): the early arrivers reduce-scatter among themselves, the last arriver's
    /// data is reduced into their blocks, then the blocks are gathered; order as above.
    RefPrereducedRing,
    /// The sorted linear tree on the planned arrival order of the repetition (ranks sorted by
    /// their drawn delay), which only a benchmark knows in advance: the clairvoyant reference.
    RefClairvoyant,
    Alltoall,
    /// `MPI_Allgather`: every rank's block to every rank.
    Allgather,
    /// `MPI_Gather` to rank 0.
    Gather,
    /// `MPI_Scatter` from rank 0.
    Scatter,
    /// `MPI_Reduce_scatter_block`: f64 sums, one block to each rank.
    ReduceScatterBlock,
    /// `MPI_Scan`: inclusive prefix sums of f64.
    Scan,
    /// `MPI_Exscan`: exclusive prefix sums of f64.
    Exscan,
    /// `MPI_Allgatherv`: each rank's block, of its own count, to every rank.
    Allgatherv,
    /// `MPI_Gatherv` to rank 0, a count per rank.
    Gatherv,
    /// `MPI_Scatterv` from rank 0, a count per rank.
    Scatterv,
    /// `MPI_Alltoallv`: a count per (sender, receiver) pair.
    Alltoallv,
}

impl Family {
    /// The blocking kernel of the family, whose name names the family (`allreduce`).
    pub fn blocking(self) -> Op {
        Op::ALL
            .into_iter()
            .find(|op| op.family() == self && op.form() == Form::Blocking)
            .expect("every family has a blocking kernel (a registry test checks)")
    }

    /// Position among the families, for figure order: barrier 0, bcast 1, ...
    pub fn index(self) -> usize {
        self as usize
    }

    /// Line and marker colour (RGB) shared by the family's kernels in every figure.
    ///
    /// Okabe–Ito colours, distinguishable with the common colour-vision deficiencies. Orange and vermillion are the closest pair, so orange goes to the
    /// barriers, which have a panel of their own and never meet the vermillion allreduce. A
    /// test checks that no two families share a colour.
    pub fn color(self) -> (u8, u8, u8) {
        match self {
            Family::Barrier => (230, 159, 0),    // orange
            Family::Bcast => (0, 114, 178),      // blue
            Family::Reduce => (0, 158, 115),     // bluish green
            Family::Allreduce => (213, 94, 0),   // vermillion
            Family::Alltoall => (204, 121, 167), // reddish purple
            // The reference algorithms: the rest of Okabe–Ito (sky blue, black), then Tol's
            // muted indigo, olive and wine, none close to the five above or to the greys
            // of baselines and ceilings.
            Family::RefRing => (86, 180, 233),    // sky blue
            Family::RefBinomial => (51, 34, 136), // indigo
            Family::RefSortedLinearTree => (153, 153, 51), // olive
            Family::RefPrereducedRing => (136, 34, 85), // wine
            Family::RefClairvoyant => (0, 0, 0),  // black: the clairvoyant reference
            // The collectives beyond Niethammer et al.'s five (measured when named): Tol's
            // muted green, sand, rose and purple, a brown and Okabe–Ito's yellow, apart from
            // the five above and from the greys of baselines and bounds.
            Family::Allgather => (17, 119, 51),           // green
            Family::Gather => (221, 204, 119),            // sand
            Family::Scatter => (204, 102, 119),           // rose
            Family::ReduceScatterBlock => (170, 68, 153), // purple
            Family::Scan => (140, 81, 10),                // brown
            Family::Exscan => (240, 228, 66),             // yellow
            // The v-forms: Tol's bright and high-contrast tones, none equal to their base
            // family's (the v-form and its base can meet in one figure).
            Family::Allgatherv => (68, 170, 153), // teal
            Family::Gatherv => (136, 204, 238),   // cyan
            Family::Scatterv => (238, 102, 119),  // red
            Family::Alltoallv => (0, 68, 136),    // dark blue
        }
    }

    /// True for the reference algorithms on point-to-point (`ref:*`), which are measured only
    /// when `--ops` names them.
    pub fn is_reference(self) -> bool {
        matches!(
            self,
            Family::RefRing
                | Family::RefBinomial
                | Family::RefSortedLinearTree
                | Family::RefPrereducedRing
                | Family::RefClairvoyant
        )
    }

    /// True when the kernel is given each repetition's planned arrival order (ranks sorted by
    /// their drawn delay, ties by rank; `delay::arrival_order`).
    pub fn wants_arrival_order(self) -> bool {
        self == Family::RefClairvoyant
    }

    /// The message buffers each rank allocates for a kernel of the family.
    pub fn buffers(self) -> Buffers {
        match self {
            Family::Barrier => Buffers::None,
            Family::Bcast => Buffers::Bytes,
            Family::Reduce | Family::Allreduce => Buffers::F64,
            Family::Alltoall => Buffers::BytesPerPeer,
            Family::RefRing
            | Family::RefBinomial
            | Family::RefSortedLinearTree
            | Family::RefPrereducedRing
            | Family::RefClairvoyant => Buffers::F64Scratch,
            Family::Allgather | Family::Gather => Buffers::BytesGathered,
            Family::Scatter => Buffers::BytesScattered,
            Family::ReduceScatterBlock => Buffers::F64Scattered,
            Family::Scan | Family::Exscan => Buffers::F64,
            // Uniform counts (`bytes` per rank or rank pair): the buffers of the fixed-count
            // forms.
            Family::Allgatherv | Family::Gatherv => Buffers::BytesGathered,
            Family::Scatterv => Buffers::BytesScattered,
            Family::Alltoallv => Buffers::BytesPerPeer,
        }
    }

    /// True for the families a run measures when `--ops` is not given: the five collectives
    /// of Niethammer et al. (2016). The others (allgather, gather, scatter,
    /// reduce_scatter_block, scan, exscan, the v-forms allgatherv, gatherv, scatterv and
    /// alltoallv, their nonblocking forms, and the `ref:*` reference algorithms) are measured
    /// when named, so the default run keeps its length and its figures their number of
    /// lines. The persistent forms ([`Form::Persistent`]) are never in the default run,
    /// whatever their family.
    pub fn in_default_run(self) -> bool {
        matches!(
            self,
            Family::Barrier | Family::Bcast | Family::Reduce | Family::Allreduce | Family::Alltoall
        )
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.blocking().name())
    }
}

/// The message buffers of a kernel, as a function of its message size `bytes` (the `--sizes`
/// value, see [`Op`]) and the process count P.
///
/// The run side allocates exactly [`Buffers::lengths`]; `plan::checks` checks
/// [`Buffers::allocated_bytes`] against memory and [`Buffers::largest_count`] against MPI's
/// count limit, so the checks and the allocation cannot drift apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Buffers {
    /// No payload (barriers): sizes are ignored and recorded as 0.
    None,
    /// One buffer of `bytes` bytes, sent by rank 0 and received by the others (bcast).
    Bytes,
    /// A send and a receive buffer of P x `bytes` bytes each: `bytes` to and from every rank
    /// (alltoall).
    BytesPerPeer,
    /// A send and a receive buffer of `bytes` / 8 f64 elements, summed (reductions); sizes
    /// must be positive multiples of 8 bytes.
    F64,
    /// As [`Buffers::F64`], plus a scratch buffer of as many f64 elements into which a
    /// point-to-point reduction receives a peer's partial sum before adding it (the `ref:*`
    /// kernels).
    F64Scratch,
    /// A send buffer of `bytes` and a receive buffer of P x `bytes`: each rank's block
    /// gathered (allgather on every rank, gather at rank 0).
    BytesGathered,
    /// A send buffer of P x `bytes` (rank 0's blocks, one to each rank) and a receive buffer
    /// of `bytes` (scatter).
    BytesScattered,
    /// A send buffer of P x `bytes` / 8 f64 elements and a receive buffer of `bytes` / 8:
    /// each rank receives the sum of its block (reduce_scatter_block); sizes must be positive
    /// multiples of 8 bytes.
    F64Scattered,
}

/// Element counts of the buffers a kernel allocates (not bytes: the f64 buffers count f64
/// elements). Unused buffers have length 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Lengths {
    /// Bytes sent (alltoall) or broadcast (bcast).
    pub send_u8: usize,
    /// Bytes received (alltoall).
    pub recv_u8: usize,
    /// f64 elements contributed (reductions).
    pub send_f64: usize,
    /// f64 elements of the result (reductions).
    pub recv_f64: usize,
    /// f64 elements a point-to-point reduction receives into before adding (`ref:*`).
    pub scratch_f64: usize,
}

impl Buffers {
    /// True when the kernel carries a payload, so `--sizes` applies to it.
    pub fn has_payload(self) -> bool {
        self != Buffers::None
    }

    /// Element counts of the buffers for message size `bytes` on `nprocs` ranks.
    pub fn lengths(self, bytes: u64, nprocs: usize) -> Lengths {
        let bytes = bytes as usize;
        match self {
            Buffers::None => Lengths::default(),
            Buffers::Bytes => Lengths {
                send_u8: bytes,
                ..Lengths::default()
            },
            Buffers::BytesPerPeer => Lengths {
                send_u8: bytes * nprocs,
                recv_u8: bytes * nprocs,
                ..Lengths::default()
            },
            Buffers::F64 => Lengths {
                send_f64: bytes / 8,
                recv_f64: bytes / 8,
                ..Lengths::default()
            },
            Buffers::F64Scratch => Lengths {
                send_f64: bytes / 8,
                recv_f64: bytes / 8,
                scratch_f64: bytes / 8,
                ..Lengths::default()
            },
            Buffers::BytesGathered => Lengths {
                send_u8: bytes,
                recv_u8: bytes * nprocs,
                ..Lengths::default()
            },
            Buffers::BytesScattered => Lengths {
                send_u8: bytes * nprocs,
                recv_u8: bytes,
                ..Lengths::default()
            },
            Buffers::F64Scattered => Lengths {
                send_f64: bytes / 8 * nprocs,
                recv_f64: bytes / 8,
                ..Lengths::default()
            },
        }
    }

    /// Bytes of message buffers one rank allocates at message size `bytes` on `p` ranks,
    /// saturating instead of overflowing (the sizes checked may be absurd).
    pub fn allocated_bytes(self, bytes: u64, p: u32) -> u64 {
        match self {
            Buffers::None => 0,
            Buffers::Bytes => bytes,
            Buffers::BytesPerPeer => bytes.saturating_mul(p as u64).saturating_mul(2),
            Buffers::F64 => bytes.saturating_mul(2),
            Buffers::F64Scratch => bytes.saturating_mul(3),
            Buffers::BytesGathered | Buffers::BytesScattered => {
                bytes.saturating_mul(p as u64).saturating_add(bytes)
            }
            Buffers::F64Scattered => (bytes / 8 * 8)
                .saturating_mul(p as u64)
                .saturating_add(bytes / 8 * 8),
        }
    }

    /// Elements of the largest buffer one MPI call receives at message size `bytes` on `p`
    /// ranks: bytes for the byte buffers, f64 elements for reductions (rsmpi passes the whole
    /// slice length as the count), saturating.
    pub fn largest_count(self, bytes: u64, p: u32) -> u64 {
        match self {
            Buffers::None => 0,
            Buffers::Bytes => bytes,
            Buffers::BytesPerPeer => bytes.saturating_mul(p as u64),
            Buffers::F64 | Buffers::F64Scratch => bytes / 8,
            Buffers::BytesGathered | Buffers::BytesScattered => bytes.saturating_mul(p as u64),
            Buffers::F64Scattered => (bytes / 8).saturating_mul(p as u64),
        }
    }
}

/// What the registry knows about one kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelInfo {
    /// Name on the command line and in records (`allreduce`, `iallreduce`); the serde name of
    /// the [`Op`] variant (a test holds them together).
    pub name: &'static str,
    pub family: Family,
    /// Blocking, MPI-3 nonblocking or MPI-4 persistent.
    pub form: Form,
}

/// How a kernel calls its collective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Form {
    /// The blocking call (`MPI_Allreduce`).
    Blocking,
    /// The MPI-3 nonblocking form: `MPI_I...` then `MPI_Wait`, or the overlap of Hoefler et
    /// al. (2008) in overlap mode.
    Nonblocking,
    /// The MPI-4 persistent form (MPI Forum 2021, §6.13): `MPI_..._init` once per block,
    /// outside the timed repetitions, then `MPI_Start` and `MPI_Wait` in each repetition;
    /// the request is freed at the end of the block. Named `<family>_persistent`, as OSU
    /// 7.4 names its benchmarks (`osu_allreduce_persistent`). rsmpi has no binding: the
    /// `_init` symbol is looked up in the MPI library at run time, and a run naming a
    /// persistent kernel is refused before anything is measured when the library lacks it
    /// (Open MPI before 5 has only `MPIX_*_init`; MPICH has them from 4.0).
    Persistent,
}

/// Declares [`Op`], [`Op::ALL`] and [`KERNELS`] from one list, so a kernel cannot have a
/// variant without a registry entry or be left out of [`Op::ALL`]. Entry i of [`KERNELS`]
/// describes `Op::ALL[i]`, whose discriminant is i.
macro_rules! kernels {
    ($($(#[$attr:meta])* $op:ident => $info:expr,)+) => {
        /// A collective kernel, blocking or nonblocking (posted and immediately waited on, as
        /// in Niethammer et al. 2016 §IV, unless in overlap mode).
        ///
        /// Message size ("bytes") per kernel (see [`Buffers`]):
        /// - barrier / ibarrier: no payload; sizes are ignored and recorded as 0.
        /// - bcast / ibcast: bytes broadcast from rank 0 to every rank.
        /// - reduce / ireduce, allreduce / iallreduce and the `ref:*` allreduce algorithms:
        ///   bytes contributed by each rank, as bytes / 8 f64 elements summed (so sizes must
        ///   be multiples of 8).
        /// - alltoall / ialltoall: bytes sent from each rank to each peer (P x bytes per rank
        ///   in total).
        /// - allgather / iallgather, gather / igather: bytes contributed by each rank (P x
        ///   bytes gathered on every rank, or at rank 0).
        /// - scatter / iscatter: bytes rank 0 sends to each rank (P x bytes in all).
        /// - reduce_scatter_block / ireduce_scatter_block: bytes of summed f64 each rank
        ///   receives (each contributes P x bytes); multiples of 8.
        /// - scan / iscan, exscan / iexscan: bytes contributed by each rank, as bytes / 8 f64
        ///   elements prefix-summed (multiples of 8).
        /// - the v-forms allgatherv / iallgatherv, gatherv / igatherv: by default bytes
        ///   contributed by each rank (every count equal, as allgather and gather);
        ///   scatterv / iscatterv: bytes rank 0 sends to each rank; alltoallv / ialltoallv:
        ///   bytes from each rank to each peer. The counts are uniform: a capture records an
        ///   application's count vectors (docs/capture.md), but a replay does not use them
        ///   yet.
        /// - `<family>_persistent` (barrier, bcast, reduce, allreduce, alltoall, allgather):
        ///   as the family's blocking kernel.
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
        )]
        #[serde(rename_all = "lowercase")]
        pub enum Op {
            $($(#[$attr])* $op,)+
        }

        impl Op {
            /// Every kernel, blocking first, in the order they are measured by default (the
            /// CLI's default `--ops`) and listed in tables.
            pub const ALL: [Op; [$(Op::$op),+].len()] = [$(Op::$op),+];
        }

        /// The registry: entry i describes [`Op::ALL`]`[i]`.
        pub static KERNELS: [KernelInfo; Op::ALL.len()] = [$($info),+];
    };
}

/// A registry entry, short enough to keep each kernel on one line below.
const fn kernel(name: &'static str, family: Family, nonblocking: bool) -> KernelInfo {
    KernelInfo {
        name,
        family,
        form: if nonblocking {
            Form::Nonblocking
        } else {
            Form::Blocking
        },
    }
}

/// A registry entry of a persistent kernel ([`Form::Persistent`]).
const fn persistent(name: &'static str, family: Family) -> KernelInfo {
    KernelInfo {
        name,
        family,
        form: Form::Persistent,
    }
}

kernels! {
    /// `MPI_Barrier`.
    Barrier => kernel("barrier", Family::Barrier, false),
    /// `MPI_Bcast` from rank 0.
    Bcast => kernel("bcast", Family::Bcast, false),
    /// `MPI_Reduce` (sum of f64) to rank 0.
    Reduce => kernel("reduce", Family::Reduce, false),
    /// `MPI_Allreduce` (sum of f64).
    Allreduce => kernel("allreduce", Family::Allreduce, false),
    /// Ring allreduce on point-to-point, rank order (sum of f64).
    #[serde(rename = "ref:ring")]
    RefRing => kernel("ref:ring", Family::RefRing, false),
    /// Binomial-tree reduce and broadcast on point-to-point (sum of f64).
    #[serde(rename = "ref:binomial")]
    RefBinomial => kernel("ref:binomial", Family::RefBinomial, false),
    /// Sorted linear tree (Proficz 2018), order observed in the previous call.
    #[serde(rename = "ref:sorted-linear-tree")]
    RefSortedLinearTree => kernel("ref:sorted-linear-tree", Family::RefSortedLinearTree, false),
    /// Pre-reduced ring (Proficz 2018), order observed in the previous call.
    #[serde(rename = "ref:prereduced-ring")]
    RefPrereducedRing => kernel("ref:prereduced-ring", Family::RefPrereducedRing, false),
    /// Sorted linear tree on the repetition's planned arrival order: the clairvoyant reference.
    #[serde(rename = "ref:clairvoyant")]
    RefClairvoyant => kernel("ref:clairvoyant", Family::RefClairvoyant, false),
    /// `MPI_Alltoall`.
    Alltoall => kernel("alltoall", Family::Alltoall, false),
    /// `MPI_Allgather`.
    Allgather => kernel("allgather", Family::Allgather, false),
    /// `MPI_Gather` to rank 0.
    Gather => kernel("gather", Family::Gather, false),
    /// `MPI_Scatter` from rank 0.
    Scatter => kernel("scatter", Family::Scatter, false),
    /// `MPI_Reduce_scatter_block` (sum of f64).
    #[serde(rename = "reduce_scatter_block")]
    ReduceScatterBlock => kernel("reduce_scatter_block", Family::ReduceScatterBlock, false),
    /// `MPI_Scan` (sum of f64).
    Scan => kernel("scan", Family::Scan, false),
    /// `MPI_Exscan` (sum of f64).
    Exscan => kernel("exscan", Family::Exscan, false),
    /// `MPI_Allgatherv`.
    Allgatherv => kernel("allgatherv", Family::Allgatherv, false),
    /// `MPI_Gatherv` to rank 0.
    Gatherv => kernel("gatherv", Family::Gatherv, false),
    /// `MPI_Scatterv` from rank 0.
    Scatterv => kernel("scatterv", Family::Scatterv, false),
    /// `MPI_Alltoallv`.
    Alltoallv => kernel("alltoallv", Family::Alltoallv, false),
    /// `MPI_Ibarrier`.
    Ibarrier => kernel("ibarrier", Family::Barrier, true),
    /// `MPI_Ibcast` from rank 0.
    Ibcast => kernel("ibcast", Family::Bcast, true),
    /// `MPI_Ireduce` (sum of f64) to rank 0.
    Ireduce => kernel("ireduce", Family::Reduce, true),
    /// `MPI_Iallreduce` (sum of f64).
    Iallreduce => kernel("iallreduce", Family::Allreduce, true),
    /// `MPI_Ialltoall`.
    Ialltoall => kernel("ialltoall", Family::Alltoall, true),
    /// `MPI_Iallgather`.
    Iallgather => kernel("iallgather", Family::Allgather, true),
    /// `MPI_Igather` to rank 0.
    Igather => kernel("igather", Family::Gather, true),
    /// `MPI_Iscatter` from rank 0.
    Iscatter => kernel("iscatter", Family::Scatter, true),
    /// `MPI_Ireduce_scatter_block` (sum of f64).
    #[serde(rename = "ireduce_scatter_block")]
    IreduceScatterBlock => kernel("ireduce_scatter_block", Family::ReduceScatterBlock, true),
    /// `MPI_Iscan` (sum of f64).
    Iscan => kernel("iscan", Family::Scan, true),
    /// `MPI_Iexscan` (sum of f64).
    Iexscan => kernel("iexscan", Family::Exscan, true),
    /// `MPI_Iallgatherv`.
    Iallgatherv => kernel("iallgatherv", Family::Allgatherv, true),
    /// `MPI_Igatherv` to rank 0.
    Igatherv => kernel("igatherv", Family::Gatherv, true),
    /// `MPI_Iscatterv` from rank 0.
    Iscatterv => kernel("iscatterv", Family::Scatterv, true),
    /// `MPI_Ialltoallv`.
    Ialltoallv => kernel("ialltoallv", Family::Alltoallv, true),
    /// `MPI_Barrier_init`, then `MPI_Start` and `MPI_Wait` per repetition.
    #[serde(rename = "barrier_persistent")]
    BarrierPersistent => persistent("barrier_persistent", Family::Barrier),
    /// `MPI_Bcast_init` from rank 0.
    #[serde(rename = "bcast_persistent")]
    BcastPersistent => persistent("bcast_persistent", Family::Bcast),
    /// `MPI_Reduce_init` (sum of f64) to rank 0.
    #[serde(rename = "reduce_persistent")]
    ReducePersistent => persistent("reduce_persistent", Family::Reduce),
    /// `MPI_Allreduce_init` (sum of f64).
    #[serde(rename = "allreduce_persistent")]
    AllreducePersistent => persistent("allreduce_persistent", Family::Allreduce),
    /// `MPI_Alltoall_init`.
    #[serde(rename = "alltoall_persistent")]
    AlltoallPersistent => persistent("alltoall_persistent", Family::Alltoall),
    /// `MPI_Allgather_init`.
    #[serde(rename = "allgather_persistent")]
    AllgatherPersistent => persistent("allgather_persistent", Family::Allgather),
}

impl Op {
    /// The registry entry of this kernel.
    pub fn info(self) -> &'static KernelInfo {
        &KERNELS[self as usize]
    }

    /// The name used on the command line and in records (`allreduce`, `iallreduce`).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// True for the MPI-3 nonblocking forms (`MPI_I...` followed by `MPI_Wait`).
    pub fn is_nonblocking(self) -> bool {
        self.info().form == Form::Nonblocking
    }

    /// True for the MPI-4 persistent forms ([`Form::Persistent`]).
    pub fn is_persistent(self) -> bool {
        self.info().form == Form::Persistent
    }

    /// Blocking, nonblocking or persistent.
    pub fn form(self) -> Form {
        self.info().form
    }

    /// The family: the collective operation, whether blocking or not (`iallreduce` ->
    /// allreduce).
    pub fn family(self) -> Family {
        self.info().family
    }

    /// The message buffers each rank allocates for this kernel.
    pub fn buffers(self) -> Buffers {
        self.family().buffers()
    }

    /// True when the kernel carries a payload, so `--sizes` applies to it.
    pub fn has_payload(self) -> bool {
        self.buffers().has_payload()
    }

    /// True when the payload is reduced as f64 elements (size must be a multiple of 8 bytes).
    pub fn is_reduction(self) -> bool {
        matches!(
            self.buffers(),
            Buffers::F64 | Buffers::F64Scratch | Buffers::F64Scattered
        )
    }

    /// True for the reference algorithms on point-to-point (`ref:ring`, ...).
    pub fn is_reference(self) -> bool {
        self.family().is_reference()
    }

    /// The kernels a run measures when `--ops` is not given, in [`Op::ALL`] order: the
    /// blocking and nonblocking kernels of the families [`Family::in_default_run`] (the
    /// reference algorithms, the collectives beyond Niethammer et al.'s five and the
    /// persistent forms only when asked for).
    pub fn defaults() -> Vec<Op> {
        Op::ALL
            .into_iter()
            .filter(|op| op.family().in_default_run() && !op.is_persistent())
            .collect()
    }
}

/// The names of the kernels for which `keep` holds, in [`Op::ALL`] order, joined for a
/// message: `a, b, c` with `last` (`", "`, `" or "`) before the final one.
pub fn names_where(keep: impl Fn(Op) -> bool, last: &str) -> String {
    let names: Vec<&str> = Op::ALL
        .into_iter()
        .filter(|&op| keep(op))
        .map(Op::name)
        .collect();
    match names.split_last() {
        Some((final_name, [])) => final_name.to_string(),
        Some((final_name, rest)) => format!("{}{last}{final_name}", rest.join(", ")),
        None => String::new(),
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no kernel's.
#[derive(Debug, Clone, Error, PartialEq)]
#[error("unknown op '{name}': choose from {all}", name = .0, all = names_where(|_| true, ", "))]
pub struct UnknownOp(pub String);

impl FromStr for Op {
    type Err = UnknownOp;
    /// Reads a kernel name, ignoring case and surrounding blanks.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Op::ALL
            .into_iter()
            .find(|op| op.name() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| UnknownOp(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_entry_per_op_in_op_order() {
        assert_eq!(KERNELS.len(), Op::ALL.len());
        for (i, op) in Op::ALL.into_iter().enumerate() {
            assert_eq!(op as usize, i, "{op:?} is out of order in Op::ALL");
            assert_eq!(op.info().name, KERNELS[i].name);
        }
        let mut names: Vec<&str> = KERNELS.iter().map(|k| k.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), KERNELS.len(), "two kernels share a name");
    }

    #[test]
    fn names_parse_back_and_are_the_records_names() {
        for op in Op::ALL {
            assert_eq!(op.name().parse::<Op>(), Ok(op));
            // Records store ops by their serde name: it must be the registry's name.
            let json = serde_json::to_string(&op).unwrap();
            assert_eq!(json, format!("\"{}\"", op.name()));
            assert_eq!(serde_json::from_str::<Op>(&json).unwrap(), op);
        }
        assert_eq!("IAllreduce".parse::<Op>(), Ok(Op::Iallreduce));
        let err = "allgatherw".parse::<Op>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown op 'allgatherw': choose from barrier, bcast, reduce, allreduce, ref:ring, \
             ref:binomial, ref:sorted-linear-tree, ref:prereduced-ring, ref:clairvoyant, \
             alltoall, allgather, gather, scatter, reduce_scatter_block, scan, exscan, \
             allgatherv, gatherv, scatterv, alltoallv, ibarrier, ibcast, ireduce, iallreduce, \
             ialltoall, iallgather, igather, iscatter, ireduce_scatter_block, iscan, iexscan, \
             iallgatherv, igatherv, iscatterv, ialltoallv, barrier_persistent, \
             bcast_persistent, reduce_persistent, allreduce_persistent, alltoall_persistent, \
             allgather_persistent"
        );
        assert_eq!("Ialltoallv".parse::<Op>(), Ok(Op::Ialltoallv));
        assert_eq!(
            serde_json::to_string(&Op::AllreducePersistent).unwrap(),
            "\"allreduce_persistent\""
        );
        assert_eq!("REF:Ring".parse::<Op>(), Ok(Op::RefRing));
        assert_eq!(
            serde_json::to_string(&Op::RefPrereducedRing).unwrap(),
            "\"ref:prereduced-ring\""
        );
        assert_eq!(
            serde_json::to_string(&Op::IreduceScatterBlock).unwrap(),
            "\"ireduce_scatter_block\""
        );
    }

    #[test]
    fn families_have_distinct_colours_and_one_blocking_kernel_each() {
        let mut families: Vec<Family> = Op::ALL.iter().map(|op| op.family()).collect();
        families.sort_unstable();
        families.dedup();
        for (i, a) in families.iter().enumerate() {
            assert_eq!(a.index(), i, "families are numbered in declaration order");
            for b in &families[i + 1..] {
                assert_ne!(a.color(), b.color(), "{a:?} and {b:?} share a colour");
            }
            let members: Vec<Op> = Op::ALL.into_iter().filter(|op| op.family() == *a).collect();
            for form in [Form::Blocking, Form::Nonblocking, Form::Persistent] {
                let n = members.iter().filter(|op| op.form() == form).count();
                assert!(n <= 1, "{a:?} has {n} kernels of form {form:?}");
            }
            let blocking = members
                .iter()
                .filter(|op| op.form() == Form::Blocking)
                .count();
            assert_eq!(blocking, 1, "{a:?} needs exactly one blocking kernel");
            assert_eq!(a.blocking().family(), *a);
        }
        // Blocking kernels come first, in family order: the default order of a run; then
        // the nonblocking ones, then the persistent ones.
        let blocking: Vec<Op> = Op::ALL
            .into_iter()
            .filter(|op| op.form() == Form::Blocking)
            .collect();
        assert!(Op::ALL.starts_with(&blocking));
        assert!(blocking.windows(2).all(|w| w[0].family() < w[1].family()));
        assert!(Op::ALL.windows(2).all(|w| w[0].form() <= w[1].form()));
    }

    #[test]
    fn kernels_know_their_form_family_and_payload() {
        assert_eq!(Op::Ialltoall.family(), Family::Alltoall);
        assert_eq!(Op::Ialltoall.family(), Op::Alltoall.family());
        assert_eq!(Family::Allreduce.blocking(), Op::Allreduce);
        assert_eq!(Family::Allreduce.to_string(), "allreduce");
        assert!(Op::Ibarrier.is_nonblocking() && !Op::Barrier.is_nonblocking());
        assert!(!Op::Ibarrier.has_payload() && Op::Ireduce.is_reduction());
        assert!(Op::Bcast.has_payload() && !Op::Alltoall.is_reduction());
        assert_eq!(
            names_where(
                |op| op.is_nonblocking() && op.family().in_default_run(),
                " or "
            ),
            "ibarrier, ibcast, ireduce, iallreduce or ialltoall"
        );
        assert_eq!(names_where(|op| op == Op::Bcast, " or "), "bcast");
    }

    #[test]
    fn reference_kernels_are_blocking_reductions_measured_only_when_named() {
        let refs: Vec<Op> = Op::ALL.into_iter().filter(|op| op.is_reference()).collect();
        assert_eq!(
            refs.iter().map(|op| op.name()).collect::<Vec<_>>(),
            [
                "ref:ring",
                "ref:binomial",
                "ref:sorted-linear-tree",
                "ref:prereduced-ring",
                "ref:clairvoyant"
            ]
        );
        for op in &refs {
            assert!(!op.is_nonblocking() && op.is_reduction(), "{op}");
            assert_eq!(op.family().blocking(), *op);
        }
        let defaults = Op::defaults();
        assert_eq!(defaults.len(), 10);
        assert!(defaults.iter().all(|op| !op.is_reference()));
        assert_eq!(
            Op::ALL
                .into_iter()
                .filter(|op| op.family().wants_arrival_order())
                .collect::<Vec<_>>(),
            [Op::RefClairvoyant]
        );
    }

    #[test]
    fn buffers_per_kernel() {
        let sizes = |op: Op| {
            (
                op.buffers().allocated_bytes(1000, 4),
                op.buffers().largest_count(1000, 4),
            )
        };
        assert_eq!(sizes(Op::Barrier), (0, 0));
        assert_eq!(sizes(Op::Ibcast), (1000, 1000));
        assert_eq!(sizes(Op::Allreduce), (2000, 125));
        assert_eq!(sizes(Op::Ialltoall), (8000, 4000));
        assert_eq!(sizes(Op::RefClairvoyant), (3000, 125));
        assert_eq!(sizes(Op::Iallgather), (5000, 4000));
        assert_eq!(sizes(Op::Scatter), (5000, 4000));
        assert_eq!(sizes(Op::ReduceScatterBlock), (5000, 500));
        assert_eq!(sizes(Op::Iexscan), (2000, 125));
        assert_eq!(Buffers::BytesPerPeer.allocated_bytes(u64::MAX, 4), u64::MAX);
    }

    #[test]
    fn the_checked_sizes_are_the_allocated_ones() {
        // plan::checks checks allocated_bytes and largest_count; the run allocates lengths. For
        // every kernel at valid sizes they must describe the same buffers.
        for op in Op::ALL {
            let b = op.buffers();
            for bytes in [8u64, 1024, 40_000] {
                for p in [2u32, 3, 64] {
                    let l = b.lengths(bytes, p as usize);
                    let in_bytes =
                        l.send_u8 + l.recv_u8 + 8 * (l.send_f64 + l.recv_f64 + l.scratch_f64);
                    assert_eq!(
                        b.allocated_bytes(bytes, p),
                        in_bytes as u64,
                        "{op} {bytes} {p}"
                    );
                    let largest = [l.send_u8, l.recv_u8, l.send_f64, l.recv_f64, l.scratch_f64]
                        .into_iter()
                        .max()
                        .unwrap();
                    assert_eq!(
                        b.largest_count(bytes, p),
                        largest as u64,
                        "{op} {bytes} {p}"
                    );
                }
            }
        }
    }

    #[test]
    fn v_forms_and_persistent_forms_are_in_the_registry_and_sized_like_their_base() {
        for (v, base) in [
            (Op::Allgatherv, Op::Allgather),
            (Op::Iallgatherv, Op::Allgather),
            (Op::Gatherv, Op::Gather),
            (Op::Igatherv, Op::Gather),
            (Op::Scatterv, Op::Scatter),
            (Op::Iscatterv, Op::Scatter),
            (Op::Alltoallv, Op::Alltoall),
            (Op::Ialltoallv, Op::Alltoall),
        ] {
            assert_eq!(v.buffers(), base.buffers(), "{v}");
            assert!(
                v.has_payload() && !v.is_reduction() && !v.is_persistent(),
                "{v}"
            );
            assert!(!v.family().in_default_run(), "{v}");
            assert_eq!(v.name().parse::<Op>(), Ok(v));
        }
        assert!(Op::Ialltoallv.is_nonblocking() && !Op::Alltoallv.is_nonblocking());
        assert_eq!(Family::Scatterv.blocking(), Op::Scatterv);
        let persistent: Vec<Op> = Op::ALL
            .into_iter()
            .filter(|op| op.is_persistent())
            .collect();
        assert_eq!(
            persistent.iter().map(|op| op.name()).collect::<Vec<_>>(),
            [
                "barrier_persistent",
                "bcast_persistent",
                "reduce_persistent",
                "allreduce_persistent",
                "alltoall_persistent",
                "allgather_persistent"
            ]
        );
        for op in persistent {
            assert!(
                !op.is_nonblocking() && op.form() == Form::Persistent,
                "{op}"
            );
            assert_eq!(op.buffers(), op.family().blocking().buffers(), "{op}");
            assert!(!Op::defaults().contains(&op), "{op}");
            assert_eq!(
                op.name(),
                format!("{}_persistent", op.family().blocking().name())
            );
        }
        assert!(Op::AllreducePersistent.is_reduction());
        assert!(!Op::BarrierPersistent.has_payload());
        let sizes = |op: Op| {
            (
                op.buffers().allocated_bytes(1000, 4),
                op.buffers().largest_count(1000, 4),
            )
        };
        assert_eq!(sizes(Op::Ialltoallv), (8000, 4000));
        assert_eq!(sizes(Op::Gatherv), (5000, 4000));
        assert_eq!(sizes(Op::Iscatterv), (5000, 4000));
        assert_eq!(sizes(Op::AllreducePersistent), (2000, 125));
    }
}

#[cfg(test)]
mod default_run_tests {
    use super::*;

    #[test]
    fn the_default_run_measures_niethammers_five_collectives_in_both_forms() {
        let names: Vec<&str> = Op::defaults().into_iter().map(Op::name).collect();
        assert_eq!(
            names,
            [
                "barrier",
                "bcast",
                "reduce",
                "allreduce",
                "alltoall",
                "ibarrier",
                "ibcast",
                "ireduce",
                "iallreduce",
                "ialltoall"
            ]
        );
        // Every other kernel can be named.
        assert_eq!(Op::ALL.len(), 41);
        assert!(Op::Iexscan.is_reduction() && Op::IreduceScatterBlock.is_reduction());
        assert!(!Op::Iallgather.is_reduction() && Op::Iallgather.has_payload());
    }
}
