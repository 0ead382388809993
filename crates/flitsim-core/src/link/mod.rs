//! Channels: one-way links with a latency in cycles carrying one flit per cycle, and
//! the reverse credit wires. Every channel is a pair of fixed-capacity delay lines
//! ([`RingPool`]): a sender puts an entry, stamped with its arrival cycle, into the slot
//! of that cycle; the receiver takes the entry of the current cycle. Because every
//! latency is at least one cycle, what a component sends in cycle `t` is never visible
//! to anyone in cycle `t`: the two-phase rule that makes the visiting order irrelevant.

pub mod errors;
pub mod retry;
pub mod ring;
pub mod units;

pub use ring::{Ring, RingPool, Slot};

/// A flit record: which packet and which flit of it. Head = `idx == 0`, tail = `idx == last`.
/// The header fields a router reads (destination, ...) are in the packet, in the arena.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Flit {
    /// Packet id (index into the packet arena).
    pub pid: u32,
    /// Flit index within the packet.
    pub idx: u16,
    /// Index of the packet's tail flit (packet size - 1).
    pub last: u16,
}

impl Flit {
    /// Head flit?
    #[inline]
    pub fn is_head(self) -> bool {
        self.idx == 0
    }
    /// Tail flit?
    #[inline]
    pub fn is_tail(self) -> bool {
        self.idx == self.last
    }
    /// Packet size in flits.
    #[inline]
    pub fn size(self) -> u32 {
        self.last as u32 + 1
    }
}

/// A flit in flight on a channel (16 bytes: a 4-slot delay line is one cache line).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InFlight {
    /// Cycle at which it arrives at the receiver, modulo 2^32 (see [`InFlight::arrived`]).
    pub arrive: u32,
    /// The flit.
    pub flit: Flit,
    /// The VC it will occupy at the receiver.
    pub vc: u8,
}

impl InFlight {
    /// A flit arriving at cycle `arrive` in `vc`.
    #[inline]
    pub fn new(arrive: u64, flit: Flit, vc: u8) -> Self {
        InFlight { arrive: arrive as u32, flit, vc }
    }
    /// Has it arrived by cycle `now`? Compares time stamps modulo 2^32, which is exact
    /// because entries are taken within a few thousand cycles of their arrival.
    #[inline]
    pub fn arrived(&self, now: u64) -> bool {
        (now as u32).wrapping_sub(self.arrive) as i32 >= 0
    }
}

impl Slot for InFlight {
    const EMPTY: Self = InFlight { arrive: 0, flit: Flit { pid: 0, idx: 0, last: 0 }, vc: u8::MAX };
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.vc == u8::MAX
    }
    #[inline]
    fn arrives(&self, now: u64) -> bool {
        self.arrive == now as u32
    }
}

/// A credit in flight: arrival cycle modulo 2^24 in the upper 24 bits, VC in the low 8.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CreditWire(pub u32);

impl CreditWire {
    /// Pack.
    #[inline]
    pub fn new(arrive: u64, vc: u32) -> Self {
        debug_assert!(vc < 256);
        CreditWire((arrive as u32) << 8 | vc)
    }
    /// Has it arrived by cycle `now`? Compares time stamps modulo 2^24, exact because
    /// credits are taken within a few hundred cycles of their arrival.
    #[inline]
    pub fn arrived(self, now: u64) -> bool {
        ((now as u32) << 8).wrapping_sub(self.0 & !0xff) as i32 >= 0
    }
    /// VC the credit returns.
    #[inline]
    pub fn vc(self) -> u32 {
        self.0 & 0xff
    }
}

impl Slot for CreditWire {
    const EMPTY: Self = CreditWire(u32::MAX);
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.0 == u32::MAX
    }
    #[inline]
    fn arrives(&self, now: u64) -> bool {
        self.0 & !0xff == (now as u32) << 8
    }
}

/// Who sits at one end of a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// A router port.
    Router {
        /// Router id.
        router: u32,
        /// Port on it.
        port: u32,
    },
    /// An endpoint (NIC).
    Endpoint(u32),
    /// Nothing (an unconnected mesh-edge port).
    None,
}

/// All channels of a network: flit delay lines forward, credit delay lines backward.
///
/// Channel ids: `router * ports + port` for the channel leaving a router output port
/// (router-to-router or ejection), then `routers * ports + node` for the injection
/// channel of each endpoint.
#[derive(Clone, Debug)]
pub struct Channels {
    /// Forward flits per channel.
    pub flits: RingPool<InFlight>,
    /// Backward credits per channel.
    pub credits: RingPool<CreditWire>,
    /// Latency (cycles) of each channel's wire.
    pub latency: Vec<u32>,
    /// Sending end.
    pub src: Vec<End>,
    /// Receiving end.
    pub dst: Vec<End>,
}

impl Channels {
    /// Number of channel ids.
    pub fn len(&self) -> usize {
        self.latency.len()
    }
    /// No channels?
    pub fn is_empty(&self) -> bool {
        self.latency.is_empty()
    }
    /// Whether channel `c` connects anything.
    #[inline]
    pub fn connected(&self, c: usize) -> bool {
        self.dst[c] != End::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_stamps_compare_across_wraparound() {
        let f = Flit::default();
        for base in [0u64, 1000, (1 << 24) - 3, (1 << 32) - 3, 5 << 32] {
            for d in 0..8u64 {
                let e = InFlight::new(base + d, f, 1);
                let w = CreditWire::new(base + d, 3);
                for now in base..base + 16 {
                    assert_eq!(e.arrived(now), now >= base + d, "flit {base} {d} {now}");
                    assert_eq!(w.arrived(now), now >= base + d, "credit {base} {d} {now}");
                }
                assert_eq!(w.vc(), 3);
            }
        }
    }
}
