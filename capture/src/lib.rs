//! `libdelaybench_capture.so`: the Rust half of the PMPI interposer.
//!
//! The C shim (`src/shim.c`) exports the `MPI_*` wrappers, reads the clock around each
//! `PMPI_*` call and buffers fixed-size events; this side
//! - at `MPI_Init` synchronises this rank's clock with world rank 0's on the shim's private
//!   duplicate of `MPI_COMM_WORLD` with delaybench's `offset` method (min-RTT ping-pong,
//!   Niethammer et al. 2016; Hoefler et al. 2010) and writes the capture header,
//! - on each flush resolves new call sites with `dladdr` and appends one chunk frame,
//! - at `MPI_Finalize` synchronises again and writes the footer.
//!
//! The file format is `delaybench::capture`. Nothing here may crash the application:
//! every entry point catches panics, and any error switches the capture off with one message
//! on stderr while the calls keep passing through.

use delaybench::capture::{
    CaptureChunk, CaptureCounts, CaptureEvent, CaptureFooter, CaptureHeader, CaptureOp,
    CaptureSite, CaptureSync, CaptureWriter, CAPTURE_FORMAT_NAME, CAPTURE_FORMAT_VERSION,
    MAX_VECTORS_PER_SITE,
};
use delaybench::clock::{Clock, ClockSync, MonotonicClock, OffsetSync, Transport, MAX_MSG_LEN};
use std::collections::HashMap;
use std::collections::HashSet;
use std::ffi::CStr;
use std::os::raw::{c_double, c_int};
use std::path::PathBuf;
use std::sync::Mutex;

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

struct State {
    transport: ShimTransport,
    writer: CaptureWriter,
    sites: HashMap<u64, u32>,
    /// The count vectors written so far, per site: their hashes.
    vectors: HashMap<u32, HashSet<u64>>,
    events: u64,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn say(what: &str) {
    eprintln!("delaybench-capture: {what}");
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

fn start(rank: usize, size: usize, stamp_s: i64, pid0: i64) -> Result<State, String> {
    let transport = ShimTransport { rank, size };
    let sync_init = synchronise(&transport);
    let (dir, capture_id) = capture_dir(stamp_s, pid0);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
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
    };
    let writer = CaptureWriter::create(&path, &header).map_err(|e| e.to_string())?;
    if rank == 0 {
        say(&format!("capturing into {}", dir.display()));
    }
    Ok(State {
        transport,
        writer,
        sites: HashMap::new(),
        vectors: HashMap::new(),
        events: 0,
    })
}

/// Called by the shim after MPI_Init: synchronises the clock, creates the rank's file.
/// Returns 0 when capturing, 1 when not (a message was printed).
#[no_mangle]
pub extern "C" fn dbc_rust_start(rank: c_int, size: c_int, stamp_s: i64, pid0: i64) -> c_int {
    let r = std::panic::catch_unwind(|| start(rank as usize, size as usize, stamp_s, pid0));
    match r {
        Ok(Ok(state)) => {
            if let Ok(mut g) = STATE.lock() {
                *g = Some(state);
                return 0;
            }
            1
        }
        Ok(Err(e)) => {
            say(&format!("not capturing: {e}"));
            1
        }
        Err(_) => {
            say("not capturing: internal error at MPI_Init");
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
    state
        .writer
        .chunk(&CaptureChunk {
            item: "capture_chunk".into(),
            sites,
            events,
            counts: vectors,
        })
        .map_err(|e| e.to_string())
}

/// Called by the shim with `n` buffered events and the `ncounts` entries of their count
/// vectors.
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
) {
    if events.is_null() || n == 0 {
        return;
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
        match g.as_mut() {
            Some(state) => flush(state, raw, counts),
            None => Ok(()),
        }
    }));
    let failed = match r {
        Ok(Ok(())) => return,
        Ok(Err(e)) => e,
        Err(_) => "internal error".into(),
    };
    say(&format!("stopped writing the capture: {failed}"));
    if let Ok(mut g) = STATE.lock() {
        *g = None;
    }
}

/// Called by the shim at MPI_Finalize (after the last flush): synchronises again and
/// writes the footer.
#[no_mangle]
pub extern "C" fn dbc_rust_finish(passed_through: u64) {
    let r = std::panic::catch_unwind(|| {
        let state = STATE.lock().ok()?.take()?;
        let sync_finalize = synchronise(&state.transport);
        let footer = CaptureFooter {
            item: "capture_footer".into(),
            sync_finalize,
            events: state.events,
            passed_through,
        };
        Some(state.writer.finish(&footer).map_err(|e| e.to_string()))
    });
    match r {
        Ok(Some(Err(e))) => say(&format!("cannot finish the capture: {e}")),
        Err(_) => say("internal error at MPI_Finalize"),
        _ => {}
    }
}
