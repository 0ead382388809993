//! The partitioned engine across processes (MPI ranks), on the same partitions as the
//! threads of [`super::parallel`].
//!
//! Every process builds the whole simulation from the same config (so every index is
//! the same everywhere), then narrows it to its partition: process `k` of `P` steps the
//! routers and endpoints of partition `k` of `P` (`parallel::span`), with its own
//! packet arena, collector and counters. Each cycle it steps its partition, sorts its
//! outbox of crossing flits and credits ([`crate::router::crossing`]) by the process
//! whose partition receives each (keeping the order sent), sends every process its
//! share ([`Peers::exchange`], an all-to-all: a process's neighbour slabs get flits, the
//! others only the counters below) and receives the others' in process order: the order
//! the threads engine hands them over in, so the receivers see the same arrivals in the
//! same order as one thread does. Every crossing delay is at least
//! one cycle, so one exchange per cycle is the synchronisation window.
//!
//! What the engine decides from global state (the watchdog's progress, the end of a
//! finite workload, the drain) it decides from values reduced over the processes: the
//! counters every cycle (each outbox carries its sender's; sums, and maxima for the
//! last-progress cycles, so one exchange per cycle is the only collective), and where
//! the run may stop, the packets alive and whether every source is exhausted; the
//! congestion controller, replicated on every process, samples the sum of the processes'
//! counts of full buffers (a reduction in the cycles it samples), so every process
//! throttles its sources alike. Disha's token state travels with the outbox of the
//! process that decided it ([`crate::router::central::disha`]), and so do the events of
//! retry links whose ends are in two processes, and metapackets' sums and finished rounds (every process's controller sees all rounds).
//! So every process takes the same branch in the same cycle. At the end process 0
//! gathers the other processes' collectors, endpoint totals (message reassembly,
//! dispersion counts), router performance and event counters and retry-link totals,
//! and merges them as the threads engine does; its report is the one-thread report,
//! bit for bit.
//!
//! Not distributed (the run stays whole on every process, and process 0 reports it):
//! whatever [`super::parallel::serial_reason`] keeps on one thread. The periodic search for a partial deadlock (a cycle of waiting VCs
//! while others still move) needs every router's state and is skipped; a network that
//! stops altogether still trips the watchdog, on every process at once.

use serde::{Deserialize, Serialize};

use super::parallel::{receive_outbox, span, take_outbox, PartMut};
use super::peers::Peers;
use crate::config::Spec;
use crate::congestion::metapacket::Completion;
use crate::endpoint::Endpoints;
use crate::endpoint::Throttle;
use crate::link::Channels;
use crate::packet::{Counters, PacketArena};
use crate::router::central::disha::Token;
use crate::router::crossing::{CrossCredit, CrossFlit, Crossings, MetaCross};
use crate::router::crosspoint::RetryEvent;
use crate::router::{FamilyTotals, RouterFamily, Routers};
use crate::stats::Collector;

/// One outbox on the wire, with the sender's counters (so that one exchange per cycle
/// also reduces them).
#[derive(Serialize)]
struct WireOut<'a> {
    flits: &'a [CrossFlit],
    credits: &'a [CrossCredit],
    token: Option<Token>,
    retry: &'a [RetryEvent],
    meta: &'a [MetaCross],
    /// Metapacket rounds finished here this cycle.
    done: &'a [Completion],
    counts: [u64; 11],
    last: [u64; 2],
    /// Packets created in the measurement window during the window of cycles.
    made: u64,
}

#[derive(Deserialize)]
struct WireIn {
    flits: Vec<CrossFlit>,
    credits: Vec<CrossCredit>,
    token: Option<Token>,
    retry: Vec<RetryEvent>,
    meta: Vec<MetaCross>,
    done: Vec<Completion>,
    counts: [u64; 11],
    last: [u64; 2],
    made: u64,
}

/// What process 0 gathers at the end.
#[derive(Serialize, Deserialize)]
struct Finish {
    stats: Collector,
    phase_flits: Vec<u64>,
    unroutable: (u64, u64),
    /// The router family's counters.
    family: FamilyTotals,
    /// The input-queued or buffered-crossbar routers' dateline drops.
    drops: Option<crate::router::drops::DatelineDrops>,
    /// Message reassembly, NIC dispersion and trace replay totals.
    nic: crate::endpoint::NicTotals,
}

/// The crossings of one cycle bound for one process.
#[derive(Default)]
struct Sorted {
    flits: Vec<CrossFlit>,
    credits: Vec<CrossCredit>,
    meta: Vec<MetaCross>,
}

/// This process's share of a run across processes.
pub struct Distributed {
    peers: Box<dyn Peers>,
    /// This process's own counters (the simulation's `counters` hold the whole run's).
    local: Counters,
    spare: Crossings,
    /// The first router of each process's partition, and the router count after them.
    starts: Vec<u32>,
    /// Per process: this cycle's crossings for it (reused buffers).
    sorted: Vec<Sorted>,
    /// Per process: the serialized outbox for it.
    outs: Vec<Vec<u8>>,
    inbox: Vec<Vec<u8>>,
    crossed: u64,
    /// Metapacket rounds finished at any process, not yet usable.
    pending: std::collections::VecDeque<Completion>,
    /// This cycle's rounds finished here (reused buffer).
    done: Vec<Completion>,
}

/// Why a run is not split across `processes` processes, or `None` if it is.
pub fn whole_reason(spec: &Spec, routers: &Routers, processes: usize) -> Option<&'static str> {
    super::parallel::serial_reason(spec, routers, processes)
}

impl Distributed {
    /// Narrow the simulation's state to this process's partition (before the first cycle).
    pub fn new(peers: Box<dyn Peers>, spec: &Spec, routers: &mut Routers, endpoints: &mut Endpoints) -> Distributed {
        let (size, rank) = (peers.size(), peers.rank());
        let ((lo, hi), (nlo, nhi)) = span(spec, size, rank);
        routers.partition(lo, hi);
        endpoints.partition(nlo, nhi);
        let starts = (0..=size).map(|k| if k == size { spec.topology.num_routers } else { span(spec, size, k).0 .0 }).collect();
        let sorted = (0..size).map(|_| Sorted::default()).collect();
        Distributed {
            peers,
            local: Counters::default(),
            spare: Crossings::default(),
            starts,
            sorted,
            outs: vec![Vec::new(); size],
            inbox: vec![Vec::new(); size],
            crossed: 0,
            pending: Default::default(),
            done: Vec::new(),
        }
    }

    /// Processes sharing the run.
    pub fn processes(&self) -> usize {
        self.peers.size()
    }

    /// This process's index.
    pub fn rank(&self) -> usize {
        self.peers.rank()
    }

    /// Flits this process received from the others so far.
    pub fn crossed_flits(&self) -> u64 {
        self.crossed
    }

    /// Cycles `now .. now + k` of this partition (a lookahead window, `sim/window.rs`),
    /// the exchange of the crossings, and the whole run's counters and packets created in
    /// the measurement window.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        now: u64,
        k: u64,
        spec: &Spec,
        routers: &mut Routers,
        channels: &mut Channels,
        endpoints: &mut Endpoints,
        packets: &mut PacketArena,
        stats: &mut Collector,
        throttle: Throttle,
    ) -> (Counters, u64) {
        let mut made =
            PartMut { routers, channels, endpoints, packets, stats, counters: &mut self.local }.step_cycles(now, k, spec, throttle);
        let mine = made;
        let outbox = take_outbox(routers, std::mem::take(&mut self.spare));
        // Rounds finished here go to every process (each controller sees them all).
        let mut done = std::mem::take(&mut self.done);
        done.clear();
        if let Some(m) = routers.metapackets() {
            done.extend(m.completions.drain(..));
        }
        let (mut counts, mut last) = (self.local.counts(), self.local.last());
        // Each crossing goes only to the process whose partition holds its receiving
        // router, in the order sent; what every process needs (the counters, the Disha
        // token, finished metapacket rounds, retry-link events) goes to all.
        let rank = self.peers.rank();
        for b in &mut self.sorted {
            b.flits.clear();
            b.credits.clear();
            b.meta.clear();
        }
        let starts = &self.starts;
        let owner = |row: u32| {
            let r = routers.crossing_router(row);
            starts.partition_point(|&s| s <= r) - 1
        };
        for x in &outbox.flits {
            self.sorted[owner(x.row)].flits.push(*x);
        }
        for c in &outbox.credits {
            self.sorted[owner(c.row)].credits.push(*c);
        }
        for m in &outbox.meta {
            self.sorted[owner(m.row)].meta.push(*m);
        }
        for (k, (b, out)) in self.sorted.iter().zip(self.outs.iter_mut()).enumerate() {
            out.clear();
            if k == rank {
                continue;
            }
            let wire = WireOut {
                flits: &b.flits,
                credits: &b.credits,
                token: outbox.token,
                retry: &outbox.retry,
                meta: &b.meta,
                done: &done,
                counts,
                last,
                made: mine,
            };
            *out = postcard::to_extend(&wire, std::mem::take(out)).expect("an outbox serializes");
        }
        self.peers.exchange(&self.outs, &mut self.inbox);
        for (k, bytes) in self.inbox.iter().enumerate() {
            if k == rank {
                self.pending.extend(done.iter().copied());
                continue;
            }
            let mut w: WireIn = postcard::from_bytes(bytes).expect("an outbox from another process deserializes");
            self.pending.extend(w.done.drain(..));
            // The whole run's counters: sums, and the latest progress anywhere (the same
            // on every process: integer sums and maxima do not depend on the order).
            for (a, b) in counts.iter_mut().zip(w.counts) {
                *a += b;
            }
            for (a, b) in last.iter_mut().zip(w.last) {
                *a = (*a).max(b);
            }
            made += w.made;
            if w.flits.is_empty() && w.credits.is_empty() && w.token.is_none() && w.retry.is_empty() && w.meta.is_empty() {
                continue;
            }
            let b = Crossings { flits: w.flits, credits: w.credits, token: w.token, retry: w.retry, meta: w.meta, xlate: Vec::new() };
            self.crossed += b.flits_crossing();
            receive_outbox(routers, &b, channels, packets);
        }
        self.spare = outbox;
        self.done = done;
        (Counters::from_parts(counts, last), made)
    }

    /// The metapacket rounds usable by cycle `now`, finished at any process, onto `done`
    /// (in the order finished: by cycle, then by process).
    pub fn pop_meta(&mut self, now: u64, done: &mut Vec<Completion>) {
        while self.pending.front().is_some_and(|c| c.usable <= now) {
            done.extend(self.pending.pop_front());
        }
    }

    /// Sum of `v` over the processes.
    pub fn total(&self, v: u64) -> u64 {
        let mut a = [v];
        self.peers.sum(&mut a);
        a[0]
    }

    /// True on every process if `b` is true on every process.
    pub fn all(&self, b: bool) -> bool {
        let mut a = [u64::from(!b)];
        self.peers.max(&mut a);
        a[0] == 0
    }

    /// End of the run: process 0 merges every other process's measurements and endpoint
    /// totals into its own; the others keep theirs (their report is not used).
    pub fn finish(self, routers: &mut Routers, endpoints: &mut Endpoints, stats: &mut Collector) {
        let drops = routers.dateline_drops();
        let mine = Finish {
            stats: stats.clone(),
            phase_flits: endpoints.phase_flits.clone(),
            unroutable: endpoints.unroutable(),
            family: routers.totals(),
            drops,
            nic: endpoints.nic_totals(),
        };
        let bytes = postcard::to_allocvec(&mine).expect("a collector serializes");
        let Some(all) = self.peers.gather(&bytes) else { return };
        for (k, b) in all.iter().enumerate() {
            if k == self.peers.rank() {
                continue;
            }
            let f: Finish = postcard::from_bytes(b).expect("a collector from another process deserializes");
            stats.merge(&f.stats);
            endpoints.add_totals(&f.phase_flits, f.unroutable);
            endpoints.add_nic_totals(&f.nic);
            routers.absorb_totals(&f.family);
            if let Some(d) = &f.drops {
                routers.merge_dateline_drops(d);
            }
        }
    }
}
