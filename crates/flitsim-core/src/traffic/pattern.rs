//! Traffic patterns: *where* each packet goes (BookSim `traffic.hpp`).
//!
//! A [`PatternConfig`] is the `[traffic.pattern]` table; [`Pattern::build`] validates it
//! against the network's [`NodeSpace`] and precomputes whatever the hot path needs, so
//! [`Pattern::dest`] is a table lookup or a couple of integer draws and never allocates.
//!
//! Deterministic patterns (bit permutations, tornado, neighbour, random permutation) are
//! flattened into one destination table at build time. As in BookSim, a permutation may
//! map a node to itself (e.g. bit-reverse of node 0); such packets are still generated
//! and it is up to the engine to deliver them through the local router.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::sim::rng::{below, domain, fires, stream, threshold, SimRng};

/// Endpoint layout the patterns need. Endpoint id = `router_index * concentration + local`;
/// `router_index` is mixed radix over `dims` with dimension 0 varying fastest.
///
/// A single crossbar has no coordinates: `dims` is empty and `concentration` equals
/// `num_nodes`. Invariant: `num_nodes == product(dims) * concentration`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSpace {
    /// Number of endpoints (nodes) in the network.
    pub num_nodes: u32,
    /// Radix of each router dimension, dimension 0 first; empty when routers have no
    /// coordinates (a crossbar, or a topology that is not a k-ary n-cube).
    pub dims: Vec<u32>,
    /// Endpoints per router.
    pub concentration: u32,
}

impl NodeSpace {
    /// A single router with `n` endpoints and no coordinates.
    pub fn crossbar(n: u32) -> NodeSpace {
        NodeSpace {
            num_nodes: n,
            dims: Vec::new(),
            concentration: n,
        }
    }

    /// A k-ary n-cube (mesh or torus) with `dims` radices and `concentration` endpoints
    /// per router.
    pub fn cube(dims: &[u32], concentration: u32) -> NodeSpace {
        let routers: u32 = dims.iter().product();
        NodeSpace {
            num_nodes: routers * concentration,
            dims: dims.to_vec(),
            concentration,
        }
    }

    fn assert_consistent(&self) {
        let routers: u64 = self.dims.iter().map(|&k| k as u64).product();
        assert!(
            self.num_nodes >= 1
                && self.concentration >= 1
                && self.dims.iter().all(|&k| k >= 1)
                && routers * self.concentration as u64 == self.num_nodes as u64,
            "inconsistent NodeSpace (engine bug): {self:?}"
        );
    }
}

/// Config table `[traffic.pattern]`: where packets go. Select with `type = "..."`.
#[derive(Serialize, Clone, Debug, PartialEq, Default)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PatternConfig {
    /// Uniform random destination over all nodes, the source itself included (BookSim
    /// convention). The default pattern.
    #[default]
    Uniform,
    /// `dest = !src` within `log2(N)` bits. Needs a power-of-two node count N.
    BitComplement,
    /// `dest` = the `log2(N)`-bit id of `src` written backwards. Needs a power-of-two N.
    BitReverse,
    /// Perfect shuffle: rotate the `log2(N)`-bit id left by one. Needs a power-of-two N.
    Shuffle,
    /// Swap the high and low halves of the `log2(N)`-bit id. Needs N = 2^b with b even;
    /// on a k x k network (k a power of two, concentration 1) this is coordinate transpose
    /// `(x, y) -> (y, x)`.
    Transpose,
    /// Per router dimension of radix k: `d = (s + ceil(k/2) - 1) mod k`; the local endpoint
    /// index is kept. Needs a topology with coordinates (a k-ary n-cube).
    Tornado,
    /// Per router dimension of radix k: `d = (s + 1) mod k`; the local endpoint index is
    /// kept. Needs a topology with coordinates (a k-ary n-cube).
    Neighbor,
    /// A random permutation of the nodes, fixed when the network is built (Fisher-Yates).
    RandomPermutation {
        /// Seed of the permutation. Default: the run seed, so each run seed gives its own
        /// permutation; set it to keep one permutation across runs.
        #[serde(default)]
        seed: Option<u64>,
    },
    /// With probability `fraction` a packet goes to one of `nodes` (chosen uniformly),
    /// otherwise to a uniformly random node of the whole network.
    Hotspot {
        /// The hot-spot node ids, each in `0..N`, no repeats. Required, non-empty.
        nodes: Vec<u32>,
        /// Probability in [0, 1] that a packet targets a hot-spot node. Required.
        fraction: f64,
    },
    /// Every node except `dest` sends only to `dest`; `dest` itself sends nothing.
    MergeToOne {
        /// The node everyone sends to, in `0..N`. Required.
        dest: u32,
    },
}

/// Deserialization mirror of [`PatternConfig`], externally tagged so that errors inside
/// the table keep their key path (see [`crate::config::deserialize_tagged`]), with the
/// unit variants written as empty struct variants so that stray keys are refused:
/// `{ type = "tornado", k = 8 }` must be an error, not silently accepted.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum RawPattern {
    Uniform {},
    BitComplement {},
    BitReverse {},
    Shuffle {},
    Transpose {},
    Tornado {},
    Neighbor {},
    RandomPermutation {
        #[serde(default)]
        seed: Option<u64>,
    },
    Hotspot {
        nodes: Vec<u32>,
        fraction: f64,
    },
    MergeToOne {
        dest: u32,
    },
}

impl<'de> Deserialize<'de> for PatternConfig {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        crate::config::deserialize_tagged::<D, RawPattern>(deserializer, "traffic pattern", None)
            .map(Into::into)
    }
}

impl From<RawPattern> for PatternConfig {
    fn from(raw: RawPattern) -> Self {
        match raw {
            RawPattern::Uniform {} => PatternConfig::Uniform,
            RawPattern::BitComplement {} => PatternConfig::BitComplement,
            RawPattern::BitReverse {} => PatternConfig::BitReverse,
            RawPattern::Shuffle {} => PatternConfig::Shuffle,
            RawPattern::Transpose {} => PatternConfig::Transpose,
            RawPattern::Tornado {} => PatternConfig::Tornado,
            RawPattern::Neighbor {} => PatternConfig::Neighbor,
            RawPattern::RandomPermutation { seed } => PatternConfig::RandomPermutation { seed },
            RawPattern::Hotspot { nodes, fraction } => PatternConfig::Hotspot { nodes, fraction },
            RawPattern::MergeToOne { dest } => PatternConfig::MergeToOne { dest },
        }
    }
}

/// Registry entries for `flitsim list`.
pub(crate) const REGISTRY: &[crate::config::registry::Entry] = &[
    entry(
        "uniform",
        "uniform random destination over all nodes, source included",
        &[],
    ),
    entry(
        "bit_complement",
        "dest = !src in log2(N) bits; N a power of two",
        &[],
    ),
    entry(
        "bit_reverse",
        "dest = src's log2(N) bits reversed; N a power of two",
        &[],
    ),
    entry(
        "shuffle",
        "perfect shuffle: rotate log2(N)-bit id left by 1; N a power of two",
        &[],
    ),
    entry(
        "transpose",
        "swap high and low halves of the id; N = 2^b, b even",
        &[],
    ),
    entry(
        "tornado",
        "each coordinate moves ceil(k/2)-1 hops forward; k-ary n-cubes",
        &[],
    ),
    entry(
        "neighbor",
        "each coordinate moves one hop forward (mod k); k-ary n-cubes",
        &[],
    ),
    entry(
        "random_permutation",
        "random permutation of the nodes fixed at build time",
        &[("seed", "run seed", "seed of the permutation")],
    ),
    entry(
        "hotspot",
        "a fraction of packets to hot-spot nodes, the rest uniform",
        &[
            (
                "nodes",
                "required",
                "hot-spot node ids, non-empty, no repeats",
            ),
            (
                "fraction",
                "required",
                "probability in [0, 1] of targeting a hot spot",
            ),
        ],
    ),
    entry(
        "merge_to_one",
        "every other node sends to one node, which sends nothing",
        &[("dest", "required", "the destination node id")],
    ),
];

const fn entry(
    name: &'static str,
    summary: &'static str,
    params: &'static [(&'static str, &'static str, &'static str)],
) -> crate::config::registry::Entry {
    crate::config::registry::Entry {
        family: "pattern",
        name,
        summary,
        params,
    }
}

/// A built, validated traffic pattern. Cheap to query from the hot loop.
#[derive(Clone, Debug)]
pub struct Pattern {
    kind: Kind,
    num_nodes: u32,
}

#[derive(Clone, Debug)]
enum Kind {
    Uniform,
    /// `table[src]` is the destination of every packet from `src`.
    Table(Box<[u32]>),
    Hotspot {
        hot: Box<[u32]>,
        hot_threshold: u64,
    },
    MergeToOne {
        dest: u32,
    },
}

impl Pattern {
    /// Validate `cfg` against `space` and build the pattern.
    ///
    /// `path` is the config key path of this pattern table, e.g. `"traffic.pattern"` or
    /// `"traffic.phases[2].pattern"`; errors name `{path}.nodes` etc. `run_seed` seeds a
    /// random permutation that has no seed of its own.
    ///
    /// # Panics
    /// If `space` is inconsistent (`num_nodes != product(dims) * concentration`): the
    /// engine builds it, so that is an engine bug, not a config error.
    pub fn build(
        cfg: &PatternConfig,
        space: &NodeSpace,
        run_seed: u64,
        path: &str,
    ) -> Result<Pattern> {
        space.assert_consistent();
        let n = space.num_nodes;
        let kind = match cfg {
            PatternConfig::Uniform => Kind::Uniform,
            PatternConfig::BitComplement => {
                let bits = power_of_two_bits(n, "bit_complement", path)?;
                table(n, |s| !s & mask(bits))
            }
            PatternConfig::BitReverse => {
                let bits = power_of_two_bits(n, "bit_reverse", path)?;
                table(n, |s| bit_reverse(s, bits))
            }
            PatternConfig::Shuffle => {
                let bits = power_of_two_bits(n, "shuffle", path)?;
                table(n, |s| shuffle(s, bits))
            }
            PatternConfig::Transpose => {
                let bits = power_of_two_bits(n, "transpose", path)?;
                if bits % 2 != 0 {
                    return Err(Error::config(
                        format!("{path}.type"),
                        format!(
                            "transpose swaps the two halves of a node id, but the network has {n} = 2^{bits} \
                             nodes, an odd number of id bits; use a node count of 2^b with b even \
                             (e.g. {} or {}) or another pattern such as `bit_reverse`",
                            n / 2,
                            n * 2
                        ),
                    ));
                }
                table(n, |s| transpose(s, bits))
            }
            PatternConfig::Tornado => {
                require_coordinates(space, "tornado", path)?;
                table(n, |s| coordinate_shift(space, s, |k| k.div_ceil(2) - 1))
            }
            PatternConfig::Neighbor => {
                require_coordinates(space, "neighbor", path)?;
                table(n, |s| coordinate_shift(space, s, |_| 1))
            }
            PatternConfig::RandomPermutation { seed } => {
                let mut rng = stream(seed.unwrap_or(run_seed), domain::PATTERN, 0);
                let mut perm: Vec<u32> = (0..n).collect();
                for i in (1..n).rev() {
                    let j = below(&mut rng, i + 1);
                    perm.swap(i as usize, j as usize);
                }
                Kind::Table(perm.into_boxed_slice())
            }
            PatternConfig::Hotspot { nodes, fraction } => {
                let nodes_path = format!("{path}.nodes");
                if nodes.is_empty() {
                    return Err(Error::config(
                        nodes_path,
                        "hotspot needs at least one hot-spot node; list node ids, e.g. `nodes = [0]`",
                    ));
                }
                for (i, &node) in nodes.iter().enumerate() {
                    check_node(node, n, &nodes_path)?;
                    if nodes[..i].contains(&node) {
                        return Err(Error::config(
                            nodes_path,
                            format!("node {node} is listed more than once; list each hot-spot node once"),
                        ));
                    }
                }
                if !(0.0..=1.0).contains(fraction) {
                    return Err(Error::config(
                        format!("{path}.fraction"),
                        format!(
                            "fraction {fraction} is not a probability; it must be in [0, 1] \
                             (the share of packets sent to the hot-spot nodes)"
                        ),
                    ));
                }
                Kind::Hotspot {
                    hot: nodes.clone().into_boxed_slice(),
                    hot_threshold: threshold(*fraction),
                }
            }
            PatternConfig::MergeToOne { dest } => {
                check_node(*dest, n, &format!("{path}.dest"))?;
                Kind::MergeToOne { dest: *dest }
            }
        };
        Ok(Pattern { kind, num_nodes: n })
    }

    /// Number of nodes this pattern was built for.
    pub fn num_nodes(&self) -> u32 {
        self.num_nodes
    }

    /// Does `src` send at all under this pattern? (false only for merge_to_one's `dest`)
    #[inline]
    pub fn is_source(&self, src: u32) -> bool {
        match self.kind {
            Kind::MergeToOne { dest } => src != dest,
            _ => true,
        }
    }

    /// Destination of the next packet from `src` (`src < num_nodes`). Hot path: no
    /// allocation; deterministic patterns draw nothing from `rng`.
    #[inline]
    pub fn dest(&self, src: u32, rng: &mut SimRng) -> u32 {
        debug_assert!(src < self.num_nodes);
        match &self.kind {
            Kind::Uniform => below(rng, self.num_nodes),
            Kind::Table(table) => table[src as usize],
            Kind::Hotspot { hot, hot_threshold } => {
                if fires(rng, *hot_threshold) {
                    hot[below(rng, hot.len() as u32) as usize]
                } else {
                    below(rng, self.num_nodes)
                }
            }
            Kind::MergeToOne { dest } => *dest,
        }
    }
}

fn table(n: u32, f: impl Fn(u32) -> u32) -> Kind {
    Kind::Table((0..n).map(f).collect())
}

fn check_node(node: u32, n: u32, path: &str) -> Result<()> {
    if node >= n {
        return Err(Error::config(
            path,
            format!(
                "node {node} is outside the network (nodes are 0..{})",
                n - 1
            ),
        ));
    }
    Ok(())
}

/// `log2(n)` if `n` is a power of two, else a config error naming the pattern.
fn power_of_two_bits(n: u32, name: &str, path: &str) -> Result<u32> {
    if n.is_power_of_two() {
        return Ok(n.trailing_zeros());
    }
    let below = 1u32 << (31 - n.leading_zeros());
    Err(Error::config(
        format!("{path}.type"),
        format!(
            "{name} permutes the bits of node ids, so it needs a power-of-two node count, but the \
             network has {n} nodes; use a network of {below} or {} nodes, or the `uniform` pattern",
            below as u64 * 2
        ),
    ))
}

fn require_coordinates(space: &NodeSpace, name: &str, path: &str) -> Result<()> {
    if space.dims.is_empty() {
        return Err(Error::config(
            format!("{path}.type"),
            format!(
                "{name} moves packets along router coordinates, but this topology's routers have \
                 none (e.g. a single crossbar); use a k-ary n-cube topology (torus, mesh, cube) or a \
                 pattern on node ids such as `uniform` or `random_permutation`"
            ),
        ));
    }
    Ok(())
}

#[inline]
fn mask(bits: u32) -> u32 {
    if bits == 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

fn bit_reverse(src: u32, bits: u32) -> u32 {
    if bits == 0 {
        0
    } else {
        src.reverse_bits() >> (32 - bits)
    }
}

fn shuffle(src: u32, bits: u32) -> u32 {
    if bits == 0 {
        0
    } else {
        ((src << 1) | (src >> (bits - 1))) & mask(bits)
    }
}

fn transpose(src: u32, bits: u32) -> u32 {
    let half = bits / 2;
    if half == 0 {
        return src;
    }
    ((src << half) | (src >> half)) & mask(bits)
}

/// Move every router coordinate forward by `step(k)` (mod k), keeping the local index.
fn coordinate_shift(space: &NodeSpace, src: u32, step: impl Fn(u32) -> u32) -> u32 {
    let c = space.concentration;
    let local = src % c;
    let mut rest = src / c;
    let mut router = 0u32;
    let mut weight = 1u32;
    for &k in &space.dims {
        let s = rest % k;
        rest /= k;
        let d = (s + step(k)) % k;
        router += d * weight;
        weight *= k;
    }
    router * c + local
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    fn build(cfg: PatternConfig, space: &NodeSpace) -> Pattern {
        Pattern::build(&cfg, space, 1, "traffic.pattern").unwrap()
    }

    fn err(cfg: PatternConfig, space: &NodeSpace) -> Error {
        Pattern::build(&cfg, space, 1, "traffic.pattern").unwrap_err()
    }

    fn dests(p: &Pattern) -> Vec<u32> {
        let mut rng = stream(0, domain::ENDPOINT, 0);
        (0..p.num_nodes()).map(|s| p.dest(s, &mut rng)).collect()
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
        for cfg in [
            PatternConfig::BitComplement,
            PatternConfig::BitReverse,
            PatternConfig::Shuffle,
            PatternConfig::Transpose,
        ] {
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
        let d = dests(&build(
            PatternConfig::Neighbor,
            &NodeSpace::cube(&[4, 3], 1),
        ));
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
        let perm = |seed: Option<u64>, run: u64| {
            dests(
                &Pattern::build(&PatternConfig::RandomPermutation { seed }, &space, run, "p")
                    .unwrap(),
            )
        };
        let a = perm(Some(5), 1);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..100).collect::<Vec<u32>>());
        assert_eq!(a, perm(Some(5), 2), "explicit seed overrides the run seed");
        assert_ne!(a, perm(Some(6), 1));
        assert_eq!(
            perm(None, 9),
            perm(Some(9), 1),
            "no seed means the run seed"
        );
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
            counts[p.dest(i % n, &mut rng) as usize] += 1;
        }
        let expected = (draws / n) as f64;
        let chi2: f64 = counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        // 15 degrees of freedom: mean 15, sd sqrt(30) ~ 5.5; 60 is beyond 8 sd.
        assert!(chi2 < 60.0, "chi2 {chi2}, counts {counts:?}");
        assert!(counts.iter().all(|&c| c > 0));
    }

    #[test]
    fn hotspot_fraction_is_honoured() {
        let n = 64u32;
        let p = build(
            PatternConfig::Hotspot {
                nodes: vec![5, 40],
                fraction: 0.3,
            },
            &NodeSpace::crossbar(n),
        );
        let mut rng = stream(12, domain::ENDPOINT, 0);
        let draws = 200_000u32;
        let (mut to5, mut to40) = (0u32, 0u32);
        for i in 0..draws {
            match p.dest(i % n, &mut rng) {
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
        let p = build(
            PatternConfig::MergeToOne { dest: 3 },
            &NodeSpace::crossbar(8),
        );
        let mut rng = stream(0, domain::ENDPOINT, 0);
        assert!(!p.is_source(3));
        for s in (0..8).filter(|&s| s != 3) {
            assert!(p.is_source(s));
            assert_eq!(p.dest(s, &mut rng), 3);
        }
    }

    #[test]
    fn validation_errors() {
        let x64 = NodeSpace::cube(&[8, 8], 1);
        let e = err(
            PatternConfig::Hotspot {
                nodes: vec![1, 70],
                fraction: 0.5,
            },
            &x64,
        );
        assert_err(
            e,
            "traffic.pattern.nodes",
            "node 70 is outside the network (nodes are 0..63)",
        );
        let e = err(
            PatternConfig::Hotspot {
                nodes: vec![],
                fraction: 0.5,
            },
            &x64,
        );
        assert_err(e, "traffic.pattern.nodes", "at least one");
        let e = err(
            PatternConfig::Hotspot {
                nodes: vec![2, 2],
                fraction: 0.5,
            },
            &x64,
        );
        assert_err(
            e,
            "traffic.pattern.nodes",
            "node 2 is listed more than once",
        );
        for f in [-0.1, 1.5, f64::NAN] {
            let e = err(
                PatternConfig::Hotspot {
                    nodes: vec![0],
                    fraction: f,
                },
                &x64,
            );
            assert_err(e, "traffic.pattern.fraction", "must be in [0, 1]");
        }
        let e = err(PatternConfig::MergeToOne { dest: 64 }, &x64);
        assert_err(
            e,
            "traffic.pattern.dest",
            "node 64 is outside the network (nodes are 0..63)",
        );

        let x48 = NodeSpace::cube(&[6, 8], 1);
        for cfg in [
            PatternConfig::BitComplement,
            PatternConfig::BitReverse,
            PatternConfig::Shuffle,
            PatternConfig::Transpose,
        ] {
            let e = err(cfg, &x48);
            assert_err(e.clone(), "traffic.pattern.type", "network has 48 nodes");
            assert!(
                e.to_string()
                    .contains("32 or 64 nodes, or the `uniform` pattern"),
                "{e}"
            );
        }
        let e = err(PatternConfig::Transpose, &NodeSpace::cube(&[8, 4], 1));
        assert_err(e, "traffic.pattern.type", "odd number of id bits");

        for cfg in [PatternConfig::Tornado, PatternConfig::Neighbor] {
            let e = Pattern::build(
                &cfg,
                &NodeSpace::crossbar(16),
                1,
                "traffic.phases[2].pattern",
            )
            .unwrap_err();
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
        assert_eq!(
            parse("pattern = { type = \"bit_reverse\" }").unwrap(),
            PatternConfig::BitReverse
        );
        assert_eq!(
            parse("pattern = { type = \"random_permutation\" }").unwrap(),
            PatternConfig::RandomPermutation { seed: None }
        );
        assert_eq!(
            parse("[pattern]\ntype = \"hotspot\"\nnodes = [0, 9]\nfraction = 0.25").unwrap(),
            PatternConfig::Hotspot {
                nodes: vec![0, 9],
                fraction: 0.25
            }
        );
        assert!(parse("pattern = { type = \"merge_to_one\", dest = 1, extra = 2 }").is_err());
        assert!(parse("pattern = { type = \"nope\" }")
            .unwrap_err()
            .to_string()
            .contains("unknown variant"));
        // Stray keys on parameterless patterns are rejected too.
        assert!(parse("pattern = { type = \"tornado\", k = 8 }")
            .unwrap_err()
            .to_string()
            .contains("unknown field `k`"));
        assert!(parse("pattern = { type = \"uniform\", fraction = 0.5 }").is_err());
        // Serialization round-trips.
        for cfg in [
            PatternConfig::Uniform,
            PatternConfig::RandomPermutation { seed: Some(3) },
            PatternConfig::MergeToOne { dest: 2 },
        ] {
            #[derive(Serialize)]
            struct S<'a> {
                pattern: &'a PatternConfig,
            }
            let text = toml::to_string(&S { pattern: &cfg }).unwrap();
            assert_eq!(parse(&text).unwrap(), cfg, "{text}");
        }
    }
}
