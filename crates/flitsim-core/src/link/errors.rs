//! Error models for a link with link-level retry ([`super::retry`]): which flits on the
//! data lanes and which control packets on the control lane arrive corrupted.
//!
//! Follows the failure modes of Godiwala, Leonard and Reilly, *A Network Fabric for
//! Scalable Multiprocessor Systems* (SiCortex), sections 3.1, 4.3 and 6.3: isolated bit
//! errors at a bit error rate (section 4.3's "one bit in 10^15"), clustered bit errors
//! (section 6.3, "clustered bit errors caused by power supply misbehavior"), a link that
//! loses synchronization so that "several packets in sequence" are corrupted until it is
//! resynchronized (section 6.3), and hard link failures (section 6.3, footnote 3).
//! All components can be combined; an event is corrupted if any component hits it.
//!
//! | component | field | what it corrupts |
//! |---|---|---|
//! | independent bit errors | `ber`, `flit_bits`, `ctrl_bits` | each flit with `1 - (1 - ber)^flit_bits`, each control packet with `1 - (1 - ber)^ctrl_bits` |
//! | bursts (Gilbert-Elliott) | `burst = { mean_gap, mean_len, ber }` | flits and control packets sent during a burst, at the burst's bit error rate |
//! | lost control packets | `ctrl_loss` | each control packet with this probability (on top of `ber`) |
//! | loss of synchronization | `sync_loss = [{ start, duration, lanes }]` | everything sent on the chosen lanes in `[start, start + duration)` |
//! | scripted | `corrupt_data_at`, `corrupt_ctrl_at` | the flit / control packet sent in exactly these cycles |
//! | permanent failure | `fail_at` | the link carries nothing from this cycle on; see [`super::retry`] |
//!
//! # Determinism
//! Every component of every lane draws from its own stream,
//! `rng::stream(seed, DOMAIN, link_id * 8 + k)`, so the data lanes' errors do not
//! depend on the control lane's traffic, a burst schedule does not depend on the traffic
//! at all, and nothing depends on the order in which links are stepped. All arithmetic
//! is IEEE `+ - * /` on `f64` (no libm: the logarithm used to draw geometric gaps is
//! computed here), so every platform draws the same errors.
//!
//! # Readings where the paper is silent (our choices)
//! - **Bits per event.** `flit_bits` defaults to 64: the fabric's 8-byte data path
//!   (section 3.1); the BER counts decoded bits (set 80 to count the 8B/10B line bits).
//!   A control packet is 15 bytes, `ctrl_bits = 120` (section 3.3).
//! - **Independent bit errors** are drawn as geometric gaps (in flits, or in control
//!   packets) between hits: the same law as an independent draw per event, one draw per
//!   hit instead of one per flit.
//! - **Bursts** are a two-state Gilbert-Elliott chain in *time* (cycles): good periods
//!   with a geometric length of mean `mean_gap` cycles alternate with bursts of geometric
//!   length of mean `mean_len` cycles (both at least one cycle). Inside a burst every bit
//!   has error rate `burst.ber`. The data lanes and the control lane burst independently
//!   (they are driven by different chips, and section 6.3 blames the regulator of "a
//!   group of fabric drivers"). A control packet is judged by the state at the cycle it
//!   is sent.
//! - **Loss of synchronization** corrupts what is *sent* during the interval on the
//!   chosen lanes (`lanes = "data"` by default: the data link's drivers lose sync and the
//!   receiver keeps signalling on the control lane, so, as section 6.3 says, "all retry
//!   attempts fail" until the interval ends, and the next replay succeeds). Framing is
//!   kept: a flit sent during the interval arrives as garbage that fails the CRC, it does
//!   not vanish (the clock is mesochronous, section 3).
//! - **Permanent failure** at `fail_at`: from that cycle on nothing crosses in either
//!   direction, including what was already on the wires.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rng::{fires, stream, threshold, SimRng};

/// RNG domain of link error streams (alongside `rng::domain`; distinct from its
/// constants so no endpoint, router, pattern or fault stream coincides with these).
pub const DOMAIN: u64 = 0x004C_494E_4B45_5252; // "LINKERR"

/// Bits in a control packet: 15 bytes (section 3.3).
pub const CTRL_PACKET_BITS: u32 = 15 * 8;

/// Config: the error model of one link (every component optional; the default is an
/// error-free link).
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ErrorParams {
    /// Bits per flit, for converting `ber` and `burst.ber` to a per-flit probability
    /// (1..=65536). Default 64 (the 8-byte data path, section 3.1).
    pub flit_bits: u32,
    /// Bits per control packet (1..=65536). Default 120 (15 bytes, section 3.3).
    pub ctrl_bits: u32,
    /// Independent bit error rate on the data lanes and the control lane, in [0, 1).
    pub ber: f64,
    /// Extra probability that a control packet is lost or corrupted, in [0, 1).
    pub ctrl_loss: f64,
    /// Clustered errors: a Gilbert-Elliott burst process per lane.
    pub burst: Option<BurstParams>,
    /// Intervals of lost synchronization.
    pub sync_loss: Vec<SyncLoss>,
    /// Cycle at which the link fails for good (in `[channel.retry.errors]`: every link
    /// at once; one link at a time: `[[faults.at]]`).
    pub fail_at: Option<u64>,
    /// Cycles in which the flit sent on the data lanes (if any) is corrupted.
    pub corrupt_data_at: Vec<u64>,
    /// Cycles in which the control packet sent (if any) is corrupted.
    pub corrupt_ctrl_at: Vec<u64>,
}

impl Default for ErrorParams {
    fn default() -> Self {
        ErrorParams {
            flit_bits: 64,
            ctrl_bits: CTRL_PACKET_BITS,
            ber: 0.0,
            ctrl_loss: 0.0,
            burst: None,
            sync_loss: Vec::new(),
            fail_at: None,
            corrupt_data_at: Vec::new(),
            corrupt_ctrl_at: Vec::new(),
        }
    }
}

/// Config: Gilbert-Elliott bursts.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BurstParams {
    /// Mean cycles between bursts (>= 1).
    pub mean_gap: f64,
    /// Mean burst length in cycles (>= 1).
    pub mean_len: f64,
    /// Bit error rate inside a burst, in [0, 1).
    pub ber: f64,
}

/// Config: one interval of lost synchronization.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, PartialEq, Eq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SyncLoss {
    /// First cycle without synchronization.
    pub start: u64,
    /// Cycles without synchronization (>= 1).
    pub duration: u64,
    /// Which lanes lose it.
    #[serde(default)]
    pub lanes: Lanes,
}

/// Which lanes of a link an event affects.
#[derive(Deserialize, Serialize, Clone, Copy, Debug, Default, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Lanes {
    /// The eight data lanes (forward).
    #[default]
    Data,
    /// The control lane (reverse).
    Control,
    /// Both directions.
    Both,
}

fn check_rate(path: &str, field: &str, v: f64, what: &str) -> Result<()> {
    if v.is_finite() && (0.0..1.0).contains(&v) {
        Ok(())
    } else {
        Err(Error::config(format!("{path}.{field}"), format!("{v} is not {what} in [0, 1); e.g. 1e-12")))
    }
}

fn check_mean(path: &str, field: &str, v: f64) -> Result<()> {
    if v.is_finite() && v >= 1.0 {
        Ok(())
    } else {
        Err(Error::config(format!("{path}.{field}"), format!("{v} is not a mean length in cycles: give a finite number >= 1")))
    }
}

impl ErrorParams {
    /// Check every field; `path` is the config table (e.g. `"link.retry.errors"`).
    pub fn validate(&self, path: &str) -> Result<()> {
        for (field, v) in [("flit_bits", self.flit_bits), ("ctrl_bits", self.ctrl_bits)] {
            if !(1..=65_536).contains(&v) {
                return Err(Error::config(
                    format!("{path}.{field}"),
                    format!("{v} is out of range: bits per event must be 1..=65536 (64 for an 8-byte flit)"),
                ));
            }
        }
        check_rate(path, "ber", self.ber, "a bit error rate")?;
        check_rate(path, "ctrl_loss", self.ctrl_loss, "a probability")?;
        if let Some(b) = &self.burst {
            check_mean(path, "burst.mean_gap", b.mean_gap)?;
            check_mean(path, "burst.mean_len", b.mean_len)?;
            check_rate(path, "burst.ber", b.ber, "a bit error rate")?;
        }
        for (i, s) in self.sync_loss.iter().enumerate() {
            if s.duration == 0 {
                return Err(Error::config(
                    format!("{path}.sync_loss[{i}].duration"),
                    "0 cycles loses nothing: give at least 1 cycle or remove the entry",
                ));
            }
            if s.start.checked_add(s.duration).is_none() {
                return Err(Error::config(
                    format!("{path}.sync_loss[{i}]"),
                    format!("start {} + duration {} overflows the cycle counter; give a shorter interval", s.start, s.duration),
                ));
            }
        }
        Ok(())
    }

    /// Probability that one flit is corrupted by independent bit errors.
    pub fn flit_error_probability(&self) -> f64 {
        complement_pow(self.ber, self.flit_bits)
    }

    /// Probability that one control packet is corrupted by independent bit errors.
    pub fn ctrl_error_probability(&self) -> f64 {
        complement_pow(self.ber, self.ctrl_bits)
    }
}

/// Hits on one lane, by cause (an event hit by two causes counts under each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LaneHits {
    /// Events (flits or control packets) judged.
    pub events: u64,
    /// Events corrupted (by any cause).
    pub corrupted: u64,
    /// By independent bit errors.
    pub ber: u64,
    /// By a burst.
    pub burst: u64,
    /// By `ctrl_loss`.
    pub lost: u64,
    /// By loss of synchronization.
    pub sync: u64,
    /// By the script.
    pub scripted: u64,
}

/// Geometric gaps between independent hits: the number of events before the next hit.
#[derive(Clone, Debug)]
struct Geometric {
    /// `ln(1 - p)`; 0 when `p == 0` (never hits).
    ln_q: f64,
    /// Events left before the next hit (`u64::MAX`: never).
    left: u64,
    rng: SimRng,
}

impl Geometric {
    fn new(p: f64, rng: SimRng) -> Self {
        let mut g = Geometric { ln_q: if p > 0.0 { ln1p(-p) } else { 0.0 }, left: u64::MAX, rng };
        g.left = g.draw();
        g
    }

    fn draw(&mut self) -> u64 {
        if self.ln_q == 0.0 {
            return u64::MAX;
        }
        gap(&mut self.rng, self.ln_q)
    }

    /// Is this event hit?
    #[inline]
    fn next(&mut self) -> bool {
        if self.left == 0 {
            self.left = self.draw();
            true
        } else {
            if self.left != u64::MAX {
                self.left -= 1;
            }
            false
        }
    }
}

/// Failures before the first success of Bernoulli trials with `ln(1 - p) = ln_q < 0`.
fn gap(rng: &mut SimRng, ln_q: f64) -> u64 {
    use rand::Rng;
    // U in (0, 1]: ln U in (-inf, 0].
    let u = ((rng.next_u64() >> 11) + 1) as f64 * (1.0 / 9_007_199_254_740_992.0);
    let g = ln(u) / ln_q;
    if g >= 1.8e19 {
        u64::MAX
    } else {
        g as u64
    }
}

/// A lane's burst schedule: bursts `[start, end)` drawn ahead, lazily, from their own
/// stream (so the schedule is a function of time only).
#[derive(Clone, Debug)]
struct Bursts {
    ln_stay_good: f64,
    ln_stay_bad: f64,
    start: u64,
    end: u64,
    schedule: SimRng,
    /// Per-event hit threshold inside a burst and its stream.
    hit: u64,
    hits: SimRng,
}

impl Bursts {
    fn new(b: &BurstParams, bits: u32, schedule: SimRng, hits: SimRng) -> Self {
        // A geometric length on {1, 2, ...} with mean m ends each cycle with p = 1/m.
        let ln_stay = |m: f64| if m <= 1.0 { f64::NEG_INFINITY } else { ln1p(-1.0 / m) };
        let mut s = Bursts {
            ln_stay_good: ln_stay(b.mean_gap),
            ln_stay_bad: ln_stay(b.mean_len),
            start: 0,
            end: 0,
            schedule,
            hit: threshold(complement_pow(b.ber, bits)),
            hits,
        };
        s.start = s.length(s.ln_stay_good);
        s.end = s.start.saturating_add(s.length(s.ln_stay_bad));
        s
    }

    /// A geometric length >= 1 whose per-cycle continuation probability has log `ln_stay`.
    fn length(&mut self, ln_stay: f64) -> u64 {
        if ln_stay == f64::NEG_INFINITY {
            1
        } else {
            gap(&mut self.schedule, ln_stay).saturating_add(1)
        }
    }

    /// In a burst at cycle `now` (queries must not go back in time)?
    fn active(&mut self, now: u64) -> bool {
        while now >= self.end {
            self.start = self.end.saturating_add(self.length(self.ln_stay_good));
            self.end = self.start.saturating_add(self.length(self.ln_stay_bad));
            if self.end == u64::MAX {
                break;
            }
        }
        now >= self.start && now < self.end
    }
}

/// The errors of one lane (data or control) at run time.
#[derive(Clone, Debug)]
struct Lane {
    ber: Geometric,
    bursts: Option<Bursts>,
    /// `ctrl_loss` threshold and stream (0 on the data lanes).
    loss: u64,
    loss_rng: SimRng,
    /// Merged, sorted `[start, end)` intervals of lost synchronization.
    sync: Box<[(u64, u64)]>,
    sync_at: usize,
    /// Sorted scripted cycles.
    script: Box<[u64]>,
    script_at: usize,
    hits: LaneHits,
}

impl Lane {
    fn new(p: &ErrorParams, bits: u32, control: bool, seed: u64, link: u32) -> Self {
        let base = (link as u64) * 8 + if control { 4 } else { 0 };
        let rng = |k: u64| stream(seed, DOMAIN, base + k);
        let mut sync: Vec<(u64, u64)> = p
            .sync_loss
            .iter()
            .filter(|s| matches!((s.lanes, control), (Lanes::Both, _) | (Lanes::Data, false) | (Lanes::Control, true)))
            .map(|s| (s.start, s.start.saturating_add(s.duration)))
            .collect();
        sync.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(sync.len());
        for (s, e) in sync {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        let mut script = if control { p.corrupt_ctrl_at.clone() } else { p.corrupt_data_at.clone() };
        script.sort_unstable();
        script.dedup();
        Lane {
            ber: Geometric::new(complement_pow(p.ber, bits), rng(0)),
            bursts: p.burst.as_ref().map(|b| Bursts::new(b, bits, rng(1), rng(2))),
            loss: if control { threshold(p.ctrl_loss) } else { 0 },
            loss_rng: rng(3),
            sync: merged.into_boxed_slice(),
            sync_at: 0,
            script: script.into_boxed_slice(),
            script_at: 0,
            hits: LaneHits::default(),
        }
    }

    /// Is the event sent on this lane in cycle `now` corrupted? Every component is
    /// consulted (its stream advances) whatever the others say. Cycles must not decrease.
    fn judge(&mut self, now: u64) -> bool {
        let h = &mut self.hits;
        h.events += 1;
        let ber = self.ber.next();
        let burst = match &mut self.bursts {
            Some(b) => b.active(now) && fires(&mut b.hits, b.hit),
            None => false,
        };
        let lost = self.loss != 0 && fires(&mut self.loss_rng, self.loss);
        while self.sync_at < self.sync.len() && self.sync[self.sync_at].1 <= now {
            self.sync_at += 1;
        }
        let sync = self.sync_at < self.sync.len() && self.sync[self.sync_at].0 <= now;
        while self.script_at < self.script.len() && self.script[self.script_at] < now {
            self.script_at += 1;
        }
        let scripted = self.script_at < self.script.len() && self.script[self.script_at] == now;
        h.ber += ber as u64;
        h.burst += burst as u64;
        h.lost += lost as u64;
        h.sync += sync as u64;
        h.scripted += scripted as u64;
        let hit = ber || burst || lost || sync || scripted;
        h.corrupted += hit as u64;
        hit
    }
}

/// The error model of one link at run time: judges each flit and control packet as it
/// is sent. Built once; no allocation afterwards.
#[derive(Clone, Debug)]
pub struct LinkErrors {
    data: Lane,
    ctrl: Lane,
    fail_at: Option<u64>,
}

impl LinkErrors {
    /// The model for link `link` under the run `seed` (parameters must be valid:
    /// [`ErrorParams::validate`]).
    pub fn new(p: &ErrorParams, link: u32, seed: u64) -> Self {
        LinkErrors {
            data: Lane::new(p, p.flit_bits, false, seed, link),
            ctrl: Lane::new(p, p.ctrl_bits, true, seed, link),
            fail_at: p.fail_at,
        }
    }

    /// Is the flit sent on the data lanes in cycle `now` corrupted? (Call once per flit,
    /// in sending order.)
    #[inline]
    pub fn data_hit(&mut self, now: u64) -> bool {
        self.data.judge(now)
    }

    /// Is the control packet sent in cycle `now` lost or corrupted? (Call once per control
    /// packet, in sending order.)
    #[inline]
    pub fn ctrl_hit(&mut self, now: u64) -> bool {
        self.ctrl.judge(now)
    }

    /// The cycle of permanent failure, if any.
    #[inline]
    pub fn fail_at(&self) -> Option<u64> {
        self.fail_at
    }

    /// Hits on the data lanes so far.
    pub fn data_hits(&self) -> LaneHits {
        self.data.hits
    }

    /// Hits on the control lane so far.
    pub fn ctrl_hits(&self) -> LaneHits {
        self.ctrl.hits
    }
}

// --- portable arithmetic (IEEE + - * / only) -------------------------------------------

/// `1 - (1 - b)^n` for `b` in [0, 1], accurate for tiny `b` (no cancellation): binary
/// powering of the complement, `c(x + y) = c(x) + c(y) - c(x) c(y)`.
pub fn complement_pow(b: f64, n: u32) -> f64 {
    let (mut acc, mut sq, mut n) = (0.0f64, b, n);
    while n > 0 {
        if n & 1 == 1 {
            acc = acc + sq - acc * sq;
        }
        sq = sq + sq - sq * sq;
        n >>= 1;
    }
    acc.clamp(0.0, 1.0)
}

/// `2 atanh(z)` by its series, for `|z| <= 0.18`.
fn two_atanh(z: f64) -> f64 {
    let z2 = z * z;
    let mut term = z;
    let mut sum = 0.0;
    for k in 0..24 {
        sum += term / (2 * k + 1) as f64;
        term *= z2;
    }
    2.0 * sum
}

/// Natural logarithm of a positive finite `x`.
pub fn ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    let (mut x, mut e) = (x, 0i64);
    if x < f64::MIN_POSITIVE {
        x *= 18_014_398_509_481_984.0; // 2^54
        e -= 54;
    }
    let bits = x.to_bits();
    e += ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    two_atanh((m - 1.0) / (m + 1.0)) + e as f64 * std::f64::consts::LN_2
}

/// `ln(1 + x)` for `x > -1`, accurate for tiny `x`.
pub fn ln1p(x: f64) -> f64 {
    if x.abs() < 0.25 {
        two_atanh(x / (2.0 + x))
    } else {
        ln(1.0 + x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portable_logarithms_match_libm() {
        use std::f64::consts::{FRAC_1_SQRT_2, SQRT_2};
        for &x in
            &[1e-300, 1e-20, 0.001, 0.3, 0.5, FRAC_1_SQRT_2, 1.0, SQRT_2, SQRT_2 * (1.0 + f64::EPSILON), 2.0, 3.7, 1e10, 1e300, 5e-324]
        {
            let (a, b) = (ln(x), x.ln());
            assert!((a - b).abs() <= 4e-16 * b.abs().max(1.0), "ln({x}) = {a}, libm {b}");
        }
        for &x in &[-0.9, -0.24, -1e-3, -1e-17, 0.0, 1e-17, 1e-9, 0.2, 0.3, 5.0] {
            let (a, b) = (ln1p(x), x.ln_1p());
            assert!((a - b).abs() <= 4e-16 * b.abs().max(1e-300), "ln1p({x}) = {a}, libm {b}");
        }
    }

    #[test]
    fn per_flit_probability_from_the_bit_error_rate() {
        // 1 - (1 - b)^n against the closed forms: n b for tiny b; exact small cases.
        assert_eq!(complement_pow(0.0, 64), 0.0);
        assert_eq!(complement_pow(0.5, 1), 0.5);
        assert_eq!(complement_pow(0.5, 2), 0.75);
        assert_eq!(complement_pow(0.5, 3), 0.875);
        // n b - C(n, 2) b^2, the next term C(n, 3) b^3 ~ 4e-41 being below f64 precision.
        let p = complement_pow(1e-15, 64);
        assert!((p - (64e-15 - 2016e-30)).abs() < 1e-28, "{p}");
        let p = complement_pow(1e-3, 64);
        let expect = -(64.0 * (-1e-3f64).ln_1p()).exp_m1();
        assert!((p - expect).abs() < 1e-15, "{p} {expect}");
        let e = ErrorParams { ber: 1e-18, ..ErrorParams::default() };
        assert!((e.ctrl_error_probability() - 120e-18).abs() < 1e-30);
    }

    #[test]
    fn independent_errors_hit_at_the_rate() {
        // Per-flit p = 1 - (1 - 1e-3)^64 = 0.0620; 200k flits: mean 12,404, sd ~108.
        let p = ErrorParams { ber: 1e-3, ..ErrorParams::default() };
        let mut e = LinkErrors::new(&p, 3, 9);
        let hits = (0..200_000u64).filter(|&t| e.data_hit(t)).count() as f64;
        let mean = 200_000.0 * p.flit_error_probability();
        assert!((hits - mean).abs() < 6.0 * (mean * (1.0 - p.flit_error_probability())).sqrt(), "{hits} vs {mean}");
    }

    #[test]
    fn bursts_have_their_mean_gap_and_length() {
        // mean_gap 200, mean_len 10: a fraction 10/210 of the time in bursts; with burst
        // ber 0.5 nearly every flit sent in a burst is hit (1 - 2^-64).
        let p = ErrorParams { burst: Some(BurstParams { mean_gap: 200.0, mean_len: 10.0, ber: 0.5 }), ..ErrorParams::default() };
        let mut e = LinkErrors::new(&p, 0, 1);
        let n = 2_000_000u64;
        let hit: Vec<bool> = (0..n).map(|t| e.data_hit(t)).collect();
        let frac = hit.iter().filter(|&&h| h).count() as f64 / n as f64;
        assert!((frac - 10.0 / 210.0).abs() < 0.004, "{frac}");
        let runs = hit.windows(2).filter(|w| !w[0] && w[1]).count() as f64;
        let mean_len = hit.iter().filter(|&&h| h).count() as f64 / runs;
        assert!((mean_len - 10.0).abs() < 0.6, "{mean_len}");
    }

    #[test]
    fn sync_loss_script_and_loss_hit_exactly() {
        let p = ErrorParams {
            sync_loss: vec![
                SyncLoss { start: 10, duration: 5, lanes: Lanes::Data },
                SyncLoss { start: 12, duration: 6, lanes: Lanes::Data },
                SyncLoss { start: 3, duration: 2, lanes: Lanes::Control },
            ],
            corrupt_data_at: vec![30, 2, 30],
            corrupt_ctrl_at: vec![7],
            ..ErrorParams::default()
        };
        let mut e = LinkErrors::new(&p, 0, 1);
        let data: Vec<u64> = (0..40).filter(|&t| e.data_hit(t)).collect();
        assert_eq!(data, vec![2, 10, 11, 12, 13, 14, 15, 16, 17, 30]);
        let ctrl: Vec<u64> = (0..40).filter(|&t| e.ctrl_hit(t)).collect();
        assert_eq!(ctrl, vec![3, 4, 7]);
        assert_eq!(e.data_hits().sync, 8);
        assert_eq!(e.data_hits().scripted, 2);
    }

    #[test]
    fn streams_are_per_link_and_seed() {
        let p = ErrorParams { ber: 0.01, ctrl_loss: 0.1, ..ErrorParams::default() };
        let pattern = |link, seed| {
            let mut e = LinkErrors::new(&p, link, seed);
            (0..5000u64).map(|t| (e.data_hit(t), e.ctrl_hit(t))).collect::<Vec<_>>()
        };
        assert_eq!(pattern(1, 2), pattern(1, 2));
        assert_ne!(pattern(1, 2), pattern(2, 2));
        assert_ne!(pattern(1, 2), pattern(1, 3));
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let bad = |p: ErrorParams, field: &str| {
            let e = p.validate("errors").unwrap_err();
            assert_eq!(e.path(), Some(format!("errors.{field}").as_str()), "{e}");
        };
        bad(ErrorParams { ber: 1.0, ..ErrorParams::default() }, "ber");
        bad(ErrorParams { ber: -1e-9, ..ErrorParams::default() }, "ber");
        bad(ErrorParams { ber: f64::NAN, ..ErrorParams::default() }, "ber");
        bad(ErrorParams { ctrl_loss: 1.5, ..ErrorParams::default() }, "ctrl_loss");
        bad(ErrorParams { flit_bits: 0, ..ErrorParams::default() }, "flit_bits");
        bad(
            ErrorParams { burst: Some(BurstParams { mean_gap: 0.5, mean_len: 3.0, ber: 0.1 }), ..ErrorParams::default() },
            "burst.mean_gap",
        );
        bad(
            ErrorParams { burst: Some(BurstParams { mean_gap: 10.0, mean_len: f64::INFINITY, ber: 0.1 }), ..ErrorParams::default() },
            "burst.mean_len",
        );
        bad(
            ErrorParams { sync_loss: vec![SyncLoss { start: 1, duration: 0, lanes: Lanes::Both }], ..ErrorParams::default() },
            "sync_loss[0].duration",
        );
        assert!(ErrorParams::default().validate("errors").is_ok());
        let msg = ErrorParams { ber: 2.0, ..ErrorParams::default() }.validate("errors").unwrap_err().to_string();
        assert!(msg.contains("[0, 1)"), "{msg}");
    }
}
