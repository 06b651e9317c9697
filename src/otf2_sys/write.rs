//! Writing an OTF2 archive through the library: [`ArchiveWriter`] and the definitions it
//! writes last ([`GlobalDefs`]).

use super::bindings as c;
use super::{c_string, check, non_null, Otf2Error, OTF2_UNDEFINED_UINT32};
use std::path::{Path, PathBuf};
use std::ptr;

/// A value of an OTF2 attribute ([`GlobalDefs::attributes`] gives each its type).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum AttrValue {
    /// `OTF2_TYPE_UINT8`.
    U8(u8),
    /// `OTF2_TYPE_UINT32`.
    U32(u32),
    /// `OTF2_TYPE_UINT64`.
    U64(u64),
    /// `OTF2_TYPE_DOUBLE`.
    F64(f64),
    /// `OTF2_TYPE_STRING`: a string reference of [`GlobalDefs::strings`].
    Str(u32),
}

impl AttrValue {
    /// The `OTF2_Type` of the value.
    pub fn otf2_type(self) -> u8 {
        (match self {
            AttrValue::U8(_) => c::OTF2_Type_enum_OTF2_TYPE_UINT8,
            AttrValue::U32(_) => c::OTF2_Type_enum_OTF2_TYPE_UINT32,
            AttrValue::U64(_) => c::OTF2_Type_enum_OTF2_TYPE_UINT64,
            AttrValue::F64(_) => c::OTF2_Type_enum_OTF2_TYPE_DOUBLE,
            AttrValue::Str(_) => c::OTF2_Type_enum_OTF2_TYPE_STRING,
        }) as u8
    }
}

/// A region's role (`OTF2_RegionRole`), as Score-P gives MPI's functions, so that Vampir and
/// Scalasca tell collectives apart by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionRole {
    /// A function of the user's (or delaybench's own) code.
    Function,
    /// Something the tool added (an injected delay, a detour).
    Artificial,
    /// `MPI_Barrier`.
    Barrier,
    /// One to all (broadcast, scatter).
    OneToAll,
    /// All to one (gather, reduce).
    AllToOne,
    /// All to all (allreduce, alltoall, allgather, reduce-scatter).
    AllToAll,
    /// The other collectives (scan, exscan).
    CollOther,
}

impl RegionRole {
    fn code(self) -> u8 {
        (match self {
            RegionRole::Function => c::OTF2_RegionRole_enum_OTF2_REGION_ROLE_FUNCTION,
            RegionRole::Artificial => c::OTF2_RegionRole_enum_OTF2_REGION_ROLE_ARTIFICIAL,
            RegionRole::Barrier => c::OTF2_RegionRole_enum_OTF2_REGION_ROLE_BARRIER,
            RegionRole::OneToAll => c::OTF2_RegionRole_enum_OTF2_REGION_ROLE_COLL_ONE2ALL,
            RegionRole::AllToOne => c::OTF2_RegionRole_enum_OTF2_REGION_ROLE_COLL_ALL2ONE,
            RegionRole::AllToAll => c::OTF2_RegionRole_enum_OTF2_REGION_ROLE_COLL_ALL2ALL,
            RegionRole::CollOther => c::OTF2_RegionRole_enum_OTF2_REGION_ROLE_COLL_OTHER,
        }) as u8
    }
}

/// One region definition.
#[derive(Debug, Clone, PartialEq)]
pub struct RegionDef {
    /// Its name (string reference).
    pub name: u32,
    /// Its role.
    pub role: RegionRole,
    /// True for an MPI function (paradigm MPI), false for user code (paradigm USER).
    pub mpi: bool,
}

/// One attribute definition: name (string reference) and the type of its values.
#[derive(Debug, Clone, PartialEq)]
pub struct AttributeDef {
    /// Its name (string reference).
    pub name: u32,
    /// Its description (string reference).
    pub description: u32,
    /// The `OTF2_Type` of its values ([`AttrValue::otf2_type`]).
    pub otf2_type: u8,
}

/// One location: a rank's one thread, in its process (location group) on a host.
#[derive(Debug, Clone, PartialEq)]
pub struct LocationDef {
    /// Its name and its location group's (string reference, `MPI Rank 3`).
    pub name: u32,
    /// The host it ran on: an index into [`GlobalDefs::hosts`].
    pub host: usize,
}

/// One MPI communicator: its name (string reference) and its members as world ranks (the
/// locations, in the communicator's rank order).
#[derive(Debug, Clone, PartialEq)]
pub struct CommDef {
    /// Its name (string reference).
    pub name: u32,
    /// Rank i of the communicator is location `members[i]`.
    pub members: Vec<u64>,
}

/// Everything the global definition file of an archive holds, as plain data.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GlobalDefs {
    /// The string table: reference i is `strings[i]`.
    pub strings: Vec<String>,
    /// Ticks per second of every timestamp.
    pub timer_resolution: u64,
    /// The first tick of the trace.
    pub global_offset: u64,
    /// Ticks from the first to the last event.
    pub trace_length: u64,
    /// The wall-clock time of `global_offset`, ns since 1970 UTC, or
    /// [`OTF2_UNDEFINED_TIMESTAMP`].
    pub realtime_ns: u64,
    /// The name of the machine (string reference), the root of the system tree.
    pub machine: u32,
    /// The hosts (string references), the system tree's nodes under the machine.
    pub hosts: Vec<u32>,
    /// Location i (its id is i): one per rank.
    pub locations: Vec<LocationDef>,
    /// Region i (its id is i).
    pub regions: Vec<RegionDef>,
    /// Attribute i (its id is i).
    pub attributes: Vec<AttributeDef>,
    /// Communicator i (its id is i).
    pub comms: Vec<CommDef>,
}

/// An OTF2 archive being written: one event writer per location, opened as the locations
/// are first written to.
pub struct ArchiveWriter {
    archive: *mut c::OTF2_Archive,
    writers: Vec<*mut c::OTF2_EvtWriter>,
    events: Vec<u64>,
    attributes: *mut c::OTF2_AttributeList,
    path: PathBuf,
}

extern "C" fn pre_flush(
    _: *mut std::ffi::c_void,
    _: c::OTF2_FileType,
    _: c::OTF2_LocationRef,
    _: *mut std::ffi::c_void,
    _: bool,
) -> c::OTF2_FlushType {
    // Asked when a location's memory is full (without memory callbacks the library's own
    // budget, 128 MiB per location) and at close: write what it holds to disk. Memory is
    // therefore up to 128 MiB per location, not a chunk (docs/exports.md).
    c::OTF2_FlushType_enum_OTF2_FLUSH as c::OTF2_FlushType
}

extern "C" fn post_flush(
    _: *mut std::ffi::c_void,
    _: c::OTF2_FileType,
    _: c::OTF2_LocationRef,
) -> c::OTF2_TimeStamp {
    // No flush record: the time a chunk went to disk is not the run's.
    0
}

static FLUSH: c::OTF2_FlushCallbacks = c::OTF2_FlushCallbacks {
    otf2_pre_flush: Some(pre_flush),
    otf2_post_flush: Some(post_flush),
};

impl ArchiveWriter {
    /// Creates the archive `dir/name.otf2` (with `dir/name.def` and `dir/name/`), serial,
    /// uncompressed, with `creator` as its creator and `description` as its description.
    ///
    /// Errors: [`Otf2Error`] from the library (the directory cannot be created, the anchor
    /// file exists).
    pub fn create(
        dir: &Path,
        name: &str,
        creator: &str,
        description: &str,
    ) -> Result<ArchiveWriter, Otf2Error> {
        let path = c_string(&dir.to_string_lossy());
        let cname = c_string(name);
        // SAFETY: the strings live across the call; the library copies them.
        let archive = unsafe {
            c::OTF2_Archive_Open(
                path.as_ptr(),
                cname.as_ptr(),
                c::OTF2_FileMode_enum_OTF2_FILEMODE_WRITE as c::OTF2_FileMode,
                1024 * 1024,
                4 * 1024 * 1024,
                c::OTF2_FileSubstrate_enum_OTF2_SUBSTRATE_POSIX as c::OTF2_FileSubstrate,
                c::OTF2_Compression_enum_OTF2_COMPRESSION_NONE as c::OTF2_Compression,
            )
        };
        if archive.is_null() {
            return Err(Otf2Error {
                call: "OTF2_Archive_Open",
                message: format!("cannot create the archive in {}", dir.display()),
            });
        }
        let w = ArchiveWriter {
            archive,
            writers: Vec::new(),
            events: Vec::new(),
            // SAFETY: a fresh list, freed in Drop.
            attributes: unsafe { c::OTF2_AttributeList_New() },
            path: dir.to_path_buf(),
        };
        let creator = c_string(creator);
        let description = c_string(description);
        // SAFETY: `archive` is open; FLUSH is static; the strings live across the calls.
        unsafe {
            check(
                "OTF2_Archive_SetFlushCallbacks",
                c::OTF2_Archive_SetFlushCallbacks(w.archive, &FLUSH, ptr::null_mut()),
            )?;
            check(
                "OTF2_Archive_SetSerialCollectiveCallbacks",
                c::OTF2_Archive_SetSerialCollectiveCallbacks(w.archive),
            )?;
            check(
                "OTF2_Archive_SetCreator",
                c::OTF2_Archive_SetCreator(w.archive, creator.as_ptr()),
            )?;
            check(
                "OTF2_Archive_SetDescription",
                c::OTF2_Archive_SetDescription(w.archive, description.as_ptr()),
            )?;
            check(
                "OTF2_Archive_OpenEvtFiles",
                c::OTF2_Archive_OpenEvtFiles(w.archive),
            )?;
        }
        Ok(w)
    }

    /// The archive's directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The event writer of `location`, opened on first use.
    fn writer(&mut self, location: u64) -> Result<*mut c::OTF2_EvtWriter, Otf2Error> {
        let i = location as usize;
        if i >= self.writers.len() {
            self.writers.resize(i + 1, ptr::null_mut());
            self.events.resize(i + 1, 0);
        }
        if self.writers[i].is_null() {
            // SAFETY: the event files are open (create).
            let w = non_null(
                unsafe { c::OTF2_Archive_GetEvtWriter(self.archive, location) },
                "OTF2_Archive_GetEvtWriter",
                &format!("no event writer for location {location}"),
            )?;
            self.writers[i] = w;
        }
        self.events[i] += 1;
        Ok(self.writers[i])
    }

    /// Fills the attribute list the next event carries (the library empties it when the
    /// event is written).
    fn set_attributes(&mut self, attributes: &[(u32, AttrValue)]) -> Result<(), Otf2Error> {
        for &(id, value) in attributes {
            // SAFETY: the list is valid until Drop.
            let code = unsafe {
                match value {
                    AttrValue::U8(v) => c::OTF2_AttributeList_AddUint8(self.attributes, id, v),
                    AttrValue::U32(v) => c::OTF2_AttributeList_AddUint32(self.attributes, id, v),
                    AttrValue::U64(v) => c::OTF2_AttributeList_AddUint64(self.attributes, id, v),
                    AttrValue::F64(v) => c::OTF2_AttributeList_AddDouble(self.attributes, id, v),
                    AttrValue::Str(v) => c::OTF2_AttributeList_AddStringRef(self.attributes, id, v),
                }
            };
            check("OTF2_AttributeList_Add", code)?;
        }
        Ok(())
    }

    /// The attribute list for an event: the filled list, or none.
    fn list(&self, attributes: &[(u32, AttrValue)]) -> *mut c::OTF2_AttributeList {
        if attributes.is_empty() {
            ptr::null_mut()
        } else {
            self.attributes
        }
    }

    /// `Enter` of `region` at tick `time` on `location`, carrying `attributes`.
    ///
    /// Errors: [`Otf2Error`] from the library (an I/O error while flushing).
    pub fn enter(
        &mut self,
        location: u64,
        time: u64,
        region: u32,
        attributes: &[(u32, AttrValue)],
    ) -> Result<(), Otf2Error> {
        let w = self.writer(location)?;
        self.set_attributes(attributes)?;
        let list = self.list(attributes);
        // SAFETY: `w` is an open writer of this archive, `list` valid or null.
        check("OTF2_EvtWriter_Enter", unsafe {
            c::OTF2_EvtWriter_Enter(w, list, time, region)
        })
    }

    /// `Leave` of `region` at tick `time` on `location`.
    ///
    /// Errors: [`Otf2Error`] from the library.
    pub fn leave(&mut self, location: u64, time: u64, region: u32) -> Result<(), Otf2Error> {
        let w = self.writer(location)?;
        // SAFETY: as in `enter`.
        check("OTF2_EvtWriter_Leave", unsafe {
            c::OTF2_EvtWriter_Leave(w, ptr::null_mut(), time, region)
        })
    }

    /// `MpiCollectiveBegin` at tick `time` on `location`.
    ///
    /// Errors: [`Otf2Error`] from the library.
    pub fn collective_begin(&mut self, location: u64, time: u64) -> Result<(), Otf2Error> {
        let w = self.writer(location)?;
        // SAFETY: as in `enter`.
        check("OTF2_EvtWriter_MpiCollectiveBegin", unsafe {
            c::OTF2_EvtWriter_MpiCollectiveBegin(w, ptr::null_mut(), time)
        })
    }

    /// `MpiCollectiveEnd` at tick `time` on `location`: the collective (`OTF2_CollectiveOp`,
    /// [`collective_op`]), its communicator, root (or [`OTF2_UNDEFINED_UINT32`]) and the
    /// bytes this location sent and received.
    ///
    /// Errors: [`Otf2Error`] from the library.
    #[allow(clippy::too_many_arguments)]
    pub fn collective_end(
        &mut self,
        location: u64,
        time: u64,
        op: u8,
        comm: u32,
        root: u32,
        sent: u64,
        received: u64,
    ) -> Result<(), Otf2Error> {
        let w = self.writer(location)?;
        // SAFETY: as in `enter`.
        check("OTF2_EvtWriter_MpiCollectiveEnd", unsafe {
            c::OTF2_EvtWriter_MpiCollectiveEnd(
                w,
                ptr::null_mut(),
                time,
                op,
                comm,
                root,
                sent,
                received,
            )
        })
    }

    /// Closes the event writers, writes `defs` as the global definitions (each location
    /// with the number of events written to it) and an empty local definition file per
    /// location, and closes the archive.
    ///
    /// Errors: [`Otf2Error`] from the library.
    pub fn finish(mut self, defs: &GlobalDefs) -> Result<(), Otf2Error> {
        // SAFETY: every pointer below was returned by the library for this archive and is
        // closed once; the strings and member arrays live across the calls.
        unsafe {
            for w in std::mem::take(&mut self.writers) {
                if !w.is_null() {
                    check(
                        "OTF2_Archive_CloseEvtWriter",
                        c::OTF2_Archive_CloseEvtWriter(self.archive, w),
                    )?;
                }
            }
            check(
                "OTF2_Archive_CloseEvtFiles",
                c::OTF2_Archive_CloseEvtFiles(self.archive),
            )?;
            check(
                "OTF2_Archive_OpenDefFiles",
                c::OTF2_Archive_OpenDefFiles(self.archive),
            )?;
            for location in 0..defs.locations.len() as u64 {
                let d = c::OTF2_Archive_GetDefWriter(self.archive, location);
                check(
                    "OTF2_Archive_CloseDefWriter",
                    c::OTF2_Archive_CloseDefWriter(self.archive, d),
                )?;
            }
            check(
                "OTF2_Archive_CloseDefFiles",
                c::OTF2_Archive_CloseDefFiles(self.archive),
            )?;
            let g = non_null(
                c::OTF2_Archive_GetGlobalDefWriter(self.archive),
                "OTF2_Archive_GetGlobalDefWriter",
                "no global definition writer",
            )?;
            self.write_defs(g, defs)?;
            check(
                "OTF2_Archive_CloseGlobalDefWriter",
                c::OTF2_Archive_CloseGlobalDefWriter(self.archive, g),
            )?;
            let archive = std::mem::replace(&mut self.archive, ptr::null_mut());
            check("OTF2_Archive_Close", c::OTF2_Archive_Close(archive))
        }
    }

    /// The global definitions, in the order OTF2 wants them referenced: strings first.
    ///
    /// # Safety
    /// `g` is the archive's open global definition writer.
    unsafe fn write_defs(
        &self,
        g: *mut c::OTF2_GlobalDefWriter,
        defs: &GlobalDefs,
    ) -> Result<(), Otf2Error> {
        let undefined = OTF2_UNDEFINED_UINT32;
        check(
            "OTF2_GlobalDefWriter_WriteClockProperties",
            c::OTF2_GlobalDefWriter_WriteClockProperties(
                g,
                defs.timer_resolution,
                defs.global_offset,
                defs.trace_length,
                defs.realtime_ns,
            ),
        )?;
        for (i, s) in defs.strings.iter().enumerate() {
            let s = c_string(s);
            check(
                "OTF2_GlobalDefWriter_WriteString",
                c::OTF2_GlobalDefWriter_WriteString(g, i as u32, s.as_ptr()),
            )?;
        }
        // The system tree: the machine, its hosts; a process (location group) per rank
        // under its host, as Score-P writes it and Scalasca expects.
        let node_class = defs.strings.len() as u32; // written below, after the table
        let machine_class = node_class + 1;
        let (nc, mc) = (c_string("node"), c_string("machine"));
        check(
            "OTF2_GlobalDefWriter_WriteString",
            c::OTF2_GlobalDefWriter_WriteString(g, node_class, nc.as_ptr()),
        )?;
        check(
            "OTF2_GlobalDefWriter_WriteString",
            c::OTF2_GlobalDefWriter_WriteString(g, machine_class, mc.as_ptr()),
        )?;
        check(
            "OTF2_GlobalDefWriter_WriteSystemTreeNode",
            c::OTF2_GlobalDefWriter_WriteSystemTreeNode(
                g,
                0,
                defs.machine,
                machine_class,
                undefined,
            ),
        )?;
        for (i, &host) in defs.hosts.iter().enumerate() {
            check(
                "OTF2_GlobalDefWriter_WriteSystemTreeNode",
                c::OTF2_GlobalDefWriter_WriteSystemTreeNode(g, i as u32 + 1, host, node_class, 0),
            )?;
        }
        for (i, l) in defs.locations.iter().enumerate() {
            check(
                "OTF2_GlobalDefWriter_WriteLocationGroup",
                c::OTF2_GlobalDefWriter_WriteLocationGroup(
                    g,
                    i as u32,
                    l.name,
                    c::OTF2_LocationGroupType_enum_OTF2_LOCATION_GROUP_TYPE_PROCESS
                        as c::OTF2_LocationGroupType,
                    l.host as u32 + 1,
                    undefined,
                ),
            )?;
        }
        for (i, l) in defs.locations.iter().enumerate() {
            let events = self.events.get(i).copied().unwrap_or(0);
            check(
                "OTF2_GlobalDefWriter_WriteLocation",
                c::OTF2_GlobalDefWriter_WriteLocation(
                    g,
                    i as u64,
                    l.name,
                    c::OTF2_LocationType_enum_OTF2_LOCATION_TYPE_CPU_THREAD as c::OTF2_LocationType,
                    events,
                    i as u32,
                ),
            )?;
        }
        let empty = defs.strings.len() as u32 + 2;
        let e = c_string("");
        check(
            "OTF2_GlobalDefWriter_WriteString",
            c::OTF2_GlobalDefWriter_WriteString(g, empty, e.as_ptr()),
        )?;
        for (i, r) in defs.regions.iter().enumerate() {
            let paradigm = if r.mpi {
                c::OTF2_Paradigm_enum_OTF2_PARADIGM_MPI
            } else {
                c::OTF2_Paradigm_enum_OTF2_PARADIGM_USER
            } as c::OTF2_Paradigm;
            check(
                "OTF2_GlobalDefWriter_WriteRegion",
                c::OTF2_GlobalDefWriter_WriteRegion(
                    g,
                    i as u32,
                    r.name,
                    r.name,
                    empty,
                    r.role.code(),
                    paradigm,
                    c::OTF2_RegionFlag_enum_OTF2_REGION_FLAG_NONE as c::OTF2_RegionFlag,
                    empty,
                    0,
                    0,
                ),
            )?;
        }
        for (i, a) in defs.attributes.iter().enumerate() {
            check(
                "OTF2_GlobalDefWriter_WriteAttribute",
                c::OTF2_GlobalDefWriter_WriteAttribute(
                    g,
                    i as u32,
                    a.name,
                    a.description,
                    a.otf2_type,
                ),
            )?;
        }
        // The MPI groups: the locations in world rank order (COMM_LOCATIONS), then per
        // communicator its members as indices into it (COMM_GROUP).
        let mpi = c::OTF2_Paradigm_enum_OTF2_PARADIGM_MPI as c::OTF2_Paradigm;
        let none = c::OTF2_GroupFlag_enum_OTF2_GROUP_FLAG_NONE as c::OTF2_GroupFlag;
        let world: Vec<u64> = (0..defs.locations.len() as u64).collect();
        check(
            "OTF2_GlobalDefWriter_WriteGroup",
            c::OTF2_GlobalDefWriter_WriteGroup(
                g,
                0,
                empty,
                c::OTF2_GroupType_enum_OTF2_GROUP_TYPE_COMM_LOCATIONS as c::OTF2_GroupType,
                mpi,
                none,
                world.len() as u32,
                world.as_ptr(),
            ),
        )?;
        for (i, comm) in defs.comms.iter().enumerate() {
            check(
                "OTF2_GlobalDefWriter_WriteGroup",
                c::OTF2_GlobalDefWriter_WriteGroup(
                    g,
                    i as u32 + 1,
                    empty,
                    c::OTF2_GroupType_enum_OTF2_GROUP_TYPE_COMM_GROUP as c::OTF2_GroupType,
                    mpi,
                    none,
                    comm.members.len() as u32,
                    comm.members.as_ptr(),
                ),
            )?;
            check(
                "OTF2_GlobalDefWriter_WriteComm",
                c::OTF2_GlobalDefWriter_WriteComm(
                    g,
                    i as u32,
                    comm.name,
                    i as u32 + 1,
                    undefined,
                    c::OTF2_CommFlag_enum_OTF2_COMM_FLAG_NONE as c::OTF2_CommFlag,
                ),
            )?;
        }
        Ok(())
    }
}

impl Drop for ArchiveWriter {
    fn drop(&mut self) {
        // SAFETY: the list and (when `finish` did not close it) the archive are the
        // library's, freed once here.
        unsafe {
            c::OTF2_AttributeList_Delete(self.attributes);
            if !self.archive.is_null() {
                c::OTF2_Archive_Close(self.archive);
            }
        }
    }
}

/// The `OTF2_CollectiveOp` of an MPI collective by its name without `MPI_` and the `I`
/// of its nonblocking form (`allreduce`, `reduce_scatter_block`), or `None`.
pub fn collective_op(name: &str) -> Option<u8> {
    let op = match name {
        "barrier" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_BARRIER,
        "bcast" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_BCAST,
        "gather" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_GATHER,
        "gatherv" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_GATHERV,
        "scatter" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_SCATTER,
        "scatterv" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_SCATTERV,
        "allgather" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_ALLGATHER,
        "allgatherv" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_ALLGATHERV,
        "alltoall" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_ALLTOALL,
        "alltoallv" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_ALLTOALLV,
        "allreduce" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_ALLREDUCE,
        "reduce" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_REDUCE,
        "scan" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_SCAN,
        "exscan" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_EXSCAN,
        "reduce_scatter_block" => c::OTF2_CollectiveOp_enum_OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK,
        _ => return None,
    };
    Some(op as u8)
}

/// The collectives [`collective_op`] knows, by their MPI names without `MPI_`.
const COLLECTIVES: [&str; 15] = [
    "barrier",
    "bcast",
    "gather",
    "gatherv",
    "scatter",
    "scatterv",
    "allgather",
    "allgatherv",
    "alltoall",
    "alltoallv",
    "allreduce",
    "reduce",
    "scan",
    "exscan",
    "reduce_scatter_block",
];

/// The MPI name (without `MPI_`) of an `OTF2_CollectiveOp`, the inverse of
/// [`collective_op`]; None for the others (`ALLTOALLW`, `REDUCE_SCATTER`, the one-sided
/// handles).
pub fn collective_name(op: u8) -> Option<&'static str> {
    COLLECTIVES
        .into_iter()
        .find(|n| collective_op(n) == Some(op))
}
