//! The dateline node's drop rule of the Cray XT router (Abts07, section 3; keys in
//! `docs/papers.md`): "The dateline will switch any
//! packet from VC0 to VC1. If a packet is already on VC1, it is considered a software
//! error and it will be dropped by the router. For this reason, all packets going into
//! the dateline must be on VC0."
//!
//! A packet is dropped at router `r` when `r` is the dateline node of a torus dimension
//! (XT VC policies only: `dor` has no dateline node), the packet arrived over that
//! dimension's link, leaves on that dimension's link again (passing through, so the
//! dateline would switch it), and arrived on the upper VC of its class (VC1 of the XT's
//! pair). A packet that ends its run in the dimension at the dateline node (turns, or is
//! delivered there) is not switched, so not dropped.
//!
//! Generated tables never do this (tests check every policy); tables loaded from a file
//! can. `routing.dateline_errors` says what happens then: `refuse` (default) reports the
//! node pairs whose packets would be dropped before anything runs; `drop` simulates
//! them as the hardware does: the router (input-queued, or the buffered-crossbar
//! SeaStar model) discards the packet as it arrives, returning its credits, and the
//! result counts the drops (`dateline_drops`, [`crate::router::drops`]) and names the
//! first.

use serde::{Deserialize, Serialize};

use super::{TableRouting, VcPolicy};
use crate::error::{Error, Result};
use crate::topology::Topology;

/// The config field that governs dateline drops; a route walk that reaches a drop
/// returns a config error naming it ([`TableRouting::path`]).
pub const DROP_FIELD: &str = "routing.dateline_errors";

/// What to do with packets the tables would have dropped at a dateline node
/// (`routing.dateline_errors`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DatelineErrors {
    /// Check the tables before the run and refuse a set that drops any pair's packets,
    /// naming the pairs.
    #[default]
    Refuse,
    /// Run them: the dateline router drops such packets (counted in the result's
    /// `dateline_drops` and in `counters.packets_lost`).
    Drop,
}

/// Per router: bit `d` set when the router is the dateline node of its ring in torus
/// dimension `d` (`ring_dateline[router * ndims + d]`, [`super::ring_datelines`]) under
/// an XT VC `policy` (none under `dor`).
pub(super) fn dateline_nodes(topo: &Topology, policy: VcPolicy, ring_dateline: &[u32]) -> Vec<u16> {
    let nd = topo.ndims();
    (0..topo.num_routers)
        .map(|r| {
            if policy == VcPolicy::Dor {
                return 0;
            }
            let c = topo.coords(r);
            (0..nd).filter(|&d| topo.wrap[d] && c[d] == ring_dateline[r as usize * nd + d]).fold(0u16, |m, d| m | 1 << d)
        })
        .collect()
}

impl TableRouting {
    /// Does router `r` drop a packet that arrived on input `in_port`, VC `in_vc`, and is
    /// routed to output `out_port` (see the module docs)? Hot path: one load and a few
    /// compares.
    #[inline(always)]
    pub fn drops(&self, r: u32, in_port: u32, in_vc: u32, out_port: u32) -> bool {
        let dim = in_port / 2;
        // (Local ports' "dimensions" are past the last one: their bits are never set.)
        let at = dim < 16 && self.at_dateline[r as usize] >> dim & 1 != 0;
        at && out_port / 2 == dim && in_vc as u8 >= self.class_base[(in_vc & 15) as usize] + self.split
    }

    /// What the tables' dateline drops do (`routing.dateline_errors`).
    pub fn dateline_errors(&self) -> DatelineErrors {
        self.dateline_errors
    }

    /// These tables with dateline drops handled as `e` says; `path` names the routing
    /// config table. Only the XT VC policies have dateline nodes that drop.
    pub fn with_dateline_errors(mut self, e: DatelineErrors, path: &str) -> Result<Self> {
        if e == DatelineErrors::Drop && self.policy == VcPolicy::Dor {
            return Err(Error::config(
                format!("{path}.dateline_errors"),
                "\"drop\" applies to the dateline nodes of the Cray XT VC policies, and these tables use vc_policy = \"dor\" (no dateline node drops); set vc_policy = \"v3\" (or initial, v1, v2), or remove dateline_errors",
            ));
        }
        self.dateline_errors = e;
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::super::rule;
    use crate::config::Config;
    use crate::routing::RoutingFunction;

    /// A 4x4 torus with v3 tables whose every entry is rewritten to the upper VC (VC1):
    /// packets that pass through an x dateline node arrive there on VC1.
    fn upper_everywhere() -> (RoutingFunction, crate::topology::Topology) {
        let spec = Config::from_toml("[topology]\ntype = \"cube\"\ndims = [4, 4]\nwrap = [true, true]\n[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"\n", &[]).unwrap().validate().unwrap();
        let (topo, mut routing) = (spec.topology, spec.routing);
        let RoutingFunction::Table(t) = &mut routing else { panic!("table routing") };
        for e in t.entries_mut() {
            if e.vc != rule::ANY {
                e.vc = rule::UPPER;
            }
        }
        (routing, topo)
    }

    #[test]
    fn only_a_packet_passing_a_dateline_node_on_vc1_is_dropped() {
        let (routing, _) = upper_everywhere();
        let RoutingFunction::Table(t) = &routing else { panic!() };
        // Dateline nodes default to k - 1 = 3: router (3, y) for x, (x, 3) for y.
        let r = |x: u32, y: u32| y * 4 + x;
        let (xp, xm, yp) = (0, 1, 2);
        // Moving in +x, a packet arrives on the x- port; at (3, 0), continuing +x on VC1,
        // it is dropped.
        assert!(t.drops(r(3, 0), xm, 1, xp));
        assert!(!t.drops(r(3, 0), xm, 0, xp), "VC0 is switched to VC1, not dropped");
        assert!(!t.drops(r(3, 0), xm, 1, yp), "turning at the dateline node is not passing through");
        assert!(!t.drops(r(2, 0), xm, 1, xp), "not a dateline node of x");
        assert!(!t.drops(r(3, 0), 4, 1, xp), "injected at the dateline node: not passing through");
        assert!(t.drops(r(0, 3), 3, 1, 2), "the y dateline node, passing in +y");
    }

    #[test]
    fn a_walk_that_reaches_a_drop_names_the_field() {
        let (routing, topo) = upper_everywhere();
        // 1 -> 0 by x: from x = 1 ... every hop on VC1; 2 -> 0 in +x passes x = 3.
        let e = routing.path(&topo, 2, 0, 0).unwrap_err();
        assert_eq!(e.path(), Some(super::DROP_FIELD), "{e}");
        assert!(e.to_string().contains("VC1"), "{e}");
        // Ending at the dateline node is no drop: 2 -> 3.
        assert!(routing.path(&topo, 2, 3, 0).is_ok());
    }
}
