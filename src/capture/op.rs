//! The collective operations a capture records ([`CaptureOp`], their codes in the file) and
//! the Scalasca wait state each is attributed to ([`WaitKind`]).

use serde::{Deserialize, Serialize};

/// The collective operations the interposer records. The numbers are the codes the C shim
/// (`capture/src/shim.c`, `DBC_OP_*`) writes; keep both lists in the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum CaptureOp {
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    Alltoall,
    Alltoallv,
    Allgather,
    Allgatherv,
    Gather,
    Gatherv,
    Scatter,
    Scatterv,
    ReduceScatter,
    ReduceScatterBlock,
    Scan,
    Exscan,
    Ibarrier,
    Ibcast,
    Ireduce,
    Iallreduce,
    Ialltoall,
    Iallgather,
    Igather,
    Iscatter,
    IreduceScatterBlock,
    Iscan,
    Iexscan,
    Iallgatherv,
    Igatherv,
    Iscatterv,
    Ialltoallv,
    IreduceScatter,
    BarrierPersistent,
    BcastPersistent,
    ReducePersistent,
    AllreducePersistent,
    AlltoallPersistent,
    AlltoallvPersistent,
    AllgatherPersistent,
    AllgathervPersistent,
    GatherPersistent,
    GathervPersistent,
    ScatterPersistent,
    ScattervPersistent,
    ReduceScatterPersistent,
    ReduceScatterBlockPersistent,
    ScanPersistent,
    ExscanPersistent,
}

/// How the waiting at a collective is attributed (Geimer et al. 2010; Scalasca's pattern
/// reference, "Wait at N x N", "Wait at Barrier", "Late Broadcast", "Early Reduce", "Early
/// Scan").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitKind {
    /// All-to-all kinds: every rank waits for the last one to enter.
    #[serde(rename = "wait_nxn")]
    WaitNxN,
    /// Barrier: every rank waits for the last one to enter.
    WaitBarrier,
    /// One-to-all kinds: a non-root waits for a root that enters after it.
    LateBroadcast,
    /// All-to-one kinds: the root waits for the first sender when it enters before all.
    EarlyReduce,
    /// Scans: rank i waits for the last of ranks 0..=i to enter.
    EarlyScan,
}

impl CaptureOp {
    /// Every operation, in code order.
    pub const ALL: [CaptureOp; 48] = [
        CaptureOp::Barrier,
        CaptureOp::Bcast,
        CaptureOp::Reduce,
        CaptureOp::Allreduce,
        CaptureOp::Alltoall,
        CaptureOp::Alltoallv,
        CaptureOp::Allgather,
        CaptureOp::Allgatherv,
        CaptureOp::Gather,
        CaptureOp::Gatherv,
        CaptureOp::Scatter,
        CaptureOp::Scatterv,
        CaptureOp::ReduceScatter,
        CaptureOp::ReduceScatterBlock,
        CaptureOp::Scan,
        CaptureOp::Exscan,
        CaptureOp::Ibarrier,
        CaptureOp::Ibcast,
        CaptureOp::Ireduce,
        CaptureOp::Iallreduce,
        CaptureOp::Ialltoall,
        CaptureOp::Iallgather,
        CaptureOp::Igather,
        CaptureOp::Iscatter,
        CaptureOp::IreduceScatterBlock,
        CaptureOp::Iscan,
        CaptureOp::Iexscan,
        CaptureOp::Iallgatherv,
        CaptureOp::Igatherv,
        CaptureOp::Iscatterv,
        CaptureOp::Ialltoallv,
        CaptureOp::IreduceScatter,
        CaptureOp::BarrierPersistent,
        CaptureOp::BcastPersistent,
        CaptureOp::ReducePersistent,
        CaptureOp::AllreducePersistent,
        CaptureOp::AlltoallPersistent,
        CaptureOp::AlltoallvPersistent,
        CaptureOp::AllgatherPersistent,
        CaptureOp::AllgathervPersistent,
        CaptureOp::GatherPersistent,
        CaptureOp::GathervPersistent,
        CaptureOp::ScatterPersistent,
        CaptureOp::ScattervPersistent,
        CaptureOp::ReduceScatterPersistent,
        CaptureOp::ReduceScatterBlockPersistent,
        CaptureOp::ScanPersistent,
        CaptureOp::ExscanPersistent,
    ];

    /// The operation of a shim code, None for an unknown code.
    pub fn from_code(code: u32) -> Option<CaptureOp> {
        Self::ALL.get(code as usize).copied()
    }

    /// The operation of an MPI name as [`CaptureOp::name`] gives it (`allgatherv`), None
    /// for another name.
    pub fn from_name(name: &str) -> Option<CaptureOp> {
        Self::ALL.into_iter().find(|o| o.name() == name)
    }

    /// The MPI name without the `MPI_` prefix, lower case (`allreduce`, `ibcast`).
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    /// Whether this is a nonblocking initiation (its entry and exit are the initiation call's).
    pub fn is_nonblocking(self) -> bool {
        (CaptureOp::Ibarrier as usize..=CaptureOp::IreduceScatter as usize)
            .contains(&(self as usize))
    }

    /// Whether this is an MPI-4 persistent collective (MPI Forum 2021, §6.13): the call is one
    /// `MPI_Start` of a request made by `MPI_<Coll>_init` (or Open MPI 4.1's `MPIX_<Coll>_init`);
    /// its entry is the `MPI_Start`, its exit the return of the `MPI_Wait` or `MPI_Test` that
    /// saw it complete.
    pub fn is_persistent(self) -> bool {
        (self as usize) >= CaptureOp::BarrierPersistent as usize
    }

    /// The blocking collective a persistent one performs (`allreduce` for
    /// `allreduce_persistent`); any other operation itself.
    pub fn blocking(self) -> CaptureOp {
        if self.is_persistent() {
            Self::ALL[self as usize - CaptureOp::BarrierPersistent as usize]
        } else {
            self
        }
    }

    /// Whether the shim records a count vector for the call
    /// ([`CaptureCounts`](super::CaptureCounts)): the v-forms and the reduce-scatter with a
    /// count per rank, blocking or not.
    pub fn has_count_vector(self) -> bool {
        use CaptureOp::*;
        matches!(
            self.blocking(),
            Allgatherv
                | Gatherv
                | Scatterv
                | Alltoallv
                | ReduceScatter
                | Iallgatherv
                | Igatherv
                | Iscatterv
                | Ialltoallv
                | IreduceScatter
        )
    }

    /// The Scalasca wait state its entries are attributed to; a nonblocking initiation has
    /// none (it does not wait), so None. A persistent collective has its blocking
    /// collective's: its call lasts from the `MPI_Start` to the completion seen in `MPI_Wait`
    /// or `MPI_Test`, so it waits there as the blocking call would.
    pub fn wait_kind(self) -> Option<WaitKind> {
        use CaptureOp::*;
        Some(match self.blocking() {
            Barrier => WaitKind::WaitBarrier,
            Allreduce | Alltoall | Alltoallv | Allgather | Allgatherv | ReduceScatter
            | ReduceScatterBlock => WaitKind::WaitNxN,
            Bcast | Scatter | Scatterv => WaitKind::LateBroadcast,
            Reduce | Gather | Gatherv => WaitKind::EarlyReduce,
            Scan | Exscan => WaitKind::EarlyScan,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_codes_follow_all_and_names_are_mpi_names() {
        for (i, op) in CaptureOp::ALL.iter().enumerate() {
            assert_eq!(CaptureOp::from_code(i as u32), Some(*op));
        }
        assert_eq!(CaptureOp::ReduceScatterBlock.name(), "reduce_scatter_block");
        assert_eq!(CaptureOp::Iallreduce.name(), "iallreduce");
        assert_eq!(
            CaptureOp::from_name("ialltoallv"),
            Some(CaptureOp::Ialltoallv)
        );
        assert_eq!(CaptureOp::from_name("allgatherv_init"), None);
        assert!(CaptureOp::Ibarrier.is_nonblocking() && !CaptureOp::Exscan.is_nonblocking());
        assert_eq!(CaptureOp::from_code(48), None);
        assert_eq!(CaptureOp::from_code(32), Some(CaptureOp::BarrierPersistent));
        assert_eq!(CaptureOp::from_code(47), Some(CaptureOp::ExscanPersistent));
        assert_eq!(
            CaptureOp::AllreducePersistent.name(),
            "allreduce_persistent"
        );
        assert_eq!(
            CaptureOp::ReduceScatterBlockPersistent.name(),
            "reduce_scatter_block_persistent"
        );
        for (i, op) in CaptureOp::ALL[32..].iter().enumerate() {
            assert!(op.is_persistent() && !op.is_nonblocking(), "{op:?}");
            assert_eq!(op.blocking(), CaptureOp::ALL[i]);
            assert_eq!(op.wait_kind(), CaptureOp::ALL[i].wait_kind());
            assert_eq!(op.has_count_vector(), CaptureOp::ALL[i].has_count_vector());
            assert!(op.wait_kind().is_some());
            assert_eq!(
                op.name(),
                format!("{}_persistent", CaptureOp::ALL[i].name())
            );
        }
        assert!(!CaptureOp::IreduceScatter.is_persistent());
        assert!(!CaptureOp::Exscan.is_persistent());
        assert_eq!(CaptureOp::Iallreduce.blocking(), CaptureOp::Iallreduce);
        // The codes of captures written before the nonblocking v-forms keep their meaning.
        assert_eq!(CaptureOp::from_code(26), Some(CaptureOp::Iexscan));
        assert_eq!(CaptureOp::IreduceScatter.name(), "ireduce_scatter");
        assert!(CaptureOp::Ialltoallv.is_nonblocking() && CaptureOp::Ialltoallv.has_count_vector());
        assert!(!CaptureOp::Allgather.has_count_vector());
    }
}
