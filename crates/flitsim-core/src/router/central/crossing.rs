//! The central-arbiter routers' side of partitioning ([`crate::router::crossing`]):
//! which ports cross, receiving another partition's outbox (counted as pending work of
//! the receiving router, as a local arrival is, and taking the Disha token's new state),
//! and gathering the partitions' state for deadlock reports.
//!
//! A packet's header is written only by the router holding its head (its hop count, when
//! the head reaches the front of an input lane), before the head leaves: so the copy a
//! crossing head carries is the header the next router would have read. The congestion
//! estimate's count ([`CentralRouters::count_buffers`]) covers the partition's own
//! routers; the engine sums it over the partitions.

use super::CentralRouters;
use crate::link::Channels;
use crate::packet::PacketArena;
use crate::router::crossing::Crossings;

impl CentralRouters {
    /// Step only routers `[lo, hi)` (one partition); channels to and from other routers
    /// cross. The other routers' state stays here, unused, so every index is the same as
    /// in the whole network.
    pub fn partition(&mut self, lo: u32, hi: u32) {
        crate::router::wiring::partition(&mut self.wiring, self.ports, lo, hi);
        self.span = (lo, hi);
        self.crossing.xlate = vec![u32::MAX; self.ivc.len()];
    }

    /// The routers this structure steps, `[lo, hi)`.
    pub fn span(&self) -> (u32, u32) {
        self.span
    }

    /// Take this cycle's outbox ([`Crossings::take`]).
    pub fn take_crossings(&mut self, spare: Crossings) -> Crossings {
        self.crossing.take(spare)
    }

    /// Receive the entries of another partition's outbox that are for routers of this
    /// one into this partition's copy of the rings, and the token's new state if it
    /// decided one.
    pub fn receive_crossings(&mut self, from: &Crossings, ch: &mut Channels, packets: &mut PacketArena) {
        let (lo, hi) = self.span;
        let pending = &mut self.pending;
        self.crossing.receive_at(from, self.span, (self.ports, self.lanes), ch, packets, |r| pending[r as usize] += 1);
        if let Some(t) = from.token {
            self.token = t;
        }
        for x in &from.meta {
            if (lo..hi).contains(&x.row) {
                let mut entry = x.entry;
                entry.flit.pid = self.meta.as_mut().expect("metapackets on both sides").import(x.pkt);
                ch.flits.push_in(x.ring, x.arrive, entry);
                self.pending[x.row as usize] += 1;
            }
        }
    }

    /// Copy the state of the routers `other` steps (another partition) into this
    /// structure (deadlock reports). Flits keep their partition's packet ids.
    pub fn copy_span_from(&mut self, other: &CentralRouters) {
        let (lo, hi) = (other.span.0 as usize, other.span.1 as usize);
        let pl = (self.ports * self.lanes) as usize;
        let d = self.depth as usize;
        self.ivc[lo * pl..hi * pl].copy_from_slice(&other.ivc[lo * pl..hi * pl]);
        self.out[lo * pl..hi * pl].copy_from_slice(&other.out[lo * pl..hi * pl]);
        self.buf[lo * pl * d..hi * pl * d].copy_from_slice(&other.buf[lo * pl * d..hi * pl * d]);
        self.held[lo..hi].copy_from_slice(&other.held[lo..hi]);
        self.waiting[lo..hi].copy_from_slice(&other.waiting[lo..hi]);
    }

    /// Add the event counts of another partition's routers, and its metapacket report
    /// (at the end of a run).
    pub fn merge_counters(&mut self, other: &CentralRouters) {
        self.counters.merge(&other.counters);
        if let (Some(m), Some(o)) = (self.meta.as_mut(), other.meta.as_ref()) {
            m.absorb_report(&o.report_part());
        }
    }
}
