//! The input-queued routers as a [`RouterFamily`]: the engine's view of them, and their
//! wait-for graph for deadlock reports.

use super::{state, IqRouters, FREE};
use crate::link::{Channels, End, Flit};
use crate::packet::PacketArena;
use crate::router::crossing::{Crossings, Which};
use crate::router::drops::DatelineDrops;
use crate::router::family::{RouterFamily, StepContext, WaitGraph};
use crate::topology::Topology;

impl RouterFamily for IqRouters {
    fn ports(&self) -> u32 {
        self.ports
    }
    fn vcs(&self) -> u32 {
        self.vcs
    }
    fn depth(&self) -> u32 {
        self.depth
    }
    fn input_len(&self, r: u32, p: u32, v: u32) -> u32 {
        self.buffer_len(((r * self.ports + p) * self.vcs + v) as usize)
    }
    fn input_front(&self, r: u32, p: u32, v: u32) -> Option<Flit> {
        self.buffer_front(((r * self.ports + p) * self.vcs + v) as usize)
    }
    fn out_credits(&self, r: u32, p: u32, v: u32) -> u32 {
        self.out[((r * self.ports + p) * self.vcs + v) as usize].credits
    }
    fn total_buffered(&self) -> u64 {
        IqRouters::total_buffered(self)
    }
    #[inline]
    fn flit_sent_to(&mut self, r: u32, port: u32, arrive: u64) {
        IqRouters::flit_sent_to(self, r, port, arrive)
    }
    #[inline]
    fn step(&mut self, which: Which, cx: &mut StepContext<'_>) {
        IqRouters::step(self, which, cx)
    }
    fn steps_by_halves(&self) -> bool {
        true
    }
    fn windowed(&self) -> bool {
        true
    }
    fn serial_reason(&self) -> Option<&'static str> {
        (!self.has_calendar()).then_some("delays of 64 cycles or more (no arrival calendar) are not partitioned")
    }

    fn partition(&mut self, lo: u32, hi: u32) {
        IqRouters::partition(self, lo, hi)
    }
    fn span(&self) -> (u32, u32) {
        IqRouters::span(self)
    }
    fn take_crossings(&mut self, spare: Crossings) -> Crossings {
        IqRouters::take_crossings(self, spare)
    }
    fn receive_crossings(&mut self, from: &Crossings, ch: &mut Channels, packets: &mut PacketArena) {
        IqRouters::receive_crossings(self, from, ch, packets)
    }
    fn copy_span_from(&mut self, other: &Self) {
        IqRouters::copy_span_from(self, other)
    }
    fn crossing_router(&self, row: u32) -> u32 {
        self.row_router(row)
    }
    fn prefetch_crossings(&self) {
        IqRouters::prefetch_crossings(self)
    }

    fn dateline_drops(&self) -> Option<DatelineDrops> {
        Some(self.dateline_drops)
    }
    fn merge_dateline_drops(&mut self, o: &DatelineDrops) {
        self.dateline_drops.merge(o)
    }
    fn conserves_credits(&self, _from_endpoint: bool) -> bool {
        // (STOP/GO sends symbols, not credits: only the buffer bound holds there.)
        self.config().stop_go.is_none()
    }
    /// Every owned output VC's owner is an input VC active on it.
    fn check(&self, _ch: &Channels) -> Option<String> {
        let (p_n, v_n) = (self.ports as usize, self.vcs as usize);
        for (o, owner) in self.out.iter().map(|ov| ov.owner).enumerate() {
            if owner == FREE {
                continue;
            }
            let router = o / (p_n * v_n);
            let out_port = (o / v_n) % p_n;
            let w = o % v_n;
            let iv = &self.ivc[router * p_n * v_n + owner as usize];
            if iv.state != state::ACTIVE || iv.port as usize != out_port || iv.out_vc as usize != w {
                return Some(format!("output VC {out_port}/vc{w} of router {router} owned by input VC {owner} which is not active on it"));
            }
        }
        None
    }
    fn wait_graph(&self) -> Option<&dyn WaitGraph> {
        Some(self)
    }
    fn describe_wait(&self, r: u32, p: u32, v: u32, now: u64) -> String {
        IqRouters::describe_wait(self, r, p, v, now)
    }

    fn prefetching(&self) -> bool {
        IqRouters::prefetching(self)
    }
    fn tracks_endpoints(&self) -> bool {
        IqRouters::tracks_endpoints(self)
    }
    fn wake_horizon(&self) -> u64 {
        IqRouters::wake_horizon(self)
    }
    fn wake_endpoint(&mut self, e: u32, at: u64) {
        IqRouters::wake_endpoint(self, e, at)
    }
    fn due_endpoints(&mut self, now: u64, span: (u32, u32), list: &mut Vec<u32>) {
        IqRouters::due_endpoints(self, now, span, list)
    }
}

/// The wait-for graph's nodes are the input VCs (global indices). An active VC waits
/// for credits of its output VC, i.e. for the downstream input VC that output feeds; a
/// VC waiting for VC allocation waits for every output VC in its candidate range, each
/// either held by another input VC of the same router or lacking the credits virtual
/// cut-through needs.
impl WaitGraph for IqRouters {
    fn nodes(&self) -> usize {
        self.ivc.len()
    }
    fn front(&self, i: usize) -> Option<Flit> {
        self.buffer_front(i)
    }
    fn waits(&self, ch: &Channels, i: usize, out: &mut Vec<usize>) {
        out.clear();
        let (p_n, v_n) = (self.ports as usize, self.vcs as usize);
        let router = i / (p_n * v_n);
        let base = router * p_n * v_n;
        let st = &self.ivc[i];
        let downstream = |o: usize, w: usize| -> Option<usize> {
            match ch.dst[router * p_n + o] {
                End::Router { router: dr, port: dp } => Some((dr as usize * p_n + dp as usize) * v_n + w),
                _ => None,
            }
        };
        match st.state {
            state::ACTIVE => {
                if let Some(d) = downstream(st.port as usize, st.out_vc as usize) {
                    out.push(d);
                }
            }
            state::VC_ALLOC => {
                for w in st.lo as usize..st.hi as usize {
                    let ovc = base + st.port as usize * v_n + w;
                    let owner = self.out[ovc].owner;
                    if owner != FREE {
                        out.push(base + owner as usize);
                    } else if let Some(d) = downstream(st.port as usize, w) {
                        out.push(d);
                    }
                }
            }
            _ => {}
        }
    }
    fn node_name(&self, topo: &Topology, i: usize) -> String {
        let (p_n, v_n) = (self.ports as usize, self.vcs as usize);
        format!("{}{} vc{}", topo.router_name((i / (p_n * v_n)) as u32), topo.port_name(((i / v_n) % p_n) as u32), i % v_n)
    }
    fn node_kind(&self) -> &'static str {
        "input VCs"
    }
}

impl crate::router::FamilyConfig for crate::router::IqConfig {
    const KIND: &'static str = "input-queued";
    const MAX_PORT_VCS: u32 = super::MAX_PORT_VCS;
    fn vcs(&self) -> u32 {
        self.vcs
    }
    fn credit_delay(&self) -> u32 {
        self.credit_delay
    }
    fn buffer_depth(&self) -> u32 {
        self.buffer_depth
    }
    fn output_delay(&self) -> u32 {
        self.sw_alloc_delay + self.st_delay
    }
    fn initial_credits(&self) -> u32 {
        // (With STOP/GO the count that means GO.)
        if self.stop_go.is_some() {
            crate::flow::GO_CREDITS
        } else {
            self.buffer_depth
        }
    }
    fn flow_control(&self) -> crate::flow::FlowControl {
        self.flow_control
    }
    fn pipeline(&self) -> u32 {
        self.routing_delay + self.vc_alloc_delay + self.sw_alloc_delay + self.st_delay
    }
    fn routing_delay(&self) -> u32 {
        self.routing_delay
    }
    fn validate(&self, cx: &crate::router::Validation<'_>) -> crate::error::Result<()> {
        self.validate("router", cx.max_packet)?;
        // STOP/GO's slack: the longest a flit takes into a router.
        let into = self.sw_alloc_delay.saturating_add(self.st_delay).saturating_add(cx.longest_wire);
        self.validate_stop_go("router", into.max(cx.injection_latency))
    }
    fn accepts(&self, routing: &crate::routing::RoutingConfig) -> crate::error::Result<()> {
        crate::router::config::no_adaptive(routing)
    }
    fn build(&self, b: &crate::router::Build<'_>) -> crate::router::Routers {
        crate::router::Routers::Iq(IqRouters::new(self, b.topo, b.channels))
    }
}
