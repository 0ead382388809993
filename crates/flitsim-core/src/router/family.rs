//! The router family contract: what the engine asks of the routers of a network,
//! whatever their microarchitecture.
//!
//! A family ([`super::iq`], [`super::buffered`], [`super::central`], [`super::crosspoint`])
//! holds the state of every router of a network (or of one partition of it) in its own
//! layout and implements [`RouterFamily`]: one cycle's [`RouterFamily::step`] given a
//! [`StepContext`], what the engine's checks and reports read (buffer occupancy, credits,
//! counters), the partitioned engine's hand-over of flits and credits between
//! partitions ([`super::crossing`]), and the optional mechanisms only some families have
//! (dateline drops, the congestion estimate and metapackets, link-level retry, endpoint
//! activity tracking, the wait-for graph of deadlock reports), whose defaults say the
//! family has none. [`super::Routers`] dispatches to the family of a run once per call,
//! statically.

use serde::{Deserialize, Serialize};

use super::crossing::{Crossings, Which};
use super::drops::DatelineDrops;
use crate::congestion::metapacket::{MetaNet, MetaReport};
use crate::link::{Channels, Flit};
use crate::packet::{Counters, PacketArena};
use crate::routing::RoutingFunction;
use crate::stats::Collector;
use crate::topology::Topology;

/// What one cycle of router steps reads and writes besides the routers' own state. `R`
/// is the routing function's type: the engine passes the run's [`RoutingFunction`]; a
/// family that compiles its step per routing function passes on the one it matched
/// ([`StepContext::with_routing`]).
pub struct StepContext<'a, R: ?Sized = RoutingFunction> {
    /// The cycle being stepped.
    pub now: u64,
    /// The network.
    pub topo: &'a Topology,
    /// The routing function (a family that needs one kind checks it at build).
    pub routing: &'a R,
    /// Every channel's flits and credits in flight.
    pub ch: &'a mut Channels,
    /// The packets the flits belong to.
    pub packets: &'a mut PacketArena,
    /// The measurements.
    pub stats: &'a mut Collector,
    /// The engine's counters (flits lost, hops, ...).
    pub ctr: &'a mut Counters,
}

impl<R: ?Sized> StepContext<'_, R> {
    /// The same cycle with routing function `routing` (borrowing this context's state).
    pub fn with_routing<'b, S: ?Sized>(&'b mut self, routing: &'b S) -> StepContext<'b, S> {
        StepContext {
            now: self.now,
            topo: self.topo,
            routing,
            ch: &mut *self.ch,
            packets: &mut *self.packets,
            stats: &mut *self.stats,
            ctr: &mut *self.ctr,
        }
    }
}

/// The reports a family adds to the run's report (each `None` where it has none).
#[derive(Debug, Default)]
pub struct FamilyReport {
    /// Performance counters per port (buffered crossbar).
    pub router_counters: Option<crate::stats::router_counters::CountersReport>,
    /// The metapacket gather (central router with metapackets).
    pub metapackets: Option<MetaReport>,
    /// Central-arbiter event counts.
    pub central: Option<super::central::CentralCounters>,
    /// Crosspoint-switch event counts.
    pub crosspoint: Option<super::crosspoint::CrosspointCounters>,
    /// Link-level retry (crosspoint switch with `[channel.retry]`).
    pub retry: Option<super::crosspoint::RetryReport>,
}

/// A process's share of a family's counters, sent to the process that writes the
/// report (runs across processes, `sim/distributed.rs`).
#[derive(Serialize, Deserialize, Clone, Debug, Default)]
pub struct FamilyTotals {
    /// Buffered-crossbar performance counters.
    pub perf: Option<crate::stats::router_counters::PerfCounters>,
    /// Central-arbiter event counts.
    pub central: Option<super::central::CentralCounters>,
    /// The metapacket gather's report counters.
    pub meta: Option<(MetaReport, u64)>,
    /// Crosspoint-switch event counts.
    pub crosspoint: Option<super::crosspoint::CrosspointCounters>,
    /// Retry-link totals (each link counted by its transmitter's process).
    pub retry: Option<super::crosspoint::RetryPart>,
}

/// A router array's wait-for graph, for deadlock reports: nodes (buffers) that hold
/// flits and what each waits for (`sim/deadlock.rs` finds its cycles).
pub trait WaitGraph {
    /// Number of nodes.
    fn nodes(&self) -> usize;
    /// The flit at the front of node `i`, if it holds any.
    fn front(&self, i: usize) -> Option<Flit>;
    /// The nodes `i` waits for, into `out`.
    fn waits(&self, ch: &Channels, i: usize, out: &mut Vec<usize>);
    /// Node `i`'s name in a report (router, port, VC).
    fn node_name(&self, topo: &Topology, i: usize) -> String;
    /// What the nodes are, in a report ("input VCs").
    fn node_kind(&self) -> &'static str {
        "buffers"
    }
}

/// The flits in the input VC buffers of `(r, port)` of `family` and whether one of them
/// holds `depth` flits (is full): [`RouterFamily::input_load`] of buffers `depth` deep.
pub fn vc_buffers_load<F: RouterFamily>(family: &F, r: u32, port: u32, depth: u32) -> (u32, bool) {
    (0..family.vcs()).fold((0, false), |(flits, full), v| {
        let len = family.input_len(r, port, v);
        (flits + len, full || len >= depth)
    })
}

/// The routers of a network of one family: what the engine needs of them.
pub trait RouterFamily: Clone {
    /// Ports per router.
    fn ports(&self) -> u32;
    /// VC lanes per port.
    fn vcs(&self) -> u32;
    /// Flit slots per input VC buffer (into which credits are counted).
    fn depth(&self) -> u32;
    /// Flits in input VC buffer `(router, port, vc)`.
    fn input_len(&self, r: u32, p: u32, v: u32) -> u32;
    /// Front flit of input VC buffer `(router, port, vc)`.
    fn input_front(&self, r: u32, p: u32, v: u32) -> Option<Flit>;
    /// Credits of output VC `(router, port, vc)` for the downstream buffer (0 for a
    /// family that counts no flit credits between routers).
    fn out_credits(&self, r: u32, p: u32, v: u32) -> u32;
    /// The flits buffered at input `port` of router `r` (the receiving end of the channel
    /// into it), and whether one of its buffers there is full, so that the channel's
    /// sender cannot send in that VC (what `stats.buffer_sample` reports). By default
    /// the port's input VC buffers against [`RouterFamily::depth`].
    fn input_load(&self, r: u32, port: u32) -> (u32, bool) {
        vc_buffers_load(self, r, port, self.depth())
    }
    /// Flits buffered in all routers.
    fn total_buffered(&self) -> u64;
    /// An endpoint sent a flit into input `port` of router `r`, arriving at `arrive`.
    fn flit_sent_to(&mut self, r: u32, port: u32, arrive: u64);
    /// Advance the routers `which` names that have work by one cycle.
    /// [`Which::All`] steps every router of the partition; only families that
    /// [`RouterFamily::steps_by_halves`] are asked for the others.
    fn step(&mut self, which: Which, cx: &mut StepContext<'_>);

    /// Can a partition step its interior and boundary routers separately (the
    /// pipelined hand-over, `sim/pipeline.rs`)?
    fn steps_by_halves(&self) -> bool {
        false
    }
    /// May partitions step several cycles between two hand-overs and hand over lazily?
    /// True where the engine reads nothing a hand-over changes between cycles (no
    /// congestion estimate over the buffers, no retry links).
    fn windowed(&self) -> bool {
        false
    }
    /// Why these routers cannot be partitioned over threads, if they cannot.
    fn serial_reason(&self) -> Option<&'static str> {
        None
    }

    // Partitions: each steps the routers of its span and hands over what crosses.

    /// Step only routers `[lo, hi)`.
    fn partition(&mut self, lo: u32, hi: u32);
    /// The routers this structure steps, `[lo, hi)`.
    fn span(&self) -> (u32, u32);
    /// Take this cycle's outbox (flits and credits for other partitions).
    fn take_crossings(&mut self, spare: Crossings) -> Crossings;
    /// Receive another partition's outbox.
    fn receive_crossings(&mut self, from: &Crossings, ch: &mut Channels, packets: &mut PacketArena);
    /// Copy the routers of `other`'s span into these (to report on the whole network).
    fn copy_span_from(&mut self, other: &Self);
    /// Add another partition's counters.
    fn merge_counters(&mut self, _other: &Self) {}
    /// The router a crossing's `row` names ([`super::crossing::CrossFlit::row`]).
    fn crossing_router(&self, row: u32) -> u32 {
        row
    }
    /// Ask the cache for this cycle's outbox buffers (a hint).
    fn prefetch_crossings(&self) {}

    // Reports and checks.

    /// The family's reports for the run's report.
    fn report(&self, _topo: &Topology) -> FamilyReport {
        FamilyReport::default()
    }
    /// This process's counters, for the process that writes the report.
    fn totals(&self) -> FamilyTotals {
        FamilyTotals::default()
    }
    /// Add another process's counters ([`RouterFamily::totals`]).
    fn absorb_totals(&mut self, _t: &FamilyTotals) {}
    /// Dateline drops, for families that drop at datelines ([`super::drops`]).
    fn dateline_drops(&self) -> Option<DatelineDrops> {
        None
    }
    /// Add another partition's (or process's) dateline drops.
    fn merge_dateline_drops(&mut self, _o: &DatelineDrops) {}
    /// Flits in the channels that are not the network's packets (metapackets).
    fn foreign_flits_in_channels(&self) -> u64 {
        0
    }
    /// Do the credits of a channel into one of these routers balance its buffer depth
    /// (credits + in flight + buffered + returning = depth)? `from_endpoint`: the
    /// channel comes from an endpoint.
    fn conserves_credits(&self, _from_endpoint: bool) -> bool {
        true
    }
    /// The family's own invariants after a cycle (check mode): the first violation.
    fn check(&self, _ch: &Channels) -> Option<String> {
        None
    }
    /// The wait-for graph of deadlock reports, for families that have one.
    fn wait_graph(&self) -> Option<&dyn WaitGraph> {
        None
    }
    /// Why input VC `(router, port, vc)` waits, for deadlock reports ("" if unknown).
    fn describe_wait(&self, _r: u32, _p: u32, _v: u32, _now: u64) -> String {
        String::new()
    }
    /// Router `r`'s state beyond its input buffers, for deadlock reports.
    fn describe(&self, _r: u32, _now: u64) -> Vec<String> {
        Vec::new()
    }

    // The congestion estimate (self-tuned congestion control).

    /// The count of full (`occupied`: non-empty) VC buffers the congestion estimate
    /// samples, for families that keep it.
    fn congestion_count(&self, _occupied: bool) -> Option<u32> {
        None
    }
    /// The metapacket network, if the routers gather the estimate in metapackets.
    fn metapackets(&mut self) -> Option<&mut MetaNet> {
        None
    }
    /// Does ALO (at least one) admit a new packet at router `r` whose productive
    /// output ports are the bits of `productive`?
    fn alo_allows(&self, _r: u32, _productive: u32, _free: crate::congestion::AloFree) -> bool {
        true
    }

    // Endpoint activity tracking (networks far beyond the caches).

    /// Do the routers prefetch (so the endpoints should too)?
    fn prefetching(&self) -> bool {
        false
    }
    /// Do the routers keep the endpoints' due set (`endpoint/wake.rs`)?
    fn tracks_endpoints(&self) -> bool {
        false
    }
    /// How far ahead [`RouterFamily::wake_endpoint`] may wake.
    fn wake_horizon(&self) -> u64 {
        0
    }
    /// Step endpoint `e` in cycle `at`.
    fn wake_endpoint(&mut self, _e: u32, _at: u64) {}
    /// The endpoints of `span` due in `now`, in id order, into `list`.
    fn due_endpoints(&mut self, _now: u64, _span: (u32, u32), list: &mut Vec<u32>) {
        list.clear();
    }
}
