//! Channels that cross a partition boundary (the partitioned engine, [`crate::sim::parallel`]):
//! the outbox every router microarchitecture that is partitioned uses.
//!
//! A partition steps a contiguous range of routers. A flit or credit a router sends to
//! a router of another partition does not go into a delay line: it goes into the
//! sender's outbox ([`Crossings`]), stamped with its arrival cycle, the receiver's ring
//! and its arrival-calendar row. Between two cycles the engine hands every outbox entry
//! to the partition that owns the receiver, which puts it into its own copy of the ring
//! and notes the arrival (in its arrival calendar, or its count of pending work). Every crossing
//! delay is at least one cycle, so the entry is in place before the cycle it arrives
//! in: the receiver cannot tell it from a local arrival (the two-phase rule).
//!
//! Packets live in one arena per partition. A head flit that crosses carries a copy of
//! its packet's header; the receiver stores it in its arena under a new id, and maps the
//! ids of the packet's later flits, which follow on the same input VC (a VC carries one
//! packet from head to tail), to it. The sender releases its copy when the tail has
//! gone. Packet ids are therefore private to a partition and never reach a result.

use crate::link::{CreditWire, InFlight, Ring};
use crate::packet::{Packet, PacketArena};

/// Which of a partition's routers a step visits. With the pipelined hand-over
/// (`sim/pipeline.rs`) a partition steps its *interior* routers (no channel to or
/// from another partition) before it has received the other partitions' outboxes of
/// the last cycle, and its *boundary* routers after: only they can receive a crossing.
/// Within a cycle the order of the routers changes nothing (the two-phase rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// Every router of the partition, in id order.
    All,
    /// The routers with no crossing channel.
    Interior,
    /// The routers with at least one crossing channel.
    Boundary,
}

/// A flit leaving for a router of another partition.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct CrossFlit {
    /// Cycle it arrives.
    pub arrive: u64,
    /// The channel's flit ring (the same in every partition's copy of the channels).
    pub ring: Ring,
    /// The receiving router's arrival-calendar row for flits (input-queued routers), or
    /// its id (buffered-crossbar routers).
    pub row: u32,
    /// Input port on the receiving router.
    pub port: u8,
    /// The flit, its id still the sender's.
    pub entry: InFlight,
    /// The packet's header, when the flit is a head.
    pub header: Packet,
}

/// A credit going back to a router of another partition.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct CrossCredit {
    /// Cycle it arrives.
    pub arrive: u64,
    /// The channel's credit ring.
    pub ring: Ring,
    /// The receiving router's arrival-calendar row for credits, or its id.
    pub row: u32,
    /// Output port on the receiving router.
    pub port: u8,
    /// The credit.
    pub entry: CreditWire,
}

/// One partition's outbox for a cycle, and what it needs to receive crossings.
#[derive(Clone, Debug, Default)]
pub struct Crossings {
    /// Flits sent this cycle to other partitions, in the order sent.
    pub flits: Vec<CrossFlit>,
    /// Credits sent this cycle to other partitions.
    pub credits: Vec<CrossCredit>,
    /// Per input VC (global index `(router * ports + port) * vcs + vc`) of this
    /// partition's routers on a crossing channel: this partition's id of the packet
    /// whose flits are arriving on it. Empty when the network is not partitioned.
    pub(crate) xlate: Vec<u32>,
    /// Central-arbiter routers with Disha: the recovery token's state after a capture,
    /// a wait or a release this partition decided this cycle (every partition takes it;
    /// see [`crate::router::central::disha`]).
    pub token: Option<crate::router::central::disha::Token>,
    /// Crosspoint switches with link-level retry: what this partition's switches did to
    /// retry links into or out of other partitions this cycle.
    pub retry: Vec<crate::router::crosspoint::RetryEvent>,
    /// Metapacket flits (the congestion estimate gathered in-band) for routers of other
    /// partitions.
    pub meta: Vec<MetaCross>,
}

/// A metapacket flit leaving for a router of another partition (central-arbiter routers,
/// [`crate::congestion::metapacket`]): with its tail, the metapacket's contents.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct MetaCross {
    /// Cycle it arrives.
    pub arrive: u64,
    /// The channel's flit ring.
    pub ring: Ring,
    /// The receiving router.
    pub row: u32,
    /// The flit (its id the sender's slab entry).
    pub entry: InFlight,
    /// The metapacket, with the tail.
    pub pkt: Option<crate::congestion::metapacket::Packet>,
}

impl Crossings {
    /// Flits this outbox hands to other partitions: crossing flits, and the packets
    /// handed to retry links into other partitions.
    pub fn flits_crossing(&self) -> u64 {
        let pushed: u64 = self
            .retry
            .iter()
            .map(|e| if let crate::router::crosspoint::RetryEvent::Push { flits, .. } = e { u64::from(*flits) } else { 0 })
            .sum();
        self.flits.len() as u64 + pushed
    }

    /// Nothing waiting to be handed over?
    pub fn is_empty(&self) -> bool {
        self.flits.is_empty() && self.credits.is_empty() && self.token.is_none() && self.retry.is_empty() && self.meta.is_empty()
    }

    /// Flit `entry` leaves on `ring` for a router of another partition (row `row`,
    /// input port `port`), arriving at `arrive`. A head takes a copy of its header
    /// along; once the tail has gone the packet is no longer this partition's.
    #[inline]
    pub(crate) fn send_flit(&mut self, ring: Ring, row: u32, port: u8, arrive: u64, entry: InFlight, packets: &mut PacketArena) {
        let f = entry.flit;
        let header = if f.is_head() { *packets.get(f.pid) } else { Packet::default() };
        self.flits.push(CrossFlit { arrive, ring, row, port, entry, header });
        if f.is_tail() {
            packets.release(f.pid);
        }
    }

    /// Ask the cache for this outbox's flit and credit lines (a hint). `write`: the
    /// buffers this partition's routers are about to send into (they came back from the
    /// last hand-over but one, read since by the other partitions' cores; at most 2 KiB
    /// of each), taken for writing; else another partition's entries, about to be
    /// received.
    pub fn prefetch(&self, write: bool) {
        const MAX: usize = 2048;
        let bytes = |cap: usize, len: usize, size: usize| if write { (cap * size).min(MAX) } else { len * size };
        super::prefetch_bytes(
            self.flits.as_ptr() as *const u8,
            bytes(self.flits.capacity(), self.flits.len(), std::mem::size_of::<CrossFlit>()),
            write,
        );
        super::prefetch_bytes(
            self.credits.as_ptr() as *const u8,
            bytes(self.credits.capacity(), self.credits.len(), std::mem::size_of::<CrossCredit>()),
            write,
        );
    }

    /// Take this cycle's outbox, leaving `spare` (emptied, keeping its capacity) in its
    /// place with the id map.
    pub fn take(&mut self, mut spare: Crossings) -> Crossings {
        spare.flits.clear();
        spare.credits.clear();
        spare.token = None;
        spare.retry.clear();
        spare.meta.clear();
        spare.xlate = std::mem::take(&mut self.xlate);
        std::mem::replace(self, spare)
    }

    /// Receive the flits and credits of `from` (another partition's outbox) that are for
    /// routers `[lo, hi)` of this partition, whose routers have `ports` ports of `vcs`
    /// VCs and whose outbox is `self`: into this partition's copy of the rings, each
    /// arrival reported to `arrived(router)`. For routers that address a receiver by its
    /// id (`row`); a head's header is stored in `packets` ([`Crossings::receive_id`]).
    #[allow(clippy::too_many_arguments)]
    pub fn receive_at(
        &mut self,
        from: &Crossings,
        (lo, hi): (u32, u32),
        (ports, vcs): (u32, u32),
        ch: &mut crate::link::Channels,
        packets: &mut PacketArena,
        mut arrived: impl FnMut(u32),
    ) {
        for x in &from.flits {
            if !(lo..hi).contains(&x.row) {
                continue;
            }
            let mut entry = x.entry;
            let key = ((x.row * ports + x.port as u32) * vcs + entry.vc as u32) as usize;
            entry.flit.pid = self.receive_id(x, key, packets);
            ch.flits.push_in(x.ring, x.arrive, entry);
            arrived(x.row);
        }
        for c in &from.credits {
            if (lo..hi).contains(&c.row) {
                ch.credits.push_in(c.ring, c.arrive, c.entry);
                arrived(c.row);
            }
        }
    }

    /// A crossing flit for input VC `key` of this partition: its packet id here. A head's
    /// header is stored in `packets` under a new id, which the packet's later flits (on
    /// the same input VC) take.
    #[inline]
    pub fn receive_id(&mut self, x: &CrossFlit, key: usize, packets: &mut PacketArena) -> u32 {
        if x.entry.flit.is_head() {
            let id = packets.alloc(x.header);
            self.xlate[key] = id;
            id
        } else {
            self.xlate[key]
        }
    }
}
