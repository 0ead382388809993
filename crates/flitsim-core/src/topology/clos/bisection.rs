//! Bisection of a fat tree: the fewest links between two halves of the nodes (paper
//! section 1: "the total bandwidth between two equal sections of the network with the
//! minimum number of links between them").
//!
//! For a fixed split of the nodes the switches are placed by a minimum cut: a unit-capacity
//! maximum flow from the side-A nodes to the side-B nodes (Edmonds-Karp), whose value is the
//! number of links of the minimum cut (max-flow min-cut), and whose residual reachability
//! places each switch. A network has *full bisection bandwidth* when no balanced split
//! cuts fewer than `floor(N/2)` links, the most a split can need (putting every switch on
//! side A cuts exactly the smaller side's node links). The Clos networks and k-ary n-trees
//! built here have it, since each switch below the top has as many up links as down links
//! (a Clos with `m >= n` is rearrangeably non-blocking, section 2.2), so every balanced split
//! — in particular [`super::FatTree::bisection`]'s — cuts exactly `floor(N/2)` links.

use std::collections::VecDeque;

use super::{FatTree, Vertex};

/// A cut of the network into sides A and B, and the links it cuts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bisection {
    /// `node_in_a[p]`: node `p` is on side A.
    pub node_in_a: Vec<bool>,
    /// `switch_in_a[s]`: switch `s` is on side A.
    pub switch_in_a: Vec<bool>,
    /// Bidirectional links between the sides.
    pub links: u64,
}

impl Bisection {
    /// Unidirectional channels crossing the cut (both directions): `2 * links`.
    pub fn channels(&self) -> u64 {
        2 * self.links
    }

    /// Nodes on side A.
    pub fn nodes_in_a(&self) -> u32 {
        self.node_in_a.iter().filter(|&&a| a).count() as u32
    }

    /// Whether the cut carries one link per node of the smaller side: the network's full
    /// bisection bandwidth, when this is a minimum bisection.
    pub fn is_full(&self) -> bool {
        let a = self.nodes_in_a() as u64;
        let b = self.node_in_a.len() as u64 - a;
        self.links >= a.min(b)
    }
}

/// The minimum cut with the nodes split as `node_in_a` says (one flag per node).
pub(super) fn min_cut(tree: &FatTree, node_in_a: &[bool]) -> Bisection {
    let n = tree.node_count() as usize;
    let vertices = n + tree.switch_count() as usize;
    let vid = |v: Vertex| match v {
        Vertex::Node(p) => p as usize,
        Vertex::Switch(s) => n + s as usize,
    };
    // Arc `a` is channel `a`; channels 2e and 2e+1 are the two directions of link e, so
    // `a ^ 1` is the reverse arc. Both start with capacity 1 (an undirected unit link).
    let channels = tree.channels();
    let head: Vec<usize> = channels.iter().map(|c| vid(c.dst)).collect();
    let mut cap = vec![1u8; channels.len()];
    let mut start = vec![0usize; vertices + 1];
    for c in channels {
        start[vid(c.src) + 1] += 1;
    }
    for v in 0..vertices {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut arcs = vec![0usize; channels.len()];
    for (a, c) in channels.iter().enumerate() {
        let v = vid(c.src);
        arcs[fill[v]] = a;
        fill[v] += 1;
    }
    let mut flow = 0u64;
    let mut parent = vec![usize::MAX; vertices];
    let mut seen = vec![false; vertices];
    let mut queue = VecDeque::new();
    loop {
        // Breadth-first from every side-A node at once, in the residual graph.
        seen.iter_mut().for_each(|s| *s = false);
        queue.clear();
        for p in (0..n).filter(|&p| node_in_a[p]) {
            seen[p] = true;
            queue.push_back(p);
        }
        let mut found = None;
        'bfs: while let Some(u) = queue.pop_front() {
            for &a in &arcs[start[u]..start[u + 1]] {
                let v = head[a];
                if cap[a] == 0 || seen[v] {
                    continue;
                }
                seen[v] = true;
                parent[v] = a;
                if v < n && !node_in_a[v] {
                    found = Some(v);
                    break 'bfs;
                }
                // A node is a dead end inside a path (its only link leads back).
                if v >= n {
                    queue.push_back(v);
                }
            }
        }
        let Some(mut v) = found else { break };
        while !(v < n && node_in_a[v]) {
            let a = parent[v];
            cap[a] -= 1;
            cap[a ^ 1] += 1;
            v = vid(channels[a].src);
        }
        flow += 1;
    }
    // The last search reached exactly the vertices on the source side of a minimum cut.
    Bisection { node_in_a: node_in_a.to_vec(), switch_in_a: seen[n..].to_vec(), links: flow }
}
