//! Memory: the command's allocator counts the bytes it holds and refuses to go past the
//! memory the machine has, so a network too large for it ends with a message saying so
//! (exit code 3), never with an allocation abort or the kernel's OOM killer. Under the
//! count it is the engine's [`HugePages`]: large blocks on huge pages.
//!
//! The limit is `FLITSIM_MEMORY_LIMIT` (bytes, or with a K, M, G or T suffix) when set,
//! else the memory available when the command started (`MemAvailable` of
//! `/proc/meminfo`; no limit where that file does not exist). `flitsim validate` builds
//! the simulation state and prints the peak it took ([`peak`]).

use std::alloc::{GlobalAlloc, Layout};

use flitsim_core::huge_pages::HugePages;
use std::sync::atomic::{AtomicU64, Ordering};

/// The allocator of the `flitsim` command: [`HugePages`], counted and limited.
pub struct Counted;

static LIVE: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);
/// The limit in bytes; 0 until [`init`] ran (no limit).
static LIMIT: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed on to `HugePages` with the same arguments; the counters do
// not touch the memory.
unsafe impl GlobalAlloc for Counted {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        admit(layout.size());
        unsafe { HugePages.alloc(layout) }.or_refuse(layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        admit(layout.size());
        unsafe { HugePages.alloc_zeroed(layout) }.or_refuse(layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { HugePages.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as u64, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old {
            admit(new_size - old);
        }
        let p = unsafe { HugePages.realloc(ptr, layout, new_size) }.or_refuse(new_size);
        if new_size < old {
            LIVE.fetch_sub((old - new_size) as u64, Ordering::Relaxed);
        }
        p
    }
}

/// Count `size` more bytes, or end the command if they pass the limit.
fn admit(size: usize) {
    let live = LIVE.fetch_add(size as u64, Ordering::Relaxed) + size as u64;
    PEAK.fetch_max(live, Ordering::Relaxed);
    let limit = LIMIT.load(Ordering::Relaxed);
    if limit != 0 && live > limit {
        refuse(size as u64, live - size as u64, limit);
    }
}

trait OrRefuse {
    fn or_refuse(self, size: usize) -> Self;
}

impl OrRefuse for *mut u8 {
    /// The pointer, or the end of the command if the system had no memory to give.
    fn or_refuse(self, size: usize) -> Self {
        if self.is_null() {
            refuse(size as u64, LIVE.load(Ordering::Relaxed).saturating_sub(size as u64), 0);
        }
        self
    }
}

/// Say what ran out and exit with code 3. Allocates nothing (the message is formatted on
/// the stack) and calls no destructor.
fn refuse(size: u64, held: u64, limit: u64) -> ! {
    use std::io::Write;
    let mut buf = [0u8; 640];
    let mut w = &mut buf[..];
    let _ = write!(w, "error: out of memory: {} more for this simulation's state, on top of {} held, ", Bytes(size), Bytes(held));
    let _ = match limit {
        0 => write!(w, "and the system refused it"),
        l => write!(w, "passes the limit of {}", Bytes(l)),
    };
    let _ = writeln!(
        w,
        ". The network is too large for this machine: make it smaller, or run it where there is more memory (FLITSIM_MEMORY_LIMIT sets the limit; default, the memory available when flitsim started)."
    );
    let len = 640 - w.len();
    let _ = std::io::stderr().write_all(&buf[..len]);
    std::process::exit(3)
}

/// A byte count as people read it: "512 B", "3.4 MB", "94.1 GB" (powers of 1000).
#[derive(Clone, Copy)]
pub struct Bytes(pub u64);

impl std::fmt::Display for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const UNITS: [&str; 5] = ["kB", "MB", "GB", "TB", "PB"];
        if self.0 < 1000 {
            return write!(f, "{} B", self.0);
        }
        let mut v = self.0 as f64 / 1000.0;
        let mut u = 0;
        while v >= 1000.0 && u + 1 < UNITS.len() {
            v /= 1000.0;
            u += 1;
        }
        write!(f, "{v:.1} {}", UNITS[u])
    }
}

/// Set the limit: `FLITSIM_MEMORY_LIMIT`, else the memory available now. Call first in
/// `main`; an unreadable limit is an error naming the variable.
pub fn init() -> Result<(), String> {
    let limit = match std::env::var("FLITSIM_MEMORY_LIMIT") {
        Ok(v) => parse_size(&v).ok_or_else(|| {
            format!("FLITSIM_MEMORY_LIMIT={v:?} is not a size: give bytes, or a number with K, M, G or T (e.g. 8G), at least 1M")
        })?,
        Err(_) => available().map_or(0, |a| a + LIVE.load(Ordering::Relaxed)),
    };
    LIMIT.store(limit, Ordering::Relaxed);
    Ok(())
}

/// The most bytes held at once so far.
pub fn peak() -> u64 {
    PEAK.load(Ordering::Relaxed)
}

/// The bytes held now.
pub fn live() -> u64 {
    LIVE.load(Ordering::Relaxed)
}

/// The limit, if any.
pub fn limit() -> Option<u64> {
    Some(LIMIT.load(Ordering::Relaxed)).filter(|&l| l != 0)
}

/// Start measuring a peak from the bytes held now.
pub fn reset_peak() {
    PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
}

/// `MemAvailable` of `/proc/meminfo` in bytes.
fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// "123", "64K", "8M", "2G", "1T" (powers of 1024, K/k and so on) as bytes; at least 1 MiB.
fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, shift) = match s.chars().last()?.to_ascii_uppercase() {
        'K' => (&s[..s.len() - 1], 10),
        'M' => (&s[..s.len() - 1], 20),
        'G' => (&s[..s.len() - 1], 30),
        'T' => (&s[..s.len() - 1], 40),
        _ => (s, 0),
    };
    let n: u64 = digits.trim().parse().ok()?;
    n.checked_mul(1 << shift).filter(|&b| b >= 1 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(parse_size("8G"), Some(8 << 30));
        assert_eq!(parse_size("64m"), Some(64 << 20));
        assert_eq!(parse_size("1048576"), Some(1 << 20));
        assert_eq!(parse_size("2 T"), Some(2 << 40));
        for bad in ["", "G", "1.5G", "-1G", "100", "99999999999T"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn bytes_print_in_powers_of_a_thousand() {
        assert_eq!(Bytes(999).to_string(), "999 B");
        assert_eq!(Bytes(1500).to_string(), "1.5 kB");
        assert_eq!(Bytes(367_516_000).to_string(), "367.5 MB");
        assert_eq!(Bytes(94_100_000_000).to_string(), "94.1 GB");
        assert_eq!(Bytes(u64::MAX).to_string(), "18446.7 PB");
    }
}
