//! Configuration: the serde types of every config table, parsing (TOML text, `--set`
//! overrides) with errors that name the key path, and validation into a [`Spec`].
//!
//! Stages: raw TOML -> [`Config`] (types checked, unknown keys refused, defaults filled)
//! -> [`Spec`] (ranges and cross-field rules checked, topology and workload built).
//! Every field is documented where it is defined; `docs/reference/config.md` is the reference.
//! Overrides, key paths and error messages are in `parse`; the reference that
//! `flitsim list` prints, and the range checks, read the schema derived from the
//! declarations ([`reference`]).

pub mod booksim;
mod data_files;
pub(crate) mod parse;
pub mod reference;
mod spec;

pub use crate::schema::check_range;
use crate::schema::tagged::{join_path, path_string, split_marked, without_context};
use data_files::rebase_data_files;
pub use data_files::{rebase_override, DATA_FILE_KEYS};
pub use parse::apply_override;
use parse::{humanize, line_col, remove_key, tables_where_tables_belong, the_names_here};
pub use spec::{FaultRoutes, Spec};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::router::RouterConfig;
use crate::routing::RoutingConfig;
use crate::stats::StatsConfig;
use crate::topology::TopologyConfig;
use crate::traffic::TrafficConfig;

/// A whole simulation config. Every table and field has a default, so an empty file
/// is the built-in default simulation (an 8x8 torus at moderate uniform load).
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
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
    #[schemars(!skip_serializing_if)]
    #[serde(default, skip_serializing_if = "crate::faults::FaultsConfig::is_empty")]
    pub faults: crate::faults::FaultsConfig,
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
            faults: crate::faults::FaultsConfig::default(),
            congestion: crate::congestion::CongestionConfig::default(),
        }
    }
}

/// `[channel]`: wire latencies. Every channel carries one flit per cycle.
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChannelConfig {
    /// Router-to-router channel latency in cycles (1..=1000).
    #[serde(default = "d_one")]
    pub latency: u32,
    /// Optional per-dimension latency overriding `latency`, x first (one entry per dimension).
    #[serde(default)]
    pub dim_latency: Option<Vec<u32>>,
    /// Injection and ejection channel latency in cycles (1..=1000).
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
#[derive(Deserialize, Serialize, Clone, Debug, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    /// Warm-up cycles before measurement starts.
    #[serde(default = "d_warmup")]
    pub warmup: u64,
    /// Measurement window in cycles: packets created in it are measured.
    #[serde(default = "d_measure")]
    pub measure: u64,
    /// Most cycles to keep running after the window until every measured packet is
    /// delivered; if it runs out the run is reported as saturated.
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
    /// (slow; for tests and debugging).
    #[serde(default)]
    pub check: bool,
    /// Finite workloads (`traffic.packets_per_source`, `traffic.message.per_source`,
    /// `traffic.phases`, a schedule that ends, or `traffic.trace`): end the run, and the measurement window
    /// with it, in the first cycle after warm-up in which every source has created all
    /// its packets and every packet is delivered or lost; the window is then
    /// `[warmup, that cycle)`. Refused for a workload that never ends.
    #[schemars(!skip_serializing_if)]
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
        if let Some(t) = &self.traffic.trace {
            if let Some(f) = &t.file {
                files.push(("traffic.trace.file", f.as_str()));
            }
            if let crate::traffic::app::placement::Placement::File(f) = &t.placement {
                files.push(("traffic.trace.placement.file", f.as_str()));
            }
        }
        files
    }

    /// The text a results store hashes for this config under simulator `version`:
    /// `{"config":<canonical_json>,"flitsim":"<version>"}`, and when the config names data
    /// files ([`Config::input_files`]) also `"inputs":{"<key path>":"<SHA-256 of the
    /// file's bytes (an OTF2 archive's: all its files), or \"unreadable\">"}`, so that editing a trace, a link list or a
    /// table file makes a new key (the CLI's and the Python package's stores hash this).
    pub fn store_text(&self, version: &str) -> String {
        let version = serde_json::to_string(version).expect("a string serializes");
        let mut text = format!("{{\"config\":{},\"flitsim\":{version}", self.canonical_json());
        let files = self.input_files();
        if !files.is_empty() {
            let inputs: serde_json::Map<String, serde_json::Value> =
                files.into_iter().map(|(key, f)| (key.to_string(), serde_json::Value::String(data_files::digest(f)))).collect();
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
