//! A fat tree ([`FatTree`]: folded Clos or k-ary n-tree) as a simulated network
//! ([`Topology`] with [`Shape::FatTree`]).
//!
//! # Mapping
//! The engine wants every router to have the same `ports`, its network ports first and
//! then `concentration` local (endpoint) ports, with node id = router * concentration +
//! local index. A fat tree's leaves have node ports and up ports, its higher switches
//! only switch-to-switch ports, so the mapping keeps the graph's own numbering and adds
//! the endpoints after it:
//!
//! * router `s` is switch `s` (the leaves first, as [`FatTree`] numbers them), so node
//!   `p` on leaf `p / m_1` has the same id in both;
//! * network port `q < net_ports` of a router is port `q` of the crossbar, wired as the
//!   tree wires it (`net_ports` = one past the highest switch-to-switch port in use: the
//!   crossbar radix in a network of two or more levels, 0 for a single crossbar);
//! * the node on crossbar port `a` of a leaf is on local port `net_ports + a`; the leaf's
//!   crossbar ports `0..m_1` are left unconnected in the engine, and the local ports of the
//!   switches above the leaves have no endpoint ([`Topology::node_at`] is `None` there).
//!
//! So a router has `net_ports + m_1` ports (48 for the paper's 32-port crossbars), of which
//! the crossbar's radix are used; the unused ones cost buffer memory, not time (they never
//! receive). This keeps every per-port method of [`Topology`] unchanged for the other
//! shapes and needs no per-shape port classification in the routers. A source route's
//! bytes are crossbar ports except the last, the destination's node port `a`, which
//! becomes local port `net_ports + a` ([`crate::routing::updown_net`]).
//!
//! Channels are the tree's switch-to-switch channels, in the tree's order (ids shift by
//! the `2N` node channels the engine models as endpoint channels instead).

use std::sync::Arc;

use super::{Dir, FatTree, Vertex};
use crate::error::{Error, Result};
use crate::topology::{ChannelDesc, Shape, Topology, TopologySummary, NONE};

/// Build the engine's view of `tree`; `path` is the config key ("topology").
pub fn build(tree: FatTree, path: &str) -> Result<Topology> {
    let switches = tree.switch_count();
    let leaves = tree.switches_at(0).len() as u32;
    let per_leaf = tree.nodes_per_leaf();
    let net_ports = tree
        .channels()
        .iter()
        .filter_map(|c| matches!((c.src, c.dst), (Vertex::Switch(_), Vertex::Switch(_))).then_some(c.src_port + 1))
        .max()
        .unwrap_or(0);
    let ports = net_ports + per_leaf;
    if ports > 64 {
        return Err(Error::config(
            path,
            format!("{} needs {ports} router ports in the engine ({net_ports} crossbar ports plus {per_leaf} endpoint ports); routers support at most 64: use a smaller radix", tree.describe()),
        ));
    }
    debug_assert_eq!(leaves * per_leaf, tree.node_count());
    let mut channels = Vec::new();
    let mut out_channel = vec![NONE; (switches * ports) as usize];
    let mut in_channel = vec![NONE; (switches * ports) as usize];
    for c in tree.channels() {
        let (Vertex::Switch(a), Vertex::Switch(b)) = (c.src, c.dst) else { continue };
        let id = channels.len() as u32;
        // `dim` 0 for up channels, 1 for down ones (reports per "dimension" then split them).
        let dim = (c.dir == Dir::Down) as u32;
        channels.push(ChannelDesc { src_router: a, src_port: c.src_port, dst_router: b, dst_port: c.dst_port, dim, dir: 1, wrap: false });
        out_channel[(a * ports + c.src_port) as usize] = id;
        in_channel[(b * ports + c.dst_port) as usize] = id;
    }
    Ok(Topology {
        shape: Shape::FatTree,
        dims: vec![],
        wrap: vec![],
        concentration: per_leaf,
        num_routers: switches,
        num_nodes: tree.node_count(),
        ports,
        channels,
        out_channel,
        in_channel,
        net_ports,
        kautz: None,
        fat_tree: Some(Arc::new(tree)),
        dragonfly: None,
        hyperx: None,
        graph: None,
        coords: vec![],
    })
}

/// Shortest switch-to-switch hops between switches `a` and `b`: up to a common ancestor
/// and down again. Leaves `x` and `y` are `2u` apart where `u` is the level of their
/// nearest common ancestors; other switches by breadth-first search (rarely needed).
pub fn switch_distance(t: &FatTree, a: u32, b: u32) -> u32 {
    if a == b {
        return 0;
    }
    let m1 = t.nodes_per_leaf();
    if t.level_of(a) == 0 && t.level_of(b) == 0 {
        return 2 * t.common_ancestor_level(a * m1, b * m1).unwrap_or(0);
    }
    let n = t.switch_count() as usize;
    let mut dist = vec![u32::MAX; n];
    let mut queue = std::collections::VecDeque::from([a]);
    dist[a as usize] = 0;
    while let Some(s) = queue.pop_front() {
        for p in 0..t.radix() {
            if let Some(super::PortLink { peer: Vertex::Switch(x), .. }) = t.port(s, p) {
                if dist[x as usize] == u32::MAX {
                    dist[x as usize] = dist[s as usize] + 1;
                    if x == b {
                        return dist[x as usize];
                    }
                    queue.push_back(x);
                }
            }
        }
    }
    u32::MAX
}

/// `S(i)`: nodes in one XGFT level-`i` subtree, `m_1 .. m_i` (nodes sharing digits above `i`).
fn subtree_nodes(t: &FatTree, i: u32) -> u64 {
    (0..i).map(|l| t.down_ports(l) as u64).product()
}

/// Summary for `flitsim topo`. Hops count switch-to-switch channels, as for the other
/// shapes: a route turning at level `u` has `2u`; the diameter is `2(h-1)` for `h` switch
/// levels (`2h` links counting the two node links). The mean over ordered pairs: `S(u+1) -
/// S(u)` nodes of every node's pairs turn at level `u` (`subtree_nodes`). The bisection
/// is [`FatTree::bisection`], a minimum cut.
pub fn summary(t: &Topology) -> TopologySummary {
    let tree = t.fat_tree.as_ref().expect("a fat-tree topology has its tree");
    let h = tree.levels();
    let n = tree.node_count() as u64;
    let mut total = 0u64;
    let mut diameter = 0;
    for u in 0..h {
        let pairs = subtree_nodes(tree, u + 1) - subtree_nodes(tree, u);
        total += 2 * u as u64 * pairs;
        if pairs > 0 && u > 0 {
            diameter = 2 * u;
        }
    }
    let with_self = total as f64 / n as f64;
    let distinct = if n > 1 { total as f64 / (n - 1) as f64 } else { 0.0 };
    let b = tree.bisection();
    let bisection = b.channels() as u32;
    let nodes = n as f64;
    let bisection_bound = if bisection > 0 { 2.0 * f64::from(bisection) / nodes } else { f64::INFINITY };
    TopologySummary {
        description: format!("{}, {} switches with {} ports ({} levels)", tree.describe(), tree.switch_count(), tree.radix(), h),
        nodes: tree.node_count(),
        routers: tree.switch_count(),
        router_radix: tree.radix(),
        channels: t.channels.len() as u32,
        diameter,
        avg_hops: with_self,
        avg_hops_distinct: distinct,
        bisection_channels: bisection,
        bisection_note: format!(
            "minimum cut of nodes 0..N/2 against N/2..N (max-flow), {} links; full bisection is floor(N/2) = {} links",
            b.links,
            tree.full_bisection_links()
        ),
        uniform_bisection_bound: bisection_bound.min(1.0),
        // Up*/down* routes spread evenly over the nearest common ancestors load every
        // channel of a full-bisection tree at most as much as its node links.
        uniform_channel_bound: 1.0,
    }
}
