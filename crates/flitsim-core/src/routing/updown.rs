//! Up*/Down* source routes on folded Clos networks and k-ary n-trees
//! ([`crate::topology::clos::FatTree`]), as a Myrinet NIC holds them.
//!
//! Follows Geoffray and Hoefler, "Adaptive Routing Strategies for Modern High Performance
//! Networks" (`papers/clos-adaptive-routing.txt`), section 2.3: the route is chosen at the
//! source and prepended to the packet, "a byte for every crossbar traversed"; each crossbar
//! consumes the first byte as its output port. With Up*/Down* routing (the paper's reference
//! \[16\]; the rule of the Autonet network) a route uses some channels towards the root and
//! then only channels away from it, never an up channel after a down one; here "up" is
//! towards the higher switch levels of the tree. The shortest such routes between two nodes
//! climb to one of their nearest common ancestors and descend from it, and there are
//! `(n/2)^floor(p/2)` of them in a full `p`-stage Clos of `n`-port crossbars (16 in the
//! 512-node network of section 5.1, "a total of 8192 routes stored in the firmware of each
//! NIC", i.e. 16 x 512 table entries, of which 496 x 16 + 15 = 7951 are distinct since the
//! 15 line-card mates have one route each; 256 at 8192 nodes, section 4.4.1).
//!
//! # Route order
//! Nodes whose nearest common ancestors are at level `u` (0 = same leaf) have
//! `R = w_2 * .. * w_(u+1)` routes (`w_(l+2)` is the number of up ports of a level-`l`
//! switch). Route `r` takes, at level `l < u`, up port `m_(l+1) + c_l` where `c_l` is digit
//! `l` of `r` in the mixed radix `(w_2, w_3, ..)` (the leaf's choice least significant);
//! in a 3-stage Clos route `r` goes through spine `r`. The descent is then fixed: at level
//! `l` the down port is the destination's digit `l + 1`. So a route is `2u + 1` ports and
//! `2u` switch-to-switch hops (`2u + 2` channels counting the node links).
//!
//! # Static routing
//! The paper's static routing is "no route changes" (section 5.3): each NIC sends every
//! packet for a destination along one fixed route out of its table. Which route the table
//! holds is not stated in the paper, so the choice is explicit ([`StaticScheme`]):
//!
//! * [`StaticScheme::Destination`], destination-mod-k, the usual deterministic assignment
//!   of fat trees: route `dst mod R`, i.e. at level `l` up port
//!   `c_l = floor(dst / (w_2..w_(l+1))) mod w_(l+2)`, the destination's own digit. In the
//!   512-node Clos a packet for the node on port `j` of its line card always crosses spine
//!   `j`: the destinations of a line card are spread over all 16 spines and every
//!   spine-to-leaf link carries exactly one destination.
//! * [`StaticScheme::Source`], source-mod-k: route `src mod R`, the mirror image.
//! * [`StaticScheme::Hashed`]: route `hash(seed, src, dst) mod R`, an independent uniform
//!   choice per pair, fixed for the run.
//!
//! Section 5.4 hints at which the testbed's tables behaved like: under destination-mod-k
//! (or source-mod-k) the bridge pattern is contention-free (the node on port `q` of line
//! card `2i` reaches port `q` of line card `2i+1` through spine `q`, its own up and down
//! links), yet the paper reports that every scheme but probing averages about 56% on it
//! (Figure 7). Per-pair random routes collide instead: 16 flows of a line card choosing
//! among 16 spines get on average `E[1/(1+Bin(15, 1/16))] = 1 - (15/16)^16 = 64%` of a
//! link each on the way up; for the bridge the same groups share the way down (about 64%
//! overall), for a random bisection other groups do (about `0.64^2 = 41%`, against the
//! paper's 38%; destination-mod-k would leave only the up-link sharing, about 64%). These
//! are estimates from link sharing alone, not simulations.
//!
//! # Deadlock freedom
//! [`up_down_cdg`] builds the channel dependency graph of every route of every pair (an
//! edge from each channel of a route to the next) and checks it for a cycle with petgraph;
//! [`cdg_of_routes`] does the same for any set of channel sequences.

use std::collections::HashSet;

use petgraph::graphmap::DiGraphMap;

use crate::error::{Error, Result};
use crate::rng::mix64;
use crate::topology::clos::{FatTree, NodeId, Vertex, MAX_LEVELS};

/// Most ports in a route: one per switch of a climb to the top level and back.
pub const MAX_ROUTE_PORTS: usize = 2 * MAX_LEVELS - 1;

/// A source route: the output port at each switch, the source's leaf first.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Route {
    ports: [u8; MAX_ROUTE_PORTS],
    len: u8,
    up: u8,
}

impl Route {
    /// The route bytes: output port at each switch, source leaf first, the destination's
    /// port on its leaf last.
    pub fn ports(&self) -> &[u8] {
        &self.ports[..self.len as usize]
    }

    /// Up hops (= the level of the turning switch, 0 when both nodes share a leaf).
    pub fn up_hops(&self) -> u32 {
        self.up as u32
    }

    /// Switch-to-switch hops: `2 * up_hops()`.
    pub fn hops(&self) -> u32 {
        2 * self.up as u32
    }

    /// Switches traversed: `2 * up_hops() + 1`.
    pub fn switches(&self) -> u32 {
        self.len as u32
    }
}

impl std::fmt::Debug for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Route{:?}", self.ports())
    }
}

/// Which single route a statically routed NIC uses for a pair (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaticScheme {
    /// Route `dst mod R`: destination-mod-k, the up port at each level is the
    /// destination's digit there (spine = the destination's port on its leaf, in 3 stages).
    Destination,
    /// Route `src mod R`: source-mod-k.
    Source,
    /// Route `hash(seed, src, dst) mod R`: a pseudo-random route per pair (uniform up to a
    /// bias below `R / 2^64`), the same for the same seed.
    Hashed {
        /// Seed of the hash.
        seed: u64,
    },
}

fn check_pair(tree: &FatTree, src: NodeId, dst: NodeId) -> Result<u32> {
    let n = tree.node_count();
    for (name, v) in [("src", src), ("dst", dst)] {
        if v >= n {
            return Err(Error::config(format!("route.{name}"), format!("node {v} does not exist; the network has nodes 0..{n}")));
        }
    }
    tree.common_ancestor_level(src, dst)
        .ok_or_else(|| Error::config("route.dst", format!("is the source {src}; a node has no network route to itself")))
}

/// Number of shortest Up*/Down* routes from `src` to `dst`: the product of the up-port
/// counts of the levels below their nearest common ancestors (1 on the same leaf).
pub fn route_count(tree: &FatTree, src: NodeId, dst: NodeId) -> Result<u64> {
    let u = check_pair(tree, src, dst)?;
    Ok(count_below(tree, u))
}

fn count_below(tree: &FatTree, u: u32) -> u64 {
    (0..u).map(|l| tree.up_ports(l) as u64).product()
}

/// Route number `index` (`0..route_count`) from `src` to `dst`, in the order of the
/// module documentation.
pub fn route(tree: &FatTree, src: NodeId, dst: NodeId, index: u64) -> Result<Route> {
    let u = check_pair(tree, src, dst)?;
    let count = count_below(tree, u);
    if index >= count {
        return Err(Error::config("route.index", format!("{index} is out of range: {src} -> {dst} has {count} routes, 0..{count}")));
    }
    Ok(build(tree, dst, u, index))
}

/// Every shortest Up*/Down* route from `src` to `dst`, in index order.
pub fn routes(tree: &FatTree, src: NodeId, dst: NodeId) -> Result<Vec<Route>> {
    let u = check_pair(tree, src, dst)?;
    Ok((0..count_below(tree, u)).map(|r| build(tree, dst, u, r)).collect())
}

/// The index of the route a statically routed NIC uses from `src` to `dst`.
pub fn static_index(tree: &FatTree, src: NodeId, dst: NodeId, scheme: StaticScheme) -> Result<u64> {
    let count = route_count(tree, src, dst)?;
    Ok(match scheme {
        StaticScheme::Destination => dst as u64 % count,
        StaticScheme::Source => src as u64 % count,
        StaticScheme::Hashed { seed } => mix64(mix64(seed ^ 0x5354_4154_4943) ^ ((src as u64) << 32 | dst as u64)) % count,
    })
}

/// The route a statically routed NIC uses from `src` to `dst`.
pub fn static_route(tree: &FatTree, src: NodeId, dst: NodeId, scheme: StaticScheme) -> Result<Route> {
    let index = static_index(tree, src, dst, scheme)?;
    route(tree, src, dst, index)
}

/// Route `index` turning at level `u` towards `dst` (arguments already checked).
fn build(tree: &FatTree, dst: NodeId, u: u32, index: u64) -> Route {
    let dd = tree.digits(0, dst);
    let mut ports = [0u8; MAX_ROUTE_PORTS];
    let mut rest = index;
    let mut k = 0;
    for l in 0..u {
        let w = tree.up_ports(l) as u64;
        ports[k] = (tree.down_ports(l) as u64 + rest % w) as u8;
        rest /= w;
        k += 1;
    }
    for l in (0..=u as usize).rev() {
        ports[k] = dd[l] as u8;
        k += 1;
    }
    Route { ports, len: k as u8, up: u as u8 }
}

/// A source route followed through the wiring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// Channels taken, the source's injection channel first and the ejection channel last.
    pub channels: Vec<u32>,
    /// Node the route delivers to.
    pub dst: NodeId,
}

/// Follow `ports` from node `src` through the switches' port tables. Errors (field
/// `route`) if a port is not wired, the route reaches a node before its last byte, or it
/// ends at a switch.
pub fn walk(tree: &FatTree, src: NodeId, ports: &[u8]) -> Result<Walk> {
    let mut channels = Vec::with_capacity(ports.len() + 1);
    let dst = walk_into(tree, src, ports, &mut channels)?;
    Ok(Walk { channels, dst })
}

fn walk_into(tree: &FatTree, src: NodeId, ports: &[u8], out: &mut Vec<u32>) -> Result<NodeId> {
    let n = tree.node_count();
    if src >= n {
        return Err(Error::config("route.src", format!("node {src} does not exist; the network has nodes 0..{n}")));
    }
    let all = tree.channels();
    let mut ch = tree.injection_channel(src);
    out.push(ch);
    for (i, &p) in ports.iter().enumerate() {
        let Vertex::Switch(s) = all[ch as usize].dst else {
            return Err(Error::config(format!("route[{i}]"), "the route already reached a node; drop the remaining bytes"));
        };
        ch = tree
            .out_channel(Vertex::Switch(s), p as u32)
            .ok_or_else(|| Error::config(format!("route[{i}]"), format!("port {p} of switch {s} is not wired")))?;
        out.push(ch);
    }
    match all[ch as usize].dst {
        Vertex::Node(d) if !ports.is_empty() => Ok(d),
        _ => Err(Error::config("route", "ends inside the fabric; the last byte must be a node port of a leaf switch")),
    }
}

/// The verdict of a channel-dependency-graph check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CdgVerdict {
    /// Channels some route uses.
    pub vertices: usize,
    /// Distinct dependencies (consecutive channels of a route).
    pub edges: usize,
    /// No cycle: the routes cannot deadlock (Dally and Seitz).
    pub acyclic: bool,
    /// A cycle of channel ids when there is one, the first repeated at the end.
    pub cycle: Vec<u32>,
}

/// Dependency graph of every shortest Up*/Down* route of every ordered pair of nodes.
/// It follows all `N^2 R` routes (a few seconds for the 512-node Clos in an optimised
/// build), so it is meant for networks up to a few thousand nodes.
pub fn up_down_cdg(tree: &FatTree) -> CdgVerdict {
    let (n, radix) = (tree.node_count(), tree.radix() as usize);
    let all = tree.channels();
    // A dependency goes from a channel to the next one, which leaves the channel's
    // downstream switch by some port: one bit per (channel, port).
    let mut dep = vec![false; all.len() * radix];
    let mut used = vec![false; all.len()];
    let mut chans = Vec::with_capacity(MAX_ROUTE_PORTS + 1);
    for s in 0..n {
        for d in (0..n).filter(|&d| d != s) {
            let Some(u) = tree.common_ancestor_level(s, d) else { continue };
            for r in 0..count_below(tree, u) {
                let route = build(tree, d, u, r);
                chans.clear();
                if walk_into(tree, s, route.ports(), &mut chans).is_err() {
                    continue;
                }
                for (i, &c) in chans.iter().enumerate() {
                    used[c as usize] = true;
                    if let Some(&p) = route.ports().get(i) {
                        dep[c as usize * radix + p as usize] = true;
                    }
                }
            }
        }
    }
    let mut edges = Vec::new();
    for (c, ch) in all.iter().enumerate() {
        for p in (0..radix).filter(|&p| dep[c * radix + p]) {
            if let Some(next) = tree.out_channel(ch.dst, p as u32) {
                edges.push((c as u32, next));
            }
        }
    }
    verdict(used.iter().filter(|&&u| u).count(), edges)
}

/// Dependency graph of arbitrary routes given as channel sequences.
pub fn cdg_of_routes<R: AsRef<[u32]>>(routes: impl IntoIterator<Item = R>) -> CdgVerdict {
    let mut used = HashSet::new();
    let mut edges = HashSet::new();
    for r in routes {
        let r = r.as_ref();
        used.extend(r.iter().copied());
        edges.extend(r.windows(2).map(|w| (w[0], w[1])));
    }
    let mut edges: Vec<(u32, u32)> = edges.into_iter().collect();
    edges.sort_unstable();
    verdict(used.len(), edges)
}

fn verdict(vertices: usize, edges: Vec<(u32, u32)>) -> CdgVerdict {
    let g: DiGraphMap<u32, ()> = DiGraphMap::from_edges(edges.iter().copied());
    let (acyclic, cycle) = match petgraph::algo::toposort(&g, None) {
        Ok(_) => (true, Vec::new()),
        Err(c) => (false, super::cdg::cycle_from(&g, c.node_id(), |_| true)),
    };
    CdgVerdict { vertices, edges: edges.len(), acyclic, cycle }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet, VecDeque};

    use super::*;
    use crate::topology::clos::Dir;

    fn clos(radix: u32, stages: u32, nodes: u32) -> FatTree {
        FatTree::build_clos(radix, stages, Some(nodes), "topology").unwrap()
    }

    /// Trees with, for each, the level of the nearest common ancestors of two distinct
    /// nodes and the number of routes, both from node-id arithmetic alone.
    type Expect = Box<dyn Fn(u32, u32) -> (u32, u64)>;

    fn cases() -> Vec<(FatTree, Expect)> {
        // 3-stage Clos of r-port crossbars: same line card (p / (r/2)) -> the leaf, 1
        // route; else one route per spine, r/2.
        let three = |half: u32| -> Expect { Box::new(move |p, q| if p / half == q / half { (0, 1) } else { (1, half as u64) }) };
        // 5-stage Clos of 8-port crossbars: 4 nodes a leaf, 16 a pod.
        let five: Expect = Box::new(|p, q| {
            if p / 4 == q / 4 {
                (0, 1)
            } else if p / 16 == q / 16 {
                (1, 4)
            } else {
                (2, 16)
            }
        });
        // k-ary n-tree: u = the fewest trailing base-k digits to drop for equal prefixes; k^u routes.
        let tree = |k: u32| -> Expect {
            Box::new(move |p, q| (0..).find(|&u| p / k.pow(u + 1) == q / k.pow(u + 1)).map(|u| (u, (k as u64).pow(u))).unwrap())
        };
        vec![
            (clos(32, 3, 16), three(16)),
            (clos(32, 3, 64), three(16)),
            (FatTree::paper_512(), three(16)),
            (clos(4, 3, 6), three(2)),
            (FatTree::clos(8, 5).unwrap(), five),
            (FatTree::k_ary_n_tree(2, 3).unwrap(), tree(2)),
            (FatTree::k_ary_n_tree(4, 3).unwrap(), tree(4)),
            (FatTree::k_ary_n_tree(3, 2).unwrap(), tree(3)),
        ]
    }

    /// Number of shortest paths from node `src` to every vertex (nodes, then switches), by
    /// breadth-first search over the channel list: no knowledge of routes.
    fn shortest_path_counts(t: &FatTree, src: NodeId) -> (Vec<u32>, Vec<u64>) {
        let n = t.node_count() as usize;
        let vid = |v: Vertex| match v {
            Vertex::Node(p) => p as usize,
            Vertex::Switch(s) => n + s as usize,
        };
        let mut adj = vec![Vec::new(); n + t.switch_count() as usize];
        for c in t.channels() {
            adj[vid(c.src)].push(vid(c.dst));
        }
        let (mut dist, mut count) = (vec![u32::MAX; adj.len()], vec![0u64; adj.len()]);
        dist[src as usize] = 0;
        count[src as usize] = 1;
        let mut q = VecDeque::from([src as usize]);
        while let Some(u) = q.pop_front() {
            for &v in &adj[u] {
                if dist[v] == u32::MAX {
                    dist[v] = dist[u] + 1;
                    q.push_back(v);
                }
                if dist[v] == dist[u] + 1 {
                    count[v] += count[u];
                }
            }
        }
        (dist, count)
    }

    #[test]
    fn route_counts_follow_section_2_3() {
        // (n/2)^floor(p/2) routes between nodes on different top-level subtrees of a full
        // p-stage Clos of n-port crossbars: 16 for the 512-node testbed (section 5.1) and
        // 256 for 8192 nodes (section 4.4.1); one between nodes of a line card.
        let t = FatTree::paper_512();
        assert_eq!(route_count(&t, 0, 16).unwrap(), 16);
        assert_eq!(route_count(&t, 511, 0).unwrap(), 16);
        assert_eq!(route_count(&t, 0, 15).unwrap(), 1);
        // Every NIC stores 16 routes per other-leaf destination and one per leaf mate.
        let stored: u64 = (1..512).map(|d| route_count(&t, 0, d).unwrap()).sum();
        assert_eq!(stored, 496 * 16 + 15);
        let big = FatTree::clos(32, 5).unwrap();
        assert_eq!(route_count(&big, 0, 8191).unwrap(), 256);
        assert_eq!(route_count(&big, 0, 255).unwrap(), 16);
        assert_eq!(route_count(&big, 0, 15).unwrap(), 1);
        assert_eq!(routes(&big, 3, 8000).unwrap().len(), 256);
    }

    #[test]
    fn every_route_is_a_distinct_shortest_up_down_walk_to_its_destination() {
        for (t, expect) in cases() {
            let name = t.describe();
            let n = t.node_count();
            for s in 0..n {
                let (dist, paths) = shortest_path_counts(&t, s);
                for d in (0..n).filter(|&d| d != s) {
                    let (u, count) = expect(s, d);
                    let rs = routes(&t, s, d).unwrap();
                    assert_eq!(rs.len() as u64, count, "{name} {s}->{d}");
                    assert_eq!(route_count(&t, s, d).unwrap(), count);
                    // Every shortest path in the graph is one of the routes.
                    assert_eq!(paths[d as usize], count, "{name} {s}->{d}: shortest paths");
                    let mut seen = HashSet::new();
                    for (i, r) in rs.iter().enumerate() {
                        assert_eq!(*r, route(&t, s, d, i as u64).unwrap());
                        assert_eq!((r.up_hops(), r.hops(), r.switches()), (u, 2 * u, 2 * u + 1), "{name} {s}->{d}");
                        let w = walk(&t, s, r.ports()).unwrap();
                        assert_eq!(w.dst, d, "{name} {s}->{d} {r:?}");
                        // 2 x (levels from the node up to the turning switch) channels.
                        assert_eq!(w.channels.len() as u32, 2 * (u + 1));
                        assert_eq!(dist[d as usize], 2 * (u + 1));
                        let dirs: Vec<Dir> = w.channels.iter().map(|&c| t.channels()[c as usize].dir).collect();
                        assert!(dirs[..=u as usize].iter().all(|&x| x == Dir::Up), "{name} {s}->{d} {r:?}: {dirs:?}");
                        assert!(dirs[u as usize + 1..].iter().all(|&x| x == Dir::Down), "{name} {s}->{d} {r:?}: {dirs:?}");
                        assert!(seen.insert(w.channels), "{name} {s}->{d}: route {i} repeats");
                    }
                }
            }
        }
    }

    #[test]
    fn routes_are_numbered_by_their_up_ports() {
        // 3 stages: route r crosses spine r (switch 32 + r), up port 16 + r of the leaf.
        let t = FatTree::paper_512();
        for r in 0..16u64 {
            let route = route(&t, 5, 300, r).unwrap();
            assert_eq!(route.ports(), &[16 + r as u8, (300 / 16) as u8, (300 % 16) as u8]);
            let w = walk(&t, 5, route.ports()).unwrap();
            assert_eq!(t.channels()[w.channels[1] as usize].dst, Vertex::Switch(32 + r as u32));
        }
        // 5 stages of 8-port crossbars (4 nodes a leaf, 16 a pod, 8 pods): route r leaves
        // the leaf by up port 4 + r % 4 and the middle switch by 4 + r / 4, then descends by
        // the destination's digits (pod, leaf in pod, port on leaf) = (d/16, d/4 % 4, d % 4).
        let t = FatTree::clos(8, 5).unwrap();
        let d = 117u32;
        for r in 0..16u64 {
            let p = route(&t, 2, d, r).unwrap();
            assert_eq!(p.ports(), &[4 + (r % 4) as u8, 4 + (r / 4) as u8, (d / 16) as u8, (d / 4 % 4) as u8, (d % 4) as u8]);
        }
    }

    #[test]
    fn static_routing_spreads_destinations_over_the_spines() {
        // Destination-mod-k: the packet for node d crosses spine d % 16 (d's port on its
        // line card); source-mod-k: spine s % 16. Leaf mates have their single route.
        let t = FatTree::paper_512();
        let spine = |s: u32, d: u32, scheme| {
            let w = walk(&t, s, static_route(&t, s, d, scheme).unwrap().ports()).unwrap();
            t.channels()[w.channels[1] as usize].dst
        };
        for (s, d) in [(0, 16), (0, 17), (33, 500), (511, 3), (200, 31)] {
            assert_eq!(spine(s, d, StaticScheme::Destination), Vertex::Switch(32 + d % 16));
            assert_eq!(spine(s, d, StaticScheme::Source), Vertex::Switch(32 + s % 16));
            assert_eq!(static_index(&t, s, d, StaticScheme::Destination).unwrap(), (d % 16) as u64);
        }
        assert_eq!(static_index(&t, 3, 9, StaticScheme::Destination).unwrap(), 0);
        // With destination-mod-k every switch-to-switch down channel carries a single
        // destination (each top copy digit fixes the destination's low digits), in the
        // Clos and in a k-ary n-tree, so static routes never collide on the way down.
        for t in [FatTree::paper_512(), FatTree::k_ary_n_tree(4, 3).unwrap(), FatTree::clos(8, 5).unwrap()] {
            let mut dests: HashMap<u32, HashSet<u32>> = HashMap::new();
            for s in 0..t.node_count() {
                for d in (0..t.node_count()).filter(|&d| d != s) {
                    let w = walk(&t, s, static_route(&t, s, d, StaticScheme::Destination).unwrap().ports()).unwrap();
                    for &c in &w.channels {
                        let ch = t.channels()[c as usize];
                        if ch.dir == Dir::Down && matches!(ch.dst, Vertex::Switch(_)) {
                            dests.entry(c).or_default().insert(d);
                        }
                    }
                }
            }
            let down = t
                .channels()
                .iter()
                .filter(|c| c.dir == Dir::Down && matches!((c.src, c.dst), (Vertex::Switch(_), Vertex::Switch(_))))
                .count();
            assert_eq!(dests.len(), down, "{}: every down channel used", t.describe());
            assert!(dests.values().all(|v| v.len() == 1), "{}", t.describe());
        }
    }

    /// Most flows sharing one channel when every pair of `pairs` (both directions) takes
    /// its static route.
    fn max_channel_load(t: &FatTree, pairs: &[(u32, u32)], scheme: StaticScheme) -> usize {
        let mut load = vec![0usize; t.channels().len()];
        for &(a, b) in pairs {
            for (s, d) in [(a, b), (b, a)] {
                for c in walk(t, s, static_route(t, s, d, scheme).unwrap().ports()).unwrap().channels {
                    load[c as usize] += 1;
                }
            }
        }
        load.into_iter().max().unwrap()
    }

    #[test]
    fn the_bridge_is_contention_free_under_mod_k_but_not_under_hashed_routes() {
        // Bridge (section 5.4): node 32i + q with node 32i + 16 + q. Destination-mod-k sends
        // it through spine q, whose links to both line cards carry no other flow; so does
        // source-mod-k. Hashed routes put two of a line card's 16 flows on one spine unless
        // the 16 draws are all different (probability 16!/16^16 < 1e-6 per line card).
        let t = FatTree::paper_512();
        let bridge: Vec<(u32, u32)> = (0..512).filter(|p| p % 32 < 16).map(|p| (p, p + 16)).collect();
        assert_eq!(max_channel_load(&t, &bridge, StaticScheme::Destination), 1);
        assert_eq!(max_channel_load(&t, &bridge, StaticScheme::Source), 1);
        assert!(max_channel_load(&t, &bridge, StaticScheme::Hashed { seed: 1 }) >= 2);
        // Hashed indices: in range, reproducible, seed-dependent and about uniform: over
        // the 512 * 496 ordered pairs on different line cards each of the 16 spines is
        // chosen 15872 times on average (binomial sd 121; allow 5 sd).
        let mut per_route = [0i64; 16];
        let mut differ = 0;
        for s in 0..512 {
            for d in (0..512).filter(|d| d / 16 != s / 16) {
                let i = static_index(&t, s, d, StaticScheme::Hashed { seed: 7 }).unwrap();
                assert_eq!(i, static_index(&t, s, d, StaticScheme::Hashed { seed: 7 }).unwrap());
                differ += (i != static_index(&t, s, d, StaticScheme::Hashed { seed: 8 }).unwrap()) as u32;
                per_route[i as usize] += 1;
            }
        }
        assert!(per_route.iter().all(|&c| (c - 15872).abs() < 605), "{per_route:?}");
        assert!(differ > 200_000, "{differ}");
        assert_eq!(static_index(&t, 3, 9, StaticScheme::Hashed { seed: 7 }).unwrap(), 0);
    }

    #[test]
    fn up_down_routes_have_an_acyclic_channel_dependency_graph() {
        // Dependencies, counted by hand: 512-node Clos, from each injection channel to the
        // 15 other node ports and 16 up ports of its leaf (31), from each leaf-to-spine
        // channel to the spine's 31 other leaves, from each spine-to-leaf channel to the 16
        // nodes: 512 * (31 + 31 + 16). 4-ary 3-tree: 64 * (7 + 7 + 3 + 4 + 4) (injection to
        // 3 nodes + 4 up; leaf-up to 3 leaves + 4 up; middle-up to 3 middles; top-down to 4
        // leaves; leaf-down to 4 nodes).
        for (t, edges) in [(FatTree::paper_512(), 512 * (31 + 31 + 16)), (FatTree::k_ary_n_tree(4, 3).unwrap(), 64 * (7 + 7 + 3 + 4 + 4))] {
            let v = up_down_cdg(&t);
            assert!(v.acyclic, "{}: {:?}", t.describe(), v.cycle);
            assert_eq!((v.vertices, v.edges), (t.channels().len(), edges), "{}", t.describe());
        }
        for t in [FatTree::clos(8, 5).unwrap(), clos(32, 3, 64), clos(4, 3, 6), FatTree::k_ary_n_tree(2, 3).unwrap()] {
            let v = up_down_cdg(&t);
            assert!(v.acyclic && v.cycle.is_empty(), "{}", t.describe());
            // The same graph from the routes' channel sequences.
            let (n, t) = (t.node_count(), &t);
            let walks = (0..n)
                .flat_map(|s| (0..n).filter(move |&d| d != s).map(move |d| (s, d)))
                .flat_map(|(s, d)| routes(t, s, d).unwrap().into_iter().map(move |r| walk(t, s, r.ports()).unwrap().channels));
            assert_eq!(cdg_of_routes(walks), v, "{}", t.describe());
        }
    }

    #[test]
    fn routes_that_turn_down_then_up_close_a_dependency_cycle() {
        // 4 line cards of 2 nodes, spines 4 and 5 (ports: leaf up 2 + j, spine port = leaf).
        let t = clos(4, 3, 8);
        let ch = |s: u32, p: u32| t.out_channel(Vertex::Switch(s), p).unwrap();
        let (a, b, c, d) = (ch(0, 2), ch(4, 1), ch(1, 3), ch(5, 0)); // leaf0-spine0-leaf1-spine1-leaf0
        let v = cdg_of_routes([vec![a, b, c], vec![c, d, a]]);
        assert!(!v.acyclic);
        assert_eq!(v.cycle.len(), 5);
        assert_eq!(v.cycle.first(), v.cycle.last());
        assert_eq!(v.cycle[..4].iter().copied().collect::<HashSet<_>>(), HashSet::from([a, b, c, d]));
        assert!(cdg_of_routes([vec![a, b, c]]).acyclic);
    }

    #[test]
    fn bad_routes_are_errors_naming_the_field() {
        let t = clos(32, 3, 64);
        let path = |r: Result<Route>| r.unwrap_err().path().unwrap().to_string();
        assert_eq!(path(route(&t, 64, 0, 0)), "route.src");
        assert_eq!(path(route(&t, 0, 64, 0)), "route.dst");
        assert_eq!(path(route(&t, 7, 7, 0)), "route.dst");
        assert_eq!(path(route(&t, 0, 1, 1)), "route.index");
        assert_eq!(path(route(&t, 0, 16, 16)), "route.index");
        assert!(route_count(&t, 0, 0).is_err() && routes(&t, 0, 99).is_err() && static_index(&t, 99, 0, StaticScheme::Source).is_err());
        let wpath = |ports: &[u8]| walk(&t, 0, ports).unwrap_err().path().unwrap().to_string();
        assert_eq!(wpath(&[16, 10, 0]), "route[1]"); // spine port 10: no line card 10 in a 64-node chassis
        assert_eq!(wpath(&[1, 3]), "route[1]"); // node 1 reached after one byte
        assert_eq!(wpath(&[16]), "route"); // ends at a spine
        assert_eq!(wpath(&[]), "route");
        assert_eq!(wpath(&[40]), "route[0]");
        assert_eq!(walk(&t, 64, &[0]).unwrap_err().path(), Some("route.src"));
    }
}
