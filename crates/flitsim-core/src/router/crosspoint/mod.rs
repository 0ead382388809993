//! The SiCortex fabric switch: a crosspoint-buffered switch with source routing and VCs by
//! node order (Godiwala, Leonard and Reilly, *A Network Fabric for Scalable Multiprocessor
//! Systems*, sections 3-4; `papers/sicortex-kautz-fabric.txt`).
//!
//! A node's switch has `d` network inputs plus the local DMA input, and `d` network outputs
//! plus local delivery (4x4 on the SC5832). Behind the crossbar, one crosspoint buffer
//! `XB_ij` per input `i` and output `j` (none for local to local) holds whole packets:
//! `xb_packets` entries (16), one reserved for each VC ("each virtual channel is assigned
//! at least one entry in each crosspoint buffer for its exclusive use"), the rest shared.
//! (A packet a node sends to itself, which uniform traffic includes, loops through the
//! switch from the DMA input to local delivery; the model gives that path a buffer like
//! the others, where the SC5832 has none.)
//!
//! - **Source routing (4.1).** The packet's header carries the routing string
//!   ([`crate::topology::kautz::SourceRoute`]); at each switch the low symbol is shifted
//!   off and names the output (symbol `d` = local delivery). The source switch builds the
//!   string and the starting VC when the packet leaves the DMA queue
//!   ([`SourceRouting::route_string`]).
//! - **VCs by node order (4.2).** A packet arriving at `Y` from `X`, bound for `Z`, moves
//!   down one VC if `Y > X` and `Y > Z`.
//! - **Buffer allocation by the transmitter (3.1, 3.3).** A transmitter sends a packet
//!   only into an entry it has allocated in the next switch's crosspoint buffer for the
//!   packet's output there (it reads that output from the routing string) and VC; entries
//!   come back `credit_delay` cycles after the packet leaves them (the control packets'
//!   report). So an arriving packet always has its entry.
//! - **Cut-through (4).** "Typically, packets bypass the crosspoint buffers": a packet may
//!   leave on its output `xb_delay` cycles after its head arrived, while its tail is still
//!   arriving; it is buffered only while the output or the next switch's entries are busy.
//! - **Output arbitration** is per packet, round robin over the (input, VC) pairs whose
//!   oldest packet in `XB_ij` has arrived and has an entry downstream. Packets of one
//!   (input, output, VC) leave in arrival order, so a source-destination pair, which keeps
//!   one route and VC, is delivered in order.
//! - **The DMA input.** The node's endpoint fills one queue per VC (`inject_depth`
//!   flits, credit flow control, as on every router); the switch moves the packet at the
//!   front of one queue per cycle, a flit per cycle, into `XB_{local,j}` once an entry
//!   there is free.

pub mod config;
mod crossing;
mod entries;
mod family;
mod links;
mod rails;

pub use config::CrosspointConfig;
pub use links::{RetryEvent, RetryPart, RetryReport};

use crate::link::{Channels, CreditWire, Flit, InFlight};
use crate::packet::{Counters, PacketArena};
use crate::router::crossing::{CrossCredit, Crossings};
use crate::router::family::StepContext;
use crate::routing::source::SourceRouting;
use crate::stats::Collector;
use crate::topology::{Topology, NONE};
use entries::{can_take, pack, unpack, wrap, Entry, DROP, IDLE, NO_ENTRY};
use rails::Rails;

/// Switch event counts.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct CrosspointCounters {
    /// Packets that left a crosspoint buffer with no wait beyond the bypass delay.
    pub bypassed: u64,
    /// Packets that waited in a crosspoint buffer (output or next switch busy).
    pub buffered: u64,
    /// VC decrements made at nodes higher than both route neighbours.
    pub vc_decrements: u64,
    /// With retry and cut-through: packets sent on before their CRC failed, whose copy
    /// went on poisoned (section 3.2).
    pub poisoned_copies: u64,
    /// Poisoned copies (and copies voided by a failed link) dropped at a switch.
    pub copies_dropped: u64,
}

/// The crosspoint switches of a network.
#[derive(Clone, Debug)]
pub struct CrosspointRouters {
    /// Ports per switch (network ports, then the local port).
    pub ports: u32,
    /// VCs.
    pub vcs: u32,
    /// Entries per crosspoint buffer.
    pub cap: u32,
    /// Flits per VC of the DMA queue.
    pub inject_depth: u32,
    cfg: CrosspointConfig,
    local: usize,
    /// Shared entries per crosspoint buffer.
    shared_cap: u8,
    /// `[xb * cap + e]`, `xb = (r * P + i) * P + j`.
    entries: Vec<Entry>,
    /// Per crosspoint buffer: free entries as a bit mask.
    free: Vec<u32>,
    /// Per (xb, VC): entries in use; per xb: shared entries in use.
    used: Vec<u8>,
    shared: Vec<u8>,
    /// Per (xb, VC): FIFO of entry ids (capacity `cap`).
    fifo: Vec<u8>,
    fifo_head: Vec<u8>,
    fifo_len: Vec<u8>,
    /// Per (router, input): the entry the arriving packet fills ([`pack`]ed with its
    /// output), or [`NO_ENTRY`].
    receiving: Vec<u16>,
    /// Transmitter's view of the next switch: per (router, output j, next output, VC)
    /// entries allocated there; per (router, j, next output) shared ones.
    down_used: Vec<u8>,
    down_shared: Vec<u8>,
    /// Per (router, output): the (input, entry) streaming out, [`pack`]ed, or [`IDLE`].
    out_busy: Vec<u16>,
    /// Per (router, output): round-robin pointer over (input, VC).
    rr: Vec<u16>,
    /// Per (router, output): the (input, VC) pairs `i * vcs + v` whose queue for it is
    /// not empty (at most 64 pairs: validated), so that arbitration visits only those and
    /// an output with none skips it.
    nonempty: Vec<u64>,
    /// DMA queues per (router, VC): flits, head, length.
    inj: Vec<Flit>,
    inj_head: Vec<u16>,
    inj_len: Vec<u16>,
    /// Per (router, VC): the local crosspoint entry (output `j`, entry `e`, [`pack`]ed)
    /// being filled, or [`IDLE`] (or [`DROP`]).
    inj_fill: Vec<u16>,
    /// Per router: round-robin pointer over the DMA queues.
    inj_rr: Vec<u8>,
    /// Per (router, input, output, VC): entry releases not yet reported upstream; per
    /// (router, input) how many. A credit wire carries one report per cycle.
    releases: Vec<u8>,
    release_count: Vec<u16>,
    wiring: Vec<super::wiring::Wiring>,
    /// Per router: flits held (crosspoint buffers and DMA queues).
    held: Vec<u32>,
    /// Per router: flits and credits travelling to it.
    pending: Vec<u32>,
    /// Per router: outputs streaming or allocations outstanding.
    active: Vec<u32>,
    /// Link-level retry on the network links ([`links`]), when configured.
    retry: Option<links::Links>,
    /// Multi-rail: each pair's disjoint routes as (routing string, starting VC), computed
    /// when the pair first sends (a lookup table, never iterated).
    rails: Option<Rails>,
    /// Event counts.
    pub counters: CrosspointCounters,
    /// The switches this structure steps, `[lo, hi)`: all of them unless partitioned.
    span: (u32, u32),
    /// Flits and entry credits for other partitions.
    crossing: Crossings,
}

impl CrosspointCounters {
    /// Add another partition's counts.
    pub fn merge(&mut self, o: &CrosspointCounters) {
        self.bypassed += o.bypassed;
        self.buffered += o.buffered;
        self.vc_decrements += o.vc_decrements;
        self.poisoned_copies += o.poisoned_copies;
        self.copies_dropped += o.copies_dropped;
    }
}

impl CrosspointRouters {
    /// Build for `topo` over `ch`.
    pub fn new(cfg: &CrosspointConfig, topo: &Topology, ch: &Channels) -> Self {
        let (r_n, p_n) = (topo.num_routers as usize, topo.ports as usize);
        let v_n = cfg.vcs as usize;
        let cap = cfg.xb_packets as usize;
        let xbs = r_n * p_n * p_n;
        let wiring = super::wiring::build(topo, ch, cfg.output_delay);
        CrosspointRouters {
            ports: p_n as u32,
            vcs: cfg.vcs,
            cap: cfg.xb_packets,
            inject_depth: cfg.inject_depth,
            cfg: cfg.clone(),
            local: topo.net_ports as usize,
            shared_cap: (cfg.xb_packets - cfg.vcs) as u8,
            entries: vec![Entry::default(); xbs * cap],
            free: vec![if cap == 32 { u32::MAX } else { (1u32 << cap) - 1 }; xbs],
            used: vec![0; xbs * v_n],
            shared: vec![0; xbs],
            fifo: vec![0; xbs * v_n * cap],
            fifo_head: vec![0; xbs * v_n],
            fifo_len: vec![0; xbs * v_n],
            receiving: vec![NO_ENTRY; r_n * p_n],
            down_used: vec![0; r_n * p_n * p_n * v_n],
            down_shared: vec![0; r_n * p_n * p_n],
            out_busy: vec![IDLE; r_n * p_n],
            rr: vec![0; r_n * p_n],
            nonempty: vec![0; r_n * p_n],
            inj: vec![Flit::default(); r_n * v_n * cfg.inject_depth as usize],
            inj_head: vec![0; r_n * v_n],
            inj_len: vec![0; r_n * v_n],
            inj_fill: vec![IDLE; r_n * v_n],
            inj_rr: vec![0; r_n],
            releases: vec![0; r_n * p_n * p_n * v_n],
            release_count: vec![0; r_n * p_n],
            wiring,
            held: vec![0; r_n],
            pending: vec![0; r_n],
            active: vec![0; r_n],
            retry: None,
            rails: None,
            counters: CrosspointCounters::default(),
            span: (0, r_n as u32),
            crossing: Crossings::default(),
        }
    }

    #[inline]
    fn xb(&self, r: usize, i: usize, j: usize) -> usize {
        (r * self.ports as usize + i) * self.ports as usize + j
    }

    /// Flits in the DMA queue of `(r, v)` (`p` is the local port); network inputs hold
    /// nothing of their own (arrivals go straight to a crosspoint buffer).
    pub fn input_len(&self, r: u32, p: u32, v: u32) -> u32 {
        if p as usize == self.local {
            u32::from(self.inj_len[r as usize * self.vcs as usize + v as usize])
        } else {
            0
        }
    }

    /// The flits held in the crosspoint buffers of network input `i` of switch `r` (the
    /// packets' flits arrived and not yet sent on), and whether one of those buffers
    /// has no entry left that some VC may take.
    pub fn row_load(&self, r: u32, i: u32) -> (u32, bool) {
        let (cap, v_n) = (self.cap as usize, self.vcs as usize);
        let (mut flits, mut full) = (0u32, false);
        for j in 0..self.ports as usize {
            let xb = self.xb(r as usize, i as usize, j);
            let mut in_use = !self.free[xb] & if cap == 32 { u32::MAX } else { (1u32 << cap) - 1 };
            while in_use != 0 {
                let e = &self.entries[xb * cap + in_use.trailing_zeros() as usize];
                flits += u32::from(e.arrived.saturating_sub(e.sent));
                in_use &= in_use - 1;
            }
            let vcs = &self.used[xb * v_n..][..v_n];
            full |= vcs.iter().any(|&u| !can_take(u, self.shared[xb], self.shared_cap));
        }
        (flits, full)
    }

    /// Front flit of the DMA queue of `(r, v)` (`p` the local port).
    pub fn input_front(&self, r: u32, p: u32, v: u32) -> Option<Flit> {
        let q = r as usize * self.vcs as usize + v as usize;
        (p as usize == self.local && self.inj_len[q] > 0).then(|| self.inj[q * self.inject_depth as usize + self.inj_head[q] as usize])
    }

    /// Flits held in every switch (crosspoint buffers and DMA queues).
    pub fn total_buffered(&self) -> u64 {
        self.held.iter().map(|&h| u64::from(h)).sum::<u64>() + self.retry.as_ref().map_or(0, |l| l.in_links)
    }

    /// An endpoint sent a flit to router `r`.
    #[inline]
    pub fn flit_sent_to(&mut self, r: u32) {
        self.pending[r as usize] += 1;
    }

    /// Every crosspoint buffer within its capacity, with no VC beyond its reserved entry
    /// and the shared ones; a description of the first violation.
    pub fn check_entries(&self) -> Option<String> {
        let v_n = self.vcs as usize;
        for xb in 0..self.free.len() {
            let in_use = self.cap - self.free[xb].count_ones();
            let by_vc: u32 = self.used[xb * v_n..][..v_n].iter().map(|&u| u32::from(u)).sum();
            let over: u32 = self.used[xb * v_n..][..v_n].iter().map(|&u| u32::from(u.saturating_sub(1))).sum();
            if in_use != by_vc || over != u32::from(self.shared[xb]) || self.shared[xb] > self.shared_cap {
                return Some(format!(
                    "crosspoint buffer {xb}: {in_use} entries in use, {by_vc} by VC, {} shared of {}",
                    self.shared[xb], self.shared_cap
                ));
            }
        }
        None
    }

    #[inline]
    fn busy(&self, r: usize) -> bool {
        self.held[r] | self.pending[r] | self.active[r] != 0
    }

    /// Advance every switch with work by one cycle.
    pub fn step_all(&mut self, cx: &mut StepContext<'_>, routing: &SourceRouting) {
        let (now, topo) = (cx.now, cx.topo);
        let (ch, packets, stats, ctr) = (&mut *cx.ch, &mut *cx.packets, &mut *cx.stats, &mut *cx.ctr);
        let retry = self.retry.is_some();
        if retry {
            self.step_links(now, topo, routing, packets, stats, ctr);
        }
        for r in self.span.0..self.span.1 {
            if retry || self.busy(r as usize) {
                self.step(r, now, topo, routing, ch, packets, stats, ctr);
            }
        }
    }

    /// Take an entry of crosspoint buffer `xb` for VC `v`; None if none may be taken.
    fn take_entry(&mut self, xb: usize, v: usize) -> Option<usize> {
        let v_n = self.vcs as usize;
        let u = self.used[xb * v_n + v];
        if !can_take(u, self.shared[xb], self.shared_cap) || self.free[xb] == 0 {
            return None;
        }
        let e = self.free[xb].trailing_zeros() as usize;
        self.free[xb] &= !(1 << e);
        if u >= 1 {
            self.shared[xb] += 1;
        }
        self.used[xb * v_n + v] = u + 1;
        let q = xb * v_n + v;
        let cap = self.cap as usize;
        let slot = wrap(self.fifo_head[q] as usize + self.fifo_len[q] as usize, cap);
        self.fifo[q * cap + slot] = e as u8;
        self.fifo_len[q] += 1;
        self.mark_nonempty(xb, v);
        Some(e)
    }

    fn release_entry(&mut self, xb: usize, e: usize, v: usize) {
        let v_n = self.vcs as usize;
        self.free[xb] |= 1 << e;
        let u = self.used[xb * v_n + v];
        if u > 1 {
            self.shared[xb] -= 1;
        }
        self.used[xb * v_n + v] = u - 1;
    }

    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        r: u32,
        now: u64,
        _topo: &Topology,
        routing: &SourceRouting,
        ch: &mut Channels,
        packets: &mut PacketArena,
        stats: &mut Collector,
        ctr: &mut Counters,
    ) {
        let (p_n, v_n, cap) = (self.ports as usize, self.vcs as usize, self.cap as usize);
        let ru = r as usize;
        let wbase = ru * p_n;
        let local = self.local;
        let now32 = now as u32;
        // 1. Receive flits (into crosspoint buffers, or the DMA queues) and entry credits.
        for p in 0..p_n {
            let w = self.wiring[wbase + p];
            if let Some(c) = ch.credits.take_in(w.out_credits, now) {
                self.pending[ru] -= 1;
                if p != local {
                    let (jn, v) = ((c.vc() / 16) as usize, (c.vc() % 16) as usize);
                    let k = (wbase + p) * p_n + jn;
                    let u = self.down_used[k * v_n + v];
                    if u > 1 {
                        self.down_shared[k] -= 1;
                    }
                    self.down_used[k * v_n + v] = u - 1;
                    self.active[ru] -= 1;
                }
            }
            let Some(a) = ch.flits.take_in(w.in_flits, now) else { continue };
            self.pending[ru] -= 1;
            self.held[ru] += 1;
            let v = a.vc as usize;
            if p == local {
                let q = ru * v_n + v;
                let depth = self.inject_depth as usize;
                let slot = (self.inj_head[q] as usize + self.inj_len[q] as usize) % depth;
                self.inj[q * depth + slot] = a.flit;
                self.inj_len[q] += 1;
                continue;
            }
            if a.flit.is_head() {
                let route = packets.get(a.flit.pid).route;
                let (j, e) = self.arrive_head(r, p, v, a.flit, 1, now, routing, route);
                let ent = self.entries[self.xb(ru, p, j) * cap + e];
                let pkt = packets.get_mut(a.flit.pid);
                pkt.route = ent.route;
                pkt.hops += 1;
                if j != local {
                    self.counters.vc_decrements += u64::from(ent.in_vc - ent.out_vc);
                }
                if !a.flit.is_tail() {
                    self.receiving[wbase + p] = pack(j, e);
                }
            } else {
                let (j, e) = unpack(self.receiving[wbase + p]);
                let xb = self.xb(ru, p, j);
                self.entries[xb * cap + e].arrived += 1;
                if a.flit.is_tail() {
                    self.receiving[wbase + p] = NO_ENTRY;
                }
            }
        }
        // 2. The DMA queues feed the local crosspoint buffers: one flit per cycle.
        self.feed_local(r, now, routing, ch, packets, ctr);
        // 3. Outputs: stream the packet in progress, or grant one.
        let mut moved = 0u64;
        for j in 0..p_n {
            if self.out_busy[wbase + j] == IDLE && (self.nonempty[wbase + j] == 0 || !self.grant(r, j, now, packets, ctr)) {
                continue;
            }
            let (i, e) = unpack(self.out_busy[wbase + j]);
            let xb = self.xb(ru, i, j);
            let ent = self.entries[xb * cap + e];
            if ent.sent >= ent.arrived || (now32.wrapping_sub(ent.ready) as i32) < 0 {
                continue; // cut through: the next flit has not arrived yet
            }
            let f = Flit { pid: ent.pid, idx: ent.sent, last: ent.last };
            self.entries[xb * cap + e].sent += 1;
            self.held[ru] -= 1;
            let w = self.wiring[wbase + j];
            let arrive = now + u64::from(w.flit_delay);
            let entry = InFlight::new(arrive, f, ent.out_vc);
            if w.cross_out {
                self.crossing.send_flit(w.out_flits, w.down_router, w.down_port, arrive, entry, packets);
            } else {
                ch.flits.push_in(w.out_flits, arrive, entry);
                if w.down_router != NONE {
                    self.pending[w.down_router as usize] += 1;
                }
            }
            stats.on_channel_flit(wbase + j, u32::from(ent.out_vc), now);
            moved += 1;
            if f.is_tail() {
                self.out_busy[wbase + j] = IDLE;
                self.active[ru] -= 1;
                self.release_entry(xb, e, ent.in_vc as usize);
                if i != local {
                    // The entry's release is reported upstream (step 4).
                    self.releases[((wbase + i) * p_n + j) * v_n + ent.in_vc as usize] += 1;
                    self.release_count[wbase + i] += 1;
                    self.active[ru] += 1;
                }
            }
        }
        // 4. Report one released entry per input link and cycle to the transmitter.
        for i in 0..self.local {
            if self.release_count[wbase + i] == 0 {
                continue;
            }
            let base = (wbase + i) * p_n * v_n;
            let k = self.releases[base..base + p_n * v_n].iter().position(|&n| n > 0).expect("a release to report");
            self.releases[base + k] -= 1;
            self.release_count[wbase + i] -= 1;
            self.active[ru] -= 1;
            let (j, v) = (k / v_n, k % v_n);
            let wi = self.wiring[wbase + i];
            let at = now + u64::from(self.cfg.credit_delay);
            let credit = CreditWire::new(at, (j * 16 + v) as u32);
            if wi.cross_in {
                self.crossing.credits.push(CrossCredit {
                    arrive: at,
                    ring: wi.in_credits,
                    row: wi.up_router,
                    port: wi.up_port,
                    entry: credit,
                });
            } else {
                ch.credits.push_in(wi.in_credits, at, credit);
                if wi.up_router != NONE {
                    self.pending[wi.up_router as usize] += 1;
                }
            }
        }
        if moved != 0 {
            ctr.flit_traversals += moved;
            ctr.last_progress = now;
        }
    }

    /// A packet's head (`arrived` of its flits) arrives on network input `p` of router
    /// `r` in VC `v` with routing string `route`: it shifts the string (the rest goes with
    /// the entry), takes its VC for the next link and the crosspoint entry its
    /// transmitter allocated. Returns (output, entry). The packet's own record is not
    /// touched: with cut-through a copy may turn out poisoned.
    #[allow(clippy::too_many_arguments)]
    fn arrive_head(
        &mut self,
        r: u32,
        p: usize,
        v: usize,
        head: Flit,
        arrived: u16,
        now: u64,
        routing: &SourceRouting,
        mut route: u64,
    ) -> (usize, usize) {
        let (j, down_out) = routing.shift(&mut route);
        let out_vc = if j == self.local { v } else { v.saturating_sub(routing.decrements_at(r, p as u32, j as u32) as usize) };
        let xb = self.xb(r as usize, p, j);
        let e = self.take_entry(xb, v).expect("the transmitter allocated this crosspoint entry");
        let ready = (now as u32).wrapping_add(self.cfg.xb_delay);
        self.entries[xb * self.cap as usize + e] = Entry {
            pid: head.pid,
            arrived,
            sent: 0,
            last: head.last,
            in_vc: v as u8,
            out_vc: out_vc as u8,
            down_out: down_out as u8,
            ready,
            route,
            ghost: false,
            own: false,
        };
        (j, e)
    }

    /// Free entry `e` of crosspoint buffer (`r`, network input `i`, output `j`) and
    /// report it to the transmitter upstream.
    fn free_entry(&mut self, r: usize, i: usize, j: usize, e: usize) {
        let (p_n, v_n) = (self.ports as usize, self.vcs as usize);
        let xb = self.xb(r, i, j);
        let v = self.entries[xb * self.cap as usize + e].in_vc as usize;
        self.release_entry(xb, e, v);
        self.releases[((r * p_n + i) * p_n + j) * v_n + v] += 1;
        self.release_count[r * p_n + i] += 1;
        self.active[r] += 1;
    }

    /// Put entry `e` of crosspoint buffer `xb` back at the front of its VC's queue: a
    /// packet sent on early that turned out poisoned waits there for its good copy (it
    /// was the oldest of its input and VC; nothing from its link arrived behind it).
    fn requeue_front(&mut self, xb: usize, e: usize) {
        let (v_n, cap) = (self.vcs as usize, self.cap as usize);
        let q = xb * v_n + self.entries[xb * cap + e].in_vc as usize;
        self.fifo_head[q] = wrap(self.fifo_head[q] as usize + cap - 1, cap) as u8;
        self.fifo[q * cap + self.fifo_head[q] as usize] = e as u8;
        self.fifo_len[q] += 1;
        self.mark_nonempty(xb, self.entries[xb * cap + e].in_vc as usize);
    }

    /// One entry leaves queue `q`, that of pair `c` for output `o` (a (router, output)).
    #[inline]
    fn take_from_queue(&mut self, q: usize, o: usize, c: usize) {
        self.fifo_len[q] -= 1;
        if self.fifo_len[q] == 0 {
            self.nonempty[o] &= !(1 << c);
        }
    }

    /// Crosspoint buffer `xb`'s queue of VC `v` holds an entry: its (input, VC) pair may
    /// be granted its output.
    #[inline]
    fn mark_nonempty(&mut self, xb: usize, v: usize) {
        let p_n = self.ports as usize;
        let c = (xb / p_n % p_n) * self.vcs as usize + v;
        let o = self.out_of(xb);
        self.nonempty[o] |= 1 << c;
    }

    /// The (router, output) index of crosspoint buffer `xb`.
    #[inline]
    fn out_of(&self, xb: usize) -> usize {
        let p_n = self.ports as usize;
        (xb / (p_n * p_n)) * p_n + xb % p_n
    }

    /// Output `j` of router `r` is idle: grant the next (input, VC) whose oldest packet
    /// may leave (round robin). True if one was granted. Behind a failed retry link
    /// (`[[faults.at]]`), and at the local output of a failed node, whole packets are
    /// discarded instead, and counted lost.
    fn grant(&mut self, r: u32, j: usize, now: u64, packets: &mut PacketArena, ctr: &mut Counters) -> bool {
        let (p_n, v_n, cap) = (self.ports as usize, self.vcs as usize, self.cap as usize);
        let ru = r as usize;
        let wbase = ru * p_n;
        let n = p_n * v_n;
        let start = self.rr[wbase + j] as usize;
        // The (input, VC) pairs with a queue for this output, in turn from the pointer on
        // (this loop is the switch's hottest: it visits only the non-empty queues). Set
        // bits from the pointer up, then those below it; the loop clears at most the bit
        // it visits, so the two sets taken at the start are the ones it would see.
        let at = wbase + j;
        let set = self.nonempty[at];
        let from_ptr = set & (u64::MAX << start);
        let (mut rest, mut below) = (from_ptr, set & !from_ptr);
        loop {
            if rest == 0 {
                if below == 0 {
                    break;
                }
                (rest, below) = (below, 0);
            }
            let c = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let (i, v) = (c / v_n, c % v_n);
            let xb = self.xb(ru, i, j);
            let q = xb * v_n + v;
            debug_assert!(self.fifo_len[q] != 0, "a non-empty mark on an empty queue");
            let e = self.fifo[q * cap + self.fifo_head[q] as usize] as usize;
            let ent = self.entries[xb * cap + e];
            if ((now as u32).wrapping_sub(ent.ready) as i32) < 0 {
                continue;
            }
            let via_link = j != self.local && self.retry.is_some();
            if ent.ghost {
                // A poisoned copy: dropped once whole (its entry reported free upstream).
                if ent.arrived > ent.last {
                    self.fifo_head[q] = wrap(self.fifo_head[q] as usize + 1, cap) as u8;
                    self.take_from_queue(q, at, c);
                    if ent.own {
                        packets.release(ent.pid);
                    }
                    self.free_entry(ru, i, j, e);
                    self.counters.copies_dropped += 1;
                    ctr.last_progress = now;
                }
                continue;
            }
            // Arrived over a retry link and not checked yet (cut-through): it may go on
            // over the next link, but the node takes only checked packets.
            let unchecked = i != self.local && self.retry.is_some() && ent.arrived <= ent.last;
            if unchecked && (!via_link || ent.arrived == 0) {
                continue;
            }
            // Its routing string (built before the link failed) crosses the dead link, or
            // its node died before delivering it.
            let dead = ent.arrived > ent.last
                && self.retry.as_ref().is_some_and(|l| if via_link { l.is_failed(r, j) } else { j == self.local && l.is_dead(r, now) });
            if dead {
                self.fifo_head[q] = wrap(self.fifo_head[q] as usize + 1, cap) as u8;
                self.take_from_queue(q, at, c);
                self.held[ru] -= u32::from(ent.last) + 1;
                self.release_entry(xb, e, ent.in_vc as usize);
                if i != self.local {
                    self.releases[((wbase + i) * p_n + j) * v_n + ent.in_vc as usize] += 1;
                    self.release_count[wbase + i] += 1;
                    self.active[ru] += 1;
                }
                let links = self.retry.as_mut().expect("links");
                if via_link {
                    links.lose_at_failed(ent.pid, ent.last + 1, packets, ctr);
                } else {
                    links.lose_at_dead(ent.pid, ent.last + 1, packets, ctr);
                }
                ctr.last_progress = now;
                continue;
            }
            if via_link && ((ent.arrived <= ent.last && !unchecked) || !self.retry.as_ref().expect("links").can_accept(r, j)) {
                continue; // a retry link takes a whole packet (or one arriving, with cut-through), when its transmitter is free
            }
            if j != self.local {
                // An entry in the next switch's buffer for this packet's output there.
                let k = (wbase + j) * p_n + ent.down_out as usize;
                let u = self.down_used[k * v_n + ent.out_vc as usize];
                if !can_take(u, self.down_shared[k], self.shared_cap) {
                    continue;
                }
                if u >= 1 {
                    self.down_shared[k] += 1;
                }
                self.down_used[k * v_n + ent.out_vc as usize] = u + 1;
                self.active[ru] += 1; // until its credit comes back
            }
            self.fifo_head[q] = wrap(self.fifo_head[q] as usize + 1, cap) as u8;
            self.take_from_queue(q, at, c);
            self.rr[wbase + j] = ((c + 1) % n) as u16;
            if now as u32 == ent.ready {
                self.counters.bypassed += 1;
            } else {
                self.counters.buffered += 1;
            }
            if via_link && unchecked {
                // Cut through: into the link's replay buffer now; the entry stays until
                // the tail arrives and is checked (`Links::step_links`).
                self.retry.as_mut().expect("links").push(r, j, ent.pid, ent.last + 1, ent.out_vc, ent.route, Some(i), packets);
                return false;
            }
            if via_link {
                // The whole packet goes into the link's replay buffer; its entry is free.
                self.retry.as_mut().expect("links").push(r, j, ent.pid, ent.last + 1, ent.out_vc, ent.route, None, packets);
                self.held[ru] -= u32::from(ent.last) + 1;
                self.release_entry(xb, e, ent.in_vc as usize);
                if i != self.local {
                    self.releases[((wbase + i) * p_n + j) * v_n + ent.in_vc as usize] += 1;
                    self.release_count[wbase + i] += 1;
                    self.active[ru] += 1;
                }
                return false;
            }
            self.out_busy[wbase + j] = pack(i, e);
            self.active[ru] += 1;
            return true;
        }
        false
    }

    /// Move one flit from a DMA queue into its local crosspoint entry (taking the entry
    /// when a packet's head is at the front). A packet whose node has failed, or whose
    /// destination the routes no longer reach (it failed during the run), is discarded
    /// flit by flit instead and counted lost with its tail.
    fn feed_local(&mut self, r: u32, now: u64, routing: &SourceRouting, ch: &mut Channels, packets: &mut PacketArena, ctr: &mut Counters) {
        let (v_n, cap) = (self.vcs as usize, self.cap as usize);
        let ru = r as usize;
        let depth = self.inject_depth as usize;
        let local = self.local;
        let start = self.inj_rr[ru] as usize;
        for k in 0..v_n {
            let v = if start + k < v_n { start + k } else { start + k - v_n };
            let q = ru * v_n + v;
            if self.inj_len[q] == 0 {
                continue;
            }
            let f = self.inj[q * depth + self.inj_head[q] as usize];
            if self.inj_fill[q] == IDLE && self.retry.is_some() {
                let pkt = packets.get(f.pid);
                if self.retry.as_ref().is_some_and(|l| l.is_dead(r, now))
                    || (pkt.src != pkt.dst && routing.next_port(pkt.src, pkt.dst).is_none())
                {
                    self.inj_fill[q] = DROP;
                }
            }
            if self.inj_fill[q] == DROP {
                // Each flit is lost as it is dropped; the packet with its tail.
                self.held[ru] -= 1;
                ctr.flits_lost += 1;
                if f.is_tail() {
                    self.inj_fill[q] = IDLE;
                    self.retry.as_mut().expect("checked above").lose_at_dead(f.pid, 0, packets, ctr);
                    ctr.last_progress = now;
                }
            } else {
                let (xb, e) = if self.inj_fill[q] == IDLE {
                    debug_assert!(f.is_head(), "a DMA queue's front is not a head");
                    let pkt = packets.get_mut(f.pid);
                    let (bits, vc) = if routing.rails() > 1 {
                        let rails = self.rails.get_or_insert_with(|| Rails::new(routing));
                        rails.pick(routing, pkt.src, pkt.dst, pkt.seq)
                    } else {
                        routing.route_string(pkt.src, pkt.dst)
                    };
                    pkt.route = bits;
                    let (j, down_out) = routing.shift(&mut pkt.route);
                    let route = pkt.route;
                    let xb = self.xb(ru, local, j);
                    let Some(e) = self.take_entry(xb, vc as usize) else { continue };
                    self.entries[xb * cap + e] = Entry {
                        pid: f.pid,
                        arrived: 0,
                        sent: 0,
                        last: f.last,
                        in_vc: vc as u8,
                        out_vc: vc as u8,
                        down_out: down_out as u8,
                        ready: (now as u32).wrapping_add(self.cfg.xb_delay),
                        route,
                        ghost: false,
                        own: false,
                    };
                    self.inj_fill[q] = pack(j, e);
                    (xb, e)
                } else {
                    let (j, e) = unpack(self.inj_fill[q]);
                    (self.xb(ru, local, j), e)
                };
                self.entries[xb * cap + e].arrived += 1;
                if f.is_tail() {
                    self.inj_fill[q] = IDLE;
                }
            }
            self.inj_head[q] = ((self.inj_head[q] as usize + 1) % depth) as u16;
            self.inj_len[q] -= 1;
            // The freed DMA slot's credit goes back to the endpoint.
            let w = self.wiring[ru * self.ports as usize + local];
            let at = now + u64::from(self.cfg.credit_delay);
            ch.credits.push_in(w.in_credits, at, CreditWire::new(at, v as u32));
            self.inj_rr[ru] = ((v + 1) % v_n) as u8;
            return;
        }
    }
}
