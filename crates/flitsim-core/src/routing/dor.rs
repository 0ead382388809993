//! Dimension-order routing with dateline VC classes (Dally & Seitz 1987; Dally & Towles
//! 2004, sections 14.2 and 14.3).
//!
//! Dimensions are corrected one at a time in a configurable order, minimally in each
//! (on a torus ring the shorter way round; a tie on an even ring goes `+`). On a torus
//! dimension the VCs are split into two classes: class 0 = `[0, V/2)`, class 1 =
//! `[V/2, V)`. A packet enters each dimension in class 0 and moves to class 1 on the hop
//! that crosses the dateline (the wrap-around channel between coordinates k-1 and 0),
//! staying there until it leaves the dimension. The class is read from the VC the packet
//! arrived on, exactly as a router does in hardware; nothing is stored in the packet.
//! Mesh dimensions and ejection may use every VC.
//!
//! With several traffic classes (`classes`, e.g. the Cray XT's request VC0/VC1 and
//! response VC2/VC3) the VCs form equal groups, a packet stays in the group of the VC it
//! arrived on, and the dateline split above is made inside the group (VC0 -> VC1 and
//! VC2 -> VC3 on the XT).

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
    /// VCs per traffic class.
    pub per_class: u32,
    /// Offset of the upper (post-dateline) half within a class.
    pub split: u32,
    /// Input VC -> first VC of its traffic class.
    class_base: [u8; 16],
    /// Endpoints per router.
    concentration: u32,
    /// `log2(concentration)` when it is a power of two (endpoint -> router is a shift).
    conc_shift: Option<u32>,
    /// Network ports per router (the first local port).
    network_ports: u32,
    /// Per router: its coordinates packed as bit fields, the first dimension of `order`
    /// in the lowest bits (see [`Field`]). Comparing two routers' words finds the first
    /// dimension to correct with one XOR: the lowest differing bit lies in its field.
    packed: Vec<u64>,
    /// Bit position -> index into `fields` of the field holding it.
    field_of_bit: [u8; 64],
    /// The coordinate fields, in routing order.
    fields: Vec<Field>,
    /// Small networks (at most [`HOP_TABLE_ENTRIES`] router-endpoint pairs): the output
    /// port from every router towards every endpoint, `[router * endpoints + dest]` (see
    /// [`Dor::hop_entry`]; the ejection port at the endpoint's own router), so that a
    /// head looks its port up instead of working it out from the coordinates (the table
    /// stays in the cache). Empty otherwise.
    hops: Vec<u8>,
    /// Row length of [`Dor::hops`]: the number of endpoints.
    hop_row: usize,
}

/// Networks with at most this many routers x endpoints route from a table of hops (one
/// byte each, built with the routing function).
pub const HOP_TABLE_ENTRIES: u32 = 1 << 14;

/// [`Dor::hops`] entry: the output port in the low six bits; [`CROSSES`] when the hop
/// crosses the dateline of a dimension with dateline classes; [`DATELINE`] when that
/// dimension has them (never set for an ejection port).
const CROSSES: u8 = 1 << 6;
const DATELINE: u8 = 1 << 7;

/// One dimension's coordinate field in [`Dor::packed`].
#[derive(Clone, Copy, Debug)]
struct Field {
    /// Lowest bit of the field.
    shift: u32,
    /// Field mask (after shifting down).
    mask: u64,
    /// The dimension.
    dim: u32,
    /// Its radix.
    k: u32,
    /// Torus ring (minimal direction the shorter way round).
    wrap: bool,
    /// Torus ring with dateline VC classes.
    dateline: bool,
}

impl Dor {
    /// Build for a topology.
    pub fn new(topo: &Topology, order: Vec<u32>, datelines: bool, vcs: u32, classes: u32) -> Self {
        let per_class = vcs / classes.max(1);
        let c = topo.concentration.max(1);
        let mut fields = Vec::with_capacity(order.len());
        let mut field_of_bit = [0u8; 64];
        let mut shift = 0;
        for (i, &d) in order.iter().enumerate() {
            let (k, wrap) = (topo.dims[d as usize], topo.wrap[d as usize]);
            let width = (32 - (k - 1).leading_zeros()).max(1);
            for b in shift..shift + width {
                field_of_bit[b as usize] = i as u8;
            }
            fields.push(Field { shift, mask: (1u64 << width) - 1, dim: d, k, wrap, dateline: wrap && datelines });
            shift += width;
        }
        // At most 2^24 routers in at most 16 dimensions: at most 24 + 16 bits.
        assert!(shift <= 64, "coordinates fit one word");
        if fields.is_empty() {
            // No dimensions (a crossbar): every destination is local; `route` still reads
            // a field.
            fields.push(Field { shift: 0, mask: 0, dim: 0, k: 1, wrap: false, dateline: false });
        }
        let packed = (0..topo.num_routers)
            .map(|r| {
                let cr = topo.coords(r);
                fields.iter().fold(0u64, |w, f| w | (cr.get(f.dim as usize).copied().unwrap_or(0) as u64) << f.shift)
            })
            .collect();
        let mut dor = Dor {
            order,
            datelines,
            vcs,
            per_class,
            split: per_class / 2,
            class_base: std::array::from_fn(|v| (v as u32 / per_class.max(1) * per_class) as u8),
            concentration: c,
            conc_shift: c.is_power_of_two().then(|| c.trailing_zeros()),
            network_ports: topo.network_ports(),
            packed,
            field_of_bit,
            fields,
            hops: Vec::new(),
            hop_row: topo.num_nodes as usize,
        };
        let (n, nodes) = (topo.num_routers as u64, topo.num_nodes as u64);
        if n * nodes <= HOP_TABLE_ENTRIES as u64 && topo.ports <= 64 {
            let nodes = nodes as u32;
            dor.hops = (0..n as u32 * nodes).map(|i| dor.hop_entry(i / nodes, i % nodes)).collect();
        }
        dor
    }

    /// The [`Dor::hops`] entry for a head at `router` bound for endpoint `dest`.
    fn hop_entry(&self, router: u32, dest: u32) -> u8 {
        let (dest_router, local) = (dest / self.concentration, dest % self.concentration);
        if dest_router == router {
            return (self.network_ports + local) as u8;
        }
        let (cur, dst) = (self.packed[router as usize], self.packed[dest_router as usize]);
        let f = self.fields[self.field_of_bit[((cur ^ dst).trailing_zeros() & 63) as usize] as usize];
        let (c, t) = ((cur >> f.shift & f.mask) as u32, (dst >> f.shift & f.mask) as u32);
        let plus = if f.wrap {
            let fwd = if t > c { t - c } else { t + f.k - c };
            fwd <= f.k - fwd
        } else {
            t > c
        };
        let crosses = if plus { c == f.k - 1 } else { c == 0 };
        (2 * f.dim + !plus as u32) as u8 | if f.dateline { DATELINE | if crosses { CROSSES } else { 0 } } else { 0 }
    }

    /// See the module docs.
    #[inline(always)]
    pub fn route(&self, topo: &Topology, router: u32, in_port: u32, in_vc: u32, dest: u32) -> Candidate {
        if !self.hops.is_empty() {
            return self.route_tabled(router, in_port, in_vc, dest);
        }
        self.route_computed(topo, router, in_port, in_vc, dest)
    }

    /// [`Dor::route`] reading the hop from [`Dor::hops`] (the same candidates as
    /// [`Dor::route_computed`]; a test compares them over every pair).
    #[inline(always)]
    fn route_tabled(&self, router: u32, in_port: u32, in_vc: u32, dest: u32) -> Candidate {
        let base = self.class_base[(in_vc & 15) as usize];
        let e = self.hops[router as usize * self.hop_row + dest as usize];
        let port = e & 63;
        // A mesh hop or ejection: every VC of the class.
        if e & DATELINE == 0 {
            Candidate { port, vc_lo: base, vc_hi: base + self.per_class as u8 }
        } else {
            let same_dim = in_port < self.network_ports && in_port / 2 == (port / 2) as u32;
            let mid = base + self.split as u8;
            let was_upper = same_dim && in_vc >= mid as u32;
            if e & CROSSES != 0 || was_upper {
                Candidate { port, vc_lo: mid, vc_hi: base + self.per_class as u8 }
            } else {
                Candidate { port, vc_lo: base, vc_hi: mid }
            }
        }
    }

    /// [`Dor::route`] working the hop out from the coordinates.
    #[inline(always)]
    fn route_computed(&self, _topo: &Topology, router: u32, in_port: u32, in_vc: u32, dest: u32) -> Candidate {
        let (dest_router, local) = match self.conc_shift {
            Some(s) => (dest >> s, dest & ((1 << s) - 1)),
            None => (dest / self.concentration, dest % self.concentration),
        };
        // The traffic class of the VC the packet arrived on (a packet injected by an
        // endpoint arrives in its class too).
        let base = self.class_base[(in_vc & 15) as usize];
        let all = Candidate { port: 0, vc_lo: base, vc_hi: base + self.per_class as u8 };
        let (cur, dst) = (self.packed[router as usize], self.packed[dest_router as usize]);
        // The first dimension (in routing order) whose coordinates differ; none when the
        // destination is at this router. (The network hop is worked out either way, from
        // field 0 when there is none, and the choice made at the end without a branch.)
        let diff = cur ^ dst;
        let f = self.fields[self.field_of_bit[(diff.trailing_zeros() & 63) as usize] as usize];
        let (c, t) = ((cur >> f.shift & f.mask) as u32, (dst >> f.shift & f.mask) as u32);
        let k = f.k;
        let plus = if f.wrap {
            let fwd = if t > c { t - c } else { t + k - c };
            fwd <= k - fwd
        } else {
            t > c
        };
        let d = f.dim;
        let port = (2 * d + if plus { 0 } else { 1 }) as u8;
        let hop = if !f.dateline {
            Candidate { port, ..all }
        } else {
            // Torus dimension with dateline classes.
            let crosses_now = if plus { c == k - 1 } else { c == 0 };
            // Continuing in this dimension (arrived from the same dimension, same
            // direction) keeps the class of the VC the packet arrived on.
            let same_dim = in_port < self.network_ports && in_port / 2 == d;
            let mid = base + self.split as u8;
            let was_upper = same_dim && in_vc >= mid as u32;
            if crosses_now || was_upper {
                Candidate { port, vc_lo: mid, vc_hi: base + self.per_class as u8 }
            } else {
                Candidate { port, vc_lo: base, vc_hi: mid }
            }
        };
        let eject = Candidate { port: (self.network_ports + local) as u8, ..all };
        debug_assert_eq!(diff == 0, dest_router == router, "coordinates identify routers");
        if diff == 0 {
            eject
        } else {
            hop
        }
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
        let r = Dor::new(&t, vec![0, 1, 2], true, 4, 1);
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
        let r = Dor::new(&t, vec![0, 1], true, 4, 1);
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
    fn traffic_classes_keep_their_vcs_and_split_at_the_dateline_inside() {
        // The XT scheme: request VC0 -> VC1 and response VC2 -> VC3 at the dateline.
        let t = topo(&[8], true);
        let r = Dor::new(&t, vec![0], true, 4, 2);
        let (at6, local) = (t.router_at(&[6]), t.local_port_of(0));
        let (at7, dst) = (t.router_at(&[7]), t.router_at(&[1]));
        // From the processor port on a request VC: class 0, before the dateline.
        let c = r.route(&t, at6, local, 1, dst);
        assert_eq!((c.port, c.vc_lo, c.vc_hi), (0, 0, 1));
        // Crossing the wrap at router 7: VC1 for requests, VC3 for responses.
        assert_eq!(r.route(&t, at7, 1, 0, dst).vc_lo, 1);
        let c = r.route(&t, at7, 1, 2, dst);
        assert_eq!((c.vc_lo, c.vc_hi), (3, 4));
        // A response that has crossed stays on VC3; one that has not stays on VC2.
        let c = r.route(&t, t.router_at(&[0]), 1, 3, dst);
        assert_eq!((c.vc_lo, c.vc_hi), (3, 4));
        let c = r.route(&t, t.router_at(&[5]), 1, 2, t.router_at(&[6]));
        assert_eq!((c.vc_lo, c.vc_hi), (2, 3));
        // Ejection keeps the class.
        let c = r.route(&t, dst, 1, 3, dst);
        assert_eq!((c.port as u32, c.vc_lo, c.vc_hi), (t.local_port_of(0), 2, 4));
        // Sources inject into the request class.
        assert_eq!(crate::routing::RoutingFunction::Dor(r).injection_vcs(), (0, 2));
    }

    #[test]
    fn order_is_respected() {
        let t = topo(&[4, 4], false);
        let r = Dor::new(&t, vec![1, 0], true, 2, 1);
        let path = walk(&t, &r, t.router_at(&[0, 0]), t.router_at(&[2, 3]));
        let ports: Vec<u8> = path.iter().map(|(_, c)| c.port).collect();
        assert_eq!(ports, vec![2, 2, 2, 0, 0, 4]);
    }

    /// The hop table gives every head the candidate the coordinates give: every router,
    /// input port, input VC and destination, on meshes, tori and mixed cubes, with
    /// concentration and with two traffic classes.
    #[test]
    fn the_hop_table_routes_as_the_coordinates_do() {
        let cube = |dims: &[u32], wrap: &[bool], c: u32| {
            let cfg = TopologyConfig::Cube { dims: dims.to_vec(), wrap: wrap.to_vec(), concentration: c };
            Topology::build(&cfg, "topology").unwrap()
        };
        let cases = [
            (topo(&[8, 8], false), vec![0, 1], 4, 1),
            (topo(&[5, 4, 3], true), vec![2, 0, 1], 4, 1),
            (cube(&[4, 6], &[true, false], 2), vec![1, 0], 4, 2),
            (cube(&[3, 2, 4], &[false, true, true], 1), vec![0, 1, 2], 8, 2),
        ];
        for (t, order, vcs, classes) in cases {
            let r = Dor::new(&t, order, true, vcs, classes);
            assert!(!r.hops.is_empty(), "small networks route from the table");
            for router in 0..t.num_routers {
                for in_port in 0..t.ports {
                    for in_vc in 0..vcs {
                        for dest in 0..t.num_nodes {
                            let want = r.route_computed(&t, router, in_port, in_vc, dest);
                            assert_eq!(r.route(&t, router, in_port, in_vc, dest), want, "router {router} port {in_port} vc {in_vc} dest {dest}");
                        }
                    }
                }
            }
        }
    }
}
