//! Prefetching for the input-queued routers of large networks: a few routers ahead of
//! the one being stepped, ask the cache for its state and its due channel slots, and
//! (closer) for the headers of the packets it will route. Hints only: no effect on
//! results (tests check that).

use super::arrivals::Arrive;
use super::input_vc::VcSets;
use super::{view, IqRouters};
use crate::link::{Channels, Slot};
use crate::packet::PacketArena;
use crate::router::allocator::take_lowest;
use crate::router::prefetch;
use crate::router::vcset::VcSet;

impl IqRouters {
    /// Ask the cache for what router `r` will touch in this cycle's step: its input VCs
    /// and the buffers of the occupied ones, its output VC state, wiring and switch
    /// pointers, and the channel slots of its due arrivals (see the module docs).
    #[inline(always)]
    pub(super) fn prefetch_router<A: Arrive, B: VcSet>(&self, arr: &A, r: usize, sets: &VcSets<B>, now: u64, ch: &Channels) {
        let (p_n, v_n) = (self.ports as usize, self.vcs as usize);
        let rp = r * p_n;
        let base = rp * v_n;
        let depth = self.depth as usize;
        let wiring = view(&self.wiring, rp);
        let (mut due_flits, mut due_credits) = arr.peek(r, now);
        while due_flits != 0 {
            let p = take_lowest(&mut due_flits);
            prefetch(ch.flits.slot_of(wiring[p].in_flits, now));
        }
        while due_credits != 0 {
            let p = take_lowest(&mut due_credits);
            prefetch(ch.credits.slot_of(wiring[p].out_credits, now));
        }
        let n_vc = p_n * v_n;
        for i in (0..n_vc).step_by(4) {
            prefetch(&self.ivc[base + i]);
        }
        let mut m = sets.occ;
        while !m.is_empty() {
            // Both ends of the buffer: it may straddle two lines.
            let at = (base + m.take_lowest()) * depth;
            prefetch(&self.buf[at]);
            prefetch(&self.buf[at + depth - 1]);
        }
        for i in (0..n_vc).step_by(8) {
            prefetch(&self.out[base + i]);
        }
        for p in (0..p_n).step_by(2) {
            prefetch(&self.wiring[rp + p]);
        }
        prefetch(&self.ptrs[rp]);
    }

    /// Ask the cache for the headers of the packets whose heads router `r` routes in
    /// this cycle: those arriving (their channel slots were prefetched earlier) and those
    /// already at the front of an idle VC.
    #[inline(always)]
    pub(super) fn prefetch_headers<A: Arrive, B: VcSet>(
        &self,
        arr: &A,
        r: usize,
        sets: &VcSets<B>,
        now: u64,
        ch: &Channels,
        packets: &PacketArena,
    ) {
        let rp = r * self.ports as usize;
        let wiring = view(&self.wiring, rp);
        let (mut due_flits, _) = arr.peek(r, now);
        while due_flits != 0 {
            let p = take_lowest(&mut due_flits);
            let e = ch.flits.slot_of(wiring[p].in_flits, now);
            if !e.is_empty() {
                prefetch(packets.get(e.flit.pid));
            }
        }
        // Heads already buffered behind a packet that has left.
        let VcSets { occ, va, act, .. } = *sets;
        let mut m = occ & !(va | act);
        let base = rp * self.vcs as usize;
        let depth = self.depth as usize;
        while !m.is_empty() {
            let li = m.take_lowest();
            let f = self.buf[self.ivc[base + li].front_slot(base + li, depth)];
            prefetch(packets.get(f.pid));
        }
    }
}
