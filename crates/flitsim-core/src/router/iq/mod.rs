//! The input-queued virtual-channel router (BookSim-style), all routers of a network in
//! one structure-of-arrays.
//!
//! Follows the virtual-channel router of Dally & Towles, *Principles and Practices of
//! Interconnection Networks* (2004), ch. 16 (router pipeline: RC, VA, SA, ST) and ch. 19
//! (separable allocators), as BookSim2's `iq_router` implements it.
//!
//! Per input port and VC: a FIFO buffer of `buffer_depth` flits and a state machine
//! (idle -> waiting for VC allocation -> active). Per output port and VC: the input VC
//! that owns it and the credit count for the downstream buffer. One cycle of router `r`:
//!
//! 1. **Receive** flits whose arrival cycle has come into their input VC buffers, and
//!    credits into the output VC credit counts.
//! 2. **Route computation** for a head flit at the front of an idle input VC, from the
//!    packet header (the packet in the arena; flit records carry only packet id and flit
//!    index). The routing function's candidate is stored; the VC may request allocation
//!    `routing_delay` cycles later. A head that arrived over a router-to-router channel
//!    counts one hop here.
//! 3. **VC allocation** (separable, input-first, round-robin arbiters on both sides; or iSLIP, `vc_alloc.rs`):
//!    each requesting input VC picks, nearest its own round-robin pointer, a free output
//!    VC in its candidate range that the flow control lets it claim; each output VC
//!    grants one requester by round robin. Pointers advance only past a won grant. The winner may compete for the switch
//!    `vc_alloc_delay` cycles later. (An input VC's pointer is kept per output port, over
//!    that port's VCs. BookSim2's input arbiters keep one pointer over all the router's
//!    output VCs, which after a turn favours the lowest VCs: ~0.7 cycles more latency on
//!    its comparison case at load 0.3, see `docs/reference/performance.md`;
//!    `vc_alloc_pointer = "per_router"` selects that.)
//! 4. **Switch allocation**: among active input VCs with a flit and a downstream credit,
//!    the separable input-first or iSLIP allocator matches inputs to outputs.
//! 5. **Switch traversal**: each granted flit leaves its buffer (a credit goes upstream,
//!    arriving `credit_delay` cycles later) and enters the output channel, arriving at
//!    the next router `sw_alloc_delay + st_delay + latency` cycles later. A tail flit
//!    frees its output VC and returns its input VC to idle.
//!
//! Zero-load, a head flit arriving at cycle `t` reaches the next router at
//! `t + routing_delay + vc_alloc_delay + sw_alloc_delay + st_delay + latency`.
//!
//! ## How the hot loop is organised
//!
//! * [`IqRouters::step`] steps every router with work once per cycle, so what every
//!   step reads (configuration, array bases, the arrival mode) is loaded once per cycle.
//! * A partition of the network ([`crossing`]) can be stepped in two halves,
//!   [`IqRouters::step`]: the routers with no channel to or from another partition,
//!   then those with one (the pipelined hand-over, `sim/pipeline.rs`).
//! * **Compiled shapes.** `step` also picks, once per cycle, a step compiled for the
//!   routers' shape and routing function: the port count, VCs per port and buffer depth
//!   are const generics (5 or 7 ports with 4 VCs of 8 flits, the 2-D and 3-D defaults;
//!   0 = read at run time, for every other shape), so index arithmetic is constant and
//!   the allocators' pointer updates unroll; DOR and table routing each get their own
//!   step (the `Route` trait), so no head tests which routing function it has.
//! * Per router, sets over its input VCs (bit `port * vcs + vc`; 64 bits, or 128 for
//!   routers of more than 64 input VCs: [`VcSet`], compiled once per width in [`lanes`])
//!   drive the stages:
//!   `occ` (holds flits), `va` (waiting for VC allocation), `act` (holds an output VC),
//!   `wait` (in a pipeline delay) and `cred` (active, and its output VC has a credit),
//!   and over its output VCs: `free`. Every stage iterates set bits only, on local copies
//!   of the sets. The sets are kept up to date where their inputs change (a credit
//!   arriving for an output VC that had none re-enables the input VC its owner names),
//!   so the VC allocator's requests are `va & !wait` and the switch allocator's are
//!   `occ & act & cred & !wait`, with no scan over the VCs (debug builds check both
//!   against a full scan). With pipeline delays of at most one cycle, `wait` needs no
//!   test of ready cycles at all: every delay ends in the next step.
//! * A step sees its router's part of each per-router array as a fixed 128-entry view
//!   (`VIEW`; the arrays are padded) indexed with `i & 127`: no bounds checks, no
//!   `unsafe`.
//! * Each port's wiring holds the [`Ring`]s of its channels (flits and credits, in and
//!   out), so sending and receiving look nothing up, and the routers at the far ends.
//!   An endpoint at a far end is the *sink* (id = number of routers): its notifications
//!   go to a row nobody reads, so sending needs no test of what is at the far end.
//! * **Arrival calendar.** Every channel and credit wire into a router has a fixed delay,
//!   so the sender knows the cycle its flit or credit arrives. It marks the receiving
//!   port in the receiver's calendar slot for that cycle (`arrive mod W`, `W` a power of
//!   two above the largest delay), and the receive stage visits only the marked ports
//!   instead of polling every channel and credit wire. A router is stepped in a cycle
//!   when it holds flits or its slot for the cycle has marks, and it empties that slot,
//!   so every arrival is received in its own cycle (debug builds verify it). In networks
//!   far beyond the caches the calendar also keeps a *due set* of routers and endpoints
//!   per slot, and a cycle visits only its members (activity tracking: an idle network
//!   costs a scan of a bit set; `arrivals.rs`, `endpoint/wake.rs`). With delays
//!   of [`MAX_CALENDAR`] cycles or more the calendar would be too big: routers then count
//!   the flits and credits travelling to them, are stepped while that count or their
//!   buffers are non-zero, and poll every connected port (same results, more work).
//!   The step is compiled once for each mode (`Arrive`).
//! * An output VC's credits, owner and VC-allocator pointer are one 8-byte record
//!   ([`OutputVc`]): the allocator and switch traversal use them together.
//! * The VC allocator collects, per picked output VC, the requesters that picked it and
//!   grants each by one round-robin bit search. The switch allocator takes the set of
//!   ready input VCs, decides the common conflict-free case without arbitration, and
//!   reports the matched input ports as a set, so switch traversal visits only those
//!   (and advances the round-robin pointers of each as its flit goes).
//! * **Prefetching.** In networks whose state is far larger than the core's caches
//!   (tens of thousands of routers), a step would wait on memory for most of what it
//!   touches. There the visit asks the cache ahead of each router's step, in three
//!   stages so that no stage waits on a line the one before asked for: eight routers
//!   ahead, for the state whose place depends on the router alone (arrival marks, VC
//!   sets, input and output VC records, wiring, switch pointers); four ahead, reading
//!   that state, for the channel slots its calendar says arrive this cycle, the ends of
//!   its occupied buffers, and the slots and far-end arrival marks its flits and credits
//!   may be written to; two ahead, reading the arriving slots and buffer fronts, for the
//!   headers of the packets it will route. Prefetches are hints: they change no result.
//!   Small networks, which live in the caches anyway, run faster without.

mod arrivals;
pub mod crossing;
mod describe;
mod family;
mod input_vc;
mod inspect;
mod lanes;
mod ports;
mod prefetch;
mod route;
mod vc_alloc;
mod visit;
mod wake;

pub use input_vc::{state, InputVc};

use arrivals::{nothing_due, Arrivals, Arrive, Calendar, Counting, CREDIT, FLIT};
use input_vc::{delayed, switch_ready, VcSets};
use lanes::{Lanes, Width};
use ports::{send_credit, stop_go_symbols, PortWiring, UNWIRED};
use route::{route_head, Route};
use vc_alloc::VaContext;
use visit::Visit;

use super::allocator::{take_lowest, PortPointers};
use super::drops;
use super::vcset::VcSet;
use super::IqConfig;
use crate::link::{Channels, End, Flit, InFlight};
use crate::router::crossing::Which;
use crate::router::family::StepContext;
use crate::routing::RoutingFunction;
use crate::topology::{Topology, NONE};

/// Owner value of a free output VC.
pub const FREE: u16 = u16::MAX;

/// State of one output VC (8 bytes, kept together: the VC allocator and switch traversal
/// read and write them together).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutputVc {
    /// Credits for the downstream buffer.
    pub credits: u32,
    /// Owner (local input-VC index `port * vcs + vc`) or [`FREE`].
    pub owner: u16,
    /// VC allocator round-robin pointer of this output VC's arbiter (over the router's
    /// input VCs).
    pub(super) va_ptr: u16,
}

/// Largest `ports * vcs` of one router: the per-router VC sets are at most 128-bit
/// masks ([`VcSet`]). (Ports are at most 64, which the topologies check.)
pub const MAX_PORT_VCS: u32 = 128;

/// Size of a router's view of a per-router array: its most input VCs (and ports). Every
/// per-router array is padded with this many entries, so a step sees its router's part
/// as a fixed-size array and indexes it with `i & IDX`, which needs no bounds check.
/// Only the first `ports * vcs` (or `ports`) entries of a view belong to the router.
const VIEW: usize = MAX_PORT_VCS as usize;

/// Index mask of a view.
const IDX: usize = VIEW - 1;

/// Router `base`'s view of a padded per-router array.
#[inline(always)]
fn view<T>(v: &[T], base: usize) -> &[T; VIEW] {
    v[base..].first_chunk().expect("per-router arrays are padded")
}

/// Router `base`'s mutable view of a padded per-router array.
#[inline(always)]
fn view_mut<T>(v: &mut [T], base: usize) -> &mut [T; VIEW] {
    v[base..].first_chunk_mut().expect("per-router arrays are padded")
}

/// Largest arrival calendar, in slots per router. Networks whose largest flit or credit
/// delay into a router is this many cycles or more poll their ports instead.
pub const MAX_CALENDAR: u32 = 64;

/// Prefetching (see the module docs): how many routers ahead of its step a router's own
/// state, then the slots that state points to, then its packet headers are asked for.
const PREFETCH_STATE: usize = 8;
const PREFETCH_SLOTS: usize = 4;
const PREFETCH_HEADERS: usize = 2;

/// Networks whose per-cycle state (estimated) is at least this large prefetch: it then
/// lives beyond the core's own caches. Smaller networks run faster without.
const PREFETCH_ABOVE_BYTES: usize = 8 << 20;

/// Every input-queued router of a network.
#[derive(Clone, Debug)]
pub struct IqRouters {
    /// Ports per router.
    pub ports: u32,
    /// VCs per port.
    pub vcs: u32,
    /// Buffer depth per VC.
    pub depth: u32,
    cfg: IqConfig,
    /// Input VC states, `[(router * ports + port) * vcs + vc]` (plus padding, see
    /// `VIEW`: the entries past the last router are idle and empty).
    pub ivc: Vec<InputVc>,
    /// Input VC buffer storage, `depth` slots per input VC.
    buf: Vec<Flit>,
    /// Routers in the network.
    routers: u32,
    /// Per router: the input-VC sets, with the allocators' state of their width.
    lanes: Width,
    /// Output VC state, `[(router * ports + port) * vcs + vc]` (padded; the padding is
    /// free).
    pub out: Vec<OutputVc>,
    /// Input channel id per `(router, port)` or [`NONE`] (the hot loop uses `wiring`).
    pub in_chan: Vec<u32>,
    /// Per `(router, port)`: wiring (padded, like the other per-port arrays).
    wiring: Vec<PortWiring>,
    /// Local (ejection) ports, the same on every router: they take no credits.
    local: u64,
    /// Per router, when the calendar is off: (connected input ports, output ports that
    /// receive credits).
    poll: Vec<(u64, u64)>,
    /// How routers learn of arrivals.
    arrivals: Arrivals,
    /// Per `(router, port)`: switch allocator round-robin pointers.
    ptrs: Vec<PortPointers>,
    /// Prefetch ahead of each router's step (large networks only).
    prefetch: bool,
    /// Local input-VC index `port * vcs + vc` -> port.
    li_port: [u8; VIEW],
    /// Local input-VC index -> VC.
    li_vc: [u8; VIEW],
    /// The routers this structure steps, `[lo, hi)`: all of them, or one partition's
    /// ([`crossing`]).
    span: (u32, u32),
    /// Flits and credits for other partitions' routers.
    crossing: crate::router::crossing::Crossings,
    /// Of the routers in `span` (when partitioned): those with no crossing channel and
    /// those with one, in id order ([`Which`]).
    interior: Vec<u32>,
    boundary: Vec<u32>,
    /// The routers each [`Which`] steps as sets of one bit per router (all of `span`,
    /// `interior`, `boundary`), for the calendar's due set.
    select: [Vec<u64>; 3],
    /// The routers due this cycle (scratch, as many entries as routers).
    due: Vec<u32>,
    /// Packets dropped at Cray XT dateline nodes ([`drops`]).
    pub dateline_drops: drops::DatelineDrops,
    /// Ejection ports slower than a link (`router.eject_rate`), per `(router, port)`.
    eject: crate::router::eject::EjectPacing,
}

impl IqRouters {
    /// Build the routers of `topo` wired to `ch`.
    pub fn new(cfg: &IqConfig, topo: &Topology, ch: &Channels) -> Self {
        let (p, v, d) = (topo.ports, cfg.vcs, cfg.buffer_depth);
        assert!(p * v <= MAX_PORT_VCS && p <= 64, "validated: ports * vcs <= 128, ports <= 64");
        let r = topo.num_routers;
        let nivc = (r * p * v) as usize;
        let nports = (r * p) as usize;
        // Padded lengths (see VIEW).
        let (pivc, pports) = (nivc + VIEW, nports + VIEW);
        let switch = cfg.sw_alloc_delay + cfg.st_delay;
        let mut in_chan = vec![NONE; nports];
        let mut wiring = vec![UNWIRED; pports];
        let mut poll = vec![(0u64, 0u64); r as usize];
        // Largest delay of anything a router receives: sizes the arrival calendar (and
        // of anything an endpoint receives, when the calendar keeps the endpoints due).
        let mut max_delay = 0;
        let mut max_to_endpoint = 0;
        // Due-set bits: routers, the sink, then the endpoints.
        let rows = r as usize + 1;
        let endpoint_bit = |e: u32| rows as u32 + e;
        for c in 0..ch.len() {
            let from_router = matches!(ch.src[c], End::Router { .. });
            let delay = ch.latency[c] + if from_router { switch } else { 0 };
            if let End::Router { router, port } = ch.src[c] {
                let o = &mut wiring[(router * p + port) as usize];
                o.flit_delay = delay;
                o.out_flits = ch.flits.ring(c);
                o.out_credits = ch.credits.ring(c);
                match ch.dst[c] {
                    End::Router { router: dr, port: dp } => {
                        o.down_router = dr;
                        o.down_due = dr;
                        o.down_port = dp as u8;
                    }
                    End::Endpoint(e) => {
                        o.down_due = endpoint_bit(e);
                        max_to_endpoint = max_to_endpoint.max(delay);
                    }
                    End::None => {}
                }
            }
            if let End::Router { router, port } = ch.dst[c] {
                in_chan[(router * p + port) as usize] = c as u32;
                let ip = &mut wiring[(router * p + port) as usize];
                ip.in_flits = ch.flits.ring(c);
                ip.in_credits = ch.credits.ring(c);
                poll[router as usize].0 |= 1 << port;
                max_delay = max_delay.max(delay);
                match ch.src[c] {
                    End::Router { router: ur, port: up } => {
                        ip.up_router = ur;
                        ip.up_due = ur;
                        ip.up_port = up as u8;
                        poll[ur as usize].1 |= 1 << up;
                        max_delay = max_delay.max(cfg.credit_delay);
                    }
                    End::Endpoint(e) => {
                        ip.up_due = endpoint_bit(e);
                        max_to_endpoint = max_to_endpoint.max(cfg.credit_delay);
                    }
                    End::None => {}
                }
            }
        }
        // Notifications for endpoints go to a sink row past the last router (so sending
        // needs no test of what is at the far end).
        let sink = r;
        for w in wiring.iter_mut() {
            if w.up_router == NONE {
                w.up_router = sink;
            }
            if w.down_router == NONE {
                w.down_router = sink;
            }
            if w.up_due == NONE {
                w.up_due = sink;
            }
            if w.down_due == NONE {
                w.down_due = sink;
            }
        }
        // The calendar has a slot for every delay into a router, and into an endpoint
        // too where it can (the due set needs them: see `arrivals.rs`).
        let with_endpoints = (max_delay.max(max_to_endpoint) + 1).next_power_of_two();
        let can_track = with_endpoints <= MAX_CALENDAR;
        let slots = if can_track { with_endpoints } else { (max_delay + 1).next_power_of_two() };
        let calendar = slots <= MAX_CALENDAR;
        // Bytes a cycle may touch: router state and buffers, channel slots, calendar.
        // Networks far beyond the caches prefetch and keep the calendar's due set.
        let per_vc = std::mem::size_of::<InputVc>() + d as usize * std::mem::size_of::<Flit>() + 8;
        let per_port = std::mem::size_of::<PortWiring>() + std::mem::size_of::<PortPointers>();
        let row_bytes = if calendar { 16 * slots as usize } else { 8 };
        let footprint = nivc * per_vc
            + nports * per_port
            + r as usize * (std::mem::size_of::<VcSets<u64>>() * (p * v).div_ceil(64) as usize + row_bytes)
            + ch.flits.bytes()
            + ch.credits.bytes();
        let large = footprint >= PREFETCH_ABOVE_BYTES;
        let arrivals = if calendar {
            Arrivals::Calendar(Calendar::new(slots, rows, topo.num_nodes as usize, can_track, large && can_track))
        } else {
            Arrivals::Counting(Counting { pending: vec![0; rows] })
        };
        // From here on a port's far ends are named by their arrival rows.
        for w in wiring.iter_mut() {
            w.up_router = arrivals.row(w.up_router, CREDIT);
            w.down_router = arrivals.row(w.down_router, FLIT);
        }
        let local = (0..p).filter(|&port| topo.is_local_port(port)).fold(0u64, |m, port| m | 1 << port);
        IqRouters {
            ports: p,
            vcs: v,
            depth: d,
            cfg: cfg.clone(),
            ivc: vec![InputVc::default(); pivc],
            buf: vec![Flit::default(); nivc * d as usize],
            routers: r,
            lanes: Width::new(cfg, r, p, v),
            out: vec![OutputVc { credits: if cfg.stop_go.is_some() { crate::flow::GO_CREDITS } else { d }, owner: FREE, va_ptr: 0 }; pivc],
            in_chan,
            wiring,
            local,
            poll,
            arrivals,
            ptrs: vec![PortPointers::default(); pports],
            prefetch: large,
            li_port: std::array::from_fn(|li| (li as u32 / v) as u8),
            li_vc: std::array::from_fn(|li| (li as u32 % v) as u8),
            span: (0, r),
            crossing: crate::router::crossing::Crossings::default(),
            interior: Vec::new(),
            boundary: Vec::new(),
            select: [crossing::router_set(rows, 0..r), Vec::new(), Vec::new()],
            due: Vec::with_capacity(r as usize),
            dateline_drops: drops::DatelineDrops::default(),
            eject: crate::router::eject::EjectPacing::new(cfg.eject_rate, nports),
        }
    }

    /// Advance every router with work ([`IqRouters::busy`]) by one cycle at time `now`,
    /// in router order. (One call per cycle lets the compiler keep what every router step
    /// reads — configuration, array bases, the arrival mode — out of the per-router work.)
    /// `which` picks the routers of a partition (the pipelined hand-over,
    /// `sim/pipeline.rs`); [`Which::All`] steps every router.
    pub fn step(&mut self, which: Which, cx: &mut StepContext<'_>) {
        // The arrival state is moved out for the pass (a move of a `Vec`, no allocation)
        // so the routers' other state and it can be borrowed separately.
        // So are the lanes (a move of a `Box`).
        let mut arrivals = std::mem::replace(&mut self.arrivals, Arrivals::Counting(Counting::default()));
        let mut lanes = std::mem::replace(&mut self.lanes, Width::Taken);
        match &mut arrivals {
            Arrivals::Calendar(a) => self.step_routers(a, &mut lanes, which, cx),
            Arrivals::Counting(a) => self.step_routers(a, &mut lanes, which, cx),
        }
        self.arrivals = arrivals;
        self.lanes = lanes;
    }

    /// [`IqRouters::step`] for one arrival mode.
    #[inline(always)]
    fn step_routers<A: Arrive>(&mut self, arr: &mut A, lanes: &mut Width, which: Which, cx: &mut StepContext<'_>) {
        // The common router shapes get a step compiled for their port and VC counts
        // (constant index arithmetic, unrolled loops); others use the general step.
        // Dimension-order routing gets a step of its own; the others share one that
        // chooses the function per head (see `route`).
        match cx.routing {
            RoutingFunction::Dor(d) => self.step_routed(arr, lanes, which, &mut cx.with_routing(d)),
            _ => self.step_routed(arr, lanes, which, cx),
        }
    }

    /// [`IqRouters::step_routers`] with routing function `R`.
    #[inline(always)]
    fn step_routed<A: Arrive, R: Route>(&mut self, arr: &mut A, lanes: &mut Width, which: Which, cx: &mut StepContext<'_, R>) {
        let l = match lanes {
            Width::Narrow(l) => &mut **l,
            // (Routers of more than 64 input VCs: the general step on 128-bit sets.)
            Width::Wide(l) => return self.step_shaped::<A, R, u128, 0, 0, 0>(arr, l, which, cx),
            Width::Taken => unreachable!("the lanes are moved out once per step"),
        };
        match (self.ports, self.vcs, self.depth) {
            // (Polling networks, with long delays, are rare: they get the general step.)
            _ if A::POLLS => self.step_shaped::<A, R, u64, 0, 0, 0>(arr, l, which, cx),
            (5, 4, 8) => self.step_shaped::<A, R, u64, 5, 4, 8>(arr, l, which, cx),
            (7, 4, 8) => self.step_shaped::<A, R, u64, 7, 4, 8>(arr, l, which, cx),
            _ => self.step_shaped::<A, R, u64, 0, 0, 0>(arr, l, which, cx),
        }
    }

    /// [`IqRouters::step_routers`] for routers of `P` ports with `V` VCs each of `D`
    /// flits (0 = as built, read at run time), whose VC sets are `B`.
    #[inline(always)]
    fn step_shaped<A: Arrive, R: Route, B: VcSet, const P: usize, const V: usize, const D: usize>(
        &mut self,
        arr: &mut A,
        lanes: &mut Lanes<B>,
        which: Which,
        cx: &mut StepContext<'_, R>,
    ) {
        // The routers to visit: those of the calendar's due set that `which` selects
        // (the scratch list and the selection are moved out for the pass, moves of a
        // `Vec`, and back); without a calendar, every router of the span (which is then
        // the whole network: only calendars are partitioned).
        let k = which as usize;
        let (mut due, select) = (std::mem::take(&mut self.due), std::mem::take(&mut self.select[k]));
        if arr.due_routers(cx.now, &select, &mut due) {
            self.visit::<A, R, B, P, V, D>(arr, lanes, Visit::List(&due), cx);
        } else if which == Which::All {
            let (lo, hi) = (self.span.0 as usize, self.span.1 as usize);
            self.visit::<A, R, B, P, V, D>(arr, lanes, Visit::Span(lo, hi), cx);
        } else {
            // Every router of one of the lists.
            let (i, b) = (std::mem::take(&mut self.interior), std::mem::take(&mut self.boundary));
            let l = if which == Which::Interior { &i } else { &b };
            self.visit::<A, R, B, P, V, D>(arr, lanes, Visit::List(l), cx);
            (self.interior, self.boundary) = (i, b);
        }
        (self.due, self.select[k]) = (due, select);
    }

    /// Step the routers of `routers` that have work (prefetching the state of those a
    /// few places ahead when `prefetch` is on).
    #[inline(always)]
    fn visit<A: Arrive, R: Route, B: VcSet, const P: usize, const V: usize, const D: usize>(
        &mut self,
        arr: &mut A,
        lanes: &mut Lanes<B>,
        routers: Visit<'_>,
        cx: &mut StepContext<'_, R>,
    ) {
        // (One loop, and the router step inlined once: the step is most of the engine's
        // code, and each copy of it costs build time.)
        let now = cx.now;
        let n = routers.len();
        for i in 0..n {
            if self.prefetch {
                if i + PREFETCH_STATE < n {
                    self.prefetch_state(arr, routers.at(i + PREFETCH_STATE), &lanes.sets, now);
                }
                if i + PREFETCH_SLOTS < n {
                    let r = routers.at(i + PREFETCH_SLOTS);
                    self.prefetch_slots(arr, r, &lanes.sets[r], now, cx.ch);
                }
                if i + PREFETCH_HEADERS < n {
                    let r = routers.at(i + PREFETCH_HEADERS);
                    self.prefetch_headers(arr, r, &lanes.sets[r], now, cx.ch, cx.packets);
                }
            }
            let r = routers.at(i);
            if let Some(due) = arr.take_if_busy(r, now, !lanes.sets[r].occ.is_empty(), &self.poll) {
                self.step_router::<A, R, B, P, V, D>(arr, lanes, r as u32, due, cx);
            }
        }
    }

    /// One router's cycle (see the module docs for the stages).
    #[inline(always)]
    fn step_router<A: Arrive, R: Route, B: VcSet, const P: usize, const V: usize, const D: usize>(
        &mut self,
        arr: &mut A,
        lanes: &mut Lanes<B>,
        r: u32,
        (mut due_flits, mut due_credits): (u64, u64),
        cx: &mut StepContext<'_, R>,
    ) {
        let (now, topo, routing) = (cx.now, cx.topo, cx.routing);
        let (ch, packets, stats, ctr) = (&mut *cx.ch, &mut *cx.packets, &mut *cx.stats, &mut *cx.ctr);
        debug_assert!((P == 0 || P == self.ports as usize) && (V == 0 || V == self.vcs as usize));
        debug_assert!(D == 0 || D == self.depth as usize);
        let ru = r as usize;
        let p_n = if P != 0 { P } else { self.ports as usize };
        let v_n = if V != 0 { V } else { self.vcs as usize };
        let (ports, vcs) = (p_n as u32, v_n as u32);
        let rp = ru * p_n;
        let base = rp * v_n;
        let depth = if D != 0 { D } else { self.depth as usize };
        let IqRouters { cfg, ivc, buf, out, wiring, local, poll, ptrs, li_port, li_vc, crossing, dateline_drops, eject, .. } = self;
        let Lanes { sets, pickers, grants, sw } = lanes;
        let local = *local;
        // This router's views (local input-VC index `port * vcs + vc`, or port).
        let ivc = view_mut(ivc, base);
        let buf = &mut buf[base * depth..(base + p_n * v_n) * depth];
        let outs = view_mut(out, base);
        let wiring = view(wiring, rp);
        let VcSets { mut occ, mut va, mut act, mut free, mut wait, mut cred, drop, mut stopped } = sets[ru];
        // (Compiled out for routing functions that never drop.)
        let mut drop = if R::MAY_DROP { drop } else { B::EMPTY };

        // 1. Receive flits and credits due this cycle. A channel carries at most one flit
        //    (and its wire one credit) per cycle, each arrival cycle is distinct, and this
        //    router has been stepped at every earlier arrival: so each due port has exactly
        //    one entry to take (when polling, at most one).
        let arrived = due_flits;
        while due_flits != 0 {
            let p = take_lowest(&mut due_flits);
            let Some(e) = ch.flits.take_due_in(wiring[p].in_flits, now, A::POLLS) else { continue };
            let li = (p * v_n + e.vc as usize) & IDX;
            ivc[li].push(buf, li, depth, e.flit);
            occ |= B::bit(li);
        }
        let mut got = 0;
        while due_credits != 0 {
            let p = take_lowest(&mut due_credits);
            let Some(w) = ch.credits.take_due_in(wiring[p].out_credits, now, A::POLLS) else { continue };
            got += 1;
            if w.vc() & (crate::flow::STOP | crate::flow::GO) != 0 {
                // A STOP/GO symbol (router.stop_go): the output VC stops or may send.
                let ov = &mut outs[(p * v_n + (w.vc() & 0x3f) as usize) & IDX];
                ov.credits = crate::flow::on_credit_wire(ov.credits, w.vc());
                if ov.owner != FREE {
                    let bit = B::bit(ov.owner as usize);
                    cred = if ov.credits == 0 { cred & !bit } else { cred | bit };
                }
                continue;
            }
            let ovc = (p * v_n + w.vc() as usize) & IDX;
            // An output VC out of credits can move again: its owner may request the switch.
            let ov = &mut outs[ovc];
            let (c, holder) = (ov.credits, ov.owner);
            cred |= B::bit_if((c == 0) & (holder != FREE), holder as usize);
            ov.credits = c + 1;
        }
        debug_assert!(nothing_due(ch, wiring, poll[ru], now), "an arrival at router {r} was not received in its cycle");

        // Pipeline delays that end this cycle. With delays of at most one cycle, every
        // delay began in the previous cycle (a delayed VC holds a flit, so its router was
        // stepped then) and ends now.
        if cfg.routing_delay <= 1 && cfg.vc_alloc_delay <= 1 {
            wait = B::EMPTY;
        } else {
            let mut m = wait;
            while !m.is_empty() {
                let li = m.take_lowest() & IDX;
                if ivc[li].ready_by(now) {
                    wait &= !B::bit(li);
                }
            }
        }
        debug_assert_eq!(wait, delayed(ivc, va | act, now), "stale pipeline delays");

        // 2. Route computation for idle VCs with a head flit, reading the packet header.
        //    A head that came over a router-to-router channel has made one more hop.
        let routing_delay = cfg.routing_delay as u64;
        let queues = route::OutputQueues { outs: &*outs, vcs: v_n, depth: depth as u32 };
        let mut idle = occ & !(va | act | drop);
        while !idle.is_empty() {
            let li = idle.take_lowest() & IDX;
            let st = &mut ivc[li];
            let f = buf[st.front_slot(li, depth)];
            // (Arithmetic for a compile-time shape; tables for the run-time one, V = 0.)
            let (p, v) = match (li.checked_div(V), li.checked_rem(V)) {
                (Some(p), Some(v)) => (p as u32, v as u32),
                _ => (li_port[li] as u32, li_vc[li] as u32),
            };
            if route_head(st, f, r, p, v, local >> p & 1 == 0, now + routing_delay, topo, routing, packets, &queues) {
                let pk = packets.get(f.pid);
                dateline_drops.record(drops::DropEvent { cycle: now, router: r, port: p, vc: v, src: pk.src, dst: pk.dst });
                drop |= B::bit(li);
                continue;
            }
            va |= B::bit(li);
            wait |= B::bit_if(routing_delay != 0, li);
        }

        // 3. VC allocation among the routed VCs past their routing delay.
        let req = va & !wait;
        if !req.is_empty() {
            let va_ctx = VaContext {
                v_n,
                n_in: ports * vcs,
                depth,
                local,
                flow: cfg.flow_control,
                ready_at: now + cfg.vc_alloc_delay as u64,
                iterations: cfg.islip_iterations,
            };
            let (won, won_cred) = if cfg.vc_allocator == crate::router::AllocatorKind::Islip {
                va_ctx.allocate_islip::<B, P, V>(req, &mut free, ivc, buf, outs, pickers, grants)
            } else if cfg.vc_alloc_pointer == crate::router::VaPointer::PerRouter {
                va_ctx.allocate::<B, P, V, true>(req, &mut free, ivc, buf, outs, pickers)
            } else {
                va_ctx.allocate::<B, P, V, false>(req, &mut free, ivc, buf, outs, pickers)
            };
            va &= !won;
            act |= won;
            cred |= won_cred;
            if cfg.vc_alloc_delay != 0 {
                wait |= won;
            }
        }

        // 4. Switch allocation: active VCs with a flit, past their delay, with a credit
        //    (ejection ports never run out of credits).
        let mut ready = occ & act & cred & !wait;
        debug_assert_eq!(ready, switch_ready(ivc, outs, occ & act, local, v_n, now), "stale switch requests");
        // An ejection port slower than a link takes no flit while it still holds the last.
        if eject.on() {
            let mut m = ready;
            while !m.is_empty() {
                let li = m.take_lowest() & IDX;
                let o = ivc[li].port as usize;
                if local >> o & 1 != 0 && !eject.may_send(rp + o, now) {
                    ready &= !B::bit(li);
                }
            }
        }
        let ptrs = ptrs[rp..].first_chunk_mut().expect("per-port arrays are padded");
        let matched = if ready.is_empty() { 0 } else { sw.request_shaped::<P, V>(ready, |i| ivc[i & IDX].port as usize, ptrs) };

        // 5. Switch traversal of the matched inputs.
        let credit_delay = cfg.credit_delay as u64;
        let stop_go = cfg.stop_go.is_some();
        let mut m = matched;
        let mut moved = 0;
        while m != 0 {
            let p = take_lowest(&mut m);
            moved += 1;
            let (v, o) = sw.grant(p);
            sw.commit_shaped::<P, V>(p, ptrs);
            let li = (p * v_n + v) & IDX;
            let st = &mut ivc[li];
            let f = st.pop(buf, li, depth);
            if st.len == 0 {
                occ &= !B::bit(li);
            }
            let w = st.out_vc as usize;
            let ovc = (o * v_n + w) & IDX;
            if f.is_tail() {
                // The packet has left: free the output VC, the input VC awaits a new head.
                st.state = state::IDLE;
                act &= !B::bit(li);
                cred &= !B::bit(li);
                outs[ovc].owner = FREE;
                free |= B::bit(ovc);
            }
            // The flit enters the output channel.
            let out = &wiring[o & 63];
            let oc = rp + o;
            let arrive = now + out.flit_delay as u64;
            if out.cross_out {
                crossing.send_flit(out.out_flits, out.down_router, out.down_port, arrive, InFlight::new(arrive, f, w as u8), packets);
            } else {
                ch.flits.push_in(out.out_flits, arrive, InFlight::new(arrive, f, w as u8));
                arr.notify_row(out.down_router, out.down_due, out.down_port as u32, arrive);
            }
            // One credit used (an ejection port uses none and never runs out).
            let left = outs[ovc].credits - (local >> o & 1 == 0) as u32;
            outs[ovc].credits = left;
            cred &= !B::bit_if(left == 0, li);
            stats.on_channel_flit(oc, w as u32, now);
            // A credit goes back upstream for the freed slot (with STOP/GO, the
            // symbols below instead).
            if !stop_go {
                send_credit(arr, &wiring[p], v as u32, now + credit_delay, ch, crossing);
            }
        }
        // An ejection port slower than a link is held for each flit it sent.
        if eject.on() {
            let mut m = matched;
            while m != 0 {
                let o = sw.grant(take_lowest(&mut m)).1;
                if local >> o & 1 != 0 {
                    eject.sent(rp + o, now);
                }
            }
        }
        // 6. Dropped packets: each discards its front flit when its input port sent none
        //    through the switch (the port's credit wire carries one credit a cycle).
        let mut discarded = 0;
        let mut used = matched;
        if R::MAY_DROP && !(drop & occ).is_empty() {
            let mut m = drop & occ;
            while !m.is_empty() {
                let li = m.take_lowest() & IDX;
                let p = li / v_n;
                if used >> p & 1 != 0 {
                    continue;
                }
                used |= 1 << p;
                let st = &mut ivc[li];
                let f = st.pop(buf, li, depth);
                if st.len == 0 {
                    occ &= !B::bit(li);
                }
                ctr.flits_lost += 1;
                ctr.last_progress = now;
                if f.is_tail() {
                    st.state = state::IDLE;
                    drop &= !B::bit(li);
                    ctr.packets_lost += 1;
                    ctr.measured_lost += packets.get(f.pid).measured as u64;
                    packets.release(f.pid);
                }
                if !stop_go {
                    send_credit(arr, &wiring[p], (li % v_n) as u32, now + credit_delay, ch, crossing);
                }
                discarded += 1;
            }
        }
        // 7. STOP/GO symbols for the ports that received or sent a flit.
        if let Some(sg) = cfg.stop_go {
            stop_go_symbols(arr, sg, arrived | used, ivc, &mut stopped, wiring, now + credit_delay, ch, crossing);
        }
        arr.done(ru, got, moved + discarded);
        if !occ.is_empty() {
            arr.stays_busy(ru, now);
        }
        if moved != 0 {
            ctr.flit_traversals += moved as u64;
            ctr.last_progress = now;
        }
        sets[ru] = VcSets { occ, va, act, free, wait, cred, drop, stopped };
    }
}
