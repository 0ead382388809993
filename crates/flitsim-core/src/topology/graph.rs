//! Any network graph: routers joined by the links a config lists (inline, or one link
//! per line in a file), `T` endpoints per router. For fabrics no built-in family
//! describes: a machine's real cabling, a damaged or irregular network, a topology from
//! a design-space search.
//!
//! **Links.** Each listed link `[a, b]` is a bidirectional link: a channel each way,
//! of `channel.latency` cycles, or `[a, b, latency]` with its own (1..=1000 cycles, both
//! directions: a machine's cables differ in length). Listing a pair twice gives two
//! parallel links. Router `r`'s network ports are its
//! links in the order they are listed (port `i` = its `i`-th link); every router has as
//! many ports as the most connected one, so a less connected router has unwired network
//! ports; the `T` endpoint ports follow. Every router must be reachable from every other.
//!
//! **File format** (`topology.file`): one link per line, two router ids separated by
//! white space and optionally its latency in cycles; `#` starts a comment; blank lines
//! are skipped. For example a ring of four routers with one longer chord:
//!
//! ```text
//! # ring
//! 0 1
//! 1 2
//! 2 3
//! 3 0
//! 0 2 5   # chord, 5 cycles
//! ```
//!
//! **Minimal routes.** Distances by breadth-first search from every router; at router
//! `r` towards router `t` the minimal next hops are the ports whose neighbour is one hop
//! nearer, and the route takes the `(t mod m)`-th of those `m` (ports in order), so
//! routes to different destinations spread over equal-length paths and every packet of
//! a pair follows one path. [`crate::routing::graph`] routes on them with a VC class per
//! hop, or up*/down*.

use std::collections::VecDeque;

use super::{ChannelDesc, Shape, Topology, TopologySummary, NONE};
use crate::error::{Error, Result};

/// Largest graph the engine builds (routers): routes are tables of `R^2` entries.
pub const MAX_ROUTERS: u32 = 4096;

/// One listed link: its two routers, its own latency if given, and the config key (or
/// file line) it came from, for errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// One end.
    pub a: u32,
    /// The other end.
    pub b: u32,
    /// Latency in cycles, both directions (`None`: `channel.latency`).
    pub latency: Option<u32>,
    /// Where it was given: `topology.links[3]`, or the file and line.
    pub at: String,
}

/// A network graph as the config gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    /// Routers.
    pub routers: u32,
    /// Endpoints per router.
    pub t: u32,
    /// Network ports per router (the most links any router has).
    pub net_ports: u32,
    /// Per `(router, port)`: the neighbour and the port the link arrives on, or
    /// `(NONE, NONE)` for an unwired port.
    pub peer: Vec<(u32, u32)>,
    /// Per `(router, port)`: the link's own latency, or 0 for `channel.latency`.
    pub latency: Vec<u32>,
    /// Hops between routers, `[a * R + b]`.
    pub dist: Vec<u16>,
    /// Minimal next hop, `[r * R + t]`: the output port at `r` towards router `t` (the
    /// first endpoint port when `r == t`).
    pub next: Vec<u8>,
}

impl Graph {
    /// Build from the link list (`path` is the config key, "topology", and `source` names
    /// where the links came from for errors: "topology.links" or the file's key).
    pub fn new(links: &[Link], routers: Option<u32>, t: u32, path: &str) -> Result<Self> {
        if !(1..=32).contains(&t) {
            return Err(Error::config(format!("{path}.concentration"), format!("{t} endpoints per router is not supported; use 1..=32")));
        }
        let highest = links.iter().map(|l| l.a.max(l.b)).max();
        let routers = match (routers, highest) {
            (Some(r), _) => r,
            (None, Some(h)) => h.saturating_add(1),
            (None, None) => 1,
        };
        if !(1..=MAX_ROUTERS).contains(&routers) {
            return Err(Error::config(format!("{path}.routers"), format!("{routers} routers is not supported; use 1..={MAX_ROUTERS}")));
        }
        let mut ports: Vec<Vec<(u32, u32)>> = vec![Vec::new(); routers as usize];
        let mut lat: Vec<Vec<u32>> = vec![Vec::new(); routers as usize];
        for Link { a, b, latency, at } in links {
            let (a, b) = (*a, *b);
            if let Some(l) = *latency {
                if !(1..=1000).contains(&l) {
                    return Err(Error::config(at, format!("latency {l} of link {a} - {b} is out of range: 1..=1000 cycles")));
                }
            }
            if a >= routers || b >= routers {
                return Err(Error::config(
                    at,
                    format!(
                        "link {a} - {b} names router {} but there are {routers} (ids 0..{routers}); raise {path}.routers or fix the id",
                        a.max(b)
                    ),
                ));
            }
            if a == b {
                return Err(Error::config(at, format!("link {a} - {b} joins router {a} to itself; a link joins two routers")));
            }
            let (pa, pb) = (ports[a as usize].len() as u32, ports[b as usize].len() as u32);
            ports[a as usize].push((b, pb));
            ports[b as usize].push((a, pa));
            lat[a as usize].push(latency.unwrap_or(0));
            lat[b as usize].push(latency.unwrap_or(0));
        }
        let net_ports = ports.iter().map(|p| p.len() as u32).max().unwrap_or(0);
        if net_ports + t > 64 {
            let r = ports.iter().position(|p| p.len() as u32 == net_ports).unwrap_or(0);
            return Err(Error::config(
                format!("{path}.concentration"),
                format!("router {r} has {net_ports} links, which with {t} endpoints is {} ports; at most 64 are supported", net_ports + t),
            ));
        }
        let n = routers as usize;
        let mut peer = vec![(NONE, NONE); n * net_ports as usize];
        let mut latency = vec![0u32; n * net_ports as usize];
        for (r, list) in ports.iter().enumerate() {
            for (i, &pp) in list.iter().enumerate() {
                peer[r * net_ports as usize + i] = pp;
                latency[r * net_ports as usize + i] = lat[r][i];
            }
        }
        let g = Graph::routed(routers, t, net_ports, peer, latency);
        if let Some((s, u)) = g.disconnected() {
            return Err(Error::config(
                format!("{path}.links"),
                format!("router {u} cannot be reached from router {s}: the graph is not connected; add links joining its parts"),
            ));
        }
        Ok(g)
    }

    /// The graph of any network whose links are bidirectional (a k-ary n-cube, a
    /// HyperX, a dragonfly; with its `[faults]` applied, the links that remain): its
    /// routers, ports and endpoints exactly as the topology numbers them, so that graph
    /// routing ([`crate::routing::graph`]) routes it. Routers that failures cut off stay
    /// unreachable ([`Graph::reachable`]).
    pub fn of_topology(topo: &Topology) -> Graph {
        let (routers, np, ports) = (topo.num_routers, topo.network_ports(), topo.ports);
        let mut peer = vec![(NONE, NONE); (routers * np) as usize];
        for r in 0..routers {
            for p in 0..np {
                let c = topo.out_channel[(r * ports + p) as usize];
                if c != NONE {
                    let ch = topo.channels[c as usize];
                    peer[(r * np + p) as usize] = (ch.dst_router, ch.dst_port);
                }
            }
        }
        let latency = vec![0; peer.len()];
        Graph::routed(routers, topo.concentration, np, peer, latency)
    }

    /// The graph of these links with its minimal routes: distances by breadth-first
    /// search from every router, and at `r` towards `t` the `(t mod m)`-th of the `m`
    /// ports one hop nearer (towards an unreachable router, the first endpoint port:
    /// a route walk then ends at the wrong router and calls the pair unroutable).
    fn routed(routers: u32, t: u32, net_ports: u32, peer: Vec<(u32, u32)>, latency: Vec<u32>) -> Graph {
        let n = routers as usize;
        let np = net_ports as usize;
        let links =
            |u: usize| peer[u * np..(u + 1) * np].iter().enumerate().filter(|(_, &(v, _))| v != NONE).map(|(i, &(v, _))| (i, v as usize));
        let mut dist = vec![u16::MAX; n * n];
        let mut queue = VecDeque::new();
        for s in 0..n {
            dist[s * n + s] = 0;
            queue.push_back(s);
            while let Some(u) = queue.pop_front() {
                let du = dist[s * n + u];
                for (_, v) in links(u) {
                    if dist[s * n + v] == u16::MAX {
                        dist[s * n + v] = du + 1;
                        queue.push_back(v);
                    }
                }
            }
        }
        let mut next = vec![0u8; n * n];
        let mut near = Vec::new();
        for r in 0..n {
            for t_r in 0..n {
                if r == t_r || dist[r * n + t_r] == u16::MAX {
                    next[r * n + t_r] = net_ports as u8;
                    continue;
                }
                near.clear();
                near.extend(links(r).filter(|&(_, v)| u32::from(dist[v * n + t_r]) + 1 == u32::from(dist[r * n + t_r])).map(|(i, _)| i));
                next[r * n + t_r] = near[t_r % near.len()] as u8;
            }
        }
        Graph { routers, t, net_ports, peer, latency, dist, next }
    }

    /// A pair `(s, u)` of routers with no path from `s` to `u`, if any.
    pub fn disconnected(&self) -> Option<(u32, u32)> {
        let n = self.routers as usize;
        self.dist.iter().position(|&d| d == u16::MAX).map(|i| ((i / n) as u32, (i % n) as u32))
    }

    /// Is there a path from router `a` to router `b`?
    #[inline]
    pub fn reachable(&self, a: u32, b: u32) -> bool {
        self.dist[a as usize * self.routers as usize + b as usize] != u16::MAX
    }

    /// Hops between routers `a` and `b`.
    #[inline]
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        u32::from(self.dist[a as usize * self.routers as usize + b as usize])
    }

    /// The minimal next hop at router `r` towards router `t` (`r != t`).
    #[inline]
    pub fn next_port(&self, r: u32, t: u32) -> u32 {
        u32::from(self.next[r as usize * self.routers as usize + t as usize])
    }

    /// The neighbour on network port `port` of router `r` and the port it arrives on
    /// (`(NONE, NONE)` when the port is unwired).
    #[inline]
    pub fn peer(&self, r: u32, port: u32) -> (u32, u32) {
        self.peer[(r * self.net_ports + port) as usize]
    }

    /// The own latency of the link on network port `port` of router `r`, if it has one.
    #[inline]
    pub fn link_latency(&self, r: u32, port: u32) -> Option<u32> {
        Some(self.latency[(r * self.net_ports + port) as usize]).filter(|&l| l != 0)
    }

    /// Every channel as (from, to).
    pub fn arcs(&self) -> Vec<(u32, u32)> {
        (0..self.routers)
            .flat_map(|r| (0..self.net_ports).map(move |p| (r, p)))
            .filter_map(|(r, p)| Some((r, self.peer(r, p).0)).filter(|x| x.1 != NONE))
            .collect()
    }
}

/// Read the link list from a file (see the module docs); `key` is the config key naming
/// the file, for errors.
pub fn read_links(file: &str, key: &str) -> Result<Vec<Link>> {
    let text = std::fs::read_to_string(file).map_err(|e| Error::config(key, crate::schema::cannot_read(file, &e)))?;
    let mut links = Vec::new();
    for (line, body) in crate::schema::data_lines(&text) {
        let at = format!("{key} ({file} line {line})");
        let ids: Vec<&str> = body.split_whitespace().collect();
        let parse =
            |s: &str, what: &str| s.parse::<u32>().map_err(|_| Error::config(&at, format!("`{s}` is not {what} (a whole number from 0)")));
        match ids.as_slice() {
            [a, b] => links.push(Link { a: parse(a, "a router id")?, b: parse(b, "a router id")?, latency: None, at }),
            [a, b, l] => links.push(Link {
                a: parse(a, "a router id")?,
                b: parse(b, "a router id")?,
                latency: Some(parse(l, "a latency in cycles")?),
                at,
            }),
            _ => {
                return Err(Error::config(
                    &at,
                    format!("`{body}` is not a link: give two router ids and optionally a latency, e.g. `0 1` or `0 1 5`"),
                ))
            }
        }
    }
    Ok(links)
}

/// Build the network of `g`.
pub fn build(g: Graph) -> Result<Topology> {
    let (routers, np, t) = (g.routers, g.net_ports, g.t);
    let ports = np + t;
    let mut channels = Vec::new();
    let mut out_channel = vec![NONE; (routers * ports) as usize];
    let mut in_channel = vec![NONE; (routers * ports) as usize];
    for r in 0..routers {
        for port in 0..np {
            let (to, back) = g.peer(r, port);
            if to == NONE {
                continue;
            }
            let id = channels.len() as u32;
            out_channel[(r * ports + port) as usize] = id;
            in_channel[(to * ports + back) as usize] = id;
            channels.push(ChannelDesc { src_router: r, src_port: port, dst_router: to, dst_port: back, dim: 0, dir: 1, wrap: false });
        }
    }
    Ok(Topology {
        shape: Shape::Graph,
        dims: vec![],
        wrap: vec![],
        concentration: t,
        num_routers: routers,
        num_nodes: routers * t,
        ports,
        channels,
        out_channel,
        in_channel,
        net_ports: np,
        kautz: None,
        fat_tree: None,
        dragonfly: None,
        hyperx: None,
        graph: Some(std::sync::Arc::new(g)),
        coords: vec![],
    })
}

/// Summary for `flitsim topo`: exact distances over all router pairs, the bisection
/// METIS finds (an upper bound on the minimum; see [`super::kautz::metrics`]), and the
/// channel bound of uniform traffic on the minimal routes, counted route by route.
pub fn summary(t: &Topology) -> TopologySummary {
    let g = t.graph.as_deref().expect("a graph topology has its graph");
    let (r, tt) = (g.routers, g.t);
    let nodes = f64::from(t.num_nodes);
    let total: u64 = g.dist.iter().map(|&d| u64::from(d)).sum();
    let diameter = g.dist.iter().copied().max().unwrap_or(0);
    // Router pairs stand for T^2 endpoint pairs each.
    let pp = f64::from(tt) * f64::from(tt);
    let avg = total as f64 * pp / (nodes * nodes);
    let avg_distinct = if t.num_nodes > 1 { total as f64 * pp / (nodes * (nodes - 1.0)) } else { 0.0 };
    let (bisection, note) = if r < 2 {
        (0, "one router: nothing to cut".to_string())
    } else {
        match super::kautz::metrics::measured_bisection(r, &g.arcs()) {
            Ok(b) => (
                b.cut_channels as u32,
                "balanced cut of the routers found by METIS (both directions; an upper bound on the minimum)".to_string(),
            ),
            Err(e) => (0, format!("METIS failed: {e}")),
        }
    };
    let bisection_bound = if bisection > 0 { 2.0 * f64::from(bisection) / nodes } else { f64::INFINITY };
    let mut load = vec![0u64; t.channels.len()];
    for s in 0..r {
        for d in 0..r {
            let mut at = s;
            while at != d {
                let port = g.next_port(at, d);
                load[t.out_channel[(at * t.ports + port) as usize] as usize] += 1;
                at = g.peer(at, port).0;
            }
        }
    }
    let max_load = load.iter().copied().max().unwrap_or(0) as f64 * pp;
    let channel_bound = if max_load == 0.0 { 1.0 } else { nodes / max_load };
    TopologySummary {
        description: format!("graph of {r} routers and {} links, {tt} endpoints per router", t.channels.len() / 2),
        nodes: t.num_nodes,
        routers: r,
        router_radix: t.ports,
        channels: t.channels.len() as u32,
        diameter: u32::from(diameter),
        avg_hops: avg,
        avg_hops_distinct: avg_distinct,
        bisection_channels: bisection,
        bisection_note: note,
        uniform_bisection_bound: bisection_bound.min(1.0),
        uniform_channel_bound: channel_bound.min(1.0),
    }
}
