//! A pool of fixed-size delay lines laid out in one contiguous allocation: the storage
//! behind channels. No allocation after build.
//!
//! A channel carries at most one entry per cycle, every entry has a known arrival cycle,
//! and the receiver takes each entry in exactly the cycle it arrives (the router's
//! arrival calendar, or its polling while anything travels to it; endpoints step every
//! cycle). So a delay line needs no FIFO pointers: it is a ring of `size` slots indexed
//! by arrival cycle, `slot = arrive mod size`, with `size` a power of two larger than the
//! longest delay. The entries in flight arrive in `[now, now + delay]`, so they never
//! share a slot. A push writes its slot, a take reads and clears the slot of the current
//! cycle: one slot touched per operation, and the only per-ring bookkeeping is its
//! (read-only) place in the pool, a [`Ring`], which a router keeps with the wiring of
//! each port so that it needs no lookup.
//!
//! Counting entries ([`RingPool::len`], [`RingPool::total`], for check mode) scans slots.

/// An entry type for [`RingPool`]: a value that can mark an empty slot and knows its
/// arrival cycle.
pub trait Slot: Copy {
    /// The content of an empty slot (never a real entry).
    const EMPTY: Self;
    /// Is this the empty marker?
    fn is_empty(&self) -> bool;
    /// Does it arrive in cycle `now`? (Checked in debug builds when it is taken.)
    fn arrives(&self, now: u64) -> bool;
}

/// Where one ring's slots are in its pool: what a sender or receiver that uses the ring
/// every cycle keeps at hand ([`RingPool::ring`]) instead of looking it up each time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Ring {
    /// First slot of the ring's storage in `data`.
    base: u32,
    /// Storage size - 1 (storage size is a power of two).
    mask: u32,
}

impl Ring {
    /// A placeholder for a channel that does not exist (never used to send or receive).
    pub const UNUSED: Ring = Ring { base: 0, mask: 0 };

    /// Storage index of the slot for cycle `at`.
    #[inline(always)]
    fn slot(self, at: u64) -> usize {
        (self.base + (at as u32 & self.mask)) as usize
    }
}

/// `n` delay lines of (possibly different) lengths in one `Vec`.
#[derive(Clone, Debug)]
pub struct RingPool<T> {
    data: Vec<T>,
    meta: Vec<Ring>,
    /// Capacity each ring was asked for: the longest delay it carries plus one.
    cap: Vec<u32>,
}

impl<T: Slot> RingPool<T> {
    /// Delay lines with the given capacities: a line for delays of up to `d` cycles needs
    /// capacity `d + 1` (its storage is rounded up to a power of two).
    pub fn new(caps: impl IntoIterator<Item = u32>) -> Self {
        let mut meta = Vec::new();
        let mut cap = Vec::new();
        let mut total = 0u64;
        for c in caps {
            let size = c.max(1).next_power_of_two();
            meta.push(Ring { base: total as u32, mask: size - 1 });
            cap.push(c);
            total += size as u64;
        }
        assert!(total < u32::MAX as u64, "ring pool too large");
        RingPool { data: vec![T::EMPTY; total as usize], meta, cap }
    }

    /// Number of rings.
    #[inline]
    pub fn rings(&self) -> usize {
        self.meta.len()
    }
    /// Entries in ring `r` (scans its slots: for checks, not hot paths).
    pub fn len(&self, r: usize) -> u32 {
        self.iter(r).count() as u32
    }
    /// Is ring `r` empty? (Scans its slots.)
    pub fn is_empty(&self, r: usize) -> bool {
        self.len(r) == 0
    }
    /// Capacity of ring `r`.
    #[inline]
    pub fn capacity(&self, r: usize) -> u32 {
        self.cap[r]
    }

    /// Ring `r`'s place in the pool, for the `*_in` operations.
    #[inline]
    pub fn ring(&self, r: usize) -> Ring {
        self.meta[r]
    }

    /// Send `v` on ring `r`, arriving at cycle `at` (see [`RingPool::push_in`]).
    #[inline]
    pub fn push(&mut self, r: usize, at: u64, v: T) {
        self.push_in(self.meta[r], at, v);
    }

    /// The entry of ring `r` arriving in cycle `now`, if any, removed.
    #[inline]
    pub fn take(&mut self, r: usize, now: u64) -> Option<T> {
        self.take_in(self.meta[r], now)
    }

    /// The entry of ring `r` arriving in cycle `now` (see [`RingPool::take_known_in`]).
    #[inline]
    pub fn take_known(&mut self, r: usize, now: u64) -> T {
        self.take_known_in(self.meta[r], now)
    }

    /// The entry of ring `r` arriving in cycle `now`, if any (left in place).
    #[inline]
    pub fn due(&self, r: usize, now: u64) -> Option<&T> {
        let s = &self.data[self.meta[r].slot(now)];
        (!s.is_empty()).then_some(s)
    }

    /// Send `v` on `ring`, arriving at cycle `at`. The slot must be empty (debug builds
    /// check it): a taken slot means the ring is too short for the delay or two entries
    /// were sent in one cycle, a simulator bug, not a user error. (Release builds do not
    /// read the slot, so a send is a plain store that does not wait for the slot's cache
    /// line.)
    #[inline]
    pub fn push_in(&mut self, ring: Ring, at: u64, v: T) {
        debug_assert!(v.arrives(at), "entry stamped for another cycle");
        let s = &mut self.data[ring.slot(at)];
        debug_assert!(s.is_empty(), "ring overflow at slot {} (capacity {})", ring.slot(at), ring.mask + 1);
        *s = v;
    }

    /// The entry of `ring` arriving in cycle `now`, if any, removed.
    #[inline]
    pub fn take_in(&mut self, ring: Ring, now: u64) -> Option<T> {
        let s = &mut self.data[ring.slot(now)];
        if s.is_empty() {
            return None;
        }
        let v = std::mem::replace(s, T::EMPTY);
        debug_assert!(v.arrives(now), "an entry was not taken in its arrival cycle");
        Some(v)
    }

    /// The entry of `ring` due in cycle `now`, removed: when `polling` there may be none;
    /// otherwise an arrival calendar said one is there ([`RingPool::take_known_in`]).
    #[inline(always)]
    pub fn take_due_in(&mut self, ring: Ring, now: u64, polling: bool) -> Option<T> {
        if polling {
            self.take_in(ring, now)
        } else {
            Some(self.take_known_in(ring, now))
        }
    }

    /// The entry of `ring` arriving in cycle `now`, which the caller knows is there (an
    /// arrival calendar said so), removed. Panics if there is none.
    #[inline]
    pub fn take_known_in(&mut self, ring: Ring, now: u64) -> T {
        let v = std::mem::replace(&mut self.data[ring.slot(now)], T::EMPTY);
        assert!(!v.is_empty(), "nothing arrives in cycle {now}");
        debug_assert!(v.arrives(now), "an entry was not taken in its arrival cycle");
        v
    }

    /// The slot of `ring` for cycle `at`, whatever it holds (for prefetching).
    #[inline]
    pub fn slot_of(&self, ring: Ring, at: u64) -> &T {
        &self.data[ring.slot(at)]
    }

    /// The entries of ring `r`, in slot order (not necessarily arrival order).
    pub fn iter(&self, r: usize) -> impl Iterator<Item = &T> + '_ {
        let m = self.meta[r];
        self.data[m.base as usize..=(m.base + m.mask) as usize].iter().filter(|v| !v.is_empty())
    }

    /// Bytes of slot storage.
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(self.data.as_slice())
    }

    /// Total entries over all rings (scans every slot: for checks, not hot paths).
    pub fn total(&self) -> u64 {
        self.data.iter().filter(|v| !v.is_empty()).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test entry: its arrival cycle (`u32::MAX` = empty).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct E(u32);

    impl Slot for E {
        const EMPTY: Self = E(u32::MAX);
        fn is_empty(&self) -> bool {
            self.0 == u32::MAX
        }
        fn arrives(&self, now: u64) -> bool {
            self.0 == now as u32
        }
    }

    #[test]
    fn entries_are_taken_in_their_arrival_cycle() {
        // Ring 0 carries delay 3 (capacity 4), ring 1 delay 1 (capacity 2).
        let mut p: RingPool<E> = RingPool::new([4, 2]);
        for now in 0..20u64 {
            if now >= 3 {
                assert_eq!(p.take(0, now), Some(E(now as u32)));
            }
            if now >= 1 {
                assert_eq!(p.take_known(1, now), E(now as u32));
            }
            assert_eq!(p.take(0, now), None);
            p.push(0, now + 3, E(now as u32 + 3));
            p.push(1, now + 1, E(now as u32 + 1));
            assert_eq!(p.len(0), (now as u32 + 1).min(3));
            assert_eq!(p.due(1, now + 1), Some(&E(now as u32 + 1)));
        }
        assert_eq!(p.total(), 4);
        let mut in_flight: Vec<u32> = p.iter(0).map(|e| e.0).collect();
        in_flight.sort();
        assert_eq!(in_flight, vec![20, 21, 22]);
        assert_eq!(p.capacity(0), 4);
        assert!(!p.is_empty(1));
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "overflow")]
    fn overflow_is_a_bug() {
        let mut p: RingPool<E> = RingPool::new([2]);
        p.push(0, 1, E(1));
        p.push(0, 3, E(3));
    }
}
