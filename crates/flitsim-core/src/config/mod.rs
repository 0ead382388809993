//! Configuration: the serde types of every config table, parsing (TOML text, `--set`
//! overrides) with errors that name the key path, and validation into a [`Spec`].
//!
//! Stages: raw TOML -> [`Config`] (types checked, unknown keys refused, defaults filled)
//! -> [`Spec`] (ranges and cross-field rules checked, topology and workload built).
//! Every field is documented where it is defined; `docs/config.md` is the reference.

pub mod registry;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::router::RouterConfig;
use crate::routing::{RoutingConfig, RoutingFunction};
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
    #[serde(default = "d_traffic")]
    pub traffic: TrafficConfig,
    /// Run length, watchdog and check mode.
    #[serde(default)]
    pub sim: SimConfig,
    /// Measurement options.
    #[serde(default)]
    pub stats: StatsConfig,
}

fn d_seed() -> u64 {
    1
}

fn d_traffic() -> TrafficConfig {
    TrafficConfig { load: 0.3, ..TrafficConfig::default() }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 1,
            topology: TopologyConfig::default(),
            router: RouterConfig::default(),
            routing: RoutingConfig::default(),
            channel: ChannelConfig::default(),
            traffic: d_traffic(),
            sim: SimConfig::default(),
            stats: StatsConfig::default(),
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
}

fn d_one() -> u32 {
    1
}

impl Default for ChannelConfig {
    fn default() -> Self {
        ChannelConfig { latency: 1, dim_latency: None, endpoint_latency: 1 }
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
    /// moved for this many cycles while flits are buffered (>= 1). Default 5000.
    #[serde(default = "d_watchdog")]
    pub watchdog: u64,
    /// Check mode: verify flit and credit conservation and buffer bounds every cycle
    /// (slow; for tests and debugging). Default false.
    #[serde(default)]
    pub check: bool,
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
        SimConfig { warmup: 1000, measure: 10_000, drain_limit: 50_000, watchdog: 5000, check: false }
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
}

impl Config {
    /// Parse TOML text, then apply `key=value` overrides (dotted key paths; the value is
    /// TOML, or a bare string if it does not parse as TOML).
    pub fn from_toml(text: &str, overrides: &[String]) -> Result<Config> {
        let mut table: toml::Table = text.parse::<toml::Table>().map_err(|e| Error::Parse {
            path: "<root>".into(),
            message: format!("not valid TOML: {}", e.message().trim()),
        })?;
        for o in overrides {
            apply_override(&mut table, o)?;
        }
        Self::from_table(table)
    }

    /// Deserialize from an already parsed TOML table.
    pub fn from_table(table: toml::Table) -> Result<Config> {
        let de = toml::Value::Table(table);
        serde_path_to_error::deserialize::<_, Config>(de).map_err(|e| {
            let path = e.path().to_string();
            let path = if path == "." || path.is_empty() { "<root>".to_string() } else { path };
            Error::Parse { path, message: humanize(&e.inner().to_string()) }
        })
    }

    /// The config as TOML text.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).unwrap_or_default()
    }

    /// Validate everything and build the spec.
    pub fn validate(&self) -> Result<Spec> {
        let topology = Topology::build(&self.topology, "topology")?;
        let space = NodeSpace {
            num_nodes: topology.num_nodes,
            dims: topology.dims.clone(),
            concentration: topology.concentration,
        };
        let workload = Workload::build(&self.traffic, &space, self.seed)?;
        let max_packet = workload.size().max();
        let vcs = self.router.vcs();
        match &self.router {
            RouterConfig::InputQueued(c) => c.validate("router", max_packet)?,
        }
        if topology.ports * vcs > crate::router::iq::MAX_PORT_VCS {
            return Err(Error::config(
                "router.vcs",
                format!(
                    "{vcs} VCs on routers with {} ports is {} input VCs per router; the input-queued router supports at most {} (ports x vcs): use fewer VCs or a lower concentration",
                    topology.ports,
                    topology.ports * vcs,
                    crate::router::iq::MAX_PORT_VCS
                ),
            ));
        }
        let routing = RoutingFunction::build(&self.routing, &topology, vcs, "routing")?;
        let ch = &self.channel;
        let lat_ok = |v: u32| (1..=1000).contains(&v);
        if !lat_ok(ch.latency) {
            return Err(Error::config("channel.latency", format!("{} is out of range: a channel latency must be 1..=1000 cycles", ch.latency)));
        }
        if !lat_ok(ch.endpoint_latency) {
            return Err(Error::config(
                "channel.endpoint_latency",
                format!("{} is out of range: a channel latency must be 1..=1000 cycles", ch.endpoint_latency),
            ));
        }
        if let Some(dl) = &ch.dim_latency {
            if dl.len() != topology.ndims() {
                return Err(Error::config(
                    "channel.dim_latency",
                    format!("has {} entries but the topology has {} dimensions; give one latency per dimension", dl.len(), topology.ndims()),
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
        if s.watchdog == 0 {
            return Err(Error::config("sim.watchdog", "is 0: give the number of idle cycles after which a deadlock is reported (e.g. 5000)"));
        }
        if s.warmup.checked_add(s.measure).and_then(|x| x.checked_add(s.drain_limit)).is_none_or(|t| t > 1 << 50) {
            return Err(Error::config("sim.measure", "warmup + measure + drain_limit is too large (limit 2^50 cycles)"));
        }
        self.stats.validate("stats")?;
        Ok(Spec { config: self.clone(), topology, routing, workload })
    }
}

/// Apply one `key.path=value` override to a TOML table.
pub fn apply_override(table: &mut toml::Table, spec: &str) -> Result<()> {
    let Some((key, raw)) = spec.split_once('=') else {
        return Err(Error::Parse {
            path: spec.to_string(),
            message: "an override must look like key.path=value, e.g. traffic.load=0.4".into(),
        });
    };
    let key = key.trim();
    let raw = raw.trim();
    let value: toml::Value = format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(Error::Parse { path: key.into(), message: "empty component in the key path".into() });
    }
    let mut cur = table;
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            cur.insert(part.to_string(), value);
            break;
        }
        let entry = cur.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        match entry {
            toml::Value::Table(t) => cur = t,
            _ => {
                return Err(Error::Parse {
                    path: parts[..=i].join("."),
                    message: format!("is not a table, so `{key}` cannot be set"),
                })
            }
        }
    }
    Ok(())
}

/// Make serde's messages friendlier (they already list valid choices for variants and fields).
fn humanize(msg: &str) -> String {
    let m = msg.trim().trim_end_matches('\n');
    let m = m.split("\n").filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('|')).last().unwrap_or(m);
    let m = m.trim();
    if m.starts_with("unknown field") {
        format!("{m}; remove it or fix its spelling")
    } else if m.starts_with("unknown variant") {
        format!("{m}")
    } else if m.starts_with("missing field") {
        format!("{m}; add it")
    } else if m.starts_with("invalid type") {
        format!("{m}")
    } else {
        m.to_string()
    }
}
