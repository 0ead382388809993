//! OTF2 archives (the Open Trace Format 2 of Score-P, Vampir and flitsim's own tracer,
//! `tools/tracer`) read into a [`Program`]. Built with the `otf2` feature; links the OTF2
//! library (Debian: `libotf2-trace-dev`).
//!
//! What is read, per MPI rank (the location the archive's MPI `COMM_LOCATIONS` group lists
//! at that rank; without one, the first location of each process, in definition order):
//!
//! | OTF2 event | [`Op`] |
//! |---|---|
//! | `MpiSend` | `Send { req: None }` |
//! | `MpiIsend` (its `MpiIsendComplete` completes the request) | `Send { req: Some(id) }` |
//! | `MpiRecv` | `Recv { req: None }` |
//! | `MpiIrecvRequest` ... `MpiIrecv` | `Recv { req: Some(id) }` where the request was posted; peer, bytes and tag from the `MpiIrecv` |
//! | the requests completed inside one MPI call (`MPI_Wait*`, `MPI_Test*`) | `Wait { reqs }` when the call returns |
//! | `MpiCollectiveBegin` ... `MpiCollectiveEnd` | `Collective` |
//! | time from leaving one MPI call to entering the next | `Compute { ns }` (when > 0) |
//! | `MpiRequestCancelled` of a posted receive | the receive is dropped |
//!
//! An MPI call is a region of the MPI paradigm (or named `MPI_...`); other regions are
//! computation. Requests are numbered per rank from 0 in the order they are posted (OTF2's
//! request ids are handles the MPI library reuses). Communicator 0 is the world (the
//! communicator whose group lists every rank in order, preferably the one named
//! `MPI_COMM_WORLD`); the others follow in definition order, each a copy of
//! `MPI_COMM_SELF` once per rank that uses it.
//!
//! Collective sizes follow Score-P's convention (the bytes of the rank's own buffers, the
//! root counting its own block; flitsim's tracer writes the same): from each instance's
//! `sizeSent` and `sizeReceived` summed over its `p` members, `bytes` (as
//! [`super::program::Collective`] defines it) is, rounded to the nearest byte,
//!
//! | kind | `bytes` |
//! |---|---|
//! | `barrier` | 0 |
//! | `bcast` | the largest `sizeReceived` |
//! | `reduce`, `gather(v)` | Σ sent / p |
//! | `scatter(v)` | Σ received / p |
//! | `allreduce`, `alltoall(v)`, `reduce_scatter(_block)` | Σ sent / p² |
//! | `allgather(v)` | Σ received / p² |
//!
//! so the `v` variants get the mean block and every member records the same size. Other
//! collectives (`scan`, `exscan`, `alltoallw`, ...) are an error.
//!
//! All `unsafe` code of the engine's OTF2 support is in this module: the FFI declarations
//! ([`ffi`]), the reader callbacks (which collect raw records and never unwind into C) and
//! the calls that drive the reader. The mapping to a [`Program`] ([`assemble`]) is safe
//! Rust over the collected records.

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::Path;

use super::program::{Collective, Measured, Op, Pos, Program};
use crate::error::{Error, Result};

/// The declarations of the OTF2 C API this module uses (OTF2 2.x and 3.x; see
/// `/usr/include/otf2`). Callback types list only the parameters read: the C calling
/// convention lets a callee ignore trailing arguments.
#[allow(non_camel_case_types, non_snake_case)]
mod ffi {
    use std::ffi::{c_char, c_int, c_void};

    /// `OTF2_ErrorCode` (an `int`-sized enum; 0 is `OTF2_SUCCESS`).
    pub type ErrorCode = c_int;
    /// `OTF2_CallbackCode`: 0 `OTF2_CALLBACK_SUCCESS`, anything else stops the reader.
    pub type CallbackCode = c_int;
    pub const CALLBACK_SUCCESS: CallbackCode = 0;
    pub const CALLBACK_INTERRUPT: CallbackCode = 1;
    pub const SUCCESS: ErrorCode = 0;

    /// Opaque handles.
    #[repr(C)]
    pub struct Reader {
        _private: [u8; 0],
    }
    #[repr(C)]
    pub struct GlobalDefReader {
        _private: [u8; 0],
    }
    #[repr(C)]
    pub struct GlobalDefReaderCallbacks {
        _private: [u8; 0],
    }
    #[repr(C)]
    pub struct DefReader {
        _private: [u8; 0],
    }
    #[repr(C)]
    pub struct EvtReader {
        _private: [u8; 0],
    }
    #[repr(C)]
    pub struct EvtReaderCallbacks {
        _private: [u8; 0],
    }

    pub type ClockPropertiesCb = extern "C" fn(user: *mut c_void, resolution: u64, offset: u64, length: u64) -> CallbackCode;
    pub type StringCb = extern "C" fn(user: *mut c_void, id: u32, text: *const c_char) -> CallbackCode;
    pub type LocationCb = extern "C" fn(user: *mut c_void, id: u64, name: u32, kind: u8, events: u64, group: u32) -> CallbackCode;
    pub type RegionCb =
        extern "C" fn(user: *mut c_void, id: u32, name: u32, canonical: u32, description: u32, role: u8, paradigm: u8) -> CallbackCode;
    pub type GroupCb = extern "C" fn(
        user: *mut c_void,
        id: u32,
        name: u32,
        kind: u8,
        paradigm: u8,
        flags: u32,
        count: u32,
        members: *const u64,
    ) -> CallbackCode;
    pub type CommCb = extern "C" fn(user: *mut c_void, id: u32, name: u32, group: u32, parent: u32) -> CallbackCode;

    pub type RegionEvtCb = extern "C" fn(loc: u64, time: u64, pos: u64, user: *mut c_void, attrs: *mut c_void, region: u32) -> CallbackCode;
    pub type P2pEvtCb = extern "C" fn(
        loc: u64,
        time: u64,
        pos: u64,
        user: *mut c_void,
        attrs: *mut c_void,
        peer: u32,
        comm: u32,
        tag: u32,
        bytes: u64,
    ) -> CallbackCode;
    pub type P2pReqEvtCb = extern "C" fn(
        loc: u64,
        time: u64,
        pos: u64,
        user: *mut c_void,
        attrs: *mut c_void,
        peer: u32,
        comm: u32,
        tag: u32,
        bytes: u64,
        req: u64,
    ) -> CallbackCode;
    pub type ReqEvtCb = extern "C" fn(loc: u64, time: u64, pos: u64, user: *mut c_void, attrs: *mut c_void, req: u64) -> CallbackCode;
    pub type BareEvtCb = extern "C" fn(loc: u64, time: u64, pos: u64, user: *mut c_void, attrs: *mut c_void) -> CallbackCode;
    pub type CollEndEvtCb = extern "C" fn(
        loc: u64,
        time: u64,
        pos: u64,
        user: *mut c_void,
        attrs: *mut c_void,
        op: u8,
        comm: u32,
        root: u32,
        sent: u64,
        received: u64,
    ) -> CallbackCode;
    /// `OTF2_ErrorCallback`; `va_list` is passed as a pointer on the 64-bit ABIs flitsim
    /// supports (x86-64: an array that decays; AArch64: a 32-byte aggregate passed by reference).
    pub type ErrorCb = extern "C" fn(
        user: *mut c_void,
        file: *const c_char,
        line: u64,
        function: *const c_char,
        code: ErrorCode,
        format: *const c_char,
        args: *mut c_void,
    ) -> ErrorCode;

    #[link(name = "otf2")]
    extern "C" {
        pub fn OTF2_Reader_Open(anchor: *const c_char) -> *mut Reader;
        pub fn OTF2_Reader_Close(reader: *mut Reader) -> ErrorCode;
        pub fn OTF2_Reader_SetSerialCollectiveCallbacks(reader: *mut Reader) -> ErrorCode;
        pub fn OTF2_Reader_GetNumberOfLocations(reader: *mut Reader, count: *mut u64) -> ErrorCode;
        pub fn OTF2_Reader_GetGlobalDefReader(reader: *mut Reader) -> *mut GlobalDefReader;
        pub fn OTF2_Reader_RegisterGlobalDefCallbacks(
            reader: *mut Reader,
            defs: *mut GlobalDefReader,
            callbacks: *const GlobalDefReaderCallbacks,
            user: *mut c_void,
        ) -> ErrorCode;
        pub fn OTF2_Reader_ReadAllGlobalDefinitions(reader: *mut Reader, defs: *mut GlobalDefReader, read: *mut u64) -> ErrorCode;
        pub fn OTF2_Reader_CloseGlobalDefReader(reader: *mut Reader, defs: *mut GlobalDefReader) -> ErrorCode;
        pub fn OTF2_Reader_SelectLocation(reader: *mut Reader, location: u64) -> ErrorCode;
        pub fn OTF2_Reader_OpenDefFiles(reader: *mut Reader) -> ErrorCode;
        pub fn OTF2_Reader_CloseDefFiles(reader: *mut Reader) -> ErrorCode;
        pub fn OTF2_Reader_OpenEvtFiles(reader: *mut Reader) -> ErrorCode;
        pub fn OTF2_Reader_CloseEvtFiles(reader: *mut Reader) -> ErrorCode;
        pub fn OTF2_Reader_GetDefReader(reader: *mut Reader, location: u64) -> *mut DefReader;
        pub fn OTF2_Reader_ReadAllLocalDefinitions(reader: *mut Reader, defs: *mut DefReader, read: *mut u64) -> ErrorCode;
        pub fn OTF2_Reader_CloseDefReader(reader: *mut Reader, defs: *mut DefReader) -> ErrorCode;
        pub fn OTF2_Reader_GetEvtReader(reader: *mut Reader, location: u64) -> *mut EvtReader;
        pub fn OTF2_Reader_RegisterEvtCallbacks(
            reader: *mut Reader,
            events: *mut EvtReader,
            callbacks: *const EvtReaderCallbacks,
            user: *mut c_void,
        ) -> ErrorCode;
        pub fn OTF2_Reader_ReadAllLocalEvents(reader: *mut Reader, events: *mut EvtReader, read: *mut u64) -> ErrorCode;
        pub fn OTF2_Reader_CloseEvtReader(reader: *mut Reader, events: *mut EvtReader) -> ErrorCode;

        pub fn OTF2_GlobalDefReaderCallbacks_New() -> *mut GlobalDefReaderCallbacks;
        pub fn OTF2_GlobalDefReaderCallbacks_Delete(callbacks: *mut GlobalDefReaderCallbacks);
        pub fn OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(
            c: *mut GlobalDefReaderCallbacks,
            f: ClockPropertiesCb,
        ) -> ErrorCode;
        pub fn OTF2_GlobalDefReaderCallbacks_SetStringCallback(c: *mut GlobalDefReaderCallbacks, f: StringCb) -> ErrorCode;
        pub fn OTF2_GlobalDefReaderCallbacks_SetLocationCallback(c: *mut GlobalDefReaderCallbacks, f: LocationCb) -> ErrorCode;
        pub fn OTF2_GlobalDefReaderCallbacks_SetRegionCallback(c: *mut GlobalDefReaderCallbacks, f: RegionCb) -> ErrorCode;
        pub fn OTF2_GlobalDefReaderCallbacks_SetGroupCallback(c: *mut GlobalDefReaderCallbacks, f: GroupCb) -> ErrorCode;
        pub fn OTF2_GlobalDefReaderCallbacks_SetCommCallback(c: *mut GlobalDefReaderCallbacks, f: CommCb) -> ErrorCode;

        pub fn OTF2_EvtReaderCallbacks_New() -> *mut EvtReaderCallbacks;
        pub fn OTF2_EvtReaderCallbacks_Delete(callbacks: *mut EvtReaderCallbacks);
        pub fn OTF2_EvtReaderCallbacks_SetEnterCallback(c: *mut EvtReaderCallbacks, f: RegionEvtCb) -> ErrorCode;
        pub fn OTF2_EvtReaderCallbacks_SetLeaveCallback(c: *mut EvtReaderCallbacks, f: RegionEvtCb) -> ErrorCode;
        pub fn OTF2_EvtReaderCallbacks_SetMpiSendCallback(c: *mut EvtReaderCallbacks, f: P2pEvtCb) -> ErrorCode;
        pub fn OTF2_EvtReaderCallbacks_SetMpiIsendCallback(c: *mut EvtReaderCallbacks, f: P2pReqEvtCb) -> ErrorCode;
        pub fn OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(c: *mut EvtReaderCallbacks, f: ReqEvtCb) -> ErrorCode;
        pub fn OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(c: *mut EvtReaderCallbacks, f: ReqEvtCb) -> ErrorCode;
        pub fn OTF2_EvtReaderCallbacks_SetMpiRecvCallback(c: *mut EvtReaderCallbacks, f: P2pEvtCb) -> ErrorCode;
        pub fn OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(c: *mut EvtReaderCallbacks, f: P2pReqEvtCb) -> ErrorCode;
        pub fn OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(c: *mut EvtReaderCallbacks, f: ReqEvtCb) -> ErrorCode;
        pub fn OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(c: *mut EvtReaderCallbacks, f: BareEvtCb) -> ErrorCode;
        pub fn OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(c: *mut EvtReaderCallbacks, f: CollEndEvtCb) -> ErrorCode;

        pub fn OTF2_Error_GetName(code: ErrorCode) -> *const c_char;
        pub fn OTF2_Error_GetDescription(code: ErrorCode) -> *const c_char;
        pub fn OTF2_Error_RegisterCallback(f: ErrorCb, user: *mut c_void) -> ErrorCb;
    }

    extern "C" {
        /// C's `vsnprintf` (libc), to format the messages OTF2 hands its error callback.
        pub fn vsnprintf(buf: *mut c_char, size: usize, format: *const c_char, args: *mut c_void) -> c_int;
    }
}

/// OTF2 group types and paradigm (OTF2_Definitions.h, OTF2_GeneralDefinitions.h).
const GROUP_COMM_LOCATIONS: u8 = 4;
const GROUP_COMM_GROUP: u8 = 5;
const GROUP_COMM_SELF: u8 = 6;
const PARADIGM_MPI: u8 = 4;
/// A communicator group whose events give world ranks, not communicator ranks.
const GROUP_FLAG_GLOBAL_MEMBERS: u32 = 1;

/// The OTF2 collective operations (`OTF2_CollectiveOp`, OTF2_Events.h), by value.
const COLLECTIVE_OPS: [&str; 23] = [
    "BARRIER",
    "BCAST",
    "GATHER",
    "GATHERV",
    "SCATTER",
    "SCATTERV",
    "ALLGATHER",
    "ALLGATHERV",
    "ALLTOALL",
    "ALLTOALLV",
    "ALLTOALLW",
    "ALLREDUCE",
    "REDUCE",
    "REDUCE_SCATTER",
    "SCAN",
    "EXSCAN",
    "REDUCE_SCATTER_BLOCK",
    "CREATE_HANDLE",
    "DESTROY_HANDLE",
    "ALLOCATE",
    "DEALLOCATE",
    "CREATE_HANDLE_AND_ALLOCATE",
    "DESTROY_HANDLE_AND_DEALLOCATE",
];

/// The name of OTF2 collective operation `op` (`ALLTOALLW`, or its number when unknown).
fn collective_op_name(op: u8) -> String {
    COLLECTIVE_OPS.get(op as usize).map_or_else(|| format!("#{op}"), |n| n.to_string())
}

/// The program kind of an OTF2 collective operation, `None` when flitsim has none.
fn collective_kind(op: u8) -> Option<Collective> {
    Some(match op {
        0 => Collective::Barrier,
        1 => Collective::Bcast,
        2 | 3 => Collective::Gather,
        4 | 5 => Collective::Scatter,
        6 | 7 => Collective::Allgather,
        8 | 9 => Collective::Alltoall,
        11 => Collective::Allreduce,
        12 => Collective::Reduce,
        13 | 16 => Collective::ReduceScatter,
        _ => return None,
    })
}

/// A group definition: (type, paradigm, flags, members).
type GroupDef = (u8, u8, u32, Vec<u64>);

/// A rank's collective as read: (its slot in the rank's operations, the OTF2 operation,
/// size sent, size received).
type CollectiveRecord = (usize, u8, u64, u64);

/// The global definitions read (only those the mapping needs).
#[derive(Debug, Default)]
struct Defs {
    /// Timer ticks per second (`ClockProperties`).
    resolution: Option<u64>,
    strings: HashMap<u32, String>,
    /// Region id -> (name string, paradigm).
    regions: HashMap<u32, (u32, u8)>,
    /// Every location in definition order: (id, its location group).
    locations: Vec<(u64, u32)>,
    /// Group id -> (type, paradigm, members).
    groups: HashMap<u32, GroupDef>,
    /// Communicators in definition order: (id, name string, group).
    comms: Vec<(u32, u32, u32)>,
}

/// One event of a location, as recorded.
#[derive(Clone, Debug, PartialEq)]
enum Event {
    Enter { region: u32 },
    Leave { region: u32 },
    Send { peer: u32, comm: u32, tag: u32, bytes: u64 },
    Isend { peer: u32, comm: u32, tag: u32, bytes: u64, req: u64 },
    IsendComplete { req: u64 },
    IrecvRequest { req: u64 },
    Recv { peer: u32, comm: u32, tag: u32, bytes: u64 },
    Irecv { peer: u32, comm: u32, tag: u32, bytes: u64, req: u64 },
    Cancelled { req: u64 },
    CollectiveBegin,
    CollectiveEnd { op: u8, comm: u32, root: u32, sent: u64, received: u64 },
}

/// An event with its time (timer ticks) and index in its location (from 0).
#[derive(Clone, Debug, PartialEq)]
struct Record {
    index: u64,
    time: u64,
    event: Event,
}

/// What the reader callbacks fill (`user data` of every callback): the definitions, the
/// events of the location being read, and the first error a callback met.
#[derive(Default)]
struct Collector {
    defs: Defs,
    events: Vec<Record>,
    error: Option<String>,
}

/// Read the OTF2 archive whose anchor file is `anchor` into a program; `key` is the config
/// key naming it, for errors.
pub fn read(anchor: &Path, key: &str) -> Result<Program> {
    let file = anchor.display().to_string();
    let at = |what: &str| format!("{key} ({file}{what})");
    match std::fs::metadata(anchor) {
        Err(e) => return Err(Error::config(key, crate::schema::cannot_read(&file, &e))),
        Ok(m) if m.is_dir() => {
            return Err(Error::config(
                key,
                format!("{file} is a folder: give the archive's anchor file, the `.otf2` file in it (e.g. {file}/trace.otf2)"),
            ))
        }
        Ok(_) => {}
    }
    let (defs, events) = collect(anchor).map_err(|m| Error::config(at(""), m))?;
    assemble(defs, events, &at)
}

/// The first message the OTF2 library reported on this thread since the last call (the
/// cause; the ones after it are its consequences up the call chain).
fn take_otf2_messages() -> String {
    let all = OTF2_MESSAGES.with(|m| std::mem::take(&mut *m.borrow_mut()));
    all.split("; ").next().unwrap_or("").trim_end_matches(['.', '!']).to_string()
}

thread_local! {
    /// What OTF2's error callback was told on this thread (instead of OTF2 printing it).
    static OTF2_MESSAGES: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// OTF2's error handler: keep the message for the error this module returns.
extern "C" fn on_otf2_error(
    _user: *mut c_void,
    _file: *const c_char,
    _line: u64,
    _function: *const c_char,
    code: ffi::ErrorCode,
    format: *const c_char,
    args: *mut c_void,
) -> ffi::ErrorCode {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut buf = [0 as c_char; 512];
        // SAFETY: `format` and `args` are the printf-style message and its argument list
        // OTF2 passes (see ffi::ErrorCb for the va_list ABI); vsnprintf writes at most
        // buf.len() bytes including the terminating NUL.
        let n = unsafe {
            if format.is_null() {
                -1
            } else {
                ffi::vsnprintf(buf.as_mut_ptr(), buf.len(), format, args)
            }
        };
        // SAFETY: OTF2_Error_GetName returns a static NUL-terminated string (or NULL).
        let name = unsafe { c_text(ffi::OTF2_Error_GetName(code)) };
        // SAFETY: on success vsnprintf left a NUL-terminated string in `buf`.
        let text = if n >= 0 { unsafe { c_text(buf.as_ptr()) } } else { String::new() };
        OTF2_MESSAGES.with(|m| {
            let mut m = m.borrow_mut();
            if !m.is_empty() {
                m.push_str("; ");
            }
            m.push_str(if text.is_empty() { &name } else { &text });
        });
    }));
    code
}

/// A C string as Rust text ("" for NULL).
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that lives for the call.
unsafe fn c_text(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: non-null and NUL-terminated by the caller's contract.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// A failed OTF2 call in words: what was being done, OTF2's error and the messages its
/// error handler received.
fn otf2_failure(doing: &str, code: ffi::ErrorCode) -> String {
    // SAFETY: both return static NUL-terminated strings (or NULL).
    let (name, desc) = unsafe { (c_text(ffi::OTF2_Error_GetName(code)), c_text(ffi::OTF2_Error_GetDescription(code))) };
    let said = take_otf2_messages();
    let said = if said.is_empty() { String::new() } else { format!(" ({said})") };
    format!("{doing} failed: {name}: {desc}{said}")
}

/// Runs `f` on the collector behind a callback's user data, turning an error or a panic
/// into a stored message and `OTF2_CALLBACK_INTERRUPT` (nothing unwinds into C).
fn guard(user: *mut c_void, f: impl FnOnce(&mut Collector) -> std::result::Result<(), String>) -> ffi::CallbackCode {
    // SAFETY: every callback is registered with a pointer to the `Collector` that `collect`
    // owns and keeps alive (and does not touch) while OTF2 reads.
    let c = unsafe { &mut *(user as *mut Collector) };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(c)));
    let failure = match outcome {
        Ok(Ok(())) => return ffi::CALLBACK_SUCCESS,
        Ok(Err(m)) => m,
        Err(_) => "internal error while reading a record (a bug in flitsim: please report it)".to_string(),
    };
    c.error.get_or_insert(failure);
    ffi::CALLBACK_INTERRUPT
}

extern "C" fn def_clock(user: *mut c_void, resolution: u64, _offset: u64, _length: u64) -> ffi::CallbackCode {
    guard(user, |c| {
        c.defs.resolution = Some(resolution);
        Ok(())
    })
}

extern "C" fn def_string(user: *mut c_void, id: u32, text: *const c_char) -> ffi::CallbackCode {
    guard(user, |c| {
        // SAFETY: OTF2 passes a NUL-terminated string valid during the callback.
        c.defs.strings.insert(id, unsafe { c_text(text) });
        Ok(())
    })
}

extern "C" fn def_location(user: *mut c_void, id: u64, _name: u32, _kind: u8, _events: u64, group: u32) -> ffi::CallbackCode {
    guard(user, |c| {
        c.defs.locations.push((id, group));
        Ok(())
    })
}

extern "C" fn def_region(
    user: *mut c_void,
    id: u32,
    name: u32,
    _canonical: u32,
    _description: u32,
    _role: u8,
    paradigm: u8,
) -> ffi::CallbackCode {
    guard(user, |c| {
        c.defs.regions.insert(id, (name, paradigm));
        Ok(())
    })
}

extern "C" fn def_group(
    user: *mut c_void,
    id: u32,
    _name: u32,
    kind: u8,
    paradigm: u8,
    flags: u32,
    count: u32,
    members: *const u64,
) -> ffi::CallbackCode {
    guard(user, |c| {
        let members = if count == 0 || members.is_null() {
            Vec::new()
        } else {
            // SAFETY: OTF2 passes `count` members at `members`, valid during the callback.
            unsafe { std::slice::from_raw_parts(members, count as usize) }.to_vec()
        };
        c.defs.groups.insert(id, (kind, paradigm, flags, members));
        Ok(())
    })
}

extern "C" fn def_comm(user: *mut c_void, id: u32, name: u32, group: u32, _parent: u32) -> ffi::CallbackCode {
    guard(user, |c| {
        c.defs.comms.push((id, name, group));
        Ok(())
    })
}

/// Store one event (OTF2's positions count from 1).
fn push(user: *mut c_void, pos: u64, time: u64, event: Event) -> ffi::CallbackCode {
    guard(user, |c| {
        c.events.push(Record { index: pos.saturating_sub(1), time, event });
        Ok(())
    })
}

extern "C" fn evt_enter(_l: u64, time: u64, pos: u64, user: *mut c_void, _a: *mut c_void, region: u32) -> ffi::CallbackCode {
    push(user, pos, time, Event::Enter { region })
}

extern "C" fn evt_leave(_l: u64, time: u64, pos: u64, user: *mut c_void, _a: *mut c_void, region: u32) -> ffi::CallbackCode {
    push(user, pos, time, Event::Leave { region })
}

#[allow(clippy::too_many_arguments)]
extern "C" fn evt_send(
    _l: u64,
    time: u64,
    pos: u64,
    user: *mut c_void,
    _a: *mut c_void,
    peer: u32,
    comm: u32,
    tag: u32,
    bytes: u64,
) -> ffi::CallbackCode {
    push(user, pos, time, Event::Send { peer, comm, tag, bytes })
}

#[allow(clippy::too_many_arguments)]
extern "C" fn evt_isend(
    _l: u64,
    time: u64,
    pos: u64,
    user: *mut c_void,
    _a: *mut c_void,
    peer: u32,
    comm: u32,
    tag: u32,
    bytes: u64,
    req: u64,
) -> ffi::CallbackCode {
    push(user, pos, time, Event::Isend { peer, comm, tag, bytes, req })
}

extern "C" fn evt_isend_complete(_l: u64, time: u64, pos: u64, user: *mut c_void, _a: *mut c_void, req: u64) -> ffi::CallbackCode {
    push(user, pos, time, Event::IsendComplete { req })
}

extern "C" fn evt_irecv_request(_l: u64, time: u64, pos: u64, user: *mut c_void, _a: *mut c_void, req: u64) -> ffi::CallbackCode {
    push(user, pos, time, Event::IrecvRequest { req })
}

#[allow(clippy::too_many_arguments)]
extern "C" fn evt_recv(
    _l: u64,
    time: u64,
    pos: u64,
    user: *mut c_void,
    _a: *mut c_void,
    peer: u32,
    comm: u32,
    tag: u32,
    bytes: u64,
) -> ffi::CallbackCode {
    push(user, pos, time, Event::Recv { peer, comm, tag, bytes })
}

#[allow(clippy::too_many_arguments)]
extern "C" fn evt_irecv(
    _l: u64,
    time: u64,
    pos: u64,
    user: *mut c_void,
    _a: *mut c_void,
    peer: u32,
    comm: u32,
    tag: u32,
    bytes: u64,
    req: u64,
) -> ffi::CallbackCode {
    push(user, pos, time, Event::Irecv { peer, comm, tag, bytes, req })
}

extern "C" fn evt_cancelled(_l: u64, time: u64, pos: u64, user: *mut c_void, _a: *mut c_void, req: u64) -> ffi::CallbackCode {
    push(user, pos, time, Event::Cancelled { req })
}

extern "C" fn evt_coll_begin(_l: u64, time: u64, pos: u64, user: *mut c_void, _a: *mut c_void) -> ffi::CallbackCode {
    push(user, pos, time, Event::CollectiveBegin)
}

#[allow(clippy::too_many_arguments)]
extern "C" fn evt_coll_end(
    _l: u64,
    time: u64,
    pos: u64,
    user: *mut c_void,
    _a: *mut c_void,
    op: u8,
    comm: u32,
    root: u32,
    sent: u64,
    received: u64,
) -> ffi::CallbackCode {
    push(user, pos, time, Event::CollectiveEnd { op, comm, root, sent, received })
}

/// An open OTF2 reader, closed when dropped.
struct ReaderHandle(*mut ffi::Reader);

impl Drop for ReaderHandle {
    fn drop(&mut self) {
        // SAFETY: the handle came from OTF2_Reader_Open and is closed once, here.
        unsafe { ffi::OTF2_Reader_Close(self.0) };
    }
}

/// The collector the callbacks fill, owned through the raw pointer they are given.
struct OwnedCollector(*mut Collector);

impl Drop for OwnedCollector {
    fn drop(&mut self) {
        // SAFETY: the pointer came from Box::into_raw and is freed once, here; callbacks run
        // only inside OTF2's read calls, which have returned.
        drop(unsafe { Box::from_raw(self.0) });
    }
}

/// Checks an OTF2 status: `Err` with what was being done and OTF2's words.
fn check(code: ffi::ErrorCode, doing: &str) -> std::result::Result<(), String> {
    if code == ffi::SUCCESS {
        Ok(())
    } else {
        Err(otf2_failure(doing, code))
    }
}

/// The advice every corrupt-archive error ends with.
const CORRUPT: &str = "the archive is incomplete or corrupt (a run cut short, a file truncated or copied in part): record it again";

/// Read the archive's definitions and, per rank's location, its events (in rank order).
/// Errors are messages (without the file, which the caller adds).
fn collect(anchor: &Path) -> std::result::Result<(Defs, Vec<Vec<Record>>), String> {
    static REGISTER: std::sync::Once = std::sync::Once::new();
    // SAFETY: on_otf2_error has the signature OTF2 calls and never unwinds.
    REGISTER.call_once(|| unsafe {
        ffi::OTF2_Error_RegisterCallback(on_otf2_error, std::ptr::null_mut());
    });
    take_otf2_messages();
    let path = CString::new(anchor.as_os_str().as_encoded_bytes()).map_err(|_| "the file name contains a NUL byte".to_string())?;
    let not_anchor = |said: String| {
        let said = if said.is_empty() { String::new() } else { format!(" (OTF2: {said})") };
        format!("this is not an OTF2 archive's anchor file{said}: give the `.otf2` file a tracer wrote (e.g. flitsim-trace/trace.otf2)")
    };
    // SAFETY: `path` is a NUL-terminated string that outlives the call.
    let raw = unsafe { ffi::OTF2_Reader_Open(path.as_ptr()) };
    if raw.is_null() {
        return Err(not_anchor(take_otf2_messages()));
    }
    let reader = ReaderHandle(raw);
    let r = reader.0;
    let mut count = 0u64;
    // SAFETY: `r` is an open reader; `count` is a valid out pointer.
    let ok = unsafe {
        ffi::OTF2_Reader_SetSerialCollectiveCallbacks(r) == ffi::SUCCESS
            && ffi::OTF2_Reader_GetNumberOfLocations(r, &mut count) == ffi::SUCCESS
    };
    if !ok {
        return Err(not_anchor(take_otf2_messages()));
    }
    let collector = OwnedCollector(Box::into_raw(Box::default()));
    let user = collector.0 as *mut c_void;
    // SAFETY (for every use below): Rust touches the collector only between OTF2 calls,
    // never while a callback may run, and only through the pointer the callbacks get.
    let state = || unsafe { &mut *collector.0 };

    // Global definitions.
    // SAFETY: `r` is an open reader; the callbacks object is created, filled with
    // functions of the declared signatures, registered and deleted here; `user` points to
    // the boxed collector, alive and untouched by Rust until reading ends.
    unsafe {
        let defs = ffi::OTF2_Reader_GetGlobalDefReader(r);
        if defs.is_null() {
            return Err(format!("the global definitions cannot be opened ({}): {CORRUPT}", take_otf2_messages()));
        }
        let cbs = ffi::OTF2_GlobalDefReaderCallbacks_New();
        if cbs.is_null() {
            return Err("out of memory".to_string());
        }
        ffi::OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cbs, def_clock);
        ffi::OTF2_GlobalDefReaderCallbacks_SetStringCallback(cbs, def_string);
        ffi::OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cbs, def_location);
        ffi::OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cbs, def_region);
        ffi::OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cbs, def_group);
        ffi::OTF2_GlobalDefReaderCallbacks_SetCommCallback(cbs, def_comm);
        let reg = ffi::OTF2_Reader_RegisterGlobalDefCallbacks(r, defs, cbs, user);
        ffi::OTF2_GlobalDefReaderCallbacks_Delete(cbs);
        check(reg, "registering the definition callbacks")?;
        let mut n = 0u64;
        let code = ffi::OTF2_Reader_ReadAllGlobalDefinitions(r, defs, &mut n);
        ffi::OTF2_Reader_CloseGlobalDefReader(r, defs);
        if let Some(e) = state().error.take() {
            return Err(e);
        }
        check(code, "reading the global definitions").map_err(|e| format!("{e}: {CORRUPT}"))?;
    }

    let ranks = rank_locations(&state().defs)?;
    // Local definitions (mapping tables) and events, one rank's location at a time.
    // SAFETY: as above; every reader obtained is closed before the files are.
    unsafe {
        for &loc in &ranks {
            check(ffi::OTF2_Reader_SelectLocation(r, loc), "selecting a location")?;
        }
        if ffi::OTF2_Reader_OpenDefFiles(r) == ffi::SUCCESS {
            for &loc in &ranks {
                let d = ffi::OTF2_Reader_GetDefReader(r, loc);
                if !d.is_null() {
                    let mut n = 0u64;
                    let code = ffi::OTF2_Reader_ReadAllLocalDefinitions(r, d, &mut n);
                    ffi::OTF2_Reader_CloseDefReader(r, d);
                    check(code, &format!("reading the local definitions of location {loc}")).map_err(|e| format!("{e}: {CORRUPT}"))?;
                }
            }
            ffi::OTF2_Reader_CloseDefFiles(r);
        }
        take_otf2_messages();
        check(ffi::OTF2_Reader_OpenEvtFiles(r), "opening the event files").map_err(|e| format!("{e}: {CORRUPT}"))?;
        let cbs = ffi::OTF2_EvtReaderCallbacks_New();
        if cbs.is_null() {
            return Err("out of memory".to_string());
        }
        ffi::OTF2_EvtReaderCallbacks_SetEnterCallback(cbs, evt_enter);
        ffi::OTF2_EvtReaderCallbacks_SetLeaveCallback(cbs, evt_leave);
        ffi::OTF2_EvtReaderCallbacks_SetMpiSendCallback(cbs, evt_send);
        ffi::OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cbs, evt_isend);
        ffi::OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cbs, evt_isend_complete);
        ffi::OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cbs, evt_irecv_request);
        ffi::OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cbs, evt_recv);
        ffi::OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cbs, evt_irecv);
        ffi::OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cbs, evt_cancelled);
        ffi::OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cbs, evt_coll_begin);
        ffi::OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cbs, evt_coll_end);
        let mut all = Vec::with_capacity(ranks.len());
        let mut failure = None;
        for (rank, &loc) in ranks.iter().enumerate() {
            let e = ffi::OTF2_Reader_GetEvtReader(r, loc);
            if e.is_null() {
                failure =
                    Some(format!("the events of rank {rank} (location {loc}) cannot be opened ({}): {CORRUPT}", take_otf2_messages()));
                break;
            }
            let reg = ffi::OTF2_Reader_RegisterEvtCallbacks(r, e, cbs, user);
            let mut n = 0u64;
            let code = if reg == ffi::SUCCESS { ffi::OTF2_Reader_ReadAllLocalEvents(r, e, &mut n) } else { reg };
            ffi::OTF2_Reader_CloseEvtReader(r, e);
            if let Some(m) = state().error.take() {
                failure = Some(format!("rank {rank}: {m}"));
                break;
            }
            if let Err(m) = check(code, &format!("reading the events of rank {rank} (location {loc}) after {n} events")) {
                failure = Some(format!("{m}: {CORRUPT}"));
                break;
            }
            all.push(std::mem::take(&mut state().events));
        }
        ffi::OTF2_EvtReaderCallbacks_Delete(cbs);
        ffi::OTF2_Reader_CloseEvtFiles(r);
        if let Some(f) = failure {
            return Err(f);
        }
        drop(reader);
        Ok((std::mem::take(&mut state().defs), all))
    }
}

/// The location of each MPI rank, in rank order: the MPI `COMM_LOCATIONS` group, else the
/// first location of each location group (process) in definition order.
fn rank_locations(defs: &Defs) -> std::result::Result<Vec<u64>, String> {
    let mut groups: Vec<(&u32, &GroupDef)> = defs.groups.iter().collect();
    groups.sort_by_key(|(id, _)| **id);
    let ranks = match groups.iter().find(|(_, (kind, paradigm, _, _))| *kind == GROUP_COMM_LOCATIONS && *paradigm == PARADIGM_MPI) {
        Some((_, (_, _, _, members))) => members.clone(),
        None => {
            let mut seen = std::collections::HashSet::new();
            defs.locations.iter().filter(|(_, g)| seen.insert(*g)).map(|(l, _)| *l).collect()
        }
    };
    if ranks.is_empty() {
        return Err(
            "the archive defines no MPI ranks (no locations): record the application with an MPI tracer (flitsim trace record)".into()
        );
    }
    for l in &ranks {
        if !defs.locations.iter().any(|(d, _)| d == l) {
            return Err(format!("the MPI ranks name location {l}, which the archive does not define: {CORRUPT}"));
        }
    }
    Ok(ranks)
}

/// How an OTF2 communicator maps to the program's.
#[derive(Clone, Debug)]
enum CommMap {
    /// One program communicator.
    Id(u32),
    /// `MPI_COMM_SELF`-like: one program communicator per rank, made when first used.
    PerRank,
}

/// Build the program from the definitions and each rank's events. `at(where)` names the
/// place for errors (`key (file where)`).
fn assemble(defs: Defs, events: Vec<Vec<Record>>, at: &dyn Fn(&str) -> String) -> Result<Program> {
    let ranks = events.len() as u32;
    let err0 = |msg: String| Error::config(at(""), msg);
    if ranks == 0 {
        return Err(err0("the archive has no MPI ranks: record the application with an MPI tracer (flitsim trace record)".into()));
    }
    let resolution = match defs.resolution {
        Some(r) if r > 0 => r,
        _ => return Err(err0(format!("the archive gives no timer resolution (ClockProperties): {CORRUPT}"))),
    };
    let ns = |ticks: u64| (ticks as u128 * 1_000_000_000 / resolution as u128).min(u64::MAX as u128) as u64;

    // Communicators.
    let world: Vec<u32> = (0..ranks).collect();
    let mut comms = vec![world.clone()];
    let mut comm_map: HashMap<u32, CommMap> = HashMap::new();
    // Program communicators whose events name world ranks (OTF2_GROUP_FLAG_GLOBAL_MEMBERS).
    let mut global = std::collections::HashSet::new();
    let members_of = |group: u32| defs.groups.get(&group);
    let world_def = {
        let is_world = |g: u32| members_of(g).is_some_and(|(k, _, _, m)| *k == GROUP_COMM_GROUP && m.iter().copied().eq(0..ranks as u64));
        let named = defs.comms.iter().find(|(_, n, g)| defs.strings.get(n).map(String::as_str) == Some("MPI_COMM_WORLD") && is_world(*g));
        named.or_else(|| defs.comms.iter().find(|(_, _, g)| is_world(*g))).map(|c| c.0)
    };
    for &(id, _name, group) in &defs.comms {
        if Some(id) == world_def {
            comm_map.insert(id, CommMap::Id(0));
            continue;
        }
        match members_of(group) {
            Some((GROUP_COMM_SELF, _, _, _)) => {
                comm_map.insert(id, CommMap::PerRank);
            }
            Some((GROUP_COMM_GROUP, _, flags, members)) => {
                if flags & GROUP_FLAG_GLOBAL_MEMBERS != 0 {
                    global.insert(comms.len() as u32);
                }
                if let Some(bad) = members.iter().find(|&&m| m >= ranks as u64) {
                    return Err(err0(format!("communicator {id} lists rank {bad}, but the archive has {ranks} ranks: {CORRUPT}")));
                }
                comm_map.insert(id, CommMap::Id(comms.len() as u32));
                comms.push(members.iter().map(|&m| m as u32).collect());
            }
            // Other kinds (inter-communicators' parts, unknown groups): an error if used.
            _ => {}
        }
    }
    let mut self_comms: HashMap<(u32, u32), u32> = HashMap::new();

    let mut ops = Vec::with_capacity(ranks as usize);
    let mut measured = Vec::with_capacity(ranks as usize);
    let mut times = Vec::with_capacity(ranks as usize);
    // Per rank, its collectives: (op index, OTF2 op, sent, received).
    let mut colls: Vec<Vec<CollectiveRecord>> = Vec::with_capacity(ranks as usize);
    for (rank, records) in events.iter().enumerate() {
        let rank = rank as u32;
        let mut list: Vec<Option<(Op, Pos)>> = Vec::new();
        // Per slot of `list`, when its operation began (ns from the rank's first event).
        let mut stamp: Vec<u64> = Vec::new();
        let first = records.iter().map(|r| r.time).min().unwrap_or(0);
        let mut rank_colls = Vec::new();
        let mut depth = 0u32;
        let mut entered = 0u64;
        let mut last_leave: Option<u64> = None;
        let mut mpi_ticks = 0u64;
        let mut completed: Vec<u64> = Vec::new();
        let mut next_req = 0u64;
        let mut sends: HashMap<u64, u64> = HashMap::new();
        // OTF2 request -> (op slot, program request, event index of the posting).
        let mut recvs: HashMap<u64, (usize, u64, u64)> = HashMap::new();
        let mut coll_begin: Option<u64> = None;
        // When MPI_Init returned and MPI_Finalize was entered, if they were traced.
        let (mut initialized, mut finalized): (Option<u64>, Option<u64>) = (None, None);
        for rec in records {
            let pos = Pos::Event(rec.index);
            let err = |msg: String| Error::config(at(&format!(" rank {rank} event {}", rec.index)), msg);
            let mut comm_id = |comm: u32, comms: &mut Vec<Vec<u32>>| -> Result<u32> {
                match comm_map.get(&comm) {
                    Some(CommMap::Id(c)) => Ok(*c),
                    Some(CommMap::PerRank) => Ok(*self_comms.entry((comm, rank)).or_insert_with(|| {
                        comms.push(vec![rank]);
                        comms.len() as u32 - 1
                    })),
                    None => Err(err(format!(
                        "communicator {comm} is not defined as an MPI communicator of the archive's ranks (a group of type COMM_GROUP or COMM_SELF): {CORRUPT}"
                    ))),
                }
            };
            let peer_in = |peer: u32, comm: u32, comms: &Vec<Vec<u32>>| -> Result<u32> {
                let members = &comms[comm as usize];
                if global.contains(&comm) {
                    return members
                        .iter()
                        .position(|&m| m == peer)
                        .map(|p| p as u32)
                        .ok_or_else(|| err(format!("world rank {peer} is not a member of communicator {comm}: {CORRUPT}")));
                }
                if (peer as usize) < members.len() {
                    Ok(peer)
                } else {
                    Err(err(format!("peer {peer} is not a rank of communicator {comm}, which has {}: {CORRUPT}", members.len())))
                }
            };
            // Some(true) for MPI_Init(_thread), Some(false) for MPI_Finalize, else None.
            let setup = |region: u32| match defs.regions.get(&region).and_then(|(name, _)| defs.strings.get(name)).map(String::as_str) {
                Some("MPI_Init" | "MPI_Init_thread") => Some(true),
                Some("MPI_Finalize") => Some(false),
                _ => None,
            };
            let is_mpi = |region: u32| {
                defs.regions.get(&region).is_some_and(|(name, paradigm)| {
                    *paradigm == PARADIGM_MPI || defs.strings.get(name).is_some_and(|n| n.starts_with("MPI_"))
                })
            };
            match rec.event {
                Event::Enter { region } if is_mpi(region) => {
                    if depth == 0 {
                        if let Some(t) = last_leave {
                            let gap = ns(rec.time.saturating_sub(t));
                            if gap > 0 {
                                list.push(Some((Op::Compute { ns: gap }, pos.clone())));
                                stamp.push(ns(t.saturating_sub(first)));
                            }
                        }
                        entered = rec.time;
                        if setup(region) == Some(false) {
                            finalized.get_or_insert(rec.time);
                        }
                    }
                    depth += 1;
                }
                Event::Leave { region } if is_mpi(region) => {
                    if depth == 0 {
                        continue; // a leave without its enter (the trace began inside a call)
                    }
                    depth -= 1;
                    if depth == 0 {
                        // MPI_Init and MPI_Finalize set up and tear down: not the program's
                        // communication, and outside its span.
                        match setup(region) {
                            Some(true) => initialized = Some(rec.time),
                            Some(false) => {}
                            None => mpi_ticks += rec.time.saturating_sub(entered),
                        }
                        last_leave = Some(rec.time);
                        if !completed.is_empty() {
                            list.push(Some((Op::Wait { reqs: std::mem::take(&mut completed) }, pos)));
                            stamp.push(ns(entered.saturating_sub(first)));
                        }
                    }
                }
                Event::Enter { .. } | Event::Leave { .. } => {}
                Event::Send { peer, comm, tag, bytes } => {
                    let comm = comm_id(comm, &mut comms)?;
                    let peer = peer_in(peer, comm, &comms)?;
                    list.push(Some((Op::Send { peer, bytes, tag: tag as i32, comm, req: None }, pos)));
                    stamp.push(ns(entered.saturating_sub(first)));
                }
                Event::Isend { peer, comm, tag, bytes, req } => {
                    let comm = comm_id(comm, &mut comms)?;
                    let peer = peer_in(peer, comm, &comms)?;
                    let id = next_req;
                    next_req += 1;
                    sends.insert(req, id);
                    list.push(Some((Op::Send { peer, bytes, tag: tag as i32, comm, req: Some(id) }, pos)));
                    stamp.push(ns(entered.saturating_sub(first)));
                }
                Event::IsendComplete { req } => {
                    if let Some(id) = sends.remove(&req) {
                        completed.push(id);
                    }
                }
                Event::Recv { peer, comm, tag, bytes } => {
                    let comm = comm_id(comm, &mut comms)?;
                    let peer = peer_in(peer, comm, &comms)?;
                    list.push(Some((Op::Recv { peer, bytes, tag: tag as i32, comm, req: None }, pos)));
                    stamp.push(ns(entered.saturating_sub(first)));
                }
                Event::IrecvRequest { req } => {
                    let id = next_req;
                    next_req += 1;
                    if recvs.contains_key(&req) {
                        return Err(err(format!("receive request {req} is posted again before it completed: {CORRUPT}")));
                    }
                    recvs.insert(req, (list.len(), id, rec.index));
                    list.push(Some((Op::Recv { peer: 0, bytes: 0, tag: 0, comm: 0, req: Some(id) }, pos)));
                    stamp.push(ns(entered.saturating_sub(first)));
                }
                Event::Irecv { peer, comm, tag, bytes, req } => {
                    let comm = comm_id(comm, &mut comms)?;
                    let peer = peer_in(peer, comm, &comms)?;
                    let op = |id| Op::Recv { peer, bytes, tag: tag as i32, comm, req: Some(id) };
                    match recvs.remove(&req) {
                        Some((slot, id, at_)) => {
                            list[slot] = Some((op(id), Pos::Event(at_)));
                            completed.push(id);
                        }
                        // No posting recorded: the receive is posted where it completes.
                        None => {
                            let id = next_req;
                            next_req += 1;
                            list.push(Some((op(id), pos)));
                            stamp.push(ns(entered.saturating_sub(first)));
                            completed.push(id);
                        }
                    }
                }
                Event::Cancelled { req } => {
                    if let Some((slot, _, _)) = recvs.remove(&req) {
                        list[slot] = None;
                    }
                    sends.remove(&req);
                }
                Event::CollectiveBegin => coll_begin = Some(rec.index),
                Event::CollectiveEnd { op, comm, root, sent, received } => {
                    let Some(kind) = collective_kind(op) else {
                        return Err(err(format!(
                            "collective operation {} is not supported: flitsim replays barrier, bcast, reduce, allreduce, gather(v), allgather(v), scatter(v), alltoall(v) and reduce_scatter(_block); trace a run (or a version of the application) without it",
                            collective_op_name(op)
                        )));
                    };
                    let comm = comm_id(comm, &mut comms)?;
                    let root = if kind.rooted() {
                        peer_in(root, comm, &comms)
                            .map_err(|_| err(format!("root {root} is not a rank of communicator {comm}: {CORRUPT}")))?
                    } else {
                        0
                    };
                    let at_ = coll_begin.take().unwrap_or(rec.index);
                    rank_colls.push((list.len(), op, sent, received));
                    list.push(Some((Op::Collective { kind, comm, root, bytes: 0 }, Pos::Event(at_))));
                    stamp.push(ns(entered.saturating_sub(first)));
                }
            }
            // Requests completed outside any MPI call (a tracer without regions).
            if depth == 0 && !completed.is_empty() {
                list.push(Some((Op::Wait { reqs: std::mem::take(&mut completed) }, Pos::Event(rec.index))));
                stamp.push(ns(rec.time.saturating_sub(first)));
            }
        }
        if let Some((_, _, posted)) = recvs.values().min_by_key(|v| v.2) {
            return Err(Error::config(
                at(&format!(" rank {rank} event {posted}")),
                format!("the receive request posted here (MPI_Irecv) never completes: no MPI_Wait or MPI_Test in the trace returns it; {CORRUPT}"),
            ));
        }
        let last = records.iter().map(|r| r.time).max().unwrap_or(0);
        let span = finalized.unwrap_or(last).saturating_sub(initialized.unwrap_or(first));
        measured.push(Measured { span_ns: ns(span), mpi_ns: ns(mpi_ticks) });
        // Collective slots keep their index when cancelled receives are dropped: map them.
        let mut new_index = Vec::with_capacity(list.len());
        let mut kept = Vec::with_capacity(list.len());
        let mut kept_times = Vec::with_capacity(list.len());
        for (slot, t) in list.into_iter().zip(stamp) {
            new_index.push(kept.len());
            if let Some(op) = slot {
                kept.push(op);
                kept_times.push(t);
            }
        }
        times.push(kept_times);
        for c in &mut rank_colls {
            c.0 = new_index[c.0];
        }
        ops.push(kept);
        colls.push(rank_colls);
    }
    collective_sizes(&comms, &mut ops, &colls, at)?;
    Ok(Program { comms, ops, measured: Some(measured), times })
}

/// Match the collectives of each communicator's members (the k-th on a communicator is one
/// instance) and give every member the instance's `bytes`, from the sums of its members'
/// sent and received sizes (see the module doc).
fn collective_sizes(
    comms: &[Vec<u32>],
    ops: &mut [Vec<(Op, Pos)>],
    colls: &[Vec<CollectiveRecord>],
    at: &dyn Fn(&str) -> String,
) -> Result<()> {
    // Per rank, per communicator, its collectives in order.
    let mut per: Vec<HashMap<u32, Vec<CollectiveRecord>>> = vec![HashMap::new(); ops.len()];
    for (rank, list) in colls.iter().enumerate() {
        for &c in list {
            let Op::Collective { comm, .. } = ops[rank][c.0].0 else { unreachable!("collective slots hold collectives") };
            per[rank].entry(comm).or_default().push(c);
        }
    }
    for (id, members) in comms.iter().enumerate() {
        let id = id as u32;
        let p = members.len() as u128;
        let lists: Vec<&[CollectiveRecord]> = members.iter().map(|&m| per[m as usize].get(&id).map_or(&[][..], Vec::as_slice)).collect();
        let n = lists.first().map_or(0, |l| l.len());
        if let Some((i, l)) = lists.iter().enumerate().find(|(_, l)| l.len() != n) {
            return Err(Error::config(
                at(""),
                format!(
                    "on communicator {id}, rank {} calls {n} collectives but rank {} calls {}: every member calls each collective; {CORRUPT}",
                    members[0],
                    members[i],
                    l.len()
                ),
            ));
        }
        for k in 0..n {
            let kind_of = |rank: usize, slot: usize| match ops[rank][slot].0 {
                Op::Collective { kind, .. } => kind,
                _ => unreachable!("collective slots hold collectives"),
            };
            let first = kind_of(members[0] as usize, lists[0][k].0);
            let (mut sent, mut received, mut max_received) = (0u128, 0u128, 0u64);
            for (i, &m) in members.iter().enumerate() {
                let (slot, op, s, r) = lists[i][k];
                if kind_of(m as usize, slot) != first {
                    let Pos::Event(e) = ops[m as usize][slot].1 else { unreachable!("OTF2 ops have event positions") };
                    return Err(Error::config(
                        at(&format!(" rank {m} event {e}")),
                        format!(
                            "collective {} of communicator {id} is {} here but {first} on rank {}: the members disagree; {CORRUPT}",
                            k + 1,
                            collective_op_name(op),
                            members[0]
                        ),
                    ));
                }
                sent += s as u128;
                received += r as u128;
                max_received = max_received.max(r);
            }
            let div = |x: u128, d: u128| (x + d / 2).checked_div(d).map_or(0, |v| v as u64);
            let bytes = match first {
                Collective::Barrier => 0,
                Collective::Bcast => max_received,
                Collective::Reduce | Collective::Gather => div(sent, p),
                Collective::Scatter => div(received, p),
                Collective::Allreduce | Collective::Alltoall | Collective::ReduceScatter => div(sent, p * p),
                Collective::Allgather => div(received, p * p),
            };
            for (i, &m) in members.iter().enumerate() {
                if let Op::Collective { bytes: b, .. } = &mut ops[m as usize][lists[i][k].0].0 {
                    *b = bytes;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(index: u64, time: u64, event: Event) -> Record {
        Record { index, time, event }
    }

    /// Three ranks; communicator 7 has world ranks [2, 0] with the GLOBAL_MEMBERS flag
    /// (its events name world ranks); a gatherv on the world with blocks of 10, 20 and 30
    /// bytes (the root, rank 0, counts its own block and receives all 60).
    fn defs() -> Defs {
        let mut d = Defs { resolution: Some(1_000_000_000), ..Defs::default() };
        d.locations = vec![(0, 0), (1, 1), (2, 2)];
        d.groups.insert(0, (GROUP_COMM_LOCATIONS, PARADIGM_MPI, 0, vec![0, 1, 2]));
        d.groups.insert(1, (GROUP_COMM_GROUP, PARADIGM_MPI, 0, vec![0, 1, 2]));
        d.groups.insert(2, (GROUP_COMM_GROUP, PARADIGM_MPI, GROUP_FLAG_GLOBAL_MEMBERS, vec![2, 0]));
        d.comms = vec![(3, 0, 1), (7, 0, 2)];
        d
    }

    #[test]
    fn global_member_ranks_become_communicator_ranks_and_v_collectives_get_the_mean_block() {
        let gatherv = |i: u64, sent: u64, received: u64| rec(i, 10, Event::CollectiveEnd { op: 3, comm: 3, root: 0, sent, received });
        let events = vec![
            vec![rec(0, 5, Event::Send { peer: 2, comm: 7, tag: 1, bytes: 8 }), gatherv(1, 10, 60)],
            vec![gatherv(0, 20, 0)],
            vec![rec(0, 5, Event::Recv { peer: 0, comm: 7, tag: 1, bytes: 8 }), gatherv(1, 30, 0)],
        ];
        let at = |w: &str| format!("t (a.otf2{w})");
        let p = assemble(defs(), events, &at).unwrap();
        assert_eq!(p.comms, vec![vec![0, 1, 2], vec![2, 0]]);
        let g = Op::Collective { kind: Collective::Gather, comm: 0, root: 0, bytes: 20 };
        assert_eq!(p.ops[0], vec![(Op::Send { peer: 0, bytes: 8, tag: 1, comm: 1, req: None }, Pos::Event(0)), (g.clone(), Pos::Event(1))]);
        assert_eq!(p.ops[1], vec![(g.clone(), Pos::Event(0))]);
        assert_eq!(p.ops[2], vec![(Op::Recv { peer: 1, bytes: 8, tag: 1, comm: 1, req: None }, Pos::Event(0)), (g, Pos::Event(1))]);
    }

    #[test]
    fn members_that_disagree_on_a_collective_are_an_error() {
        let end = |op: u8| rec(0, 1, Event::CollectiveEnd { op, comm: 3, root: 0, sent: 8, received: 8 });
        let events = vec![vec![end(11)], vec![end(11)], vec![end(12)]];
        let e = assemble(defs(), events, &|w: &str| format!("t (a.otf2{w})")).unwrap_err().to_string();
        assert!(e.contains("a.otf2 rank 2 event 0") && e.contains("REDUCE here but allreduce"), "{e}");
    }
}
