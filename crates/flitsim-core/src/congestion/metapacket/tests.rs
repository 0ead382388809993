//! The row aggregation on a stand-alone model of the links: flits leave an output when
//! [`MetaNet::take_flit`] hands them out and arrive `flit_delay` (+ a jitter) cycles later
//! at the ring neighbour, whose metapacket unit takes the tail.

use super::*;

/// A k-ary n-cube of metapacket units and links, nothing else.
struct Ring {
    dims: Vec<u32>,
    net: MetaNet,
    /// (arrival cycle, router, slab id) of tails in flight.
    flying: Vec<(u64, u32, u32)>,
    /// Extra cycles a packet spends on a link, by (router, port, packet count): the
    /// jitter that makes some routers finish a phase late.
    jitter: fn(u32, usize, u64) -> u64,
    sent: u64,
}

fn coords_of(dims: &[u32], mut r: u32) -> Vec<u32> {
    dims.iter()
        .map(|&k| {
            let c = r % k;
            r /= k;
            c
        })
        .collect()
}

fn router_at(dims: &[u32], c: &[u32]) -> u32 {
    c.iter().zip(dims).rev().fold(0, |acc, (&x, &k)| acc * k + x)
}

/// Router `r`'s local values: `full = r`, `delivered = 1000 + 3 r` (any distinct values).
fn local(r: u32) -> Agg {
    Agg { full: u64::from(r), delivered: 1000 + 3 * u64::from(r) }
}

impl Ring {
    fn new(dims: &[u32], interval: u32, jitter: fn(u32, usize, u64) -> u64) -> Self {
        let routers: u32 = dims.iter().product();
        let coords = (0..routers).flat_map(|r| coords_of(dims, r)).collect();
        // Routing delay 1, adder delay 1 (the preset's), 2-flit packets, stats from cycle 0.
        let t = MetaTiming { interval, flits: 2, routing_delay: 1, adder_delay: 1, measure_from: 0 };
        let net = MetaNet::new(routers, 2 * dims.len() as u32 + 1, dims.len(), coords, t);
        Ring { dims: dims.to_vec(), net, flying: Vec::new(), jitter, sent: 0 }
    }

    fn routers(&self) -> u32 {
        self.dims.iter().product()
    }

    fn neighbour(&self, r: u32, port: usize) -> u32 {
        let mut c = coords_of(&self.dims, r);
        let (d, k) = (port / 2, self.dims[port / 2]);
        c[d] = if port.is_multiple_of(2) { (c[d] + 1) % k } else { (c[d] + k - 1) % k };
        router_at(&self.dims, &c)
    }

    /// One cycle, in the router's order: launches, arrivals (tails), then the links.
    fn step(&mut self, now: u64, launch_until: u64) {
        if self.net.launch_due(now) && now < launch_until {
            for r in 0..self.routers() {
                self.net.launch(r, now, local(r));
            }
        }
        let mut due: Vec<(u64, u32, u32)> = Vec::new();
        self.flying.retain(|&f| {
            if f.0 == now {
                due.push(f);
            }
            f.0 != now
        });
        due.sort_unstable();
        for (_, r, id) in due {
            self.net.arrive(r, id, now, local(r));
        }
        for r in 0..self.routers() {
            for o in 0..2 * self.dims.len() {
                if let Some(f) = self.net.take_flit(r, o, now) {
                    self.net.in_channels -= 1;
                    if f.idx == f.last {
                        // Crossbar 1 + link 1: the tail arrives 2 cycles after it leaves.
                        self.sent += 1;
                        let extra = (self.jitter)(r, o, self.sent);
                        self.flying.push((now + 2 + extra, self.neighbour(r, o), f.id));
                    }
                }
            }
        }
    }
}

fn no_jitter(_: u32, _: usize, _: u64) -> u64 {
    0
}

/// `max(j, k - j)` for j = 0..k: the hops until both packets of a ring have passed the
/// router `j` hops from the master (`k` for the master itself: its packet comes back).
fn ring_hops(k: u32) -> Vec<u64> {
    (0..k).map(|j| u64::from(if j == 0 { k } else { j.max(k - j) })).collect()
}

/// Closed form on unloaded links: a hop costs 5 cycles (routing 1 + adder 1 until the
/// packet may leave, then head and tail 1 cycle apart over 2 cycles of crossbar + link),
/// and so does a master's launch (of dimension 0 at the round's start, of dimension
/// `d > 0` when its lower-dimension total is known); a router can use the sums one adder
/// cycle after the last tail. So dimension `d` costs `5 max(j, k - j)` cycles for the
/// router `j` hops from its master, and, as every router of a dimension-`d` ring finishes
/// the lower dimensions at the same cycle, the gather time is
/// `5 sum_d max(j_d, k_d - j_d) + 1`.
fn expected_gather_times(dims: &[u32]) -> Vec<u64> {
    let routers: u32 = dims.iter().product();
    (0..routers)
        .map(|r| {
            let c = coords_of(dims, r);
            c.iter().zip(dims).map(|(&j, &k)| 5 * ring_hops(k)[j as usize]).sum::<u64>() + 1
        })
        .collect()
}

fn run_one_round(dims: &[u32]) -> (Ring, Vec<Completion>) {
    let mut ring = Ring::new(dims, 1_000_000, no_jitter);
    let mut done = Vec::new();
    for now in 0..2_000 {
        ring.step(now, 1);
        while let Some(c) = ring.net.pop_usable(now + 10) {
            done.push(c);
        }
    }
    (ring, done)
}

#[test]
fn one_round_on_a_16x16_torus_matches_the_closed_form() {
    let dims = [16, 16];
    let (ring, done) = run_one_round(&dims);
    let want = expected_gather_times(&dims);
    assert_eq!(done.len(), 256, "every router completes the round once");
    let total = (0..256).map(local).fold(Agg::default(), Agg::plus);
    for c in &done {
        assert_eq!(c.sum, total, "router {} has the network-wide sums", c.router);
        assert_eq!(c.usable - c.launch, want[c.router as usize], "gather time at router {}", c.router);
    }
    let rep = ring.net.report();
    // min 5 (8 + 8) + 1, max 5 (16 + 16) + 1, mean 5 (12 + 12) + 1: sum_j max(j, 16 - j) = 192.
    assert_eq!((rep.gather_min, rep.gather_max, rep.gather_mean), (81, 161, 121.0));
    assert_eq!(rep.completed, 256);
    // Each of the 32 rows launches 2 packets that make 16 hops each, 2 flits per hop.
    assert_eq!(rep.flits_sent, 2 * 16 * 2 * 16 * 2);
    assert_eq!(ring.net.in_channels, 0);
    assert!((0..256).all(|r| !ring.net.busy(r)), "nothing left in the outboxes");
}

#[test]
fn odd_radix_and_three_dimensions() {
    for dims in [vec![5, 3], vec![4, 4, 4], vec![3, 5, 2]] {
        let (_, done) = run_one_round(&dims);
        let want = expected_gather_times(&dims);
        let n: u32 = dims.iter().product();
        let total = (0..n).map(local).fold(Agg::default(), Agg::plus);
        assert_eq!(done.len(), n as usize, "{dims:?}");
        for c in &done {
            assert_eq!(c.sum, total, "{dims:?} router {}", c.router);
            assert_eq!(c.usable - c.launch, want[c.router as usize], "{dims:?} router {}", c.router);
        }
    }
}

/// Rounds every 32 cycles overlap (a round takes up to 160): each completes everywhere
/// with the right sums, in launch order at each router.
#[test]
fn overlapping_rounds_stay_apart() {
    let dims = [16, 16];
    let mut ring = Ring::new(&dims, 32, no_jitter);
    let mut done = Vec::new();
    for now in 0..2_000 {
        ring.step(now, 320); // rounds 0..10
        while let Some(c) = ring.net.pop_usable(now) {
            done.push(c);
        }
    }
    let total = (0..256).map(local).fold(Agg::default(), Agg::plus);
    assert_eq!(done.len(), 256 * 10);
    assert!(done.iter().all(|c| c.sum == total));
    for r in 0..256u32 {
        let launches: Vec<u64> = done.iter().filter(|c| c.router == r).map(|c| c.launch).collect();
        assert_eq!(launches, (0..10).map(|i| i * 32).collect::<Vec<_>>(), "router {r}");
    }
    assert_eq!(ring.net.report().abandoned, 0);
}

/// Links with uneven extra delays make routers finish a dimension at different cycles,
/// so higher-dimension packets reach routers that are not ready and must wait; the sums
/// are still exact and every round completes everywhere.
#[test]
fn jittered_links_hold_early_packets() {
    fn jitter(r: u32, o: usize, k: u64) -> u64 {
        (u64::from(r) * 7 + o as u64 * 13 + k * 5) % 23
    }
    for dims in [vec![8, 8], vec![4, 4, 4]] {
        let mut ring = Ring::new(&dims, 40, jitter);
        let n = ring.routers();
        let mut done = Vec::new();
        for now in 0..5_000 {
            ring.step(now, 400);
            while let Some(c) = ring.net.pop_usable(now) {
                done.push(c);
            }
        }
        let total = (0..n).map(local).fold(Agg::default(), Agg::plus);
        assert_eq!(done.len(), n as usize * 10, "{dims:?}");
        assert!(done.iter().all(|c| c.sum == total), "{dims:?}");
        assert!(ring.net.report().held > 0, "{dims:?}: the jitter must make some packets wait");
        let unloaded = expected_gather_times(&dims);
        assert!(done.iter().all(|c| c.usable - c.launch >= unloaded[c.router as usize]), "jitter only adds delay");
    }
}
