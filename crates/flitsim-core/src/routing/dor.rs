//! Dimension-order routing with dateline VC classes.
//!
//! Dimensions are corrected one at a time in a configurable order, minimally in each
//! (on a torus ring the shorter way round; a tie on an even ring goes `+`). On a torus
//! dimension the VCs are split into two classes: class 0 = `[0, V/2)`, class 1 =
//! `[V/2, V)`. A packet enters each dimension in class 0 and moves to class 1 on the hop
//! that crosses the dateline (the wrap-around channel between coordinates k-1 and 0),
//! staying there until it leaves the dimension. The class is read from the VC the packet
//! arrived on, exactly as a router does in hardware; nothing is stored in the packet.
//! Mesh dimensions and ejection may use every VC.

use super::Candidate;
use crate::topology::Topology;

/// Dimension-order routing state (immutable after build).
#[derive(Clone, Debug)]
pub struct Dor {
    /// Dimension order.
    pub order: Vec<u32>,
    /// Dateline classes enabled.
    pub datelines: bool,
    /// VCs per port.
    pub vcs: u32,
    /// First VC of the upper (post-dateline) class.
    pub split: u32,
}

impl Dor {
    /// Build for a topology.
    pub fn new(_topo: &Topology, order: Vec<u32>, datelines: bool, vcs: u32) -> Self {
        Dor { order, datelines, vcs, split: vcs / 2 }
    }

    /// See the module docs.
    #[inline]
    pub fn route(&self, topo: &Topology, router: u32, in_port: u32, in_vc: u32, dest: u32) -> Candidate {
        let dest_router = topo.router_of(dest);
        let all = Candidate { port: 0, vc_lo: 0, vc_hi: self.vcs as u8 };
        if dest_router == router {
            return Candidate { port: topo.local_port_of(dest) as u8, ..all };
        }
        let cur = topo.coords(router);
        let dst = topo.coords(dest_router);
        for &d in &self.order {
            let d = d as usize;
            let (c, t) = (cur[d], dst[d]);
            if c == t {
                continue;
            }
            let k = topo.dims[d];
            let plus = if topo.wrap[d] {
                let fwd = (t + k - c) % k;
                fwd <= k - fwd
            } else {
                t > c
            };
            let port = (2 * d + if plus { 0 } else { 1 }) as u8;
            if !(topo.wrap[d] && self.datelines) {
                return Candidate { port, ..all };
            }
            // Torus dimension with dateline classes.
            let crosses_now = if plus { c == k - 1 } else { c == 0 };
            // Continuing in this dimension (arrived from the same dimension, same
            // direction) keeps the class of the VC the packet arrived on.
            let same_dim = in_port < topo.network_ports() && in_port as usize / 2 == d;
            let was_upper = same_dim && in_vc >= self.split;
            let upper = crosses_now || was_upper;
            return if upper {
                Candidate { port, vc_lo: self.split as u8, vc_hi: self.vcs as u8 }
            } else {
                Candidate { port, vc_lo: 0, vc_hi: self.split as u8 }
            };
        }
        unreachable!("dest router differs but all coordinates match")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{Topology, TopologyConfig};

    fn topo(dims: &[u32], torus: bool) -> Topology {
        let cfg = if torus {
            TopologyConfig::Torus { dims: dims.to_vec(), concentration: 1 }
        } else {
            TopologyConfig::Mesh { dims: dims.to_vec(), concentration: 1 }
        };
        Topology::build(&cfg, "topology").unwrap()
    }

    /// Follow the route hop by hop; returns (hops, list of (router, port, vc_lo, vc_hi)).
    fn walk(t: &Topology, r: &Dor, src: u32, dst: u32) -> Vec<(u32, Candidate)> {
        let mut out = vec![];
        let mut router = t.router_of(src);
        let mut in_port = t.local_port_of(src);
        let mut in_vc = 0;
        loop {
            let c = r.route(t, router, in_port, in_vc, dst);
            out.push((router, c));
            if t.is_local_port(c.port as u32) {
                return out;
            }
            let ch = t.channels[t.out_channel[(router * t.ports + c.port as u32) as usize] as usize];
            router = ch.dst_router;
            in_port = ch.dst_port;
            in_vc = c.vc_lo as u32;
            assert!(out.len() < 100);
        }
    }

    #[test]
    fn routes_are_minimal_and_dimension_ordered() {
        let t = topo(&[5, 4, 3], true);
        let r = Dor::new(&t, vec![0, 1, 2], true, 4);
        for s in 0..t.num_nodes {
            for d in 0..t.num_nodes {
                let path = walk(&t, &r, s, d);
                assert_eq!(path.len() as u32 - 1, t.node_distance(s, d), "{s}->{d}");
                let dims: Vec<u8> = path[..path.len() - 1].iter().map(|(_, c)| c.port / 2).collect();
                assert!(dims.windows(2).all(|w| w[0] <= w[1]), "{s}->{d}: {dims:?}");
            }
        }
    }

    #[test]
    fn dateline_class_switches_on_the_wrap_hop_and_resets_per_dimension() {
        // 8-ary 1-cube: from 6 to 1 goes + : 6 -> 7 -> 0 -> 1; the 7->0 hop crosses.
        let t = topo(&[8, 8], true);
        let r = Dor::new(&t, vec![0, 1], true, 4);
        let src = t.router_at(&[6, 7]);
        let dst = t.router_at(&[1, 1]);
        let path = walk(&t, &r, src, dst);
        let classes: Vec<(u8, u8)> = path.iter().map(|(_, c)| (c.port, c.vc_lo)).collect();
        // x hops: 6->7 class 0, 7->0 class 1, 0->1 class 1; then y: 7->0 crosses (class 1), 0->1 class 1; eject all VCs.
        assert_eq!(classes, vec![(0, 0), (0, 2), (0, 2), (2, 2), (2, 2), (4, 0)]);
        // y direction without crossing: (1,1) -> (1,3) stays in class 0.
        let path = walk(&t, &r, t.router_at(&[1, 1]), t.router_at(&[1, 3]));
        assert!(path[..2].iter().all(|(_, c)| c.vc_lo == 0 && c.vc_hi == 2));
    }

    #[test]
    fn order_is_respected() {
        let t = topo(&[4, 4], false);
        let r = Dor::new(&t, vec![1, 0], true, 2);
        let path = walk(&t, &r, t.router_at(&[0, 0]), t.router_at(&[2, 3]));
        let ports: Vec<u8> = path.iter().map(|(_, c)| c.port).collect();
        assert_eq!(ports, vec![2, 2, 2, 0, 0, 4]);
    }
}
