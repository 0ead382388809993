//! Router microarchitectures and their allocators and arbiters.
//!
//! The input-queued virtual-channel router (BookSim-style pipeline: route computation,
//! VC allocation, switch allocation, switch traversal) in [`iq`], with the round-robin
//! [`arbiter`] and the separable / iSLIP switch [`allocator`]s; the buffered-crossbar
//! router (SeaStar) in [`buffered`] with SeaStar [`aging`]; the central-arbiter adaptive
//! router in [`central`]; the SiCortex crosspoint-buffered switch in [`crosspoint`]. Each
//! family implements the contract of [`family`], [`RouterFamily`]; [`Routers`] holds the
//! routers of a network of any of these kinds and dispatches to its family.
//! `docs/design/architecture.md` walks through one cycle of it.

pub mod aging;
pub mod allocator;
pub mod arbiter;
pub mod buffered;
pub mod central;
mod config;
pub mod crossing;
pub mod crosspoint;
pub mod drops;
mod eject;
pub mod family;
pub mod iq;
pub mod vcset;
mod wiring;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::flow::FlowControl;
pub use config::{FamilyConfig, RouterConfig, Validation};
pub use family::{FamilyReport, FamilyTotals, RouterFamily, StepContext, WaitGraph};

/// Ask the cache for the line holding `v` (a hint: no effect on results). Routers of
/// large networks call it a few routers ahead of the one they step.
#[inline(always)]
pub(crate) fn prefetch<T>(v: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it never faults and has no effect the program
    // can observe. (SSE, which provides it, is part of the x86_64 baseline.)
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(v as *const T as *const i8)
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = v;
}

/// Ask the cache for every line of `v` (a hint, like [`prefetch`]): the first and the
/// last, and every 64 bytes between. A record that does not start on a line (a packet
/// header of 56 bytes, most of them) straddles two.
#[inline(always)]
pub(crate) fn prefetch_span<T>(v: &[T]) {
    let (start, bytes) = (v.as_ptr().cast::<u8>(), std::mem::size_of_val(v));
    prefetch_bytes(start, bytes, false);
    prefetch_bytes(start.wrapping_add(bytes.saturating_sub(1)), 1, false);
}

/// Ask the cache for both ends of a ring buffer of `depth` slots from `at` in `buf`,
/// holding `len` entries from `head`: the front (read next) and the slot behind the back
/// (written next). (A hint, like [`prefetch`].)
#[inline(always)]
pub(crate) fn prefetch_ring_ends<T>(buf: &[T], at: usize, head: usize, len: usize, depth: usize) {
    prefetch(&buf[at + head]);
    let mut back = head + len;
    if back >= depth {
        back -= depth;
    }
    prefetch(&buf[at + back]);
}

/// Ask the cache for the lines of `bytes` bytes from `start` (a hint, like [`prefetch`]):
/// for reading, or with `write` for writing (the core takes the lines exclusively, so
/// that stores to lines another core has read do not wait for it; `prefetchw`, where the
/// processor has it, else a read prefetch).
#[inline]
pub(crate) fn prefetch_bytes(start: *const u8, bytes: usize, write: bool) {
    #[cfg(target_arch = "x86_64")]
    {
        let exclusive = write && has_prefetchw();
        for off in (0..bytes).step_by(64) {
            let at = start.wrapping_add(off);
            // SAFETY: prefetches are hints: they never fault, whatever the address, and
            // change nothing the program can observe.
            unsafe {
                if exclusive {
                    std::arch::asm!("prefetchw [{0}]", in(reg) at, options(nostack, preserves_flags, readonly));
                } else {
                    core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(at as *const i8);
                }
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (start, bytes, write);
}

/// Does the processor have `prefetchw` (CPUID 8000_0001h, ECX bit 8)? Asked once.
#[cfg(target_arch = "x86_64")]
fn has_prefetchw() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| {
        #[allow(unused_unsafe)]
        // SAFETY: CPUID exists on every x86_64 processor; the extended leaf is checked
        // to exist before it is read.
        unsafe {
            use core::arch::x86_64::__cpuid;
            __cpuid(0x8000_0000).eax >= 0x8000_0001 && __cpuid(0x8000_0001).ecx >> 8 & 1 == 1
        }
    })
}

/// `[router]` with `type = "input_queued"`: the BookSim-style IQ VC router.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IqConfig {
    /// Virtual channels per port (at most 128 input VCs per router, ports x
    /// vcs).
    #[serde(default = "d_vcs")]
    #[schemars(range(min = 1, max = 16))]
    pub vcs: u32,
    /// Flit slots per input VC buffer.
    #[serde(default = "d_depth")]
    #[schemars(range(min = 1, max = 1024))]
    pub buffer_depth: u32,
    /// `wormhole` (default) or `virtual_cut_through` (a head flit claims a downstream VC
    /// only when it has room for the whole packet; needs buffer_depth >= largest packet).
    #[serde(default)]
    pub flow_control: FlowControl,
    /// Switch allocator: `separable_input_first` (default; round-robin arbiters) or `islip`.
    #[serde(default)]
    pub allocator: AllocatorKind,
    /// VC allocator: `separable_input_first` (default: an arbiter per input VC picks an
    /// output VC, an arbiter per output VC picks one of the input VCs that picked it) or
    /// `islip` (output VCs grant, input VCs accept, `islip_iterations` rounds, as
    /// BookSim2's `vc_allocator = islip`).
    #[schemars(!skip_serializing_if)]
    #[serde(default, skip_serializing_if = "AllocatorKind::is_separable")]
    pub vc_allocator: AllocatorKind,
    /// Where an input VC's VC-allocation arbiter keeps its round-robin pointer:
    /// `per_port` (default; over the VCs of the output port it requests, so heads spread
    /// evenly over the VCs) or `per_router` (one pointer over all the router's output VCs,
    /// as BookSim2's separable VC allocator keeps it: after a turn the pointer usually
    /// lies outside the new port's VCs, and the lowest free VC wins).
    #[schemars(!skip_serializing_if)]
    #[serde(default, skip_serializing_if = "VaPointer::is_per_port")]
    pub vc_alloc_pointer: VaPointer,
    /// iSLIP iterations per cycle, of the switch allocator and the VC allocator
    /// alike (BookSim2's `alloc_iters`). Default 1. Only with `allocator = "islip"` or
    /// `vc_allocator = "islip"` (another value with separable allocators is refused).
    #[serde(default = "d_one")]
    #[schemars(range(min = 1, max = 8))]
    pub islip_iterations: u32,
    /// Cycles for route computation.
    #[serde(default = "d_one")]
    #[schemars(range(min = 0, max = 16))]
    pub routing_delay: u32,
    /// Cycles for VC allocation.
    #[serde(default = "d_one")]
    #[schemars(range(min = 0, max = 16))]
    pub vc_alloc_delay: u32,
    /// Cycles for switch allocation.
    #[serde(default = "d_one")]
    #[schemars(range(min = 0, max = 16))]
    pub sw_alloc_delay: u32,
    /// Cycles for switch traversal.
    #[serde(default = "d_one")]
    #[schemars(range(min = 0, max = 16))]
    pub st_delay: u32,
    /// Cycles a credit takes to return upstream.
    #[serde(default = "d_one")]
    #[schemars(range(min = 1, max = 64))]
    pub credit_delay: u32,
    /// STOP/GO back-pressure instead of credits (Myrinet): `{ stop, go }` in flits; see
    /// [`crate::flow`]. Needs one VC, wormhole, and `buffer_depth >= stop` plus the
    /// slack for what is under way when STOP is sent (the error gives the number).
    /// STOP/GO symbols take `credit_delay` cycles. Default: none (credits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_go: Option<crate::flow::StopGo>,
    /// Flits per cycle an ejection port delivers to its endpoint, as a fraction of a
    /// link (0.01..=1): each ejected flit holds the port for `1 / eject_rate` cycles, as
    /// a NIC slower than its link takes them (a Myrinet pair reaches 1,090 of the link's
    /// 1,192 MiB/s, GeoffrayHoefler08: 0.914). What it cannot take backs up into the
    /// network. Default 1: the link rate.
    #[schemars(!skip_serializing_if)]
    #[serde(default = "eject::link_rate", skip_serializing_if = "eject::is_link_rate")]
    pub eject_rate: f64,
}

fn d_vcs() -> u32 {
    4
}
fn d_depth() -> u32 {
    8
}
fn d_one() -> u32 {
    1
}

impl Default for IqConfig {
    fn default() -> Self {
        IqConfig {
            vcs: 4,
            buffer_depth: 8,
            flow_control: FlowControl::Wormhole,
            allocator: AllocatorKind::SeparableInputFirst,
            vc_allocator: AllocatorKind::SeparableInputFirst,
            vc_alloc_pointer: VaPointer::PerPort,
            islip_iterations: 1,
            routing_delay: 1,
            vc_alloc_delay: 1,
            sw_alloc_delay: 1,
            st_delay: 1,
            credit_delay: 1,
            stop_go: None,
            eject_rate: 1.0,
        }
    }
}

/// `router.vc_alloc_pointer`: the round-robin pointer of an input VC's VC-allocation
/// arbiter.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VaPointer {
    /// Per output port, over that port's VCs: moves past the VC won, within the port.
    #[default]
    PerPort,
    /// One pointer over all the router's output VCs (port x VCs + VC), moving past the
    /// output VC won, as BookSim2's separable VC allocator's input arbiters do.
    PerRouter,
}

impl VaPointer {
    /// The default (left out of written configs, so their keys stay as they were).
    pub fn is_per_port(&self) -> bool {
        *self == VaPointer::PerPort
    }
}

/// `router.allocator` and `router.vc_allocator`: the switch and VC allocators.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AllocatorKind {
    /// Separable input-first: a round-robin arbiter per input port picks one VC, then a
    /// round-robin arbiter per output port picks one input. Pointers advance only on a grant.
    #[default]
    SeparableInputFirst,
    /// iSLIP (McKeown): request, grant, accept with round-robin pointers updated only in
    /// the first iteration; `islip_iterations` rounds per cycle.
    Islip,
}

impl AllocatorKind {
    /// The default (left out of written configs, so their keys stay as they were).
    pub fn is_separable(&self) -> bool {
        *self == AllocatorKind::SeparableInputFirst
    }
}

impl IqConfig {
    /// With STOP/GO: does the input buffer hold `stop` plus the slack for flits under
    /// way, when the longest delay of a flit into a router (injection channel, or switch
    /// stages and link) is `max_flit_delay`?
    pub fn validate_stop_go(&self, path: &str, max_flit_delay: u32) -> Result<()> {
        let Some(sg) = self.stop_go else { return Ok(()) };
        let need = sg.stop.saturating_add(crate::flow::StopGo::slack(max_flit_delay, self.credit_delay));
        if self.buffer_depth < need {
            return Err(Error::config(
                format!("{path}.buffer_depth"),
                format!(
                    "{} flits overflow with STOP at {}: up to {} more flits are under way when STOP is sent (the longest flit delay into a router, {max_flit_delay} cycles, plus the symbol's {}, less one); use buffer_depth >= {need}, or a lower stop",
                    self.buffer_depth,
                    sg.stop,
                    need - sg.stop,
                    self.credit_delay
                ),
            ));
        }
        Ok(())
    }

    /// Range checks; `path` is "router".
    pub fn validate(&self, path: &str, max_packet: u32) -> Result<()> {
        eject::validate(path, self.eject_rate)?;
        if self.islip_iterations != 1 && self.allocator != AllocatorKind::Islip && self.vc_allocator != AllocatorKind::Islip {
            // (Refused rather than ignored: a study sweeping it would see no effect.)
            return Err(Error::config(
                format!("{path}.islip_iterations"),
                format!("{} iterations are for the iSLIP allocators, and this router's allocators do not iterate; set allocator = \"islip\" or vc_allocator = \"islip\", or remove islip_iterations", self.islip_iterations),
            ));
        }
        if self.vc_allocator == AllocatorKind::Islip && self.vc_alloc_pointer == VaPointer::PerRouter {
            return Err(Error::config(
                format!("{path}.vc_alloc_pointer"),
                "sets the pointer of the separable VC allocator's input arbiters; iSLIP's accept pointers already range over all the router's output VCs: remove vc_alloc_pointer, or use vc_allocator = \"separable_input_first\"",
            ));
        }
        if let Some(sg) = self.stop_go {
            let field = format!("{path}.stop_go");
            if self.vcs != 1 || self.flow_control != FlowControl::Wormhole {
                return Err(Error::config(field, "STOP/GO stops a whole link, as Myrinet's does: it needs vcs = 1 and flow_control = \"wormhole\"; set them, or remove stop_go (credits)"));
            }
            if sg.stop == 0 || sg.go >= sg.stop {
                return Err(Error::config(
                    field,
                    format!(
                        "stop = {} and go = {}: GO is sent when the buffer has drained below the STOP mark, so use 1 <= stop and go < stop",
                        sg.stop, sg.go
                    ),
                ));
            }
        }
        if self.flow_control == FlowControl::VirtualCutThrough && self.buffer_depth < max_packet {
            return Err(Error::config(
                format!("{path}.buffer_depth"),
                format!(
                    "{} flits cannot hold a {max_packet}-flit packet, which virtual cut-through requires; use buffer_depth >= {max_packet} or flow_control = \"wormhole\"",
                    self.buffer_depth
                ),
            ));
        }
        Ok(())
    }
}

/// The routers of a network: one family for all of them, chosen at build. The engine
/// sees them through [`RouterFamily`], dispatched here once per call (a closed enum:
/// static dispatch, no virtual calls in the cycle loop). A new family is a folder with
/// its `RouterFamily` and [`FamilyConfig`] impls, a variant here and in [`RouterConfig`],
/// and a line in [`each_family`] and in `each_config`.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // one per simulation: its size does not matter
pub enum Routers {
    /// Input-queued VC routers.
    Iq(iq::IqRouters),
    /// Buffered-crossbar routers.
    Buffered(buffered::BufferedRouters),
    /// Central-arbiter adaptive routers.
    Central(central::CentralRouters),
    /// SiCortex crosspoint-buffered switches.
    Crosspoint(crosspoint::CrosspointRouters),
}

/// `$body` with `$r` bound to the family inside `$routers` (a [`Routers`]); with a
/// second `$other` of the same family bound to `$o`.
macro_rules! each_family {
    ($routers:expr, $r:ident => $body:expr) => {
        match $routers {
            Routers::Iq($r) => $body,
            Routers::Buffered($r) => $body,
            Routers::Central($r) => $body,
            Routers::Crosspoint($r) => $body,
        }
    };
    ($routers:expr, $other:expr, $r:ident, $o:ident => $body:expr) => {
        match ($routers, $other) {
            (Routers::Iq($r), Routers::Iq($o)) => $body,
            (Routers::Buffered($r), Routers::Buffered($o)) => $body,
            (Routers::Central($r), Routers::Central($o)) => $body,
            (Routers::Crosspoint($r), Routers::Crosspoint($o)) => $body,
            _ => unreachable!("partitions and processes have the routers of the network"),
        }
    };
}

/// What building the routers needs besides the router table.
pub struct Build<'a> {
    /// The network.
    pub topo: &'a crate::topology::Topology,
    /// Its channels.
    pub channels: &'a crate::link::Channels,
    /// The largest packet of the workload, in flits.
    pub max_packet: u32,
    /// VCs a request may use (the buffered crossbar's request/response classes).
    pub request_vcs: u32,
}

impl Routers {
    /// The routers `rc` describes, for the network of `b`.
    pub fn new(rc: &RouterConfig, b: &Build<'_>) -> Routers {
        rc.build(b)
    }

    /// The crosspoint switches, to set up their retry links (`[channel.retry]`).
    pub fn crosspoint_mut(&mut self) -> Option<&mut crosspoint::CrosspointRouters> {
        match self {
            Routers::Crosspoint(r) => Some(r),
            _ => None,
        }
    }

    /// The central-arbiter routers, to set up their metapackets.
    pub fn central_mut(&mut self) -> Option<&mut central::CentralRouters> {
        match self {
            Routers::Central(r) => Some(r),
            _ => None,
        }
    }

    /// A buffer sample (`stats.buffer_sample`): the load at the receiving end of every
    /// channel into the routers this structure steps.
    #[cold]
    #[inline(never)]
    fn sample_buffers(&self, cx: &mut StepContext<'_>) {
        let (lo, hi) = self.span();
        for c in 0..cx.ch.len() {
            if let crate::link::End::Router { router, port } = cx.ch.dst[c] {
                if (lo..hi).contains(&router) {
                    let (flits, full) = self.input_load(router, port);
                    cx.stats.on_buffer_sample(c, flits, full);
                }
            }
        }
    }

    /// The input-queued routers, for tests and measurements that switch how they step
    /// (prefetching, wide VC sets, activity tracking) or read their state.
    pub fn iq_mut(&mut self) -> Option<&mut iq::IqRouters> {
        match self {
            Routers::Iq(r) => Some(r),
            _ => None,
        }
    }
}

impl RouterFamily for Routers {
    fn ports(&self) -> u32 {
        each_family!(self, r => r.ports())
    }
    fn vcs(&self) -> u32 {
        each_family!(self, r => RouterFamily::vcs(r))
    }
    fn depth(&self) -> u32 {
        each_family!(self, r => r.depth())
    }
    fn input_len(&self, r: u32, p: u32, v: u32) -> u32 {
        each_family!(self, x => RouterFamily::input_len(x, r, p, v))
    }
    fn input_front(&self, r: u32, p: u32, v: u32) -> Option<crate::link::Flit> {
        each_family!(self, x => RouterFamily::input_front(x, r, p, v))
    }
    fn out_credits(&self, r: u32, p: u32, v: u32) -> u32 {
        each_family!(self, x => RouterFamily::out_credits(x, r, p, v))
    }
    fn input_load(&self, r: u32, port: u32) -> (u32, bool) {
        each_family!(self, x => RouterFamily::input_load(x, r, port))
    }
    fn total_buffered(&self) -> u64 {
        each_family!(self, r => RouterFamily::total_buffered(r))
    }
    #[inline]
    fn flit_sent_to(&mut self, r: u32, port: u32, arrive: u64) {
        each_family!(self, x => RouterFamily::flit_sent_to(x, r, port, arrive))
    }
    #[inline]
    fn step(&mut self, which: crossing::Which, cx: &mut StepContext<'_>) {
        each_family!(self, r => RouterFamily::step(r, which, cx));
        // Once the routers of the partition have all stepped this cycle.
        if which != crossing::Which::Interior && cx.stats.buffer_sample_due(cx.now) {
            self.sample_buffers(cx);
        }
    }
    fn steps_by_halves(&self) -> bool {
        each_family!(self, r => r.steps_by_halves())
    }
    fn windowed(&self) -> bool {
        each_family!(self, r => r.windowed())
    }
    fn serial_reason(&self) -> Option<&'static str> {
        each_family!(self, r => r.serial_reason())
    }
    fn partition(&mut self, lo: u32, hi: u32) {
        each_family!(self, r => RouterFamily::partition(r, lo, hi))
    }
    fn span(&self) -> (u32, u32) {
        each_family!(self, r => RouterFamily::span(r))
    }
    fn take_crossings(&mut self, spare: crossing::Crossings) -> crossing::Crossings {
        each_family!(self, r => RouterFamily::take_crossings(r, spare))
    }
    fn receive_crossings(&mut self, from: &crossing::Crossings, ch: &mut crate::link::Channels, packets: &mut crate::packet::PacketArena) {
        each_family!(self, r => RouterFamily::receive_crossings(r, from, ch, packets))
    }
    fn copy_span_from(&mut self, other: &Self) {
        each_family!(self, other, r, o => RouterFamily::copy_span_from(r, o))
    }
    fn merge_counters(&mut self, other: &Self) {
        each_family!(self, other, r, o => RouterFamily::merge_counters(r, o))
    }
    fn crossing_router(&self, row: u32) -> u32 {
        each_family!(self, r => r.crossing_router(row))
    }
    fn prefetch_crossings(&self) {
        each_family!(self, r => RouterFamily::prefetch_crossings(r))
    }
    fn report(&self, topo: &crate::topology::Topology) -> FamilyReport {
        each_family!(self, r => r.report(topo))
    }
    fn totals(&self) -> FamilyTotals {
        each_family!(self, r => r.totals())
    }
    fn absorb_totals(&mut self, t: &FamilyTotals) {
        each_family!(self, r => r.absorb_totals(t))
    }
    fn dateline_drops(&self) -> Option<drops::DatelineDrops> {
        each_family!(self, r => r.dateline_drops())
    }
    fn merge_dateline_drops(&mut self, o: &drops::DatelineDrops) {
        each_family!(self, r => r.merge_dateline_drops(o))
    }
    fn foreign_flits_in_channels(&self) -> u64 {
        each_family!(self, r => r.foreign_flits_in_channels())
    }
    fn conserves_credits(&self, from_endpoint: bool) -> bool {
        each_family!(self, r => r.conserves_credits(from_endpoint))
    }
    fn check(&self, ch: &crate::link::Channels) -> Option<String> {
        each_family!(self, r => r.check(ch))
    }
    fn wait_graph(&self) -> Option<&dyn WaitGraph> {
        each_family!(self, r => r.wait_graph())
    }
    fn describe_wait(&self, r: u32, p: u32, v: u32, now: u64) -> String {
        each_family!(self, x => RouterFamily::describe_wait(x, r, p, v, now))
    }
    fn describe(&self, r: u32, now: u64) -> Vec<String> {
        each_family!(self, x => RouterFamily::describe(x, r, now))
    }
    fn congestion_count(&self, occupied: bool) -> Option<u32> {
        each_family!(self, r => r.congestion_count(occupied))
    }
    fn metapackets(&mut self) -> Option<&mut crate::congestion::metapacket::MetaNet> {
        each_family!(self, r => r.metapackets())
    }
    fn alo_allows(&self, r: u32, productive: u32, free: crate::congestion::AloFree) -> bool {
        each_family!(self, x => RouterFamily::alo_allows(x, r, productive, free))
    }
    fn prefetching(&self) -> bool {
        each_family!(self, r => RouterFamily::prefetching(r))
    }
    fn tracks_endpoints(&self) -> bool {
        each_family!(self, r => RouterFamily::tracks_endpoints(r))
    }
    fn wake_horizon(&self) -> u64 {
        each_family!(self, r => RouterFamily::wake_horizon(r))
    }
    fn wake_endpoint(&mut self, e: u32, at: u64) {
        each_family!(self, r => RouterFamily::wake_endpoint(r, e, at))
    }
    fn due_endpoints(&mut self, now: u64, span: (u32, u32), list: &mut Vec<u32>) {
        each_family!(self, r => RouterFamily::due_endpoints(r, now, span, list))
    }
}
