//! Input-VC state of the input-queued router: the per-VC state machine with its buffer
//! ring pointers, and the per-router VC sets that drive the pipeline stages.

use super::{OutputVc, IDX, VIEW};
use crate::link::Flit;
use crate::router::vcset::VcSet;

/// Input VC states.
pub mod state {
    /// No packet routed: the front flit, if any, is a head awaiting route computation.
    pub const IDLE: u8 = 0;
    /// Routed, waiting for (or delayed after) route computation, then VC allocation.
    pub const VC_ALLOC: u8 = 1;
    /// Holds an output VC: flits compete for the switch.
    pub const ACTIVE: u8 = 2;
    /// The router drops the packet (a dateline error, [`crate::router::drops`]): its flits are
    /// discarded as they reach the front.
    pub const DROP: u8 = 3;
}

/// State of one input VC, including its buffer's ring pointers (16 bytes: four share a
/// cache line).
#[derive(Clone, Copy, Debug, Default)]
pub struct InputVc {
    /// One of [`state`].
    pub state: u8,
    /// Routed output port.
    pub port: u8,
    /// Candidate VC range `[lo, hi)`.
    pub lo: u8,
    /// End of the candidate range.
    pub hi: u8,
    /// Allocated output VC (valid when active).
    pub out_vc: u8,
    /// Round-robin pointer of this input VC's VC-allocation arbiter: the output VC
    /// (within the port; with `vc_alloc_pointer = "per_router"`, among all the router's
    /// output VCs) it tries first. Advances past the VC it wins.
    pub(super) va_rr: u8,
    /// Ring head within the buffer.
    pub(super) head: u16,
    /// Flits in the buffer.
    pub len: u16,
    /// Cycle from which the next pipeline stage may act, modulo 2^32 (see
    /// [`InputVc::ready_by`]).
    pub(super) ready: u32,
}

impl InputVc {
    /// Start a pipeline delay: the next stage may act from cycle `at`.
    #[inline]
    pub(super) fn delay_until(&mut self, at: u64) {
        self.ready = at as u32;
    }

    /// Has the pipeline delay passed by cycle `now`? Compares cycles modulo 2^32, which
    /// is exact because a delay is at most a few cycles long and a VC in one is
    /// visited every cycle.
    #[inline]
    pub fn ready_by(&self, now: u64) -> bool {
        (now as u32).wrapping_sub(self.ready) as i32 >= 0
    }

    /// The cycle from which the next pipeline stage may act, for a VC in a delay at
    /// cycle `now` (or whose delay ended at most 2^31 cycles before it).
    pub fn ready_at(&self, now: u64) -> u64 {
        now.wrapping_add_signed(self.ready.wrapping_sub(now as u32) as i32 as i64)
    }

    /// Slot of the front flit in the router's buffer storage, for local input VC `li`.
    #[inline]
    pub(super) fn front_slot(&self, li: usize, depth: usize) -> usize {
        li * depth + self.head as usize
    }

    /// Append `f` to the buffer of local input VC `li` (`buf` = the router's storage).
    #[inline]
    pub(super) fn push(&mut self, buf: &mut [Flit], li: usize, depth: usize, f: Flit) {
        debug_assert!((self.len as usize) < depth, "input buffer overflow: credits violated");
        let mut pos = self.head as usize + self.len as usize;
        if pos >= depth {
            pos -= depth;
        }
        self.len += 1;
        buf[li * depth + pos] = f;
    }

    /// Remove the front flit of local input VC `li`.
    #[inline]
    pub(super) fn pop(&mut self, buf: &[Flit], li: usize, depth: usize) -> Flit {
        debug_assert!(self.len > 0);
        let f = buf[self.front_slot(li, depth)];
        self.head = if self.head as usize + 1 == depth { 0 } else { self.head + 1 };
        self.len -= 1;
        f
    }
}

/// Per router: the input-VC sets that drive the pipeline stages (bit `port * vcs + vc`;
/// `u64` or `u128`, [`VcSet`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct VcSets<B: VcSet> {
    /// Input VCs holding flits.
    pub(super) occ: B,
    /// Input VCs in state VC_ALLOC.
    pub(super) va: B,
    /// Input VCs in state ACTIVE.
    pub(super) act: B,
    /// Free output VCs (bit `port * vcs + vc`), mirroring `owner == FREE`.
    pub(super) free: B,
    /// Input VCs in VC_ALLOC or ACTIVE whose pipeline delay has not passed (`ready >
    /// now`): they may not request yet.
    pub(super) wait: B,
    /// ACTIVE input VCs whose output VC has a credit (always, on an ejection port). With
    /// `occ`, `act` and `wait` this makes the switch requests without visiting every VC:
    /// the bit is cleared when the output VC's last credit is used and set again by the
    /// credit's return (the output VC's `owner` names the input VC).
    pub(super) cred: B,
    /// Input VCs in state DROP (only with a routing function that may drop).
    pub(super) drop: B,
    /// STOP/GO: input ports whose last symbol upstream was STOP.
    pub(super) stopped: u64,
}

/// The input VCs among `cand` (active, with a flit) that may request the switch: past
/// their delay and with a credit for their output VC (or on an ejection port). The step
/// keeps this set incrementally; debug builds check it against this full scan.
pub(super) fn switch_ready<B: VcSet>(ivc: &[InputVc; VIEW], outs: &[OutputVc; VIEW], mut cand: B, local: u64, v_n: usize, now: u64) -> B {
    let mut ready = B::EMPTY;
    while !cand.is_empty() {
        let li = cand.take_lowest();
        let st = &ivc[li & IDX];
        let o = st.port as usize;
        let credit = local >> o & 1 != 0 || outs[(o * v_n + st.out_vc as usize) & IDX].credits != 0;
        ready |= B::bit_if(st.ready_by(now) && credit, li);
    }
    ready
}

/// The input VCs among `cand` still in a pipeline delay (debug check of `wait`).
pub(super) fn delayed<B: VcSet>(ivc: &[InputVc; VIEW], mut cand: B, now: u64) -> B {
    let mut m = B::EMPTY;
    while !cand.is_empty() {
        let li = cand.take_lowest();
        m |= B::bit_if(!ivc[li & IDX].ready_by(now), li);
    }
    m
}
