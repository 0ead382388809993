//! Folded Clos networks and k-ary n-trees: the multistage topologies of Myrinet,
//! Quadrics and InfiniBand fabrics.
//!
//! Follows Geoffray and Hoefler, "Adaptive Routing Strategies for Modern High Performance
//! Networks" (`papers/clos-adaptive-routing.txt`): section 2.2 (the Clos network and its
//! parameters; the k-ary n-tree as the fat-tree variant with the same full bisection),
//! section 2.3 (source routing, one route byte per crossbar; `(n/2)^floor(p/2)`
//! up*/down* routes in a full `p`-stage Clos of `n`-port crossbars) and section 5.1 (the
//! 512-node testbed: a 3-stage Clos of 32-port crossbars, 32 line cards each with 16 node
//! ports and 16 links to a spine of 16 crossbars, Figure 1). For the k-ary n-tree (the
//! paper's reference \[8\], whose wiring the paper does not spell out) we follow the standard
//! definition of Petrini and Vanneschi.
//!
//! This module owns the graph (switches, their ports and what each port connects to, the
//! unidirectional channels, levels) and its bisection. Routes are in
//! [`crate::routing::updown`]; the random-bisection workload is in
//! [`crate::traffic::bisection`].
//!
//! # One model for both families
//!
//! Both are *extended generalized fat trees* XGFT(h; m_1..m_h; w_1..w_h) (Öhring et al.,
//! 1995): `h` levels of switches above the nodes; a level-`i` vertex (nodes are level 0,
//! leaf switches level 1) has `m_i` children and every level-`(i-1)` vertex has `w_i`
//! parents. A level-`i` vertex is labelled by `h` digits `x_1..x_h`: digits `j <= i` are
//! *copy* digits (base `w_j`), digits `j > i` are *position* digits (base `m_j`) naming the
//! subtree it belongs to. The level-`(i-1)` vertex `x` and the level-`i` vertex `y` are
//! linked iff their labels agree in every digit except digit `i` (in `x` it is a position,
//! in `y` a copy). Ids are the label read as a mixed-radix number, digit 1 least
//! significant; switch levels are counted from 0 (the leaves) in this API.
//!
//! * **Folded Clos of `r`-port crossbars, `p` stages** (`p` odd, `h = (p+1)/2` levels):
//!   `m = (r/2, .., r/2, t)`, `w = (1, r/2, .., r/2)`. Every switch below the top has
//!   `r/2` down and `r/2` up ports; a top (spine) switch has `t` down ports. The full
//!   Clos has `t = r`: `2(r/2)^h` nodes; `p = 3, r = 32` is the paper's 512-node network,
//!   `p = 5, r = 32` its 8192-node one (section 4.4.1). A smaller `t` (any `1..=r`) is the
//!   same chassis with only `t` top-level subtrees populated: for `p = 3`, `t` line cards
//!   of 16 nodes each, every line card linked to every spine crossbar by exactly one link
//!   (16..512 nodes in steps of 16). The paper measures 16 to 512 nodes on its one 512-port
//!   switch without saying which ports a smaller job used; this models jobs packed onto
//!   whole line cards (a 16-node job is one line card, whose routes never reach a spine).
//! * **k-ary n-tree** (Petrini and Vanneschi): `m = (k, .., k)`, `w = (1, k, .., k)`:
//!   `k^n` nodes, `n` levels of `k^(n-1)` switches with `2k` ports (`k` down, `k` up; the
//!   top level's up ports are unused). In Petrini's notation switch `<w_0..w_(n-2), l>`
//!   (level 0 is the root) is linked to `<w', l+1>` iff `w_i = w'_i` for all `i != l`, and
//!   node `P(p_0..p_(n-1))` to leaf `<p_0..p_(n-2), n-1>`. Here the node id is
//!   `p_0 p_1 .. p_(n-1)` read as a base-`k` numeral (`p_0` most significant), switch
//!   `<w, l>` is level `n-1-l` with index `w_0 .. w_(n-2)` read the same way.
//!
//! # Ports
//! On a switch at level `l` ports `0..m_(l+1)` go down (port `a` to the child whose digit
//! `l+1` is `a`; on a leaf, port `a` is node `leaf * m_1 + a`), ports `m_(l+1) ..
//! m_(l+1) + w_(l+2)` go up (port `m_(l+1) + c` to the parent whose copy digit is `c`),
//! the rest of the crossbar's `radix` ports are unused. So a 512-node Clos leaf `L` has
//! nodes `16L..16L+15` on ports 0-15 and port `16 + j` linked to spine `j`, on the spine's
//! port `L`. A node has one port, 0.
//!
//! # Channels
//! Every link is two unidirectional [`Channel`]s. Ids: channel `2e` goes up and `2e+1` goes
//! down over link `e`; links are numbered node links first (link `p` joins node `p` to its
//! leaf), then level by level, switch by switch, up port by up port.

mod bisection;
pub mod network;
#[cfg(test)]
mod tests;

pub use bisection::Bisection;

use crate::error::{Error, Result};

/// A switch: its id, levels in order from the leaves (all leaf switches first).
pub type SwitchId = u32;
/// A node (endpoint): its id.
pub type NodeId = u32;

/// Largest number of nodes a tree may have (the graph is held in dense tables).
pub const MAX_NODES: u64 = 1 << 24;
/// Largest number of switch levels (a route then has at most 15 switches, one byte each).
pub const MAX_LEVELS: usize = 8;
/// Largest crossbar radix (ports fit the one-byte route symbols of section 2.3).
pub const MAX_RADIX: u32 = 255;

/// One end of a channel: a node or a switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Vertex {
    /// An endpoint (NIC).
    Node(NodeId),
    /// A crossbar.
    Switch(SwitchId),
}

/// Which way a channel or port points in the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// Towards the root (away from the nodes).
    Up,
    /// Towards the nodes.
    Down,
}

/// What a switch port is wired to: the vertex and its port at the far end, and which way
/// the port points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PortLink {
    /// Vertex at the far end.
    pub peer: Vertex,
    /// Its port.
    pub peer_port: u32,
    /// `Down` for ports to children (nodes or lower switches), `Up` for ports to parents.
    pub dir: Dir,
}

/// One unidirectional channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Channel {
    /// Vertex that drives it.
    pub src: Vertex,
    /// Output port of `src`.
    pub src_port: u32,
    /// Vertex that receives it.
    pub dst: Vertex,
    /// Input port of `dst`.
    pub dst_port: u32,
    /// `Up` if `dst` is a parent of `src`.
    pub dir: Dir,
}

/// Which family a tree was built as (for descriptions; the graph does not depend on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Folded Clos of `radix`-port crossbars with `stages` stages and `subtrees` top-level
    /// subtrees populated (`radix` for the full network).
    Clos {
        /// Crossbar ports.
        radix: u32,
        /// Stages (odd).
        stages: u32,
        /// Populated top-level subtrees (line cards for 3 stages).
        subtrees: u32,
    },
    /// Petrini and Vanneschi's k-ary n-tree.
    KaryNTree {
        /// Arity.
        k: u32,
        /// Levels.
        n: u32,
    },
}

/// A folded Clos network or k-ary n-tree (see the module documentation for the wiring).
#[derive(Clone, Debug)]
pub struct FatTree {
    family: Family,
    radix: u32,
    /// `m[j-1]` = `m_j`: children of a level-`j` vertex (XGFT levels, nodes are 0).
    m: Vec<u32>,
    /// `w[j-1]` = `w_j`: parents of a level-`(j-1)` vertex; `w[0] = 1`.
    w: Vec<u32>,
    /// `place[i][j-1]`: place value of digit `j` in a level-`i` id (`i = 0..=h`).
    place: Vec<Vec<u64>>,
    /// `count[i]`: vertices at XGFT level `i` (`count[0]` = nodes).
    count: Vec<u32>,
    /// First switch id of each switch level (`h + 1` entries, the last = switch count).
    offset: Vec<u32>,
    /// `ports[s * radix + port]`: what that switch port is wired to.
    ports: Vec<Option<PortLink>>,
    /// `out[s * radix + port]`: channel leaving that switch port, or `u32::MAX`.
    out: Vec<u32>,
    channels: Vec<Channel>,
}

/// Label digits of a vertex: `d[j-1]` is digit `j`.
pub(crate) type Digits = [u32; MAX_LEVELS];

impl FatTree {
    /// The full folded Clos of `radix`-port crossbars with `stages` stages; errors name
    /// the fields `topology.radix` and `topology.stages`.
    pub fn clos(radix: u32, stages: u32) -> Result<FatTree> {
        Self::build_clos(radix, stages, None, "topology")
    }

    /// The paper's network: 512 nodes, 3 stages of 32-port crossbars (section 5.1).
    pub fn paper_512() -> FatTree {
        Self::build_clos(32, 3, None, "topology").expect("the paper's parameters are valid")
    }

    /// A folded Clos of `radix`-port crossbars and `stages` stages with `nodes` nodes (a
    /// multiple of `(radix/2)^((stages-1)/2)`, at most the full network's
    /// `2(radix/2)^((stages+1)/2)`), or the full network when `nodes` is `None`. `path` is
    /// the config key of the table, used in errors (`{path}.radix`, `.stages`, `.nodes`).
    pub fn build_clos(radix: u32, stages: u32, nodes: Option<u32>, path: &str) -> Result<FatTree> {
        if !(2..=MAX_RADIX).contains(&radix) || !radix.is_multiple_of(2) {
            return Err(Error::config(
                format!("{path}.radix"),
                format!(
                    "{radix}-port crossbars cannot build a folded Clos: the radix must be even (half the ports \
                     down, half up) and in 2..={}; the paper's Myrinet crossbars have 32",
                    MAX_RADIX - 1
                ),
            ));
        }
        if stages.is_multiple_of(2) {
            return Err(Error::config(
                format!("{path}.stages"),
                format!("a Clos network has an odd number of stages (paper section 2.2), not {stages}; use 1, 3 (the paper's 512-node network), 5, ..."),
            ));
        }
        let h = (stages as usize).div_ceil(2);
        if h > MAX_LEVELS {
            return Err(Error::config(
                format!("{path}.stages"),
                format!("{stages} stages is {h} switch levels; at most {MAX_LEVELS} levels ({} stages) are supported", 2 * MAX_LEVELS - 1),
            ));
        }
        let half = radix / 2;
        // Nodes per top-level subtree: (r/2)^(h-1).
        let per = (half as u64).checked_pow(h as u32 - 1).filter(|&p| p <= MAX_NODES);
        let full = per.and_then(|p| p.checked_mul(radix as u64));
        let (Some(per), Some(full)) = (per, full) else {
            return Err(Error::config(
                format!("{path}.stages"),
                format!("{stages} stages of {radix}-port crossbars exceed {MAX_NODES} nodes; use fewer stages or a smaller radix"),
            ));
        };
        let subtrees = match nodes {
            None => radix as u64,
            Some(n) => {
                if n == 0 || !(n as u64).is_multiple_of(per) || n as u64 > full {
                    let unit = if h == 1 {
                        "a crossbar port".to_string()
                    } else if h == 2 {
                        format!("a line card of {per} nodes")
                    } else {
                        format!("a subtree of {per} nodes")
                    };
                    return Err(Error::config(
                        format!("{path}.nodes"),
                        format!(
                            "{n} nodes cannot populate a {stages}-stage Clos of {radix}-port crossbars: nodes come in whole top-level \
                             subtrees ({unit}); use a multiple of {per} from {per} to {full}"
                        ),
                    ));
                }
                n as u64 / per
            }
        };
        if subtrees * per > MAX_NODES {
            return Err(Error::config(
                format!("{path}.stages"),
                format!("{stages} stages of {radix}-port crossbars make {} nodes, more than {MAX_NODES}; use fewer stages, a smaller radix or fewer nodes", subtrees * per),
            ));
        }
        // Below the top r/2 children and r/2 parents; the top has `subtrees` children
        // (with one stage, a single crossbar whose every port is a node port).
        let mut m = vec![half; h];
        m[h - 1] = subtrees as u32;
        let mut w = vec![half; h];
        w[0] = 1;
        Self::from_arities(Family::Clos { radix, stages, subtrees: subtrees as u32 }, radix, m, w)
    }

    /// Petrini and Vanneschi's k-ary n-tree; errors name `topology.k` and `topology.n`.
    pub fn k_ary_n_tree(k: u32, n: u32) -> Result<FatTree> {
        Self::build_k_ary_n_tree(k, n, "topology")
    }

    /// A k-ary n-tree: `k^n` nodes, `n` levels of `k^(n-1)` switches with `2k` ports.
    /// `path` is the config key of the table, used in errors (`{path}.k`, `{path}.n`).
    pub fn build_k_ary_n_tree(k: u32, n: u32, path: &str) -> Result<FatTree> {
        if !(2..=MAX_RADIX / 2).contains(&k) {
            return Err(Error::config(
                format!("{path}.k"),
                format!("arity {k} is not supported; use 2..={} (switches have 2k ports)", MAX_RADIX / 2),
            ));
        }
        if n == 0 || n as usize > MAX_LEVELS {
            return Err(Error::config(format!("{path}.n"), format!("{n} levels is not supported; use 1..={MAX_LEVELS}")));
        }
        if (k as u64).checked_pow(n).is_none_or(|c| c > MAX_NODES) {
            return Err(Error::config(
                format!("{path}.n"),
                format!("{k}^{n} nodes is more than {MAX_NODES}; use fewer levels or a smaller arity"),
            ));
        }
        let m = vec![k; n as usize];
        let mut w = vec![k; n as usize];
        w[0] = 1;
        Self::from_arities(Family::KaryNTree { k, n }, 2 * k, m, w)
    }

    /// Build XGFT(h; m; w) on crossbars of `radix` ports (callers have validated sizes).
    fn from_arities(family: Family, radix: u32, m: Vec<u32>, w: Vec<u32>) -> Result<FatTree> {
        let h = m.len();
        debug_assert!((1..=MAX_LEVELS).contains(&h) && w.len() == h && w[0] == 1);
        let base = |i: usize, j: usize| if j <= i { w[j - 1] } else { m[j - 1] };
        let mut place = Vec::with_capacity(h + 1);
        let mut count = Vec::with_capacity(h + 1);
        for i in 0..=h {
            let mut p = Vec::with_capacity(h);
            let mut acc = 1u64;
            for j in 1..=h {
                p.push(acc);
                acc *= base(i, j) as u64;
            }
            if acc > MAX_NODES * MAX_LEVELS as u64 {
                return Err(Error::config("topology", format!("level {i} would have {acc} vertices; use a smaller network")));
            }
            place.push(p);
            count.push(acc as u32);
        }
        let mut offset = vec![0u32; h + 1];
        for l in 0..h {
            offset[l + 1] = offset[l] + count[l + 1];
        }
        for l in 0..h {
            let used = m[l] + if l + 1 < h { w[l + 1] } else { 0 };
            if used > radix {
                return Err(Error::config("topology", format!("switches at level {l} need {used} ports but the crossbars have {radix}")));
            }
        }
        let switches = offset[h] as usize;
        let mut tree = FatTree {
            family,
            radix,
            m,
            w,
            place,
            count,
            offset,
            ports: vec![None; switches * radix as usize],
            out: vec![u32::MAX; switches * radix as usize],
            channels: Vec::new(),
        };
        tree.wire();
        Ok(tree)
    }

    /// Fill the port tables and the channel list.
    fn wire(&mut self) {
        let h = self.m.len();
        let r = self.radix as usize;
        let mut links: Vec<(Vertex, u32, Vertex, u32)> = Vec::new();
        // Node links: node p on port p % m_1 of leaf p / m_1.
        for p in 0..self.count[0] {
            links.push((Vertex::Node(p), 0, Vertex::Switch(p / self.m[0]), p % self.m[0]));
        }
        // Switch links, level by level: up port m_(l+1) + c of a level-l switch.
        for l in 0..h - 1 {
            let i = l + 1; // XGFT level of the lower switch
            for x in 0..self.count[i] {
                let d = self.digits(i, x);
                for c in 0..self.w[i] {
                    let mut up = d;
                    up[i] = c;
                    let parent = self.offset[l + 1] + self.index(i + 1, &up);
                    links.push((Vertex::Switch(self.offset[l] + x), self.m[i - 1] + c, Vertex::Switch(parent), d[i]));
                }
            }
        }
        self.channels.reserve(2 * links.len());
        for (lo, lo_port, hi, hi_port) in links {
            let id = self.channels.len() as u32;
            self.channels.push(Channel { src: lo, src_port: lo_port, dst: hi, dst_port: hi_port, dir: Dir::Up });
            self.channels.push(Channel { src: hi, src_port: hi_port, dst: lo, dst_port: lo_port, dir: Dir::Down });
            if let Vertex::Switch(s) = lo {
                self.ports[s as usize * r + lo_port as usize] = Some(PortLink { peer: hi, peer_port: hi_port, dir: Dir::Up });
                self.out[s as usize * r + lo_port as usize] = id;
            }
            if let Vertex::Switch(s) = hi {
                self.ports[s as usize * r + hi_port as usize] = Some(PortLink { peer: lo, peer_port: lo_port, dir: Dir::Down });
                self.out[s as usize * r + hi_port as usize] = id + 1;
            }
        }
    }

    /// Digits of the level-`i` vertex with index `x` (XGFT levels: 0 = nodes).
    pub(crate) fn digits(&self, i: usize, x: u32) -> Digits {
        let mut d = [0u32; MAX_LEVELS];
        let h = self.m.len();
        let mut rest = x as u64;
        for j in (1..=h).rev() {
            let p = self.place[i][j - 1];
            d[j - 1] = (rest / p) as u32;
            rest %= p;
        }
        d
    }

    /// Index of the level-`i` vertex with digits `d`.
    pub(crate) fn index(&self, i: usize, d: &Digits) -> u32 {
        (0..self.m.len()).map(|j| d[j] as u64 * self.place[i][j]).sum::<u64>() as u32
    }

    /// `w_j` (parents of an XGFT level-`(j-1)` vertex), `j` in `1..=h`; 0 above the top.
    pub(crate) fn w(&self, j: usize) -> u32 {
        self.w.get(j - 1).copied().unwrap_or(0)
    }

    /// Which family and parameters the tree was built from.
    pub fn family(&self) -> Family {
        self.family
    }

    /// e.g. "3-stage folded Clos of 32-port crossbars, 512 nodes".
    pub fn describe(&self) -> String {
        match self.family {
            Family::Clos { radix, stages, .. } => {
                format!("{stages}-stage folded Clos of {radix}-port crossbars, {} nodes", self.node_count())
            }
            Family::KaryNTree { k, n } => format!("{k}-ary {n}-tree, {} nodes", self.node_count()),
        }
    }

    /// Ports per crossbar (some may be unused).
    pub fn radix(&self) -> u32 {
        self.radix
    }

    /// Switch levels `h` (the leaves are level 0, the top level `h - 1`).
    pub fn levels(&self) -> u32 {
        self.m.len() as u32
    }

    /// Number of nodes.
    pub fn node_count(&self) -> u32 {
        self.count[0]
    }

    /// Number of switches.
    pub fn switch_count(&self) -> u32 {
        self.offset[self.m.len()]
    }

    /// Switches at `level` (`0..levels()`), as a range of ids.
    pub fn switches_at(&self, level: u32) -> std::ops::Range<SwitchId> {
        let l = (level as usize).min(self.m.len());
        self.offset[l]..self.offset[(l + 1).min(self.m.len())]
    }

    /// Level of switch `s` (0 = leaf).
    pub fn level_of(&self, s: SwitchId) -> u32 {
        (self.offset.partition_point(|&o| o <= s) - 1) as u32
    }

    /// Nodes on each leaf switch (`m_1`).
    pub fn nodes_per_leaf(&self) -> u32 {
        self.m[0]
    }

    /// Leaf switch of node `p`.
    pub fn leaf_of(&self, p: NodeId) -> SwitchId {
        p / self.m[0]
    }

    /// Port of node `p` on its leaf.
    pub fn leaf_port_of(&self, p: NodeId) -> u32 {
        p % self.m[0]
    }

    /// Down ports of a switch at `level` (children).
    pub fn down_ports(&self, level: u32) -> u32 {
        self.m.get(level as usize).copied().unwrap_or(0)
    }

    /// Up ports of a switch at `level` (parents; 0 at the top level).
    pub fn up_ports(&self, level: u32) -> u32 {
        self.w(level as usize + 2)
    }

    /// What port `port` of switch `s` is wired to, or `None` if unused (or out of range).
    pub fn port(&self, s: SwitchId, port: u32) -> Option<PortLink> {
        if s >= self.switch_count() || port >= self.radix {
            return None;
        }
        self.ports[(s * self.radix + port) as usize]
    }

    /// All unidirectional channels (see the module documentation for the id order).
    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    /// The channel leaving `port` of vertex `v` (a node's only port is 0), if wired.
    pub fn out_channel(&self, v: Vertex, port: u32) -> Option<u32> {
        match v {
            Vertex::Node(p) => (p < self.node_count() && port == 0).then_some(2 * p),
            Vertex::Switch(s) => {
                if s >= self.switch_count() || port >= self.radix {
                    return None;
                }
                let c = self.out[(s * self.radix + port) as usize];
                (c != u32::MAX).then_some(c)
            }
        }
    }

    /// Channel from node `p` into its leaf (the injection channel).
    pub fn injection_channel(&self, p: NodeId) -> u32 {
        2 * p
    }

    /// Channel from the leaf into node `p` (the ejection channel).
    pub fn ejection_channel(&self, p: NodeId) -> u32 {
        2 * p + 1
    }

    /// Level (0 = leaf) of the nearest common ancestors of two distinct nodes: the number
    /// of up hops of a shortest route. `None` if `a == b` or either is not a node.
    pub fn common_ancestor_level(&self, a: NodeId, b: NodeId) -> Option<u32> {
        if a == b || a >= self.node_count() || b >= self.node_count() {
            return None;
        }
        let (da, db) = (self.digits(0, a), self.digits(0, b));
        // The highest digit in which the labels differ is the XGFT level of the ancestors.
        let j = (1..=self.m.len()).rev().find(|&j| da[j - 1] != db[j - 1]).unwrap_or(1);
        Some(j as u32 - 1)
    }

    /// The balanced split of nodes `0..N/2` against `N/2..N` (the top-level subtrees halved
    /// when their number is even) with the switches placed to cut the fewest links: a
    /// minimum bisection of the network (see [`Bisection`]).
    pub fn bisection(&self) -> Bisection {
        let n = self.node_count();
        let sides: Vec<bool> = (0..n).map(|p| p < n / 2).collect();
        bisection::min_cut(self, &sides)
    }

    /// Links a network with full bisection bandwidth has across its minimum bisection:
    /// one per node of the smaller half, `floor(N/2)` (paper section 1: the bisection
    /// bandwidth between two equal halves; section 2.2: a Clos with `m >= n` has it).
    pub fn full_bisection_links(&self) -> u64 {
        self.node_count() as u64 / 2
    }

    /// The fewest links crossing a cut that puts exactly the nodes with `node_in_a[p]` on
    /// side A (switches placed freely). Errors if the slice is not one flag per node.
    pub fn min_cut(&self, node_in_a: &[bool]) -> Result<Bisection> {
        if node_in_a.len() != self.node_count() as usize {
            return Err(Error::config(
                "bisection.sides",
                format!("has {} entries; give one per node ({})", node_in_a.len(), self.node_count()),
            ));
        }
        Ok(bisection::min_cut(self, node_in_a))
    }
}
