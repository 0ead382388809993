//! The input-queued virtual-channel router (BookSim-style), all routers of a network in
//! one structure-of-arrays.
//!
//! Per input port and VC: a FIFO buffer of `buffer_depth` flits and a state machine
//! (idle -> waiting for VC allocation -> active). Per output port and VC: the input VC
//! that owns it and the credit count for the downstream buffer. One cycle of router `r`:
//!
//! 1. **Receive** flits whose arrival cycle has come into their input VC buffers, and
//!    credits into the output VC credit counts.
//! 2. **Route computation** for a head flit at the front of an idle input VC (the routing
//!    function's candidate is stored; the VC may request allocation `routing_delay`
//!    cycles later).
//! 3. **VC allocation** (separable, input-first): each requesting input VC picks the lowest
//!    free output VC in its candidate range that the flow control lets it claim; each
//!    output VC grants one requester by round robin. The winner may compete for the switch
//!    `vc_alloc_delay` cycles later.
//! 4. **Switch allocation**: among active input VCs with a flit and a downstream credit,
//!    the separable input-first or iSLIP allocator matches inputs to outputs.
//! 5. **Switch traversal**: each granted flit leaves its buffer (a credit goes upstream,
//!    arriving `credit_delay` cycles later) and enters the output channel, arriving at
//!    the next router `sw_alloc_delay + st_delay + latency` cycles later. A tail flit
//!    frees its output VC and returns its input VC to idle.
//!
//! Zero-load, a head flit arriving at cycle `t` reaches the next router at
//! `t + routing_delay + vc_alloc_delay + sw_alloc_delay + st_delay + latency`.

use super::allocator::{islip, UNMATCHED};
use super::arbiter::{next_ptr, round_robin, rr_distance};
use super::{AllocatorKind, IqConfig};
use crate::link::{Channels, CreditWire, End, Flit, InFlight};
use crate::routing::RoutingFunction;
use crate::sim::packet::{Counters, PacketArena};
use crate::stats::Collector;
use crate::topology::{Topology, NONE};

/// Input VC states.
pub mod state {
    /// No packet routed: the front flit, if any, is a head awaiting route computation.
    pub const IDLE: u8 = 0;
    /// Routed, waiting for (or delayed after) route computation, then VC allocation.
    pub const VC_ALLOC: u8 = 1;
    /// Holds an output VC: flits compete for the switch.
    pub const ACTIVE: u8 = 2;
}

/// Owner value of a free output VC.
pub const FREE: u16 = u16::MAX;

/// Largest `ports * vcs` of one router: the per-router VC sets are 64-bit masks.
pub const MAX_PORT_VCS: u32 = 64;

/// State of one input VC, including its buffer's ring pointers (one cache line touch).
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
    /// Ring head within the buffer.
    head: u16,
    /// Flits in the buffer.
    pub len: u16,
    /// Cycle from which the next pipeline stage may act.
    pub ready: u64,
}

/// Every input-queued router of a network.
#[derive(Clone, Debug)]
pub struct IqRouters {
    /// Ports per router.
    pub ports: u32,
    /// VCs per port.
    pub vcs: u32,
    /// Buffer depth per VC.
    pub depth: u32,
    cfg: IqConfig,
    /// Input VC states, `[(router * ports + port) * vcs + vc]`.
    pub ivc: Vec<InputVc>,
    /// Input VC buffer storage, `depth` slots per input VC.
    buf: Vec<Flit>,
    /// Per router: input VCs holding flits (bit `port * vcs + vc`).
    occ: Vec<u64>,
    /// Per router: input VCs in state VC_ALLOC.
    va: Vec<u64>,
    /// Per router: input VCs in state ACTIVE.
    act: Vec<u64>,
    /// Output VC owner (local input-VC index `port * vcs + vc`) or [`FREE`].
    pub owner: Vec<u16>,
    /// Output VC credits.
    pub credits: Vec<u32>,
    /// Work pending per router: buffered flits plus flits and credits travelling to it.
    pub pending: Vec<u32>,
    /// Input channel id per `(router, port)` or [`NONE`].
    pub in_chan: Vec<u32>,
    /// Per `(router, port)`: does the output port receive credits (connected to a router)?
    credit_port: Vec<bool>,
    /// Per port: is it a local (ejection) port?
    local: Vec<bool>,
    /// Per channel: downstream router, or NONE.
    down_router: Vec<u32>,
    /// Per channel: upstream router, or NONE.
    up_router: Vec<u32>,
    /// Per channel: total flit delay from switch grant to arrival.
    flit_delay: Vec<u32>,
    sa_in_ptr: Vec<u8>,
    sa_out_ptr: Vec<u8>,
    va_ptr: Vec<u16>,
    islip_grant: Vec<u8>,
    islip_accept: Vec<u8>,
    // Scratch, reused every step (no allocation in the hot loop).
    va_req: Vec<u16>,
    va_pick: Vec<u16>,
    sa_vc: Vec<u8>,
    sa_out: Vec<u8>,
    port_req: Vec<u64>,
}

impl IqRouters {
    /// Build the routers of `topo` wired to `ch`.
    pub fn new(cfg: &IqConfig, topo: &Topology, ch: &Channels) -> Self {
        let (p, v, d) = (topo.ports, cfg.vcs, cfg.buffer_depth);
        assert!(p * v <= MAX_PORT_VCS, "validated: ports * vcs <= 64");
        let r = topo.num_routers;
        let nivc = (r * p * v) as usize;
        let mut in_chan = vec![NONE; (r * p) as usize];
        let mut down_router = vec![NONE; ch.len()];
        let mut up_router = vec![NONE; ch.len()];
        let mut credit_port = vec![false; (r * p) as usize];
        for c in 0..ch.len() {
            if let End::Router { router, port } = ch.dst[c] {
                in_chan[(router * p + port) as usize] = c as u32;
                down_router[c] = router;
                if let End::Router { router: ur, port: up } = ch.src[c] {
                    credit_port[(ur * p + up) as usize] = true;
                }
            }
            if let End::Router { router, .. } = ch.src[c] {
                up_router[c] = router;
            }
        }
        let flit_delay = ch.latency.iter().map(|&l| l + cfg.sw_alloc_delay + cfg.st_delay).collect();
        IqRouters {
            ports: p,
            vcs: v,
            depth: d,
            cfg: cfg.clone(),
            ivc: vec![InputVc::default(); nivc],
            buf: vec![Flit::default(); nivc * d as usize],
            occ: vec![0; r as usize],
            va: vec![0; r as usize],
            act: vec![0; r as usize],
            owner: vec![FREE; nivc],
            credits: vec![d; nivc],
            pending: vec![0; r as usize],
            in_chan,
            credit_port,
            local: (0..p).map(|port| topo.is_local_port(port)).collect(),
            down_router,
            up_router,
            flit_delay,
            sa_in_ptr: vec![0; (r * p) as usize],
            sa_out_ptr: vec![0; (r * p) as usize],
            va_ptr: vec![0; nivc],
            islip_grant: vec![0; (r * p) as usize],
            islip_accept: vec![0; (r * p) as usize],
            va_req: Vec::with_capacity((p * v) as usize),
            va_pick: Vec::with_capacity((p * v) as usize),
            sa_vc: vec![0; p as usize],
            sa_out: vec![UNMATCHED; p as usize],
            port_req: vec![0; p as usize],
        }
    }

    /// The configuration these routers were built with.
    pub fn config(&self) -> &IqConfig {
        &self.cfg
    }

    /// Flits in input VC buffer `i` (global input-VC index).
    #[inline]
    pub fn buffer_len(&self, i: usize) -> u32 {
        self.ivc[i].len as u32
    }

    /// Front flit of input VC buffer `i`.
    #[inline]
    pub fn buffer_front(&self, i: usize) -> Option<Flit> {
        let st = &self.ivc[i];
        (st.len > 0).then(|| self.buf[i * self.depth as usize + st.head as usize])
    }

    /// Flits buffered in all routers.
    pub fn total_buffered(&self) -> u64 {
        self.ivc.iter().map(|s| s.len as u64).sum()
    }

    /// Flits buffered in router `r`'s input VCs.
    pub fn buffered(&self, r: u32) -> u64 {
        let base = (r * self.ports * self.vcs) as usize;
        (base..base + (self.ports * self.vcs) as usize).map(|i| self.ivc[i].len as u64).sum()
    }

    #[inline]
    fn buf_push(&mut self, i: usize, f: Flit) {
        let d = self.depth as usize;
        let st = &mut self.ivc[i];
        debug_assert!((st.len as usize) < d, "input buffer overflow: credits violated");
        let mut pos = st.head as usize + st.len as usize;
        if pos >= d {
            pos -= d;
        }
        st.len += 1;
        self.buf[i * d + pos] = f;
    }

    #[inline]
    fn buf_pop(&mut self, i: usize) -> Flit {
        let d = self.depth as usize;
        let st = &mut self.ivc[i];
        debug_assert!(st.len > 0);
        let f = self.buf[i * d + st.head as usize];
        st.head = if st.head as usize + 1 == d { 0 } else { st.head + 1 };
        st.len -= 1;
        f
    }

    /// Advance router `r` by one cycle at time `now`.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        r: u32,
        now: u64,
        topo: &Topology,
        routing: &RoutingFunction,
        ch: &mut Channels,
        packets: &mut PacketArena,
        stats: &mut Collector,
        ctr: &mut Counters,
    ) {
        let ru = r as usize;
        let p_n = self.ports as usize;
        let v_n = self.vcs as usize;
        let rp = ru * p_n;
        let base = rp * v_n;

        // 1. Receive flits and credits.
        for p in 0..p_n {
            let c = self.in_chan[rp + p];
            if c != NONE {
                while let Some(e) = ch.flits.pop_if(c as usize, |e| e.arrive <= now) {
                    let li = p * v_n + e.vc as usize;
                    self.buf_push(base + li, e.flit);
                    self.occ[ru] |= 1 << li;
                }
            }
            if self.credit_port[rp + p] {
                while let Some(w) = ch.credits.pop_if(rp + p, |w| w.arrive() <= now) {
                    self.credits[base + p * v_n + w.vc() as usize] += 1;
                    self.pending[ru] -= 1;
                }
            }
        }

        // 2. Route computation for idle VCs with a head flit.
        let mut idle = self.occ[ru] & !(self.va[ru] | self.act[ru]);
        while idle != 0 {
            let li = idle.trailing_zeros() as usize;
            idle &= idle - 1;
            let i = base + li;
            let f = self.buffer_front(i).unwrap();
            debug_assert!(f.is_head(), "non-head flit at the front of an idle VC");
            let cand = routing.route(topo, r, (li / v_n) as u32, (li % v_n) as u32, f.dst);
            let st = &mut self.ivc[i];
            st.port = cand.port;
            st.lo = cand.vc_lo;
            st.hi = cand.vc_hi;
            st.state = state::VC_ALLOC;
            st.ready = now + self.cfg.routing_delay as u64;
            self.va[ru] |= 1 << li;
        }

        // 3. VC allocation.
        if self.va[ru] != 0 {
            self.va_req.clear();
            let mut m = self.va[ru];
            while m != 0 {
                let li = m.trailing_zeros() as usize;
                m &= m - 1;
                if self.ivc[base + li].ready <= now {
                    self.va_req.push(li as u16);
                }
            }
            if !self.va_req.is_empty() {
                self.allocate_vcs(ru, base, now);
            }
        }

        // 4. Switch allocation: active VCs with a flit, past their delay, with a credit.
        let mut m = self.occ[ru] & self.act[ru];
        if m == 0 {
            return;
        }
        let mut ready = 0u64;
        while m != 0 {
            let li = m.trailing_zeros() as usize;
            m &= m - 1;
            let st = &self.ivc[base + li];
            if st.ready > now {
                continue;
            }
            let o = st.port as usize;
            if !self.local[o] && self.credits[base + o * v_n + st.out_vc as usize] == 0 {
                continue;
            }
            ready |= 1 << li;
        }
        if ready == 0 {
            return;
        }
        match self.cfg.allocator {
            AllocatorKind::SeparableInputFirst => self.separable(base, rp, ready),
            AllocatorKind::Islip => self.islip(base, rp, ready),
        }

        // 5. Switch traversal.
        let credit_delay = self.cfg.credit_delay as u64;
        for p in 0..p_n {
            let o = self.sa_out[p];
            if o == UNMATCHED {
                continue;
            }
            self.sa_out[p] = UNMATCHED;
            let o = o as usize;
            let v = self.sa_vc[p] as usize;
            let li = p * v_n + v;
            let i = base + li;
            let f = self.buf_pop(i);
            if self.ivc[i].len == 0 {
                self.occ[ru] &= !(1 << li);
            }
            let w = self.ivc[i].out_vc;
            let oc = rp + o;
            ch.flits.push(oc, InFlight { arrive: now + self.flit_delay[oc] as u64, flit: f, vc: w });
            let down = self.down_router[oc];
            if down != NONE {
                self.pending[down as usize] += 1;
            }
            if !self.local[o] {
                self.credits[base + o * v_n + w as usize] -= 1;
                if f.is_head() {
                    packets.get_mut(f.pid).hops += 1;
                }
            }
            stats.on_channel_flit(oc, w as u32, now);
            // Credit back upstream for the freed slot.
            let ic = self.in_chan[rp + p] as usize;
            ch.credits.push(ic, CreditWire::new(now + credit_delay, v as u32));
            let up = self.up_router[ic];
            if up != NONE {
                self.pending[up as usize] += 1;
            }
            self.pending[ru] -= 1;
            if f.is_tail() {
                self.owner[base + o * v_n + w as usize] = FREE;
                self.ivc[i].state = state::IDLE;
                self.act[ru] &= !(1 << li);
            }
            ctr.flit_traversals += 1;
            ctr.last_progress = now;
        }
    }

    /// Separable input-first VC allocation for the requests in `va_req`.
    fn allocate_vcs(&mut self, ru: usize, base: usize, now: u64) {
        let v_n = self.vcs as usize;
        let n_in = self.ports * self.vcs;
        let flow = self.cfg.flow_control;
        // Stage 1: each requester picks the lowest claimable free output VC in range.
        self.va_pick.clear();
        for k in 0..self.va_req.len() {
            let li = self.va_req[k] as usize;
            let st = self.ivc[base + li];
            let o = st.port as usize;
            let size = self.buffer_front(base + li).unwrap().size();
            let mut pick = FREE;
            for w in st.lo as usize..st.hi as usize {
                let ovc = base + o * v_n + w;
                if self.owner[ovc] != FREE {
                    continue;
                }
                if !self.local[o] && !flow.may_claim(self.credits[ovc], size) {
                    continue;
                }
                pick = (o * v_n + w) as u16;
                break;
            }
            self.va_pick.push(pick);
        }
        // Stage 2: each output VC grants the requester nearest its round-robin pointer.
        for k in 0..self.va_req.len() {
            let target = self.va_pick[k];
            if target == FREE || self.owner[base + target as usize] != FREE {
                continue;
            }
            let ptr = self.va_ptr[base + target as usize] as u32;
            let mut best = k;
            for j in k + 1..self.va_req.len() {
                if self.va_pick[j] == target
                    && rr_distance(self.va_req[j] as u32, ptr, n_in) < rr_distance(self.va_req[best] as u32, ptr, n_in)
                {
                    best = j;
                }
            }
            let li = self.va_req[best] as usize;
            self.owner[base + target as usize] = li as u16;
            self.va_ptr[base + target as usize] = next_ptr(li as u32, n_in) as u16;
            let st = &mut self.ivc[base + li];
            st.state = state::ACTIVE;
            st.out_vc = (target as usize % v_n) as u8;
            st.ready = now + self.cfg.vc_alloc_delay as u64;
            self.va[ru] &= !(1 << li);
            self.act[ru] |= 1 << li;
        }
    }

    /// Separable input-first switch allocation with round-robin arbiters.
    fn separable(&mut self, base: usize, rp: usize, ready: u64) {
        let p_n = self.ports as usize;
        let v_n = self.vcs as usize;
        let vmask = if v_n == 64 { u64::MAX } else { (1u64 << v_n) - 1 };
        // Input stage: each input port picks one ready VC by round robin.
        let mut outs = 0u64;
        let mut req_port = [0u8; 64];
        let mut n_req = 0usize;
        let mut req_in = [0u8; 64];
        for p in 0..p_n {
            let group = (ready >> (p * v_n)) & vmask;
            if group == 0 {
                continue;
            }
            let v = round_robin(group, self.sa_in_ptr[rp + p] as u32) as usize;
            self.sa_vc[p] = v as u8;
            let o = self.ivc[base + p * v_n + v].port;
            outs |= 1 << o;
            req_port[n_req] = o;
            req_in[n_req] = p as u8;
            n_req += 1;
        }
        // Output stage: each requested output picks one input by round robin.
        while outs != 0 {
            let o = outs.trailing_zeros() as usize;
            outs &= outs - 1;
            let mut inputs = 0u64;
            for k in 0..n_req {
                if req_port[k] as usize == o {
                    inputs |= 1 << req_in[k];
                }
            }
            let p = round_robin(inputs, self.sa_out_ptr[rp + o] as u32) as usize;
            self.sa_out_ptr[rp + o] = next_ptr(p as u32, self.ports) as u8;
            self.sa_in_ptr[rp + p] = next_ptr(self.sa_vc[p] as u32, self.vcs) as u8;
            self.sa_out[p] = o as u8;
        }
    }

    /// iSLIP switch allocation, then a round-robin VC choice within each matched input.
    fn islip(&mut self, base: usize, rp: usize, ready: u64) {
        let p_n = self.ports as usize;
        let v_n = self.vcs as usize;
        let vmask = if v_n == 64 { u64::MAX } else { (1u64 << v_n) - 1 };
        for p in 0..p_n {
            let mut group = (ready >> (p * v_n)) & vmask;
            let mut req = 0u64;
            while group != 0 {
                let v = group.trailing_zeros() as usize;
                group &= group - 1;
                req |= 1 << self.ivc[base + p * v_n + v].port;
            }
            self.port_req[p] = req;
        }
        islip(
            &self.port_req,
            self.ports,
            self.cfg.islip_iterations,
            &mut self.islip_grant[rp..rp + p_n],
            &mut self.islip_accept[rp..rp + p_n],
            &mut self.sa_out[..p_n],
        );
        for p in 0..p_n {
            let o = self.sa_out[p];
            if o == UNMATCHED {
                continue;
            }
            let mut group = (ready >> (p * v_n)) & vmask;
            let mut vm = 0u64;
            while group != 0 {
                let v = group.trailing_zeros() as usize;
                group &= group - 1;
                if self.ivc[base + p * v_n + v].port == o {
                    vm |= 1 << v;
                }
            }
            let v = round_robin(vm, self.sa_in_ptr[rp + p] as u32);
            self.sa_in_ptr[rp + p] = next_ptr(v, self.vcs) as u8;
            self.sa_vc[p] = v as u8;
        }
    }

    /// Describe what input VC `(r, p, v)` is waiting for (deadlock reports).
    pub fn describe_wait(&self, r: u32, p: u32, v: u32, now: u64) -> String {
        let base = (r * self.ports * self.vcs) as usize;
        let i = base + (p * self.vcs + v) as usize;
        let st = &self.ivc[i];
        match st.state {
            state::IDLE => "idle".into(),
            state::VC_ALLOC => {
                let owners: Vec<String> = (st.lo..st.hi)
                    .map(|w| {
                        let o = self.owner[base + st.port as usize * self.vcs as usize + w as usize];
                        if o == FREE {
                            format!("vc{w} free ({} credits)", self.credits[base + st.port as usize * self.vcs as usize + w as usize])
                        } else {
                            format!("vc{w} held by in-port {} vc{}", o as u32 / self.vcs, o as u32 % self.vcs)
                        }
                    })
                    .collect();
                format!("waiting for an output VC on port {} [{}]", st.port, owners.join(", "))
            }
            _ => {
                let ovc = base + st.port as usize * self.vcs as usize + st.out_vc as usize;
                if st.ready > now {
                    format!("in pipeline until cycle {}", st.ready)
                } else {
                    format!("holds output port {} vc{} with {} credits", st.port, st.out_vc, self.credits[ovc])
                }
            }
        }
    }
}
