//! Link failures, fixed before the run (Cray XT VC-assignment paper, section 2.2): a
//! failed link carries nothing in either direction. The set is given as a list, or as a
//! seeded random fraction of the router-to-router links, and is applied to the topology
//! before routes are generated, so the routing sees exactly the links that work (a
//! missing link at a mesh edge and a failed one look the same, as on the XT).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::sim::rng::{below, domain, stream};
use crate::topology::{Topology, NONE};

/// Config table `[faults]`.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct FaultsConfig {
    /// Failed links, each `[router, port]`: the link leaving that router through that
    /// network port fails, in both directions. Default none.
    #[serde(default)]
    pub links: Vec<[u32; 2]>,
    /// A fraction in [0, 1) of the router-to-router links failed at random (rounded to
    /// whole links), besides `links`. Default 0.
    #[serde(default)]
    pub random_link_fraction: f64,
    /// Seed of the random choice. Default: the run seed.
    #[serde(default)]
    pub seed: Option<u64>,
}

impl FaultsConfig {
    /// No failures configured.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty() && self.random_link_fraction == 0.0
    }

    /// Validate against `topo` and fail the links there (their channels disappear from
    /// `topo.out_channel`). Returns the failed links as `(router, port)` of their lower
    /// channel, sorted. `path` is the config table (`"faults"`).
    pub fn apply(&self, topo: &mut Topology, run_seed: u64, path: &str) -> Result<Vec<(u32, u32)>> {
        let f = self.random_link_fraction;
        if !(0.0..1.0).contains(&f) {
            return Err(Error::config(format!("{path}.random_link_fraction"), format!("{f} is not a fraction in [0, 1); e.g. 0.01 fails 1% of the links")));
        }
        let p_n = topo.ports;
        // Every link once: the channel with the lower id of each pair.
        let reverse = |c: u32| -> u32 {
            let ch = topo.channels[c as usize];
            topo.out_channel[(ch.dst_router * p_n + ch.dst_port) as usize]
        };
        let mut failed: Vec<u32> = Vec::new();
        for (i, &[r, p]) in self.links.iter().enumerate() {
            if r >= topo.num_routers || p >= topo.network_ports() {
                return Err(Error::config(
                    format!("{path}.links[{i}]"),
                    format!("[{r}, {p}] is not a router network port (routers 0..{}, network ports 0..{})", topo.num_routers - 1, topo.network_ports().max(1) - 1),
                ));
            }
            let c = topo.out_channel[(r * p_n + p) as usize];
            if c == NONE {
                return Err(Error::config(format!("{path}.links[{i}]"), format!("router {r} port {p} has no link (a mesh edge) to fail")));
            }
            failed.push(c.min(reverse(c)));
        }
        if f > 0.0 {
            let mut links: Vec<u32> = (0..topo.channels.len() as u32).filter(|&c| c < reverse(c)).collect();
            let k = (f * links.len() as f64).round() as usize;
            let mut rng = stream(self.seed.unwrap_or(run_seed), domain::FAULTS, 0);
            // A partial Fisher-Yates shuffle picks k distinct links.
            for i in 0..k.min(links.len()) {
                let j = i + below(&mut rng, (links.len() - i) as u32) as usize;
                links.swap(i, j);
                failed.push(links[i]);
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
        Ok(out)
    }
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
        assert_eq!(failed.len(), 1);
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
            f.apply(&mut t, 0, "faults").unwrap()
        };
        assert_eq!(fail(3).len(), 6);
        assert_eq!(fail(3), fail(3));
        assert_ne!(fail(3), fail(4));
    }

    #[test]
    fn bad_fault_sets_name_the_field() {
        let mut t = torus("[4, 4]");
        let e = FaultsConfig { links: vec![[16, 0]], ..FaultsConfig::default() }.apply(&mut t, 1, "faults").unwrap_err().to_string();
        assert!(e.contains("faults.links[0]"), "{e}");
        let e = FaultsConfig { random_link_fraction: 1.0, ..FaultsConfig::default() }.apply(&mut t, 1, "faults").unwrap_err().to_string();
        assert!(e.contains("faults.random_link_fraction"), "{e}");
    }
}
