//! Routing on any network graph ([`crate::topology::graph`]), deadlock-free whatever
//! the graph, in one of two ways:
//!
//! * **Minimal with a VC class per hop** (`minimal`): the graph's minimal routes (next
//!   hop `(t mod m)`-th of the `m` ports one hop nearer to destination router `t`), and
//!   a packet's `h`-th hop uses VC class `h` (the hop-count resource classes of
//!   store-and-forward networks; Dally & Towles 2004, ch. 14): every dependency goes
//!   from a class to the next, so none closes a cycle. The
//!   classes are as many as the graph's diameter (the longest minimal route); the VCs are
//!   split into that many nearly equal ranges, so `router.vcs` must be at least the
//!   diameter. The class is read from the VC the packet arrived on, as the dateline
//!   class is on a torus.
//! * **Up*/down*** (`updown`, Autonet: Schroeder et al., "Autonet: a high-speed,
//!   self-configuring local area network using point-to-point links", IEEE JSAC 1991):
//!   a breadth-first spanning tree from router 0 (after failures, from the first router
//!   that reaches the most others) orders the routers by (depth, id); a
//!   link is *up* towards the lower of its two routers. A route takes zero or more up
//!   links and then zero or more down links, never up after down, so the channel
//!   dependencies follow the order and cannot close a cycle: one VC suffices. Each
//!   route is a shortest such route (ties by the destination as above); it may be longer
//!   than minimal. Whether a packet may still go up is read from the port it arrived on
//!   (a down link's far end or not), so the routing function keeps no state.
//!
//! It routes the families with bidirectional links too (k-ary n-cubes, HyperX,
//! dragonflies: [`Graph::of_topology`]), and so routes them around their `[faults]`:
//! the tables are computed on the links that remain.
//!
//! `flitsim routes CONFIG --check` proves either with the channel dependency check.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::Candidate;
use crate::error::{Error, Result};
use crate::topology::graph::Graph;
use crate::topology::{Topology, NONE};

/// How packets are routed on a graph.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GraphPath {
    /// Minimal routes, a VC class per hop (VCs >= the diameter).
    #[default]
    Minimal,
    /// Up*/down* routes on a breadth-first spanning tree from router 0 (one VC).
    Updown,
}

/// Unreachable in the up*/down* distance tables.
const FAR: u16 = u16::MAX;

/// A built graph routing function.
#[derive(Clone, Debug)]
pub struct GraphRouting {
    g: Arc<Graph>,
    path: GraphPath,
    /// Per VC: its class (minimal routes).
    class_of: [u8; 64],
    /// Per class: its VC range.
    range: Vec<(u8, u8)>,
    /// Up*/down*: per router, its (depth, id) rank in the order (lower is up).
    rank: Vec<u32>,
    /// Up*/down*: the next hop, `[(r * R + t) * 2 + down_only]`.
    ud_next: Vec<u8>,
}

impl GraphRouting {
    /// Routing on `topo` (a graph) with `vcs` VCs per port; `path` is the config key.
    pub fn new(topo: &Topology, kind: GraphPath, vcs: u32, path: &str) -> Result<Self> {
        let g = match topo.graph.clone() {
            Some(g) => g,
            None => {
                if topo.num_routers > crate::topology::graph::MAX_ROUTERS {
                    return Err(Error::config(
                        format!("{path}.type"),
                        format!("graph routing keeps tables of routers x routers entries: at most {} routers, and this network has {}; use the topology's own routing", crate::topology::graph::MAX_ROUTERS, topo.num_routers),
                    ));
                }
                Arc::new(Graph::of_topology(topo))
            }
        };
        // (The longest minimal route between routers that reach each other.)
        let diameter = u32::from(g.dist.iter().copied().filter(|&d| d != FAR).max().unwrap_or(0));
        let classes = match kind {
            GraphPath::Minimal => diameter.max(1),
            GraphPath::Updown => 1,
        };
        if vcs < classes {
            return Err(Error::config(
                "router.vcs",
                format!("{vcs} VCs cannot hold the {classes} classes minimal routes on this graph need to be deadlock-free (one per hop of its diameter); use vcs >= {classes}, or routing.mode = \"updown\" (one VC)"),
            ));
        }
        let mut class_of = [0u8; 64];
        let mut range = Vec::with_capacity(classes as usize);
        for c in 0..classes {
            let (lo, hi) = (c * vcs / classes, (c + 1) * vcs / classes);
            range.push((lo as u8, hi as u8));
            for v in lo..hi {
                class_of[v as usize] = c as u8;
            }
        }
        let (rank, ud_next) = if kind == GraphPath::Updown { updown_tables(&g) } else { (Vec::new(), Vec::new()) };
        Ok(GraphRouting { g, path: kind, class_of, range, rank, ud_next })
    }

    /// The VC range of class `c`.
    pub fn class_range(&self, c: u32) -> (u8, u8) {
        self.range[(c as usize).min(self.range.len() - 1)]
    }

    /// See the module docs.
    #[inline]
    pub fn route(&self, r: u32, in_port: u32, in_vc: u32, dst: u32) -> Candidate {
        let g = &*self.g;
        let t = dst / g.t;
        let from_nic = in_port >= g.net_ports;
        match self.path {
            GraphPath::Minimal => {
                let class = if from_nic { 0 } else { u32::from(self.class_of[in_vc as usize & 63]) + 1 };
                let (port, class) =
                    if r == t { (g.net_ports + dst % g.t, class.min(self.range.len() as u32 - 1)) } else { (g.next_port(r, t), class) };
                let (lo, hi) = self.class_range(class);
                Candidate { port: port as u8, vc_lo: lo, vc_hi: hi }
            }
            GraphPath::Updown => {
                let (lo, hi) = self.range[0];
                if r == t {
                    return Candidate { port: (g.net_ports + dst % g.t) as u8, vc_lo: lo, vc_hi: hi };
                }
                // Arrived down a link (from a router above): only down links from here.
                let down_only = !from_nic && self.rank[g.peer(r, in_port).0 as usize] < self.rank[r as usize];
                let n = g.routers as usize;
                let port = self.ud_next[(r as usize * n + t as usize) * 2 + usize::from(down_only)];
                Candidate { port, vc_lo: lo, vc_hi: hi }
            }
        }
    }
}

/// The up*/down* order and next-hop tables of `g` (see the module docs).
fn updown_tables(g: &Graph) -> (Vec<u32>, Vec<u8>) {
    let n = g.routers as usize;
    let np = g.net_ports;
    // Depth in the breadth-first tree from the root is the distance from it; the rank
    // orders by (depth, id). The root is router 0, or after failures the first router
    // that reaches the most others (routers cut off from it come last, unroutable).
    let reach = |r: u32| (0..g.routers).filter(|&u| g.reachable(r, u)).count();
    let root = (0..g.routers).fold(0, |best, r| if reach(r) > reach(best) { r } else { best });
    let mut order: Vec<u32> = (0..g.routers).collect();
    order.sort_by_key(|&r| (g.distance(root, r), r));
    let mut rank = vec![0u32; n];
    for (i, &r) in order.iter().enumerate() {
        rank[r as usize] = i as u32;
    }
    let links = |r: u32| (0..np).map(move |p| (p, g.peer(r, p).0)).filter(|&(_, v)| v != NONE);
    // down[u * n + t]: hops from u to t on down links only. From each t backwards: u
    // reaches t down when a down link u -> v (u above v) leads to a router v that does.
    let mut down = vec![FAR; n * n];
    let mut queue = std::collections::VecDeque::new();
    for t in 0..n {
        down[t * n + t] = 0;
        queue.push_back(t as u32);
        while let Some(v) = queue.pop_front() {
            let dv = down[v as usize * n + t];
            for (_, u) in links(v) {
                if rank[u as usize] < rank[v as usize] && down[u as usize * n + t] == FAR {
                    down[u as usize * n + t] = dv + 1;
                    queue.push_back(u);
                }
            }
        }
    }
    // up[r * n + t]: the shortest up*/down* route, taking routers from the top so that
    // every up neighbour's is known.
    let mut up = vec![FAR; n * n];
    for &r in &order {
        for t in 0..n {
            let mut best = down[r as usize * n + t];
            for (_, u) in links(r).filter(|&(_, u)| rank[u as usize] < rank[r as usize]) {
                best = best.min(up[u as usize * n + t].saturating_add(1));
            }
            up[r as usize * n + t] = best;
        }
    }
    let mut next = vec![0u8; n * n * 2];
    let mut near = Vec::new();
    for r in 0..g.routers {
        for t in 0..g.routers {
            if r == t {
                continue;
            }
            let (ri, ti) = (r as usize, t as usize);
            for down_only in [false, true] {
                let want = if down_only { down[ri * n + ti] } else { up[ri * n + ti] };
                near.clear();
                for (p, v) in links(r) {
                    let (vi, goes_up) = (v as usize, rank[v as usize] < rank[ri]);
                    let via = match (goes_up, down_only) {
                        (true, true) => FAR,
                        (true, false) => up[vi * n + ti],
                        (false, _) => down[vi * n + ti],
                    };
                    if want != FAR && via != FAR && via + 1 == want {
                        near.push(p);
                    }
                }
                // (A down-only state with no down route is never reached: its entry is
                // the up-phase hop.)
                let pick = if near.is_empty() { next[(ri * n + ti) * 2] } else { near[ti % near.len()] as u8 };
                next[(ri * n + ti) * 2 + usize::from(down_only)] = pick;
            }
        }
    }
    (rank, next)
}
