//! The HyperX (Ahn, Binkert, Davis, McLaren and Schreiber, "HyperX: Topology, Routing,
//! and Packaging of Efficient Large-Scale Networks", SC 2009): routers at the points of
//! an `L`-dimensional lattice `S_0 x S_1 x ... x S_{L-1}`, every router joined to *every*
//! other router that differs from it in one coordinate (each dimension is a complete
//! graph, not a ring or a line), by `K_k` parallel links ("trunking") in dimension `k`,
//! and `T` endpoints per router. The flattened butterfly is the HyperX with all `K = 1`;
//! the hypercube is the one with all `S = 2`.
//!
//! **Numbering.** Router ids are mixed radix over the coordinates, dimension 0 varying
//! fastest, as on a k-ary n-cube, so coordinate traffic patterns (transpose, tornado,
//! neighbour) read the same coordinates. Endpoint `e` is on router `e / T`.
//!
//! **Ports.** Dimension `k`'s block starts at `B_k = sum_{j<k} (S_j - 1) K_j`; in it,
//! port `B_k + o K_k + m` is copy `m` of the link to the router whose coordinate `k` is
//! `(c_k + o + 1) mod S_k` (offset `o` in `0 .. S_k - 1`). The link back arrives on
//! offset `S_k - 2 - o`, the same copy. The `T` endpoint ports follow. A channel's
//! dimension is `k`, so `channel.dim_latency` gives each dimension its wire length.
//!
//! Minimal routes cross each differing dimension once: the distance between two routers
//! is the number of coordinates in which they differ, at most `L`.

use super::{dim_name, ChannelDesc, Shape, Topology, TopologySummary, NONE};
use crate::error::{Error, Result};

/// Largest HyperX the engine builds (routers).
pub const MAX_ROUTERS: u64 = 1 << 22;

/// The shape of a HyperX: `S`, `K` and `T` of the paper.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HyperX {
    /// `S_k`: routers per dimension.
    pub s: Vec<u32>,
    /// `K_k`: parallel links between two routers adjacent in dimension `k`.
    pub k: Vec<u32>,
    /// `T`: endpoints per router.
    pub t: u32,
    /// `B_k`: first port of dimension `k`'s block (and, last, the first endpoint port).
    base: Vec<u32>,
    /// Router-id stride of each dimension.
    stride: Vec<u32>,
}

impl HyperX {
    /// Validate the shape (`path` is the config key, "topology"); `links` defaults to one
    /// link per neighbour in every dimension.
    pub fn new(s: &[u32], links: Option<&[u32]>, t: u32, path: &str) -> Result<Self> {
        if s.is_empty() || s.len() > 16 {
            return Err(Error::config(
                format!("{path}.dims"),
                format!("has {} dimensions; give 1..=16 router counts, e.g. dims = [4, 4, 4]", s.len()),
            ));
        }
        for (i, &x) in s.iter().enumerate() {
            if x < 2 {
                return Err(Error::config(
                    format!("{path}.dims[{i}]"),
                    format!("{x} routers in a dimension is too few; every dimension needs at least 2"),
                ));
            }
        }
        let k: Vec<u32> = match links {
            None => vec![1; s.len()],
            Some(l) if l.len() != s.len() => {
                return Err(Error::config(
                    format!("{path}.links"),
                    format!("has {} entries but `dims` has {}; give the parallel links per neighbour of each dimension", l.len(), s.len()),
                ));
            }
            Some(l) => l.to_vec(),
        };
        for (i, &x) in k.iter().enumerate() {
            if !(1..=16).contains(&x) {
                return Err(Error::config(format!("{path}.links[{i}]"), format!("{x} parallel links is not supported; use 1..=16")));
            }
        }
        if !(1..=32).contains(&t) {
            return Err(Error::config(format!("{path}.concentration"), format!("{t} endpoints per router is not supported; use 1..=32")));
        }
        let net: u64 = s.iter().zip(&k).map(|(&a, &b)| u64::from(a - 1) * u64::from(b)).sum();
        if net + u64::from(t) > 64 {
            return Err(Error::config(
                format!("{path}.dims"),
                format!(
                    "routers would have {} ports (sum of (dims - 1) x links, plus concentration); at most 64 are supported",
                    net + u64::from(t)
                ),
            ));
        }
        let routers: u64 = s.iter().map(|&x| u64::from(x)).product();
        if routers > MAX_ROUTERS {
            return Err(Error::config(format!("{path}.dims"), format!("{routers} routers is more than the {MAX_ROUTERS} supported")));
        }
        let mut base = Vec::with_capacity(s.len() + 1);
        let mut stride = Vec::with_capacity(s.len());
        let (mut b, mut st) = (0, 1);
        for (&a, &c) in s.iter().zip(&k) {
            base.push(b);
            stride.push(st);
            b += (a - 1) * c;
            st *= a;
        }
        base.push(b);
        Ok(HyperX { s: s.to_vec(), k, t, base, stride })
    }

    /// Dimensions `L`.
    pub fn ndims(&self) -> usize {
        self.s.len()
    }

    /// Routers.
    pub fn routers(&self) -> u32 {
        self.s.iter().product()
    }

    /// Network ports per router.
    pub fn net_ports(&self) -> u32 {
        self.base[self.s.len()]
    }

    /// Coordinate `d` of router `r`.
    #[inline]
    pub fn coord(&self, r: u32, d: usize) -> u32 {
        r / self.stride[d] % self.s[d]
    }

    /// First port of dimension `d`'s block (`d = L`: the first endpoint port).
    #[inline]
    pub fn base_of(&self, d: usize) -> u32 {
        self.base[d]
    }

    /// The dimension network port `port` belongs to.
    #[inline]
    pub fn dim_of_port(&self, port: u32) -> usize {
        self.base[1..].iter().position(|&b| port < b).unwrap_or(self.s.len())
    }

    /// Port of copy `m` of the link from router `r` along dimension `d` to the router
    /// whose coordinate `d` is `to` (`to != coord(r, d)`).
    #[inline]
    pub fn port_to(&self, r: u32, d: usize, to: u32, m: u32) -> u32 {
        let (c, s) = (self.coord(r, d), self.s[d]);
        let o = (to + s - c - 1) % s;
        self.base[d] + o * self.k[d] + m
    }

    /// The router network port `port` of router `r` leads to, and the port it arrives on.
    #[inline]
    pub fn neighbour(&self, r: u32, port: u32) -> (u32, u32) {
        let d = self.dim_of_port(port);
        let (o, m) = ((port - self.base[d]) / self.k[d], (port - self.base[d]) % self.k[d]);
        let (c, s) = (self.coord(r, d), self.s[d]);
        let to = (c + o + 1) % s;
        let back = self.base[d] + (s - 2 - o) * self.k[d] + m;
        (r - c * self.stride[d] + to * self.stride[d], back)
    }

    /// Minimal hops between routers `a` and `b`: the coordinates in which they differ.
    pub fn distance(&self, a: u32, b: u32) -> u32 {
        (0..self.s.len()).filter(|&d| self.coord(a, d) != self.coord(b, d)).count() as u32
    }
}

/// Build the HyperX network.
pub fn build(hx: HyperX) -> Result<Topology> {
    let routers = hx.routers();
    let np = hx.net_ports();
    let ports = np + hx.t;
    let n = hx.ndims();
    let mut channels = Vec::with_capacity(routers as usize * np as usize);
    let mut out_channel = vec![NONE; (routers * ports) as usize];
    let mut in_channel = vec![NONE; (routers * ports) as usize];
    for r in 0..routers {
        for port in 0..np {
            let (to, back) = hx.neighbour(r, port);
            let d = hx.dim_of_port(port);
            let id = channels.len() as u32;
            out_channel[(r * ports + port) as usize] = id;
            in_channel[(to * ports + back) as usize] = id;
            let dir = if hx.coord(to, d) > hx.coord(r, d) { 1 } else { -1 };
            channels.push(ChannelDesc { src_router: r, src_port: port, dst_router: to, dst_port: back, dim: d as u32, dir, wrap: false });
        }
    }
    let coords = (0..routers).flat_map(|r| (0..n).map(move |d| (r, d))).map(|(r, d)| hx.coord(r, d)).collect();
    Ok(Topology {
        shape: Shape::HyperX,
        dims: hx.s.clone(),
        wrap: vec![false; n],
        concentration: hx.t,
        num_routers: routers,
        num_nodes: routers * hx.t,
        ports,
        channels,
        out_channel,
        in_channel,
        net_ports: np,
        kautz: None,
        fat_tree: None,
        dragonfly: None,
        hyperx: Some(std::sync::Arc::new(hx)),
        graph: None,
        coords,
    })
}

/// Name of network port `port`: `x+2` is the link to the router two places further
/// along dimension x (mod its size); `.m` names copy `m` of trunked links.
pub fn port_name(hx: &HyperX, port: u32) -> String {
    let d = hx.dim_of_port(port);
    let (o, m) = ((port - hx.base[d]) / hx.k[d], (port - hx.base[d]) % hx.k[d]);
    if hx.k[d] > 1 {
        format!("{}+{}.{m}", dim_name(d), o + 1)
    } else {
        format!("{}+{}", dim_name(d), o + 1)
    }
}

/// Summary for `flitsim topo`, in closed form. Uniform destinations (self included)
/// differ from the source's router in dimension `k` with probability `(S_k - 1) / S_k`,
/// so the mean hops are `sum_k (S_k - 1) / S_k`. Bisection: the cut of one dimension
/// with an even `S_k` into halves, crossed by `(S_k / 2)^2 K_k` links each way on each
/// of its `R / S_k` lines, `R S_k K_k / 2` channels in all (the least over even
/// dimensions). Channel bound of uniform traffic on minimal dimension-order routes: the
/// dimension-`k` channel from `X` to `X'` carries the routes from the `R / S_k` pairs
/// of routers (sources agreeing with `X` in dimensions `k` and above, destinations with
/// `X'` in dimensions `k` and below), so `x T / (S_k K_k)` per copy at `x`
/// flits/node/cycle with the copies sharing evenly: the bound is `min_k S_k K_k / T`.
/// (Dimension-order routing shares them exactly when `K_k` divides
/// `T S_0 ... S_{k-1}`; see [`crate::routing::hyperx`].)
pub fn summary(t: &Topology) -> TopologySummary {
    let hx = t.hyperx.as_deref().expect("a HyperX topology has its shape");
    let nodes = f64::from(t.num_nodes);
    let avg: f64 = hx.s.iter().map(|&s| f64::from(s - 1) / f64::from(s)).sum();
    let avg_distinct = if t.num_nodes > 1 { avg * nodes / (nodes - 1.0) } else { 0.0 };
    let r = u64::from(hx.routers());
    let even = (0..hx.ndims()).filter(|&d| hx.s[d].is_multiple_of(2)).min_by_key(|&d| u64::from(hx.s[d]) * u64::from(hx.k[d]));
    let (bisection, note) = match even {
        Some(d) => (
            (r * u64::from(hx.s[d]) * u64::from(hx.k[d]) / 2) as u32,
            format!("cut across {} at its midpoint (balanced halves)", dim_name(d)),
        ),
        None => {
            // No balanced cut along a dimension: split the smallest dimension s into
            // floor(s/2) and ceil(s/2) coordinates.
            let d = (0..hx.ndims()).min_by_key(|&d| hx.s[d]).unwrap_or(0);
            let (lo, hi) = (u64::from(hx.s[d] / 2), u64::from(hx.s[d] - hx.s[d] / 2));
            let c = 2 * lo * hi * u64::from(hx.k[d]) * (r / u64::from(hx.s[d]));
            (
                c as u32,
                format!("no dimension has an even size: cut across {} into {lo} and {hi} planes (halves differ by one plane)", dim_name(d)),
            )
        }
    };
    let bisection_bound = if bisection > 0 { 2.0 * f64::from(bisection) / nodes } else { f64::INFINITY };
    let channel_bound = (0..hx.ndims()).map(|d| f64::from(hx.s[d]) * f64::from(hx.k[d]) / f64::from(hx.t)).fold(f64::INFINITY, f64::min);
    let shape: Vec<String> = hx.s.iter().map(|s| s.to_string()).collect();
    let links: Vec<String> = hx.k.iter().map(|k| k.to_string()).collect();
    TopologySummary {
        description: format!("HyperX {} (links per neighbour {}, {} endpoints per router)", shape.join("x"), links.join("x"), hx.t),
        nodes: t.num_nodes,
        routers: t.num_routers,
        router_radix: t.ports,
        channels: t.channels.len() as u32,
        diameter: hx.ndims() as u32,
        avg_hops: avg,
        avg_hops_distinct: avg_distinct,
        bisection_channels: bisection,
        bisection_note: note,
        uniform_bisection_bound: bisection_bound.min(1.0),
        uniform_channel_bound: channel_bound.min(1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hx(s: &[u32], k: &[u32], t: u32) -> Topology {
        build(HyperX::new(s, Some(k), t, "topology").unwrap()).unwrap()
    }

    /// Every router's network ports reach exactly the routers differing from it in one
    /// coordinate, each `K_k` times, and each channel's reverse arrives where the wiring
    /// says.
    #[test]
    fn every_router_is_joined_to_its_lines_by_k_links() {
        for (s, k) in [(vec![4, 3], vec![1, 2]), (vec![2, 2, 2], vec![1, 1, 1]), (vec![5], vec![3])] {
            let t = hx(&s, &k, 2);
            let h = t.hyperx.clone().unwrap();
            for r in 0..t.num_routers {
                let mut reached = std::collections::BTreeMap::new();
                for port in 0..t.net_ports {
                    let c = t.channels[t.out_channel[(r * t.ports + port) as usize] as usize];
                    *reached.entry(c.dst_router).or_insert(0u32) += 1;
                    // The link back is the same copy, arriving on this port.
                    assert_eq!(h.neighbour(c.dst_router, c.dst_port), (r, port));
                    assert_eq!(t.in_channel[(c.dst_router * t.ports + c.dst_port) as usize], t.out_channel[(r * t.ports + port) as usize]);
                }
                for other in 0..t.num_routers {
                    let differ: Vec<usize> = (0..s.len()).filter(|&d| h.coord(r, d) != h.coord(other, d)).collect();
                    let want = if differ.len() == 1 { k[differ[0]] } else { 0 };
                    assert_eq!(reached.get(&other).copied().unwrap_or(0), want, "{s:?} {r} -> {other}");
                }
            }
        }
    }

    /// Closed forms checked by counting: mean hops over all router pairs, the bisection
    /// channels crossing the cut, and the radix.
    #[test]
    fn summary_matches_counts() {
        let t = hx(&[4, 6, 3], &[2, 1, 1], 3);
        let h = t.hyperx.clone().unwrap();
        let s = t.summary();
        let r = t.num_routers;
        let total: u64 = (0..r).flat_map(|a| (0..r).map(move |b| (a, b))).map(|(a, b)| u64::from(h.distance(a, b))).sum();
        assert!((s.avg_hops - total as f64 / f64::from(r * r)).abs() < 1e-12);
        assert_eq!(s.diameter, 3);
        assert_eq!(s.router_radix, 3 * 2 + 5 + 2 + 3);
        // Even dimensions: x (S K = 8) and y (S K = 6): y is cut.
        let crossing = t.channels.iter().filter(|c| (h.coord(c.src_router, 1) < 3) != (h.coord(c.dst_router, 1) < 3)).count() as u32;
        assert_eq!(s.bisection_channels, crossing);
        assert_eq!(crossing, 72 * 6 / 2);
        // Channel bound: min(4*2, 6, 3) / 3.
        assert!((s.uniform_channel_bound - 1.0).abs() < 1e-12);
        assert_eq!(t.router_distance(0, r - 1), 3);
    }

    #[test]
    fn bad_shapes_name_the_field() {
        let e = HyperX::new(&[4, 1], None, 1, "topology").unwrap_err();
        assert_eq!(e.path(), Some("topology.dims[1]"));
        let e = HyperX::new(&[4, 4], Some(&[1]), 1, "topology").unwrap_err();
        assert_eq!(e.path(), Some("topology.links"));
        let e = HyperX::new(&[4, 4], Some(&[1, 0]), 1, "topology").unwrap_err();
        assert_eq!(e.path(), Some("topology.links[1]"));
        let e = HyperX::new(&[16, 16, 16, 16, 16], None, 1, "topology").unwrap_err();
        assert_eq!(e.path(), Some("topology.dims"));
        let e = HyperX::new(&[4], None, 0, "topology").unwrap_err();
        assert_eq!(e.path(), Some("topology.concentration"));
    }
}
