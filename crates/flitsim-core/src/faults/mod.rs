//! Link and node failures, fixed before the run (Cray XT VC-assignment paper, section
//! 2.2), and links failing at a cycle of the run ([`timed`], SiCortex): a failed link carries nothing in either direction; a failed node (a router and
//! its endpoints) loses all its links, and its endpoints neither send nor receive. Each
//! set is given as a list, or as a seeded random fraction, and is applied to the
//! topology before routes are generated, so the routing sees exactly the links that
//! work (a missing link at a mesh edge and a failed one look the same, as on the XT).
//!
//! What happens to node pairs the routes cannot connect is the user's choice
//! ([`Unroutable`]): by default the fault set is refused with the pairs named; with
//! `skip`, traffic for those pairs is not injected and is counted
//! (`faults.packets_unroutable` in the result), so a study can measure a degraded machine.

pub mod timed;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rng::{below, domain, stream};
use crate::topology::{Topology, NONE};

/// Config table `[faults]`.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, Default, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FaultsConfig {
    /// Failed links, each `[router, port]`: the link leaving that router through that
    /// network port fails, in both directions (on a Kautz graph, whose links are one-way,
    /// that one channel).
    #[serde(default)]
    pub links: Vec<[u32; 2]>,
    /// A fraction in [0, 1) of the router-to-router links failed at random (rounded to
    /// whole links), besides `links`.
    #[serde(default)]
    pub random_link_fraction: f64,
    /// Failed nodes, by router id: every link of the router fails and its endpoints
    /// neither send nor receive (packets for them are not injected; they are counted in
    /// the result's `faults.packets_to_failed_nodes`).
    #[serde(default)]
    pub nodes: Vec<u32>,
    /// A fraction in [0, 1) of the routers failed at random (rounded to whole routers),
    /// besides `nodes`.
    #[serde(default)]
    pub random_node_fraction: f64,
    /// Seed of the random choices. Default: the run seed.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Node pairs the routes do not connect: `refuse` (default) stops with the pairs
    /// named before anything runs; `skip` runs anyway, does not inject packets for those
    /// pairs and counts them (the result's `faults.packets_unroutable`). Either way the routes of
    /// the connected pairs must be deadlock-free.
    #[serde(default)]
    pub unroutable: Unroutable,
    /// Routes whose channel dependency graph has a cycle: `refuse` (default) stops with
    /// the cycle named; `run` simulates them anyway, for studying how often a possible
    /// deadlock forms (the result carries the cycle; the watchdog stops the run with the
    /// waiting channels if one does).
    #[serde(default)]
    pub cyclic_routes: CyclicRoutes,
    /// Links and nodes that fail for good during the run: `[[faults.at]]` entries of a
    /// `cycle` (>= 1), `links` (`[router, port]` each, as in `links`) and `nodes`. From
    /// that cycle the links (and every link of the nodes) carry nothing, the packets their
    /// replay buffers and the nodes' switches held are counted lost, packets to the nodes
    /// are refused, and the sources route new packets around them (see [`timed`]). Needs
    /// a Kautz topology, the crosspoint switch and `[channel.retry]`; multi-rail rails
    /// avoid them too.
    #[schemars(!skip_serializing_if)]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub at: Vec<timed::FailAt>,
}

/// What to do with routes that can deadlock (`faults.cyclic_routes`).
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CyclicRoutes {
    /// Refuse them, naming the cycle.
    #[default]
    Refuse,
    /// Simulate them; a deadlock that forms is reported by the watchdog.
    Run,
}

/// Why `[r, p]` names no link: out of range, or a network without links (a crossbar).
pub(crate) fn not_a_network_port(topo: &Topology, r: u32, p: u32) -> String {
    if topo.network_ports() == 0 {
        return format!("[{r}, {p}] names no link: this network has no router-to-router links to fail");
    }
    format!("[{r}, {p}] is not a router network port (routers 0..{}, network ports 0..{})", topo.num_routers - 1, topo.network_ports() - 1)
}

/// What to do with node pairs the routes do not connect (`faults.unroutable`).
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unroutable {
    /// Refuse the fault set, naming the pairs.
    #[default]
    Refuse,
    /// Run; packets for unconnected pairs are not injected, and are counted.
    Skip,
}

/// A fault set applied to a topology.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Failed {
    /// Failed links as `(router, port)` of their lower channel, sorted (including the
    /// links of failed routers).
    pub links: Vec<(u32, u32)>,
    /// Failed routers, sorted.
    pub routers: Vec<u32>,
}

impl Failed {
    /// Nothing failed.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty() && self.routers.is_empty()
    }
}

impl FaultsConfig {
    /// No failures configured (and the defaults otherwise: the table is left out of the
    /// recorded config).
    pub fn is_empty(&self) -> bool {
        self == &FaultsConfig::default()
    }

    /// Validate against `topo` and fail the links and routers there (their channels
    /// disappear from `topo.out_channel`). `path` is the config table (`"faults"`).
    pub fn apply(&self, topo: &mut Topology, run_seed: u64, path: &str) -> Result<Failed> {
        let f = self.random_link_fraction;
        if !(0.0..1.0).contains(&f) {
            return Err(Error::config(
                format!("{path}.random_link_fraction"),
                format!("{f} is not a fraction in [0, 1); e.g. 0.01 fails 1% of the links"),
            ));
        }
        let fnode = self.random_node_fraction;
        if !(0.0..1.0).contains(&fnode) {
            return Err(Error::config(
                format!("{path}.random_node_fraction"),
                format!("{fnode} is not a fraction in [0, 1); e.g. 0.01 fails 1% of the routers"),
            ));
        }
        let p_n = topo.ports;
        // A Kautz link is one unidirectional channel; elsewhere a link is a pair.
        let one_way = topo.shape == crate::topology::Shape::Kautz;
        // Every link once: the channel with the lower id of each pair.
        let reverse = |c: u32| -> u32 {
            if one_way {
                return c;
            }
            let ch = topo.channels[c as usize];
            topo.out_channel[(ch.dst_router * p_n + ch.dst_port) as usize]
        };
        let mut failed: Vec<u32> = Vec::new();
        for (i, &[r, p]) in self.links.iter().enumerate() {
            if r >= topo.num_routers || p >= topo.network_ports() {
                return Err(Error::config(format!("{path}.links[{i}]"), not_a_network_port(topo, r, p)));
            }
            let c = topo.out_channel[(r * p_n + p) as usize];
            if c == NONE {
                return Err(Error::config(
                    format!("{path}.links[{i}]"),
                    format!("router {r} port {p} has no link to fail (an unconnected port, as at a mesh edge)"),
                ));
            }
            let link = c.min(reverse(c));
            if let Some(j) = failed.iter().position(|&x| x == link) {
                return Err(Error::config(
                    format!("{path}.links[{i}]"),
                    format!("[{r}, {p}] fails the same link as {path}.links[{j}]; list each link once"),
                ));
            }
            failed.push(link);
        }
        let seed = self.seed.unwrap_or(run_seed);
        if f > 0.0 {
            let links: Vec<u32> = (0..topo.channels.len() as u32).filter(|&c| one_way || c < reverse(c)).collect();
            failed.extend(pick(links, f, seed, 0));
        }
        // Failed routers: listed, then a seeded random choice among the others (its own
        // stream, so adding node failures does not change which links fail).
        let mut routers: Vec<u32> = Vec::new();
        for (i, &r) in self.nodes.iter().enumerate() {
            if r >= topo.num_routers {
                return Err(Error::config(
                    format!("{path}.nodes[{i}]"),
                    format!("router {r} does not exist (routers 0..{})", topo.num_routers - 1),
                ));
            }
            if let Some(j) = routers.iter().position(|&x| x == r) {
                return Err(Error::config(
                    format!("{path}.nodes[{i}]"),
                    format!("router {r} is listed already at {path}.nodes[{j}]; list each node once"),
                ));
            }
            routers.push(r);
        }
        if fnode > 0.0 {
            routers.extend(pick((0..topo.num_routers).collect(), fnode, seed, 1));
        }
        routers.sort_unstable();
        routers.dedup();
        if !routers.is_empty() && routers.len() as u32 >= topo.num_routers {
            return Err(Error::config(format!("{path}.nodes"), "every router has failed: nothing is left to simulate; fail fewer nodes"));
        }
        for &r in &routers {
            for p in 0..topo.network_ports() {
                let c = topo.out_channel[(r * p_n + p) as usize];
                if c != NONE {
                    failed.push(c.min(reverse(c)));
                }
                // One-way links into the router fail too.
                let c = topo.in_channel[(r * p_n + p) as usize];
                if one_way && c != NONE {
                    failed.push(c);
                }
            }
        }
        failed.sort_unstable();
        failed.dedup();
        let pairs: Vec<(u32, u32)> = failed.iter().map(|&c| (c, reverse(c))).collect();
        let mut out = Vec::with_capacity(pairs.len());
        for (c, rc) in pairs {
            let ch = topo.channels[c as usize];
            out.push((ch.src_router, ch.src_port));
            for x in [c, rc] {
                let d = topo.channels[x as usize];
                topo.out_channel[(d.src_router * p_n + d.src_port) as usize] = NONE;
            }
        }
        Ok(Failed { links: out, routers })
    }
}

/// A seeded random `fraction` of `items` (rounded to whole items), by a partial
/// Fisher-Yates shuffle on the fault stream `which`.
fn pick(mut items: Vec<u32>, fraction: f64, seed: u64, which: u64) -> Vec<u32> {
    let k = ((fraction * items.len() as f64).round() as usize).min(items.len());
    let mut rng = stream(seed, domain::FAULTS, which);
    for i in 0..k {
        let j = i + below(&mut rng, (items.len() - i) as u32) as usize;
        items.swap(i, j);
    }
    items.truncate(k);
    items
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::TopologyConfig;

    fn torus(dims: &str) -> Topology {
        let cfg: TopologyConfig = toml::from_str(&format!("type = \"torus\"\ndims = {dims}")).unwrap();
        Topology::build(&cfg, "topology").unwrap()
    }

    #[test]
    fn listed_links_fail_both_ways() {
        let mut t = torus("[4, 4]");
        let (a, b) = (t.router_at(&[1, 1]), t.router_at(&[2, 1]));
        let f = FaultsConfig { links: vec![[a, 0]], ..FaultsConfig::default() };
        let failed = f.apply(&mut t, 1, "faults").unwrap();
        assert_eq!(failed.links.len(), 1);
        assert_eq!(t.out_channel[(a * t.ports) as usize], NONE); // +x of (1,1)
        assert_eq!(t.out_channel[(b * t.ports + 1) as usize], NONE); // -x of (2,1)
        let working = t.out_channel.iter().filter(|&&c| c != NONE).count();
        assert_eq!(working, 4 * 4 * 4 - 2);
    }

    #[test]
    fn random_fraction_is_seeded_and_exact() {
        // 8x8 torus: 128 links; 5% = 6.4 -> 6 links, 12 channels.
        let fail = |seed| {
            let mut t = torus("[8, 8]");
            let f = FaultsConfig { random_link_fraction: 0.05, seed: Some(seed), ..FaultsConfig::default() };
            f.apply(&mut t, 0, "faults").unwrap().links
        };
        assert_eq!(fail(3).len(), 6);
        assert_eq!(fail(3), fail(3));
        assert_ne!(fail(3), fail(4));
    }

    #[test]
    fn failed_nodes_lose_every_link() {
        // 4x4 torus: router 5 = (1,1) has 4 links; failing it and router 6 = (2,1) next
        // to it fails 4 + 4 - 1 = 7 links (the one between them once).
        let mut t = torus("[4, 4]");
        let f = FaultsConfig { nodes: vec![6, 5], ..FaultsConfig::default() };
        let failed = f.apply(&mut t, 1, "faults").unwrap();
        assert_eq!(failed.routers, vec![5, 6]);
        assert_eq!(failed.links.len(), 7);
        for r in [5u32, 6] {
            assert!((0..4).all(|p| t.out_channel[(r * t.ports + p) as usize] == NONE));
        }
        let working = t.out_channel.iter().filter(|&&c| c != NONE).count();
        assert_eq!(working, 2 * (32 - 7));
        // A random 25% of 16 routers is 4, seeded.
        let mut t = torus("[4, 4]");
        let f = FaultsConfig { random_node_fraction: 0.25, seed: Some(9), ..FaultsConfig::default() };
        assert_eq!(f.apply(&mut t, 0, "faults").unwrap().routers.len(), 4);
    }

    #[test]
    fn bad_fault_sets_name_the_field() {
        let mut t = torus("[4, 4]");
        let e = FaultsConfig { links: vec![[16, 0]], ..FaultsConfig::default() }.apply(&mut t, 1, "faults").unwrap_err().to_string();
        assert!(e.contains("faults.links[0]"), "{e}");
        let e = FaultsConfig { random_link_fraction: 1.0, ..FaultsConfig::default() }.apply(&mut t, 1, "faults").unwrap_err().to_string();
        assert!(e.contains("faults.random_link_fraction"), "{e}");
        let e = FaultsConfig { nodes: vec![3, 99], ..FaultsConfig::default() }.apply(&mut t, 1, "faults").unwrap_err().to_string();
        assert!(e.contains("faults.nodes[1]") && e.contains("routers 0..15"), "{e}");
        let e = FaultsConfig { random_node_fraction: -0.1, ..FaultsConfig::default() }.apply(&mut t, 1, "faults").unwrap_err().to_string();
        assert!(e.contains("faults.random_node_fraction"), "{e}");
    }
}
