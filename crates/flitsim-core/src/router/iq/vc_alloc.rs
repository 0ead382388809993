//! VC allocation of the input-queued router: separable, input first, with round-robin
//! arbiters on both sides, or iSLIP (McKeown 1999) over the input and output VCs, as
//! BookSim2's `vc_allocator = islip` (`router.vc_allocator`).

use super::{state, InputVc, OutputVc, IDX, VIEW};
use crate::flow::FlowControl;
use crate::link::Flit;
use crate::router::arbiter::next_ptr;
use crate::router::vcset::VcSet;

/// What the VC allocator of one router needs besides its slices.
pub(super) struct VaContext {
    pub(super) v_n: usize,
    /// Input VCs per router (the round-robin range of the output-VC arbiters).
    pub(super) n_in: u32,
    pub(super) depth: usize,
    pub(super) local: u64,
    pub(super) flow: FlowControl,
    /// Cycle from which a winner may compete for the switch.
    pub(super) ready_at: u64,
    /// iSLIP iterations per allocation.
    pub(super) iterations: u32,
}

impl VaContext {
    /// Separable input-first VC allocation for the requesting input VCs `req`. Stage 1:
    /// each requester picks the free output VC in its candidate range that the flow
    /// control lets it claim nearest its own round-robin pointer (all picks see the
    /// ownership at the start). Stage 2:
    /// each picked output VC grants the requester nearest its round-robin pointer (an
    /// output VC picked by one requester simply grants it). Returns the winners, now
    /// active, and those of them whose output VC has a credit; `free` loses the granted
    /// output VCs. `pickers` is work space: per output VC, the requesters that picked it
    /// (valid for the VCs picked in this call). `ROUTER_PTR`: the input arbiters keep one
    /// pointer over the router's output VCs ([`crate::router::VaPointer::PerRouter`])
    /// rather than one per port (compiled apart, so the default pays nothing for it).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn allocate<B: VcSet, const P: usize, const V: usize, const ROUTER_PTR: bool>(
        &self,
        req: B,
        free: &mut B,
        ivc: &mut [InputVc; VIEW],
        buf: &[Flit],
        outs: &mut [OutputVc; VIEW],
        pickers: &mut [B; VIEW],
    ) -> (B, B) {
        let v_n = if V != 0 { V } else { self.v_n };
        let n_in = if P != 0 && V != 0 { (P * V) as u32 } else { self.n_in };
        // Stage 1. `picked`: output VCs picked.
        let mut picked = B::EMPTY;
        let mut m = req;
        while !m.is_empty() {
            let li = m.take_lowest() & IDX;
            let cand = self.claimable::<B>(li, v_n, *free, ivc, buf, outs);
            let st = &ivc[li];
            let o = st.port as usize;
            if !cand.is_empty() {
                // The input arbiter: the claimable free output VC nearest this input
                // VC's round-robin pointer.
                let ptr = if ROUTER_PTR { st.va_rr as u32 } else { (o * v_n) as u32 + st.va_rr as u32 };
                let t = cand.round_robin(ptr) as usize & IDX;
                // The first pick of `t` in this call starts its set afresh.
                let earlier = B::all_if(picked.has(t));
                pickers[t] = pickers[t] & earlier | B::bit(li);
                picked |= B::bit(t);
            }
        }
        // Stage 2: each picked output VC grants the picker nearest its pointer (the first
        // at or after it, wrapping: the round-robin order over the input VCs).
        let (mut won, mut won_cred) = (B::EMPTY, B::EMPTY);
        let mut m = picked;
        while !m.is_empty() {
            let t = m.take_lowest() & IDX;
            let ov = &mut outs[t];
            let li = pickers[t].round_robin(ov.va_ptr as u32) as usize & IDX;
            ov.owner = li as u16;
            ov.va_ptr = next_ptr(li as u32, n_in) as u16;
            let has_credit = ov.credits != 0;
            let st = &mut ivc[li];
            st.state = state::ACTIVE;
            st.out_vc = (t - st.port as usize * v_n) as u8;
            st.va_rr = if ROUTER_PTR { next_ptr(t as u32, n_in) } else { next_ptr(st.out_vc as u32, v_n as u32) } as u8;
            st.delay_until(self.ready_at);
            won |= B::bit(li);
            won_cred |= B::bit_if(has_credit, li);
        }
        *free &= !picked;
        (won, won_cred)
    }

    /// The free output VCs in input VC `li`'s candidate range that the flow control lets
    /// it claim. (A port has at most 64 VCs: the range is built in 64 bits.)
    #[inline(always)]
    fn claimable<B: VcSet>(&self, li: usize, v_n: usize, free: B, ivc: &[InputVc; VIEW], buf: &[Flit], outs: &[OutputVc; VIEW]) -> B {
        let st = &ivc[li];
        let o = st.port as usize;
        debug_assert!(st.lo < st.hi && st.hi <= 64, "candidate VC range");
        let range = (u64::MAX >> (64 - st.hi as u32)) & (u64::MAX << st.lo);
        let mut cand = free & B::from_u64(range) << (o * v_n);
        if self.flow == FlowControl::VirtualCutThrough && !cand.is_empty() && self.local >> o & 1 == 0 {
            let size = buf[st.front_slot(li, self.depth)].size();
            while !cand.is_empty() && !self.flow.may_claim(outs[cand.lowest() & IDX].credits, size) {
                cand.take_lowest();
            }
        }
        cand
    }

    /// iSLIP VC allocation for the requesting input VCs `req`, `iterations` rounds: each
    /// free output VC grants, among the unmatched input VCs that may claim it, the one
    /// nearest its pointer (over the router's input VCs); each input VC granted accepts
    /// the output VC nearest its own pointer (over the router's output VCs). Pointers
    /// move past the partner only on a match in the first round. Returns what
    /// [`VaContext::allocate`] returns. `requests` (per output VC: the input VCs that may
    /// claim it) and `grants` (per input VC: the output VCs granting it) are work space.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn allocate_islip<B: VcSet, const P: usize, const V: usize>(
        &self,
        req: B,
        free: &mut B,
        ivc: &mut [InputVc; VIEW],
        buf: &[Flit],
        outs: &mut [OutputVc; VIEW],
        requests: &mut [B; VIEW],
        grants: &mut [B; VIEW],
    ) -> (B, B) {
        let v_n = if V != 0 { V } else { self.v_n };
        let n_in = if P != 0 && V != 0 { (P * V) as u32 } else { self.n_in };
        // The requests: `requested` holds the output VCs with any.
        let mut requested = B::EMPTY;
        let mut m = req;
        while !m.is_empty() {
            let li = m.take_lowest() & IDX;
            let mut cand = self.claimable::<B>(li, v_n, *free, ivc, buf, outs);
            while !cand.is_empty() {
                let t = cand.take_lowest() & IDX;
                let earlier = B::all_if(requested.has(t));
                requests[t] = requests[t] & earlier | B::bit(li);
                requested |= B::bit(t);
            }
        }
        let (mut won, mut won_cred) = (B::EMPTY, B::EMPTY);
        let mut taken = B::EMPTY;
        for round in 0..self.iterations {
            // Grant: each unmatched output VC with unmatched requesters grants one.
            let mut granted = B::EMPTY;
            let mut m = requested & !taken;
            while !m.is_empty() {
                let t = m.take_lowest() & IDX;
                let waiting = requests[t] & !won;
                if waiting.is_empty() {
                    continue;
                }
                let li = waiting.round_robin(outs[t].va_ptr as u32) as usize & IDX;
                let earlier = B::all_if(granted.has(li));
                grants[li] = grants[li] & earlier | B::bit(t);
                granted |= B::bit(li);
            }
            if granted.is_empty() {
                break;
            }
            // Accept: each input VC granted takes the grant nearest its pointer.
            let mut m = granted;
            while !m.is_empty() {
                let li = m.take_lowest() & IDX;
                let t = grants[li].round_robin(ivc[li].va_rr as u32) as usize & IDX;
                let ov = &mut outs[t];
                ov.owner = li as u16;
                if round == 0 {
                    ov.va_ptr = next_ptr(li as u32, n_in) as u16;
                    ivc[li].va_rr = next_ptr(t as u32, n_in) as u8;
                }
                let has_credit = ov.credits != 0;
                let st = &mut ivc[li];
                st.state = state::ACTIVE;
                st.out_vc = (t - st.port as usize * v_n) as u8;
                st.delay_until(self.ready_at);
                won |= B::bit(li);
                won_cred |= B::bit_if(has_credit, li);
                taken |= B::bit(t);
            }
        }
        *free &= !taken;
        (won, won_cred)
    }
}

#[cfg(test)]
mod tests {
    use super::super::FREE;
    use super::*;

    /// Three ports of two VCs: input VCs 0 (port 0) and 2 (port 1) both want port 2,
    /// either VC (output VCs 4 and 5); every pointer at 0.
    fn contest() -> ([InputVc; VIEW], [OutputVc; VIEW]) {
        let mut ivc = [InputVc::default(); VIEW];
        for li in [0, 2] {
            ivc[li] = InputVc { state: state::VC_ALLOC, port: 2, lo: 0, hi: 2, ..InputVc::default() };
        }
        (ivc, [OutputVc { credits: 8, owner: FREE, va_ptr: 0 }; VIEW])
    }

    fn ctx(iterations: u32) -> VaContext {
        VaContext { v_n: 2, n_in: 6, depth: 8, local: 0, flow: FlowControl::Wormhole, ready_at: 0, iterations }
    }

    /// Worked by hand from the iSLIP rules: both output VCs grant input VC 0 (nearest
    /// their pointers), which accepts VC 4 (nearest its own); input VC 2 loses the round.
    /// A second round lets VC 5 grant input VC 2, without moving any pointer.
    #[test]
    fn islip_vc_allocation_matches_the_hand_worked_rounds() {
        let (mut ivc, mut outs) = contest();
        let (mut free, mut requests, mut grants) = (0b11_1111u64, [0u64; VIEW], [0u64; VIEW]);
        let (won, won_cred) = ctx(1).allocate_islip::<u64, 0, 0>(0b101, &mut free, &mut ivc, &[], &mut outs, &mut requests, &mut grants);
        assert_eq!((won, won_cred, free), (0b1, 0b1, 0b10_1111));
        assert_eq!((outs[4].owner, outs[4].va_ptr, ivc[0].va_rr, ivc[0].out_vc), (0, 1, 5, 0));
        assert_eq!((outs[5].owner, ivc[2].state), (FREE, state::VC_ALLOC));

        let (mut ivc, mut outs) = contest();
        let mut free = 0b11_1111u64;
        let (won, _) = ctx(2).allocate_islip::<u64, 0, 0>(0b101, &mut free, &mut ivc, &[], &mut outs, &mut requests, &mut grants);
        assert_eq!((won, free), (0b101, 0b00_1111));
        assert_eq!((outs[5].owner, ivc[2].out_vc, ivc[2].state), (2, 1, state::ACTIVE));
        // Matches of later rounds move no pointer.
        assert_eq!((outs[5].va_ptr, ivc[2].va_rr), (0, 0));
    }

    /// An output VC grants the requester at or after its pointer: with VC 4's pointer
    /// past input VC 0, VC 4 grants input VC 2 and VC 5 grants input VC 0, and each
    /// accepts its only grant: both match in one round.
    #[test]
    fn islip_grants_follow_the_output_pointers() {
        let (mut ivc, mut outs) = contest();
        outs[4].va_ptr = 1;
        let (mut free, mut requests, mut grants) = (0b11_1111u64, [0u64; VIEW], [0u64; VIEW]);
        let (won, _) = ctx(1).allocate_islip::<u64, 0, 0>(0b101, &mut free, &mut ivc, &[], &mut outs, &mut requests, &mut grants);
        assert_eq!(won, 0b101);
        assert_eq!((outs[4].owner, outs[5].owner), (2, 0));
        assert_eq!((outs[4].va_ptr, outs[5].va_ptr, ivc[0].va_rr, ivc[2].va_rr), (3, 1, 0, 5));
    }

    /// A busy output VC grants nobody: with VC 4 owned, both inputs want VC 5 alone.
    #[test]
    fn islip_skips_output_vcs_that_are_not_free() {
        let (mut ivc, mut outs) = contest();
        let (mut free, mut requests, mut grants) = (0b01_1111u64 & !(1 << 4) | 1 << 5, [0u64; VIEW], [0u64; VIEW]);
        let (won, _) = ctx(2).allocate_islip::<u64, 0, 0>(0b101, &mut free, &mut ivc, &[], &mut outs, &mut requests, &mut grants);
        assert_eq!(won, 0b1);
        assert_eq!((outs[5].owner, outs[4].owner, free >> 4), (0, FREE, 0));
    }
}
