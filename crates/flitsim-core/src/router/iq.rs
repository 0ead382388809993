//! The input-queued virtual-channel router (BookSim-style), all routers of a network in
//! one structure-of-arrays.
//!
//! Per input port and VC: a FIFO buffer of `buffer_depth` flits and a state machine
//! (idle -> waiting for VC allocation -> active). Per output port and VC: the input VC
//! that owns it and the credit count for the downstream buffer. One cycle of router `r`:
//!
//! 1. **Receive** flits whose arrival cycle has come into their input VC buffers, and
//!    credits into the output VC credit counts.
//! 2. **Route computation** for a head flit at the front of an idle input VC, from the
//!    packet header (the packet in the arena; flit records carry only packet id and flit
//!    index). The routing function's candidate is stored; the VC may request allocation
//!    `routing_delay` cycles later. A head that arrived over a router-to-router channel
//!    counts one hop here.
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
//!
//! ## How the hot loop is organised
//!
//! * [`IqRouters::step_all`] steps every router with work once per cycle, so what every
//!   step reads (configuration, array bases) is loaded once per cycle.
//! * Per router, 64-bit sets over its input VCs (bit `port * vcs + vc`) drive the stages:
//!   `occ` (holds flits), `va` (waiting for VC allocation), `act` (holds an output VC),
//!   and over its output VCs: `free`. Every stage iterates set bits only, on local copies
//!   of the sets.
//! * A step sees its router's part of each per-router array as a fixed 64-entry view
//!   ([`VIEW`]; the arrays are padded) indexed with `i & 63`: no bounds checks, no
//!   `unsafe`.
//! * **Arrival calendar.** Every channel and credit wire into a router has a fixed delay,
//!   so the sender knows the cycle its flit or credit arrives. It marks the receiving
//!   port in the receiver's calendar slot for that cycle (`arrive mod W`, `W` a power of
//!   two above the largest delay), and the receive stage visits only the marked ports
//!   instead of polling every channel and credit wire. A router is stepped in a cycle
//!   when it holds flits or its slot for the cycle has marks, and it empties that slot,
//!   so every arrival is received in its own cycle (debug builds verify it). With delays
//!   of [`MAX_CALENDAR`] cycles or more the calendar would be too big: routers then count
//!   the flits and credits travelling to them, are stepped while that count or their
//!   buffers are non-zero, and poll every connected port (same results, more work).
//! * The VC allocator grants an output VC picked by a single requester directly, and
//!   arbitrates only contested ones. The switch allocator takes the set of ready input
//!   VCs, decides the common conflict-free case without arbitration, and reports the
//!   matched input ports as a set, so switch traversal visits only those.

use super::allocator::{lowest, take_lowest, PortPointers, SwitchAllocator};
use super::arbiter::{next_ptr, rr_distance};
use super::IqConfig;
use crate::flow::FlowControl;
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

/// Size of a router's view of a per-router array: its most input VCs (and ports). Every
/// per-router array is padded with this many entries, so a step sees its router's part
/// as a fixed-size array and indexes it with `i & 63`, which needs no bounds check. Only
/// the first `ports * vcs` (or `ports`) entries of a view belong to the router.
const VIEW: usize = MAX_PORT_VCS as usize;

/// Router `base`'s view of a padded per-router array.
#[inline(always)]
fn view<T>(v: &[T], base: usize) -> &[T; VIEW] {
    v[base..].first_chunk().expect("per-router arrays are padded")
}

/// Router `base`'s mutable view of a padded per-router array.
#[inline(always)]
fn view_mut<T>(v: &mut [T], base: usize) -> &mut [T; VIEW] {
    v[base..].first_chunk_mut().expect("per-router arrays are padded")
}

/// Largest arrival calendar, in slots per router. Networks whose largest flit or credit
/// delay into a router is this many cycles or more poll their ports instead.
pub const MAX_CALENDAR: u32 = 64;

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

impl InputVc {
    /// Slot of the front flit in the router's buffer storage, for local input VC `li`.
    #[inline]
    fn front_slot(&self, li: usize, depth: usize) -> usize {
        li * depth + self.head as usize
    }

    /// Append `f` to the buffer of local input VC `li` (`buf` = the router's storage).
    #[inline]
    fn push(&mut self, buf: &mut [Flit], li: usize, depth: usize, f: Flit) {
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
    fn pop(&mut self, buf: &[Flit], li: usize, depth: usize) -> Flit {
        debug_assert!(self.len > 0);
        let f = buf[self.front_slot(li, depth)];
        self.head = if self.head as usize + 1 == depth { 0 } else { self.head + 1 };
        self.len -= 1;
        f
    }
}

/// Per router: the input-VC sets that drive the pipeline stages (bit `port * vcs + vc`).
#[derive(Clone, Copy, Debug, Default)]
struct VcSets {
    /// Input VCs holding flits.
    occ: u64,
    /// Input VCs in state VC_ALLOC.
    va: u64,
    /// Input VCs in state ACTIVE.
    act: u64,
    /// Free output VCs (bit `port * vcs + vc`), mirroring `owner == FREE`.
    free: u64,
}

/// Wiring of one router port: the channels into and out of it and who is at their far
/// ends.
#[derive(Clone, Copy, Debug)]
struct PortWiring {
    /// Channel arriving at the input, or [`NONE`].
    in_chan: u32,
    /// Router upstream of the input (it receives this port's credits), or [`NONE`] (an
    /// endpoint).
    up_router: u32,
    /// The upstream router's output port driving the input channel.
    up_port: u32,
    /// Cycles from switch grant to arrival at the far end of the output channel (switch
    /// stages + wire).
    flit_delay: u32,
    /// Router downstream of the output, or [`NONE`] (an endpoint, or an unconnected mesh
    /// edge).
    down_router: u32,
    /// Input port on the downstream router.
    down_port: u32,
}

const UNWIRED: PortWiring =
    PortWiring { in_chan: NONE, up_router: NONE, up_port: 0, flit_delay: 0, down_router: NONE, down_port: 0 };

/// Calendar entry kinds: input ports with a flit arriving, output ports with a credit.
const FLIT: usize = 0;
const CREDIT: usize = 1;

/// How a router learns that something will arrive (see the module docs).
#[derive(Clone, Debug)]
enum Arrivals {
    /// The arrival calendar: `marks[(router << shift) | (slot << 1) | kind]` = set of
    /// ports with an arrival of `kind` in cycles `≡ slot (mod slots)`.
    Calendar {
        /// `slots - 1` (slots per router, a power of two).
        mask: u64,
        /// `log2(slots) + 1`.
        shift: u32,
        marks: Vec<u64>,
    },
    /// Per router: flits and credits travelling to it plus flits in its buffers.
    Counting { pending: Vec<u32> },
}

impl Arrivals {
    /// Something of `kind` leaves for `port` of `router`, arriving at cycle `arrive`.
    #[inline]
    fn notify(&mut self, router: u32, port: u32, arrive: u64, kind: usize) {
        match self {
            Arrivals::Calendar { mask, shift, marks } => {
                let i = ((router as usize) << *shift) | ((arrive & *mask) as usize) << 1 | kind;
                marks[i] |= 1 << port;
            }
            Arrivals::Counting { pending } => pending[router as usize] += 1,
        }
    }

    /// The (flit, credit) port sets due at `router` in cycle `now`, emptying its slot;
    /// with no calendar, `poll` (every connected port).
    #[inline]
    fn take(&mut self, router: usize, now: u64, poll: (u64, u64)) -> (u64, u64) {
        match self {
            Arrivals::Calendar { mask, shift, marks } => {
                let i = (router << *shift) | ((now & *mask) as usize) << 1;
                let slot = marks[i..].first_chunk_mut::<2>().expect("in range");
                let due = (slot[FLIT], slot[CREDIT]);
                *slot = [0, 0];
                due
            }
            Arrivals::Counting { .. } => poll,
        }
    }

    /// `router` received `credits` credits and sent `flits` flits this cycle.
    #[inline]
    fn done(&mut self, router: usize, credits: u32, flits: u32) {
        if let Arrivals::Counting { pending } = self {
            pending[router] -= credits + flits;
        }
    }
}

/// The low `vcs` bits.
#[inline]
fn vc_mask(vcs: u32) -> u64 {
    if vcs >= 64 {
        u64::MAX
    } else {
        (1u64 << vcs) - 1
    }
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
    /// Input VC states, `[(router * ports + port) * vcs + vc]` (plus padding, see
    /// [`VIEW`]: the entries past the last router are idle and empty).
    pub ivc: Vec<InputVc>,
    /// Input VC buffer storage, `depth` slots per input VC.
    buf: Vec<Flit>,
    /// Per router: the input-VC sets.
    sets: Vec<VcSets>,
    /// Output VC owner (local input-VC index `port * vcs + vc`) or [`FREE`] (padded;
    /// the padding is free).
    pub owner: Vec<u16>,
    /// Output VC credits (padded).
    pub credits: Vec<u32>,
    /// Input channel id per `(router, port)` or [`NONE`] (the hot loop uses `wiring`).
    pub in_chan: Vec<u32>,
    /// Per `(router, port)`: wiring (padded, like the other per-port arrays).
    wiring: Vec<PortWiring>,
    /// Local (ejection) ports, the same on every router: they take no credits.
    local: u64,
    /// Per router, when the calendar is off: (connected input ports, output ports that
    /// receive credits).
    poll: Vec<(u64, u64)>,
    /// How routers learn of arrivals.
    arrivals: Arrivals,
    /// Per output VC: VC allocator round-robin pointer.
    va_ptr: Vec<u16>,
    /// VC allocator work space: the output VC each requesting input VC picked.
    va_pick: [u8; VIEW],
    /// Switch allocator (with its work space).
    sw: SwitchAllocator,
    /// Per `(router, port)`: switch allocator round-robin pointers.
    ptrs: Vec<PortPointers>,
    /// Local input-VC index `port * vcs + vc` -> port.
    li_port: [u8; VIEW],
    /// Local input-VC index -> VC.
    li_vc: [u8; VIEW],
}

impl IqRouters {
    /// Build the routers of `topo` wired to `ch`.
    pub fn new(cfg: &IqConfig, topo: &Topology, ch: &Channels) -> Self {
        let (p, v, d) = (topo.ports, cfg.vcs, cfg.buffer_depth);
        assert!(p * v <= MAX_PORT_VCS, "validated: ports * vcs <= 64");
        let r = topo.num_routers;
        let nivc = (r * p * v) as usize;
        let nports = (r * p) as usize;
        // Padded lengths (see VIEW).
        let (pivc, pports) = (nivc + VIEW, nports + VIEW);
        let switch = cfg.sw_alloc_delay + cfg.st_delay;
        let mut in_chan = vec![NONE; nports];
        let mut wiring = vec![UNWIRED; pports];
        let mut poll = vec![(0u64, 0u64); r as usize];
        // Largest delay of anything a router receives: sizes the arrival calendar.
        let mut max_delay = 0;
        for c in 0..ch.len() {
            let from_router = matches!(ch.src[c], End::Router { .. });
            let delay = ch.latency[c] + if from_router { switch } else { 0 };
            if let End::Router { router, port } = ch.src[c] {
                let o = &mut wiring[(router * p + port) as usize];
                o.flit_delay = delay;
                if let End::Router { router: dr, port: dp } = ch.dst[c] {
                    o.down_router = dr;
                    o.down_port = dp;
                }
            }
            if let End::Router { router, port } = ch.dst[c] {
                in_chan[(router * p + port) as usize] = c as u32;
                let ip = &mut wiring[(router * p + port) as usize];
                ip.in_chan = c as u32;
                poll[router as usize].0 |= 1 << port;
                max_delay = max_delay.max(delay);
                if let End::Router { router: ur, port: up } = ch.src[c] {
                    ip.up_router = ur;
                    ip.up_port = up;
                    poll[ur as usize].1 |= 1 << up;
                    max_delay = max_delay.max(cfg.credit_delay);
                }
            }
        }
        let slots = (max_delay + 1).next_power_of_two();
        let arrivals = if slots <= MAX_CALENDAR {
            let shift = slots.trailing_zeros() + 1;
            Arrivals::Calendar { mask: slots as u64 - 1, shift, marks: vec![0; (r as usize) << shift] }
        } else {
            Arrivals::Counting { pending: vec![0; r as usize] }
        };
        let local = (0..p).filter(|&port| topo.is_local_port(port)).fold(0u64, |m, port| m | 1 << port);
        IqRouters {
            ports: p,
            vcs: v,
            depth: d,
            cfg: cfg.clone(),
            ivc: vec![InputVc::default(); pivc],
            buf: vec![Flit::default(); nivc * d as usize],
            sets: vec![VcSets { occ: 0, va: 0, act: 0, free: vc_mask(p * v) }; r as usize],
            owner: vec![FREE; pivc],
            credits: vec![d; pivc],
            in_chan,
            wiring,
            local,
            poll,
            arrivals,
            va_ptr: vec![0; pivc],
            va_pick: [0; VIEW],
            sw: SwitchAllocator::new(cfg.allocator, cfg.islip_iterations, p, v),
            ptrs: vec![PortPointers::default(); pports],
            li_port: std::array::from_fn(|li| (li as u32 / v) as u8),
            li_vc: std::array::from_fn(|li| (li as u32 % v) as u8),
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
        (st.len > 0).then(|| self.buf[st.front_slot(i, self.depth as usize)])
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

    /// An endpoint sent a flit into input `port` of router `r`, arriving at cycle
    /// `arrive`: tell the router (its arrival calendar, or its count of pending work).
    #[inline]
    pub fn flit_sent_to(&mut self, r: u32, port: u32, arrive: u64) {
        self.arrivals.notify(r, port, arrive, FLIT);
    }

    /// Does router `r` have anything to do in cycle `now`: flits in its buffers, or
    /// flits or credits arriving?
    #[inline]
    pub fn busy(&self, r: u32, now: u64) -> bool {
        match &self.arrivals {
            Arrivals::Calendar { mask, shift, marks } => {
                let i = ((r as usize) << *shift) | ((now & *mask) as usize) << 1;
                self.sets[r as usize].occ != 0 || marks[i] | marks[i + 1] != 0
            }
            Arrivals::Counting { pending } => pending[r as usize] != 0,
        }
    }

    /// Advance every router with work ([`IqRouters::busy`]) by one cycle at time `now`,
    /// in router order. (One call per cycle lets the compiler keep what every router step
    /// reads — configuration, array bases — out of the per-router work.)
    #[allow(clippy::too_many_arguments)]
    pub fn step_all(
        &mut self,
        now: u64,
        topo: &Topology,
        routing: &RoutingFunction,
        ch: &mut Channels,
        packets: &mut PacketArena,
        stats: &mut Collector,
        ctr: &mut Counters,
    ) {
        for r in 0..self.sets.len() as u32 {
            if self.busy(r, now) {
                self.step_router(r, now, topo, routing, ch, packets, stats, ctr);
            }
        }
    }

    /// Advance router `r` by one cycle at time `now`. Every router must be stepped in
    /// every cycle in which it is [`IqRouters::busy`] (and may be in any other);
    /// [`IqRouters::step_all`] does that.
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
        self.step_router(r, now, topo, routing, ch, packets, stats, ctr);
    }

    /// One router's cycle (see the module docs for the stages).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn step_router(
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
        let (ports, vcs) = (self.ports, self.vcs);
        let (p_n, v_n) = (ports as usize, vcs as usize);
        let rp = ru * p_n;
        let base = rp * v_n;
        let depth = self.depth as usize;
        let IqRouters {
            cfg, ivc, buf, sets, owner, credits, wiring, local, poll, arrivals, va_ptr, va_pick, sw, ptrs, li_port, li_vc, ..
        } = self;
        let local = *local;
        // This router's views (local input-VC index `port * vcs + vc`, or port).
        let ivc = view_mut(ivc, base);
        let buf = &mut buf[base * depth..(base + p_n * v_n) * depth];
        let owner = view_mut(owner, base);
        let credits = view_mut(credits, base);
        let va_ptr = view_mut(va_ptr, base);
        let wiring = view(wiring, rp);
        let VcSets { mut occ, mut va, mut act, mut free } = sets[ru];

        // 1. Receive flits and credits due this cycle. A channel carries at most one flit
        //    (and its wire one credit) per cycle, each arrival cycle is distinct, and this
        //    router has been stepped at every earlier arrival: so each due port has exactly
        //    one entry to take.
        let (mut due_flits, mut due_credits) = arrivals.take(ru, now, poll[ru]);
        while due_flits != 0 {
            let p = take_lowest(&mut due_flits);
            if let Some(e) = ch.flits.pop_if(wiring[p].in_chan as usize, |e| e.arrived(now)) {
                let li = (p * v_n + e.vc as usize) & 63;
                ivc[li].push(buf, li, depth, e.flit);
                occ |= 1 << li;
            }
        }
        let mut got = 0;
        while due_credits != 0 {
            let p = take_lowest(&mut due_credits);
            if let Some(w) = ch.credits.pop_if(rp + p, |w| w.arrived(now)) {
                credits[(p * v_n + w.vc() as usize) & 63] += 1;
                got += 1;
            }
        }
        debug_assert!(nothing_due(ch, wiring, rp, poll[ru], now), "an arrival at router {r} was not received in its cycle");

        // 2. Route computation for idle VCs with a head flit, reading the packet header.
        //    A head that came over a router-to-router channel has made one more hop.
        let mut idle = occ & !(va | act);
        while idle != 0 {
            let li = take_lowest(&mut idle);
            let st = &mut ivc[li];
            let f = buf[st.front_slot(li, depth)];
            debug_assert!(f.is_head(), "non-head flit at the front of an idle VC");
            let p = li_port[li] as u32;
            let header = packets.get_mut(f.pid);
            header.hops += (local >> p & 1 == 0) as u32;
            let cand = routing.route(topo, r, p, li_vc[li] as u32, header.dst);
            st.port = cand.port;
            st.lo = cand.vc_lo;
            st.hi = cand.vc_hi;
            st.state = state::VC_ALLOC;
            st.ready = now + cfg.routing_delay as u64;
            va |= 1 << li;
        }

        // 3. VC allocation among the routed VCs past their routing delay.
        if va != 0 {
            let mut m = va;
            let mut req = 0u64;
            while m != 0 {
                let li = take_lowest(&mut m);
                req |= ((ivc[li].ready <= now) as u64) << li;
            }
            if req != 0 {
                let va_ctx = VaContext {
                    v_n,
                    n_in: ports * vcs,
                    depth,
                    local,
                    flow: cfg.flow_control,
                    ready_at: now + cfg.vc_alloc_delay as u64,
                };
                let won = va_ctx.allocate(req, &mut free, ivc, buf, owner, credits, va_ptr, va_pick);
                va &= !won;
                act |= won;
            }
        }

        // 4. Switch allocation: active VCs with a flit, past their delay, with a credit
        //    (ejection ports take no credits).
        let ready = switch_ready(ivc, credits, occ & act, local, v_n, now);
        let matched = if ready == 0 { 0 } else { sw.allocate(ready, |i| ivc[i & 63].port as usize, view_mut(ptrs, rp)) };

        // 5. Switch traversal of the matched inputs.
        let credit_delay = cfg.credit_delay as u64;
        let mut m = matched;
        let mut moved = 0;
        while m != 0 {
            let p = take_lowest(&mut m);
            moved += 1;
            let (v, o) = sw.grant(p);
            let li = (p * v_n + v) & 63;
            let st = &mut ivc[li];
            let f = st.pop(buf, li, depth);
            if st.len == 0 {
                occ &= !(1 << li);
            }
            let w = st.out_vc as usize;
            let ovc = (o * v_n + w) & 63;
            if f.is_tail() {
                // The packet has left: free the output VC, the input VC awaits a new head.
                st.state = state::IDLE;
                act &= !(1 << li);
                owner[ovc] = FREE;
                free |= 1 << ovc;
            }
            // The flit enters the output channel.
            let out = wiring[o & 63];
            let oc = rp + o;
            let arrive = now + out.flit_delay as u64;
            ch.flits.push(oc, InFlight::new(arrive, f, w as u8));
            if out.down_router != NONE {
                arrivals.notify(out.down_router, out.down_port, arrive, FLIT);
            }
            if local >> o & 1 == 0 {
                credits[ovc] -= 1;
            }
            stats.on_channel_flit(oc, w as u32, now);
            // A credit goes back upstream for the freed slot.
            let inp = wiring[p];
            let arrive = now + credit_delay;
            ch.credits.push(inp.in_chan as usize, CreditWire::new(arrive, v as u32));
            if inp.up_router != NONE {
                arrivals.notify(inp.up_router, inp.up_port, arrive, CREDIT);
            }
        }
        arrivals.done(ru, got, moved);
        if moved != 0 {
            ctr.flit_traversals += moved as u64;
            ctr.last_progress = now;
        }
        sets[ru] = VcSets { occ, va, act, free };
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

/// What the VC allocator of one router needs besides its slices.
struct VaContext {
    v_n: usize,
    /// Input VCs per router (the round-robin range of the output-VC arbiters).
    n_in: u32,
    depth: usize,
    local: u64,
    flow: FlowControl,
    /// Cycle from which a winner may compete for the switch.
    ready_at: u64,
}

impl VaContext {
    /// Separable input-first VC allocation for the requesting input VCs `req`. Stage 1:
    /// each requester picks the lowest free output VC in its candidate range that the
    /// flow control lets it claim (all picks see the ownership at the start). Stage 2:
    /// each picked output VC grants the requester nearest its round-robin pointer (an
    /// output VC picked by one requester simply grants it). Returns the winners, now
    /// active; `free` loses the granted output VCs. `pick` is work space.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn allocate(
        &self,
        req: u64,
        free: &mut u64,
        ivc: &mut [InputVc; VIEW],
        buf: &[Flit],
        owner: &mut [u16; VIEW],
        credits: &[u32; VIEW],
        va_ptr: &mut [u16; VIEW],
        pick: &mut [u8; VIEW],
    ) -> u64 {
        let v_n = self.v_n;
        // Stage 1. `picked`: output VCs picked; `contested`: picked more than once.
        let (mut who, mut picked, mut contested) = (0u64, 0u64, 0u64);
        let mut m = req;
        while m != 0 {
            let li = take_lowest(&mut m);
            let st = &ivc[li];
            let o = st.port as usize;
            // Free output VCs in the candidate range, lowest first.
            let mut cand = *free & ((1u64 << st.hi) - (1u64 << st.lo)) << (o * v_n);
            if cand != 0 && self.local >> o & 1 == 0 && self.flow == FlowControl::VirtualCutThrough {
                let size = buf[st.front_slot(li, self.depth)].size();
                while cand != 0 && !self.flow.may_claim(credits[lowest(cand)], size) {
                    cand &= cand - 1;
                }
            }
            if cand != 0 {
                let t = lowest(cand);
                pick[li] = t as u8;
                contested |= picked & 1 << t;
                picked |= 1 << t;
                who |= 1 << li;
            }
        }
        // Stage 2, requesters in ascending order.
        let mut won = 0u64;
        let mut m = who;
        while m != 0 {
            let mut li = take_lowest(&mut m);
            let t = pick[li] as usize & 63;
            if contested >> t & 1 != 0 {
                if *free >> t & 1 == 0 {
                    continue; // granted to an earlier requester this cycle
                }
                let ptr = va_ptr[t] as u32;
                let mut rest = m;
                while rest != 0 {
                    let j = take_lowest(&mut rest);
                    if pick[j] as usize == t
                        && rr_distance(j as u32, ptr, self.n_in) < rr_distance(li as u32, ptr, self.n_in)
                    {
                        li = j;
                    }
                }
            }
            owner[t] = li as u16;
            *free &= !(1 << t);
            va_ptr[t] = next_ptr(li as u32, self.n_in) as u16;
            let st = &mut ivc[li];
            st.state = state::ACTIVE;
            st.out_vc = (t - st.port as usize * v_n) as u8;
            st.ready = self.ready_at;
            won |= 1 << li;
        }
        won
    }
}

/// The input VCs among `cand` (active, with a flit) that may request the switch: past
/// their delay and with a credit for their output VC (or on an ejection port).
#[inline]
fn switch_ready(ivc: &[InputVc; VIEW], credits: &[u32; VIEW], mut cand: u64, local: u64, v_n: usize, now: u64) -> u64 {
    let mut ready = 0u64;
    while cand != 0 {
        let li = take_lowest(&mut cand);
        let st = &ivc[li];
        let o = st.port as usize;
        let credit = local >> o & 1 != 0 || credits[(o * v_n + st.out_vc as usize) & 63] != 0;
        ready |= ((st.ready <= now && credit) as u64) << li;
    }
    ready
}

/// Debug check of the arrival calendar: after the receive stage nothing that has
/// arrived may be left on router `rp / ports`'s input channels or credit wires.
fn nothing_due(ch: &Channels, wiring: &[PortWiring; VIEW], rp: usize, (flits, credits): (u64, u64), now: u64) -> bool {
    let ports = |mut m: u64| {
        std::iter::from_fn(move || {
            (m != 0).then(|| {
                let p = m.trailing_zeros() as usize;
                m &= m - 1;
                p
            })
        })
    };
    ports(flits).all(|p| !matches!(ch.flits.front(wiring[p].in_chan as usize), Some(e) if e.arrived(now)))
        && ports(credits).all(|p| !matches!(ch.credits.front(rp + p), Some(w) if w.arrived(now)))
}
