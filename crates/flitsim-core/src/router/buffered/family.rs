//! The buffered-crossbar routers as a [`RouterFamily`].

use super::BufferedRouters;
use crate::link::{Channels, Flit};
use crate::packet::PacketArena;
use crate::router::crossing::{Crossings, Which};
use crate::router::drops::DatelineDrops;
use crate::router::family::{FamilyReport, FamilyTotals, RouterFamily, StepContext, WaitGraph};
use crate::topology::Topology;

impl RouterFamily for BufferedRouters {
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
        BufferedRouters::input_len(self, r, p, v)
    }
    fn input_front(&self, r: u32, p: u32, v: u32) -> Option<Flit> {
        BufferedRouters::input_front(self, r, p, v)
    }
    fn out_credits(&self, r: u32, p: u32, v: u32) -> u32 {
        self.credits[((r * self.ports + p) * self.vcs + v) as usize]
    }
    fn total_buffered(&self) -> u64 {
        BufferedRouters::total_buffered(self)
    }
    #[inline]
    fn flit_sent_to(&mut self, r: u32, port: u32, arrive: u64) {
        BufferedRouters::flit_sent_to(self, r, port, arrive)
    }
    #[inline]
    fn step(&mut self, which: Which, cx: &mut StepContext<'_>) {
        debug_assert!(which == Which::All, "only input-queued routers are stepped by halves");
        let routing = cx.routing;
        self.step_all(cx, routing)
    }
    fn windowed(&self) -> bool {
        true
    }

    fn partition(&mut self, lo: u32, hi: u32) {
        BufferedRouters::partition(self, lo, hi)
    }
    fn span(&self) -> (u32, u32) {
        BufferedRouters::span(self)
    }
    fn take_crossings(&mut self, spare: Crossings) -> Crossings {
        BufferedRouters::take_crossings(self, spare)
    }
    fn receive_crossings(&mut self, from: &Crossings, ch: &mut Channels, packets: &mut PacketArena) {
        BufferedRouters::receive_crossings(self, from, ch, packets)
    }
    fn copy_span_from(&mut self, other: &Self) {
        BufferedRouters::copy_span_from(self, other)
    }
    fn merge_counters(&mut self, other: &Self) {
        BufferedRouters::merge_counters(self, other)
    }

    fn report(&self, topo: &Topology) -> FamilyReport {
        FamilyReport { router_counters: Some(self.counters.report(|p| port_direction(topo, p))), ..Default::default() }
    }
    fn totals(&self) -> FamilyTotals {
        FamilyTotals { perf: Some(self.counters.clone()), ..Default::default() }
    }
    fn absorb_totals(&mut self, t: &FamilyTotals) {
        self.counters.merge(t.perf.as_ref().expect("the same routers on every process"));
    }
    fn dateline_drops(&self) -> Option<DatelineDrops> {
        Some(self.dateline_drops)
    }
    fn merge_dateline_drops(&mut self, o: &DatelineDrops) {
        self.dateline_drops.merge(o)
    }
    fn wait_graph(&self) -> Option<&dyn WaitGraph> {
        Some(self)
    }
    fn describe(&self, r: u32, now: u64) -> Vec<String> {
        if self.buffered(r) == 0 {
            return Vec::new();
        }
        BufferedRouters::describe(self, r, now)
    }
}

/// Name of port `p` as a direction: the topology's port name (`+x`, `-x`, ...), with a
/// single processor port called `proc` as in the SeaStar paper.
fn port_direction(topo: &Topology, p: u32) -> String {
    if topo.ports - topo.network_ports() == 1 && p == topo.network_ports() {
        "proc".into()
    } else {
        topo.port_name(p)
    }
}

impl crate::router::FamilyConfig for super::BufferedConfig {
    const KIND: &'static str = "buffered-crossbar";
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
        self.output_delay
    }
    fn flow_control(&self) -> crate::flow::FlowControl {
        crate::flow::FlowControl::VirtualCutThrough
    }
    fn pipeline(&self) -> u32 {
        self.routing_delay + self.crossbar_delay + self.output_delay
    }
    fn validate(&self, cx: &crate::router::Validation<'_>) -> crate::error::Result<()> {
        self.validate("router", cx.max_packet, cx.topology.ndims(), cx.topology.ports)
    }
    fn accepts(&self, routing: &crate::routing::RoutingConfig) -> crate::error::Result<()> {
        use crate::routing::RoutingConfig as R;
        crate::router::config::no_adaptive(routing)?;
        let why = match routing {
            R::Dragonfly { .. } => "dragonfly routes change VC class at every global hop, which the input-queued router models",
            R::Graph { .. } => "graph routes change VC class hop by hop, which the input-queued router models",
            R::Hyperx { .. } => "HyperX routes change VC class at the intermediate router, which the input-queued router models",
            R::Updown { .. } => "up*/down* routes are carried in the packet, which the input-queued router reads",
            _ => return Ok(()),
        };
        Err(crate::error::Error::config("router.type", format!("{why}; use router.type = \"input_queued\"")))
    }
    fn build(&self, b: &crate::router::Build<'_>) -> crate::router::Routers {
        let max_packet = self.max_packet.unwrap_or(b.max_packet);
        crate::router::Routers::Buffered(BufferedRouters::new(self, b.topo, b.channels, max_packet, b.request_vcs))
    }
}
