//! The routing function as the router step calls it: [`super::IqRouters::step`]
//! compiles dimension-order routing, the one the large tori and the comparison with
//! BookSim2 run, into a step of its own, and the other functions into one step that
//! chooses per head ([`crate::routing::RoutingFunction`] implements [`Route`]). Route computation reads the
//! packet header: destination-routed functions read its destination, source-routed ones
//! (up*/down*) the route it carries, which the source switch writes, and a dragonfly's
//! Valiant and UGAL routes the intermediate group they carry (a HyperX's, the intermediate router). UGAL also reads the
//! router's output queues from its credit counters ([`OutputQueues`]).

use super::{state, InputVc};
use crate::link::Flit;
use crate::packet::{Packet, PacketArena};
use crate::routing::dor::Dor;
use crate::routing::dragonfly::DragonflyRouting;
use crate::routing::graph::GraphRouting;
use crate::routing::hyperx::HyperXRouting;
use crate::routing::source::SourceRouting;
use crate::routing::table::TableRouting;
use crate::routing::updown_net::UpDownRouting;
use crate::routing::Candidate;
use crate::routing::PortQueues;
use crate::topology::Topology;

/// Route computation for a head at router `r`, arrived on `in_port`/`in_vc` (over a
/// router-to-router channel when `hop`, else from the NIC).
pub(super) trait Route {
    /// Can this routing function's routers drop a packet ([`Route::drops`])? When not,
    /// the step compiles without the discard stage.
    const MAY_DROP: bool = false;
    /// `queues`: the router's output queues as its credit counters know them (read by
    /// adaptive choices, UGAL's).
    #[allow(clippy::too_many_arguments)]
    fn route<Q: PortQueues>(
        &self,
        topo: &Topology,
        r: u32,
        in_port: u32,
        in_vc: u32,
        hop: bool,
        header: &mut Packet,
        queues: &Q,
    ) -> Candidate;
    /// Does router `r` drop the packet routed to `out_port` (a Cray XT dateline error)?
    #[inline(always)]
    fn drops(&self, _r: u32, _in_port: u32, _in_vc: u32, _out_port: u32) -> bool {
        false
    }
}

impl Route for Dor {
    #[inline(always)]
    fn route<Q: PortQueues>(
        &self,
        topo: &Topology,
        r: u32,
        in_port: u32,
        in_vc: u32,
        _hop: bool,
        header: &mut Packet,
        _queues: &Q,
    ) -> Candidate {
        Dor::route(self, topo, r, in_port, in_vc, header.dst, crate::routing::dor::packet_key(header.src, header.seq))
    }
}

impl Route for SourceRouting {
    #[inline(always)]
    fn route<Q: PortQueues>(
        &self,
        topo: &Topology,
        r: u32,
        in_port: u32,
        in_vc: u32,
        _hop: bool,
        header: &mut Packet,
        _queues: &Q,
    ) -> Candidate {
        SourceRouting::route(self, topo, r, in_port, in_vc, header.dst)
    }
}

impl Route for TableRouting {
    const MAY_DROP: bool = true;
    #[inline(always)]
    fn route<Q: PortQueues>(
        &self,
        _topo: &Topology,
        r: u32,
        in_port: u32,
        in_vc: u32,
        _hop: bool,
        header: &mut Packet,
        _queues: &Q,
    ) -> Candidate {
        TableRouting::route(self, r, in_port, in_vc, header.dst)
    }
    #[inline(always)]
    fn drops(&self, r: u32, in_port: u32, in_vc: u32, out_port: u32) -> bool {
        TableRouting::drops(self, r, in_port, in_vc, out_port)
    }
}

impl Route for UpDownRouting {
    /// The source leaf writes the route string; every switch shifts its port off it.
    #[inline(always)]
    fn route<Q: PortQueues>(
        &self,
        _topo: &Topology,
        _r: u32,
        _in_port: u32,
        _in_vc: u32,
        hop: bool,
        header: &mut Packet,
        _queues: &Q,
    ) -> Candidate {
        let (src, dst, seq) = (header.src, header.dst, header.seq);
        self.route_carried(!hop, src, dst, seq, &mut header.route)
    }
}

impl Route for DragonflyRouting {
    /// A Valiant packet's intermediate group rides in the header's `route` field.
    #[inline(always)]
    fn route<Q: PortQueues>(
        &self,
        _topo: &Topology,
        r: u32,
        in_port: u32,
        in_vc: u32,
        hop: bool,
        header: &mut Packet,
        queues: &Q,
    ) -> Candidate {
        self.route_header(r, in_port, in_vc, !hop, header, queues)
    }
}

impl Route for HyperXRouting {
    /// A Valiant packet's intermediate router rides in the header's `route` field.
    #[inline(always)]
    fn route<Q: PortQueues>(
        &self,
        _topo: &Topology,
        r: u32,
        in_port: u32,
        in_vc: u32,
        hop: bool,
        header: &mut Packet,
        queues: &Q,
    ) -> Candidate {
        self.route_header(r, in_port, in_vc, !hop, header, queues)
    }
}

impl Route for GraphRouting {
    #[inline(always)]
    fn route<Q: PortQueues>(
        &self,
        _topo: &Topology,
        r: u32,
        in_port: u32,
        in_vc: u32,
        _hop: bool,
        header: &mut Packet,
        _queues: &Q,
    ) -> Candidate {
        GraphRouting::route(self, r, in_port, in_vc, header.dst)
    }
}

/// Every routing function but dimension order, chosen per head: their routers share one
/// compiled step (route computation is once per packet per router, so the choice costs
/// little), where a step compiled for each would multiply the engine's build time.
impl Route for crate::routing::RoutingFunction {
    const MAY_DROP: bool = true;
    #[inline(always)]
    fn route<Q: PortQueues>(
        &self,
        topo: &Topology,
        r: u32,
        in_port: u32,
        in_vc: u32,
        hop: bool,
        header: &mut Packet,
        queues: &Q,
    ) -> Candidate {
        use crate::routing::RoutingFunction as F;
        match self {
            F::Dor(d) => Route::route(d, topo, r, in_port, in_vc, hop, header, queues),
            F::Table(t) => Route::route(&**t, topo, r, in_port, in_vc, hop, header, queues),
            F::Source(s) => Route::route(s, topo, r, in_port, in_vc, hop, header, queues),
            F::UpDown(u) => Route::route(u, topo, r, in_port, in_vc, hop, header, queues),
            F::Dragonfly(d) => Route::route(d, topo, r, in_port, in_vc, hop, header, queues),
            F::HyperX(h) => Route::route(h, topo, r, in_port, in_vc, hop, header, queues),
            F::Graph(g) => Route::route(g, topo, r, in_port, in_vc, hop, header, queues),
            F::Adaptive(_) => unreachable!("adaptive routing runs on the central router (checked by Config::validate)"),
        }
    }
    #[inline(always)]
    fn drops(&self, r: u32, in_port: u32, in_vc: u32, out_port: u32) -> bool {
        match self {
            crate::routing::RoutingFunction::Table(t) => TableRouting::drops(t, r, in_port, in_vc, out_port),
            _ => false,
        }
    }
}

/// A router's output queues as its credit counters know them: per network port, the
/// flits sent and not yet credited back, over the port's VCs.
pub(super) struct OutputQueues<'a> {
    pub outs: &'a [super::OutputVc; super::VIEW],
    pub vcs: usize,
    pub depth: u32,
}

impl PortQueues for OutputQueues<'_> {
    #[inline]
    fn used(&self, port: u32) -> u32 {
        let base = port as usize * self.vcs;
        (base..base + self.vcs).map(|i| self.depth.saturating_sub(self.outs[i & super::IDX].credits)).sum()
    }
}

/// Route computation for head flit `f`, now at the front of idle input VC `st` (input
/// port `p`, VC `v`) of router `r`: reads the packet header (counting one more hop when
/// the head came over a router-to-router channel, and at the source switch noting in its
/// `age` field the cycle `ready`, modulo 2^16), stores the routing function's
/// candidate and moves the VC to VC allocation from cycle `ready`; or, when the router
/// drops the packet ([`Route::drops`]), to [`state::DROP`], returning true.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn route_head<R: Route>(
    st: &mut InputVc,
    f: Flit,
    r: u32,
    p: u32,
    v: u32,
    hop: bool,
    ready: u64,
    topo: &Topology,
    routing: &R,
    packets: &mut PacketArena,
    queues: &OutputQueues,
) -> bool {
    debug_assert!(f.is_head(), "non-head flit at the front of an idle VC");
    let header = packets.get_mut(f.pid);
    header.hops += hop as u32;
    if !hop {
        // At the source switch: when the head reached the front of its input VC (a NIC's
        // probe is timed from here, past the data it queued behind on its own link).
        header.age = ready as u16;
    }
    let cand = routing.route(topo, r, p, v, hop, header, queues);
    st.port = cand.port;
    st.lo = cand.vc_lo;
    st.hi = cand.vc_hi;
    if R::MAY_DROP && routing.drops(r, p, v, cand.port as u32) {
        st.state = state::DROP;
        return true;
    }
    st.state = state::VC_ALLOC;
    st.delay_until(ready);
    false
}
