//! The two wires of a link: fixed-capacity FIFO delay lines. An entry carries its
//! arrival cycle and is taken once that cycle is reached, so a receiver that is not
//! stepped in some cycles (an idle link) takes late entries in order when it next runs.

use crate::link::Flit;

/// What a frame on the data lanes is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum FrameKind {
    /// A data packet.
    #[default]
    Data,
    /// The special short packet acknowledging the receiver's "error found" bit.
    ErrorAck,
}

/// A flit on the data lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WireFlit {
    /// Arrival cycle at the receiver.
    pub arrive: u64,
    /// Packet id, flit index, last index (for an error-ack frame, `pid` is unused).
    pub flit: Flit,
    /// The packet's link sequence number (0..16).
    pub seq: u8,
    /// Data or error-ack.
    pub kind: FrameKind,
    /// Hit by an error on the wire (the receiver finds out at the tail's CRC).
    pub corrupted: bool,
    /// Position of the packet in the transmitter's stream (simulation-only bookkeeping:
    /// the hardware does not carry it; used to report stranded packets and to check that
    /// a sequence number never aliases).
    pub index: u64,
}

/// A control packet on the control lane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CtrlPacket {
    /// Arrival cycle at the transmitter (complete, CRC checked).
    pub arrive: u64,
    /// Sequence number of the last packet that arrived with a good CRC.
    pub last_good: u8,
    /// The "error found" bit.
    pub error: bool,
    /// Lost or corrupted (its CRC fails at the transmitter, which ignores it).
    pub corrupted: bool,
}

/// Something with an arrival cycle.
pub(crate) trait Timed: Copy + Default {
    fn arrive(&self) -> u64;
}

impl Timed for WireFlit {
    #[inline]
    fn arrive(&self) -> u64 {
        self.arrive
    }
}

impl Timed for CtrlPacket {
    #[inline]
    fn arrive(&self) -> u64 {
        self.arrive
    }
}

/// A FIFO ring of fixed capacity (allocated once).
#[derive(Clone, Debug)]
pub(crate) struct Fifo<T> {
    slots: Box<[T]>,
    head: usize,
    len: usize,
}

impl<T: Copy + Default> Fifo<T> {
    /// Room for `cap >= 1` entries.
    pub fn new(cap: usize) -> Self {
        Fifo { slots: vec![T::default(); cap.max(1)].into_boxed_slice(), head: 0, len: 0 }
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline]
    pub fn is_full(&self) -> bool {
        self.len == self.slots.len()
    }
    /// Append; `false` (and nothing stored) when full.
    #[inline]
    pub fn push(&mut self, v: T) -> bool {
        if self.is_full() {
            return false;
        }
        let mut i = self.head + self.len;
        if i >= self.slots.len() {
            i -= self.slots.len();
        }
        self.slots[i] = v;
        self.len += 1;
        true
    }
    /// The oldest entry.
    #[inline]
    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.slots[self.head])
    }
    /// Remove the oldest entry.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.slots[self.head];
        self.head += 1;
        if self.head == self.slots.len() {
            self.head = 0;
        }
        self.len -= 1;
        Some(v)
    }
    /// Drop everything.
    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
    }
}

impl<T: Timed> Fifo<T> {
    /// Remove the oldest entry if it has arrived by `now`.
    #[inline]
    pub fn pop_due(&mut self, now: u64) -> Option<T> {
        match self.front() {
            Some(v) if v.arrive() <= now => self.pop(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_wraps_and_refuses_when_full() {
        let mut f: Fifo<CtrlPacket> = Fifo::new(3);
        for round in 0..5u64 {
            for k in 0..3 {
                assert!(f.push(CtrlPacket { arrive: round * 10 + k, ..CtrlPacket::default() }));
            }
            assert!(!f.push(CtrlPacket::default()));
            assert_eq!(f.pop_due(round * 10).map(|c| c.arrive), Some(round * 10));
            assert_eq!(f.pop_due(round * 10), None);
            assert_eq!(f.pop_due(round * 10 + 5).map(|c| c.arrive), Some(round * 10 + 1));
            assert_eq!(f.pop().map(|c| c.arrive), Some(round * 10 + 2));
            assert!(f.is_empty());
        }
    }
}
