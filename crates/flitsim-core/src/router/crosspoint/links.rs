//! Link-level retry on the crosspoint switches' network links: one
//! [`RetryLink`](crate::link::retry::RetryLink) per channel (SiCortex sections 3-4.3),
//! in place of the plain channel.
//!
//! A transmitter (an output of a switch) hands a whole packet to the link once the
//! packet is complete in its crosspoint buffer and the link's transmitter is free; the
//! packet's crosspoint entry is then free (the replay buffer holds it). The link sends it
//! flit by flit, replays it after errors, and delivers each good packet once and in order
//! to the next switch, which puts it whole into the crosspoint entry the transmitter
//! allocated. (So with retry the switches store and forward at each link: forwarding a
//! head before its CRC is checked, and the poisoned copies that follows from it, is the
//! protocol module's and not yet the switch's.) A link that fails permanently reports the
//! packets in its replay buffer: those the receiver never accepted are counted lost.
//! All links step before any switch in a cycle, so deliveries do not depend on the order
//! switches are visited.

use std::collections::VecDeque;

use serde::Serialize;

use crate::error::Result;
use crate::link::retry::{PacketRef, RetryLink, RetryParams, RetryStats};
use crate::link::Flit;
use crate::routing::source::SourceRouting;
use crate::sim::packet::{Counters, PacketArena};
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

/// The retry links of a network.
#[derive(Clone, Debug)]
pub struct Links {
    links: Vec<RetryLink>,
    /// Per (router, output port): the link (channel id), or NONE.
    of_port: Vec<u32>,
    /// Per link: the receiving (router, input port).
    dst: Vec<(u32, u32)>,
    /// Per link: the VCs of the packets in it, in order.
    vcs: Vec<VecDeque<u8>>,
    ports: usize,
    /// Flits inside links (handed over, not yet delivered or lost).
    pub in_links: u64,
    lost: u64,
    /// Packets discarded before a failed link ([`Links::lose_at_failed`]).
    at_failed: u64,
    /// Per router: the cycle its node fails (`[[faults.at]]` nodes; `u64::MAX`: never).
    dies: Vec<u64>,
    /// Packets discarded at failed nodes ([`Links::lose_at_dead`]).
    at_dead: u64,
}

impl Links {
    /// One link per channel of `topo`, with `params` (its `latency` replaced by each
    /// channel's `wire_latency`: output stage plus channel; its `errors.fail_at` by the
    /// earlier of it and the channel's `fail_at`, from `[[faults.at]]`).
    pub fn new(params: &RetryParams, topo: &Topology, wire_latency: impl Fn(usize) -> u32, fail_at: &[Option<u64>], seed: u64) -> Result<Self> {
        let mut links = Vec::with_capacity(topo.channels.len());
        let mut of_port = vec![NONE; (topo.num_routers * topo.ports) as usize];
        let mut dst = Vec::with_capacity(topo.channels.len());
        for (id, c) in topo.channels.iter().enumerate() {
            let mut p = RetryParams { latency: wire_latency(id).max(1), ..params.clone() };
            if let Some(at) = fail_at.get(id).copied().flatten() {
                p.errors.fail_at = Some(p.errors.fail_at.map_or(at, |f| f.min(at)));
            }
            links.push(RetryLink::new(&p, id as u32, seed)?);
            of_port[(c.src_router * topo.ports + c.src_port) as usize] = id as u32;
            dst.push((c.dst_router, c.dst_port));
        }
        let n = links.len();
        Ok(Links { links, of_port, dst, vcs: vec![VecDeque::new(); n], ports: topo.ports as usize, in_links: 0, lost: 0, at_failed: 0, dies: vec![u64::MAX; topo.num_routers as usize], at_dead: 0 })
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
    /// in VC `vc` on the next switch. (Only after [`Links::can_accept`].)
    pub fn push(&mut self, r: u32, port: usize, pid: u32, flits: u16, vc: u8) {
        let id = self.of_port[r as usize * self.ports + port] as usize;
        self.links[id].tx_push(PacketRef { id: pid, flits }).expect("the link accepts a packet after can_accept");
        self.vcs[id].push_back(vc);
        self.in_links += u64::from(flits);
    }

    /// Totals for the report.
    pub fn report(&self) -> RetryReport {
        let mut t = RetryStats::default();
        for l in &self.links {
            add(&mut t, l.stats());
        }
        let wire_overhead = if t.flits_pushed == 0 { 1.0 } else { t.wire_flits as f64 / t.flits_pushed as f64 };
        RetryReport { links: self.links.len() as u32, totals: t, wire_overhead, packets_lost: self.lost, packets_at_failed_links: self.at_failed, packets_at_failed_nodes: self.at_dead }
    }
}

impl super::CrosspointRouters {
    /// Enable link-level retry on every network link.
    /// `fail_at[channel]`: the cycle a link fails for good (`[[faults.at]]`), if any;
    /// `node_fail_at`: `(router, cycle)` of the nodes failing during the run.
    pub fn enable_retry(&mut self, params: &RetryParams, topo: &Topology, channel_latency: impl Fn(usize) -> u32, fail_at: &[Option<u64>], node_fail_at: &[(u32, u64)], seed: u64) -> Result<()> {
        let out = self.cfg.output_delay;
        let mut links = Links::new(params, topo, |c| out + channel_latency(c), fail_at, seed)?;
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
    /// entry, and count the packets a failed link lost.
    pub(super) fn step_links(&mut self, now: u64, _topo: &Topology, routing: &SourceRouting, packets: &mut PacketArena, ctr: &mut Counters) {
        let mut links = self.retry.take().expect("links");
        for id in 0..links.links.len() {
            let l = &mut links.links[id];
            if l.is_quiescent() && l.fail_at() != Some(now) {
                continue;
            }
            l.step(now);
            while let Some(d) = links.links[id].rx_pop() {
                debug_assert!(!d.poisoned, "no head is forwarded before its CRC check");
                let vc = links.vcs[id].pop_front().expect("a VC per packet in the link");
                let (y, i) = links.dst[id];
                let last = d.flits - 1;
                let (j, e) = self.arrive_head(y, i as usize, vc as usize, Flit { pid: d.id, idx: 0, last }, d.flits, now, routing, packets);
                let _ = (j, e);
                self.held[y as usize] += u32::from(d.flits);
                links.in_links -= u64::from(d.flits);
                ctr.flit_traversals += u64::from(d.flits);
                ctr.last_progress = now;
            }
            while let Some(s) = links.links[id].tx_pop_stranded() {
                // Left in the replay buffer of a failed link. Accepted downstream: it went
                // on (its VC was consumed with it). Otherwise it is lost, and counted.
                if !s.delivered {
                    let _ = links.vcs[id].pop_back();
                    links.in_links -= u64::from(s.packet.flits);
                    links.lost += 1;
                    count_lost(s.packet.id, s.packet.flits, packets, ctr);
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
