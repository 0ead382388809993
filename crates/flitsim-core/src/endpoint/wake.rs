//! Endpoint activity tracking: which endpoints have work in a cycle, so that an idle
//! endpoint costs nothing (only components with work are visited;
//! `docs/design/architecture.md`).
//!
//! In networks of input-queued routers whose arrival calendar keeps a due set (networks
//! far beyond the caches, `router/iq/arrivals.rs`), an endpoint is stepped in a cycle
//! only when
//! * a flit or a credit reaches it (the router that sends it marks the endpoint in the
//!   calendar's due set for the arrival cycle);
//! * its source queue holds a packet (it tries to inject every cycle);
//! * its source may create a packet ([`Workload::next_creation`]): every cycle for a
//!   random or periodic process, which draws every cycle; at a trace message's cycle,
//!   kept here when it is beyond the calendar's slots;
//! * a phase of the schedule begins (a new pattern or process; every endpoint is
//!   stepped), or it is the first cycle stepped.
//!
//! A source that waits for data (a trace's `after`, recursive doubling) or has finished
//! sleeps until a packet reaches it. A skipped endpoint would have done nothing, drawn
//! no random number and changed no state, so results are the same bit for bit as when
//! every endpoint is stepped (`tests/activity.rs` compares the two).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::router::RouterFamily;
use crate::traffic::{NextCreation, Workload};

/// The endpoints' own wakes (the calendar holds the rest).
#[derive(Clone, Debug, Default)]
pub(super) struct Wakes {
    /// Per endpoint: the cycle of its wake in `later`, or `u64::MAX`.
    at: Vec<u64>,
    /// Wakes beyond the calendar's slots, earliest first (entries whose cycle no longer
    /// matches `at` are stale and skipped).
    later: BinaryHeap<Reverse<(u64, u32)>>,
    /// The endpoints due this cycle (scratch).
    pub(super) due: Vec<u32>,
    /// The phase of the last cycle stepped; `None` before the first (every endpoint is
    /// stepped when it changes).
    phase: Option<Option<usize>>,
}

/// What one cycle of tracked endpoints does with the calendar: wake, list the due.
pub(super) trait DueSet {
    /// How far ahead [`DueSet::wake`] may wake.
    fn horizon(&self) -> u64;
    /// Step endpoint `e` in cycle `at` (less than `horizon` ahead).
    fn wake(&mut self, e: u32, at: u64);
    /// The endpoints of `span` due in `now`, in id order, into `list`, taken off the set.
    fn take_due(&mut self, now: u64, span: (u32, u32), list: &mut Vec<u32>);
}

impl DueSet for crate::router::Routers {
    fn horizon(&self) -> u64 {
        self.wake_horizon()
    }
    fn wake(&mut self, e: u32, at: u64) {
        self.wake_endpoint(e, at);
    }
    fn take_due(&mut self, now: u64, span: (u32, u32), list: &mut Vec<u32>) {
        self.due_endpoints(now, span, list);
    }
}

impl Wakes {
    /// Wakes for `n` endpoints, none pending.
    pub(super) fn new(n: u32) -> Self {
        Wakes {
            at: vec![u64::MAX; n as usize],
            later: BinaryHeap::with_capacity(n as usize),
            due: Vec::with_capacity(n as usize),
            phase: None,
        }
    }

    /// Forget every wake: the next cycle steps every endpoint (after the endpoints'
    /// state was replaced, [`super::Endpoints::absorb`]).
    pub(super) fn reset(&mut self) {
        self.at.fill(u64::MAX);
        self.later.clear();
        self.phase = None;
    }

    /// Start cycle `now` of `phase`: `true` if every endpoint must be stepped (the first
    /// cycle, or a new phase); otherwise the due endpoints of `span` are in `self.due`.
    pub(super) fn begin<D: DueSet>(&mut self, now: u64, phase: Option<usize>, span: (u32, u32), cal: &mut D) -> bool {
        while let Some(&Reverse((t, e))) = self.later.peek() {
            if t > now {
                break;
            }
            self.later.pop();
            if self.at[e as usize] == t {
                self.at[e as usize] = u64::MAX;
                cal.wake(e, now);
            }
        }
        let all = self.phase != Some(phase);
        self.phase = Some(phase);
        // (Taken even when every endpoint is stepped, so the set holds nothing stale.)
        cal.take_due(now, span, &mut self.due);
        all
    }

    /// Endpoint `e` was stepped in cycle `now`: wake it when it next has work of its own
    /// (its source queue holds a packet, or its source may create).
    pub(super) fn after<D: DueSet>(&mut self, e: u32, now: u64, queued: bool, next: NextCreation, cal: &mut D) {
        let at = match next {
            _ if queued => now + 1,
            NextCreation::EveryCycle => now + 1,
            NextCreation::At(t) => t.max(now + 1),
            NextCreation::OnDelivery => return,
        };
        if at - now < cal.horizon() {
            cal.wake(e, at);
        } else if at < self.at[e as usize] {
            self.at[e as usize] = at;
            self.later.push(Reverse((at, e)));
        }
    }
}

/// [`Workload::next_creation`] of endpoint `e` (a shorthand for the step loop).
#[inline]
pub(super) fn next_creation(workload: &Workload, now: u64, phase: Option<usize>, e: u32, nic: &super::Nic) -> NextCreation {
    workload.next_creation(now, phase, e, &nic.src_state, &nic.trace)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A due set of `horizon` slots recording its wakes; `due` is what it lists.
    #[derive(Default)]
    struct Recorder {
        horizon: u64,
        wakes: Vec<(u32, u64)>,
        due: Vec<u32>,
    }

    impl DueSet for Recorder {
        fn horizon(&self) -> u64 {
            self.horizon
        }
        fn wake(&mut self, e: u32, at: u64) {
            self.wakes.push((e, at));
        }
        fn take_due(&mut self, _now: u64, _span: (u32, u32), list: &mut Vec<u32>) {
            list.clone_from(&self.due);
        }
    }

    #[test]
    fn wakes_near_go_to_the_calendar_far_ones_wait_for_their_cycle() {
        let mut cal = Recorder { horizon: 4, ..Recorder::default() };
        let mut w = Wakes::new(3);
        // The first cycle steps every endpoint; so does a new phase, not the same one.
        assert!(w.begin(10, Some(0), (0, 3), &mut cal));
        assert!(!w.begin(11, Some(0), (0, 3), &mut cal));
        assert!(w.begin(12, Some(1), (0, 3), &mut cal));
        // Queued packets and random processes: the next cycle; a trace message 3 cycles
        // ahead: the calendar (4 slots); 20 ahead: later; waiting for data: nothing.
        w.after(0, 12, true, NextCreation::OnDelivery, &mut cal);
        w.after(1, 12, false, NextCreation::EveryCycle, &mut cal);
        w.after(2, 12, false, NextCreation::At(15), &mut cal);
        w.after(2, 12, false, NextCreation::At(32), &mut cal);
        w.after(1, 12, false, NextCreation::OnDelivery, &mut cal);
        // A time already past wakes in the next cycle.
        w.after(0, 12, false, NextCreation::At(3), &mut cal);
        assert_eq!(cal.wakes, [(0, 13), (1, 13), (2, 15), (0, 13)]);
        cal.wakes.clear();
        // An earlier far wake replaces a later one, whose entry is then stale.
        w.after(2, 12, false, NextCreation::At(30), &mut cal);
        for now in 13..30 {
            assert!(!w.begin(now, Some(1), (0, 3), &mut cal));
        }
        assert!(cal.wakes.is_empty());
        w.begin(30, Some(1), (0, 3), &mut cal);
        assert_eq!(cal.wakes, [(2, 30)]);
        w.begin(31, Some(1), (0, 3), &mut cal);
        w.begin(32, Some(1), (0, 3), &mut cal);
        assert_eq!(cal.wakes, [(2, 30)], "the stale wake at 32 is skipped");
    }
}
