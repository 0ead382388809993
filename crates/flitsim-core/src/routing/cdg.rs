//! The channel dependency graph of a routing function (Dally & Seitz 1987; Duato 1993):
//! one vertex per (router-to-router channel, VC), and an edge from (c1, v1) to (c2, v2)
//! when some packet may hold VC v1 of c1 while it waits for VC v2 of c2, i.e. the routing
//! function sends a packet that arrived on (c1, v1) to (c2, v2) for some destination.
//! Routing is deadlock-free (for deterministic routing, exactly) when this graph is
//! acyclic. The check explores, for every destination, every state (router, input port,
//! VC) a packet bound there can reach from any source, with every VC the routing
//! function allows at each hop — so a router's freedom to pick any allowed VC is
//! covered, not just the one a particular run picks.

use std::collections::HashSet;

use petgraph::algo::tarjan_scc;
use petgraph::graphmap::DiGraphMap;
use serde::Serialize;

use super::RoutingFunction;
use crate::topology::{Topology, NONE};

/// The verdict.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CdgReport {
    /// (channel, VC) vertices that some packet uses.
    pub vertices: usize,
    /// Dependencies between them.
    pub edges: usize,
    /// No cycle: deadlock-free.
    pub acyclic: bool,
    /// A cycle, when there is one: `router port vcN` per vertex, the first repeated at
    /// the end.
    pub cycle: Vec<String>,
    /// Ordered (source, destination) node pairs the routes do not connect, with why
    /// (at most 20 listed).
    pub unreachable: Vec<String>,
    /// How many pairs are unreachable.
    pub unreachable_pairs: u64,
}

/// Build and check the channel dependency graph of `routing` on `topo`, with sources
/// injecting on every VC of their injection range.
pub fn check(routing: &RoutingFunction, topo: &Topology, vcs: u32) -> CdgReport {
    let (p_n, np) = (topo.ports, topo.network_ports());
    let (inj_lo, inj_hi) = routing.injection_vcs();
    let state = |r: u32, p: u32, v: u32| ((r * p_n + p) * vcs + v) as usize;
    let mut seen = vec![u32::MAX; (topo.num_routers * p_n * vcs) as usize];
    let mut edges: HashSet<(u32, u32)> = HashSet::new();
    let mut stack: Vec<(u32, u32, u32)> = Vec::new();
    // The channel arriving at each (router, input port).
    let mut in_channel = vec![NONE; (topo.num_routers * p_n) as usize];
    for (c, ch) in topo.channels.iter().enumerate() {
        in_channel[(ch.dst_router * p_n + ch.dst_port) as usize] = c as u32;
    }
    // Vertex id of (router, output port, VC): the channel leaving there.
    let vertex = |r: u32, port: u32, v: u32| -> Option<u32> {
        let c = topo.out_channel[(r * p_n + port) as usize];
        (c != NONE).then_some(c * vcs + v)
    };
    for d in 0..topo.num_nodes {
        stack.clear();
        for s in 0..topo.num_nodes {
            let (r, p) = (topo.router_of(s), topo.local_port_of(s));
            for v in inj_lo as u32..inj_hi as u32 {
                if seen[state(r, p, v)] != d {
                    seen[state(r, p, v)] = d;
                    stack.push((r, p, v));
                }
            }
        }
        while let Some((r, p, v)) = stack.pop() {
            let c = routing.route(topo, r, p, v, d);
            let port = c.port as u32;
            if topo.is_local_port(port) {
                continue;
            }
            let ch = topo.out_channel[(r * p_n + port) as usize];
            if ch == NONE {
                continue; // reported by the reachability walk
            }
            let link = topo.channels[ch as usize];
            for w in c.vc_lo as u32..c.vc_hi as u32 {
                let from = if p < np { in_channel[(r * p_n + p) as usize] } else { NONE };
                if let (true, Some(b)) = (from != NONE, vertex(r, port, w)) {
                    edges.insert((from * vcs + v, b));
                }
                let next = state(link.dst_router, link.dst_port, w);
                if seen[next] != d {
                    seen[next] = d;
                    stack.push((link.dst_router, link.dst_port, w));
                }
            }
        }
    }
    let mut g: DiGraphMap<u32, ()> = DiGraphMap::new();
    for &(a, b) in &edges {
        g.add_edge(a, b, ());
    }
    let name = |x: u32| {
        let (c, v) = (x / vcs, x % vcs);
        let ch = topo.channels[c as usize];
        format!("{}{} vc{v}", topo.router_name(ch.src_router), topo.port_name(ch.src_port))
    };
    let mut cycle = Vec::new();
    for scc in tarjan_scc(&g) {
        let self_loop = scc.len() == 1 && g.contains_edge(scc[0], scc[0]);
        if scc.len() > 1 || self_loop {
            cycle = find_cycle(&g, &scc).into_iter().map(name).collect();
            break;
        }
    }
    // Reachability: follow every pair's route.
    let mut unreachable = Vec::new();
    let mut unreachable_pairs = 0u64;
    for s in 0..topo.num_nodes {
        for d in 0..topo.num_nodes {
            if let Err(e) = routing.path(topo, s, d, inj_lo as u32) {
                unreachable_pairs += 1;
                if unreachable.len() < 20 {
                    unreachable.push(format!("{s} -> {d}: {e}"));
                }
            }
        }
    }
    CdgReport { vertices: g.node_count(), edges: g.edge_count(), acyclic: cycle.is_empty(), cycle, unreachable, unreachable_pairs }
}

/// A cycle inside a strongly connected component (its first vertex repeated at the end).
fn find_cycle(g: &DiGraphMap<u32, ()>, scc: &[u32]) -> Vec<u32> {
    let members: HashSet<u32> = scc.iter().copied().collect();
    let start = scc[0];
    // Breadth-first from start inside the component until an edge returns to start.
    let mut parent = std::collections::HashMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(u) = queue.pop_front() {
        for w in g.neighbors(u) {
            if w == start {
                let mut path = vec![u];
                let mut x = u;
                while x != start {
                    x = parent[&x];
                    path.push(x);
                }
                path.reverse();
                path.push(start);
                return path;
            }
            if members.contains(&w) && !parent.contains_key(&w) {
                parent.insert(w, u);
                queue.push_back(w);
            }
        }
    }
    vec![start, start]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn check_of(toml: &str) -> CdgReport {
        let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
        check(&spec.routing, &spec.topology, spec.config.router.vcs())
    }

    #[test]
    fn dor_with_datelines_is_acyclic_and_without_is_not() {
        let ok = check_of("[topology]\ntype = \"torus\"\ndims = [5, 4]\n[router]\nvcs = 2\n");
        assert!(ok.acyclic, "{ok:?}");
        assert_eq!(ok.unreachable_pairs, 0);
        // Without datelines the rings' VC dependencies close: a cycle around one ring.
        let bad = check_of("[topology]\ntype = \"torus\"\ndims = [5, 4]\n[router]\nvcs = 2\n[routing]\ndatelines = false\n");
        assert!(!bad.acyclic);
        assert!(bad.cycle.len() >= 5, "{:?}", bad.cycle);
        assert_eq!(bad.cycle.first(), bad.cycle.last());
        // A mesh needs no datelines.
        assert!(check_of("[topology]\ntype = \"mesh\"\ndims = [4, 4]\n[router]\nvcs = 1\n").acyclic);
    }

    #[test]
    fn xt_tables_are_acyclic_under_every_policy() {
        for (policy, dateline) in [("initial", "[2, 0, 3]"), ("v1", "[2, 0, 3]"), ("v2", "[2, 0, 3]"), ("v3", "[2, 0, 3]"), ("v3", "\"auto\"")] {
            let r = check_of(&format!(
                "[topology]\ntype = \"cube\"\ndims = [6, 4, 4]\nwrap = [true, false, true]\n[router]\nvcs = 4\n\
                 [routing]\ntype = \"table\"\nclasses = 2\nregion_size = 32\nvc_policy = \"{policy}\"\ndateline = {dateline}\n"
            ));
            assert!(r.acyclic, "{policy}: {:?}", r.cycle);
            assert_eq!(r.unreachable_pairs, 0, "{policy}");
        }
    }
}
