//! The partitioned engine: one simulation stepped on several threads, with results
//! identical bit for bit to one thread (the design is in `docs/design/scaling.md`).
//!
//! The routers are split into contiguous ranges (slabs of a torus along its slowest
//! dimension; leaf groups of a Clos), each with the endpoints attached to them: a
//! **partition**. Partition 0 is the simulation's own state; every other partition has
//! its own copy of the routers, channels and endpoints (so that every index is the same
//! as in the whole network) and steps only its range, with its own packet arena,
//! measurement collector and counters. Each cycle every partition steps its endpoints
//! and routers on its own thread (a persistent `sim/team.rs` member; partition 0 on
//! the calling thread); a flit or credit for another partition's router goes to an
//! outbox ([`crate::router::crossing`]). Input-queued networks hand the outboxes over
//! cycle by cycle, point to point, inside long windows (`sim/pipeline.rs`): a
//! partition steps its interior routers, waits only for the other partitions' outboxes
//! of the last cycle, then steps its boundary routers, so the threads meet only at the
//! ends of windows. The other networks meet after every cycle (or lookahead window):
//! once every partition has finished it, each receives the others' outboxes in
//! partition order, on its own thread, at the start of the next cycle (or window).
//! Before the engine reads any partition's state between cycles it has them received
//! at once ([`Parallel::settle`]). Every crossing delay is at least one cycle, so a
//! receiver finds each crossing entry in place before the cycle it arrives in: by the
//! two-phase rule nothing any component reads differs from the one-thread run.
//!
//! At the end, the counters and collectors are merged (integer sums and merged
//! histograms, with every floating-point figure computed after the merge) and the
//! endpoints' state is gathered into partition 0, so the report is the one-thread
//! report. The per-component RNG streams are the same whoever steps the component.
//!
//! The same partitions also run as processes ([`super::distributed`], MPI ranks).
//!
//! Global mechanisms: the congestion controller (static or self-tuned threshold, on the
//! side-band) stays with the simulation; its count of full buffers is the sum of the
//! partitions' counts taken before the cycle, and its decision reaches every partition's
//! sources. Disha's recovery token is copied in every partition, and the one partition
//! that decides a capture or release in a cycle hands the new state over with its
//! outbox ([`crate::router::central::disha`]). A retry link whose ends are in different
//! partitions is held and stepped by both ([`crate::router::crosspoint`]'s `crossing`).
//!
//! What is partitioned: every router microarchitecture (input-queued with its arrival
//! calendar, buffered-crossbar with its age clocks and performance counters,
//! central-arbiter with Duato or Disha, side-band throttling and ALO, crosspoint with
//! link-level retry, errors, poisoned copies and failures during the run), on every
//! topology and routing function, with faults, packet- and message-level traffic, NIC
//! dispersion, and the congestion estimate gathered by metapackets (their sums cross
//! with their tails; every partition's finished rounds reach the controller). On one
//! thread: check mode, and input-queued networks with delays of 64 cycles or more
//! ([`serial_reason`] says why).

use crate::config::Spec;
use crate::endpoint::{Endpoints, NicView, Throttle};
use crate::link::Channels;
use crate::packet::{Counters, PacketArena};
use crate::router::crossing::{Crossings, Which};
use crate::router::{RouterFamily, Routers, StepContext};
use crate::stats::Collector;

/// One partition other than the first: its copy of the network state, of which it steps
/// its own routers and endpoints.
struct Part {
    routers: Routers,
    channels: Channels,
    endpoints: Endpoints,
    packets: PacketArena,
    stats: Collector,
    counters: Counters,
    /// Packets it created in the measurement window during the last window of cycles.
    made: u64,
    /// Its place in the partition order (1, 2, ...).
    index: usize,
    /// Its outbox of the last window (swapped into [`Parallel`]'s `boxes` for the
    /// hand-over; the emptied box of an earlier window otherwise).
    outbox: Crossings,
}

/// The state one partition steps, borrowed for a cycle.
pub(super) struct PartMut<'a> {
    pub routers: &'a mut Routers,
    pub channels: &'a mut Channels,
    pub endpoints: &'a mut Endpoints,
    pub packets: &'a mut PacketArena,
    pub stats: &'a mut Collector,
    pub counters: &'a mut Counters,
}

impl PartMut<'_> {
    /// One cycle of this partition: its endpoints (held back by `throttle`), then its
    /// routers.
    pub fn step(&mut self, now: u64, phase: Option<usize>, spec: &Spec, throttle: Throttle) {
        let view = NicView { routing: &spec.routing, dispersion: spec.dispersion.as_ref() };
        self.endpoints.step_all(
            now,
            phase,
            &spec.workload,
            self.channels,
            self.packets,
            self.stats,
            self.counters,
            self.routers,
            throttle,
            view,
        );
        self.step_routers(Which::All, now, spec);
    }

    /// Step the routers `which` names of this partition for cycle `now`.
    pub fn step_routers(&mut self, which: Which, now: u64, spec: &Spec) {
        let mut cx = StepContext {
            now,
            topo: &spec.topology,
            routing: &spec.routing,
            ch: self.channels,
            packets: self.packets,
            stats: self.stats,
            ctr: self.counters,
        };
        self.routers.step(which, &mut cx);
    }

    /// Cycles `now .. now + k` of this partition (a lookahead window, [`super::window`]);
    /// returns the packets it created in the measurement window.
    pub fn step_cycles(&mut self, now: u64, k: u64, spec: &Spec, throttle: Throttle) -> u64 {
        let mut made = 0;
        for t in now..now + k {
            let before = self.counters.packets_created;
            self.step(t, spec.workload.phase_at(t), spec, throttle);
            if self.stats.in_window(t) {
                made += self.counters.packets_created - before;
            }
        }
        made
    }
}

/// The partitions after the first, the threads that step them, and partition 0's
/// counters (the simulation's own `counters` then hold the sum of all).
pub struct Parallel {
    team: super::team::Team,
    parts: Vec<Part>,
    /// (Padded: partition 0 writes it with every flit it moves, and nothing another
    /// thread reads may share its cache lines. Boxed: the simulation, which holds this
    /// structure, must not need more than the usual alignment, as a Python object's
    /// memory has only that.)
    counters0: Box<crossbeam_utils::CachePadded<Counters>>,
    /// The outboxes of the last window, in partition order, for the hand-over (reused:
    /// a window allocates nothing).
    boxes: Vec<Crossings>,
    /// Partition 0's outbox of the last window (or an emptied one).
    outbox0: Crossings,
    /// Are `boxes` still to be received ([`Parallel::settle`])?
    pending: bool,
    /// May the hand-over wait for the next window ([`Parallel::settle`])? Input-queued
    /// and buffered-crossbar routers: the engine reads nothing a hand-over changes
    /// between cycles. The others hand over at the end of every window, as the
    /// congestion controller reads their buffers and finished metapacket rounds before
    /// the next cycle.
    defer: bool,
    /// Flits handed from one partition to another so far.
    crossed: u64,
    /// The pipelined hand-over, where it applies (`sim/pipeline.rs`), and the last
    /// cycle stepped with it.
    pipe: Option<Box<super::pipeline::Mailboxes>>,
    last: Option<u64>,
}

/// Networks of at least this many routers run on the available cores by default
/// ([`auto_threads`]): below it a cycle is too short for the per-cycle hand-over to pay.
pub const AUTO_MIN_ROUTERS: u32 = 256;

/// The same for networks that use the pipelined hand-over (`sim/pipeline.rs`), whose
/// partitions do not meet after every cycle. Measured on the 2-core development machine
/// (60,066-cycle runs, 1 thread / 2 threads): an 8x8 mesh gains 1.3-1.7x at loads
/// 0.01 to 0.6 and an 8x8 torus 1.5-1.7x, while a 6x6 mesh ranges from 0.9x (load
/// 0.05) to 1.6x (0.3) and a 4x4 mesh loses.
pub const AUTO_MIN_ROUTERS_PIPELINED: u32 = 64;

/// The thread count a run uses when none is given: the available cores for networks of
/// [`AUTO_MIN_ROUTERS`] routers or more ([`AUTO_MIN_ROUTERS_PIPELINED`] with the
/// pipelined hand-over), else 1.
pub fn auto_threads(spec: &Spec) -> usize {
    let min = if super::pipeline::applies(spec) { AUTO_MIN_ROUTERS_PIPELINED } else { AUTO_MIN_ROUTERS };
    if spec.topology.num_routers >= min {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        1
    }
}

/// Why a network runs on one thread whatever the thread count asked for, or `None` if
/// it can be partitioned into `threads` partitions.
pub fn serial_reason(spec: &Spec, routers: &Routers, threads: usize) -> Option<&'static str> {
    let cfg = &spec.config;
    if threads <= 1 {
        return Some("one thread asked for");
    }
    if let Some(why) = routers.serial_reason() {
        return Some(why);
    }
    if (spec.topology.num_routers as usize) < threads {
        return Some("fewer routers than threads");
    }
    if cfg.sim.check {
        return Some("check mode verifies the whole network every cycle on one thread");
    }
    None
}

impl Parallel {
    /// Split the network into `threads` partitions (at cycle 0: nothing in flight).
    /// Partition 0 keeps the given state (narrowed to its range); the others get copies.
    pub fn new(
        threads: usize,
        spec: &Spec,
        routers: &mut Routers,
        channels: &Channels,
        endpoints: &mut Endpoints,
        stats: &Collector,
    ) -> crate::error::Result<Parallel> {
        let span = |k: usize| span(spec, threads, k);
        let mut parts = Vec::with_capacity(threads - 1);
        for k in 1..threads {
            let ((lo, hi), (nlo, nhi)) = span(k);
            let mut r = routers.clone();
            r.partition(lo, hi);
            let mut e = endpoints.clone();
            e.partition(nlo, nhi);
            parts.push(Part {
                routers: r,
                channels: channels.clone(),
                endpoints: e,
                packets: PacketArena::default(),
                stats: stats.clone(),
                counters: Counters::default(),
                made: 0,
                index: k,
                outbox: Crossings::default(),
            });
        }
        let ((lo, hi), (nlo, nhi)) = span(0);
        routers.partition(lo, hi);
        endpoints.partition(nlo, nhi);
        let team = super::team::Team::new(threads - 1, "flitsim-part")
            .map_err(|e| crate::error::Error::Config { path: "threads".into(), message: format!("cannot start {threads} threads: {e}") })?;
        let pipe = super::pipeline::applies(spec).then(|| Box::new(super::pipeline::Mailboxes::new(threads, 0, team.spins())));
        Ok(Parallel {
            team,
            parts,
            counters0: Box::new(crossbeam_utils::CachePadded::new(Counters::default())),
            boxes: vec![Crossings::default(); threads],
            outbox0: Crossings::default(),
            pending: false,
            defer: routers.windowed(),
            crossed: 0,
            pipe,
            last: None,
        })
    }

    /// Number of partitions (threads).
    pub fn threads(&self) -> usize {
        self.parts.len() + 1
    }

    /// Do the partitions hand over cycle by cycle, point to point, so that a step may
    /// take any number of cycles (`sim/pipeline.rs`)?
    pub fn pipelined(&self) -> bool {
        self.pipe.is_some()
    }

    /// Cycles `now .. now + k` of every partition, in parallel (`k` at most the
    /// lookahead, `sim/window.rs`; sources held back by `throttle`, which must be
    /// `Open` for more than one cycle), then the hand-over of the flits, credits and
    /// events that crossed; returns the counters of the whole network and the packets
    /// created in the measurement window.
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
        let Parallel { team, parts, counters0, boxes, outbox0, pending, defer, crossed, pipe, last } = self;
        let mut first = PartMut { routers, channels, endpoints, packets, stats, counters: counters0 };
        if let Some(pipe) = pipe {
            debug_assert!(matches!(throttle, Throttle::Open), "pipelined networks have no throttling");
            let pipe = &*pipe;
            let step = |p: &mut Part| {
                let mut m = PartMut {
                    routers: &mut p.routers,
                    channels: &mut p.channels,
                    endpoints: &mut p.endpoints,
                    packets: &mut p.packets,
                    stats: &mut p.stats,
                    counters: &mut p.counters,
                };
                p.made = pipe.step_cycles(p.index, &mut m, now, k, spec);
            };
            let made = team.run(parts, &step, || pipe.step_cycles(0, &mut first, now, k, spec));
            *last = Some(now + k - 1);
            return totals(first.counters, parts, made);
        }
        // Every partition, on its own thread (so that its state stays in its core's
        // caches): receive the other partitions' outboxes of the last window if they
        // are still pending, step this window, and take its outbox.
        let last = if *pending { &boxes[..] } else { &[][..] };
        let step = |p: &mut Part| {
            receive_all(last, p.index, &mut p.routers, &mut p.channels, &mut p.packets);
            let mut m = PartMut {
                routers: &mut p.routers,
                channels: &mut p.channels,
                endpoints: &mut p.endpoints,
                packets: &mut p.packets,
                stats: &mut p.stats,
                counters: &mut p.counters,
            };
            p.made = m.step_cycles(now, k, spec, throttle);
            p.outbox = take_outbox(&mut p.routers, std::mem::take(&mut p.outbox));
        };
        let made = team.run(parts, &step, || {
            receive_all(last, 0, first.routers, first.channels, first.packets);
            let made = first.step_cycles(now, k, spec, throttle);
            *outbox0 = take_outbox(first.routers, std::mem::take(outbox0));
            made
        });
        std::mem::swap(&mut boxes[0], outbox0);
        for p in parts.iter_mut() {
            std::mem::swap(&mut boxes[p.index], &mut p.outbox);
        }
        *crossed += boxes.iter().map(Crossings::flits_crossing).sum::<u64>();
        *pending = boxes.iter().any(|b| !b.is_empty());
        if !*defer && std::mem::take(pending) {
            hand_over(team, parts, boxes, first.routers, first.channels, first.packets);
        }
        totals(first.counters, parts, made)
    }

    /// Hand over the outboxes of the last window now, if they are pending (every
    /// partition receives them on its own thread). The engine does this before it
    /// reads any partition's state between windows; [`Parallel::step`] does it at the
    /// start of the next window otherwise (one meeting of the threads per window).
    pub fn settle(&mut self, routers: &mut Routers, channels: &mut Channels, packets: &mut PacketArena) {
        if let (Some(pipe), Some(last)) = (&mut self.pipe, self.last) {
            if !pipe.is_settled(last) {
                let pipe_ref = &*pipe;
                let receive = |p: &mut Part| pipe_ref.settle_job(p.index, last, &mut p.routers, &mut p.channels, &mut p.packets);
                self.team.run(&mut self.parts, &receive, || pipe_ref.settle_job(0, last, routers, channels, packets));
                pipe.mark_settled(last);
            }
            return;
        }
        if !std::mem::take(&mut self.pending) {
            return;
        }
        hand_over(&self.team, &mut self.parts, &self.boxes, routers, channels, packets);
    }

    /// The congestion estimate's count of full (or occupied) VC buffers in the
    /// partitions after the first (central-arbiter routers).
    pub fn count_buffers(&self, occupied: bool) -> u32 {
        self.parts.iter().map(|p| p.routers.congestion_count(occupied).unwrap_or(0)).sum()
    }

    /// The metapacket rounds usable by cycle `now` finished in the partitions after the
    /// first, onto `done`.
    pub fn pop_meta(&mut self, now: u64, done: &mut Vec<crate::congestion::metapacket::Completion>) {
        for p in &mut self.parts {
            if let Some(meta) = p.routers.metapackets() {
                while let Some(x) = meta.pop_usable(now) {
                    done.push(x);
                }
            }
        }
    }

    /// Flits handed from one partition to another so far.
    pub fn crossed_flits(&self) -> u64 {
        self.crossed + self.pipe.as_ref().map_or(0, |p| p.crossed())
    }

    /// Packets alive in the partitions after the first.
    pub fn live_packets(&self) -> u64 {
        self.parts.iter().map(|p| p.packets.live()).sum()
    }

    /// Packets waiting in the source queues of the partitions after the first.
    pub fn queued(&self) -> u64 {
        self.parts.iter().map(|p| p.endpoints.queued()).sum()
    }

    /// Will no source of the partitions after the first create another packet?
    pub fn exhausted(&self, now: u64, workload: &crate::traffic::Workload, phase: Option<usize>) -> bool {
        self.parts.iter().all(|p| p.endpoints.exhausted(now, workload, phase))
    }

    /// Close every partition's measurement window early (a finite workload finished).
    pub fn close_window(&mut self, now: u64) {
        for p in &mut self.parts {
            p.stats.close_window(now);
        }
    }

    /// Copy every partition's router state into `routers` (partition 0's), so that it
    /// shows the whole network: for deadlock reports. Flits keep their partition's
    /// packet ids ([`Parallel::arena_of`] finds their arena).
    pub fn gather_routers(&self, routers: &mut Routers) {
        for p in &self.parts {
            routers.copy_span_from(&p.routers);
        }
    }

    /// The arena holding the packets of the flits buffered at `router` (after
    /// [`Parallel::gather_routers`]); `None` for partition 0's own.
    pub fn arena_of(&self, router: u32) -> Option<&PacketArena> {
        self.parts
            .iter()
            .find(|p| {
                let (lo, hi) = p.routers.span();
                (lo..hi).contains(&router)
            })
            .map(|p| &p.packets)
    }

    /// End of the run: merge the other partitions' measurements and endpoint state into
    /// partition 0's.
    pub fn finish(self, routers: &mut Routers, endpoints: &mut Endpoints, stats: &mut Collector) {
        for p in &self.parts {
            stats.merge(&p.stats);
            endpoints.absorb(&p.endpoints);
            routers.merge_counters(&p.routers);
            if let Some(d) = p.routers.dateline_drops() {
                routers.merge_dateline_drops(&d);
            }
        }
    }
}

/// The counters of the whole network (partition 0's `first` and the others') and the
/// packets every partition created in the measurement window (partition 0's `made0`).
fn totals(first: &Counters, parts: &[Part], made0: u64) -> (Counters, u64) {
    let mut total = *first;
    for p in parts {
        total.merge(&p.counters);
    }
    (total, made0 + parts.iter().map(|p| p.made).sum::<u64>())
}

/// Partition `k` of `parts`: its routers `[lo, hi)` and its endpoints `[lo, hi)`
/// (contiguous ranges: slabs of a torus along its slowest dimension).
pub(super) fn span(spec: &Spec, parts: usize, k: usize) -> ((u32, u32), (u32, u32)) {
    let topo = &spec.topology;
    let (r_n, n, c) = (topo.num_routers as u64, topo.num_nodes as u64, topo.concentration as u64);
    let (lo, hi) = (r_n * k as u64 / parts as u64, r_n * (k as u64 + 1) / parts as u64);
    ((lo as u32, hi as u32), ((lo * c).min(n) as u32, (hi * c).min(n) as u32))
}

/// A partition's outbox of this cycle: its routers' crossings.
pub(super) fn take_outbox(r: &mut Routers, spare: Crossings) -> Crossings {
    r.take_crossings(spare)
}

/// Every partition, on its own thread, receives the outboxes `boxes` of the others.
fn hand_over(
    team: &super::team::Team,
    parts: &mut [Part],
    boxes: &[Crossings],
    routers: &mut Routers,
    channels: &mut Channels,
    packets: &mut PacketArena,
) {
    let receive = |p: &mut Part| receive_all(boxes, p.index, &mut p.routers, &mut p.channels, &mut p.packets);
    team.run(parts, &receive, || receive_all(boxes, 0, routers, channels, packets));
}

/// Receive, in partition order, the outboxes `boxes` of every partition but `own`.
fn receive_all(boxes: &[Crossings], own: usize, r: &mut Routers, ch: &mut Channels, packets: &mut PacketArena) {
    for (j, b) in boxes.iter().enumerate() {
        if j != own && !b.is_empty() {
            receive_outbox(r, b, ch, packets);
        }
    }
}

/// Receive another partition's outbox ([`take_outbox`]).
pub(super) fn receive_outbox(r: &mut Routers, b: &Crossings, ch: &mut Channels, packets: &mut PacketArena) {
    r.receive_crossings(b, ch, packets);
}
