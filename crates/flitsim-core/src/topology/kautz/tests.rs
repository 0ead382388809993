//! Graph structure, labels, ports, string-shift routes, routing strings and failures.
//! Expected values come from the paper, from hand derivation, or from an independent
//! construction (brute-force string enumeration, petgraph's shortest paths).

use std::collections::{BTreeSet, HashMap};

use petgraph::algo::dijkstra;
use petgraph::graphmap::DiGraphMap;

use super::faults::{Faults, UNREACHABLE};
use super::{Kautz, RouteStep, SourceRoute};

/// All Kautz strings of length `len` over `0..=d`, in lexicographic order, by brute force
/// over every string of that length (independent of the rank arithmetic).
pub(super) fn brute_labels(d: u32, len: u32) -> Vec<Vec<u8>> {
    let base = d + 1;
    let mut out = Vec::new();
    for mut code in 0..base.pow(len) {
        let mut s = vec![0u8; len as usize];
        for i in (0..len as usize).rev() {
            s[i] = (code % base) as u8;
            code /= base;
        }
        if s.windows(2).all(|w| w[0] != w[1]) {
            out.push(s);
        }
    }
    out
}

/// The arc set by the textbook definition: one arc per Kautz string of length `D + 1`,
/// from its first `D` symbols to its last `D`; that is, `u -> v` iff `u` without its first
/// symbol is `v` without its last, and `u`'s last symbol differs from `v`'s.
pub(super) fn brute_arcs(labels: &[Vec<u8>]) -> BTreeSet<(usize, usize)> {
    let mut arcs = BTreeSet::new();
    for (i, u) in labels.iter().enumerate() {
        for (j, v) in labels.iter().enumerate() {
            if u[1..] == v[..v.len() - 1] && u[u.len() - 1] != v[v.len() - 1] {
                arcs.insert((i, j));
            }
        }
    }
    arcs
}

/// petgraph digraph with only the arcs `keep` accepts.
pub(super) fn petgraph_of(k: &Kautz, keep: impl Fn(u32) -> bool) -> DiGraphMap<u32, ()> {
    let mut g = DiGraphMap::new();
    for n in 0..k.node_count() {
        g.add_node(n);
    }
    for id in (0..k.channel_count()).filter(|&id| keep(id)) {
        let c = k.channel(id);
        g.add_edge(c.src, c.dst, ());
    }
    g
}

/// Hop distances from `src` by petgraph's Dijkstra with unit weights.
pub(super) fn bfs_all(g: &DiGraphMap<u32, ()>, src: u32) -> HashMap<u32, u32> {
    dijkstra(g, src, None, |_| 1u32).into_iter().collect()
}

const SMALL: [(u32, u32); 8] = [(2, 1), (2, 2), (2, 3), (2, 4), (3, 1), (3, 2), (3, 3), (4, 3)];

#[test]
fn figure3_twelve_node_kautz_graph_is_k32() {
    // Section 5: "a twelve node Kautz graph of degree 3 ... The longest path length from
    // one node to any other node is 2 hops": K(3,2), whose labels are the two-symbol
    // strings over {0,1,2,3} with distinct symbols, numbered in lexicographic order.
    let k = Kautz::new(3, 2).unwrap();
    let expected = ["01", "02", "03", "10", "12", "13", "20", "21", "23", "30", "31", "32"];
    let labels: Vec<String> = (0..k.node_count()).map(|n| k.label_string(n)).collect();
    assert_eq!(labels, expected);
    // Edges by hand: xy -> y? for the three symbols ? != y.
    let by_label = |s: &str| k.id_of_str(s).unwrap();
    let out_of = |s: &str| -> Vec<String> { k.out_neighbours(by_label(s)).iter().map(|&n| k.label_string(n)).collect() };
    assert_eq!(out_of("01"), ["10", "12", "13"]);
    assert_eq!(out_of("23"), ["30", "31", "32"]);
    assert_eq!(out_of("30"), ["01", "02", "03"]);
    let in_of = |s: &str| -> Vec<String> { k.in_neighbours(by_label(s)).iter().map(|&n| k.label_string(n)).collect() };
    assert_eq!(in_of("01"), ["10", "20", "30"]);
    assert_eq!(in_of("32"), ["03", "13", "23"]);
    // Every edge, against the textbook definition on the hand-written labels.
    let hand: Vec<Vec<u8>> = expected.iter().map(|s| s.bytes().map(|b| b - b'0').collect()).collect();
    let want = brute_arcs(&hand);
    let got: BTreeSet<(usize, usize)> = k.channels().map(|c| (c.src as usize, c.dst as usize)).collect();
    assert_eq!(got, want);
    assert_eq!(want.len(), 36, "twelve nodes, three links out of each");
    // Diameter 2 (petgraph), and every node drives three links and receives three.
    let g = petgraph_of(&k, |_| true);
    let diameter = (0..12).flat_map(|s| bfs_all(&g, s).into_values()).max();
    assert_eq!(diameter, Some(2));
    for n in 0..12 {
        assert_eq!(g.neighbors_directed(n, petgraph::Direction::Outgoing).count(), 3);
        assert_eq!(g.neighbors_directed(n, petgraph::Direction::Incoming).count(), 3);
    }
}

#[test]
fn node_counts_and_numbering_match_brute_force_enumeration() {
    for (d, len) in SMALL.into_iter().chain([(3, 6), (5, 2)]) {
        let k = Kautz::new(d, len).unwrap();
        let labels = brute_labels(d, len);
        assert_eq!(k.node_count() as usize, labels.len(), "K({d},{len})");
        assert_eq!(u64::from(k.node_count()), u64::from(d + 1) * u64::from(d).pow(len - 1));
        assert_eq!(k.channel_count(), k.node_count() * d);
        for (n, label) in labels.iter().enumerate() {
            assert_eq!(k.label(n as u32), &label[..], "K({d},{len}) node {n}");
            assert_eq!(k.id_of(label).unwrap(), n as u32);
        }
    }
    // The brief's "twelve-node K(2,2)" is not twelve nodes: K(2,2) has 3 * 2 = 6.
    assert_eq!(Kautz::new(2, 2).unwrap().node_count(), 6);
}

#[test]
fn arcs_match_the_definition_and_ports_are_consistent() {
    for (d, len) in SMALL {
        let k = Kautz::new(d, len).unwrap();
        let labels = brute_labels(d, len);
        let want = brute_arcs(&labels);
        let got: BTreeSet<(usize, usize)> = k.channels().map(|c| (c.src as usize, c.dst as usize)).collect();
        assert_eq!(got, want, "K({d},{len})");
        assert_eq!(want.len() as u32, k.channel_count(), "no parallel arcs");
        for (id, c) in k.channels().enumerate() {
            assert_eq!(k.channel_id(c.src, c.out_port), id as u32);
            assert_eq!(k.out_neighbour(c.src, c.out_port), c.dst);
            assert_eq!(k.in_neighbours(c.dst)[c.in_port as usize], c.src);
            assert_eq!(k.out_port_to(c.src, c.dst), Some(c.out_port));
            assert_eq!(k.in_port_from(c.dst, c.src), Some(c.in_port));
            assert_ne!(c.src, c.dst, "no self-loops");
            // Out-port = rank of the appended symbol among symbols != the last one.
            let (x, y) = (k.label(c.src), k.label(c.dst));
            let (last, appended) = (x[x.len() - 1], y[y.len() - 1]);
            let rank = (0..=d as u8).filter(|&s| s != last).position(|s| s == appended);
            assert_eq!(rank, Some(c.out_port as usize));
            // In-port = rank of src's first symbol among symbols != dst's first symbol.
            let rank = (0..=d as u8).filter(|&s| s != y[0]).position(|s| s == x[0]);
            assert_eq!(rank, Some(c.in_port as usize));
        }
        for n in 0..k.node_count() {
            let outs: BTreeSet<u32> = k.out_neighbours(n).iter().copied().collect();
            let ins: BTreeSet<u32> = k.in_neighbours(n).iter().copied().collect();
            assert_eq!(outs.len() as u32, d, "node {n} has d distinct out-neighbours");
            assert_eq!(ins.len() as u32, d, "node {n} has d distinct in-neighbours");
            let in_ports: BTreeSet<u8> = k.channels().filter(|c| c.dst == n).map(|c| c.in_port).collect();
            assert_eq!(in_ports, (0..d as u8).collect(), "in-ports 0..d each used once");
        }
    }
}

#[test]
fn bad_parameters_and_labels_are_errors_naming_the_field() {
    for (d, len, field) in [(1, 3, "degree"), (0, 3, "degree"), (256, 2, "degree")] {
        let e = Kautz::new(d, len).unwrap_err();
        assert_eq!(e.path(), Some(format!("topology.{field}").as_str()), "{e}");
    }
    let e = Kautz::new(3, 0).unwrap_err();
    assert_eq!(e.path(), Some("topology.diameter"));
    let e = Kautz::build(3, 40, "fabric").unwrap_err();
    assert_eq!(e.path(), Some("fabric.diameter"), "{e}");
    assert!(e.to_string().contains("more than"), "{e}");
    let k = Kautz::new(3, 3).unwrap();
    for bad in [&[0u8, 1][..], &[0, 1, 2, 3], &[0, 4, 1], &[0, 1, 1]] {
        let e = k.id_of(bad).unwrap_err();
        assert_eq!(e.path(), Some("label"), "{e}");
    }
    assert!(k.id_of_str("0x1").is_err());
    assert!(k.id_of_str("0-1").is_err());
    assert_eq!(k.walk(0, &[0, 3]).unwrap_err().path(), Some("route[1]"));
    assert!(k.walk(k.node_count(), &[]).is_err());
}

#[test]
fn string_shift_route_is_a_shortest_path_for_all_pairs() {
    // Includes the SC5832's K(3,6): 972 nodes, all 943,812 ordered pairs.
    for (d, len) in SMALL.into_iter().chain([(2, 6), (3, 6)]) {
        let k = Kautz::new(d, len).unwrap();
        let g = petgraph_of(&k, |_| true);
        let mut worst = 0;
        for src in 0..k.node_count() {
            let bfs = bfs_all(&g, src);
            assert_eq!(bfs.len() as u32, k.node_count(), "strongly connected");
            for dst in 0..k.node_count() {
                let route = k.route(src, dst);
                assert_eq!(route.len() as u32, bfs[&dst], "K({d},{len}) {src} -> {dst}");
                assert_eq!(k.distance(src, dst), bfs[&dst]);
                let nodes = k.walk(src, &route).unwrap();
                assert_eq!(nodes.last(), Some(&dst));
                worst = worst.max(route.len() as u32);
            }
        }
        assert_eq!(worst, len, "K({d},{len}) has diameter D");
    }
}

#[test]
fn source_route_packs_two_bits_per_hop_source_switch_lowest() {
    // Hand-packed: ports 2, 0, 1 then the eject symbol 3, two bits each, first hop lowest:
    // 0b11_01_00_10 = 210.
    let r = SourceRoute::encode(&[2, 0, 1], 3).unwrap();
    assert_eq!(r.bits(), 0b1101_0010);
    assert_eq!((r.bits_per_hop(), r.hops(), r.width()), (2, 3, 8));
    assert_eq!(r.ports(), [2, 0, 1]);
    let mut walk = r;
    let steps: Vec<_> = std::iter::from_fn(|| walk.next_step()).collect();
    assert_eq!(steps, [RouteStep::Out(2), RouteStep::Out(0), RouteStep::Out(1), RouteStep::Eject]);
    assert_eq!(walk.next_step(), None);
    // d = 2 also uses two bits (symbols 0, 1 and eject 2); d = 4 needs three.
    assert_eq!(SourceRoute::encode(&[1], 2).unwrap().bits(), 0b10_01);
    assert_eq!(SourceRoute::encode(&[3], 4).unwrap().bits_per_hop(), 3);
    // An empty route is just "eject here".
    assert_eq!(SourceRoute::encode(&[], 3).unwrap().next_step(), Some(RouteStep::Eject));
    // Errors: a port the switch lacks; a route longer than the string.
    assert_eq!(SourceRoute::encode(&[0, 3], 3).unwrap_err().path(), Some("route[1]"));
    assert!(SourceRoute::encode(&[0; 31], 3).is_ok(), "32 symbols of 2 bits fill 64");
    assert_eq!(SourceRoute::encode(&[0; 32], 3).unwrap_err().path(), Some("route"));
    assert!(SourceRoute::encode(&[0], 1).is_err());
}

#[test]
fn every_sc5832_route_fits_the_32_bit_header_and_reaches_its_destination() {
    // Section 3.2: a 32-bit routing string; section 4.1: two bits shifted off per switch.
    let k = Kautz::new(3, 6).unwrap();
    for src in (0..k.node_count()).step_by(7) {
        for dst in 0..k.node_count() {
            let mut r = k.source_route(src, dst).unwrap();
            assert!(r.width() <= 32);
            let mut at = src;
            loop {
                match r.next_step() {
                    Some(RouteStep::Out(p)) => at = k.out_neighbour(at, p),
                    Some(RouteStep::Eject) => break,
                    None => panic!("string ran out before the eject symbol"),
                }
            }
            assert_eq!(at, dst);
        }
    }
}

/// Diameter of the surviving graph by petgraph, over working nodes; None if disconnected.
fn petgraph_diameter(k: &Kautz, f: &Faults) -> Option<u32> {
    let g = petgraph_of(k, |id| f.channel_up(id));
    let up: Vec<u32> = (0..k.node_count()).filter(|&n| f.node_up(n)).collect();
    let mut worst = 0;
    for &s in &up {
        let dist = bfs_all(&g, s);
        for &t in &up {
            worst = worst.max(*dist.get(&t)?);
        }
    }
    Some(worst)
}

/// Diameter after failing each channel alone (`links`) or each node alone.
fn single_failure_diameters(k: &Kautz, links: bool) -> Vec<u32> {
    let count = if links { k.channel_count() } else { k.node_count() };
    (0..count)
        .map(|i| {
            let mut f = Faults::new(k);
            if links {
                f.fail_channel(i).unwrap();
            } else {
                f.fail_node(i).unwrap();
            }
            let diameter = f.diameter();
            assert_eq!(diameter, petgraph_diameter(k, &f), "failure {i} (links: {links})");
            diameter.expect("one failure never disconnects a Kautz graph")
        })
        .collect()
}

#[test]
fn single_failure_grows_the_diameter_by_one_when_d_is_at_least_3() {
    // Section 5: "a link or node failure in a Kautz digraph increases the diameter by just
    // 1". For d >= 3 (the SC5832 has d = 3) every single link or node failure gives
    // exactly D + 1: the claim holds, and is tight.
    for (d, len) in [(3, 2), (3, 3), (4, 2), (3, 4)] {
        let k = Kautz::new(d, len).unwrap();
        for links in [true, false] {
            let diameters = single_failure_diameters(&k, links);
            assert!(diameters.iter().all(|&x| x == len + 1), "K({d},{len}): {diameters:?}");
        }
    }
}

#[test]
fn single_failure_can_grow_the_diameter_by_two_when_d_is_2() {
    // For d = 2 the claim fails: one link or node failure can leave pairs D + 2 apart.
    // By hand in K(2,3) with link 010 -> 102 failed: 010's only other way out is 101, and
    // the one 3-hop walk 101 -> 020 (string 101020) uses the failed link, so 010 -> 020
    // takes 1 + 4 hops (0101 2020: 010 101 012 120 202 020).
    let k = Kautz::new(2, 3).unwrap();
    let mut f = Faults::new(&k);
    let (from, to) = (k.id_of_str("010").unwrap(), k.id_of_str("102").unwrap());
    f.fail_link(from, k.out_port_to(from, to).unwrap()).unwrap();
    let route = f.route(from, k.id_of_str("020").unwrap()).unwrap();
    let path: Vec<String> = k.walk(from, &route).unwrap().iter().map(|&n| k.label_string(n)).collect();
    assert_eq!(path, ["010", "101", "012", "120", "202", "020"]);
    assert_eq!(f.diameter(), Some(5));
    for (d, len) in [(2, 2), (2, 3), (2, 4)] {
        let k = Kautz::new(d, len).unwrap();
        for links in [true, false] {
            let diameters = single_failure_diameters(&k, links);
            assert!(diameters.iter().all(|&x| x == len + 1 || x == len + 2), "{diameters:?}");
            // Links: always some D + 2. Nodes: K(2,2) stays at D + 1, larger ones do not.
            let worst = diameters.iter().copied().max();
            let expect = if !links && len == 2 { len + 1 } else { len + 2 };
            assert_eq!(worst, Some(expect), "K({d},{len}), links: {links}");
        }
    }
}

#[test]
fn routes_around_failures_are_shortest_surviving_paths() {
    let k = Kautz::new(3, 4).unwrap();
    // A deterministic scatter of failed links and nodes.
    let mut f = Faults::new(&k);
    for id in (5..k.channel_count()).step_by(37) {
        f.fail_channel(id).unwrap();
    }
    for n in [11, 50, 77] {
        f.fail_node(n).unwrap();
    }
    f.fail_link(3, 2).unwrap();
    let g = petgraph_of(&k, |id| f.channel_up(id));
    let mut unreachable = 0;
    for src in (0..k.node_count()).filter(|&n| f.node_up(n)) {
        let want = bfs_all(&g, src);
        let dist = f.distances_from(src);
        for dst in (0..k.node_count()).filter(|&n| f.node_up(n)) {
            match (want.get(&dst), f.route(src, dst)) {
                (Some(&h), Some(route)) => {
                    assert_eq!(route.len() as u32, h);
                    assert_eq!(dist[dst as usize], h);
                    let nodes = k.walk(src, &route).unwrap();
                    assert_eq!(nodes.last(), Some(&dst));
                    for (hop, w) in nodes.windows(2).enumerate() {
                        assert!(f.channel_up(k.channel_id(w[0], route[hop])));
                    }
                }
                (None, None) => {
                    assert_eq!(dist[dst as usize], UNREACHABLE);
                    unreachable += 1;
                }
                (want, got) => panic!("{src} -> {dst}: petgraph {want:?}, route {got:?}"),
            }
        }
    }
    let stats = f.distance_stats();
    assert_eq!(stats.unreachable, unreachable);
    assert!(f.route(11, 0).is_none(), "a failed node is not a source");
    assert_eq!(f.distances_from(11), vec![UNREACHABLE; k.node_count() as usize]);
}

#[test]
fn fault_errors_name_the_field() {
    let k = Kautz::new(2, 3).unwrap();
    let mut f = Faults::new(&k);
    assert_eq!(f.fail_node(12).unwrap_err().path(), Some("faults.nodes"));
    assert_eq!(f.fail_channel(24).unwrap_err().path(), Some("faults.channels"));
    assert_eq!(f.fail_link(0, 2).unwrap_err().path(), Some("faults.links"));
    assert_eq!(f.fail_link(12, 0).unwrap_err().path(), Some("faults.links"));
    assert_eq!(f.diameter(), Some(3), "failed calls changed nothing");
}
