//! An allocator that backs large blocks with huge pages: the system's allocator, except
//! that a block of [`HUGE_FROM`] bytes or more is aligned to 2 MiB and, on Linux, marked
//! for transparent huge pages (`madvise(MADV_HUGEPAGE)`) before anything touches it.
//!
//! A large network's state (input buffers, VC records, channel slots, packet headers) is
//! tens to hundreds of megabytes, and a router's step reads a few lines from each of a
//! dozen arrays. With 4 KiB pages nearly every one of those reads also misses the TLB;
//! with 2 MiB pages the whole state needs a few hundred entries. Where the kernel gives
//! huge pages only on request (`/sys/kernel/mm/transparent_hugepage/enabled` =
//! `madvise`, a common default), this is the request. Small blocks are the system's own.
//!
//! The binaries install it as their global allocator (the command line under its
//! memory limit, [`HugePages`] directly in the Python module); a library using the crate
//! may do the same. It changes no result, only where memory lies.

use std::alloc::{GlobalAlloc, Layout, System};

/// Blocks of this many bytes or more get huge pages.
pub const HUGE_FROM: usize = 2 << 20;

/// Alignment of a large block: one huge page, so that its pages are whole huge pages.
const HUGE_ALIGN: usize = 2 << 20;

/// The system's allocator, with huge pages for large blocks (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct HugePages;

/// The layout a block of `layout` is allocated with: huge-page aligned when large.
#[inline]
fn placed(layout: Layout) -> Layout {
    if layout.size() >= HUGE_FROM && layout.align() < HUGE_ALIGN {
        // (A size that fits a Layout stays valid at a larger power-of-two alignment
        // unless it is within 2 MiB of isize::MAX, which no allocation reaches.)
        Layout::from_size_align(layout.size(), HUGE_ALIGN).unwrap_or(layout)
    } else {
        layout
    }
}

/// Ask the kernel to back the `size` bytes at `ptr` with huge pages (a hint: an error,
/// e.g. a kernel without transparent huge pages, changes nothing).
#[inline]
fn advise(ptr: *mut u8, size: usize) {
    #[cfg(target_os = "linux")]
    if !ptr.is_null() && size >= HUGE_FROM {
        // SAFETY: the range is the block just allocated (`ptr` is page aligned, as every
        // large block is); the advice changes how the kernel backs it, not its contents.
        unsafe {
            libc::madvise(ptr.cast(), size, libc::MADV_HUGEPAGE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, size);
}

// SAFETY: every block is allocated and freed by `System` with the same layout
// (`placed`), which only raises the alignment of large blocks; `realloc` moves a large
// block by allocating, copying and freeing with those layouts.
unsafe impl GlobalAlloc for HugePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(placed(layout)) };
        advise(p, layout.size());
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(placed(layout)) };
        advise(p, layout.size());
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, placed(layout)) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.size() < HUGE_FROM && new_size < HUGE_FROM {
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        // SAFETY (of the layout): the caller guarantees `new_size`, rounded up to the
        // alignment, does not overflow isize.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        let p = unsafe { self.alloc(new) };
        if !p.is_null() {
            // SAFETY: both blocks are live and distinct, and each holds at least the
            // bytes copied.
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Allocate, grow past and shrink below the threshold through the allocator, and
    /// check the alignment of large blocks and that every move keeps the contents.
    #[test]
    fn large_blocks_are_huge_page_aligned_and_moves_keep_their_bytes() {
        let a = HugePages;
        let small = Layout::from_size_align(1000, 8).unwrap();
        unsafe {
            let p = a.alloc(small);
            assert!(!p.is_null());
            for i in 0..1000 {
                *p.add(i) = (i % 251) as u8;
            }
            // Grow to a large block: moved, aligned, the first 1,000 bytes kept.
            let big = 3 << 20;
            let q = a.realloc(p, small, big);
            assert_eq!(q as usize % HUGE_ALIGN, 0);
            assert!((0..1000).all(|i| *q.add(i) == (i % 251) as u8));
            *q.add(big - 1) = 7;
            // Grow a large block further, then shrink it below the threshold.
            let bigger = 5 << 20;
            let r = a.realloc(q, Layout::from_size_align(big, 8).unwrap(), bigger);
            assert_eq!(r as usize % HUGE_ALIGN, 0);
            assert!((0..1000).all(|i| *r.add(i) == (i % 251) as u8));
            assert_eq!(*r.add(big - 1), 7);
            let s = a.realloc(r, Layout::from_size_align(bigger, 8).unwrap(), 500);
            assert!((0..500).all(|i| *s.add(i) == (i % 251) as u8));
            a.dealloc(s, Layout::from_size_align(500, 8).unwrap());
            // A zeroed large block is zero.
            let z = Layout::from_size_align(HUGE_FROM, 64).unwrap();
            let p = a.alloc_zeroed(z);
            assert_eq!(p as usize % HUGE_ALIGN, 0);
            assert!((0..HUGE_FROM).step_by(4093).all(|i| *p.add(i) == 0));
            a.dealloc(p, z);
        }
    }
}
