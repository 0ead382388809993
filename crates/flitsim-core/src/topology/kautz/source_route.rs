//! The routing string a SiCortex packet header carries (paper section 4.1: "all packets
//! are source routed"; "as a packet arrives on the input port of a switch, the low two
//! bits of the routing string are shifted off and used to direct the message to the
//! appropriate output port").
//!
//! Layout: one symbol per switch the packet passes through, the source switch's in the
//! lowest bits. A symbol below `d` is a fabric out-port; the symbol `d` sends the packet to
//! the node's own DMA port (the fourth port of the SC5832's 4x4 switch), which ends the
//! route. A route of `h` hops therefore uses `h + 1` symbols of `ceil(log2(d + 1))` bits:
//! two bits for `d = 2` or `3`, so the SC5832's 32-bit string holds routes of up to 15
//! hops. This model keeps 64 bits.

use crate::error::{Error, Result};

/// What a switch does with the symbol it shifts off the routing string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteStep {
    /// Forward on this fabric out-port.
    Out(u8),
    /// Deliver to this node (the DMA port): the packet has arrived.
    Eject,
}

/// A source-route string: packed out-port symbols, shifted off one per switch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceRoute {
    bits: u64,
    /// Symbols left, counting the final eject symbol.
    symbols: u8,
    bits_per_hop: u8,
    /// The eject symbol: the degree `d`.
    eject: u8,
}

impl SourceRoute {
    /// Pack `ports` (the out-port at each hop, source first) for a graph of degree
    /// `degree`, followed by the eject symbol. Errors name the offending hop (`route[i]`)
    /// or say that the route does not fit in 64 bits.
    pub fn encode(ports: &[u8], degree: u32) -> Result<SourceRoute> {
        if !(2..=255).contains(&degree) {
            return Err(Error::config("route.degree", format!("degree {degree} is not supported; use 2..=255")));
        }
        let bits_per_hop = 32 - degree.leading_zeros();
        let symbols = ports.len() + 1;
        if symbols * bits_per_hop as usize > 64 {
            return Err(Error::config(
                "route",
                format!(
                    "{} hops need {} bits at {bits_per_hop} bits per switch; the routing \
                     string holds 64",
                    ports.len(),
                    symbols * bits_per_hop as usize
                ),
            ));
        }
        let mut bits = u64::from(degree);
        for (hop, &p) in ports.iter().enumerate().rev() {
            if u32::from(p) >= degree {
                return Err(Error::config(format!("route[{hop}]"), format!("out-port {p} does not exist; ports are 0..{degree}")));
            }
            bits = (bits << bits_per_hop) | u64::from(p);
        }
        Ok(SourceRoute { bits, symbols: symbols as u8, bits_per_hop: bits_per_hop as u8, eject: degree as u8 })
    }

    /// The packed string as the header carries it (unused high bits are zero).
    pub fn bits(&self) -> u64 {
        self.bits
    }

    /// Bits per symbol: `ceil(log2(d + 1))`.
    pub fn bits_per_hop(&self) -> u32 {
        u32::from(self.bits_per_hop)
    }

    /// Fabric hops still to take (symbols left, less the eject symbol).
    pub fn hops(&self) -> u32 {
        u32::from(self.symbols.saturating_sub(1))
    }

    /// Bits of the string still in use; the SC5832 header holds 32.
    pub fn width(&self) -> u32 {
        u32::from(self.symbols) * self.bits_per_hop()
    }

    /// Shift off the low symbol, as a switch does on arrival; `None` once the eject
    /// symbol has been taken.
    pub fn next_step(&mut self) -> Option<RouteStep> {
        if self.symbols == 0 {
            return None;
        }
        let mask = (1u64 << self.bits_per_hop) - 1;
        let symbol = (self.bits & mask) as u8;
        self.bits >>= self.bits_per_hop;
        self.symbols -= 1;
        if symbol == self.eject {
            self.symbols = 0;
            Some(RouteStep::Eject)
        } else {
            Some(RouteStep::Out(symbol))
        }
    }

    /// The out-ports still to take, in order (without consuming the string).
    pub fn ports(&self) -> Vec<u8> {
        let mut copy = *self;
        std::iter::from_fn(|| match copy.next_step() {
            Some(RouteStep::Out(p)) => Some(p),
            _ => None,
        })
        .collect()
    }
}
