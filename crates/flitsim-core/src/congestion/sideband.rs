//! The side-band's snapshots and the global congestion estimate (Thottethodi, Lebeck and
//! Mukherjee, *Self-Tuned Congestion Control*, section 3.1).
//!
//! Every `g` cycles (the gather duration) each node puts its count of full buffers and of
//! flits delivered on the side-band; dimension-wise aggregation (Fig. 2) makes the
//! network-wide sum known to every node `g` cycles later. So the snapshot sampled at cycle
//! `m g` is *usable* from cycle `(m + 1) g` on, never earlier, and at any cycle `t` the
//! newest usable snapshot `S1` was sampled at `t1` with `t - t1` in `[g, 2g)`.
//!
//! The estimate of the full buffers at cycle `t` is, with `S2` the snapshot before `S1`
//! (sampled at `t2 = t1 - g`):
//!
//! - [`Estimate::Extrapolate`] (the paper's choice): the linear extrapolation
//!   `S1 + (S1 - S2) (t - t1) / (t1 - t2)`, i.e. the line through the two newest usable
//!   snapshots carried forward to the present. With only one usable snapshot it is `S1`.
//! - [`Estimate::Last`] (the paper's "previous snapshot" baseline): `S1`.
//!
//! With no usable snapshot the estimate is 0 (nothing is known; no source is throttled).
//! The throttle test `estimate > T` is evaluated exactly in integers,
//! `S1 (t1 - t2) + (S1 - S2)(t - t1) > T (t1 - t2)`, never in floating point, so a run
//! decides the same way on every machine. The extrapolation is not clamped: it may fall
//! below 0 (never above any threshold) or rise above the number of buffers (the paper
//! is silent on both).

use super::Estimate;

/// One side-band snapshot: network-wide aggregates sampled at `cycle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// The cycle it was sampled at (a multiple of `g`).
    pub cycle: u64,
    /// Buffers counted (full, or occupied: see [`super::Count`]) at the start of `cycle`.
    pub full: u32,
    /// Flits delivered to endpoints since the previous sample (the past `g` cycles; 0 for
    /// the sample at cycle 0).
    pub delivered: u64,
}

/// The side-band as the nodes see it: the snapshot still travelling and the two newest
/// usable ones.
#[derive(Clone, Debug)]
pub struct Sideband {
    gather: u64,
    estimate: Estimate,
    /// Sampled, not yet usable (usable from `cycle + g`).
    travelling: Option<Snapshot>,
    /// The newest usable snapshot, `S1`.
    latest: Option<Snapshot>,
    /// The usable snapshot before `latest`, `S2`.
    before: Option<Snapshot>,
}

impl Sideband {
    /// An empty side-band with gather duration `gather` (>= 1) cycles.
    pub fn new(gather: u32, estimate: Estimate) -> Self {
        Sideband { gather: u64::from(gather.max(1)), estimate, travelling: None, latest: None, before: None }
    }

    /// Put the sample of cycle `now` on the side-band. Returns the snapshot that becomes
    /// usable at `now` (the one sampled `g` cycles earlier), if any.
    pub fn sample(&mut self, now: u64, full: u32, delivered: u64) -> Option<Snapshot> {
        let arrived = self.travelling.take_if(|s| now >= s.cycle + self.gather);
        if let Some(s) = arrived {
            self.before = self.latest.replace(s);
        }
        debug_assert!(self.travelling.is_none(), "side-band samples must be g = {} cycles apart", self.gather);
        self.travelling = Some(Snapshot { cycle: now, full, delivered });
        arrived
    }

    /// `(S1, S2)`: the newest usable snapshot at cycle `now` and the one before it.
    fn usable(&self, now: u64) -> (Option<Snapshot>, Option<Snapshot>) {
        match self.travelling {
            Some(s) if now >= s.cycle + self.gather => (Some(s), self.latest),
            _ => (self.latest, self.before),
        }
    }

    /// The newest snapshot usable at cycle `now`.
    pub fn latest(&self, now: u64) -> Option<Snapshot> {
        self.usable(now).0
    }

    /// The estimate at cycle `now` as a fraction `(numerator, denominator)` with a positive
    /// denominator: `S1 d + (S1 - S2)(now - t1)` over `d = t1 - t2`.
    fn fraction(&self, now: u64) -> (i128, i128) {
        let (s1, s2) = self.usable(now);
        fraction(self.estimate, s1, s2, now)
    }

    /// Whether the estimate at cycle `now` is strictly above `threshold` (exact integers).
    pub fn exceeds(&self, now: u64, threshold: u32) -> bool {
        let (num, den) = self.fraction(now);
        num > i128::from(threshold) * den
    }

    /// The estimate at cycle `now`, for reports only (decisions use [`Sideband::exceeds`]).
    pub fn estimate(&self, now: u64) -> f64 {
        let (num, den) = self.fraction(now);
        num as f64 / den as f64
    }
}

/// The estimate at cycle `now` from the newest snapshot `s1` and the one before it `s2`,
/// as a fraction `(numerator, denominator)` with a positive denominator:
/// `S1 d + (S1 - S2)(now - t1)` over `d = t1 - t2` (extrapolation), or `S1` (last, or
/// only one snapshot), or 0 (none).
pub(crate) fn fraction(estimate: Estimate, s1: Option<Snapshot>, s2: Option<Snapshot>, now: u64) -> (i128, i128) {
    match (estimate, s1, s2) {
        (_, None, _) => (0, 1),
        (Estimate::Last, Some(s1), _) | (Estimate::Extrapolate, Some(s1), None) => (i128::from(s1.full), 1),
        (Estimate::Extrapolate, Some(s1), Some(s2)) => {
            let d = i128::from(s1.cycle - s2.cycle).max(1);
            let slope = i128::from(s1.full) - i128::from(s2.full);
            let ahead = i128::from(now.saturating_sub(s1.cycle));
            (i128::from(s1.full) * d + slope * ahead, d)
        }
    }
}

/// The extrapolation test on its own: is `S1 + (S1 - S2)(t - t1) / g > threshold`, for
/// snapshots `s2` (sampled at `t1 - g`) and `s1` (at `t1`) and `ahead = t - t1`?
pub fn extrapolation_exceeds(s2: u32, s1: u32, gather: u32, ahead: u64, threshold: u32) -> bool {
    let g = i128::from(gather);
    i128::from(s1) * g + (i128::from(s1) - i128::from(s2)) * i128::from(ahead) > i128::from(threshold) * g
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arithmetic of the extrapolation: 100 then 160, g = 32, 16 cycles past the newer
    /// sample: 160 + 60 * 16 / 32 = 190, which exceeds 189 and not 190.
    #[test]
    fn extrapolation_hand_worked() {
        assert!(extrapolation_exceeds(100, 160, 32, 16, 189));
        assert!(!extrapolation_exceeds(100, 160, 32, 16, 190));
        // Falling counts extrapolate downwards: 160 then 100 -> 100 - 60 * 16 / 32 = 70.
        assert!(extrapolation_exceeds(160, 100, 32, 16, 69));
        assert!(!extrapolation_exceeds(160, 100, 32, 16, 70));
        // Fractions are exact: 100 then 101, 16 cycles on -> 101.5, above 101 (a truncated
        // estimate, 101, would not be) and not above 102.
        assert!(extrapolation_exceeds(100, 101, 32, 16, 101));
        assert!(!extrapolation_exceeds(100, 101, 32, 16, 102));
    }

    /// A snapshot sampled at m g is not usable before (m + 1) g.
    #[test]
    fn snapshot_usable_one_gather_later() {
        let mut s = Sideband::new(32, Estimate::Last);
        assert_eq!(s.sample(0, 500, 0), None);
        for t in 0..32 {
            assert_eq!(s.latest(t), None, "cycle {t}");
            assert!(!s.exceeds(t, 0), "cycle {t}: nothing is known yet, estimate 0");
        }
        assert_eq!(s.latest(32).map(|x| x.full), Some(500), "usable at exactly g");
        let arrived = s.sample(32, 700, 9);
        assert_eq!(arrived, Some(Snapshot { cycle: 0, full: 500, delivered: 0 }));
        for t in 32..64 {
            assert_eq!(s.latest(t).map(|x| x.cycle), Some(0), "cycle {t}: the sample of cycle 32 is still travelling");
            assert!(s.exceeds(t, 499) && !s.exceeds(t, 500));
        }
        assert_eq!(s.latest(64).map(|x| x.full), Some(700));
        assert_eq!(s.sample(64, 0, 0).map(|x| x.cycle), Some(32));
        assert!(s.exceeds(64, 699) && !s.exceeds(64, 700));
    }

    /// The extrapolation on the side-band's own timing: samples 100 (cycle 0) and 160
    /// (cycle 32) are both usable from cycle 64, where the estimate is 160 + 60 = 220;
    /// at cycle 80 it is 160 + 60 * 48 / 32 = 250. Before cycle 64 only the sample of
    /// cycle 0 is usable and the estimate is 100 (one snapshot: no slope).
    #[test]
    fn extrapolation_on_side_band_timing() {
        let mut s = Sideband::new(32, Estimate::Extrapolate);
        s.sample(0, 100, 0);
        s.sample(32, 160, 0);
        for t in 32..64 {
            assert!(s.exceeds(t, 99) && !s.exceeds(t, 100), "cycle {t}");
        }
        s.sample(64, 0, 0); // travelling until 96: does not affect cycles 64..96
        assert!(s.exceeds(64, 219) && !s.exceeds(64, 220));
        assert!(s.exceeds(80, 249) && !s.exceeds(80, 250));
        assert_eq!(s.estimate(80), 250.0);
        assert!(s.exceeds(95, 0));
        // At 96 the sample of 64 (0 full) arrives: 0 + (0 - 160) * 32 / 32 = -160.
        assert_eq!(s.estimate(96), -160.0);
        assert!(!s.exceeds(96, 0));
    }

    /// "last" ignores the slope.
    #[test]
    fn last_snapshot_estimate() {
        let mut s = Sideband::new(32, Estimate::Last);
        s.sample(0, 100, 0);
        s.sample(32, 160, 0);
        s.sample(64, 0, 0);
        for t in [64, 80, 95] {
            assert!(s.exceeds(t, 159) && !s.exceeds(t, 160), "cycle {t}");
            assert_eq!(s.estimate(t), 160.0);
        }
    }
}
