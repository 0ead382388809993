//! Minimal fully adaptive routing on k-ary n-cubes with deadlock avoidance (Duato) or
//! deadlock recovery (Disha), as evaluated in the self-tuned congestion-control paper
//! (Thottethodi, Lebeck & Mukherjee, IEEE TPDS 2004, section 5.1).
//!
//! The routing function offers every *productive* output port (one that brings the packet
//! closer in some dimension; on an even torus ring with the destination exactly half way
//! round, both directions are productive). The router picks among them with a selection
//! policy using downstream credit state ([`crate::router::central`]).
//!
//! - **Avoidance** (Duato 1993): the VCs `[0, E)` are *escape* VCs routed by oblivious
//!   dimension-order routing, the rest fully adaptive. A header takes an adaptive VC on a
//!   productive port when one is free, else the escape VC of its dimension-order port; once
//!   on an escape VC a packet stays in the escape network, so the escape network alone
//!   must be (and, by the channel dependency check, is) deadlock-free. The paper uses *one*
//!   escape VC. On a torus one VC of minimal dimension-order routing is cyclic, so
//!   `escape = "mesh_dor"` (default, one VC) routes the escape network as on a mesh (no
//!   wrap-around channels: acyclic with one VC, non-minimal for packets that would wrap),
//!   and `escape = "dateline_dor"` uses two escape VCs with a dateline (minimal).
//! - **Recovery** (Disha, Anjan & Pinkston 1995): every VC is fully adaptive; a header
//!   blocked for `timeout` cycles is presumed deadlocked and, holding the single recovery
//!   token, leaves over the per-router deadlock buffers along the minimal dimension-order
//!   path. [`Adaptive::route`] returns that path.
//!
//! [`Adaptive::route`] (what `flitsim routes`, the CDG check and [`super::RoutingFunction`]
//! see) is the deterministic part: the escape routes, or the recovery path.

use serde::{Deserialize, Serialize};

use super::dor::Dor;
use super::Candidate;
use crate::topology::Topology;

/// `routing.deadlock`: how the adaptive network handles deadlock.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeadlockHandling {
    /// Duato's escape VCs (deadlock avoidance).
    #[default]
    Avoidance,
    /// Disha progressive recovery through per-router deadlock buffers and a token.
    Recovery,
}

/// `routing.escape`: the escape network of deadlock avoidance.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Escape {
    /// One escape VC, dimension-order routing without wrap-around channels.
    #[default]
    MeshDor,
    /// Two escape VCs, minimal dimension-order routing with a dateline per torus ring.
    DatelineDor,
}

impl Escape {
    /// Escape VCs it needs.
    pub fn vcs(self) -> u32 {
        match self {
            Escape::MeshDor => 1,
            Escape::DatelineDor => 2,
        }
    }
}

/// A built adaptive routing function.
#[derive(Clone, Debug)]
pub struct Adaptive {
    /// Avoidance or recovery.
    pub handling: DeadlockHandling,
    /// Escape network (avoidance).
    pub escape: Escape,
    /// Escape VCs `E` (0 with recovery).
    pub escape_vcs: u32,
    /// Normal VCs per port `V` (escape + adaptive; the deadlock-buffer lane is `V`).
    pub vcs: u32,
    /// Disha: cycles a header waits before it is presumed deadlocked.
    pub timeout: u32,
    /// Escape routes (avoidance) or the recovery path (recovery).
    det: Dor,
    /// Per router and dimension its coordinate, `[r * n + d]`.
    coords: Vec<u32>,
    dims: Vec<u32>,
    wrap: Vec<bool>,
    concentration: u32,
    network_ports: u32,
}

impl Adaptive {
    /// Build for `topo` with `vcs` normal VCs per port.
    pub fn new(topo: &Topology, handling: DeadlockHandling, escape: Escape, timeout: u32, order: Vec<u32>, vcs: u32) -> Self {
        let n = topo.ndims();
        let (escape_vcs, det) = match (handling, escape) {
            (DeadlockHandling::Recovery, _) => (0, Dor::new(topo, order, false, 1, 1)),
            (DeadlockHandling::Avoidance, Escape::DatelineDor) => (2, Dor::new(topo, order, true, 2, 1)),
            (DeadlockHandling::Avoidance, Escape::MeshDor) => {
                let mut mesh = topo.clone();
                mesh.wrap = vec![false; n];
                (1, Dor::new(&mesh, order, false, 1, 1))
            }
        };
        let coords = (0..topo.num_routers).flat_map(|r| topo.coords(r).to_vec()).collect();
        Adaptive {
            handling,
            escape,
            escape_vcs,
            vcs,
            timeout,
            det,
            coords,
            dims: topo.dims.clone(),
            wrap: topo.wrap.clone(),
            concentration: topo.concentration,
            network_ports: topo.network_ports(),
        }
    }

    /// Router of endpoint `dest`.
    #[inline]
    pub fn dest_router(&self, dest: u32) -> u32 {
        dest / self.concentration
    }

    /// Local port of endpoint `dest` on its router.
    #[inline]
    pub fn dest_port(&self, dest: u32) -> u32 {
        self.network_ports + dest % self.concentration
    }

    /// The productive output ports at router `r` towards router `t`, as a bit mask
    /// (bit `2d` = `+d`, bit `2d + 1` = `-d`); 0 when `r == t`.
    #[inline]
    pub fn productive(&self, r: u32, t: u32) -> u32 {
        let n = self.dims.len();
        let (cr, ct) = (&self.coords[r as usize * n..][..n], &self.coords[t as usize * n..][..n]);
        let mut mask = 0;
        for d in 0..n {
            let (c, g) = (cr[d], ct[d]);
            if c == g {
                continue;
            }
            if self.wrap[d] {
                let k = self.dims[d];
                let fwd = if g > c { g - c } else { g + k - c };
                let back = k - fwd;
                if fwd <= back {
                    mask |= 1 << (2 * d);
                }
                if back <= fwd {
                    mask |= 1 << (2 * d + 1);
                }
            } else if g > c {
                mask |= 1 << (2 * d);
            } else {
                mask |= 1 << (2 * d + 1);
            }
        }
        mask
    }

    /// The deterministic route at router `r` for a packet that arrived on `in_port` and
    /// escape VC `in_vc` (pass 0 for a packet entering the escape network from an
    /// adaptive VC or the injection port): the escape VC range (avoidance) or the
    /// recovery path's port with VC range `[0, 1)` (recovery). Hot path.
    #[inline]
    pub fn escape_route(&self, topo: &Topology, r: u32, in_port: u32, in_vc: u32, dest: u32) -> Candidate {
        self.det.route(topo, r, in_port, in_vc, dest, 0)
    }

    /// The deterministic part as a routing function (see the module docs).
    pub fn route(&self, topo: &Topology, r: u32, in_port: u32, in_vc: u32, dest: u32) -> Candidate {
        let v = if in_vc < self.escape_vcs { in_vc } else { 0 };
        self.escape_route(topo, r, in_port, v, dest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::TopologyConfig;

    fn torus(dims: &[u32]) -> Topology {
        Topology::build(&TopologyConfig::Torus { dims: dims.to_vec(), concentration: 1 }, "topology").unwrap()
    }

    #[test]
    fn productive_ports_are_the_minimal_directions() {
        let t = torus(&[16, 16]);
        let a = Adaptive::new(&t, DeadlockHandling::Recovery, Escape::MeshDor, 8, vec![0, 1], 3);
        let at = |x, y| t.router_at(&[x, y]);
        // (2,3) -> (5,1): +x and -y.
        assert_eq!(a.productive(at(2, 3), at(5, 1)), 0b1001);
        // (1,0) -> (14,0): -x through the wrap (3 hops) rather than +x (13).
        assert_eq!(a.productive(at(1, 0), at(14, 0)), 0b10);
        // Exactly half way round: both directions.
        assert_eq!(a.productive(at(0, 0), at(8, 0)), 0b11);
        assert_eq!(a.productive(at(4, 4), at(4, 4)), 0);
        // Every productive hop reduces the distance by one, on every pair.
        for s in 0..t.num_routers {
            for d in 0..t.num_routers {
                let m = a.productive(s, d);
                assert_eq!(m == 0, s == d);
                for p in 0..4 {
                    if m >> p & 1 == 1 {
                        let ch = t.channels[t.out_channel[(s * t.ports + p) as usize] as usize];
                        assert_eq!(t.router_distance(ch.dst_router, d) + 1, t.router_distance(s, d), "{s}->{d} port {p}");
                    }
                }
            }
        }
    }

    #[test]
    fn mesh_escape_never_uses_a_wrap_channel_and_reaches_every_destination() {
        let t = torus(&[6, 5]);
        let a = Adaptive::new(&t, DeadlockHandling::Avoidance, Escape::MeshDor, 8, vec![0, 1], 3);
        for s in 0..t.num_nodes {
            for d in 0..t.num_nodes {
                let (mut r, mut p) = (t.router_of(s), t.local_port_of(s));
                let mut hops = 0;
                loop {
                    let c = a.route(&t, r, p, 2, d);
                    assert_eq!((c.vc_lo, c.vc_hi), (0, 1));
                    if t.is_local_port(c.port as u32) {
                        assert_eq!(r, t.router_of(d));
                        break;
                    }
                    let ch = t.channels[t.out_channel[(r * t.ports + c.port as u32) as usize] as usize];
                    assert!(!ch.wrap, "{s}->{d} wraps at router {r}");
                    (r, p) = (ch.dst_router, ch.dst_port);
                    hops += 1;
                    assert!(hops <= 9);
                }
                // Mesh distance: the sum of coordinate differences.
                let (cs, cd) = (t.coords(t.router_of(s)), t.coords(t.router_of(d)));
                assert_eq!(hops, cs[0].abs_diff(cd[0]) + cs[1].abs_diff(cd[1]));
            }
        }
    }
}
