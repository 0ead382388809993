//! The `[router]` table: one variant per router family, each holding its family's config,
//! and what the rest of the engine asks of a family's config ([`FamilyConfig`]): its
//! buffers, delays and flow control, its checks, the routing functions it takes, and
//! building its routers. [`RouterConfig`] answers for every family through
//! [`each_config`], so the families are listed once, there.

use serde::{Deserialize, Serialize};

use super::{buffered, central, crosspoint, Build, IqConfig, Routers};
use crate::error::Result;
use crate::flow::FlowControl;
use crate::routing::RoutingConfig;
use crate::topology::Topology;

/// Config table `[router]`. `type` may be left out: it defaults to `input_queued`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(remote = "Self", rename_all = "snake_case", deny_unknown_fields)]
#[schemars(!remote, tag = "type")]
pub enum RouterConfig {
    /// Input-queued virtual-channel router with credit-based flow control.
    InputQueued(IqConfig),
    /// Buffered-crossbar router (input buffers, per-output staging buffers, per-packet
    /// output arbitration with SeaStar aging); the defaults are the Cray XT SeaStar's.
    BufferedCrossbar(buffered::BufferedConfig),
    /// Central-arbiter wormhole router for minimal adaptive routing with Duato escape VCs
    /// or Disha deadlock recovery (the self-tuned congestion-control paper's network);
    /// needs `routing.type = "adaptive"`.
    Central(central::CentralConfig),
    /// The SiCortex fabric switch: crosspoint buffers per input-output pair holding whole
    /// packets, source routing, VCs by node order, cut-through; needs
    /// `routing.type = "source"` on a Kautz topology.
    Crosspoint(crosspoint::CrosspointConfig),
}

crate::schema::tagged::tagged_serde!(RouterConfig, "router", Some("input_queued"));

/// `$body` with `$c` bound to the family config inside `$config` (a [`RouterConfig`]):
/// the one list of the families' configs.
macro_rules! each_config {
    ($config:expr, $c:ident => $body:expr) => {
        match $config {
            RouterConfig::InputQueued($c) => $body,
            RouterConfig::BufferedCrossbar($c) => $body,
            RouterConfig::Central($c) => $body,
            RouterConfig::Crosspoint($c) => $body,
        }
    };
}

impl Default for RouterConfig {
    fn default() -> Self {
        RouterConfig::InputQueued(IqConfig::default())
    }
}

/// What validating a family's config needs besides the config.
pub struct Validation<'a> {
    /// The network.
    pub topology: &'a Topology,
    /// The largest packet of the workload, in flits.
    pub max_packet: u32,
    /// The longest router-to-router channel latency, cycles.
    pub longest_wire: u32,
    /// The injection channels' latency, cycles.
    pub injection_latency: u32,
}

/// What the engine asks of a router family's config table. Ranges are declared on the
/// fields and checked before [`FamilyConfig::validate`].
pub trait FamilyConfig {
    /// The family's name in messages ("input-queued").
    const KIND: &'static str;
    /// Most input VCs a router supports (ports x VCs).
    const MAX_PORT_VCS: u32;
    /// VC lanes per port (the central router's include its deadlock-buffer lane).
    fn vcs(&self) -> u32;
    /// Credit return delay.
    fn credit_delay(&self) -> u32;
    /// Input buffer depth per VC (the credits an upstream sender starts with).
    fn buffer_depth(&self) -> u32;
    /// Cycles from a flit's grant at an output to its entry into the channel (added to
    /// the channel latency of every router output).
    fn output_delay(&self) -> u32;
    /// Credits a sender into one of these routers starts with.
    fn initial_credits(&self) -> u32 {
        self.buffer_depth()
    }
    /// Flow control at injection (the NIC claims an injection VC like a router would).
    fn flow_control(&self) -> FlowControl;
    /// The longest a head spends in a router's pipeline at zero load.
    fn pipeline(&self) -> u32;
    /// Cycles from a head's arrival at its source switch to its route computation.
    fn routing_delay(&self) -> u32 {
        0
    }
    /// The checks across fields and against the network; `path` is "router".
    fn validate(&self, cx: &Validation<'_>) -> Result<()>;
    /// Refuse a routing function these routers cannot run, naming the field to change.
    fn accepts(&self, routing: &RoutingConfig) -> Result<()>;
    /// The routers this config describes, for the network of `b`.
    fn build(&self, b: &Build<'_>) -> Routers;
}

/// Refusal of adaptive routing by a family other than the central router's.
pub(super) fn no_adaptive(routing: &RoutingConfig) -> Result<()> {
    if let RoutingConfig::Adaptive { .. } = routing {
        return Err(crate::error::Error::config(
            "router.type",
            "adaptive routing needs the central-arbiter router; use router.type = \"central\"",
        ));
    }
    Ok(())
}

impl RouterConfig {
    /// VC lanes per port: the VCs, plus for the central router its deadlock-buffer lane.
    pub fn vcs(&self) -> u32 {
        each_config!(self, c => c.vcs())
    }

    /// Credit return delay.
    pub fn credit_delay(&self) -> u32 {
        each_config!(self, c => c.credit_delay())
    }

    /// Input buffer depth per VC (the credits an upstream sender starts with).
    pub fn buffer_depth(&self) -> u32 {
        each_config!(self, c => c.buffer_depth())
    }

    /// Cycles from a flit's grant at an output to its entry into the channel.
    pub fn output_delay(&self) -> u32 {
        each_config!(self, c => c.output_delay())
    }

    /// Credits a sender into one of these routers starts with: the buffer depth, or with
    /// STOP/GO ([`crate::flow`]) the count that means GO.
    pub fn initial_credits(&self) -> u32 {
        each_config!(self, c => c.initial_credits())
    }

    /// Flow control at injection.
    pub fn flow_control(&self) -> FlowControl {
        each_config!(self, c => c.flow_control())
    }

    /// The longest a head spends in a router's pipeline at zero load.
    pub fn pipeline(&self) -> u32 {
        each_config!(self, c => c.pipeline())
    }

    /// Cycles from a head's arrival at its source switch to its route computation.
    pub fn routing_delay(&self) -> u32 {
        each_config!(self, c => c.routing_delay())
    }

    /// The family's checks, its routing functions, and its limit on input VCs per
    /// router.
    pub fn validate(&self, cx: &Validation<'_>, routing: &RoutingConfig) -> Result<()> {
        fn one<C: FamilyConfig>(c: &C, cx: &Validation<'_>, routing: &RoutingConfig) -> Result<()> {
            c.validate(cx)?;
            c.accepts(routing)?;
            let (ports, vcs, most) = (cx.topology.ports, c.vcs(), C::MAX_PORT_VCS);
            if ports * vcs > most {
                return Err(crate::error::Error::config(
                    "router.vcs",
                    format!(
                        "{vcs} VCs on routers with {ports} ports is {} input VCs per router; {} routers support at most {most} (ports x vcs): use fewer VCs, or routers with fewer ports (a lower concentration, fewer dimensions, a smaller crossbar, or fewer group_routers or global_ports on a dragonfly, smaller or fewer dimensions on a HyperX){}",
                        ports * vcs,
                        C::KIND,
                        if most < super::iq::MAX_PORT_VCS { ", or router.type = \"input_queued\" (up to 128)" } else { "" }
                    ),
                ));
            }
            Ok(())
        }
        each_config!(self, c => one(c, cx, routing))
    }

    /// The routers this config describes, for the network of `b`.
    pub fn build(&self, b: &Build<'_>) -> Routers {
        each_config!(self, c => c.build(b))
    }
}
