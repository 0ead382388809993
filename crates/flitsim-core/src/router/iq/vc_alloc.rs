//! VC allocation of the input-queued router: separable, input first, with round-robin
//! arbiters on both sides.

use super::{state, InputVc, OutputVc, VIEW};
use crate::flow::FlowControl;
use crate::link::Flit;
use crate::router::allocator::{lowest, take_lowest};
use crate::router::arbiter::{next_ptr, round_robin};

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
    pub(super) fn allocate<const P: usize, const V: usize, const ROUTER_PTR: bool>(
        &self,
        req: u64,
        free: &mut u64,
        ivc: &mut [InputVc; VIEW],
        buf: &[Flit],
        outs: &mut [OutputVc; VIEW],
        pickers: &mut [u64; VIEW],
    ) -> (u64, u64) {
        let v_n = if V != 0 { V } else { self.v_n };
        let n_in = if P != 0 && V != 0 { (P * V) as u32 } else { self.n_in };
        let vct = self.flow == FlowControl::VirtualCutThrough;
        // Stage 1. `picked`: output VCs picked.
        let mut picked = 0u64;
        let mut m = req;
        while m != 0 {
            let li = take_lowest(&mut m);
            let st = &ivc[li];
            let o = st.port as usize;
            // Free output VCs in the candidate range, lowest first.
            let mut cand = *free & ((1u64 << st.hi) - (1u64 << st.lo)) << (o * v_n);
            if vct && cand != 0 && self.local >> o & 1 == 0 {
                let size = buf[st.front_slot(li, self.depth)].size();
                while cand != 0 && !self.flow.may_claim(outs[lowest(cand)].credits, size) {
                    cand &= cand - 1;
                }
            }
            if cand != 0 {
                // The input arbiter: the claimable free output VC nearest this input
                // VC's round-robin pointer.
                let ptr = if ROUTER_PTR { st.va_rr as u32 } else { (o * v_n) as u32 + st.va_rr as u32 };
                let t = round_robin(cand, ptr) as usize;
                // The first pick of `t` in this call starts its set afresh.
                let earlier = (picked >> t & 1).wrapping_neg();
                pickers[t] = pickers[t] & earlier | 1 << li;
                picked |= 1 << t;
            }
        }
        // Stage 2: each picked output VC grants the picker nearest its pointer (the first
        // at or after it, wrapping: the round-robin order over the input VCs).
        let (mut won, mut won_cred) = (0u64, 0u64);
        let mut m = picked;
        while m != 0 {
            let t = take_lowest(&mut m);
            let ov = &mut outs[t];
            let li = round_robin(pickers[t], ov.va_ptr as u32) as usize & 63;
            ov.owner = li as u16;
            ov.va_ptr = next_ptr(li as u32, n_in) as u16;
            let has_credit = ov.credits != 0;
            let st = &mut ivc[li];
            st.state = state::ACTIVE;
            st.out_vc = (t - st.port as usize * v_n) as u8;
            st.va_rr = if ROUTER_PTR { next_ptr(t as u32, n_in) } else { next_ptr(st.out_vc as u32, v_n as u32) } as u8;
            st.delay_until(self.ready_at);
            won |= 1 << li;
            won_cred |= (has_credit as u64) << li;
        }
        *free &= !picked;
        (won, won_cred)
    }
}
