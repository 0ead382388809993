//! The central-arbiter wormhole router of the self-tuned congestion-control paper
//! (Thottethodi, Lebeck & Mukherjee, IEEE TPDS 2004, section 5.1, simulated there with
//! flexsim): input edge buffers per physical channel and VC, a *central* router arbiter
//! that routes one header per cycle, granted demand-slotted round-robin among the
//! waiting headers, minimal fully adaptive routing ([`crate::routing::adaptive`]) with a
//! selection policy on downstream credits, one cycle per flit through the crossbar, and
//! credit-based wormhole flow control.
//!
//! One cycle of router `r`:
//! 1. flits and credits due this cycle are received; an output VC whose packet's tail has
//!    left is free again once all its credits are back (a VC buffer holds one packet at a
//!    time downstream, as Duato's and Disha's deadlock arguments assume);
//! 2. a head at the front of an idle input VC starts its routing delay;
//! 3. the central arbiter grants `headers_per_cycle` waiting headers, round-robin from
//!    the input VC after the last grant; a granted header takes an output VC if the
//!    routing function offers a free one, or stays waiting;
//! 4. the switch: each output port carries one flit per cycle and each input port sends
//!    one; metapacket flits ([`crate::congestion::metapacket`], when the congestion
//!    estimate travels in metapackets) take their output links first, then flits on the
//!    deadlock-buffer lane, then round robin per output;
//! 5. the flits move into their output channels, and a credit goes upstream for each.
//!
//! **Selection** (adaptive VCs): among the productive ports with a free adaptive VC, the
//! one whose adaptive VCs have the most downstream credits in total (free flit slots:
//! partly drained busy VCs count too); ties go to the lowest port (x before y, + before
//! -); on it the lowest free adaptive VC. Deadlock **avoidance** falls back to the escape
//! VC when no adaptive VC is free (and a packet on an escape VC stays on escape VCs).
//! Deadlock **recovery** is in [`disha`].
//!
//! Each port has `V + 1` lanes: the `V` VCs and the deadlock-buffer lane `V`. A router's
//! deadlock buffer is the lane of whichever input port the one recovering packet arrives
//! on; since the token lets one packet at a time use the lanes and its minimal path visits
//! a router once, this holds exactly what a central per-router buffer holds.

pub mod config;
mod crossing;
pub mod disha;
mod family;

pub use config::CentralConfig;

use crate::congestion::metapacket::{Agg, MetaNet};
use crate::link::{Channels, CreditWire, Flit, InFlight};
use crate::packet::{Counters, PacketArena};
use crate::router::crossing::{CrossCredit, Crossings};
use crate::router::family::StepContext;
use crate::routing::adaptive::{Adaptive, DeadlockHandling};
use crate::stats::Collector;
use crate::topology::{Topology, NONE};

/// Input VC states.
mod state {
    /// No packet, or the front flit not yet looked at.
    pub const IDLE: u8 = 0;
    /// A header waiting for the central arbiter (from `since`).
    pub const WAIT: u8 = 1;
    /// A header on the deadlock-buffer lane waiting out its routing delay.
    pub const DB_WAIT: u8 = 2;
    /// Holding an output VC: flits stream.
    pub const ACTIVE: u8 = 3;
}

/// The VC number metapacket flits carry on a link: not a lane of the input buffers (the
/// metapacket unit takes them as they arrive, see [`crate::congestion::metapacket`]).
pub const META_VC: u8 = 254;

/// Output VC owner: free.
const FREE: u16 = u16::MAX;
/// Output VC owner: the tail has left, credits still returning.
const DRAINING: u16 = u16::MAX - 1;

/// One input lane.
#[derive(Clone, Copy, Debug, Default)]
struct InputVc {
    head: u16,
    len: u16,
    state: u8,
    out_port: u8,
    out_vc: u8,
    /// WAIT / DB_WAIT: cycle from which the header may be routed.
    since: u32,
}

/// One output lane.
#[derive(Clone, Copy, Debug)]
struct OutputVc {
    /// Input lane (local index `port * lanes + lane`) holding it, [`FREE`] or [`DRAINING`].
    owner: u16,
    credits: u16,
}

/// Disha and arbiter event counts.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct CentralCounters {
    /// Headers granted the central arbiter.
    pub arbiter_grants: u64,
    /// Of those, headers that found no free output VC.
    pub arbiter_failures: u64,
    /// Headers that took an escape VC (avoidance).
    pub escape_allocations: u64,
    /// Packets that recovered through the deadlock buffers (Disha token captures).
    pub recoveries: u64,
    /// Flits that crossed a router on the deadlock-buffer lane.
    pub deadlock_buffer_flits: u64,
}

/// The central-arbiter routers of a network.
#[derive(Clone, Debug)]
pub struct CentralRouters {
    /// Ports per router.
    pub ports: u32,
    /// Lanes per port: the VCs plus the deadlock-buffer lane.
    pub lanes: u32,
    /// Normal VCs per port.
    pub vcs: u32,
    /// Buffer depth per lane.
    pub depth: u32,
    cfg: CentralConfig,
    ivc: Vec<InputVc>,
    buf: Vec<Flit>,
    out: Vec<OutputVc>,
    wiring: Vec<super::wiring::Wiring>,
    /// Per router: the central arbiter's round-robin pointer (a local input lane).
    arb_ptr: Vec<u16>,
    /// Per router and output port: the switch's round-robin pointer.
    sw_ptr: Vec<u16>,
    /// Per router: flits buffered.
    held: Vec<u32>,
    /// Per router: flits and credits travelling to it.
    pending: Vec<u32>,
    /// Per router: output VCs draining (waiting for credits to come back).
    draining: Vec<u32>,
    /// Per router: headers waiting (WAIT or DB_WAIT).
    waiting: Vec<u32>,
    network_ports: u32,
    /// Per router: flits sent to its endpoints (delivered), cumulative.
    delivered: Vec<u64>,
    /// The metapacket gather, when the congestion estimate travels in metapackets.
    pub meta: Option<Box<MetaNet>>,
    /// Metapackets count occupied (rather than full) VC buffers.
    meta_occupied: bool,
    /// Metapacket flits take their links before any data flit (else: round robin with
    /// the data VCs).
    meta_link_priority: bool,
    /// Disha's recovery token.
    pub token: disha::Token,
    /// Event counts.
    pub counters: CentralCounters,
    /// The routers this structure steps, `[lo, hi)`: all of them unless partitioned.
    span: (u32, u32),
    /// Flits, credits and token events for other partitions.
    crossing: Crossings,
}

impl CentralCounters {
    /// Add another partition's counts.
    pub fn merge(&mut self, o: &CentralCounters) {
        self.arbiter_grants += o.arbiter_grants;
        self.arbiter_failures += o.arbiter_failures;
        self.escape_allocations += o.escape_allocations;
        self.recoveries += o.recoveries;
        self.deadlock_buffer_flits += o.deadlock_buffer_flits;
    }
}

impl CentralRouters {
    /// Build for `topo` over `ch`.
    pub fn new(cfg: &CentralConfig, topo: &Topology, ch: &Channels) -> Self {
        let (r_n, p_n) = (topo.num_routers, topo.ports);
        let lanes = cfg.vcs + 1;
        let lanes_total = (r_n * p_n * lanes) as usize;
        let depth = cfg.buffer_depth;
        let wiring = super::wiring::build(topo, ch, cfg.crossbar_delay);
        CentralRouters {
            ports: p_n,
            lanes,
            vcs: cfg.vcs,
            depth,
            cfg: cfg.clone(),
            ivc: vec![InputVc::default(); lanes_total],
            buf: vec![Flit::default(); lanes_total * depth as usize],
            out: vec![OutputVc { owner: FREE, credits: depth as u16 }; lanes_total],
            wiring,
            arb_ptr: vec![0; r_n as usize],
            sw_ptr: vec![0; (r_n * p_n) as usize],
            held: vec![0; r_n as usize],
            pending: vec![0; r_n as usize],
            draining: vec![0; r_n as usize],
            waiting: vec![0; r_n as usize],
            network_ports: topo.network_ports(),
            delivered: vec![0; r_n as usize],
            meta: None,
            meta_occupied: false,
            meta_link_priority: false,
            token: disha::Token { routers: r_n, ..disha::Token::default() },
            counters: CentralCounters::default(),
            span: (0, r_n),
            crossing: Crossings::default(),
        }
    }

    /// Flits in input lane `(r, p, v)`.
    pub fn input_len(&self, r: u32, p: u32, v: u32) -> u32 {
        self.ivc[((r * self.ports + p) * self.lanes + v) as usize].len as u32
    }

    /// Front flit of input lane `(r, p, v)`.
    pub fn input_front(&self, r: u32, p: u32, v: u32) -> Option<Flit> {
        let i = ((r * self.ports + p) * self.lanes + v) as usize;
        let st = &self.ivc[i];
        (st.len > 0).then(|| self.buf[i * self.depth as usize + st.head as usize])
    }

    /// Credits of output lane `(r, p, v)`.
    pub fn out_credits(&self, r: u32, p: u32, v: u32) -> u32 {
        self.out[((r * self.ports + p) * self.lanes + v) as usize].credits as u32
    }

    /// Flits buffered in all routers.
    pub fn total_buffered(&self) -> u64 {
        self.held.iter().map(|&h| h as u64).sum()
    }

    /// An endpoint sent a flit to router `r`.
    #[inline]
    pub fn flit_sent_to(&mut self, r: u32, _port: u32, _arrive: u64) {
        self.pending[r as usize] += 1;
    }

    /// VC buffers of the network input ports (the `V` VCs, not the deadlock buffer) that
    /// are full (`occupied = false`: as many flits as the depth) or hold any flit
    /// (`occupied = true`): the congestion estimate's count.
    pub fn count_buffers(&self, occupied: bool) -> u32 {
        let (p_n, l_n) = (self.ports as usize, self.lanes as usize);
        let (lo, hi) = (self.span.0 as usize, self.span.1 as usize);
        let mut n = 0;
        for r in lo..hi {
            for p in 0..self.network_ports as usize {
                for st in &self.ivc[(r * p_n + p) * l_n..][..self.vcs as usize] {
                    n += if occupied { (st.len > 0) as u32 } else { (st.len as u32 == self.depth) as u32 };
                }
            }
        }
        n
    }

    /// Carry the congestion estimate in metapackets (`occupied`: count occupied rather
    /// than full VC buffers; `link_priority`: metapacket flits take a link before any
    /// data flit, else they share it round robin with the data VCs).
    pub fn enable_metapackets(&mut self, meta: MetaNet, occupied: bool, link_priority: bool) {
        self.meta = Some(Box::new(meta));
        self.meta_occupied = occupied;
        self.meta_link_priority = link_priority;
    }

    /// Metapacket flits on links now (not counted in the network's flits).
    pub fn meta_flits_in_channels(&self) -> u64 {
        self.meta.as_ref().map_or(0, |m| m.in_channels)
    }

    /// Router `r`'s contribution to a metapacket: its counted VC buffers (as
    /// [`count_buffers`](Self::count_buffers) counts them) and the flits it delivered.
    fn local_sample(&self, r: u32) -> Agg {
        let l_n = self.lanes as usize;
        let base = r as usize * self.ports as usize * l_n;
        let mut full = 0;
        for p in 0..self.network_ports as usize {
            for st in &self.ivc[base + p * l_n..][..self.vcs as usize] {
                full += if self.meta_occupied { (st.len > 0) as u64 } else { (st.len as u32 == self.depth) as u64 };
            }
        }
        Agg { full, delivered: self.delivered[r as usize] }
    }

    /// The VC buffers [`count_buffers`](Self::count_buffers) counts over: network input
    /// ports that are connected, times the VCs.
    pub fn countable_buffers(&self) -> u32 {
        let p_n = self.ports as usize;
        let connected =
            self.wiring.iter().enumerate().filter(|(i, w)| ((i % p_n) as u32) < self.network_ports && w.up_router != NONE).count();
        connected as u32 * self.vcs
    }

    /// At-least-one (ALO, Baydal et al.) at router `r` for a packet to router `t`: true if
    /// every useful (productive) output port has a free VC, or some useful port has all
    /// its VCs free. `productive` is the port mask of [`Adaptive::productive`]; `free`
    /// says whether a VC whose last packet has left but whose downstream buffer has not
    /// drained ([`DRAINING`]) is free ([`AloFree`](crate::congestion::AloFree)).
    pub fn alo_allows(&self, r: u32, productive: u32, free: crate::congestion::AloFree) -> bool {
        let unassigned = free == crate::congestion::AloFree::Unassigned;
        if productive == 0 {
            return true;
        }
        let (mut every_has_one, mut one_all_free) = (true, false);
        let mut m = productive;
        while m != 0 {
            let o = m.trailing_zeros();
            m &= m - 1;
            let base = ((r * self.ports + o) * self.lanes) as usize;
            let free = self.out[base..base + self.vcs as usize]
                .iter()
                .filter(|ov| ov.owner == FREE || (unassigned && ov.owner == DRAINING))
                .count() as u32;
            every_has_one &= free > 0;
            one_all_free |= free == self.vcs;
        }
        every_has_one || one_all_free
    }

    #[inline]
    fn busy(&self, r: usize) -> bool {
        self.held[r] | self.pending[r] | self.draining[r] != 0 || self.meta.as_ref().is_some_and(|m| m.busy(r as u32))
    }

    /// Advance every router with work by one cycle.
    pub fn step_all(&mut self, cx: &mut StepContext<'_>, routing: &Adaptive) {
        let (now, topo) = (cx.now, cx.topo);
        let (ch, packets, stats, ctr) = (&mut *cx.ch, &mut *cx.packets, &mut *cx.stats, &mut *cx.ctr);
        if routing.handling == DeadlockHandling::Recovery {
            self.token_step(now, topo, routing, packets);
        }
        if self.meta.as_ref().is_some_and(|m| m.launch_due(now)) {
            for r in self.span.0..self.span.1 {
                let local = self.local_sample(r);
                self.meta.as_mut().expect("metapackets").launch(r, now, local);
            }
        }
        for r in self.span.0..self.span.1 {
            if self.busy(r as usize) {
                self.step(r, now, topo, routing, ch, packets, stats, ctr);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        r: u32,
        now: u64,
        topo: &Topology,
        routing: &Adaptive,
        ch: &mut Channels,
        packets: &mut PacketArena,
        stats: &mut Collector,
        ctr: &mut Counters,
    ) {
        let (p_n, l_n, depth) = (self.ports as usize, self.lanes as usize, self.depth as usize);
        let ru = r as usize;
        let base = ru * p_n * l_n;
        let wbase = ru * p_n;
        let n_in = p_n * l_n;
        // 1. Receive.
        for p in 0..p_n {
            let w = self.wiring[wbase + p];
            if let Some(e) = ch.flits.take_in(w.in_flits, now) {
                self.pending[ru] -= 1;
                if e.vc == META_VC {
                    // The metapacket unit takes it; the tail's arrival triggers the adder.
                    let local = if e.flit.is_tail() { self.local_sample(r) } else { Agg::default() };
                    let meta = self.meta.as_mut().expect("a metapacket flit without metapackets");
                    meta.in_channels -= 1;
                    if e.flit.is_tail() {
                        meta.arrive(r, e.flit.pid, now, local);
                    }
                } else {
                    let li = p * l_n + e.vc as usize;
                    let st = &mut self.ivc[base + li];
                    debug_assert!((st.len as usize) < depth, "input buffer overflow at router {r} port {p} lane {}", e.vc);
                    let slot = (st.head as usize + st.len as usize) % depth;
                    self.buf[(base + li) * depth + slot] = e.flit;
                    st.len += 1;
                    self.held[ru] += 1;
                }
            }
            if let Some(c) = ch.credits.take_in(w.out_credits, now) {
                self.pending[ru] -= 1;
                let ov = &mut self.out[base + p * l_n + c.vc() as usize];
                ov.credits += 1;
                if ov.owner == DRAINING && ov.credits as usize == depth {
                    ov.owner = FREE;
                    self.draining[ru] -= 1;
                }
            }
        }
        // 2. Heads at the front of idle lanes start their routing delay.
        let ready_at = (now + self.cfg.routing_delay as u64) as u32;
        for li in 0..n_in {
            let st = &mut self.ivc[base + li];
            if st.state != state::IDLE || st.len == 0 {
                continue;
            }
            let f = self.buf[(base + li) * depth + st.head as usize];
            debug_assert!(f.is_head(), "non-head flit at the front of an idle lane at router {r}");
            if (li / l_n) < self.network_ports as usize {
                packets.get_mut(f.pid).hops += 1;
            }
            st.state = if li % l_n == self.vcs as usize { state::DB_WAIT } else { state::WAIT };
            st.since = ready_at;
            self.waiting[ru] += 1;
        }
        // 3. The central arbiter, and the deadlock-buffer lane's own routing.
        if self.waiting[ru] != 0 {
            self.arbitrate(r, now, topo, routing, packets);
        }
        // 4. Metapacket flits ready per output; with link priority they go first.
        let (mut meta_out, mut meta_req) = (0u64, 0u64);
        if let Some(meta) = self.meta.as_ref().filter(|m| m.busy(r)) {
            for o in 0..self.network_ports as usize {
                meta_req |= (meta.ready(r, o, now) as u64) << o;
            }
            if self.meta_link_priority {
                meta_out = std::mem::take(&mut meta_req);
                let mut m = meta_out;
                while m != 0 {
                    let o = m.trailing_zeros() as usize;
                    m &= m - 1;
                    self.send_meta(r, o, now, ch);
                }
            }
        }
        // Switch allocation. `req[o]`: input lanes ready for output o.
        let mut req = [0u64; 16];
        let mut db_req = [0u64; 16];
        let mut any = false;
        for li in 0..n_in {
            let st = &self.ivc[base + li];
            if st.state != state::ACTIVE || st.len == 0 {
                continue;
            }
            let o = st.out_port as usize;
            if meta_out >> o & 1 != 0 {
                continue;
            }
            let ov = &self.out[base + o * l_n + st.out_vc as usize];
            let local = topo.is_local_port(o as u32);
            if !local && ov.credits == 0 {
                continue;
            }
            if st.out_vc as u32 == self.vcs {
                db_req[o] |= 1 << li;
            } else {
                req[o] |= 1 << li;
            }
            any = true;
        }
        if !any && meta_req == 0 {
            return;
        }
        let mut used_in = 0u64; // input ports that sent this cycle
        let start = (now % p_n as u64) as usize;
        let mut moved = 0u64;
        for k in 0..p_n {
            let o = (start + k) % p_n;
            let pick = |mask: u64, used_in: u64, from: u32| -> Option<usize> {
                let mut m = mask;
                let mut avail = 0u64;
                while m != 0 {
                    let li = m.trailing_zeros() as usize;
                    m &= m - 1;
                    if used_in >> (li / l_n) & 1 == 0 {
                        avail |= 1 << li;
                    }
                }
                (avail != 0).then(|| crate::router::arbiter::round_robin(avail, from) as usize)
            };
            // A ready metapacket flit competes as requester `n_in` (no input port).
            let data_and_meta = req[o] | (meta_req >> o & 1) << n_in;
            let chosen = pick(db_req[o], used_in, 0).or_else(|| pick(data_and_meta, used_in, self.sw_ptr[wbase + o] as u32));
            let Some(li) = chosen else { continue };
            if db_req[o] >> li & 1 == 0 {
                self.sw_ptr[wbase + o] = ((li + 1) % (n_in + 1)) as u16;
            }
            if li == n_in {
                self.send_meta(r, o, now, ch);
                continue;
            }
            used_in |= 1 << (li / l_n);
            // 5. Traversal.
            let p = li / l_n;
            let lane = li % l_n;
            let st = &mut self.ivc[base + li];
            let f = self.buf[(base + li) * depth + st.head as usize];
            st.head = ((st.head as usize + 1) % depth) as u16;
            st.len -= 1;
            self.held[ru] -= 1;
            let w_out = st.out_vc as usize;
            let tail = f.is_tail();
            if tail {
                st.state = state::IDLE;
            }
            let w = self.wiring[wbase + o];
            let local = topo.is_local_port(o as u32);
            if local {
                self.delivered[ru] += 1;
            }
            let ov = &mut self.out[base + o * l_n + w_out];
            if !local {
                ov.credits -= 1;
            }
            if tail {
                if local || ov.credits as usize == depth {
                    ov.owner = FREE;
                } else {
                    ov.owner = DRAINING;
                    self.draining[ru] += 1;
                }
            }
            let arrive = now + w.flit_delay as u64;
            let entry = InFlight::new(arrive, f, w_out as u8);
            if w.cross_out {
                self.crossing.send_flit(w.out_flits, w.down_router, w.down_port, arrive, entry, packets);
            } else {
                ch.flits.push_in(w.out_flits, arrive, entry);
                if w.down_router != NONE {
                    self.pending[w.down_router as usize] += 1;
                }
            }
            stats.on_channel_flit(wbase + o, w_out as u32, now);
            // The credit for the freed slot goes upstream.
            let wi = self.wiring[wbase + p];
            let arrive = now + self.cfg.credit_delay as u64;
            let credit = CreditWire::new(arrive, lane as u32);
            if wi.cross_in {
                self.crossing.credits.push(CrossCredit { arrive, ring: wi.in_credits, row: wi.up_router, port: wi.up_port, entry: credit });
            } else {
                ch.credits.push_in(wi.in_credits, arrive, credit);
                if wi.up_router != NONE {
                    self.pending[wi.up_router as usize] += 1;
                }
            }
            if w_out as u32 == self.vcs {
                self.counters.deadlock_buffer_flits += 1;
                if tail && local {
                    self.token.release(now, self.cfg.token_hop);
                    self.crossing.token = Some(self.token);
                }
            }
            moved += 1;
        }
        if moved != 0 {
            ctr.flit_traversals += moved;
            ctr.last_progress = now;
        }
    }

    /// The next metapacket flit of output `o` of router `r` leaves on its link.
    fn send_meta(&mut self, r: u32, o: usize, now: u64, ch: &mut Channels) {
        let meta = self.meta.as_mut().expect("metapackets");
        let Some(mf) = meta.take_flit(r, o, now) else {
            return;
        };
        let w = self.wiring[r as usize * self.ports as usize + o];
        let arrive = now + w.flit_delay as u64;
        let f = Flit { pid: mf.id, idx: mf.idx, last: mf.last };
        let entry = InFlight::new(arrive, f, META_VC);
        if w.cross_out {
            // Into another partition: with its tail go its contents.
            let pkt = if f.is_tail() {
                Some(meta.export(mf.id))
            } else {
                meta.export_flit();
                None
            };
            self.crossing.meta.push(crate::router::crossing::MetaCross { arrive, ring: w.out_flits, row: w.down_router, entry, pkt });
            return;
        }
        ch.flits.push_in(w.out_flits, arrive, entry);
        if w.down_router != NONE {
            self.pending[w.down_router as usize] += 1;
        }
    }

    /// Step 3: the central arbiter grants headers; deadlock-buffer heads route themselves.
    fn arbitrate(&mut self, r: u32, now: u64, topo: &Topology, routing: &Adaptive, packets: &PacketArena) {
        let (p_n, l_n, depth) = (self.ports as usize, self.lanes as usize, self.depth as usize);
        let ru = r as usize;
        let base = ru * p_n * l_n;
        let n_in = p_n * l_n;
        let now32 = now as u32;
        let eligible = |st: &InputVc| now32.wrapping_sub(st.since) as i32 >= 0;
        // Deadlock-buffer lanes: the minimal dimension-order path, no arbitration.
        for p in 0..p_n {
            let li = p * l_n + self.vcs as usize;
            let st = self.ivc[base + li];
            if st.state != state::DB_WAIT || !eligible(&st) {
                continue;
            }
            let f = self.buf[(base + li) * depth + st.head as usize];
            let dst = packets.get(f.pid).dst;
            let o = if routing.dest_router(dst) == r {
                routing.dest_port(dst)
            } else {
                routing.escape_route(topo, r, p as u32, 0, dst).port as u32
            };
            // (Free but for credits of the previous recovering packet still returning.)
            if self.out[base + o as usize * l_n + self.vcs as usize].owner == FREE {
                self.grant(r, li, o as usize, self.vcs as usize);
            }
        }
        let mut grants = self.cfg.headers_per_cycle;
        let mut k = 0;
        let start = self.arb_ptr[ru] as usize;
        while grants > 0 && k < n_in && self.waiting[ru] != 0 {
            let li = (start + k) % n_in;
            k += 1;
            let st = self.ivc[base + li];
            if st.state != state::WAIT || !eligible(&st) {
                continue;
            }
            grants -= 1;
            self.arb_ptr[ru] = ((li + 1) % n_in) as u16;
            self.counters.arbiter_grants += 1;
            let f = self.buf[(base + li) * depth + st.head as usize];
            let dst = packets.get(f.pid).dst;
            match self.select(r, li, dst, topo, routing) {
                Some((o, w, escape)) => {
                    self.counters.escape_allocations += escape as u64;
                    self.grant(r, li, o, w);
                }
                None => self.counters.arbiter_failures += 1,
            }
        }
    }

    /// Input lane `li` of router `r` takes output VC `(o, w)`.
    fn grant(&mut self, r: u32, li: usize, o: usize, w: usize) {
        let (p_n, l_n) = (self.ports as usize, self.lanes as usize);
        let base = r as usize * p_n * l_n;
        let ov = &mut self.out[base + o * l_n + w];
        debug_assert_eq!(ov.owner, FREE, "output lane {o}/{w} of router {r} granted twice");
        ov.owner = li as u16;
        let st = &mut self.ivc[base + li];
        st.state = state::ACTIVE;
        st.out_port = o as u8;
        st.out_vc = w as u8;
        self.waiting[r as usize] -= 1;
    }

    /// The routing function and selection policy for the header in lane `li` of router
    /// `r`: `(output port, output VC, took an escape VC)`, or None when nothing is free.
    fn select(&self, r: u32, li: usize, dst: u32, topo: &Topology, routing: &Adaptive) -> Option<(usize, usize, bool)> {
        let (p_n, l_n) = (self.ports as usize, self.lanes as usize);
        let base = r as usize * p_n * l_n;
        let (p, v) = (li / l_n, (li % l_n) as u32);
        let free = |o: usize, w: u32| self.out[base + o * l_n + w as usize].owner == FREE;
        let t = routing.dest_router(dst);
        if t == r {
            // Ejection: the node's one delivery channel (VC 0 of its local port).
            let o = routing.dest_port(dst) as usize;
            return free(o, 0).then_some((o, 0, false));
        }
        let e = routing.escape_vcs;
        let on_escape = (p as u32) < self.network_ports && v < e;
        if !on_escape {
            // Adaptive VCs on productive ports: the port with the most downstream credits.
            let mut best: Option<(usize, u32)> = None;
            let mut m = routing.productive(r, t);
            while m != 0 {
                let o = m.trailing_zeros() as usize;
                m &= m - 1;
                let lanes = &self.out[base + o * l_n..][..self.vcs as usize];
                if !lanes[e as usize..].iter().any(|ov| ov.owner == FREE) {
                    continue;
                }
                let credits: u32 = lanes[e as usize..].iter().map(|ov| ov.credits as u32).sum();
                if best.is_none_or(|(_, c)| credits > c) {
                    best = Some((o, credits));
                }
            }
            if let Some((o, _)) = best {
                let w = (e..self.vcs).find(|&w| free(o, w)).expect("a free adaptive VC");
                return Some((o, w as usize, false));
            }
            if e == 0 {
                return None;
            }
        }
        // The escape VC of the dimension-order route.
        let c = routing.escape_route(topo, r, p as u32, if on_escape { v } else { 0 }, dst);
        let o = c.port as usize;
        (c.vc_lo as u32..c.vc_hi as u32).find(|&w| free(o, w)).map(|w| (o, w as usize, true))
    }
}
