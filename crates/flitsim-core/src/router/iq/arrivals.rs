//! How an input-queued router learns that flits or credits will arrive: the arrival
//! calendar (senders mark the receiving port in a slot for the arrival cycle) or, when a
//! delay is too long for the calendar, counting pending work and polling every port.

/// Calendar entry kinds: input ports with a flit arriving, output ports with a credit.
use crate::link::Slot;

pub(super) const FLIT: usize = 0;
pub(super) const CREDIT: usize = 1;

/// The arrival calendar (see the module docs): `marks[(router << shift) | (slot << 1) |
/// kind]` = set of ports with an arrival of `kind` in cycles `≡ slot (mod slots)`. A
/// sink row past the last router takes the marks for endpoints; no router reads it.
#[derive(Clone, Debug, Default)]
pub(super) struct Calendar {
    /// `slots - 1` (slots per router, a power of two).
    pub(super) mask: u64,
    /// `log2(slots) + 1`.
    pub(super) shift: u32,
    pub(super) marks: Vec<u64>,
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
    /// [`Arrive::notify`] with `router` and `kind` given as their [`Arrivals::row`]
    /// (worked out once, at build, for every port's far ends).
    fn notify_row(&mut self, row: u32, port: u32, arrive: u64);
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
    }
    #[inline(always)]
    fn notify_row(&mut self, row: u32, port: u32, arrive: u64) {
        self.marks[row as usize | ((arrive & self.mask) as usize) << 1] |= 1 << port;
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
    fn notify_row(&mut self, row: u32, port: u32, arrive: u64) {
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

/// `log2` of the calendar row length in words (0 without a calendar).
pub(super) fn slots_shift(a: &Arrivals) -> usize {
    match a {
        Arrivals::Calendar(c) => c.shift as usize,
        Arrivals::Counting(_) => 0,
    }
}

/// Debug check of the arrival calendar: after the receive stage nothing that has
/// arrived may be left on the router's input channels or credit wires.
pub(super) fn nothing_due(ch: &crate::link::Channels, wiring: &[super::PortWiring; super::VIEW], (flits, credits): (u64, u64), now: u64) -> bool {
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
