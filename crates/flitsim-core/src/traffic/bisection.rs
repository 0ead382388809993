//! Bisect communication patterns for the effective bisection bandwidth (eBB) benchmark.
//!
//! Follows Geoffray and Hoefler, "Adaptive Routing Strategies for Modern High Performance
//! Networks" (`papers/clos-adaptive-routing.txt`):
//!
//! * **Effective bisection bandwidth** (section 1, introduced in the paper's \[6\]):
//!   "the average link bandwidth that is available to an application for all possible
//!   bisect communication patterns. A bisect communication pattern is a pattern where each
//!   node communicates with exactly one other node."
//! * **Random bisection** (section 5.2): a pattern for `P` nodes is made by randomly
//!   splitting the nodes into two equally sized groups A and B, then randomly forming
//!   `P/2` pairs of one node of A and one of B, no node in more than one pair. Every node
//!   then sends to and receives from its peer at the same time (a pairwise exchange, "ping-
//!   ping"), so each pair carries traffic in both directions: `P` flows. Node `p` times the
//!   exchange of 50 messages of 1 MiB ([`PAPER_MESSAGES`], [`PAPER_MESSAGE_BYTES`]) and
//!   reports `b_p = s / t_p`; the pattern's bandwidth is the mean over the nodes,
//!   `b_avg = (sum_p b_p) / P` ([`pattern_bandwidth`]); the benchmark reports the minimum,
//!   maximum and average of that over 5000 patterns ([`PAPER_PATTERNS`], [`EbbSummary`]).
//! * **Bridge** (section 5.4): the nodes of each first-level crossbar are paired with the
//!   nodes of another one, "nodes `[0 : n-1]` are paired with nodes `[n : 2n-1]`, nodes
//!   `[2n : 3n-1]` with nodes `[3n : 4n-1]` and so on", `n` being the nodes per first-level
//!   crossbar (the Clos parameter `n` of section 2.2; 16 on the 512-node testbed). Node
//!   `2in + q` is paired with `(2i+1)n + q`. See [`bridge`].
//!
//! The paper draws patterns with the Mersenne Twister; here pattern `ω` of a run with
//! seed `s` comes from its own stream `rng::stream(s, STREAM_DOMAIN, ω)`, so any
//! pattern can be regenerated alone, in any order, on any thread. One Fisher-Yates shuffle
//! of the node ids does both random steps: its first half is a uniformly random half A,
//! and its second half, in shuffled order, a uniformly random pairing of B with A (the
//! `i`-th node of each half are partners). The result is a uniformly random perfect
//! matching of the nodes together with a uniformly random choice of which partner is in A.
//! A pattern costs one shuffle (`O(P)`); [`BisectionGenerator::fill`] reuses its buffers.

use crate::error::{Error, Result};
use crate::rng::{below, stream};

/// Patterns measured per configuration in the paper (section 5.2).
pub const PAPER_PATTERNS: u32 = 5000;
/// Messages each node exchanges with its peer per pattern (section 5.2).
pub const PAPER_MESSAGES: u32 = 50;
/// Size of each message in bytes, 1 MiB (section 5.2).
pub const PAPER_MESSAGE_BYTES: u64 = 1 << 20;

/// RNG stream domain of random bisections, apart from the domains of
/// [`crate::rng::domain`] so pattern `ω` never shares a stream with another component.
pub const STREAM_DOMAIN: u64 = 0x6542_4200; // "eBB"

/// A bisect pattern: the nodes split into halves A and B, each node paired with one node
/// of the other half. Communication is both ways: `p` sends to `partner(p)` and back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BisectionPattern {
    partner: Vec<u32>,
    in_a: Vec<bool>,
}

impl BisectionPattern {
    /// Number of nodes `P`.
    pub fn nodes(&self) -> u32 {
        self.partner.len() as u32
    }

    /// The peer node `p` exchanges with.
    pub fn partner(&self, p: u32) -> u32 {
        self.partner[p as usize]
    }

    /// Every node's peer, indexed by node: an involution without fixed points.
    pub fn partners(&self) -> &[u32] {
        &self.partner
    }

    /// Whether node `p` is in group A.
    pub fn in_a(&self, p: u32) -> bool {
        self.in_a[p as usize]
    }

    /// The `P/2` pairs as (node in A, node in B), by the A node's id.
    pub fn pairs(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.nodes()).filter(|&p| self.in_a[p as usize]).map(|p| (p, self.partner[p as usize]))
    }

    /// The `P` flows (source, destination): both directions of every pair, by source.
    pub fn flows(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.nodes()).map(|p| (p, self.partner[p as usize]))
    }
}

/// Random bisections of `P` nodes under one seed: pattern `ω` for `ω = 0, 1, 2, ...`.
#[derive(Clone, Debug)]
pub struct BisectionGenerator {
    nodes: u32,
    seed: u64,
    shuffle: Vec<u32>,
}

impl BisectionGenerator {
    /// A generator of random bisections of `nodes` nodes; errors if `nodes` is odd or
    /// below 2 (field `traffic.pattern`).
    pub fn new(nodes: u32, seed: u64) -> Result<Self> {
        Self::build(nodes, seed, "traffic.pattern")
    }

    /// As [`BisectionGenerator::new`]; `path` is the config key named in errors.
    pub fn build(nodes: u32, seed: u64, path: &str) -> Result<Self> {
        if nodes < 2 || !nodes.is_multiple_of(2) {
            return Err(Error::config(
                path,
                format!(
                    "a random bisection splits the nodes into two equal groups, but the network has {nodes} nodes; \
                     use a network with an even number of nodes (2 or more)"
                ),
            ));
        }
        Ok(BisectionGenerator { nodes, seed, shuffle: Vec::with_capacity(nodes as usize) })
    }

    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// Pattern number `index` (the same for the same seed and index, whatever was drawn
    /// before).
    pub fn pattern(&mut self, index: u64) -> BisectionPattern {
        let mut out = BisectionPattern { partner: Vec::new(), in_a: Vec::new() };
        self.fill(index, &mut out);
        out
    }

    /// Pattern number `index` into `out`, reusing its allocation.
    pub fn fill(&mut self, index: u64, out: &mut BisectionPattern) {
        let n = self.nodes;
        let mut rng = stream(self.seed, STREAM_DOMAIN, index);
        self.shuffle.clear();
        self.shuffle.extend(0..n);
        for i in (1..n).rev() {
            let j = below(&mut rng, i + 1);
            self.shuffle.swap(i as usize, j as usize);
        }
        out.partner.clear();
        out.partner.resize(n as usize, 0);
        out.in_a.clear();
        out.in_a.resize(n as usize, false);
        let half = (n / 2) as usize;
        let (a, b) = self.shuffle.split_at(half);
        for (&x, &y) in a.iter().zip(b) {
            out.partner[x as usize] = y;
            out.partner[y as usize] = x;
            out.in_a[x as usize] = true;
        }
    }
}

/// The bridge pattern of section 5.4 on `nodes` nodes with `per_switch` nodes on each
/// first-level crossbar: node `2i*n + q` (group A) is paired with `(2i+1)*n + q` (group B).
/// Errors (field `{path}`) unless `nodes` is a positive multiple of `2 * per_switch`.
pub fn bridge(nodes: u32, per_switch: u32, path: &str) -> Result<BisectionPattern> {
    if per_switch == 0 {
        return Err(Error::config(
            format!("{path}.per_switch"),
            "0 nodes per first-level crossbar; give the nodes on each leaf (16 on the paper's Clos)",
        ));
    }
    if nodes == 0 || !nodes.is_multiple_of(2 * per_switch) {
        return Err(Error::config(
            path,
            format!(
                "the bridge pattern pairs whole first-level crossbars of {per_switch} nodes, so the node count must be a \
                 multiple of {} (an even number of crossbars), not {nodes}",
                2 * per_switch
            ),
        ));
    }
    let partner = (0..nodes).map(|p| if (p / per_switch).is_multiple_of(2) { p + per_switch } else { p - per_switch }).collect();
    let in_a = (0..nodes).map(|p| (p / per_switch).is_multiple_of(2)).collect();
    Ok(BisectionPattern { partner, in_a })
}

/// A pattern's bandwidth: the mean of the per-node bandwidths `b_p` (section 5.2,
/// `b_avg = (sum_p b_p) / P`); 0 for no nodes.
pub fn pattern_bandwidth(per_node: &[f64]) -> f64 {
    if per_node.is_empty() {
        return 0.0;
    }
    per_node.iter().sum::<f64>() / per_node.len() as f64
}

/// Minimum, maximum and average pattern bandwidth over the patterns measured, what the
/// benchmark reports (section 5.2); the average is the effective bisection bandwidth.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EbbSummary {
    /// Patterns added.
    pub patterns: u64,
    /// Lowest pattern bandwidth.
    pub min: f64,
    /// Highest pattern bandwidth.
    pub max: f64,
    sum: f64,
}

impl EbbSummary {
    /// Add one pattern's bandwidth ([`pattern_bandwidth`]).
    pub fn add(&mut self, bandwidth: f64) {
        if self.patterns == 0 {
            (self.min, self.max) = (bandwidth, bandwidth);
        } else {
            self.min = self.min.min(bandwidth);
            self.max = self.max.max(bandwidth);
        }
        self.patterns += 1;
        self.sum += bandwidth;
    }

    /// The effective bisection bandwidth: the mean pattern bandwidth (0 with none).
    pub fn average(&self) -> f64 {
        if self.patterns == 0 {
            0.0
        } else {
            self.sum / self.patterns as f64
        }
    }

    /// `average / full`: the fraction of the full bisection bandwidth, e.g. 0.38 for the
    /// paper's statically routed 512 nodes (414.3 of 1090 MiB/s, section 5.3).
    pub fn fraction_of(&self, full: f64) -> f64 {
        self.average() / full
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// A bisect pattern: an involution without fixed points whose every pair straddles a
    /// cut with exactly half the nodes on each side.
    fn assert_bisect(p: &BisectionPattern) {
        let n = p.nodes();
        assert_eq!(p.partners().len(), n as usize);
        for x in 0..n {
            let y = p.partner(x);
            assert!(y < n && y != x, "{x} -> {y}");
            assert_eq!(p.partner(y), x, "pairs are mutual");
            assert_ne!(p.in_a(x), p.in_a(y), "{x} and {y} on the same side");
        }
        assert_eq!((0..n).filter(|&x| p.in_a(x)).count() as u32, n / 2);
        let pairs: Vec<(u32, u32)> = p.pairs().collect();
        assert_eq!(pairs.len() as u32, n / 2);
        assert!(pairs.iter().all(|&(a, b)| p.in_a(a) && !p.in_a(b)));
        let flows: Vec<(u32, u32)> = p.flows().collect();
        assert_eq!(flows.len() as u32, n, "both directions of every pair");
        assert!(pairs.iter().all(|&(a, b)| flows.contains(&(a, b)) && flows.contains(&(b, a))));
    }

    #[test]
    fn random_bisections_are_perfect_matchings_across_a_balanced_cut() {
        for n in [2, 4, 16, 64, 512] {
            let mut g = BisectionGenerator::new(n, 7).unwrap();
            assert_eq!(g.nodes(), n);
            let mut p = g.pattern(0);
            for i in 0..300 {
                g.fill(i, &mut p);
                assert_bisect(&p);
            }
        }
    }

    #[test]
    fn patterns_depend_only_on_seed_and_index() {
        let mut g = BisectionGenerator::new(512, 42).unwrap();
        let in_order: Vec<BisectionPattern> = (0..20).map(|i| g.pattern(i)).collect();
        // Drawn again, alone and backwards, on a fresh generator: identical.
        let mut h = BisectionGenerator::new(512, 42).unwrap();
        for i in (0..20).rev() {
            assert_eq!(h.pattern(i), in_order[i as usize]);
        }
        // Different indices and different seeds give different patterns.
        for i in 1..20 {
            assert_ne!(in_order[i], in_order[0]);
        }
        let mut other = BisectionGenerator::new(512, 43).unwrap();
        assert!((0..20).all(|i| other.pattern(i) != in_order[i as usize]));
    }

    #[test]
    fn four_nodes_give_each_matching_and_each_split_equally_often() {
        // 4 nodes have 3 perfect matchings and 6 ways to choose A; the shuffle makes every
        // (split, pairing) equally likely, so each matching has probability 1/3 and each
        // split 1/6. 60000 draws: sd sqrt(60000 * 1/3 * 2/3) = 115 and 91; allow 5 sd.
        let mut g = BisectionGenerator::new(4, 1).unwrap();
        let (mut matchings, mut splits) = (HashMap::new(), HashMap::new());
        for i in 0..60_000 {
            let p = g.pattern(i);
            *matchings.entry(p.partner(0)).or_insert(0i64) += 1;
            *splits.entry((0..4).filter(|&x| p.in_a(x)).collect::<Vec<u32>>()).or_insert(0i64) += 1;
        }
        assert_eq!(matchings.len(), 3);
        assert!(matchings.values().all(|&c| (c - 20_000).abs() < 575), "{matchings:?}");
        assert_eq!(splits.len(), 6);
        assert!(splits.values().all(|&c| (c - 10_000).abs() < 455), "{splits:?}");
    }

    #[test]
    fn partners_are_uniform_so_leaf_mates_are_paired_15_times_in_511() {
        // In a uniformly random perfect matching of 512 nodes a node's partner is any of the
        // other 511 with equal probability; 15 of them share its 16-node line card.
        // 2000 patterns x 256 pairs: p = 15/511, sd = sqrt(p (1-p) / 512000) = 0.000236.
        let mut g = BisectionGenerator::new(512, 3).unwrap();
        let mut p = g.pattern(0);
        let (mut same, mut total) = (0u64, 0u64);
        for i in 0..2000 {
            g.fill(i, &mut p);
            for (a, b) in p.pairs() {
                same += (a / 16 == b / 16) as u64;
                total += 1;
            }
        }
        let f = same as f64 / total as f64;
        assert!((f - 15.0 / 511.0).abs() < 5.0 * 0.000236, "{f}");
    }

    #[test]
    fn the_bridge_pairs_neighbouring_line_cards_as_section_5_4_says() {
        // "nodes [0 : n-1] are paired with nodes [n : 2n-1], nodes [2n : 3n-1] with nodes
        // [3n : 4n-1]", n = 16 nodes per line card on the 512-node Clos.
        let p = bridge(512, 16, "traffic.pattern").unwrap();
        assert_bisect(&p);
        for (a, b) in [(0, 16), (15, 31), (32, 48), (47, 63), (495, 511), (5, 21)] {
            assert_eq!((p.partner(a), p.partner(b)), (b, a));
            assert!(p.in_a(a) && !p.in_a(b));
        }
        assert_bisect(&bridge(2, 1, "x").unwrap());
    }

    #[test]
    fn bad_node_counts_are_config_errors() {
        for n in [0, 1, 511] {
            let e = BisectionGenerator::new(n, 0).unwrap_err();
            assert_eq!(e.path(), Some("traffic.pattern"));
            assert!(e.to_string().contains(&format!("has {n} nodes")), "{e}");
        }
        assert_eq!(BisectionGenerator::build(7, 0, "bench").unwrap_err().path(), Some("bench"));
        // Three line cards cannot be paired off.
        let e = bridge(48, 16, "traffic.pattern").unwrap_err();
        assert_eq!(e.path(), Some("traffic.pattern"));
        assert!(e.to_string().contains("multiple of 32"), "{e}");
        assert!(bridge(0, 16, "p").is_err());
        assert_eq!(bridge(64, 0, "p").unwrap_err().path(), Some("p.per_switch"));
    }

    #[test]
    fn ebb_is_the_mean_over_patterns_of_the_mean_over_nodes() {
        // Section 5.2: b_avg = sum_p b_p / P per pattern; min, max and mean over patterns.
        assert_eq!(pattern_bandwidth(&[1000.0, 500.0, 750.0, 250.0]), 625.0);
        assert_eq!(pattern_bandwidth(&[]), 0.0);
        let mut s = EbbSummary::default();
        assert_eq!(s.average(), 0.0);
        for b in [625.0, 400.0, 900.0] {
            s.add(b);
        }
        assert_eq!((s.patterns, s.min, s.max), (3, 400.0, 900.0));
        assert!((s.average() - 1925.0 / 3.0).abs() < 1e-12);
        // The paper's static 512-node result: 414.3 of 1090 MiB/s is 38% (section 5.3).
        let mut paper = EbbSummary::default();
        paper.add(414.3);
        assert_eq!((paper.fraction_of(1090.0) * 100.0).round(), 38.0);
        assert_eq!((PAPER_PATTERNS, PAPER_MESSAGES, PAPER_MESSAGE_BYTES), (5000, 50, 1_048_576));
    }
}
