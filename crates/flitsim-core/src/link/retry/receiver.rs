//! The receiving end of a link (at the next switch's input port): the CRC check at the
//! tail, the last-good sequence number, the "error found" state, poisoned packets
//! (paper sections 3.2, 3.3, 4.3).

use super::wire::{Fifo, FrameKind, WireFlit};
use super::{Arriving, Delivered, RetryStats, SEQ_MASK};

/// The frame whose head has arrived and whose tail has not.
#[derive(Clone, Copy, Debug)]
struct Frame {
    id: u32,
    flits: u16,
    seq: u8,
    kind: FrameKind,
    index: u64,
    received: u16,
    /// Some flit arrived corrupted: the CRC at the tail will fail.
    corrupted: bool,
    /// The receiver is taking this packet in (a data packet, no error pending, room for
    /// its delivery): only such a packet can have its head forwarded early.
    accepting: bool,
    /// The engine forwarded its head before the tail arrived.
    early: bool,
}

/// The receiver.
#[derive(Clone, Debug)]
pub(crate) struct Receiver {
    /// Sequence number of the last packet that arrived with a good CRC.
    pub last_good: u8,
    /// The "error found" bit: data packets are dropped until the error-ack arrives.
    pub error: bool,
    /// Packets accepted so far (= stream position of the next one expected).
    pub accepted: u64,
    frame: Option<Frame>,
    /// Deliveries (good and poisoned) not yet taken by the engine.
    pub out: Fifo<Delivered>,
    /// Also report packets taken in whose CRC failed with no head forwarded
    /// ([`Delivered::dropped`]), for a switch that stores arriving flits as they come.
    pub report_drops: bool,
}

impl Receiver {
    pub fn new(out_capacity: usize) -> Self {
        Receiver { last_good: SEQ_MASK, error: false, accepted: 0, frame: None, out: Fifo::new(out_capacity), report_drops: false }
    }

    /// No error pending and no frame half received.
    #[inline]
    pub fn is_idle(&self) -> bool {
        !self.error && self.frame.is_none()
    }

    /// The data packet being received and taken in, if any.
    pub fn arriving(&self) -> Option<Arriving> {
        self.frame.filter(|f| f.accepting).map(|f| Arriving { id: f.id, flits: f.flits, received: f.received })
    }

    /// Mark the arriving packet's head as forwarded early; `false` if there is none.
    pub fn mark_early(&mut self) -> bool {
        match &mut self.frame {
            Some(f) if f.accepting => {
                f.early = true;
                true
            }
            _ => false,
        }
    }

    /// A flit arrives in cycle `now`.
    pub fn on_flit(&mut self, w: WireFlit, now: u64, stats: &mut RetryStats) {
        if w.flit.idx == 0 {
            debug_assert!(self.frame.is_none(), "a head inside a frame");
            self.frame = Some(Frame {
                id: w.flit.pid,
                flits: w.flit.last + 1,
                seq: w.seq,
                kind: w.kind,
                index: w.index,
                received: 0,
                corrupted: false,
                accepting: w.kind == FrameKind::Data && !self.error && !self.out.is_full(),
                early: false,
            });
        }
        let Some(f) = &mut self.frame else {
            debug_assert!(false, "a body flit without a head");
            return;
        };
        f.corrupted |= w.corrupted;
        f.received += 1;
        if w.flit.is_tail() {
            let f = *f;
            self.frame = None;
            self.finish(f, now, stats);
        }
    }

    /// A frame's tail has arrived: check its CRC.
    fn finish(&mut self, f: Frame, now: u64, stats: &mut RetryStats) {
        if f.kind == FrameKind::ErrorAck {
            if f.corrupted {
                stats.error_acks_corrupted += 1;
            } else if self.error {
                self.error = false;
                stats.error_acks_received += 1;
            }
            return;
        }
        if self.error {
            stats.rx_dropped += 1;
            return;
        }
        let expected = self.last_good.wrapping_add(1) & SEQ_MASK;
        if f.corrupted || f.seq != expected || !f.accepting {
            self.error = true;
            if f.corrupted {
                stats.crc_errors += 1;
            } else if f.seq != expected {
                stats.sequence_errors += 1;
            } else {
                stats.rx_overflow += 1;
            }
            if f.early {
                self.poison(f, now, stats);
            } else {
                self.drop_taken(f, now);
            }
            return;
        }
        if f.index != self.accepted {
            // The sequence number matched but the packet is not the next one: the 4-bit
            // number aliased. Cannot happen with a window of at most 15; counted for tests.
            stats.aliased += 1;
        }
        self.last_good = f.seq;
        self.accepted += 1;
        stats.delivered += 1;
        let pushed = self.out.push(Delivered { id: f.id, flits: f.flits, poisoned: false, dropped: false, at: now });
        debug_assert!(pushed, "room was checked at the head");
    }

    /// A packet taken in (visible through [`Receiver::arriving`]) failed with no head
    /// forwarded: reported only with `report_drops`.
    fn drop_taken(&mut self, f: Frame, now: u64) {
        if self.report_drops && f.accepting {
            let pushed = self.out.push(Delivered { id: f.id, flits: f.flits, poisoned: false, dropped: true, at: now });
            debug_assert!(pushed, "room was checked at the head");
        }
    }

    fn poison(&mut self, f: Frame, now: u64, stats: &mut RetryStats) {
        stats.poisoned += 1;
        let pushed = self.out.push(Delivered { id: f.id, flits: f.flits, poisoned: true, dropped: false, at: now });
        debug_assert!(pushed, "room was checked at the head");
    }

    /// The link failed in cycle `now`: a half-received packet whose head went on is
    /// poisoned downstream.
    pub fn fail(&mut self, now: u64, stats: &mut RetryStats) {
        if let Some(f) = self.frame.take() {
            if f.early {
                self.poison(f, now, stats);
            } else {
                self.drop_taken(f, now);
            }
        }
    }
}
