//! Flow control: how a packet claims buffer space downstream.
//!
//! Credit-based in both modes: an output VC holds one credit per free flit slot of the
//! downstream input buffer; a flit may leave only with a credit, and the downstream
//! router returns the credit (after the credit delay) when the flit leaves its buffer.
//! * **Wormhole**: a head flit may claim a free output VC with any number of credits;
//!   the packet's flits then advance one by one as credits allow, so a blocked packet
//!   spans several routers.
//! * **Virtual cut-through**: a head flit may claim a free output VC only when the
//!   downstream buffer has room for the whole packet, so a blocked packet always sits
//!   entirely in one buffer.
//!
//! **STOP/GO** (`router.stop_go`, Myrinet's link flow control, section 2.4 of the Clos
//! paper: "When this buffer becomes full, the hardware uses STOP/GO symbols to
//! back-pressure the previous hop, eventually stopping the sender NIC itself") replaces
//! the per-flit credits on wormhole links without VCs: the receiving router sends STOP
//! up the link when its input buffer reaches `stop` flits, and GO when it has drained to
//! `go`; the sender (a router or the NIC) sends while its last symbol says GO. The
//! buffer's slack above `stop` absorbs what is already under way when STOP is sent: the
//! flits the sender puts on the link before the symbol arrives plus those on the wire,
//! `flit delay + symbol delay - 1` ([`StopGo::slack`]). The symbols travel on the
//! credit wire (`router.credit_delay` cycles), as [`STOP`]- or [`GO`]-flagged entries.

use serde::{Deserialize, Serialize};

/// STOP/GO thresholds (`router.stop_go`), in flits of the input buffer.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StopGo {
    /// STOP is sent when the input buffer holds this many flits (>= 1).
    pub stop: u32,
    /// GO is sent, after a STOP, when the buffer has drained to this many (< stop).
    pub go: u32,
}

/// The flag of a STOP symbol in a credit wire's VC field.
pub const STOP: u32 = 0x80;
/// The flag of a GO symbol in a credit wire's VC field.
pub const GO: u32 = 0x40;

/// What a sender's credit count reads while its last symbol says GO (it is set again on
/// every GO, and sending counts it down as credits are; over 10^9 flits on one link
/// without a STOP in between would exhaust it).
pub const GO_CREDITS: u32 = 1 << 30;

/// A sender's credit count after credit-wire entry `vc_field` arrived with `credits`
/// before: a credit adds one, a STOP symbol stops it, a GO lets it send.
#[inline(always)]
pub fn on_credit_wire(credits: u32, vc_field: u32) -> u32 {
    if vc_field & STOP != 0 {
        0
    } else if vc_field & GO != 0 {
        GO_CREDITS
    } else {
        credits + 1
    }
}

impl StopGo {
    /// Flits that may still arrive after the buffer reaches `stop`, when the longest
    /// delay of a flit into the router (switch stages and wire) is `flit_delay` and a
    /// symbol takes `symbol_delay` cycles: the flits on the wire, and those the sender
    /// puts on it before the STOP reaches it (it acts on a symbol in the cycle it
    /// arrives, before it sends).
    pub fn slack(flit_delay: u32, symbol_delay: u32) -> u32 {
        // Saturating: validation calls this before every delay is range-checked.
        flit_delay.saturating_add(symbol_delay).saturating_sub(1)
    }
}

/// `router.flow_control`.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, Default, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowControl {
    /// Wormhole: advance flit by flit with credits.
    #[default]
    Wormhole,
    /// Virtual cut-through: claim a downstream VC only with room for the whole packet.
    VirtualCutThrough,
}

impl FlowControl {
    /// May a head flit of a `size`-flit packet claim an output VC that has `credits`?
    #[inline]
    pub fn may_claim(self, credits: u32, size: u32) -> bool {
        match self {
            FlowControl::Wormhole => true,
            FlowControl::VirtualCutThrough => credits >= size,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FlowControl::*;

    #[test]
    fn claim_rules() {
        assert!(Wormhole.may_claim(0, 8));
        assert!(!VirtualCutThrough.may_claim(7, 8));
        assert!(VirtualCutThrough.may_claim(8, 8));
    }
}
