//! `[router]` with `type = "central"`: the parameters of the central-arbiter wormhole
//! router.

use serde::{Deserialize, Serialize};

use crate::error::Result;

/// `[router]` with `type = "central"`. The defaults are the network of the self-tuned
/// congestion-control paper (section 5.1): 3 VCs of 8-flit edge buffers, one header
/// routed per cycle, one cycle each for routing, the crossbar and (in `[channel]`) the link.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CentralConfig {
    /// Virtual channels per physical channel, escape VCs included.
    /// Every port also has one more lane, the Disha deadlock buffer (used only with
    /// `routing.deadlock = "recovery"`).
    #[serde(default = "d_vcs")]
    #[schemars(range(min = 1, max = 15))]
    pub vcs: u32,
    /// Flits per VC edge buffer, and of the deadlock buffer.
    #[serde(default = "d_depth")]
    #[schemars(range(min = 1, max = 1024))]
    pub buffer_depth: u32,
    /// Cycles from a header's arrival until it may ask the central arbiter.
    /// Default 1 (the paper's one-cycle routing delay).
    #[serde(default = "d_one")]
    #[schemars(range(min = 0, max = 16))]
    pub routing_delay: u32,
    /// Headers the central arbiter routes per cycle. Default 1: the arbiter is
    /// a central resource one packet uses at a time, granted demand-slotted round-robin;
    /// a header granted the slot that finds no free output VC tries again later.
    #[serde(default = "d_one")]
    #[schemars(range(min = 1, max = 64))]
    pub headers_per_cycle: u32,
    /// Cycles a flit takes through the crossbar, before its link.
    #[serde(default = "d_one")]
    #[schemars(range(min = 1, max = 16))]
    pub crossbar_delay: u32,
    /// Cycles a credit takes to return upstream.
    #[serde(default = "d_one")]
    #[schemars(range(min = 1, max = 64))]
    pub credit_delay: u32,
    /// Disha: cycles the recovery token takes from one router to the next on its
    /// circuit of all routers.
    #[serde(default = "d_one")]
    #[schemars(range(min = 1, max = 64))]
    pub token_hop: u32,
}

fn d_vcs() -> u32 {
    3
}
fn d_depth() -> u32 {
    8
}
fn d_one() -> u32 {
    1
}

impl Default for CentralConfig {
    fn default() -> Self {
        CentralConfig { vcs: 3, buffer_depth: 8, routing_delay: 1, headers_per_cycle: 1, crossbar_delay: 1, credit_delay: 1, token_hop: 1 }
    }
}

impl CentralConfig {
    /// Range checks; `path` is "router"; `ports` per router.
    pub fn validate(&self, path: &str, ports: u32) -> Result<()> {
        // 64-bit request sets: the input lanes, and one bit for the metapacket requester.
        if ports * (self.vcs + 1) > 63 {
            return Err(crate::error::Error::config(
                format!("{path}.vcs"),
                match 63 / ports {
                    0 | 1 => format!("{ports} ports with even 1 VC and the deadlock-buffer lane are more than the 63 input lanes a central router supports; use at most 31 ports (a lower concentration)"),
                    lanes => format!("{} ports x ({} VCs + the deadlock-buffer lane) is more than the 63 input lanes a central router supports; use vcs <= {}", ports, self.vcs, lanes - 1),
                },
            ));
        }
        Ok(())
    }
}
