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
    // Branch-free: rotated right by `ptr`, bit `ptr` is bit 0, and the lowest set bit
    // is the first requester at or after the pointer, counted from it (the rotation
    // wraps over all 64 bits; the bits past the last requester are clear).
    (mask.rotate_right(ptr).trailing_zeros() + ptr) & 63
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
    fn the_winner_is_the_first_requester_scanning_from_the_pointer() {
        // The definition, as a scan: bits ptr, ptr + 1, ..., 63, 0, 1, ... in turn.
        let scan = |mask: u64, ptr: u32| (0..64).map(|k| (ptr + k) % 64).find(|&b| mask >> b & 1 == 1).unwrap();
        for low in 1u64..256 {
            for mask in [low, low << 28, low << 56 | 1, low.rotate_right(4)] {
                for ptr in 0..64 {
                    assert_eq!(round_robin(mask, ptr), scan(mask, ptr), "mask {mask:#x} ptr {ptr}");
                }
            }
        }
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
