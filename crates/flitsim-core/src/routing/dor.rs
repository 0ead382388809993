//! Dimension-order routing with dateline VC classes (Dally & Seitz 1987; Dally & Towles
//! 2004, sections 14.2 and 14.3).
//!
//! Dimensions are corrected one at a time in a configurable order, minimally in each
//! (on a torus ring the shorter way round). A destination exactly half way round an even
//! ring is a *tie*, decided by [`TiePolicy`]: always `+`, at random per packet, or by the
//! parity of the source's or the destination's coordinate in that dimension. A tie only
//! arises where the packet enters the dimension (one hop on, the way it took is the
//! shorter one), so the choice is made once per dimension.
//!
//! On a torus dimension the VCs are split into two classes: class 0 = `[0, V/2)`,
//! class 1 = `[V/2, V)`; the dateline is the wrap-around channel between coordinates k-1
//! and 0. [`DatelineClass`] says when a packet that crosses it takes class 1: on the hop
//! that crosses it (`at_wrap`: class 0 before, class 1 from the wrap hop on), or for the
//! whole dimension, chosen where it enters (`at_entry`: class 1 from the first hop, as
//! BookSim2's `dim_order_torus`); a packet that does not cross stays in class 0. Both
//! are deadlock-free (the channel dependency check proves it per network): class 0
//! never holds the wrap channel, and under `at_entry` class 1 never holds the channel
//! half way round from it. Either way the class is read from the VC the packet arrived
//! on, as a router does in hardware: a packet continuing in a dimension keeps the class
//! it arrived in. Mesh dimensions and ejection may use every VC.
//!
//! With several traffic classes (`classes`, e.g. the Cray XT's request VC0/VC1 and
//! response VC2/VC3) the VCs form equal groups, a packet stays in the group of the VC it
//! arrived on, and the dateline split above is made inside the group (VC0 -> VC1 and
//! VC2 -> VC3 on the XT).

use serde::{Deserialize, Serialize};

use super::Candidate;
use crate::topology::Topology;

/// `routing.ties`: the direction of a packet whose destination is exactly half way round
/// an even torus ring (`k/2` hops either way).
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TiePolicy {
    /// Always the `+` way: under uniform traffic the `+` channels of an even ring carry
    /// `(k/2 + 1) / (k/2)` times the load a balanced choice gives them (12.5% more on a
    /// 16-ring), the `-` channels `(k/2 - 1) / (k/2)` times.
    #[default]
    Plus,
    /// A fair coin per packet and dimension (BookSim2's `dim_order_torus`), drawn from
    /// the seed, the packet's source and its sequence number: the same on any thread.
    Random,
    /// `+` from an even coordinate of the source in that dimension, `-` from an odd one:
    /// one fixed route per pair, the load balanced over the ring.
    SourceParity,
    /// `+` to an even coordinate of the destination in that dimension, `-` to an odd one.
    DestinationParity,
}

/// `routing.dateline_class`: when a packet that crosses a torus ring's dateline moves to
/// the upper VC class.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DatelineClass {
    /// On the hop that crosses the wrap-around channel (class 0 up to it): the Cray XT's
    /// dateline, which switches a packet from VC0 to VC1.
    #[default]
    AtWrap,
    /// For the whole dimension, chosen where the packet enters it (BookSim2's
    /// `dim_order_torus`): fewer channels hold both classes' traffic in one class.
    AtEntry,
}

/// The per-packet key a random tie is drawn from: the packet's source and its sequence
/// number at that source.
#[inline(always)]
pub fn packet_key(src: u32, seq: u32) -> u64 {
    (src as u64) << 32 | seq as u64
}

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
    hops: Vec<u16>,
    /// Row length of [`Dor::hops`]: the number of endpoints.
    hop_row: usize,
    /// Ties on even rings.
    pub ties: TiePolicy,
    /// When a crossing packet takes the upper dateline class.
    pub dateline_class: DatelineClass,
    /// Run seed (random ties).
    seed: u64,
}

/// Networks with at most this many routers x endpoints route from a table of hops (two
/// bytes each, built with the routing function).
pub const HOP_TABLE_ENTRIES: u32 = 1 << 14;

/// [`Dor::hops`] entry: the output port in the low six bits; [`UPPER`] when a packet
/// entering the dimension here takes the upper dateline class (under `at_wrap` the hop
/// crosses the dateline, under `at_entry` the route crosses it somewhere in this
/// dimension); [`DATELINE`] when the dimension has dateline classes (never set for an
/// ejection port); [`TIE`] when the destination is a tie decided per packet (the entry
/// holds the `+` way; the head works its way out from the coordinates).
const UPPER: u16 = 1 << 6;
const DATELINE: u16 = 1 << 7;
const TIE: u16 = 1 << 8;

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
            ties: TiePolicy::Plus,
            dateline_class: DatelineClass::AtWrap,
            seed: 0,
        };
        dor.build_hops(topo);
        dor
    }

    /// The same routes with ties decided by `ties`, crossing packets classed by
    /// `dateline_class`, and random ties drawn under the run `seed`.
    pub fn with_policies(mut self, topo: &Topology, ties: TiePolicy, dateline_class: DatelineClass, seed: u64) -> Self {
        (self.ties, self.dateline_class, self.seed) = (ties, dateline_class, seed);
        self.build_hops(topo);
        self
    }

    /// Fill [`Dor::hops`] for a small network (leave it empty otherwise).
    fn build_hops(&mut self, topo: &Topology) {
        let (n, nodes) = (topo.num_routers as u64, topo.num_nodes as u64);
        self.hops.clear();
        if n * nodes <= HOP_TABLE_ENTRIES as u64 && topo.ports <= 64 {
            let nodes = nodes as u32;
            self.hops = (0..n as u32 * nodes).map(|i| self.hop_entry(i / nodes, i % nodes)).collect();
        }
    }

    /// Does a tie in ring dimension `dim` go `+`, for a packet now at coordinate `c`
    /// bound for coordinate `t` (its key, [`packet_key`], for random ties)?
    #[inline(always)]
    fn tie_plus(&self, dim: u32, c: u32, t: u32, key: u64) -> bool {
        match self.ties {
            TiePolicy::Plus => true,
            TiePolicy::Random => crate::rng::mix64(self.seed ^ crate::rng::mix64(key)) >> (dim & 63) & 1 == 0,
            TiePolicy::SourceParity => c & 1 == 0,
            TiePolicy::DestinationParity => t & 1 == 0,
        }
    }

    /// Does any destination of this network tie in a way decided per packet?
    pub fn ties_per_packet(&self) -> bool {
        self.ties == TiePolicy::Random && self.fields.iter().any(|f| f.wrap && f.k % 2 == 0)
    }

    /// The way round ring field `f` from coordinate `c` to `t` (`c != t`): `(plus,
    /// tie)`, the tie decided by [`Dor::tie_plus`].
    #[inline(always)]
    fn direction(&self, f: &Field, c: u32, t: u32, key: u64) -> (bool, bool) {
        if !f.wrap {
            return (t > c, false);
        }
        let fwd = if t > c { t - c } else { t + f.k - c };
        let back = f.k - fwd;
        if fwd == back {
            (self.tie_plus(f.dim, c, t, key), true)
        } else {
            (fwd < back, false)
        }
    }

    /// Does a packet entering ring field `f` at `c`, bound for `t` the `plus` way, take
    /// the upper dateline class on this hop (with no class carried in)?
    #[inline(always)]
    fn upper_on_entry(&self, f: &Field, c: u32, t: u32, plus: bool) -> bool {
        match self.dateline_class {
            // The hop itself crosses the wrap-around channel.
            DatelineClass::AtWrap => {
                if plus {
                    c == f.k - 1
                } else {
                    c == 0
                }
            }
            // The route wraps somewhere in this dimension.
            DatelineClass::AtEntry => {
                if plus {
                    t < c
                } else {
                    t > c
                }
            }
        }
    }

    /// The [`Dor::hops`] entry for a head at `router` bound for endpoint `dest`.
    fn hop_entry(&self, router: u32, dest: u32) -> u16 {
        let (dest_router, local) = (dest / self.concentration, dest % self.concentration);
        if dest_router == router {
            return (self.network_ports + local) as u16;
        }
        let (cur, dst) = (self.packed[router as usize], self.packed[dest_router as usize]);
        let f = self.fields[self.field_of_bit[((cur ^ dst).trailing_zeros() & 63) as usize] as usize];
        let (c, t) = ((cur >> f.shift & f.mask) as u32, (dst >> f.shift & f.mask) as u32);
        // (Key 0: a tie decided per packet is marked and worked out per head.)
        let (plus, tie) = self.direction(&f, c, t, 0);
        let per_packet = tie && self.ties == TiePolicy::Random;
        let port = (2 * f.dim + !plus as u32) as u16 | if per_packet { TIE } else { 0 };
        if !f.dateline {
            return port;
        }
        port | DATELINE | if self.upper_on_entry(&f, c, t, plus) { UPPER } else { 0 }
    }

    /// See the module docs. `key`: the packet's [`packet_key`] (read by random ties
    /// only).
    #[inline(always)]
    pub fn route(&self, topo: &Topology, router: u32, in_port: u32, in_vc: u32, dest: u32, key: u64) -> Candidate {
        if !self.hops.is_empty() {
            return self.route_tabled(topo, router, in_port, in_vc, dest, key);
        }
        self.route_computed(topo, router, in_port, in_vc, dest, key)
    }

    /// Every candidate a packet bound for `dest` may get at `router`: both ways of a tie
    /// decided per packet, else the one route.
    pub fn for_each_candidate(&self, topo: &Topology, router: u32, in_port: u32, in_vc: u32, dest: u32, mut f: impl FnMut(Candidate)) {
        if !self.ties_per_packet() {
            return f(self.route_forced(topo, router, in_port, in_vc, dest, None));
        }
        let plus = self.route_forced(topo, router, in_port, in_vc, dest, Some(true));
        f(plus);
        if self.ties_per_packet() {
            let minus = self.route_forced(topo, router, in_port, in_vc, dest, Some(false));
            if minus != plus {
                f(minus);
            }
        }
    }

    /// [`Dor::route`] reading the hop from [`Dor::hops`] (the same candidates as
    /// [`Dor::route_computed`]; a test compares them over every pair).
    #[inline(always)]
    fn route_tabled(&self, topo: &Topology, router: u32, in_port: u32, in_vc: u32, dest: u32, key: u64) -> Candidate {
        let base = self.class_base[(in_vc & 15) as usize];
        let e = self.hops[router as usize * self.hop_row + dest as usize];
        if e & TIE != 0 {
            return self.route_computed(topo, router, in_port, in_vc, dest, key);
        }
        let port = (e & 63) as u8;
        // A mesh hop or ejection: every VC of the class.
        if e & DATELINE == 0 {
            Candidate { port, vc_lo: base, vc_hi: base + self.per_class as u8 }
        } else {
            let same_dim = in_port < self.network_ports && in_port / 2 == (port / 2) as u32;
            let mid = base + self.split as u8;
            let was_upper = same_dim && in_vc >= mid as u32;
            if e & UPPER != 0 || was_upper {
                Candidate { port, vc_lo: mid, vc_hi: base + self.per_class as u8 }
            } else {
                Candidate { port, vc_lo: base, vc_hi: mid }
            }
        }
    }

    /// [`Dor::route`] working the hop out from the coordinates.
    #[inline(always)]
    fn route_computed(&self, topo: &Topology, router: u32, in_port: u32, in_vc: u32, dest: u32, key: u64) -> Candidate {
        self.route_with(topo, router, in_port, in_vc, dest, key, None)
    }

    /// [`Dor::route_computed`] with a tie sent the way `force` says (`Some(true)`: `+`)
    /// whatever the policy: the candidates the dependency check explores.
    fn route_forced(&self, topo: &Topology, router: u32, in_port: u32, in_vc: u32, dest: u32, force: Option<bool>) -> Candidate {
        self.route_with(topo, router, in_port, in_vc, dest, 0, force)
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn route_with(&self, _topo: &Topology, router: u32, in_port: u32, in_vc: u32, dest: u32, key: u64, force: Option<bool>) -> Candidate {
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
        let (plus, tie) = self.direction(&f, c, t, key);
        let plus = match force {
            Some(way) if tie => way,
            _ => plus,
        };
        let d = f.dim;
        let port = (2 * d + if plus { 0 } else { 1 }) as u8;
        let hop = if !f.dateline {
            Candidate { port, ..all }
        } else {
            // Torus dimension with dateline classes. Continuing in this dimension
            // (arrived from the same dimension, same direction) keeps the class of the
            // VC the packet arrived on.
            let same_dim = in_port < self.network_ports && in_port / 2 == d;
            let mid = base + self.split as u8;
            let was_upper = same_dim && in_vc >= mid as u32;
            if self.upper_on_entry(&f, c, t, plus) || was_upper {
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
            let c = r.route(t, router, in_port, in_vc, dst, 0);
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
        let c = r.route(&t, at6, local, 1, dst, 0);
        assert_eq!((c.port, c.vc_lo, c.vc_hi), (0, 0, 1));
        // Crossing the wrap at router 7: VC1 for requests, VC3 for responses.
        assert_eq!(r.route(&t, at7, 1, 0, dst, 0).vc_lo, 1);
        let c = r.route(&t, at7, 1, 2, dst, 0);
        assert_eq!((c.vc_lo, c.vc_hi), (3, 4));
        // A response that has crossed stays on VC3; one that has not stays on VC2.
        let c = r.route(&t, t.router_at(&[0]), 1, 3, dst, 0);
        assert_eq!((c.vc_lo, c.vc_hi), (3, 4));
        let c = r.route(&t, t.router_at(&[5]), 1, 2, t.router_at(&[6]), 0);
        assert_eq!((c.vc_lo, c.vc_hi), (2, 3));
        // Ejection keeps the class.
        let c = r.route(&t, dst, 1, 3, dst, 0);
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
                            let want = r.route_computed(&t, router, in_port, in_vc, dest, 0);
                            assert_eq!(
                                r.route(&t, router, in_port, in_vc, dest, 0),
                                want,
                                "router {router} port {in_port} vc {in_vc} dest {dest}"
                            );
                        }
                    }
                }
            }
        }
    }

    fn dor(t: &Topology, vcs: u32, ties: TiePolicy, class: DatelineClass) -> Dor {
        Dor::new(t, (0..t.ndims() as u32).collect(), true, vcs, 1).with_policies(t, ties, class, 7)
    }

    /// Hops in the `+` and `-` directions over every ordered pair's route.
    fn hops_by_direction(t: &Topology, r: &Dor) -> (u32, u32) {
        let (mut plus, mut minus) = (0, 0);
        for s in 0..t.num_nodes {
            for d in 0..t.num_nodes {
                for (_, c) in &walk(t, r, s, d)[..] {
                    if !t.is_local_port(c.port as u32) {
                        if c.port % 2 == 0 {
                            plus += 1
                        } else {
                            minus += 1
                        }
                    }
                }
            }
        }
        (plus, minus)
    }

    /// Uniform traffic on a 16-ring: each source's routes take sum(1..=8) = 36 hops `+`
    /// and sum(1..=7) = 28 hops `-` when ties go `+`; split by parity, half the sources
    /// send their tie each way, 32 and 32 on average (16 sources).
    #[test]
    fn ties_on_an_even_ring_load_the_directions_as_the_closed_form_says() {
        let t = topo(&[16], true);
        assert_eq!(hops_by_direction(&t, &dor(&t, 2, TiePolicy::Plus, DatelineClass::AtWrap)), (16 * 36, 16 * 28));
        for ties in [TiePolicy::SourceParity, TiePolicy::DestinationParity] {
            assert_eq!(hops_by_direction(&t, &dor(&t, 2, ties, DatelineClass::AtWrap)), (16 * 32, 16 * 32), "{ties:?}");
        }
        // An odd ring has no ties: every policy routes alike.
        let t = topo(&[7], true);
        for ties in [TiePolicy::Plus, TiePolicy::Random, TiePolicy::SourceParity, TiePolicy::DestinationParity] {
            assert_eq!(hops_by_direction(&t, &dor(&t, 2, ties, DatelineClass::AtWrap)), (7 * 6, 7 * 6), "{ties:?}");
        }
    }

    /// The parity policies by hand on an 8-ring (ties at distance 4), and the random
    /// policy's coin: the same packet always goes the same way, different packets both
    /// ways, and over 2,000 packets near half each way (a fair coin: 1,000 +- 5 sigma).
    #[test]
    fn tie_policies_decide_as_stated() {
        let t = topo(&[8], true);
        let way = |ties, s: u32, d: u32, key| dor(&t, 2, ties, DatelineClass::AtWrap).route(&t, s, t.local_port_of(s), 0, d, key).port;
        // From 1 to 5: source 1 is odd (-), destination 5 is odd (-).
        assert_eq!(
            (way(TiePolicy::Plus, 1, 5, 0), way(TiePolicy::SourceParity, 1, 5, 0), way(TiePolicy::DestinationParity, 1, 5, 0)),
            (0, 1, 1)
        );
        // From 2 to 6: both even (+).
        assert_eq!((way(TiePolicy::SourceParity, 2, 6, 0), way(TiePolicy::DestinationParity, 2, 6, 0)), (0, 0));
        // On a 6-ring the tie is 3 away: source and destination parities differ.
        let t6 = topo(&[6], true);
        let r = |ties| dor(&t6, 2, ties, DatelineClass::AtWrap).route(&t6, 0, t6.local_port_of(0), 0, 3, 0).port;
        assert_eq!((r(TiePolicy::SourceParity), r(TiePolicy::DestinationParity)), (0, 1));
        let random = dor(&t, 2, TiePolicy::Random, DatelineClass::AtWrap);
        let minus = (0..2000u32).filter(|&seq| random.route(&t, 1, t.local_port_of(1), 0, 5, packet_key(1, seq)).port == 1).count();
        assert!((1000 - 5 * 23..=1000 + 5 * 23).contains(&minus), "{minus} of 2000 ties went -");
        for seq in 0..50 {
            let key = packet_key(3, seq);
            assert_eq!(random.route(&t, 3, t.local_port_of(3), 0, 7, key), random.route(&t, 3, t.local_port_of(3), 0, 7, key));
        }
        // Away from a tie the coin is never read: 1 to 4 is 3 hops +.
        assert!((0..100).all(|seq| random.route(&t, 1, t.local_port_of(1), 0, 4, packet_key(1, seq)).port == 0));
        // The dependency check sees both ways of a tie decided per packet.
        let mut ports = vec![];
        random.for_each_candidate(&t, 1, t.local_port_of(1), 0, 5, |c| ports.push(c.port));
        assert_eq!(ports, vec![0, 1]);
        // A policy that decides ties by the pair gives the check its one route.
        let parity = dor(&t, 2, TiePolicy::SourceParity, DatelineClass::AtWrap);
        let mut ports = vec![];
        parity.for_each_candidate(&t, 1, t.local_port_of(1), 0, 5, |c| ports.push(c.port));
        assert_eq!(ports, vec![1]);
    }

    /// On an 8-ring from 6 to 1 (`+`, crossing the wrap between 7 and 0): `at_wrap`
    /// takes the upper class (VCs 2..4) from the wrap hop on, `at_entry` from the first
    /// hop; a route that does not cross stays in the lower class either way.
    #[test]
    fn dateline_class_at_entry_holds_the_upper_class_for_the_whole_dimension() {
        let t = topo(&[8], true);
        let classes =
            |class, s, d| walk(&t, &dor(&t, 4, TiePolicy::Plus, class), s, d).iter().map(|(_, c)| (c.vc_lo, c.vc_hi)).collect::<Vec<_>>();
        assert_eq!(classes(DatelineClass::AtWrap, 6, 1), vec![(0, 2), (2, 4), (2, 4), (0, 4)]);
        assert_eq!(classes(DatelineClass::AtEntry, 6, 1), vec![(2, 4), (2, 4), (2, 4), (0, 4)]);
        // The - way from 1 to 6 crosses between 0 and 7.
        assert_eq!(classes(DatelineClass::AtEntry, 1, 6), vec![(2, 4), (2, 4), (2, 4), (0, 4)]);
        assert_eq!(classes(DatelineClass::AtWrap, 1, 6), vec![(0, 2), (2, 4), (2, 4), (0, 4)]);
        for class in [DatelineClass::AtWrap, DatelineClass::AtEntry] {
            assert_eq!(classes(class, 1, 3), vec![(0, 2), (0, 2), (0, 4)]);
        }
    }

    /// Every tie policy with either dateline class is deadlock-free on 2-D and 3-D tori
    /// of even and odd radix (the channel dependency graph over every VC is acyclic),
    /// and the hop table routes as the coordinates do.
    #[test]
    fn every_policy_is_deadlock_free_and_tabled_alike() {
        for dims in [&[4u32, 4][..], &[5, 6], &[6, 3, 4]] {
            let t = topo(dims, true);
            for ties in [TiePolicy::Plus, TiePolicy::Random, TiePolicy::SourceParity, TiePolicy::DestinationParity] {
                for class in [DatelineClass::AtWrap, DatelineClass::AtEntry] {
                    let r = dor(&t, 2, ties, class);
                    let report = crate::routing::cdg::check(&crate::routing::RoutingFunction::Dor(r.clone()), &t, 2);
                    assert!(report.acyclic, "{dims:?} {ties:?} {class:?}: {:?}", report.cycle);
                    assert!(!r.hops.is_empty());
                    for router in 0..t.num_routers {
                        for in_port in 0..t.ports {
                            for in_vc in 0..2 {
                                for dest in 0..t.num_nodes {
                                    let key = packet_key(dest, router);
                                    assert_eq!(
                                        r.route(&t, router, in_port, in_vc, dest, key),
                                        r.route_computed(&t, router, in_port, in_vc, dest, key)
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
