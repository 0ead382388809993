//! The staging buffers of the buffered-crossbar router: one per (output port, input
//! port, VC), holding staged flits in 8 bytes, with the bookkeeping of virtual
//! cut-through (room committed to a crossing packet) and of the crossbar delay (which
//! of the newest flits may not leave yet).

use crate::link::Flit;

/// A staged flit in 8 bytes: the flit with its output VC in the top 4 bits of the tail
/// index (validated: packets of at most 4,096 flits, at most 16 VCs).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Staged {
    pub(super) pid: u32,
    idx: u16,
    last_vc: u16,
}

impl Staged {
    #[inline(always)]
    pub(super) fn new(f: Flit, vc: u8) -> Self {
        debug_assert!(f.last < 1 << 12 && vc < 16);
        Staged { pid: f.pid, idx: f.idx, last_vc: f.last | (vc as u16) << 12 }
    }
    #[inline(always)]
    pub(super) fn flit(self) -> Flit {
        Flit { pid: self.pid, idx: self.idx, last: self.last_vc & 0xfff }
    }
    #[inline(always)]
    pub(super) fn vc(self) -> u8 {
        (self.last_vc >> 12) as u8
    }
}

/// One staging buffer's ring pointers; `committed` = flits staged plus flits of the
/// packet crossing into it still to come (virtual cut-through reserves the packet).
/// `hist` bit `i` says a flit entered at cycle `last_enter - i`: the flits that entered
/// within the last `crossbar_delay` cycles (at most 16) are the newest ones and cannot
/// leave yet, so the front can leave when the buffer holds more than those.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct StagingState {
    pub(super) head: u16,
    pub(super) len: u16,
    pub(super) committed: u16,
    hist: u16,
    last_enter: u32,
}

impl StagingState {
    /// A flit enters at cycle `now`.
    #[inline(always)]
    pub(super) fn entered(&mut self, now: u32) {
        let d = now.wrapping_sub(self.last_enter);
        self.hist = if d >= 16 { 1 } else { ((self.hist as u32) << d) as u16 | 1 };
        self.last_enter = now;
    }
    /// Can the front flit leave at cycle `now` with crossbar delay mask `recent_mask`
    /// (the low `crossbar_delay` bits)?
    #[inline(always)]
    pub(super) fn front_visible(&self, now: u32, recent_mask: u32) -> bool {
        let d = now.wrapping_sub(self.last_enter);
        let recent = if d >= 16 { 0 } else { ((self.hist as u32) << d & recent_mask).count_ones() };
        self.len as u32 > recent
    }
}
