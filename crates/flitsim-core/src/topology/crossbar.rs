//! A single N-port router with one endpoint on every port: the input-queued crossbar
//! used to validate the router against switching theory (head-of-line blocking).

use super::{Shape, Topology, TopologySummary};
use crate::error::{Error, Result};

/// Largest supported crossbar (allocator request masks are 64-bit).
pub const MAX_PORTS: u32 = 64;

/// Build an N-port crossbar.
pub fn build(ports: u32, path: &str) -> Result<Topology> {
    if ports == 0 || ports > MAX_PORTS {
        return Err(Error::config(format!("{path}.ports"), format!("{ports} ports is not supported; use 1..={MAX_PORTS}")));
    }
    Ok(Topology {
        shape: Shape::Crossbar,
        dims: vec![],
        wrap: vec![],
        concentration: ports,
        num_routers: 1,
        num_nodes: ports,
        ports,
        channels: vec![],
        out_channel: vec![super::NONE; ports as usize],
        in_channel: vec![super::NONE; ports as usize],
        net_ports: 0,
        kautz: None,
        fat_tree: None,
        dragonfly: None,
        hyperx: None,
        graph: None,
        coords: vec![],
    })
}

/// Summary for `flitsim topo`.
pub fn summary(t: &Topology) -> TopologySummary {
    TopologySummary {
        description: format!("{}-port crossbar", t.ports),
        nodes: t.num_nodes,
        routers: 1,
        router_radix: t.ports,
        channels: 0,
        diameter: 0,
        avg_hops: 0.0,
        avg_hops_distinct: 0.0,
        bisection_channels: t.ports,
        bisection_note: "endpoint channels of half the ports (injection and ejection)".into(),
        uniform_bisection_bound: 1.0,
        uniform_channel_bound: 1.0,
    }
}
