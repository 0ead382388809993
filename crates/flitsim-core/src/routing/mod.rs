//! Routing functions: given where a packet is (router, input port, input VC) and where
//! it goes, return the candidate output ports with their allowed VC ranges. A routing
//! function never mutates the packet; the router's allocators pick among candidates.

pub mod adaptive;
pub mod cdg;
mod config;
pub mod dor;
pub mod dragonfly;
pub mod graph;
pub mod hyperx;
pub mod source;
pub mod table;
pub mod updown;
pub mod updown_net;
pub mod vc_balance;

pub use config::RoutingConfig;

use crate::error::{Error, Result};
use crate::topology::{Shape, Topology};

/// What adaptive choices at a router (UGAL's) read: the flits waiting downstream of each output
/// port, as the router's credit counters know them (sent and not yet credited back,
/// over the port's VCs).
pub trait PortQueues {
    /// Flits sent down network port `port` whose credits have not come back.
    fn used(&self, port: u32) -> u32;
}

/// Empty queues: the routes a network at rest gives (path walks, `flitsim routes`).
pub struct NoQueues;

impl PortQueues for NoQueues {
    #[inline]
    fn used(&self, _port: u32) -> u32 {
        0
    }
}

/// One routing candidate: an output port and the VC range `[vc_lo, vc_hi)` it may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Candidate {
    /// Output port.
    pub port: u8,
    /// First allowed output VC.
    pub vc_lo: u8,
    /// One past the last allowed output VC.
    pub vc_hi: u8,
}

/// A built routing function (closed enum: static dispatch in the hot path).
#[derive(Clone, Debug)]
pub enum RoutingFunction {
    /// Dimension-order routing.
    Dor(dor::Dor),
    /// Table-driven routing.
    Table(Box<table::TableRouting>),
    /// Minimal adaptive routing (central-arbiter router only).
    Adaptive(Box<adaptive::Adaptive>),
    /// Kautz source routing with VCs by node order.
    Source(source::SourceRouting),
    /// Up*/down* source routing on a fat tree.
    UpDown(updown_net::UpDownRouting),
    /// Minimal or Valiant routing on a dragonfly.
    Dragonfly(dragonfly::DragonflyRouting),
    /// Dimension-order, Valiant or UGAL routing on a HyperX.
    HyperX(hyperx::HyperXRouting),
    /// Minimal (VC class per hop) or up*/down* routing on any graph.
    Graph(graph::GraphRouting),
}

impl RoutingFunction {
    /// Build and validate against the topology and the number of VCs.
    /// `faults`: links have failed (the topology lacks them): only table-driven routing
    /// with an XT VC policy routes around them (see [`RoutingFunction::build_around`]).
    pub fn build(cfg: &RoutingConfig, topo: &Topology, vcs: u32, faults: bool, path: &str) -> Result<Self> {
        Self::build_seeded(cfg, topo, vcs, faults, 0, path)
    }

    /// [`RoutingFunction::build`] with the run seed (random and hashed up*/down* routes).
    pub fn build_seeded(cfg: &RoutingConfig, topo: &Topology, vcs: u32, faults: bool, seed: u64, path: &str) -> Result<Self> {
        if topo.shape == Shape::Kautz && !matches!(cfg, RoutingConfig::Source { .. }) {
            return Err(Error::config(format!("{path}.type"), "a Kautz network is source routed; use routing.type = \"source\""));
        }
        if topo.shape == Shape::FatTree && !matches!(cfg, RoutingConfig::Updown { .. }) {
            return Err(Error::config(
                format!("{path}.type"),
                "a fat tree (Clos, k-ary n-tree) is routed up*/down*; use routing.type = \"updown\"",
            ));
        }
        if topo.shape == Shape::Dragonfly && !matches!(cfg, RoutingConfig::Dragonfly { .. } | RoutingConfig::Graph { .. }) {
            return Err(Error::config(format!("{path}.type"), "a dragonfly is routed by its groups; use routing.type = \"dragonfly\" (mode = \"minimal\" or \"valiant\"), or \"graph\" (as any graph, around failures too)"));
        }
        if topo.shape == Shape::HyperX && !matches!(cfg, RoutingConfig::Hyperx { .. } | RoutingConfig::Graph { .. }) {
            return Err(Error::config(format!("{path}.type"), "a HyperX is routed by its own dimension order; use routing.type = \"hyperx\" (mode = \"dor\", \"valiant\" or \"ugal\"), or \"graph\" (as any graph, around failures too)"));
        }
        if topo.shape == Shape::Graph && !matches!(cfg, RoutingConfig::Graph { .. }) {
            return Err(Error::config(
                format!("{path}.type"),
                "a graph topology has no dimensions or groups to route by; use routing.type = \"graph\" (mode = \"minimal\" or \"updown\")",
            ));
        }
        if matches!(cfg, RoutingConfig::Graph { .. }) && matches!(topo.shape, Shape::Kautz | Shape::FatTree) {
            return Err(Error::config(format!("{path}.type"), "graph routing runs on graphs, k-ary n-cubes, HyperX and dragonfly networks; a Kautz network is source routed and a fat tree up*/down*"));
        }
        match cfg {
            RoutingConfig::Graph { .. } if faults && topo.shape == Shape::Graph => {
                Err(Error::config("faults", "a graph's links are the ones it lists: remove a failed link from the list instead of [faults]"))
            }
            RoutingConfig::Graph { mode } => Ok(RoutingFunction::Graph(graph::GraphRouting::new(topo, *mode, vcs, path)?)),
            RoutingConfig::Hyperx { .. } if faults => Err(Error::config("faults", "HyperX routing does not route around failed links or routers; use routing.type = \"graph\" (minimal routes with a VC class per hop, or up*/down*), or remove the [faults]")),
            RoutingConfig::Hyperx { mode } => Ok(RoutingFunction::HyperX(hyperx::HyperXRouting::new(topo, *mode, vcs, seed, path)?)),
            RoutingConfig::Dragonfly { .. } if faults => Err(Error::config("faults", "dragonfly routing does not route around failed links or routers; use routing.type = \"graph\" (minimal routes with a VC class per hop, or up*/down*), or remove the [faults]")),
            RoutingConfig::Dragonfly { mode } => Ok(RoutingFunction::Dragonfly(dragonfly::DragonflyRouting::new(topo, *mode, vcs, seed, path)?)),
            RoutingConfig::Updown { .. } if faults => Err(Error::config("faults", "up*/down* routing does not route around failed links or switches yet; remove the [faults]")),
            RoutingConfig::Updown { selection, static_scheme, .. } => {
                Ok(RoutingFunction::UpDown(updown_net::UpDownRouting::new(topo, *selection, *static_scheme, vcs, seed, path)?))
            }
            RoutingConfig::Dor { .. } if faults => Err(Error::config(
                format!("{path}.type"),
                "dimension-order routing cannot route around failed links; use type = \"table\" with vc_policy = \"v3\" (the Cray XT rules), or type = \"graph\" (minimal routes with a VC class per hop, or up*/down*)",
            )),
            RoutingConfig::Dor { order, datelines, classes, ties, dateline_class } => {
                Ok(RoutingFunction::Dor(build_dor(order, *datelines, *classes, topo, vcs, path)?.with_policies(topo, *ties, *dateline_class, seed)))
            }
            RoutingConfig::Adaptive { .. } if faults => Err(Error::config(
                format!("{path}.type"),
                "adaptive routing does not route around failed links; use type = \"table\" with vc_policy = \"v3\" (the Cray XT rules), or remove the faults",
            )),
            RoutingConfig::Adaptive { deadlock, escape, timeout, order } => {
                if topo.shape != Shape::Cube {
                    return Err(Error::config(format!("{path}.type"), "adaptive routing needs a k-ary n-cube (mesh, torus or cube) topology"));
                }
                if !(1..=65535).contains(timeout) {
                    return Err(Error::config(format!("{path}.timeout"), format!("{timeout} is out of range: use 1..=65535 cycles")));
                }
                // `vcs` counts the central router's deadlock-buffer lane too.
                let normal = vcs.saturating_sub(1);
                let need = match deadlock {
                    adaptive::DeadlockHandling::Avoidance => escape.vcs() + 1,
                    adaptive::DeadlockHandling::Recovery => 1,
                };
                if normal < need {
                    return Err(Error::config(
                        "router.vcs",
                        format!("{normal} VCs leave no adaptive VC beside the {} escape VC(s) of {path}.escape; use vcs >= {need}", escape.vcs()),
                    ));
                }
                let dor = build_dor(order, false, 1, topo, 1, path)?;
                Ok(RoutingFunction::Adaptive(Box::new(adaptive::Adaptive::new(topo, *deadlock, *escape, *timeout, dor.order.clone(), normal))))
            }
            RoutingConfig::Source { vc_start, rails, .. } if faults => Ok(RoutingFunction::Source(source::SourceRouting::around_failures(topo, vcs, *vc_start, path)?.with_rails(*rails, path)?)),
            RoutingConfig::Source { vc_start, rails, .. } => Ok(RoutingFunction::Source(source::SourceRouting::new(topo, vcs, *vc_start, path)?.with_rails(*rails, path)?)),
            RoutingConfig::Table { order, datelines, classes, ties, dateline_class, region_size, vc_policy, dateline, ring_datelines, tables, dateline_errors } => {
                if *ties == dor::TiePolicy::Random {
                    return Err(Error::config(
                        format!("{path}.ties"),
                        "the tables hold one route per destination and cannot toss a coin per packet; use ties = \"source_parity\" or \"destination_parity\" (balanced, one route per pair), or type = \"dor\" with ties = \"random\"",
                    ));
                }
                if *dateline_class != dor::DatelineClass::AtWrap && *vc_policy != table::VcPolicy::Dor {
                    return Err(Error::config(
                        format!("{path}.dateline_class"),
                        "the XT VC policies switch a packet from VC0 to VC1 at their dateline node, as the XT does; remove dateline_class, or use vc_policy = \"dor\"",
                    ));
                }
                let dor = build_dor(order, *datelines, *classes, topo, vcs, path)?.with_policies(topo, *ties, *dateline_class, seed);
                if let Some(file) = tables {
                    let field = format!("{path}.tables");
                    let bytes = std::fs::read(file).map_err(|e| Error::config(&field, crate::schema::cannot_read(file, &e)))?;
                    let t = table::TableRouting::from_bytes(&bytes, topo, vcs, &field)?.with_dateline_errors(*dateline_errors, path)?;
                    if t.per_class() as u32 != dor.per_class {
                        return Err(Error::config(
                            field,
                            format!("has {} VCs per traffic class but routing.classes gives {}; set routing.classes to match the file", t.per_class(), dor.per_class),
                        ));
                    }
                    return Ok(RoutingFunction::Table(Box::new(t)));
                }
                let opts = table::TableOptions { region_size: *region_size, policy: *vc_policy, dateline: dateline.clone(), faults, ring_datelines: *ring_datelines };
                let t = table::TableRouting::generate(&dor, topo, &opts, path)?.with_dateline_errors(*dateline_errors, path)?;
                Ok(RoutingFunction::Table(Box::new(t)))
            }
        }
    }

    /// Build routes around the failures already applied to `topo`, and check them: the
    /// routes of every pair of live endpoints (`dead[e]`: endpoint `e`'s router failed)
    /// are followed, and the channel dependency graph of the connected pairs is checked.
    /// With datelines left to flitsim and routes that are cyclic or leave pairs
    /// unconnected, the datelines are moved away from the faults (section 2.2.2: "choose
    /// the dateline Z as one where there are no nodes with a broken X link and a broken
    /// Y+ link"), by search: each dateline node of the torus dimensions the dependency
    /// cycle runs through (all torus dimensions when the routes are acyclic but
    /// incomplete), then on networks of at most 256 nodes every pair of those moves,
    /// within a budget of [`SEARCH_PAIR_WALKS`] route walks. The best routes found win:
    /// deadlock-free first, then the most pairs connected. Returns the routes, the pairs
    /// they connect and the verdict; the caller decides what to refuse.
    /// `on_progress` hears of each candidate placement as the search tries it.
    pub fn build_around(
        cfg: &RoutingConfig,
        topo: &Topology,
        vcs: u32,
        dead: &[bool],
        path: &str,
        on_progress: &dyn Fn(SearchProgress),
    ) -> Result<(Self, cdg::PairRoutes, cdg::CdgReport)> {
        let built = Self::build(cfg, topo, vcs, true, path)?;
        let pairs = cdg::pair_routes(&built, topo, dead);
        let report = cdg::check_pairs(&built, topo, vcs, &pairs);
        let RoutingConfig::Table {
            order,
            datelines,
            classes,
            ties,
            dateline_class,
            region_size,
            vc_policy,
            dateline,
            ring_datelines,
            tables,
            dateline_errors,
        } = cfg
        else {
            return Ok((built, pairs, report));
        };
        let perfect = |c: &cdg::CdgReport| c.acyclic && c.unreachable_pairs == 0;
        if perfect(&report) || matches!(dateline, Some(table::Datelines::Nodes(_))) || tables.is_some() {
            return Ok((built, pairs, report));
        }
        let dor = build_dor(order, *datelines, *classes, topo, vcs, path)?.with_policies(topo, *ties, *dateline_class, 0);
        let opts = table::TableOptions {
            region_size: *region_size,
            policy: *vc_policy,
            dateline: None,
            faults: true,
            ring_datelines: *ring_datelines,
        };
        let defaults: Vec<u32> = topo.dims.iter().map(|&k| k - 1).collect();
        // Better: deadlock-free first, then more pairs connected.
        let score = |c: &cdg::CdgReport| (c.acyclic, c.routable_pairs);
        let mut best = (built, pairs, report);
        // Each candidate follows every pair's route: a budget of pair walks bounds the
        // search (about 15 candidates on the XT's 2,112 nodes; thousands on small tori).
        let mut budget = SEARCH_PAIR_WALKS;
        let cost = topo.num_nodes as u64 * topo.num_nodes as u64;
        // The torus dimensions the cycle runs through (moving one of their datelines is
        // what can break it), or with a deadlock-free but incomplete set every torus
        // dimension (the dateline restriction may be what leaves pairs unconnected).
        let mut rings: Vec<usize> = Vec::new();
        for &(ch, _) in &best.2.cycle_channels {
            let d = topo.channels[ch as usize].dim as usize;
            if topo.wrap[d] && !rings.contains(&d) {
                rings.push(d);
            }
        }
        if best.2.acyclic {
            rings = (0..topo.ndims()).filter(|&d| topo.wrap[d]).collect();
        }
        let mut candidates: Vec<Vec<u32>> = Vec::new();
        for &d in &rings {
            for step in 1..topo.dims[d] {
                let mut nodes = defaults.clone();
                nodes[d] = (defaults[d] + step) % topo.dims[d];
                candidates.push(nodes);
            }
        }
        // Two dimensions at once, on networks small enough to afford it.
        if topo.num_nodes <= 256 {
            for (i, &d) in rings.iter().enumerate() {
                for &e in &rings[i + 1..] {
                    for sd in 1..topo.dims[d] {
                        for se in 1..topo.dims[e] {
                            let mut nodes = defaults.clone();
                            nodes[d] = (defaults[d] + sd) % topo.dims[d];
                            nodes[e] = (defaults[e] + se) % topo.dims[e];
                            candidates.push(nodes);
                        }
                    }
                }
            }
        }
        let total = candidates.len().min((budget / cost.max(1)) as usize);
        for (done, nodes) in candidates.into_iter().enumerate() {
            if budget < cost {
                break;
            }
            budget -= cost;
            on_progress(SearchProgress { done, total });
            let opts = table::TableOptions { dateline: Some(table::Datelines::Nodes(nodes)), ..opts.clone() };
            let t = table::TableRouting::generate(&dor, topo, &opts, path)?.with_dateline_errors(*dateline_errors, path)?;
            let r = RoutingFunction::Table(Box::new(t));
            let p = cdg::pair_routes(&r, topo, dead);
            if p.routable < best.1.routable {
                continue;
            }
            // The cycle's witnesses only for the one reported, below.
            let c = cdg::check_pairs_unwitnessed(&r, topo, vcs, &p);
            if score(&c) > score(&best.2) {
                let done = perfect(&c);
                best = (r, p, c);
                if done {
                    break;
                }
            }
        }
        // The best found, its cycle's witnesses filled in: the caller refuses what it must.
        if best.2.cycle_pairs.is_empty() {
            cdg::add_witnesses(&mut best.2, &best.0, topo, vcs, &best.1);
        }
        Ok(best)
    }

    /// Route a packet at `router` that arrived on `in_port`/`in_vc` and is bound for
    /// endpoint `dest`. Hot path.
    #[inline]
    pub fn route(&self, topo: &Topology, router: u32, in_port: u32, in_vc: u32, dest: u32) -> Candidate {
        match self {
            RoutingFunction::Dor(d) => d.route(topo, router, in_port, in_vc, dest, 0),
            RoutingFunction::Table(t) => t.route(router, in_port, in_vc, dest),
            RoutingFunction::Adaptive(a) => a.route(topo, router, in_port, in_vc, dest),
            RoutingFunction::Source(s) => s.route(topo, router, in_port, in_vc, dest),
            RoutingFunction::UpDown(u) => u.route(router, dest),
            RoutingFunction::Dragonfly(d) => d.route(router, in_port, in_vc, dest),
            RoutingFunction::HyperX(h) => h.route(router, in_port, in_vc, dest),
            RoutingFunction::Graph(g) => g.route(router, in_port, in_vc, dest),
        }
    }

    /// [`RoutingFunction::route`] for packet `pk` (its source and sequence number decide
    /// a dimension-order tie under `ties = "random"`).
    #[inline]
    pub fn route_packet(&self, topo: &Topology, router: u32, in_port: u32, in_vc: u32, pk: &crate::packet::Packet) -> Candidate {
        match self {
            RoutingFunction::Dor(d) => d.route(topo, router, in_port, in_vc, pk.dst, dor::packet_key(pk.src, pk.seq)),
            _ => self.route(topo, router, in_port, in_vc, pk.dst),
        }
    }

    /// Every candidate the routing relation may give a packet bound for `dest` at
    /// `router`, having arrived on `in_port`/`in_vc`: [`RoutingFunction::route`]'s one,
    /// and for routes that depend on more than the destination (Valiant on a dragonfly:
    /// the intermediate group) every other the packet's hidden state allows. The
    /// channel dependency check explores them all.
    #[inline]
    pub fn for_each_candidate(&self, topo: &Topology, router: u32, in_port: u32, in_vc: u32, dest: u32, mut f: impl FnMut(Candidate)) {
        match self {
            RoutingFunction::Dragonfly(d) => d.for_each_candidate(router, in_port, in_vc, dest, f),
            RoutingFunction::HyperX(h) => h.for_each_candidate(router, in_port, in_vc, dest, f),
            RoutingFunction::Dor(d) => d.for_each_candidate(topo, router, in_port, in_vc, dest, f),
            _ => f(self.route(topo, router, in_port, in_vc, dest)),
        }
    }

    /// The dateline node of each dimension, for table routing with an XT VC policy.
    pub fn datelines(&self) -> Option<Vec<u32>> {
        match self {
            RoutingFunction::Table(t) if t.policy() != table::VcPolicy::Dor => Some(t.datelines().to_vec()),
            _ => None,
        }
    }

    /// The VC range an endpoint may inject into: the first traffic class.
    pub fn injection_vcs(&self) -> (u8, u8) {
        match self {
            RoutingFunction::Dor(d) => (0, d.per_class as u8),
            RoutingFunction::Table(t) => (0, t.per_class()),
            RoutingFunction::Adaptive(a) => (0, a.vcs as u8),
            RoutingFunction::Source(s) => (0, s.vcs() as u8),
            RoutingFunction::UpDown(u) => (0, u.vcs() as u8),
            RoutingFunction::Dragonfly(d) => d.class_range(0),
            RoutingFunction::HyperX(h) => h.class_range(0),
            RoutingFunction::Graph(g) => g.class_range(0),
        }
    }
}

impl RoutingFunction {
    /// Every endpoint, in the order that walks the routing state with the best locality:
    /// for table-driven routing the order of the tables' columns (XT node ids), so that
    /// consecutive destinations share the cache lines of every table row; otherwise by
    /// endpoint id. Analyses that explore all destinations (the channel dependency
    /// check, the pair walks) take them in this order; their results do not depend on it.
    pub fn destination_order(&self, topo: &Topology) -> Vec<u32> {
        let mut order: Vec<u32> = (0..topo.num_nodes).collect();
        if let RoutingFunction::Table(t) = self {
            order.sort_unstable_by_key(|&e| t.xt_nid(e));
        }
        order
    }

    /// Does router `r` drop a packet that arrived on `in_port`/`in_vc` and is routed to
    /// `out_port`? Only the Cray XT tables' dateline nodes do ([`table::DROP_FIELD`]).
    pub fn drops(&self, r: u32, in_port: u32, in_vc: u32, out_port: u32) -> bool {
        matches!(self, RoutingFunction::Table(t) if t.drops(r, in_port, in_vc, out_port))
    }

    /// Are dateline drops simulated (`routing.dateline_errors = "drop"`) rather than
    /// refused before the run?
    pub fn runs_drops(&self) -> bool {
        matches!(self, RoutingFunction::Table(t) if t.dateline_errors() == table::DatelineErrors::Drop)
    }

    /// The path of a packet from endpoint `src` to endpoint `dst` injected on VC `vc`:
    /// every hop with its output port and VC (the arrival VC when allowed, else the
    /// lowest allowed, as the routers choose without contention), and for table-driven
    /// routing the table that answered. An error if the routes loop or leave the network.
    pub fn path(&self, topo: &Topology, src: u32, dst: u32, vc: u32) -> Result<Vec<table::Hop>> {
        let mut hops = Vec::new();
        self.path_into(topo, src, dst, vc, &mut hops)?;
        Ok(hops)
    }

    /// [`RoutingFunction::path`] into `hops` (cleared first), for callers that walk many
    /// pairs with one vector.
    pub fn path_into(&self, topo: &Topology, src: u32, dst: u32, vc: u32, hops: &mut Vec<table::Hop>) -> Result<()> {
        if let RoutingFunction::Table(t) = self {
            return t.path_into(topo, src, dst, vc, hops);
        }
        hops.clear();
        let (mut r, mut p, mut v) = (topo.router_of(src), topo.local_port_of(src), vc);
        // A dragonfly's or HyperX's Valiant route: that of the source's first packet
        // (number 0); UGAL's in a network at rest (minimal).
        let mut header = crate::packet::Packet { src, dst, ..Default::default() };
        loop {
            let c = match self {
                RoutingFunction::Dragonfly(d) => d.route_header(r, p, v, hops.is_empty(), &mut header, &NoQueues),
                RoutingFunction::HyperX(h) => h.route_header(r, p, v, hops.is_empty(), &mut header, &NoQueues),
                _ => self.route_packet(topo, r, p, v, &header),
            };
            let out_vc = if (c.vc_lo as u32..c.vc_hi as u32).contains(&v) { v } else { c.vc_lo as u32 };
            hops.push(table::Hop {
                router: r,
                in_port: p,
                table: None,
                port: c.port as u32,
                vc_lo: c.vc_lo as u32,
                vc_hi: c.vc_hi as u32,
                vc: out_vc,
            });
            if topo.is_local_port(c.port as u32) {
                if r != topo.router_of(dst) {
                    return Err(Error::config("routing", format!("no route from {src} to {dst}: it ends at router {r}")));
                }
                return Ok(());
            }
            let id = topo.out_channel[(r * topo.ports + c.port as u32) as usize];
            if id == crate::topology::NONE || hops.len() > 4 * topo.num_routers as usize {
                return Err(Error::config("routing", format!("the route from {src} to {dst} leaves the network or loops at router {r}")));
            }
            let ch = topo.channels[id as usize];
            (r, p, v) = (ch.dst_router, ch.dst_port, out_vc);
        }
    }
}

/// How far the automatic dateline search around failures ([`RoutingFunction::build_around`])
/// has got, for a progress display: it is trying candidate placement `done + 1` of at
/// most `total` (it stops early at a perfect one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchProgress {
    /// Candidates tried before this one.
    pub done: usize,
    /// Candidates the search's budget allows.
    pub total: usize,
}

/// Most pair walks the automatic dateline search around failures may spend.
pub const SEARCH_PAIR_WALKS: u64 = 1 << 26;

/// Validate a dimension-order routing config and build it.
fn build_dor(order: &Option<Vec<u32>>, datelines: bool, classes: u32, topo: &Topology, vcs: u32, path: &str) -> Result<dor::Dor> {
    let n = topo.ndims();
    let order: Vec<u32> = match order {
        Some(o) => {
            let mut seen = vec![false; n];
            if o.len() != n {
                return Err(Error::config(
                    format!("{path}.order"),
                    format!("has {} entries but the topology has {n} dimensions; list each dimension 0..{n} once", o.len()),
                ));
            }
            for &d in o {
                if d as usize >= n || seen[d as usize] {
                    return Err(Error::config(format!("{path}.order"), format!("{o:?} is not a permutation of the dimensions 0..{n}")));
                }
                seen[d as usize] = true;
            }
            o.clone()
        }
        None => (0..n as u32).collect(),
    };
    if !(1..=8).contains(&classes) {
        return Err(Error::config(format!("{path}.classes"), format!("{classes} is out of range: traffic classes must be 1..=8")));
    }
    if !vcs.is_multiple_of(classes) {
        return Err(Error::config(
            format!("{path}.classes"),
            format!("{vcs} VCs cannot be split into {classes} equal traffic classes; use a number of VCs that is a multiple of {classes}"),
        ));
    }
    let per_class = vcs / classes;
    let any_torus = topo.shape == Shape::Cube && topo.wrap.iter().any(|&w| w);
    if datelines && any_torus && per_class < 2 {
        let what = if classes == 1 { format!("{vcs} VC") } else { format!("{per_class} VC per traffic class") };
        return Err(Error::config(
            "router.vcs",
            format!(
                "{what} cannot hold the two dateline classes a torus dimension needs; use vcs >= {} (or routing.datelines = false to study deadlock)",
                2 * classes
            ),
        ));
    }
    Ok(dor::Dor::new(topo, order, datelines, vcs, classes))
}
