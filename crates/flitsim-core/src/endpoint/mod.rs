//! Endpoints (NIC + node): the source queue, packetization into flits, injection with
//! credits for the router's injection-port buffers, and ejection with reassembly.
//!
//! Each cycle an endpoint (1) takes back credits, (2) receives flits from its ejection
//! channel and completes packets whose tail arrived, (3) asks the workload whether a
//! packet is created this cycle (appending it to the unbounded source queue, so offered
//! load is never throttled by the network), and (4) sends at most one flit of the packet
//! at the head of its source queue. A packet is sent whole before the next one starts;
//! its VC is chosen when its head goes (round robin among the VCs the flow control lets
//! it claim). With message-level traffic a creation queues all the packets of a message,
//! and the receiver reassembles them ([`reassembly`]).

pub mod dispersion;
pub mod reassembly;
mod wake;

use std::collections::VecDeque;

use crate::flow::FlowControl;
use crate::link::{Channels, Flit, InFlight, Ring};
use crate::packet::{Counters, Packet, PacketArena};
use crate::rng::{self, SimRng};
use crate::router::{RouterFamily, Routers};
use crate::stats::{Collector, Delivered};
use crate::topology::Topology;
use crate::traffic::trace::{Cursor, Totals};
use crate::traffic::{SourceState, Workload};

/// Per-endpoint state, kept together (one record per endpoint per cycle).
#[derive(Clone, Debug)]
struct Nic {
    /// Injection channel (NIC to router).
    inj: u32,
    /// Its flit and credit rings.
    inj_flits: Ring,
    inj_credits: Ring,
    /// The ejection channel's (router to NIC) flit ring.
    ej_flits: Ring,
    /// Router the injection channel enters, and its input port there.
    router: u32,
    port: u32,
    /// Injection channel latency.
    inj_latency: u32,
    /// Flits already sent of the packet at the head of the source queue.
    sent: u32,
    /// VC of the packet being sent.
    cur_vc: u8,
    /// Round-robin pointer for the next head's VC.
    vc_ptr: u8,
    /// Source queue (packet ids), unbounded.
    queue: VecDeque<u32>,
    /// Probes and replies in `queue` (not traffic: the source queue's bound counts only
    /// the packets of the workload).
    control: u32,
    src_state: SourceState,
    rng: SimRng,
    /// Flow control stopped the packet being sent (adaptive dispersion senses it).
    blocked: bool,
    /// This cycle's head and finished packet (packet id, blocked), for the dispersion
    /// step after it.
    started: Option<u32>,
    finished: Option<(u32, bool)>,
    /// Adaptive and probing dispersion: the current route per destination.
    routes: dispersion::NicRoutes,
    /// Trace replay (`traffic.trace`): this endpoint's next message and what it waits
    /// for.
    trace: Cursor,
}

/// How endpoints pick the VC of a packet's head (the same for all).
#[derive(Clone, Copy, Debug)]
struct Sending {
    /// Injection VC range `[vc_lo, vc_hi)`.
    vc_lo: u32,
    vc_hi: u32,
    flow: FlowControl,
}

/// Whether sources may start a new packet this cycle: the throttling hook of
/// [`crate::congestion`]. A throttled source keeps creating packets into its queue and
/// finishes a packet it has started; it only holds back the next head.
#[derive(Clone, Copy, Debug)]
pub enum Throttle<'a> {
    /// No throttling.
    Open,
    /// Global decision (static or self-tuned threshold): `true` = every source holds.
    Global(bool),
    /// At-least-one (ALO): each source asks its router about the packet's useful ports.
    Alo(&'a crate::routing::adaptive::Adaptive, crate::congestion::AloFree),
    /// Per-router decision (metapacket gather: each router has its own estimate):
    /// `true` = the router's sources hold.
    PerRouter(&'a [bool]),
}

/// Networks up to this many endpoints count packets delivered out of order per
/// source-destination pair (`counters.packets_reordered`; an N x N table).
pub const ORDER_CHECK_NODES: u32 = 2048;

/// All endpoints of a network.
#[derive(Clone, Debug)]
pub struct Endpoints {
    /// Number of endpoints.
    pub n: u32,
    vcs: u32,
    vc_lo: u32,
    vc_hi: u32,
    flow: FlowControl,
    nics: Vec<Nic>,
    /// Credits for the injection port's VC buffers, `[node * vcs + vc]`.
    pub credits: Vec<u32>,
    /// Flits ejected per traffic phase (all cycles).
    pub phase_flits: Vec<u64>,
    /// Per (destination, source): one more than the newest sequence number delivered
    /// (empty above [`ORDER_CHECK_NODES`] endpoints).
    order: Vec<u32>,
    /// Message-level traffic: the receivers' reassembly and the message totals.
    pub reassembly: Option<reassembly::Reassembly>,
    /// Trace replay: the messages this structure's endpoints created and completed.
    pub trace: Totals,
    /// Adaptive and probing dispersion: what the NICs did.
    pub dispersion: dispersion::DispersionCounters,
    /// A probe's zero-load latency: `base + per_hop h` cycles over `h` switch-to-switch
    /// hops, of which `start` before it is routed at the source switch (see
    /// [`Endpoints::set_probe_timing`]).
    probe_timing: (u64, u64, u64),
    /// Probes that reached their destination this cycle (reused buffer).
    probe_arrivals: Vec<ProbeArrival>,
    /// The endpoints this structure steps, `[lo, hi)`: all, or one partition's
    /// ([`crate::sim::parallel`]); the others' state stays here unused.
    own: (u32, u32),
    /// Refused packets of endpoints stepped by other processes, added at the end of a
    /// run across processes ([`Endpoints::add_totals`]).
    unroutable_elsewhere: (u64, u64),
    /// Which endpoints have work, when the routers keep their due set ([`wake`]).
    wakes: wake::Wakes,
}

/// What a set of endpoints adds up at the end of a partitioned run
/// ([`Endpoints::nic_totals`]): message reassembly, dispersion and trace replay.
pub type NicTotals = (Option<reassembly::ReassemblyPart>, dispersion::DispersionCounters, Totals);

/// A probe packet reached its destination.
#[derive(Clone, Copy, Debug)]
struct ProbeArrival {
    src: u32,
    dst: u32,
    route: u32,
    latency: u64,
    hops: u32,
    now: u64,
}

/// What the NICs need of the network to pick source routes (adaptive dispersion).
#[derive(Clone, Copy)]
pub struct NicView<'a> {
    /// The routing function.
    pub routing: &'a crate::routing::RoutingFunction,
    /// The dispersive route selection, if the NICs disperse.
    pub dispersion: Option<&'a dispersion::DispersionParams>,
}

impl Endpoints {
    /// Build endpoints for `topo`; `depth` is the router input buffer depth (the initial
    /// credits: [`crate::flow::GO_CREDITS`] with STOP/GO).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        topo: &Topology,
        ch: &Channels,
        workload: &Workload,
        vcs: u32,
        inj_range: (u8, u8),
        depth: u32,
        flow: FlowControl,
        seed: u64,
    ) -> Self {
        let n = topo.num_nodes;
        let rp = topo.num_routers * topo.ports;
        let nics = (0..n)
            .map(|e| {
                let mut rng = rng::stream(seed, rng::domain::ENDPOINT, e as u64);
                let src_state = workload.new_source_state(e, &mut rng);
                let inj = rp + e;
                let ej = topo.router_of(e) * topo.ports + topo.local_port_of(e);
                Nic {
                    inj,
                    inj_flits: ch.flits.ring(inj as usize),
                    inj_credits: ch.credits.ring(inj as usize),
                    ej_flits: ch.flits.ring(ej as usize),
                    router: topo.router_of(e),
                    port: topo.local_port_of(e),
                    inj_latency: ch.latency[inj as usize],
                    sent: 0,
                    cur_vc: 0,
                    vc_ptr: inj_range.0,
                    queue: VecDeque::new(),
                    control: 0,
                    src_state,
                    rng,
                    blocked: false,
                    started: None,
                    finished: None,
                    routes: dispersion::NicRoutes::default(),
                    trace: workload.trace().map(|t| t.cursor(e)).unwrap_or_default(),
                }
            })
            .collect();
        let order = if n <= ORDER_CHECK_NODES { vec![0; (n * n) as usize] } else { Vec::new() };
        let reassembly = workload.message().map(|m| reassembly::Reassembly::new(n, *m));
        Endpoints {
            n,
            vcs,
            vc_lo: inj_range.0 as u32,
            vc_hi: inj_range.1 as u32,
            flow,
            nics,
            credits: vec![depth; (n * vcs) as usize],
            phase_flits: vec![0; workload.phases().len()],
            order,
            reassembly,
            trace: workload.trace().map(|t| t.totals()).unwrap_or_default(),
            dispersion: dispersion::DispersionCounters::default(),
            probe_timing: (0, 0, 0),
            probe_arrivals: Vec::new(),
            own: (0, n),
            unroutable_elsewhere: (0, 0),
            wakes: wake::Wakes::new(n),
        }
    }

    /// A probe's zero-load latency over `h` switch-to-switch hops is `base + per_hop h`,
    /// of which `start` from the NIC to its routing at the source switch. A probe timed
    /// from that routing to its arrival at more than the rest met another packet on its
    /// route (the wait behind the NIC's own data at the source switch, which every route
    /// shares, does not count); the verdict returns to the source in a reply packet.
    pub fn set_probe_timing(&mut self, base: u64, per_hop: u64, start: u64) {
        self.probe_timing = (base, per_hop, start);
    }

    /// Packets the sources did not inject because failures left the destination
    /// unreachable: `(all, of which to failed nodes)`.
    pub fn unroutable(&self) -> (u64, u64) {
        self.owned().iter().map(|nic| nic.src_state.unroutable()).fold(self.unroutable_elsewhere, |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// Add the totals of endpoints another process stepped (a run across processes):
    /// flits ejected per phase and refused packets.
    pub fn add_totals(&mut self, phase_flits: &[u64], unroutable: (u64, u64)) {
        for (a, b) in self.phase_flits.iter_mut().zip(phase_flits) {
            *a += b;
        }
        self.unroutable_elsewhere.0 += unroutable.0;
        self.unroutable_elsewhere.1 += unroutable.1;
    }

    /// Will no source create another packet (see [`Workload::exhausted`])?
    pub fn exhausted(&self, now: u64, workload: &Workload, phase: Option<usize>) -> bool {
        let lo = self.own.0 as usize;
        self.owned().iter().enumerate().all(|(e, nic)| {
            let e = (lo + e) as u32;
            match workload.trace() {
                Some(t) => phase.is_none() || !workload.alive(now, e) || t.exhausted(e, &nic.trace),
                None => workload.exhausted(now, phase, e, &nic.src_state),
            }
        })
    }

    /// Packets waiting in all source queues (including one partly sent).
    pub fn queued(&self) -> u64 {
        self.owned().iter().map(|nic| nic.queue.len() as u64).sum()
    }

    /// The endpoints this structure steps.
    fn owned(&self) -> &[Nic] {
        &self.nics[self.own.0 as usize..self.own.1 as usize]
    }

    /// Message reassembly and dispersion totals of this partition's endpoints (at the
    /// end of a partitioned run).
    pub fn nic_totals(&self) -> NicTotals {
        (self.reassembly.as_ref().map(|r| r.part(self.own)), self.dispersion, self.trace.clone())
    }

    /// Add another partition's [`Endpoints::nic_totals`].
    pub fn add_nic_totals(&mut self, (reassembly, dispersion, trace): &NicTotals) {
        if let (Some(r), Some(p)) = (self.reassembly.as_mut(), reassembly) {
            r.absorb(p);
        }
        self.dispersion.merge(dispersion);
        self.trace.merge(trace);
    }

    /// Step only endpoints `[lo, hi)` (one partition's).
    pub fn partition(&mut self, lo: u32, hi: u32) {
        self.own = (lo, hi);
    }

    /// Take over the state of the endpoints `other` steps (another partition): their
    /// NICs and injection credits, and add its per-phase flit counts (at the end of a run,
    /// so that this structure reports for the whole network).
    pub fn absorb(&mut self, other: &Endpoints) {
        self.add_nic_totals(&other.nic_totals());
        let (lo, hi) = (other.own.0 as usize, other.own.1 as usize);
        let v = self.vcs as usize;
        self.nics[lo..hi].clone_from_slice(&other.nics[lo..hi]);
        self.credits[lo * v..hi * v].copy_from_slice(&other.credits[lo * v..hi * v]);
        for (a, b) in self.phase_flits.iter_mut().zip(&other.phase_flits) {
            *a += b;
        }
        let n = self.n as usize;
        if !self.order.is_empty() {
            self.order[lo * n..hi * n].copy_from_slice(&other.order[lo * n..hi * n]);
        }
        self.own = (self.own.0.min(other.own.0), self.own.1.max(other.own.1));
        self.wakes.reset();
    }

    /// Advance every endpoint by one cycle, in endpoint order (one call per cycle, so that
    /// what every endpoint step reads is loaded once).
    #[allow(clippy::too_many_arguments)]
    pub fn step_all(
        &mut self,
        now: u64,
        phase: Option<usize>,
        workload: &Workload,
        ch: &mut Channels,
        packets: &mut PacketArena,
        stats: &mut Collector,
        ctr: &mut Counters,
        routers: &mut Routers,
        throttle: Throttle,
        view: NicView,
    ) {
        let vcs = self.vcs as usize;
        let sending = Sending { vc_lo: self.vc_lo, vc_hi: self.vc_hi, flow: self.flow };
        let n = self.n as usize;
        let disp = match view.routing {
            crate::routing::RoutingFunction::UpDown(u) => view.dispersion.map(|p| Disperse { routing: u, params: p }),
            _ => None,
        };
        let timing = self.probe_timing;
        let (lo, hi) = (self.own.0 as usize, self.own.1 as usize);
        let own = self.own;
        // Networks large enough for their routers to prefetch (state far beyond the
        // caches) prefetch the endpoints too (hints only: no result changes).
        let ahead = routers.prefetching();
        let tracked = routers.tracks_endpoints();
        let Endpoints { nics, credits, phase_flits, order, reassembly, dispersion, probe_arrivals, trace, wakes, .. } = self;
        // One endpoint's step (written once for the two loops below).
        macro_rules! step_endpoint {
            ($e:expr, $nic:expr, $credits:expr) => {{
                let (e, nic) = ($e as u32, $nic);
                let ctx = (now, phase, workload, sending, throttle);
                Self::step(
                    e,
                    nic,
                    $credits,
                    phase_flits,
                    (order, n, reassembly.as_mut(), &mut *probe_arrivals, &mut *trace),
                    ctx,
                    ch,
                    packets,
                    stats,
                    ctr,
                    routers,
                );
                if let Some(d) = &disp {
                    d.after_step(e, nic, now, packets, dispersion);
                }
            }};
        }
        if tracked {
            // Only the endpoints with work ([`wake`]), each then told when it next has
            // work of its own.
            let all = wakes.begin(now, phase, own, routers);
            let mut due = std::mem::take(&mut wakes.due);
            if all {
                due.clear();
                due.extend(lo as u32..hi as u32);
            }
            for (i, &e) in due.iter().enumerate() {
                let e = e as usize;
                if ahead {
                    prefetch_nic(nics, |k| due.get(i + k).map(|&x| x as usize), now, ch, packets);
                }
                step_endpoint!(e, &mut nics[e], &mut credits[e * vcs..(e + 1) * vcs]);
                let next = wake::next_creation(workload, now, phase, e as u32, &nics[e]);
                wakes.after(e as u32, now, !nics[e].queue.is_empty(), next, routers);
            }
            wakes.due = due;
        } else if ahead {
            for e in lo..hi {
                prefetch_nic(nics, |k| (e + k < hi).then_some(e + k), now, ch, packets);
                step_endpoint!(e, &mut nics[e], &mut credits[e * vcs..(e + 1) * vcs]);
            }
        } else {
            // (Small networks: the iterators need no bounds checks.)
            for (i, (nic, credits)) in nics[lo..hi].iter_mut().zip(credits[lo * vcs..hi * vcs].chunks_exact_mut(vcs)).enumerate() {
                step_endpoint!(lo + i, nic, credits);
            }
        }
        // Probe verdicts: unused if the probe met no other packet (zero-load latency).
        // The destination NIC (this partition's: the probe arrived there) replies with
        // a one-flit packet on its own route to the source, ahead of its next data
        // packet (after the one it is sending, if any).
        if let Some(d) = &disp {
            for a in probe_arrivals.drain(..) {
                let zero_load = timing.0 + timing.1 * a.hops as u64;
                let free = a.latency.saturating_add(timing.2) <= zero_load;
                let nic = &mut nics[a.dst as usize];
                let r = nic.routes.current(a.src).unwrap_or_else(|| d.routing.route_index(a.dst, a.src, 0) as u32);
                let route = d.routing.route_string_at(a.dst, a.src, r as u64);
                let reply = packets.alloc(Packet {
                    src: a.dst,
                    dst: a.src,
                    size: 1,
                    hops: 0,
                    create: a.now,
                    inject: 0,
                    measured: false,
                    phase: dispersion::PROBE_REPLY_PHASE,
                    seq: free as u32,
                    age: 0,
                    hop_start: a.route,
                    route,
                });
                nic.queue.insert(usize::from(nic.sent > 0).min(nic.queue.len()), reply);
                if routers.tracks_endpoints() {
                    routers.wake_endpoint(a.dst, now + 1);
                }
                nic.control += 1;
                dispersion.replies += 1;
            }
        }
    }

    /// A data flit reached endpoint `e`: throughput, and at the tail delivery, order,
    /// reassembly and the workload's bookkeeping.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn eject(
        e: u32,
        f: Flit,
        pk: &Packet,
        now: u64,
        nic: &mut Nic,
        phase_flits: &mut [u64],
        (order, n, trace): (&mut [u32], usize, &mut Totals),
        reassembly: Option<&mut reassembly::Reassembly>,
        workload: &Workload,
        packets: &mut PacketArena,
        stats: &mut Collector,
        ctr: &mut Counters,
    ) {
        stats.on_ejected_flit(pk.src, e, now);
        if let Some(c) = phase_flits.get_mut(pk.phase as usize) {
            *c += 1;
        }
        if f.is_tail() {
            debug_assert_eq!(pk.dst, e, "packet delivered to the wrong endpoint");
            if pk.measured {
                ctr.measured_delivered += 1;
                stats.on_measured_delivered(&Delivered {
                    src: pk.src,
                    dst: pk.dst,
                    size: pk.size,
                    create: pk.create,
                    inject: pk.inject,
                    arrive: now,
                    hops: pk.hops,
                });
            }
            ctr.packets_delivered += 1;
            ctr.last_delivery = now;
            // In order per source: a source numbers its packets as it creates them.
            if let Some(next) = order.get_mut(e as usize * n + pk.src as usize) {
                if pk.seq + 1 < *next {
                    ctr.packets_reordered += 1;
                } else {
                    *next = pk.seq + 1;
                }
            }
            if let Some(r) = reassembly {
                if r.packet(pk.src, e, pk.seq, pk.create, now) {
                    nic.src_state.messages_in += 1;
                }
            }
            workload.delivered(pk.phase, pk.seq as u64, &mut nic.src_state);
            if let Some(t) = workload.trace() {
                t.delivered(e, pk.src, pk.seq, pk.create, now, &mut nic.trace, trace);
            }
            packets.release(f.pid);
        }
    }

    /// Queue the packets of trace message `c` at endpoint `e`, or count it refused when
    /// failures left its destination unreachable.
    #[allow(clippy::too_many_arguments)]
    #[cold]
    fn create_message(
        e: u32,
        nic: &mut Nic,
        c: crate::traffic::trace::Creation,
        now: u64,
        ph: usize,
        workload: &Workload,
        trace: &mut Totals,
        packets: &mut PacketArena,
        stats: &mut Collector,
        ctr: &mut Counters,
    ) {
        if !workload.routable(now, e, c.dst) {
            trace.skipped += 1;
            nic.src_state.unroutable += c.packets as u64;
            if !workload.alive(now, c.dst) {
                nic.src_state.to_failed += c.packets as u64;
            }
            return;
        }
        trace.created_at(e, c.id, now);
        let measured = stats.in_window(now);
        for k in 0..c.packets {
            let size = c.flits_of(k);
            let pid = packets.alloc(Packet {
                src: e,
                dst: c.dst,
                size,
                hops: 0,
                create: now,
                inject: 0,
                measured,
                phase: ph as u32,
                seq: c.first_seq + k,
                age: 0,
                hop_start: 0,
                route: 0,
            });
            stats.on_created(e, size, now);
            nic.queue.push_back(pid);
        }
        nic.src_state.created += c.packets as u64;
        ctr.packets_created += c.packets as u64;
    }

    /// Advance endpoint `e` (state `nic`, injection credits `credits`) by one cycle.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn step(
        e: u32,
        nic: &mut Nic,
        credits: &mut [u32],
        phase_flits: &mut [u64],
        (order, n, reassembly, probes, trace): (
            &mut [u32],
            usize,
            Option<&mut reassembly::Reassembly>,
            &mut Vec<ProbeArrival>,
            &mut Totals,
        ),
        (now, phase, workload, sending, throttle): (u64, Option<usize>, &Workload, Sending, Throttle),
        ch: &mut Channels,
        packets: &mut PacketArena,
        stats: &mut Collector,
        ctr: &mut Counters,
        routers: &mut Routers,
    ) {
        // (1) Credits from the router's injection port.
        // (Or a STOP/GO symbol, router.stop_go: stopped, or free to send.)
        if let Some(w) = ch.credits.take_in(nic.inj_credits, now) {
            let c = &mut credits[(w.vc() & 0x3f) as usize];
            *c = crate::flow::on_credit_wire(*c, w.vc());
        }
        // (2) Ejection.
        if let Some(arrival) = ch.flits.take_in(nic.ej_flits, now) {
            let f = arrival.flit;
            let pk = *packets.get(f.pid);
            ctr.flits_ejected += 1;
            ctr.last_progress = now;
            if pk.phase == dispersion::PROBE_REPLY_PHASE {
                // A reply to one of this NIC's probes: the verdict on the probed route
                // (`hop_start`) to the replying node.
                nic.routes.probe_answer(pk.src, pk.hop_start, pk.seq != 0, now);
                packets.release(f.pid);
            } else if pk.phase == dispersion::PROBE_PHASE {
                // A probe (one flit): not traffic; its verdict goes back to the source.
                // Timed from its routing at the source switch (cycle mod 2^16 in `age`).
                let routed = if now - pk.inject >= 1 << 16 { u64::MAX } else { (now as u16).wrapping_sub(pk.age) as u64 };
                probes.push(ProbeArrival { src: pk.src, dst: e, route: pk.hop_start, latency: routed, hops: pk.hops, now });
                packets.release(f.pid);
            } else {
                Self::eject(e, f, &pk, now, nic, phase_flits, (order, n, &mut *trace), reassembly, workload, packets, stats, ctr);
            }
        }
        // (3) Generation (or the next message of a trace).
        if let (Some(ph), Some(t)) = (phase, workload.trace()) {
            if workload.alive(now, e) {
                if let Some(c) = t.next(now, e, &mut nic.trace) {
                    Self::create_message(e, nic, c, now, ph, workload, trace, packets, stats, ctr);
                }
            }
        } else if let Some(ph) = phase {
            let message = workload.message();
            let count = message.map_or(1, |m| m.packets);
            // Room for a whole packet (message)?
            let full = (nic.queue.len() as u64 - nic.control as u64) + count as u64 > workload.source_queue() as u64;
            // A backlogged source only creates when there is room (it suppresses nothing).
            let generated =
                if full && workload.backlogged() { None } else { workload.generate(now, ph, e, &mut nic.src_state, &mut nic.rng) };
            if full && generated.is_some() {
                ctr.packets_suppressed += count as u64;
            } else if let Some((dst, size)) = generated {
                let measured = stats.in_window(now);
                let first = nic.src_state.created() - count as u64;
                for k in 0..count {
                    let size = message.map_or(size, |m| m.flits_of(k));
                    let pid = packets.alloc(Packet {
                        src: e,
                        dst,
                        size,
                        hops: 0,
                        create: now,
                        inject: 0,
                        measured,
                        phase: ph as u32,
                        seq: (first + k as u64) as u32,
                        age: 0,
                        hop_start: 0,
                        route: 0,
                    });
                    stats.on_created(e, size, now);
                    nic.queue.push_back(pid);
                }
                ctr.packets_created += count as u64;
            }
        }
        // (4) Injection of one flit.
        let Some(&pid) = nic.queue.front() else {
            return;
        };
        let size = packets.get(pid).size;
        if nic.sent == 0 {
            match throttle {
                Throttle::Open | Throttle::Global(false) => {}
                Throttle::Global(true) => return,
                Throttle::PerRouter(bits) => {
                    if bits[nic.router as usize] {
                        return;
                    }
                }
                Throttle::Alo(a, free) => {
                    let t = a.dest_router(packets.get(pid).dst);
                    if !routers.alo_allows(nic.router, a.productive(nic.router, t), free) {
                        return;
                    }
                }
            }
            // Choose a VC for the head: round robin from the pointer.
            let Sending { vc_lo, vc_hi, flow } = sending;
            let span = vc_hi - vc_lo;
            let mut chosen = None;
            for k in 0..span {
                let mut v = nic.vc_ptr as u32 + k;
                if v >= vc_hi {
                    v -= span;
                }
                let c = credits[v as usize];
                if c > 0 && flow.may_claim(c, size) {
                    chosen = Some(v);
                    break;
                }
            }
            let Some(v) = chosen else {
                nic.blocked = true;
                return;
            };
            nic.cur_vc = v as u8;
            nic.started = Some(pid);
            nic.vc_ptr = if v + 1 >= vc_hi { vc_lo as u8 } else { v as u8 + 1 };
            packets.get_mut(pid).inject = now;
        }
        let v = nic.cur_vc as usize;
        if credits[v] == 0 {
            nic.blocked = true;
            return;
        }
        credits[v] -= 1;
        let idx = nic.sent;
        let flit = Flit { pid, idx: idx as u16, last: (size - 1) as u16 };
        let arrive = now + nic.inj_latency as u64;
        ch.flits.push_in(nic.inj_flits, arrive, InFlight::new(arrive, flit, v as u8));
        routers.flit_sent_to(nic.router, nic.port, arrive);
        stats.on_channel_flit(nic.inj as usize, v as u32, now);
        ctr.flits_injected += 1;
        ctr.last_progress = now;
        if idx + 1 == size {
            nic.finished = Some((pid, nic.blocked));
            nic.blocked = false;
            nic.sent = 0;
            nic.queue.pop_front();
            if size == 1 && dispersion::is_probing(packets.get(pid).phase) {
                nic.control -= 1;
            }
        } else {
            nic.sent = idx + 1;
        }
    }
}

/// Adaptive dispersion for one cycle: the routing function, its parameters and what a
/// probe needs.
struct Disperse<'a> {
    routing: &'a crate::routing::updown_net::UpDownRouting,
    params: &'a dispersion::DispersionParams,
}

impl Disperse<'_> {
    /// After NIC `e` stepped: write the route of a data packet whose head it sent, and
    /// sense the back-pressure on a data packet it finished, queueing a probe packet
    /// ahead of the next one if the scheme says.
    #[inline]
    fn after_step(&self, e: u32, nic: &mut Nic, now: u64, packets: &mut PacketArena, c: &mut dispersion::DispersionCounters) {
        if let Some(pid) = nic.started.take() {
            let pk = packets.get(pid);
            let dst = pk.dst;
            if !dispersion::is_probing(pk.phase) && dst != e {
                let count = self.routing.route_count(e, dst);
                let initial = self.routing.route_index(e, dst, 0) as u32;
                let r = nic.routes.route(dst, initial, now, self.params, count, &mut nic.rng, c);
                packets.get_mut(pid).route = self.routing.route_string_at(e, dst, r as u64);
            }
        }
        if let Some((pid, blocked)) = nic.finished.take() {
            let pk = *packets.get(pid);
            if dispersion::is_probing(pk.phase) {
                return;
            }
            let count = self.routing.route_count(e, pk.dst);
            if let dispersion::Action::Probe(r) = nic.routes.sent(pk.dst, blocked, now, self.params, count, &mut nic.rng, c) {
                // One flit on route r, sent before the next data packet; `hop_start`
                // carries the route's number back to the source.
                let route = self.routing.route_string_at(e, pk.dst, r as u64);
                let probe = packets.alloc(Packet {
                    src: e,
                    dst: pk.dst,
                    size: 1,
                    hops: 0,
                    create: now,
                    inject: 0,
                    measured: false,
                    phase: dispersion::PROBE_PHASE,
                    seq: 0,
                    age: 0,
                    hop_start: r,
                    route,
                });
                nic.queue.push_front(probe);
                nic.control += 1;
                nic.routes.probe_sent(pk.dst, r, now, c);
            }
        }
    }
}

/// Endpoints a step prefetches ahead of the one it steps: the whole NIC state; nearer,
/// the channel slots it reads this cycle and the front of its source queue; nearest,
/// the header of the packet at that front.
const PREFETCH_NIC: usize = 4;
const PREFETCH_SLOTS: usize = 2;
const PREFETCH_HEADER: usize = 1;

/// Ask the cache for what the steps of the endpoints a few ahead of the one stepped
/// read (see [`PREFETCH_NIC`]); `ahead(k)` is the endpoint `k` steps ahead, if any.
/// Hints only.
#[inline(always)]
fn prefetch_nic(nics: &[Nic], ahead: impl Fn(usize) -> Option<usize>, now: u64, ch: &Channels, packets: &PacketArena) {
    use crate::router::{prefetch, prefetch_bytes};
    if let Some(e) = ahead(PREFETCH_NIC) {
        prefetch_bytes(&nics[e] as *const Nic as *const u8, std::mem::size_of::<Nic>(), true);
    }
    if let Some(e) = ahead(PREFETCH_SLOTS) {
        let nic = &nics[e];
        prefetch(ch.flits.slot_of(nic.ej_flits, now));
        prefetch(ch.credits.slot_of(nic.inj_credits, now));
        // The queue's front slot, by address (reading it would wait for the line).
        let (front, _) = nic.queue.as_slices();
        if !front.is_empty() {
            prefetch(&front[0]);
        }
    }
    if let Some(e) = ahead(PREFETCH_HEADER) {
        if let Some(&pid) = nics[e].queue.front() {
            crate::router::prefetch_span(std::slice::from_ref(packets.get(pid)));
        }
    }
}
