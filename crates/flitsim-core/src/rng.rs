//! Deterministic random-number streams: one independent stream per component.
//!
//! Every endpoint, router or pattern draws from its own generator derived from
//! `(seed, component id)`, never from a shared one, so results do not depend on the
//! order in which components are visited or on the number of threads.

use rand_pcg::Pcg64Mcg;

/// The generator used everywhere in the engine (PCG-XSL-RR 128/64 MCG).
pub type SimRng = Pcg64Mcg;

/// Component-id namespaces, so that e.g. endpoint 3 and router 3 get different streams.
pub mod domain {
    /// Endpoint (NIC) streams: injection process and destinations.
    pub const ENDPOINT: u64 = 1;
    /// Router streams.
    pub const ROUTER: u64 = 2;
    /// Traffic-pattern construction (random permutations).
    pub const PATTERN: u64 = 3;
    /// Random fault sets.
    pub const FAULTS: u64 = 4;
    /// Per-packet random source routes (up*/down* `selection = "random"`).
    pub const ROUTE: u64 = 5;
    /// Random rank placement of an application trace.
    pub const PLACEMENT: u64 = 6;
}

/// SplitMix64 finaliser: a bijective 64-bit mixer.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The stream for component `id` in `domain` under the run `seed`.
pub fn stream(seed: u64, domain: u64, id: u64) -> SimRng {
    let hi = mix64(seed ^ mix64(domain));
    let lo = mix64(hi ^ mix64(id.wrapping_add(0x5851_F42D_4C95_7F2D)));
    // The MCG state must be odd; mixing keeps streams far apart.
    Pcg64Mcg::new((((hi as u128) << 64) | lo as u128) | 1)
}

/// Probability `p` in [0, 1] as a 64-bit threshold: an event with probability `p`
/// fires when a uniform `u64` draw is below the threshold. Exact and portable (no libm).
pub fn threshold(p: f64) -> u64 {
    if p <= 0.0 {
        0
    } else if p >= 1.0 {
        u64::MAX
    } else {
        // p * 2^64, computed exactly in f64 then truncated.
        (p * 18_446_744_073_709_551_616.0) as u64
    }
}

/// Draw an event with the given [`threshold`].
#[inline]
pub fn fires(rng: &mut SimRng, threshold: u64) -> bool {
    use rand::Rng;
    threshold == u64::MAX || rng.next_u64() < threshold
}

/// Uniform integer in `0..n` (n > 0) by Lemire's multiply-shift; portable across machines.
#[inline]
pub fn below(rng: &mut SimRng, n: u32) -> u32 {
    use rand::Rng;
    debug_assert!(n > 0);
    // 32x32->64 multiply; bias is < n / 2^32, negligible for network sizes, and
    // the result is identical on every platform.
    (((rng.next_u32() as u64) * (n as u64)) >> 32) as u32
}

/// Uniform float in [0, 1) with 53 random bits.
#[inline]
pub fn unit(rng: &mut SimRng) -> f64 {
    use rand::Rng;
    (rng.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_by_component_and_seed() {
        use rand::Rng;
        let a = stream(1, domain::ENDPOINT, 0).next_u64();
        let b = stream(1, domain::ENDPOINT, 1).next_u64();
        let c = stream(2, domain::ENDPOINT, 0).next_u64();
        let d = stream(1, domain::ROUTER, 0).next_u64();
        assert!(a != b && a != c && a != d && b != c);
        assert_eq!(a, stream(1, domain::ENDPOINT, 0).next_u64());
    }

    #[test]
    fn threshold_endpoints_and_rate() {
        assert_eq!(threshold(0.0), 0);
        assert_eq!(threshold(1.0), u64::MAX);
        assert_eq!(threshold(0.5), 1u64 << 63);
        let mut rng = stream(7, domain::ENDPOINT, 0);
        let t = threshold(0.25);
        let hits = (0..200_000).filter(|_| fires(&mut rng, t)).count();
        // Binomial sd = sqrt(200000*0.25*0.75) ~ 194; allow 5 sd.
        assert!((hits as i64 - 50_000).abs() < 1_000, "{hits}");
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut rng = stream(3, domain::PATTERN, 0);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[below(&mut rng, 7) as usize] += 1;
        }
        for c in counts {
            assert!((c as i64 - 10_000).abs() < 600, "{counts:?}");
        }
    }
}
