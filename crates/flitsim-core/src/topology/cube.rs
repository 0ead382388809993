//! k-ary n-cube: mixed radix per dimension, each dimension a torus ring or a mesh line,
//! `c` endpoints per router. Closed-form distances and the bisection cut.

use super::{dim_name, ChannelDesc, Shape, Topology, TopologySummary, NONE};
use crate::error::{Error, Result};

/// Largest number of routers a cube may have (ids are u32 and routers are dense arrays).
pub const MAX_ROUTERS: u64 = 1 << 24;

/// Build a cube; `path` is the config key of the topology table.
pub fn build(dims: &[u32], wrap: &[bool], concentration: u32, path: &str) -> Result<Topology> {
    if dims.is_empty() {
        return Err(Error::config(format!("{path}.dims"), "is empty; give the radix of each dimension, e.g. dims = [8, 8]"));
    }
    if dims.len() > 16 {
        return Err(Error::config(format!("{path}.dims"), format!("has {} dimensions; at most 16 are supported", dims.len())));
    }
    for (i, &k) in dims.iter().enumerate() {
        if k < 2 {
            return Err(Error::config(
                format!("{path}.dims[{i}]"),
                format!("radix {k} is too small; every dimension needs at least 2 routers"),
            ));
        }
    }
    if concentration == 0 || concentration > 32 {
        return Err(Error::config(
            format!("{path}.concentration"),
            format!("{concentration} endpoints per router is not supported; use 1..=32"),
        ));
    }
    let routers: u64 = dims.iter().map(|&k| k as u64).product();
    if routers > MAX_ROUTERS || routers * concentration as u64 > u32::MAX as u64 / 2 {
        return Err(Error::config(format!("{path}.dims"), format!("{routers} routers is more than the supported {MAX_ROUTERS}")));
    }
    let n = dims.len();
    let r_count = routers as u32;
    let ports = 2 * n as u32 + concentration;
    let mut coords = vec![0u32; routers as usize * n];
    for r in 0..r_count {
        let mut rest = r;
        for d in 0..n {
            coords[r as usize * n + d] = rest % dims[d];
            rest /= dims[d];
        }
    }
    let mut topo = Topology {
        shape: Shape::Cube,
        dims: dims.to_vec(),
        wrap: wrap.to_vec(),
        concentration,
        num_routers: r_count,
        num_nodes: r_count * concentration,
        ports,
        channels: Vec::new(),
        out_channel: vec![NONE; (r_count * ports) as usize],
        in_channel: vec![NONE; (r_count * ports) as usize],
        net_ports: 2 * n as u32,
        kautz: None,
        fat_tree: None,
        dragonfly: None,
        hyperx: None,
        graph: None,
        coords,
    };
    let mut c = vec![0u32; n];
    for r in 0..r_count {
        for d in 0..n {
            let k = dims[d];
            for (dir, port) in [(1i32, 2 * d as u32), (-1i32, 2 * d as u32 + 1)] {
                c.copy_from_slice(topo.coords(r));
                let x = c[d];
                let (nx, is_wrap) = if dir > 0 {
                    if x + 1 < k {
                        (x + 1, false)
                    } else if wrap[d] {
                        (0, true)
                    } else {
                        continue;
                    }
                } else if x > 0 {
                    (x - 1, false)
                } else if wrap[d] {
                    (k - 1, true)
                } else {
                    continue;
                };
                c[d] = nx;
                let dst = topo.router_at(&c);
                // Travelling `+` arrives on the downstream router's `-` port and vice versa.
                let dst_port = if dir > 0 { port + 1 } else { port - 1 };
                let id = topo.channels.len() as u32;
                topo.channels.push(ChannelDesc {
                    src_router: r,
                    src_port: port,
                    dst_router: dst,
                    dst_port,
                    dim: d as u32,
                    dir,
                    wrap: is_wrap,
                });
                topo.out_channel[(r * ports + port) as usize] = id;
                topo.in_channel[(dst * ports + dst_port) as usize] = id;
            }
        }
    }
    Ok(topo)
}

/// Mean minimal distance in one dimension over all ordered coordinate pairs (self included).
pub fn mean_dim_distance(k: u32, wrap: bool) -> f64 {
    let k64 = k as f64;
    if wrap {
        // sum over offsets j of min(j, k-j), divided by k.
        let s: u64 = (0..k).map(|j| j.min(k - j) as u64).sum();
        s as f64 / k64
    } else {
        (k64 * k64 - 1.0) / (3.0 * k64)
    }
}

/// Summary for `flitsim topo`.
pub fn summary(t: &Topology) -> TopologySummary {
    let n = t.ndims();
    let shapes: Vec<&str> = t.wrap.iter().map(|&w| if w { "torus" } else { "mesh" }).collect();
    let dims: Vec<String> = t.dims.iter().map(|k| k.to_string()).collect();
    let description = format!(
        "{} {} (concentration {})",
        dims.join("x"),
        if shapes.iter().all(|s| *s == shapes[0]) { shapes[0].to_string() } else { shapes.join("/") },
        t.concentration
    );
    let diameter: u32 = (0..n).map(|d| if t.wrap[d] { t.dims[d] / 2 } else { t.dims[d] - 1 }).sum();
    let avg: f64 = (0..n).map(|d| mean_dim_distance(t.dims[d], t.wrap[d])).sum();
    // Pairs of distinct endpoints: endpoints on the same router are at distance 0.
    let nodes = t.num_nodes as f64;
    let avg_distinct = avg * nodes / (nodes - 1.0).max(1.0);
    // Bisection: cut one dimension in half; the minimum over dimensions with an even radix
    // (balanced halves). Channels crossing the cut in both directions are counted.
    let mut best: Option<(u32, usize)> = None;
    let mut fallback: Option<(u32, usize)> = None;
    for d in 0..n {
        let half = t.dims[d] / 2;
        let cross = t
            .channels
            .iter()
            .filter(|ch| ch.dim as usize == d)
            .filter(|ch| {
                let a = t.coords(ch.src_router)[d] < half;
                let b = t.coords(ch.dst_router)[d] < half;
                a != b
            })
            .count() as u32;
        let slot = if t.dims[d].is_multiple_of(2) { &mut best } else { &mut fallback };
        if slot.is_none_or(|(c, _)| cross < c) {
            *slot = Some((cross, d));
        }
    }
    let (bisection, note) = match (best, fallback) {
        (Some((c, d)), _) => (c, format!("cut across {} at its midpoint (balanced halves)", dim_name(d))),
        (None, Some((c, d))) => (
            c,
            format!(
                "no dimension has an even radix: cut across {} into {} and {} planes (halves differ by one plane)",
                dim_name(d),
                t.dims[d] / 2,
                t.dims[d] - t.dims[d] / 2
            ),
        ),
        (None, None) => (0, "no channels".into()),
    };
    // Uniform traffic: half of all traffic crosses the bisection, so N/2 * rate <= B/2 per
    // direction... both directions: N * rate / 2 <= B  =>  rate <= 2B/N.
    let uniform_bisection_bound = if bisection > 0 { 2.0 * bisection as f64 / nodes } else { f64::INFINITY };
    let uniform_channel_bound = channel_bound_uniform(t);
    TopologySummary {
        description,
        nodes: t.num_nodes,
        routers: t.num_routers,
        router_radix: t.ports,
        channels: t.channels.len() as u32,
        diameter,
        avg_hops: avg,
        avg_hops_distinct: avg_distinct,
        bisection_channels: bisection,
        bisection_note: note,
        uniform_bisection_bound: uniform_bisection_bound.min(1.0),
        uniform_channel_bound,
    }
}

/// Max uniform-random injection rate (flits/node/cycle) before the busiest channel
/// saturates under minimal dimension-order routing: the maximum over dimensions of the
/// per-channel load, computed exactly by counting the offsets that use each channel.
/// Ties on even-radix rings go in the `+` direction, as the router does.
pub fn channel_bound_uniform(t: &Topology) -> f64 {
    let c = t.concentration as f64;
    let mut worst = 0.0f64;
    for d in 0..t.ndims() {
        let k = t.dims[d];
        // Load on each + channel (x -> x+1) in the ring/line, per unit injection rate per node,
        // counting a source row of k routers (each with c endpoints) sending uniformly to
        // the k coordinates of this dimension (other dims do not change the per-dimension load).
        let mut load_plus = vec![0f64; k as usize];
        let mut load_minus = vec![0f64; k as usize];
        for s in 0..k {
            for dst in 0..k {
                if s == dst {
                    continue;
                }
                let (dir, hops) = if t.wrap[d] {
                    let fwd = (dst + k - s) % k;
                    if fwd <= k - fwd {
                        (1, fwd)
                    } else {
                        (-1, k - fwd)
                    }
                } else if dst > s {
                    (1, dst - s)
                } else {
                    (-1, s - dst)
                };
                for h in 0..hops {
                    if dir > 0 {
                        load_plus[((s + h) % k) as usize] += 1.0 / k as f64;
                    } else {
                        load_minus[((s + k - h) % k) as usize] += 1.0 / k as f64;
                    }
                }
            }
        }
        let m = load_plus.iter().chain(load_minus.iter()).cloned().fold(0.0, f64::max) * c;
        worst = worst.max(m);
    }
    if worst > 0.0 {
        (1.0 / worst).min(1.0)
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{Topology, TopologyConfig};

    fn torus(dims: &[u32]) -> Topology {
        Topology::build(&TopologyConfig::Torus { dims: dims.to_vec(), concentration: 1 }, "topology").unwrap()
    }

    #[test]
    fn channel_wiring_is_consistent() {
        for t in [torus(&[4, 3]), torus(&[2, 5]), build(&[3, 4, 2], &[true, false, true], 2, "t").unwrap()] {
            for (i, ch) in t.channels.iter().enumerate() {
                assert_eq!(t.out_channel[(ch.src_router * t.ports + ch.src_port) as usize], i as u32);
                assert_eq!(t.in_channel[(ch.dst_router * t.ports + ch.dst_port) as usize], i as u32);
                assert_eq!(t.router_distance(ch.src_router, ch.dst_router), 1);
            }
        }
        // 4x3 torus: 12 routers x 4 channels.
        assert_eq!(torus(&[4, 3]).channels.len(), 48);
        // 3x4 mesh: x links 2*4 per direction, y links 3*3 per direction.
        let m = build(&[3, 4], &[false, false], 1, "t").unwrap();
        assert_eq!(m.channels.len(), 2 * (2 * 4 + 3 * 3));
    }

    #[test]
    fn coordinates_round_trip_mixed_radix() {
        let t = build(&[11, 12, 16], &[true, true, false], 1, "t").unwrap();
        assert_eq!(t.num_routers, 2112);
        for r in [0, 1, 10, 11, 131, 2111] {
            assert_eq!(t.router_at(t.coords(r)), r);
        }
        assert_eq!(t.coords(11), &[0, 1, 0]);
        assert_eq!(t.coords(132), &[0, 0, 1]);
    }

    #[test]
    fn distances_match_brute_force_bfs() {
        let t = build(&[5, 4], &[true, false], 1, "t").unwrap();
        // BFS over channels from router 0.
        let mut dist = vec![u32::MAX; t.num_routers as usize];
        dist[0] = 0;
        let mut q = std::collections::VecDeque::from([0u32]);
        while let Some(r) = q.pop_front() {
            for ch in t.channels.iter().filter(|c| c.src_router == r) {
                if dist[ch.dst_router as usize] == u32::MAX {
                    dist[ch.dst_router as usize] = dist[r as usize] + 1;
                    q.push_back(ch.dst_router);
                }
            }
        }
        for r in 0..t.num_routers {
            assert_eq!(dist[r as usize], t.router_distance(0, r));
        }
    }

    #[test]
    fn summary_closed_forms() {
        // 8x8 torus: diameter 8, avg hops 2 * 8/4 = 4, bisection 4N/k = 32.
        let s = torus(&[8, 8]).summary();
        assert_eq!(s.diameter, 8);
        assert!((s.avg_hops - 4.0).abs() < 1e-12);
        assert_eq!(s.bisection_channels, 32);
        // Uniform throughput bound on a k-even torus: 8/k = 1.0 (bisection) for k = 8.
        assert!((s.uniform_bisection_bound - 1.0).abs() < 1e-12);
        // 8x8 mesh: avg 2*(64-1)/24 = 5.25, diameter 14, bisection 2N/k = 16.
        let m = build(&[8, 8], &[false, false], 1, "t").unwrap().summary();
        assert!((m.avg_hops - 5.25).abs() < 1e-12);
        assert_eq!(m.diameter, 14);
        assert_eq!(m.bisection_channels, 16);
        // Mesh uniform channel bound: centre channel load k/4 per node => 4/k = 0.5.
        assert!((m.uniform_channel_bound - 0.5).abs() < 1e-12, "{}", m.uniform_channel_bound);
    }

    #[test]
    fn bad_dims_name_the_field() {
        let e = build(&[8, 1], &[true, true], 1, "topology").unwrap_err();
        assert_eq!(e.path(), Some("topology.dims[1]"));
        let e = build(&[], &[], 1, "topology").unwrap_err();
        assert_eq!(e.path(), Some("topology.dims"));
        let e = build(&[4], &[true], 0, "topology").unwrap_err();
        assert_eq!(e.path(), Some("topology.concentration"));
    }
}
