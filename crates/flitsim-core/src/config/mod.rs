//! Configuration: the serde types of every config table, parsing (TOML text, `--set`
//! overrides) with errors that name the key path, and validation into a [`Spec`].
//!
//! Stages: raw TOML -> [`Config`] (types checked, unknown keys refused, defaults filled)
//! -> [`Spec`] (ranges and cross-field rules checked, topology and workload built).
//! Every field is documented where it is defined; `docs/config.md` is the reference.
//! Overrides, key paths and error messages are in `parse`, the registry of components
//! that `flitsim list` prints in [`registry`].

pub mod booksim;
mod data_files;
pub(crate) mod parse;
pub mod registry;

pub use crate::schema::check_range;
use crate::schema::tagged::{join_path, path_string, split_marked, without_context};
use data_files::rebase_data_files;
pub use data_files::DATA_FILE_KEYS;
pub use parse::apply_override;
use parse::{humanize, line_col, remove_key, tables_where_tables_belong, the_names_here};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::router::RouterConfig;
use crate::routing::{RoutingConfig, RoutingFunction, SearchProgress};
use crate::stats::StatsConfig;
use crate::topology::{Topology, TopologyConfig};
use crate::traffic::{NodeSpace, TrafficConfig, Workload};

/// A whole simulation config. Every table and field has a default, so an empty file
/// is the built-in default simulation (an 8x8 torus at moderate uniform load).
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Seed of every random stream (default 1). Same config + seed = same results, bit for bit.
    #[serde(default = "d_seed")]
    pub seed: u64,
    /// The network graph. Default: 8x8 torus, one endpoint per router.
    #[serde(default)]
    pub topology: TopologyConfig,
    /// Router microarchitecture. Default: input-queued, 4 VCs x 8 flits, 1-cycle stages.
    #[serde(default)]
    pub router: RouterConfig,
    /// Routing function. Default: dimension-order with datelines.
    #[serde(default)]
    pub routing: RoutingConfig,
    /// Channel latencies.
    #[serde(default)]
    pub channel: ChannelConfig,
    /// Workload: pattern, injection process, load, packet size, phases.
    #[serde(default)]
    pub traffic: TrafficConfig,
    /// Run length, watchdog and check mode.
    #[serde(default)]
    pub sim: SimConfig,
    /// Measurement options.
    #[serde(default)]
    pub stats: StatsConfig,
    /// Link and node failures before the run, and links failing during it (`[faults]`).
    /// Default none.
    #[serde(default, skip_serializing_if = "crate::link::faults::FaultsConfig::is_empty")]
    pub faults: crate::link::faults::FaultsConfig,
    /// Source throttling (`[congestion]`): none (default), ALO, a static threshold, or the
    /// global self-tuned threshold. Needs the central router.
    #[serde(default)]
    pub congestion: crate::congestion::CongestionConfig,
}

fn d_seed() -> u64 {
    1
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 1,
            topology: TopologyConfig::default(),
            router: RouterConfig::default(),
            routing: RoutingConfig::default(),
            channel: ChannelConfig::default(),
            traffic: TrafficConfig::default(),
            sim: SimConfig::default(),
            stats: StatsConfig::default(),
            faults: crate::link::faults::FaultsConfig::default(),
            congestion: crate::congestion::CongestionConfig::default(),
        }
    }
}

/// `[channel]`: wire latencies. Every channel carries one flit per cycle.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ChannelConfig {
    /// Router-to-router channel latency in cycles (1..=1000). Default 1.
    #[serde(default = "d_one")]
    pub latency: u32,
    /// Optional per-dimension latency overriding `latency`, x first (one entry per dimension).
    #[serde(default)]
    pub dim_latency: Option<Vec<u32>>,
    /// Injection and ejection channel latency in cycles (1..=1000). Default 1.
    #[serde(default = "d_one")]
    pub endpoint_latency: u32,
    /// Injection channel latency in cycles (1..=1000), overriding `endpoint_latency` for
    /// the channels from the endpoints into the routers. Default: `endpoint_latency`.
    /// BookSim2 spends a cycle more there than flitsim (its traffic manager injects after
    /// clocking the network's inputs): 2 reproduces its latencies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub injection_latency: Option<u32>,
    /// Link-level retry on every router-to-router link (the SiCortex protocol: sequence
    /// numbers, replay buffer, CRC, control packets, go-back replay) with its error model
    /// (`[channel.retry.errors]`); see [`crate::link::retry::RetryParams`]. Its `latency`
    /// is taken from the channel's. Needs `router.type = "crosspoint"`. Default: none
    /// (error-free channels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<crate::link::retry::RetryParams>,
    /// Bytes a flit carries (>= 1), so that results read in bytes; needed by
    /// `traffic.message`. See [`crate::link::units`]. Default: none (flits only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flit_bytes: Option<u32>,
    /// Link rate in Gbit/s (> 0; needs `flit_bytes`): the cycle is `8 flit_bytes /
    /// link_gbps` ns, and results also read in MB/s and ns (SiCortex 12.8, i.e.
    /// 1.6 GB/s; Myrinet-10G 10). Default: none (cycles only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link_gbps: Option<f64>,
}

fn d_one() -> u32 {
    1
}

impl ChannelConfig {
    /// The injection channels' latency: `injection_latency`, else `endpoint_latency`.
    pub fn injection_latency(&self) -> u32 {
        self.injection_latency.unwrap_or(self.endpoint_latency)
    }
}

impl Default for ChannelConfig {
    fn default() -> Self {
        ChannelConfig {
            latency: 1,
            dim_latency: None,
            endpoint_latency: 1,
            injection_latency: None,
            retry: None,
            flit_bytes: None,
            link_gbps: None,
        }
    }
}

/// `[sim]`: run length (BookSim's convention: warm-up, measurement window, drain),
/// the deadlock watchdog and check mode.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// Warm-up cycles before measurement starts. Default 1000.
    #[serde(default = "d_warmup")]
    pub warmup: u64,
    /// Measurement window in cycles: packets created in it are measured. Default 10000.
    #[serde(default = "d_measure")]
    pub measure: u64,
    /// Most cycles to keep running after the window until every measured packet is
    /// delivered; if it runs out the run is reported as saturated. Default 50000.
    #[serde(default = "d_drain")]
    pub drain_limit: u64,
    /// Deadlock watchdog: stop with an error naming the blocked channels when no flit has
    /// moved for this many cycles while flits are buffered. At least the longest a flit
    /// may wait between two moves: the router pipeline delays plus the longest channel
    /// latency, and the credit delay. Default 5000. A run that ends before a stall reaches
    /// it is reported saturated with the stall as its reason ("stalled, likely
    /// deadlocked") when no flit moved for longer than that longest wait (and 100 cycles).
    #[serde(default = "d_watchdog")]
    pub watchdog: u64,
    /// Check mode: verify flit and credit conservation and buffer bounds every cycle
    /// (slow; for tests and debugging). Default false.
    #[serde(default)]
    pub check: bool,
    /// Finite workloads (`traffic.packets_per_source`, `traffic.message.per_source`,
    /// `traffic.phases`, a schedule that ends, or `traffic.trace`): end the run, and the measurement window
    /// with it, in the first cycle after warm-up in which every source has created all
    /// its packets and every packet is delivered or lost; the window is then
    /// `[warmup, that cycle)`. Refused for a workload that never ends. Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub until_done: bool,
}

fn d_warmup() -> u64 {
    1000
}
fn d_measure() -> u64 {
    10_000
}
fn d_drain() -> u64 {
    50_000
}
fn d_watchdog() -> u64 {
    5000
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig { warmup: 1000, measure: 10_000, drain_limit: 50_000, watchdog: 5000, check: false, until_done: false }
    }
}

/// A validated config with the network graph, routing function and workload built.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The config it came from (recorded in the report).
    pub config: Config,
    /// The network graph.
    pub topology: Topology,
    /// The routing function.
    pub routing: RoutingFunction,
    /// The workload.
    pub workload: Workload,
    /// With `[faults]`: what failed, and the routes around it.
    pub faults: Option<FaultRoutes>,
    /// With `[[faults.at]]`: the links failing during the run, by cycle (the routes to
    /// switch to are in the routing function).
    pub timed_failures: Vec<crate::link::faults::timed::TimedFailure>,
}

/// The failures of a run and the routes around them.
#[derive(Clone, Debug)]
pub struct FaultRoutes {
    /// What failed.
    pub failed: crate::link::faults::Failed,
    /// Endpoints whose router failed.
    pub dead: Vec<bool>,
    /// Node pairs the routes connect.
    pub mask: std::sync::Arc<crate::routing::cdg::PairMask>,
    /// The route check: connected pairs, stretch, dependency-graph verdict.
    pub check: crate::routing::cdg::CdgReport,
}

impl Config {
    /// The whole config as compact JSON with object keys sorted at every level: the
    /// bytes a results store hashes (the CLI's and the Python package's, which must agree).
    pub fn canonical_json(&self) -> String {
        fn sorted(v: serde_json::Value) -> serde_json::Value {
            match v {
                serde_json::Value::Object(m) => {
                    let mut entries: Vec<(String, serde_json::Value)> = m.into_iter().collect();
                    entries.sort_by(|a, b| a.0.cmp(&b.0));
                    serde_json::Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
                }
                serde_json::Value::Array(a) => serde_json::Value::Array(a.into_iter().map(sorted).collect()),
                other => other,
            }
        }
        sorted(serde_json::to_value(self).expect("a config serializes to JSON")).to_string()
    }

    /// The data files the config names, as `(key path, file)`: routing tables
    /// (`routing.tables`), a graph's links (`topology.file`), a trace
    /// (`traffic.trace.file`). Their contents are part of what a run computes, so a results
    /// store keys them too ([`Config::store_text`]).
    pub fn input_files(&self) -> Vec<(&'static str, &str)> {
        // (In the order of their key paths, as the store's JSON has it.)
        let mut files = Vec::new();
        if let RoutingConfig::Table { tables: Some(f), .. } = &self.routing {
            files.push(("routing.tables", f.as_str()));
        }
        if let TopologyConfig::Graph { file: Some(f), .. } = &self.topology {
            files.push(("topology.file", f.as_str()));
        }
        if let Some(crate::traffic::TraceConfig { file: Some(f), .. }) = &self.traffic.trace {
            files.push(("traffic.trace.file", f.as_str()));
        }
        files
    }

    /// The text a results store hashes for this config under simulator `version`:
    /// `{"config":<canonical_json>,"flitsim":"<version>"}`, and when the config names data
    /// files ([`Config::input_files`]) also `"inputs":{"<key path>":"<SHA-256 of the
    /// file's bytes, or \"unreadable\">"}`, so that editing a trace, a link list or a
    /// table file makes a new key (the CLI's and the Python package's stores hash this).
    pub fn store_text(&self, version: &str) -> String {
        use sha2::Digest;
        let version = serde_json::to_string(version).expect("a string serializes");
        let mut text = format!("{{\"config\":{},\"flitsim\":{version}", self.canonical_json());
        let files = self.input_files();
        if !files.is_empty() {
            let inputs: serde_json::Map<String, serde_json::Value> = files
                .into_iter()
                .map(|(key, f)| {
                    let digest = std::fs::read(f).map_or_else(
                        |_| "unreadable".to_string(),
                        |b| sha2::Sha256::digest(&b).iter().map(|x| format!("{x:02x}")).collect(),
                    );
                    (key.to_string(), serde_json::Value::String(digest))
                })
                .collect();
            text += &format!(",\"inputs\":{}", serde_json::Value::Object(inputs));
        }
        text + "}"
    }

    /// Parse TOML text, then apply `key=value` overrides (dotted key paths; the value is
    /// TOML, or a bare string if it does not parse as TOML).
    pub fn from_toml(text: &str, overrides: &[String]) -> Result<Config> {
        let mut table = parse_toml(text)?;
        for o in overrides {
            apply_override(&mut table, o)?;
        }
        Self::from_table(table)
    }

    /// The config a front end runs: TOML text (a file's contents), or `None` for the
    /// built-in default, with `key=value` overrides applied. This is the one loading path
    /// of the `flitsim` command and the Python package, so both run the same config.
    pub fn load(text: Option<&str>, overrides: &[String]) -> Result<Config> {
        Self::load_in(text, None, overrides)
    }

    /// [`Config::load`] for the text of a config file in folder `dir`: the data files the
    /// text names ([`DATA_FILE_KEYS`]) resolve against that folder, as a preset naming
    /// `file = "halo-8x8.trace"` means the trace beside it, from whatever working
    /// directory it is run. Paths given in overrides stay relative to the working
    /// directory, where the user typed them; absolute paths are kept as they are.
    pub fn load_in(text: Option<&str>, dir: Option<&std::path::Path>, overrides: &[String]) -> Result<Config> {
        match text {
            Some(text) => {
                let mut table = parse_toml(text)?;
                if let Some(dir) = dir {
                    rebase_data_files(&mut table, dir);
                }
                for o in overrides {
                    apply_override(&mut table, o)?;
                }
                Self::from_table(table)
            }
            None if overrides.is_empty() => Ok(Config::default()),
            None => {
                // Overrides on top of the default config, written out in full. When an
                // override changes a table's `type`, fields of the default's type that the
                // new one does not have are dropped (the user never wrote them); every
                // other error stands.
                let mut table: toml::Table = Config::default().to_toml().parse().expect("the default config is valid TOML");
                for o in overrides {
                    apply_override(&mut table, o)?;
                }
                let keys: Vec<&str> = overrides.iter().filter_map(|o| o.split_once('=')).map(|(k, _)| k.trim()).collect();
                let retyped: Vec<&str> = keys.iter().filter_map(|k| k.strip_suffix(".type")).collect();
                loop {
                    match Self::from_table(table.clone()) {
                        Err(Error::Parse { path, message })
                            if message.starts_with("unknown field")
                                && retyped.iter().any(|t| path.strip_prefix(t).is_some_and(|rest| rest.starts_with('.')))
                                && !keys.contains(&path.as_str())
                                && remove_key(&mut table, &path) => {}
                        other => return other,
                    }
                }
            }
        }
    }

    /// Deserialize from an already parsed TOML table.
    pub fn from_table(table: toml::Table) -> Result<Config> {
        let default: toml::Table = Config::default().to_toml().parse().expect("the default config is valid TOML");
        tables_where_tables_belong(&default, &table, "")?;
        let kept = table.clone();
        let de = toml::Value::Table(table);
        serde_path_to_error::deserialize::<_, Config>(de).map_err(|e| {
            let (inner, message) = split_marked(&without_context(&e.inner().to_string()));
            let mut path = join_path(&path_string(e.path()), &inner);
            // Name the missing key itself, not only the table that lacks it.
            if let Some(field) = message.strip_prefix("missing field `").and_then(|m| m.split('`').next()) {
                if path.rsplit('.').next() != Some(field) {
                    path = join_path(&path, field);
                }
            }
            if path.is_empty() {
                path = "<root>".into();
            }
            let mut message = humanize(&message);
            // A number or boolean where a name belongs: serde says only that it wanted a
            // string; ask for the names by trying one that is none of them.
            if message == "invalid type: unit variant, expected string only" {
                message = the_names_here(&kept, &path).unwrap_or(message);
            }
            Error::Parse { path, message }
        })
    }

    /// The config as TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_default()
    }

    /// The network's routes: the topology with the `[faults]` applied, the routing
    /// function, and with failures the routes' check — without refusing anything the
    /// check finds (`flitsim routes --check` reports it; [`Config::validate`] refuses).
    pub fn routes(&self) -> Result<(Topology, RoutingFunction, Option<FaultRoutes>)> {
        self.routes_with_progress(&|_| {})
    }

    /// [`Config::routes`], telling `on_progress` how a dateline search around failures
    /// advances (the long part of building routes on a large torus with failures).
    pub fn routes_with_progress(&self, on_progress: &dyn Fn(SearchProgress)) -> Result<(Topology, RoutingFunction, Option<FaultRoutes>)> {
        let mut topology = Topology::build(&self.topology, "topology")?;
        let (routing, faults) = self.routes_on(&mut topology, on_progress)?;
        Ok((topology, routing, faults))
    }

    fn routes_on(&self, topology: &mut Topology, on_progress: &dyn Fn(SearchProgress)) -> Result<(RoutingFunction, Option<FaultRoutes>)> {
        let vcs = self.router.vcs();
        let failed = self.faults.apply(topology, self.seed, "faults")?;
        if failed.is_empty() {
            return Ok((RoutingFunction::build_seeded(&self.routing, topology, vcs, false, self.seed, "routing")?, None));
        }
        let (routing, faults) = self.route_around(topology, vcs, failed, on_progress)?;
        Ok((routing, Some(faults)))
    }

    /// Routes around the failures `failed` already applied to `topology`, checked.
    fn route_around(
        &self,
        topology: &Topology,
        vcs: u32,
        failed: crate::link::faults::Failed,
        on_progress: &dyn Fn(SearchProgress),
    ) -> Result<(RoutingFunction, FaultRoutes)> {
        let mut down = vec![false; topology.num_routers as usize];
        for &r in &failed.routers {
            down[r as usize] = true;
        }
        let dead: Vec<bool> = (0..topology.num_nodes).map(|e| down[topology.router_of(e) as usize]).collect();
        let (routing, pairs, check) = RoutingFunction::build_around(&self.routing, topology, vcs, &dead, "routing", on_progress)?;
        Ok((routing, FaultRoutes { failed, dead, mask: std::sync::Arc::new(pairs.mask), check }))
    }

    /// The VC buffers the congestion estimate counts: the VCs of every connected network
    /// input port (3,072 in the paper's 16-ary 2-cube with 3 VCs).
    pub fn congestion_buffers(&self, topology: &Topology) -> u32 {
        let connected = topology
            .in_channel
            .iter()
            .enumerate()
            .filter(|&(i, &c)| (i as u32 % topology.ports) < topology.network_ports() && c != crate::topology::NONE)
            .count();
        let vcs = match &self.router {
            RouterConfig::Central(c) => c.vcs,
            other => other.vcs(),
        };
        connected as u32 * vcs
    }

    /// The side-band gather duration g: `congestion.gather`, or the dimension-wise
    /// aggregation time of the topology.
    pub fn gather(&self, topology: &Topology) -> u32 {
        self.congestion
            .gather
            .unwrap_or_else(|| crate::congestion::gather_cycles(&topology.dims, &topology.wrap, self.congestion.hop_delay))
    }

    /// The longest channel latency (router-to-router or endpoint).
    fn longest_wire(&self) -> u32 {
        let ch = &self.channel;
        match &ch.dim_latency {
            Some(dl) => dl.iter().copied().max().unwrap_or(0),
            None => ch.latency,
        }
        .max(ch.endpoint_latency)
        .max(ch.injection_latency())
    }

    /// The longest a flit may legitimately wait between two moves in this network: a head
    /// crossing a router pipeline and then the longest wire, or a flit waiting for a
    /// credit. A network in which no flit has moved for longer is stuck.
    pub fn quiet_cycles(&self) -> u64 {
        u64::from((self.router.pipeline() + self.longest_wire()).max(self.router.credit_delay()))
    }

    /// [`Config::quiet_cycles`] counting the links' own latencies in `topology` too (a
    /// graph's `[a, b, latency]`).
    pub fn quiet_cycles_on(&self, topology: &Topology) -> u64 {
        self.quiet_cycles().max(u64::from(self.router.pipeline() + topology.longest_link()))
    }

    /// Validate everything and build the spec.
    pub fn validate(&self) -> Result<Spec> {
        self.validate_with_progress(&|_| {})
    }

    /// [`Config::validate`], telling `on_progress` how a dateline search around failures
    /// advances (on the XT's 2,112-node torus, about 15 candidates of ~2 s each).
    pub fn validate_with_progress(&self, on_progress: &dyn Fn(SearchProgress)) -> Result<Spec> {
        let mut topology = Topology::build(&self.topology, "topology")?;
        let space = match topology.shape {
            // No coordinates: patterns see the nodes as one group, as on a crossbar.
            crate::topology::Shape::Kautz | crate::topology::Shape::FatTree | crate::topology::Shape::Graph => {
                NodeSpace::crossbar(topology.num_nodes)
            }
            _ => NodeSpace { num_nodes: topology.num_nodes, dims: topology.dims.clone(), concentration: topology.concentration },
        };
        if self.stats.vc_balance && topology.shape != crate::topology::Shape::Cube {
            return Err(Error::config("stats.vc_balance", crate::routing::vc_balance::ONLY_CUBES));
        }
        let units = crate::link::units::Units::build(self.channel.flit_bytes, self.channel.link_gbps)?;
        let workload = Workload::build_with(&self.traffic, &space, self.seed, units.map(|u| u.flit_bytes))?;
        let max_packet = workload.size().max();
        let vcs = self.router.vcs();
        match &self.router {
            RouterConfig::InputQueued(c) => {
                c.validate("router", max_packet)?;
                let ch = &self.channel;
                let wire = ch.dim_latency.iter().flatten().copied().chain([ch.latency, topology.longest_link()]).max().unwrap_or(1);
                let inject = ch.injection_latency.unwrap_or(ch.endpoint_latency);
                c.validate_stop_go("router", c.sw_alloc_delay.saturating_add(c.st_delay).saturating_add(wire).max(inject))?;
            }
            RouterConfig::BufferedCrossbar(c) => c.validate("router", max_packet, topology.ndims(), topology.ports)?,
            RouterConfig::Central(c) => c.validate("router", topology.ports)?,
            RouterConfig::Crosspoint(c) => c.validate("router", topology.ports, max_packet)?,
        }
        match (&self.router, &self.routing) {
            (RouterConfig::Crosspoint(_), RoutingConfig::Source { .. }) => {}
            (RouterConfig::Crosspoint(_), _) => {
                return Err(Error::config(
                    "routing.type",
                    "the crosspoint switch reads source routes; use routing.type = \"source\" on a Kautz topology (or another router.type)",
                ));
            }
            (RouterConfig::Central(_), RoutingConfig::Adaptive { .. }) => {}
            (RouterConfig::Central(_), _) => {
                return Err(Error::config(
                    "routing.type",
                    "the central-arbiter router routes adaptively; use routing.type = \"adaptive\" (or another router.type)",
                ));
            }
            (_, RoutingConfig::Adaptive { .. }) => {
                return Err(Error::config(
                    "router.type",
                    "adaptive routing needs the central-arbiter router; use router.type = \"central\"",
                ));
            }
            (RouterConfig::BufferedCrossbar(_), RoutingConfig::Dragonfly { .. }) => {
                return Err(Error::config("router.type", "dragonfly routes change VC class at every global hop, which the input-queued router models; use router.type = \"input_queued\""));
            }
            (RouterConfig::BufferedCrossbar(_), RoutingConfig::Graph { .. }) => {
                return Err(Error::config(
                    "router.type",
                    "graph routes change VC class hop by hop, which the input-queued router models; use router.type = \"input_queued\"",
                ));
            }
            (RouterConfig::BufferedCrossbar(_), RoutingConfig::Hyperx { .. }) => {
                return Err(Error::config("router.type", "HyperX routes change VC class at the intermediate router, which the input-queued router models; use router.type = \"input_queued\""));
            }
            (RouterConfig::BufferedCrossbar(_), RoutingConfig::Updown { .. }) => {
                return Err(Error::config(
                    "router.type",
                    "up*/down* routes are carried in the packet, which the input-queued router reads; use router.type = \"input_queued\"",
                ));
            }
            _ => {}
        }
        if let Some(retry) = &self.channel.retry {
            if !matches!(self.router, RouterConfig::Crosspoint(_)) {
                return Err(Error::config("channel.retry", "link-level retry is modelled on the SiCortex crosspoint switch; set router.type = \"crosspoint\" (Kautz topology, source routing), or remove [channel.retry]"));
            }
            retry.validate("channel.retry")?;
        }
        // (Checked whatever the policy: a field given for a mechanism that is off is
        // refused, not ignored.)
        self.congestion.validate("congestion")?;
        if self.congestion.distribution == crate::congestion::Distribution::Metapackets {
            if !matches!(self.router, RouterConfig::Central(_)) {
                return Err(Error::config(
                    "congestion.distribution",
                    "metapackets travel on the central-arbiter router's links; set router.type = \"central\" and routing.type = \"adaptive\", or distribution = \"sideband\"",
                ));
            }
            if topology.wrap.iter().any(|&w| !w) || topology.dims.len() > crate::congestion::metapacket::MAX_DIMS {
                return Err(Error::config(
                    "congestion.distribution",
                    format!(
                        "metapackets circle the rings of a torus (at most {} dimensions); this topology has a mesh dimension or more dimensions: use a torus, or distribution = \"sideband\"",
                        crate::congestion::metapacket::MAX_DIMS
                    ),
                ));
            }
        }
        if self.congestion.policy != crate::congestion::Policy::None {
            if !matches!(self.router, RouterConfig::Central(_)) {
                return Err(Error::config(
                    "congestion.policy",
                    "source throttling is modelled on the central-arbiter router with adaptive routing; set router.type = \"central\" and routing.type = \"adaptive\", or congestion.policy = \"none\"",
                ));
            }
            // The controller's own checks (threshold range, tuning period, ...).
            crate::congestion::Controller::new(
                &self.congestion,
                self.congestion_buffers(&topology),
                self.gather(&topology),
                topology.num_nodes,
            )?;
        }
        // Input VCs per router: the input-queued router's sets have 128 bits, the other
        // routers' 64.
        let (most, kind) = match self.router {
            RouterConfig::InputQueued(_) => (crate::router::iq::MAX_PORT_VCS, "input-queued"),
            RouterConfig::BufferedCrossbar(_) => (crate::router::buffered::MAX_PORT_VCS, "buffered-crossbar"),
            RouterConfig::Central(_) => (64, "central-arbiter"),
            RouterConfig::Crosspoint(_) => (64, "crosspoint"),
        };
        if topology.ports * vcs > most {
            return Err(Error::config(
                "router.vcs",
                format!(
                    "{vcs} VCs on routers with {} ports is {} input VCs per router; {kind} routers support at most {most} (ports x vcs): use fewer VCs, or routers with fewer ports (a lower concentration, fewer dimensions, a smaller crossbar, or fewer group_routers or global_ports on a dragonfly, smaller or fewer dimensions on a HyperX){}",
                    topology.ports,
                    topology.ports * vcs,
                    if most < crate::router::iq::MAX_PORT_VCS { ", or router.type = \"input_queued\" (up to 128)" } else { "" }
                ),
            ));
        }
        if !self.faults.at.is_empty() {
            let crosspoint_with_retry = matches!(self.router, RouterConfig::Crosspoint(_)) && self.channel.retry.is_some();
            crate::link::faults::timed::check_setup(&topology, crosspoint_with_retry)?;
        }
        let (mut routing, faults) = self.routes_on(&mut topology, on_progress)?;
        let mut timed_failures = Vec::new();
        if let (RoutingFunction::Source(s), RoutingConfig::Source { vc_start, .. }, false) =
            (&routing, &self.routing, self.faults.at.is_empty())
        {
            let dead = faults.as_ref().map(|f| f.failed.routers.clone()).unwrap_or_default();
            let (failures, switches) = crate::link::faults::timed::schedule(&self.faults.at, &topology, vcs, *vc_start, &dead, "faults")?;
            routing = RoutingFunction::Source(s.clone().with_switches(switches));
            timed_failures = failures;
        }
        if let RoutingConfig::Source { rail_threshold: Some(t), .. } = &self.routing {
            let Some(m) = workload.message() else {
                return Err(Error::config(
                    "routing.rail_threshold",
                    "the threshold compares message sizes: give `traffic.message`, or remove the threshold (every packet multi-rail)",
                ));
            };
            if let (RoutingFunction::Source(s), true) = (&mut routing, m.bytes < *t) {
                s.single_rail();
            }
        }
        if let (RoutingConfig::Table { tables: Some(file), .. }, None) = (&self.routing, &faults) {
            // Tables from a file are checked as routes around failures are.
            let check = crate::routing::cdg::check(&routing, &topology, self.router.vcs());
            if check.unreachable_pairs > 0 || !check.acyclic {
                let why = if check.acyclic {
                    let drops = if check.dropped_pairs > 0 && !routing.runs_drops() {
                        format!(
                            " ({} of them dropped at a dateline node; routing.dateline_errors = \"drop\" simulates the drops)",
                            check.dropped_pairs
                        )
                    } else {
                        String::new()
                    };
                    format!(
                        "do not connect {} of {} node pairs{drops}, e.g. {}",
                        check.unreachable_pairs,
                        check.pairs,
                        check.unreachable.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
                    )
                } else {
                    format!("can deadlock: channel dependency cycle {}", check.cycle.join(" -> "))
                };
                return Err(Error::config("routing.tables", format!("the tables in {file} {why}; fix the tables")));
            }
            if let (true, Some(what)) = (check.dropped_pairs > 0, workload.dependency()) {
                return Err(Error::config(
                    "routing.dateline_errors",
                    format!("the tables in {file} drop the packets of {} node pairs at dateline nodes, and {what} waits for data, so it could never finish; fix the tables, or use a workload without waits", check.dropped_pairs),
                ));
            }
        }
        let mut workload = workload;
        if let Some(f) = &faults {
            if f.check.unreachable_pairs > 0 && self.faults.unroutable == crate::link::faults::Unroutable::Refuse {
                return Err(Error::config(
                    "faults",
                    format!(
                        "with {} failed links and {} failed nodes the routes do not connect {} of {} node pairs, e.g. {}; fail fewer links or other ones, or set faults.unroutable = \"skip\" to run without their traffic",
                        f.failed.links.len(),
                        f.failed.routers.len(),
                        f.check.unreachable_pairs,
                        f.check.pairs,
                        f.check.unreachable.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
                    ),
                ));
            }
            if !f.check.acyclic && self.faults.cyclic_routes == crate::link::faults::CyclicRoutes::Refuse {
                return Err(Error::config(
                    "faults",
                    format!(
                        "with {} failed links and {} failed nodes the routes can deadlock (set faults.cyclic_routes = \"run\" to simulate them anyway): channel dependency cycle {}",
                        f.failed.links.len(),
                        f.failed.routers.len(),
                        f.check.cycle.join(" -> ")
                    ),
                ));
            }
            if let (true, Some(what)) = (f.check.routable_pairs < f.check.pairs, workload.dependency()) {
                return Err(Error::config(
                    workload.dependency_key(),
                    format!("{what} waits for data, but the failures disconnect some pairs, so it could never finish; use a workload without waits, or fewer failures"),
                ));
            }
        }
        if let Some(f) = &faults {
            workload.restrict_to(std::sync::Arc::clone(&f.mask), &f.dead);
        }
        let mut deaths: Vec<(u32, u64)> = Vec::new();
        for t in &timed_failures {
            deaths.extend((0..topology.num_nodes).filter(|&e| t.nodes.contains(&topology.router_of(e))).map(|e| (e, t.cycle)));
        }
        if !deaths.is_empty() {
            if let Some(what) = workload.dependency() {
                return Err(Error::config(workload.dependency_key(), format!("{what} waits for data, but a node failing during the run (faults.at nodes) never sends again, so it could never finish; use a workload without waits")));
            }
            workload.fail_later(topology.num_nodes, &deaths);
        }
        let ch = &self.channel;
        let lat_ok = |v: u32| (1..=1000).contains(&v);
        if !lat_ok(ch.latency) {
            return Err(Error::config(
                "channel.latency",
                format!("{} is out of range: a channel latency must be 1..=1000 cycles", ch.latency),
            ));
        }
        if !lat_ok(ch.endpoint_latency) {
            return Err(Error::config(
                "channel.endpoint_latency",
                format!("{} is out of range: a channel latency must be 1..=1000 cycles", ch.endpoint_latency),
            ));
        }
        if !lat_ok(ch.injection_latency()) {
            return Err(Error::config(
                "channel.injection_latency",
                format!("{} is out of range: a channel latency must be 1..=1000 cycles", ch.injection_latency()),
            ));
        }
        if let Some(dl) = &ch.dim_latency {
            if dl.len() != topology.ndims() {
                return Err(Error::config(
                    "channel.dim_latency",
                    format!(
                        "has {} entries but the topology has {} dimensions; give one latency per dimension",
                        dl.len(),
                        topology.ndims()
                    ),
                ));
            }
            for (i, &v) in dl.iter().enumerate() {
                if !lat_ok(v) {
                    return Err(Error::config(format!("channel.dim_latency[{i}]"), format!("{v} is out of range: 1..=1000 cycles")));
                }
            }
        }
        let s = &self.sim;
        if s.measure == 0 {
            return Err(Error::config("sim.measure", "is 0: the measurement window needs at least one cycle"));
        }
        if s.until_done && !workload.ends() {
            return Err(Error::config(
                "sim.until_done",
                "the workload never ends: every source creates packets for as long as the run lasts (no traffic.packets_per_source, \
                 traffic.message.per_source or phased schedule that ends), so the run could never be done; give the sources a budget \
                 (e.g. traffic.packets_per_source = 100), or remove until_done to measure the fixed window",
            ));
        }
        if s.watchdog == 0 {
            return Err(Error::config(
                "sim.watchdog",
                "is 0: give the number of idle cycles after which a deadlock is reported (e.g. 5000)",
            ));
        }
        let rc = &self.router;
        let (pipeline, wire) = (rc.pipeline(), self.longest_wire().max(topology.longest_link()));
        let quiet = self.quiet_cycles_on(&topology);
        if s.watchdog < quiet {
            return Err(Error::config(
                "sim.watchdog",
                format!(
                    "{} cycles is shorter than the {quiet} cycles a flit may wait between two moves in this \
                     network (router pipeline {pipeline} + longest channel latency {wire}, or the credit delay {}), \
                     so it would report deadlocks that are not there; use watchdog >= {quiet} (default 5000)",
                    s.watchdog,
                    rc.credit_delay()
                ),
            ));
        }
        if s.warmup.checked_add(s.measure).and_then(|x| x.checked_add(s.drain_limit)).is_none_or(|t| t > 1 << 50) {
            return Err(Error::config(
                "sim.measure",
                format!(
                    "warmup {} + measure {} + drain_limit {} is too large: the run may last at most 2^50 cycles; shorten them",
                    s.warmup, s.measure, s.drain_limit
                ),
            ));
        }
        self.stats.validate("stats")?;
        Ok(Spec { config: self.clone(), topology, routing, workload, faults, timed_failures })
    }
}

/// TOML text as a table, or a parse error naming the line and column.
fn parse_toml(text: &str) -> Result<toml::Table> {
    text.parse::<toml::Table>().map_err(|e| {
        let at = e.span().map(|s| line_col(text, s.start)).unwrap_or_default();
        let mut message = format!("not valid TOML{at}: {}", e.message().trim());
        if ["value was too large", "value was too small", "as i128"].iter().any(|m| message.contains(m)) {
            message = format!("{message}; a whole number there is {}", parse::TOML_INTEGERS);
        }
        Error::Parse { path: "<root>".into(), message }
    })
}
