//! The team of persistent threads that steps the partitions of one simulation
//! ([`super::parallel`]): one worker per partition after the first, started once and
//! kept for the whole run, meeting the calling thread (which steps partition 0) at every
//! hand-over.
//!
//! A network of a few dozen routers does ~10 microseconds of work per cycle and its
//! partitions meet every cycle, so the meeting must cost far less than that: a pool that
//! puts its threads to sleep between jobs (waking one is a system call and a few
//! microseconds) makes two threads slower than one. The workers here wait for the next
//! job by spinning on an atomic epoch counter for up to [`SPIN`], then yielding for up to
//! [`YIELD`], and only then parking; the caller wakes parked workers when it publishes a
//! job, so no wake-up is lost. When there are more threads than cores, spinning would
//! take the core from a thread with work, so the workers and the caller only yield.
//!
//! A job is a closure run on every worker with its own element of a slice, while the
//! caller runs its own part; [`Team::run`] returns only when every worker has finished
//! (also when the caller's part panics), so the closure and the slice may borrow from
//! the caller's stack. A panic on a worker is carried over and resumed on the caller.

use crossbeam_utils::CachePadded;
use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long a waiting thread spins before it starts yielding its core.
pub const SPIN: Duration = Duration::from_micros(200);
/// How long a waiting worker yields before it parks until the next job.
pub const YIELD: Duration = Duration::from_millis(2);

/// A published job, type-erased: `call(data, i)` runs it on worker `i`.
#[derive(Clone, Copy)]
struct Job {
    call: unsafe fn(*const (), usize),
    data: *const (),
}

/// What the caller and the workers share.
struct Shared {
    /// Incremented (release) when a job is published; a worker runs one job per change.
    epoch: CachePadded<AtomicU64>,
    /// Workers still running the current job; each decrements it (release) when done.
    pending: CachePadded<AtomicUsize>,
    /// The current job: written by the caller only while `pending` is 0 and before the
    /// epoch changes, read by the workers only after they see the change.
    job: UnsafeCell<Job>,
    quit: AtomicBool,
    /// The first panic of a worker in the current job.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// Do waiting threads spin (false when there are more threads than cores)?
    spin: bool,
}

// SAFETY: `job` is accessed under the epoch/pending protocol described on the field; the
// pointer it holds is only dereferenced while the caller of `Team::run` keeps the data
// alive and borrowed for the workers.
unsafe impl Sync for Shared {}
unsafe impl Send for Shared {}

/// Persistent worker threads (see the module docs).
pub struct Team {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<()>>,
}

/// Wait, spinning then yielding, until `done()`.
pub(super) fn wait_until(spin: bool, done: impl Fn() -> bool) {
    if done() {
        return;
    }
    // (The clock is read only after the first 256 spins: most waits end sooner.)
    let mut start = None;
    let mut n = 0u32;
    while !done() {
        n = n.wrapping_add(1);
        if spin && (!n.is_multiple_of(256) || start.get_or_insert_with(Instant::now).elapsed() < SPIN) {
            std::hint::spin_loop();
        } else {
            thread::yield_now();
        }
    }
}

impl Team {
    /// Start `workers` threads named `{name}-1`, `{name}-2`, ... (the caller is 0).
    pub fn new(workers: usize, name: &str) -> std::io::Result<Team> {
        let cores = thread::available_parallelism().map_or(1, |n| n.get());
        let nop = Job { call: |_, _| {}, data: std::ptr::null() };
        let shared = Arc::new(Shared {
            epoch: CachePadded::new(AtomicU64::new(0)),
            pending: CachePadded::new(AtomicUsize::new(0)),
            job: UnsafeCell::new(nop),
            quit: AtomicBool::new(false),
            panic: Mutex::new(None),
            spin: workers < cores && std::env::var_os("FLITSIM_NOSPIN").is_none(),
        });
        let mut team = Team { shared, handles: Vec::with_capacity(workers) };
        for i in 0..workers {
            let shared = Arc::clone(&team.shared);
            let h = thread::Builder::new().name(format!("{name}-{}", i + 1)).spawn(move || work(&shared, i))?;
            team.handles.push(h);
        }
        Ok(team)
    }

    /// Do waiting threads spin (false when there are more threads than cores)?
    pub fn spins(&self) -> bool {
        self.shared.spin
    }

    /// Run `job(&mut items[i])` on worker `i` for every item (one per worker) while the
    /// calling thread runs `lead`; return `lead`'s result once every worker is done.
    pub fn run<T: Send, F: Fn(&mut T) + Sync, R>(&self, items: &mut [T], job: &F, lead: impl FnOnce() -> R) -> R {
        assert_eq!(items.len(), self.handles.len(), "one item per worker");
        if items.is_empty() {
            return lead();
        }
        struct Ctx<'a, T, F> {
            items: *mut T,
            job: &'a F,
        }
        /// # Safety
        /// `data` points to a live `Ctx<T, F>` and no other thread touches `items[i]`.
        unsafe fn call<T, F: Fn(&mut T)>(data: *const (), i: usize) {
            let ctx = &*(data as *const Ctx<'_, T, F>);
            (ctx.job)(&mut *ctx.items.add(i));
        }
        let ctx = Ctx { items: items.as_mut_ptr(), job };
        let s = &*self.shared;
        // SAFETY: no worker reads `job` now (the last job finished: `pending` is 0), and
        // `ctx` outlives the job: `Finish` below waits for every worker, also on unwind.
        unsafe { *s.job.get() = Job { call: call::<T, F>, data: &ctx as *const Ctx<'_, T, F> as *const () } };
        s.pending.store(items.len(), Ordering::Relaxed);
        s.epoch.fetch_add(1, Ordering::Release);
        for h in &self.handles {
            h.thread().unpark();
        }
        struct Finish<'a>(&'a Shared);
        impl Drop for Finish<'_> {
            fn drop(&mut self) {
                let s = self.0;
                wait_until(s.spin, || s.pending.load(Ordering::Acquire) == 0);
            }
        }
        let finish = Finish(s);
        let r = lead();
        drop(finish);
        if let Some(p) = s.panic.lock().unwrap_or_else(|e| e.into_inner()).take() {
            resume_unwind(p);
        }
        r
    }
}

/// A worker's loop: wait for each new epoch and run its job, until told to quit.
fn work(s: &Shared, i: usize) {
    let mut seen = 0;
    loop {
        let start = Instant::now();
        let mut n = 0u32;
        loop {
            let e = s.epoch.load(Ordering::Acquire);
            if e != seen {
                seen = e;
                break;
            }
            n = n.wrapping_add(1);
            if !n.is_multiple_of(256) {
                if s.spin {
                    std::hint::spin_loop();
                } else {
                    thread::yield_now();
                }
                continue;
            }
            let waited = start.elapsed();
            if s.spin && waited < SPIN {
                std::hint::spin_loop();
            } else if waited < SPIN + YIELD {
                thread::yield_now();
            } else {
                // The caller unparks every worker after publishing a job, so a job
                // published before this call leaves the token set: no wake-up is lost.
                thread::park();
            }
        }
        if s.quit.load(Ordering::Acquire) {
            return;
        }
        // SAFETY: the epoch changed (acquire), so the caller wrote `job` before it and
        // waits for `pending` before touching the data again.
        let job = unsafe { *s.job.get() };
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| unsafe { (job.call)(job.data, i) })) {
            s.panic.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(p);
        }
        s.pending.fetch_sub(1, Ordering::Release);
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        self.shared.quit.store(true, Ordering::Release);
        self.shared.epoch.fetch_add(1, Ordering::Release);
        for h in self.handles.drain(..) {
            h.thread().unpark();
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_worker_runs_its_own_item_and_the_caller_its_part() {
        let team = Team::new(3, "t").unwrap();
        let mut items = vec![1u64, 10, 100];
        for round in 0..1000u64 {
            let total = team.run(&mut items, &|x: &mut u64| *x += round, || round * 2);
            assert_eq!(total, round * 2);
        }
        let sum: u64 = (0..1000).sum();
        assert_eq!(items, vec![1 + sum, 10 + sum, 100 + sum]);
    }

    #[test]
    fn a_worker_panic_reaches_the_caller_and_the_team_goes_on() {
        let team = Team::new(2, "t").unwrap();
        let mut items = vec![0u32, 1];
        let r = catch_unwind(AssertUnwindSafe(|| team.run(&mut items, &|x: &mut u32| assert!(*x == 0, "item {x}"), || ())));
        assert!(r.is_err());
        let mut seen = vec![0u32, 0];
        team.run(&mut seen, &|x: &mut u32| *x = 7, || ());
        assert_eq!(seen, vec![7, 7]);
    }

    #[test]
    fn workers_parked_after_a_long_wait_wake_for_the_next_job() {
        let team = Team::new(1, "t").unwrap();
        let mut items = vec![0u32];
        team.run(&mut items, &|x: &mut u32| *x += 1, || ());
        thread::sleep(SPIN + YIELD + Duration::from_millis(20));
        team.run(&mut items, &|x: &mut u32| *x += 1, || ());
        assert_eq!(items, vec![2]);
    }
}
