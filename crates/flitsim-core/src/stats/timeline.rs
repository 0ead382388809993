//! Throughput over time (`stats.timeline`): flits created and ejected per bin of cycles
//! over the whole run (warm-up and drain included), for figures that are curves over
//! time, such as the delivered throughput under bursty load of the self-tuned
//! congestion-control paper (Fig. 9). Off by default (a bin width of 0). With
//! `stats.channel_timeline`, also each channel's flits per bin ([`ChannelSeries`]), for
//! drawing the network over time.

/// One bin of the timeline in the report: the cycles `[cycle - width, cycle)` (the last
/// bin may be shorter: it ends where the run ended).
#[derive(serde::Serialize, Clone, Debug, PartialEq)]
pub struct TimelineBin {
    /// The bin's end (exclusive), cycles.
    pub cycle: u64,
    /// Flits created in the bin / (nodes x the bin's cycles), flits/node/cycle.
    pub offered: f64,
    /// Flits ejected in the bin / (nodes x the bin's cycles), flits/node/cycle.
    pub accepted: f64,
}

/// The counts per bin while running.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Timeline {
    /// Cycles per bin; 0 = off.
    width: u64,
    /// Flits created, per bin.
    created: Vec<u64>,
    /// Flits ejected, per bin.
    ejected: Vec<u64>,
}

impl Timeline {
    /// Bins of `width` cycles (0: record nothing).
    pub fn new(width: u64) -> Self {
        Timeline { width, created: Vec::new(), ejected: Vec::new() }
    }

    /// Is anything recorded?
    #[inline]
    pub fn on(&self) -> bool {
        self.width != 0
    }

    /// Count `flits` into the bin of `cycle` of `counts` (grown as the run goes on:
    /// doubling, so a run allocates a logarithmic number of times).
    #[inline]
    fn add(width: u64, counts: &mut Vec<u64>, cycle: u64, flits: u64) {
        let bin = (cycle / width) as usize;
        if bin >= counts.len() {
            counts.resize((bin + 1).max(2 * counts.len()), 0);
        }
        counts[bin] += flits;
    }

    /// `flits` created at `cycle`.
    #[inline]
    pub fn on_created(&mut self, flits: u64, cycle: u64) {
        if self.on() {
            Self::add(self.width, &mut self.created, cycle, flits);
        }
    }

    /// One flit ejected at `cycle`.
    #[inline]
    pub fn on_ejected(&mut self, cycle: u64) {
        if self.on() {
            Self::add(self.width, &mut self.ejected, cycle, 1);
        }
    }

    /// Add another partition's counts (element-wise sums: the same whatever the
    /// partitioning).
    pub fn merge(&mut self, other: &Timeline) {
        for (mine, theirs) in [(&mut self.created, &other.created), (&mut self.ejected, &other.ejected)] {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), 0);
            }
            mine.iter_mut().zip(theirs).for_each(|(a, b)| *a += b);
        }
    }

    /// The bins of a run of `cycles` cycles on `nodes` endpoints (empty when off).
    pub fn finish(&self, nodes: usize, cycles: u64) -> Vec<TimelineBin> {
        if !self.on() || nodes == 0 {
            return Vec::new();
        }
        let at = |v: &Vec<u64>, i: usize| v.get(i).copied().unwrap_or(0);
        (0..cycles.div_ceil(self.width) as usize)
            .map(|i| {
                let start = i as u64 * self.width;
                let end = (start + self.width).min(cycles);
                let rate = |flits: u64| flits as f64 / (nodes as f64 * (end - start) as f64);
                TimelineBin { cycle: end, offered: rate(at(&self.created, i)), accepted: rate(at(&self.ejected, i)) }
            })
            .collect()
    }
}

/// Flits sent on each channel per timeline bin while running (`stats.channel_timeline`).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ChannelSeries {
    /// Cycles per bin; 0 = off.
    width: u64,
    /// Channel ids.
    channels: usize,
    /// Flits, indexed `bin * channels + channel` (grown by whole bins as the run goes on).
    counts: Vec<u64>,
}

impl ChannelSeries {
    /// Bins of `width` cycles for `channels` channel ids (`width` 0: record nothing).
    pub fn new(width: u64, channels: usize) -> Self {
        ChannelSeries { width, channels, counts: Vec::new() }
    }

    /// Is anything recorded?
    #[inline]
    pub fn on(&self) -> bool {
        self.width != 0
    }

    /// `flits` sent on `channel` at `cycle`.
    #[inline]
    pub fn add(&mut self, channel: usize, cycle: u64, flits: u64) {
        let bin = (cycle / self.width) as usize;
        let i = bin * self.channels + channel;
        if i >= self.counts.len() {
            // Whole bins, doubling: a logarithmic number of allocations per run.
            self.counts.resize(((bin + 1) * self.channels).max(2 * self.counts.len()), 0);
        }
        self.counts[i] += flits;
    }

    /// Add another partition's counts (element-wise sums).
    pub fn merge(&mut self, other: &ChannelSeries) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        self.counts.iter_mut().zip(&other.counts).for_each(|(a, b)| *a += b);
    }

    /// Channel `channel`'s flits in each bin of a run of `cycles` cycles (the bins of
    /// [`Timeline::finish`]); empty when off.
    pub fn of(&self, channel: usize, cycles: u64) -> Vec<u64> {
        if !self.on() {
            return Vec::new();
        }
        (0..cycles.div_ceil(self.width) as usize).map(|b| self.counts.get(b * self.channels + channel).copied().unwrap_or(0)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_count_flits_per_node_and_cycle_and_the_last_ends_with_the_run() {
        // 2 nodes, bins of 10 cycles, a run of 25 cycles: bins [0,10) [10,20) [20,25).
        let mut t = Timeline::new(10);
        t.on_created(4, 0);
        t.on_created(6, 9);
        t.on_created(5, 21);
        for c in [3, 12, 13, 19, 24] {
            t.on_ejected(c);
        }
        let bins = t.finish(2, 25);
        let want = [(10, 10.0 / 20.0, 1.0 / 20.0), (20, 0.0, 3.0 / 20.0), (25, 5.0 / 10.0, 1.0 / 10.0)];
        assert_eq!(bins.len(), 3);
        for (b, (cycle, offered, accepted)) in bins.iter().zip(want) {
            assert_eq!((b.cycle, b.offered, b.accepted), (cycle, offered, accepted));
        }
        // Off: nothing recorded, nothing reported.
        let mut off = Timeline::new(0);
        off.on_created(3, 1);
        off.on_ejected(1);
        assert!(off.finish(2, 25).is_empty() && off.created.is_empty());
    }

    #[test]
    fn merged_partitions_give_the_whole_networks_bins() {
        // Two partitions, one of which saw a later cycle: the sums per bin.
        let (mut a, mut b, mut whole) = (Timeline::new(5), Timeline::new(5), Timeline::new(5));
        for (c, part) in [(1u64, 0), (7, 1), (23, 1), (4, 0), (8, 0)] {
            let t = if part == 0 { &mut a } else { &mut b };
            t.on_ejected(c);
            t.on_created(2, c);
            whole.on_ejected(c);
            whole.on_created(2, c);
        }
        a.merge(&b);
        assert_eq!(a.finish(3, 30), whole.finish(3, 30));
        assert_eq!(a.finish(3, 30).iter().map(|b| b.accepted * 15.0).collect::<Vec<_>>(), vec![2.0, 2.0, 0.0, 0.0, 1.0, 0.0]);
    }

    #[test]
    fn channel_series_counts_each_channel_per_bin_across_partitions() {
        // 3 channels, bins of 10 cycles, a run of 35 cycles: 4 bins, the last [30, 35).
        let (mut a, mut b) = (ChannelSeries::new(10, 3), ChannelSeries::new(10, 3));
        a.add(0, 0, 1);
        a.add(0, 9, 1);
        a.add(2, 10, 4);
        b.add(1, 34, 1); // only the other partition saw the last bin
        b.add(0, 15, 2);
        a.merge(&b);
        assert_eq!(a.of(0, 35), vec![2, 2, 0, 0]);
        assert_eq!(a.of(1, 35), vec![0, 0, 0, 1]);
        assert_eq!(a.of(2, 35), vec![0, 4, 0, 0]);
        let off = ChannelSeries::new(0, 3);
        assert!(off.of(0, 35).is_empty());
    }
}
