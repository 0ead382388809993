//! The transmitting end of a link (at an output port): sequence numbers, the replay
//! buffer, the error-ack packet and go-back replay (paper sections 3.2, 4.3).

use super::wire::{CtrlPacket, FrameKind, WireFlit};
use super::{PacketRef, PushError, RetryStats, SEQ_MASK};
use crate::link::Flit;

/// One replay-buffer entry: a packet sent (or about to be) and not yet acknowledged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Entry {
    pub pkt: PacketRef,
    pub seq: u8,
    /// Position in the link's packet stream (0, 1, 2, ...).
    pub index: u64,
}

/// Error-recovery state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TxState {
    /// Sending in order.
    Normal,
    /// A control packet with "error found" arrived: the error-ack packet is being sent
    /// (`ack_sent` flits of it so far) at the next packet boundary, then the replay;
    /// `goback`: the send position is still to be moved back to the oldest entry.
    Recover { ack_sent: u16, goback: bool },
    /// The error-ack has been sent; until a control packet without "error found"
    /// arrives, the bit is ignored up to `deadline` (one round trip after the ack's tail
    /// left) and answered with a new error-ack after it.
    Awaiting { deadline: u64 },
}

/// The transmitter.
#[derive(Clone, Debug)]
pub(crate) struct Transmitter {
    /// Replay buffer: a ring of `window` entries, oldest at `head`.
    buf: Box<[Entry]>,
    head: usize,
    len: usize,
    /// Offset (from the oldest entry) of the packet being sent or to be sent next; the
    /// entries before it have been sent completely since the last go-back.
    send_pos: usize,
    /// Flits of the packet at `send_pos` already sent (0: not started).
    flit_pos: u16,
    /// The packet at `send_pos` is being resent.
    resending: bool,
    /// Sequence number of the last packet acknowledged ("last good").
    acked_seq: u8,
    /// Stream position of the next packet pushed.
    next_index: u64,
    /// Stream position of the first packet never started.
    fresh: u64,
    pub state: TxState,
    ack_flits: u16,
    /// Data latency + control latency: the ack's tail is seen by the receiver `latency`
    /// cycles after it leaves, and what the receiver says then reaches us `ctrl_latency`
    /// cycles later.
    round_trip: u64,
}

impl Transmitter {
    pub fn new(window: usize, ack_flits: u16, round_trip: u64) -> Self {
        Transmitter {
            buf: vec![Entry::default(); window].into_boxed_slice(),
            head: 0,
            len: 0,
            send_pos: 0,
            flit_pos: 0,
            resending: false,
            acked_seq: SEQ_MASK,
            next_index: 0,
            fresh: 0,
            state: TxState::Normal,
            ack_flits,
            round_trip,
        }
    }

    /// Entries in the replay buffer (sent or queued, unacknowledged).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Entry `i` from the oldest.
    #[inline]
    pub fn entry(&self, i: usize) -> Entry {
        let mut k = self.head + i;
        if k >= self.buf.len() {
            k -= self.buf.len();
        }
        self.buf[k]
    }

    /// Packets in the buffer that have not started (in this pass).
    #[inline]
    pub fn unstarted(&self) -> usize {
        self.len - self.send_pos - (self.flit_pos > 0) as usize
    }

    /// Nothing to send and nothing outstanding.
    #[inline]
    pub fn is_idle(&self) -> bool {
        self.len == 0 && self.state == TxState::Normal
    }

    /// Room in the window, no whole packet waiting for the wire, not recovering.
    #[inline]
    pub fn can_accept(&self) -> bool {
        self.len < self.buf.len() && self.unstarted() == 0 && !matches!(self.state, TxState::Recover { .. })
    }

    pub fn push(&mut self, p: PacketRef, stats: &mut RetryStats) -> Result<(), PushError> {
        if p.flits == 0 {
            return Err(PushError::Empty);
        }
        if self.len == self.buf.len() {
            return Err(PushError::WindowFull);
        }
        if !self.can_accept() {
            return Err(PushError::Busy);
        }
        let seq = (self.acked_seq as usize + 1 + self.len) as u8 & SEQ_MASK;
        let mut k = self.head + self.len;
        if k >= self.buf.len() {
            k -= self.buf.len();
        }
        self.buf[k] = Entry { pkt: p, seq, index: self.next_index };
        self.next_index += 1;
        self.len += 1;
        stats.pushed += 1;
        stats.flits_pushed += p.flits as u64;
        Ok(())
    }

    /// A control packet arrives in cycle `now`.
    pub fn on_control(&mut self, c: CtrlPacket, now: u64, stats: &mut RetryStats) {
        if c.corrupted {
            stats.ctrl_lost += 1;
            return;
        }
        stats.ctrl_received += 1;
        // A change of the last-good field acknowledges the packets up to it.
        let k = (c.last_good.wrapping_sub(self.acked_seq) & SEQ_MASK) as usize;
        if k > self.send_pos {
            // Acknowledges a packet not (completely) sent: impossible in this protocol;
            // ignored like a corrupted packet, and counted so tests can see it never happens.
            stats.ctrl_inconsistent += 1;
            return;
        }
        if k > 0 {
            self.head = (self.head + k) % self.buf.len();
            self.len -= k;
            self.send_pos -= k;
            self.acked_seq = c.last_good;
            stats.acked += k as u64;
        }
        match self.state {
            TxState::Normal if c.error => self.recover(stats),
            TxState::Awaiting { .. } if !c.error => self.state = TxState::Normal,
            TxState::Awaiting { deadline } if now >= deadline => {
                stats.ack_timeouts += 1;
                self.recover(stats);
            }
            _ => {}
        }
    }

    fn recover(&mut self, stats: &mut RetryStats) {
        self.state = TxState::Recover { ack_sent: 0, goback: true };
        stats.replays += 1;
    }

    /// The flit to send in cycle `now`, if any (`arrive` and `corrupted` are the
    /// caller's to fill in).
    pub fn send(&mut self, now: u64, stats: &mut RetryStats) -> Option<WireFlit> {
        if self.flit_pos == 0 {
            if let TxState::Recover { ack_sent, goback } = self.state {
                // A packet boundary: go back, then the error-ack frame.
                if goback {
                    self.send_pos = 0;
                }
                let last = self.ack_flits - 1;
                let f = WireFlit {
                    flit: Flit { pid: u32::MAX, idx: ack_sent, last },
                    kind: FrameKind::ErrorAck,
                    seq: 0,
                    ..WireFlit::default()
                };
                self.state = if ack_sent == last {
                    TxState::Awaiting { deadline: now + self.round_trip }
                } else {
                    TxState::Recover { ack_sent: ack_sent + 1, goback: false }
                };
                stats.ack_flits += 1;
                return Some(f);
            }
            if self.send_pos == self.len {
                return None;
            }
            let e = self.entry(self.send_pos);
            self.resending = e.index < self.fresh;
            if self.resending {
                stats.packets_replayed += 1;
            } else {
                self.fresh = e.index + 1;
                stats.sent += 1;
            }
        }
        let e = self.entry(self.send_pos);
        let f = WireFlit {
            flit: Flit { pid: e.pkt.id, idx: self.flit_pos, last: e.pkt.flits - 1 },
            seq: e.seq,
            kind: FrameKind::Data,
            index: e.index,
            ..WireFlit::default()
        };
        if self.resending {
            stats.flits_replayed += 1;
        } else {
            stats.flits_original += 1;
        }
        self.flit_pos += 1;
        if self.flit_pos == e.pkt.flits {
            self.flit_pos = 0;
            self.send_pos += 1;
        }
        Some(f)
    }

    /// Empty the replay buffer (the link failed): the entries, oldest first.
    pub fn drain(&mut self) -> impl Iterator<Item = Entry> + '_ {
        let n = self.len;
        let (head, cap) = (self.head, self.buf.len());
        self.len = 0;
        self.send_pos = 0;
        self.flit_pos = 0;
        self.state = TxState::Normal;
        (0..n).map(move |i| self.buf[(head + i) % cap])
    }
}
