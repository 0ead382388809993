//! Global-state gather by metapackets on the data network (Thottethodi, Lebeck and
//! Mukherjee, *Self-Tuned Congestion Control*, section 5.3 and Fig. 10): the alternative
//! to the side-band ([`super::sideband`]) that the paper evaluates and rejects.
//!
//! **Row aggregation (section 5.3.1).** A `d`-th dimension *row* is the set of routers
//! that differ only in coordinate `d`; its *master* is the one with coordinate `d = 0`.
//! In each gather *round* the master sends two metapackets around its ring, `ppac` in the
//! `+` direction carrying the master's own contribution and `npac` in the `-` direction
//! carrying zero. Every other router on the ring adds its contribution to each packet
//! that passes (a one-cycle adder) and forwards it in the same direction; when both have
//! passed router `X`, `ppac + npac + own` is the row's total, and the master has it when
//! a packet comes back round. Dimension 0 adds each router's *local* values (its full VC
//! buffers and its cumulative delivered flits); dimension `d > 0` adds each router's
//! total over dimensions `< d`, so after `n` phases every router holds the network-wide
//! sums. A router forwards a dimension-`d` metapacket only once it holds its own total
//! over dimensions `< d` (until then the packet waits in its metapacket unit), and a
//! master launches dimension `d` as soon as it holds that total.
//!
//! **Transport.** Metapackets have their own virtual channel with priority over every
//! data VC (section 5.3: "an exclusive, additional virtual channel ... higher priority
//! than other virtual channels"): the router's switch gives an output link to a waiting
//! metapacket flit before any data flit, so metapackets steal link cycles from data but
//! never wait behind it. Each hop is a router-to-router packet of `flits` flits
//! (2, the paper's "2-flit metapackets"): the head and then the tail cross the link,
//! and when the tail has arrived the metapacket unit adds in its contribution. Every
//! metapacket (a forward, or a master's launch) is ready to leave `routing_delay +
//! adder_delay` cycles after the cycle that determined its contents. On the preset
//! (crossbar 1 + link 1 cycle) a hop costs 5 cycles, so an unloaded 16x16 gather takes
//! 81 to 161 cycles, mean 121: the paper measures 130-160 on average under load and
//! never more than 300.
//!
//! # Readings where the paper is silent (our choices)
//! - **Round launch.** Rounds start every `interval` cycles (default the side-band's
//!   gather duration `g`, so the two mechanisms sample equally often) and overlap when a
//!   round takes longer; each packet carries its round number. A router samples its local
//!   values when it first sees a round (its master's launch, or the first metapacket of
//!   the round to arrive), and uses that one sample in both directions.
//! - **Delivered flits** travel as cumulative counts; the controller differences
//!   consecutive rounds, as the side-band differences consecutive samples.
//! - **The metapacket unit absorbs every arriving metapacket** (no back-pressure on the
//!   metapacket VC: its buffer holds the packets waiting for the adder).
//! - **A round is usable** at a router `adder_delay` cycles after the last metapacket it
//!   needed arrived; its *gather time* is that cycle minus the round's launch.
//! - Only torus (ring) dimensions: the paper's packets circle a ring.

use std::collections::VecDeque;

use serde::Serialize;

/// The largest number of dimensions a metapacket gather supports.
pub const MAX_DIMS: usize = 8;
/// Rounds a router can hold at once; a round still unfinished when its slot is needed
/// again is abandoned (counted).
const SLOTS: usize = 32;
const EMPTY: u32 = u32::MAX;

/// Partial sums carried by a metapacket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Agg {
    /// Full (or occupied) VC buffers.
    pub full: u64,
    /// Cumulative flits delivered to endpoints.
    pub delivered: u64,
}

impl Agg {
    fn plus(self, o: Agg) -> Agg {
        Agg { full: self.full + o.full, delivered: self.delivered + o.delivered }
    }
}

/// A metapacket: its round, the dimension and direction it circles, and its sums.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub struct Packet {
    round: u32,
    dim: u8,
    /// 0 = `+` (ppac), 1 = `-` (npac).
    dir: u8,
    sum: Agg,
}

/// One round as a router sees it.
#[derive(Clone, Copy, Debug)]
struct Round {
    id: u32,
    launch: u64,
    /// Dimensions completed; `n` = the round is complete here.
    phase: u8,
    /// The router has taken its local sample for this round.
    touched: bool,
    /// What this router adds in the current phase.
    contrib: Agg,
    /// Metapackets received per dimension and direction (their sums on arrival).
    arrived: [[Option<Agg>; 2]; MAX_DIMS],
}

const EMPTY_ROUND: Round =
    Round { id: EMPTY, launch: 0, phase: 0, touched: false, contrib: Agg { full: 0, delivered: 0 }, arrived: [[None; 2]; MAX_DIMS] };

/// A round finished at a router: the network-wide sums and when they are usable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Completion {
    /// The router.
    pub router: u32,
    /// The round's launch cycle (the snapshot's nominal sample time).
    pub launch: u64,
    /// The first cycle the sums are usable at the router.
    pub usable: u64,
    /// Network-wide sums.
    pub sum: Agg,
}

/// A metapacket flit ready to leave on an output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetaFlit {
    /// Slab index of the packet (travels as the flit's packet id).
    pub id: u32,
    /// Flit index.
    pub idx: u16,
    /// Tail index (`flits - 1`).
    pub last: u16,
}

/// What the metapacket gather did, for the report (Fig. 11).
#[derive(Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq)]
pub struct MetaReport {
    /// Cycles between round launches.
    pub interval: u32,
    /// Flits per metapacket.
    pub flits: u32,
    /// Rounds launched.
    pub rounds: u64,
    /// Router-rounds completed (a round completes at every router).
    pub completed: u64,
    /// Router-rounds abandoned because their slot was needed by a newer round.
    pub abandoned: u64,
    /// Metapacket flits sent over links.
    pub flits_sent: u64,
    /// Metapackets that arrived before their router had its lower-dimension total, and
    /// waited for it.
    pub held: u64,
    /// Gather times (usable minus launch) of router-rounds launched from the warm-up's end:
    /// minimum, mean and maximum in cycles, and how many.
    pub gather_min: u64,
    /// Mean gather time in cycles.
    pub gather_mean: f64,
    /// Maximum gather time in cycles.
    pub gather_max: u64,
    /// Router-rounds in the gather-time statistics.
    pub gather_count: u64,
}

/// Parameters of a [`MetaNet`].
#[derive(Clone, Copy, Debug)]
pub struct MetaTiming {
    /// Cycles between round launches.
    pub interval: u32,
    /// Flits per metapacket.
    pub flits: u32,
    /// The router's routing delay (a metapacket's, before it may leave).
    pub routing_delay: u32,
    /// The adder's delay.
    pub adder_delay: u32,
    /// Gather times are recorded for rounds launched from this cycle on.
    pub measure_from: u64,
}

/// The metapacket gather on one network: per-router round state, the packets in flight
/// and each output's queue of metapackets waiting for the link.
#[derive(Clone, Debug)]
pub struct MetaNet {
    interval: u64,
    /// Cycles from a metapacket's arrival to its forward being ready.
    forward_delay: u64,
    adder_delay: u64,
    last: u16,
    ports: usize,
    dims: usize,
    /// Per router: its coordinates (dims entries).
    coords: Vec<u32>,
    rounds: Vec<Round>,
    slab: Vec<Packet>,
    free: Vec<u32>,
    /// Per (router, output port): (ready cycle, slab id) waiting for the link.
    outbox: Vec<VecDeque<(u64, u32)>>,
    /// Per (router, output port): flits of the front packet already sent.
    sent: Vec<u16>,
    /// Per router: packets in its outboxes.
    queued: Vec<u32>,
    /// Finished rounds, in order of their usable cycle.
    pub completions: VecDeque<Completion>,
    /// Metapacket flits on links now.
    pub in_channels: u64,
    measure_from: u64,
    report: MetaReport,
    gather_sum: u64,
}

/// Port of direction `dir` (0 = `+`, 1 = `-`) in dimension `d` on a k-ary n-cube router.
fn port(d: usize, dir: u8) -> usize {
    2 * d + dir as usize
}

impl MetaNet {
    /// A gather over a torus with `routers` routers of `ports` ports, router `r` at
    /// coordinates `coords[r * dims..][..dims]`, with timing `t`.
    pub fn new(routers: u32, ports: u32, dims: usize, coords: Vec<u32>, t: MetaTiming) -> Self {
        assert!(dims <= MAX_DIMS && coords.len() == routers as usize * dims, "metapacket gather: bad geometry");
        let MetaTiming { interval, flits, routing_delay, adder_delay, measure_from } = t;
        let lanes = (routers * ports) as usize;
        MetaNet {
            interval: u64::from(interval.max(1)),
            forward_delay: u64::from(routing_delay + adder_delay),
            adder_delay: u64::from(adder_delay),
            last: (flits.max(1) - 1) as u16,
            ports: ports as usize,
            dims,
            coords,
            rounds: vec![EMPTY_ROUND; routers as usize * SLOTS],
            slab: Vec::new(),
            free: Vec::new(),
            outbox: vec![VecDeque::new(); lanes],
            sent: vec![0; lanes],
            queued: vec![0; routers as usize],
            completions: VecDeque::new(),
            in_channels: 0,
            measure_from,
            report: MetaReport { interval, flits, gather_min: u64::MAX, ..MetaReport::default() },
            gather_sum: 0,
        }
    }

    /// True if router `r` has metapackets waiting for a link.
    #[inline]
    pub fn busy(&self, r: u32) -> bool {
        self.queued[r as usize] != 0
    }

    /// True at the cycles a round starts.
    #[inline]
    pub fn launch_due(&self, now: u64) -> bool {
        now.is_multiple_of(self.interval)
    }

    /// Router `r` is a master of dimension `d`.
    fn is_master(&self, r: u32, d: usize) -> bool {
        self.coords[r as usize * self.dims + d] == 0
    }

    /// Start the round of cycle `now` at router `r` if it is a dimension-0 master;
    /// `local` is its sample (used only if it is).
    pub fn launch(&mut self, r: u32, now: u64, local: Agg) {
        if !self.is_master(r, 0) {
            return;
        }
        let id = (now / self.interval) as u32;
        self.report.rounds = self.report.rounds.max(u64::from(id) + 1);
        let Some(slot) = self.slot(r, id, now) else {
            return;
        };
        self.rounds[slot].contrib = local;
        self.rounds[slot].touched = true;
        self.start_phase(r, slot, 0, now);
    }

    /// The slot of round `id` at router `r`, (re)initialised if the round is new here;
    /// None if the slot already holds a newer round (a stale packet, dropped).
    fn slot(&mut self, r: u32, id: u32, launch: u64) -> Option<usize> {
        let i = r as usize * SLOTS + id as usize % SLOTS;
        let cur = self.rounds[i].id;
        if cur == id {
            return Some(i);
        }
        if cur != EMPTY && cur > id {
            return None;
        }
        if cur != EMPTY && (self.rounds[i].phase as usize) < self.dims {
            self.report.abandoned += 1;
        }
        self.rounds[i] = Round { id, launch, ..EMPTY_ROUND };
        Some(i)
    }

    fn emit(&mut self, r: u32, out_port: usize, pkt: Packet, ready: u64) {
        let id = match self.free.pop() {
            Some(id) => {
                self.slab[id as usize] = pkt;
                id
            }
            None => {
                self.slab.push(pkt);
                (self.slab.len() - 1) as u32
            }
        };
        self.outbox[r as usize * self.ports + out_port].push_back((ready, id));
        self.queued[r as usize] += 1;
    }

    /// Router `r` enters phase `d` of the round in `slot`: a master launches its two
    /// packets; packets that arrived early are forwarded; the phase may complete at once.
    fn start_phase(&mut self, r: u32, slot: usize, mut d: usize, now: u64) {
        loop {
            let round = self.rounds[slot];
            let ready = now + self.forward_delay;
            if self.is_master(r, d) {
                let ppac = Packet { round: round.id, dim: d as u8, dir: 0, sum: round.contrib };
                let npac = Packet { round: round.id, dim: d as u8, dir: 1, sum: Agg::default() };
                self.emit(r, port(d, 0), ppac, ready);
                self.emit(r, port(d, 1), npac, ready);
                return;
            }
            for dir in 0..2u8 {
                if let Some(sum) = round.arrived[d][dir as usize] {
                    let fwd = Packet { round: round.id, dim: d as u8, dir, sum: sum.plus(round.contrib) };
                    self.emit(r, port(d, dir), fwd, ready);
                }
            }
            match round.arrived[d] {
                [Some(p), Some(n)] => {
                    let total = p.plus(n).plus(round.contrib);
                    if !self.finish_phase(r, slot, d, total, now) {
                        return;
                    }
                    d += 1;
                }
                _ => return,
            }
        }
    }

    /// Phase `d` of the round in `slot` is complete at router `r` with `total`. Returns
    /// true if the next phase must start.
    fn finish_phase(&mut self, r: u32, slot: usize, d: usize, total: Agg, now: u64) -> bool {
        let round = &mut self.rounds[slot];
        round.phase = d as u8 + 1;
        round.contrib = total;
        if d + 1 < self.dims {
            return true;
        }
        let usable = now + self.adder_delay;
        let launch = round.launch;
        self.completions.push_back(Completion { router: r, launch, usable, sum: total });
        self.report.completed += 1;
        if launch >= self.measure_from {
            let g = usable - launch;
            self.report.gather_min = self.report.gather_min.min(g);
            self.report.gather_max = self.report.gather_max.max(g);
            self.report.gather_count += 1;
            self.gather_sum += g;
        }
        false
    }

    /// The tail of metapacket `id` arrived at router `r` at cycle `now`; `local` is the
    /// router's sample, used if this is the first it sees of the round.
    pub fn arrive(&mut self, r: u32, id: u32, now: u64, local: Agg) {
        let pkt = self.slab[id as usize];
        self.free.push(id);
        let d = pkt.dim as usize;
        let launch = u64::from(pkt.round) * self.interval;
        let Some(slot) = self.slot(r, pkt.round, launch) else {
            return;
        };
        let master = self.is_master(r, d);
        let round = &mut self.rounds[slot];
        if !round.touched {
            round.contrib = local;
            round.touched = true;
        }
        if (round.phase as usize) > d {
            return; // the master's second returning packet, or a late one: absorbed
        }
        if master {
            // Back round the ring: ppac carries the whole row, npac all but the master.
            let total = if pkt.dir == 0 { pkt.sum } else { pkt.sum.plus(round.contrib) };
            if self.finish_phase(r, slot, d, total, now) {
                self.start_phase(r, slot, d + 1, now);
            }
            return;
        }
        round.arrived[d][pkt.dir as usize] = Some(pkt.sum);
        if round.phase as usize == d {
            // Forward this packet (and complete the phase if its partner has passed).
            let round = *round;
            let fwd = Packet { sum: pkt.sum.plus(round.contrib), ..pkt };
            self.emit(r, port(d, pkt.dir), fwd, now + self.forward_delay);
            if let [Some(p), Some(n)] = round.arrived[d] {
                if self.finish_phase(r, slot, d, p.plus(n).plus(round.contrib), now) {
                    self.start_phase(r, slot, d + 1, now);
                }
            }
        } else {
            // Held until the router has its total over the lower dimensions.
            self.report.held += 1;
        }
    }

    /// Router `r` has a metapacket flit ready for output `o` at cycle `now`.
    #[inline]
    pub fn ready(&self, r: u32, o: usize, now: u64) -> bool {
        self.outbox[r as usize * self.ports + o].front().is_some_and(|&(ready, _)| ready <= now)
    }

    /// The metapacket flit router `r` sends on output `o` this cycle, if one is ready;
    /// it is taken (the packet leaves the outbox with its tail).
    #[inline]
    pub fn take_flit(&mut self, r: u32, o: usize, now: u64) -> Option<MetaFlit> {
        let i = r as usize * self.ports + o;
        let &(ready, id) = self.outbox[i].front()?;
        if ready > now {
            return None;
        }
        let idx = self.sent[i];
        if idx == self.last {
            self.outbox[i].pop_front();
            self.sent[i] = 0;
            self.queued[r as usize] -= 1;
        } else {
            self.sent[i] += 1;
        }
        self.report.flits_sent += 1;
        self.in_channels += 1;
        Some(MetaFlit { id, idx, last: self.last })
    }

    /// Partitioned engine: metapacket `id`'s tail left for a router of another partition;
    /// its contents go along (and its slab entry is free here).
    pub fn export(&mut self, id: u32) -> Packet {
        self.free.push(id);
        self.in_channels -= 1;
        self.slab[id as usize]
    }

    /// Partitioned engine: a metapacket flit from another partition is on a link into
    /// this one; with its tail, its contents, stored here under the returned id.
    pub fn import(&mut self, pkt: Option<Packet>) -> u32 {
        self.in_channels += 1;
        let Some(pkt) = pkt else { return 0 };
        match self.free.pop() {
            Some(id) => {
                self.slab[id as usize] = pkt;
                id
            }
            None => {
                self.slab.push(pkt);
                (self.slab.len() - 1) as u32
            }
        }
    }

    /// Partitioned engine: a head or body flit left for another partition (counted
    /// there while on the link).
    pub fn export_flit(&mut self) {
        self.in_channels -= 1;
    }

    /// This partition's report counters and its sum of gather times.
    pub fn report_part(&self) -> (MetaReport, u64) {
        (self.report.clone(), self.gather_sum)
    }

    /// Add another partition's [`MetaNet::report_part`] (at the end of a run).
    pub fn absorb_report(&mut self, (r, sum): &(MetaReport, u64)) {
        let m = &mut self.report;
        m.rounds = m.rounds.max(r.rounds);
        m.completed += r.completed;
        m.abandoned += r.abandoned;
        m.flits_sent += r.flits_sent;
        m.held += r.held;
        m.gather_min = m.gather_min.min(r.gather_min);
        m.gather_max = m.gather_max.max(r.gather_max);
        m.gather_count += r.gather_count;
        self.gather_sum += sum;
    }

    /// The completions usable by cycle `now`, oldest first.
    pub fn pop_usable(&mut self, now: u64) -> Option<Completion> {
        match self.completions.front() {
            Some(c) if c.usable <= now => self.completions.pop_front(),
            _ => None,
        }
    }

    /// What the gather did.
    pub fn report(&self) -> MetaReport {
        let mut r = self.report.clone();
        if r.gather_count == 0 {
            r.gather_min = 0;
        } else {
            r.gather_mean = self.gather_sum as f64 / r.gather_count as f64;
        }
        r
    }
}

#[cfg(test)]
mod tests;
