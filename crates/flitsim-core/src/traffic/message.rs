//! Messages: what an application hands the NIC, segmented into packets.
//!
//! With `[traffic.message]` the injection process creates *messages* of `bytes` payload
//! bytes instead of single packets. The NIC cuts each into packets of at most `mtu`
//! payload bytes (the last may be shorter), each `ceil(payload / channel.flit_bytes)`
//! flits plus `header_flits` of header and trailer, and queues all of them at once: they
//! share the message's creation time, go to the same destination, and are numbered
//! consecutively in the source's packet sequence, so packet `seq` belongs to message
//! `seq / packets`. The receiver reassembles ([`crate::endpoint::reassembly`]): a message
//! is complete when all its packets arrived, in any order.
//!
//! Examples: the SiCortex fabric (sec. 4.1: packets of 2 to 18 payload words of 8 bytes
//! plus header and trailer: `flit_bytes = 8`, `mtu = 144`, `header_flits = 2`) and the
//! Myrinet ping-ping of the eBB benchmark (50 messages of 1 MiB in 4 KB packets:
//! `bytes = 1048576`, `mtu = 4096`, `per_source = 50`).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::traffic::MAX_PACKET_FLITS;

/// Most packets in one message (the whole message is queued at its source at once).
pub const MAX_MESSAGE_PACKETS: u64 = 1 << 20;

/// Config table `[traffic.message]`: message-level traffic. Needs `channel.flit_bytes`;
/// replaces `traffic.packet_size` and `traffic.packets_per_source`.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageConfig {
    /// Payload bytes per message, >= 1. Required.
    pub bytes: u64,
    /// Most payload bytes per packet (the MTU), >= 1; a message of `bytes` is
    /// `ceil(bytes / mtu)` packets. Default: one packet per message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u64>,
    /// Flits of header and trailer added to every packet (SiCortex: 2).
    #[serde(default)]
    pub header_flits: u32,
    /// Most messages each source creates over the run, >= 1 (the eBB ping-ping: 50).
    /// Default: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_source: Option<u64>,
    /// Exchange: each node sends its message k + 1 only once it has received k whole
    /// messages, as a loop of MPI_Sendrecv or a ping-ping does (the eBB benchmark), so a
    /// pair of nodes advances at the pace of its slower direction. Needs a pattern that
    /// pairs the nodes (each node's destination sends back to it: `random_bisection`,
    /// `bridge`, a pairing `permutation`). Default false: each direction streams on its own.
    #[schemars(!skip_serializing_if)]
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exchange: bool,
}

/// A validated message shape: how many packets, and how big each is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    /// Payload bytes.
    pub bytes: u64,
    /// Packets per message.
    pub packets: u32,
    /// Flits of every packet but the last.
    pub full_flits: u32,
    /// Flits of the last packet.
    pub last_flits: u32,
    /// Messages per source (`u64::MAX`: no limit).
    pub per_source: u64,
    /// Message k + 1 waits for k messages received ([`MessageConfig::exchange`]).
    pub exchange: bool,
}

impl Message {
    /// Validate `cfg` with `flit_bytes` bytes per flit (`channel.flit_bytes`, needed).
    pub fn build(cfg: &MessageConfig, flit_bytes: Option<u32>, path: &str) -> Result<Message> {
        let Some(fb) = flit_bytes else {
            return Err(Error::config(
                "channel.flit_bytes",
                format!("`{path}` sizes messages in bytes, so the channel needs its flit size: set `channel.flit_bytes` (e.g. 8)"),
            ));
        };
        if cfg.bytes == 0 {
            return Err(Error::config(format!("{path}.bytes"), "a message of 0 bytes carries nothing; give at least 1 byte"));
        }
        let mtu = cfg.mtu.unwrap_or(cfg.bytes);
        if mtu == 0 {
            return Err(Error::config(
                format!("{path}.mtu"),
                "an MTU of 0 bytes fits no payload; give at least 1 byte, or remove it for one packet per message",
            ));
        }
        if cfg.per_source == Some(0) {
            return Err(Error::config(
                format!("{path}.per_source"),
                "per_source 0 would create no messages; give at least 1, or remove it for no limit",
            ));
        }
        let packets = cfg.bytes.div_ceil(mtu);
        if packets > MAX_MESSAGE_PACKETS {
            return Err(Error::config(
                format!("{path}.mtu"),
                format!("{} bytes in packets of {mtu} bytes is {packets} packets per message, above the limit of {MAX_MESSAGE_PACKETS}; raise the MTU or send smaller messages", cfg.bytes),
            ));
        }
        let flits = |payload: u64| payload.div_ceil(fb as u64) + cfg.header_flits as u64;
        let full = flits(mtu.min(cfg.bytes));
        let last = flits(cfg.bytes - (packets - 1) * mtu);
        if full > MAX_PACKET_FLITS as u64 {
            return Err(Error::config(
                format!("{path}.mtu"),
                format!("packets of {mtu} bytes are {full} flits of {fb} bytes, above the largest packet of {MAX_PACKET_FLITS} flits; lower the MTU or raise `channel.flit_bytes`"),
            ));
        }
        Ok(Message {
            bytes: cfg.bytes,
            packets: packets as u32,
            full_flits: full as u32,
            last_flits: last as u32,
            per_source: cfg.per_source.unwrap_or(u64::MAX),
            exchange: cfg.exchange,
        })
    }

    /// Flits of packet `k` (0-based) of a message.
    #[inline]
    pub fn flits_of(&self, k: u32) -> u32 {
        if k + 1 == self.packets {
            self.last_flits
        } else {
            self.full_flits
        }
    }

    /// Flits of a whole message.
    pub fn flits(&self) -> u64 {
        (self.packets as u64 - 1) * self.full_flits as u64 + self.last_flits as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(bytes: u64, mtu: Option<u64>, header: u32) -> MessageConfig {
        MessageConfig { bytes, mtu, header_flits: header, per_source: None, exchange: false }
    }

    #[test]
    fn segmentation_by_hand() {
        // 1 MiB in 4 KiB packets of 64-byte flits: 256 packets of 64 flits.
        let m = Message::build(&cfg(1 << 20, Some(4096), 0), Some(64), "m").unwrap();
        assert_eq!((m.packets, m.full_flits, m.last_flits, m.flits()), (256, 64, 64, 16384));
        // 1000 bytes, MTU 144 (18 words of 8 bytes), header + trailer: 6 full packets of
        // 18 + 2 flits and a last one of 136 bytes = 17 words + 2.
        let m = Message::build(&cfg(1000, Some(144), 2), Some(8), "m").unwrap();
        assert_eq!((m.packets, m.full_flits, m.last_flits), (7, 20, 19));
        assert_eq!((m.flits_of(0), m.flits_of(5), m.flits_of(6)), (20, 20, 19));
        assert_eq!(m.flits(), 6 * 20 + 19);
        // Payload not a multiple of the flit: rounded up per packet.
        let m = Message::build(&cfg(10, Some(3), 0), Some(2), "m").unwrap();
        assert_eq!((m.packets, m.full_flits, m.last_flits), (4, 2, 1));
        // No MTU: one packet.
        let m = Message::build(&cfg(100, None, 1), Some(8), "m").unwrap();
        assert_eq!((m.packets, m.full_flits, m.last_flits), (1, 14, 14));
    }

    #[test]
    fn errors_name_the_field() {
        let field = |c: MessageConfig, fb: Option<u32>| Message::build(&c, fb, "traffic.message").unwrap_err().to_string();
        assert!(field(cfg(8, None, 0), None).contains("channel.flit_bytes"));
        assert!(field(cfg(0, None, 0), Some(8)).contains("traffic.message.bytes"));
        assert!(field(cfg(8, Some(0), 0), Some(8)).contains("traffic.message.mtu"));
        assert!(field(cfg(1 << 40, Some(1), 0), Some(8)).contains("traffic.message.mtu"));
        assert!(field(cfg(1 << 30, Some(1 << 30), 0), Some(1)).contains("largest packet"));
        assert!(field(MessageConfig { per_source: Some(0), ..cfg(8, None, 0) }, Some(8)).contains("per_source"));
    }
}
