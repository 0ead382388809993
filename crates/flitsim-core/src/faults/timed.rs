//! Links that fail for good during the run (`[[faults.at]]`), after SiCortex (Godiwala,
//! Leonard and Reilly), footnote 3 and section 6.3: "physical damage to a path between
//! nodes *will* cause failure delivery. This failure is signaled to the operating system"
//! and "we were able to reconfigure the Kautz graph around the failed link"; section 5:
//! "a link or node failure in a Kautz digraph increases the diameter by just 1".
//!
//! # What happens at the failure cycle `T`
//! - **The link** (a retry link, [`crate::link::retry`]) stops carrying in cycle `T`:
//!   what is on its wires is gone and the packets in its replay buffer that the receiver
//!   never accepted are counted lost (`counters.packets_lost`, `flits_lost`,
//!   `measured_lost`); none is dropped silently.
//! - **New routes.** From cycle `T` every source builds its packets' routing strings from
//!   the shortest surviving routes (the destination trees of
//!   [`SourceRouting::around_failures`] on the graph without the failed links). The tables
//!   are built before the run, one per failure cycle, so the switch at `T` is a pointer
//!   copy, the same in every run: deterministic and allocation-free.
//! - **Packets already routed** keep their routing string (the hardware cannot rewrite
//!   it). One whose string crosses the failed link reaches the switch before it and is
//!   discarded there once whole, counted lost like the stranded ones (the fault model's
//!   loss: software above would resend it).
//! - **A node failing at `T`** (`nodes`): every link into and out of it fails as above.
//!   From `T` its endpoint creates nothing and the other sources refuse packets to it
//!   (counted per source as refused, `to_failed`, as for nodes failed before the run).
//!   A packet already queued whose source or destination has died finds no route when
//!   its head reaches the source switch: discarded there, counted lost. Packets the dead
//!   switch held for its own processor and had not begun to deliver are discarded, counted
//!   lost (`retry.packets_at_failed_nodes`); the paper's node is one chip, switch and
//!   processors together, so they die together. The routes around it are the shortest
//!   of the graph without it (section 6.3 reconfigures around nodes removed for DIMM
//!   failures; section 5: "a link or node failure ... increases the diameter by just
//!   1").
//! - **Deadlock freedom.** Old and new routes share the network for a while. The node-order
//!   VCs (section 4.2) are deadlock-free for *any* set of routes whose decrements fit in
//!   the VCs: within one VC a packet never passes a node higher than both its route
//!   neighbours, so the highest node of a cycle of channels in one VC would be one, and
//!   VCs only go down. So the check is the one for routes around failures before the run:
//!   the VCs must hold the longest new route's decrements, or the config is refused.
//! - **Connectivity.** A Kautz graph of degree `d` keeps every pair connected through
//!   `d - 1` failed links; a schedule that disconnects a pair is refused, naming it.
//!
//! Our choices where the paper is silent: the tables switch at once everywhere (the
//! paper's software "reconfigures" without a stated delay; a delay would only lose more
//! packets to the dead link), and failure needs retry links (`[channel.retry]`): a plain
//! channel has no replay buffer to report what it held.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::routing::source::{RouteSwitch, SourceRouting, VcStart, UNREACHABLE};
use crate::topology::{Topology, NONE};

/// Config: `[[faults.at]]`, links and nodes that fail for good at a cycle of the run.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, Eq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FailAt {
    /// The cycle the links fail (>= 1; a link failed from the start belongs in
    /// `faults.links`). From this cycle they carry nothing and new packets are routed
    /// around them.
    pub cycle: u64,
    /// The links, each `[router, port]` as in `faults.links`: the one-way Kautz link
    /// leaving that router through that out-port (each link fails once).
    #[serde(default)]
    pub links: Vec<[u32; 2]>,
    /// The nodes (routers, with their endpoints) failing then: every link into and out of
    /// them fails, their endpoints stop sending, packets to them are refused at the
    /// sources from then on, and the packets their switch held are counted lost. Default
    /// none; an entry needs at least one link or node.
    #[schemars(!skip_serializing_if)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<u32>,
}

/// One failure cycle of the schedule, validated, with the routes from then on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimedFailure {
    /// The cycle.
    pub cycle: u64,
    /// The links failing then, `(router, port)`, as listed.
    pub links: Vec<(u32, u32)>,
    /// The nodes failing then.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<u32>,
    /// The channel ids of the links failing then: the listed ones and those of the
    /// failing nodes.
    #[serde(skip)]
    pub channels: Vec<u32>,
    /// Over the routes from this cycle on (all links failed so far avoided): the longest
    /// route (the diameter of the damaged graph), the mean route length over distinct
    /// pairs, the mean before the run's timed failures, and the largest growth of one
    /// pair's route.
    pub diameter: u32,
    pub mean_hops: f64,
    pub mean_hops_before: f64,
    pub max_extra_hops: u32,
    /// VCs the new routes need (their largest number of decrements + 1).
    pub vcs_needed: u32,
}

/// Validate `entries` (the config path `path` is `"faults"`) against `topo`, which has
/// the failures before the run applied (`dead`: the routers failed before the run), and
/// build the routes from each failure cycle on. Entries with the same cycle are merged.
pub fn schedule(
    entries: &[FailAt],
    topo: &Topology,
    vcs: u32,
    start: VcStart,
    dead: &[u32],
    path: &str,
) -> Result<(Vec<TimedFailure>, Vec<RouteSwitch>)> {
    let p_n = topo.ports;
    let mut seen: Vec<(u32, usize, usize)> = Vec::new(); // (channel, entry, link)
    let mut order: Vec<(u64, usize)> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        if e.cycle == 0 {
            return Err(Error::config(
                format!("{path}.at[{i}].cycle"),
                "0 is before the run: list links failed from the start in faults.links, or give a cycle >= 1",
            ));
        }
        if e.links.is_empty() && e.nodes.is_empty() {
            return Err(Error::config(
                format!("{path}.at[{i}].links"),
                "no links and no nodes: name at least one link as [router, port] or node in `nodes`, or remove the entry",
            ));
        }
        for (j, &r) in e.nodes.iter().enumerate() {
            let field = format!("{path}.at[{i}].nodes[{j}]");
            if r >= topo.num_routers {
                return Err(Error::config(field, format!("node {r} does not exist (nodes 0..{})", topo.num_routers - 1)));
            }
            if dead.contains(&r) {
                return Err(Error::config(
                    field,
                    format!("node {r} failed before the run (faults.nodes or a random fraction); fail each node once"),
                ));
            }
            if let Some((i0, j0)) = entries[..=i]
                .iter()
                .enumerate()
                .find_map(|(a, x)| x.nodes.iter().position(|&y| y == r).filter(|&b| (a, b) != (i, j)).map(|b| (a, b)))
            {
                return Err(Error::config(field, format!("node {r} already fails at {path}.at[{i0}].nodes[{j0}]; fail each node once")));
            }
        }
        for (j, &[r, p]) in e.links.iter().enumerate() {
            let field = format!("{path}.at[{i}].links[{j}]");
            if r >= topo.num_routers || p >= topo.network_ports() {
                return Err(Error::config(field, super::not_a_network_port(topo, r, p)));
            }
            let c = topo.out_channel[(r * p_n + p) as usize];
            if c == NONE {
                return Err(Error::config(field, format!("router {r} port {p} has no working link: it failed before the run (faults.links, nodes or a random fraction); fail each link once")));
            }
            if let Some(&(_, i0, j0)) = seen.iter().find(|s| s.0 == c) {
                return Err(Error::config(field, format!("[{r}, {p}] already fails at {path}.at[{i0}].links[{j0}]; fail each link once")));
            }
            seen.push((c, i, j));
        }
        order.push((e.cycle, i));
    }
    order.sort_unstable();
    let n = topo.num_routers;
    let mut live = vec![true; n as usize];
    for &r in dead {
        live[r as usize] = false;
    }
    let before = SourceRouting::around_failures(topo, vcs.max(64), start, path)?;
    let base = hops_table(&before, n);
    let pairs = (0..n).filter(|&s| live[s as usize]).count() as u64;
    let distinct = (pairs * pairs.saturating_sub(1)).max(1) as f64;
    let mean_before = base
        .iter()
        .enumerate()
        .filter(|&(k, &h)| h != u32::MAX && (k as u32) / n != (k as u32) % n)
        .map(|(_, &h)| u64::from(h))
        .sum::<u64>() as f64
        / distinct;
    let mut damaged = topo.clone();
    let (mut failures, mut switches): (Vec<TimedFailure>, Vec<RouteSwitch>) = (Vec::new(), Vec::new());
    let mut k = 0;
    while k < order.len() {
        let (cycle, first) = order[k];
        let (mut links, mut nodes, mut channels) = (Vec::new(), Vec::new(), Vec::new());
        while k < order.len() && order[k].0 == cycle {
            let (i, e) = (order[k].1, &entries[order[k].1]);
            for (j, &[r, p]) in e.links.iter().enumerate() {
                let c = topo.out_channel[(r * p_n + p) as usize];
                if damaged.out_channel[(r * p_n + p) as usize] == NONE {
                    return Err(Error::config(
                        format!("{path}.at[{i}].links[{j}]"),
                        format!("[{r}, {p}] has already failed with a node failing earlier in faults.at; fail each link once"),
                    ));
                }
                damaged.out_channel[(r * p_n + p) as usize] = NONE;
                links.push((r, p));
                channels.push(c);
            }
            for &r in &e.nodes {
                // Every link out of and into the node that still works.
                for p in 0..topo.network_ports() {
                    for c in [topo.out_channel[(r * p_n + p) as usize], topo.in_channel[(r * p_n + p) as usize]] {
                        if c == NONE {
                            continue;
                        }
                        let ch = topo.channels[c as usize];
                        let slot = (ch.src_router * p_n + ch.src_port) as usize;
                        if damaged.out_channel[slot] == c {
                            damaged.out_channel[slot] = NONE;
                            channels.push(c);
                        }
                    }
                }
                live[r as usize] = false;
                nodes.push(r);
            }
            k += 1;
        }
        let routes = SourceRouting::around_failures(&damaged, vcs, start, path).map_err(|e| match e {
            Error::Config { path: p, message } => {
                Error::config(p, format!("{message} (the routes once the links of {path}.at[{first}] fail at cycle {cycle})"))
            }
            other => other,
        })?;
        let hops = hops_table(&routes, n);
        let (mut diameter, mut sum, mut extra, mut routed) = (0u32, 0u64, 0u32, 0u64);
        for s in (0..n).filter(|&s| live[s as usize]) {
            for d in (0..n).filter(|&d| live[d as usize] && d != s) {
                let (h, h0) = (hops[(s * n + d) as usize], base[(s * n + d) as usize]);
                if h == u32::MAX && h0 != u32::MAX {
                    return Err(Error::config(
                        format!("{path}.at[{first}]"),
                        format!("once these links fail at cycle {cycle} no route leads from node {s} to node {d}; fail fewer links (a degree-d Kautz graph survives any d - 1)"),
                    ));
                }
                if h != u32::MAX {
                    diameter = diameter.max(h);
                    sum += u64::from(h);
                    routed += 1;
                    if h0 != u32::MAX {
                        extra = extra.max(h.saturating_sub(h0));
                    }
                }
            }
        }
        let switch = routes.into_switch(cycle);
        failures.push(TimedFailure {
            cycle,
            links,
            nodes,
            channels,
            diameter,
            mean_hops: sum as f64 / routed.max(1) as f64,
            mean_hops_before: mean_before,
            max_extra_hops: extra,
            vcs_needed: switch.vcs_needed(),
        });
        switches.push(switch);
    }
    Ok((failures, switches))
}

/// Route lengths of every (src, dst) pair by walking the table (`u32::MAX`: no route).
fn hops_table(r: &SourceRouting, n: u32) -> Vec<u32> {
    let k = r.kautz();
    let mut out = vec![u32::MAX; (n * n) as usize];
    for s in 0..n {
        out[(s * n + s) as usize] = 0;
        for d in 0..n {
            if s == d {
                continue;
            }
            let (mut at, mut h) = (s, 0u32);
            while let Some(p) = r.next_port(at, d) {
                debug_assert!(p != UNREACHABLE);
                at = k.out_neighbour(at, p);
                h += 1;
                if h > n {
                    break;
                }
            }
            if at == d {
                out[(s * n + d) as usize] = h;
            }
        }
    }
    out
}

/// What `[[faults.at]]` needs of the rest of the config, each refusal naming the field and
/// the fix: a Kautz topology, and (`crosspoint_with_retry`) the crosspoint router with
/// link-level retry.
pub fn check_setup(topo: &Topology, crosspoint_with_retry: bool) -> Result<()> {
    if topo.shape != crate::topology::Shape::Kautz {
        return Err(Error::config(
            "faults.at",
            "links failing during the run are modelled on the SiCortex Kautz fabric; use topology.type = \"kautz\", or fail the links before the run with faults.links",
        ));
    }
    if !crosspoint_with_retry {
        return Err(Error::config(
            "faults.at",
            "a link failing during the run reports what its replay buffer held, so it needs link-level retry: set router.type = \"crosspoint\" and add [channel.retry]",
        ));
    }
    Ok(())
}
