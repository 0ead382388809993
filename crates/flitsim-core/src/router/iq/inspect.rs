//! Read access to the input-queued routers' state, and the switches that change how
//! they step but never what they compute (prefetching, 128-bit VC sets): for the engine's
//! checks and reports, tests and profiling.

use super::IqRouters;
use crate::link::Flit;
use crate::router::IqConfig;

impl IqRouters {
    /// The configuration these routers were built with.
    pub fn config(&self) -> &IqConfig {
        &self.cfg
    }

    /// Does [`IqRouters::step`] prefetch (see the module docs)? Chosen at build from
    /// the size of the network.
    pub fn prefetching(&self) -> bool {
        self.prefetch
    }

    /// Turn prefetching on or off (it never changes results; tests check that).
    pub fn set_prefetching(&mut self, on: bool) {
        self.prefetch = on;
    }

    /// Step on 128-bit VC sets even if the routers have at most 64 input VCs. Results
    /// are the same (tests check that: it is how the wide step is tested on every
    /// shape); it is only slower.
    pub fn use_wide_sets(&mut self) {
        self.lanes.widen(&self.cfg, self.ports, self.vcs);
    }

    /// Does the step work on 128-bit VC sets (routers of more than 64 input VCs, or
    /// [`IqRouters::use_wide_sets`])?
    pub fn wide_sets(&self) -> bool {
        self.lanes.is_wide()
    }

    /// Flits in input VC buffer `i` (global input-VC index).
    #[inline]
    pub fn buffer_len(&self, i: usize) -> u32 {
        self.ivc[i].len as u32
    }

    /// Front flit of input VC buffer `i`.
    #[inline]
    pub fn buffer_front(&self, i: usize) -> Option<Flit> {
        let st = &self.ivc[i];
        (st.len > 0).then(|| self.buf[st.front_slot(i, self.depth as usize)])
    }

    /// Flits buffered in all routers.
    pub fn total_buffered(&self) -> u64 {
        self.ivc.iter().map(|s| s.len as u64).sum()
    }

    /// Flits buffered in router `r`'s input VCs.
    pub fn buffered(&self, r: u32) -> u64 {
        let base = (r * self.ports * self.vcs) as usize;
        (base..base + (self.ports * self.vcs) as usize).map(|i| self.ivc[i].len as u64).sum()
    }
}
