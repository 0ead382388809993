//! Sets of one router's virtual channels as bit masks: [`VcSet`], implemented by `u64`
//! (routers of up to 64 input VCs, `ports x vcs`) and `u128` (up to 128).
//!
//! The input-queued router's stages (receive, route, VC and switch allocation, switch
//! traversal) each work on such a set, bit `port * vcs + vc`. The step is compiled once
//! per width, so a 5-port router with 4 VCs runs on `u64` exactly as before the wide sets
//! existed, and a 31-port dragonfly router with 4 VCs (124 input VCs) on `u128`.

use std::fmt::Debug;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not, Shl, Shr};

/// A set of a router's input or output VCs (bit `port * vcs + vc`).
pub trait VcSet:
    Copy
    + Default
    + Eq
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + Shl<usize, Output = Self>
    + Shr<usize, Output = Self>
{
    /// Members a set can hold.
    const BITS: usize;
    /// The empty set.
    const EMPTY: Self;

    /// `{i}` (`i < BITS`).
    fn bit(i: usize) -> Self;

    /// `{i}` when `on`, else empty (without a branch).
    fn bit_if(on: bool, i: usize) -> Self;

    /// `{0, .., n - 1}` (`n <= BITS`).
    fn low(n: usize) -> Self;

    /// Every member when `on`, else empty (a mask, without a branch).
    fn all_if(on: bool) -> Self;

    /// Is `i` a member?
    fn has(self, i: usize) -> bool;

    /// Is the set empty?
    fn is_empty(self) -> bool;

    /// The smallest member (the set is not empty), below `BITS`.
    fn lowest(self) -> usize;

    /// Remove the smallest member (the set is not empty) and return it.
    fn take_lowest(&mut self) -> usize;

    /// The set with members `m` (all below 64).
    fn from_u64(m: u64) -> Self;

    /// The members below 64 (for sets of at most 64 members, e.g. one port's VCs
    /// shifted down).
    fn low_u64(self) -> u64;

    /// Round-robin winner among the members (the set is not empty): the first at or
    /// after `ptr` (`< BITS`), wrapping.
    fn round_robin(self, ptr: u32) -> u32;
}

macro_rules! vc_set {
    ($t:ty) => {
        impl VcSet for $t {
            const BITS: usize = <$t>::BITS as usize;
            const EMPTY: Self = 0;

            #[inline(always)]
            fn bit(i: usize) -> Self {
                1 << (i & (<Self as VcSet>::BITS - 1))
            }

            #[inline(always)]
            fn bit_if(on: bool, i: usize) -> Self {
                (on as $t) << (i & (<Self as VcSet>::BITS - 1))
            }

            #[inline(always)]
            fn low(n: usize) -> Self {
                if n >= <Self as VcSet>::BITS {
                    <$t>::MAX
                } else {
                    ((1 as $t) << n) - 1
                }
            }

            #[inline(always)]
            fn all_if(on: bool) -> Self {
                (on as $t).wrapping_neg()
            }

            #[inline(always)]
            fn has(self, i: usize) -> bool {
                self >> (i & (<Self as VcSet>::BITS - 1)) & 1 != 0
            }

            #[inline(always)]
            fn is_empty(self) -> bool {
                self == 0
            }

            #[inline(always)]
            fn lowest(self) -> usize {
                debug_assert!(self != 0);
                self.trailing_zeros() as usize & (<Self as VcSet>::BITS - 1)
            }

            #[inline(always)]
            fn take_lowest(&mut self) -> usize {
                let i = self.lowest();
                *self &= *self - 1;
                i
            }

            #[inline(always)]
            fn from_u64(m: u64) -> Self {
                m as $t
            }

            #[inline(always)]
            fn low_u64(self) -> u64 {
                self as u64
            }

            #[inline(always)]
            fn round_robin(self, ptr: u32) -> u32 {
                debug_assert!(self != 0 && (ptr as usize) < <Self as VcSet>::BITS);
                // Rotated right by `ptr`, bit `ptr` is bit 0, and the lowest member is
                // the first at or after the pointer, counted from it.
                (self.rotate_right(ptr).trailing_zeros() + ptr) & (<Self as VcSet>::BITS as u32 - 1)
            }
        }
    };
}

vc_set!(u64);
vc_set!(u128);

#[cfg(test)]
mod tests {
    use super::*;

    /// The definitions, as scans over the members.
    fn check<B: VcSet>(members: &[usize]) {
        let set = members.iter().fold(B::EMPTY, |s, &i| s | B::bit(i));
        assert_eq!(set.is_empty(), members.is_empty());
        for i in 0..B::BITS {
            assert_eq!(set.has(i), members.contains(&i), "member {i}");
        }
        if members.is_empty() {
            return;
        }
        let mut sorted = members.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(set.lowest(), sorted[0]);
        let mut s = set;
        let taken: Vec<usize> = std::iter::from_fn(|| (!s.is_empty()).then(|| s.take_lowest())).collect();
        assert_eq!(taken, sorted);
        for ptr in 0..B::BITS as u32 {
            let scan = (0..B::BITS).map(|k| (ptr as usize + k) % B::BITS).find(|&b| sorted.contains(&b)).unwrap();
            assert_eq!(set.round_robin(ptr) as usize, scan, "{members:?} from {ptr}");
        }
    }

    #[test]
    fn members_order_and_round_robin_match_a_scan() {
        for members in [&[][..], &[0], &[63], &[5, 17, 40], &[0, 1, 2, 3, 62, 63]] {
            check::<u64>(members);
            check::<u128>(members);
        }
        for members in [&[64][..], &[127], &[3, 64, 100, 127], &[63, 64]] {
            check::<u128>(members);
        }
    }

    #[test]
    fn masks() {
        assert_eq!(<u64 as VcSet>::low(0), 0);
        assert_eq!(<u64 as VcSet>::low(5), 0b11111);
        assert_eq!(<u64 as VcSet>::low(64), u64::MAX);
        assert_eq!(<u128 as VcSet>::low(64), u64::MAX as u128);
        assert_eq!(<u128 as VcSet>::low(100), (1u128 << 100) - 1);
        assert_eq!(<u128 as VcSet>::low(128), u128::MAX);
        assert_eq!(<u128 as VcSet>::bit_if(true, 90), 1u128 << 90);
        assert_eq!(<u128 as VcSet>::bit_if(false, 90), 0);
        assert_eq!(<u128 as VcSet>::all_if(true), u128::MAX);
        assert_eq!(<u64 as VcSet>::all_if(false), 0);
        assert_eq!(<u128 as VcSet>::low_u64((1u128 << 70) | 5), 5);
    }
}
