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
use crate::router::vcset::VcSet;
use crate::router::{prefetch, prefetch_ring_ends, prefetch_span};

impl IqRouters {
    /// First stage, furthest ahead: ask the cache for the state of router `r` whose
    /// place depends on `r` alone: its arrival marks for this cycle, VC sets, input and
    /// output VC records, wiring and switch pointers. Nothing is read, so nothing waits.
    #[inline(always)]
    pub(super) fn prefetch_state<A: Arrive, B: VcSet>(&self, arr: &A, r: usize, sets: &[VcSets<B>], now: u64) {
        let (p_n, v_n) = (self.ports as usize, self.vcs as usize);
        let rp = r * p_n;
        let base = rp * v_n;
        let n_vc = p_n * v_n;
        arr.prefetch_own(r, now);
        prefetch_span(&sets[r..r + 1]);
        prefetch_span(&self.ivc[base..base + n_vc]);
        prefetch_span(&self.out[base..base + n_vc]);
        prefetch_span(&self.wiring[rp..rp + p_n]);
        prefetch_span(&self.ptrs[rp..rp + p_n]);
    }

    /// Second stage: with router `r`'s state in the cache (the first stage asked for
    /// it), ask for the channel slots it receives from this cycle, the buffer slots of
    /// its occupied VCs, and, for its VCs that hold an output VC, the channel slots and
    /// arrival marks their flits and credits would be written to.
    #[inline(always)]
    pub(super) fn prefetch_slots<A: Arrive, B: VcSet>(&self, arr: &A, r: usize, sets: &VcSets<B>, now: u64, ch: &Channels) {
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
        let (mut senders, mut crediting) = (0u64, 0u64);
        let mut m = sets.occ;
        while !m.is_empty() {
            let li = m.take_lowest();
            let st = &self.ivc[base + li];
            // The front (route computation and switch traversal read it) and the back
            // (an arrival writes behind it).
            prefetch_ring_ends(&self.buf, (base + li) * depth, st.head as usize, st.len as usize, depth);
            if st.state == super::state::ACTIVE {
                senders |= 1 << (st.port & 63);
                crediting |= 1 << ((li / v_n) & 63);
            }
        }
        while senders != 0 {
            let w = &wiring[take_lowest(&mut senders)];
            let arrive = now + w.flit_delay as u64;
            prefetch(ch.flits.slot_of(w.out_flits, arrive));
            arr.prefetch_row(w.down_router, arrive);
        }
        let arrive = now + self.cfg.credit_delay as u64;
        while crediting != 0 {
            let w = &wiring[take_lowest(&mut crediting)];
            prefetch(ch.credits.slot_of(w.in_credits, arrive));
            arr.prefetch_row(w.up_router, arrive);
        }
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
                prefetch_span(std::slice::from_ref(packets.get(e.flit.pid)));
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
            prefetch_span(std::slice::from_ref(packets.get(f.pid)));
        }
    }
}
