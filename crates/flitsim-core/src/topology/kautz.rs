//! Kautz digraphs K(d, D): the topology of the SiCortex SC5832 fabric.
//!
//! Follows Godiwala, Leonard and Reilly, "A Network Fabric for Scalable Multiprocessor
//! Systems" (SiCortex; `papers/sicortex-kautz-fabric.txt`): section 5 (the Kautz topology,
//! Figure 3's twelve-node graph, Table 1's diameters and bisection widths, the bisection
//! lower bound of Rolim et al.), section 4.1 (source routing: two bits of the routing
//! string are shifted off at each switch), section 6.1 (multi-rail over the `d`
//! independent routes and what it does to the mean path length) and the fault claims of
//! section 5 (`d` independent routes between any pair; one link or node failure grows the
//! diameter by at most one).
//!
//! This module owns the graph itself and the analyses that depend only on it:
//!
//! * **Nodes.** A node is a *Kautz string* of length `D` over the alphabet `{0, .., d}`
//!   with no two adjacent symbols equal, so there are `(d+1)·d^(D-1)` nodes. Node ids are
//!   the rank of the label in lexicographic order (`0` is `0101..`, the last is `dd-1..`):
//!   for K(3,2), Figure 3's twelve nodes `01 02 03 10 12 13 20 21 23 30 31 32` are ids
//!   0 to 11 in that order. See [`Kautz::label`] and [`Kautz::id_of`].
//! * **Out-links.** Node `x1..xD` drives `d` unidirectional links, one to each
//!   `x2..xD a` with `a != xD` (shift left, append). Out-port `p` appends the `p`-th
//!   smallest symbol that differs from `xD` (`a = p` if `p < xD`, else `p + 1`), so ports
//!   list the neighbours in id order and a port fits in two bits for `d <= 3`.
//! * **In-links.** Node `y1..yD` receives from the `d` nodes `b y1..y(D-1)` with
//!   `b != y1`; in-port `q` is the link from the `q`-th smallest such `b`.
//! * **Channels.** Channel id = `src * d + out_port`; see [`Channel`].
//! * **Routes.** The shortest route is the string shift: the longest suffix of the source
//!   label that is a prefix of the destination label is kept, the rest of the destination
//!   is appended one symbol per hop ([`Kautz::route`]). [`SourceRoute`] packs the
//!   out-ports into the header's routing string.
//!
//! Submodules: [`disjoint`] (the `d` internally node-disjoint routes), [`faults`] (routes
//! and distances in a graph with failed links and nodes), [`metrics`] (distance
//! statistics, bisection width by METIS and the paper's lower bound, torus baselines for
//! Table 1).

pub mod disjoint;
pub mod faults;
pub mod metrics;
pub mod network;
mod source_route;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_analysis;

pub use source_route::{RouteStep, SourceRoute};

use crate::error::{Error, Result};

/// A node (router + its endpoint) of a Kautz graph: the lexicographic rank of its label.
pub type NodeId = u32;

/// Largest number of nodes [`Kautz::new`] accepts (the graph is held in dense tables).
pub const MAX_NODES: u64 = 1 << 24;

/// Largest degree [`Kautz::new`] accepts (symbols and ports are stored as `u8`).
pub const MAX_DEGREE: u32 = 255;

/// One unidirectional link of a Kautz graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Channel {
    /// Node that drives the link.
    pub src: NodeId,
    /// Output port of `src` (`0..d`): the rank of the appended symbol.
    pub out_port: u8,
    /// Node that receives it.
    pub dst: NodeId,
    /// Input port of `dst` (`0..d`): the rank of `src`'s first symbol among the symbols
    /// that differ from `dst`'s first symbol.
    pub in_port: u8,
}

/// A Kautz digraph K(d, D): degree `d`, diameter `D`, `(d+1)·d^(D-1)` nodes.
#[derive(Clone, Debug)]
pub struct Kautz {
    degree: u32,
    diameter: u32,
    nodes: u32,
    /// `labels[n*D .. n*D+D]` is node `n`'s label.
    labels: Vec<u8>,
    /// `out[n*d + p]`: the node reached through out-port `p` of `n`.
    out: Vec<NodeId>,
    /// `inn[n*d + q]`: the node whose link arrives on in-port `q` of `n`.
    inn: Vec<NodeId>,
}

/// Rank of `symbol` among the symbols that differ from `prev` (`symbol != prev`).
#[inline]
fn rank_of(prev: u8, symbol: u8) -> u8 {
    if symbol < prev {
        symbol
    } else {
        symbol - 1
    }
}

/// The symbol of rank `rank` among the symbols that differ from `prev`.
#[inline]
fn symbol_of(prev: u8, rank: u8) -> u8 {
    if rank < prev {
        rank
    } else {
        rank + 1
    }
}

impl Kautz {
    /// Build K(`degree`, `diameter`). Errors name the fields `topology.degree` and
    /// `topology.diameter`; use [`Kautz::build`] to name another config table.
    pub fn new(degree: u32, diameter: u32) -> Result<Kautz> {
        Self::build(degree, diameter, "topology")
    }

    /// Build K(`degree`, `diameter`); `path` is the config key of the topology table.
    pub fn build(degree: u32, diameter: u32, path: &str) -> Result<Kautz> {
        if !(2..=MAX_DEGREE).contains(&degree) {
            return Err(Error::config(
                format!("{path}.degree"),
                format!("degree {degree} is not supported; use 2..={MAX_DEGREE} (the SC5832 uses 3)"),
            ));
        }
        if diameter == 0 {
            return Err(Error::config(format!("{path}.diameter"), "diameter 0 is not a network; use 1 or more (the SC5832 uses 6)"));
        }
        let too_big = || {
            Error::config(
                format!("{path}.diameter"),
                format!(
                    "K({degree}, {diameter}) has more than {MAX_NODES} nodes; \
                     use a smaller diameter or degree"
                ),
            )
        };
        let mut count = u64::from(degree) + 1;
        for _ in 1..diameter {
            count = count.checked_mul(u64::from(degree)).ok_or_else(too_big)?;
            if count > MAX_NODES {
                return Err(too_big());
            }
        }
        if count > MAX_NODES {
            return Err(too_big());
        }
        let nodes = count as u32;
        let (d, len) = (degree as usize, diameter as usize);
        let mut kautz = Kautz {
            degree,
            diameter,
            nodes,
            labels: vec![0; nodes as usize * len],
            out: vec![0; nodes as usize * d],
            inn: vec![0; nodes as usize * d],
        };
        for n in 0..nodes {
            let label = kautz.label_of_rank(n);
            kautz.labels[n as usize * len..(n as usize + 1) * len].copy_from_slice(&label);
        }
        let mut next = vec![0u8; len];
        for n in 0..nodes as usize {
            let label = &kautz.labels[n * len..(n + 1) * len];
            let last = label[len - 1];
            next[..len - 1].copy_from_slice(&label[1..]);
            for p in 0..d {
                next[len - 1] = symbol_of(last, p as u8);
                let dst = kautz.rank_of_label(&next);
                kautz.out[n * d + p] = dst;
                let q = rank_of(next[0], label[0]) as usize;
                kautz.inn[dst as usize * d + q] = n as NodeId;
            }
        }
        Ok(kautz)
    }

    /// Out-degree (= in-degree) `d`.
    pub fn degree(&self) -> u32 {
        self.degree
    }

    /// Diameter `D` (= label length).
    pub fn diameter(&self) -> u32 {
        self.diameter
    }

    /// Number of nodes, `(d+1)·d^(D-1)`.
    pub fn node_count(&self) -> u32 {
        self.nodes
    }

    /// Number of unidirectional channels, `d` per node.
    pub fn channel_count(&self) -> u32 {
        self.nodes * self.degree
    }

    /// Node `n`'s label: `D` symbols in `0..=d`, no two adjacent equal.
    ///
    /// # Panics
    /// If `n` is not a node id (`n >= node_count()`).
    pub fn label(&self, n: NodeId) -> &[u8] {
        let len = self.diameter as usize;
        &self.labels[n as usize * len..(n as usize + 1) * len]
    }

    /// Node `n`'s label as text, e.g. `"0121"` (symbols above 9 are written `a`, `b`, ..).
    pub fn label_string(&self, n: NodeId) -> String {
        self.label(n).iter().map(|&s| char::from_digit(u32::from(s), 36).unwrap_or('?')).collect()
    }

    /// The id of the node with label `label`, or an error (field `label`) saying why the
    /// string is not a Kautz string of this graph.
    pub fn id_of(&self, label: &[u8]) -> Result<NodeId> {
        if label.len() != self.diameter as usize {
            return Err(Error::config(
                "label",
                format!("{:?} has {} symbols; K({}, {}) labels have {}", label, label.len(), self.degree, self.diameter, self.diameter),
            ));
        }
        if let Some(&s) = label.iter().find(|&&s| u32::from(s) > self.degree) {
            return Err(Error::config("label", format!("{label:?}: symbol {s} is outside the alphabet 0..={}", self.degree)));
        }
        if let Some(w) = label.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::config("label", format!("{label:?}: adjacent symbols {} {} are equal", w[0], w[1])));
        }
        Ok(self.rank_of_label(label))
    }

    /// The id of the node whose label is `text` (digits, as [`Kautz::label_string`] writes).
    pub fn id_of_str(&self, text: &str) -> Result<NodeId> {
        let symbols: Option<Vec<u8>> = text.chars().map(|c| c.to_digit(36).map(|v| v as u8)).collect();
        match symbols {
            Some(s) => self.id_of(&s),
            None => Err(Error::config("label", format!("{text:?} is not a string of digits"))),
        }
    }

    /// The node reached through out-port `port` of `n` (`port < d`).
    ///
    /// # Panics
    /// If `n` or `port` is out of range.
    pub fn out_neighbour(&self, n: NodeId, port: u8) -> NodeId {
        assert!(u32::from(port) < self.degree, "out-port {port} >= degree {}", self.degree);
        self.out[n as usize * self.degree as usize + port as usize]
    }

    /// The `d` out-neighbours of `n`, indexed by out-port.
    pub fn out_neighbours(&self, n: NodeId) -> &[NodeId] {
        let d = self.degree as usize;
        &self.out[n as usize * d..(n as usize + 1) * d]
    }

    /// The `d` in-neighbours of `n`, indexed by in-port.
    pub fn in_neighbours(&self, n: NodeId) -> &[NodeId] {
        let d = self.degree as usize;
        &self.inn[n as usize * d..(n as usize + 1) * d]
    }

    /// The out-port of `src` whose link reaches `dst`, if they are adjacent.
    pub fn out_port_to(&self, src: NodeId, dst: NodeId) -> Option<u8> {
        self.out_neighbours(src).iter().position(|&m| m == dst).map(|p| p as u8)
    }

    /// The in-port of `dst` on which the link from `src` arrives, if they are adjacent.
    pub fn in_port_from(&self, dst: NodeId, src: NodeId) -> Option<u8> {
        self.in_neighbours(dst).iter().position(|&m| m == src).map(|q| q as u8)
    }

    /// Channel id of out-port `port` of `src`: `src * d + port`.
    pub fn channel_id(&self, src: NodeId, port: u8) -> u32 {
        src * self.degree + u32::from(port)
    }

    /// Channel number `id` (`id < channel_count()`).
    ///
    /// # Panics
    /// If `id` is out of range.
    pub fn channel(&self, id: u32) -> Channel {
        let src = id / self.degree;
        let out_port = (id % self.degree) as u8;
        let dst = self.out[id as usize];
        let in_port = rank_of(self.label(dst)[0], self.label(src)[0]);
        Channel { src, out_port, dst, in_port }
    }

    /// Every channel, in channel-id order.
    pub fn channels(&self) -> impl Iterator<Item = Channel> + '_ {
        (0..self.channel_count()).map(|id| self.channel(id))
    }

    /// Length of the longest suffix of `src`'s label that is a prefix of `dst`'s label
    /// (`D` when `src == dst`).
    pub fn overlap(&self, src: NodeId, dst: NodeId) -> u32 {
        let (x, y) = (self.label(src), self.label(dst));
        let len = x.len();
        (0..=len).rev().find(|&l| x[len - l..] == y[..l]).unwrap_or(0) as u32
    }

    /// Hops on a shortest route from `src` to `dst`: `D - overlap(src, dst)`.
    pub fn distance(&self, src: NodeId, dst: NodeId) -> u32 {
        self.diameter - self.overlap(src, dst)
    }

    /// The shortest route by the string shift, as the out-port taken at each hop (empty
    /// when `src == dst`). It is the only shortest route: a walk of `k` hops from `x` to
    /// `y` spells `x` followed by `k` symbols whose last `D` are `y`, so it exists only if
    /// `x`'s suffix of length `D - k` is `y`'s prefix, and the appended symbols are fixed.
    pub fn route(&self, src: NodeId, dst: NodeId) -> Vec<u8> {
        let l = self.overlap(src, dst) as usize;
        let y = self.label(dst);
        let mut prev = self.label(src)[y.len() - 1];
        y[l..]
            .iter()
            .map(|&s| {
                let p = rank_of(prev, s);
                prev = s;
                p
            })
            .collect()
    }

    /// The first out-port of [`Kautz::route`] (None when `src == dst`), without building
    /// the route.
    pub fn next_port(&self, src: NodeId, dst: NodeId) -> Option<u8> {
        let l = self.overlap(src, dst) as usize;
        let y = self.label(dst);
        (l < y.len()).then(|| rank_of(self.label(src)[y.len() - 1], y[l]))
    }

    /// The nodes visited by following `ports` from `src`, `src` first; an error (field
    /// `route`) if a port is not below the degree.
    pub fn walk(&self, src: NodeId, ports: &[u8]) -> Result<Vec<NodeId>> {
        if src >= self.nodes {
            return Err(Error::config("route", format!("source {src} is not a node (the graph has {})", self.nodes)));
        }
        let mut at = src;
        let mut nodes = Vec::with_capacity(ports.len() + 1);
        nodes.push(at);
        for (hop, &p) in ports.iter().enumerate() {
            if u32::from(p) >= self.degree {
                return Err(Error::config(format!("route[{hop}]"), format!("out-port {p} does not exist; ports are 0..{}", self.degree)));
            }
            at = self.out_neighbour(at, p);
            nodes.push(at);
        }
        Ok(nodes)
    }

    /// The route from `src` as a [`SourceRoute`] header string (see [`SourceRoute::encode`]).
    pub fn source_route(&self, src: NodeId, dst: NodeId) -> Result<SourceRoute> {
        SourceRoute::encode(&self.route(src, dst), self.degree)
    }

    /// Label of lexicographic rank `n` (see the module doc for the numbering).
    fn label_of_rank(&self, n: NodeId) -> Vec<u8> {
        let len = self.diameter as usize;
        let d = self.degree;
        let mut digits = vec![0u32; len];
        let mut rest = n;
        for i in (1..len).rev() {
            digits[i] = rest % d;
            rest /= d;
        }
        digits[0] = rest;
        let mut label = vec![0u8; len];
        label[0] = digits[0] as u8;
        for i in 1..len {
            label[i] = symbol_of(label[i - 1], digits[i] as u8);
        }
        label
    }

    /// Lexicographic rank of a valid label.
    fn rank_of_label(&self, label: &[u8]) -> NodeId {
        let d = self.degree;
        let mut n = u32::from(label[0]);
        for w in label.windows(2) {
            n = n * d + u32::from(rank_of(w[0], w[1]));
        }
        n
    }
}
