//! VC allocation of the input-queued router: separable, input first, with round-robin
//! arbiters on both sides.

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
        let vct = self.flow == FlowControl::VirtualCutThrough;
        // Stage 1. `picked`: output VCs picked.
        let mut picked = B::EMPTY;
        let mut m = req;
        while !m.is_empty() {
            let li = m.take_lowest() & IDX;
            let st = &ivc[li];
            let o = st.port as usize;
            // Free output VCs in the candidate range, lowest first. (A port has at most
            // 64 VCs: the range is built in 64 bits.)
            debug_assert!(st.lo < st.hi && st.hi <= 64, "candidate VC range");
            let range = (u64::MAX >> (64 - st.hi as u32)) & (u64::MAX << st.lo);
            let mut cand = *free & B::from_u64(range) << (o * v_n);
            if vct && !cand.is_empty() && self.local >> o & 1 == 0 {
                let size = buf[st.front_slot(li, self.depth)].size();
                while !cand.is_empty() && !self.flow.may_claim(outs[cand.lowest() & IDX].credits, size) {
                    cand.take_lowest();
                }
            }
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
}
