//! The SiCortex crosspoint switches as a [`RouterFamily`]: they count whole-packet
//! entries, not flit credits, between switches, and own the retry links.

use super::CrosspointRouters;
use crate::link::{Channels, Flit};
use crate::packet::PacketArena;
use crate::router::crossing::{Crossings, Which};
use crate::router::family::{FamilyReport, FamilyTotals, RouterFamily, StepContext};
use crate::routing::RoutingFunction;
use crate::topology::Topology;

impl RouterFamily for CrosspointRouters {
    fn ports(&self) -> u32 {
        self.ports
    }
    fn vcs(&self) -> u32 {
        self.vcs
    }
    fn depth(&self) -> u32 {
        self.inject_depth
    }
    fn input_len(&self, r: u32, p: u32, v: u32) -> u32 {
        CrosspointRouters::input_len(self, r, p, v)
    }
    fn input_front(&self, r: u32, p: u32, v: u32) -> Option<Flit> {
        CrosspointRouters::input_front(self, r, p, v)
    }
    /// A network input's crosspoint buffers (the DMA queues for the local input).
    fn input_load(&self, r: u32, p: u32) -> (u32, bool) {
        if p as usize == self.local {
            crate::router::family::vc_buffers_load(self, r, p, self.inject_depth)
        } else {
            self.row_load(r, p)
        }
    }
    /// (Entries, not flit credits, between switches.)
    fn out_credits(&self, _r: u32, _p: u32, _v: u32) -> u32 {
        0
    }
    fn total_buffered(&self) -> u64 {
        CrosspointRouters::total_buffered(self)
    }
    #[inline]
    fn flit_sent_to(&mut self, r: u32, _port: u32, _arrive: u64) {
        CrosspointRouters::flit_sent_to(self, r)
    }
    fn step(&mut self, which: Which, cx: &mut StepContext<'_>) {
        debug_assert!(which == Which::All, "only input-queued routers are stepped by halves");
        let RoutingFunction::Source(s) = cx.routing else {
            unreachable!("the crosspoint switch runs source routing (checked by Config::validate)")
        };
        self.step_all(cx, s)
    }

    fn partition(&mut self, lo: u32, hi: u32) {
        CrosspointRouters::partition(self, lo, hi)
    }
    fn span(&self) -> (u32, u32) {
        CrosspointRouters::span(self)
    }
    fn take_crossings(&mut self, spare: Crossings) -> Crossings {
        CrosspointRouters::take_crossings(self, spare)
    }
    fn receive_crossings(&mut self, from: &Crossings, ch: &mut Channels, packets: &mut PacketArena) {
        CrosspointRouters::receive_crossings(self, from, ch, packets)
    }
    fn copy_span_from(&mut self, other: &Self) {
        CrosspointRouters::copy_span_from(self, other)
    }
    fn merge_counters(&mut self, other: &Self) {
        CrosspointRouters::merge_counters(self, other)
    }

    fn report(&self, _topo: &Topology) -> FamilyReport {
        FamilyReport { crosspoint: Some(self.counters), retry: self.retry_report(), ..Default::default() }
    }
    fn totals(&self) -> FamilyTotals {
        FamilyTotals { crosspoint: Some(self.counters), retry: self.retry_part(), ..Default::default() }
    }
    fn absorb_totals(&mut self, t: &FamilyTotals) {
        self.counters.merge(t.crosspoint.as_ref().expect("the same routers on every process"));
        if let Some(p) = &t.retry {
            self.absorb_retry(p);
        }
    }
    /// Only the DMA injection queues take flit credits (from their endpoints).
    fn conserves_credits(&self, from_endpoint: bool) -> bool {
        from_endpoint
    }
    /// Crosspoint entries within their capacity and reservations.
    fn check(&self, _ch: &Channels) -> Option<String> {
        self.check_entries()
    }
}

impl crate::router::FamilyConfig for super::CrosspointConfig {
    const KIND: &'static str = "crosspoint";
    const MAX_PORT_VCS: u32 = 64;
    fn vcs(&self) -> u32 {
        self.vcs
    }
    fn credit_delay(&self) -> u32 {
        self.credit_delay
    }
    fn buffer_depth(&self) -> u32 {
        self.inject_depth
    }
    fn output_delay(&self) -> u32 {
        self.output_delay
    }
    fn flow_control(&self) -> crate::flow::FlowControl {
        crate::flow::FlowControl::VirtualCutThrough
    }
    fn pipeline(&self) -> u32 {
        self.xb_delay + self.output_delay
    }
    fn validate(&self, cx: &crate::router::Validation<'_>) -> crate::error::Result<()> {
        self.validate("router", cx.topology.ports, cx.max_packet)
    }
    fn accepts(&self, routing: &crate::routing::RoutingConfig) -> crate::error::Result<()> {
        match routing {
            crate::routing::RoutingConfig::Source { .. } => Ok(()),
            _ => Err(crate::error::Error::config(
                "routing.type",
                "the crosspoint switch reads source routes; use routing.type = \"source\" on a Kautz topology (or another router.type)",
            )),
        }
    }
    fn build(&self, b: &crate::router::Build<'_>) -> crate::router::Routers {
        crate::router::Routers::Crosspoint(CrosspointRouters::new(self, b.topo, b.channels))
    }
}
