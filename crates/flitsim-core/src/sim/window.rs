//! Lookahead windows of the partitioned engine: partitions step several cycles
//! between two hand-overs when nothing they send can arrive sooner.
//!
//! A flit a router sends in cycle `t` arrives at the next router no earlier than
//! `t + output delay + channel latency`, and a credit no earlier than `t + credit
//! delay`; the least of these over the network is its **lookahead** `W`. Whatever one
//! partition sends in a window of `W` cycles starting at `t0` arrives at `t0 + W` or
//! later, so the partitions may step the whole window independently and hand their
//! outboxes over once at its end: every entry is in place before the cycle it arrives
//! in, exactly as with a hand-over after every cycle (the two-phase rule). So the
//! partitions synchronise once per window, not once per cycle or per flit.
//!
//! Input-queued networks hand over cycle by cycle inside a window instead
//! ([`super::pipeline`]), so their windows are not bounded by the lookahead, only by
//! what follows.
//!
//! What the engine decides from the whole network between cycles bounds the windows:
//! they end where the measurement window opens and closes, at the watchdog's periodic
//! partial-deadlock search, by the first cycle the watchdog could trip in, at the
//! progress reports, and at the end of the measured run; the drain, whose end is
//! decided cycle by cycle, and runs that stop once a finite workload is done step one
//! cycle at a time. Networks with mechanisms read or decided
//! every cycle across partitions have a lookahead of 1: throttling and ALO (the
//! congestion controller's decision), Disha's token, retry links (both ends' copies take
//! each other's events before the next cycle), and links or nodes failing during the
//! run (the sources' routes change at a cycle). NIC dispersion does not need it: its
//! probes and their replies are packets, crossing partitions as flits.

use super::Simulation;
use crate::config::Spec;
use crate::error::Result;
use crate::link::Channels;
use crate::router::{RouterFamily, Routers};

/// Cycles between progress reports of [`Simulation::run`].
pub(super) const PROGRESS_EVERY: u64 = 4096;

/// The lookahead of `spec`'s network: how many cycles partitions may step between two
/// hand-overs (at least 1).
pub(super) fn lookahead(spec: &Spec, routers: &Routers, channels: &Channels) -> u64 {
    let cfg = &spec.config;
    if !routers.windowed() || cfg.congestion.policy != crate::congestion::Policy::None || !spec.timed_failures.is_empty() {
        return 1;
    }
    // Only channels between routers cross partitions (an endpoint is its router's).
    let between =
        |c: &usize| matches!((channels.src[*c], channels.dst[*c]), (crate::link::End::Router { .. }, crate::link::End::Router { .. }));
    let latency = (0..channels.latency.len()).filter(between).map(|c| channels.latency[c]).min().unwrap_or(1);
    u64::from((cfg.router.output_delay() + latency).min(cfg.router.credit_delay())).max(1)
}

impl Simulation {
    /// How many cycles the next step of the measured run may take, up to `end`.
    pub(super) fn window_len(&self, end: u64) -> u64 {
        let s = &self.spec.config.sim;
        if self.window <= 1 || s.until_done {
            return 1;
        }
        let now = self.now;
        let mut k = self.window.min(end - now);
        // Start a window where the measurement window opens and closes (the source
        // queues are sampled before those cycles) ...
        for b in [s.warmup, s.warmup + s.measure] {
            if b > now {
                k = k.min(b - now);
            }
        }
        // ... and end one with the cycle the partial-deadlock search follows, and before
        // a progress report.
        k = k.min(now.next_multiple_of(s.watchdog.max(1)) - now + 1);
        k = k.min((now + 1).next_multiple_of(PROGRESS_EVERY) - now);
        // ... and by the first cycle the watchdog could trip in (no flit moving from the
        // last progress on), so that a trip ends its window as it would end a cycle.
        k = k.min((self.counters.last_progress + s.watchdog).saturating_sub(now));
        k.max(1)
    }

    /// Hand over what crossed between partitions in the last cycle or window, if that is
    /// still pending ([`super::parallel::Parallel::settle`]): before reading the state of the
    /// partitions between cycles.
    pub(super) fn settle(&mut self) {
        if let Some(p) = &mut self.parallel {
            p.settle(&mut self.routers, &mut self.channels, &mut self.packets);
        }
    }

    /// Before cycle `now`: where the measurement window opens or closes, sample the
    /// packets waiting in the source queues (with every hand-over received).
    pub(super) fn sample_queues(&mut self, now: u64) {
        let s = &self.spec.config.sim;
        if now == s.warmup || now == s.warmup + s.measure {
            self.settle();
            let q = self.queued();
            if now == self.spec.config.sim.warmup {
                self.queue_at_window_start = q;
            } else {
                self.queue_at_window_end = q;
            }
        }
    }

    /// Simulate cycles `now .. now + k` (a lookahead window, `k` from
    /// [`Simulation::window_len`]).
    pub(super) fn step_window(&mut self, k: u64) -> Result<()> {
        let now = self.now;
        self.sample_queues(now);
        let open = crate::endpoint::Throttle::Open;
        let (counters, made) = if let Some(d) = &mut self.distributed {
            d.step(now, k, &self.spec, &mut self.routers, &mut self.channels, &mut self.endpoints, &mut self.packets, &mut self.stats, open)
        } else {
            let par = self.parallel.as_mut().expect("windows only when partitioned");
            par.step(
                now,
                k,
                &self.spec,
                &mut self.routers,
                &mut self.channels,
                &mut self.endpoints,
                &mut self.packets,
                &mut self.stats,
                open,
            )
        };
        self.counters = counters;
        self.measured_created += made;
        self.watch(now, now + k - 1)?;
        self.now += k;
        Ok(())
    }
}
