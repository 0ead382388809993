//! A Kautz graph with failed links and nodes: shortest surviving routes and the diameter
//! after failures.
//!
//! Paper section 5: "even in the face of a link or node failure, every node in a degree
//! `d` Kautz digraph has `d` independent routes to every other node. Moreover, a link or
//! node failure in a Kautz digraph increases the diameter by just 1"; section 6.3 reports
//! reconfiguring the graph around failed links and around nodes removed for DIMM
//! failures. Routes here are found by breadth-first search of the surviving graph
//! (exploring out-ports in increasing order, so the result is deterministic); the
//! `d`-wide routes after failures are in [`super::disjoint`].

use super::metrics::DistanceStats;
use super::{Kautz, NodeId};
use crate::error::{Error, Result};

/// Distance to a node that cannot be reached (or that has failed).
pub const UNREACHABLE: u32 = u32::MAX;

/// A view of a Kautz graph in which some channels and nodes have failed. A failed node
/// takes its in- and out-channels down with it; it is neither a source nor a destination.
#[derive(Clone, Debug)]
pub struct Faults<'a> {
    graph: &'a Kautz,
    node_down: Vec<bool>,
    channel_down: Vec<bool>,
}

impl<'a> Faults<'a> {
    /// The graph with nothing failed.
    pub fn new(graph: &'a Kautz) -> Faults<'a> {
        Faults { graph, node_down: vec![false; graph.node_count() as usize], channel_down: vec![false; graph.channel_count() as usize] }
    }

    /// The underlying graph.
    pub fn graph(&self) -> &'a Kautz {
        self.graph
    }

    /// Fail node `n` (error, field `faults.nodes`, if there is no such node).
    pub fn fail_node(&mut self, n: NodeId) -> Result<&mut Self> {
        let slot = self
            .node_down
            .get_mut(n as usize)
            .ok_or_else(|| Error::config("faults.nodes", format!("node {n} does not exist; the graph has {}", self.graph.node_count())))?;
        *slot = true;
        Ok(self)
    }

    /// Fail channel `id` (error, field `faults.channels`, if there is no such channel).
    pub fn fail_channel(&mut self, id: u32) -> Result<&mut Self> {
        let count = self.graph.channel_count();
        let slot = self
            .channel_down
            .get_mut(id as usize)
            .ok_or_else(|| Error::config("faults.channels", format!("channel {id} does not exist; the graph has {count}")))?;
        *slot = true;
        Ok(self)
    }

    /// Fail the link on out-port `port` of `src` (error, field `faults.links`, if either
    /// is out of range).
    pub fn fail_link(&mut self, src: NodeId, port: u8) -> Result<&mut Self> {
        if src >= self.graph.node_count() || u32::from(port) >= self.graph.degree() {
            return Err(Error::config(
                "faults.links",
                format!(
                    "node {src} port {port} is not a link; nodes are 0..{} and ports 0..{}",
                    self.graph.node_count(),
                    self.graph.degree()
                ),
            ));
        }
        let id = self.graph.channel_id(src, port);
        self.fail_channel(id)
    }

    /// Whether node `n` is working.
    pub fn node_up(&self, n: NodeId) -> bool {
        !self.node_down[n as usize]
    }

    /// Whether channel `id` can carry traffic: it has not failed and neither end has.
    pub fn channel_up(&self, id: u32) -> bool {
        let d = self.graph.degree();
        !self.channel_down[id as usize] && self.node_up(id / d) && self.node_up(self.graph.out[id as usize])
    }

    /// Hops from `src` to every node over surviving channels ([`UNREACHABLE`] where there
    /// is no route, and everywhere if `src` has failed).
    pub fn distances_from(&self, src: NodeId) -> Vec<u32> {
        self.bfs(src).0
    }

    /// A shortest route over surviving channels, as out-ports; `None` if either end has
    /// failed or no route survives.
    pub fn route(&self, src: NodeId, dst: NodeId) -> Option<Vec<u8>> {
        let n = self.graph.node_count();
        if src >= n || dst >= n {
            return None;
        }
        let (dist, via) = self.bfs(src);
        if dist[dst as usize] == UNREACHABLE {
            return None;
        }
        let d = self.graph.degree();
        let mut ports = Vec::with_capacity(dist[dst as usize] as usize);
        let mut at = dst;
        while at != src {
            let ch = via[at as usize];
            ports.push((ch % d) as u8);
            at = ch / d;
        }
        ports.reverse();
        Some(ports)
    }

    /// Distances over ordered pairs of distinct working nodes. The diameter and mean are
    /// over the pairs that are connected; `unreachable` counts the others.
    pub fn distance_stats(&self) -> DistanceStats {
        let mut stats = DistanceStats::default();
        for src in 0..self.graph.node_count() {
            if !self.node_up(src) {
                continue;
            }
            for (dst, &h) in self.distances_from(src).iter().enumerate() {
                if dst as NodeId == src || !self.node_up(dst as NodeId) {
                    continue;
                }
                stats.add(h);
            }
        }
        stats
    }

    /// The longest shortest route between working nodes, or `None` if some working node
    /// cannot reach another.
    pub fn diameter(&self) -> Option<u32> {
        let s = self.distance_stats();
        (s.unreachable == 0).then_some(s.diameter)
    }

    /// Breadth-first search: distances and, per node, the channel it was reached by.
    fn bfs(&self, src: NodeId) -> (Vec<u32>, Vec<u32>) {
        let n = self.graph.node_count() as usize;
        let d = self.graph.degree();
        let mut dist = vec![UNREACHABLE; n];
        let mut via = vec![u32::MAX; n];
        if src as usize >= n || !self.node_up(src) {
            return (dist, via);
        }
        let mut queue = std::collections::VecDeque::with_capacity(n);
        dist[src as usize] = 0;
        queue.push_back(src);
        while let Some(at) = queue.pop_front() {
            for p in 0..d {
                let ch = at * d + p;
                if !self.channel_up(ch) {
                    continue;
                }
                let next = self.graph.out[ch as usize] as usize;
                if dist[next] == UNREACHABLE {
                    dist[next] = dist[at as usize] + 1;
                    via[next] = ch;
                    queue.push_back(next as NodeId);
                }
            }
        }
        (dist, via)
    }
}
