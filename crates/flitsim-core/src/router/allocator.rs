//! Switch allocators: match input ports to output ports for one cycle.
//!
//! Requests are made per input VC: the router hands over the set of its *ready* input
//! VCs (a [`VcSet`], bit `port * vcs + vc`: at most 128, on at most 64 ports), each requesting the one output port its
//! packet was routed to. The allocator returns the matched input ports — at most one
//! output per input and one input per output — and, for each, which of its VCs goes.
//! Round-robin pointers live with the caller (one [`PortPointers`] per router port) and
//! are advanced only for grants that are used: [`SwitchAllocator::request`] computes the
//! match from the pointers, and [`SwitchAllocator::commit`] advances them for one matched
//! input when its flit goes (so switch traversal does it in the same pass over the
//! matched inputs). [`SwitchAllocator::allocate`] does both.
//!
//! * **Separable input-first**: a round-robin arbiter per input port picks one of its
//!   ready VCs; a round-robin arbiter per output port picks one of the inputs whose
//!   chosen VC requests it.
//! * **iSLIP** (McKeown 1999): each unmatched output grants the requesting unmatched input
//!   nearest its grant pointer; each input accepts the granting output nearest its accept
//!   pointer; pointers move one past the matched partner, in the first iteration only.
//!   Then each matched input picks, by round robin, one of its VCs requesting the output
//!   it was matched to. With one iteration (the usual setting) the input picks its VC
//!   as it accepts, in a single pass.
//!
//! The allocator runs once per busy router per cycle, so it works on bit sets and keeps
//! its work space between calls, touching only the entries of ports that request: no
//! per-call clearing, no allocation. Work arrays have 64 entries per port (the most
//! ports a router has) or 128 per input VC, and are indexed with `i & 63` or `i & 127`,
//! which needs no bounds check.

use super::arbiter::{next_ptr, round_robin};
use super::vcset::VcSet;
use super::AllocatorKind;

/// Round-robin pointers of one router port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortPointers {
    /// Input side: VC arbiter (both allocators).
    pub vc: u8,
    /// Output side: separable output arbiter.
    pub output: u8,
    /// Output side: iSLIP grant pointer.
    pub grant: u8,
    /// Input side: iSLIP accept pointer.
    pub accept: u8,
}

/// Largest number of ports of one router.
const N: usize = 64;

/// Largest number of input VCs of one router.
const NV: usize = 128;

/// A switch allocator for routers of `ports` ports (at most 64) with `vcs` VCs each,
/// whose input VCs are sets `B` (`ports * vcs <= B::BITS`), with its work space.
#[derive(Clone, Debug)]
pub struct SwitchAllocator<B: VcSet = u64> {
    kind: AllocatorKind,
    iterations: u32,
    ports: u32,
    vcs: u32,
    /// The low `vcs` bits.
    vc_bits: B,
    /// All input VCs of a router.
    all_vcs: B,
    /// Input VC `port * vcs + vc` -> port.
    port_of_vc: [u8; NV],
    /// Per output port: requesting input VCs (iSLIP). Valid only for outputs requested
    /// in the current call.
    req: [B; N],
    /// Per output port: requesting input ports (separable). Valid likewise.
    req_ports: [u64; N],
    /// iSLIP: outputs granting each input in the current iteration (valid only for the
    /// inputs granted in it).
    grants_to: [u64; N],
    /// Result per input port (valid for matched inputs): the VC that goes.
    vc_of: [u8; N],
    /// Result per input port (valid for matched inputs): its output.
    out_of: [u8; N],
    /// Inputs whose match moves the output-side pointers: every match of the separable
    /// allocator, iSLIP's matches in its first iteration.
    moves_outputs: u64,
}

impl<B: VcSet> SwitchAllocator<B> {
    /// An allocator of the given kind; `iterations` is used by iSLIP only.
    pub fn new(kind: AllocatorKind, iterations: u32, ports: u32, vcs: u32) -> Self {
        assert!(
            ports as usize <= N && (ports * vcs) as usize <= B::BITS && vcs >= 1,
            "at most 64 ports and {} input VCs per router",
            B::BITS
        );
        let mut port_of_vc = [0u8; NV];
        for (i, p) in port_of_vc.iter_mut().enumerate().take((ports * vcs) as usize) {
            *p = (i as u32 / vcs) as u8;
        }
        SwitchAllocator {
            kind,
            iterations,
            ports,
            vcs,
            vc_bits: B::low(vcs as usize),
            all_vcs: B::low((ports * vcs) as usize),
            port_of_vc,
            req: [B::EMPTY; N],
            req_ports: [0; N],
            grants_to: [0; N],
            vc_of: [0; N],
            out_of: [0; N],
            moves_outputs: 0,
        }
    }

    /// Match the input ports of one router and advance its pointers ([`request`] and
    /// [`commit`] of every match). Returns the matched input ports; see
    /// [`SwitchAllocator::grant`].
    ///
    /// [`request`]: SwitchAllocator::request
    /// [`commit`]: SwitchAllocator::commit
    #[inline]
    pub fn allocate(&mut self, ready: B, output: impl Fn(usize) -> usize, ptrs: &mut [PortPointers; N]) -> u64 {
        let matched = self.request(ready, output, ptrs);
        let mut m = matched;
        while m != 0 {
            self.commit(take_lowest(&mut m), ptrs);
        }
        matched
    }

    /// Match the input ports of one router. `ready` = its input VCs that may go this
    /// cycle; `output(i)` = the output port input VC `i` requests; `ptrs` = the router's
    /// pointers, port `p` at `ptrs[p]` (entries past the port count are not used; read
    /// only). Returns the matched input ports; see [`SwitchAllocator::grant`]. The
    /// caller must [`commit`](SwitchAllocator::commit) every matched input before the
    /// next call.
    #[inline]
    pub fn request(&mut self, ready: B, output: impl Fn(usize) -> usize, ptrs: &[PortPointers; N]) -> u64 {
        self.request_shaped::<0, 0>(ready, output, ptrs)
    }

    /// [`SwitchAllocator::request`] for routers of `P` ports with `V` VCs each, known at
    /// compile time (0 = as built: `P` and `V` must be the allocator's or 0).
    #[inline(always)]
    pub(crate) fn request_shaped<const P: usize, const V: usize>(
        &mut self,
        ready: B,
        output: impl Fn(usize) -> usize,
        ptrs: &[PortPointers; N],
    ) -> u64 {
        debug_assert!((ready & !self.all_vcs).is_empty(), "ready VCs out of range");
        debug_assert!((P == 0 || P == self.ports as usize) && (V == 0 || V == self.vcs as usize));
        if let Some(matched) = self.without_conflicts::<V>(ready, &output) {
            return matched;
        }
        self.with_conflicts::<V>(ready, output, ptrs)
    }

    /// VCs per port (`V` when known at compile time).
    #[inline(always)]
    fn v_n<const V: usize>(&self) -> usize {
        if V != 0 {
            V
        } else {
            self.vcs as usize
        }
    }

    /// Ports (`P` when known at compile time).
    #[inline(always)]
    fn p_n<const P: usize>(&self) -> u32 {
        if P != 0 {
            P as u32
        } else {
            self.ports
        }
    }

    /// Port of input VC `i`.
    #[inline(always)]
    fn port_of<const V: usize>(&self, i: usize) -> usize {
        // (`checked_div` is `None` only for the run-time shape, V = 0.)
        match i.checked_div(V) {
            Some(p) => p & 63,
            None => self.port_of_vc[i & (NV - 1)] as usize & 63,
        }
    }

    /// The arbitrating allocators, for requests that conflict (inlined: near saturation
    /// they run in over a third of the router steps, where a call costs more than the
    /// code size it saves).
    #[inline(always)]
    fn with_conflicts<const V: usize>(&mut self, ready: B, output: impl Fn(usize) -> usize, ptrs: &[PortPointers; N]) -> u64 {
        match self.kind {
            AllocatorKind::SeparableInputFirst => self.separable::<V>(ready, output, ptrs),
            AllocatorKind::Islip => self.islip::<V>(ready, output, ptrs),
        }
    }

    /// Advance the round-robin pointers for matched input `p` of the last
    /// [`request`](SwitchAllocator::request): the input's VC arbiter moves past the VC
    /// that goes; the output-side pointer (separable: output arbiter; iSLIP, in its first
    /// iteration: grant pointer, and the input's accept pointer) moves past the partner.
    #[inline]
    pub fn commit(&self, p: usize, ptrs: &mut [PortPointers; N]) {
        self.commit_shaped::<0, 0>(p, ptrs)
    }

    /// [`SwitchAllocator::commit`] for a shape known at compile time (see
    /// [`SwitchAllocator::request_shaped`]).
    #[inline(always)]
    pub(crate) fn commit_shaped<const P: usize, const V: usize>(&self, p: usize, ptrs: &mut [PortPointers; N]) {
        let (p, o) = (p & 63, self.out_of[p & 63] as usize & 63);
        let ports = self.p_n::<P>();
        ptrs[p].vc = next_ptr(self.vc_of[p] as u32, self.v_n::<V>() as u32) as u8;
        if self.moves_outputs >> p & 1 != 0 {
            match self.kind {
                AllocatorKind::SeparableInputFirst => ptrs[o].output = next_ptr(p as u32, ports) as u8,
                AllocatorKind::Islip => {
                    ptrs[o].grant = next_ptr(p as u32, ports) as u8;
                    ptrs[p].accept = next_ptr(o as u32, ports) as u8;
                }
            }
        }
    }

    /// `(vc, output)` of matched input port `input` after [`SwitchAllocator::allocate`].
    #[inline]
    pub fn grant(&self, input: usize) -> (usize, usize) {
        (self.vc_of[input & 63] as usize, self.out_of[input & 63] as usize)
    }

    /// The common case, decided without arbitration: every input port has at most one
    /// ready VC and no two of them request the same output. Both allocators then match
    /// every request (each output has one requester, each input one grant), so only the
    /// pointer updates differ. Returns `None` when requests conflict.
    #[inline]
    fn without_conflicts<const V: usize>(&mut self, ready: B, output: &impl Fn(usize) -> usize) -> Option<u64> {
        let (mut ins, mut outs, mut clash) = (0u64, 0u64, 0u64);
        let v_n = self.v_n::<V>();
        let mut m = ready;
        while !m.is_empty() {
            let i = m.take_lowest();
            let p = self.port_of::<V>(i);
            let o = output(i) & 63;
            clash |= (ins >> p) | (outs >> o);
            ins |= 1 << p;
            outs |= 1 << o;
            self.vc_of[p] = (i - p * v_n) as u8;
            self.out_of[p] = o as u8;
        }
        if clash & 1 != 0 {
            return None;
        }
        self.moves_outputs = ins;
        Some(ins)
    }

    #[inline(always)]
    fn separable<const V: usize>(&mut self, ready: B, output: impl Fn(usize) -> usize, ptrs: &[PortPointers; N]) -> u64 {
        let v_n = self.v_n::<V>();
        // Input stage: each input port with ready VCs picks one by round robin.
        let mut outs = 0u64;
        let mut todo = ready;
        while !todo.is_empty() {
            let p = self.port_of::<V>(todo.lowest());
            let shift = p * v_n;
            todo &= !(self.vc_bits << shift);
            let v = round_robin(((ready >> shift) & self.vc_bits).low_u64(), ptrs[p].vc as u32) as usize;
            self.vc_of[p] = v as u8;
            let o = output(shift + v) & 63;
            if outs >> o & 1 == 0 {
                outs |= 1 << o;
                self.req_ports[o] = 0;
            }
            self.req_ports[o] |= 1 << p;
        }
        // Output stage: each requested output picks one of its inputs by round robin.
        let mut matched = 0u64;
        while outs != 0 {
            let o = take_lowest(&mut outs);
            let p = round_robin(self.req_ports[o], ptrs[o].output as u32) as usize & 63;
            self.out_of[p] = o as u8;
            matched |= 1 << p;
        }
        self.moves_outputs = matched;
        matched
    }

    #[inline(always)]
    fn islip<const V: usize>(&mut self, ready: B, output: impl Fn(usize) -> usize, ptrs: &[PortPointers; N]) -> u64 {
        let v_n = self.v_n::<V>();
        // Requests per output, at VC granularity: an input requests output `o` when any
        // of its ready VCs does, so "first requesting input at or after pointer g" is the
        // port of the first requesting VC at or after VC `g * vcs`.
        let mut outs = 0u64;
        let mut m = ready;
        while !m.is_empty() {
            let i = m.take_lowest();
            let o = output(i) & 63;
            // The first request for `o` in this call starts its set afresh.
            let earlier = B::all_if(outs >> o & 1 != 0);
            self.req[o] = self.req[o] & earlier | B::bit(i);
            outs |= 1 << o;
        }
        if self.iterations == 1 {
            return self.islip_once::<V>(outs, ptrs);
        }
        // Input VCs of still unmatched inputs.
        let mut in_free = self.all_vcs;
        let mut out_free = outs;
        let mut matched = 0u64;
        self.moves_outputs = 0;
        for iter in 0..self.iterations {
            // Grant: each free output grants the free requester nearest its pointer.
            let mut granted = 0u64;
            let mut o_mask = out_free;
            while o_mask != 0 {
                let o = take_lowest(&mut o_mask);
                let requesters = self.req[o] & in_free;
                if !requesters.is_empty() {
                    let first = requesters.round_robin(ptrs[o].grant as u32 * v_n as u32);
                    let i = self.port_of::<V>(first as usize);
                    if granted >> i & 1 == 0 {
                        self.grants_to[i] = 0;
                        granted |= 1 << i;
                    }
                    self.grants_to[i] |= 1 << o;
                }
            }
            if granted == 0 {
                break;
            }
            // Accept: each granted input accepts the granting output nearest its pointer.
            while granted != 0 {
                let i = take_lowest(&mut granted);
                let o = round_robin(self.grants_to[i], ptrs[i].accept as u32) as usize & 63;
                self.out_of[i] = o as u8;
                matched |= 1 << i;
                in_free &= !(self.vc_bits << (i * v_n));
                out_free &= !(1 << o);
                if iter == 0 {
                    self.moves_outputs |= 1 << i;
                }
            }
            if out_free == 0 || in_free.is_empty() {
                break;
            }
        }
        // Each matched input sends one of its VCs requesting its output, by round robin.
        let mut m = matched;
        while m != 0 {
            let i = take_lowest(&mut m);
            let vcs = ((self.req[self.out_of[i] as usize & 63] >> (i * v_n)) & self.vc_bits).low_u64();
            let v = round_robin(vcs, ptrs[i].vc as u32);
            self.vc_of[i] = v as u8;
        }
        matched
    }
}

impl<B: VcSet> SwitchAllocator<B> {
    /// One iSLIP iteration (the common configuration), given the requests per output
    /// (`req`, valid for the outputs in `outs`): grant, then accept, each matched input
    /// choosing its VC as it accepts. The same matching as the general loop, with fewer
    /// passes and no iteration bookkeeping.
    #[inline(always)]
    fn islip_once<const V: usize>(&mut self, outs: u64, ptrs: &[PortPointers; N]) -> u64 {
        let v_n = self.v_n::<V>();
        // Grant: each requested output grants the requester nearest its pointer.
        let mut granted = 0u64;
        let mut o_mask = outs;
        while o_mask != 0 {
            let o = take_lowest(&mut o_mask);
            let first = self.req[o].round_robin(ptrs[o].grant as u32 * v_n as u32);
            let i = self.port_of::<V>(first as usize);
            let earlier = (granted >> i & 1).wrapping_neg();
            self.grants_to[i] = self.grants_to[i] & earlier | 1 << o;
            granted |= 1 << i;
        }
        // Accept: each granted input accepts the granting output nearest its pointer and
        // sends one of its VCs requesting it, by round robin.
        let mut m = granted;
        while m != 0 {
            let i = take_lowest(&mut m);
            let o = round_robin(self.grants_to[i], ptrs[i].accept as u32) as usize & 63;
            self.out_of[i] = o as u8;
            let vcs = ((self.req[o] >> (i * v_n)) & self.vc_bits).low_u64();
            self.vc_of[i] = round_robin(vcs, ptrs[i].vc as u32) as u8;
        }
        self.moves_outputs = granted;
        granted
    }
}

/// Index of the lowest set bit of `m` (non-zero), as an index into a 64-entry array.
#[inline(always)]
pub(crate) fn lowest(m: u64) -> usize {
    debug_assert!(m != 0);
    (m.trailing_zeros() & 63) as usize
}

/// Remove the lowest set bit of `m` (non-zero) and return its index.
#[inline(always)]
pub(crate) fn take_lowest(m: &mut u64) -> usize {
    let i = lowest(*m);
    *m &= *m - 1;
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One allocation where input VC `i` requests output `out[i]` (`None`: not ready).
    /// Returns `out_of` per input port (`None` if unmatched).
    fn run(a: &mut SwitchAllocator, out: &[Option<usize>], ptrs: &mut [PortPointers; N]) -> Vec<Option<(usize, usize)>> {
        let ready = out.iter().enumerate().filter(|(_, o)| o.is_some()).fold(0u64, |m, (i, _)| m | 1 << i);
        let m = a.allocate(ready, |i| out[i].unwrap(), ptrs);
        (0..a.ports as usize).map(|p| (m >> p & 1 == 1).then(|| a.grant(p))).collect()
    }

    fn ports(v: &[Option<(usize, usize)>]) -> Vec<Option<usize>> {
        v.iter().map(|g| g.map(|(_, o)| o)).collect()
    }

    #[test]
    fn islip_one_iteration_hand_case() {
        // 3x3, one VC per input, all pointers 0. Inputs 0 and 1 request output 0; input 2
        // requests outputs 0 and 1 (as two VCs, so a 2-VC router).
        let mut a = SwitchAllocator::new(AllocatorKind::Islip, 1, 3, 2);
        let mut p = [PortPointers::default(); N];
        let req = [Some(0), None, Some(0), None, Some(0), Some(1)];
        // Output 0 grants input 0, output 1 grants input 2; both accepted.
        assert_eq!(ports(&run(&mut a, &req, &mut p)), vec![Some(0), None, Some(1)]);
        assert_eq!(p[0].grant, 1);
        assert_eq!(p[1].grant, 0); // 2 + 1 wraps to 0
        assert_eq!(p[0].accept, 1);
        assert_eq!(p[2].accept, 2);
        // Next cycle, same requests: output 0 now prefers input 1.
        assert_eq!(ports(&run(&mut a, &req, &mut p))[1], Some(0));
    }

    #[test]
    fn islip_iterations_fill_the_match() {
        // Input 0 requests 0,1; input 1 requests 0,1 (two VCs each). Both outputs grant
        // input 0 in iteration 1; it accepts output 0; iteration 2 gives input 1 output 1.
        let req = [Some(0), Some(1), Some(0), Some(1)];
        let mut one = SwitchAllocator::new(AllocatorKind::Islip, 1, 2, 2);
        let mut p = [PortPointers::default(); N];
        assert_eq!(ports(&run(&mut one, &req, &mut p)), vec![Some(0), None]);
        let mut two = SwitchAllocator::new(AllocatorKind::Islip, 2, 2, 2);
        let mut p = [PortPointers::default(); N];
        assert_eq!(run(&mut two, &req, &mut p), vec![Some((0, 0)), Some((1, 1))]);
    }

    #[test]
    fn separable_input_then_output_arbitration() {
        // 2 ports x 2 VCs. Input 0: VC0 -> out 1, VC1 -> out 0; input 1: VC0 -> out 1.
        let mut a = SwitchAllocator::new(AllocatorKind::SeparableInputFirst, 1, 2, 2);
        let mut p = [PortPointers::default(); N];
        let req = [Some(1), Some(0), Some(1), None];
        // Input 0 picks VC0 (pointer 0), input 1 VC0; output 1 picks input 0.
        assert_eq!(run(&mut a, &req, &mut p), vec![Some((0, 1)), None]);
        assert_eq!((p[0].vc, p[1].output), (1, 1));
        // Next: input 0 picks VC1 (-> out 0), input 1 VC0 (-> out 1): both go.
        assert_eq!(run(&mut a, &req, &mut p), vec![Some((1, 0)), Some((0, 1))]);
    }

    #[test]
    fn wide_sets_allocate_like_narrow_ones() {
        // 16 ports x 4 VCs = 64 input VCs fit both widths: for random ready sets and
        // outputs, every allocator kind gives the same matches and pointers on u64 and
        // u128 sets.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for (kind, iterations) in [(AllocatorKind::Islip, 1), (AllocatorKind::Islip, 3), (AllocatorKind::SeparableInputFirst, 1)] {
            let mut narrow = SwitchAllocator::<u64>::new(kind, iterations, 16, 4);
            let mut wide = SwitchAllocator::<u128>::new(kind, iterations, 16, 4);
            let (mut pn, mut pw) = ([PortPointers::default(); N], [PortPointers::default(); N]);
            for _ in 0..2000 {
                let ready = next() & next();
                let outs: Vec<usize> = (0..64).map(|_| next() as usize % 16).collect();
                let a = narrow.allocate(ready, |i| outs[i], &mut pn);
                let b = wide.allocate(ready as u128, |i| outs[i], &mut pw);
                assert_eq!(a, b, "{kind:?} x{iterations}: ready {ready:#x}");
                let mut m = a;
                while m != 0 {
                    let p = take_lowest(&mut m);
                    assert_eq!(narrow.grant(p), wide.grant(p));
                }
                assert_eq!(pn, pw);
            }
        }
    }

    #[test]
    fn wide_sets_serve_input_vcs_past_64() {
        // 20 ports x 4 VCs = 80 input VCs. Input port 17's VCs are 68..72, port 19's
        // 76..80. Both request output 3 (VC 69 and VC 78), port 0's VC 1 output 5.
        for kind in [AllocatorKind::Islip, AllocatorKind::SeparableInputFirst] {
            let mut a = SwitchAllocator::<u128>::new(kind, 1, 20, 4);
            let mut p = [PortPointers::default(); N];
            let ready = 1u128 << 69 | 1 << 78 | 1 << 1;
            let out = |i: usize| if i == 1 { 5 } else { 3 };
            // Output 3 picks port 17 first (nearest its pointer 0), then port 19.
            assert_eq!(a.allocate(ready, out, &mut p), 1 << 17 | 1);
            assert_eq!((a.grant(17), a.grant(0)), ((1, 3), (1, 5)));
            assert_eq!(a.allocate(ready, out, &mut p), 1 << 19 | 1);
            assert_eq!(a.grant(19), (2, 3));
            assert_eq!(a.allocate(ready, out, &mut p) >> 17 & 1, 1, "{kind:?}: back to port 17");
        }
    }

    #[test]
    fn requests_do_not_leak_between_calls() {
        let mut a = SwitchAllocator::new(AllocatorKind::Islip, 1, 4, 1);
        let mut p = [PortPointers::default(); N];
        assert_eq!(ports(&run(&mut a, &[Some(2), None, None, Some(2)], &mut p)), vec![Some(2), None, None, None]);
        assert_eq!(ports(&run(&mut a, &[None, Some(1), None, None], &mut p)), vec![None, Some(1), None, None]);
        assert_eq!(run(&mut a, &[None; 4], &mut p), vec![None; 4]);
    }
}
