//! The buffered-crossbar router: input buffers per port and VC, a crossbar into
//! per-output **staging buffers** (one per input port and VC), and per-packet output
//! arbitration — the microarchitecture of the Cray XT SeaStar router (AbtsWeisser07,
//! section 2; keys in `docs/papers.md`), written as a general
//! router: port count, VCs, buffer sizes, delays and the arbitration policy are
//! parameters ([`BufferedConfig`]), and the SiCortex crosspoint-buffered switch is the
//! same structure.
//!
//! One cycle of router `r`:
//!
//! 1. **Receive** flits into the input VC buffers and credits into the output VC credit
//!    counts. A head flit arriving is a new packet at this router: its age is updated
//!    by Procedure 1 (input port bias, saturation, epoch count; [`crate::router::aging::clock`]).
//! 2. **Route** a head at the front of an idle input VC (dimension-order routing reads
//!    the header): the output port and one output VC (the VC the packet arrived on if
//!    the routing function allows it, else the lowest it allows). It may cross the
//!    crossbar `routing_delay` cycles later. A Cray XT dateline error
//!    (`routing.dateline_errors = "drop"`) drops the packet instead: it leaves its
//!    epoch's count, and its flits are discarded as they reach the front, one per cycle
//!    in the port's crossbar-input turn, each returning its credit
//!    ([`crate::router::drops`]).
//! 3. **Crossbar input**: each input port moves at most one flit per cycle into the
//!    staging buffer dedicated to it (and its VC) at the routed output. No allocation is
//!    needed — only flow control: a head enters by **virtual cut-through**, when the
//!    staging buffer has room for the whole packet; the packet's other flits follow as
//!    they arrive. Among its VCs that can move, the port chooses by round robin.
//!    A staged flit can leave `crossbar_delay` cycles after it entered.
//! 4. **Output arbitration and transmission**, per packet: an idle output port considers
//!    the staging buffers with a head at the front whose output VC has downstream
//!    credits for a maximum-size packet. AGE_RR_SELECT (a 64-bit mask indexed by a 6-bit
//!    grant counter per output) chooses for each grant between round robin — a 7-to-1
//!    input-port arbiter, then a 4-to-1 VC arbiter, each with its own pointer — and
//!    age-based arbitration (the largest age by Procedure 2 wins; ties go round robin
//!    from a separate age pointer over the staging buffers). While the router's age
//!    clock inhibits aging (an epoch switch waits for old packets), every grant is round
//!    robin. The winner's age goes into its header and its epoch count drops
//!    (Procedure 2, lines 13-14); the output then sends its flits, one per cycle as they
//!    are staged, arriving downstream `output_delay + latency` cycles later.
//! 5. **Age clock** (Procedure 3) ticks once, at the end of the cycle. A router with no
//!    packets is not visited; its clock catches up in closed form when it next is.
//!
//! Zero load, a head arriving at cycle `t` leaves on the output at
//! `t + routing_delay + crossbar_delay` and reaches the next router `output_delay +
//! latency` cycles later.
//!
//! The router keeps the SeaStar performance counters of Table 4 ([`PerfCounters`]).
//! Routers are visited when they hold flits or something travels to them; each visit
//! polls its connected ports.

pub mod config;
mod crossing;
mod family;
mod prefetch;
mod staging;
mod waits;

pub use crate::stats::router_counters::PerfCounters;
pub use config::BufferedConfig;

use super::aging::clock::{age_selected, AgeClock};
use super::allocator::take_lowest;
use crate::link::{Channels, CreditWire, End, Flit, InFlight, Ring};
use crate::packet::{Counters, PacketArena};
use crate::router::family::StepContext;
use crate::routing::RoutingFunction;
use crate::stats::Collector;
use crate::topology::{Topology, NONE};
use staging::{Staged, StagingState};

/// How many routers ahead of its step a router's state is prefetched, and (once that
/// has arrived) the buffer slots the state points to.
const PREFETCH_STATE: usize = 4;
const PREFETCH_BUFFERS: usize = 2;

/// Largest `ports * vcs` of one router (64-bit sets over input VCs and staging buffers).
pub const MAX_PORT_VCS: u32 = 64;

/// Input VC states.
mod state {
    /// No packet routed: the front flit, if any, is a head awaiting routing.
    pub const IDLE: u8 = 0;
    /// Routed; its head waits for its routing delay and room in its staging buffer.
    pub const ROUTED: u8 = 1;
    /// Its head has crossed: the packet's other flits follow.
    pub const MOVING: u8 = 2;
    /// Dropped at a Cray XT dateline node ([`crate::router::drops`]): its flits are
    /// discarded as they reach the front, one a cycle in place of a crossing.
    pub const DROP: u8 = 3;
}

/// No packet: an idle output.
const IDLE_OUT: u16 = u16::MAX;

/// One input VC: buffer ring pointers and the packet at its front.
#[derive(Clone, Copy, Debug, Default)]
struct InVc {
    head: u16,
    len: u16,
    state: u8,
    out_port: u8,
    out_vc: u8,
    /// Cycle (mod 2^32) from which a routed head may cross.
    ready: u32,
}

/// One output port: the staging buffer it is sending from, and its arbiters' state.
#[derive(Clone, Copy, Debug)]
struct OutPort {
    /// Staging buffer (local index `in_port * vcs + vc`) being sent, or [`IDLE_OUT`].
    cur: u16,
    /// Round-robin input-port pointer (7-to-1 on SeaStar).
    rr_port: u8,
    /// Round-robin VC pointer (4-to-1).
    rr_vc: u8,
    /// Age-based tie-break pointer over staging buffers (`in_port * vcs + vc`).
    age_ptr: u8,
    /// The 6-bit grant counter indexing AGE_RR_SELECT.
    grants: u8,
}

const OUT_INIT: OutPort = OutPort { cur: IDLE_OUT, rr_port: 0, rr_vc: 0, age_ptr: 0, grants: 0 };

/// Wiring of one port: the channels into and out of it and who is at their far ends.
#[derive(Clone, Copy, Debug)]
struct Wire {
    in_flits: Ring,
    in_credits: Ring,
    out_flits: Ring,
    out_credits: Ring,
    /// Channel id of the output channel (statistics), or [`NONE`].
    out_chan: u32,
    /// Router upstream of the input / downstream of the output, or the sink id.
    up_router: u32,
    down_router: u32,
    /// Input port of the downstream router.
    down_port: u8,
    /// Cycles from a flit leaving staging to its arrival at the far end.
    flit_delay: u32,
    /// The output channel goes to a router of another partition
    /// ([`crate::router::crossing`]).
    cross_out: bool,
    /// The input channel comes from a router of another partition (its credits cross).
    cross_in: bool,
}

const UNWIRED: Wire = Wire {
    in_flits: Ring::UNUSED,
    in_credits: Ring::UNUSED,
    out_flits: Ring::UNUSED,
    out_credits: Ring::UNUSED,
    out_chan: NONE,
    up_router: NONE,
    down_router: NONE,
    down_port: 0,
    flit_delay: 0,
    cross_out: false,
    cross_in: false,
};

/// Every buffered-crossbar router of a network.
#[derive(Clone, Debug)]
pub struct BufferedRouters {
    /// Ports per router.
    pub ports: u32,
    /// VCs per port.
    pub vcs: u32,
    /// Input buffer depth per VC.
    pub depth: u32,
    /// Staging buffer depth.
    pub staging_depth: u32,
    /// Maximum packet for the output credit test.
    pub max_packet: u32,
    cfg: BufferedConfig,
    ivc: Vec<InVc>,
    buf: Vec<Flit>,
    /// Staging buffers `((r * P + out) * P + in) * V + vc`.
    stg: Vec<StagingState>,
    sbuf: Vec<Staged>,
    /// Per `(router, output)`: staging buffers holding flits (bit `in * V + vc`).
    staged: Vec<u64>,
    out: Vec<OutPort>,
    /// Output VC credits `(r * P + out) * V + vc`.
    pub credits: Vec<u32>,
    /// Per router: input VCs holding flits (bit `port * vcs + vc`).
    occ: Vec<u64>,
    /// Per router: its age clock.
    pub clocks: Vec<AgeClock>,
    /// Per router: the first cycle its clock has not ticked for.
    clocked: Vec<u64>,
    /// Per `(router, port)`: crossbar-input round-robin pointer over the port's VCs.
    xin_ptr: Vec<u8>,
    /// Per router (plus a sink): flits and credits travelling to it plus flits in it.
    pending: Vec<u32>,
    wiring: Vec<Wire>,
    /// Per router: (connected input ports, output ports receiving credits, connected outputs).
    poll: Vec<(u64, u64, u64)>,
    /// Ejection ports (no credits).
    local: u64,
    /// Processor ports slower than a link (`router.eject_rate`), per `(router, port)`.
    eject: crate::router::eject::EjectPacing,
    /// Per port: (request bias, response bias).
    bias: Vec<(u8, u8)>,
    /// VCs of the request class (class 0): `vc < req_vcs` gets the request bias.
    req_vcs: u32,
    /// Port -> dimension (`ndims` for the processor ports), for queueing statistics.
    port_dim: Vec<u8>,
    /// SeaStar performance counters (Table 4), counted inside the measurement window.
    pub counters: PerfCounters,
    /// The routers this structure steps, `[lo, hi)`: all, or one partition's.
    span: (u32, u32),
    /// Flits and credits for other partitions' routers.
    crossing: crate::router::crossing::Crossings,
    /// Packets dropped at Cray XT dateline nodes ([`crate::router::drops`]).
    pub dateline_drops: crate::router::drops::DatelineDrops,
}

impl BufferedRouters {
    /// Build the routers of `topo` wired to `ch`. `max_packet` is the resolved maximum
    /// packet (config or workload), `req_vcs` the VCs of traffic class 0.
    pub fn new(cfg: &BufferedConfig, topo: &Topology, ch: &Channels, max_packet: u32, req_vcs: u32) -> Self {
        let (p, v) = (topo.ports, cfg.vcs);
        assert!(p * v <= MAX_PORT_VCS, "validated: ports * vcs <= 64");
        let r = topo.num_routers;
        let (pu, vu) = (p as usize, v as usize);
        let nivc = r as usize * pu * vu;
        let nstg = nivc * pu;
        let mut wiring = vec![UNWIRED; r as usize * pu];
        let mut poll = vec![(0u64, 0u64, 0u64); r as usize];
        for c in 0..ch.len() {
            let from_router = matches!(ch.src[c], End::Router { .. });
            if let End::Router { router, port } = ch.src[c] {
                let w = &mut wiring[(router * p + port) as usize];
                w.out_flits = ch.flits.ring(c);
                w.out_credits = ch.credits.ring(c);
                w.out_chan = c as u32;
                w.flit_delay = ch.latency[c] + cfg.output_delay;
                if ch.dst[c] != End::None {
                    poll[router as usize].2 |= 1 << port;
                }
                if let End::Router { router: dr, port: dp } = ch.dst[c] {
                    w.down_router = dr;
                    w.down_port = dp as u8;
                    poll[router as usize].1 |= 1 << port;
                }
            }
            if let End::Router { router, port } = ch.dst[c] {
                let w = &mut wiring[(router * p + port) as usize];
                w.in_flits = ch.flits.ring(c);
                w.in_credits = ch.credits.ring(c);
                poll[router as usize].0 |= 1 << port;
                if let (true, End::Router { router: ur, .. }) = (from_router, ch.src[c]) {
                    w.up_router = ur;
                }
            }
        }
        let sink = r;
        for w in wiring.iter_mut() {
            if w.up_router == NONE {
                w.up_router = sink;
            }
            if w.down_router == NONE {
                w.down_router = sink;
            }
        }
        let local = (0..p).filter(|&port| topo.is_local_port(port)).fold(0u64, |m, port| m | 1 << port);
        let ndims = topo.network_ports() / 2;
        let port_dim = (0..p).map(|port| if port < 2 * ndims { (port / 2) as u8 } else { ndims as u8 }).collect();
        BufferedRouters {
            ports: p,
            vcs: v,
            depth: cfg.buffer_depth,
            staging_depth: cfg.staging_depth,
            max_packet,
            cfg: cfg.clone(),
            ivc: vec![InVc::default(); nivc],
            buf: vec![Flit::default(); nivc * cfg.buffer_depth as usize],
            stg: vec![StagingState::default(); nstg],
            sbuf: vec![Staged::default(); nstg * cfg.staging_depth as usize],
            staged: vec![0; r as usize * pu],
            out: vec![OUT_INIT; r as usize * pu],
            credits: vec![cfg.buffer_depth; r as usize * pu * vu],
            occ: vec![0; r as usize],
            clocks: vec![AgeClock::new(cfg.age_clock_period); r as usize],
            clocked: vec![0; r as usize],
            xin_ptr: vec![0; r as usize * pu],
            pending: vec![0; r as usize + 1],
            wiring,
            poll,
            local,
            eject: crate::router::eject::EjectPacing::new(cfg.eject_rate, r as usize * pu),
            bias: cfg.port_biases(ndims as usize, p),
            req_vcs,
            port_dim,
            counters: PerfCounters::new(r, p, v, ndims + 1),
            span: (0, r),
            crossing: Default::default(),
            dateline_drops: Default::default(),
        }
    }

    /// The configuration these routers were built with.
    pub fn config(&self) -> &BufferedConfig {
        &self.cfg
    }

    /// Flits in input VC buffer `(router, port, vc)`.
    pub fn input_len(&self, r: u32, p: u32, v: u32) -> u32 {
        self.ivc[((r * self.ports + p) * self.vcs + v) as usize].len as u32
    }

    /// Front flit of input VC buffer `(router, port, vc)`.
    pub fn input_front(&self, r: u32, p: u32, v: u32) -> Option<Flit> {
        let i = ((r * self.ports + p) * self.vcs + v) as usize;
        let st = &self.ivc[i];
        (st.len > 0).then(|| self.buf[i * self.depth as usize + st.head as usize])
    }

    /// Flits in staging buffer `(router, out, in, vc)`.
    pub fn staging_len(&self, r: u32, o: u32, p: u32, v: u32) -> u32 {
        self.stg[(((r * self.ports + o) * self.ports + p) * self.vcs + v) as usize].len as u32
    }

    /// Flits buffered in all routers (input and staging buffers).
    pub fn total_buffered(&self) -> u64 {
        self.ivc.iter().map(|s| s.len as u64).sum::<u64>() + self.stg.iter().map(|s| s.len as u64).sum::<u64>()
    }

    /// Flits buffered in router `r`.
    pub fn buffered(&self, r: u32) -> u64 {
        let (p, v) = (self.ports as usize, self.vcs as usize);
        let ri = r as usize;
        self.ivc[ri * p * v..(ri + 1) * p * v].iter().map(|s| s.len as u64).sum::<u64>()
            + self.stg[ri * p * p * v..(ri + 1) * p * p * v].iter().map(|s| s.len as u64).sum::<u64>()
    }

    /// An endpoint sent a flit into router `r`.
    #[inline]
    pub fn flit_sent_to(&mut self, r: u32, _port: u32, _arrive: u64) {
        bump(&mut self.pending[r as usize]);
    }

    /// Describe what blocks the flits of router `r` (deadlock reports).
    pub fn describe(&self, r: u32, now: u64) -> Vec<String> {
        let (p_n, v_n) = (self.ports, self.vcs);
        let mut lines = Vec::new();
        for p in 0..p_n {
            for v in 0..v_n {
                let st = &self.ivc[((r * p_n + p) * v_n + v) as usize];
                if st.len > 0 {
                    let what = match st.state {
                        state::IDLE => "awaiting routing".to_string(),
                        state::ROUTED => {
                            let s = &self.stg[(((r * p_n + st.out_port as u32) * p_n + p) * v_n + v) as usize];
                            format!(
                                "routed to port {} vc{}, waiting for its staging buffer ({} of {} flits committed){}",
                                st.out_port,
                                st.out_vc,
                                s.committed,
                                self.staging_depth,
                                if (now as u32).wrapping_sub(st.ready) as i32 >= 0 { "" } else { " (in routing delay)" }
                            )
                        }
                        state::DROP => "dropped at a dateline node: discarding its flits".to_string(),
                        _ => format!("crossing to port {} vc{}", st.out_port, st.out_vc),
                    };
                    lines.push(format!("input port {p} vc{v}: {} flits, {what}", st.len));
                }
            }
        }
        for o in 0..p_n {
            let out = self.out[(r * p_n + o) as usize];
            for p in 0..p_n {
                for v in 0..v_n {
                    let s = (((r * p_n + o) * p_n + p) * v_n + v) as usize;
                    if self.stg[s].len > 0 {
                        let e = self.sbuf[s * self.staging_depth as usize + self.stg[s].head as usize];
                        let credits = self.credits[((r * p_n + o) * v_n + e.vc() as u32) as usize];
                        let sending = out.cur as u32 == p * v_n + v;
                        lines.push(format!(
                            "staging out {o} <- in {p} vc{v}: {} flits, front for vc{} with {credits} credits{}",
                            self.stg[s].len,
                            e.vc(),
                            if sending { " (being sent)" } else { "" }
                        ));
                    }
                }
            }
        }
        lines
    }

    /// Advance every router with work by one cycle at time `now`, in router order.
    pub fn step_all(&mut self, cx: &mut StepContext<'_>, routing: &RoutingFunction) {
        let (now, topo) = (cx.now, cx.topo);
        let (ch, packets, stats, ctr) = (&mut *cx.ch, &mut *cx.packets, &mut *cx.stats, &mut *cx.ctr);
        let counting = stats.in_window(now);
        let (lo, n) = (self.span.0 as usize, self.span.1 as usize);
        for r in lo..n {
            if r + PREFETCH_STATE < n && self.pending[r + PREFETCH_STATE] != 0 {
                self.prefetch_state(r + PREFETCH_STATE, ch, now);
            }
            if r + PREFETCH_BUFFERS < n && self.pending[r + PREFETCH_BUFFERS] != 0 {
                self.prefetch_buffers(r + PREFETCH_BUFFERS);
            }
            if self.pending[r] != 0 {
                self.step_router(r as u32, now, counting, topo, routing, ch, packets, stats, ctr);
            }
        }
    }

    /// One router's cycle (see the module docs).
    #[allow(clippy::too_many_arguments)]
    fn step_router(
        &mut self,
        r: u32,
        now: u64,
        counting: bool,
        topo: &Topology,
        routing: &RoutingFunction,
        ch: &mut Channels,
        packets: &mut PacketArena,
        stats: &mut Collector,
        ctr: &mut Counters,
    ) {
        let ru = r as usize;
        let (p_n, v_n) = (self.ports as usize, self.vcs as usize);
        let rp = ru * p_n;
        let base = rp * v_n;
        let depth = self.depth as usize;
        let sdepth = self.staging_depth as usize;
        let now32 = now as u32;
        let check = self.cfg.saturation_check;
        // The clock catches up over the cycles this router was not visited (it held no
        // packets then: a packet is counted from its head's arrival to its hand-off).
        let behind = now - self.clocked[ru];
        if behind > 0 {
            self.clocks[ru].idle_ticks(behind);
        }
        let (in_ports, credit_ports, out_ports) = self.poll[ru];
        let mut occ = self.occ[ru];
        let mut moved_any = false;

        // 1. Receive flits and credits.
        let mut m = in_ports;
        while m != 0 {
            let p = take_lowest(&mut m);
            let w = self.wiring[rp + p];
            let Some(e) = ch.flits.take_due_in(w.in_flits, now, true) else { continue };
            let li = p * v_n + e.vc as usize;
            let st = &mut self.ivc[base + li];
            debug_assert!((st.len as usize) < depth, "input buffer overflow: credits violated");
            let mut pos = st.head as usize + st.len as usize;
            if pos >= depth {
                pos -= depth;
            }
            self.buf[(base + li) * depth + pos] = e.flit;
            st.len += 1;
            occ |= 1 << li;
            if counting {
                self.counters.vc_flits[base + li] += 1;
            }
            if e.flit.is_head() {
                // Procedure 1: a new packet at this input port.
                let pk = packets.get_mut(e.flit.pid);
                let (req, rsp) = self.bias[p];
                let bias = if (e.vc as u32) < self.req_vcs { req } else { rsp };
                pk.age = self.clocks[ru].receive(pk.age, bias);
                pk.hop_start = now32;
                pk.hops += (self.local >> p & 1 == 0) as u32;
                if counting {
                    self.counters.vc_pkts[base + li] += 1;
                }
            }
        }
        let mut m = credit_ports;
        while m != 0 {
            let o = take_lowest(&mut m);
            let w = self.wiring[rp + o];
            if let Some(c) = ch.credits.take_due_in(w.out_credits, now, true) {
                self.credits[base + o * v_n + c.vc() as usize] += 1;
                self.pending[ru] -= 1;
            }
        }

        // 2. Route heads at the front of idle input VCs.
        let routing_delay = self.cfg.routing_delay;
        let mut m = occ;
        while m != 0 {
            let li = take_lowest(&mut m);
            let st = &mut self.ivc[base + li];
            if st.state != state::IDLE {
                continue;
            }
            let f = self.buf[(base + li) * depth + st.head as usize];
            debug_assert!(f.is_head(), "non-head flit at the front of an idle VC");
            let (p, v) = ((li / v_n) as u32, (li % v_n) as u32);
            let pk = packets.get(f.pid);
            let (src, dst) = (pk.src, pk.dst);
            let cand = routing.route_packet(topo, r, p, v, pk);
            if routing.drops(r, p, v, cand.port as u32) {
                self.dateline_drops.record(crate::router::drops::DropEvent { cycle: now, router: r, port: p, vc: v, src, dst });
                st.state = state::DROP;
                // The packet will not compete for an output: it leaves its epoch's count
                // now (Procedure 2's hand-off, its outgoing header unused). Section 2.3
                // does not say what a drop does to the count; left in, it would hold
                // its epoch busy for ever and inhibit every later epoch switch.
                self.clocks[ru].hand_off(packets.get(f.pid).age, check);
                continue;
            }
            st.out_port = cand.port;
            st.out_vc = if (cand.vc_lo as u32..cand.vc_hi as u32).contains(&v) { v as u8 } else { cand.vc_lo };
            st.state = state::ROUTED;
            st.ready = now32.wrapping_add(routing_delay);
        }

        // 3. Crossbar inputs: one flit per input port.
        let credit_delay = self.cfg.credit_delay as u64;
        let mut m = occ;
        while m != 0 {
            let li = lowest(m);
            let p = li / v_n;
            let port_vcs = (((1u64 << v_n) - 1) << (p * v_n)) & occ;
            m &= !port_vcs;
            // Candidates: VCs whose next flit can cross now.
            let mut can = 0u64;
            let mut waiting = 0u64;
            let mut k = port_vcs;
            while k != 0 {
                let li = take_lowest(&mut k);
                let st = &self.ivc[base + li];
                match st.state {
                    state::MOVING | state::DROP => can |= 1 << li,
                    state::ROUTED if now32.wrapping_sub(st.ready) as i32 >= 0 => {
                        let f = self.buf[(base + li) * depth + st.head as usize];
                        let s = &self.stg[(base + st.out_port as usize * v_n) * p_n + li];
                        if sdepth - s.committed as usize >= f.size() as usize {
                            can |= 1 << li;
                        } else {
                            waiting |= 1 << li;
                        }
                    }
                    _ => {}
                }
            }
            if counting && waiting != 0 {
                let mut k = waiting;
                while k != 0 {
                    self.counters.vc_blocked[base + take_lowest(&mut k)] += 1;
                }
                if can == 0 {
                    self.counters.stalled[rp + p] += 1;
                }
            }
            if can == 0 {
                continue;
            }
            // Round robin over the port's VCs from its pointer.
            let ptr = p * v_n + self.xin_ptr[rp + p] as usize;
            let li = super::arbiter::round_robin(can, ptr as u32) as usize;
            let v = li - p * v_n;
            self.xin_ptr[rp + p] = if v + 1 == v_n { 0 } else { (v + 1) as u8 };
            let st = &mut self.ivc[base + li];
            let f = self.buf[(base + li) * depth + st.head as usize];
            st.head = if st.head as usize + 1 == depth { 0 } else { st.head + 1 };
            st.len -= 1;
            if st.len == 0 {
                occ &= !(1 << li);
            }
            if st.state == state::DROP {
                // Discarded: the flit leaves the router, its slot's credit goes upstream.
                ctr.flits_lost += 1;
                if f.is_tail() {
                    st.state = state::IDLE;
                    ctr.packets_lost += 1;
                    ctr.measured_lost += packets.get(f.pid).measured as u64;
                    packets.release(f.pid);
                }
                self.pending[ru] -= 1;
                moved_any = true;
                self.credit_upstream(ru, p, v, now + credit_delay, ch);
                continue;
            }
            let o = st.out_port as usize;
            let vc = st.out_vc;
            if f.is_head() {
                st.state = state::MOVING;
            }
            if f.is_tail() {
                st.state = state::IDLE;
            }
            let si = (base + o * v_n) * p_n + li;
            let s = &mut self.stg[si];
            if f.is_head() {
                s.committed += f.size() as u16;
            }
            let mut pos = s.head as usize + s.len as usize;
            if pos >= sdepth {
                pos -= sdepth;
            }
            self.sbuf[si * sdepth + pos] = Staged::new(f, vc);
            s.len += 1;
            s.entered(now32);
            self.staged[rp + o] |= 1 << li;
            moved_any = true;
            // A credit for the freed input slot goes upstream.
            self.credit_upstream(ru, p, v, now + credit_delay, ch);
        }

        // 4. Outputs: arbitrate idle ones, send one flit per busy one.
        let recent_mask = (1u32 << self.cfg.crossbar_delay) - 1;
        let mut sent = 0u32;
        let mut m = out_ports;
        while m != 0 {
            let o = take_lowest(&mut m);
            let staged = self.staged[rp + o];
            if staged == 0 {
                continue;
            }
            let ob = (base + o * v_n) * p_n; // staging index of (o, in 0, vc 0)
            let local = self.local >> o & 1 != 0;
            let mut out = self.out[rp + o];
            if out.cur == IDLE_OUT {
                // Candidates: staged heads, visible, whose VC has credits for a maximum
                // packet downstream.
                let mut cand = 0u64;
                let mut k = staged;
                while k != 0 {
                    let li = take_lowest(&mut k);
                    let s = &self.stg[ob + li];
                    let e = self.sbuf[(ob + li) * sdepth + s.head as usize];
                    debug_assert!(e.flit().is_head(), "staging buffer front of an idle output is not a head");
                    if s.front_visible(now32, recent_mask) && (local || self.credits[base + o * v_n + e.vc() as usize] >= self.max_packet) {
                        cand |= 1 << li;
                    }
                }
                if cand == 0 {
                    continue;
                }
                let clock = &self.clocks[ru];
                let by_age = age_selected(self.cfg.age_rr_select, out.grants) && clock.age_based_allowed();
                out.grants = (out.grants + 1) & 63;
                let win = if by_age {
                    let mut best = 0u8;
                    let mut tied = 0u64;
                    let mut k = cand;
                    while k != 0 {
                        let li = take_lowest(&mut k);
                        let s = &self.stg[ob + li];
                        let e = &self.sbuf[(ob + li) * sdepth + s.head as usize];
                        let a = clock.age_now(packets.get(e.pid).age, check);
                        if a > best || tied == 0 {
                            best = a;
                            tied = 1 << li;
                        } else if a == best {
                            tied |= 1 << li;
                        }
                    }
                    let li = super::arbiter::round_robin(tied, out.age_ptr as u32) as usize;
                    out.age_ptr = super::arbiter::next_ptr(li as u32, (p_n * v_n) as u32) as u8;
                    li
                } else {
                    // Input-port arbiter, then the VC arbiter of the chosen port.
                    let mut port_set = 0u64;
                    let mut k = cand;
                    while k != 0 {
                        port_set |= 1 << (take_lowest(&mut k) / v_n);
                    }
                    let p = super::arbiter::round_robin(port_set, out.rr_port as u32) as usize;
                    out.rr_port = super::arbiter::next_ptr(p as u32, p_n as u32) as u8;
                    let vcs = (cand >> (p * v_n)) & ((1u64 << v_n) - 1);
                    let v = super::arbiter::round_robin(vcs, out.rr_vc as u32) as usize;
                    out.rr_vc = super::arbiter::next_ptr(v as u32, v_n as u32) as u8;
                    p * v_n + v
                };
                // Procedure 2, lines 13-14: the winner's age into its header; its epoch
                // count drops as it is handed to the link.
                let s = &self.stg[ob + win];
                let e = self.sbuf[(ob + win) * sdepth + s.head as usize];
                let pk = packets.get_mut(e.pid);
                pk.age = self.clocks[ru].hand_off(pk.age, check);
                if counting {
                    self.counters.age_hist[rp + o][(pk.age >> 6) as usize & 3] += 1;
                    let waited = now32.wrapping_sub(pk.hop_start) as u64;
                    let d = self.port_dim[o] as usize;
                    self.counters.hop_cycles[d] += waited;
                    self.counters.hops[d] += 1;
                }
                out.cur = win as u16;
            }
            // Send the next flit of the current packet if it is staged and visible.
            let li = out.cur as usize;
            let si = ob + li;
            let s = &mut self.stg[si];
            // A processor port slower than a link sends when its last flit has cleared.
            let paced = local && self.eject.on();
            if s.len > 0 && s.front_visible(now32, recent_mask) && (!paced || self.eject.may_send(rp + o, now)) {
                if paced {
                    self.eject.sent(rp + o, now);
                }
                let e = self.sbuf[si * sdepth + s.head as usize];
                let (f, vc) = (e.flit(), e.vc());
                s.head = if s.head as usize + 1 == sdepth { 0 } else { s.head + 1 };
                s.len -= 1;
                s.committed -= 1;
                if s.len == 0 {
                    self.staged[rp + o] &= !(1 << li);
                }
                if f.is_tail() {
                    out.cur = IDLE_OUT;
                }
                let w = self.wiring[rp + o];
                let arrive = now + w.flit_delay as u64;
                if w.cross_out {
                    // (The input port on the far side is the one this channel enters.)
                    self.crossing.send_flit(w.out_flits, w.down_router, w.down_port, arrive, InFlight::new(arrive, f, vc), packets);
                } else {
                    ch.flits.push_in(w.out_flits, arrive, InFlight::new(arrive, f, vc));
                    bump(&mut self.pending[w.down_router as usize]);
                }
                self.pending[ru] -= 1;
                if !local {
                    self.credits[base + o * v_n + vc as usize] -= 1;
                }
                stats.on_channel_flit(w.out_chan as usize, vc as u32, now);
                sent += 1;
            }
            self.out[rp + o] = out;
        }
        if sent != 0 || moved_any {
            ctr.flit_traversals += sent as u64;
            ctr.last_progress = now;
        }
        self.occ[ru] = occ;
        // 5. Procedure 3: the age clock ticks at the end of the cycle.
        self.clocks[ru].tick();
        self.clocked[ru] = now + 1;
    }
}

impl BufferedRouters {
    /// A credit for a freed slot of input port `p`'s VC `v` of router `ru` goes
    /// upstream, arriving at cycle `arrive`.
    #[inline]
    fn credit_upstream(&mut self, ru: usize, p: usize, v: usize, arrive: u64, ch: &mut Channels) {
        let w = self.wiring[ru * self.ports as usize + p];
        let entry = CreditWire::new(arrive, v as u32);
        if w.cross_in {
            self.crossing.credits.push(crate::router::crossing::CrossCredit {
                arrive,
                ring: w.in_credits,
                row: w.up_router,
                port: 0,
                entry,
            });
        } else {
            ch.credits.push_in(w.in_credits, arrive, entry);
            bump(&mut self.pending[w.up_router as usize]);
        }
    }
}

/// Count one more thing travelling to a router (wrapping: the sink's count, past the
/// last router, grows for ever and is never read).
#[inline(always)]
fn bump(c: &mut u32) {
    *c = c.wrapping_add(1);
}

/// Index of the lowest set bit.
#[inline(always)]
fn lowest(m: u64) -> usize {
    (m.trailing_zeros() & 63) as usize
}
