//! Endpoints (NIC + node): the source queue, packetization into flits, injection with
//! credits for the router's injection-port buffers, and ejection with reassembly.
//!
//! Each cycle an endpoint (1) takes back credits, (2) receives flits from its ejection
//! channel and completes packets whose tail arrived, (3) asks the workload whether a
//! packet is created this cycle (appending it to the unbounded source queue, so offered
//! load is never throttled by the network), and (4) sends at most one flit of the packet
//! at the head of its source queue. A packet is sent whole before the next one starts;
//! its VC is chosen when its head goes (round robin among the VCs the flow control lets
//! it claim).

use std::collections::VecDeque;

use crate::flow::FlowControl;
use crate::link::{Channels, Flit, InFlight};
use crate::sim::packet::{Counters, Packet, PacketArena};
use crate::sim::rng::{self, SimRng};
use crate::stats::{Collector, Delivered};
use crate::topology::Topology;
use crate::traffic::{SourceState, Workload};

/// All endpoints of a network.
#[derive(Clone, Debug)]
pub struct Endpoints {
    /// Number of endpoints.
    pub n: u32,
    vcs: u32,
    vc_lo: u32,
    vc_hi: u32,
    flow: FlowControl,
    /// Source queue per endpoint (packet ids), unbounded.
    pub queue: Vec<VecDeque<u32>>,
    sent: Vec<u32>,
    cur_vc: Vec<u8>,
    vc_ptr: Vec<u8>,
    /// Credits for the injection port's VC buffers, `[node * vcs + vc]`.
    pub credits: Vec<u32>,
    src_state: Vec<SourceState>,
    rng: Vec<SimRng>,
    /// Injection channel id per endpoint.
    pub inj_chan: Vec<u32>,
    /// Ejection channel id per endpoint.
    pub ej_chan: Vec<u32>,
    /// Router of each endpoint.
    router: Vec<u32>,
    inj_latency: Vec<u32>,
    /// Flits ejected per traffic phase (all cycles).
    pub phase_flits: Vec<u64>,
}

impl Endpoints {
    /// Build endpoints for `topo`; `depth` is the router input buffer depth.
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
        let mut rng: Vec<SimRng> = (0..n).map(|e| rng::stream(seed, rng::domain::ENDPOINT, e as u64)).collect();
        let src_state = (0..n).map(|e| workload.new_source_state(e, &mut rng[e as usize])).collect();
        let inj_chan: Vec<u32> = (0..n).map(|e| rp + e).collect();
        Endpoints {
            n,
            vcs,
            vc_lo: inj_range.0 as u32,
            vc_hi: inj_range.1 as u32,
            flow,
            queue: vec![VecDeque::new(); n as usize],
            sent: vec![0; n as usize],
            cur_vc: vec![0; n as usize],
            vc_ptr: vec![inj_range.0; n as usize],
            credits: vec![depth; (n * vcs) as usize],
            src_state,
            rng,
            inj_latency: inj_chan.iter().map(|&c| ch.latency[c as usize]).collect(),
            inj_chan,
            ej_chan: (0..n).map(|e| topo.router_of(e) * topo.ports + topo.local_port_of(e)).collect(),
            router: (0..n).map(|e| topo.router_of(e)).collect(),
            phase_flits: vec![0; workload.phases().len()],
        }
    }

    /// Packets waiting in all source queues (including one partly sent).
    pub fn queued(&self) -> u64 {
        self.queue.iter().map(|q| q.len() as u64).sum()
    }

    /// Advance endpoint `e` by one cycle.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn step(
        &mut self,
        e: u32,
        now: u64,
        phase: Option<usize>,
        workload: &Workload,
        ch: &mut Channels,
        packets: &mut PacketArena,
        stats: &mut Collector,
        ctr: &mut Counters,
        router_pending: &mut [u32],
    ) {
        let eu = e as usize;
        let inj = self.inj_chan[eu] as usize;
        // (1) Credits from the router's injection port.
        while let Some(w) = ch.credits.front(inj) {
            if w.arrive() > now {
                break;
            }
            let w = ch.credits.pop(inj).unwrap();
            self.credits[eu * self.vcs as usize + w.vc() as usize] += 1;
        }
        // (2) Ejection.
        let ej = self.ej_chan[eu] as usize;
        while let Some(f) = ch.flits.front(ej) {
            if f.arrive > now {
                break;
            }
            let f = ch.flits.pop(ej).unwrap().flit;
            let pk = *packets.get(f.pid);
            stats.on_ejected_flit(pk.src, e, now);
            ctr.flits_ejected += 1;
            ctr.last_progress = now;
            if let Some(c) = self.phase_flits.get_mut(pk.phase as usize) {
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
                packets.release(f.pid);
            }
        }
        // (3) Generation.
        if let Some(ph) = phase {
            if let Some((dst, size)) = workload.generate(ph, e, &mut self.src_state[eu], &mut self.rng[eu]) {
                let measured = stats.in_window(now);
                let pid = packets.alloc(Packet {
                    src: e,
                    dst,
                    size,
                    hops: 0,
                    create: now,
                    inject: 0,
                    measured,
                    phase: ph as u32,
                });
                stats.on_created(e, size, now);
                ctr.packets_created += 1;
                self.queue[eu].push_back(pid);
            }
        }
        // (4) Injection of one flit.
        let Some(&pid) = self.queue[eu].front() else { return };
        let vcs = self.vcs as usize;
        let size = packets.get(pid).size;
        if self.sent[eu] == 0 {
            // Choose a VC for the head: round robin from the pointer.
            let span = self.vc_hi - self.vc_lo;
            let mut chosen = None;
            for k in 0..span {
                let mut v = self.vc_ptr[eu] as u32 + k;
                if v >= self.vc_hi {
                    v -= span;
                }
                let c = self.credits[eu * vcs + v as usize];
                if c > 0 && self.flow.may_claim(c, size) {
                    chosen = Some(v);
                    break;
                }
            }
            let Some(v) = chosen else { return };
            self.cur_vc[eu] = v as u8;
            self.vc_ptr[eu] = if v + 1 >= self.vc_hi { self.vc_lo as u8 } else { v as u8 + 1 };
            packets.get_mut(pid).inject = now;
        }
        let v = self.cur_vc[eu] as usize;
        if self.credits[eu * vcs + v] == 0 {
            return;
        }
        self.credits[eu * vcs + v] -= 1;
        let idx = self.sent[eu];
        let flit = Flit { pid, dst: packets.get(pid).dst, idx: idx as u16, last: (size - 1) as u16 };
        ch.flits.push(inj, InFlight { arrive: now + self.inj_latency[eu] as u64, flit, vc: v as u8 });
        router_pending[self.router[eu] as usize] += 1;
        stats.on_channel_flit(inj, v as u32, now);
        ctr.flits_injected += 1;
        ctr.last_progress = now;
        if idx + 1 == size {
            self.sent[eu] = 0;
            self.queue[eu].pop_front();
        } else {
            self.sent[eu] = idx + 1;
        }
    }
}
