//! Tests of the traffic patterns: hand-computed destinations, bijections, rates.

use super::*;
use crate::rng::stream;

fn build(cfg: PatternConfig, space: &NodeSpace) -> Pattern {
    Pattern::build(&cfg, space, 1, "traffic.pattern").unwrap()
}

fn err(cfg: PatternConfig, space: &NodeSpace) -> Error {
    Pattern::build(&cfg, space, 1, "traffic.pattern").unwrap_err()
}

fn dests(p: &Pattern) -> Vec<u32> {
    let mut rng = stream(0, domain::ENDPOINT, 0);
    (0..p.num_nodes()).map(|s| p.dest(s, 0, &mut rng)).collect()
}

fn assert_err(e: Error, path: &str, phrase: &str) {
    assert_eq!(e.path(), Some(path), "{e}");
    assert!(e.to_string().contains(phrase), "`{e}` lacks `{phrase}`");
}

#[test]
fn bit_patterns_on_16_nodes_match_hand_values() {
    let space = NodeSpace::crossbar(16);
    // bit complement: 4-bit NOT, i.e. 15 - s.
    let bc = dests(&build(PatternConfig::BitComplement, &space));
    assert_eq!(bc[5], 10); // 0101 -> 1010
    assert_eq!(bc[0], 15);
    assert_eq!(bc, (0..16).rev().collect::<Vec<u32>>());
    // bit reverse: 0001 -> 1000, 0110 -> 0110, 1011 -> 1101, 0011 -> 1100.
    let br = dests(&build(PatternConfig::BitReverse, &space));
    assert_eq!(br[1], 8);
    assert_eq!(br[6], 6);
    assert_eq!(br[11], 13);
    assert_eq!(br[3], 12);
    // shuffle: 1001 -> 0011, 0100 -> 1000, 1000 -> 0001, 1111 -> 1111.
    let sh = dests(&build(PatternConfig::Shuffle, &space));
    assert_eq!(sh[9], 3);
    assert_eq!(sh[4], 8);
    assert_eq!(sh[8], 1);
    assert_eq!(sh[15], 15);
    // transpose on 4x4: node 1 = (x1, y0) -> (x0, y1) = 4; node 6 = (2,1) -> (1,2) = 9.
    let tr = dests(&build(PatternConfig::Transpose, &space));
    assert_eq!(tr[1], 4);
    assert_eq!(tr[6], 9);
    assert_eq!(tr[11], 14); // (3,2) -> (2,3)
    assert_eq!(tr[5], 5);
}

/// Table 2 of Thottethodi, Lebeck and Mukherjee (global-knowledge self-tuned congestion
/// control, sec. 5.1): destinations of source N154 = 10011010 in a 16-ary 2-cube.
#[test]
fn bit_patterns_match_the_self_tuned_papers_table_2() {
    let space = NodeSpace::cube(&[16, 16], 1);
    let dest = |cfg| dests(&build(cfg, &space))[154];
    assert_eq!(154, 0b1001_1010);
    // Complement: every bit inverted.
    assert_eq!(dest(PatternConfig::BitComplement), 0b0110_0101);
    assert_eq!(dest(PatternConfig::BitComplement), 101);
    // Perfect shuffle: (a6, a5, ..., a0, a7), a left rotation by one bit.
    assert_eq!(dest(PatternConfig::Shuffle), 0b0011_0101);
    assert_eq!(dest(PatternConfig::Shuffle), 53);
    // Bit reversal: (a0, a1, ..., a7).
    assert_eq!(dest(PatternConfig::BitReverse), 0b0101_1001);
    assert_eq!(dest(PatternConfig::BitReverse), 89);
}

#[test]
fn transpose_equals_coordinate_transpose_on_8x8() {
    let p = build(PatternConfig::Transpose, &NodeSpace::cube(&[8, 8], 1));
    let d = dests(&p);
    for y in 0..8 {
        for x in 0..8 {
            assert_eq!(d[(y * 8 + x) as usize], x * 8 + y);
        }
    }
}

#[test]
fn bit_patterns_are_permutations() {
    let space = NodeSpace::crossbar(64);
    for cfg in [PatternConfig::BitComplement, PatternConfig::BitReverse, PatternConfig::Shuffle, PatternConfig::Transpose] {
        let mut d = dests(&build(cfg.clone(), &space));
        d.sort_unstable();
        assert_eq!(d, (0..64).collect::<Vec<u32>>(), "{cfg:?}");
    }
}

#[test]
fn tornado_on_8_ary_2_cube() {
    let p = build(PatternConfig::Tornado, &NodeSpace::cube(&[8, 8], 1));
    // (x, y) = (1, 2) is node 2*8 + 1 = 17; k = 8 moves 3 hops: (4, 5) = 44.
    assert_eq!(dests(&p)[17], 44);
    // (6, 7) -> (9 mod 8, 10 mod 8) = (1, 2) = 17.
    assert_eq!(dests(&p)[7 * 8 + 6], 17);
}

#[test]
fn tornado_on_mixed_5x4() {
    // x radix 5 moves ceil(5/2)-1 = 2, y radix 4 moves ceil(4/2)-1 = 1.
    let d = dests(&build(PatternConfig::Tornado, &NodeSpace::cube(&[5, 4], 1)));
    assert_eq!(d[0], 5 + 2); // (0,0) -> (2,1)
    assert_eq!(d[3 * 5 + 4], 1); // (4,3) -> (1,0)
    assert_eq!(d[2 * 5 + 3], 3 * 5); // (3,2) -> (0,3)
}

#[test]
fn neighbor_wraps() {
    let d = dests(&build(PatternConfig::Neighbor, &NodeSpace::cube(&[4, 3], 1)));
    assert_eq!(d[0], 4 + 1); // (0,0) -> (1,1)
    assert_eq!(d[2 * 4 + 3], 0); // (3,2) -> (0,0)
    assert_eq!(d[4 + 3], 2 * 4); // (3,1) -> (0,2)
}

#[test]
fn concentration_keeps_the_local_index() {
    // 4x4 routers, 2 endpoints each: node = router*2 + local.
    let space = NodeSpace::cube(&[4, 4], 2);
    let d = dests(&build(PatternConfig::Neighbor, &space));
    // router (1,2) = 9; nodes 18 and 19 -> router (2,3) = 14, nodes 28 and 29.
    assert_eq!(d[18], 28);
    assert_eq!(d[19], 29);
    let t = dests(&build(PatternConfig::Tornado, &space));
    // k = 4 moves 1 hop: same as neighbor here.
    assert_eq!(t, d);
}

#[test]
fn random_permutation_is_a_seeded_bijection() {
    let space = NodeSpace::crossbar(100);
    let perm = |seed: Option<u64>, run: u64| dests(&Pattern::build(&PatternConfig::RandomPermutation { seed }, &space, run, "p").unwrap());
    let a = perm(Some(5), 1);
    let mut sorted = a.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..100).collect::<Vec<u32>>());
    assert_eq!(a, perm(Some(5), 2), "explicit seed overrides the run seed");
    assert_ne!(a, perm(Some(6), 1));
    assert_eq!(perm(None, 9), perm(Some(9), 1), "no seed means the run seed");
    assert_ne!(perm(None, 9), perm(None, 10));
}

#[test]
fn uniform_covers_all_nodes_evenly() {
    let n = 16u32;
    let p = build(PatternConfig::Uniform, &NodeSpace::crossbar(n));
    let mut rng = stream(11, domain::ENDPOINT, 3);
    let draws = 160_000u32;
    let mut counts = vec![0u32; n as usize];
    for i in 0..draws {
        counts[p.dest(i % n, 0, &mut rng) as usize] += 1;
    }
    let expected = (draws / n) as f64;
    let chi2: f64 = counts.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
    // 15 degrees of freedom: mean 15, sd sqrt(30) ~ 5.5; 60 is beyond 8 sd.
    assert!(chi2 < 60.0, "chi2 {chi2}, counts {counts:?}");
    assert!(counts.iter().all(|&c| c > 0));
}

#[test]
fn hotspot_fraction_is_honoured() {
    let n = 64u32;
    let p = build(PatternConfig::Hotspot { nodes: vec![5, 40], fraction: 0.3 }, &NodeSpace::crossbar(n));
    let mut rng = stream(12, domain::ENDPOINT, 0);
    let draws = 200_000u32;
    let (mut to5, mut to40) = (0u32, 0u32);
    for i in 0..draws {
        match p.dest(i % n, 0, &mut rng) {
            5 => to5 += 1,
            40 => to40 += 1,
            _ => {}
        }
    }
    // P(dest = 5) = 0.3/2 + 0.7/64.
    let q = 0.15 + 0.7 / 64.0;
    let mean = draws as f64 * q;
    let sd = (draws as f64 * q * (1.0 - q)).sqrt();
    for c in [to5, to40] {
        assert!((c as f64 - mean).abs() < 5.0 * sd, "{c} vs {mean} +- {sd}");
    }
}

#[test]
fn merge_to_one() {
    let p = build(PatternConfig::MergeToOne { dest: 3 }, &NodeSpace::crossbar(8));
    let mut rng = stream(0, domain::ENDPOINT, 0);
    assert!(!p.is_source(3));
    for s in (0..8).filter(|&s| s != 3) {
        assert!(p.is_source(s));
        assert_eq!(p.dest(s, 0, &mut rng), 3);
    }
}

#[test]
fn validation_errors() {
    let x64 = NodeSpace::cube(&[8, 8], 1);
    let e = err(PatternConfig::Hotspot { nodes: vec![1, 70], fraction: 0.5 }, &x64);
    assert_err(e, "traffic.pattern.nodes", "node 70 is outside the network (nodes are 0..63)");
    let e = err(PatternConfig::Hotspot { nodes: vec![], fraction: 0.5 }, &x64);
    assert_err(e, "traffic.pattern.nodes", "at least one");
    let e = err(PatternConfig::Hotspot { nodes: vec![2, 2], fraction: 0.5 }, &x64);
    assert_err(e, "traffic.pattern.nodes", "node 2 is listed more than once");
    for f in [-0.1, 1.5, f64::NAN] {
        let e = err(PatternConfig::Hotspot { nodes: vec![0], fraction: f }, &x64);
        assert_err(e, "traffic.pattern.fraction", "must be in [0, 1]");
    }
    let e = err(PatternConfig::MergeToOne { dest: 64 }, &x64);
    assert_err(e, "traffic.pattern.dest", "node 64 is outside the network (nodes are 0..63)");

    let x48 = NodeSpace::cube(&[6, 8], 1);
    for cfg in [PatternConfig::BitComplement, PatternConfig::BitReverse, PatternConfig::Shuffle, PatternConfig::Transpose] {
        let e = err(cfg, &x48);
        assert_err(e.clone(), "traffic.pattern.type", "network has 48 nodes");
        assert!(e.to_string().contains("32 or 64 nodes, or the `uniform` pattern"), "{e}");
    }
    let e = err(PatternConfig::Transpose, &NodeSpace::cube(&[8, 4], 1));
    assert_err(e, "traffic.pattern.type", "odd number of id bits");

    for cfg in [PatternConfig::Tornado, PatternConfig::Neighbor] {
        let e = Pattern::build(&cfg, &NodeSpace::crossbar(16), 1, "traffic.phases[2].pattern").unwrap_err();
        assert_err(e, "traffic.phases[2].pattern.type", "have none");
    }
}

#[test]
fn config_parses_from_toml() {
    #[derive(Deserialize)]
    struct T {
        pattern: PatternConfig,
    }
    let parse = |s: &str| toml::from_str::<T>(s).map(|t| t.pattern);
    assert_eq!(parse("pattern = { type = \"bit_reverse\" }").unwrap(), PatternConfig::BitReverse);
    assert_eq!(parse("pattern = { type = \"random_permutation\" }").unwrap(), PatternConfig::RandomPermutation { seed: None });
    assert_eq!(
        parse("[pattern]\ntype = \"hotspot\"\nnodes = [0, 9]\nfraction = 0.25").unwrap(),
        PatternConfig::Hotspot { nodes: vec![0, 9], fraction: 0.25 }
    );
    assert!(parse("pattern = { type = \"merge_to_one\", dest = 1, extra = 2 }").is_err());
    assert!(parse("pattern = { type = \"nope\" }").unwrap_err().to_string().contains("unknown variant"));
    // Stray keys on parameterless patterns are rejected too.
    assert!(parse("pattern = { type = \"tornado\", k = 8 }").unwrap_err().to_string().contains("unknown field `k`"));
    assert!(parse("pattern = { type = \"uniform\", fraction = 0.5 }").is_err());
    assert_eq!(parse("pattern = { type = \"all_to_all\" }").unwrap(), PatternConfig::AllToAll);
    assert!(parse("pattern = { type = \"all_to_all\", rounds = 2 }").is_err());
    // Serialization round-trips.
    for cfg in [
        PatternConfig::Uniform,
        PatternConfig::RandomPermutation { seed: Some(3) },
        PatternConfig::MergeToOne { dest: 2 },
        PatternConfig::AllToAll,
    ] {
        #[derive(Serialize)]
        struct S<'a> {
            pattern: &'a PatternConfig,
        }
        let text = toml::to_string(&S { pattern: &cfg }).unwrap();
        assert_eq!(parse(&text).unwrap(), cfg, "{text}");
    }
}

#[test]
fn all_to_all_sequence_on_5_nodes_matches_hand_values() {
    let p = build(PatternConfig::AllToAll, &NodeSpace::crossbar(5));
    let mut rng = stream(0, domain::ENDPOINT, 0);
    let before = rng.clone();
    let seq = |s: u32, rng: &mut SimRng| (0..10).map(|k| p.dest(s, k, rng)).collect::<Vec<_>>();
    // Source 0: 0 + 1 + (k mod 4), mod 5.
    assert_eq!(seq(0, &mut rng), [1, 2, 3, 4, 1, 2, 3, 4, 1, 2]);
    // Source 3: 3 + 1 + (k mod 4), mod 5.
    assert_eq!(seq(3, &mut rng), [4, 0, 1, 2, 4, 0, 1, 2, 4, 0]);
    // Deterministic: nothing drawn.
    assert_eq!(format!("{rng:?}"), format!("{before:?}"));
    assert!((0..5).all(|s| p.is_source(s)));
}

#[test]
fn all_to_all_steps_are_permutations_without_fixed_points() {
    for n in [2u32, 3, 5, 16, 17] {
        let p = build(PatternConfig::AllToAll, &NodeSpace::crossbar(n));
        let mut rng = stream(0, domain::ENDPOINT, 0);
        for k in 0..(3 * n as u64) {
            let mut hit = vec![false; n as usize];
            for s in 0..n {
                let d = p.dest(s, k, &mut rng);
                assert_ne!(d, s, "n {n} k {k}: fixed point");
                assert!(!hit[d as usize], "n {n} k {k}: {d} hit twice");
                hit[d as usize] = true;
            }
        }
        // Each source's N - 1 consecutive packets visit every other node once.
        for s in 0..n {
            let mut seen: Vec<u32> = (5..5 + n as u64 - 1).map(|k| p.dest(s, k, &mut rng)).collect();
            seen.sort_unstable();
            let others: Vec<u32> = (0..n).filter(|&d| d != s).collect();
            assert_eq!(seen, others, "n {n} s {s}");
        }
    }
}

#[test]
fn all_to_all_needs_two_nodes() {
    let e = err(PatternConfig::AllToAll, &NodeSpace::crossbar(1));
    assert_err(e, "traffic.pattern.type", "at least 2 nodes");
    let e = Pattern::build(&PatternConfig::AllToAll, &NodeSpace::crossbar(1), 1, "traffic.phases[0].pattern").unwrap_err();
    assert_err(e, "traffic.phases[0].pattern.type", "1 node");
}

/// `complement` (N - 1 - s) is `bit_complement` whenever N is a power of two.
#[test]
fn complement_is_bit_complement_on_powers_of_two() {
    for n in [1u32, 2, 16, 64, 1024] {
        let space = NodeSpace::crossbar(n);
        assert_eq!(dests(&build(PatternConfig::Complement, &space)), dests(&build(PatternConfig::BitComplement, &space)), "N = {n}");
    }
}

/// On a torus with concentration 1, `complement` is coordinate complement in every
/// dimension, `c_i -> k_i - 1 - c_i`, for any radices (9 x 9 x 12, the 972-node torus
/// compared with the SC5832), and so bit complement of every coordinate when the radices
/// are powers of two (4 x 8 x 2). Proof by the mixed-radix identity
/// `N - 1 - sum c_i w_i = sum (k_i - 1 - c_i) w_i` (as `N - 1 = sum (k_i - 1) w_i`),
/// checked here for every node.
#[test]
fn complement_is_coordinate_complement_on_a_torus() {
    for dims in [vec![9u32, 9, 12], vec![4, 8, 2], vec![5, 3]] {
        let space = NodeSpace::cube(&dims, 1);
        let d = dests(&build(PatternConfig::Complement, &space));
        let coords = |mut id: u32| dims.iter().map(|&k| (id % k, id /= k).0).collect::<Vec<u32>>();
        for s in 0..space.num_nodes {
            let (cs, cd) = (coords(s), coords(d[s as usize]));
            for (i, &k) in dims.iter().enumerate() {
                assert_eq!(cd[i], k - 1 - cs[i], "{dims:?}: node {s} dim {i}");
                if k.is_power_of_two() {
                    assert_eq!(cd[i], !cs[i] & (k - 1), "{dims:?}: node {s} dim {i} bits");
                }
            }
        }
    }
}

/// `matrix_transpose` with rows = cols = 2^(b/2) is the existing `transpose`; on 972 nodes
/// it lays them out 27 x 36 and is a permutation; bad layouts are refused.
#[test]
fn matrix_transpose_generalises_transpose() {
    for n in [4u32, 16, 64, 256, 4096] {
        let space = NodeSpace::crossbar(n);
        let k = 1 << (n.trailing_zeros() / 2);
        for rows in [None, Some(k)] {
            assert_eq!(
                dests(&build(PatternConfig::MatrixTranspose { rows }, &space)),
                dests(&build(PatternConfig::Transpose, &space)),
                "N = {n}, rows {rows:?}"
            );
        }
    }
    let space = NodeSpace::crossbar(972);
    let d = dests(&build(PatternConfig::MatrixTranspose { rows: None }, &space));
    // Row-major 27 x 36: node 1 = (0, 1) -> (1, 0) of the 36 x 27 transpose = 27; 36 = (1, 0) -> 1.
    assert_eq!((d[0], d[1], d[36], d[971]), (0, 27, 1, 971));
    let mut sorted = d.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..972).collect::<Vec<u32>>());
    // Given rows: 12 x 81.
    let d = dests(&build(PatternConfig::MatrixTranspose { rows: Some(12) }, &space));
    assert_eq!(d[1], 12);
    assert_err(err(PatternConfig::MatrixTranspose { rows: Some(10) }, &space), "traffic.pattern.rows", "divisor of 972");
    assert_err(err(PatternConfig::MatrixTranspose { rows: Some(1) }, &space), "traffic.pattern.rows", "single row or column");
    assert_err(err(PatternConfig::MatrixTranspose { rows: None }, &NodeSpace::crossbar(13)), "traffic.pattern.type", "prime");
}

#[test]
fn general_patterns_parse_from_toml() {
    let t: crate::traffic::TrafficConfig = toml::from_str("pattern = { type = \"matrix_transpose\", rows = 27 }").unwrap();
    assert_eq!(t.pattern, PatternConfig::MatrixTranspose { rows: Some(27) });
    let t: crate::traffic::TrafficConfig = toml::from_str("pattern = { type = \"complement\" }").unwrap();
    assert_eq!(t.pattern, PatternConfig::Complement);
    assert!(toml::from_str::<crate::traffic::TrafficConfig>("pattern = { type = \"complement\", rows = 2 }").is_err());
}

/// The built pairing of a `process_pairs` pattern.
fn pairs_of(p: &Pattern) -> &processes::ProcessPairs {
    match &p.kind {
        Kind::Processes(pp) => pp,
        other => panic!("not process_pairs: {other:?}"),
    }
}

/// Streams per (source node, destination node) of a `process_pairs` pattern: one per
/// active process. Checks on the way that a node's packets go round robin over its
/// active processes (`Pattern::dest` of packet `k` is its `(k mod a)`-th process's).
fn process_streams(p: &Pattern) -> Vec<Vec<u32>> {
    let pp = pairs_of(p);
    let n = p.num_nodes() as usize;
    let mut rng = stream(0, domain::ENDPOINT, 0);
    let mut m = vec![vec![0u32; n]; n];
    for s in 0..n as u32 {
        let a = pp.active_at(s);
        assert_eq!(p.is_source(s), a > 0);
        for k in 0..3 * a as u64 {
            assert_eq!(p.dest(s, k, &mut rng), pp.dest(s, k % a as u64), "node {s} packet {k}");
        }
        for k in 0..a as u64 {
            m[s as usize][pp.dest(s, k) as usize] += 1;
        }
    }
    m
}

fn process_pairs(per_node: u32, active: Option<u32>, seed: u64) -> PatternConfig {
    PatternConfig::ProcessPairs { per_node, active, seed: Some(seed) }
}

#[test]
fn process_pairs_stream_both_ways_one_stream_per_active_process() {
    // All 30 processes of 10 nodes x 3: every node carries 3 streams, and a pair's two
    // streams run both ways, so the stream matrix is symmetric.
    let space = NodeSpace::crossbar(10);
    for seed in 0..20 {
        let m = process_streams(&build(process_pairs(3, None, seed), &space));
        for (s, row) in m.iter().enumerate() {
            assert_eq!(row.iter().sum::<u32>(), 3, "seed {seed} node {s}");
            for (d, &streams) in row.iter().enumerate() {
                assert_eq!(streams, m[d][s], "seed {seed}: {s}->{d}");
            }
        }
    }
    // The paper's experiment: 5,000 of the SC5832's 5,832 processes in 2,500 pairs.
    let space = NodeSpace::crossbar(972);
    let p = build(process_pairs(6, Some(5000), 7), &space);
    let m = process_streams(&p);
    assert_eq!(m.iter().flatten().sum::<u32>(), 5000);
    assert!((0..972).all(|s| (0..972).all(|d| m[s][d] == m[d][s])));
    assert!((0..972).all(|s| pairs_of(&p).active_at(s) <= 6));
}

#[test]
fn process_pairs_draw_every_matching_and_subset_equally_often() {
    // 4 nodes x 1 process, all active: the 3 perfect matchings, each 1/3 of the seeds.
    let space = NodeSpace::crossbar(4);
    let mut matchings = std::collections::BTreeMap::new();
    for seed in 0..3000 {
        let p = build(process_pairs(1, None, seed), &space);
        let partner_of_0 = pairs_of(&p).dest(0, 0);
        assert_eq!(pairs_of(&p).dest(partner_of_0, 0), 0, "a matching pairs both ways");
        *matchings.entry(partner_of_0).or_insert(0u32) += 1;
    }
    assert_eq!(matchings.len(), 3);
    // Binomial(3000, 1/3): sd 25.8; 5 sd.
    assert!(matchings.values().all(|&c| (870..=1130).contains(&c)), "{matchings:?}");
    // 2 of 4 active: the 6 pairs, each 1/6; the other two nodes send nothing.
    let mut pairs = std::collections::BTreeMap::new();
    for seed in 0..6000 {
        let p = build(process_pairs(1, Some(2), seed), &space);
        let sources: Vec<u32> = (0..4).filter(|&s| p.is_source(s)).collect();
        assert_eq!(sources.len(), 2, "seed {seed}");
        assert_eq!(pairs_of(&p).dest(sources[0], 0), sources[1]);
        *pairs.entry((sources[0], sources[1])).or_insert(0u32) += 1;
    }
    assert_eq!(pairs.len(), 6);
    // Binomial(6000, 1/6): sd 28.9; 5 sd.
    assert!(pairs.values().all(|&c| (855..=1145).contains(&c)), "{pairs:?}");
}

#[test]
fn process_pairs_seed_and_errors() {
    let space = NodeSpace::crossbar(10);
    let with = |seed: Option<u64>, run: u64| {
        process_streams(&Pattern::build(&PatternConfig::ProcessPairs { per_node: 2, active: None, seed }, &space, run, "p").unwrap())
    };
    assert_eq!(with(Some(4), 1), with(Some(4), 2), "an explicit seed overrides the run seed");
    assert_eq!(with(None, 4), with(Some(4), 1), "no seed means the run seed");
    assert_ne!(with(None, 4), with(None, 5));
    assert_err(err(process_pairs(0, None, 1), &space), "traffic.pattern.per_node", "at least one process");
    assert_err(err(process_pairs(2, Some(21), 1), &space), "traffic.pattern.active", "at most 20");
    assert_err(err(process_pairs(2, Some(7), 1), &space), "traffic.pattern.active", "even number");
    assert_err(err(process_pairs(2, Some(0), 1), &space), "traffic.pattern.active", "even number");
    assert_err(err(process_pairs(3, None, 1), &NodeSpace::crossbar(5)), "traffic.pattern.active", "odd number");
    // 2^26 processes at most: 1,024 nodes x 65,537 is refused before anything is drawn.
    assert_err(err(process_pairs(65_537, None, 1), &NodeSpace::crossbar(1024)), "traffic.pattern.per_node", "use fewer per node");
}
