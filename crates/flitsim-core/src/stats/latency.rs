//! Latency distributions: exact mean, minimum, maximum and histogram, with percentiles
//! from an HDR histogram.
//!
//! A [`LatencyRecorder`] is fed one latency (in cycles) per delivered packet and turns into
//! a [`LatencyStats`] for the report:
//!
//! - `count`, `mean`, `min`, `max` are exact (the sum is kept in a `u128`).
//! - The percentile `q` is the smallest recorded latency `v` such that at least
//!   `⌈q·count⌉` latencies are `<= v` (nearest-rank). With the default recording bins of
//!   one cycle it is exact, read from the bins below (which then are the latencies'
//!   exact distribution); with wider bins it comes from [`hdrhistogram`] with 3
//!   significant decimal digits and auto-resize (exact below 2048 cycles, within 0.1%
//!   above), clamped to the exact `[min, max]`. (The HDR histogram is fed only then.)
//! - The reported [`Histogram`] holds exact counts (its total equals `count`). Latencies
//!   are counted in bins of `histogram_bin` cycles while recording; when reporting,
//!   neighbouring bins are merged into a "nice" width (`histogram_bin` × 1, 2, 5, 10,
//!   20, 50, …) so that at most [`MAX_HISTOGRAM_BINS`] bins are reported.
//!
//! An empty recorder reports zeros everywhere (count 0, mean 0.0, no bins) rather than NaN,
//! so a report always serialises to JSON.

/// The most bins a reported [`Histogram`] has; wider distributions get wider bins.
pub const MAX_HISTOGRAM_BINS: usize = 200;

/// Significant decimal digits kept by the HDR histogram behind the percentiles.
pub const PERCENTILE_SIGNIFICANT_DIGITS: u8 = 3;

/// Exact latency counts in equal-width bins.
///
/// Bin `i` counts latencies in `[start + i·bin_width, start + (i+1)·bin_width)` cycles.
/// `start` is a multiple of `bin_width`; the first and last bins are non-empty.
#[derive(serde::Serialize, Clone, Debug)]
pub struct Histogram {
    /// Width of every bin, in cycles.
    pub bin_width: u64,
    /// Lower edge of the first bin, in cycles (0 when there are no bins).
    pub start: u64,
    /// Number of latencies in each bin; sums to the recorded count.
    pub counts: Vec<u64>,
}

/// Summary of one latency distribution, in cycles.
#[derive(serde::Serialize, Clone, Debug)]
pub struct LatencyStats {
    /// Number of latencies recorded (packets).
    pub count: u64,
    /// Exact mean latency, cycles; 0.0 when `count` is 0.
    pub mean: f64,
    /// Smallest latency, cycles; 0 when `count` is 0.
    pub min: u64,
    /// Median latency, cycles (exact with 1-cycle bins, else 3 significant digits; see
    /// the module doc); 0 when empty.
    pub p50: u64,
    /// 90th percentile latency, cycles; 0 when empty.
    pub p90: u64,
    /// 99th percentile latency, cycles; 0 when empty.
    pub p99: u64,
    /// 99.9th percentile latency, cycles; 0 when empty.
    pub p999: u64,
    /// Largest latency, cycles (exact); 0 when `count` is 0.
    pub max: u64,
    /// Exact counts in at most [`MAX_HISTOGRAM_BINS`] bins.
    pub histogram: Histogram,
}

/// Accumulates latencies (cycles) one at a time. Recording is O(1) and allocates only
/// when a latency exceeds every earlier one by enough to grow the buffers (amortised, a
/// logarithmic number of times over a run).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct LatencyRecorder {
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
    /// Recording bin width, cycles (>= 1).
    bin: u64,
    /// Exact counts: `bins[i]` counts latencies in `[i·bin, (i+1)·bin)`.
    bins: Vec<u64>,
    #[serde(with = "hdr_counts")]
    hdr: hdrhistogram::Histogram<u64>,
}

/// A histogram as its non-empty buckets, `(value, count)`: enough to rebuild one whose
/// every bucket, and so every quantile, is the same (to send a recorder between
/// processes, [`crate::sim::distributed`]).
mod hdr_counts {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(h: &hdrhistogram::Histogram<u64>, s: S) -> Result<S::Ok, S::Error> {
        let buckets: Vec<(u64, u64)> = h.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).collect();
        buckets.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<hdrhistogram::Histogram<u64>, D::Error> {
        let buckets = Vec::<(u64, u64)>::deserialize(d)?;
        let mut h = hdrhistogram::Histogram::new(super::PERCENTILE_SIGNIFICANT_DIGITS).map_err(serde::de::Error::custom)?;
        for (v, n) in buckets {
            h.record_n(v, n).map_err(serde::de::Error::custom)?;
        }
        Ok(h)
    }
}

impl LatencyRecorder {
    /// An empty recorder counting the exact histogram in bins of `bin` cycles (0 is
    /// treated as 1).
    pub fn new(bin: u64) -> Self {
        let hdr =
            hdrhistogram::Histogram::new(PERCENTILE_SIGNIFICANT_DIGITS).expect("3 significant digits is a valid hdrhistogram precision");
        LatencyRecorder { count: 0, sum: 0, min: u64::MAX, max: 0, bin: bin.max(1), bins: Vec::with_capacity(256), hdr }
    }

    /// Record one latency of `cycles`.
    #[inline]
    pub fn record(&mut self, cycles: u64) {
        self.count += 1;
        self.sum += u128::from(cycles);
        self.min = self.min.min(cycles);
        self.max = self.max.max(cycles);
        let i = usize::try_from(cycles / self.bin).unwrap_or(usize::MAX);
        if i >= self.bins.len() {
            self.bins.resize(i + 1, 0);
        }
        self.bins[i] += 1;
        // With 1-cycle bins the percentiles are read from the bins (exact), so the HDR
        // histogram is fed only for wider ones. `record` auto-resizes
        // (`saturating_record` would clamp to the current range instead); it fails only
        // above i64::MAX / 2 cycles, which is clamped.
        if self.bin > 1 && self.hdr.record(cycles).is_err() {
            self.hdr.saturating_record(cycles);
        }
    }

    /// Add the latencies `other` recorded (another partition's): afterwards this
    /// recorder is the one that recorded both, whatever the order of the records.
    pub fn merge(&mut self, other: &LatencyRecorder) {
        debug_assert_eq!(self.bin, other.bin);
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        if other.bins.len() > self.bins.len() {
            self.bins.resize(other.bins.len(), 0);
        }
        for (a, b) in self.bins.iter_mut().zip(&other.bins) {
            *a += b;
        }
        self.hdr.add(&other.hdr).expect("auto-resizing histograms of the same precision merge");
    }

    /// Number of latencies recorded so far.
    #[inline]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Exact mean of the latencies recorded so far, cycles; 0.0 if none.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// The summary for the report.
    pub fn stats(&self) -> LatencyStats {
        if self.count == 0 {
            return LatencyStats {
                count: 0,
                mean: 0.0,
                min: 0,
                p50: 0,
                p90: 0,
                p99: 0,
                p999: 0,
                max: 0,
                histogram: Histogram { bin_width: self.bin, start: 0, counts: Vec::new() },
            };
        }
        // The quantile num/den (see the module doc).
        let q = |num: u64, den: u64| {
            if self.bin == 1 {
                self.exact_quantile(num, den)
            } else {
                self.hdr.value_at_quantile(num as f64 / den as f64).clamp(self.min, self.max)
            }
        };
        LatencyStats {
            count: self.count,
            mean: self.mean(),
            min: self.min,
            p50: q(1, 2),
            p90: q(9, 10),
            p99: q(99, 100),
            p999: q(999, 1000),
            max: self.max,
            histogram: self.histogram(MAX_HISTOGRAM_BINS),
        }
    }

    /// The exact nearest-rank quantile `num / den` from 1-cycle bins: the smallest
    /// latency `v` with at least `⌈count · num / den⌉` (at least one) latencies `<= v`.
    fn exact_quantile(&self, num: u64, den: u64) -> u64 {
        debug_assert_eq!(self.bin, 1);
        let rank = (u128::from(self.count) * u128::from(num)).div_ceil(u128::from(den)).max(1);
        let mut seen = 0u128;
        for (v, &c) in self.bins.iter().enumerate().skip(self.min as usize) {
            seen += u128::from(c);
            if seen >= rank {
                return v as u64;
            }
        }
        self.max
    }

    /// The exact counts merged into at most `max_bins` (>= 1) bins of a nice width.
    fn histogram(&self, max_bins: usize) -> Histogram {
        let max_bins = max_bins.max(1) as u64;
        let (mut width, mut first, mut last);
        let mut decade = 1u64;
        'search: loop {
            for step in [1u64, 2, 5] {
                width = self.bin.saturating_mul(step.saturating_mul(decade));
                first = self.min / width;
                last = self.max / width;
                if last - first < max_bins {
                    break 'search;
                }
            }
            decade = decade.saturating_mul(10);
        }
        let mut counts = vec![0u64; (last - first + 1) as usize];
        let lo = (self.min / self.bin) as usize;
        let hi = (self.max / self.bin) as usize;
        for (i, &c) in self.bins.iter().enumerate().take(hi + 1).skip(lo) {
            // Every recording bin lies inside one reported bin (width is a multiple of bin).
            let edge = i as u64 * self.bin;
            counts[(edge / width - first) as usize] += c;
        }
        Histogram { bin_width: width, start: first * width, counts }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorder of `bin`-cycle bins that recorded every latency in `values`.
    fn recorded(bin: u64, values: impl IntoIterator<Item = u64>) -> LatencyRecorder {
        let mut r = LatencyRecorder::new(bin);
        values.into_iter().for_each(|v| r.record(v));
        r
    }

    #[test]
    fn one_to_hundred() {
        let r = recorded(1, 1..=100);
        let s = r.stats();
        assert_eq!(s.count, 100);
        assert_eq!(s.mean, 50.5);
        assert_eq!((s.min, s.p50, s.p90, s.p99, s.p999, s.max), (1, 50, 90, 99, 100, 100));
        assert_eq!(s.histogram.bin_width, 1);
        assert_eq!(s.histogram.start, 1);
        assert_eq!(s.histogram.counts, vec![1; 100]);
    }

    #[test]
    fn empty_is_zero_not_nan() {
        let s = LatencyRecorder::new(4).stats();
        assert_eq!(s.count, 0);
        assert_eq!(s.mean, 0.0);
        assert_eq!((s.min, s.p50, s.p999, s.max), (0, 0, 0, 0));
        assert!(s.histogram.counts.is_empty());
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"mean\":0.0"), "{json}");
    }

    #[test]
    fn wide_distribution_is_merged_to_nice_bins() {
        // Latencies 0..1000: 1000 unit bins -> width 5 gives 200 bins exactly.
        let mut r = recorded(1, 0..1000);
        let h = r.stats().histogram;
        assert_eq!(h.bin_width, 5);
        assert_eq!(h.start, 0);
        assert_eq!(h.counts.len(), 200);
        assert!(h.counts.iter().all(|&c| c == 5));

        // 0..1001 needs one more bin than 200 at width 5 -> width 10.
        r.record(1000);
        let h = r.stats().histogram;
        assert_eq!(h.bin_width, 10);
        assert_eq!(h.counts.len(), 101);
        assert_eq!(h.counts.iter().sum::<u64>(), 1001);
        assert_eq!(h.counts[100], 1);
    }

    #[test]
    fn histogram_start_is_aligned_and_total_is_exact() {
        let r = recorded(3, [17, 17, 18, 20, 5000, 123_456]);
        let s = r.stats();
        let h = &s.histogram;
        assert!(h.counts.len() <= MAX_HISTOGRAM_BINS);
        assert_eq!(h.counts.iter().sum::<u64>(), 6);
        assert_eq!(h.start % h.bin_width, 0);
        assert_eq!(h.bin_width % 3, 0);
        assert!(h.start <= 17 && 123_456 < h.start + h.bin_width * h.counts.len() as u64);
        assert!(*h.counts.first().unwrap() > 0 && *h.counts.last().unwrap() > 0);
        // Exact extremes and mean even though percentiles are approximate up there.
        assert_eq!((s.min, s.max), (17, 123_456));
        assert_eq!(s.mean, (17 + 17 + 18 + 20 + 5000 + 123_456) as f64 / 6.0);
        assert_eq!(s.p999, 123_456);
    }

    #[test]
    fn large_latencies_resize_and_stay_exact() {
        let r = recorded(1, 1..=100_000);
        let s = r.stats();
        // One-cycle bins: exact nearest-rank percentiles.
        assert_eq!((s.p50, s.p90, s.p99, s.p999), (50_000, 90_000, 99_000, 99_900));
        assert_eq!(s.max, 100_000);
        assert_eq!(s.mean, 50_000.5);
        // 100_000 unit bins -> width 1000 gives 101 bins ([0,1000) .. [100000,101000)).
        assert_eq!(s.histogram.bin_width, 1000);
        assert_eq!(s.histogram.counts.len(), 101);
        assert_eq!(s.histogram.counts.iter().sum::<u64>(), 100_000);
    }

    /// Wider recording bins take the percentiles from the HDR histogram: within its
    /// 0.1% above 2048 cycles.
    #[test]
    fn wide_bins_take_percentiles_within_hdr_precision() {
        let r = recorded(5, 1..=100_000);
        let s = r.stats();
        let within = |got: u64, want: u64| got.abs_diff(want) as f64 <= want as f64 * 1e-3;
        assert!(within(s.p50, 50_000), "p50 {}", s.p50);
        assert!(within(s.p90, 90_000), "p90 {}", s.p90);
        assert!(within(s.p99, 99_000), "p99 {}", s.p99);
        assert!(within(s.p999, 99_900), "p999 {}", s.p999);
        assert_eq!((s.min, s.max), (1, 100_000));
    }

    /// One-cycle bins: every percentile is the nearest-rank value of the sorted latencies
    /// (a skewed, two-humped sample from a fixed LCG, ranks computed from the sorted list).
    #[test]
    fn one_cycle_bins_give_the_nearest_rank_of_the_sorted_latencies() {
        let mut r = LatencyRecorder::new(1);
        let (mut x, mut vals) = (12_345u64, Vec::new());
        for _ in 0..7_777 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let v = (x >> 33) % 5_000 + (x >> 20 & 1) * 40_000;
            vals.push(v);
            r.record(v);
        }
        vals.sort_unstable();
        let rank = |num: usize, den: usize| vals[(vals.len() * num).div_ceil(den).max(1) - 1];
        let s = r.stats();
        assert_eq!((s.p50, s.p90, s.p99, s.p999), (rank(1, 2), rank(9, 10), rank(99, 100), rank(999, 1000)));
        assert_eq!((s.min, s.max), (vals[0], vals[vals.len() - 1]));
    }

    #[test]
    fn single_value_and_zero_latency() {
        let mut r = LatencyRecorder::new(10);
        r.record(0);
        let s = r.stats();
        assert_eq!((s.count, s.min, s.p50, s.max), (1, 0, 0, 0));
        assert_eq!((s.histogram.bin_width, s.histogram.start), (10, 0));
        assert_eq!(s.histogram.counts, vec![1]);
    }
}
