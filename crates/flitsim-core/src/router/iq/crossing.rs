//! The input-queued routers' side of partitioning ([`crate::router::crossing`]): which
//! ports cross, receiving another partition's outbox into the arrival calendar, and
//! gathering the partitions' state for deadlock reports.

use super::arrivals::{Arrivals, Arrive};
use super::IqRouters;
use crate::link::Channels;
use crate::packet::PacketArena;
use crate::router::crossing::Crossings;

impl IqRouters {
    /// Make this structure step only routers `[lo, hi)` (one partition): channels to and
    /// from routers outside the range cross ([`Crossings`]). The other routers' state
    /// stays here, unused, so every index is the same as in the whole network.
    pub fn partition(&mut self, lo: u32, hi: u32) {
        let Arrivals::Calendar(cal) = &self.arrivals else {
            panic!("only networks with an arrival calendar are partitioned (checked by the engine)");
        };
        let shift = cal.shift;
        let sink = self.routers;
        let crosses = |row: u32| {
            let router = row >> shift;
            router != sink && !(lo..hi).contains(&router)
        };
        let p = self.ports as usize;
        let rows = self.routers as usize + 1;
        let mut interior = Vec::new();
        for r in lo..hi {
            let mut crossing = false;
            for w in &mut self.wiring[r as usize * p..(r as usize + 1) * p] {
                w.cross_out = crosses(w.down_router);
                w.cross_in = crosses(w.up_router);
                crossing |= w.cross_out | w.cross_in;
            }
            if !crossing {
                interior.push(r);
            }
        }
        self.span = (lo, hi);
        let all = router_set(rows, lo..hi);
        let inner = router_set(rows, interior.iter().copied());
        let outer: Vec<u64> = all.iter().zip(&inner).map(|(a, i)| a & !i).collect();
        self.boundary = (lo..hi).filter(|&r| outer[r as usize / 64] >> (r % 64) & 1 != 0).collect();
        self.interior = interior;
        self.select = [all, inner, outer];
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

    /// Ask the cache for this cycle's outbox buffers, for writing
    /// ([`Crossings::prefetch`]).
    pub fn prefetch_crossings(&self) {
        self.crossing.prefetch(true);
    }

    /// Take this cycle's outbox ([`Crossings::take`]).
    pub fn take_crossings(&mut self, spare: Crossings) -> Crossings {
        self.crossing.take(spare)
    }

    /// The router a crossing's `row` (its arrival-calendar row) names.
    pub fn row_router(&self, row: u32) -> u32 {
        match &self.arrivals {
            Arrivals::Calendar(c) => row >> c.shift,
            Arrivals::Counting(_) => row,
        }
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
        for x in &from.flits {
            let router = x.row >> cal.shift;
            if !(lo..hi).contains(&router) {
                continue;
            }
            let mut entry = x.entry;
            let key = ((router * p_n + x.port as u32) * v_n + entry.vc as u32) as usize;
            entry.flit.pid = self.crossing.receive_id(x, key, packets);
            ch.flits.push_in(x.ring, x.arrive, entry);
            cal.notify_row(x.row, router, x.port as u32, x.arrive);
        }
        for c in &from.credits {
            let router = c.row >> cal.shift;
            if (lo..hi).contains(&router) {
                ch.credits.push_in(c.ring, c.arrive, c.entry);
                cal.notify_row(c.row, router, c.port as u32, c.arrive);
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
        self.lanes.copy_span_from(&other.lanes, lo, hi);
        self.ptrs[lo * p..hi * p].copy_from_slice(&other.ptrs[lo * p..hi * p]);
        self.eject.copy_span_from(&other.eject, (lo, hi), p);
    }
}

/// The routers `members` as a set of one bit per router, over `rows` routers.
pub(super) fn router_set(rows: usize, members: impl IntoIterator<Item = u32>) -> Vec<u64> {
    let mut set = vec![0; rows.div_ceil(64)];
    for r in members {
        set[r as usize / 64] |= 1 << (r % 64);
    }
    set
}
