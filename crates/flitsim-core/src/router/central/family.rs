//! The central-arbiter routers as a [`RouterFamily`]: the congestion estimate's buffer
//! count, metapackets and ALO are theirs.

use super::CentralRouters;
use crate::congestion::metapacket::MetaNet;
use crate::link::{Channels, Flit};
use crate::packet::PacketArena;
use crate::router::crossing::{Crossings, Which};
use crate::router::family::{FamilyReport, FamilyTotals, RouterFamily, StepContext};
use crate::routing::RoutingFunction;
use crate::topology::Topology;

impl RouterFamily for CentralRouters {
    fn ports(&self) -> u32 {
        self.ports
    }
    /// The lanes: the VCs and the deadlock buffer.
    #[allow(clippy::misnamed_getters)]
    fn vcs(&self) -> u32 {
        self.lanes
    }
    fn depth(&self) -> u32 {
        self.depth
    }
    fn input_len(&self, r: u32, p: u32, v: u32) -> u32 {
        CentralRouters::input_len(self, r, p, v)
    }
    fn input_front(&self, r: u32, p: u32, v: u32) -> Option<Flit> {
        CentralRouters::input_front(self, r, p, v)
    }
    fn out_credits(&self, r: u32, p: u32, v: u32) -> u32 {
        CentralRouters::out_credits(self, r, p, v)
    }
    fn total_buffered(&self) -> u64 {
        CentralRouters::total_buffered(self)
    }
    #[inline]
    fn flit_sent_to(&mut self, r: u32, port: u32, arrive: u64) {
        CentralRouters::flit_sent_to(self, r, port, arrive)
    }
    fn step(&mut self, which: Which, cx: &mut StepContext<'_>) {
        debug_assert!(which == Which::All, "only input-queued routers are stepped by halves");
        let RoutingFunction::Adaptive(a) = cx.routing else {
            unreachable!("the central router runs adaptive routing (checked by Config::validate)")
        };
        self.step_all(cx, a)
    }

    fn partition(&mut self, lo: u32, hi: u32) {
        CentralRouters::partition(self, lo, hi)
    }
    fn span(&self) -> (u32, u32) {
        CentralRouters::span(self)
    }
    fn take_crossings(&mut self, spare: Crossings) -> Crossings {
        CentralRouters::take_crossings(self, spare)
    }
    fn receive_crossings(&mut self, from: &Crossings, ch: &mut Channels, packets: &mut PacketArena) {
        CentralRouters::receive_crossings(self, from, ch, packets)
    }
    fn copy_span_from(&mut self, other: &Self) {
        CentralRouters::copy_span_from(self, other)
    }
    fn merge_counters(&mut self, other: &Self) {
        CentralRouters::merge_counters(self, other)
    }

    fn report(&self, _topo: &Topology) -> FamilyReport {
        FamilyReport { central: Some(self.counters), metapackets: self.meta.as_ref().map(|m| m.report()), ..Default::default() }
    }
    fn totals(&self) -> FamilyTotals {
        FamilyTotals { central: Some(self.counters), meta: self.meta.as_ref().map(|m| m.report_part()), ..Default::default() }
    }
    fn absorb_totals(&mut self, t: &FamilyTotals) {
        self.counters.merge(t.central.as_ref().expect("the same routers on every process"));
        if let (Some(m), Some(p)) = (self.meta.as_mut(), &t.meta) {
            m.absorb_report(p);
        }
    }
    fn foreign_flits_in_channels(&self) -> u64 {
        self.meta_flits_in_channels()
    }
    /// Disha's recovery is serialized.
    fn check(&self, ch: &Channels) -> Option<String> {
        self.check_recovery(ch)
    }

    fn congestion_count(&self, occupied: bool) -> Option<u32> {
        Some(self.count_buffers(occupied))
    }
    fn metapackets(&mut self) -> Option<&mut MetaNet> {
        self.meta.as_deref_mut()
    }
    fn alo_allows(&self, r: u32, productive: u32, free: crate::congestion::AloFree) -> bool {
        CentralRouters::alo_allows(self, r, productive, free)
    }
}

impl crate::router::FamilyConfig for super::CentralConfig {
    const KIND: &'static str = "central-arbiter";
    const MAX_PORT_VCS: u32 = 64;
    fn vcs(&self) -> u32 {
        // (Its deadlock-buffer lane too; saturating, as it is read before validation.)
        self.vcs.saturating_add(1)
    }
    fn credit_delay(&self) -> u32 {
        self.credit_delay
    }
    fn buffer_depth(&self) -> u32 {
        self.buffer_depth
    }
    fn output_delay(&self) -> u32 {
        self.crossbar_delay
    }
    fn flow_control(&self) -> crate::flow::FlowControl {
        crate::flow::FlowControl::Wormhole
    }
    fn pipeline(&self) -> u32 {
        self.routing_delay + self.crossbar_delay
    }
    fn validate(&self, cx: &crate::router::Validation<'_>) -> crate::error::Result<()> {
        self.validate("router", cx.topology.ports)
    }
    fn accepts(&self, routing: &crate::routing::RoutingConfig) -> crate::error::Result<()> {
        match routing {
            crate::routing::RoutingConfig::Adaptive { .. } => Ok(()),
            _ => Err(crate::error::Error::config(
                "routing.type",
                "the central-arbiter router routes adaptively; use routing.type = \"adaptive\" (or another router.type)",
            )),
        }
    }
    fn build(&self, b: &crate::router::Build<'_>) -> crate::router::Routers {
        crate::router::Routers::Central(CentralRouters::new(self, b.topo, b.channels))
    }
}
