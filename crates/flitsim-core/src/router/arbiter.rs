//! Round-robin arbitration over request bit masks.
//!
//! An arbiter holds a pointer; the winner is the first requester at or after the
//! pointer (wrapping). The caller advances the pointer past the winner only when the
//! grant is actually used, which is what makes round-robin fair.

/// Winner among the set bits of `mask` (non-zero), searching from bit `ptr` upward and
/// wrapping. `ptr` must be < 64.
#[inline]
pub fn round_robin(mask: u64, ptr: u32) -> u32 {
    debug_assert!(mask != 0 && ptr < 64);
    let at_or_after = mask & (u64::MAX << ptr);
    if at_or_after != 0 {
        at_or_after.trailing_zeros()
    } else {
        mask.trailing_zeros()
    }
}

/// The pointer value after granting `winner` among `n` requesters.
#[inline]
pub fn next_ptr(winner: u32, n: u32) -> u32 {
    let next = winner + 1;
    // Branch-free: `next` when below `n`, else 0.
    next & ((next >= n) as u32).wrapping_sub(1)
}

/// Among `n` requesters (n may exceed 64), the one with the smallest round-robin
/// distance from `ptr`.
#[inline]
pub fn rr_distance(candidate: u32, ptr: u32, n: u32) -> u32 {
    if candidate >= ptr {
        candidate - ptr
    } else {
        candidate + n - ptr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_first_at_or_after_pointer() {
        assert_eq!(round_robin(0b1010, 0), 1);
        assert_eq!(round_robin(0b1010, 2), 3);
        assert_eq!(round_robin(0b1010, 3), 3);
        assert_eq!(round_robin(0b1010, 4), 1);
        assert_eq!(round_robin(1 << 63, 5), 63);
    }

    #[test]
    fn rotating_pointer_serves_everyone_equally() {
        let mut ptr = 0;
        let mut wins = [0u32; 5];
        for _ in 0..500 {
            let w = round_robin(0b11111, ptr);
            wins[w as usize] += 1;
            ptr = next_ptr(w, 5);
        }
        assert_eq!(wins, [100; 5]);
        assert_eq!(rr_distance(1, 3, 5), 3);
        assert_eq!(rr_distance(4, 3, 5), 1);
    }
}
