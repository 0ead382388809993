//! A pool of fixed-capacity ring buffers laid out in one contiguous allocation: the
//! storage behind channel delay lines. Ring bookkeeping is one 16-byte record per ring
//! (one cache line touch per operation). No allocation after build.

#[derive(Clone, Copy, Debug, Default)]
struct Meta {
    base: u32,
    cap: u32,
    head: u32,
    len: u32,
}

/// `n` rings of (possibly different) capacities in one `Vec`.
#[derive(Clone, Debug)]
pub struct RingPool<T> {
    data: Vec<T>,
    meta: Vec<Meta>,
    total: u64,
}

impl<T: Copy + Default> RingPool<T> {
    /// Rings with the given capacities.
    pub fn new(caps: impl IntoIterator<Item = u32>) -> Self {
        let mut meta = Vec::new();
        let mut total = 0u64;
        for c in caps {
            meta.push(Meta { base: total as u32, cap: c, head: 0, len: 0 });
            total += c as u64;
        }
        assert!(total < u32::MAX as u64, "ring pool too large");
        RingPool { data: vec![T::default(); total as usize], meta, total: 0 }
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
        self.meta[r].cap
    }
    /// Oldest entry of ring `r`.
    #[inline]
    pub fn front(&self, r: usize) -> Option<&T> {
        let m = self.meta[r];
        if m.len == 0 {
            None
        } else {
            Some(&self.data[(m.base + m.head) as usize])
        }
    }
    /// Append to ring `r`. Panics if full: callers account for space with credits, so a
    /// full ring here is a simulator bug, not a user error.
    #[inline]
    pub fn push(&mut self, r: usize, v: T) {
        let m = &mut self.meta[r];
        assert!(m.len < m.cap, "ring {r} overflow (capacity {})", m.cap);
        let mut pos = m.head + m.len;
        if pos >= m.cap {
            pos -= m.cap;
        }
        m.len += 1;
        let at = (m.base + pos) as usize;
        self.data[at] = v;
        self.total += 1;
    }
    /// Remove and return the oldest entry of ring `r`.
    #[inline]
    pub fn pop(&mut self, r: usize) -> Option<T> {
        let m = &mut self.meta[r];
        if m.len == 0 {
            return None;
        }
        let at = (m.base + m.head) as usize;
        m.head = if m.head + 1 == m.cap { 0 } else { m.head + 1 };
        m.len -= 1;
        self.total -= 1;
        Some(self.data[at])
    }
    /// Pop the oldest entry if `ready` says it may go.
    #[inline]
    pub fn pop_if(&mut self, r: usize, ready: impl Fn(&T) -> bool) -> Option<T> {
        let m = &mut self.meta[r];
        if m.len == 0 {
            return None;
        }
        let at = (m.base + m.head) as usize;
        let v = self.data[at];
        if !ready(&v) {
            return None;
        }
        m.head = if m.head + 1 == m.cap { 0 } else { m.head + 1 };
        m.len -= 1;
        self.total -= 1;
        Some(v)
    }
    /// Iterate ring `r` oldest first.
    pub fn iter(&self, r: usize) -> impl Iterator<Item = &T> + '_ {
        let m = self.meta[r];
        (0..m.len).map(move |i| {
            let mut p = m.head + i;
            if p >= m.cap {
                p -= m.cap;
            }
            &self.data[(m.base + p) as usize]
        })
    }
    /// Total entries over all rings.
    #[inline]
    pub fn total(&self) -> u64 {
        self.total
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
    }

    #[test]
    #[should_panic(expected = "overflow")]
    fn overflow_is_a_bug() {
        let mut p: RingPool<u8> = RingPool::new([1]);
        p.push(0, 1);
        p.push(0, 2);
    }
}
