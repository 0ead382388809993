//! Link-level retry on the crosspoint switches' network links: one
//! [`RetryLink`](crate::link::retry::RetryLink) per channel (SiCortex sections 3-4.3),
//! in place of the plain channel.
//!
//! # Cut-through and poisoned packets (section 3.2)
//! A packet's flits go into the crosspoint entry its transmitter allocated as they arrive
//! ([`RetryLink::rx_arriving`]), and with `router.cut_through` (the default) the switch
//! may hand the packet to its next link as soon as its head is in and the output is free,
//! before the trailer's CRC has been checked ("a receiving node may have already
//! forwarded the head of a packet over the next link in the path before it finds a CRC
//! error"); it tells the link so ([`RetryLink::rx_forward_early`]). Flits arrive one per
//! cycle once a packet has started, so the copy sent on never overtakes the flits coming
//! in. Then, at the tail:
//! - **good CRC**: the packet is verified at this switch; its entry is freed (it is in the
//!   next link's replay buffer already).
//! - **CRC error**: "the forwarding node marks the tail of the packet as poisoned". The
//!   copy sent on becomes a *poisoned copy*: it keeps its entries and link slots as any
//!   packet does, and is dropped at the next switch that has it whole ("poisoned packets
//!   may be routed through the network or may be dropped along the way"), or marked
//!   poisoned again by a switch that had cut it through further. The entry here waits,
//!   reserved, for the good copy the link replays, which is forwarded like any packet.
//! - A packet taken in whose CRC fails before its head went on is simply void: its entry
//!   waits for the replay ([`RetryLink::rx_report_drops`]).
//!
//! A switch delivers to its own node only a packet verified on its last link (the DMA
//! engine takes checked packets; a poisoned copy never reaches an endpoint), and sends a
//! packet from its own DMA queue only whole. Poisoned copies are not packets of the run:
//! they are in no flit count (conservation holds for the good copies) and are reported
//! in `crosspoint.poisoned_copies` and `crosspoint.copies_dropped`. A good copy is counted
//! where it is verified: inside a link from the moment it is pushed (or, if cut through,
//! still inside the link it arrives on) until the tail is checked at the next switch.
//!
//! Without cut-through (`router.cut_through = false`) a transmitter hands a packet to the
//! link only once it is whole and checked in its crosspoint buffer: store and forward at
//! each link. A link that fails permanently reports the packets in its replay buffer:
//! those the receiver never accepted are counted lost. All links step before any switch
//! in a cycle, so deliveries do not depend on the order switches are visited.

use std::collections::VecDeque;

use serde::Serialize;

use crate::error::Result;
use crate::link::retry::{PacketRef, RetryLink, RetryParams, RetryStats};
use crate::link::Flit;
use crate::packet::{Counters, PacketArena};
use crate::routing::source::SourceRouting;
use crate::stats::Collector;
use crate::topology::{Topology, NONE};

/// Totals over all links, for the report.
#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct RetryReport {
    /// Links with retry.
    pub links: u32,
    /// Counters summed over the links.
    pub totals: RetryStats,
    /// Flits the links put on their wires, over the flits handed to them: the bandwidth
    /// cost of errors (1 without errors).
    pub wire_overhead: f64,
    /// Packets lost with a failed link (never accepted downstream).
    pub packets_lost: u64,
    /// Packets whose routing string, built before a link failed (`[[faults.at]]`), led
    /// them to it afterwards: discarded whole at the switch before it, counted lost (also
    /// in `counters.packets_lost`, not in `packets_lost` above).
    pub packets_at_failed_links: u64,
    /// Packets lost with a node failing during the run (`[[faults.at]]` nodes): those its
    /// switch held for its own processor, and queued packets whose source or destination
    /// had died by the time they were to be routed (also in `counters.packets_lost`).
    pub packets_at_failed_nodes: u64,
}

/// What the switches know of a packet in a link: the copy's routing string and VC for
/// the next switch, and whether it is a poisoned copy.
#[derive(Clone, Copy, Debug)]
pub(super) struct Meta {
    /// Its id in the link (the transmitting partition's packet id).
    pid: u32,
    /// Its id in this partition's packet arena (`pid` unless the link crosses into this
    /// partition: then the copy of the header made when it was handed to the link).
    here: u32,
    /// The transmitting switch's input it came from, when sent on early (the key, with
    /// `pid`, by which its switch resolves it).
    from: u8,
    /// The routing string as the next switch receives it.
    route: u64,
    vc: u8,
    /// A poisoned copy (the tail marked by the switch that sent it on).
    ghost: bool,
    /// Sent on before its tail was checked at the sending switch, which has not decided
    /// yet whether it is good or poisoned.
    unresolved: bool,
}

/// The entry at the receiving switch of the packet arriving on a link (or reserved for
/// its replay).
#[derive(Clone, Copy, Debug)]
struct Placed {
    pid: u32,
    /// Its id in this partition's packet arena.
    here: u32,
    /// Its output there and its entry in the crosspoint buffer of (input, output).
    j: u8,
    e: u8,
    /// Handed to the next link before its tail arrived.
    pushed_early: bool,
}

/// The retry links of a network.
#[derive(Clone, Debug)]
pub struct Links {
    pub(super) links: Vec<RetryLink>,
    /// Per (router, output port): the link (channel id), or NONE.
    pub(super) of_port: Vec<u32>,
    /// Per (router, input port): the link arriving there, or NONE.
    of_in: Vec<u32>,
    /// Per link: the receiving (router, input port).
    pub(super) dst: Vec<(u32, u32)>,
    /// Per link: the packets in it, in order.
    meta: Vec<VecDeque<Meta>>,
    /// Per link: the packet being taken in at the receiving switch (cut-through only).
    placed: Vec<Option<Placed>>,
    cut_through: bool,
    pub(super) ports: usize,
    /// Flits inside links (handed over, not yet delivered or lost); kept only while the
    /// network is not partitioned (`whole`), for check mode.
    pub in_links: u64,
    /// Not partitioned: this structure steps both ends of every link.
    pub(super) whole: bool,
    lost: u64,
    /// Packets discarded before a failed link ([`Links::lose_at_failed`]).
    at_failed: u64,
    /// Per router: the cycle its node fails (`[[faults.at]]` nodes; `u64::MAX`: never).
    dies: Vec<u64>,
    /// Packets discarded at failed nodes ([`Links::lose_at_dead`]).
    at_dead: u64,
    /// Per link: which of its ends this partition steps ([`TX`], [`RX`]; both unless
    /// partitioned, [`crate::router::crosspoint::crossing`]).
    pub(super) role: Vec<u8>,
    /// What this partition did to links whose other end another partition steps.
    pub(super) events: Vec<RetryEvent>,
    /// Other partitions' totals, added at the end of a partitioned run.
    pub(super) absorbed: RetryPart,
}

/// This partition steps the transmitting end of the link.
pub(super) const TX: u8 = 1;
/// This partition steps the receiving end of the link.
pub(super) const RX: u8 = 2;

/// A change one end of a retry link makes that the partition stepping the other end (a
/// copy of the same link) must make too, after the cycle ([`crate::router::crossing`]).
/// A link's two copies step alike (the same state, the same error streams), so these
/// are all they need to stay equal.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub enum RetryEvent {
    /// The transmitting switch handed a packet to the link (`Links::push`), with a copy
    /// of its header for the receiving partition.
    Push { link: u32, pid: u32, flits: u16, vc: u8, route: u64, early: bool, from: u8, header: crate::packet::Packet },
    /// The receiving switch sent the arriving packet on before its tail.
    ForwardEarly { link: u32 },
    /// The transmitting switch checked the tail of a packet it had sent on early: good
    /// (with its hop count, final only now) or poisoned.
    Resolve { link: u32, pid: u32, from: u8, ghost: bool, hops: u32 },
}

/// The retry links' totals of one partition (each link counted by the partition that
/// steps its transmitter), for the report of a partitioned run.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct RetryPart {
    totals: RetryStats,
    lost: u64,
    at_failed: u64,
    at_dead: u64,
}

impl RetryPart {
    /// `self += p`.
    pub(super) fn add(&mut self, p: &RetryPart) {
        add(&mut self.totals, &p.totals);
        self.lost += p.lost;
        self.at_failed += p.at_failed;
        self.at_dead += p.at_dead;
    }
}

impl Links {
    /// One link per channel of `topo`, with `params` (its `latency` replaced by each
    /// channel's `wire_latency`: output stage plus channel; its `errors.fail_at` by the
    /// earlier of it and the channel's `fail_at`, from `[[faults.at]]`).
    /// `cut_through`: the switches take arriving flits as they come and may send a packet
    /// on before its tail is checked.
    pub fn new(
        params: &RetryParams,
        topo: &Topology,
        wire_latency: impl Fn(usize) -> u32,
        fail_at: &[Option<u64>],
        cut_through: bool,
        seed: u64,
    ) -> Result<Self> {
        let mut links = Vec::with_capacity(topo.channels.len());
        let mut of_port = vec![NONE; (topo.num_routers * topo.ports) as usize];
        let mut of_in = vec![NONE; (topo.num_routers * topo.ports) as usize];
        let mut dst = Vec::with_capacity(topo.channels.len());
        for (id, c) in topo.channels.iter().enumerate() {
            let mut p = RetryParams { latency: wire_latency(id).max(1), ..params.clone() };
            if let Some(at) = fail_at.get(id).copied().flatten() {
                p.errors.fail_at = Some(p.errors.fail_at.map_or(at, |f| f.min(at)));
            }
            let mut link = RetryLink::new(&p, id as u32, seed)?;
            if cut_through {
                link.rx_report_drops();
            }
            links.push(link);
            of_port[(c.src_router * topo.ports + c.src_port) as usize] = id as u32;
            of_in[(c.dst_router * topo.ports + c.dst_port) as usize] = id as u32;
            dst.push((c.dst_router, c.dst_port));
        }
        let n = links.len();
        Ok(Links {
            links,
            of_port,
            of_in,
            dst,
            meta: vec![VecDeque::new(); n],
            placed: vec![None; n],
            cut_through,
            ports: topo.ports as usize,
            in_links: 0,
            lost: 0,
            at_failed: 0,
            dies: vec![u64::MAX; topo.num_routers as usize],
            at_dead: 0,
            role: vec![TX | RX; n],
            whole: true,
            events: Vec::new(),
            absorbed: RetryPart::default(),
        })
    }

    /// Router `r`'s node has failed by cycle `now`.
    #[inline]
    pub fn is_dead(&self, r: u32, now: u64) -> bool {
        self.dies[r as usize] <= now
    }

    /// Packet `pid` (`flits` flits) is lost with a failed node: counted, released.
    pub fn lose_at_dead(&mut self, pid: u32, flits: u16, packets: &mut PacketArena, ctr: &mut Counters) {
        self.at_dead += 1;
        count_lost(pid, flits, packets, ctr);
    }

    /// The link out of `(router, port)` can take a packet now.
    pub fn can_accept(&self, r: u32, port: usize) -> bool {
        let id = self.of_port[r as usize * self.ports + port];
        id != NONE && self.links[id as usize].tx_can_accept()
    }

    /// The link out of `(router, port)` has failed for good.
    pub fn is_failed(&self, r: u32, port: usize) -> bool {
        let id = self.of_port[r as usize * self.ports + port];
        id != NONE && self.links[id as usize].is_failed()
    }

    /// Packet `pid` (`flits` flits) reached the failed link out of its switch: it is lost,
    /// and counted (released from the arena).
    pub fn lose_at_failed(&mut self, pid: u32, flits: u16, packets: &mut PacketArena, ctr: &mut Counters) {
        self.at_failed += 1;
        count_lost(pid, flits, packets, ctr);
    }

    /// Hand packet `pid` of `flits` flits to the link out of `(router, port)`; it travels
    /// in VC `vc` with routing string `route` on the next switch. (Only after
    /// [`Links::can_accept`].) `early`: its tail has not arrived through input `input` of
    /// the switch yet (cut-through); it stays counted in that link until it is checked.
    #[allow(clippy::too_many_arguments)]
    pub fn push(&mut self, r: u32, port: usize, pid: u32, flits: u16, vc: u8, route: u64, early: Option<usize>, packets: &mut PacketArena) {
        let id = self.of_port[r as usize * self.ports + port] as usize;
        self.links[id].tx_push(PacketRef { id: pid, flits }).expect("the link accepts a packet after can_accept");
        let from = early.unwrap_or(0) as u8;
        self.meta[id].push_back(Meta { pid, here: pid, from, route, vc, ghost: false, unresolved: early.is_some() });
        if self.role[id] != TX | RX {
            // Handed to a link into another partition: it gets a copy of the header.
            let header = *packets.get(pid);
            self.events.push(RetryEvent::Push { link: id as u32, pid, flits, vc, route, early: early.is_some(), from, header });
        }
        match early {
            None if self.whole => self.in_links += u64::from(flits),
            None => {}
            Some(input) => {
                let up = self.of_in[r as usize * self.ports + input] as usize;
                let forwarded = self.links[up].rx_forward_early();
                debug_assert!(forwarded, "the packet sent on early is the one arriving");
                if self.role[up] != TX | RX {
                    self.events.push(RetryEvent::ForwardEarly { link: up as u32 });
                }
                let p = self.placed[up].as_mut().expect("an early packet was placed");
                debug_assert_eq!(p.here, pid);
                p.pushed_early = true;
            }
        }
    }

    /// The switch `r` checked the tail of packet `pid` arriving on input `from`, which it
    /// had sent on early through output `port`: good (`ghost` false) or poisoned. False
    /// if the copy is no longer in that link (the link failed with it).
    fn resolve(&mut self, r: u32, port: usize, pid: u32, from: usize, ghost: bool, packets: &PacketArena) -> bool {
        let id = self.of_port[r as usize * self.ports + port] as usize;
        let found = self.resolve_in(id, pid, from as u8, ghost);
        if found.is_some() && self.role[id] != TX | RX {
            let hops = if ghost { 0 } else { packets.get(pid).hops };
            self.events.push(RetryEvent::Resolve { link: id as u32, pid, from: from as u8, ghost, hops });
        }
        found.is_some()
    }

    /// Resolve the copy `pid` sent on early from input `from` in link `id`; its id in
    /// this partition's arena, if it is still in the link.
    pub(super) fn resolve_in(&mut self, id: usize, pid: u32, from: u8, ghost: bool) -> Option<u32> {
        let m = self.meta[id].iter_mut().find(|m| m.pid == pid && m.unresolved && m.from == from)?;
        m.unresolved = false;
        m.ghost = ghost;
        Some(m.here)
    }

    /// Apply another partition's `Push` to this partition's copy of the link: `here` is
    /// the packet's id in this partition's arena (a copy of its header).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push_copy(&mut self, id: usize, pid: u32, flits: u16, vc: u8, route: u64, early: bool, from: u8, here: u32) {
        self.links[id].tx_push(PacketRef { id: pid, flits }).expect("the link's other copy accepted it");
        self.meta[id].push_back(Meta { pid, here, from, route, vc, ghost: false, unresolved: early });
    }

    /// This partition's totals: the links whose transmitter it steps (all of them unless
    /// partitioned), and what it counted.
    pub(super) fn part(&self) -> RetryPart {
        let mut totals = RetryStats::default();
        for (l, &role) in self.links.iter().zip(&self.role) {
            if role & TX != 0 {
                add(&mut totals, l.stats());
            }
        }
        RetryPart { totals, lost: self.lost, at_failed: self.at_failed, at_dead: self.at_dead }
    }

    /// Totals for the report (with the other partitions' once they are absorbed).
    pub fn report(&self) -> RetryReport {
        let mine = self.part();
        let a = &self.absorbed;
        let mut t = mine.totals;
        add(&mut t, &a.totals);
        let wire_overhead = if t.flits_pushed == 0 { 1.0 } else { t.wire_flits as f64 / t.flits_pushed as f64 };
        RetryReport {
            links: self.links.len() as u32,
            totals: t,
            wire_overhead,
            packets_lost: mine.lost + a.lost,
            packets_at_failed_links: mine.at_failed + a.at_failed,
            packets_at_failed_nodes: mine.at_dead + a.at_dead,
        }
    }
}

impl super::CrosspointRouters {
    /// Enable link-level retry on every network link.
    /// `fail_at[channel]`: the cycle a link fails for good (`[[faults.at]]`), if any;
    /// `node_fail_at`: `(router, cycle)` of the nodes failing during the run.
    pub fn enable_retry(
        &mut self,
        params: &RetryParams,
        topo: &Topology,
        channel_latency: impl Fn(usize) -> u32,
        fail_at: &[Option<u64>],
        node_fail_at: &[(u32, u64)],
        seed: u64,
    ) -> Result<()> {
        let out = self.cfg.output_delay;
        let mut links = Links::new(params, topo, |c| out + channel_latency(c), fail_at, self.cfg.cut_through, seed)?;
        for &(r, at) in node_fail_at {
            links.dies[r as usize] = links.dies[r as usize].min(at);
        }
        self.retry = Some(links);
        Ok(())
    }

    /// The counters of the retry link on channel `channel`, when retry is on.
    pub fn retry_link_stats(&self, channel: u32) -> Option<&RetryStats> {
        self.retry.as_ref().and_then(|l| l.links.get(channel as usize)).map(RetryLink::stats)
    }

    /// The retry links' totals, when retry is on.
    pub fn retry_report(&self) -> Option<RetryReport> {
        self.retry.as_ref().map(Links::report)
    }

    /// Step every link, then hand each delivered packet to its next switch's crosspoint
    /// entry (with cut-through, also the flits of the packet arriving), resolve the
    /// packets sent on early, and count the packets a failed link lost.
    ///
    /// Partitioned, a partition steps the links of which it steps an end ([`TX`],
    /// [`RX`]); both partitions of a crossing link step their copies of it alike. The
    /// receiving end's partition takes the deliveries into its switch; the transmitting
    /// end's keeps its copy's records in step, releases its packet once delivered, and
    /// counts the packets the link loses.
    pub(super) fn step_links(
        &mut self,
        now: u64,
        topo: &Topology,
        routing: &SourceRouting,
        packets: &mut PacketArena,
        stats: &mut Collector,
        ctr: &mut Counters,
    ) {
        let mut links = self.retry.take().expect("links");
        let cap = self.cap as usize;
        for id in 0..links.links.len() {
            let role = links.role[id];
            let (tx, rx) = (role & TX != 0, role & RX != 0);
            if role == 0 {
                continue;
            }
            let l = &mut links.links[id];
            if l.is_quiescent() && l.fail_at() != Some(now) {
                continue;
            }
            l.step(now);
            let (y, i) = (links.dst[id].0, links.dst[id].1 as usize);
            while let Some(d) = links.links[id].rx_pop() {
                if d.dropped || d.poisoned {
                    if !rx {
                        continue;
                    }
                    // What this switch stored of it is void; the replay refills the entry.
                    let Some(p) = links.placed[id].as_mut() else {
                        // A one-flit packet is taken in and checked in the same cycle.
                        debug_assert!(d.dropped && d.flits == 1, "link {id}: {d:?} without an entry");
                        continue;
                    };
                    debug_assert_eq!(p.pid, d.id);
                    let xb = self.xb(y as usize, i, p.j as usize);
                    self.entries[xb * cap + p.e as usize].arrived = 0;
                    if p.pushed_early {
                        // Poisoned: the copy sent on is marked at its tail.
                        p.pushed_early = false;
                        let (j, e, here) = (p.j as usize, p.e as usize, p.here);
                        if links.resolve(y, j, here, i, true, packets) {
                            self.counters.poisoned_copies += 1;
                        }
                        self.requeue_front(xb, e);
                    }
                    continue;
                }
                let m = links.meta[id].pop_front().expect("a record per packet in the link");
                debug_assert!(m.pid == d.id && !m.unresolved, "link {id}: {m:?} delivered as {d:?}");
                if !rx {
                    // The transmitting partition's copy of a packet now in another
                    // partition's switch.
                    if !m.ghost {
                        packets.release(m.here);
                    }
                    continue;
                }
                let (j, e, early) = match links.placed[id].take() {
                    Some(p) => (p.j as usize, p.e as usize, p.pushed_early),
                    None => {
                        let (j, e) = self.arrive_head(
                            y,
                            i,
                            m.vc as usize,
                            Flit { pid: m.here, idx: 0, last: d.flits - 1 },
                            d.flits,
                            now,
                            routing,
                            m.route,
                        );
                        let xb = self.xb(y as usize, i, j);
                        self.entries[xb * cap + e].own = !tx;
                        (j, e, false)
                    }
                };
                let k = self.xb(y as usize, i, j) * cap + e;
                ctr.last_progress = now;
                if m.ghost {
                    // A poisoned copy, whole here: dropped, or marked again further on.
                    if early {
                        links.resolve(y, j, m.here, i, true, packets);
                        if self.entries[k].own {
                            packets.release(m.here);
                        }
                        self.free_entry(y as usize, i, j, e);
                    } else {
                        self.entries[k].arrived = d.flits;
                        self.entries[k].ghost = true;
                    }
                    continue;
                }
                // A good packet, checked at this switch: its flits crossed the channel
                // of link `id` (counted once per packet, not per replay; the engine
                // numbers a channel by its output port, `router * ports + port`).
                let c = &topo.channels[id];
                stats.on_channel_flits((c.src_router * topo.ports + c.src_port) as usize, m.vc.into(), d.flits.into(), now);
                let ent = self.entries[k];
                packets.get_mut(m.here).hops += 1;
                if j != self.local {
                    self.counters.vc_decrements += u64::from(ent.in_vc - ent.out_vc);
                }
                ctr.flit_traversals += u64::from(d.flits);
                if early {
                    if !links.resolve(y, j, m.here, i, false, packets) {
                        // The next link failed with the copy it had: this packet is lost.
                        if links.whole {
                            links.in_links -= u64::from(d.flits);
                        }
                        links.lost += 1;
                        count_lost(m.here, d.flits, packets, ctr);
                    }
                    self.free_entry(y as usize, i, j, e);
                } else {
                    self.entries[k].arrived = d.flits;
                    self.held[y as usize] += u32::from(d.flits);
                    if links.whole {
                        links.in_links -= u64::from(d.flits);
                    }
                }
            }
            while let Some(s) = links.links[id].tx_pop_stranded() {
                // Left in the replay buffer of a failed link. Accepted downstream: it went
                // on (its VC was consumed with it). Otherwise it is lost, and counted; an
                // entry waiting for it downstream is void.
                if s.delivered {
                    continue;
                }
                let pid = s.packet.id;
                let at = links.meta[id].iter().position(|m| m.pid == pid).expect("a stranded packet has a record");
                let m = links.meta[id].remove(at).expect("found");
                let mut placed = false;
                if let Some(p) = links.placed[id].filter(|p| p.pid == pid && rx) {
                    let k = self.xb(y as usize, i, p.j as usize) * cap + p.e as usize;
                    self.entries[k].ghost = true;
                    self.entries[k].arrived = self.entries[k].last + 1;
                    links.placed[id] = None;
                    placed = true;
                }
                if !tx {
                    // The receiving partition's copy goes (with its entry, if it has one).
                    if !placed {
                        packets.release(m.here);
                    }
                    continue;
                }
                if m.ghost || m.unresolved {
                    // A poisoned copy vanishes; an unresolved one is lost when its switch
                    // checks its tail and finds the copy gone.
                    continue;
                }
                if links.whole {
                    links.in_links -= u64::from(s.packet.flits);
                }
                links.lost += 1;
                count_lost(m.here, s.packet.flits, packets, ctr);
            }
            if !links.cut_through || !rx {
                continue;
            }
            if let Some(a) = links.links[id].rx_arriving() {
                match links.placed[id] {
                    None => {
                        let m = *links.meta[id].front().expect("an arriving packet has a record");
                        debug_assert_eq!(m.pid, a.id);
                        let (j, e) = self.arrive_head(
                            y,
                            i,
                            m.vc as usize,
                            Flit { pid: m.here, idx: 0, last: a.flits - 1 },
                            a.received,
                            now,
                            routing,
                            m.route,
                        );
                        // Whether it is a poisoned copy is not known here: the mark
                        // travels in its tail (and the switch before may not have
                        // checked its own copy yet); it is read at delivery.
                        let xb = self.xb(y as usize, i, j);
                        self.entries[xb * cap + e].own = !tx;
                        links.placed[id] = Some(Placed { pid: a.id, here: m.here, j: j as u8, e: e as u8, pushed_early: false });
                    }
                    Some(p) => {
                        debug_assert_eq!(p.pid, a.id, "link {id}: the replay brings the packet whose entry waits");
                        let k = self.xb(y as usize, i, p.j as usize) * cap + p.e as usize;
                        if self.entries[k].arrived == 0 {
                            self.entries[k].ready = (now as u32).wrapping_add(self.cfg.xb_delay);
                        }
                        self.entries[k].arrived = a.received;
                    }
                }
            }
        }
        self.retry = Some(links);
    }
}

/// A packet lost to a failed link: counted, released.
fn count_lost(pid: u32, flits: u16, packets: &mut PacketArena, ctr: &mut Counters) {
    ctr.packets_lost += 1;
    ctr.flits_lost += u64::from(flits);
    ctr.measured_lost += packets.get(pid).measured as u64;
    packets.release(pid);
}

/// `t += s`, field by field.
fn add(t: &mut RetryStats, s: &RetryStats) {
    let RetryStats {
        pushed,
        flits_pushed,
        sent,
        delivered,
        acked,
        replays,
        ack_timeouts,
        packets_replayed,
        flits_original,
        flits_replayed,
        ack_flits,
        wire_flits,
        flits_corrupted,
        crc_errors,
        sequence_errors,
        rx_overflow,
        rx_dropped,
        error_acks_received,
        error_acks_corrupted,
        aliased,
        poisoned,
        ctrl_sent,
        ctrl_received,
        ctrl_lost,
        ctrl_inconsistent,
        stranded_lost,
        stranded_unconfirmed,
    } = *s;
    t.pushed += pushed;
    t.flits_pushed += flits_pushed;
    t.sent += sent;
    t.delivered += delivered;
    t.acked += acked;
    t.replays += replays;
    t.ack_timeouts += ack_timeouts;
    t.packets_replayed += packets_replayed;
    t.flits_original += flits_original;
    t.flits_replayed += flits_replayed;
    t.ack_flits += ack_flits;
    t.wire_flits += wire_flits;
    t.flits_corrupted += flits_corrupted;
    t.crc_errors += crc_errors;
    t.sequence_errors += sequence_errors;
    t.rx_overflow += rx_overflow;
    t.rx_dropped += rx_dropped;
    t.error_acks_received += error_acks_received;
    t.error_acks_corrupted += error_acks_corrupted;
    t.aliased += aliased;
    t.poisoned += poisoned;
    t.ctrl_sent += ctrl_sent;
    t.ctrl_received += ctrl_received;
    t.ctrl_lost += ctrl_lost;
    t.ctrl_inconsistent += ctrl_inconsistent;
    t.stranded_lost += stranded_lost;
    t.stranded_unconfirmed += stranded_unconfirmed;
}
