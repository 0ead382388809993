//! Collectives by their algorithms: a collective on `p` ranks expanded into the
//! point-to-point messages an MPI library sends for it, in rounds.
//!
//! A [`Schedule`] lists, per member of the communicator, the messages it sends and
//! receives in each round. A member sends its messages of round `r` once it has received
//! all its messages of the rounds before `r` (as a loop of `MPI_Sendrecv` does), so the
//! rounds carry the algorithm's data dependencies. Ranks are the communicator's, relative
//! to nothing: a rooted collective is built for root 0 and rotated (`(i + root) mod p`).
//!
//! The algorithms (Thakur05 describes them all; [`Algorithm::auto`] picks as MPICH does by
//! size and rank count):
//!
//! | kind | algorithms |
//! |---|---|
//! | barrier | `dissemination` |
//! | bcast | `binomial`, `scatter_allgather` (binomial scatter, ring allgather) |
//! | reduce | `binomial` |
//! | allreduce | `recursive_doubling`, `ring`, `rabenseifner` |
//! | gather, scatter | `binomial`, `linear` |
//! | allgather | `ring`, `recursive_doubling`, `bruck` |
//! | alltoall | `pairwise`, `scattered` (every message at once), `bruck` |
//! | reduce_scatter | `ring`, `recursive_halving` |
//!
//! Recursive doubling and Rabenseifner's allreduce on a `p` that is not a power of two
//! first fold the `p - p'` ranks above the largest power of two `p'` into ranks
//! `0..p - p'` (one message each, the whole vector) and send them the result at the end;
//! `recursive_doubling` allgather and `recursive_halving` need a power of two. A
//! pairwise all-to-all too large to simulate whole may keep only some of its `p - 1`
//! steps ([`kept_steps`], [`pairwise`]). A block
//! split into `p` chunks gives the first `bytes mod p` chunks one byte more. Reductions
//! cost no time at the ranks (only the messages are simulated).

use super::program::Collective;

/// One member's messages in one round: `(peer, bytes)` sent and received.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Round {
    /// Messages sent, `(peer, bytes)`, in order.
    pub sends: Vec<(u32, u64)>,
    /// Messages received, `(peer, bytes)`.
    pub recvs: Vec<(u32, u64)>,
}

/// A collective's messages: `rounds[i][r]` is member `i`'s round `r` (every member has
/// the same number of rounds; a round may be empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub rounds: Vec<Vec<Round>>,
}

impl Schedule {
    fn new(p: u32) -> Schedule {
        Schedule { rounds: vec![Vec::new(); p as usize] }
    }

    /// `from` sends `bytes` to `to` in round `r`.
    fn xfer(&mut self, r: usize, from: u32, to: u32, bytes: u64) {
        for (who, peer, send) in [(from, to, true), (to, from, false)] {
            let rounds = &mut self.rounds[who as usize];
            if rounds.len() <= r {
                rounds.resize(r + 1, Round::default());
            }
            let round = &mut rounds[r];
            if send {
                round.sends.push((peer, bytes));
            } else {
                round.recvs.push((peer, bytes));
            }
        }
    }

    /// Every member with the same number of rounds.
    fn finish(mut self) -> Schedule {
        let n = self.rounds.iter().map(Vec::len).max().unwrap_or(0);
        for r in &mut self.rounds {
            r.resize(n, Round::default());
        }
        self
    }

    /// Rotate a schedule built for root 0 to `root`: member `i` becomes `(i + root) mod p`.
    fn rotate(self, root: u32) -> Schedule {
        let p = self.rounds.len() as u32;
        if root == 0 {
            return self;
        }
        let map = |i: u32| (i + root) % p;
        let mut out = vec![Vec::new(); p as usize];
        for (i, rounds) in self.rounds.into_iter().enumerate() {
            out[map(i as u32) as usize] = rounds
                .into_iter()
                .map(|r| Round {
                    sends: r.sends.into_iter().map(|(q, b)| (map(q), b)).collect(),
                    recvs: r.recvs.into_iter().map(|(q, b)| (map(q), b)).collect(),
                })
                .collect();
        }
        Schedule { rounds: out }
    }

    /// Messages in all (a closed form's count).
    pub fn messages(&self) -> u64 {
        self.rounds.iter().flatten().map(|r| r.sends.len() as u64).sum()
    }

    /// Bytes sent in all.
    pub fn bytes(&self) -> u64 {
        self.rounds.iter().flatten().flat_map(|r| &r.sends).map(|&(_, b)| b).sum()
    }

    /// Bytes member `i` sends.
    pub fn bytes_from(&self, i: u32) -> u64 {
        self.rounds[i as usize].iter().flat_map(|r| &r.sends).map(|&(_, b)| b).sum()
    }
}

/// A collective algorithm (see the module table for which kind takes which).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    Dissemination,
    Binomial,
    ScatterAllgather,
    Linear,
    RecursiveDoubling,
    Ring,
    Rabenseifner,
    Bruck,
    Pairwise,
    Scattered,
    RecursiveHalving,
}

impl Algorithm {
    /// Every algorithm, for names and errors.
    pub const ALL: [Algorithm; 11] = [
        Algorithm::Dissemination,
        Algorithm::Binomial,
        Algorithm::ScatterAllgather,
        Algorithm::Linear,
        Algorithm::RecursiveDoubling,
        Algorithm::Ring,
        Algorithm::Rabenseifner,
        Algorithm::Bruck,
        Algorithm::Pairwise,
        Algorithm::Scattered,
        Algorithm::RecursiveHalving,
    ];

    /// The name in configs and reports.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Dissemination => "dissemination",
            Algorithm::Binomial => "binomial",
            Algorithm::ScatterAllgather => "scatter_allgather",
            Algorithm::Linear => "linear",
            Algorithm::RecursiveDoubling => "recursive_doubling",
            Algorithm::Ring => "ring",
            Algorithm::Rabenseifner => "rabenseifner",
            Algorithm::Bruck => "bruck",
            Algorithm::Pairwise => "pairwise",
            Algorithm::Scattered => "scattered",
            Algorithm::RecursiveHalving => "recursive_halving",
        }
    }

    /// The algorithm named `name`.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The algorithms that implement `kind`.
    pub fn for_kind(kind: Collective) -> &'static [Algorithm] {
        use Algorithm::*;
        match kind {
            Collective::Barrier => &[Dissemination],
            Collective::Bcast => &[Binomial, ScatterAllgather],
            Collective::Reduce => &[Binomial],
            Collective::Allreduce => &[RecursiveDoubling, Ring, Rabenseifner],
            Collective::Gather | Collective::Scatter => &[Binomial, Linear],
            Collective::Allgather => &[Ring, RecursiveDoubling, Bruck],
            Collective::Alltoall => &[Pairwise, Scattered, Bruck],
            Collective::ReduceScatter => &[Ring, RecursiveHalving],
        }
    }

    /// The algorithm an MPI library (MPICH's thresholds) picks for `kind` on `p` ranks
    /// with `bytes` as in [`Collective`].
    pub fn auto(kind: Collective, p: u32, bytes: u64) -> Algorithm {
        use Algorithm::*;
        let pow2 = p.is_power_of_two();
        match kind {
            Collective::Barrier => Dissemination,
            Collective::Bcast if bytes < 12288 || p < 8 => Binomial,
            Collective::Bcast => ScatterAllgather,
            Collective::Reduce => Binomial,
            Collective::Allreduce if bytes <= 2048 || bytes < p as u64 => RecursiveDoubling,
            Collective::Allreduce => Rabenseifner,
            Collective::Gather | Collective::Scatter => Binomial,
            Collective::Allgather => {
                let total = bytes * p as u64;
                if total < 524_288 && pow2 {
                    RecursiveDoubling
                } else if total < 81_920 {
                    Bruck
                } else {
                    Ring
                }
            }
            Collective::Alltoall if bytes <= 256 && p >= 8 => Bruck,
            Collective::Alltoall if bytes <= 32768 => Scattered,
            Collective::Alltoall => Pairwise,
            Collective::ReduceScatter if pow2 => RecursiveHalving,
            Collective::ReduceScatter => Ring,
        }
    }
}

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Chunk `k` of `bytes` split into `p` chunks (the first `bytes mod p` one byte larger).
pub fn chunk(bytes: u64, p: u32, k: u32) -> u64 {
    bytes / p as u64 + ((k as u64) < bytes % p as u64) as u64
}

/// Bytes of chunks `lo..hi` (mod `p`, `hi - lo <= p` chunks starting at `lo`).
fn chunks(bytes: u64, p: u32, lo: u32, n: u32) -> u64 {
    (0..n).map(|j| chunk(bytes, p, (lo + j) % p)).sum()
}

/// Why a schedule cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheduleError {
    /// The algorithm does not implement the kind.
    Kind,
    /// The algorithm needs a power-of-two rank count.
    PowerOfTwo,
}

/// The steps (1..p) a pairwise all-to-all on `p` ranks keeps when it replays only `keep`
/// of its `p - 1`: one from each of `keep` equal runs of consecutive steps, drawn by a
/// fixed hash of `p`, `keep`, the run and `call` (the call's number on its communicator:
/// successive calls sample different steps, every run the same); all of them when
/// `keep >= p - 1`.
pub fn kept_steps(p: u32, keep: u32, call: u64) -> Vec<u32> {
    let n = p.saturating_sub(1) as u64;
    if keep as u64 >= n {
        return (1..p).collect();
    }
    let keep = keep.max(1) as u64;
    (0..keep)
        .map(|j| {
            let (lo, hi) = (1 + j * n / keep, 1 + (j + 1) * n / keep);
            let h = crate::rng::mix64(crate::rng::mix64(call) ^ (p as u64) << 40 ^ keep << 20 ^ j);
            (lo + h % (hi - lo)) as u32
        })
        .collect()
}

/// A pairwise all-to-all of `bytes` per block on `p` ranks, only its steps `steps` (each
/// in 1..p), one round each in the order given. Step k: exchange with i XOR k on a power
/// of two, else send to i + k and receive from i - k (MPICH's order).
pub fn pairwise(p: u32, bytes: u64, steps: &[u32]) -> Schedule {
    let mut s = Schedule::new(p);
    for (r, &k) in steps.iter().enumerate() {
        for i in 0..p {
            let to = if p.is_power_of_two() { i ^ k } else { (i + k) % p };
            s.xfer(r, i, to, bytes);
        }
    }
    s
}

/// An all-to-all of `bytes` per block on `p` ranks sent all at once (MPICH's algorithm
/// for medium blocks: every receive and send posted, then one wait), only to the ranks
/// `i + k` for `k` in `steps`: one round, in which member i sends to i + k and receives
/// from i - k for each k.
pub fn scattered(p: u32, bytes: u64, steps: &[u32]) -> Schedule {
    let mut s = Schedule::new(p);
    for &k in steps {
        for i in 0..p {
            s.xfer(0, i, (i + k) % p, bytes);
        }
    }
    s.finish()
}

/// The messages of collective `kind` by `alg` on `p >= 1` ranks rooted at `root`, with
/// `bytes` as in [`Collective`].
pub fn schedule(kind: Collective, alg: Algorithm, p: u32, root: u32, bytes: u64) -> Result<Schedule, ScheduleError> {
    use Algorithm as A;
    use Collective as C;
    if !Algorithm::for_kind(kind).contains(&alg) {
        return Err(ScheduleError::Kind);
    }
    let mut s = Schedule::new(p);
    if p == 1 {
        return Ok(s);
    }
    match (kind, alg) {
        (C::Barrier, _) => {
            // Round k: i sends to i + 2^k (mod p), ceil(log2 p) rounds.
            let mut d = 1u32;
            let mut r = 0;
            while d < p {
                for i in 0..p {
                    s.xfer(r, i, (i + d) % p, 0);
                }
                d *= 2;
                r += 1;
            }
        }
        (C::Bcast, A::Binomial) => return Ok(binomial_down(p, |_| bytes).rotate(root)),
        (C::Bcast, A::ScatterAllgather) => {
            // Binomial scatter of p chunks, then a ring allgather of the chunks.
            let mut s = binomial_down(p, |sub| chunks(bytes, p, sub.0, sub.1));
            let base = s.rounds.iter().map(Vec::len).max().unwrap_or(0);
            ring_allgather(&mut s, base, p, |k| chunk(bytes, p, k));
            return Ok(s.finish().rotate(root));
        }
        (C::Scatter, A::Binomial) => return Ok(binomial_down(p, |sub| bytes * sub.1 as u64).rotate(root)),
        (C::Gather, A::Binomial) => return Ok(binomial_up(p, |sub| bytes * sub.1 as u64).rotate(root)),
        (C::Reduce, A::Binomial) => return Ok(binomial_up(p, |_| bytes).rotate(root)),
        (C::Scatter, A::Linear) | (C::Gather, A::Linear) => {
            for i in 1..p {
                let (from, to) = if kind == C::Scatter { (0, i) } else { (i, 0) };
                s.xfer(0, from, to, bytes);
            }
            return Ok(s.finish().rotate(root));
        }
        (C::Allreduce, A::RecursiveDoubling) => fold(&mut s, p, bytes, |s, base, q| {
            let mut d = 1;
            let mut r = base;
            while d < q {
                for i in 0..q {
                    s.xfer(r, i, i ^ d, bytes);
                }
                d *= 2;
                r += 1;
            }
            r
        }),
        (C::Allreduce, A::Rabenseifner) => fold(&mut s, p, bytes, |s, base, q| {
            // Recursive halving reduce-scatter, then recursive doubling allgather, over
            // q chunks of the vector.
            let r = halving(s, base, q, |k| chunk(bytes, q, k));
            doubling_allgather(s, r, q, |k| chunk(bytes, q, k))
        }),
        (C::Allreduce, A::Ring) => {
            // Reduce-scatter then allgather around the ring, p - 1 steps each.
            for step in 0..p - 1 {
                for i in 0..p {
                    s.xfer(step as usize, i, (i + 1) % p, chunk(bytes, p, (i + p - step) % p));
                }
            }
            ring_allgather(&mut s, (p - 1) as usize, p, |k| chunk(bytes, p, k));
        }
        (C::Allgather, A::Ring) => ring_allgather(&mut s, 0, p, |_| bytes),
        (C::Allgather, A::RecursiveDoubling) => {
            if !p.is_power_of_two() {
                return Err(ScheduleError::PowerOfTwo);
            }
            doubling_allgather(&mut s, 0, p, |_| bytes);
        }
        (C::Allgather, A::Bruck) => {
            // Round k: i sends the min(2^k, p - 2^k) blocks it holds to i - 2^k.
            let mut d = 1u32;
            let mut r = 0;
            while d < p {
                let n = d.min(p - d) as u64;
                for i in 0..p {
                    s.xfer(r, i, (i + p - d) % p, n * bytes);
                }
                d *= 2;
                r += 1;
            }
        }
        (C::Alltoall, A::Pairwise) => return Ok(pairwise(p, bytes, &(1..p).collect::<Vec<_>>())),
        (C::Alltoall, A::Scattered) => return Ok(scattered(p, bytes, &(1..p).collect::<Vec<_>>())),
        (C::Alltoall, A::Bruck) => {
            // Round k: the blocks whose index has bit k set go to i + 2^k.
            let mut d = 1u32;
            let mut r = 0;
            while d < p {
                let n = (1..p).filter(|j| j & d != 0).count() as u64;
                for i in 0..p {
                    s.xfer(r, i, (i + d) % p, n * bytes);
                }
                d *= 2;
                r += 1;
            }
        }
        (C::ReduceScatter, A::Ring) => {
            for step in 0..p - 1 {
                for i in 0..p {
                    s.xfer(step as usize, i, (i + 1) % p, bytes);
                }
            }
        }
        (C::ReduceScatter, A::RecursiveHalving) => {
            if !p.is_power_of_two() {
                return Err(ScheduleError::PowerOfTwo);
            }
            halving(&mut s, 0, p, |_| bytes);
        }
        _ => return Err(ScheduleError::Kind),
    }
    Ok(s.finish())
}

/// A binomial tree from root 0 down, as MPICH builds it: in round t, with
/// `m = 2^(R - 1 - t)` (`R = ceil(log2 p)` rounds), each member `i` that is a multiple of
/// `2m` sends to `i + m` the data of that child's subtree, the members
/// `i + m .. min(i + 2m, p)`; `amount((first, members))` gives its bytes.
fn binomial_down(p: u32, amount: impl Fn((u32, u32)) -> u64) -> Schedule {
    let mut s = Schedule::new(p);
    let rounds = 32 - (p - 1).leading_zeros();
    for t in 0..rounds {
        let m = 1u32 << (rounds - 1 - t);
        for i in (0..p).step_by(2 * m as usize) {
            let c = i + m;
            if c < p {
                s.xfer(t as usize, i, c, amount((c, m.min(p - c))));
            }
        }
    }
    s.finish()
}

/// The binomial tree up to root 0: the reverse of [`binomial_down`] (last round first,
/// each child sending to its parent).
fn binomial_up(p: u32, amount: impl Fn((u32, u32)) -> u64) -> Schedule {
    let down = binomial_down(p, amount);
    let n = down.rounds.first().map_or(0, Vec::len);
    let mut s = Schedule::new(p);
    for (i, rounds) in down.rounds.iter().enumerate() {
        for (r, round) in rounds.iter().enumerate() {
            for &(child, b) in &round.sends {
                s.xfer(n - 1 - r, child, i as u32, b);
            }
        }
    }
    s.finish()
}

/// The ring allgather of `p` blocks from round `base`: in step `t`, member `i` sends block
/// `(i - t) mod p` (of `block(k)` bytes) to `i + 1`.
fn ring_allgather(s: &mut Schedule, base: usize, p: u32, block: impl Fn(u32) -> u64) {
    for t in 0..p - 1 {
        for i in 0..p {
            s.xfer(base + t as usize, i, (i + 1) % p, block((i + p - t) % p));
        }
    }
}

/// Recursive doubling allgather among members `0..q` (a power of two) from round `base`:
/// in round k, member `i` sends the `2^k` blocks it holds to `i xor 2^k`. Returns the
/// next free round.
fn doubling_allgather(s: &mut Schedule, base: usize, q: u32, block: impl Fn(u32) -> u64) -> usize {
    let mut d = 1u32;
    let mut r = base;
    while d < q {
        for i in 0..q {
            let lo = i & !(d - 1);
            s.xfer(r, i, i ^ d, (lo..lo + d).map(&block).sum());
        }
        d *= 2;
        r += 1;
    }
    r
}

/// Recursive halving reduce-scatter among members `0..q` (a power of two) from round
/// `base`: in round k member `i` sends the half of its current blocks that its partner
/// `i xor q/2^(k+1)` keeps. Returns the next free round.
fn halving(s: &mut Schedule, base: usize, q: u32, block: impl Fn(u32) -> u64) -> usize {
    let mut d = q / 2;
    let mut r = base;
    while d >= 1 {
        for i in 0..q {
            let partner = i ^ d;
            // The partner keeps the blocks of its half: those with the bit d as in partner
            // and the higher bits as in i (the range of size d that contains partner).
            let lo = partner & !(d - 1);
            s.xfer(r, i, partner, (lo..lo + d).map(&block).sum());
        }
        d /= 2;
        r += 1;
    }
    r
}

/// A vector algorithm on a non-power-of-two `p`: the ranks `p' .. p` above the largest
/// power of two `p'` send their whole vector to `i - p'` (round 0), `body` runs among
/// `0..p'` from round 1 and returns its next free round, and the result goes back.
fn fold(s: &mut Schedule, p: u32, bytes: u64, body: impl Fn(&mut Schedule, usize, u32) -> usize) {
    let q = 1u32 << (31 - p.leading_zeros());
    if q == p {
        body(s, 0, p);
        return;
    }
    for i in q..p {
        s.xfer(0, i, i - q, bytes);
    }
    let r = body(s, 1, q);
    for i in q..p {
        s.xfer(r, i - q, i, bytes);
    }
}
