//! Router microarchitectures and their allocators and arbiters.
//!
//! Today: the input-queued virtual-channel router (BookSim-style pipeline: route
//! computation, VC allocation, switch allocation, switch traversal) in [`iq`], with the
//! round-robin [`arbiter`] and the separable / iSLIP switch [`allocator`]s.
//! `docs/architecture.md` walks through one cycle of it.

pub mod allocator;
pub mod arbiter;
pub mod iq;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::flow::FlowControl;

/// Config table `[router]`. `type` may be left out: it defaults to `input_queued`.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum RouterConfig {
    /// Input-queued virtual-channel router with credit-based flow control.
    InputQueued(IqConfig),
}

/// Deserialization mirror of [`RouterConfig`], externally tagged so that errors inside
/// the table keep their key path (see [`crate::config::deserialize_tagged`]).
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum RawRouter {
    InputQueued(IqConfig),
}

impl<'de> Deserialize<'de> for RouterConfig {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        Ok(match crate::config::deserialize_tagged::<D, RawRouter>(deserializer, "router", Some("input_queued"))? {
            RawRouter::InputQueued(c) => RouterConfig::InputQueued(c),
        })
    }
}

impl Default for RouterConfig {
    fn default() -> Self {
        RouterConfig::InputQueued(IqConfig::default())
    }
}

impl RouterConfig {
    /// VCs per port.
    pub fn vcs(&self) -> u32 {
        match self {
            RouterConfig::InputQueued(c) => c.vcs,
        }
    }
}

/// `[router]` with `type = "input_queued"`: the BookSim-style IQ VC router.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct IqConfig {
    /// Virtual channels per port (1..=16). Default 4.
    #[serde(default = "d_vcs")]
    pub vcs: u32,
    /// Flit slots per input VC buffer (1..=1024). Default 8.
    #[serde(default = "d_depth")]
    pub buffer_depth: u32,
    /// `wormhole` (default) or `virtual_cut_through` (a head flit claims a downstream VC
    /// only when it has room for the whole packet; needs buffer_depth >= largest packet).
    #[serde(default)]
    pub flow_control: FlowControl,
    /// Switch allocator: `separable_input_first` (default; round-robin arbiters) or `islip`.
    #[serde(default)]
    pub allocator: AllocatorKind,
    /// iSLIP iterations per cycle (1..=8). Default 1. Only with `allocator = "islip"`.
    #[serde(default = "d_one")]
    pub islip_iterations: u32,
    /// Cycles for route computation (0..=16). Default 1.
    #[serde(default = "d_one")]
    pub routing_delay: u32,
    /// Cycles for VC allocation (0..=16). Default 1.
    #[serde(default = "d_one")]
    pub vc_alloc_delay: u32,
    /// Cycles for switch allocation (0..=16). Default 1.
    #[serde(default = "d_one")]
    pub sw_alloc_delay: u32,
    /// Cycles for switch traversal (0..=16). Default 1.
    #[serde(default = "d_one")]
    pub st_delay: u32,
    /// Cycles a credit takes to return upstream (1..=64). Default 1.
    #[serde(default = "d_one")]
    pub credit_delay: u32,
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
            islip_iterations: 1,
            routing_delay: 1,
            vc_alloc_delay: 1,
            sw_alloc_delay: 1,
            st_delay: 1,
            credit_delay: 1,
        }
    }
}

/// `router.allocator`: the switch allocator.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
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

impl IqConfig {
    /// Range checks; `path` is "router".
    pub fn validate(&self, path: &str, max_packet: u32) -> Result<()> {
        let range = |field: &str, v: u32, lo: u32, hi: u32, what: &str| -> Result<()> {
            if v < lo || v > hi {
                Err(Error::config(format!("{path}.{field}"), format!("{v} is out of range: {what} must be {lo}..={hi}")))
            } else {
                Ok(())
            }
        };
        range("vcs", self.vcs, 1, 16, "the number of virtual channels")?;
        range("buffer_depth", self.buffer_depth, 1, 1024, "flit slots per VC buffer")?;
        range("islip_iterations", self.islip_iterations, 1, 8, "iSLIP iterations")?;
        range("routing_delay", self.routing_delay, 0, 16, "a pipeline delay")?;
        range("vc_alloc_delay", self.vc_alloc_delay, 0, 16, "a pipeline delay")?;
        range("sw_alloc_delay", self.sw_alloc_delay, 0, 16, "a pipeline delay")?;
        range("st_delay", self.st_delay, 0, 16, "a pipeline delay")?;
        range("credit_delay", self.credit_delay, 1, 64, "the credit return delay (at least 1 cycle)")?;
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

/// Registry entries for `flitsim list`.
pub const REGISTRY: &[crate::config::registry::Entry] = &[crate::config::registry::Entry {
    family: "router",
    name: "input_queued",
    summary: "input-queued VC router: RC, VA, SA, ST pipeline, credit flow control, wormhole or VCT",
    params: &[
        ("vcs", "4", "virtual channels per port"),
        ("buffer_depth", "8", "flit slots per input VC"),
        ("flow_control", "wormhole", "wormhole | virtual_cut_through"),
        ("allocator", "separable_input_first", "separable_input_first | islip"),
        ("islip_iterations", "1", "iSLIP iterations per cycle"),
        ("routing_delay", "1", "route computation cycles"),
        ("vc_alloc_delay", "1", "VC allocation cycles"),
        ("sw_alloc_delay", "1", "switch allocation cycles"),
        ("st_delay", "1", "switch traversal cycles"),
        ("credit_delay", "1", "credit return cycles"),
    ],
}];
