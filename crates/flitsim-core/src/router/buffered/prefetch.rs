//! Prefetching for the buffered-crossbar routers of large networks: a few routers ahead
//! of the one being stepped, ask the cache for its state, and (once that has arrived) for
//! the buffer slots the state points to. Hints only: no effect on results.

use super::BufferedRouters;
use crate::link::Channels;
use crate::router::allocator::take_lowest;
use crate::router::{prefetch, prefetch_ring_ends};

impl BufferedRouters {
    /// Ask the cache for the state router `r` reads in its step: its input VC states,
    /// the states of its staged buffers, its output and credit state, and its input
    /// channels' slots for this cycle. Hints only: no effect on results.
    #[inline(always)]
    pub(super) fn prefetch_state(&self, r: usize, ch: &Channels, now: u64) {
        let (p_n, v_n) = (self.ports as usize, self.vcs as usize);
        let rp = r * p_n;
        let base = rp * v_n;
        for i in (0..p_n * v_n).step_by(4) {
            prefetch(&self.ivc[base + i]);
        }
        for o in 0..p_n {
            let ob = (base + o * v_n) * p_n;
            let mut m = self.staged[rp + o];
            while m != 0 {
                prefetch(&self.stg[ob + take_lowest(&mut m)]);
            }
        }
        prefetch(&self.out[rp]);
        prefetch(&self.credits[base]);
        let mut m = self.poll[r].0;
        while m != 0 {
            let p = take_lowest(&mut m);
            prefetch(ch.flits.slot_of(self.wiring[rp + p].in_flits, now));
        }
    }

    /// Ask the cache for the buffer slots router `r` reads and writes: the front and
    /// back of each occupied input VC and the front of each staged buffer (their states
    /// were asked for earlier by [`BufferedRouters::prefetch_state`]).
    #[inline(always)]
    pub(super) fn prefetch_buffers(&self, r: usize) {
        let (p_n, v_n) = (self.ports as usize, self.vcs as usize);
        let rp = r * p_n;
        let base = rp * v_n;
        let (depth, sdepth) = (self.depth as usize, self.staging_depth as usize);
        let mut m = self.occ[r];
        while m != 0 {
            let li = take_lowest(&mut m);
            let st = &self.ivc[base + li];
            prefetch_ring_ends(&self.buf, (base + li) * depth, st.head as usize, st.len as usize, depth);
        }
        for o in 0..p_n {
            let ob = (base + o * v_n) * p_n;
            let mut m = self.staged[rp + o];
            while m != 0 {
                let li = take_lowest(&mut m);
                prefetch(&self.sbuf[(ob + li) * sdepth + self.stg[ob + li].head as usize]);
            }
        }
    }
}
