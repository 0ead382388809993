//! The VC_balance metric of the Cray XT VC-assignment paper (section 4), computed from
//! the routes themselves: every ordered pair of distinct nodes sends one packet (uniform
//! traffic), each packet's path is followed hop by hop, and each network link counts the
//! packets it carries on the lower (VC0) and upper (VC1) VC of their traffic class. Then
//! per link `VC_balance = |P_vc0 - P_vc1| / (P_vc0 + P_vc1)` — 0 when both VCs carry the
//! same load, 1 when one carries everything — and per dimension its mean and the
//! paper's histogram over the bins [0, 0.25], (0.25, 0.5], (0.5, 0.75], (0.75, 1].

use serde::Serialize;

use super::RoutingFunction;
use crate::error::Result;
use crate::topology::{dim_name, Topology};

/// One link's counts.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct LinkBalance {
    /// Router the link leaves.
    pub router: u32,
    /// Output port.
    pub port: u32,
    /// Packets on the lower VC of their class.
    pub vc0: u64,
    /// Packets on the upper VC.
    pub vc1: u64,
    /// `|vc0 - vc1| / (vc0 + vc1)`.
    pub balance: f64,
}

/// One dimension's summary.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct DimBalance {
    /// Dimension name.
    pub dim: String,
    /// Links that carry packets.
    pub links: u64,
    /// Mean VC_balance over them.
    pub mean: f64,
    /// Links per bin [0, 0.25], (0.25, 0.5], (0.5, 0.75], (0.75, 1].
    pub histogram: [u64; 4],
}

/// The analysis.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct VcBalance {
    /// Per dimension.
    pub dims: Vec<DimBalance>,
    /// Every link that carries packets.
    pub links: Vec<LinkBalance>,
    /// Per node along the ring of the last dimension through router 0, going `+`: the
    /// balance of its `+` link (Figure 3 of the paper).
    pub ring: Vec<f64>,
}

/// The bin of a balance value.
pub fn bin(b: f64) -> usize {
    if b <= 0.25 {
        0
    } else if b <= 0.5 {
        1
    } else if b <= 0.75 {
        2
    } else {
        3
    }
}

/// Why VC_balance is refused on other topologies.
pub const ONLY_CUBES: &str = "VC_balance compares the two dateline VC classes on the links of each dimension of a k-ary n-cube (torus or mesh); it is not defined for this topology: use a torus, mesh or cube, or leave stats.vc_balance off";

/// Route every ordered pair of distinct nodes with `routing` (sources injecting on VC
/// `vc`) and measure the VC balance of every link. With failures, `connected` names the
/// pairs the routes connect; the others (a failed node's, unroutable ones) carry no
/// traffic and are left out.
pub fn analyse(routing: &RoutingFunction, topo: &Topology, vc: u32, connected: Option<&super::cdg::PairMask>) -> Result<VcBalance> {
    if topo.shape != crate::topology::Shape::Cube {
        return Err(crate::error::Error::config("topology.type", ONLY_CUBES));
    }
    let (p_n, np) = (topo.ports as usize, topo.network_ports());
    let per_class = routing.injection_vcs().1 as u32;
    let split = (per_class / 2).max(1);
    let mut counts = vec![[0u64; 2]; topo.num_routers as usize * p_n];
    let mut hops = Vec::new();
    for s in 0..topo.num_nodes {
        for d in 0..topo.num_nodes {
            if s == d || connected.is_some_and(|m| !m.get(s, d)) {
                continue;
            }
            routing.path_into(topo, s, d, vc, &mut hops)?;
            for h in &hops {
                if h.port < np {
                    let upper = (h.vc % per_class.max(1) >= split) as usize;
                    counts[h.router as usize * p_n + h.port as usize][upper] += 1;
                }
            }
        }
    }
    Ok(summarise(topo, &counts))
}

/// Balance per link, per dimension and along the ring from per-(router, port) counts
/// of (lower-VC, upper-VC) packets, indexed `router * ports + port`.
pub fn summarise(topo: &Topology, counts: &[[u64; 2]]) -> VcBalance {
    let p_n = topo.ports as usize;
    let mut links = Vec::new();
    let nd = topo.ndims();
    let mut sums = vec![(0u64, 0.0f64, [0u64; 4]); nd];
    for (i, c) in counts.iter().enumerate() {
        let total = c[0] + c[1];
        if total == 0 {
            continue;
        }
        let balance = c[0].abs_diff(c[1]) as f64 / total as f64;
        let (router, port) = ((i / p_n) as u32, (i % p_n) as u32);
        links.push(LinkBalance { router, port, vc0: c[0], vc1: c[1], balance });
        let d = (port / 2) as usize;
        sums[d].0 += 1;
        sums[d].1 += balance;
        sums[d].2[bin(balance)] += 1;
    }
    let dims = sums
        .iter()
        .enumerate()
        .map(|(d, &(n, sum, histogram))| DimBalance {
            dim: dim_name(d),
            links: n,
            mean: if n == 0 { 0.0 } else { sum / n as f64 },
            histogram,
        })
        .collect();
    let ring = if nd == 0 {
        Vec::new()
    } else {
        let last = nd - 1;
        let port = 2 * last as u32;
        (0..topo.dims[last])
            .map(|z| {
                let mut c = vec![0u32; nd];
                c[last] = z;
                let c = counts[topo.router_at(&c) as usize * p_n + port as usize];
                let t = c[0] + c[1];
                if t == 0 {
                    0.0
                } else {
                    c[0].abs_diff(c[1]) as f64 / t as f64
                }
            })
            .collect()
    };
    VcBalance { dims, links, ring }
}

/// VC_balance per dimension, as the run's report gives it (`stats.vc_balance`).
#[derive(serde::Serialize, Clone, Debug, PartialEq)]
pub struct VcBalanceReport {
    /// From the routes: one packet per ordered pair of distinct nodes.
    pub analytic: Vec<DimBalance>,
    /// Along the ring of the last dimension through router 0 (analytic, + links).
    pub analytic_ring: Vec<f64>,
    /// From the flits each link carried per VC in the measurement window.
    pub simulated: Vec<DimBalance>,
    /// The same ring, simulated.
    pub simulated_ring: Vec<f64>,
}

/// The VC_balance report: analytic from the routes (of the pairs `connected` joins),
/// simulated from the per-channel VC flit counts of the window (`channel_src(c)`: the
/// router and port channel `c` leaves, `None` for an endpoint's); `None` where VC_balance
/// does not apply (not a cube).
pub(crate) fn report(
    routing: &RoutingFunction,
    topo: &Topology,
    connected: Option<&super::cdg::PairMask>,
    channel_src: &dyn Fn(usize) -> Option<(u32, u32)>,
    channel_flits: &[Vec<u64>],
) -> Option<VcBalanceReport> {
    let analytic = analyse(routing, topo, 0, connected).ok()?;
    let per_class = routing.injection_vcs().1 as usize;
    let split = (per_class / 2).max(1);
    let p_n = topo.ports as usize;
    let mut counts = vec![[0u64; 2]; topo.num_routers as usize * p_n];
    for (c, per_vc) in channel_flits.iter().enumerate() {
        if let Some((router, port)) = channel_src(c) {
            if port < topo.network_ports() {
                for (v, &f) in per_vc.iter().enumerate() {
                    counts[router as usize * p_n + port as usize][(v % per_class.max(1) >= split) as usize] += f;
                }
            }
        }
    }
    let simulated = summarise(topo, &counts);
    Some(VcBalanceReport {
        analytic: analytic.dims,
        analytic_ring: analytic.ring,
        simulated: simulated.dims,
        simulated_ring: simulated.ring,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::routing::table::Lookup;

    fn routing(toml: &str) -> (RoutingFunction, Topology) {
        let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
        (spec.routing, spec.topology)
    }

    const RING: &str = "[topology]\ntype = \"torus\"\ndims = [4]\n[router]\nvcs = 2\n\
                        [routing]\ntype = \"table\"\nvc_policy = \"initial\"\ndateline = [3]\n";

    #[test]
    fn initial_policy_on_a_4_ring_by_hand() {
        // Dateline node 3. + packets: (0,1) VC 0^1=1; (0,2) VC0; (1,2) VC1; (1,3) reaches
        // 3: VC0; (2,3) VC0; (2,0) VC0 then VC1 out of 3; (3,0) and (3,1) start at the
        // dateline node, out of which every packet is on VC1 (not 3^1 = VC0 for (3,1)).
        // - packets (distance 1): (0,3) reaches 3: VC0; (1,0), (2,1) VC1; (3,2) VC1 (out
        // of the dateline node).
        let (r, t) = routing(RING);
        let b = analyse(&r, &t, 0, None).unwrap();
        let link = |router: u32, port: u32| b.links.iter().find(|l| l.router == router && l.port == port).copied().unwrap();
        assert_eq!((link(0, 0).vc0, link(0, 0).vc1), (1, 2)); // 0->1: (0,2) | (0,1), (3,1)
        assert_eq!((link(1, 0).vc0, link(1, 0).vc1), (2, 1)); // 1->2
        assert_eq!((link(2, 0).vc0, link(2, 0).vc1), (3, 0)); // 2->3
        assert_eq!((link(3, 0).vc0, link(3, 0).vc1), (0, 3)); // 3->0
        assert_eq!((link(0, 1).vc0, link(0, 1).vc1), (1, 0)); // 0->3
        for router in 1..4 {
            assert_eq!((link(router, 1).vc0, link(router, 1).vc1), (0, 1));
        }
        // + links 1/3, 1/3, 1, 1; - links all 1: mean (2/3 + 6) / 8 = 5/6.
        assert!((b.dims[0].mean - 5.0 / 6.0).abs() < 1e-12);
        assert_eq!(b.dims[0].histogram, [0, 2, 0, 6]);
        let third = 1.0 / 3.0;
        assert_eq!(b.ring.len(), 4);
        for (got, want) in b.ring.iter().zip([third, third, 1.0, 1.0]) {
            assert!((got - want).abs() < 1e-12, "{:?}", b.ring);
        }
    }

    #[test]
    fn v3_crosses_only_through_the_dateline() {
        // 2 -> 3 ends at the dateline node: a crossing for `initial` (VC0), not for v3
        // (VC 2^3 = 1). 2 -> 0 passes through 3: VC0, then VC1 out of 3, in both.
        let (init, t) = routing(RING);
        let (v3, _) = routing(&RING.replace("\"initial\"", "\"v3\""));
        let vcs = |r: &RoutingFunction, s, d| r.path(&t, s, d, 0).unwrap().iter().map(|h| h.vc).collect::<Vec<_>>();
        assert_eq!(vcs(&init, 2, 3)[0], 0);
        assert_eq!(vcs(&v3, 2, 3)[0], 1);
        assert_eq!(&vcs(&init, 2, 0)[..2], &[0, 1]);
        assert_eq!(&vcs(&v3, 2, 0)[..2], &[0, 1]);
        // 3 -> 1 starts at the dateline node: VC1 all the way in both (XOR would say 0).
        assert_eq!(&vcs(&init, 3, 1)[..2], &[1, 1]);
        assert_eq!(&vcs(&v3, 3, 1)[..2], &[1, 1]);
    }

    /// A 6x4x4 torus-mesh-torus in three regions of two YZ planes, two traffic classes,
    /// datelines at x = 2 and z = 3, under XT policy `policy`.
    fn mixed_torus(policy: &str) -> (RoutingFunction, Topology) {
        routing(&format!(
            "[topology]\ntype = \"cube\"\ndims = [6, 4, 4]\nwrap = [true, false, true]\n[router]\nvcs = 4\n\
             [routing]\ntype = \"table\"\nclasses = 2\nregion_size = 32\nvc_policy = \"{policy}\"\ndateline = [2, 0, 3]\n"
        ))
    }

    #[test]
    fn packets_leave_the_dateline_node_on_vc1_by_either_table() {
        // 6x4x4, regions of two YZ planes (x = 0-1, 2-3, 4-5), x dateline at x = 2. A
        // packet injected at x = 2 for another region goes by the global table, one for
        // x = 3 by the local table: under every XT policy its first x hop leaves the
        // dateline node on VC1 (the lower class's upper VC). From x = 1 (not the dateline
        // node, not its + neighbour) to x = 3 it crosses: VC0, then VC1 out of x = 2.
        for policy in ["initial", "v1", "v2", "v3"] {
            let (r, t) = mixed_torus(policy);
            let node = |x: u32| (0..t.num_nodes).find(|&e| t.coords(t.router_of(e)) == [x, 1, 1]).unwrap();
            let RoutingFunction::Table(tab) = &r else { panic!("table routing") };
            for (to, table) in [(5, Lookup::Global), (0, Lookup::Global), (3, Lookup::Local)] {
                let hops = tab.path(&t, node(2), node(to), 0).unwrap();
                assert_eq!((hops[0].table, hops[0].vc), (Some(table), 1), "{policy}: 2 -> {to}: {hops:?}");
            }
            let hops = tab.path(&t, node(1), node(3), 0).unwrap();
            assert_eq!(hops.iter().map(|h| h.vc).take(2).collect::<Vec<_>>(), [0, 1], "{policy}: 1 -> 3: {hops:?}");
        }
    }

    #[test]
    fn every_xt_policy_is_drop_free_on_a_mixed_torus() {
        // path() refuses a packet that reaches a dateline node on VC1 and passes on.
        for policy in ["initial", "v1", "v2", "v3"] {
            let (r, t) = mixed_torus(policy);
            let b = analyse(&r, &t, 0, None).unwrap();
            assert_eq!(b.dims.len(), 3, "{policy}");
        }
    }
}
