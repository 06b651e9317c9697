//! Reading an OTF2 archive through the library's global definition and event readers:
//! [`read_trace`] into a [`Trace`] of plain data.

use super::bindings as c;
use super::{c_string, check, non_null, Otf2Error};
use std::ffi::CStr;
use std::path::Path;

/// A region definition as read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RegionInfo {
    /// Its name.
    pub name: String,
    /// Its source file, empty when the archive names none.
    pub file: String,
    /// Its first line, 0 when unknown.
    pub line: u32,
    /// True for paradigm MPI.
    pub mpi: bool,
}

/// A group definition as read: its `OTF2_GroupType` and members.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupInfo {
    /// True for `OTF2_GROUP_TYPE_COMM_LOCATIONS` (the MPI ranks' locations, in rank order).
    pub comm_locations: bool,
    /// True for `OTF2_GROUP_TYPE_COMM_GROUP` (a communicator's ranks).
    pub comm_group: bool,
    /// True for paradigm MPI.
    pub mpi: bool,
    /// The members: locations, or ranks (indices into the COMM_LOCATIONS group).
    pub members: Vec<u64>,
}

/// One event of the kinds delaybench reads, on one location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// `Enter` of a region.
    Enter(u32),
    /// `Leave` of a region.
    Leave(u32),
    /// `MpiCollectiveBegin`.
    CollectiveBegin,
    /// `MpiCollectiveEnd`: `OTF2_CollectiveOp`, communicator, root (or
    /// [`OTF2_UNDEFINED_UINT32`]), bytes sent and received.
    CollectiveEnd {
        /// The collective.
        op: u8,
        /// The communicator's definition.
        comm: u32,
        /// The root, or [`OTF2_UNDEFINED_UINT32`].
        root: u32,
        /// Bytes sent by this location.
        sent: u64,
        /// Bytes received by this location.
        received: u64,
    },
}

/// One event: where, when (ticks), what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceEvent {
    /// The location.
    pub location: u64,
    /// Ticks of the archive's timer.
    pub time: u64,
    /// What happened.
    pub kind: EventKind,
}

/// What delaybench reads of an archive: the definitions it needs and every `Enter`,
/// `Leave` and MPI collective event, in the global reader's time order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    /// Ticks per second.
    pub timer_resolution: u64,
    /// The tick of the trace's start.
    pub global_offset: u64,
    /// Whether the archive had `ClockProperties`.
    pub has_clock: bool,
    /// Strings by reference.
    pub strings: std::collections::HashMap<u32, String>,
    /// Regions by reference.
    pub regions: std::collections::HashMap<u32, RegionInfo>,
    /// Groups by reference.
    pub groups: std::collections::HashMap<u32, GroupInfo>,
    /// Communicators by reference: their group.
    pub comms: std::collections::HashMap<u32, u32>,
    /// Locations: (id, location group).
    pub locations: Vec<(u64, u32)>,
    /// Location groups by reference: (name, system tree parent).
    pub location_groups: std::collections::HashMap<u32, (String, u32)>,
    /// System tree nodes by reference: their names.
    pub nodes: std::collections::HashMap<u32, String>,
    /// The events, in time order across locations.
    pub events: Vec<TraceEvent>,
    /// Region names, resolved once the strings are read.
    names: std::collections::HashMap<u32, (u32, u32)>,
}

impl Trace {
    /// The string of `r`, empty when undefined.
    pub fn string(&self, r: u32) -> String {
        self.strings.get(&r).cloned().unwrap_or_default()
    }
}

type Data = *mut std::ffi::c_void;
const OK: c::OTF2_CallbackCode = c::OTF2_CallbackCode_enum_OTF2_CALLBACK_SUCCESS;

/// The trace behind a callback's user data.
///
/// # Safety
/// `data` is the `&mut Trace` [`read_trace`] registered.
unsafe fn trace<'a>(data: Data) -> &'a mut Trace {
    &mut *(data as *mut Trace)
}

unsafe extern "C" fn on_string(
    data: Data,
    r: u32,
    s: *const std::os::raw::c_char,
) -> c::OTF2_CallbackCode {
    let s = if s.is_null() {
        String::new()
    } else {
        CStr::from_ptr(s).to_string_lossy().into_owned()
    };
    trace(data).strings.insert(r, s);
    OK
}

unsafe extern "C" fn on_clock(
    data: Data,
    resolution: u64,
    offset: u64,
    _: u64,
    _: u64,
) -> c::OTF2_CallbackCode {
    let t = trace(data);
    (t.timer_resolution, t.global_offset, t.has_clock) = (resolution, offset, true);
    OK
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn on_region(
    data: Data,
    r: u32,
    name: u32,
    _: u32,
    _: u32,
    _: c::OTF2_RegionRole,
    paradigm: c::OTF2_Paradigm,
    _: c::OTF2_RegionFlag,
    file: u32,
    line: u32,
    _: u32,
) -> c::OTF2_CallbackCode {
    let t = trace(data);
    t.names.insert(r, (name, file));
    t.regions.insert(
        r,
        RegionInfo {
            line,
            mpi: paradigm == c::OTF2_Paradigm_enum_OTF2_PARADIGM_MPI as c::OTF2_Paradigm,
            ..RegionInfo::default()
        },
    );
    OK
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn on_group(
    data: Data,
    r: u32,
    _: u32,
    kind: c::OTF2_GroupType,
    paradigm: c::OTF2_Paradigm,
    _: c::OTF2_GroupFlag,
    n: u32,
    members: *const u64,
) -> c::OTF2_CallbackCode {
    let members = if members.is_null() || n == 0 {
        Vec::new()
    } else {
        std::slice::from_raw_parts(members, n as usize).to_vec()
    };
    trace(data).groups.insert(
        r,
        GroupInfo {
            comm_locations: kind
                == c::OTF2_GroupType_enum_OTF2_GROUP_TYPE_COMM_LOCATIONS as c::OTF2_GroupType,
            comm_group: kind
                == c::OTF2_GroupType_enum_OTF2_GROUP_TYPE_COMM_GROUP as c::OTF2_GroupType,
            mpi: paradigm == c::OTF2_Paradigm_enum_OTF2_PARADIGM_MPI as c::OTF2_Paradigm,
            members,
        },
    );
    OK
}

unsafe extern "C" fn on_comm(
    data: Data,
    r: u32,
    _: u32,
    group: u32,
    _: u32,
    _: c::OTF2_CommFlag,
) -> c::OTF2_CallbackCode {
    trace(data).comms.insert(r, group);
    OK
}

unsafe extern "C" fn on_location(
    data: Data,
    r: u64,
    _: u32,
    _: c::OTF2_LocationType,
    _: u64,
    group: u32,
) -> c::OTF2_CallbackCode {
    trace(data).locations.push((r, group));
    OK
}

unsafe extern "C" fn on_location_group(
    data: Data,
    r: u32,
    name: u32,
    _: c::OTF2_LocationGroupType,
    parent: u32,
    _: u32,
) -> c::OTF2_CallbackCode {
    let t = trace(data);
    let name = t.string(name);
    t.location_groups.insert(r, (name, parent));
    OK
}

unsafe extern "C" fn on_node(
    data: Data,
    r: u32,
    name: u32,
    _: u32,
    _: u32,
) -> c::OTF2_CallbackCode {
    let t = trace(data);
    let name = t.string(name);
    t.nodes.insert(r, name);
    OK
}

unsafe extern "C" fn on_enter(
    l: u64,
    time: u64,
    data: Data,
    _: *mut c::OTF2_AttributeList,
    r: u32,
) -> c::OTF2_CallbackCode {
    trace(data).events.push(TraceEvent {
        location: l,
        time,
        kind: EventKind::Enter(r),
    });
    OK
}

unsafe extern "C" fn on_leave(
    l: u64,
    time: u64,
    data: Data,
    _: *mut c::OTF2_AttributeList,
    r: u32,
) -> c::OTF2_CallbackCode {
    trace(data).events.push(TraceEvent {
        location: l,
        time,
        kind: EventKind::Leave(r),
    });
    OK
}

unsafe extern "C" fn on_coll_begin(
    l: u64,
    time: u64,
    data: Data,
    _: *mut c::OTF2_AttributeList,
) -> c::OTF2_CallbackCode {
    trace(data).events.push(TraceEvent {
        location: l,
        time,
        kind: EventKind::CollectiveBegin,
    });
    OK
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn on_coll_end(
    l: u64,
    time: u64,
    data: Data,
    _: *mut c::OTF2_AttributeList,
    op: c::OTF2_CollectiveOp,
    comm: u32,
    root: u32,
    sent: u64,
    received: u64,
) -> c::OTF2_CallbackCode {
    let kind = EventKind::CollectiveEnd {
        op,
        comm,
        root,
        sent,
        received,
    };
    trace(data).events.push(TraceEvent {
        location: l,
        time,
        kind,
    });
    OK
}

/// Reads the archive whose anchor file is `anchor` (`DIR/traces.otf2`): its global
/// definitions, and every `Enter`, `Leave` and MPI collective event of every location in
/// time order, through the library's global event reader.
///
/// Errors: [`Otf2Error`] when the library cannot open or read it (a missing or damaged
/// file: the library's message says which).
pub fn read_trace(anchor: &Path) -> Result<Trace, Otf2Error> {
    let path = c_string(&anchor.to_string_lossy());
    let mut t = Box::new(Trace::default());
    let data = (&mut *t) as *mut Trace as Data;
    // SAFETY: every handle is the library's for this reader, closed once below or by
    // `Reader`'s Drop; `data` points at `t`, which outlives the reads; the callbacks match
    // the library's prototypes (bindgen's types).
    unsafe {
        let reader = non_null(
            c::OTF2_Reader_Open(path.as_ptr()),
            "OTF2_Reader_Open",
            &format!("cannot open {}", anchor.display()),
        )?;
        let reader = Reader(reader);
        let r = reader.0;
        check(
            "OTF2_Reader_SetSerialCollectiveCallbacks",
            c::OTF2_Reader_SetSerialCollectiveCallbacks(r),
        )?;
        let defs = non_null(
            c::OTF2_Reader_GetGlobalDefReader(r),
            "OTF2_Reader_GetGlobalDefReader",
            "no global definitions",
        )?;
        let cb = c::OTF2_GlobalDefReaderCallbacks_New();
        c::OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, Some(on_string));
        c::OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, Some(on_clock));
        c::OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, Some(on_region));
        c::OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, Some(on_group));
        c::OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, Some(on_comm));
        c::OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, Some(on_location));
        c::OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, Some(on_location_group));
        c::OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, Some(on_node));
        let registered = c::OTF2_Reader_RegisterGlobalDefCallbacks(r, defs, cb, data);
        c::OTF2_GlobalDefReaderCallbacks_Delete(cb);
        check("OTF2_Reader_RegisterGlobalDefCallbacks", registered)?;
        let mut n = 0u64;
        check(
            "OTF2_Reader_ReadAllGlobalDefinitions",
            c::OTF2_Reader_ReadAllGlobalDefinitions(r, defs, &mut n),
        )?;
        check(
            "OTF2_Reader_CloseGlobalDefReader",
            c::OTF2_Reader_CloseGlobalDefReader(r, defs),
        )?;
        let names = std::mem::take(&mut t.names);
        for (region, (name, file)) in names {
            let (name, file) = (t.string(name), t.string(file));
            if let Some(info) = t.regions.get_mut(&region) {
                (info.name, info.file) = (name, file);
            }
        }
        let locations: Vec<u64> = t.locations.iter().map(|l| l.0).collect();
        for &l in &locations {
            check(
                "OTF2_Reader_SelectLocation",
                c::OTF2_Reader_SelectLocation(r, l),
            )?;
        }
        // The local definitions (mapping tables, when a location has them); an archive
        // without local definition files is read without them, as otf2-print does.
        let has_defs = c::OTF2_Reader_OpenDefFiles(r) == c::OTF2_ErrorCode_OTF2_SUCCESS;
        check("OTF2_Reader_OpenEvtFiles", c::OTF2_Reader_OpenEvtFiles(r))?;
        for &l in &locations {
            if has_defs {
                let d = c::OTF2_Reader_GetDefReader(r, l);
                if !d.is_null() {
                    let mut n = 0u64;
                    c::OTF2_Reader_ReadAllLocalDefinitions(r, d, &mut n);
                    c::OTF2_Reader_CloseDefReader(r, d);
                }
            }
            // The event reader of each location, for the global reader to merge.
            c::OTF2_Reader_GetEvtReader(r, l);
        }
        if has_defs {
            c::OTF2_Reader_CloseDefFiles(r);
        }
        let events = non_null(
            c::OTF2_Reader_GetGlobalEvtReader(r),
            "OTF2_Reader_GetGlobalEvtReader",
            "no event reader (no locations?)",
        )?;
        let cb = c::OTF2_GlobalEvtReaderCallbacks_New();
        c::OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, Some(on_enter));
        c::OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, Some(on_leave));
        c::OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, Some(on_coll_begin));
        c::OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, Some(on_coll_end));
        let registered = c::OTF2_Reader_RegisterGlobalEvtCallbacks(r, events, cb, data);
        c::OTF2_GlobalEvtReaderCallbacks_Delete(cb);
        check("OTF2_Reader_RegisterGlobalEvtCallbacks", registered)?;
        let mut n = 0u64;
        check(
            "OTF2_Reader_ReadAllGlobalEvents",
            c::OTF2_Reader_ReadAllGlobalEvents(r, events, &mut n),
        )?;
        check(
            "OTF2_Reader_CloseGlobalEvtReader",
            c::OTF2_Reader_CloseGlobalEvtReader(r, events),
        )?;
        check("OTF2_Reader_CloseEvtFiles", c::OTF2_Reader_CloseEvtFiles(r))?;
    }
    Ok(*t)
}

/// An open `OTF2_Reader`, closed when dropped (also on an early error).
struct Reader(*mut c::OTF2_Reader);

impl Drop for Reader {
    fn drop(&mut self) {
        // SAFETY: the reader is the library's, closed once here.
        unsafe {
            c::OTF2_Reader_Close(self.0);
        }
    }
}
