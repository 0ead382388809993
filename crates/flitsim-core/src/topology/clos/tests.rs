//! Tests of the fat-tree graphs: every expected number is derived by hand from the
//! paper's description or a closed form (noted beside it), never read back from the code.

use std::collections::VecDeque;

use super::*;

fn clos(radix: u32, stages: u32, nodes: u32) -> FatTree {
    FatTree::build_clos(radix, stages, Some(nodes), "topology").unwrap()
}

/// Every tree the tests sweep, with a name.
fn zoo() -> Vec<(String, FatTree)> {
    let mut v: Vec<(String, FatTree)> = [16, 32, 64, 128, 256, 512].iter().map(|&n| (format!("clos32x3/{n}"), clos(32, 3, n))).collect();
    v.push(("clos8x5".into(), FatTree::clos(8, 5).unwrap()));
    v.push(("clos4x3/6".into(), clos(4, 3, 6)));
    v.push(("clos8x1".into(), FatTree::clos(8, 1).unwrap()));
    for (k, n) in [(2, 1), (2, 3), (4, 3), (3, 2)] {
        v.push((format!("{k}-ary {n}-tree"), FatTree::k_ary_n_tree(k, n).unwrap()));
    }
    v
}

/// Switch-to-switch links as (lower switch, upper switch), sorted.
fn switch_links(t: &FatTree) -> Vec<(u32, u32)> {
    let mut v: Vec<(u32, u32)> = t
        .channels()
        .iter()
        .filter_map(|c| match (c.src, c.dst, c.dir) {
            (Vertex::Switch(a), Vertex::Switch(b), Dir::Up) => Some((a, b)),
            _ => None,
        })
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn the_papers_512_node_clos_is_wired_as_section_5_1_describes() {
    // 32 line cards with 16 nodes and 16 links to a spine of 16 crossbars; 32-port
    // crossbars, so each spine port meets one line card: one link per (leaf, spine).
    let t = FatTree::paper_512();
    assert_eq!((t.node_count(), t.switch_count(), t.levels(), t.radix()), (512, 48, 2, 32));
    assert_eq!(t.switches_at(0), 0..32);
    assert_eq!(t.switches_at(1), 32..48);
    assert_eq!(t.nodes_per_leaf(), 16);
    // Channels: 512 node links + 32*16 leaf-spine links, two directions each.
    assert_eq!(t.channels().len(), 2 * (512 + 32 * 16));
    for leaf in 0..32u32 {
        assert_eq!(t.level_of(leaf), 0);
        for q in 0..16 {
            let node = 16 * leaf + q;
            assert_eq!((t.leaf_of(node), t.leaf_port_of(node)), (leaf, q));
            assert_eq!(t.port(leaf, q), Some(PortLink { peer: Vertex::Node(node), peer_port: 0, dir: Dir::Down }));
        }
        for j in 0..16 {
            assert_eq!(t.port(leaf, 16 + j), Some(PortLink { peer: Vertex::Switch(32 + j), peer_port: leaf, dir: Dir::Up }));
            assert_eq!(t.port(32 + j, leaf), Some(PortLink { peer: Vertex::Switch(leaf), peer_port: 16 + j, dir: Dir::Down }));
        }
    }
    let expected: Vec<(u32, u32)> = (0..32).flat_map(|l| (0..16).map(move |j| (l, 32 + j))).collect();
    assert_eq!(switch_links(&t), expected, "exactly one link between every leaf and every spine");
    assert_eq!(t.port(0, 32), None);
    assert_eq!(t.port(48, 0), None);
}

#[test]
fn node_switch_and_channel_counts_match_closed_forms() {
    // (tree, nodes, switches, unidirectional channels, levels), each derived by hand:
    // a 3-stage Clos of 32-port crossbars with L line cards has L leaves + 16 spines and
    // 2(16L + 16L) channels; a full 5-stage Clos of k-port crossbars has k^3/4 nodes and
    // 5k^2/4 switches (three tiers of k^2/2, k^2/2, k^2/4) and N up links per tier; a k-ary
    // n-tree has k^n nodes, n k^(n-1) switches and 2 n k^n channels.
    let cases: Vec<(FatTree, u32, u32, usize, u32)> = vec![
        (clos(32, 3, 16), 16, 1 + 16, 2 * (16 + 16), 2),
        (clos(32, 3, 64), 64, 4 + 16, 2 * (64 + 4 * 16), 2),
        (clos(32, 3, 128), 128, 8 + 16, 2 * (128 + 8 * 16), 2),
        (clos(32, 3, 256), 256, 16 + 16, 2 * (256 + 16 * 16), 2),
        (clos(32, 3, 512), 512, 32 + 16, 2 * (512 + 32 * 16), 2),
        (FatTree::clos(32, 5).unwrap(), 32 * 32 * 32 / 4, 5 * 32 * 32 / 4, 2 * 3 * 8192, 3),
        (FatTree::clos(8, 5).unwrap(), 8 * 8 * 8 / 4, 5 * 8 * 8 / 4, 2 * 3 * 128, 3),
        (FatTree::clos(8, 1).unwrap(), 8, 1, 16, 1),
        (FatTree::k_ary_n_tree(2, 3).unwrap(), 8, 3 * 4, 2 * 3 * 8, 3),
        (FatTree::k_ary_n_tree(4, 3).unwrap(), 64, 3 * 16, 2 * 3 * 64, 3),
        (FatTree::k_ary_n_tree(3, 2).unwrap(), 9, 2 * 3, 2 * 2 * 9, 2),
    ];
    for (t, nodes, switches, channels, levels) in cases {
        let name = t.describe();
        assert_eq!((t.node_count(), t.switch_count(), t.channels().len(), t.levels()), (nodes, switches, channels, levels), "{name}");
        let per_level: u32 = (0..levels).map(|l| t.switches_at(l).len() as u32).sum();
        assert_eq!(per_level, switches, "{name}");
    }
    // Tier sizes of the 8192-node Clos: 512 leaves, 512 middle, 256 top crossbars.
    let big = FatTree::clos(32, 5).unwrap();
    assert_eq!((0..3).map(|l| big.switches_at(l).len()).collect::<Vec<_>>(), vec![512, 512, 256]);
}

#[test]
fn ports_are_used_as_the_family_prescribes() {
    // A 64-node (4 line card) Clos: leaves use all 32 ports, spines only ports 0..4.
    let t = clos(32, 3, 64);
    for s in t.switches_at(0) {
        assert!((0..32).all(|p| t.port(s, p).is_some()));
    }
    for s in t.switches_at(1) {
        assert!((0..4).all(|p| t.port(s, p).is_some_and(|l| l.dir == Dir::Down)));
        assert!((4..32).all(|p| t.port(s, p).is_none()));
    }
    // A 4-ary 3-tree: 8-port switches, 4 down and 4 up, the top level's up ports unused.
    let t = FatTree::k_ary_n_tree(4, 3).unwrap();
    assert_eq!(t.radix(), 8);
    for s in 0..t.switch_count() {
        let top = t.level_of(s) == 2;
        assert!((0..4).all(|p| t.port(s, p).is_some_and(|l| l.dir == Dir::Down)));
        assert!((4..8).all(|p| t.port(s, p).map(|l| l.dir) == if top { None } else { Some(Dir::Up) }), "switch {s}");
    }
    assert_eq!((t.down_ports(0), t.up_ports(0), t.up_ports(2), t.down_ports(3)), (4, 4, 0, 0));
}

#[test]
fn k_ary_n_trees_match_petrini_and_vanneschis_definition() {
    // <w, L> -- <w', L+1> iff w_i = w'_i for i != L (L = 0 is the root level); node
    // P(p_0..p_(n-1)) on leaf <p_0..p_(n-2), n-1>. Labels read as base-k numerals with the
    // first digit most significant; Petrini level L is our level n-1-L.
    for (k, n) in [(2u32, 3u32), (4, 3), (3, 2), (2, 4), (3, 3)] {
        let t = FatTree::k_ary_n_tree(k, n).unwrap();
        let per = k.pow(n - 1);
        let digit = |x: u32, i: u32| (x / k.pow(n - 2 - i)) % k;
        let with = |x: u32, i: u32, v: u32| x - digit(x, i) * k.pow(n - 2 - i) + v * k.pow(n - 2 - i);
        let id = |w: u32, petrini_level: u32| (n - 1 - petrini_level) * per + w;
        let mut expected = Vec::new();
        for level in 0..n - 1 {
            for w in 0..per {
                for v in 0..k {
                    expected.push((id(with(w, level, v), level + 1), id(w, level)));
                }
            }
        }
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(switch_links(&t), expected, "{k}-ary {n}-tree");
        for p in 0..k.pow(n) {
            // Leaf label p_0..p_(n-2) = p / k; the node's port is its last digit p_(n-1).
            assert_eq!(t.port(p / k, p % k).map(|l| l.peer), Some(Vertex::Node(p)));
        }
    }
}

#[test]
fn port_tables_and_channels_agree() {
    for (name, t) in zoo() {
        let ch = t.channels();
        for (id, c) in ch.iter().enumerate() {
            // Channels come in pairs: 2e up, 2e+1 down over the same link.
            let rev = ch[id ^ 1];
            assert_eq!((rev.src, rev.src_port, rev.dst, rev.dst_port), (c.dst, c.dst_port, c.src, c.src_port), "{name} {id}");
            assert_eq!(c.dir, if id % 2 == 0 { Dir::Up } else { Dir::Down });
            assert_eq!(t.out_channel(c.src, c.src_port), Some(id as u32), "{name} {id}");
            if let Vertex::Switch(s) = c.src {
                assert_eq!(t.port(s, c.src_port), Some(PortLink { peer: c.dst, peer_port: c.dst_port, dir: c.dir }));
            }
            // Up channels climb exactly one level (nodes are level -1).
            let level = |v: Vertex| match v {
                Vertex::Node(_) => -1,
                Vertex::Switch(s) => t.level_of(s) as i64,
            };
            let step = if c.dir == Dir::Up { 1 } else { -1 };
            assert_eq!(level(c.dst) - level(c.src), step, "{name} {c:?}");
        }
        for p in 0..t.node_count() {
            assert_eq!(ch[t.injection_channel(p) as usize].src, Vertex::Node(p));
            assert_eq!(ch[t.ejection_channel(p) as usize].dst, Vertex::Node(p));
        }
    }
}

#[test]
fn every_node_reaches_every_node() {
    for (name, t) in zoo() {
        let (n, s) = (t.node_count() as usize, t.switch_count() as usize);
        let vid = |v: Vertex| match v {
            Vertex::Node(p) => p as usize,
            Vertex::Switch(x) => n + x as usize,
        };
        let mut adj = vec![Vec::new(); n + s];
        for c in t.channels() {
            adj[vid(c.src)].push(vid(c.dst));
        }
        // Channels are directed: a breadth-first search from node 0 and one from the last
        // node, over out-channels only, reach all nodes each.
        for start in [0, n - 1] {
            let mut seen = vec![false; n + s];
            seen[start] = true;
            let mut q = VecDeque::from([start]);
            while let Some(u) = q.pop_front() {
                for &v in &adj[u] {
                    if !seen[v] {
                        seen[v] = true;
                        q.push_back(v);
                    }
                }
            }
            assert!(seen[..n].iter().all(|&x| x), "{name}: node unreachable from {start}");
        }
    }
}

#[test]
fn common_ancestor_levels_follow_the_node_ids() {
    // 512-node Clos: same line card (p / 16 equal) -> the leaf, level 0; else a spine.
    let t = FatTree::paper_512();
    assert_eq!(t.common_ancestor_level(0, 15), Some(0));
    assert_eq!(t.common_ancestor_level(15, 16), Some(1));
    assert_eq!(t.common_ancestor_level(7, 7), None);
    assert_eq!(t.common_ancestor_level(0, 512), None);
    // 4-ary 3-tree: the level is the number of base-4 digits, from the last, that differ.
    let t = FatTree::k_ary_n_tree(4, 3).unwrap();
    for (a, b, level) in [(0, 3, 0), (0, 4, 1), (5, 14, 1), (0, 16, 2), (63, 0, 2), (17, 18, 0)] {
        assert_eq!(t.common_ancestor_level(a, b), Some(level), "{a} {b}");
    }
}

#[test]
fn bad_parameters_are_config_errors_naming_the_field() {
    let path = |r: Result<FatTree>| r.unwrap_err().path().unwrap().to_string();
    let msg = |r: Result<FatTree>| r.unwrap_err().to_string();
    assert_eq!(path(FatTree::clos(31, 3)), "topology.radix");
    assert!(msg(FatTree::clos(31, 3)).contains("even"));
    assert_eq!(path(FatTree::clos(0, 3)), "topology.radix");
    assert_eq!(path(FatTree::clos(256, 3)), "topology.radix");
    assert_eq!(path(FatTree::clos(32, 0)), "topology.stages");
    assert!(msg(FatTree::clos(32, 4)).contains("odd number of stages"));
    assert_eq!(path(FatTree::clos(32, 17)), "topology.stages");
    assert_eq!(path(FatTree::clos(64, 9)), "topology.stages"); // 2 * 32^5 nodes
    assert_eq!(path(FatTree::build_clos(32, 3, Some(100), "net")), "net.nodes");
    assert!(msg(FatTree::build_clos(32, 3, Some(100), "net")).contains("multiple of 16 from 16 to 512"));
    assert_eq!(path(FatTree::build_clos(32, 3, Some(0), "topology")), "topology.nodes");
    assert_eq!(path(FatTree::build_clos(32, 3, Some(1024), "topology")), "topology.nodes");
    assert_eq!(path(FatTree::build_clos(32, 3, Some(u32::MAX), "topology")), "topology.nodes");
    assert!(msg(FatTree::build_clos(32, 5, Some(300), "topology")).contains("multiple of 256"));
    assert_eq!(path(FatTree::k_ary_n_tree(1, 3)), "topology.k");
    assert_eq!(path(FatTree::k_ary_n_tree(128, 2)), "topology.k");
    assert_eq!(path(FatTree::k_ary_n_tree(u32::MAX, 2)), "topology.k");
    assert_eq!(path(FatTree::clos(u32::MAX, u32::MAX)), "topology.radix");
    assert_eq!(path(FatTree::clos(32, u32::MAX)), "topology.stages");
    assert_eq!(path(FatTree::k_ary_n_tree(4, 0)), "topology.n");
    assert_eq!(path(FatTree::k_ary_n_tree(4, 9)), "topology.n");
    assert_eq!(path(FatTree::k_ary_n_tree(64, 5)), "topology.n");
    // Valid edge cases build.
    assert_eq!(FatTree::clos(2, 3).unwrap().node_count(), 2);
    assert_eq!(FatTree::build_clos(8, 1, Some(5), "topology").unwrap().node_count(), 5);
}

/// Crossing links of a cut, counted from the channel list (both directions / 2).
fn crossing_links(t: &FatTree, b: &Bisection) -> u64 {
    let side = |v: Vertex| match v {
        Vertex::Node(p) => b.node_in_a[p as usize],
        Vertex::Switch(s) => b.switch_in_a[s as usize],
    };
    let channels = t.channels().iter().filter(|c| side(c.src) != side(c.dst)).count() as u64;
    assert_eq!(channels % 2, 0);
    channels / 2
}

#[test]
fn the_bisection_cuts_one_link_per_node_of_a_half() {
    // Splitting the top-level subtrees in half cuts, at each of the T top switches, the
    // t/2 links to the other half's subtrees: T * t / 2 links, = N/2 for these trees
    // (Clos: T = (r/2)^(h-1), N = T t; k-ary n-tree: T = k^(n-1), t = k).
    for (t, top, subtrees) in [
        (clos(32, 3, 512), 16u64, 32u64),
        (clos(32, 3, 128), 16, 8),
        (FatTree::clos(8, 5).unwrap(), 16, 8),
        (FatTree::k_ary_n_tree(4, 3).unwrap(), 16, 4),
    ] {
        let b = t.bisection();
        assert_eq!(b.links, top * subtrees / 2, "{}", t.describe());
        assert_eq!(b.links, t.node_count() as u64 / 2);
    }
    for (name, t) in zoo() {
        let b = t.bisection();
        let n = t.node_count() as u64;
        assert_eq!(b.links, n / 2, "{name}");
        assert_eq!(b.channels(), 2 * (n / 2), "{name}");
        assert_eq!(crossing_links(&t, &b), b.links, "{name}: recount");
        assert_eq!(b.nodes_in_a() as u64, n / 2, "{name}");
        assert!(b.is_full(), "{name}");
        assert_eq!(t.full_bisection_links(), n / 2);
    }
}

/// Every node split with floor(N/2) nodes on side A, as bit masks, and for each the
/// fewest links cut over all 2^S placements of the switches: exhaustive.
fn brute_force_cuts(t: &FatTree) -> Vec<(u32, u64)> {
    let (n, s) = (t.node_count(), t.switch_count());
    assert!(n <= 16 && s <= 14, "too big to enumerate");
    let bit = |v: Vertex| match v {
        Vertex::Node(p) => p,
        Vertex::Switch(x) => n + x,
    };
    let links: Vec<(u32, u32)> = t.channels().iter().filter(|c| c.dir == Dir::Up).map(|c| (bit(c.src), bit(c.dst))).collect();
    let mut out = Vec::new();
    for nodes in (0u32..1 << n).filter(|m| m.count_ones() == n / 2) {
        let best = (0u32..1 << s)
            .map(|sw| {
                let all = nodes | sw << n;
                links.iter().filter(|&&(a, b)| (all >> a & 1) != (all >> b & 1)).count() as u64
            })
            .min()
            .unwrap();
        out.push((nodes, best));
    }
    out
}

#[test]
fn the_bisection_is_cut_optimal_by_exhaustive_search() {
    // Small trees, every balanced node split and every switch placement: the minimum over
    // all of them is floor(N/2), what `bisection` cuts, and for each node split the
    // max-flow placement of `min_cut` is as good as the best of the 2^S placements.
    for t in [
        FatTree::k_ary_n_tree(2, 2).unwrap(),
        FatTree::k_ary_n_tree(2, 3).unwrap(),
        FatTree::k_ary_n_tree(3, 2).unwrap(),
        clos(4, 3, 8),
        clos(4, 3, 6),
    ] {
        let cuts = brute_force_cuts(&t);
        let n = t.node_count();
        let min = cuts.iter().map(|c| c.1).min().unwrap();
        assert_eq!(min, n as u64 / 2, "{}", t.describe());
        assert_eq!(t.bisection().links, min);
        for (mask, best) in cuts {
            let sides: Vec<bool> = (0..n).map(|p| mask >> p & 1 == 1).collect();
            let cut = t.min_cut(&sides).unwrap();
            assert_eq!(cut.links, best, "{} split {mask:b}", t.describe());
            assert_eq!(crossing_links(&t, &cut), best);
        }
    }
}

#[test]
fn random_balanced_splits_never_cut_fewer_than_half_the_nodes() {
    // Full bisection bandwidth: no balanced split can be separated by fewer than N/2 links
    // (and isolating a half's node links always does it with N/2).
    use crate::rng::{below, stream};
    for t in [FatTree::paper_512(), FatTree::k_ary_n_tree(4, 3).unwrap(), FatTree::clos(8, 5).unwrap()] {
        let n = t.node_count();
        let mut rng = stream(11, 99, n as u64);
        for _ in 0..8 {
            let mut ids: Vec<u32> = (0..n).collect();
            for i in (1..n).rev() {
                ids.swap(i as usize, below(&mut rng, i + 1) as usize);
            }
            let mut sides = vec![false; n as usize];
            ids[..n as usize / 2].iter().for_each(|&p| sides[p as usize] = true);
            assert_eq!(t.min_cut(&sides).unwrap().links, n as u64 / 2, "{}", t.describe());
        }
    }
    assert_eq!(FatTree::paper_512().min_cut(&[true; 3]).unwrap_err().path(), Some("bisection.sides"));
}

#[test]
fn a_tapered_tree_is_caught_without_full_bisection() {
    // Two leaves with 4 nodes but only 2 uplinks each (XGFT(2; 4, 2; 1, 2)): the cut
    // between the leaves' subtrees is the 2 spines' links to one leaf, 2 < N/2 = 4.
    let t = FatTree::from_arities(Family::KaryNTree { k: 4, n: 2 }, 8, vec![4, 2], vec![1, 2]).unwrap();
    assert_eq!((t.node_count(), t.switch_count()), (8, 4));
    let b = t.bisection();
    assert_eq!(b.links, 2);
    assert!(!b.is_full());
}
