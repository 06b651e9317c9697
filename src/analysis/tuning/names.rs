//! What each library calls a collective and an algorithm in its tuning file: Open MPI 4.1's
//! collective ids (`COLLTYPE_T`, ompi/mca/coll/base/coll_base_functions.h) and algorithm
//! numbers (the values of `coll_tuned_<op>_algorithm`), MPICH 4.0's container names
//! (`algorithm=MPIR_<Op>_intra_<name>`, src/mpi/coll/src/csel_container.c), and the
//! counterparts of SimGrid SMPI's algorithm names for a simulated sweep.

use super::TuneError;
use crate::plan::algorithms::DEFAULT_NAME;
use crate::plan::Op;

/// The library whose tuning file `tune` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TuneLibrary {
    /// Open MPI 4.1's `coll_tuned` dynamic rules file.
    Openmpi,
    /// MPICH 4.0's collective selection JSON.
    Mpich,
}

impl TuneLibrary {
    /// The name `MPI_Get_library_version` gives, to match a measured sweep against.
    pub fn version_name(self) -> &'static str {
        match self {
            TuneLibrary::Openmpi => "Open MPI",
            TuneLibrary::Mpich => "MPICH",
        }
    }
}

/// The collectives `tune` writes rules for, and for Open MPI the collective id: each one's
/// message size in the library's rule lookup is the kernel's `bytes` (Open MPI: datatype
/// size × count; MPICH: `avg_msg_size`), which holds for these four. Nonblocking kernels
/// are chosen by `coll_libnbc_*` in Open MPI, outside the rules file.
pub fn openmpi_coll_id(op: Op) -> Option<u32> {
    match op {
        Op::Allreduce => Some(2),
        Op::Barrier => Some(6),
        Op::Bcast => Some(7),
        Op::Reduce => Some(11),
        _ => None,
    }
}

/// Open MPI 4.1's algorithm numbers by name (coll_tuned_<op>_decision.c), for a simulated
/// sweep that records no value.
fn openmpi_number(op: Op, name: &str) -> Option<i32> {
    let names: &[&str] = match op {
        Op::Allreduce => &[
            "basic_linear",
            "nonoverlapping",
            "recursive_doubling",
            "ring",
            "segmented_ring",
            "rabenseifner",
        ],
        Op::Bcast => &[
            "basic_linear",
            "chain",
            "pipeline",
            "split_binary_tree",
            "binary_tree",
            "binomial",
            "knomial",
            "scatter_allgather",
            "scatter_allgather_ring",
        ],
        Op::Reduce => &[
            "linear",
            "chain",
            "pipeline",
            "binary",
            "binomial",
            "in-order_binary",
            "rabenseifner",
        ],
        Op::Barrier => &[
            "linear",
            "double_ring",
            "recursive_doubling",
            "bruck",
            "two_proc",
            "tree",
        ],
        _ => &[],
    };
    names.iter().position(|n| *n == name).map(|i| i as i32 + 1)
}

/// The library's name for SimGrid SMPI's algorithm `smpi` of `op` (SimGrid 3.32's
/// src/smpi/colls: `rdb` is recursive doubling, `lr` the logical ring, `rab_rdb`
/// Rabenseifner's reduce-scatter with a recursive-doubling allgather, `redbcast` a reduce
/// then a bcast), `None` when the library has no counterpart.
fn from_smpi(library: TuneLibrary, op: Op, smpi: &str) -> Option<&'static str> {
    use TuneLibrary::*;
    Some(match (op, smpi, library) {
        (_, "default", _) => DEFAULT_NAME,
        (Op::Allreduce, "rdb", _) => "recursive_doubling",
        (Op::Allreduce, "lr", Openmpi) => "ring",
        (Op::Allreduce, "ompi_ring_segmented", Openmpi) => "segmented_ring",
        (Op::Allreduce, "redbcast", Openmpi) => "nonoverlapping",
        (Op::Allreduce, "rab_rdb", Openmpi) => "rabenseifner",
        (Op::Allreduce, "rab_rdb", Mpich) => "reduce_scatter_allgather",
        (Op::Bcast, "binomial_tree", _) => "binomial",
        (Op::Bcast, "flattree", Openmpi) => "basic_linear",
        (Op::Bcast, "ompi_pipeline", Openmpi) => "pipeline",
        (Op::Bcast, "ompi_split_bintree", Openmpi) => "split_binary_tree",
        (Op::Bcast, "scatter_rdb_allgather", Openmpi) => "scatter_allgather",
        (Op::Bcast, "scatter_rdb_allgather", Mpich) => "scatter_recursive_doubling_allgather",
        (Op::Bcast, "scatter_LR_allgather", Openmpi) => "scatter_allgather_ring",
        (Op::Bcast, "scatter_LR_allgather", Mpich) => "scatter_ring_allgather",
        _ => return None,
    })
}

/// Every SMPI name [`from_smpi`] maps for some library, per collective: the list a refusal
/// narrows to the names mapped for the library asked for.
const SMPI_NAMES: &[(Op, &str)] = &[
    (Op::Allreduce, "rdb"),
    (Op::Allreduce, "lr"),
    (Op::Allreduce, "ompi_ring_segmented"),
    (Op::Allreduce, "redbcast"),
    (Op::Allreduce, "rab_rdb"),
    (Op::Bcast, "binomial_tree"),
    (Op::Bcast, "flattree"),
    (Op::Bcast, "ompi_pipeline"),
    (Op::Bcast, "ompi_split_bintree"),
    (Op::Bcast, "scatter_rdb_allgather"),
    (Op::Bcast, "scatter_LR_allgather"),
];

/// The SMPI names of `op` that `library` has a counterpart for, then `default`
/// (`rdb, rab_rdb, default`).
fn mapped_smpi(library: TuneLibrary, op: Op) -> String {
    let mut names: Vec<&str> = SMPI_NAMES
        .iter()
        .filter(|(o, n)| *o == op && from_smpi(library, op, n).is_some())
        .map(|(_, n)| *n)
        .collect();
    names.push(DEFAULT_NAME);
    names.join(", ")
}

/// A condition MPICH 4.0 puts on an algorithm (`restrictions:` in
/// src/mpi/coll/coll_algorithms.txt of v4.0.2). Selected through the JSON file, an
/// algorithm is run without its fallback check, so a call outside its condition fails
/// inside MPICH (the Rabenseifner allreduce asserts `count >= pof2`): the file guards each
/// such algorithm with the test that MPICH's own tree uses, as [`MpichRestriction::tests`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MpichRestriction {
    /// `size-ge-pof2`: at least as many elements as the largest power of two ≤ P.
    SizeGePof2,
    /// `builtin-op`: a predefined reduction operation.
    BuiltinOp,
    /// `commutative`: a commutative operation.
    Commutative,
    /// `parent-comm`: a communicator with a node hierarchy (the SMP algorithms).
    ParentComm,
}

impl MpichRestriction {
    /// The (test that admits the algorithm, test that catches every other call) keys of
    /// MPICH's selection JSON (src/mpi/coll/src/csel.c of v4.0.2).
    pub fn tests(self) -> (&'static str, &'static str) {
        match self {
            MpichRestriction::SizeGePof2 => ("count=any", "count<pow2"),
            MpichRestriction::BuiltinOp => ("is_op_built_in=yes", "is_op_built_in=no"),
            MpichRestriction::Commutative => ("is_commutative=yes", "is_commutative=no"),
            MpichRestriction::ParentComm => ("comm_hierarchy=parent", "comm_hierarchy=any"),
        }
    }

    /// Whether the admitting test must come second: `count<pow2` is the only test of
    /// the count against pof2 that MPICH has, so the exclusion is tried first and the
    /// algorithm sits under `count=any` (the order of MPICH's own tree).
    pub fn excluded_first(self) -> bool {
        self == MpichRestriction::SizeGePof2
    }
}

/// The conditions MPICH 4.0.2 puts on intra-communicator algorithm `name` of `op`
/// (coll_algorithms.txt), in the order the file nests them, outermost first.
pub fn mpich_restrictions(op: Op, name: &str) -> &'static [MpichRestriction] {
    use MpichRestriction::*;
    match (op, name) {
        (Op::Allreduce, "reduce_scatter_allgather") | (Op::Reduce, "reduce_scatter_gather") => {
            &[BuiltinOp, SizeGePof2]
        }
        (Op::Allreduce | Op::Reduce, "smp") => &[Commutative, ParentComm],
        (Op::Barrier | Op::Bcast, "smp") => &[ParentComm],
        _ => &[],
    }
}

/// An algorithm as the tuning file names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryAlgorithm {
    /// The library's name (`ring`), `default` for the library's own choice.
    pub name: String,
    /// Open MPI's number (0: the library's own choice).
    pub openmpi: i32,
    /// MPICH's container key (`algorithm=MPIR_Allreduce_intra_recursive_doubling`); empty
    /// for `default`.
    pub mpich: String,
}

/// The algorithm `name` of `op` (value `value` in a measured sweep) as `library` names it;
/// `simulated`: `name` is SMPI's.
///
/// Errors: [`TuneError::Unmapped`] for an SMPI name without a counterpart, or a name the
/// library's file cannot select.
pub fn library_algorithm(
    library: TuneLibrary,
    op: Op,
    name: &str,
    value: Option<i32>,
    simulated: bool,
) -> Result<LibraryAlgorithm, TuneError> {
    let name = if simulated {
        from_smpi(library, op, name).ok_or_else(|| {
            TuneError::Unmapped(format!(
                "{op}: SimGrid's `{name}` has no counterpart in {} that tune knows (mapped \
                 for it: {}): drop it from the sweep or tune for the other library",
                library.version_name(),
                mapped_smpi(library, op)
            ))
        })?
    } else {
        name
    };
    if name == DEFAULT_NAME {
        return Ok(LibraryAlgorithm {
            name: name.into(),
            openmpi: 0,
            mpich: String::new(),
        });
    }
    let openmpi = value.or_else(|| openmpi_number(op, name)).unwrap_or(0);
    if library == TuneLibrary::Openmpi && openmpi == 0 {
        return Err(TuneError::Unmapped(format!(
            "{op}: Open MPI has no algorithm number for `{name}`"
        )));
    }
    let op_name = op.name();
    let cap = op_name[..1].to_uppercase() + &op_name[1..];
    let mpich = if name == "nb" {
        format!("algorithm=MPIR_{cap}_allcomm_nb")
    } else {
        format!("algorithm=MPIR_{cap}_intra_{name}")
    };
    Ok(LibraryAlgorithm {
        name: name.into(),
        openmpi,
        mpich,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers() {
        let a =
            library_algorithm(TuneLibrary::Openmpi, Op::Allreduce, "ring", Some(4), false).unwrap();
        assert_eq!(
            (a.openmpi, a.mpich.as_str()),
            (4, "algorithm=MPIR_Allreduce_intra_ring")
        );
        let a = library_algorithm(TuneLibrary::Openmpi, Op::Bcast, "binomial_tree", None, true)
            .unwrap();
        assert_eq!((a.name.as_str(), a.openmpi), ("binomial", 6));
        let a =
            library_algorithm(TuneLibrary::Mpich, Op::Allreduce, "rab_rdb", None, true).unwrap();
        assert_eq!(
            a.mpich,
            "algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather"
        );
        let a = library_algorithm(TuneLibrary::Mpich, Op::Bcast, "nb", Some(2), false).unwrap();
        assert_eq!(a.mpich, "algorithm=MPIR_Bcast_allcomm_nb");
        let d = library_algorithm(TuneLibrary::Openmpi, Op::Bcast, "default", None, true).unwrap();
        assert_eq!(d.openmpi, 0);
        let e = library_algorithm(TuneLibrary::Openmpi, Op::Allreduce, "smp_rsag", None, true)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`smp_rsag` has no counterpart in Open MPI"),
            "{e}"
        );
        assert!(
            e.contains("(mapped for it: rdb, lr, ompi_ring_segmented, redbcast, rab_rdb, default)"),
            "{e}"
        );
        // The list is the library's own: MPICH's refusal does not offer Open MPI's names.
        let e = library_algorithm(TuneLibrary::Mpich, Op::Allreduce, "lr", None, true)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "`lr` has no counterpart in MPICH that tune knows (mapped for it: rdb, \
                 rab_rdb, default)"
            ),
            "{e}"
        );
        assert_eq!(openmpi_coll_id(Op::Bcast), Some(7));
        assert_eq!(
            mpich_restrictions(Op::Allreduce, "reduce_scatter_allgather"),
            [MpichRestriction::BuiltinOp, MpichRestriction::SizeGePof2]
        );
        assert!(mpich_restrictions(Op::Allreduce, "recursive_doubling").is_empty());
        assert_eq!(openmpi_coll_id(Op::Iallreduce), None);
    }
}
