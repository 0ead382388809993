//! Source routing on a Kautz graph with VC assignment by node order (Godiwala, Leonard and
//! Reilly, *A Network Fabric for Scalable Multiprocessor Systems*, SiCortex; sections 4.1
//! and 4.2).
//!
//! **Routes.** The source builds the route string (two bits per hop for degree 3: the
//! out-port at each switch, [`crate::topology::kautz::SourceRoute`]) and every switch
//! shifts its two bits off. The route is the string-shift shortest route, which is the
//! only shortest route in a Kautz graph, so a switch's port is a function of (switch,
//! destination): this routing function computes it there ([`Kautz::next_port`]) instead of
//! carrying the string in the simulated header, with identical routes.
//!
//! **VCs by node order (section 4.2).** Nodes are ordered by their labels (node ids are
//! the labels' lexicographic ranks). A packet that arrives at node `Y` from `X` and leaves
//! towards `Z` moves down one VC when `Y > X` and `Y > Z` (a local maximum of the route in
//! the node order); otherwise it keeps its VC. A channel dependency from VC `v` to VC `v`
//! therefore always goes from a channel into a "higher" node to one out of it, or the
//! other way round with a decrement, and no cycle closes: [`super::cdg`] checks it
//! (`flitsim routes CONFIG --check`). The source picks the starting VC:
//! - [`VcStart::Exact`]: the number of decrements on the route, so that the packet
//!   arrives on VC 0 (the paper's "the source assigns the starting VC so the packet
//!   arrives on VC 0");
//! - [`VcStart::Half`]: `floor(D/2)` for every packet (the paper's alternative). A route
//!   has at most `D - 1` interior nodes, and no two neighbouring interior nodes are both
//!   local maxima, so at most `floor(D/2)` decrements: `floor(D/2) + 1` VCs suffice
//!   either way, and [`SourceRouting::vcs_needed`] is that number.

use serde::{Deserialize, Serialize};

use super::Candidate;
use crate::error::{Error, Result};
use crate::topology::kautz::Kautz;
use crate::topology::{Shape, Topology};
use std::sync::Arc;

/// How the source chooses a packet's first VC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VcStart {
    /// The route's number of decrements: the packet arrives on VC 0.
    #[default]
    Exact,
    /// `floor(D/2)` for every packet.
    Half,
}

/// The routing function.
#[derive(Clone, Debug)]
pub struct SourceRouting {
    kautz: Arc<Kautz>,
    start: VcStart,
    vcs: u32,
    /// With failed links or nodes: the out-port at each router towards each destination
    /// router (`[router * N + dst]`, [`UNREACHABLE`] if none), on shortest surviving
    /// routes; None: the string-shift routes.
    table: Option<Arc<Vec<u8>>>,
    /// With a table and [`VcStart::Half`]: the starting VC of every packet.
    half_start: u32,
    /// Multi-rail: node-disjoint routes per pair used round robin (1 = shortest only).
    rails: u32,
    /// Links failing during the run (`[[faults.at]]`): the tables to switch to, by cycle,
    /// and the index of the next one. Built before the run; switching is a pointer copy.
    switches: Arc<[RouteSwitch]>,
    next_switch: usize,
    /// The failed links in use, `(router, out-port)` (multi-rail routes avoid them).
    failed: Arc<[(u32, u8)]>,
}

/// The routes from a cycle on: shortest surviving routes once the links failing then
/// (and earlier) are gone ([`SourceRouting::with_switches`]).
#[derive(Clone, Debug)]
pub struct RouteSwitch {
    /// First cycle the table is used (packets whose route is built from then on).
    pub cycle: u64,
    table: Arc<Vec<u8>>,
    half_start: u32,
    failed: Arc<[(u32, u8)]>,
}

impl RouteSwitch {
    /// VCs its routes need: their largest number of decrements + 1.
    pub fn vcs_needed(&self) -> u32 {
        self.half_start + 1
    }
}

/// No route in the fault table.
pub const UNREACHABLE: u8 = u8::MAX;

impl SourceRouting {
    /// Source routing on `topo` (a Kautz graph) with `vcs` VCs; `path` is "routing".
    pub fn new(topo: &Topology, vcs: u32, start: VcStart, path: &str) -> Result<Self> {
        let (Shape::Kautz, Some(k)) = (&topo.shape, &topo.kautz) else {
            return Err(Error::config(
                format!("{path}.type"),
                "source routing with VCs by node order is the Kautz fabric's; use topology.type = \"kautz\", or another routing type",
            ));
        };
        let r = SourceRouting {
            kautz: k.clone(),
            start,
            vcs,
            table: None,
            half_start: k.diameter() / 2,
            rails: 1,
            switches: Arc::new([]),
            next_switch: 0,
            failed: Arc::new([]),
        };
        let need = r.vcs_needed();
        if vcs < need {
            return Err(Error::config(
                "router.vcs",
                format!(
                    "{vcs} VCs cannot hold the up to {} VC decrements of a route in K({}, {}); use vcs >= {need} (floor(D/2) + 1)",
                    need - 1,
                    k.degree(),
                    k.diameter()
                ),
            ));
        }
        Ok(r)
    }

    /// Like [`SourceRouting::new`] without the VC-count check: for showing that fewer VCs
    /// than needed make the channel dependency graph cyclic.
    pub fn unchecked(topo: &Topology, vcs: u32, start: VcStart) -> Option<Self> {
        topo.kautz.as_ref().map(|k| SourceRouting {
            kautz: k.clone(),
            start,
            vcs,
            table: None,
            half_start: k.diameter() / 2,
            rails: 1,
            switches: Arc::new([]),
            next_switch: 0,
            failed: Arc::new([]),
        })
    }

    /// VCs per port.
    pub fn vcs(&self) -> u32 {
        self.vcs
    }

    /// Source routing on `topo` whose failed channels (`out_channel` = NONE) and routers
    /// are already applied: at every router the out-port of a shortest surviving route to
    /// each destination (breadth-first search backwards from every destination over the
    /// working channels, in in-port order, so routes from any router follow one tree and
    /// the string the source builds is the path the table gives). Routes may be longer
    /// than `D` (the paper: one failure adds at most one hop for d >= 3), so VCs are
    /// checked against the largest number of decrements on any route, and `half` starts
    /// every packet on that number.
    pub fn around_failures(topo: &Topology, vcs: u32, start: VcStart, path: &str) -> Result<Self> {
        let (Shape::Kautz, Some(k)) = (&topo.shape, &topo.kautz) else {
            return Err(Error::config(
                format!("{path}.type"),
                "source routing with VCs by node order is the Kautz fabric's; use topology.type = \"kautz\"",
            ));
        };
        let n = k.node_count() as usize;
        let (p_n, d) = (topo.ports as usize, k.degree() as usize);
        let mut table = vec![UNREACHABLE; n * n];
        let mut seen = vec![false; n];
        let mut queue = std::collections::VecDeque::with_capacity(n);
        for dst in 0..n {
            seen.iter_mut().for_each(|x| *x = false);
            seen[dst] = true;
            queue.clear();
            queue.push_back(dst);
            while let Some(y) = queue.pop_front() {
                for q in 0..d {
                    let id = topo.in_channel[y * p_n + q];
                    if id == crate::topology::NONE {
                        continue;
                    }
                    let c = topo.channels[id as usize];
                    let x = c.src_router as usize;
                    if seen[x] || topo.out_channel[x * p_n + c.src_port as usize] != id {
                        continue; // visited, or the channel has failed
                    }
                    seen[x] = true;
                    table[x * n + dst] = c.src_port as u8;
                    queue.push_back(x);
                }
            }
        }
        let failed: Arc<[(u32, u8)]> = (0..n * p_n)
            .filter(|&i| i % p_n < d && topo.out_channel[i] == crate::topology::NONE)
            .map(|i| ((i / p_n) as u32, (i % p_n) as u8))
            .collect();
        let mut r = SourceRouting {
            kautz: k.clone(),
            start,
            vcs,
            table: Some(Arc::new(table)),
            half_start: 0,
            rails: 1,
            switches: Arc::new([]),
            next_switch: 0,
            failed,
        };
        let mut most = 0;
        for src in 0..n as u32 {
            for dst in 0..n as u32 {
                if r.next_port(src, dst).is_some() || src == dst {
                    most = most.max(r.decrements(src, dst));
                }
            }
        }
        r.half_start = most;
        if vcs < most + 1 {
            return Err(Error::config(
                "router.vcs",
                format!(
                    "{vcs} VCs cannot hold the {most} VC decrements of the longest route around these failures; use vcs >= {}",
                    most + 1
                ),
            ));
        }
        Ok(r)
    }

    /// Multi-rail over `rails` node-disjoint routes (1..=d). Kautz node-disjoint routes
    /// are at most `D + 2` hops long (the SC5832's longest is 8), so at most
    /// `floor(D/2) + 1` decrements: `floor(D/2) + 2` VCs are required.
    pub fn with_rails(mut self, rails: u32, path: &str) -> Result<Self> {
        let d = self.kautz.degree();
        if !(1..=d).contains(&rails) {
            return Err(Error::config(
                format!("{path}.rails"),
                format!("{rails} rails: a Kautz graph of degree {d} has {d} node-disjoint routes per pair; use 1..={d}"),
            ));
        }
        if rails > 1 {
            let need = (self.kautz.diameter() + 2) / 2 + 1;
            if self.vcs < need {
                return Err(Error::config(
                    "router.vcs",
                    format!("{} VCs cannot hold the decrements of multi-rail routes (up to D + 2 hops); use vcs >= {need}", self.vcs),
                ));
            }
        }
        self.rails = rails;
        Ok(self)
    }

    /// Back to the shortest route only (messages below `routing.rail_threshold`).
    pub fn single_rail(&mut self) {
        self.rails = 1;
    }

    /// These routes (built by [`SourceRouting::around_failures`]) as the ones to use from
    /// `cycle` on.
    pub fn into_switch(self, cycle: u64) -> RouteSwitch {
        let table = self.table.expect("around_failures builds a table");
        RouteSwitch { cycle, table, half_start: self.half_start, failed: self.failed }
    }

    /// Switch to each of `switches` (sorted by cycle) at its cycle ([`SourceRouting::advance`]).
    pub fn with_switches(mut self, switches: Vec<RouteSwitch>) -> Self {
        debug_assert!(switches.windows(2).all(|w| w[0].cycle < w[1].cycle));
        self.switches = switches.into();
        self.next_switch = 0;
        self
    }

    /// Called by the engine at the start of cycle `now`: from the cycle a scheduled link
    /// fails, the sources build routes from the table around it (packets already routed
    /// keep their routing string). True if the routes changed. One comparison per cycle
    /// otherwise; the switch itself copies a pointer.
    #[inline]
    pub fn advance(&mut self, now: u64) -> bool {
        let mut changed = false;
        while let Some(s) = self.switches.get(self.next_switch).filter(|s| s.cycle <= now) {
            self.table = Some(Arc::clone(&s.table));
            self.half_start = s.half_start;
            self.failed = Arc::clone(&s.failed);
            self.next_switch += 1;
            changed = true;
        }
        changed
    }

    /// Rails per pair.
    pub fn rails(&self) -> u32 {
        self.rails
    }

    /// The failed links the current routes avoid, `(router, out-port)`; the same `Arc`
    /// until the routes change ([`SourceRouting::advance`]), so a cache of routes can
    /// tell by pointer whether it is stale.
    pub fn failed_links(&self) -> &Arc<[(u32, u8)]> {
        &self.failed
    }

    /// Whether the explicit route `ports` from `src` fits the VCs: its decrements (the
    /// node-order rule of section 4.2) leave a starting VC no higher than the top one, so
    /// the packet never needs a VC below 0.
    pub fn fits(&self, src: u32, ports: &[u8]) -> bool {
        let k = &*self.kautz;
        let (mut prev, mut at, mut down) = (src, src, 0u32);
        for (i, &p) in ports.iter().enumerate() {
            let next = k.out_neighbour(at, p);
            if i > 0 && at > prev && at > next {
                down += 1;
            }
            prev = at;
            at = next;
        }
        down < self.vcs
    }

    /// The out-port at router `r` towards router `dst` (None at `dst`, or with no route).
    #[inline]
    pub fn next_port(&self, r: u32, dst: u32) -> Option<u8> {
        match &self.table {
            None => self.kautz.next_port(r, dst),
            Some(t) => {
                let p = t[(r * self.kautz.node_count() + dst) as usize];
                (p != UNREACHABLE).then_some(p)
            }
        }
    }

    /// VCs the node-order assignment needs: `floor(D/2) + 1`.
    pub fn vcs_needed(&self) -> u32 {
        self.kautz.diameter() / 2 + 1
    }

    /// Decrements on the shortest route from `src` to `dst` (interior local maxima).
    pub fn decrements(&self, src: u32, dst: u32) -> u32 {
        let k = &*self.kautz;
        let (mut prev, mut at) = (src, src);
        let mut n = 0;
        let mut first = true;
        while let Some(p) = self.next_port(at, dst) {
            let next = k.out_neighbour(at, p);
            if !first && at > prev && at > next {
                n += 1;
            }
            first = false;
            prev = at;
            at = next;
        }
        n
    }

    /// The starting VC of a packet from `src` to `dst`. With fewer VCs than needed (only
    /// through [`SourceRouting::unchecked`]) it is capped at the top VC; a later decrement
    /// below VC 0 is then clamped to 0, which is what makes the graph cyclic.
    pub fn start_vc(&self, src: u32, dst: u32) -> u32 {
        let v = match self.start {
            VcStart::Exact => self.decrements(src, dst),
            VcStart::Half => self.half_start,
        };
        v.min(self.vcs.saturating_sub(1))
    }

    /// Bits per symbol of the routing string: `ceil(log2(d + 1))`.
    #[inline]
    fn bits(&self) -> u32 {
        32 - self.kautz.degree().leading_zeros()
    }

    /// The routing string from node `src` to node `dst` (one symbol per switch, the
    /// source switch's lowest, ending with the eject symbol `d`, as
    /// [`crate::topology::kautz::SourceRoute`] packs it) and the starting VC.
    pub fn route_string(&self, src: u32, dst: u32) -> (u64, u32) {
        let k = &*self.kautz;
        let b = self.bits();
        let (mut bits, mut shift, mut at) = (0u64, 0u32, src);
        while let Some(p) = self.next_port(at, dst) {
            bits |= u64::from(p) << shift;
            shift += b;
            at = k.out_neighbour(at, p);
        }
        bits |= u64::from(k.degree()) << shift;
        (bits, self.start_vc(src, dst))
    }

    /// The routing string and starting VC for an explicit route (`ports`, the out-port at
    /// each hop from `src`): the VC is the route's number of decrements (`exact`) or, with
    /// `half`, the largest a route of its kind can need.
    pub fn string_of(&self, src: u32, ports: &[u8]) -> (u64, u32) {
        let k = &*self.kautz;
        let b = self.bits();
        let (mut bits, mut shift) = (0u64, 0u32);
        let (mut prev, mut at, mut down) = (src, src, 0u32);
        for (i, &p) in ports.iter().enumerate() {
            bits |= u64::from(p) << shift;
            shift += b;
            let next = k.out_neighbour(at, p);
            if i > 0 && at > prev && at > next {
                down += 1;
            }
            prev = at;
            at = next;
        }
        bits |= u64::from(k.degree()) << shift;
        let vc = match self.start {
            VcStart::Exact => down,
            VcStart::Half => self.vcs.saturating_sub(1),
        };
        (bits, vc.min(self.vcs.saturating_sub(1)))
    }

    /// The graph.
    pub fn kautz(&self) -> &Arc<Kautz> {
        &self.kautz
    }

    /// A switch shifts its symbol off the routing string: `(its output, the next
    /// switch's output)` (output `d` is local delivery).
    #[inline]
    pub fn shift(&self, route: &mut u64) -> (usize, usize) {
        let b = self.bits();
        let mask = (1u64 << b) - 1;
        let here = (*route & mask) as usize;
        *route >>= b;
        (here, (*route & mask) as usize)
    }

    /// 1 if router `r`, entered on `in_port` and left on `out`, is higher than both its
    /// route neighbours (the packet moves down a VC), else 0.
    #[inline]
    pub fn decrements_at(&self, r: u32, in_port: u32, out: u32) -> u32 {
        let k = &*self.kautz;
        let from = k.in_neighbours(r)[in_port as usize];
        let to = k.out_neighbour(r, out as u8);
        (r > from && r > to) as u32
    }

    /// Candidate for a packet at `router`, arrived on `in_port`/`in_vc`, bound for `dest`.
    #[inline]
    pub fn route(&self, topo: &Topology, router: u32, in_port: u32, in_vc: u32, dest: u32) -> Candidate {
        let k = &*self.kautz;
        let Some(p) = self.next_port(router, dest) else {
            // Delivery over the local port, any VC (or, with no route, the local port of
            // the wrong router: `RoutingFunction::path` reports the pair unreachable).
            return Candidate { port: topo.net_ports as u8, vc_lo: 0, vc_hi: self.vcs as u8 };
        };
        let vc = if topo.is_local_port(in_port) {
            self.start_vc(router, dest)
        } else {
            let from = k.in_neighbours(router)[in_port as usize];
            let to = k.out_neighbour(router, p);
            let down = router > from && router > to;
            in_vc.saturating_sub(down as u32)
        };
        Candidate { port: p, vc_lo: vc as u8, vc_hi: vc as u8 + 1 }
    }
}
