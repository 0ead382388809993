//! How an input-queued router learns that flits or credits will arrive: the arrival
//! calendar (senders mark the receiving port in a slot for the arrival cycle) or, when a
//! delay is too long for the calendar, counting pending work and polling every port.

use crate::link::Slot;
use crate::router::prefetch_bytes;

/// Calendar entry kinds: input ports with a flit arriving, output ports with a credit.
pub(super) const FLIT: usize = 0;
pub(super) const CREDIT: usize = 1;

/// The arrival calendar (see the module docs): `marks[(router << shift) | (slot << 1) |
/// kind]` = set of ports with an arrival of `kind` in cycles `≡ slot (mod slots)`. A
/// sink row past the last router takes the marks for endpoints; no router reads it.
///
/// Beside the marks, in networks too large for the caches, per slot, the **due set**:
/// one bit per router (`due[slot * words + router / 64]`) that has marks in the slot or
/// held flits after its last step, so a cycle visits only the routers with work
/// ([`Arrive::due_routers`]) and an idle network costs a scan of `routers / 64` words
/// per cycle instead of a look at every router's state. Past the routers' bits (and the
/// sink's) the set has one bit per endpoint, set by what routers send to it and by the
/// endpoints themselves (`endpoint/wake.rs`), so idle endpoints are skipped too. (Small
/// networks, whose state stays in the caches, look at every router faster than they
/// keep the set: 6% more instructions on the BookSim2 comparison case.)
#[derive(Clone, Debug, Default)]
pub(super) struct Calendar {
    /// `slots - 1` (slots per router, a power of two).
    pub(super) mask: u64,
    /// `log2(slots) + 1`.
    pub(super) shift: u32,
    pub(super) marks: Vec<u64>,
    /// Is the due set kept? (Only if it can be: `can_track`, every delay into an
    /// endpoint has its slot.)
    pub(super) track: bool,
    pub(super) can_track: bool,
    /// Words per slot of the due set (routers, the sink and endpoints, 64 a word).
    pub(super) words: usize,
    /// Bit of endpoint 0 in the due set (after the routers and the sink).
    pub(super) endpoint_bit: usize,
    /// The due set, `slots * words` words.
    pub(super) due: Vec<u64>,
}

impl Calendar {
    /// A calendar of `slots` slots (a power of two) for `rows` rows (the routers and
    /// the sink) and `endpoints` endpoints, keeping the due set if `track` (which
    /// `can_track` allows).
    pub(super) fn new(slots: u32, rows: usize, endpoints: usize, can_track: bool, track: bool) -> Self {
        let shift = slots.trailing_zeros() + 1;
        let words = (rows + endpoints).div_ceil(64);
        let mut cal = Calendar {
            mask: slots as u64 - 1,
            shift,
            marks: vec![0; rows << shift],
            track: false,
            can_track,
            words,
            endpoint_bit: rows,
            due: Vec::new(),
        };
        cal.set_track(track);
        cal
    }

    /// Keep the due set or not (before anything is sent: an empty set then means an
    /// idle network); `false` if it cannot be kept.
    pub(super) fn set_track(&mut self, on: bool) -> bool {
        debug_assert!(self.marks.iter().all(|&m| m == 0), "the due set is switched before anything is sent");
        self.track = on && self.can_track;
        self.due = if self.track { vec![0; (self.mask as usize + 1) * self.words] } else { Vec::new() };
        self.track
    }

    /// Put bit `bit` (a router, the sink or `endpoint_bit` + an endpoint) in the due
    /// set of cycle `at` (if the set is kept).
    #[inline(always)]
    fn mark_due(&mut self, bit: usize, at: u64) {
        if self.track {
            self.due[(at & self.mask) as usize * self.words + (bit >> 6)] |= 1 << (bit & 63);
        }
    }

    /// Put endpoint `e` in the due set of cycle `at`, at most `slots - 1` cycles ahead.
    pub(super) fn wake_endpoint(&mut self, e: u32, at: u64) {
        self.mark_due(self.endpoint_bit + e as usize, at);
    }

    /// The endpoints `[lo, hi)` due in cycle `now`, in id order, into `list`, taken off
    /// the due set.
    pub(super) fn due_endpoints(&mut self, now: u64, (lo, hi): (u32, u32), list: &mut Vec<u32>) {
        list.clear();
        let start = (now & self.mask) as usize * self.words;
        let (first, last) = (self.endpoint_bit + lo as usize, self.endpoint_bit + hi as usize);
        for w in first / 64..last.div_ceil(64) {
            let (from, to) = (first.max(w * 64) - w * 64, last.min(w * 64 + 64) - w * 64);
            let span = if to - from == 64 { u64::MAX } else { ((1u64 << (to - from)) - 1) << from };
            let due = &mut self.due[start + w];
            let mut bits = *due & span;
            *due &= !bits;
            while bits != 0 {
                list.push((w * 64 + bits.trailing_zeros() as usize - self.endpoint_bit) as u32);
                bits &= bits - 1;
            }
        }
    }
}

/// Without a calendar: per router, flits and credits travelling to it plus flits in its
/// buffers (and a sink entry past the last router, never read).
#[derive(Clone, Debug, Default)]
pub(super) struct Counting {
    pub(super) pending: Vec<u32>,
}

/// How a router learns that something will arrive (see the module docs).
#[derive(Clone, Debug)]
pub(super) enum Arrivals {
    Calendar(Calendar),
    Counting(Counting),
}

/// One way of learning of arrivals. [`IqRouters::step`] picks the implementation
/// once per cycle, so the per-router code is compiled once for each and tests no mode.
pub(super) trait Arrive {
    /// Entries on a due port must be checked for their arrival cycle (polling); without
    /// polling, a due port has exactly one arrived entry.
    const POLLS: bool;
    /// Does router `r` (whose buffers hold flits when `occupied`) have work in cycle
    /// `now`?
    fn busy(&self, r: usize, now: u64, occupied: bool) -> bool;
    /// Something of `kind` leaves for `port` of `router`, arriving at cycle `arrive`.
    fn notify(&mut self, router: u32, port: u32, arrive: u64, kind: usize);
    /// [`Arrive::notify`] with the far end given as its [`Arrivals::row`] (worked out
    /// once, at build, for every port's far ends: an endpoint's is the sink's) and its
    /// bit in the calendar's due set, `due` (the router, or the endpoint's bit).
    fn notify_row(&mut self, row: u32, due: u32, port: u32, arrive: u64);
    /// The (flit, credit) port sets due at `router` in cycle `now`, emptying its slot;
    /// when polling, every connected port (`poll[router]`).
    fn take(&mut self, router: usize, now: u64, poll: &[(u64, u64)]) -> (u64, u64);
    /// [`Arrive::take`] if router `r` (whose buffers hold flits when `occupied`) has work in cycle `now`
    /// ([`Arrive::busy`]), else `None`: both with one look at its slot.
    #[inline(always)]
    fn take_if_busy(&mut self, r: usize, now: u64, occupied: bool, poll: &[(u64, u64)]) -> Option<(u64, u64)> {
        if self.busy(r, now, occupied) {
            Some(self.take(r, now, poll))
        } else {
            None
        }
    }
    /// `router` received `credits` credits and sent `flits` flits this cycle.
    fn done(&mut self, router: usize, credits: u32, flits: u32);
    /// The (flit, credit) port sets due at `router` in cycle `now`, as far as known
    /// without taking them (for prefetching only).
    fn peek(&self, router: usize, now: u64) -> (u64, u64);
    /// Ask the cache for `router`'s own arrival marks of cycle `now` (a hint).
    fn prefetch_own(&self, _router: usize, _now: u64) {}
    /// Ask the cache for the marks of arrival row `row` (as [`Arrive::notify_row`]
    /// takes it) for cycle `at`, which a sender is about to mark (a hint).
    fn prefetch_row(&self, _row: u32, _at: u64) {}
    /// The routers with work in cycle `now` among those `select` names (one bit per
    /// router), in id order, written to `list` and taken off the cycle's due set; or
    /// `false`, when no due set is kept (every selected router is then visited).
    fn due_routers(&mut self, now: u64, select: &[u64], list: &mut Vec<u32>) -> bool;
    /// Router `r` holds flits after its step in cycle `now`, so it has work in the next.
    fn stays_busy(&mut self, r: usize, now: u64);
}

impl Arrive for Calendar {
    const POLLS: bool = false;
    #[inline(always)]
    fn busy(&self, r: usize, now: u64, occupied: bool) -> bool {
        let i = (r << self.shift) | ((now & self.mask) as usize) << 1;
        occupied || self.marks[i] | self.marks[i + 1] != 0
    }
    #[inline(always)]
    fn notify(&mut self, router: u32, port: u32, arrive: u64, kind: usize) {
        let i = ((router as usize) << self.shift) | ((arrive & self.mask) as usize) << 1 | kind;
        self.marks[i] |= 1 << port;
        self.mark_due(router as usize, arrive);
    }
    #[inline(always)]
    fn notify_row(&mut self, row: u32, due: u32, port: u32, arrive: u64) {
        self.marks[row as usize | ((arrive & self.mask) as usize) << 1] |= 1 << port;
        self.mark_due(due as usize, arrive);
    }
    #[inline(always)]
    fn take(&mut self, router: usize, now: u64, _poll: &[(u64, u64)]) -> (u64, u64) {
        let i = (router << self.shift) | ((now & self.mask) as usize) << 1;
        let slot = self.marks[i..].first_chunk_mut::<2>().expect("in range");
        let due = (slot[FLIT], slot[CREDIT]);
        *slot = [0, 0];
        due
    }
    #[inline(always)]
    fn take_if_busy(&mut self, r: usize, now: u64, occupied: bool, _poll: &[(u64, u64)]) -> Option<(u64, u64)> {
        let i = (r << self.shift) | ((now & self.mask) as usize) << 1;
        let slot = self.marks[i..].first_chunk_mut::<2>().expect("in range");
        let due = (slot[FLIT], slot[CREDIT]);
        if !occupied && due.0 | due.1 == 0 {
            return None;
        }
        *slot = [0, 0];
        Some(due)
    }
    #[inline(always)]
    fn done(&mut self, _router: usize, _credits: u32, _flits: u32) {}
    #[inline(always)]
    fn peek(&self, router: usize, now: u64) -> (u64, u64) {
        let i = (router << self.shift) | ((now & self.mask) as usize) << 1;
        (self.marks[i], self.marks[i + 1])
    }
    #[inline(always)]
    fn prefetch_own(&self, router: usize, now: u64) {
        let i = (router << self.shift) | ((now & self.mask) as usize) << 1;
        prefetch_bytes(self.marks.as_ptr().wrapping_add(i).cast(), 1, false);
    }
    #[inline(always)]
    fn prefetch_row(&self, row: u32, at: u64) {
        let i = row as usize | ((at & self.mask) as usize) << 1;
        prefetch_bytes(self.marks.as_ptr().wrapping_add(i).cast(), 1, false);
    }
    fn due_routers(&mut self, now: u64, select: &[u64], list: &mut Vec<u32>) -> bool {
        if !self.track {
            return false;
        }
        list.clear();
        let start = (now & self.mask) as usize * self.words;
        for (w, (due, sel)) in self.due[start..start + self.words].iter_mut().zip(select).enumerate() {
            let mut bits = *due & sel;
            if bits == 0 {
                continue;
            }
            // (Only the selected routers leave the set: the other half of a partition
            // is stepped later in the cycle.)
            *due &= !bits;
            while bits != 0 {
                list.push((w * 64) as u32 + bits.trailing_zeros());
                bits &= bits - 1;
            }
        }
        true
    }
    #[inline(always)]
    fn stays_busy(&mut self, r: usize, now: u64) {
        self.mark_due(r, now + 1);
    }
}

impl Arrive for Counting {
    const POLLS: bool = true;
    #[inline(always)]
    fn busy(&self, r: usize, _now: u64, _occupied: bool) -> bool {
        self.pending[r] != 0
    }
    #[inline(always)]
    fn notify(&mut self, router: u32, _port: u32, _arrive: u64, _kind: usize) {
        // (Wrapping: the sink's count grows for ever and is never read.)
        self.pending[router as usize] = self.pending[router as usize].wrapping_add(1);
    }
    #[inline(always)]
    fn notify_row(&mut self, row: u32, _due: u32, port: u32, arrive: u64) {
        self.notify(row, port, arrive, 0);
    }
    #[inline(always)]
    fn take(&mut self, router: usize, _now: u64, poll: &[(u64, u64)]) -> (u64, u64) {
        poll[router]
    }
    #[inline(always)]
    fn done(&mut self, router: usize, credits: u32, flits: u32) {
        self.pending[router] -= credits + flits;
    }
    #[inline(always)]
    fn peek(&self, _router: usize, _now: u64) -> (u64, u64) {
        (0, 0)
    }
    fn due_routers(&mut self, _now: u64, _select: &[u64], _list: &mut Vec<u32>) -> bool {
        false
    }
    #[inline(always)]
    fn stays_busy(&mut self, _r: usize, _now: u64) {}
}

impl Arrivals {
    /// What [`Arrive::notify_row`] takes for arrivals of `kind` at `router`: the start of
    /// its calendar entries for `kind` (`router << shift | kind`), or, when counting, the
    /// router.
    pub(super) fn row(&self, router: u32, kind: usize) -> u32 {
        match self {
            Arrivals::Calendar(c) => {
                let row = (router as u64) << c.shift | kind as u64;
                u32::try_from(row).expect("calendar rows fit 32 bits")
            }
            Arrivals::Counting(_) => router,
        }
    }
}

/// Debug check of the arrival calendar: after the receive stage nothing that has
/// arrived may be left on the router's input channels or credit wires.
pub(super) fn nothing_due(
    ch: &crate::link::Channels,
    wiring: &[super::PortWiring; super::VIEW],
    (flits, credits): (u64, u64),
    now: u64,
) -> bool {
    let ports = |mut m: u64| {
        std::iter::from_fn(move || {
            (m != 0).then(|| {
                let p = m.trailing_zeros() as usize;
                m &= m - 1;
                p
            })
        })
    };
    ports(flits).all(|p| ch.flits.slot_of(wiring[p].in_flits, now).is_empty())
        && ports(credits).all(|p| ch.credits.slot_of(wiring[p].out_credits, now).is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4 slots, 2 routers (+ the sink: 3 rows) and 70 endpoints: bits 0-1 routers, 2
    /// the sink, 3-72 the endpoints, over two words.
    fn calendar() -> Calendar {
        Calendar::new(4, 3, 70, true, true)
    }

    #[test]
    fn the_due_set_lists_routers_with_arrivals_or_flits_once() {
        let mut c = calendar();
        let (all, mut list) = ([0b11u64], Vec::new());
        c.notify(1, 2, 5, FLIT);
        assert!(c.due_routers(5, &all, &mut list));
        assert_eq!(list, [1]);
        // Taken: not listed again; the marks stay for the step to take.
        assert!(c.due_routers(5, &all, &mut list) && list.is_empty());
        assert_eq!(c.peek(1, 5), (1 << 2, 0));
        // A router holding flits after its step in cycle 5 is due in 6.
        c.stays_busy(0, 5);
        assert!(c.due_routers(6, &all, &mut list));
        assert_eq!(list, [0]);
        // Only the selected routers leave the set (the other half of a partition is
        // stepped later in the cycle).
        c.notify(0, 0, 9, CREDIT);
        c.notify(1, 0, 9, FLIT);
        assert!(c.due_routers(9, &[0b10], &mut list));
        assert_eq!(list, [1]);
        assert!(c.due_routers(9, &[0b11], &mut list));
        assert_eq!(list, [0]);
    }

    #[test]
    fn endpoints_are_listed_apart_from_routers_and_by_span() {
        let mut c = calendar();
        let mut list = Vec::new();
        for e in [0, 60, 61, 69] {
            c.wake_endpoint(e, 7);
        }
        // A router due in the same cycle shares the first word with endpoints 0-60.
        c.notify_row(1 << c.shift, 1, 0, 7);
        c.due_endpoints(7, (1, 61), &mut list);
        assert_eq!(list, [60]);
        c.due_endpoints(7, (0, 70), &mut list);
        assert_eq!(list, [0, 61, 69]);
        c.due_endpoints(7, (0, 70), &mut list);
        assert!(list.is_empty());
        assert!(c.due_routers(7, &[0b11], &mut list));
        assert_eq!(list, [1]);
        // An endpoint's bit given with a router's row (a router's port to the endpoint:
        // the marks go to the sink's row, the bit to the endpoint).
        c.notify_row(2 << c.shift, 3 + 5, 0, 10);
        c.due_endpoints(10, (0, 70), &mut list);
        assert_eq!(list, [5]);
        assert!(c.due_routers(10, &[0b11], &mut list) && list.is_empty());
    }

    #[test]
    fn without_tracking_no_due_set_is_kept() {
        let mut c = Calendar::new(4, 3, 70, true, false);
        c.notify(1, 2, 5, FLIT);
        assert!(!c.due_routers(5, &[0b11], &mut Vec::new()));
        assert!(c.due.is_empty());
        // A delay into an endpoint longer than the calendar forbids it.
        assert!(!Calendar::new(4, 3, 70, false, true).track);
    }
}
