//! The self-tuning threshold: hill climbing (Thottethodi, Lebeck and Mukherjee,
//! *Self-Tuned Congestion Control*, section 4.1 and Table 1) with local-maximum
//! avoidance (section 4.2).
//!
//! Once per tuning period the [`Tuner`] is told the period's throughput (flits delivered,
//! an integer), whether any source was throttled in it, and the newest snapshot's full
//! buffer count, and updates the threshold `T`:
//!
//! 1. **Local maximum** (section 4.2, only with `local_max`): if a maximum is known
//!    (`max > 0`) and the throughput is below `drop_fraction x max`, set
//!    `T = min(T_max, N_max)` (action `reset`). After `r` consecutive resets the maximum
//!    is stale: forget it (`max = 0`) and restart the search (action `forget`; the
//!    threshold is reset on that period too).
//! 2. Otherwise **Table 1**: a *drop* (throughput below `drop_fraction x` the previous
//!    period's) decrements `T` by `decrement` buffers (not below 0) whether or not the
//!    network was throttling; no drop while throttling increments it by `increment`; no
//!    drop and no throttling holds it. Any non-reset period ends a run of resets.
//! 3. Then, if the throughput is a new maximum, remember it with `N_max` = the newest
//!    snapshot's full buffers and `T_max` = the threshold that was in force during the
//!    period (before this update). The period becomes the "previous" one.
//!
//! The paper does not say what "drops significantly below the maximum" means; we use the
//! same `drop_fraction` as Table 1's drop. It does not order the reset against the table;
//! we let the reset take precedence (it is the corrective action for a drop the table
//! would miss or under-correct). After a `forget`, the forgetting period itself becomes
//! the new maximum (step 3 with `max = 0`). Fractions are compared exactly:
//! `drop_fraction` is held as parts per 65,536 ([`DropFraction`]) and
//! `x < f y` is tested as `65536 x < parts y` in 128-bit integers.

use serde::Serialize;

/// A fraction in (0, 1) held as parts per 65,536, for exact comparisons of flit counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DropFraction {
    parts: u32,
}

impl DropFraction {
    /// Denominator of the parts.
    pub const ONE: u32 = 1 << 16;

    /// `f` rounded to the nearest 1/65,536, kept within `[1, 65535] / 65536`.
    pub fn new(f: f64) -> Self {
        let parts = (f * f64::from(Self::ONE)).round().clamp(1.0, f64::from(Self::ONE - 1)) as u32;
        DropFraction { parts }
    }

    /// The parts per 65,536.
    pub fn parts(self) -> u32 {
        self.parts
    }

    /// Whether `x < f * of`, exactly.
    pub fn below(self, x: u64, of: u64) -> bool {
        u128::from(x) * u128::from(Self::ONE) < u128::from(self.parts) * u128::from(of)
    }
}

/// What a tuning period did to the threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// No drop and no throttling: unchanged.
    Hold,
    /// No drop while throttling: raised by the increment.
    Increment,
    /// A drop against the previous period: lowered by the decrement.
    Decrement,
    /// Far below the maximum: set to `min(T_max, N_max)`.
    Reset,
    /// The `r`-th consecutive reset: set to `min(T_max, N_max)` and the maximum forgotten.
    Forget,
}

/// What the tuner is told about one tuning period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    /// Flits delivered in the period (the period's throughput, as a count).
    pub delivered: u64,
    /// Whether sources were throttled in at least one cycle of the period.
    pub throttled: bool,
    /// Full buffers in the newest usable snapshot.
    pub full: u32,
}

/// The hill-climbing threshold tuner (see the module documentation).
#[derive(Clone, Debug)]
pub struct Tuner {
    threshold: u32,
    increment: u32,
    decrement: u32,
    drop: DropFraction,
    local_max: bool,
    max_resets: u32,
    /// Throughput of the previous period (0 before the first: no drop is possible).
    previous: u64,
    /// Highest throughput of any period since the last `forget` (0: none).
    max: u64,
    /// Full buffers when `max` was observed.
    n_max: u32,
    /// Threshold in force when `max` was observed.
    t_max: u32,
    /// Consecutive `reset`/`forget` periods.
    resets: u32,
}

impl Tuner {
    /// A tuner starting at `threshold`, moving by `increment`/`decrement` buffers; with
    /// `local_max`, resetting towards the best-known conditions and forgetting them after
    /// `max_resets` (>= 1) consecutive resets.
    pub fn new(threshold: u32, increment: u32, decrement: u32, drop: DropFraction, local_max: bool, max_resets: u32) -> Self {
        Tuner {
            threshold,
            increment,
            decrement,
            drop,
            local_max,
            max_resets: max_resets.max(1),
            previous: 0,
            max: 0,
            n_max: 0,
            t_max: 0,
            resets: 0,
        }
    }

    /// The current threshold in buffers.
    pub fn threshold(&self) -> u32 {
        self.threshold
    }

    /// The best period so far: `(max, N_max, T_max)`.
    pub fn best(&self) -> (u64, u32, u32) {
        (self.max, self.n_max, self.t_max)
    }

    /// End a tuning period: update the threshold and say how.
    pub fn tune(&mut self, p: Period) -> Action {
        let in_force = self.threshold;
        let action = if self.local_max && self.max > 0 && self.drop.below(p.delivered, self.max) {
            self.threshold = self.t_max.min(self.n_max);
            self.resets += 1;
            if self.resets >= self.max_resets {
                self.max = 0;
                self.resets = 0;
                Action::Forget
            } else {
                Action::Reset
            }
        } else {
            self.resets = 0;
            if self.drop.below(p.delivered, self.previous) {
                self.threshold = self.threshold.saturating_sub(self.decrement);
                Action::Decrement
            } else if p.throttled {
                self.threshold = self.threshold.saturating_add(self.increment);
                Action::Increment
            } else {
                Action::Hold
            }
        };
        if p.delivered > self.max {
            self.max = p.delivered;
            self.n_max = p.full;
            self.t_max = in_force;
        }
        self.previous = p.delivered;
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuner(threshold: u32, local_max: bool) -> Tuner {
        Tuner::new(threshold, 30, 122, DropFraction::new(0.75), local_max, 5)
    }

    fn period(delivered: u64, throttled: bool, full: u32) -> Period {
        Period { delivered, throttled, full }
    }

    #[test]
    fn drop_fraction_is_exact() {
        let f = DropFraction::new(0.75);
        assert_eq!(f.parts(), 49_152);
        assert!(!f.below(3000, 4000), "exactly 75% is not a drop");
        assert!(f.below(2999, 4000));
        assert!(!f.below(0, 0), "nothing before the first period: no drop");
        assert_eq!(DropFraction::new(1e-9).parts(), 1);
        assert_eq!(DropFraction::new(0.999_999_9).parts(), 65_535);
        assert!(!f.below(u64::MAX, u64::MAX) && f.below(u64::MAX / 2, u64::MAX), "no overflow");
    }

    /// Table 1, every cell (local-maximum avoidance off so only the table acts).
    #[test]
    fn decision_table() {
        // Each cell after a first period of 4000 flits (no drop possible in the first).
        let cell = |delivered: u64, throttled: bool| {
            let mut t = tuner(500, false);
            assert_eq!(t.tune(period(4000, false, 0)), Action::Hold);
            let a = t.tune(period(delivered, throttled, 0));
            (a, t.threshold())
        };
        assert_eq!(cell(2999, true), (Action::Decrement, 378), "drop, throttling: decrement");
        assert_eq!(cell(2999, false), (Action::Decrement, 378), "drop, not throttling: decrement");
        assert_eq!(cell(3000, true), (Action::Increment, 530), "no drop, throttling: increment");
        assert_eq!(cell(3000, false), (Action::Hold, 500), "no drop, not throttling: hold");
        assert_eq!(cell(9000, true), (Action::Increment, 530), "a rise is no drop");
        // The first period never sees a drop.
        let mut t = tuner(500, false);
        assert_eq!(t.tune(period(0, true, 0)), Action::Increment);
        // A drop compares with the previous period, not the first or the best.
        let mut t = tuner(500, false);
        for (d, a) in [(4000, Action::Increment), (3100, Action::Increment), (2400, Action::Increment), (1700, Action::Decrement)] {
            assert_eq!(t.tune(period(d, true, 0)), a, "{d}");
        }
    }

    #[test]
    fn decrement_saturates_at_zero() {
        let mut t = tuner(100, false);
        t.tune(period(4000, false, 0));
        assert_eq!(t.tune(period(10, true, 0)), Action::Decrement);
        assert_eq!(t.threshold(), 0);
    }

    /// Section 4.2 with N_max < T_max: the threshold goes to N_max.
    #[test]
    fn local_max_reset_to_n_max() {
        let mut t = tuner(400, true);
        assert_eq!(t.tune(period(4000, true, 250)), Action::Increment); // max 4000, N 250, T 400
        assert_eq!(t.best(), (4000, 250, 400));
        assert_eq!(t.threshold(), 430);
        assert_eq!(t.tune(period(3500, true, 600)), Action::Increment); // 87.5% of max: fine
        assert_eq!(t.tune(period(2999, true, 700)), Action::Reset); // < 75% of max
        assert_eq!(t.threshold(), 250, "min(T_max 400, N_max 250)");
    }

    /// Section 4.2 with N_max > T_max (the network was throttling at the maximum): the
    /// threshold goes to T_max.
    #[test]
    fn local_max_reset_to_t_max() {
        let mut t = tuner(400, true);
        t.tune(period(4000, true, 900)); // max 4000, N 900, T 400; threshold -> 430
        t.tune(period(3900, true, 950)); // threshold -> 460
        t.tune(period(3200, true, 990)); // threshold -> 490 (80% of previous, 80% of max)
        assert_eq!(t.threshold(), 490);
        assert_eq!(t.tune(period(2900, true, 1000)), Action::Reset, "72.5% of max though 90.6% of the previous period");
        assert_eq!(t.threshold(), 400, "min(T_max 400, N_max 900)");
    }

    /// The reset takes precedence over the table, and T_max is the threshold in force in
    /// the best period, not the one set at its end.
    #[test]
    fn reset_precedes_table_and_t_max_is_in_force() {
        let mut t = tuner(100, true);
        t.tune(period(1000, true, 50)); // threshold 100 in force; -> 130
        t.tune(period(2000, true, 5000)); // new max with T 130 in force; -> 160
        assert_eq!(t.best(), (2000, 5000, 130));
        // A drop against both the previous period and the maximum: reset, not decrement.
        assert_eq!(t.tune(period(100, true, 10)), Action::Reset);
        assert_eq!(t.threshold(), 130);
    }

    /// r consecutive resets forget the maximum; a non-reset period in between restarts
    /// the count.
    #[test]
    fn forget_after_r_consecutive_resets() {
        let mut t = tuner(300, true);
        t.tune(period(4000, true, 200)); // max 4000, N 200, T 300
        for i in 1..=4 {
            assert_eq!(t.tune(period(1000, true, 800)), Action::Reset, "reset {i}");
            assert_eq!(t.threshold(), 200);
        }
        assert_eq!(t.tune(period(1000, true, 800)), Action::Forget, "the 5th consecutive reset");
        assert_eq!(t.threshold(), 200, "the forgetting period is also reset");
        assert_eq!(t.best(), (1000, 800, 200), "the search restarts; this period is the new maximum");
        assert_eq!(t.tune(period(1000, true, 800)), Action::Increment, "no longer far below the maximum");

        // Interrupted runs do not accumulate.
        let mut t = tuner(300, true);
        t.tune(period(4000, true, 200));
        for round in 0..3 {
            for i in 1..=4 {
                assert_eq!(t.tune(period(1000, true, 800)), Action::Reset, "round {round} reset {i}");
            }
            assert_eq!(t.tune(period(3900, true, 800)), Action::Increment, "round {round}: recovered");
        }
        assert_eq!(t.best().0, 4000, "never forgotten");
    }

    #[test]
    fn no_local_max_never_resets() {
        let mut t = tuner(300, false);
        t.tune(period(4000, true, 200));
        let mut d = 4000;
        for _ in 0..20 {
            d = d * 9 / 10;
            assert_eq!(t.tune(period(d, true, 900)), Action::Increment);
        }
        assert_eq!(t.threshold(), 300 + 21 * 30);
    }
}
