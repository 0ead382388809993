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
    /// With a cycle: for each of its dependencies, a (source, destination) pair whose
    /// route makes it (the packet that holds the first channel while it waits for the
    /// second).
    pub cycle_pairs: Vec<(u32, u32)>,
    /// The cycle as (channel id, VC).
    #[serde(skip)]
    pub cycle_channels: Vec<(u32, u32)>,
    /// Ordered pairs of distinct live nodes (endpoints whose router has not failed).
    pub pairs: u64,
    /// Of those, the pairs the routes connect.
    pub routable_pairs: u64,
    /// Ordered (source, destination) node pairs the routes do not connect, with why
    /// (at most 20 listed).
    pub unreachable: Vec<String>,
    /// How many pairs are unreachable.
    pub unreachable_pairs: u64,
    /// Pairs whose packets the tables drop at a dateline node (arriving there on VC1 and
    /// passing through, [`crate::routing::table::DROP_FIELD`]). With
    /// `routing.dateline_errors = "drop"` their packets run and are dropped; otherwise
    /// they are among the unreachable pairs.
    pub dropped_pairs: u64,
    /// Mean router-to-router hops of the connected pairs' routes.
    pub mean_hops: f64,
    /// Mean minimal hops of the same pairs in the network without failures.
    pub mean_minimal_hops: f64,
    /// `mean_hops / mean_minimal_hops`: the path stretch failures cost (1 without).
    pub stretch: f64,
    /// The most hops any connected pair's route takes beyond its fault-free minimum.
    pub max_extra_hops: u32,
}

/// Which ordered node pairs the routes connect: one bit per (source, destination).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairMask {
    n: u32,
    bits: Vec<u64>,
}

impl PairMask {
    /// No pair connected, over `n` nodes.
    pub fn none(n: u32) -> Self {
        PairMask { n, bits: vec![0; (n as usize * n as usize).div_ceil(64)] }
    }

    /// Do the routes connect `src` to `dst`?
    #[inline]
    pub fn get(&self, src: u32, dst: u32) -> bool {
        let i = src as usize * self.n as usize + dst as usize;
        self.bits[i >> 6] >> (i & 63) & 1 == 1
    }

    fn set(&mut self, src: u32, dst: u32) {
        let i = src as usize * self.n as usize + dst as usize;
        self.bits[i >> 6] |= 1 << (i & 63);
    }
}

/// Every live pair's route, followed: which connect, and how long they are.
#[derive(Clone, Debug, PartialEq)]
pub struct PairRoutes {
    /// Connected pairs (a live node to itself included).
    pub mask: PairMask,
    /// Ordered pairs of distinct live nodes.
    pub pairs: u64,
    /// Of those, connected.
    pub routable: u64,
    /// Pairs whose route ends in a dateline drop (see [`CdgReport::dropped_pairs`]); in
    /// `mask` when the drops are simulated.
    pub dropped: u64,
    /// Up to 20 unconnected pairs with the reason.
    pub unreachable: Vec<String>,
    /// Hops and fault-free minimal hops summed over the connected distinct pairs.
    pub hops: u64,
    /// See `hops`.
    pub minimal: u64,
    /// Most hops beyond the minimum.
    pub max_extra: u32,
}

/// Follow the route of every ordered pair of live endpoints (`dead[e]`: endpoint `e`'s
/// router failed; empty = none), injected on the first injection VC. Table-driven
/// routes are followed per destination with the walks shared ([`table_pair_routes`]),
/// others pair by pair ([`pair_routes_by_walks`]); both give the same result.
pub fn pair_routes(routing: &RoutingFunction, topo: &Topology, dead: &[bool]) -> PairRoutes {
    match routing {
        RoutingFunction::Table(t) => table_pair_routes(routing, t, topo, dead),
        _ => pair_routes_by_walks(routing, topo, dead),
    }
}

/// The counts of [`PairRoutes`] over some of the pairs, added up across workers.
#[derive(Clone, Copy, Default)]
struct Tally {
    pairs: u64,
    routable: u64,
    dropped: u64,
    hops: u64,
    minimal: u64,
    max_extra: u32,
}

impl Tally {
    /// A connected pair of distinct nodes whose route takes `h` hops where the fault-free
    /// minimum is `m`.
    fn connected(&mut self, h: u32, m: u32) {
        self.routable += 1;
        self.hops += h as u64;
        self.minimal += m as u64;
        self.max_extra = self.max_extra.max(h.saturating_sub(m));
    }

    /// Add these counts to `out`'s.
    fn add_to(&self, out: &mut PairRoutes) {
        out.pairs += self.pairs;
        out.routable += self.routable;
        out.dropped += self.dropped;
        out.hops += self.hops;
        out.minimal += self.minimal;
        out.max_extra = out.max_extra.max(self.max_extra);
    }
}

/// [`pair_routes`] by following every pair's route on its own
/// ([`RoutingFunction::path_into`]).
pub fn pair_routes_by_walks(routing: &RoutingFunction, topo: &Topology, dead: &[bool]) -> PairRoutes {
    use rayon::prelude::*;
    let n = topo.num_nodes;
    let (inj_lo, _) = routing.injection_vcs();
    let alive = |e: u32| !dead.get(e as usize).copied().unwrap_or(false);
    /// One source's routes.
    #[derive(Default)]
    struct Row {
        connected: Vec<u32>,
        tally: Tally,
        unreachable: Vec<String>,
    }
    let run_drops = routing.runs_drops();
    // Sources in parallel, merged in source order: the same result on any number of
    // threads.
    let rows: Vec<Row> = (0..n)
        .into_par_iter()
        .map_init(Vec::new, |hops, s| {
            let mut row = Row::default();
            if !alive(s) {
                return row;
            }
            for d in (0..n).filter(|&d| alive(d)) {
                if s != d {
                    row.tally.pairs += 1;
                }
                match routing.path_into(topo, s, d, inj_lo as u32, hops) {
                    Ok(()) => {
                        row.connected.push(d);
                        if s != d {
                            row.tally.connected(hops.len() as u32 - 1, topo.node_distance(s, d));
                        }
                    }
                    Err(e) if e.path() == Some(crate::routing::table::DROP_FIELD) && s != d => {
                        // Dropped at a dateline: run (and dropped) or unreachable.
                        row.tally.dropped += 1;
                        if run_drops {
                            row.connected.push(d);
                        } else if row.unreachable.len() < 20 {
                            row.unreachable.push(format!("{s} -> {d}: {}", route_failure(&e)));
                        }
                    }
                    Err(e) => {
                        if row.unreachable.len() < 20 {
                            row.unreachable.push(format!("{s} -> {d}: {}", route_failure(&e)));
                        }
                    }
                }
            }
            row
        })
        .collect();
    let mut out = PairRoutes {
        mask: PairMask::none(n),
        pairs: 0,
        routable: 0,
        dropped: 0,
        unreachable: Vec::new(),
        hops: 0,
        minimal: 0,
        max_extra: 0,
    };
    for (s, row) in rows.into_iter().enumerate() {
        for d in row.connected {
            out.mask.set(s as u32, d);
        }
        row.tally.add_to(&mut out);
        let room = 20 - out.unreachable.len();
        out.unreachable.extend(row.unreachable.into_iter().take(room));
    }
    out
}

/// What a table walk from a state (router, input port, VC) towards one destination
/// comes to: `ARRIVE + k` = delivered after `k` more hops of [`RoutingFunction::path`]
/// (the ejection included), or one of the failures; `ON_PATH` marks the states of the
/// walk in progress, so meeting one again is a loop.
mod walk {
    pub const FAIL: u32 = u32::MAX;
    pub const DROP: u32 = u32::MAX - 1;
    pub const ON_PATH: u32 = u32::MAX - 2;
}

/// [`pair_routes`] for table-driven routing: the next hop depends only on the state
/// (router, input port, VC) and the destination, so per destination each state's outcome
/// (delivered after so many hops, dropped at a dateline, or lost: a loop, a wrong
/// delivery, a port without a link) is worked out once and shared by every source whose
/// route reaches it. Destinations are taken in the tables' column order
/// ([`RoutingFunction::destination_order`]) for locality. The result is the same as
/// [`pair_routes_by_walks`]'s (a test compares them), down to the listed unreachable
/// pairs, whose reasons come from walking those pairs again.
fn table_pair_routes(routing: &RoutingFunction, t: &super::table::TableRouting, topo: &Topology, dead: &[bool]) -> PairRoutes {
    use rayon::prelude::*;
    let n = topo.num_nodes;
    let p_n = topo.ports;
    let (inj_lo, _) = routing.injection_vcs();
    let alive = |e: u32| !dead.get(e as usize).copied().unwrap_or(false);
    let run_drops = routing.runs_drops();
    const VCS: u32 = 16;
    let state = |r: u32, p: u32, v: u32| ((r * p_n + p) * VCS + v) as usize;
    /// One destination's routes.
    struct Column {
        dest: u32,
        /// Connected sources, a bit each.
        connected: Vec<u64>,
        tally: Tally,
        /// The first 20 sources whose pair is listed as unreachable.
        unreachable: Vec<u32>,
    }
    /// Per worker: each state's outcome, valid where `tag` holds the destination + 1.
    struct Memo {
        outcome: Vec<u32>,
        tag: Vec<u32>,
        path: Vec<usize>,
    }
    let states = (topo.num_routers * p_n * VCS) as usize;
    let order = routing.destination_order(topo);
    let columns: Vec<Column> = order
        .par_iter()
        .filter(|&&d| alive(d))
        .map_init(
            || Memo { outcome: vec![0; states], tag: vec![0; states], path: Vec::new() },
            |memo, &d| {
                let mut col =
                    Column { dest: d, connected: vec![0; (n as usize).div_ceil(64)], tally: Tally::default(), unreachable: Vec::new() };
                let tag = d + 1;
                for s in (0..n).filter(|&s| alive(s)) {
                    // Walk until a state whose outcome is known, or an end.
                    let (mut r, mut p, mut v) = (topo.router_of(s), topo.local_port_of(s), inj_lo as u32);
                    memo.path.clear();
                    let end = loop {
                        debug_assert!(v < VCS);
                        let i = state(r, p, v);
                        if memo.tag[i] == tag {
                            let o = memo.outcome[i];
                            break if o == walk::ON_PATH { walk::FAIL } else { o };
                        }
                        memo.tag[i] = tag;
                        memo.outcome[i] = walk::ON_PATH;
                        memo.path.push(i);
                        let (e, _) = t.lookup(r, p, d);
                        let port = e.port as u32;
                        if t.drops(r, p, v, port) {
                            break walk::DROP;
                        }
                        if topo.is_local_port(port) {
                            // The ejection is this walk's last hop.
                            break if topo.node_at(r, port) == Some(d) { 0 } else { walk::FAIL };
                        }
                        let c = t.route(r, p, v, d);
                        let out_vc = if (c.vc_lo as u32..c.vc_hi as u32).contains(&v) { v } else { c.vc_lo as u32 };
                        let id = topo.out_channel[(r * p_n + port) as usize];
                        if id == NONE {
                            break walk::FAIL;
                        }
                        let ch = topo.channels[id as usize];
                        (r, p, v) = (ch.dst_router, ch.dst_port, out_vc);
                    };
                    // Every state of the walk: one hop more than the next, or its failure.
                    let mut o = end;
                    for &i in memo.path.iter().rev() {
                        if o < walk::ON_PATH {
                            o += 1;
                        }
                        memo.outcome[i] = o;
                    }
                    if s != d {
                        col.tally.pairs += 1;
                    }
                    let listed = match o {
                        walk::DROP if s != d => {
                            col.tally.dropped += 1;
                            if run_drops {
                                col.connected[s as usize >> 6] |= 1 << (s & 63);
                            }
                            !run_drops
                        }
                        walk::DROP | walk::FAIL => true,
                        k => {
                            col.connected[s as usize >> 6] |= 1 << (s & 63);
                            if s != d {
                                col.tally.connected(k - 1, topo.node_distance(s, d));
                            }
                            false
                        }
                    };
                    if listed && col.unreachable.len() < 20 {
                        col.unreachable.push(s);
                    }
                }
                col
            },
        )
        .collect();
    let mut out = PairRoutes {
        mask: PairMask::none(n),
        pairs: 0,
        routable: 0,
        dropped: 0,
        unreachable: Vec::new(),
        hops: 0,
        minimal: 0,
        max_extra: 0,
    };
    let mut listed: Vec<(u32, u32)> = Vec::new();
    for col in columns {
        for (w, &bits) in col.connected.iter().enumerate() {
            let mut m = bits;
            while m != 0 {
                out.mask.set(w as u32 * 64 + m.trailing_zeros(), col.dest);
                m &= m - 1;
            }
        }
        col.tally.add_to(&mut out);
        listed.extend(col.unreachable.iter().map(|&s| (s, col.dest)));
    }
    // The first 20 unconnected pairs in (source, destination) order, as the pair-by-pair
    // walk lists them, each with the reason its walk gives.
    listed.sort_unstable();
    let mut hops = Vec::new();
    for &(s, d) in listed.iter().take(20) {
        if let Err(e) = routing.path_into(topo, s, d, inj_lo as u32, &mut hops) {
            out.unreachable.push(format!("{s} -> {d}: {}", route_failure(&e)));
        }
    }
    out
}

/// Why a route walk failed, in the route's own words (without the config-error frame).
fn route_failure(e: &crate::error::Error) -> String {
    match e {
        crate::error::Error::Config { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

/// Build and check the channel dependency graph of `routing` on `topo`, with sources
/// injecting on every VC of their injection range, over every pair of nodes.
pub fn check(routing: &RoutingFunction, topo: &Topology, vcs: u32) -> CdgReport {
    let pairs = pair_routes(routing, topo, &[]);
    check_pairs(routing, topo, vcs, &pairs)
}

/// The dependency graph of the pairs `pairs` connects only (packets of unconnected
/// pairs are never injected, so they add no dependencies), and the verdict.
pub fn check_pairs(routing: &RoutingFunction, topo: &Topology, vcs: u32, pairs: &PairRoutes) -> CdgReport {
    let mut report = check_pairs_unwitnessed(routing, topo, vcs, pairs);
    add_witnesses(&mut report, routing, topo, vcs, pairs);
    report
}

/// [`check_pairs`] without the pairs that witness the cycle's dependencies
/// (`cycle_pairs` left empty): for a search that compares many candidates' verdicts
/// and reports one ([`add_witnesses`] completes it).
pub fn check_pairs_unwitnessed(routing: &RoutingFunction, topo: &Topology, vcs: u32, pairs: &PairRoutes) -> CdgReport {
    let (p_n, np) = (topo.ports, topo.network_ports());
    let (inj_lo, inj_hi) = routing.injection_vcs();
    let state = |r: u32, p: u32, v: u32| ((r * p_n + p) * vcs + v) as usize;
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
    // A dependency leaves a (channel, VC) vertex for a (port, VC) of the router the
    // channel enters: one bit per (vertex, port, VC) holds them all (a few hundred KiB
    // on thousands of routers), so every destination's exploration sets bits instead of
    // collecting a list to sort. Destinations in parallel blocks, taken in the routing's
    // order of locality; the blocks' sets are OR-ed, so the graph is the same on any
    // number of threads.
    let fan = (p_n * vcs) as usize;
    let words = (topo.channels.len() * vcs as usize * fan).div_ceil(64);
    use rayon::prelude::*;
    let deps: Vec<u64> = routing
        .destination_order(topo)
        .par_chunks(64)
        .map(|dests| {
            let mut seen = vec![u32::MAX; (topo.num_routers * p_n * vcs) as usize];
            let mut deps = vec![0u64; words];
            let mut stack: Vec<(u32, u32, u32)> = Vec::new();
            for &d in dests {
                stack.clear();
                for s in (0..topo.num_nodes).filter(|&s| pairs.mask.get(s, d)) {
                    let (r, p) = (topo.router_of(s), topo.local_port_of(s));
                    for v in inj_lo as u32..inj_hi as u32 {
                        if seen[state(r, p, v)] != d {
                            seen[state(r, p, v)] = d;
                            stack.push((r, p, v));
                        }
                    }
                }
                while let Some((r, p, v)) = stack.pop() {
                    routing.for_each_candidate(topo, r, p, v, d, |c| {
                        let port = c.port as u32;
                        // A packet dropped here holds nothing further.
                        if topo.is_local_port(port) || routing.drops(r, p, v, port) {
                            return;
                        }
                        let ch = topo.out_channel[(r * p_n + port) as usize];
                        if ch == NONE {
                            return; // reported by the reachability walk
                        }
                        let link = topo.channels[ch as usize];
                        let from = if p < np { in_channel[(r * p_n + p) as usize] } else { NONE };
                        for w in c.vc_lo as u32..c.vc_hi as u32 {
                            if from != NONE {
                                let bit = (from * vcs + v) as usize * fan + (port * vcs + w) as usize;
                                deps[bit >> 6] |= 1 << (bit & 63);
                            }
                            let next = state(link.dst_router, link.dst_port, w);
                            if seen[next] != d {
                                seen[next] = d;
                                stack.push((link.dst_router, link.dst_port, w));
                            }
                        }
                    });
                }
            }
            deps
        })
        .reduce(
            || vec![0u64; words],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x |= y);
                a
            },
        );
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for (w, &bits) in deps.iter().enumerate() {
        let mut m = bits;
        while m != 0 {
            let bit = w * 64 + m.trailing_zeros() as usize;
            m &= m - 1;
            let (a, rest) = ((bit / fan) as u32, (bit % fan) as u32);
            let r = topo.channels[(a / vcs) as usize].dst_router;
            if let Some(b) = vertex(r, rest / vcs, rest % vcs) {
                edges.push((a, b));
            }
        }
    }
    edges.sort_unstable();
    let mut g: DiGraphMap<u32, ()> = DiGraphMap::with_capacity(0, edges.len());
    for &(a, b) in &edges {
        g.add_edge(a, b, ());
    }
    let name = |x: u32| {
        let (c, v) = (x / vcs, x % vcs);
        let ch = topo.channels[c as usize];
        format!("{}{} vc{v}", topo.router_name(ch.src_router), topo.port_name(ch.src_port))
    };
    let mut cycle_ids = Vec::new();
    for scc in tarjan_scc(&g) {
        let self_loop = scc.len() == 1 && g.contains_edge(scc[0], scc[0]);
        if scc.len() > 1 || self_loop {
            cycle_ids = find_cycle(&g, &scc);
            break;
        }
    }
    let cycle: Vec<String> = cycle_ids.iter().map(|&x| name(x)).collect();
    let mean = |x: u64| if pairs.routable == 0 { 0.0 } else { x as f64 / pairs.routable as f64 };
    CdgReport {
        vertices: g.node_count(),
        edges: g.edge_count(),
        acyclic: cycle.is_empty(),
        cycle,
        cycle_pairs: Vec::new(),
        cycle_channels: cycle_ids.iter().map(|&x| (x / vcs, x % vcs)).collect(),
        pairs: pairs.pairs,
        routable_pairs: pairs.routable,
        unreachable: pairs.unreachable.clone(),
        unreachable_pairs: pairs.pairs - pairs.routable - if routing.runs_drops() { pairs.dropped } else { 0 },
        dropped_pairs: pairs.dropped,
        mean_hops: mean(pairs.hops),
        mean_minimal_hops: mean(pairs.minimal),
        stretch: if pairs.minimal == 0 { 1.0 } else { pairs.hops as f64 / pairs.minimal as f64 },
        max_extra_hops: pairs.max_extra,
    }
}

/// Fill in `report.cycle_pairs`: for each dependency of the cycle, a connected pair
/// whose route makes it.
pub fn add_witnesses(report: &mut CdgReport, routing: &RoutingFunction, topo: &Topology, vcs: u32, pairs: &PairRoutes) {
    let ids: Vec<u32> = report.cycle_channels.iter().map(|&(c, v)| c * vcs + v).collect();
    report.cycle_pairs = ids.windows(2).filter_map(|w| witness(routing, topo, vcs, pairs, w[0], w[1])).collect();
}

/// A connected pair whose route, on some VC the routing allows, holds vertex `a`
/// (channel * vcs + VC) and then requests `b`.
fn witness(routing: &RoutingFunction, topo: &Topology, vcs: u32, pairs: &PairRoutes, a: u32, b: u32) -> Option<(u32, u32)> {
    let (ca, va) = (a / vcs, a % vcs);
    let (cb, vb) = (b / vcs, b % vcs);
    let (la, lb) = (topo.channels[ca as usize], topo.channels[cb as usize]);
    if la.dst_router != lb.src_router {
        return None;
    }
    let (inj_lo, inj_hi) = routing.injection_vcs();
    // States seen by the current source's search: those stamped with `tag`.
    let (mut seen, mut tag) = (vec![0u32; (topo.num_routers * topo.ports * vcs) as usize], 0u32);
    let mut frontier: Vec<(u32, u32, u32)> = Vec::new();
    for d in 0..topo.num_nodes {
        let mut makes = false;
        routing.for_each_candidate(topo, la.dst_router, la.dst_port, va, d, |c| {
            makes |= c.port as u32 == lb.src_port && (c.vc_lo as u32..c.vc_hi as u32).contains(&vb);
        });
        if !makes {
            continue;
        }
        // Some source of d whose route (on any VC choice) passes a on va.
        for s in (0..topo.num_nodes).filter(|&s| pairs.mask.get(s, d)) {
            frontier.clear();
            frontier.push((topo.router_of(s), topo.local_port_of(s), u32::MAX));
            tag = tag.wrapping_add(1);
            if tag == 0 {
                seen.fill(0);
                tag = 1;
            }
            while let Some((r, p, v)) = frontier.pop() {
                let vs = if v == u32::MAX { inj_lo as u32..inj_hi as u32 } else { v..v + 1 };
                for v in vs {
                    let i = ((r * topo.ports + p) * vcs + v) as usize;
                    if seen[i] == tag {
                        continue;
                    }
                    seen[i] = tag;
                    if r == la.dst_router && p == la.dst_port && v == va {
                        return Some((s, d));
                    }
                    routing.for_each_candidate(topo, r, p, v, d, |c| {
                        let ch = topo.out_channel[(r * topo.ports + c.port as u32) as usize];
                        if topo.is_local_port(c.port as u32) || ch == NONE {
                            return;
                        }
                        let l = topo.channels[ch as usize];
                        for w in c.vc_lo as u32..c.vc_hi as u32 {
                            frontier.push((l.dst_router, l.dst_port, w));
                        }
                    });
                }
            }
        }
    }
    None
}

/// A cycle inside a strongly connected component (its first vertex repeated at the end).
fn find_cycle(g: &DiGraphMap<u32, ()>, scc: &[u32]) -> Vec<u32> {
    let members: HashSet<u32> = scc.iter().copied().collect();
    cycle_from(g, scc[0], |w| members.contains(&w))
}

/// A cycle through `start` over vertices `within` accepts: breadth-first from `start`
/// until an edge returns to it; `[start, start]` if none does.
pub(crate) fn cycle_from(g: &DiGraphMap<u32, ()>, start: u32, within: impl Fn(u32) -> bool) -> Vec<u32> {
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
            if within(w) && !parent.contains_key(&w) {
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
    fn the_check_is_the_same_on_any_number_of_threads() {
        // Routes around two failed links of a 5x4x3 torus (a cycle and unconnected pairs
        // are possible here): the report, cycle and examples included, must not depend
        // on how the work was split.
        let toml = "[topology]\ntype = \"torus\"\ndims = [5, 4, 3]\n[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"\ndateline = [4, 3, 2]\n\
                    [faults]\nlinks = [[0, 5], [7, 1]]\nunroutable = \"skip\"\ncyclic_routes = \"run\"\n";
        let cfg = Config::from_toml(toml, &[]).unwrap();
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| cfg.routes().unwrap().2.unwrap().check)
        };
        let one = on(1);
        assert!(one.routable_pairs > 0);
        assert_eq!(one, on(2));
        assert_eq!(one, on(4));
    }

    #[test]
    fn the_graph_holds_the_dependencies_of_every_route() {
        // Where each hop allows one VC, the dependency graph is exactly the consecutive
        // (channel, VC) pairs of the routes from every source, injected on every
        // injection VC, to every destination: counted here from the routes themselves.
        for toml in [
            "[topology]\ntype = \"torus\"\ndims = [5, 4]\n[router]\nvcs = 2\n",
            "[topology]\ntype = \"cube\"\ndims = [5, 4, 3]\nwrap = [true, false, true]\n[router]\nvcs = 4\n[routing]\ntype = \"table\"\nclasses = 2\nvc_policy = \"v3\"\n",
        ] {
            let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
            let (topo, routing, vcs) = (&spec.topology, &spec.routing, spec.config.router.vcs());
            let (lo, hi) = routing.injection_vcs();
            let mut deps = HashSet::new();
            let mut vertices = HashSet::new();
            for s in 0..topo.num_nodes {
                for d in 0..topo.num_nodes {
                    for v in lo as u32..hi as u32 {
                        let hops = routing.path(topo, s, d, v).unwrap();
                        let held: Vec<(u32, u32)> = hops
                            .iter()
                            .filter(|h| !topo.is_local_port(h.port))
                            .map(|h| {
                                assert_eq!(h.vc_hi - h.vc_lo, 1, "one VC per hop");
                                (topo.out_channel[(h.router * topo.ports + h.port) as usize], h.vc)
                            })
                            .collect();
                        for w in held.windows(2) {
                            deps.insert((w[0], w[1]));
                            vertices.extend([w[0], w[1]]);
                        }
                    }
                }
            }
            let r = check(routing, topo, vcs);
            assert!(r.acyclic && !deps.is_empty());
            assert_eq!((r.edges, r.vertices), (deps.len(), vertices.len()), "{toml}");
        }
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
        for (policy, dateline) in
            [("initial", "[2, 0, 3]"), ("v1", "[2, 0, 3]"), ("v2", "[2, 0, 3]"), ("v3", "[2, 0, 3]"), ("v3", "\"auto\"")]
        {
            let r = check_of(&format!(
                "[topology]\ntype = \"cube\"\ndims = [6, 4, 4]\nwrap = [true, false, true]\n[router]\nvcs = 4\n\
                 [routing]\ntype = \"table\"\nclasses = 2\nregion_size = 32\nvc_policy = \"{policy}\"\ndateline = {dateline}\n"
            ));
            assert!(r.acyclic, "{policy}: {:?}", r.cycle);
            assert_eq!(r.unreachable_pairs, 0, "{policy}");
        }
    }
}
