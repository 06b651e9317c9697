//! The OTF2 C library (Knüpfer et al. 2012; OTF2 3.0, Debian's `libotf2-trace-dev`) through
//! its C API: the bindings bindgen generates from `otf2/otf2.h` at build time (`build.rs`,
//! feature `otf2`, as rsmpi's are for MPI), and [`ArchiveWriter`], the one safe writer of an
//! archive on top of them. This is the one module that calls the library; no OTF2 record is
//! encoded by hand anywhere.
//!
//! `write.rs` writes an archive, `read.rs` reads one. An archive is written events first (one event writer per location, each location's
//! events in time order) and definitions last ([`GlobalDefs`], handed to
//! [`ArchiveWriter::finish`]), because what the definitions hold (the clock's offset and
//! length, each location's event count, the communicators met) is known only once every
//! event is written.

#[allow(
    non_upper_case_globals,
    non_camel_case_types,
    non_snake_case,
    dead_code,
    missing_docs,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::pedantic
)]
pub(crate) mod bindings {
    include!(concat!(env!("OUT_DIR"), "/otf2_bindings.rs"));
}

mod read;
mod write;

pub use read::{read_trace, EventKind, GroupInfo, RegionInfo, Trace, TraceEvent};
pub use write::{
    collective_name, collective_op, ArchiveWriter, AttrValue, AttributeDef, CommDef, GlobalDefs,
    LocationDef, RegionDef, RegionRole,
};

use bindings as c;
use std::ffi::{CStr, CString};

/// `OTF2_UNDEFINED_UINT32` (a cast in a macro, which bindgen leaves out): no root, no parent.
pub const OTF2_UNDEFINED_UINT32: u32 = u32::MAX;
/// `OTF2_UNDEFINED_TIMESTAMP`: no wall-clock time.
pub const OTF2_UNDEFINED_TIMESTAMP: u64 = u64::MAX;

/// A call into the OTF2 library that failed: which call, and the library's own name and
/// description of its error code.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{call} failed: {message}")]
pub struct Otf2Error {
    /// The C function (`OTF2_Archive_Open`, ...).
    pub call: &'static str,
    /// `OTF2_Error_GetName`: `OTF2_Error_GetDescription`, or what went wrong before the call.
    pub message: String,
}

/// Turns an `OTF2_ErrorCode` into a result.
pub(crate) fn check(call: &'static str, code: c::OTF2_ErrorCode) -> Result<(), Otf2Error> {
    if code == c::OTF2_ErrorCode_OTF2_SUCCESS {
        return Ok(());
    }
    // SAFETY: both return pointers to static, NUL-terminated strings of the library.
    let text = |p: *const std::os::raw::c_char| {
        if p.is_null() {
            String::new()
        } else {
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    let name = text(unsafe { c::OTF2_Error_GetName(code) });
    let description = text(unsafe { c::OTF2_Error_GetDescription(code) });
    Err(Otf2Error {
        call,
        message: format!("{name}: {description}"),
    })
}

/// `p`, or the error of `call` with `message` when the library returned null.
pub(crate) fn non_null<T>(
    p: *mut T,
    call: &'static str,
    message: &str,
) -> Result<*mut T, Otf2Error> {
    if p.is_null() {
        Err(Otf2Error {
            call,
            message: message.into(),
        })
    } else {
        Ok(p)
    }
}

/// A string as C wants it; an interior NUL (never in what delaybench writes) is cut there.
pub(crate) fn c_string(s: &str) -> CString {
    let end = s.find('\0').unwrap_or(s.len());
    CString::new(&s[..end]).expect("no NUL left")
}
