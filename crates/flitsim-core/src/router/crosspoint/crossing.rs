//! The crosspoint switches' side of partitioning ([`crate::router::crossing`]): which
//! ports cross, receiving another partition's outbox (counted as pending work of the
//! receiving switch, as a local arrival is), and gathering the partitions' state for
//! deadlock reports.
//!
//! A packet's header (its routing string, shifted at each switch, and its hop count) is
//! written only by the switch holding its head, when the head arrives there, before the
//! head leaves: so the copy a crossing head carries is the header the next switch would
//! have read. An entry credit ("entry freed", the control packets' report) crosses back
//! like any credit.
//!
//! **Retry links that cross** (`[channel.retry]`, the link-level retry protocol of
//! sections 3.1-3.3 and 4.3 of `papers/sicortex-kautz-fabric.txt`, as modelled in
//! [`crate::link::retry`]): both partitions hold a copy of the
//! link ([`RetryLink`](crate::link::retry::RetryLink): transmitter, receiver, both wires,
//! the error streams) and step it alike every cycle, so every protocol event (a flit hit
//! by an error, a lost control packet, a replay, a failure) happens in both copies in the
//! same cycle. What only one end's switch does to the link goes to the other partition
//! with the outbox ([`RetryEvent`]), which does it to its copy before the next cycle:
//! the transmitter handing over a packet (with a copy of its header), the receiver
//! sending an arriving packet on before its tail, the transmitter resolving a packet it
//! had sent on early. Each is on the side of the link its switch owns, and the other
//! side reads it a cycle or more later (a poisoned mark travels in the tail, which
//! arrives at least two cycles after the switch before checked its own copy), so the
//! copies take the same steps as the one-partition link. The receiving partition takes
//! the deliveries into its switch; the transmitting one counts the packets a failed link
//! loses and releases its packet once delivered; each link's counters are reported by
//! the partition of its transmitter.

use super::links::{RetryEvent, RX, TX};
use super::CrosspointRouters;
use crate::link::Channels;
use crate::packet::PacketArena;
use crate::router::crossing::Crossings;

impl CrosspointRouters {
    /// Step only switches `[lo, hi)` (one partition); channels to and from other switches
    /// cross. The other switches' state stays here, unused, so every index is the same as
    /// in the whole network.
    pub fn partition(&mut self, lo: u32, hi: u32) {
        crate::router::wiring::partition(&mut self.wiring, self.ports, lo, hi);
        self.span = (lo, hi);
        self.crossing.xlate = vec![u32::MAX; (self.held.len() as u32 * self.ports * self.vcs) as usize];
        if let Some(links) = self.retry.as_mut() {
            links.partition(lo, hi);
        }
    }

    /// The switches this structure steps, `[lo, hi)`.
    pub fn span(&self) -> (u32, u32) {
        self.span
    }

    /// Take this cycle's outbox ([`Crossings::take`]).
    pub fn take_crossings(&mut self, spare: Crossings) -> Crossings {
        let mut out = self.crossing.take(spare);
        if let Some(links) = self.retry.as_mut() {
            std::mem::swap(&mut out.retry, &mut links.events);
        }
        out
    }

    /// Receive the entries of another partition's outbox that are for switches of this
    /// one into this partition's copy of the rings.
    pub fn receive_crossings(&mut self, from: &Crossings, ch: &mut Channels, packets: &mut PacketArena) {
        let pending = &mut self.pending;
        self.crossing.receive_at(from, self.span, (self.ports, self.vcs), ch, packets, |r| pending[r as usize] += 1);
        if let Some(links) = self.retry.as_mut() {
            for ev in &from.retry {
                links.apply(ev, packets);
            }
        }
    }

    /// Copy the DMA queues of the switches `other` steps (another partition) into this
    /// structure (deadlock reports show them). Flits keep their partition's packet ids.
    pub fn copy_span_from(&mut self, other: &CrosspointRouters) {
        let (lo, hi) = (other.span.0 as usize, other.span.1 as usize);
        let v = self.vcs as usize;
        let d = self.inject_depth as usize;
        self.inj[lo * v * d..hi * v * d].copy_from_slice(&other.inj[lo * v * d..hi * v * d]);
        self.inj_head[lo * v..hi * v].copy_from_slice(&other.inj_head[lo * v..hi * v]);
        self.inj_len[lo * v..hi * v].copy_from_slice(&other.inj_len[lo * v..hi * v]);
        self.held[lo..hi].copy_from_slice(&other.held[lo..hi]);
    }

    /// Add the event counts of another partition's switches, and its retry links'
    /// totals (at the end of a run).
    pub fn merge_counters(&mut self, other: &CrosspointRouters) {
        self.counters.merge(&other.counters);
        if let Some(p) = other.retry_part() {
            self.absorb_retry(&p);
        }
    }
}

impl super::links::Links {
    /// Step only the ends of links at switches `[lo, hi)`; links with neither end there
    /// are not stepped at all. Flits inside links are no longer counted ([`Self::in_links`]
    /// serves check mode, which is not partitioned).
    pub(super) fn partition(&mut self, lo: u32, hi: u32) {
        let ports = self.ports;
        for (at, &id) in self.of_port.iter().enumerate() {
            if id == crate::topology::NONE {
                continue;
            }
            let (src, dst) = ((at / ports) as u32, self.dst[id as usize].0);
            self.role[id as usize] = if (lo..hi).contains(&src) { TX } else { 0 } | if (lo..hi).contains(&dst) { RX } else { 0 };
        }
        self.whole = false;
        self.in_links = 0;
    }

    /// Do to this partition's copy of a link what the other end's partition did to its
    /// copy in the cycle just stepped.
    fn apply(&mut self, ev: &RetryEvent, packets: &mut PacketArena) {
        match *ev {
            RetryEvent::Push { link, pid, flits, vc, route, early, from, header } => {
                if self.role[link as usize] == RX {
                    let here = packets.alloc(header);
                    self.push_copy(link as usize, pid, flits, vc, route, early, from, here);
                }
            }
            RetryEvent::ForwardEarly { link } => {
                if self.role[link as usize] == TX {
                    let forwarded = self.links[link as usize].rx_forward_early();
                    debug_assert!(forwarded, "the other copy had a packet arriving");
                }
            }
            RetryEvent::Resolve { link, pid, from, ghost, hops } => {
                if self.role[link as usize] == RX {
                    if let Some(here) = self.resolve_in(link as usize, pid, from, ghost) {
                        if !ghost {
                            packets.get_mut(here).hops = hops;
                        }
                    }
                }
            }
        }
    }

    /// Add another partition's totals (at the end of a partitioned run).
    pub(super) fn absorb(&mut self, p: &super::links::RetryPart) {
        self.absorbed.add(p);
    }
}

impl CrosspointRouters {
    /// This partition's retry-link totals, for the report of a partitioned run.
    pub fn retry_part(&self) -> Option<super::links::RetryPart> {
        self.retry.as_ref().map(|l| l.part())
    }

    /// Add another partition's retry-link totals (at the end of a partitioned run).
    pub fn absorb_retry(&mut self, p: &super::links::RetryPart) {
        if let Some(l) = self.retry.as_mut() {
            l.absorb(p);
        }
    }
}
