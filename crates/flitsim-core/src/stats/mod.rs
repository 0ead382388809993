//! Measurement: offered load, accepted throughput, latency, fairness, per-channel counters
//! and the saturation verdict, following BookSim's conventions.
//!
//! A run has a warm-up, then a measurement window `[start, end)` in cycles, then a drain.
//! Packets *created* inside the window are the **measured** packets; the run drains until
//! every measured packet is delivered (or a drain limit is hit). The engine calls the
//! [`Collector`] hooks as things happen and [`Collector::finish`] once at the end.
//!
//! What is counted, and when:
//!
//! | quantity | counted from | condition |
//! |---|---|---|
//! | offered load | [`Collector::on_created`] (flits) | created in the window |
//! | accepted throughput, per destination | [`Collector::on_ejected_flit`] | ejected in the window (any packet, measured or not) |
//! | delivered throughput, per source | [`Collector::on_ejected_flit`] | ejected in the window (any packet) |
//! | channel counters | [`Collector::on_channel_flit`] | sent in the window |
//! | latency, hops, latency by source | [`Collector::on_measured_delivered`] | measured packets only, whenever delivered (also during the drain) |
//! | timeline (`stats.timeline`) | [`Collector::on_created`], [`Collector::on_ejected_flit`] | every cycle of the run, per bin |
//! | channel timeline (`stats.channel_timeline`) | [`Collector::on_channel_flit`] | every cycle of the run, per bin |
//! | buffer samples (`stats.buffer_sample`) | [`Collector::buffer_sample_due`], [`Collector::on_buffer_sample`] | every `buffer_sample` cycles of the window, from its start, once the routers have stepped |
//!
//! Throughputs are in flits/node/cycle, latencies in cycles. Packet latency runs from
//! creation (so it includes source queueing) to the ejection of the tail; network latency
//! from the cycle the head left the source queue to the ejection of the tail.
//!
//! Every float in a [`StatsReport`] is finite (empty sets give 0.0, and Jain's index of an
//! empty or all-zero set is 1.0), so reports always serialise to JSON.

pub mod fairness;
pub mod latency;
pub mod router_counters;
pub mod saturation;
pub mod timeline;

pub use fairness::{jain, ThroughputStats};
pub use latency::{Histogram, LatencyRecorder, LatencyStats, MAX_HISTOGRAM_BINS};
pub use saturation::verdict;
pub use timeline::{ChannelSeries, Timeline, TimelineBin};

use crate::error::{Error, Result};

/// Config table `[stats]`: how results are measured and summarised.
#[derive(serde::Deserialize, serde::Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct StatsConfig {
    /// Width in cycles of the latency histogram bins counted while running (>= 1;
    /// default 1, i.e. one bin per cycle value). The reported histogram merges
    /// neighbouring bins into a multiple of this width (× 1, 2, 5, 10, …) so that it has
    /// at most 200 bins; the report states the width actually used.
    pub histogram_bin: u64,
    /// Saturation test: accepted throughput below `offered × (1 − accepted_tolerance)`
    /// means saturated. A fraction in [0, 1); default 0.05 (5%).
    pub accepted_tolerance: f64,
    /// Saturation test: a mean packet latency above this many cycles means saturated.
    /// Must be > 0 and finite; default 1000 (BookSim's `latency_thres` is 500).
    pub latency_limit: f64,
    /// Collect per-channel, per-VC flit counters in the window (memory: one counter per
    /// channel per VC).
    pub channel_counters: bool,
    /// Report the VC_balance of the links (Cray XT VC-assignment paper, section 4) per
    /// dimension: analytically from the routes of all node pairs, and as simulated from
    /// the window's per-channel VC counters (needs `channel_counters`).
    pub vc_balance: bool,
    /// Report throughput over time (`stats.timeline` in the result): flits created and
    /// ejected per bin of this many cycles over the whole run, warm-up and drain
    /// included ([`timeline`]). Default 0: off (and then left out of the config as
    /// written, so configs and the results store's keys read as before the field existed).
    #[schemars(!skip_serializing_if)]
    #[serde(skip_serializing_if = "is_zero")]
    pub timeline: u64,
    /// Count each channel's flits per timeline bin too (`channels[*].timeline` in the
    /// report: flits sent in each `stats.timeline` bin over the whole run, every VC), for
    /// drawing the network over time. Needs `stats.timeline` and `channel_counters`.
    /// Memory: one counter per channel per bin. Default false (left out when false).
    #[schemars(!skip_serializing_if)]
    #[serde(skip_serializing_if = "is_false")]
    pub channel_timeline: bool,
    /// Sample the buffers every channel fills once every this many cycles of the window
    /// (1: every cycle): `channels[*].buffered` is the mean number of flits buffered at
    /// the channel's receiving end (its input VC buffers, or the crosspoint buffers of its
    /// input on a crosspoint switch), `channels[*].blocked` the fraction of samples in
    /// which one of them was full, so the channel's sender could not send in that VC (a
    /// crosspoint buffer: no entry left that some VC may take). Needs `channel_counters`.
    /// Costs a read of every input buffer per sample (every cycle: about a fifth more
    /// run time on an 8x8 torus). Default 0: off (left out when 0).
    #[schemars(!skip_serializing_if)]
    #[serde(skip_serializing_if = "is_zero")]
    pub buffer_sample: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

fn is_false(x: &bool) -> bool {
    !*x
}

impl Default for StatsConfig {
    fn default() -> Self {
        StatsConfig {
            histogram_bin: 1,
            accepted_tolerance: 0.05,
            latency_limit: 1000.0,
            channel_counters: true,
            vc_balance: false,
            timeline: 0,
            channel_timeline: false,
            buffer_sample: 0,
        }
    }
}

impl StatsConfig {
    /// Check every field; `path` is the key path of this table (normally `"stats"`), and
    /// errors name the field, e.g. `stats.accepted_tolerance`.
    pub fn validate(&self, path: &str) -> Result<()> {
        if self.histogram_bin < 1 {
            return Err(Error::config(
                format!("{path}.histogram_bin"),
                "is 0; a histogram bin must be at least 1 cycle wide (use 1 for one bin per cycle value)",
            ));
        }
        if !(0.0..1.0).contains(&self.accepted_tolerance) {
            return Err(Error::config(
                format!("{path}.accepted_tolerance"),
                format!("must be a fraction in [0, 1) (e.g. 0.05 for 5%), got {}", self.accepted_tolerance),
            ));
        }
        if !(self.latency_limit.is_finite() && self.latency_limit > 0.0) {
            return Err(Error::config(
                format!("{path}.latency_limit"),
                format!("must be a positive, finite number of cycles (default 1000), got {}", self.latency_limit),
            ));
        }
        if self.vc_balance && !self.channel_counters {
            return Err(Error::config(
                format!("{path}.vc_balance"),
                "needs the per-channel VC counters for its simulated half; set stats.channel_counters = true or leave vc_balance off",
            ));
        }
        if self.channel_timeline && (self.timeline == 0 || !self.channel_counters) {
            return Err(Error::config(
                format!("{path}.channel_timeline"),
                "counts each channel's flits per timeline bin: set stats.timeline to a bin width in cycles (e.g. 100) and keep stats.channel_counters = true, or leave channel_timeline off",
            ));
        }
        if self.buffer_sample != 0 && !self.channel_counters {
            return Err(Error::config(
                format!("{path}.buffer_sample"),
                "reports buffer occupancy in the channel rows, which stats.channel_counters = false leaves out: set channel_counters = true or buffer_sample = 0",
            ));
        }
        Ok(())
    }
}

/// A measured packet whose tail has been ejected. All times are cycles.
#[derive(Clone, Copy, Debug)]
pub struct Delivered {
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// Packet size, flits.
    pub size: u32,
    /// Cycle the packet was created (entered the source queue).
    pub create: u64,
    /// Cycle its head left the source queue into the network.
    pub inject: u64,
    /// Cycle its tail was ejected at the destination.
    pub arrive: u64,
    /// Router-to-router channel hops taken.
    pub hops: u32,
}

/// What the engine knows at the end of a run that the collector does not see itself.
#[derive(Clone, Debug)]
pub struct FinishInfo {
    /// Measured packets created (those created inside the window).
    pub measured_created: u64,
    /// Measured packets not delivered when the drain stopped (0 = fully drained).
    pub measured_outstanding: u64,
    /// Cycles spent draining after the window closed.
    pub drain_cycles: u64,
    /// Packets waiting in source queues at the start of the window.
    pub source_queue_at_start: u64,
    /// Packets waiting in source queues at the end of the window.
    pub source_queue_at_end: u64,
    /// Total cycles simulated (warm-up + window + drain).
    pub cycles: u64,
    /// Flits in the network at the end (injected, not ejected or lost).
    pub in_network: u64,
    /// Cycles since a flit last moved, at the end.
    pub stalled_for: u64,
    /// The longest a flit may wait between two moves in this network
    /// ([`crate::config::Config::quiet_cycles`]): a stall longer than this with flits in
    /// the network is a deadlock the watchdog (`sim.watchdog`) did not see run out.
    pub quiet_cycles: u64,
    /// `sim.watchdog`.
    pub watchdog: u64,
}

/// The measurement results of one run.
#[derive(serde::Serialize, Clone, Debug)]
pub struct StatsReport {
    /// The measurement window `[start, end)`, cycles.
    pub window: (u64, u64),
    /// Offered load: flits created in the window by all nodes / (nodes × window length),
    /// flits/node/cycle.
    pub offered: f64,
    /// Accepted throughput per destination node: flits ejected there in the window /
    /// window length, flits/node/cycle. Mean, min, max and Jain's index are over all nodes.
    pub accepted: ThroughputStats,
    /// Delivered throughput per source node: flits from that node ejected (anywhere) in
    /// the window / window length, flits/node/cycle. Mean, min, max and Jain's index are
    /// over the nodes that offered traffic in the window (so a silent node, such as the
    /// sink of merge-to-one, does not count as starved); `values` lists every node.
    pub per_source: ThroughputStats,
    /// Packet latency of measured packets: creation to tail ejection (includes source
    /// queueing), cycles.
    pub packet_latency: LatencyStats,
    /// Network latency of measured packets: head leaving the source queue to tail
    /// ejection, cycles.
    pub network_latency: LatencyStats,
    /// Mean packet latency of each node's delivered measured packets, by source node,
    /// cycles; 0.0 for a node with none.
    pub latency_by_source: Vec<f64>,
    /// Mean router-to-router hops of delivered measured packets; 0.0 if none.
    pub avg_hops: f64,
    /// Measured packets (created in the window), as reported by the engine.
    pub packets_measured: u64,
    /// Measured packets delivered (before the drain stopped).
    pub packets_delivered: u64,
    /// True when `saturation_reasons` is non-empty.
    pub saturated: bool,
    /// Why the run counts as saturated, one sentence per reason (see [`saturation`]).
    pub saturation_reasons: Vec<String>,
    /// Flits sent on each channel in each VC in the window, `[channel][vc]`; empty when
    /// `stats.channel_counters` is false.
    pub channel_flits: Vec<Vec<u64>>,
    /// Flits sent on each channel (all VCs) in the window / window length, flits/cycle;
    /// empty when `stats.channel_counters` is false.
    pub channel_utilization: Vec<f64>,
    /// Offered and accepted throughput per bin of `stats.timeline` cycles over the whole
    /// run; left out when off.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<TimelineBin>,
    /// Flits sent on each channel in each timeline bin (`stats.channel_timeline`),
    /// `[channel][bin]`; empty when off.
    #[serde(skip)]
    pub channel_timeline: Vec<Vec<u64>>,
    /// Mean flits buffered at each channel's receiving end over the window's samples
    /// (`stats.buffer_sample`); empty when off.
    #[serde(skip)]
    pub channel_buffered: Vec<f64>,
    /// Fraction of the samples in which a buffer at each channel's receiving end was
    /// full; empty when off.
    #[serde(skip)]
    pub channel_blocked: Vec<f64>,
}

/// Observes a run through the engine's hooks and produces a [`StatsReport`].
///
/// The hooks are O(1) and allocation-free (latency recording allocates only when a new
/// largest latency needs more histogram room, a logarithmic number of times per run).
/// Node, channel and VC ids are indices; out-of-range ids panic.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Collector {
    /// Not sent between processes: a collector received from another process is only
    /// merged into one built from the config (its counts, not its settings, are read),
    /// and the config's serialised form leaves fields out (`timeline` when 0), which a
    /// positional wire format cannot skip.
    #[serde(skip)]
    cfg: StatsConfig,
    start: u64,
    end: u64,
    num_vcs: u32,
    /// Packets created in the window (all sources).
    created_packets: u64,
    /// Flits created in the window, per source.
    offered_flits: Vec<u64>,
    /// Flits ejected in the window, per destination.
    accepted_flits: Vec<u64>,
    /// Flits ejected in the window, per source.
    delivered_flits: Vec<u64>,
    /// Flits sent in the window, indexed `channel * num_vcs + vc`; empty when disabled.
    channel_flits: Vec<u64>,
    packet_latency: LatencyRecorder,
    network_latency: LatencyRecorder,
    /// Per source: the packet latencies of its delivered measured packets summed, and
    /// their count.
    source_latency: Vec<u64>,
    source_delivered: Vec<u64>,
    hops: u64,
    timeline: Timeline,
    /// Flits per channel per timeline bin (`stats.channel_timeline`).
    channel_series: ChannelSeries,
    /// Per channel, the sum over the buffer samples of the flits buffered at its
    /// receiving end, and the samples in which one of those buffers was full; empty when
    /// `stats.buffer_sample` is 0.
    buffered: Vec<u64>,
    blocked: Vec<u64>,
    /// Buffer samples taken (every partition samples in the same cycles, its own
    /// channels: merged as the most, not the sum).
    buffer_samples: u64,
}

impl Collector {
    /// A collector for `num_nodes` endpoints and `num_channels` channels of `num_vcs` VCs
    /// each, measuring the window `[start, end)` (an `end` before `start` is an empty
    /// window).
    pub fn new(cfg: &StatsConfig, num_nodes: u32, num_channels: usize, num_vcs: u32, start: u64, end: u64) -> Self {
        let nodes = num_nodes as usize;
        let channel_flits = if cfg.channel_counters { vec![0; num_channels * num_vcs as usize] } else { Vec::new() };
        Collector {
            cfg: cfg.clone(),
            start,
            end: end.max(start),
            num_vcs,
            created_packets: 0,
            offered_flits: vec![0; nodes],
            accepted_flits: vec![0; nodes],
            delivered_flits: vec![0; nodes],
            channel_flits,
            packet_latency: LatencyRecorder::new(cfg.histogram_bin),
            network_latency: LatencyRecorder::new(cfg.histogram_bin),
            source_latency: vec![0; nodes],
            source_delivered: vec![0; nodes],
            hops: 0,
            timeline: Timeline::new(cfg.timeline),
            channel_series: ChannelSeries::new(if cfg.channel_timeline { cfg.timeline } else { 0 }, num_channels),
            buffered: if cfg.buffer_sample != 0 { vec![0; num_channels] } else { Vec::new() },
            blocked: if cfg.buffer_sample != 0 { vec![0; num_channels] } else { Vec::new() },
            buffer_samples: 0,
        }
    }

    /// Is `cycle` one in which the routers sample their buffers (`stats.buffer_sample`)?
    /// If so, it is counted as a sample, and the caller then reports every channel it
    /// samples with [`Collector::on_buffer_sample`].
    #[inline]
    pub fn buffer_sample_due(&mut self, cycle: u64) -> bool {
        let due = self.cfg.buffer_sample != 0 && self.in_window(cycle) && (cycle - self.start).is_multiple_of(self.cfg.buffer_sample);
        self.buffer_samples += due as u64;
        due
    }

    /// At a buffer sample: `flits` are buffered at the receiving end of `channel`, and
    /// `full` says whether one of its buffers there is full.
    #[inline]
    pub fn on_buffer_sample(&mut self, channel: usize, flits: u32, full: bool) {
        self.buffered[channel] += u64::from(flits);
        self.blocked[channel] += full as u64;
    }

    /// Close the window early at `now` (a finite workload finished): the window becomes
    /// `[start, max(start, now))`.
    pub fn close_window(&mut self, now: u64) {
        self.end = self.end.min(now).max(self.start);
    }

    /// Whether `cycle` is inside the measurement window `[start, end)`.
    #[inline]
    pub fn in_window(&self, cycle: u64) -> bool {
        self.start <= cycle && cycle < self.end
    }

    /// A packet of `size` flits was created at `src` at `cycle`. Counts towards the
    /// offered load when `cycle` is in the window.
    #[inline]
    pub fn on_created(&mut self, src: u32, size: u32, cycle: u64) {
        self.timeline.on_created(u64::from(size), cycle);
        if self.in_window(cycle) {
            self.created_packets += 1;
            self.offered_flits[src as usize] += u64::from(size);
        }
    }

    /// One flit from `src` was ejected at `dst` at `cycle`. Counts towards accepted
    /// (per destination) and delivered (per source) throughput when in the window.
    #[inline]
    pub fn on_ejected_flit(&mut self, src: u32, dst: u32, cycle: u64) {
        self.timeline.on_ejected(cycle);
        if self.in_window(cycle) {
            self.accepted_flits[dst as usize] += 1;
            self.delivered_flits[src as usize] += 1;
        }
    }

    /// A flit was sent on `channel` in `vc` at `cycle`. Counted when in the window and
    /// channel counters are enabled.
    #[inline]
    pub fn on_channel_flit(&mut self, channel: usize, vc: u32, cycle: u64) {
        if self.cfg.channel_counters {
            debug_assert!(vc < self.num_vcs, "vc {vc} out of range (num_vcs {})", self.num_vcs);
            // Adds 0 outside the window (no branch on the cycle).
            self.channel_flits[channel * self.num_vcs as usize + vc as usize] += self.in_window(cycle) as u64;
            if self.channel_series.on() {
                self.channel_series.add(channel, cycle, 1);
            }
        }
    }

    /// `flits` flits crossed `channel` in `vc` at `cycle` (a link that delivers whole
    /// packets). Counted when in the window and channel counters are enabled.
    #[inline]
    pub fn on_channel_flits(&mut self, channel: usize, vc: u32, flits: u64, cycle: u64) {
        if self.cfg.channel_counters {
            debug_assert!(vc < self.num_vcs, "vc {vc} out of range (num_vcs {})", self.num_vcs);
            self.channel_flits[channel * self.num_vcs as usize + vc as usize] += flits * self.in_window(cycle) as u64;
            if self.channel_series.on() {
                self.channel_series.add(channel, cycle, flits);
            }
        }
    }

    /// A measured packet (created in the window) was delivered: records its packet
    /// latency (`arrive − create`), network latency (`arrive − inject`) and hops. Call
    /// only for measured packets, including those delivered during the drain.
    #[inline]
    pub fn on_measured_delivered(&mut self, p: &Delivered) {
        debug_assert!(p.create <= p.inject && p.inject <= p.arrive, "delivered packet times out of order: {p:?}");
        let latency = p.arrive.saturating_sub(p.create);
        self.packet_latency.record(latency);
        self.network_latency.record(p.arrive.saturating_sub(p.inject));
        self.source_latency[p.src as usize] += latency;
        self.source_delivered[p.src as usize] += 1;
        self.hops += u64::from(p.hops);
    }

    /// Add what `other` (another partition's collector for the same network and
    /// window) counted: sums of integer counts and merged latency records, so the result
    /// does not depend on how the network was partitioned.
    pub fn merge(&mut self, other: &Collector) {
        let add = |a: &mut Vec<u64>, b: &Vec<u64>| a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        self.created_packets += other.created_packets;
        add(&mut self.offered_flits, &other.offered_flits);
        add(&mut self.accepted_flits, &other.accepted_flits);
        add(&mut self.delivered_flits, &other.delivered_flits);
        add(&mut self.channel_flits, &other.channel_flits);
        self.packet_latency.merge(&other.packet_latency);
        self.network_latency.merge(&other.network_latency);
        add(&mut self.source_latency, &other.source_latency);
        add(&mut self.source_delivered, &other.source_delivered);
        self.hops += other.hops;
        self.timeline.merge(&other.timeline);
        self.channel_series.merge(&other.channel_series);
        add(&mut self.buffered, &other.buffered);
        add(&mut self.blocked, &other.blocked);
        self.buffer_samples = self.buffer_samples.max(other.buffer_samples);
    }

    /// Packets created in the window so far (as seen by [`Collector::on_created`]); the
    /// engine may use it for [`FinishInfo::measured_created`].
    pub fn packets_created(&self) -> u64 {
        self.created_packets
    }

    /// Measured packets delivered so far.
    pub fn packets_delivered(&self) -> u64 {
        self.packet_latency.count()
    }

    /// Mean packet latency of the measured packets delivered so far, cycles (0.0 if none).
    pub fn mean_packet_latency(&self) -> f64 {
        self.packet_latency.mean()
    }

    /// The measurement window `[start, end)`.
    pub fn window(&self) -> (u64, u64) {
        (self.start, self.end)
    }

    /// Summarise the run. `end` carries what the engine knows at the end of the drain.
    pub fn finish(self, end: FinishInfo) -> StatsReport {
        let len = self.end - self.start;
        let rate = |flits: u64| if len == 0 { 0.0 } else { flits as f64 / len as f64 };
        let nodes = self.offered_flits.len();

        let total_offered: u64 = self.offered_flits.iter().sum();
        let offered = if nodes == 0 || len == 0 { 0.0 } else { total_offered as f64 / (nodes as f64 * len as f64) };

        let accepted = ThroughputStats::all(self.accepted_flits.iter().map(|&f| rate(f)).collect());
        let offered_flits = &self.offered_flits;
        let per_source = ThroughputStats::over(self.delivered_flits.iter().map(|&f| rate(f)).collect(), |i| offered_flits[i] > 0);

        let packet_latency = self.packet_latency.stats();
        let network_latency = self.network_latency.stats();
        let delivered = packet_latency.count;
        let avg_hops = if delivered == 0 { 0.0 } else { self.hops as f64 / delivered as f64 };
        let latency_by_source = self
            .source_latency
            .iter()
            .zip(&self.source_delivered)
            .map(|(&sum, &n)| if n == 0 { 0.0 } else { sum as f64 / n as f64 })
            .collect();

        let reasons = verdict(&self.cfg, offered, accepted.mean, packet_latency.mean, &end);

        let vcs = (self.num_vcs as usize).max(1);
        let channel_flits: Vec<Vec<u64>> = self.channel_flits.chunks(vcs).map(<[u64]>::to_vec).collect();
        let channel_utilization = channel_flits.iter().map(|per_vc| rate(per_vc.iter().sum())).collect();
        let channel_timeline = if self.channel_series.on() {
            (0..channel_flits.len()).map(|c| self.channel_series.of(c, end.cycles)).collect()
        } else {
            Vec::new()
        };
        let per_sample = |v: &Vec<u64>| -> Vec<f64> {
            let n = self.buffer_samples.max(1) as f64;
            v.iter().map(|&x| x as f64 / n).collect()
        };
        let (channel_buffered, channel_blocked) = (per_sample(&self.buffered), per_sample(&self.blocked));

        StatsReport {
            window: (self.start, self.end),
            offered,
            accepted,
            per_source,
            packet_latency,
            network_latency,
            latency_by_source,
            avg_hops,
            packets_measured: end.measured_created,
            packets_delivered: delivered,
            saturated: !reasons.is_empty(),
            saturation_reasons: reasons,
            channel_flits,
            channel_utilization,
            timeline: self.timeline.finish(nodes, end.cycles),
            channel_timeline,
            channel_buffered,
            channel_blocked,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    fn drained(measured: u64) -> FinishInfo {
        FinishInfo {
            measured_created: measured,
            measured_outstanding: 0,
            drain_cycles: 20,
            source_queue_at_start: 0,
            source_queue_at_end: 0,
            cycles: 220,
            in_network: 0,
            stalled_for: 0,
            quiet_cycles: 5,
            watchdog: 5000,
        }
    }

    #[test]
    fn config_defaults_and_partial_table() {
        let cfg: StatsConfig = serde_json::from_str(r#"{"latency_limit": 500.0}"#).unwrap();
        assert_eq!(cfg, StatsConfig { latency_limit: 500.0, ..StatsConfig::default() });
        assert!(StatsConfig::default().validate("stats").is_ok());
        assert!(serde_json::from_str::<StatsConfig>(r#"{"latency_limt": 5.0}"#).is_err());
    }

    #[test]
    fn config_errors_name_the_field() {
        let bad = [
            (StatsConfig { histogram_bin: 0, ..StatsConfig::default() }, "stats.histogram_bin"),
            (StatsConfig { accepted_tolerance: 1.0, ..StatsConfig::default() }, "stats.accepted_tolerance"),
            (StatsConfig { accepted_tolerance: -0.1, ..StatsConfig::default() }, "stats.accepted_tolerance"),
            (StatsConfig { accepted_tolerance: f64::NAN, ..StatsConfig::default() }, "stats.accepted_tolerance"),
            (StatsConfig { latency_limit: 0.0, ..StatsConfig::default() }, "stats.latency_limit"),
            (StatsConfig { latency_limit: f64::INFINITY, ..StatsConfig::default() }, "stats.latency_limit"),
            (StatsConfig { latency_limit: f64::NAN, ..StatsConfig::default() }, "stats.latency_limit"),
        ];
        for (cfg, path) in bad {
            let err = cfg.validate("stats").unwrap_err();
            assert_eq!(err.path(), Some(path), "{cfg:?}");
        }
        let ok = StatsConfig { accepted_tolerance: 0.0, ..StatsConfig::default() };
        assert!(ok.validate("stats").is_ok());
    }

    /// 4 nodes, 3 channels of 2 VCs, window [100, 200) = 100 cycles.
    fn collector() -> Collector {
        Collector::new(&StatsConfig::default(), 4, 3, 2, 100, 200)
    }

    #[test]
    fn window_is_half_open() {
        let c = collector();
        assert!(!c.in_window(99));
        assert!(c.in_window(100));
        assert!(c.in_window(199));
        assert!(!c.in_window(200));
    }

    #[test]
    fn offered_and_accepted_by_hand() {
        let mut c = collector();
        // Outside the window: not counted anywhere.
        c.on_created(0, 5, 99);
        c.on_created(0, 5, 200);
        c.on_ejected_flit(0, 1, 50);
        c.on_ejected_flit(0, 1, 200);
        // Inside: node 0 creates 4 packets of 5 flits, node 1 creates 2 of 5, node 2 one
        // of 10; node 3 is silent. 40 flits / (4 nodes * 100 cycles) = 0.1.
        for t in [100, 120, 140, 199] {
            c.on_created(0, 5, t);
        }
        c.on_created(1, 5, 150);
        c.on_created(1, 5, 151);
        c.on_created(2, 10, 160);
        // Ejections in the window: 20 flits from 0 at 3, 10 from 1 at 3, 6 from 2 at 0.
        for _ in 0..20 {
            c.on_ejected_flit(0, 3, 150);
        }
        for _ in 0..10 {
            c.on_ejected_flit(1, 3, 150);
        }
        for _ in 0..6 {
            c.on_ejected_flit(2, 0, 199);
        }
        assert_eq!(c.packets_created(), 7);
        let r = c.finish(drained(7));
        assert_eq!(r.window, (100, 200));
        assert!(close(r.offered, 0.1));

        // Accepted per destination: [0.06, 0, 0, 0.30]; mean 0.09 over all 4 nodes.
        assert_eq!(r.accepted.values, vec![0.06, 0.0, 0.0, 0.3]);
        assert!(close(r.accepted.mean, 0.09));
        assert_eq!((r.accepted.min, r.accepted.max, r.accepted.nodes), (0.0, 0.3, 4));
        // jain = 0.36^2 / (4 * (0.0036 + 0.09)) = 0.1296 / 0.3744
        assert!(close(r.accepted.jain, 0.1296 / 0.3744));

        // Per source: [0.2, 0.1, 0.06, 0]; node 3 offered nothing so is left out of the
        // summary: mean 0.12, min 0.06, jain = 0.36^2 / (3 * (0.04 + 0.01 + 0.0036)).
        assert_eq!(r.per_source.values, vec![0.2, 0.1, 0.06, 0.0]);
        assert_eq!(r.per_source.nodes, 3);
        assert!(close(r.per_source.mean, 0.12));
        assert_eq!((r.per_source.min, r.per_source.max), (0.06, 0.2));
        assert!(close(r.per_source.jain, 0.1296 / (3.0 * 0.0536)));

        // 0.09 < 0.1 * 0.95: saturated on throughput only.
        assert!(r.saturated);
        assert_eq!(r.saturation_reasons.len(), 1);
        assert!(r.saturation_reasons[0].starts_with("accepted throughput 0.090"));
    }

    #[test]
    fn latency_and_hops_from_measured_packets() {
        let mut c = collector();
        let p = |create, inject, arrive, hops| Delivered { src: 0, dst: 1, size: 4, create, inject, arrive, hops };
        c.on_measured_delivered(&p(100, 104, 120, 2)); // packet 20, network 16
        c.on_measured_delivered(&Delivered { src: 2, ..p(150, 150, 160, 1) }); // packet 10, network 10
        c.on_measured_delivered(&p(199, 230, 260, 3)); // delivered in the drain: 61, 30
        assert_eq!(c.packets_delivered(), 3);
        assert!(close(c.mean_packet_latency(), 91.0 / 3.0));
        let r = c.finish(drained(3));
        assert_eq!(r.packets_measured, 3);
        assert_eq!(r.packets_delivered, 3);
        assert_eq!((r.packet_latency.min, r.packet_latency.max), (10, 61));
        assert!(close(r.packet_latency.mean, 91.0 / 3.0));
        assert!(close(r.network_latency.mean, 56.0 / 3.0));
        assert_eq!(r.network_latency.p50, 16);
        assert!(close(r.avg_hops, 2.0));
        assert_eq!(r.packet_latency.histogram.counts.iter().sum::<u64>(), 3);
        // By source: node 0 sent the 20 and the 61, node 2 the 10, nodes 1 and 3 none.
        assert_eq!(r.latency_by_source, vec![40.5, 0.0, 10.0, 0.0]);
    }

    #[test]
    fn channel_counters_and_utilization() {
        let mut c = collector();
        for t in [100, 101, 102, 103, 104] {
            c.on_channel_flit(0, 0, t);
        }
        for t in [110, 111, 112] {
            c.on_channel_flit(0, 1, t);
        }
        c.on_channel_flit(2, 1, 199);
        c.on_channel_flit(2, 1, 200); // after the window
        c.on_channel_flit(1, 0, 99); // before the window
        let r = c.finish(drained(0));
        assert_eq!(r.channel_flits, vec![vec![5, 3], vec![0, 0], vec![0, 1]]);
        assert_eq!(r.channel_utilization, vec![0.08, 0.0, 0.01]);
    }

    #[test]
    fn channel_counters_disabled() {
        let cfg = StatsConfig { channel_counters: false, ..StatsConfig::default() };
        let mut c = Collector::new(&cfg, 4, 3, 2, 0, 10);
        c.on_channel_flit(1, 1, 5);
        let r = c.finish(drained(0));
        assert!(r.channel_flits.is_empty());
        assert!(r.channel_utilization.is_empty());
    }

    #[test]
    fn idle_run_is_finite_and_serializes() {
        let c = collector();
        let r = c.finish(drained(0));
        assert!(!r.saturated);
        assert_eq!(r.offered, 0.0);
        assert_eq!((r.accepted.jain, r.per_source.jain), (1.0, 1.0));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["packet_latency"]["mean"], 0.0);
        assert_eq!(json["window"], serde_json::json!([100, 200]));
    }

    #[test]
    fn empty_window_and_no_nodes_do_not_divide_by_zero() {
        let mut c = Collector::new(&StatsConfig::default(), 0, 0, 0, 50, 50);
        c.on_created(0, 1, 50); // outside the empty window: never indexes
        let r = c.finish(drained(0));
        assert_eq!(r.offered, 0.0);
        serde_json::to_string(&r).unwrap();

        let c = Collector::new(&StatsConfig::default(), 2, 1, 1, 80, 40);
        assert_eq!(c.window(), (80, 80));
    }

    #[test]
    fn saturated_report_serializes() {
        let mut c = collector();
        c.on_created(0, 1, 100);
        c.on_measured_delivered(&Delivered { src: 0, dst: 1, size: 1, create: 100, inject: 101, arrive: 5000, hops: 4 });
        let info = FinishInfo { measured_outstanding: 2, ..drained(3) };
        let r = c.finish(info);
        assert!(r.saturated);
        assert_eq!(r.saturation_reasons.len(), 3, "{:?}", r.saturation_reasons);
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains("\"saturated\":true"));
    }
}
