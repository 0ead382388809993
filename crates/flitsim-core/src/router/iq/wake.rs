//! The input-queued routers' side of what the endpoints do: flits they send into the
//! routers (arrival notifications), and endpoint activity tracking, the endpoints in the
//! arrival calendar's due set (flits and credits the routers send them, and the wakes
//! the endpoints ask for themselves, `endpoint/wake.rs`).

use super::arrivals::{Arrivals, Arrive, FLIT};
use super::IqRouters;

impl IqRouters {
    /// An endpoint sent a flit into input `port` of router `r`, arriving at cycle
    /// `arrive`: tell the router (its arrival calendar, or its count of pending work).
    #[inline]
    pub fn flit_sent_to(&mut self, r: u32, port: u32, arrive: u64) {
        match &mut self.arrivals {
            Arrivals::Calendar(c) => c.notify(r, port, arrive, FLIT),
            Arrivals::Counting(c) => c.notify(r, port, arrive, FLIT),
        }
    }

    /// Does the arrival calendar keep the endpoints' due set (networks far beyond the
    /// caches)? Otherwise every endpoint is stepped every cycle.
    pub fn tracks_endpoints(&self) -> bool {
        matches!(&self.arrivals, Arrivals::Calendar(c) if c.track)
    }

    /// The calendar's slots: how far ahead [`IqRouters::wake_endpoint`] may wake.
    pub fn wake_horizon(&self) -> u64 {
        match &self.arrivals {
            Arrivals::Calendar(c) => c.mask + 1,
            Arrivals::Counting(_) => 0,
        }
    }

    /// Step endpoint `e` in cycle `at` (fewer than [`IqRouters::wake_horizon`] cycles
    /// ahead). Only with [`IqRouters::tracks_endpoints`].
    pub fn wake_endpoint(&mut self, e: u32, at: u64) {
        if let Arrivals::Calendar(c) = &mut self.arrivals {
            c.wake_endpoint(e, at);
        }
    }

    /// The endpoints of `[lo, hi)` due in cycle `now`, in id order, into `list`, taken
    /// off the due set. Only with [`IqRouters::tracks_endpoints`].
    pub fn due_endpoints(&mut self, now: u64, span: (u32, u32), list: &mut Vec<u32>) {
        if let Arrivals::Calendar(c) = &mut self.arrivals {
            c.due_endpoints(now, span, list);
        }
    }

    /// Keep the due set of routers and endpoints (activity tracking) or not, whatever
    /// the network's size: for tests and measurements, before the first cycle (nothing
    /// in flight). Results are the same either way. Returns whether it is kept: never
    /// without an arrival calendar, or when a delay into an endpoint is too long for it.
    pub fn set_activity_tracking(&mut self, on: bool) -> bool {
        debug_assert!(self.total_buffered() == 0, "activity tracking is switched before the first cycle");
        match &mut self.arrivals {
            Arrivals::Calendar(c) => c.set_track(on),
            Arrivals::Counting(_) => false,
        }
    }
}
