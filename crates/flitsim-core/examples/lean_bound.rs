//! How fast could one thread simulate the BookSim2 comparison case at all? A measuring
//! probe, not part of the engine: the case of `flitsim bench` (8x8 mesh, XY routing,
//! 4 VCs x 8 flits, one-cycle RC/VA/SA/ST and links, iSLIP with one iteration,
//! separable input-first VC allocation with per-port pointers, 1-flit packets,
//! uniform destinations including the source, Bernoulli 0.3) written as one
//! hand-specialised loop with every shape a constant and nothing general left: XY
//! routes read from a (router, destination) table as the engine reads them on small
//! networks, no channel rings (a sender writes the flit into the receiver's arrival slot and marks
//! it; credits are one bit per output VC in the upstream router's slot), no packet
//! arena beyond destination and creation cycle, no statistics beyond the mean latency,
//! hops and channel counts, no watchdog, no partitions.
//!
//! It follows the engine's timing (a head reaching a router in cycle t is routed in t,
//! allocated a VC in t + 1, crosses the switch in t + 2 and reaches the next router in
//! t + 5) and arbitration, so its mean latency and hop count match `flitsim`'s on the
//! case (36.38 against 36.39 cycles, 5.250 hops), and it is the lower bound of what a
//! redesign of the input-queued router step could cost per flit-hop.
//!
//! ```text
//! cargo run --release -p flitsim-core --example lean_bound [WARMUP MEASURE]
//! cargo run --release -p flitsim-core --example profile
//! ```
//!
//! Measured (docs/reference/performance.md): 514 M instructions against
//! the engine's 858 M for 5,000 + 5,000 cycles, 1.5x less time (0.314 s against
//! 0.47 s for the full case, medians of ten alternating runs), and 46-50x BookSim2's
//! speed measured at the same moment (median 48x): at, not past, 50x. (Its first
//! version worked XY out with a chain of comparisons, whose branches on the random
//! destination cost it 15% of its time: 0.367 s, 40-44x.)

use flitsim_core::router::arbiter::{next_ptr, round_robin};

const K: usize = 8;
const ROUTERS: usize = K * K;
const PORTS: usize = 5;
const VCS: usize = 4;
const DEPTH: usize = 8;
/// Input (and output) VCs per router.
const NI: usize = PORTS * VCS;
/// Arrival slots per router (flits arrive 3 cycles after their grant, credits 1).
const SLOTS: usize = 4;
const LOCAL: usize = 4;
const NO_OWNER: u8 = u8::MAX;
const QUEUE: usize = 4096;

/// One router's state; bit sets are over its input VCs (`port * VCS + vc`) except
/// `free`, over its output VCs.
#[derive(Clone)]
struct Router {
    occ: u64,
    va: u64,
    act: u64,
    cred: u64,
    free: u64,
    head: [u8; NI],
    len: [u8; NI],
    buf: [[u32; DEPTH]; NI],
    out_port: [u8; NI],
    out_vc: [u8; NI],
    va_rr: [u8; NI],
    credits: [u8; NI],
    owner: [u8; NI],
    owner_rr: [u8; NI],
    grant: [u8; PORTS],
    accept: [u8; PORTS],
    vc_rr: [u8; PORTS],
    /// VC allocation's requesters per output VC (valid only where the cycle's `picked`
    /// bit is set, so never cleared).
    pickers: [u64; NI],
}

/// What neighbours write into a router: per arrival slot, the flit on each input port
/// and the marks of ports with a flit and of output VCs with a credit.
#[derive(Clone, Copy, Default)]
struct Inbound {
    flit: [[(u32, u8); PORTS]; SLOTS],
    flits: [u8; SLOTS],
    credits: [u32; SLOTS],
}

struct Nic {
    queue: Vec<u32>,
    q_head: usize,
    q_tail: usize,
    credits: [u8; VCS],
    vc_rr: u8,
    rng: u64,
    /// Per arrival slot: an ejected packet, and the VCs whose credit returns.
    eject: [Option<u32>; SLOTS],
    credit: [u8; SLOTS],
}

/// xorshift64*: the probe needs a cheap stream, not the engine's.
fn draw(s: &mut u64) -> u64 {
    let mut x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    x.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

/// The router beyond port `p` (0 +x, 1 -x, 2 +y, 3 -y) of router `r`, if any.
fn neighbour(r: usize, p: usize) -> Option<usize> {
    let (x, y) = (r % K, r / K);
    match p {
        0 if x + 1 < K => Some(r + 1),
        1 if x > 0 => Some(r - 1),
        2 if y + 1 < K => Some(r + K),
        3 if y > 0 => Some(r - K),
        _ => None,
    }
}

fn main() {
    let args: Vec<u64> = match std::env::args().skip(1).map(|a| a.parse::<u64>()).collect() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("usage: lean_bound [WARMUP MEASURE] (cycle counts, whole numbers): {e}");
            std::process::exit(2);
        }
    };
    let warmup = args.first().copied().unwrap_or(30_000);
    let measure = args.get(1).copied().unwrap_or(30_000);
    let threshold = (0.3 * u64::MAX as f64) as u64;
    let idle = Router {
        occ: 0,
        va: 0,
        act: 0,
        cred: 0,
        free: (1 << NI) - 1,
        head: [0; NI],
        len: [0; NI],
        buf: [[0; DEPTH]; NI],
        out_port: [0; NI],
        out_vc: [0; NI],
        va_rr: [0; NI],
        credits: [DEPTH as u8; NI],
        owner: [NO_OWNER; NI],
        owner_rr: [0; NI],
        grant: [0; PORTS],
        accept: [0; PORTS],
        vc_rr: [0; PORTS],
        pickers: [0; NI],
    };
    let mut routers = vec![idle; ROUTERS];
    let mut inbound = vec![Inbound::default(); ROUTERS];
    let mut nics: Vec<Nic> = (0..ROUTERS)
        .map(|e| Nic {
            queue: vec![0; QUEUE],
            q_head: 0,
            q_tail: 0,
            credits: [DEPTH as u8; VCS],
            vc_rr: 0,
            rng: 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(e as u64 + 1) | 1,
            eject: [None; SLOTS],
            credit: [0; SLOTS],
        })
        .collect();
    let mut next_router = [[0usize; PORTS]; ROUTERS];
    for (r, row) in next_router.iter_mut().enumerate() {
        for (p, n) in row.iter_mut().enumerate().take(4) {
            *n = neighbour(r, p).unwrap_or(usize::MAX);
        }
    }
    // XY routes as a table, the output port per (router, destination): no branches.
    let mut port_to = vec![[0u8; ROUTERS]; ROUTERS];
    for (r, row) in port_to.iter_mut().enumerate() {
        let (x, y) = (r % K, r / K);
        for (d, port) in row.iter_mut().enumerate() {
            let (dx, dy) = (d % K, d / K);
            *port = if dx > x {
                0
            } else if dx < x {
                1
            } else if dy > y {
                2
            } else if dy < y {
                3
            } else {
                4
            };
        }
    }
    // Packets: (destination, creation cycle, measured).
    let mut packets: Vec<(u16, u64, bool)> = Vec::with_capacity(1 << 12);
    let mut unused: Vec<u32> = Vec::new();
    let mut channel_flits = vec![0u64; ROUTERS * PORTS * VCS];
    let (mut latency_sum, mut delivered, mut hops, mut measured, mut flit_hops) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let start = std::time::Instant::now();
    let mut now = 0u64;
    loop {
        let in_window = now >= warmup && now < warmup + measure;
        let generating = now < warmup + measure;
        if !generating && measured == delivered {
            break;
        }
        let slot = now as usize % SLOTS;
        let (in1, in3) = ((now as usize + 1) % SLOTS, (now as usize + 3) % SLOTS);
        for (e, nic) in nics.iter_mut().enumerate() {
            let c = std::mem::take(&mut nic.credit[slot]);
            for (v, credit) in nic.credits.iter_mut().enumerate() {
                *credit += c >> v & 1;
            }
            if let Some(pid) = nic.eject[slot].take() {
                let (_, create, m) = packets[pid as usize];
                if m {
                    latency_sum += now - create;
                    delivered += 1;
                }
                unused.push(pid);
            }
            if generating && draw(&mut nic.rng) < threshold {
                let dst = (((draw(&mut nic.rng) >> 32) * ROUTERS as u64) >> 32) as u16;
                measured += in_window as u64;
                let packet = (dst, now, in_window);
                let pid = match unused.pop() {
                    Some(pid) => {
                        packets[pid as usize] = packet;
                        pid
                    }
                    None => {
                        packets.push(packet);
                        (packets.len() - 1) as u32
                    }
                };
                nic.queue[nic.q_tail % QUEUE] = pid;
                nic.q_tail += 1;
                // (The queue is a ring: below saturation it never holds this many.)
                assert!(nic.q_tail - nic.q_head <= QUEUE, "source queue of endpoint {e} overflowed: the case saturated");
            }
            if nic.q_head != nic.q_tail {
                let v = (0..VCS).map(|k| (nic.vc_rr as usize + k) % VCS).find(|&v| nic.credits[v] > 0);
                if let Some(v) = v {
                    let pid = nic.queue[nic.q_head % QUEUE];
                    nic.q_head += 1;
                    nic.credits[v] -= 1;
                    nic.vc_rr = next_ptr(v as u32, VCS as u32) as u8;
                    let to = &mut inbound[e];
                    to.flit[in1][LOCAL] = (pid, v as u8);
                    to.flits[in1] |= 1 << LOCAL;
                }
            }
        }
        for ri in 0..ROUTERS {
            let mut arrived = std::mem::take(&mut inbound[ri].flits[slot]);
            let credits_in = std::mem::take(&mut inbound[ri].credits[slot]);
            let r = &mut routers[ri];
            if arrived == 0 && credits_in == 0 && r.occ == 0 {
                continue;
            }
            let (mut occ, mut va, mut act, mut cred, mut free) = (r.occ, r.va, r.act, r.cred, r.free);
            // Receive.
            while arrived != 0 {
                let p = arrived.trailing_zeros() as usize;
                arrived &= arrived - 1;
                let (pid, v) = inbound[ri].flit[slot][p];
                let li = p * VCS + v as usize;
                let at = (r.head[li] + r.len[li]) as usize % DEPTH;
                r.buf[li][at] = pid;
                r.len[li] += 1;
                occ |= 1 << li;
            }
            let mut m = credits_in as u64;
            while m != 0 {
                let o = m.trailing_zeros() as usize;
                m &= m - 1;
                let (c, owner) = (r.credits[o], r.owner[o]);
                if c == 0 && owner != NO_OWNER {
                    cred |= 1 << owner;
                }
                r.credits[o] = c + 1;
            }
            // Route computation (XY), ready for VC allocation next cycle.
            let mut heads = occ & !(va | act);
            let mut routed = 0u64;
            while heads != 0 {
                let li = heads.trailing_zeros() as usize;
                heads &= heads - 1;
                let dst = packets[r.buf[li][r.head[li] as usize] as usize].0;
                r.out_port[li] = port_to[ri][dst as usize % ROUTERS];
                hops += (li / VCS != LOCAL && in_window) as u64;
                routed |= 1 << li;
            }
            // VC allocation of the heads routed earlier: separable, input first.
            let requests = va;
            va |= routed;
            let mut won = 0u64;
            if requests != 0 {
                let (mut picked, pickers) = (0u64, &mut r.pickers);
                let mut m = requests;
                while m != 0 {
                    let li = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let o = r.out_port[li] as usize;
                    let candidates = free & (0xF << (o * VCS));
                    if candidates != 0 {
                        let t = round_robin(candidates, (o * VCS) as u32 + r.va_rr[li] as u32) as usize % NI;
                        let earlier = (picked >> t & 1).wrapping_neg();
                        pickers[t] = pickers[t] & earlier | 1 << li;
                        picked |= 1 << t;
                    }
                }
                let mut m = picked;
                while m != 0 {
                    let t = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let li = round_robin(r.pickers[t], r.owner_rr[t] as u32) as usize;
                    r.owner[t] = li as u8;
                    r.owner_rr[t] = next_ptr(li as u32, NI as u32) as u8;
                    let w = (t % VCS) as u8;
                    r.out_vc[li] = w;
                    r.va_rr[li] = next_ptr(w as u32, VCS as u32) as u8;
                    won |= 1 << li;
                    cred |= ((r.credits[t] != 0) as u64) << li;
                }
                free &= !picked;
                va &= !won;
            }
            // Switch allocation (iSLIP, one iteration) of VCs allocated earlier, and
            // traversal of the matched inputs.
            let ready = occ & act & cred;
            act |= won;
            if ready != 0 {
                let (mut request, mut outs) = ([0u64; PORTS], 0u64);
                let mut m = ready;
                while m != 0 {
                    let li = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let o = r.out_port[li] as usize;
                    request[o] |= 1 << li;
                    outs |= 1 << o;
                }
                let (mut granted, mut grants) = (0u64, [0u64; PORTS]);
                while outs != 0 {
                    let o = outs.trailing_zeros() as usize;
                    outs &= outs - 1;
                    let i = round_robin(request[o], r.grant[o] as u32 * VCS as u32) as usize / VCS;
                    grants[i] |= 1 << o;
                    granted |= 1 << i;
                }
                while granted != 0 {
                    let i = granted.trailing_zeros() as usize;
                    granted &= granted - 1;
                    let o = round_robin(grants[i], r.accept[i] as u32) as usize;
                    let v = round_robin((request[o] >> (i * VCS)) & 0xF, r.vc_rr[i] as u32) as usize;
                    r.grant[o] = next_ptr(i as u32, PORTS as u32) as u8;
                    r.accept[i] = next_ptr(o as u32, PORTS as u32) as u8;
                    r.vc_rr[i] = next_ptr(v as u32, VCS as u32) as u8;
                    let li = i * VCS + v;
                    let pid = r.buf[li][r.head[li] as usize];
                    r.head[li] = (r.head[li] + 1) % DEPTH as u8;
                    r.len[li] -= 1;
                    if r.len[li] == 0 {
                        occ &= !(1 << li);
                    }
                    let w = r.out_vc[li] as usize;
                    let ovc = o * VCS + w;
                    // Every flit is a tail: the output VC is free again.
                    act &= !(1 << li);
                    cred &= !(1 << li);
                    r.owner[ovc] = NO_OWNER;
                    free |= 1 << ovc;
                    channel_flits[(ri * PORTS + o) * VCS + w] += in_window as u64;
                    flit_hops += 1;
                    if o == LOCAL {
                        nics[ri].eject[in3] = Some(pid);
                    } else {
                        r.credits[ovc] -= 1;
                        let to = &mut inbound[next_router[ri][o]];
                        to.flit[in3][o ^ 1] = (pid, w as u8);
                        to.flits[in3] |= 1 << (o ^ 1);
                    }
                    if i == LOCAL {
                        nics[ri].credit[in1] |= 1 << v;
                    } else {
                        inbound[next_router[ri][i]].credits[in1] |= 1 << ((i ^ 1) * VCS + v);
                    }
                }
            }
            let r = &mut routers[ri];
            (r.occ, r.va, r.act, r.cred, r.free) = (occ, va, act, cred, free);
        }
        now += 1;
    }
    let s = start.elapsed().as_secs_f64();
    println!(
        "cycles {now} in {s:.3}s = {:.0} cycles/s, {:.2} M flit-hops/s, latency {:.2}, hops {:.3}, measured channel flits {}",
        now as f64 / s,
        flit_hops as f64 / s / 1e6,
        latency_sum as f64 / delivered as f64,
        hops as f64 / delivered as f64,
        channel_flits.iter().sum::<u64>()
    );
}
