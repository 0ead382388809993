//! Table-driven routing as in the Cray XT (Abts07, section 2.2; keys in
//! `docs/papers.md`): every input port of every
//! router has its own lookup table, read at run time, that gives the output port and
//! the VC rule for a destination. The tables are hierarchical: node ids are split into
//! **regions** of `region_size` nodes (SeaStar: 4,096, the destination's upper bits);
//! a packet bound for another region is routed by the **global** table, indexed by the
//! destination's region and its lowest id bit (two entries per region, as from the
//! XT's version 2), and within its region by the **local** table, indexed by the
//! destination's low bits.
//!
//! Node ids here are the XT's: the x coordinate varies slowest, so a region is a slab
//! of whole YZ planes (region_size must be a multiple of the plane), as the paper's
//! regions are. (The simulator's own endpoint numbering, x fastest, is unchanged; the
//! tables translate.)
//!
//! The tables are generated from dimension-order routing with datelines: a local entry
//! is exactly the DOR hop; a global entry is the DOR hop toward the nearest node of
//! the destination region with the same lowest id bit, which moves in x until the
//! packet is in the region — so every route is x, then y, then z, and deadlock-free as
//! DOR is. With one region (networks of at most `region_size` nodes) routing by table
//! is routing by DOR, hop for hop.
//!
//! An entry's VC rule is what the hardware's table encodes for the dateline scheme:
//! any VC of the packet's class, the lower half (before a dateline), the upper half
//! (crossing or past it), or keep the half the packet arrived in (continuing in a
//! dimension).

mod dateline;
mod fault_hop;
mod file;
mod rings;

pub use dateline::{DatelineErrors, DROP_FIELD};
pub use fault_hop::{fault_choice, fault_hop, no_u_turn};
use rings::uses_failed_link;
pub use rings::{ring_datelines, RingDatelines};

use super::dor::Dor;
use super::Candidate;
use crate::error::{Error, Result};
use crate::topology::Topology;

/// VC rules of a table entry.
pub mod rule {
    /// Any VC of the packet's traffic class (mesh dimensions, ejection).
    pub const ANY: u8 = 0;
    /// The lower half of the class (VC0 of the XT's pair).
    pub const LOWER: u8 = 1;
    /// The upper half (VC1: crossing the dateline, or past it).
    pub const UPPER: u8 = 2;
    /// The half the packet arrived in.
    pub const KEEP: u8 = 3;
}

/// One table entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// Output port.
    pub port: u8,
    /// VC rule ([`rule`]).
    pub vc: u8,
}

/// One hop of a routed path ([`TableRouting::path`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// Router.
    pub router: u32,
    /// Input port the packet arrived on.
    pub in_port: u32,
    /// Which table answered (table-driven routing only).
    pub table: Option<Lookup>,
    /// Output port.
    pub port: u32,
    /// VCs the entry allows, `[vc_lo, vc_hi)`.
    pub vc_lo: u32,
    /// End of the allowed range.
    pub vc_hi: u32,
    /// The VC taken.
    pub vc: u32,
}

/// Which table a lookup used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The destination is in this router's region.
    Local,
    /// It is not: the global table, by region and lowest id bit.
    Global,
}

/// The routing tables of every input port of every router.
#[derive(Clone, Debug)]
pub struct TableRouting {
    ports: u32,
    /// Nodes per region (a power of two).
    region_size: u32,
    /// Regions (covering all node ids).
    regions: u32,
    /// Endpoint -> XT node id (x slowest).
    xt_nid: Vec<u32>,
    /// Router -> its region.
    router_region: Vec<u32>,
    /// Local entries per (router, in port): `min(region_size, nodes)` each, by the
    /// destination's XT id within the region.
    local: Vec<Entry>,
    local_len: u32,
    /// Global entries per (router, in port): `2 * regions` each.
    global: Vec<Entry>,
    /// VCs per traffic class, and the dateline split within a class.
    per_class: u8,
    split: u8,
    /// Input VC -> first VC of its class.
    class_base: [u8; 16],
    /// The VC policy, and the dateline node per dimension (XT policies).
    policy: VcPolicy,
    dateline: Vec<u32>,
    /// The dateline coordinate of each router's ring, `[router * ndims + dim]`
    /// ([`ring_datelines`]).
    ring_dateline: Vec<u32>,
    /// Per router: the torus dimensions whose dateline node it is (bit per dimension;
    /// none under `dor`), for the drop rule ([`dateline`]).
    at_dateline: Vec<u16>,
    /// What a dateline drop does (`routing.dateline_errors`).
    dateline_errors: DatelineErrors,
}

/// VC assignment policy of the generated tables (section 3 of the XT VC-assignment
/// paper). `Dor` keeps DOR's dateline classes (the wrap link is the dateline; any VC of
/// a class where the dateline does not constrain). The XT policies pick VC0 or VC1 of
/// the packet's class for each dimension where the packet enters it, with a dateline
/// *node* D per torus dimension that switches passing packets from VC0 to VC1:
///
/// * every policy: "all packets coming out of the dateline will be on VC1" (section 3):
///   a packet that enters the dimension at D itself (injected there, or turning into the
///   dimension there) leaves D on VC1, as the packets passing through D do. (Read so,
///   the analytic VC_balance means of the 11x12x16 torus come out at the paper's Figure 4
///   numbers, initial 0.42 / 0.42 / 0.41 and v3 0.27 / 0.27 / 0.30 against 0.44 / 0.42 /
///   0.42 and 0.27 / 0.28 / 0.30; with D's own packets balanced like any other's they
///   were 0.33 / 0.33 / 0.36 and 0.24 / 0.23 / 0.22.)
/// * `initial` (3.1): a packet that will cross D starts the dimension on VC0; one that
///   will not takes VC `(entry node id XOR destination id) & 1`. "Crossing" is reaching
///   D's input port (a packet that ends its dimension at D counts as crossing). Packets
///   routed by the global table use VC0.
/// * `v1` (3.2): as `initial`, but non-crossing packets that enter the dimension at D's
///   downstream neighbour (D + 1 going +, D - 1 going -), whose first link carries the
///   VC1 traffic leaving D, are forced to VC0 ("since we know all traffic coming out of
///   the dateline node will be on VC1 ... we force all these packets to VC0").
/// * `v2` (3.3): as `v1`, and a globally routed packet that cannot cross D whatever node
///   of its destination region it is bound for takes the VC of its destination's lowest
///   id bit (the two global entries per region select different VCs).
/// * `v3` (3.4): as `v2`, but D is crossed only at its output port: packets that end
///   their dimension at D (destined for it, or turning there) do not cross, locally or
///   globally — which is the paper's region-edge rule for a region whose edge is D.
///
/// Each dimension is treated independently; a dimension's source is the node where the
/// packet enters it. Ids are XT node ids (x slowest).
#[derive(serde::Deserialize, serde::Serialize, Clone, Copy, Debug, Default, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VcPolicy {
    /// DOR dateline classes (the `dor` routing function's VCs).
    #[default]
    Dor,
    /// The XT's initial policy.
    Initial,
    /// Dateline neighbours.
    V1,
    /// Global table split.
    V2,
    /// Dateline crossed at the output port.
    V3,
}

/// Where the dateline nodes are: a node per dimension, or chosen as section 3.5 says.
#[derive(serde::Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Datelines {
    /// `"auto"`: the x dateline on a region edge, preferring a region of a single YZ
    /// plane (on both of its edges); the other dimensions, which regions do not cut, at
    /// their last node.
    Auto(AutoWord),
    /// The dateline node (coordinate) of each dimension.
    Nodes(Vec<u32>),
}

impl<'de> serde::Deserialize<'de> for Datelines {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        match toml::Value::deserialize(d)? {
            toml::Value::String(s) if s == "auto" => Ok(Datelines::Auto(AutoWord::Auto)),
            toml::Value::Array(a) => a
                .iter()
                .map(|v| v.as_integer().and_then(|i| u32::try_from(i).ok()))
                .collect::<Option<Vec<u32>>>()
                .map(Datelines::Nodes)
                .ok_or_else(|| {
                    D::Error::custom("expected dateline node coordinates (non-negative integers), one per dimension, e.g. [10, 11, 15]")
                }),
            other => Err(D::Error::custom(format!(
                "{other} is not a dateline choice: use \"auto\" or one node per dimension, e.g. [10, 11, 15]"
            ))),
        }
    }
}

/// The word `auto`.
#[derive(serde::Deserialize, serde::Serialize, Clone, Copy, Debug, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AutoWord {
    /// Automatic dateline selection.
    Auto,
}

/// Section 3.5: the x dateline on a region edge, a single-plane region preferred (its
/// plane is on both edges); `None` when the network has one region (any node is then on
/// an edge: the default, the last node, is kept).
pub fn auto_x_dateline(kx: u32, planes_per_region: u32, regions: u32) -> Option<u32> {
    if regions <= 1 || planes_per_region == 0 {
        return None;
    }
    // Regions cover x in [g * w, min((g + 1) * w, kx)); a region of one plane is a
    // partial last region of width 1, or every region when w = 1.
    let w = planes_per_region;
    let single = (0..regions).find(|&g| (g * w..((g + 1) * w).min(kx)).len() == 1);
    Some(match single {
        Some(g) => g * w,
        // The last plane of the first region: a right edge.
        None => w - 1,
    })
}

/// How to generate tables.
#[derive(Clone, Debug, PartialEq)]
pub struct TableOptions {
    /// Nodes per region.
    pub region_size: u32,
    /// VC assignment policy.
    pub policy: VcPolicy,
    /// Dateline node per dimension (XT policies), default `k - 1`.
    pub dateline: Option<Datelines>,
    /// Links have failed: generate routes around them with the XT's rules
    /// ([`fault_hop`]; needs an XT VC policy).
    pub faults: bool,
    /// Where the dateline node of each ring is ([`RingDatelines`]).
    pub ring_datelines: RingDatelines,
}

/// Does a packet entering a ring dimension at coordinate `s`, travelling in direction
/// `plus` to coordinate `t`, cross dateline node `d`? With `at_output`, only passing
/// through `d` (arriving and leaving) crosses; otherwise arriving at `d` does.
fn crosses(s: u32, t: u32, plus: bool, d: u32, k: u32, at_output: bool) -> bool {
    let mut x = s;
    while x != t {
        x = if plus { (x + 1) % k } else { (x + k - 1) % k };
        if x == d && (x != t || !at_output) {
            return true;
        }
    }
    false
}

/// Most bytes of tables a network may have (a config error beyond).
pub const MAX_TABLE_BYTES: u64 = 2 << 30;

impl TableRouting {
    /// Generate the tables of `topo` from dimension-order routing `dor`, with regions
    /// of `region_size` nodes (a power of two and a whole number of YZ planes). `path`
    /// names the routing config table for errors.
    pub fn generate(dor: &Dor, topo: &Topology, opts: &TableOptions, path: &str) -> Result<Self> {
        let region_size = opts.region_size;
        let n = topo.num_nodes;
        let c = topo.concentration.max(1);
        if !region_size.is_power_of_two() {
            return Err(Error::config(
                format!("{path}.region_size"),
                format!("{region_size} is not a power of two; a region is the nodes sharing the upper id bits (SeaStar: 4096)"),
            ));
        }
        // Nodes in one YZ plane (all but the first dimension).
        let plane = topo.dims.iter().skip(1).product::<u32>().max(1) * c;
        if region_size < n && !region_size.is_multiple_of(plane) {
            return Err(Error::config(
                format!("{path}.region_size"),
                format!("{region_size} nodes is not a whole number of YZ planes ({plane} nodes each); regions are slabs of YZ planes, so use a multiple of {plane} that is a power of two, or at least {n} (one region)"),
            ));
        }
        let regions = n.div_ceil(region_size);
        let local_len = region_size.min(n);
        let (r_n, p_n) = (topo.num_routers, topo.ports);
        let bytes = (r_n as u64 * p_n as u64) * (local_len as u64 + 2 * regions as u64) * std::mem::size_of::<Entry>() as u64;
        if bytes > MAX_TABLE_BYTES {
            return Err(Error::config(
                format!("{path}.region_size"),
                format!("the tables would take {} MiB (every input port of {r_n} routers holds {local_len} local entries); use a smaller region_size", bytes >> 20),
            ));
        }
        let policy = opts.policy;
        let nd = topo.ndims();
        let dateline: Vec<u32> = match &opts.dateline {
            Some(Datelines::Auto(_)) => {
                let plane = topo.dims.iter().skip(1).product::<u32>().max(1) * c;
                let mut v: Vec<u32> = topo.dims.iter().map(|&k| k - 1).collect();
                if let (Some(first), Some(x)) =
                    (v.first_mut(), auto_x_dateline(topo.dims.first().copied().unwrap_or(1), region_size / plane, n.div_ceil(region_size)))
                {
                    *first = x;
                }
                v
            }
            Some(Datelines::Nodes(v)) => {
                if v.len() != nd {
                    return Err(Error::config(
                        format!("{path}.dateline"),
                        format!("has {} entries but the topology has {nd} dimensions; give one dateline node per dimension", v.len()),
                    ));
                }
                for (i, (&d, &k)) in v.iter().zip(&topo.dims).enumerate() {
                    if d >= k {
                        return Err(Error::config(
                            format!("{path}.dateline[{i}]"),
                            format!("node {d} is outside dimension {i} of radix {k}; use 0..{}", k - 1),
                        ));
                    }
                }
                v.clone()
            }
            None => topo.dims.iter().map(|&k| k - 1).collect(),
        };
        if policy != VcPolicy::Dor && dor.per_class != 2 {
            return Err(Error::config(
                format!("{path}.vc_policy"),
                format!("the XT VC policies assign VC0 or VC1 of each traffic class, but the classes have {} VCs; use router.vcs = 2 x routing.classes", dor.per_class),
            ));
        }
        if policy != VcPolicy::Dor && !dor.datelines {
            return Err(Error::config(
                format!("{path}.vc_policy"),
                "the XT VC policies need datelines; remove routing.datelines = false or use vc_policy = \"dor\"",
            ));
        }
        // XT node ids: x slowest. Router coordinates -> index with dimension 0 slowest.
        let xt_router = |r: u32| -> u32 {
            let cr = topo.coords(r);
            cr.iter().zip(&topo.dims).fold(0u32, |acc, (&x, &k)| acc * k + x)
        };
        let xt_nid: Vec<u32> = (0..n).map(|e| xt_router(topo.router_of(e)) * c + e % c).collect();
        let router_region: Vec<u32> = (0..r_n).map(|r| xt_router(r) * c / region_size).collect();
        let xt_nid_of = |e: u32| xt_nid[e as usize];
        // Nodes of each region by XT id, for the global representatives.
        let mut by_xt = vec![0u32; n as usize];
        for e in 0..n {
            by_xt[xt_nid[e as usize] as usize] = e;
        }
        let (ring_dl, ring_failed) = ring_datelines(topo, &dateline, opts.ring_datelines);
        let dl = |r: u32, d: usize| ring_dl[r as usize * nd + d];
        let (split, per_class) = (dor.split, dor.per_class);
        let np = topo.network_ports();
        let at_output = policy == VcPolicy::V3;
        // The XT rule of a hop: continuing in a dimension keeps the VC, except through
        // the dateline node, which switches to VC1; entering a dimension chooses.
        // `choose(s, plus, d)` is the VC a non-crossing packet entering dimension `d` at
        // coordinate `s` takes.
        let xt_rule =
            |r: u32, p: u32, port: u32, cross: &dyn Fn(u32, bool, usize) -> bool, choose: &dyn Fn(u32, bool, usize) -> u8| -> u8 {
                let d = (port / 2) as usize;
                let plus = port.is_multiple_of(2);
                let s = topo.coords(r)[d];
                let wrap = topo.wrap[d];
                if p < np && (p / 2) as usize == d {
                    return if wrap && s == dl(r, d) { rule::UPPER } else { rule::KEEP };
                }
                if wrap && cross(s, plus, d) {
                    rule::LOWER
                } else {
                    choose(s, plus, d)
                }
            };
        let entry = |r: u32, p: u32, d: u32| -> Entry {
            let lo = dor.route(topo, r, p, 0, d, 0);
            let hi = dor.route(topo, r, p, split, d, 0);
            if topo.is_local_port(lo.port as u32) {
                return Entry { port: lo.port, vc: rule::ANY };
            }
            if policy != VcPolicy::Dor {
                let dest = topo.coords(topo.router_of(d)).to_vec();
                let cross = |s: u32, plus: bool, dim: usize| crosses(s, dest[dim], plus, dl(r, dim), topo.dims[dim], at_output);
                let xor = ((xt_router(r) * c) ^ xt_nid_of(d)) & 1;
                let choose = |s: u32, plus: bool, dim: usize| -> u8 {
                    let k = topo.dims[dim];
                    if topo.wrap[dim] && s == dl(r, dim) {
                        return rule::UPPER;
                    }
                    let nbr = if plus { (dl(r, dim) + 1) % k } else { (dl(r, dim) + k - 1) % k };
                    let forced = policy != VcPolicy::Initial && topo.wrap[dim] && s == nbr;
                    if forced || xor == 0 {
                        rule::LOWER
                    } else {
                        rule::UPPER
                    }
                };
                return Entry { port: lo.port, vc: xt_rule(r, p, lo.port as u32, &cross, &choose) };
            }
            let vc = if (lo.vc_hi - lo.vc_lo) as u32 == per_class {
                rule::ANY
            } else if lo == hi {
                if lo.vc_lo == 0 {
                    rule::LOWER
                } else {
                    rule::UPPER
                }
            } else {
                rule::KEEP
            };
            Entry { port: lo.port, vc }
        };
        if opts.faults && policy == VcPolicy::Dor {
            return Err(Error::config(
                format!("{path}.vc_policy"),
                "routes around failed links are generated with the Cray XT rules and VC policies; use vc_policy = \"v3\" (or initial, v1, v2)",
            ));
        }
        // With failed links: the XT's next hop, and the VC rule for it. `choices[t]`: the
        // rules' hop from `r` toward router `t` ([`fault_choice`]).
        let fault_entry = |r: u32, p: u32, d: u32, choices: &[Option<u32>]| -> Entry {
            let t = topo.router_of(d);
            if r == t {
                return Entry { port: topo.local_port_of(d) as u8, vc: rule::ANY };
            }
            let Some(port) = no_u_turn(topo, p, choices[t as usize]) else {
                // No legal hop: point at the input port itself; the route check reports
                // the pair as unreachable.
                return Entry { port: p as u8, vc: rule::LOWER };
            };
            if topo.is_local_port(port) {
                return Entry { port: port as u8, vc: rule::ANY };
            }
            let dim = (port / 2) as usize;
            let plus = port.is_multiple_of(2);
            let s0 = topo.coords(r)[dim];
            if p < np && p / 2 == port / 2 {
                // Continuing in the dimension (never a U-turn: fault_hop forbids it).
                let vc = if topo.wrap[dim] && s0 == dl(r, dim) { rule::UPPER } else { rule::KEEP };
                return Entry { port: port as u8, vc };
            }
            let td = topo.coords(t)[dim];
            // A detour: a hop in a dimension other than the first one still to correct.
            let (cr, ct) = (topo.coords(r), topo.coords(t));
            let wanted = (0..topo.ndims()).find(|&e| cr[e] != ct[e]);
            let detour = wanted != Some(dim);
            // A ring whose dateline is at a failure: a packet whose segment would use a
            // failed link (it goes round by a detour) or arrive at the dateline node
            // counts as crossing, so it starts the ring on VC0.
            let at_failure = ring_failed[r as usize * nd + dim];
            let crossing = topo.wrap[dim]
                && (crosses(s0, td, plus, dl(r, dim), topo.dims[dim], at_output && !at_failure)
                    || at_failure && uses_failed_link(topo, r, dim, td, plus));
            // A detour hop, or a segment that crosses: VC0 is always safe. A segment
            // that starts at the dateline node leaves it on VC1, as every packet does;
            // in a ring whose dateline is at a failure a detour hop out of it too (on
            // VC0 it would chain the ring's VC0 channels past the dateline).
            let vc = if at_failure && s0 == dl(r, dim) {
                rule::UPPER
            } else if detour || crossing {
                rule::LOWER
            } else if topo.wrap[dim] && s0 == dl(r, dim) {
                rule::UPPER
            } else {
                let k = topo.dims[dim];
                let nbr = if plus { (dl(r, dim) + 1) % k } else { (dl(r, dim) + k - 1) % k };
                let forced = policy != VcPolicy::Initial && topo.wrap[dim] && s0 == nbr;
                if forced || ((xt_router(r) * c) ^ xt_nid_of(d)) & 1 == 0 {
                    rule::LOWER
                } else {
                    rule::UPPER
                }
            };
            Entry { port: port as u8, vc }
        };
        let entry = |r: u32, p: u32, d: u32, choices: &[Option<u32>]| -> Entry {
            if opts.faults {
                fault_entry(r, p, d, choices)
            } else {
                entry(r, p, d)
            }
        };
        let mut local = vec![Entry::default(); (r_n * p_n * local_len) as usize];
        let mut global = vec![Entry::default(); (r_n * p_n * 2 * regions) as usize];
        // Each router's tables on their own (its entries depend on nothing else), in
        // parallel: around failures an entry walks the XT's next-hop rules, and the
        // dateline search generates a table set per candidate.
        use rayon::prelude::*;
        let local_rows = local.par_chunks_mut((p_n * local_len) as usize);
        let global_rows = global.par_chunks_mut((p_n * 2 * regions) as usize);
        local_rows.zip(global_rows).enumerate().for_each(|(r, (local, global))| {
            let r = r as u32;
            // Around failures, the rules' hop toward each router, once for all input ports.
            let choices: Vec<Option<u32>> =
                if opts.faults { (0..r_n).map(|t| fault_choice(topo, r, t, &router_region, &ring_dl)).collect() } else { Vec::new() };
            let my = router_region[r as usize];
            let first = my * region_size;
            for p in 0..p_n {
                let at = (p * local_len) as usize;
                for i in 0..local_len {
                    let x = first + i;
                    if x < n {
                        local[at + i as usize] = entry(r, p, by_xt[x as usize], &choices);
                    }
                }
                let at = (p * 2 * regions) as usize;
                for g in 0..regions {
                    if g == my {
                        continue;
                    }
                    for bit in 0..2 {
                        // The nearest node of region g with this lowest id bit.
                        let lo = g * region_size;
                        let hi = (lo + region_size).min(n);
                        let rep = (lo..hi)
                            .filter(|&x| x & 1 == bit)
                            .map(|x| by_xt[x as usize])
                            .min_by_key(|&e| (topo.router_distance(r, topo.router_of(e)), e));
                        if let Some(d) = rep {
                            let mut e = entry(r, p, d, &choices);
                            let port = e.port as u32;
                            let entering = port < np && !(p < np && p / 2 == port / 2);
                            if policy != VcPolicy::Dor && entering {
                                // A packet enters a dimension by the global table: VC1
                                // at the dateline node itself (everything leaves it on
                                // VC1), else VC0, unless (v2, v3) no node of the region
                                // can be reached across the dateline, when the id bit
                                // picks the VC.
                                let dim = (port / 2) as usize;
                                let plus = port.is_multiple_of(2);
                                let s0 = topo.coords(r)[dim];
                                // (In a ring whose dateline is at a failure, using a
                                // failed link or ending at the dateline crosses too.)
                                let at_failure = ring_failed[r as usize * nd + dim];
                                let may_cross = topo.wrap[dim]
                                    && (lo..hi).any(|x| {
                                        let t = topo.coords(topo.router_of(by_xt[x as usize]))[dim];
                                        crosses(s0, t, plus, dl(r, dim), topo.dims[dim], at_output && !at_failure)
                                            || at_failure && uses_failed_link(topo, r, dim, t, plus)
                                    });
                                e.vc = match policy {
                                    _ if topo.wrap[dim] && s0 == dl(r, dim) => rule::UPPER,
                                    VcPolicy::V2 | VcPolicy::V3 if !may_cross => {
                                        if bit == 0 {
                                            rule::LOWER
                                        } else {
                                            rule::UPPER
                                        }
                                    }
                                    _ => rule::LOWER,
                                };
                            }
                            global[at + (2 * g + bit) as usize] = e;
                        }
                    }
                }
            }
        });
        Ok(TableRouting {
            ports: p_n,
            region_size,
            regions,
            xt_nid,
            router_region,
            local,
            local_len,
            global,
            per_class: per_class as u8,
            split: split as u8,
            class_base: std::array::from_fn(|v| (v as u32 / per_class.max(1) * per_class) as u8),
            policy,
            at_dateline: dateline::dateline_nodes(topo, policy, &ring_dl),
            dateline,
            ring_dateline: ring_dl,
            dateline_errors: DatelineErrors::Refuse,
        })
    }

    /// The entry router `r` looks up for a packet that arrived on `in_port` bound for
    /// endpoint `dest`, and which table it came from.
    #[inline]
    pub fn lookup(&self, r: u32, in_port: u32, dest: u32) -> (Entry, Lookup) {
        let x = self.xt_nid[dest as usize];
        let row = r * self.ports + in_port;
        if x / self.region_size == self.router_region[r as usize] {
            (self.local[(row * self.local_len + x % self.region_size) as usize], Lookup::Local)
        } else {
            (self.global[(row * 2 * self.regions + 2 * (x / self.region_size) + (x & 1)) as usize], Lookup::Global)
        }
    }

    /// Route (hot path): the table entry with its VC rule applied to the VC the packet
    /// arrived on.
    #[inline]
    pub fn route(&self, r: u32, in_port: u32, in_vc: u32, dest: u32) -> Candidate {
        let (e, _) = self.lookup(r, in_port, dest);
        let base = self.class_base[(in_vc & 15) as usize];
        let mid = base + self.split;
        let end = base + self.per_class;
        let (lo, hi) = match e.vc {
            rule::LOWER => (base, mid),
            rule::UPPER => (mid, end),
            rule::KEEP if in_vc as u8 >= mid => (mid, end),
            rule::KEEP => (base, mid),
            _ => (base, end),
        };
        Candidate { port: e.port, vc_lo: lo, vc_hi: hi }
    }

    /// Follow the tables from endpoint `src` to endpoint `dst`, injected on VC `vc`:
    /// every hop with the table used and the VC taken (the lowest the rule allows). An
    /// error if the tables loop or lead off the network.
    pub fn path(&self, topo: &Topology, src: u32, dst: u32, vc: u32) -> Result<Vec<Hop>> {
        let mut hops = Vec::new();
        self.path_into(topo, src, dst, vc, &mut hops)?;
        Ok(hops)
    }

    /// [`TableRouting::path`] into `hops` (cleared first): callers that walk many pairs
    /// reuse one vector instead of allocating a path per pair (on two threads the
    /// allocator's lock then cost more than the walks).
    pub fn path_into(&self, topo: &Topology, src: u32, dst: u32, vc: u32, hops: &mut Vec<Hop>) -> Result<()> {
        hops.clear();
        let (mut r, mut p, mut v) = (topo.router_of(src), topo.local_port_of(src), vc);
        // Loop detection (Brent's): the next hop depends only on the state (router, input
        // port, VC) and the destination, so the tables loop exactly when a state recurs.
        // `mark` is a state seen earlier, moved forward at powers of two; a loop is found
        // within twice its length past its entry, instead of after a bound on the length.
        let (mut mark, mut power, mut since) = ((r, p, v), 1usize, 0usize);
        loop {
            let (e, table) = self.lookup(r, p, dst);
            // The XT router drops a packet that arrives at a dateline node on VC1 and
            // would pass through: a table error ([`dateline`]).
            if self.drops(r, p, v, e.port as u32) {
                let dim = p / 2;
                return Err(Error::config(
                    DROP_FIELD,
                    format!(
                        "the tables drop a packet from {src} to {dst}: it arrives at dateline node {} of dimension {dim} on VC1",
                        topo.router_name(r)
                    ),
                ));
            }
            let c = self.route(r, p, v, dst);
            // Stay on the arrival VC when the rule allows it, as the routers do.
            let out_vc = if (c.vc_lo as u32..c.vc_hi as u32).contains(&v) { v } else { c.vc_lo as u32 };
            hops.push(Hop {
                router: r,
                in_port: p,
                table: Some(table),
                port: e.port as u32,
                vc_lo: c.vc_lo as u32,
                vc_hi: c.vc_hi as u32,
                vc: out_vc,
            });
            if topo.is_local_port(e.port as u32) {
                if topo.node_at(r, e.port as u32) != Some(dst) {
                    let to = topo.node_at(r, e.port as u32).map_or_else(|| format!("local port {}", e.port), |n| format!("node {n}"));
                    return Err(Error::config("routing", format!("the tables deliver a packet for node {dst} to {to} at router {r}")));
                }
                return Ok(());
            }
            let id = topo.out_channel[(r * topo.ports + e.port as u32) as usize];
            if id == crate::topology::NONE {
                return Err(Error::config(
                    "routing",
                    format!("the tables send a packet for node {dst} out of router {r} port {}, which has no link", e.port),
                ));
            }
            let ch = topo.channels[id as usize];
            (r, p, v) = (ch.dst_router, ch.dst_port, out_vc);
            if (r, p, v) == mark {
                return Err(Error::config("routing", format!("the tables loop: a packet from {src} to {dst} does not arrive")));
            }
            since += 1;
            if since == power {
                (mark, power, since) = ((r, p, v), power * 2, 0);
            }
        }
    }

    /// The VC policy.
    pub fn policy(&self) -> VcPolicy {
        self.policy
    }

    /// The dateline node of each dimension.
    pub fn datelines(&self) -> &[u32] {
        &self.dateline
    }

    /// VCs per traffic class.
    pub fn per_class(&self) -> u8 {
        self.per_class
    }

    /// The XT node id of endpoint `e` (x slowest).
    pub fn xt_nid(&self, e: u32) -> u32 {
        self.xt_nid[e as usize]
    }

    /// Nodes per region and the number of regions.
    pub fn regions(&self) -> (u32, u32) {
        (self.region_size, self.regions)
    }
}

#[cfg(test)]
mod tests;
