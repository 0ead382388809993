//! The declarations of the OTF2 C API the OTF2 support uses (OTF2 2.x and 3.x; see
//! `/usr/include/otf2`). Callback types list only the parameters read: the C calling
//! convention lets a callee ignore trailing arguments.

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
    pub fn OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(c: *mut GlobalDefReaderCallbacks, f: ClockPropertiesCb) -> ErrorCode;
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
