//! Link-level retry: the SiCortex fabric's per-hop reliability protocol, after
//! Godiwala, Leonard and Reilly, *A Network Fabric for Scalable Multiprocessor Systems*
//! (SiCortex), sections 3.1-3.3 and 4.3, with the error models of [`super::errors`]
//! (sections 4.3 and 6.3).
//!
//! A [`RetryLink`] is one unidirectional link: a transmitter at an output port, a
//! receiver at the next switch's input port, the data lanes carrying one flit per cycle
//! forward with a latency, and the control lane carrying the receiver's control packets
//! back with its own latency. It is self-contained and engine-ready: built once, then
//! allocation-free, fixed-capacity rings only, no hashing.
//!
//! # The protocol as modelled
//! - **Sequence numbers** (section 3.2): the transmitter tags each packet with a
//!   sequence number 0..15, re-assigned at every transmitter, and does not reuse one until
//!   it has been acknowledged. The **replay buffer** (section 4.3) holds every packet
//!   sent and not acknowledged, indexed by sequence number, at most `window` of them.
//! - **CRC at the tail** (sections 3.1, 4.3): a flit hit by an error arrives corrupted;
//!   the receiver finds out when the packet's trailer (tail flit) arrives. A good packet
//!   with the expected sequence number is accepted in order ([`RetryLink::rx_pop`]) and
//!   becomes the receiver's "last known good sequence number received".
//! - **Control packets** (sections 3.1, 3.3, 4.3): sent "continuously" on the control
//!   lane, one every `ctrl_period` cycles, each carrying the last good sequence number
//!   and the "error found" bit as they are when it is sent, protected by its own CRC.
//!   A lost or corrupted control packet is ignored ("can be safely ignored").
//! - **Acknowledgement** (section 4.3): a change in the last-good field releases the
//!   replay-buffer entries up to it.
//! - **Errors** (section 4.3): on a CRC error the receiver sets "error found" in its
//!   subsequent control packets and drops every data packet until the transmitter
//!   acknowledges the bit with "a special short data packet" (the error-ack, `ack_flits`
//!   flits); then it clears the bit and resumes. The transmitter, on a control packet
//!   with the bit set, sends the error-ack and then "retransmits all packets in the
//!   replay buffer beginning with the packet *after* the last good sequence number" (go
//!   back). Replays use the data lanes again, flit by flit: their bandwidth is counted.
//! - **Poisoned packets** (section 3.2): with cut-through the receiving switch may have
//!   forwarded a packet's head before its CRC fails. The engine says so with
//!   [`RetryLink::rx_forward_early`] while the packet arrives; if its CRC then fails,
//!   [`RetryLink::rx_pop`] reports it with `poisoned = true` (the downstream copy is to be
//!   discarded by its final receiver, "ignored by message handling microcode"), and the
//!   replay later delivers the good copy, in order.
//! - **Permanent failure** (footnote 3, section 6.3): from `errors.fail_at` nothing
//!   crosses the link; the packets in the replay buffer are reported through
//!   [`RetryLink::tx_pop_stranded`] ("signaled to the operating system"), never dropped
//!   silently, each saying whether the receiver in fact got it (the acknowledgement may
//!   have been what was lost).
//!
//! # One cycle ([`RetryLink::step`])
//! In cycle `now` the engine may push a packet ([`RetryLink::tx_push`], when
//! [`RetryLink::tx_can_accept`]), then calls `step(now)`, which in order: (1) fails the
//! link if `now >= fail_at`; (2) lets the receiver take the flit arriving now and check a
//! tail; (3) lets the transmitter take the control packet arriving now; (4) has the
//! receiver send a control packet if `now` is a multiple of `ctrl_period`, arriving at
//! `now + ctrl_latency`; (5) has the transmitter send one flit (error-ack, replay or new,
//! in that priority at a packet boundary; a packet once started is finished), arriving
//! at `now + latency`. Then the engine takes deliveries ([`RetryLink::rx_pop`]) and may
//! mark the arriving packet's head as forwarded ([`RetryLink::rx_forward_early`]). With
//! no errors a packet of `n` flits pushed in cycle `t` onto an idle link is delivered in
//! cycle `t + latency + n - 1`, and a stream of packets keeps the wire busy every cycle
//! as long as the window covers the round trip. Everything sent in cycle `t` arrives no
//! earlier than `t + 1`, so the two ends obey the engine's two-phase rule; an idle link
//! ([`RetryLink::is_quiescent`]) does nothing in `step` and may be skipped.
//!
//! # Readings where the paper is silent (our choices)
//! - **Window.** "A sequence number is not reused until it has been acknowledged" would
//!   allow 16 packets outstanding, but acknowledgement is by a *change* of the 4-bit
//!   last-good field: with 16 outstanding, "all 16 received" and "none received" carry
//!   the same value, and a transmitter waiting for the change would wait forever. The
//!   window is therefore at most 15 (the default); 16 is rejected with that reason.
//! - **Control-packet timing.** A control packet is 15 bytes and the control lane is one
//!   of the nine lanes that each carry one byte per 200 MHz cycle (2 Gb/s, 8B/10B), so
//!   sending "continuously" is one packet every 15 cycles (`ctrl_period = 15`). Its
//!   content is the receiver's state in the cycle it is sent; it is usable by the
//!   transmitter `ctrl_latency` cycles later (default 16: 15 cycles to serialize, 1 of
//!   wire). Errors judge it in the cycle it is sent.
//! - **The error-ack** ("special short data packet") is `ack_flits = 2` flits (a header
//!   and a trailer with its CRC), carries no sequence number and is not buffered for
//!   replay. One that arrives corrupted is not recognized; one that arrives while the
//!   receiver has no error pending is ignored.
//! - **Repeated "error found".** Control packets sent before the receiver sees the
//!   error-ack still carry the bit. After sending the error-ack's tail in cycle `s` the
//!   transmitter ignores the bit until `s + latency + ctrl_latency` (the first cycle a
//!   control packet sent after the ack's arrival can reach it) and leaves recovery at the
//!   first control packet without the bit. A control packet with the bit at or after
//!   that deadline means the error-ack was lost or a replayed packet failed again: it
//!   sends a new error-ack and goes back again from the then last good packet
//!   (`ack_timeouts` counts these). So at most one error-ack is ever in flight, and the
//!   receiver never takes a packet of an older pass after a newer error-ack.
//! - **A go-back decided mid-packet** waits for the packet being sent to finish (packets
//!   are not cut on the wire); the error-ack then takes the wire, then the replay.
//! - **Sequence check.** The receiver also checks that a good packet carries the next
//!   sequence number; a mismatch is treated like a CRC error (`sequence_errors`; the
//!   protocol never produces one).
//! - **What the engine sees of the receiver.** Deliveries wait in a ring of `window + 1`
//!   for [`RetryLink::rx_pop`]; a packet whose head finds the ring full is not taken in
//!   (like a packet whose buffer entry is occupied, section 4.3) and is treated as an
//!   error, so it is replayed (`rx_overflow`); an engine that pops every cycle never
//!   sees this.
//! - **A packet takes its sequence number and replay-buffer slot when the switch hands
//!   it over** ([`RetryLink::tx_push`]), not when its head leaves: the one packet that
//!   may wait for the wire behind the packet being sent counts against the window (a
//!   switch that kept it in its crosspoint buffer until the wire is free would have one
//!   more packet in flight when the window is the limit).
//! - **Back-pressure to the switch.** [`RetryLink::tx_can_accept`] is true when the
//!   window has room, no whole packet waits for the wire, and no error-ack is pending:
//!   the switch hands over the next packet while the current one is on the wire, and
//!   feels recovery as lost bandwidth. A control packet's release is visible to the switch
//!   from the next cycle.
//! - **Flow control is not here.** The buffer-allocation fields of control packets
//!   (section 3.3) are the engine's credit flow control: the engine pushes a packet only
//!   when the downstream buffer is free. This module models the error-control part.
//! - **Failure** is seen by both ends in cycle `fail_at`: flits and control packets on
//!   the wires are lost, a half-received packet whose head was forwarded is poisoned,
//!   and every replay-buffer entry is stranded, `delivered = true` if the receiver had in
//!   fact accepted it (the simulator knows; the hardware would not).

mod receiver;
mod transmitter;
mod wire;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::link::errors::{ErrorParams, LaneHits, LinkErrors};
use receiver::Receiver;
use transmitter::{Transmitter, TxState};
use wire::{CtrlPacket, Fifo, WireFlit};

/// Sequence numbers are 4 bits (section 3.2).
pub const SEQ_MODULUS: u32 = 16;
pub(crate) const SEQ_MASK: u8 = (SEQ_MODULUS - 1) as u8;

/// Config: a link with link-level retry.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct RetryParams {
    /// Data-lane latency in cycles, one flit per cycle (1..=1000).
    pub latency: u32,
    /// Cycles from sending a control packet to the transmitter acting on it (1..=2000).
    /// Default 16 (15 to serialize 15 bytes on one lane, 1 of wire).
    pub ctrl_latency: u32,
    /// Cycles between control packets (1..=1000). Default 15 (back to back).
    pub ctrl_period: u32,
    /// Packets outstanding at most (1..=15).
    pub window: u32,
    /// Flits of the error-ack packet (1..=64).
    pub ack_flits: u32,
    /// The error model.
    pub errors: ErrorParams,
}

impl Default for RetryParams {
    fn default() -> Self {
        RetryParams { latency: 1, ctrl_latency: 16, ctrl_period: 15, window: 15, ack_flits: 2, errors: ErrorParams::default() }
    }
}

impl RetryParams {
    /// Check every field; `path` is the config table (e.g. `"link.retry"`).
    pub fn validate(&self, path: &str) -> Result<()> {
        let range = |field: &str, v: u32, hi: u32, what: &str| {
            if v == 0 || v > hi {
                Err(Error::config(format!("{path}.{field}"), format!("{v} is out of range: {what} must be 1..={hi}")))
            } else {
                Ok(())
            }
        };
        range("latency", self.latency, 1000, "a data-lane latency in cycles")?;
        range("ctrl_latency", self.ctrl_latency, 2000, "a control-lane latency in cycles")?;
        range("ctrl_period", self.ctrl_period, 1000, "the cycles between control packets")?;
        range("ack_flits", self.ack_flits, 64, "the error-ack packet's length in flits")?;
        if self.window == 0 || self.window >= SEQ_MODULUS {
            return Err(Error::config(
                format!("{path}.window"),
                format!(
                    "{} is out of range: the window must be 1..=15; with 4-bit sequence numbers acknowledged by a change of the last-good field, 16 outstanding packets would make 'all acknowledged' and 'none acknowledged' look alike",
                    self.window
                ),
            ));
        }
        self.errors.validate(&format!("{path}.errors"))
    }
}

/// A packet handed to the transmitter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketRef {
    /// Packet id (index into the engine's packet arena).
    pub id: u32,
    /// Length in flits (>= 1).
    pub flits: u16,
}

/// A packet coming out of the receiver.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    /// Packet id.
    pub id: u32,
    /// Length in flits.
    pub flits: u16,
    /// `false`: a good copy, delivered once and in order. `true`: the packet failed its
    /// CRC after its head was forwarded early; the forwarded copy is poisoned and must be
    /// discarded by its final receiver (the good copy comes later).
    pub poisoned: bool,
    /// `true` (only after [`RetryLink::rx_report_drops`]): the packet was taken in (seen
    /// through [`RetryLink::rx_arriving`]) but failed with its head not forwarded; what
    /// the switch stored of it is void, and the good copy comes later.
    pub dropped: bool,
    /// Cycle of its tail's arrival.
    pub at: u64,
}

/// The packet being received whose head may be forwarded early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arriving {
    /// Packet id.
    pub id: u32,
    /// Length in flits.
    pub flits: u16,
    /// Flits received so far (>= 1, < `flits`).
    pub received: u16,
}

/// A packet left in the replay buffer when the link failed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stranded {
    /// The packet.
    pub packet: PacketRef,
    /// The receiver had accepted it (only its acknowledgement was lost): it must not be
    /// sent again. `false`: it never got across; reroute it or report it lost.
    pub delivered: bool,
}

/// Why [`RetryLink::tx_push`] refused a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PushError {
    /// A packet of 0 flits.
    #[error("a packet must have at least one flit")]
    Empty,
    /// `window` packets are unacknowledged.
    #[error("the replay window is full")]
    WindowFull,
    /// A whole packet already waits for the wire, or recovery is under way.
    #[error("the transmitter is busy")]
    Busy,
    /// The link has failed.
    #[error("the link has failed")]
    Failed,
}

/// Counters of one link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryStats {
    /// Packets accepted by `tx_push`, and their flits.
    pub pushed: u64,
    pub flits_pushed: u64,
    /// Packets sent for the first time.
    pub sent: u64,
    /// Good packets delivered by the receiver.
    pub delivered: u64,
    /// Packets released from the replay buffer by acknowledgements.
    pub acked: u64,
    /// Replay events: error-acks sent, each followed by a go-back.
    pub replays: u64,
    /// Of which sent because "error found" was still set a round trip after an error-ack.
    pub ack_timeouts: u64,
    /// Packets sent again.
    pub packets_replayed: u64,
    /// Flits sent for the first time, sent again, and of error-acks. Their sum is the
    /// data lanes' busy cycles ([`RetryStats::wire_flits`]).
    pub flits_original: u64,
    pub flits_replayed: u64,
    pub ack_flits: u64,
    /// Flits sent on the data lanes.
    pub wire_flits: u64,
    /// Flits hit by an error on the data lanes.
    pub flits_corrupted: u64,
    /// Data packets whose CRC failed at the receiver (each sets "error found").
    pub crc_errors: u64,
    /// Good packets with an unexpected sequence number (never, in this protocol).
    pub sequence_errors: u64,
    /// Packets refused because the engine had not taken earlier deliveries.
    pub rx_overflow: u64,
    /// Data packets dropped because "error found" was set.
    pub rx_dropped: u64,
    /// Error-acks that cleared "error found", and error-acks that arrived corrupted.
    pub error_acks_received: u64,
    pub error_acks_corrupted: u64,
    /// Packets accepted whose sequence number aliased an older packet (never, with a
    /// window of at most 15).
    pub aliased: u64,
    /// Poisoned copies reported (head forwarded early, CRC failed).
    pub poisoned: u64,
    /// Control packets sent, received intact, and lost or corrupted.
    pub ctrl_sent: u64,
    pub ctrl_received: u64,
    pub ctrl_lost: u64,
    /// Intact control packets acknowledging a packet not sent (never, in this protocol).
    pub ctrl_inconsistent: u64,
    /// Packets stranded by a failure: never got across / got across unacknowledged.
    pub stranded_lost: u64,
    pub stranded_unconfirmed: u64,
}

impl RetryStats {
    /// Data-lane cycles spent on recovery: replayed flits plus error-ack flits.
    pub fn replay_wire_cycles(&self) -> u64 {
        self.flits_replayed + self.ack_flits
    }
}

/// One unidirectional link with link-level retry. See the module doc.
#[derive(Clone, Debug)]
pub struct RetryLink {
    latency: u64,
    ctrl_latency: u64,
    ctrl_period: u64,
    /// The next cycle a control packet leaves (a multiple of `ctrl_period`).
    next_ctrl: u64,
    tx: Transmitter,
    rx: Receiver,
    /// Data lanes (forward) and control lane (reverse).
    fwd: Fifo<WireFlit>,
    rev: Fifo<CtrlPacket>,
    errors: LinkErrors,
    stats: RetryStats,
    failed: bool,
    stranded: Fifo<Stranded>,
    /// The last cycle stepped.
    last_step: Option<u64>,
}

impl RetryLink {
    /// Link `link_id` under the run `seed` (the error streams are derived from both).
    /// Fails with a config error naming the field (under `retry.`) if `params` are invalid.
    pub fn new(params: &RetryParams, link_id: u32, seed: u64) -> Result<Self> {
        params.validate("retry")?;
        let window = params.window as usize;
        let (latency, ctrl_latency, ctrl_period) = (params.latency as u64, params.ctrl_latency as u64, params.ctrl_period as u64);
        Ok(RetryLink {
            latency,
            ctrl_latency,
            ctrl_period,
            next_ctrl: 0,
            tx: Transmitter::new(window, params.ack_flits as u16, latency + ctrl_latency),
            rx: Receiver::new(window + 1),
            // At most one flit per cycle, in flight for `latency` cycles; control
            // packets sent within the last `ctrl_latency` cycles, one per period.
            fwd: Fifo::new(latency as usize + 1),
            rev: Fifo::new((ctrl_latency / ctrl_period) as usize + 2),
            errors: LinkErrors::new(&params.errors, link_id, seed),
            stats: RetryStats::default(),
            failed: false,
            stranded: Fifo::new(window),
            last_step: None,
        })
    }

    /// Can the transmitter take a packet now? (Window room, no whole packet waiting for
    /// the wire, no error-ack pending, not failed.)
    #[inline]
    pub fn tx_can_accept(&self) -> bool {
        !self.failed && self.tx.can_accept()
    }

    /// Hand a packet to the transmitter (sent from this cycle's `step` on).
    pub fn tx_push(&mut self, p: PacketRef) -> Result<(), PushError> {
        if self.failed {
            return Err(PushError::Failed);
        }
        self.tx.push(p, &mut self.stats)
    }

    /// Packets in the replay buffer (sent or queued, not yet acknowledged).
    #[inline]
    pub fn tx_outstanding(&self) -> usize {
        self.tx.len()
    }

    /// Advance both ends and both wires through cycle `now`. Cycles must increase; a
    /// repeated or earlier cycle is ignored.
    pub fn step(&mut self, now: u64) {
        if self.last_step.is_some_and(|p| now <= p) {
            return;
        }
        self.last_step = Some(now);
        if self.failed {
            return;
        }
        if self.errors.fail_at().is_some_and(|f| now >= f) {
            self.fail(now);
            return;
        }
        if self.is_quiescent() {
            return;
        }
        while let Some(f) = self.fwd.pop_due(now) {
            self.rx.on_flit(f, now, &mut self.stats);
        }
        while let Some(c) = self.rev.pop_due(now) {
            self.tx.on_control(c, now, &mut self.stats);
        }
        // Control packets leave at the multiples of the period (the next one is kept at
        // hand; it is recomputed only after skipped idle cycles).
        if now > self.next_ctrl {
            self.next_ctrl = now.div_ceil(self.ctrl_period) * self.ctrl_period;
        }
        if now == self.next_ctrl {
            self.next_ctrl += self.ctrl_period;
            let corrupted = self.errors.ctrl_hit(now);
            let c = CtrlPacket { arrive: now + self.ctrl_latency, last_good: self.rx.last_good, error: self.rx.error, corrupted };
            let pushed = self.rev.push(c);
            debug_assert!(pushed, "control lane sized for ctrl_latency / ctrl_period");
            self.stats.ctrl_sent += 1;
        }
        if let Some(mut f) = self.tx.send(now, &mut self.stats) {
            f.arrive = now + self.latency;
            f.corrupted = self.errors.data_hit(now);
            self.stats.flits_corrupted += f.corrupted as u64;
            self.stats.wire_flits += 1;
            let pushed = self.fwd.push(f);
            debug_assert!(pushed, "data lanes sized for latency");
        }
    }

    fn fail(&mut self, now: u64) {
        self.failed = true;
        self.fwd.clear();
        self.rev.clear();
        self.rx.fail(now, &mut self.stats);
        let accepted = self.rx.accepted;
        let stats = &mut self.stats;
        let stranded = &mut self.stranded;
        for e in self.tx.drain() {
            let delivered = e.index < accepted;
            if delivered {
                stats.stranded_unconfirmed += 1;
            } else {
                stats.stranded_lost += 1;
            }
            let pushed = stranded.push(Stranded { packet: e.pkt, delivered });
            debug_assert!(pushed, "stranded ring holds a window");
        }
    }

    /// The next delivery (good packets once each and in order; poisoned copies as
    /// reported), if any. Take them all after every `step`.
    #[inline]
    pub fn rx_pop(&mut self) -> Option<Delivered> {
        self.rx.out.pop()
    }

    /// The data packet being received, whose head the switch may forward early.
    #[inline]
    pub fn rx_arriving(&self) -> Option<Arriving> {
        self.rx.arriving()
    }

    /// Report packets that were taken in and then failed with no head forwarded
    /// ([`Delivered::dropped`]): for a switch that stores an arriving packet's flits as
    /// they come, so that it can void them.
    pub fn rx_report_drops(&mut self) {
        self.rx.report_drops = true;
    }

    /// The switch forwarded the arriving packet's head before its tail: if its CRC fails
    /// it is reported poisoned. `false` if no packet is arriving.
    #[inline]
    pub fn rx_forward_early(&mut self) -> bool {
        self.rx.mark_early()
    }

    /// The next packet stranded by a permanent failure, if any.
    #[inline]
    pub fn tx_pop_stranded(&mut self) -> Option<Stranded> {
        self.stranded.pop()
    }

    /// Has the link failed for good?
    #[inline]
    pub fn is_failed(&self) -> bool {
        self.failed
    }

    /// The cycle the link is set to fail, if any (an engine that skips idle links must
    /// still step it then).
    #[inline]
    pub fn fail_at(&self) -> Option<u64> {
        self.errors.fail_at()
    }

    /// Nothing to send, nothing unacknowledged, nothing on the data lanes, no error
    /// pending: `step` would do nothing (control packets then carry no news and are not
    /// simulated), so the engine may skip the link.
    #[inline]
    pub fn is_quiescent(&self) -> bool {
        self.failed || (self.tx.is_idle() && self.fwd.is_empty() && self.rx.is_idle())
    }

    /// Counters so far.
    #[inline]
    pub fn stats(&self) -> &RetryStats {
        &self.stats
    }

    /// Error-model hits on the data lanes and on the control lane so far.
    pub fn hits(&self) -> (LaneHits, LaneHits) {
        (self.errors.data_hits(), self.errors.ctrl_hits())
    }

    /// Flits on the data lanes and control packets on the control lane now.
    pub fn in_flight(&self) -> (usize, usize) {
        (self.fwd.len(), self.rev.len())
    }

    /// The receiver has "error found" set.
    pub fn rx_error_pending(&self) -> bool {
        self.rx.error
    }

    /// The transmitter is recovering (error-ack pending or awaiting its effect).
    pub fn tx_recovering(&self) -> bool {
        self.tx.state != TxState::Normal
    }

    /// Check mode: the counters' identities and the buffers' bounds. An error is a
    /// simulator bug.
    pub fn check(&self, now: u64) -> Result<()> {
        let s = &self.stats;
        let bad = |m: String| Err(Error::Invariant { cycle: now, message: format!("retry link: {m}") });
        if s.wire_flits != s.flits_original + s.flits_replayed + s.ack_flits {
            return bad(format!(
                "wire flits {} != original {} + replayed {} + error-ack {}",
                s.wire_flits, s.flits_original, s.flits_replayed, s.ack_flits
            ));
        }
        if s.flits_original > s.flits_pushed || s.sent > s.pushed {
            return bad(format!("sent {} packets / {} flits of {} / {} pushed", s.sent, s.flits_original, s.pushed, s.flits_pushed));
        }
        if s.acked > s.delivered || s.delivered > s.sent {
            return bad(format!("acknowledged {} > delivered {} or delivered > sent {}", s.acked, s.delivered, s.sent));
        }
        if !self.failed && s.pushed != s.acked + self.tx.len() as u64 {
            return bad(format!("pushed {} != acknowledged {} + in the replay buffer {}", s.pushed, s.acked, self.tx.len()));
        }
        if s.sequence_errors + s.aliased + s.ctrl_inconsistent != 0 {
            return bad(format!(
                "protocol violations: {} sequence errors, {} aliased, {} inconsistent control packets",
                s.sequence_errors, s.aliased, s.ctrl_inconsistent
            ));
        }
        if s.ctrl_sent != s.ctrl_received + s.ctrl_lost + self.rev.len() as u64 && !self.failed {
            return bad(format!(
                "control packets sent {} != received {} + lost {} + in flight {}",
                s.ctrl_sent,
                s.ctrl_received,
                s.ctrl_lost,
                self.rev.len()
            ));
        }
        Ok(())
    }
}
