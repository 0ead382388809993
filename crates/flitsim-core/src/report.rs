//! The result of a run: the configuration it ran, seed and version, topology summary,
//! counters, measurement statistics, per-phase and per-channel tables. Serializes to JSON.

use serde::Serialize;

use crate::config::Config;
use crate::packet::Counters;
pub use crate::routing::vc_balance::VcBalanceReport;
use crate::stats::StatsReport;
use crate::topology::TopologySummary;

/// Everything a run produced.
#[derive(Serialize, Clone, Debug)]
pub struct Report {
    /// flitsim version.
    pub version: String,
    /// Seed of the run.
    pub seed: u64,
    /// The full configuration, defaults filled in.
    pub config: Config,
    /// The network that ran.
    pub topology: TopologySummary,
    /// Cycles simulated (warm-up + window + drain).
    pub cycles: u64,
    /// Event counters over the whole run.
    pub counters: Counters,
    /// Measurement-window statistics.
    pub stats: StatsReport,
    /// Per traffic phase: load and delivered flits.
    pub phases: Vec<PhaseReport>,
    /// Per connected channel: flits per VC in the window and utilization.
    pub channels: Vec<ChannelRow>,
    /// Buffered-crossbar routers only: the SeaStar performance counters (Table 4 of the
    /// aging paper) per port direction and the queueing delay per dimension, over the
    /// measurement window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub router_counters: Option<crate::stats::router_counters::CountersReport>,
    /// With `stats.vc_balance`: VC_balance per dimension, from the routes of all node
    /// pairs and as simulated in the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vc_balance: Option<VcBalanceReport>,
    /// Central-arbiter router events (arbiter grants, escape allocations, Disha
    /// recoveries); only with `router.type = "central"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub central: Option<crate::router::central::CentralCounters>,
    /// Crosspoint-switch events (bypassed or buffered packets, VC decrements); only with
    /// `router.type = "crosspoint"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crosspoint: Option<crate::router::crosspoint::CrosspointCounters>,
    /// Link-level retry totals over the links (with `[channel.retry]`): packets and flits
    /// replayed, CRC errors, control packets lost, the wire overhead, packets lost to
    /// failed links.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<crate::router::crosspoint::RetryReport>,
    /// Source throttling with a global estimate: the threshold's trace per tuning period.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub congestion: Option<crate::congestion::CongestionReport>,
    /// The metapacket gather (with `congestion.distribution = "metapackets"`): rounds,
    /// link flits and gather times (the paper's Fig. 11).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metapackets: Option<crate::congestion::metapacket::MetaReport>,
    /// With `[faults]`: what failed, the routes around it, and the traffic they could
    /// not carry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub faults: Option<FaultsReport>,
    /// Packets the routers dropped at Cray XT dateline nodes (arriving on VC1 and passing
    /// through: a table error, `routing.dateline_errors`), and the first; present with
    /// table routing under an XT VC policy. Correct tables drop none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dateline_drops: Option<crate::router::drops::DatelineDrops>,
    /// With `[[faults.at]]`: each failure cycle, its links, and the routes from then on
    /// (diameter, mean length before and after, largest growth, VCs needed). The packets
    /// lost are in `counters.packets_lost` and `retry`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failures_during_run: Vec<crate::faults::timed::TimedFailure>,
    /// With nodes failing during the run (`[[faults.at]]` nodes): packets the sources
    /// refused because their destination had failed (before or during the run), over the
    /// whole run; never injected, so not in `counters.packets_created`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packets_refused_to_failed_nodes: Option<u64>,
    /// With `traffic.message`: messages delivered, their latency and the bandwidth per
    /// flow, over the whole run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<crate::endpoint::reassembly::MessageReport>,
    /// With `traffic.trace`: the trace's messages created and completed, their latency,
    /// and the cycle the last one completed, over the whole run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<crate::traffic::trace::TraceReport>,
    /// With `channel.flit_bytes`: the window's throughput in bytes (and with
    /// `channel.link_gbps` in MB/s, latencies in ns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub units: Option<UnitsReport>,
    /// With `routing.selection = "adaptive"` or `"probing"`: blocked packets, route
    /// changes, probes (see [`crate::endpoint::dispersion`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispersion: Option<crate::endpoint::dispersion::DispersionCounters>,
}

/// The measurement window's results in physical units (see [`crate::link::units`]).
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct UnitsReport {
    /// Bytes per flit.
    pub flit_bytes: u32,
    /// Link rate, Gbit/s, when given.
    pub link_gbps: Option<f64>,
    /// Cycle time, ns, when the link rate is given.
    pub cycle_ns: Option<f64>,
    /// Offered load, bytes/node/cycle.
    pub offered_bytes_per_cycle: f64,
    /// Accepted throughput (mean per node), bytes/node/cycle.
    pub accepted_bytes_per_cycle: f64,
    /// Offered load per node, MB/s (10^6 bytes/s).
    pub offered_mb_per_s: Option<f64>,
    /// Accepted throughput per node (mean, least, greatest), MB/s.
    pub accepted_mb_per_s: Option<[f64; 3]>,
    /// Mean packet latency, ns.
    pub packet_latency_ns: Option<f64>,
    /// Mean network latency, ns.
    pub network_latency_ns: Option<f64>,
}

/// Failures and their cost (see [`crate::faults`]).
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct FaultsReport {
    /// Failed links, `(router, port)` of one direction each.
    pub failed_links: Vec<(u32, u32)>,
    /// Failed routers.
    pub failed_routers: Vec<u32>,
    /// The route check: pairs connected (and `routable_fraction`), path stretch, and
    /// the channel dependency graph's verdict.
    pub routes: crate::routing::cdg::CdgReport,
    /// `routes.routable_pairs / routes.pairs`.
    pub routable_fraction: f64,
    /// Packets the sources did not inject because the routes do not reach their
    /// destination (`faults.unroutable = "skip"`), over the whole run.
    pub packets_unroutable: u64,
    /// Of those, packets for nodes whose router failed.
    pub packets_to_failed_nodes: u64,
}

/// One traffic phase.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct PhaseReport {
    /// Phase index.
    pub index: u32,
    /// First cycle.
    pub start: u64,
    /// One past the last cycle simulated in it.
    pub end: u64,
    /// Offered load, flits/node/cycle.
    pub offered: f64,
    /// Flits delivered of packets created in this phase (whole run).
    pub delivered_flits: u64,
}

/// One channel's counters.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct ChannelRow {
    /// Channel id.
    pub id: u32,
    /// network | injection | ejection.
    pub kind: String,
    /// Sending end, e.g. `(3,4)+x` or `node5`.
    pub from: String,
    /// Receiving end.
    pub to: String,
    /// Flits per VC in the measurement window.
    pub vc_flits: Vec<u64>,
    /// Flits per cycle in the window.
    pub utilization: f64,
    /// Mean flits buffered at the channel's receiving end, over the window's buffer
    /// samples (`stats.buffer_sample`; left out when off, and for ejection channels,
    /// whose receiving end is an endpoint).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffered: Option<f64>,
    /// Fraction of the buffer samples in which a buffer at the channel's receiving end
    /// was full, blocking its sender in that VC (left out like `buffered`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocked: Option<f64>,
    /// Flits sent on the channel in each `stats.timeline` bin over the whole run, every
    /// VC (`stats.channel_timeline`; left out when off).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<u64>,
}

impl Report {
    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serializes")
    }
}
