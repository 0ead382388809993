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

use serde::{Deserialize, Serialize};

/// `router.flow_control`.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
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
