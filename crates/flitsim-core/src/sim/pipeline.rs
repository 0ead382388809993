//! The pipelined hand-over of the partitioned engine ([`super::parallel`]): partitions
//! that exchange their outboxes cycle by cycle, point to point, instead of meeting all
//! together after every cycle.
//!
//! With a lookahead of one cycle (a credit delay of 1, as in most router
//! configurations) the partitions must exchange what crossed after every cycle. Meeting
//! at a barrier for that costs each cycle the slowest partition's time plus the
//! meeting, and on a shared machine a partition is sometimes slow for a moment. Here a
//! partition steps a window of many cycles on its own thread, and in each cycle `t`:
//!
//! 1. steps its endpoints and its **interior** routers (no channel to or from another
//!    partition: nothing another partition sends can reach them), without waiting;
//! 2. waits until every other partition has **published** its outbox of cycle `t - 1`
//!    and receives those outboxes, in partition order;
//! 3. steps its **boundary** routers, and publishes its own outbox of cycle `t`.
//!
//! A crossing sent in cycle `t - 1` arrives at `t` or later, and only boundary routers
//! receive crossings; endpoints and interior routers neither read nor write anything a
//! hand-over touches (ring slots of crossing channels, boundary routers' calendars).
//! Within a cycle the order of the routers changes nothing (the two-phase rule), so the
//! results are the one-thread results, bit for bit. A partition waits only when another
//! is more than its interior work behind, so a moment's delay on one core is absorbed
//! instead of stalling every partition.
//!
//! Each partition's outboxes live in two slots (cycle parity). A partition writes the
//! slot of cycle `t` only after every other partition has published cycle `t - 1`,
//! which it did after receiving the outbox of cycle `t - 2` that the slot held. The
//! outbox of a window's last cycle is received at the start of the next window, or
//! before the engine reads the partitions' state ([`Mailboxes::settle_job`]).
//!
//! **Cache lines between cores.** What one partition publishes another reads from the
//! first one's core, and a line read there must be taken back before it is written
//! again; each such transfer costs the latency between the two cores, which on a shared
//! machine varies by several times from one minute to the next. So a partition asks for
//! the lines early, as hints that change no result: at the start of a cycle the
//! outboxes already published (for reading; after its endpoints, the flits and credits
//! in them), and the buffers its routers will send into (for writing, `prefetchw`); once
//! the others have received its last outbox but one, the slot it will publish into.
//! Measured on the BookSim comparison case (two threads, alternating runs): no change
//! while the cores are near each other, ~10% less time while they are far apart.
//!
//! Applies to input-queued routers without mechanisms decided every cycle across the
//! network (the same conditions as lookahead windows, [`super::window`]); the others meet
//! after every window.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

use super::parallel::{receive_outbox, take_outbox, PartMut};
use crate::config::Spec;
use crate::link::Channels;
use crate::packet::PacketArena;
use crate::router::crossing::{Crossings, Which};
use crate::router::{RouterFamily, Routers};

/// Can `spec`'s network use the pipelined hand-over? (Input-queued routers, built from
/// an input-queued router config, with nothing decided across the network every cycle.)
pub(crate) fn applies(spec: &Spec) -> bool {
    matches!(spec.config.router, crate::router::RouterConfig::InputQueued(_))
        && spec.config.congestion.policy == crate::congestion::Policy::None
        && spec.timed_failures.is_empty()
        && spec.dispersion.is_none()
}

/// One partition's published outboxes.
struct Mailbox {
    /// The outboxes of the last two cycles, by cycle parity.
    slots: [UnsafeCell<Crossings>; 2],
    /// Cycles this partition has finished (its outbox of cycle `done - 1` is published).
    done: CachePadded<AtomicU64>,
    /// Flits this partition has sent to others so far (written by it alone).
    crossed: CachePadded<AtomicU64>,
}

/// Every partition's mailbox (see the module docs).
pub(super) struct Mailboxes {
    boxes: Vec<Mailbox>,
    /// A partition panicked: the others stop waiting for it. (Padded: waiting threads
    /// read it, and nothing else may share its cache line.)
    abort: CachePadded<AtomicBool>,
    /// Do waiting threads spin (false when there are more threads than cores)?
    spin: bool,
    /// The last finished cycle whose outboxes every partition has received already
    /// ([`Mailboxes::settle_job`]), or `None`.
    settled: Option<u64>,
}

// SAFETY: a slot is written only by its partition, and only while no other partition
// can read it (the protocol in the module docs, ordered by the release/acquire pairs on
// `done`); it is read by the others only after they see its cycle published.
unsafe impl Sync for Mailboxes {}

/// Raises the abort flag if its partition's thread unwinds (a panic), so that the other
/// partitions, waiting for an outbox it will never publish, stop.
struct AbortOnUnwind<'a>(&'a CachePadded<AtomicBool>);

impl Drop for AbortOnUnwind<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.store(true, Ordering::Release);
        }
    }
}

impl Mailboxes {
    /// Mailboxes for `parts` partitions starting at cycle `now`.
    pub fn new(parts: usize, now: u64, spin: bool) -> Mailboxes {
        let boxes = (0..parts)
            .map(|_| Mailbox {
                slots: [UnsafeCell::new(Crossings::default()), UnsafeCell::new(Crossings::default())],
                done: CachePadded::new(AtomicU64::new(now)),
                crossed: CachePadded::new(AtomicU64::new(0)),
            })
            .collect();
        Mailboxes { boxes, abort: CachePadded::new(AtomicBool::new(false)), spin, settled: now.checked_sub(1) }
    }

    /// Wait until every partition but `own` has finished cycle `t - 1`.
    fn wait_for(&self, own: usize, t: u64) {
        for (j, b) in self.boxes.iter().enumerate() {
            if j == own {
                continue;
            }
            super::team::wait_until(self.spin, || {
                let done = b.done.load(Ordering::Acquire) >= t;
                assert!(done || !self.abort.load(Ordering::Acquire), "another partition panicked");
                done
            });
        }
    }

    /// Ask the cache for the outboxes of cycle `c` that other partitions have published
    /// already (hints, no effect on results): `entries` false, the outboxes themselves;
    /// true, the flits and credits in them. The partition receives them after its
    /// interior routers, and by then the lines have come over from the other cores while
    /// it worked, instead of while it waits.
    fn prefetch(&self, own: usize, c: u64, entries: bool) {
        for (j, b) in self.boxes.iter().enumerate() {
            if j == own || b.done.load(Ordering::Acquire) <= c {
                continue;
            }
            let slot = b.slots[(c & 1) as usize].get();
            if entries {
                // SAFETY: partition `j` published cycle `c` (as in `receive`).
                unsafe { &*slot }.prefetch(false);
            } else {
                crate::router::prefetch_bytes(slot as *const u8, std::mem::size_of::<Crossings>(), false);
            }
        }
    }

    /// Receive, in partition order, every other partition's outbox of cycle `c`.
    fn receive(&self, own: usize, c: u64, r: &mut Routers, ch: &mut Channels, packets: &mut PacketArena) {
        for (j, b) in self.boxes.iter().enumerate() {
            if j == own {
                continue;
            }
            // SAFETY: partition `j` published cycle `c` (or a later one, but it writes
            // the slot of `c + 2` only after this partition finished `c + 1`).
            let outbox = unsafe { &*b.slots[(c & 1) as usize].get() };
            if !outbox.is_empty() {
                receive_outbox(r, outbox, ch, packets);
            }
        }
    }

    /// Publish partition `own`'s outbox of cycle `t` (taken from its routers and
    /// endpoints; the slot's old contents, the outbox of `t - 2`, are reused).
    fn publish(&self, own: usize, t: u64, p: &mut PartMut<'_>) {
        let b = &self.boxes[own];
        // SAFETY: every other partition finished cycle `t - 1` (`wait_for`), so each has
        // received this slot's outbox of `t - 2` and none reads it again.
        let slot = unsafe { &mut *b.slots[(t & 1) as usize].get() };
        let spare = std::mem::take(slot);
        *slot = take_outbox(p.routers, spare);
        let n = slot.flits_crossing();
        if n != 0 {
            b.crossed.store(b.crossed.load(Ordering::Relaxed) + n, Ordering::Relaxed);
        }
        b.done.store(t + 1, Ordering::Release);
    }

    /// Cycles `now .. now + k` of partition `own` (`p`), handing over cycle by cycle;
    /// returns the packets it created in the measurement window.
    pub fn step_cycles(&self, own: usize, p: &mut PartMut<'_>, now: u64, k: u64, spec: &Spec) -> u64 {
        let _abort = AbortOnUnwind(&self.abort);
        let open = crate::endpoint::Throttle::Open;
        let view = crate::endpoint::NicView { routing: &spec.routing, dispersion: spec.dispersion.as_ref() };
        let mut made = 0;
        for t in now..now + k {
            // (Prefetches, see `prefetch`: the outboxes this cycle receives, and the
            // buffers it sends into.)
            let receiving = t.checked_sub(1).filter(|&c| self.settled != Some(c));
            if let Some(c) = receiving {
                self.prefetch(own, c, false);
            }
            p.routers.prefetch_crossings();
            let before = p.counters.packets_created;
            p.endpoints.step_all(
                t,
                spec.workload.phase_at(t),
                &spec.workload,
                p.channels,
                p.packets,
                p.stats,
                p.counters,
                p.routers,
                open,
                view,
            );
            if let Some(c) = receiving {
                self.prefetch(own, c, true);
            }
            p.step_routers(Which::Interior, t, spec);
            if let Some(c) = t.checked_sub(1) {
                self.wait_for(own, t);
                // Every other partition has received this partition's outbox of `t - 2`:
                // the slot it held, which `publish` overwrites, may be taken for writing.
                let slot = self.boxes[own].slots[(t & 1) as usize].get();
                crate::router::prefetch_bytes(slot as *const u8, std::mem::size_of::<Crossings>(), true);
                if self.settled != Some(c) {
                    self.receive(own, c, p.routers, p.channels, p.packets);
                }
            }
            p.step_routers(Which::Boundary, t, spec);
            self.publish(own, t, p);
            if p.stats.in_window(t) {
                made += p.counters.packets_created - before;
            }
        }
        made
    }

    /// Before the engine reads the partitions' state after cycle `last`: partition
    /// `own` receives the other partitions' outboxes of `last` (unless done already).
    pub fn settle_job(&self, own: usize, last: u64, r: &mut Routers, ch: &mut Channels, packets: &mut PacketArena) {
        if self.settled != Some(last) {
            self.receive(own, last, r, ch, packets);
        }
    }

    /// The outboxes of cycle `last` have been received by every partition.
    pub fn mark_settled(&mut self, last: u64) {
        self.settled = Some(last);
    }

    /// Have the outboxes of cycle `last` been received?
    pub fn is_settled(&self, last: u64) -> bool {
        self.settled == Some(last)
    }

    /// Flits handed from one partition to another so far.
    pub fn crossed(&self) -> u64 {
        self.boxes.iter().map(|b| b.crossed.load(Ordering::Relaxed)).sum()
    }
}
