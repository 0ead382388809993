//! The buffered-crossbar routers' side of partitioning ([`crate::router::crossing`]):
//! which ports cross, receiving another partition's outbox (counted as pending work of
//! the receiving router, as a local arrival is), and gathering the partitions' state.
//!
//! A packet's header is written only by the router holding its head (Procedure 1 on
//! receipt, the hand-off age when its output grants it), before the head leaves: so the
//! copy a crossing head carries is the header the next router would have read.

use super::{bump, BufferedRouters};
use crate::link::Channels;
use crate::packet::PacketArena;
use crate::router::crossing::Crossings;

impl BufferedRouters {
    /// Step only routers `[lo, hi)` (one partition); channels to and from other routers
    /// cross. The other routers' state stays here, unused.
    pub fn partition(&mut self, lo: u32, hi: u32) {
        let sink = self.occ.len() as u32;
        let crosses = |router: u32| router != sink && !(lo..hi).contains(&router);
        let p = self.ports as usize;
        for w in &mut self.wiring[lo as usize * p..hi as usize * p] {
            w.cross_out = crosses(w.down_router);
            w.cross_in = crosses(w.up_router);
        }
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
    /// one into this partition's copy of the rings.
    pub fn receive_crossings(&mut self, from: &Crossings, ch: &mut Channels, packets: &mut PacketArena) {
        let pending = &mut self.pending;
        self.crossing.receive_at(from, self.span, (self.ports, self.vcs), ch, packets, |r| bump(&mut pending[r as usize]));
    }

    /// Copy the state of the routers `other` steps (another partition) into this
    /// structure (deadlock reports). Flits keep their partition's packet ids.
    pub fn copy_span_from(&mut self, other: &BufferedRouters) {
        let (lo, hi) = (other.span.0 as usize, other.span.1 as usize);
        let (p, v) = (self.ports as usize, self.vcs as usize);
        let (d, sd) = (self.depth as usize, self.staging_depth as usize);
        copy(&mut self.ivc, &other.ivc, (lo, hi), p * v);
        copy(&mut self.buf, &other.buf, (lo, hi), p * v * d);
        copy(&mut self.stg, &other.stg, (lo, hi), p * p * v);
        copy(&mut self.sbuf, &other.sbuf, (lo, hi), p * p * v * sd);
        copy(&mut self.staged, &other.staged, (lo, hi), p);
        copy(&mut self.out, &other.out, (lo, hi), p);
        copy(&mut self.credits, &other.credits, (lo, hi), p * v);
        copy(&mut self.occ, &other.occ, (lo, hi), 1);
        self.eject.copy_span_from(&other.eject, (lo, hi), p);
    }

    /// Add the performance counters of another partition's routers (at the end of a run).
    pub fn merge_counters(&mut self, other: &BufferedRouters) {
        self.counters.merge(&other.counters);
    }
}

/// Copy routers `[lo, hi)`'s entries (`unit` per router) of `b` into `a`.
fn copy<T: Copy>(a: &mut [T], b: &[T], (lo, hi): (usize, usize), unit: usize) {
    a[lo * unit..hi * unit].copy_from_slice(&b[lo * unit..hi * unit]);
}
