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
use crate::rng::{below, domain, fires, stream, threshold, SimRng};

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
        NodeSpace { num_nodes: n, dims: Vec::new(), concentration: n }
    }

    /// A k-ary n-cube (mesh or torus) with `dims` radices and `concentration` endpoints
    /// per router.
    pub fn cube(dims: &[u32], concentration: u32) -> NodeSpace {
        let routers: u32 = dims.iter().product();
        NodeSpace { num_nodes: routers * concentration, dims: dims.to_vec(), concentration }
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
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default, schemars::JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
#[schemars(!remote, tag = "type")]
pub enum PatternConfig {
    /// Uniform random destination over all nodes, the source itself included (BookSim
    /// convention). The default pattern.
    #[default]
    Uniform,
    /// `dest = !src` within `log2(N)` bits. Needs a power-of-two node count N.
    BitComplement,
    /// `dest = N - 1 - src`, for any node count N: bit complement generalised. When N is a
    /// power of two it is exactly `bit_complement` (`N - 1 - s = !s` in `log2(N)` bits); on
    /// a k-ary n-cube with concentration 1 it is coordinate complement in every dimension,
    /// `c_i -> k_i - 1 - c_i` (node ids are mixed radix), i.e. bit complement of every
    /// coordinate when the radices are powers of two (with concentration c the local index
    /// is complemented too). Used where node counts are not powers of two (Kautz graphs).
    Complement,
    /// `dest` = the `log2(N)`-bit id of `src` written backwards. Needs a power-of-two N.
    BitReverse,
    /// Perfect shuffle: rotate the `log2(N)`-bit id left by one. Needs a power-of-two N.
    Shuffle,
    /// Swap the high and low halves of the `log2(N)`-bit id. Needs N = 2^b with b even;
    /// on a k x k network (k a power of two, concentration 1) this is coordinate transpose
    /// `(x, y) -> (y, x)`.
    Transpose,
    /// Matrix transpose for any node count N: the nodes hold a `rows x cols` matrix in
    /// row-major order (`rows * cols = N`), and node `s = r * cols + c` sends to the node
    /// holding element `(r, c)` in the transposed `cols x rows` matrix, `c * rows + r`.
    /// With `rows = cols = 2^(b/2)` it is exactly `transpose` (swap the halves of the id).
    MatrixTranspose {
        /// Rows of the layout: a divisor of N other than 1 and N. Default: the most
        /// square factorisation (the largest divisor <= sqrt(N); 27 x 36 for 972 nodes).
        #[serde(default)]
        rows: Option<u32>,
    },
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
    /// Random bisection `index` (pattern ω of the effective-bisection-bandwidth benchmark,
    /// [`crate::traffic::bisection`]): the nodes split at random into two equal halves and
    /// paired one-to-one across them; every node sends only to its peer (so each pair
    /// exchanges both ways). Needs an even number of nodes.
    RandomBisection {
        /// The pattern number ω (default 0): any pattern regenerates alone.
        #[serde(default)]
        index: u64,
        /// Seed of the pattern stream. Default: the run seed.
        #[serde(default)]
        seed: Option<u64>,
    },
    /// The bridge pattern of the eBB paper (section 5.4, [`crate::traffic::bisection::bridge`]):
    /// the nodes of each first-level crossbar paired with those of the next one, node
    /// `2i n + q` with `(2i + 1) n + q`; every node sends only to its peer. Needs a
    /// multiple of `2 per_switch` nodes.
    Bridge {
        /// Nodes per first-level crossbar `n` (16 on the paper's Clos).
        #[serde(default = "sixteen")]
        per_switch: u32,
    },
    /// Processes paired at random ([`processes`]; the SiCortex high-contention experiment,
    /// section 6.1): `per_node` processes on every node, `active` of them (default all)
    /// matched into random pairs, each streaming to its partner. A node's `k`-th packet
    /// (or message) belongs to its `(k mod a)`-th active process, `a` its active count; a
    /// node with none sends nothing. `active` must be even.
    ProcessPairs {
        /// Processes per node, >= 1 (6 on the SC5832), at most 2^26 in the network.
        /// Required.
        per_node: u32,
        /// Processes taking part, even, at most `per_node` x N (the paper: 5,000 of the
        /// SC5832's 5,832). Default: all of them.
        #[serde(default)]
        active: Option<u32>,
        /// Seed of the pairing. Default: the run seed.
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
    /// All-to-all shift exchange: the k-th packet (k = 0, 1, ...) that source `s` creates
    /// in the run goes to `(s + 1 + (k mod (N - 1))) mod N`, so every N - 1 consecutive
    /// packets of a source visit every other node exactly once, and the sources' k-th
    /// packets form a permutation without fixed points. Needs N >= 2. Combine with
    /// `traffic.packets_per_source = N - 1` for one finite all-to-all exchange.
    AllToAll,
    /// Recursive doubling, the exchange pattern of an allreduce: in round `r` (0, 1, ...,
    /// log2(N) - 1) every node sends `packets_per_round` packets to `s XOR 2^r`, and it
    /// starts round `r + 1` only when all of its round-`r` partner's packets have arrived
    /// (the data dependency of the reduction). After the last round the source stops; the
    /// run's `counters.last_delivery` is the collective's completion time. Needs a
    /// power-of-two node count.
    RecursiveDoubling {
        /// Packets each node sends to its partner per round (>= 1). Required.
        packets_per_round: u32,
    },
}

crate::schema::tagged::tagged_serde!(PatternConfig, "traffic pattern", None);

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
    Processes(processes::ProcessPairs),
    MergeToOne {
        dest: u32,
    },
    /// Shift exchange; `num_nodes >= 2`.
    AllToAll,
    /// Recursive doubling: `m` packets per round, `rounds` = log2(N) rounds.
    RecursiveDoubling {
        m: u64,
        rounds: u32,
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
    pub fn build(cfg: &PatternConfig, space: &NodeSpace, run_seed: u64, path: &str) -> Result<Pattern> {
        space.assert_consistent();
        let n = space.num_nodes;
        let kind = match cfg {
            PatternConfig::Uniform => Kind::Uniform,
            PatternConfig::BitComplement => {
                let bits = power_of_two_bits(n, "bit_complement", path)?;
                table(n, |s| !s & mask(bits))
            }
            PatternConfig::Complement => table(n, |s| n - 1 - s),
            PatternConfig::MatrixTranspose { rows } => {
                let rows = matrix_rows(n, *rows, path)?;
                let cols = n / rows;
                table(n, |s| (s % cols) * rows + s / cols)
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
            PatternConfig::RandomBisection { index, seed } => {
                let mut generator =
                    crate::traffic::bisection::BisectionGenerator::build(n, seed.unwrap_or(run_seed), &format!("{path}.type"))?;
                Kind::Table(generator.pattern(*index).partners().into())
            }
            PatternConfig::Bridge { per_switch } => Kind::Table(crate::traffic::bisection::bridge(n, *per_switch, path)?.partners().into()),
            PatternConfig::ProcessPairs { per_node, active, seed } => {
                Kind::Processes(processes::ProcessPairs::build(n, *per_node, *active, seed.unwrap_or(run_seed), path)?)
            }
            PatternConfig::Hotspot { nodes, fraction } => {
                let nodes_path = format!("{path}.nodes");
                if nodes.is_empty() {
                    return Err(Error::config(nodes_path, "hotspot needs at least one hot-spot node; list node ids, e.g. `nodes = [0]`"));
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
                Kind::Hotspot { hot: nodes.clone().into_boxed_slice(), hot_threshold: threshold(*fraction) }
            }
            PatternConfig::MergeToOne { dest } => {
                check_node(*dest, n, &format!("{path}.dest"))?;
                Kind::MergeToOne { dest: *dest }
            }
            PatternConfig::AllToAll => {
                if n < 2 {
                    return Err(Error::config(
                        format!("{path}.type"),
                        format!(
                            "all_to_all sends every packet to another node, but the network has \
                             {n} node; use a network of at least 2 nodes"
                        ),
                    ));
                }
                Kind::AllToAll
            }
            PatternConfig::RecursiveDoubling { packets_per_round } => {
                if !n.is_power_of_two() {
                    return Err(Error::config(
                        format!("{path}.type"),
                        format!(
                            "recursive_doubling pairs node s with s XOR 2^r in round r, so it needs a power-of-two node count, but the network has {n} nodes; use a network of {} or {} nodes",
                            n.next_power_of_two() / 2,
                            n.next_power_of_two()
                        ),
                    ));
                }
                let rounds = n.trailing_zeros();
                if *packets_per_round == 0 {
                    return Err(Error::config(
                        format!("{path}.packets_per_round"),
                        "is 0: every round must send at least one packet; use packets_per_round >= 1",
                    ));
                }
                if rounds > MAX_ROUNDS {
                    return Err(Error::config(
                        format!("{path}.type"),
                        format!("recursive_doubling supports at most 2^{MAX_ROUNDS} nodes; the network has {n}"),
                    ));
                }
                Kind::RecursiveDoubling { m: *packets_per_round as u64, rounds }
            }
        };
        Ok(Pattern { kind, num_nodes: n })
    }

    /// Number of nodes this pattern was built for.
    pub fn num_nodes(&self) -> u32 {
        self.num_nodes
    }

    /// Does `src` send at all under this pattern? (false for merge_to_one's `dest` and
    /// for a node without active processes under process_pairs)
    #[inline]
    pub fn is_source(&self, src: u32) -> bool {
        match &self.kind {
            Kind::MergeToOne { dest } => src != *dest,
            Kind::Processes(p) => p.is_source(src),
            _ => true,
        }
    }

    /// Destination of the next packet from `src` (`src < num_nodes`), which is the `k`-th
    /// packet (counting from 0) that `src` creates in the run; only `all_to_all`,
    /// `recursive_doubling` and `process_pairs` use `k`. Hot path: no allocation; deterministic patterns draw nothing from `rng`.
    #[inline]
    pub fn dest(&self, src: u32, k: u64, rng: &mut SimRng) -> u32 {
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
            Kind::Processes(p) => p.dest(src, k),
            Kind::AllToAll => {
                let n = self.num_nodes as u64;
                ((src as u64 + 1 + k % (n - 1)) % n) as u32
            }
            Kind::RecursiveDoubling { m, .. } => src ^ (1 << (k / m)),
        }
    }

    /// For a pattern whose packets depend on data received (recursive doubling): may the
    /// source create its `k`-th packet, given the packets it has received per round?
    /// `None` when the pattern has finished for this source (no more packets ever).
    /// Patterns without dependencies always allow.
    #[inline]
    pub fn may_create(&self, k: u64, received: &[u32; MAX_ROUNDS as usize]) -> Option<bool> {
        match self.kind {
            Kind::RecursiveDoubling { m, rounds } => {
                let r = k / m;
                if r >= rounds as u64 {
                    None
                } else {
                    Some(r == 0 || received[r as usize - 1] as u64 >= m)
                }
            }
            _ => Some(true),
        }
    }

    /// Whether the pattern pairs its nodes: every source's one destination is another
    /// source whose destination is it (random bisections, the bridge, pairing
    /// permutations).
    pub fn pairs(&self) -> bool {
        match &self.kind {
            Kind::Table(t) => (0..t.len() as u32).filter(|&s| self.is_source(s)).all(|s| {
                let d = t[s as usize];
                d != s && self.is_source(d) && t[d as usize] == s
            }),
            _ => false,
        }
    }

    /// The round of the `k`-th packet of a source (recursive doubling), for the receiver's
    /// bookkeeping; `None` for patterns without rounds.
    #[inline]
    pub fn round_of(&self, k: u64) -> Option<usize> {
        match self.kind {
            Kind::RecursiveDoubling { m, .. } => Some((k / m) as usize),
            _ => None,
        }
    }
}

/// Most rounds of a recursive-doubling exchange (networks of up to 2^24 nodes).
pub const MAX_ROUNDS: u32 = 24;

fn table(n: u32, f: impl Fn(u32) -> u32) -> Kind {
    Kind::Table((0..n).map(f).collect())
}

fn check_node(node: u32, n: u32, path: &str) -> Result<()> {
    if node >= n {
        return Err(Error::config(path, format!("node {node} is outside the network (nodes are 0..{})", n - 1)));
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

/// The rows of `matrix_transpose`'s layout: `given`, or the largest divisor of `n` that
/// is at most `sqrt(n)`; a config error if it does not divide `n` or is 1 or `n` (a single
/// row or column, whose transpose leaves every node in place).
fn matrix_rows(n: u32, given: Option<u32>, path: &str) -> Result<u32> {
    let rows = given.unwrap_or_else(|| {
        (1..=n).take_while(|r| u64::from(*r) * u64::from(*r) <= u64::from(n)).filter(|r| n.is_multiple_of(*r)).last().unwrap_or(1)
    });
    let field = if given.is_some() { format!("{path}.rows") } else { format!("{path}.type") };
    if rows == 0 || !n.is_multiple_of(rows) {
        return Err(Error::config(field, format!("{rows} rows do not divide the {n} nodes into a matrix; give a divisor of {n}")));
    }
    if rows == 1 || rows == n {
        let why = if given.is_some() {
            format!("{rows} rows make a single row or column")
        } else {
            format!("{n} nodes (a prime) only form a single row")
        };
        return Err(Error::config(
            field,
            format!(
                "{why}, whose transpose leaves every node in place; give rows, a divisor of N other than 1 and N, or use another pattern"
            ),
        ));
    }
    Ok(rows)
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

mod processes;
#[cfg(test)]
mod tests;

fn sixteen() -> u32 {
    16
}
