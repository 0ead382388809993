//! The crosspoint switches' side of partitioning ([`crate::router::crossing`]): which
//! ports cross, receiving another partition's outbox (counted as pending work of the
//! receiving switch, as a local arrival is), and gathering the partitions' state for
//! deadlock reports.
//!
//! A packet's header (its routing string, shifted at each switch, and its hop count) is
//! written only by the switch holding its head, when the head arrives there, before the
//! head leaves: so the copy a crossing head carries is the header the next switch would
//! have read. An entry credit ("entry freed", the control packets' report) crosses back
//! like any credit. Networks with link-level retry are not partitioned: a retry link's
//! two ends share its protocol state every cycle ([`crate::sim::parallel::serial_reason`]).

use super::CrosspointRouters;
use crate::link::Channels;
use crate::router::crossing::Crossings;
use crate::sim::packet::PacketArena;

impl CrosspointRouters {
    /// Step only switches `[lo, hi)` (one partition); channels to and from other switches
    /// cross. The other switches' state stays here, unused, so every index is the same as
    /// in the whole network.
    pub fn partition(&mut self, lo: u32, hi: u32) {
        crate::router::wiring::partition(&mut self.wiring, self.ports, lo, hi);
        self.span = (lo, hi);
        self.crossing.xlate = vec![u32::MAX; (self.held.len() as u32 * self.ports * self.vcs) as usize];
    }

    /// The switches this structure steps, `[lo, hi)`.
    pub fn span(&self) -> (u32, u32) {
        self.span
    }

    /// Take this cycle's outbox ([`Crossings::take`]).
    pub fn take_crossings(&mut self, spare: Crossings) -> Crossings {
        self.crossing.take(spare)
    }

    /// Receive the entries of another partition's outbox that are for switches of this
    /// one into this partition's copy of the rings.
    pub fn receive_crossings(&mut self, from: &Crossings, ch: &mut Channels, packets: &mut PacketArena) {
        let (lo, hi) = self.span;
        let (p_n, v_n) = (self.ports, self.vcs);
        for x in &from.flits {
            if !(lo..hi).contains(&x.row) {
                continue;
            }
            let mut entry = x.entry;
            let key = ((x.row * p_n + x.port as u32) * v_n + entry.vc as u32) as usize;
            entry.flit.pid = self.crossing.receive_id(x, key, packets);
            ch.flits.push_in(x.ring, x.arrive, entry);
            self.pending[x.row as usize] += 1;
        }
        for c in &from.credits {
            if (lo..hi).contains(&c.row) {
                ch.credits.push_in(c.ring, c.arrive, c.entry);
                self.pending[c.row as usize] += 1;
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

    /// Add the event counts of another partition's switches (at the end of a run).
    pub fn merge_counters(&mut self, other: &CrosspointRouters) {
        self.counters.merge(&other.counters);
    }
}
