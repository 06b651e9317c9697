//! The MPI-4 persistent collectives (MPI Forum 2021, §6.13): `MPI_<Coll>_init` once per block,
//! then `MPI_Start` and `MPI_Wait` per call; the request is freed when the kernel is dropped
//! (the end of the block).
//!
//! rsmpi 0.8 has no binding for them, so the `_init` function is looked up in the process
//! (the MPI library already loaded) with `dlsym(RTLD_DEFAULT, ...)` and called through the
//! C types of `mpi::ffi`. MPICH has `MPI_<Coll>_init` from 4.0, Open MPI from 5.0; Open MPI
//! 4.x exports the same functions, with the same arguments, as `MPIX_<Coll>_init` (its
//! `pcollreq` extension, `mpi-ext.h`), which is used when the MPI-4 name is missing.
//! A library with neither is refused before anything is measured ([`check`]).

use super::{Buffers, Call};
use crate::plan::kernel::Family;
use crate::plan::Op;
use mpi::ffi::{MPI_Comm, MPI_Datatype, MPI_Info, MPI_Op, MPI_Request};
use mpi::raw::AsRaw;
use mpi::traits::*;
use std::ffi::{c_int, c_void, CString};

/// The collective's name in its `MPI_<Coll>_init` function (`Allreduce`), for the families
/// that have a persistent kernel in the registry.
fn coll_name(family: Family) -> Option<&'static str> {
    Some(match family {
        Family::Barrier => "Barrier",
        Family::Bcast => "Bcast",
        Family::Reduce => "Reduce",
        Family::Allreduce => "Allreduce",
        Family::Alltoall => "Alltoall",
        Family::Allgather => "Allgather",
        _ => return None,
    })
}

/// The `_init` function found for a persistent kernel: its name and address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// `MPI_Allreduce_init`, or Open MPI 4's `MPIX_Allreduce_init`.
    pub symbol: String,
    /// Its address in the process.
    address: usize,
}

impl Resolved {
    /// True when the MPI-4 name is missing and Open MPI's `MPIX_` extension stands in.
    pub fn is_extension(&self) -> bool {
        self.symbol.starts_with("MPIX_")
    }
}

/// Looks the `_init` function of persistent kernel `op` up through `lookup` (a symbol name
/// to its address, or `None`): the MPI-4 name first, then the `MPIX_` one. `library` names
/// the MPI library in the refusal. Errors: a message naming the library, what it lacks and
/// what to do.
pub fn resolve_with(
    op: Op,
    library: &str,
    lookup: impl Fn(&str) -> Option<usize>,
) -> Result<Resolved, String> {
    let coll = coll_name(op.family())
        .filter(|_| op.is_persistent())
        .ok_or_else(|| format!("{op} is not a persistent kernel"))?;
    let standard = format!("MPI_{coll}_init");
    let extension = format!("MPIX_{coll}_init");
    for symbol in [&standard, &extension] {
        if let Some(address) = lookup(symbol) {
            return Ok(Resolved {
                symbol: symbol.clone(),
                address,
            });
        }
    }
    Err(format!(
        "{op} needs the MPI-4 persistent collective {standard}, which this MPI library \
         ({library}) does not have (nor Open MPI's {extension}): run it under MPICH >= 4.0 or \
         Open MPI >= 5.0 (Open MPI 4.x has {extension}), or leave {op} out of --ops"
    ))
}

/// The symbol's address in the process, through `dlsym(RTLD_DEFAULT, name)`.
fn dlsym(name: &str) -> Option<usize> {
    let name = CString::new(name).ok()?;
    // SAFETY: name is a NUL-terminated string that outlives the call; RTLD_DEFAULT searches
    // the objects already loaded, and the result is only compared with null here.
    let address = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    (!address.is_null()).then_some(address as usize)
}

/// The first line of the MPI library's version string, for messages.
fn library() -> String {
    mpi::environment::library_version()
        .ok()
        .map(|v| crate::records::provenance::library_line(&v))
        .unwrap_or_else(|| "unknown MPI library".into())
}

/// [`resolve_with`] in this process's MPI library (after `MPI_Init`).
pub fn resolve(op: Op) -> Result<Resolved, String> {
    resolve_with(op, &library(), dlsym)
}

/// Checks every persistent kernel of `ops` before anything is measured: Ok with a note per
/// kernel that runs on Open MPI's `MPIX_` extension, or the refusal of the first kernel the
/// library lacks. Every rank finds the same library, so the answer is every rank's.
pub fn check(ops: &[Op]) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    for &op in ops.iter().filter(|op| op.is_persistent()) {
        let r = resolve(op)?;
        if r.is_extension() {
            notes.push(format!(
                "{op} runs on {} (Open MPI's pcollreq extension: the MPI-4 function under \
                 its pre-standard name, same arguments)",
                r.symbol
            ));
        }
    }
    Ok(notes)
}

type BarrierInit = unsafe extern "C" fn(MPI_Comm, MPI_Info, *mut MPI_Request) -> c_int;
type BcastInit = unsafe extern "C" fn(
    *mut c_void,
    c_int,
    MPI_Datatype,
    c_int,
    MPI_Comm,
    MPI_Info,
    *mut MPI_Request,
) -> c_int;
type ReduceInit = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    c_int,
    MPI_Datatype,
    MPI_Op,
    c_int,
    MPI_Comm,
    MPI_Info,
    *mut MPI_Request,
) -> c_int;
type AllreduceInit = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    c_int,
    MPI_Datatype,
    MPI_Op,
    MPI_Comm,
    MPI_Info,
    *mut MPI_Request,
) -> c_int;
/// `MPI_Alltoall_init` and `MPI_Allgather_init`.
type ExchangeInit = unsafe extern "C" fn(
    *const c_void,
    c_int,
    MPI_Datatype,
    *mut c_void,
    c_int,
    MPI_Datatype,
    MPI_Comm,
    MPI_Info,
    *mut MPI_Request,
) -> c_int;

/// A persistent collective request on one communicator, over a kernel's buffers (whose heap
/// storage must stay where it is while the request lives: the kernel never resizes them).
pub(super) struct Persistent {
    request: MPI_Request,
    comm: MPI_Comm,
}

impl Persistent {
    /// Creates the request of persistent kernel `op` over `b` on `call`'s communicator.
    /// Panics when the library lacks the function (a run refuses that before measuring) or
    /// the call fails.
    pub(super) fn init(op: Op, b: &mut Buffers, call: &Call) -> Persistent {
        let resolved = resolve(op).unwrap_or_else(|e| panic!("{e}"));
        let comm = call.comm.as_raw();
        let p = call.comm.size() as usize;
        let u8_type = u8::equivalent_datatype().as_raw();
        let f64_type = f64::equivalent_datatype().as_raw();
        let sum = call.sum.as_raw();
        // SAFETY: mpi-sys's constants, initialised by the C side before main.
        let info = unsafe { mpi::ffi::RSMPI_INFO_NULL };
        let mut request: MPI_Request = unsafe { mpi::ffi::RSMPI_REQUEST_NULL };
        let f = resolved.address as *const c_void;
        // SAFETY: `f` is the library's MPI_<Coll>_init (or its MPIX_ twin, same prototype),
        // transmuted to that prototype; the buffers are valid for the counts passed (the
        // registry's lengths) and outlive the request, which is freed in Drop.
        let rc = unsafe {
            match op.family() {
                Family::Barrier => {
                    std::mem::transmute::<*const c_void, BarrierInit>(f)(comm, info, &mut request)
                }
                Family::Bcast => std::mem::transmute::<*const c_void, BcastInit>(f)(
                    b.send_u8.as_mut_ptr().cast(),
                    count(b.send_u8.len()),
                    u8_type,
                    0,
                    comm,
                    info,
                    &mut request,
                ),
                Family::Reduce => std::mem::transmute::<*const c_void, ReduceInit>(f)(
                    b.send_f64.as_ptr().cast(),
                    b.recv_f64.as_mut_ptr().cast(),
                    count(b.send_f64.len()),
                    f64_type,
                    sum,
                    0,
                    comm,
                    info,
                    &mut request,
                ),
                Family::Allreduce => std::mem::transmute::<*const c_void, AllreduceInit>(f)(
                    b.send_f64.as_ptr().cast(),
                    b.recv_f64.as_mut_ptr().cast(),
                    count(b.send_f64.len()),
                    f64_type,
                    sum,
                    comm,
                    info,
                    &mut request,
                ),
                family @ (Family::Alltoall | Family::Allgather) => {
                    // Counts per rank: alltoall sends and receives a P-th of its buffers to
                    // and from each rank, allgather its whole send buffer.
                    let (send_count, recv_count) = match family {
                        Family::Alltoall => (b.send_u8.len() / p, b.recv_u8.len() / p),
                        _ => (b.send_u8.len(), b.send_u8.len()),
                    };
                    std::mem::transmute::<*const c_void, ExchangeInit>(f)(
                        b.send_u8.as_ptr().cast(),
                        count(send_count),
                        u8_type,
                        b.recv_u8.as_mut_ptr().cast(),
                        count(recv_count),
                        u8_type,
                        comm,
                        info,
                        &mut request,
                    )
                }
                other => unreachable!("{other} has no persistent kernel in the registry"),
            }
        };
        assert_eq!(rc, 0, "{} returned {rc}", resolved.symbol);
        Persistent { request, comm }
    }

    /// True when the request was made on `comm`.
    pub(super) fn is_on(&self, comm: MPI_Comm) -> bool {
        self.comm == comm
    }

    /// Starts the collective and waits for it.
    pub(super) fn start_wait(&mut self) {
        // SAFETY: the request is a valid, inactive persistent request (Wait leaves it
        // inactive again); the status is ignored.
        let rc = unsafe {
            let rc = mpi::ffi::MPI_Start(&mut self.request);
            if rc != 0 {
                rc
            } else {
                mpi::ffi::MPI_Wait(&mut self.request, mpi::ffi::RSMPI_STATUS_IGNORE)
            }
        };
        assert_eq!(
            rc, 0,
            "MPI_Start/MPI_Wait of a persistent collective returned {rc}"
        );
    }
}

impl Drop for Persistent {
    fn drop(&mut self) {
        // SAFETY: an inactive persistent request, freed once; its communicator still exists
        // (the kernel lives inside the block that uses the communicator).
        unsafe {
            mpi::ffi::MPI_Request_free(&mut self.request);
        }
    }
}

/// An element count as MPI's `int` (the registry's count limit keeps it in range).
fn count(n: usize) -> c_int {
    c_int::try_from(n).expect("counts are checked against MPI's int limit before the run")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mpi4_name_first_then_open_mpis_extension_else_a_refusal_that_says_what_to_do() {
        let only =
            |names: &'static [&'static str]| move |s: &str| names.contains(&s).then_some(1usize);
        let r = resolve_with(
            Op::AllreducePersistent,
            "MPICH 4.0",
            only(&["MPI_Allreduce_init"]),
        )
        .unwrap();
        assert_eq!(r.symbol, "MPI_Allreduce_init");
        assert!(!r.is_extension());
        let r = resolve_with(
            Op::BcastPersistent,
            "Open MPI 4.1",
            only(&["MPIX_Bcast_init"]),
        )
        .unwrap();
        assert!(r.is_extension());
        let err = resolve_with(Op::BarrierPersistent, "Open MPI v4.1.4", only(&[])).unwrap_err();
        assert!(err.contains("MPI_Barrier_init"), "{err}");
        assert!(err.contains("Open MPI v4.1.4"), "{err}");
        assert!(err.contains("MPICH >= 4.0 or Open MPI >= 5.0"), "{err}");
        assert!(resolve_with(Op::Allreduce, "x", only(&[])).is_err());
        for op in Op::ALL.into_iter().filter(|op| op.is_persistent()) {
            assert!(coll_name(op.family()).is_some(), "{op}");
        }
    }
}
