//! Reading an archive through libotf2: the callbacks that collect its definitions and
//! raw event records (never unwinding into C), and the calls that drive the reader. All
//! of the OTF2 support's `unsafe` code is here and in [`super::ffi`].

use std::ffi::{c_char, c_void, CStr, CString};

use super::*;

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

/// Read the archive's definitions and, per rank's location, its events (in rank order).
/// Errors are messages (without the file, which the caller adds).
pub(super) fn collect(anchor: &Path) -> std::result::Result<(Defs, Vec<Vec<Record>>), String> {
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
