//! A pool of fixed-capacity ring buffers laid out in one contiguous allocation: the
//! storage behind channel delay lines. Ring bookkeeping is one 16-byte record per ring
//! (one cache line touch per operation). No allocation after build.
//!
//! Each ring's storage is rounded up to a power of two so positions wrap with a mask.
//! Push and pop touch only the ring's record and one slot; the pool-wide entry count
//! ([`RingPool::total`], for check mode) is summed on demand.

#[derive(Clone, Copy, Debug, Default)]
struct Meta {
    /// First slot of the ring's storage in `data`.
    base: u32,
    /// Storage size - 1 (storage size is a power of two).
    mask: u32,
    /// Position of the oldest entry, `< storage size`.
    head: u32,
    /// Entries, `<= cap`.
    len: u32,
}

/// `n` rings of (possibly different) capacities in one `Vec`.
#[derive(Clone, Debug)]
pub struct RingPool<T> {
    data: Vec<T>,
    meta: Vec<Meta>,
    /// Capacity each ring was asked for.
    cap: Vec<u32>,
}

impl<T: Copy + Default> RingPool<T> {
    /// Rings with the given capacities.
    pub fn new(caps: impl IntoIterator<Item = u32>) -> Self {
        let mut meta = Vec::new();
        let mut cap = Vec::new();
        let mut total = 0u64;
        for c in caps {
            let size = c.max(1).next_power_of_two();
            meta.push(Meta { base: total as u32, mask: size - 1, head: 0, len: 0 });
            cap.push(c);
            total += size as u64;
        }
        assert!(total < u32::MAX as u64, "ring pool too large");
        RingPool { data: vec![T::default(); total as usize], meta, cap }
    }

    /// Number of rings.
    #[inline]
    pub fn rings(&self) -> usize {
        self.meta.len()
    }
    /// Entries in ring `r`.
    #[inline]
    pub fn len(&self, r: usize) -> u32 {
        self.meta[r].len
    }
    /// Is ring `r` empty?
    #[inline]
    pub fn is_empty(&self, r: usize) -> bool {
        self.meta[r].len == 0
    }
    /// Capacity of ring `r`.
    #[inline]
    pub fn capacity(&self, r: usize) -> u32 {
        self.cap[r]
    }

    /// The entry at storage slot `m.base + (pos & m.mask)`.
    #[inline(always)]
    fn slot(&self, m: Meta, pos: u32) -> &T {
        let at = (m.base + (pos & m.mask)) as usize;
        debug_assert!(at < self.data.len());
        // SAFETY: `new` gives every ring the slots `base ..= base + mask` inside `data`,
        // and `base` and `mask` never change afterwards; `pos & mask <= mask`.
        unsafe { self.data.get_unchecked(at) }
    }

    /// Oldest entry of ring `r`.
    #[inline]
    pub fn front(&self, r: usize) -> Option<&T> {
        let m = self.meta[r];
        if m.len == 0 {
            None
        } else {
            Some(self.slot(m, m.head))
        }
    }
    /// Append to ring `r`. Panics if full: callers account for space with credits, so a
    /// full ring here is a simulator bug, not a user error. (The check is against the
    /// ring's storage; debug builds check the requested capacity.)
    #[inline]
    pub fn push(&mut self, r: usize, v: T) {
        let m = &mut self.meta[r];
        assert!(m.len <= m.mask, "ring {r} overflow (capacity {})", m.mask + 1);
        debug_assert!(m.len < self.cap[r], "ring {r} overflow (capacity {})", self.cap[r]);
        let at = (m.base + ((m.head + m.len) & m.mask)) as usize;
        m.len += 1;
        debug_assert!(at < self.data.len());
        // SAFETY: as in `slot`.
        unsafe { *self.data.get_unchecked_mut(at) = v };
    }
    /// Remove and return the oldest entry of ring `r`.
    #[inline]
    pub fn pop(&mut self, r: usize) -> Option<T> {
        self.pop_if(r, |_| true)
    }
    /// Pop the oldest entry if `ready` says it may go.
    #[inline]
    pub fn pop_if(&mut self, r: usize, ready: impl Fn(&T) -> bool) -> Option<T> {
        let m = self.meta[r];
        if m.len == 0 {
            return None;
        }
        let v = *self.slot(m, m.head);
        if !ready(&v) {
            return None;
        }
        let m = &mut self.meta[r];
        m.head = (m.head + 1) & m.mask;
        m.len -= 1;
        Some(v)
    }
    /// Iterate ring `r` oldest first.
    pub fn iter(&self, r: usize) -> impl Iterator<Item = &T> + '_ {
        let m = self.meta[r];
        (0..m.len).map(move |i| self.slot(m, m.head + i))
    }
    /// Total entries over all rings (sums every ring's length: for checks, not hot paths).
    pub fn total(&self) -> u64 {
        self.meta.iter().map(|m| m.len as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_order_and_wrap() {
        let mut p: RingPool<u32> = RingPool::new([3, 2]);
        for round in 0..5 {
            p.push(0, round * 10);
            p.push(0, round * 10 + 1);
            p.push(1, round);
            assert_eq!(p.pop(0), Some(round * 10));
            assert_eq!(p.front(0), Some(&(round * 10 + 1)));
            assert_eq!(p.pop_if(0, |&v| v > 1000), None);
            assert_eq!(p.pop_if(0, |_| true), Some(round * 10 + 1));
            assert_eq!(p.pop(1), Some(round));
        }
        assert!(p.is_empty(0) && p.is_empty(1));
        p.push(0, 7);
        p.push(0, 8);
        p.push(0, 9);
        assert_eq!(p.iter(0).copied().collect::<Vec<_>>(), vec![7, 8, 9]);
        assert_eq!(p.total(), 3);
        assert_eq!(p.capacity(0), 3);
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn overflow_is_a_bug() {
        let mut p: RingPool<u8> = RingPool::new([1]);
        p.push(0, 1);
        p.push(0, 2);
    }
}
