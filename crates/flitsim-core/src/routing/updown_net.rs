//! Up*/Down* source routing on a fat tree in the engine (`routing.type = "updown"`):
//! the NIC picks one of the shortest up*/down* routes ([`super::updown`]) for each packet
//! and the packet carries it, one port symbol per switch, as a Myrinet packet carries its
//! route bytes (Geoffray and Hoefler, `papers/clos-adaptive-routing.txt`, section 2.3).
//!
//! **Selection** (section 4, the first two NIC schemes):
//! * [`Selection::Static`]: one fixed route per source-destination pair, chosen by the
//!   [`StaticScheme`] `routing.static_scheme` (default `destination`, destination-mod-k:
//!   the up port at each level is the destination's own digit there, the usual fat-tree
//!   table assignment; `source` and `hashed` are the alternatives of [`super::updown`]).
//! * [`Selection::Random`]: a uniformly random route per packet (random oblivious). The
//!   draw is counter-based: route `mix(seed, source, packet number) mod R`, i.e. packet
//!   `seq` of source `s` takes draw `seq` of the source's own stream (domain
//!   [`crate::rng::domain::ROUTE`]), so it depends on neither the order routers are
//!   stepped in nor any state the (immutable) routing function would have to keep.
//!
//! **Carrying the route.** The source leaf builds the route string when the head arrives
//! from the NIC ([`UpDownRouting::route_string`]): symbol `i` (the lowest first) is the
//! output port at the `i`-th switch, `bits` bits each (enough for the router's ports); the
//! last is the destination's local port. Every switch, the source leaf included, shifts
//! its symbol off ([`UpDownRouting::shift`]). Routes of a packet to itself are the one
//! symbol of its local port.
//!
//! **Deadlock freedom.** Up*/down* routes never take an up channel after a down channel,
//! so the channel dependency graph is acyclic ([`super::updown::up_down_cdg`]) with any
//! VC choice: every VC may be used, and one VC suffices.
//!
//! [`UpDownRouting::route`] (the hop-by-hop interface tools such as `flitsim routes` and
//! [`super::cdg`] use, which sees only the destination) answers with the
//! destination-mod-k route, which is a function of (switch, destination). The input-queued
//! router reads the carried route instead.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::updown::{self, StaticScheme};
use super::Candidate;
use crate::error::{Error, Result};
use crate::rng::{domain, mix64};
use crate::topology::clos::FatTree;
use crate::topology::{Shape, Topology};

/// How the NIC chooses among a pair's routes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// One fixed route per pair ([`StaticSchemeConfig`]).
    #[default]
    Static,
    /// A random route per packet.
    Random,
    /// Adaptive dispersion at the NIC ([`crate::endpoint::dispersion`]): the static route
    /// until back-pressure beyond `routing.threshold` blocked packets, then a random
    /// other route with `routing.probability`.
    Adaptive,
    /// Probing adaptive dispersion ([`crate::endpoint::dispersion`]): switch only to a
    /// route a probe found unused; forced after `routing.probe_limit` failed probes (default: once every other route failed a probe twice).
    Probing,
}

/// `routing.static_scheme`: which route a static NIC table holds for a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StaticSchemeConfig {
    /// Destination-mod-k (default).
    #[default]
    Destination,
    /// Source-mod-k.
    Source,
    /// A pseudo-random route per pair, from the run seed.
    Hashed,
}

/// The routing function.
#[derive(Clone, Debug)]
pub struct UpDownRouting {
    tree: Arc<FatTree>,
    selection: Selection,
    scheme: StaticScheme,
    /// Key of the random route streams (from the run seed).
    key: u64,
    vcs: u32,
    net_ports: u32,
    bits: u32,
}

impl UpDownRouting {
    /// Up*/down* routing on `topo` (a fat tree) with `vcs` VCs; `seed` is the run seed;
    /// `path` is the config table ("routing").
    pub fn new(topo: &Topology, selection: Selection, scheme: StaticSchemeConfig, vcs: u32, seed: u64, path: &str) -> Result<Self> {
        let (Shape::FatTree, Some(tree)) = (&topo.shape, &topo.fat_tree) else {
            return Err(Error::config(
                format!("{path}.type"),
                "up*/down* routing needs a fat tree; use topology.type = \"clos\" or \"k_ary_n_tree\", or another routing type",
            ));
        };
        let bits = 32 - (topo.ports - 1).max(1).leading_zeros();
        let symbols = 2 * tree.levels() - 1;
        if symbols * bits > 64 {
            return Err(Error::config(
                "topology",
                format!("routes through {symbols} switches of {} ports need {} bits, more than the 64 a packet header carries; use fewer stages or levels", topo.ports, symbols * bits),
            ));
        }
        let scheme = match scheme {
            StaticSchemeConfig::Destination => StaticScheme::Destination,
            StaticSchemeConfig::Source => StaticScheme::Source,
            StaticSchemeConfig::Hashed => StaticScheme::Hashed { seed },
        };
        let key = mix64(seed ^ mix64(domain::ROUTE));
        Ok(UpDownRouting { tree: tree.clone(), selection, scheme, key, vcs, net_ports: topo.net_ports, bits })
    }

    /// Number of routes from `src` to `dst` (1 on one leaf or to itself).
    pub fn route_count(&self, src: u32, dst: u32) -> u32 {
        let Some(u) = self.tree.common_ancestor_level(src, dst) else { return 1 };
        (0..u).map(|l| self.tree.up_ports(l)).product()
    }

    /// VCs per port (all usable by every packet).
    pub fn vcs(&self) -> u32 {
        self.vcs
    }

    /// The route selection.
    pub fn selection(&self) -> Selection {
        self.selection
    }

    /// Index of the route packet number `seq` of `src` takes to `dst` (`0..R`).
    pub fn route_index(&self, src: u32, dst: u32, seq: u32) -> u64 {
        let Some(u) = self.tree.common_ancestor_level(src, dst) else { return 0 };
        let count: u64 = (0..u).map(|l| self.tree.up_ports(l) as u64).product();
        match self.selection {
            // The dispersive schemes start on the static route; the NIC writes the route.
            Selection::Static | Selection::Adaptive | Selection::Probing => {
                updown::static_index(&self.tree, src, dst, self.scheme).unwrap_or(0)
            }
            Selection::Random => mix64(self.key ^ mix64((src as u64) << 32 | seq as u64)) % count,
        }
    }

    /// The route string of packet number `seq` from node `src` to node `dst` (see the
    /// module docs): crossbar ports, the destination's local port last.
    pub fn route_string(&self, src: u32, dst: u32, seq: u32) -> u64 {
        self.route_string_at(src, dst, self.route_index(src, dst, seq))
    }

    /// The route string of route `index` (`0..route_count`) from `src` to `dst`.
    pub fn route_string_at(&self, src: u32, dst: u32, index: u64) -> u64 {
        let local = self.net_ports + self.tree.leaf_port_of(dst);
        if src == dst {
            return local as u64;
        }
        let route = updown::route(&self.tree, src, dst, index).expect("nodes of the tree, distinct, index in range");
        let ports = route.ports();
        let mut bits = 0u64;
        for (i, &p) in ports.iter().enumerate() {
            let sym = if i + 1 == ports.len() { local } else { p as u32 };
            bits |= (sym as u64) << (i as u32 * self.bits);
        }
        bits
    }

    /// A switch shifts its symbol off the route string: its output port.
    #[inline]
    pub fn shift(&self, route: &mut u64) -> u32 {
        let here = (*route & ((1u64 << self.bits) - 1)) as u32;
        *route >>= self.bits;
        here
    }

    /// The candidate for a head at a router: at the source leaf (`from_nic`) a fresh
    /// route string unless the NIC wrote one (a route string is never 0: its last symbol
    /// is a local port), then this switch's symbol, on any VC.
    #[inline]
    pub fn route_carried(&self, from_nic: bool, src: u32, dst: u32, seq: u32, route: &mut u64) -> Candidate {
        if from_nic && *route == 0 {
            *route = self.route_string(src, dst, seq);
        }
        Candidate { port: self.shift(route) as u8, vc_lo: 0, vc_hi: self.vcs as u8 }
    }

    /// Hop-by-hop: the destination-mod-k route's port at `router` towards `dest` (see
    /// the module docs), any VC.
    pub fn route(&self, router: u32, dest: u32) -> Candidate {
        let t = &*self.tree;
        let any = |port: u32| Candidate { port: port as u8, vc_lo: 0, vc_hi: self.vcs as u8 };
        let l = t.level_of(router);
        let x = router - t.switches_at(l).start;
        let (sd, dd) = (t.digits(l as usize + 1, x), t.digits(0, dest));
        // Below this switch iff the position digits above its level agree.
        let below = (l as usize + 1..t.levels() as usize).all(|j| sd[j] == dd[j]);
        if below {
            return if l == 0 { any(self.net_ports + dd[0]) } else { any(dd[l as usize]) };
        }
        let before: u64 = (0..l).map(|k| t.up_ports(k) as u64).product();
        any(t.down_ports(l) + ((dest as u64 / before) % t.up_ports(l) as u64) as u32)
    }
}
