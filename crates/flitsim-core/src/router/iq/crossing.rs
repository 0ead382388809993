//! Channels that cross a partition boundary (the partitioned engine, [`crate::sim::parallel`]).
//!
//! A partition steps a contiguous range of routers. A flit or credit a router sends to
//! a router of another partition does not go into a delay line: it goes into the
//! sender's outbox ([`Crossings`]), stamped with its arrival cycle, the receiver's ring
//! and its arrival-calendar row. Between two cycles the engine hands every outbox entry
//! to the partition that owns the receiver ([`super::IqRouters::receive_crossings`]),
//! which puts it into its own copy of the ring and marks its calendar. Every crossing
//! delay is at least one cycle, so the entry is in place before the cycle it arrives
//! in: the receiver cannot tell it from a local arrival (the two-phase rule).
//!
//! Packets live in one arena per partition. A head flit that crosses carries a copy of
//! its packet's header; the receiver stores it in its arena under a new id, and maps the
//! ids of the packet's later flits, which follow on the same input VC (a VC carries one
//! packet from head to tail), to it. The sender releases its copy when the tail has
//! gone. Packet ids are therefore private to a partition and never reach a result.

use super::arrivals::{Arrive, Arrivals};
use super::IqRouters;
use crate::link::{Channels, CreditWire, InFlight, Ring};
use crate::sim::packet::{Packet, PacketArena};

/// A flit leaving for a router of another partition.
#[derive(Clone, Copy, Debug)]
pub struct CrossFlit {
    /// Cycle it arrives.
    pub arrive: u64,
    /// The channel's flit ring (the same in every partition's copy of the channels).
    pub ring: Ring,
    /// Arrival-calendar row of the receiving router (flits).
    pub row: u32,
    /// Input port on the receiving router.
    pub port: u8,
    /// The flit, its id still the sender's.
    pub entry: InFlight,
    /// The packet's header, when the flit is a head.
    pub header: Packet,
}

/// A credit going back to a router of another partition.
#[derive(Clone, Copy, Debug)]
pub struct CrossCredit {
    /// Cycle it arrives.
    pub arrive: u64,
    /// The channel's credit ring.
    pub ring: Ring,
    /// Arrival-calendar row of the receiving router (credits).
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
    pub(super) xlate: Vec<u32>,
}

impl Crossings {
    /// Nothing waiting to be handed over?
    pub fn is_empty(&self) -> bool {
        self.flits.is_empty() && self.credits.is_empty()
    }
}

impl Crossings {
    /// Flit `entry` leaves on `ring` for a router of another partition (calendar row
    /// `row`, input port `port`), arriving at `arrive`. A head takes a copy of its header
    /// along; once the tail has gone the packet is no longer this partition's.
    #[inline]
    pub(super) fn send_flit(&mut self, ring: Ring, row: u32, port: u8, arrive: u64, entry: InFlight, packets: &mut PacketArena) {
        let f = entry.flit;
        let header = if f.is_head() { *packets.get(f.pid) } else { Packet::default() };
        self.flits.push(CrossFlit { arrive, ring, row, port, entry, header });
        if f.is_tail() {
            packets.release(f.pid);
        }
    }
}

impl IqRouters {
    /// Make this structure step only routers `[lo, hi)` (one partition): channels to and
    /// from routers outside the range cross ([`Crossings`]). The other routers' state
    /// stays here, unused, so every index is the same as in the whole network.
    pub fn partition(&mut self, lo: u32, hi: u32) {
        let Arrivals::Calendar(cal) = &self.arrivals else {
            panic!("only networks with an arrival calendar are partitioned (checked by the engine)");
        };
        let shift = cal.shift;
        let sink = self.sets.len() as u32;
        let crosses = |row: u32| {
            let router = row >> shift;
            router != sink && !(lo..hi).contains(&router)
        };
        let p = self.ports as usize;
        for r in lo as usize..hi as usize {
            for w in &mut self.wiring[r * p..(r + 1) * p] {
                w.cross_out = crosses(w.down_router);
                w.cross_in = crosses(w.up_router);
            }
        }
        self.span = (lo, hi);
        self.crossing.xlate = vec![u32::MAX; self.ivc.len()];
    }

    /// Do these routers learn of arrivals from a calendar (the partitioned engine needs
    /// one)?
    pub fn has_calendar(&self) -> bool {
        matches!(self.arrivals, Arrivals::Calendar(_))
    }

    /// The routers this structure steps, `[lo, hi)`.
    pub fn span(&self) -> (u32, u32) {
        self.span
    }

    /// Take this cycle's outbox (leaving an empty one that keeps the capacity of `spare`).
    pub fn take_crossings(&mut self, spare: Crossings) -> Crossings {
        let mut spare = spare;
        spare.flits.clear();
        spare.credits.clear();
        spare.xlate = std::mem::take(&mut self.crossing.xlate);
        std::mem::replace(&mut self.crossing, spare)
    }

    /// Receive the entries of another partition's outbox that are for routers of this
    /// one: into this partition's copy of the rings, marked in its calendar, a head's
    /// header stored in `packets` under a new id that the packet's later flits take.
    pub fn receive_crossings(&mut self, from: &Crossings, ch: &mut Channels, packets: &mut PacketArena) {
        let Arrivals::Calendar(cal) = &mut self.arrivals else {
            unreachable!("partitioned networks have an arrival calendar");
        };
        let (lo, hi) = self.span;
        let (p_n, v_n) = (self.ports, self.vcs);
        let xlate = &mut self.crossing.xlate;
        for x in &from.flits {
            let router = x.row >> cal.shift;
            if !(lo..hi).contains(&router) {
                continue;
            }
            let mut entry = x.entry;
            let key = ((router * p_n + x.port as u32) * v_n + entry.vc as u32) as usize;
            entry.flit.pid = if entry.flit.is_head() {
                let id = packets.alloc(x.header);
                xlate[key] = id;
                id
            } else {
                xlate[key]
            };
            ch.flits.push_in(x.ring, x.arrive, entry);
            cal.notify_row(x.row, x.port as u32, x.arrive);
        }
        for c in &from.credits {
            if (lo..hi).contains(&(c.row >> cal.shift)) {
                ch.credits.push_in(c.ring, c.arrive, c.entry);
                cal.notify_row(c.row, c.port as u32, c.arrive);
            }
        }
    }

    /// Copy the state of the routers `other` steps (another partition) into this
    /// structure, so that it shows the whole network (deadlock reports and checks).
    /// Flits copied keep their partition's packet ids.
    pub fn copy_span_from(&mut self, other: &IqRouters) {
        let (lo, hi) = other.span;
        let (lo, hi) = (lo as usize, hi as usize);
        let pv = (self.ports * self.vcs) as usize;
        let d = self.depth as usize;
        let p = self.ports as usize;
        self.ivc[lo * pv..hi * pv].copy_from_slice(&other.ivc[lo * pv..hi * pv]);
        self.out[lo * pv..hi * pv].copy_from_slice(&other.out[lo * pv..hi * pv]);
        self.buf[lo * pv * d..hi * pv * d].copy_from_slice(&other.buf[lo * pv * d..hi * pv * d]);
        self.sets[lo..hi].copy_from_slice(&other.sets[lo..hi]);
        self.ptrs[lo * p..hi * p].copy_from_slice(&other.ptrs[lo * p..hi * p]);
    }
}
