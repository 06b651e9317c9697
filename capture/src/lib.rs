//! `libdelaybench_capture.so`: the Rust half of the PMPI interposer.
//!
//! The C shim (`src/shim.c`) exports the `MPI_*` wrappers, reads the clock around each
//! `PMPI_*` call and buffers fixed-size events; this side
//! - at `MPI_Init` synchronises this rank's clock with world rank 0's on the shim's private
//!   duplicate of `MPI_COMM_WORLD` with delaybench's `offset` method (min-RTT ping-pong,
//!   Niethammer et al. 2016; Hoefler et al. 2010) and writes the capture header,
//! - on each flush resolves new call sites with `dladdr` and appends one chunk frame,
//! - at `MPI_Finalize` synchronises again, when the ranks agreed that every rank still
//!   captures, and writes the footer.
//!
//! The file format is `delaybench::capture`. Nothing here may crash or hang the application:
//! every entry point catches panics, any error switches this rank's capture off with one
//! message on stderr while the calls keep passing through, and the finalize synchronisation,
//! which needs every rank, runs only when no rank's capture has stopped (the shim agrees on
//! that with one allreduce first); otherwise every file that is still written gets a footer
//! saying it was skipped.

use delaybench::capture::{
    is_algorithm_variable, CaptureChunk, CaptureCounts, CaptureEvent, CaptureFooter, CaptureHeader,
    CaptureOp, CaptureSite, CaptureSync, CaptureWriter, CAPTURE_FORMAT_NAME,
    CAPTURE_FORMAT_VERSION, MAX_VECTORS_PER_SITE,
};
use delaybench::clock::{Clock, ClockSync, MonotonicClock, OffsetSync, Transport, MAX_MSG_LEN};
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::collections::HashSet;
use std::ffi::CStr;
use std::os::raw::{c_char, c_double, c_int};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

/// One call as the shim stores it (`dbc_event` in shim.c, 64 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct RawEvent {
    ra: u64,
    comm_id: u64,
    bytes: u64,
    t_enter: f64,
    t_exit: f64,
    root: i32,
    comm_size: u32,
    comm_rank: u32,
    op: u32,
    /// 0, or the count vector's hash; the top bit says the vector is in the flush's counts.
    counts: u64,
}

/// The top bit of [`RawEvent::counts`]: the vector follows in the counts buffer.
const IN_BUFFER: u64 = 1 << 63;

extern "C" {
    fn dbc_c_send(to: c_int, msg: *const c_double, n: c_int);
    fn dbc_c_recv(from: c_int, msg: *mut c_double, n: c_int);
}

/// The clock synchronisation's transport over the shim's private communicator.
struct ShimTransport {
    rank: usize,
    size: usize,
}

impl Transport for ShimTransport {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.size
    }
    fn now(&self) -> f64 {
        MonotonicClock.now()
    }
    fn send(&self, to: usize, msg: &[f64]) {
        // SAFETY: msg is a valid slice of msg.len() doubles; the shim sends them on its
        // private communicator, which exists from MPI_Init to MPI_Finalize.
        unsafe { dbc_c_send(to as c_int, msg.as_ptr(), msg.len() as c_int) }
    }
    fn recv(&self, from: usize) -> Vec<f64> {
        let mut msg = vec![0.0; MAX_MSG_LEN];
        // SAFETY: msg has room for MAX_MSG_LEN doubles, the most a message holds.
        unsafe { dbc_c_recv(from as c_int, msg.as_mut_ptr(), MAX_MSG_LEN as c_int) };
        msg
    }
}

/// Exchanges per peer without a smaller RTT that end a synchronisation (Hoefler et al.
/// 2010 use 100; 50 keeps MPI_Init quick on many ranks).
const NONIMPROVING: u32 = 50;

fn synchronise(t: &ShimTransport) -> CaptureSync {
    let sync = OffsetSync {
        nonimproving: NONIMPROVING,
        max_exchanges: 10_000,
    };
    let before = t.now();
    let out = sync.synchronize(t);
    let after = t.now();
    let local_s = 0.5 * (before + after);
    CaptureSync {
        local_s,
        offset_s: out.model.offset_at(local_s),
        rtt_s: out.rtt_s,
    }
}

/// A failure the tests inject on one rank (`DELAYBENCH_CAPTURE_TEST_FAIL`, docs/capture.md):
/// the failures a full or read-only disk causes, on demand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// Creating the capture directory fails.
    Dir,
    /// The n-th chunk frame (from 1) is torn: half of it is written, then the write fails.
    Write(u64),
}

/// The test-only variable: `<rank>:dir` or `<rank>:write:<n>`; the fault of this `rank`, if
/// the variable names it. A value that is neither is ignored with a message.
fn fault(rank: usize) -> Option<Fault> {
    let spec = std::env::var("DELAYBENCH_CAPTURE_TEST_FAIL").ok()?;
    let parts: Vec<&str> = spec.split(':').collect();
    let parsed = match parts.as_slice() {
        [r, "dir"] => r.parse::<usize>().ok().map(|r| (r, Fault::Dir)),
        [r, "write", n] => match (r.parse::<usize>(), n.parse::<u64>()) {
            (Ok(r), Ok(n)) if n >= 1 => Some((r, Fault::Write(n))),
            _ => None,
        },
        _ => None,
    };
    match parsed {
        Some((r, f)) => (r == rank).then_some(f),
        None => {
            if rank == 0 {
                say(&format!(
                    "ignoring DELAYBENCH_CAPTURE_TEST_FAIL={spec}: expected RANK:dir or \
                     RANK:write:N"
                ));
            }
            None
        }
    }
}

/// The error of the [`Fault::Write`] frame: writes the chunk, then cuts the file in the
/// middle of that frame, as a disk that fills up during the write leaves it.
fn torn_write(state: &mut State, chunk: &CaptureChunk) -> String {
    let len = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let before = len(&state.path);
    let cut = state.writer.chunk(chunk).map(|()| {
        let after = len(&state.path);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&state.path)
            .and_then(|f| f.set_len(before + (after - before) / 2))
    });
    let what = match cut {
        Ok(Ok(())) => "a torn frame".to_string(),
        Ok(Err(e)) => format!("cannot tear the frame: {e}"),
        Err(e) => e.to_string(),
    };
    format!(
        "capture file {}: write failed ({what}, injected by DELAYBENCH_CAPTURE_TEST_FAIL)",
        state.path.display()
    )
}

struct State {
    writer: CaptureWriter,
    /// This rank's file.
    path: PathBuf,
    /// The MPI_Init synchronisation, which the footer repeats when the finalize one is skipped.
    sync_init: CaptureSync,
    /// Chunk frames written so far.
    chunks: u64,
    /// The test-only fault of this rank.
    fault: Option<Fault>,
    sites: HashMap<u64, u32>,
    /// The count vectors written so far, per site: their hashes.
    vectors: HashMap<u32, HashSet<u64>>,
    events: u64,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn say(what: &str) {
    eprintln!("delaybench-capture: {what}");
}

/// This process's world rank, for the messages ([`dbc_rust_start`] sets it).
static RANK: AtomicUsize = AtomicUsize::new(0);

/// [`say`] for one rank's failure: which rank, since every rank prints its own.
fn say_rank(what: &str) {
    say(&format!("rank {}: {what}", RANK.load(Ordering::Relaxed)));
}

fn hostname() -> String {
    nix_hostname().unwrap_or_default()
}

fn nix_hostname() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: buf is writable for its length; gethostname NUL-terminates within it or fails.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    Some(String::from_utf8_lossy(&buf[..end]).into_owned())
}

fn command_line() -> Vec<String> {
    std::fs::read("/proc/self/cmdline")
        .map(|b| {
            b.split(|&c| c == 0)
                .filter(|s| !s.is_empty())
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The capture's directory: `$DELAYBENCH_CAPTURE_DIR`, else
/// `delaybench-capture-<UTC stamp>-<rank 0's pid>` in the working directory.
fn capture_dir(stamp_s: i64, pid0: i64) -> (PathBuf, String) {
    let when = chrono::DateTime::from_timestamp(stamp_s, 0)
        .map(|t| t.format("%Y%m%dT%H%M%SZ").to_string())
        .unwrap_or_else(|| stamp_s.to_string());
    let id = format!("{when}-{pid0}");
    let dir = std::env::var_os("DELAYBENCH_CAPTURE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(format!("delaybench-capture-{id}")));
    (dir, id)
}

/// The environment's variables that choose collective algorithms
/// ([`is_algorithm_variable`]), name to value.
fn algorithm_variables() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| is_algorithm_variable(k))
        .collect()
}

fn start(
    rank: usize,
    size: usize,
    stamp_s: i64,
    pid0: i64,
    library: Option<String>,
) -> Result<State, String> {
    let transport = ShimTransport { rank, size };
    // First, before anything on this rank can fail: every rank must take part.
    let sync_init = synchronise(&transport);
    let (dir, capture_id) = capture_dir(stamp_s, pid0);
    let fault = fault(rank);
    let created = if fault == Some(Fault::Dir) {
        Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "injected by DELAYBENCH_CAPTURE_TEST_FAIL",
        ))
    } else {
        std::fs::create_dir_all(&dir)
    };
    created.map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(format!("rank{rank}.cbor"));
    let header = CaptureHeader {
        item: "capture_header".into(),
        format: CAPTURE_FORMAT_NAME.into(),
        version: CAPTURE_FORMAT_VERSION,
        rank: rank as u32,
        world_size: size as u32,
        capture_id,
        host: hostname(),
        pid: std::process::id(),
        command: command_line(),
        clock: MonotonicClock.name().into(),
        sync_init,
        t_start_s: transport.now(),
        mpi_library: library,
        algorithm_variables: algorithm_variables(),
    };
    let writer = CaptureWriter::create(&path, &header).map_err(|e| e.to_string())?;
    if rank == 0 {
        say(&format!("capturing into {}", dir.display()));
    }
    Ok(State {
        writer,
        path,
        sync_init,
        chunks: 0,
        fault,
        sites: HashMap::new(),
        vectors: HashMap::new(),
        events: 0,
    })
}

/// Called by the shim after MPI_Init: synchronises the clock, creates the rank's file.
/// Returns 0 when capturing, 1 when not (a message was printed).
#[no_mangle]
pub extern "C" fn dbc_rust_start(
    rank: c_int,
    size: c_int,
    stamp_s: i64,
    pid0: i64,
    library: *const c_char,
) -> c_int {
    RANK.store(rank as usize, Ordering::Relaxed);
    // SAFETY: the shim passes a NUL-terminated static buffer (or null).
    let library = (!library.is_null())
        .then(|| {
            unsafe { CStr::from_ptr(library) }
                .to_string_lossy()
                .trim()
                .to_owned()
        })
        .filter(|s| !s.is_empty());
    let r =
        std::panic::catch_unwind(|| start(rank as usize, size as usize, stamp_s, pid0, library));
    match r {
        Ok(Ok(state)) => {
            if let Ok(mut g) = STATE.lock() {
                *g = Some(state);
                return 0;
            }
            1
        }
        Ok(Err(e)) => {
            say_rank(&format!("not capturing: {e}"));
            1
        }
        Err(_) => {
            say_rank("not capturing: internal error at MPI_Init");
            1
        }
    }
}

/// Resolves a return address with dladdr: module file name, offset in it, symbol.
fn resolve(ra: u64, id: u32) -> CaptureSite {
    let mut info = libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    // SAFETY: dladdr only reads the address and fills `info`.
    let ok = unsafe { libc::dladdr(ra as *const libc::c_void, &mut info) } != 0;
    let text = |p: *const libc::c_char| {
        // SAFETY: dladdr's strings are NUL-terminated and live as long as the module.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    };
    if !ok {
        return CaptureSite {
            id,
            module: String::new(),
            offset: ra,
            symbol: None,
            symbol_offset: 0,
        };
    }
    let module = text(info.dli_fname)
        .map(|m| m.rsplit('/').next().unwrap_or_default().to_owned())
        .unwrap_or_default();
    let symbol = text(info.dli_sname);
    CaptureSite {
        id,
        module,
        offset: ra.wrapping_sub(info.dli_fbase as u64),
        symbol_offset: if symbol.is_some() {
            ra.wrapping_sub(info.dli_saddr as u64)
        } else {
            0
        },
        symbol,
    }
}

fn flush(state: &mut State, raw: &[RawEvent], counts: &[u64]) -> Result<(), String> {
    let mut sites = Vec::new();
    let mut events = Vec::with_capacity(raw.len());
    let mut vectors = Vec::new();
    // The events' vectors lie in `counts` one after the other, comm_size entries each.
    let mut next_vector = 0usize;
    for e in raw {
        let vector = if e.counts & IN_BUFFER != 0 {
            let n = e.comm_size as usize;
            let v = counts.get(next_vector..next_vector + n);
            next_vector += n;
            v
        } else {
            None
        };
        let Some(op) = CaptureOp::from_code(e.op) else {
            continue;
        };
        let next = state.sites.len() as u32;
        let site = *state.sites.entry(e.ra).or_insert_with(|| {
            sites.push(resolve(e.ra, next));
            next
        });
        let hash = e.counts & !IN_BUFFER;
        if let Some(v) = vector {
            let seen = state.vectors.entry(site).or_default();
            if seen.len() < MAX_VECTORS_PER_SITE && seen.insert(hash) {
                vectors.push(CaptureCounts {
                    site,
                    hash,
                    bytes: v.to_vec(),
                });
            }
        }
        events.push(CaptureEvent {
            op,
            comm: e.comm_id,
            comm_size: e.comm_size,
            comm_rank: e.comm_rank,
            bytes: e.bytes,
            root: e.root,
            site,
            t_enter_s: e.t_enter,
            t_exit_s: e.t_exit,
            counts_hash: (hash != 0).then_some(hash),
        });
    }
    state.events += events.len() as u64;
    let chunk = CaptureChunk {
        item: "capture_chunk".into(),
        sites,
        events,
        counts: vectors,
    };
    state.chunks += 1;
    if state.fault == Some(Fault::Write(state.chunks)) {
        return Err(torn_write(state, &chunk));
    }
    state.writer.chunk(&chunk).map_err(|e| e.to_string())
}

/// Called by the shim with `n` buffered events and the `ncounts` entries of their count
/// vectors. Returns 0 while capturing, 1 once this rank's capture has stopped (a message was
/// printed; the shim then lets every call pass through).
///
/// # Safety
/// `events` points to `n` valid `dbc_event`s, `counts` to `ncounts` u64 (or is null when
/// `ncounts` is 0).
#[no_mangle]
pub unsafe extern "C" fn dbc_rust_flush(
    events: *const RawEvent,
    n: usize,
    counts: *const u64,
    ncounts: usize,
) -> c_int {
    if events.is_null() || n == 0 {
        return 0;
    }
    // SAFETY: the caller passes n valid events.
    let raw = unsafe { std::slice::from_raw_parts(events, n) };
    let counts: &[u64] = if counts.is_null() || ncounts == 0 {
        &[]
    } else {
        // SAFETY: the caller passes ncounts valid entries.
        unsafe { std::slice::from_raw_parts(counts, ncounts) }
    };
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut g = STATE.lock().map_err(|_| "lock poisoned".to_string())?;
        // None: stopped earlier, and said so then.
        g.as_mut()
            .map(|state| flush(state, raw, counts))
            .transpose()
    }));
    let failed = match r {
        Ok(Ok(Some(()))) => return 0,
        Ok(Ok(None)) => return 1,
        Ok(Err(e)) => e,
        Err(_) => "internal error".into(),
    };
    say_rank(&format!("stopped writing the capture: {failed}"));
    // A panic above poisons the lock with the state inside: take it out all the same.
    *STATE.lock().unwrap_or_else(PoisonError::into_inner) = None;
    1
}

/// Called by the shim at MPI_Finalize on every rank that ran [`dbc_rust_start`] (after the
/// last flush and the agreement): `all_on` is 1 when every rank still captures, and then
/// every rank synchronises again, whatever its own state, since the synchronisation needs
/// them all; else none does and each footer repeats the MPI_Init synchronisation and says
/// the finalize one was skipped. Writes this rank's footer while it still captures.
#[no_mangle]
pub extern "C" fn dbc_rust_finish(passed_through: u64, all_on: c_int, rank: c_int, size: c_int) {
    let (rank, size) = (rank as usize, size as usize);
    let r = std::panic::catch_unwind(|| {
        let state = STATE.lock().unwrap_or_else(PoisonError::into_inner).take();
        let sync_finalize = (all_on != 0).then(|| synchronise(&ShimTransport { rank, size }));
        if sync_finalize.is_none() && rank == 0 {
            say(
                "a rank's capture stopped (its message above), so the MPI_Finalize clock \
                 synchronisation is skipped: every file still written uses the MPI_Init \
                 offsets only",
            );
        }
        let state = state?;
        let footer = CaptureFooter {
            item: "capture_footer".into(),
            sync_finalize: sync_finalize.unwrap_or(state.sync_init),
            events: state.events,
            passed_through,
            finalize_sync_skipped: sync_finalize.is_none(),
        };
        Some(state.writer.finish(&footer).map_err(|e| e.to_string()))
    });
    match r {
        Ok(Some(Err(e))) => say_rank(&format!("cannot finish the capture: {e}")),
        Err(_) => say_rank("internal error at MPI_Finalize"),
        _ => {}
    }
}
