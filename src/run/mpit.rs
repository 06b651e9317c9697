//! The MPI tool information interface (MPI_T; MPI Forum 2021, MPI 4.0 §15.3): the control
//! variables that select collective algorithms, read and written by index, and the names of
//! the performance variables. The only unsafe code of the algorithm sweep; everything it
//! returns is plain data (`crate::plan::algorithms`).

use crate::plan::algorithms::{
    mpich_choices, variable_kernels, AlgorithmValue, AlgorithmVariable, Library,
};
use crate::records::provenance::printable;
use mpi::ffi;
use std::ffi::{c_char, c_int, c_void, CStr};
use thiserror::Error;

/// An MPI_T call that failed.
#[derive(Debug, Error)]
pub enum MpitError {
    #[error("{call} returned MPI error code {code}")]
    Call { call: &'static str, code: c_int },
    #[error("{variable}: wrote {wrote}, read back {read}: the library did not take the value")]
    NotTaken {
        variable: String,
        wrote: i32,
        read: i32,
    },
}

fn check(call: &'static str, code: c_int) -> Result<(), MpitError> {
    if code == 0 {
        Ok(())
    } else {
        Err(MpitError::Call { call, code })
    }
}

/// MPI_T, initialised; finalised when dropped, which must happen before `MPI_Finalize`
/// (Open MPI 4.1.4 crashes in `MPI_T_finalize` called after it, tried here).
pub struct Mpit {
    _private: (),
}

/// One control variable as MPI_T describes it.
#[derive(Debug, Clone)]
pub struct Cvar {
    pub index: c_int,
    pub name: String,
    pub desc: String,
    /// The scope as the library numbers it (see [`scope_name`]).
    pub scope: c_int,
    /// The enumeration's items (value, name), empty when it has none.
    pub items: Vec<(i32, String)>,
    /// Bytes of one value of its datatype (`MPI_Type_size`), 0 when unknown.
    pub value_bytes: c_int,
}

impl Mpit {
    /// Initialises MPI_T (after `MPI_Init`; MPI_T may be initialised any number of times).
    ///
    /// # Errors
    /// `MPI_T_init_thread` failing.
    pub fn init() -> Result<Mpit, MpitError> {
        let mut provided: c_int = 0;
        // SAFETY: `provided` is a valid out pointer; MPI_THREAD_SINGLE is 0 in both
        // libraries' headers and MPI_T accepts any thread level.
        let rc = unsafe { ffi::MPI_T_init_thread(0, &mut provided) };
        check("MPI_T_init_thread", rc)?;
        Ok(Mpit { _private: () })
    }

    /// Every control variable whose name `keep` accepts, with its description and enumeration.
    ///
    /// # Errors
    /// `MPI_T_cvar_get_num` failing (a variable whose information cannot be read is skipped).
    pub fn cvars(&self, keep: impl Fn(&str) -> bool) -> Result<Vec<Cvar>, MpitError> {
        let mut n: c_int = 0;
        // SAFETY: valid out pointer; MPI_T is initialised (self exists).
        check("MPI_T_cvar_get_num", unsafe {
            ffi::MPI_T_cvar_get_num(&mut n)
        })?;
        let mut out = Vec::new();
        for index in 0..n {
            let mut name = [0 as c_char; 256];
            let mut name_len = name.len() as c_int;
            let mut desc = vec![0 as c_char; 8192];
            let mut desc_len = desc.len() as c_int;
            let (mut verbosity, mut bind, mut scope) = (0, 0, 0);
            let mut datatype = std::mem::MaybeUninit::<ffi::MPI_Datatype>::zeroed();
            let mut enumtype: ffi::MPI_T_enum = std::ptr::null_mut();
            // SAFETY: every pointer is valid for the length passed with it; the library
            // writes at most name_len/desc_len bytes including the terminating NUL.
            let rc = unsafe {
                ffi::MPI_T_cvar_get_info(
                    index,
                    name.as_mut_ptr(),
                    &mut name_len,
                    &mut verbosity,
                    datatype.as_mut_ptr(),
                    &mut enumtype,
                    desc.as_mut_ptr(),
                    &mut desc_len,
                    &mut bind,
                    &mut scope,
                )
            };
            if rc != 0 {
                continue;
            }
            let name = c_string(&name);
            if !keep(&name) {
                continue;
            }
            let items = if enumtype.is_null() {
                Vec::new()
            } else {
                enum_items(enumtype)
            };
            let mut value_bytes: c_int = 0;
            // SAFETY: MPI_T_cvar_get_info succeeded, so it wrote the datatype; the out
            // pointer is valid.
            if unsafe { ffi::MPI_Type_size(datatype.assume_init(), &mut value_bytes) } != 0 {
                value_bytes = 0;
            }
            out.push(Cvar {
                index,
                name,
                desc: c_string(&desc),
                scope,
                items,
                value_bytes,
            });
        }
        Ok(out)
    }

    /// The integer (or boolean) value of control variable `index`.
    ///
    /// # Errors
    /// A handle that cannot be allocated, or a failed read.
    pub fn read(&self, index: c_int) -> Result<i32, MpitError> {
        self.with_handle(index, |h, _| {
            // Zeroed and larger than any scalar the variable could hold: a boolean written as
            // one byte reads as 0 or 1.
            let mut buf = [0u8; 64];
            // SAFETY: the handle is valid; the buffer is larger than the variable's count (1)
            // of a scalar type.
            let rc = unsafe { ffi::MPI_T_cvar_read(h, buf.as_mut_ptr().cast::<c_void>()) };
            check("MPI_T_cvar_read", rc)?;
            Ok(i32::from_ne_bytes([buf[0], buf[1], buf[2], buf[3]]))
        })
    }

    /// Writes `value` to integer control variable `index`.
    ///
    /// # Errors
    /// The library refusing the write (`MPI_T_ERR_CVAR_SET_NEVER`, `..._NOT_NOW`) or failing.
    pub fn write(&self, index: c_int, value: i32) -> Result<(), MpitError> {
        self.with_handle(index, |h, _| {
            let v: c_int = value;
            // SAFETY: the handle is valid; the variable is one integer.
            let rc = unsafe { ffi::MPI_T_cvar_write(h, (&v as *const c_int).cast::<c_void>()) };
            check("MPI_T_cvar_write", rc)
        })
    }

    /// Writes `value`, reads it back and checks the library took it.
    ///
    /// # Errors
    /// As [`Mpit::write`], or [`MpitError::NotTaken`].
    pub fn write_checked(&self, index: c_int, name: &str, value: i32) -> Result<(), MpitError> {
        self.write(index, value)?;
        let read = self.read(index)?;
        if read != value {
            return Err(MpitError::NotTaken {
                variable: name.into(),
                wrote: value,
                read,
            });
        }
        Ok(())
    }

    /// The value of integer control variable `c` as an i64: one value (count 1) of 1, 4 or 8
    /// bytes, little-endian as this machine stores it; `None` for any other variable.
    pub fn read_integer(&self, c: &Cvar) -> Option<i64> {
        self.with_handle(c.index, |h, count| {
            let mut buf = [0u8; 64];
            if count != 1 || !matches!(c.value_bytes, 1 | 4 | 8) {
                return Ok(None);
            }
            // SAFETY: the handle is valid; one value of at most 8 bytes fits the buffer.
            let rc = unsafe { ffi::MPI_T_cvar_read(h, buf.as_mut_ptr().cast::<c_void>()) };
            check("MPI_T_cvar_read", rc)?;
            Ok(Some(match c.value_bytes {
                1 => i64::from(buf[0]),
                4 => i64::from(i32::from_ne_bytes([buf[0], buf[1], buf[2], buf[3]])),
                _ => i64::from_ne_bytes(buf[..8].try_into().expect("8 bytes")),
            }))
        })
        .ok()
        .flatten()
    }

    fn with_handle<T>(
        &self,
        index: c_int,
        body: impl FnOnce(ffi::MPI_T_cvar_handle, c_int) -> Result<T, MpitError>,
    ) -> Result<T, MpitError> {
        let mut handle: ffi::MPI_T_cvar_handle = std::ptr::null_mut();
        let mut count: c_int = 0;
        // SAFETY: algorithm variables are bound to no MPI object (MPI_T_BIND_NO_OBJECT), so
        // the object handle may be null; out pointers are valid.
        let rc = unsafe {
            ffi::MPI_T_cvar_handle_alloc(index, std::ptr::null_mut(), &mut handle, &mut count)
        };
        check("MPI_T_cvar_handle_alloc", rc)?;
        let result = body(handle, count);
        // SAFETY: `handle` came from MPI_T_cvar_handle_alloc and is freed once.
        unsafe { ffi::MPI_T_cvar_handle_free(&mut handle) };
        result
    }

    /// The names of every performance variable.
    pub fn pvar_names(&self) -> Vec<String> {
        let mut n: c_int = 0;
        // SAFETY: valid out pointer.
        if unsafe { ffi::MPI_T_pvar_get_num(&mut n) } != 0 {
            return Vec::new();
        }
        let mut out = Vec::new();
        for index in 0..n {
            let mut name = [0 as c_char; 256];
            let mut name_len = name.len() as c_int;
            let mut desc = [0 as c_char; 1024];
            let mut desc_len = desc.len() as c_int;
            let (mut verbosity, mut class, mut bind) = (0, 0, 0);
            let (mut readonly, mut continuous, mut atomic) = (0, 0, 0);
            let mut datatype = std::mem::MaybeUninit::<ffi::MPI_Datatype>::zeroed();
            let mut enumtype: ffi::MPI_T_enum = std::ptr::null_mut();
            // SAFETY: every pointer is valid for the length passed with it.
            let rc = unsafe {
                ffi::MPI_T_pvar_get_info(
                    index,
                    name.as_mut_ptr(),
                    &mut name_len,
                    &mut verbosity,
                    &mut class,
                    datatype.as_mut_ptr(),
                    &mut enumtype,
                    desc.as_mut_ptr(),
                    &mut desc_len,
                    &mut bind,
                    &mut readonly,
                    &mut continuous,
                    &mut atomic,
                )
            };
            if rc == 0 {
                out.push(c_string(&name));
            }
        }
        out
    }
}

impl Drop for Mpit {
    fn drop(&mut self) {
        // SAFETY: balances the MPI_T_init_thread of `init`.
        unsafe { ffi::MPI_T_finalize() };
    }
}

fn enum_items(enumtype: ffi::MPI_T_enum) -> Vec<(i32, String)> {
    let mut num: c_int = 0;
    let mut ename = [0 as c_char; 256];
    let mut ename_len = ename.len() as c_int;
    // SAFETY: a non-null enumeration handle from MPI_T_cvar_get_info; valid out pointers.
    if unsafe { ffi::MPI_T_enum_get_info(enumtype, &mut num, ename.as_mut_ptr(), &mut ename_len) }
        != 0
    {
        return Vec::new();
    }
    (0..num)
        .filter_map(|i| {
            let mut value: c_int = 0;
            let mut name = [0 as c_char; 256];
            let mut len = name.len() as c_int;
            // SAFETY: as above, item i < num.
            let rc = unsafe {
                ffi::MPI_T_enum_get_item(enumtype, i, &mut value, name.as_mut_ptr(), &mut len)
            };
            (rc == 0).then(|| (value, c_string(&name)))
        })
        .collect()
}

/// A string MPI_T wrote into `buf`, up to its NUL and without other control characters
/// ([`printable`]): every MPI_T name, description and value enters here, so nothing printed
/// from MPI_T carries a C terminator or a stray control byte.
fn c_string(buf: &[c_char]) -> String {
    // SAFETY: the buffer was zeroed before the library wrote a NUL-terminated string into it,
    // so a NUL lies within it.
    let bytes: Vec<u8> = buf.iter().map(|&c| c as u8).collect();
    CStr::from_bytes_until_nul(&bytes)
        .map(|s| printable(&s.to_string_lossy()))
        .unwrap_or_default()
}

/// The standard name of an MPI_T scope. The standard fixes the names and their order, not the
/// numbers: Open MPI 4.1 numbers them from 0 (`MPI_T_SCOPE_CONSTANT`), MPICH 4.0 from 60438.
pub fn scope_name(raw: c_int) -> &'static str {
    const NAMES: [&str; 7] = [
        "constant", "readonly", "local", "group", "group_eq", "all", "all_eq",
    ];
    let k = if raw >= 60438 { raw - 60438 } else { raw };
    NAMES.get(k as usize).copied().unwrap_or("unknown")
}

/// The running library's algorithm variables, each tried for a run-time write of its own
/// value, and the index of each (for writing later).
///
/// # Errors
/// MPI_T failing to list variables.
pub fn algorithm_variables(
    mpit: &Mpit,
    library: Library,
) -> Result<Vec<(c_int, AlgorithmVariable)>, MpitError> {
    let cvars = mpit.cvars(|name| variable_kernels(library, name).is_some())?;
    let mut out = Vec::new();
    for c in cvars {
        let Some((ops, role)) = variable_kernels(library, &c.name) else {
            continue;
        };
        let values: Vec<AlgorithmValue> = if c.items.is_empty() {
            mpich_choices(&c.name, &c.desc)
                .into_iter()
                .enumerate()
                .map(|(i, name)| AlgorithmValue {
                    value: i as i32,
                    name,
                })
                .collect()
        } else {
            c.items
                .iter()
                .map(|(value, name)| AlgorithmValue {
                    value: *value,
                    name: name.clone(),
                })
                .collect()
        };
        let current = mpit.read(c.index).unwrap_or(-1);
        let scope = scope_name(c.scope);
        let writable =
            !matches!(scope, "constant" | "readonly") && mpit.write(c.index, current).is_ok();
        out.push((
            c.index,
            AlgorithmVariable {
                name: c.name,
                scope: scope.into(),
                writable,
                ops,
                role,
                values,
                current,
            },
        ));
    }
    Ok(out)
}

/// Words in the names of the control variables that choose a point-to-point path: eager
/// limits, rendezvous thresholds and the single-copy mechanisms (Open MPI's `btl_vader_*`,
/// `pml_ob1_*`; MPICH's `MPIR_CVAR_CH3_EAGER_*`, `MPIR_CVAR_CH4_IPC_*`, ...).
const TRANSPORT_WORDS: [&str; 7] = [
    "eager",
    "rndv",
    "single_copy",
    "cma",
    "xpmem",
    "knem",
    "ipc_",
];

/// The running library's integer control variables that choose how a message of a given
/// size travels (eager or rendezvous, copy-in/copy-out or single copy), with their values at
/// the start of the run, for the records (at most 64, in the library's order). Empty when
/// MPI_T cannot list them.
pub fn transport_variables(mpit: &Mpit) -> Vec<(String, i64)> {
    let keep = |name: &str| {
        let lower = name.to_ascii_lowercase();
        TRANSPORT_WORDS.iter().any(|w| lower.contains(w))
    };
    mpit.cvars(keep)
        .unwrap_or_default()
        .iter()
        .filter_map(|c| mpit.read_integer(c).map(|v| (c.name.clone(), v)))
        .take(64)
        .collect()
}

/// The enabling variable (`coll_tuned_use_dynamic_rules`) of `library`: its index, value and
/// whether it can be written at run time.
pub fn enabling_variable(mpit: &Mpit, library: Library) -> Option<(c_int, bool, bool)> {
    let name = library.enabling_variable()?;
    let c = mpit.cvars(|n| n == name).ok()?.into_iter().next()?;
    let value = mpit.read(c.index).ok()? != 0;
    let scope = scope_name(c.scope);
    let writable = !matches!(scope, "constant" | "readonly");
    Some((c.index, value, writable))
}
