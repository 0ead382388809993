//! The channel ends of every router port, for router microarchitectures that step each
//! router against the shared channel rings (the central-arbiter router, the crosspoint
//! switch): where a port's flits and credits arrive and leave, and which routers are at
//! the other ends (so a sender can mark the receiver busy).

use crate::link::{Channels, End, Ring};
use crate::topology::{Topology, NONE};

/// A port's channel ends.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wiring {
    /// Flits arriving at this input port.
    pub in_flits: Ring,
    /// Credits back upstream for this input port.
    pub in_credits: Ring,
    /// Router upstream of this input port, or NONE (endpoint or unconnected).
    pub up_router: u32,
    /// Its output port feeding this input port (when `up_router` is a router).
    pub up_port: u8,
    /// Flits leaving this output port.
    pub out_flits: Ring,
    /// Credits arriving for this output port.
    pub out_credits: Ring,
    /// Router downstream of this output port, or NONE.
    pub down_router: u32,
    /// Its input port this output port feeds (when `down_router` is a router).
    pub down_port: u8,
    /// `out_delay` + the channel latency of this output.
    pub flit_delay: u32,
    /// Partitioned engine ([`crate::router::crossing`]): the downstream router is
    /// another partition's (flits leave through the outbox).
    pub cross_out: bool,
    /// The upstream router is another partition's (credits leave through the outbox).
    pub cross_in: bool,
}

/// Mark the ports of routers `[lo, hi)` whose channels cross to routers outside the
/// range (one partition of the partitioned engine).
pub(crate) fn partition(wiring: &mut [Wiring], ports: u32, lo: u32, hi: u32) {
    let crosses = |router: u32| router != NONE && !(lo..hi).contains(&router);
    let p = ports as usize;
    for w in &mut wiring[lo as usize * p..hi as usize * p] {
        w.cross_out = crosses(w.down_router);
        w.cross_in = crosses(w.up_router);
    }
}

/// The wiring of every `(router, port)` of `topo` over `ch`, `[router * ports + port]`;
/// `out_delay` is the router's output stage before the channel.
pub(crate) fn build(topo: &Topology, ch: &Channels, out_delay: u32) -> Vec<Wiring> {
    let (r_n, p_n) = (topo.num_routers, topo.ports);
    let mut wiring = Vec::with_capacity((r_n * p_n) as usize);
    for r in 0..r_n {
        for p in 0..p_n {
            let c_out = (r * p_n + p) as usize;
            // The channel arriving at input port p.
            let c_in = if let Some(node) = topo.node_at(r, p) {
                Some((r_n * p_n + node) as usize)
            } else {
                let id = topo.in_channel[c_out];
                (id != NONE).then(|| {
                    let d = topo.channels[id as usize];
                    (d.src_router * p_n + d.src_port) as usize
                })
            };
            let (up_router, up_port) = match c_in.map(|c| ch.src[c]) {
                Some(End::Router { router, port }) => (router, port as u8),
                _ => (NONE, 0),
            };
            let (down_router, down_port) = match ch.dst[c_out] {
                End::Router { router, port } => (router, port as u8),
                _ => (NONE, 0),
            };
            let c_in = c_in.unwrap_or(c_out);
            wiring.push(Wiring {
                in_flits: ch.flits.ring(c_in),
                in_credits: ch.credits.ring(c_in),
                up_router,
                up_port,
                out_flits: ch.flits.ring(c_out),
                out_credits: ch.credits.ring(c_out),
                down_router,
                down_port,
                flit_delay: out_delay + ch.latency[c_out],
                cross_out: false,
                cross_in: false,
            });
        }
    }
    wiring
}
