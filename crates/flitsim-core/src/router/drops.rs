//! Packets the routers drop at a Cray XT dateline node (a table error the hardware
//! answers by dropping, [`crate::routing::table::DROP_FIELD`]): how many, and the first,
//! so that a run names where its tables went wrong. The input-queued and the
//! buffered-crossbar (SeaStar) routers drop.
//!
//! A dropped packet's input VC discards its flits as they reach the front, one per cycle
//! in place of the flit its input port would send on (its credit wire carries one
//! credit a cycle), returning a credit for each; its flits are counted in
//! `counters.flits_lost` and the packet, at its tail, in `counters.packets_lost`.

use serde::{Deserialize, Serialize};

/// One drop: where the router decided it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DropEvent {
    /// Cycle the head was routed (and the drop decided).
    pub cycle: u64,
    /// The dateline router.
    pub router: u32,
    /// Input port and VC the packet arrived on.
    pub port: u32,
    pub vc: u32,
    /// The packet's source and destination endpoints.
    pub src: u32,
    pub dst: u32,
}

impl DropEvent {
    /// Order of "first": cycle, then router, port and VC (the same on any partitioning).
    fn key(&self) -> (u64, u32, u32, u32) {
        (self.cycle, self.router, self.port, self.vc)
    }
}

/// Dateline drops over a run (the result's `dateline_drops`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatelineDrops {
    /// Packets the routers decided to drop.
    pub packets: u64,
    /// The first drop.
    pub first: Option<DropEvent>,
}

impl DatelineDrops {
    /// A router decided a drop.
    pub(crate) fn record(&mut self, e: DropEvent) {
        self.merge(&DatelineDrops { packets: 1, first: Some(e) });
    }

    /// Add another partition's drops.
    pub fn merge(&mut self, o: &DatelineDrops) {
        self.packets += o.packets;
        if let Some(e) = o.first {
            if self.first.is_none_or(|f| e.key() < f.key()) {
                self.first = Some(e);
            }
        }
    }
}
