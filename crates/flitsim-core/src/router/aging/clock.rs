//! The per-router SeaStar age clock: bit-exact bookkeeping of the 11-bit header age field.
//!
//! This implements section 2.3 of AbtsWeisser07 (`docs/papers.md`), "Pseudocode",
//! with Tables 1 and 2:
//!
//! * Procedure 1 (packet receipt at an input port) is [`AgeClock::receive`]: add the port's
//!   REQ/RSP age bias with saturation at 255, count the packet in the current epoch, and keep
//!   `age - timestamp` (9 bits, `[8:0]`) and the epoch (`[9]`) in the field while the packet is
//!   inside the router.
//! * Procedure 2 (age calculation at the head of an output staging buffer) is
//!   [`AgeClock::age_now`] (lines 1-11) and [`AgeClock::hand_off`] (lines 13-14).
//! * Procedure 3 (age clock management on every system clock tick) is [`AgeClock::tick`];
//!   [`AgeClock::idle_ticks`] is its closed form while the router holds no packets.
//! * AGE_RR_SELECT (section 2.1) is [`age_selected`].
//!
//! # The saturation test of Procedure 2 line 8
//!
//! Let a packet arrive with (biased) age `a` at timestamp `t0` and be examined at timestamp
//! `t1`, with `r = 1` iff the epoch changed in between (at most one rollover can happen while
//! a packet is inside: the epoch rule of section 2.2 blocks the second one). The elapsed time
//! is `e = t1 - t0 + 256 r`, so `0 <= e <= 511 - t0`, and the true age is `min(255, a + e)`.
//!
//! Procedure 1 line 12 stores `s = (a - t0) mod 512`; its bit 8 (the paper's "carry", really
//! the borrow/sign) is 1 exactly when `a < t0`. Procedure 2 line 7 forms the 10-bit sum
//! `n = s + {r, t1} = a + e + 512 * [a < t0]` (never above 1022, so it fits):
//!
//! * `a >= t0` (`s[8] = 0`): `n = a + e` is in `0..=766`; it is >= 256 iff `n[8] | n[9]`.
//! * `a < t0` (`s[8] = 1`): `a + e <= 510`, so `n = 512 + (a + e)`: `n[9]` is always 1 and
//!   the age is >= 256 iff `n[8]`.
//!
//! Hence the test that is right in every reachable case is
//! `n[8] == 1 OR (n[9] == 1 AND s[8] == 0)` ([`SaturationCheck::Corrected`]). The paper prints
//! `... AND head_flit[8] == 1` ([`SaturationCheck::AsPrinted`]), which saturates every packet
//! that arrived with `a < t0` (age 0 received at timestamp 5 and leaving at timestamp 6 gets
//! 255, not 1) and, conversely, misses the saturation of `a + e >= 512` when `a >= t0`
//! (age 255 received at timestamp 0 and leaving 511 ticks later gets 254, not 255).

use serde::{Deserialize, Serialize};

/// How Procedure 2 line 8 tests for saturation (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SaturationCheck {
    /// `new_age[8] == 1 OR (new_age[9] == 1 AND head_flit[8] == 0)`: the true age
    /// `min(255, age + elapsed)` in every reachable case.
    #[default]
    Corrected,
    /// `new_age[8] == 1 OR (new_age[9] == 1 AND head_flit[8] == 1)`: the paper's literal
    /// Procedure 2 line 8 (wrong; kept to show the difference).
    AsPrinted,
}

/// The 11-bit header age field (Table 1): bits `[7:0]` age (or, inside a router, the 9-bit
/// difference `age - timestamp` in `[8:0]`), bit 8 carry, bit 9 in-epoch, bit 10 unused.
pub mod field {
    /// Mask of the whole 11-bit field.
    pub const MASK: u16 = 0x7FF;
    /// Mask of the age, bits `[7:0]`.
    pub const AGE_MASK: u16 = 0xFF;
    /// Mask of the in-router 9-bit difference `age - timestamp`, bits `[8:0]`.
    pub const DIFF_MASK: u16 = 0x1FF;
    /// The carry bit (bit 8): the sign/borrow of `age - timestamp`.
    pub const CARRY_BIT: u16 = 1 << 8;
    /// The in-epoch bit (bit 9): the epoch in which the packet was received.
    pub const IN_EPOCH_BIT: u16 = 1 << 9;
    /// The unused bit (bit 10).
    pub const UNUSED_BIT: u16 = 1 << 10;

    /// The age, bits `[7:0]`.
    pub const fn age(h: u16) -> u8 {
        (h & AGE_MASK) as u8
    }

    /// The in-router 9-bit difference `age - timestamp`, bits `[8:0]`.
    pub const fn diff(h: u16) -> u16 {
        h & DIFF_MASK
    }

    /// The carry bit (bit 8).
    pub const fn carry(h: u16) -> bool {
        h & CARRY_BIT != 0
    }

    /// The in-epoch bit (bit 9), as 0 or 1.
    pub const fn in_epoch(h: u16) -> u8 {
        ((h & IN_EPOCH_BIT) >> 9) as u8
    }

    /// An outgoing (on-the-wire) field: `age` in `[7:0]`, bits 8..10 zero.
    pub const fn outgoing(age: u8) -> u16 {
        age as u16
    }

    /// An in-router field: `diff` (masked to 9 bits) in `[8:0]` and `epoch` (masked to 1 bit)
    /// in `[9]`, bit 10 zero.
    pub const fn stored(diff: u16, epoch: u8) -> u16 {
        (diff & DIFF_MASK) | (((epoch & 1) as u16) << 9)
    }
}

/// The aging state of one router: timestamp, epoch, per-epoch packet counts and the age
/// clock countdown (Table 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AgeClock {
    /// The free-running 8-bit timestamp.
    pub timestamp: u8,
    /// The current epoch, 0 or 1.
    pub epoch: u8,
    /// `packet_count[epoch]`: packets received in each epoch and not yet handed off
    /// (hardware 0..2047).
    pub count: [u32; 2],
    /// `age_clk_period_reg`: the internal countdown of the age clock.
    pub reg: u32,
    /// Age-based arbitration is inhibited until the previous epoch has drained.
    pub inhibit: bool,
    /// AGE_CLK_PERIOD (>= 1; the paper's default is 0x1000).
    pub period: u32,
}

/// Ticks until a 32-bit countdown holding `x` expires (0 wraps to 2^32 - 1 first).
const fn until_expiry(x: u32) -> u64 {
    if x == 0 {
        1 << 32
    } else {
        x as u64
    }
}

impl AgeClock {
    /// A clock at timestamp 0, epoch 0, no packets, `reg = period`, not inhibited.
    ///
    /// # Panics
    /// If `period` is 0.
    pub fn new(period: u32) -> Self {
        assert!(period >= 1, "AGE_CLK_PERIOD must be at least 1");
        Self { timestamp: 0, epoch: 0, count: [0, 0], reg: period, inhibit: false, period }
    }

    /// Procedure 1 (packet receipt at an input port). `header` is the 11-bit field as it
    /// arrives (only bits `[7:0]`, the age, are meaningful); `bias` is the input port's
    /// REQ_AGE_BIAS or RSP_AGE_BIAS (chosen by the caller from the packet's VC class; a 3-bit
    /// MMR field, 0..=7). Returns the field stored while the packet is inside this router:
    /// `[8:0]` = `age - timestamp` as a 9-bit two's-complement result, `[9]` = epoch.
    /// Increments `count[epoch]`.
    pub fn receive(&mut self, header: u16, bias: u8) -> u16 {
        debug_assert!(bias <= 7, "age bias is a 3-bit field");
        debug_assert!(self.epoch <= 1);
        let age = (u16::from(field::age(header)) + u16::from(bias)).min(255);
        let e = usize::from(self.epoch & 1);
        self.count[e] += 1;
        field::stored(age.wrapping_sub(u16::from(self.timestamp)), self.epoch)
    }

    /// Procedure 2 lines 1-11: the age, now, of a packet whose in-router field is `stored`
    /// (no side effects; called every cycle the packet competes for an output).
    pub fn age_now(&self, stored: u16, check: SaturationCheck) -> u8 {
        let rollover = field::in_epoch(stored) != (self.epoch & 1);
        let head = field::diff(stored);
        let new_age = head + ((u16::from(rollover) << 8) | u16::from(self.timestamp));
        let bit8 = new_age & (1 << 8) != 0;
        let bit9 = new_age & (1 << 9) != 0;
        let carry = field::carry(stored);
        let saturation = match check {
            SaturationCheck::Corrected => bit8 || (bit9 && !carry),
            SaturationCheck::AsPrinted => bit8 || (bit9 && carry),
        };
        if saturation {
            255
        } else {
            field::age(new_age)
        }
    }

    /// Procedure 2 lines 13-14: the packet is handed off to the output link. Decrements
    /// `count[in_epoch]` and returns the outgoing header (the age now in `[7:0]`, bits 8..10
    /// zero).
    pub fn hand_off(&mut self, stored: u16, check: SaturationCheck) -> u16 {
        let age = self.age_now(stored, check);
        let e = usize::from(field::in_epoch(stored));
        debug_assert!(self.count[e] > 0, "hand-off of a packet not counted in its epoch");
        self.count[e] = self.count[e].saturating_sub(1);
        field::outgoing(age)
    }

    /// Whether packets of the epoch other than the current one are outstanding
    /// (Procedure 3 lines 3 and 12).
    fn other_epoch_busy(&self) -> bool {
        (self.epoch == 1 && self.count[0] > 0) || (self.epoch == 0 && self.count[1] > 0)
    }

    /// Procedure 3: one tick of the system clock, exactly as printed. While inhibited, the
    /// tick only re-evaluates the inhibit (the countdown is frozen); otherwise the countdown
    /// is decremented and, on expiry, reloaded and the timestamp incremented — except at 255,
    /// where the rollover (and epoch switch) happens only if the next epoch has no outstanding
    /// packets; otherwise the clock is inhibited, the timestamp stays at 255 and the rollover
    /// is retried at the next expiry.
    pub fn tick(&mut self) {
        if self.inhibit {
            self.inhibit = self.other_epoch_busy();
        } else {
            self.reg = self.reg.wrapping_sub(1);
            if self.reg == 0 {
                self.reg = self.period;
                if self.timestamp == 255 {
                    self.inhibit = false;
                    if self.other_epoch_busy() {
                        self.inhibit = true;
                    } else {
                        self.timestamp = 0;
                        self.epoch ^= 1;
                    }
                } else {
                    self.timestamp += 1;
                }
            }
        }
    }

    /// `n` ticks during which the router holds no packets (`count == [0, 0]`), in closed
    /// form (O(1)); equal to calling [`AgeClock::tick`] `n` times.
    pub fn idle_ticks(&mut self, n: u64) {
        debug_assert_eq!(self.count, [0, 0], "idle_ticks with packets in the router");
        let mut n = n;
        if n == 0 {
            return;
        }
        if self.inhibit {
            // One tick in the inhibit branch; with no packets the inhibit is cleared.
            self.inhibit = false;
            n -= 1;
        }
        let first = until_expiry(self.reg);
        if n < first {
            self.reg = self.reg.wrapping_sub(n as u32);
            return;
        }
        let n = n - first;
        let p = until_expiry(self.period);
        let increments = 1 + n / p;
        // After the last expiry reg = period, then `n % p` more decrements (< p, no expiry).
        self.reg = self.period.wrapping_sub((n % p) as u32);
        // With no packets every expiry increments the timestamp; each 255 -> 0 flips the epoch.
        let total = u64::from(self.timestamp) + increments;
        self.timestamp = (total % 256) as u8;
        self.epoch ^= ((total / 256) & 1) as u8;
    }

    /// Age-based arbitration is allowed (not inhibited).
    pub fn age_based_allowed(&self) -> bool {
        !self.inhibit
    }
}

/// AGE_RR_SELECT: whether grant number `counter` (a 6-bit counter per output, incremented
/// each grant cycle) is age-based: bit `counter & 63` of `mask` (0 = round-robin).
pub fn age_selected(mask: u64, counter: u8) -> bool {
    (mask >> (counter & 63)) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const C: SaturationCheck = SaturationCheck::Corrected;
    const P: SaturationCheck = SaturationCheck::AsPrinted;

    /// A clock at the given timestamp/epoch, everything else fresh.
    fn at(ts: u8, epoch: u8) -> AgeClock {
        let mut c = AgeClock::new(1);
        c.timestamp = ts;
        c.epoch = epoch;
        c
    }

    /// Sets the clock to `e` ticks of timestamp after receipt at `ts0` in `epoch0`.
    fn advance(c: &mut AgeClock, ts0: u8, epoch0: u8, e: u32) {
        let t = u32::from(ts0) + e;
        assert!(t < 512, "at most one rollover");
        c.timestamp = (t % 256) as u8;
        c.epoch = epoch0 ^ u8::from(t >= 256);
    }

    #[test]
    fn exhaustive_corrected_age_is_true_age() {
        for epoch0 in 0..=1u8 {
            for ts0 in 0..=255u8 {
                for age in 0..=255u16 {
                    let mut c = at(ts0, epoch0);
                    let stored = c.receive(age, 0);
                    assert_eq!(stored & field::UNUSED_BIT, 0);
                    assert_eq!(field::in_epoch(stored), epoch0);
                    assert_eq!(field::carry(stored), age < u16::from(ts0));
                    // Every reachable elapsed time: at most one rollover, so ts0 + e <= 511.
                    for e in 0..=(511 - u32::from(ts0)) {
                        advance(&mut c, ts0, epoch0, e);
                        let want = (u32::from(age) + e).min(255) as u8;
                        assert_eq!(c.age_now(stored, C), want, "age {age} ts0 {ts0} e {e}");
                    }
                    let out = c.hand_off(stored, C);
                    assert_eq!(out, (u32::from(age) + 511 - u32::from(ts0)).min(255) as u16);
                    assert_eq!(c.count, [0, 0]);
                }
            }
        }
    }

    #[test]
    fn as_printed_saturates_when_age_below_timestamp() {
        let mut c = at(5, 0);
        let s = c.receive(0, 0);
        assert_eq!(s, 507); // -5 as 9 bits, carry set, epoch 0
        c.timestamp = 6;
        assert_eq!(c.age_now(s, C), 1);
        assert_eq!(c.age_now(s, P), 255);
        // And the other failure of the printed test: age 255 at ts 0, 511 ticks later.
        let mut c = at(0, 0);
        let s = c.receive(255, 0);
        advance(&mut c, 0, 0, 511);
        assert_eq!(c.age_now(s, C), 255);
        assert_eq!(c.age_now(s, P), 254);
        // Where both agree: age >= timestamp and no overflow past 511.
        let mut c = at(3, 1);
        let s = c.receive(40, 2);
        c.timestamp = 10;
        assert_eq!(c.age_now(s, C), 49);
        assert_eq!(c.age_now(s, P), 49);
    }

    #[test]
    fn receive_bias_saturates_at_255() {
        let mut c = at(0, 0);
        let s = c.receive(254, 3);
        assert_eq!(field::age(s), 255);
        assert!(!field::carry(s));
        assert_eq!(c.age_now(s, C), 255);
        assert_eq!(c.count, [1, 0]);
        // Bias 7 on 250 also clamps; high header bits (carry/epoch/unused) are ignored.
        let s = c.receive(0x700 | 250, 7);
        assert_eq!(s, 255);
        assert_eq!(c.count, [2, 0]);
        // Plain bias addition.
        let s = c.receive(10, 1);
        assert_eq!(c.age_now(s, C), 11);
        assert_eq!(c.hand_off(s, C), 11);
        assert_eq!(c.count, [2, 0]);
    }

    #[test]
    fn rollover_is_accounted() {
        // Driven by real ticks with period 1: one timestamp step per tick.
        let mut c = AgeClock::new(1);
        for _ in 0..250 {
            c.tick();
        }
        assert_eq!((c.timestamp, c.epoch), (250, 0));
        let s = c.receive(10, 0);
        assert_eq!(s, field::stored(0x110, 0)); // 10 - 250 = -240 = 0x110 (9 bits)
        for _ in 0..9 {
            c.tick();
        }
        assert_eq!((c.timestamp, c.epoch), (3, 1));
        assert_eq!(c.age_now(s, C), 19);
        assert_eq!(c.age_now(s, P), 255);
        assert_eq!(c.hand_off(s, C), 19);
        assert_eq!(c.count, [0, 0]);
    }

    #[test]
    fn large_age_saturates() {
        let mut c = AgeClock::new(1);
        let s = c.receive(200, 0);
        for _ in 0..55 {
            c.tick();
        }
        assert_eq!(c.age_now(s, C), 255);
        for _ in 55..100 {
            c.tick();
        }
        assert_eq!(c.timestamp, 100);
        assert_eq!(c.age_now(s, C), 255);
        assert_eq!(c.age_now(s, P), 255);
        assert_eq!(c.hand_off(s, C), 255);
        // Same with the carry set (received at 220, 100 steps later across a rollover).
        let mut c = at(220, 0);
        let s = c.receive(200, 0);
        advance(&mut c, 220, 0, 54);
        assert_eq!(c.age_now(s, C), 254);
        advance(&mut c, 220, 0, 100);
        assert_eq!(c.age_now(s, C), 255);
    }

    #[test]
    fn tick_period_three() {
        let mut c = AgeClock::new(3);
        for t in 1..=768u32 {
            c.tick();
            if t < 768 {
                assert_eq!(u32::from(c.timestamp), t / 3, "tick {t}");
                assert_eq!(c.epoch, 0);
            }
            assert_eq!(c.reg, 3 - t % 3);
            assert!(!c.inhibit);
        }
        // 256 expiries: 255 -> 0 flips the epoch (count[1] == 0).
        assert_eq!((c.timestamp, c.epoch), (0, 1));
        for _ in 0..768 {
            c.tick();
        }
        assert_eq!((c.timestamp, c.epoch), (0, 0));
    }

    #[test]
    fn epoch_switch_blocked_by_old_packet() {
        let mut c = AgeClock::new(3);
        let s = c.receive(0, 0); // at tick 0, epoch 0, ts 0
        assert_eq!(c.count, [1, 0]);
        let mut t = 0u32;
        let mut run_to = |c: &mut AgeClock, until: u32| {
            while t < until {
                c.tick();
                t += 1;
            }
        };
        run_to(&mut c, 767);
        assert_eq!((c.timestamp, c.epoch, c.reg), (255, 0, 1));
        run_to(&mut c, 768); // first rollover allowed: count[1] == 0
        assert_eq!((c.timestamp, c.epoch, c.inhibit), (0, 1, false));
        assert_eq!(c.age_now(s, C), 255);
        run_to(&mut c, 1535);
        assert_eq!((c.timestamp, c.epoch, c.reg, c.inhibit), (255, 1, 1, false));
        run_to(&mut c, 1536); // expiry at 255, but count[0] == 1: inhibited
        assert_eq!((c.timestamp, c.epoch, c.reg, c.inhibit), (255, 1, 3, true));
        assert!(!c.age_based_allowed());
        run_to(&mut c, 1540); // stays inhibited, countdown frozen
        assert_eq!((c.timestamp, c.epoch, c.reg, c.inhibit), (255, 1, 3, true));
        assert_eq!(c.hand_off(s, C), 255);
        assert_eq!(c.count, [0, 0]);
        run_to(&mut c, 1541); // the inhibit branch clears it
        assert_eq!((c.timestamp, c.epoch, c.reg, c.inhibit), (255, 1, 3, false));
        assert!(c.age_based_allowed());
        run_to(&mut c, 1543);
        assert_eq!((c.timestamp, c.epoch, c.reg), (255, 1, 1));
        run_to(&mut c, 1544); // next expiry: the retried rollover succeeds
        assert_eq!((c.timestamp, c.epoch, c.reg, c.inhibit), (0, 0, 3, false));
    }

    fn ticks(mut c: AgeClock, n: u64) -> AgeClock {
        for _ in 0..n {
            c.tick();
        }
        c
    }

    fn closed(mut c: AgeClock, n: u64) -> AgeClock {
        c.idle_ticks(n);
        c
    }

    #[test]
    fn idle_ticks_matches_ticks_cases() {
        for period in [1u32, 2, 3, 7, 64, 0x1000] {
            let p = u64::from(period);
            for ts in [0u8, 1, 128, 254, 255] {
                for epoch in 0..=1u8 {
                    for inhibit in [false, true] {
                        for reg in [1, period.div_ceil(2), period] {
                            let mut c = AgeClock::new(period);
                            c.timestamp = ts;
                            c.epoch = epoch;
                            c.inhibit = inhibit;
                            c.reg = reg;
                            for n in [0, 1, 2, p - 1, p, p + 1, 256 * p + 7, 513 * p + 3] {
                                assert_eq!(
                                    closed(c, n),
                                    ticks(c, n),
                                    "period {period} ts {ts} epoch {epoch} inhibit {inhibit} reg {reg} n {n}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn idle_ticks_reg_zero_wraps_like_tick() {
        // A 32-bit countdown left at 0 wraps to 2^32 - 1 on the next decrement.
        let mut c = AgeClock::new(5);
        c.reg = 0;
        for n in [0u64, 1, 2, 1000] {
            assert_eq!(closed(c, n), ticks(c, n));
        }
        let mut d = c;
        d.idle_ticks(1 << 32);
        assert_eq!((d.timestamp, d.reg), (1, 5));
    }

    #[test]
    fn idle_ticks_huge_n() {
        // Period 1: the timestamp advances every tick; 10^12 = 3906250000 * 256.
        let mut c = AgeClock::new(1);
        c.idle_ticks(1_000_000_000_000);
        assert_eq!((c.timestamp, c.epoch, c.reg, c.inhibit), (0, 0, 1, false));
        let mut c = AgeClock::new(1);
        c.idle_ticks(1_000_000_000_000 + 256 + 5);
        assert_eq!((c.timestamp, c.epoch), (5, 1));
        // Composition: splitting n does not matter.
        let mut a = AgeClock::new(0x1000);
        a.idle_ticks(123_456_789_012);
        let mut b = AgeClock::new(0x1000);
        b.idle_ticks(100_000_000_000);
        b.idle_ticks(23_456_789_012);
        assert_eq!(a, b);
    }

    proptest! {
        #[test]
        fn idle_ticks_equals_ticks(
            period in 1u32..5000,
            ts in any::<u8>(),
            epoch in 0u8..=1,
            reg_frac in 0.0f64..1.0,
            inhibit in any::<bool>(),
            n in 0u64..200_000,
        ) {
            let mut c = AgeClock::new(period);
            c.timestamp = ts;
            c.epoch = epoch;
            c.inhibit = inhibit;
            c.reg = 1 + ((f64::from(period - 1)) * reg_frac) as u32;
            prop_assert!(c.reg >= 1 && c.reg <= period);
            prop_assert_eq!(closed(c, n), ticks(c, n));
        }
    }

    #[test]
    fn age_rr_select() {
        for counter in 0..=255u8 {
            assert!(!age_selected(0, counter));
            assert!(age_selected(!0, counter));
            assert_eq!(age_selected(0x5555_5555_5555_5555, counter), counter % 2 == 0);
            assert_eq!(age_selected(0xAAAA_AAAA_AAAA_AAAA, counter), counter % 2 == 1);
        }
        assert!(age_selected(1 << 63, 63));
        assert!(!age_selected(1 << 63, 62));
        assert!(age_selected(1, 64)); // wraps: 64 & 63 == 0
        assert!(age_selected(1 << 5, 69));
        assert!(!age_selected(1 << 5, 5 + 128 + 1));
    }

    #[test]
    fn field_helpers() {
        let h = field::stored(0x1FF, 1);
        assert_eq!(h, 0x3FF);
        assert_eq!(field::age(h), 0xFF);
        assert_eq!(field::diff(h), 0x1FF);
        assert!(field::carry(h));
        assert_eq!(field::in_epoch(h), 1);
        assert_eq!(field::in_epoch(field::UNUSED_BIT), 0);
        assert_eq!(field::outgoing(77), 77);
        assert_eq!(field::stored(0x2FF, 2), 0xFF);
        assert_eq!(serde_json::to_string(&SaturationCheck::AsPrinted).unwrap(), "\"as_printed\"");
        assert_eq!(SaturationCheck::default(), SaturationCheck::Corrected);
    }
}
