//! `[router]` with `type = "crosspoint"`: the SiCortex fabric switch's parameters.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The crosspoint-buffered switch (SiCortex, section 4).
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CrosspointConfig {
    /// Virtual channels. Default 4 (floor(D/2) + 1 for the SC5832's D = 6).
    #[serde(default = "d_vcs")]
    #[schemars(range(min = 1, max = 16))]
    pub vcs: u32,
    /// Packets each crosspoint buffer XB_ij holds. Default 16 (the paper's).
    /// Every VC has one entry for its exclusive use, so at least `vcs`.
    #[serde(default = "d_xb_packets")]
    #[schemars(range(min = 1, max = 32))]
    pub xb_packets: u32,
    /// Flits per VC of the DMA engine's injection queue at the local input (the credits a
    /// node's endpoint starts with), at least the largest packet, at most 4,096.
    #[serde(default = "d_inject_depth")]
    #[schemars(range(min = 1, max = 4096))]
    pub inject_depth: u32,
    /// Cycles from a flit's arrival in a crosspoint buffer to its earliest departure on
    /// the output (the bypass path: "with minimal delay"), >= 0.
    #[serde(default = "one")]
    #[schemars(range(min = 0, max = 1024))]
    pub xb_delay: u32,
    /// Cycles a freed crosspoint entry takes to reach the transmitter upstream (the
    /// control packets' report), >= 1.
    #[serde(default = "two")]
    #[schemars(range(min = 1, max = 1024))]
    pub credit_delay: u32,
    /// Cycles through the output stage into the link, added to the link latency (>= 0).
    #[serde(default = "one")]
    #[schemars(range(min = 0, max = 1024))]
    pub output_delay: u32,
    /// With `[channel.retry]`: a switch may send a packet on over its next link as soon
    /// as its head is in and the output is free, before the tail's CRC is checked; a
    /// packet whose CRC then fails leaves a poisoned copy behind it (SiCortex section
    /// 3.2). `false`: store and forward at each link.
    #[serde(default = "yes")]
    pub cut_through: bool,
}

fn yes() -> bool {
    true
}

fn d_vcs() -> u32 {
    4
}
fn d_xb_packets() -> u32 {
    16
}
fn d_inject_depth() -> u32 {
    40
}
fn one() -> u32 {
    1
}
fn two() -> u32 {
    2
}

impl Default for CrosspointConfig {
    fn default() -> Self {
        CrosspointConfig { vcs: 4, xb_packets: 16, inject_depth: 40, xb_delay: 1, credit_delay: 2, output_delay: 1, cut_through: true }
    }
}

impl CrosspointConfig {
    /// Range checks; `path` is "router"; `ports` the router's ports; `max_packet` the
    /// workload's largest packet in flits.
    pub fn validate(&self, path: &str, ports: u32, max_packet: u32) -> Result<()> {
        if self.xb_packets < self.vcs {
            return Err(Error::config(
                format!("{path}.xb_packets"),
                format!(
                    "{} entries cannot give each of the {} VCs an entry of its own (section 4.2); use xb_packets >= {}",
                    self.xb_packets, self.vcs, self.vcs
                ),
            ));
        }
        if self.inject_depth < max_packet {
            return Err(Error::config(
                format!("{path}.inject_depth"),
                format!("{} flits cannot hold a {max_packet}-flit packet; use inject_depth >= {max_packet}", self.inject_depth),
            ));
        }
        if ports > 16 {
            return Err(Error::config(path, format!("{ports} ports per switch: the crosspoint switch supports at most 16 (degree 15)")));
        }
        Ok(())
    }
}
