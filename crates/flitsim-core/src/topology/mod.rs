//! Network graphs: routers, ports, channels and endpoints, with coordinates, minimal
//! distances and bisection analysis.
//!
//! Port numbering on a k-ary n-cube router: ports `2d` and `2d+1` are the links to the
//! `+` and `-` neighbour in dimension `d`; ports `2n .. 2n+c` are the local (endpoint)
//! ports. A crossbar has only local ports. Endpoint (node) id = router * c + local index;
//! router index is mixed radix over the dimensions with dimension 0 varying fastest.
//! Kautz graphs and fat trees map their own port numbering onto this shape (see
//! [`kautz::network`] and [`clos::network`]).

pub mod clos;
pub mod crossbar;
pub mod cube;
pub mod dragonfly;
pub mod graph;
pub mod hyperx;
pub mod kautz;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Marker for "no channel" in port-to-channel maps.
pub const NONE: u32 = u32::MAX;

/// Config table `[topology]`: which network graph to build.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
#[schemars(!remote, tag = "type")]
pub enum TopologyConfig {
    /// k-ary n-cube with every dimension wrapped (a torus).
    Torus {
        /// Radix of each dimension, dimension 0 (x) first, e.g. `[11, 12, 16]`. Each >= 2.
        dims: Vec<u32>,
        /// Endpoints per router (concentration).
        #[serde(default = "one")]
        concentration: u32,
    },
    /// k-ary n-cube with no dimension wrapped (a mesh).
    Mesh {
        /// Radix of each dimension, dimension 0 (x) first. Each >= 2.
        dims: Vec<u32>,
        /// Endpoints per router (concentration).
        #[serde(default = "one")]
        concentration: u32,
    },
    /// k-ary n-cube with each dimension independently a torus ring or a mesh line.
    Cube {
        /// Radix of each dimension, dimension 0 (x) first. Each >= 2.
        dims: Vec<u32>,
        /// Per dimension: `true` = torus (wrap-around link), `false` = mesh. Same length as `dims`.
        wrap: Vec<bool>,
        /// Endpoints per router (concentration).
        #[serde(default = "one")]
        concentration: u32,
    },
    /// A single router with `ports` endpoints: the input-queued crossbar used for validation.
    Crossbar {
        /// Number of ports (and endpoints), 1..=64.
        ports: u32,
    },
    /// Kautz digraph K(d, D) (the SiCortex fabric): `(d+1) d^(D-1)` routers with one
    /// endpoint each, `d` unidirectional links out and `d` in per router.
    Kautz {
        /// `d`: links out (and in) per router, 2..=15. The SC5832 has 3.
        degree: u32,
        /// `D`: the diameter, and the length of the node labels, >= 1. The SC5832 has 6
        /// (972 nodes).
        diameter: u32,
    },
    /// Folded Clos of `radix`-port crossbars with `stages` stages (Myrinet, the
    /// adaptive-routing paper's 512-node network is `radix = 32, stages = 3`).
    Clos {
        /// Crossbar ports, even (half down, half up below the top level).
        radix: u32,
        /// Stages, odd (3 = leaves and spines).
        stages: u32,
        /// Nodes: whole top-level subtrees (line cards of `radix/2` nodes for 3 stages).
        /// Default: the full network, `2 (radix/2)^((stages+1)/2)`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nodes: Option<u32>,
    },
    /// Petrini and Vanneschi's k-ary n-tree: `k^n` nodes, `n` levels of `k^(n-1)`
    /// switches with `2k` ports.
    KAryNTree {
        /// Arity `k` (down and up ports per switch).
        k: u32,
        /// Levels `n`.
        n: u32,
    },
    /// Dragonfly (Kim et al., ISCA 2008): `groups` groups of `group_routers` routers,
    /// fully connected within a group by local channels, each router with `global_ports`
    /// global channels to other groups and `concentration` endpoints
    /// ([`dragonfly`]). The paper's balanced dragonfly: `group_routers = 2
    /// concentration = 2 global_ports`.
    Dragonfly {
        /// `a`: routers per group, 1..=63.
        group_routers: u32,
        /// `p`: endpoints per router, 1..=32.
        #[serde(default = "one")]
        concentration: u32,
        /// `h`: global channels per router, 1..=63.
        global_ports: u32,
        /// `g`: groups, 2..=a h + 1, with `g - 1` dividing `a h` (each pair of groups
        /// then has `a h / (g - 1)` global links). Default `a h + 1`, the largest: one
        /// link between every two groups.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        groups: Option<u32>,
    },
    /// HyperX (Ahn et al., SC 2009): routers on a lattice `dims[0] x dims[1] x ...`,
    /// each joined to every router that differs from it in one coordinate (every
    /// dimension a complete graph), by `links[k]` parallel links in dimension `k`, with
    /// `concentration` endpoints each ([`hyperx`]). All `links` 1 is the flattened
    /// butterfly; all `dims` 2 the hypercube.
    Hyperx {
        /// `S_k`: routers per dimension, x first, each >= 2.
        dims: Vec<u32>,
        /// `K_k`: parallel links between two neighbours in each dimension, 1..=16.
        /// Default 1 in every dimension.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        links: Option<Vec<u32>>,
        /// `T`: endpoints per router, 1..=32.
        #[serde(default = "one")]
        concentration: u32,
    },
    /// Any network graph ([`graph`]): routers joined by bidirectional links listed
    /// inline (`links`) or in a file (`file`, one link per line), `concentration`
    /// endpoints each. Routed by `routing.type = "graph"`.
    Graph {
        /// The links, each `[a, b]` joining routers `a` and `b` (a channel each way, of
        /// `channel.latency` cycles) or `[a, b, latency]` with its own latency, 1..=1000
        /// cycles; a pair listed twice gives two parallel links. Give this or `file`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        links: Option<Vec<Vec<u32>>>,
        /// A file of links, one per line: two router ids and optionally a latency, `#`
        /// comments. A relative path is read from the folder of the config file that names
        /// it (from the working directory when set by an override). Give this or `links`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file: Option<String>,
        /// Routers, 1..=4096. Default: the highest id in the links plus one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        routers: Option<u32>,
        /// Endpoints per router, 1..=32.
        #[serde(default = "one")]
        concentration: u32,
    },
}

crate::schema::tagged::tagged_serde!(TopologyConfig, "topology", None);

fn one() -> u32 {
    1
}

impl Default for TopologyConfig {
    fn default() -> Self {
        TopologyConfig::Torus { dims: vec![8, 8], concentration: 1 }
    }
}

/// A one-way router-to-router channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelDesc {
    /// Upstream router.
    pub src_router: u32,
    /// Output port on the upstream router.
    pub src_port: u32,
    /// Downstream router.
    pub dst_router: u32,
    /// Input port on the downstream router.
    pub dst_port: u32,
    /// Dimension the channel runs in.
    pub dim: u32,
    /// `+1` or `-1`: direction of travel along the dimension.
    pub dir: i32,
    /// Whether this is a torus wrap-around channel (crosses the dateline at k-1 <-> 0).
    pub wrap: bool,
}

/// Which family a built topology belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// k-ary n-cube (mesh/torus per dimension).
    Cube,
    /// One router with `ports` endpoints.
    Crossbar,
    /// Kautz digraph ([`kautz`]).
    Kautz,
    /// Folded Clos or k-ary n-tree ([`clos`]; engine mapping in [`clos::network`]).
    FatTree,
    /// Dragonfly ([`dragonfly`]): coordinates (router in group, group).
    Dragonfly,
    /// HyperX ([`hyperx`]): lattice coordinates, every dimension a complete graph.
    HyperX,
    /// Any graph ([`graph`]): no coordinates.
    Graph,
}

/// A built network graph.
#[derive(Clone, Debug)]
pub struct Topology {
    /// Family.
    pub shape: Shape,
    /// Radix per dimension (empty for a crossbar).
    pub dims: Vec<u32>,
    /// Wrap flag per dimension.
    pub wrap: Vec<bool>,
    /// Endpoints per router.
    pub concentration: u32,
    /// Number of routers.
    pub num_routers: u32,
    /// Number of endpoints.
    pub num_nodes: u32,
    /// Ports per router (network ports + local ports).
    pub ports: u32,
    /// Router-to-router channels.
    pub channels: Vec<ChannelDesc>,
    /// `[router * ports + port]` -> index into `channels` leaving that output port, or [`NONE`].
    pub out_channel: Vec<u32>,
    /// `[router * ports + port]` -> index into `channels` arriving at that input port, or [`NONE`].
    pub in_channel: Vec<u32>,
    /// Network (router-to-router) ports per router; the local ports follow them.
    pub net_ports: u32,
    /// The Kautz graph, for [`Shape::Kautz`].
    pub kautz: Option<std::sync::Arc<kautz::Kautz>>,
    /// The fat tree, for [`Shape::FatTree`].
    pub fat_tree: Option<std::sync::Arc<clos::FatTree>>,
    /// The dragonfly's shape, for [`Shape::Dragonfly`].
    pub dragonfly: Option<dragonfly::Dragonfly>,
    /// The HyperX's shape, for [`Shape::HyperX`].
    pub hyperx: Option<std::sync::Arc<hyperx::HyperX>>,
    /// The graph, for [`Shape::Graph`].
    pub graph: Option<std::sync::Arc<graph::Graph>>,
    coords: Vec<u32>,
}

/// Summary printed by `flitsim topo`.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct TopologySummary {
    /// Human description, e.g. "11x12x16 torus/torus/mesh, c=1".
    pub description: String,
    /// Endpoints.
    pub nodes: u32,
    /// Routers.
    pub routers: u32,
    /// Ports per router, network plus local (the router radix).
    pub router_radix: u32,
    /// Router-to-router channels (unidirectional).
    pub channels: u32,
    /// Largest minimal router hop count between two endpoints.
    pub diameter: u32,
    /// Mean minimal router-to-router hops over all ordered endpoint pairs, a node to itself included (uniform traffic).
    pub avg_hops: f64,
    /// Mean minimal hops over ordered pairs of distinct endpoints.
    pub avg_hops_distinct: f64,
    /// Unidirectional channels crossing the minimum bisection (both directions counted);
    /// 0 when it could not be measured (METIS failed: `bisection_note` says why).
    pub bisection_channels: u32,
    /// How the bisection was cut.
    pub bisection_note: String,
    /// Ideal uniform-traffic throughput limited by the bisection, flits/node/cycle.
    pub uniform_bisection_bound: f64,
    /// Ideal uniform-traffic throughput limited by the most loaded channel, flits/node/cycle.
    pub uniform_channel_bound: f64,
}

impl Topology {
    /// Build the graph a config describes, validating it (`path` is the config key, "topology").
    pub fn build(cfg: &TopologyConfig, path: &str) -> Result<Topology> {
        match cfg {
            TopologyConfig::Torus { dims, concentration } => cube::build(dims, &vec![true; dims.len()], *concentration, path),
            TopologyConfig::Mesh { dims, concentration } => cube::build(dims, &vec![false; dims.len()], *concentration, path),
            TopologyConfig::Cube { dims, wrap, concentration } => {
                if wrap.len() != dims.len() {
                    return Err(Error::config(
                        format!("{path}.wrap"),
                        format!(
                            "has {} entries but `dims` has {}; give one true (torus) / false (mesh) per dimension",
                            wrap.len(),
                            dims.len()
                        ),
                    ));
                }
                cube::build(dims, wrap, *concentration, path)
            }
            TopologyConfig::Crossbar { ports } => crossbar::build(*ports, path),
            TopologyConfig::Kautz { degree, diameter } => kautz::network::build(*degree, *diameter, path),
            TopologyConfig::Clos { radix, stages, nodes } => {
                clos::network::build(clos::FatTree::build_clos(*radix, *stages, *nodes, path)?, path)
            }
            TopologyConfig::KAryNTree { k, n } => clos::network::build(clos::FatTree::build_k_ary_n_tree(*k, *n, path)?, path),
            TopologyConfig::Dragonfly { group_routers, concentration, global_ports, groups } => {
                dragonfly::build(dragonfly::Dragonfly::new(*group_routers, *concentration, *global_ports, *groups, path)?)
            }
            TopologyConfig::Hyperx { dims, links, concentration } => {
                hyperx::build(hyperx::HyperX::new(dims, links.as_deref(), *concentration, path)?)
            }
            TopologyConfig::Graph { links, file, routers, concentration } => {
                let list =
                    match (links, file) {
                        (Some(l), None) => l
                            .iter()
                            .enumerate()
                            .map(|(i, x)| match x[..] {
                                [a, b] => Ok(graph::Link { a, b, latency: None, at: format!("{path}.links[{i}]") }),
                                [a, b, l] => Ok(graph::Link { a, b, latency: Some(l), at: format!("{path}.links[{i}]") }),
                                _ => Err(Error::config(
                                    format!("{path}.links[{i}]"),
                                    format!("{x:?} is not a link: give [a, b] or [a, b, latency]"),
                                )),
                            })
                            .collect::<Result<Vec<_>>>()?,
                        (None, Some(f)) => graph::read_links(f, &format!("{path}.file"))?,
                        _ => return Err(Error::config(
                            format!("{path}.links"),
                            "give the links either inline (links = [[0, 1], ...]) or in a file (file = \"net.txt\"), not both or neither",
                        )),
                    };
                graph::build(graph::Graph::new(&list, *routers, *concentration, path)?)
            }
        }
    }

    /// Number of dimensions (0 for a crossbar).
    #[inline]
    pub fn ndims(&self) -> usize {
        self.dims.len()
    }

    /// Number of network (router-to-router) ports per router.
    #[inline]
    pub fn network_ports(&self) -> u32 {
        self.net_ports
    }

    /// Coordinates of router `r` (empty for a crossbar).
    #[inline]
    pub fn coords(&self, r: u32) -> &[u32] {
        let n = self.dims.len();
        &self.coords[r as usize * n..(r as usize + 1) * n]
    }

    /// Router index of coordinates.
    pub fn router_at(&self, c: &[u32]) -> u32 {
        let mut r = 0u32;
        for d in (0..self.dims.len()).rev() {
            r = r * self.dims[d] + c[d];
        }
        r
    }

    /// Router an endpoint is attached to.
    #[inline]
    pub fn router_of(&self, node: u32) -> u32 {
        node / self.concentration
    }

    /// Local port of an endpoint on its router.
    #[inline]
    pub fn local_port_of(&self, node: u32) -> u32 {
        self.network_ports() + node % self.concentration
    }

    /// Endpoint attached at `(router, port)` if `port` is a local port with an endpoint
    /// (routers past the last endpoint's, the spines of a fat tree, have local ports
    /// with none).
    #[inline]
    pub fn node_at(&self, router: u32, port: u32) -> Option<u32> {
        let np = self.network_ports();
        let node = router.checked_mul(self.concentration)?.checked_add(port.wrapping_sub(np))?;
        (port >= np && port < self.ports && node < self.num_nodes).then_some(node)
    }

    /// Whether `port` is a local (endpoint) port.
    #[inline]
    pub fn is_local_port(&self, port: u32) -> bool {
        port >= self.network_ports()
    }

    /// Minimal hops in one dimension between coordinates `a` and `b`.
    #[inline]
    pub fn dim_distance(&self, d: usize, a: u32, b: u32) -> u32 {
        let diff = a.abs_diff(b);
        if self.wrap[d] {
            diff.min(self.dims[d] - diff)
        } else {
            diff
        }
    }

    /// Minimal router-to-router hops between two routers.
    pub fn router_distance(&self, a: u32, b: u32) -> u32 {
        if let Some(k) = &self.kautz {
            return k.distance(a, b);
        }
        if let Some(t) = &self.fat_tree {
            return clos::network::switch_distance(t, a, b);
        }
        if let Some(df) = &self.dragonfly {
            return dragonfly::minimal_hops(df, a, b);
        }
        if let Some(hx) = &self.hyperx {
            return hx.distance(a, b);
        }
        if let Some(g) = &self.graph {
            return g.distance(a, b);
        }
        let (ca, cb) = (self.coords(a), self.coords(b));
        (0..self.ndims()).map(|d| self.dim_distance(d, ca[d], cb[d])).sum()
    }

    /// Minimal router-to-router hops between two endpoints.
    pub fn node_distance(&self, a: u32, b: u32) -> u32 {
        self.router_distance(self.router_of(a), self.router_of(b))
    }

    /// The own latency of the channel out of network port `port` of router `r`, when
    /// the topology gives its links lengths (a graph's `[a, b, latency]`); otherwise the
    /// `[channel]` latencies apply.
    #[inline]
    pub fn link_latency(&self, r: u32, port: u32) -> Option<u32> {
        self.graph.as_ref().and_then(|g| (port < g.net_ports).then(|| g.link_latency(r, port)).flatten())
    }

    /// The longest of the links' own latencies (0 when none has one).
    pub fn longest_link(&self) -> u32 {
        self.graph.as_ref().map_or(0, |g| g.latency.iter().copied().max().unwrap_or(0))
    }

    /// Name of a port: `+x`, `-y`, `local0`.
    pub fn port_name(&self, port: u32) -> String {
        let np = self.network_ports();
        if port < np && matches!(self.shape, Shape::Kautz | Shape::Graph) {
            format!("link{port}")
        } else if port < np && self.shape == Shape::FatTree {
            format!("port{port}")
        } else if let (true, Some(df)) = (port < np, &self.dragonfly) {
            if df.is_global(port) {
                format!("global{}", port - (df.a - 1))
            } else {
                format!("link{port}")
            }
        } else if let (true, Some(hx)) = (port < np, &self.hyperx) {
            hyperx::port_name(hx, port)
        } else if port < np {
            let d = (port / 2) as usize;
            let sign = if port.is_multiple_of(2) { '+' } else { '-' };
            format!("{sign}{}", dim_name(d))
        } else {
            format!("local{}", port - np)
        }
    }

    /// Name of a router: its coordinates `(3,4)`, or `xbar` for a crossbar.
    pub fn router_name(&self, r: u32) -> String {
        if let Some(k) = &self.kautz {
            return format!("[{}]", k.label_string(r));
        }
        if let Some(t) = &self.fat_tree {
            return format!("s{r}(level {})", t.level_of(r));
        }
        if let Some(df) = &self.dragonfly {
            return format!("g{}r{}", df.group(r), df.index(r));
        }
        if self.graph.is_some() {
            return format!("r{r}");
        }
        if self.ndims() == 0 {
            return "xbar".into();
        }
        let c: Vec<String> = self.coords(r).iter().map(|v| v.to_string()).collect();
        format!("({})", c.join(","))
    }

    /// Summary statistics printed by `flitsim topo`.
    pub fn summary(&self) -> TopologySummary {
        match self.shape {
            Shape::Cube => cube::summary(self),
            Shape::Crossbar => crossbar::summary(self),
            Shape::Kautz => kautz::network::summary(self),
            Shape::FatTree => clos::network::summary(self),
            Shape::Dragonfly => dragonfly::summary(self),
            Shape::HyperX => hyperx::summary(self),
            Shape::Graph => graph::summary(self),
        }
    }
}

/// Conventional dimension names: x, y, z, w, then d4, d5, ...
pub fn dim_name(d: usize) -> String {
    match d {
        0 => "x".into(),
        1 => "y".into(),
        2 => "z".into(),
        3 => "w".into(),
        _ => format!("d{d}"),
    }
}
