//! The component registry: every pluggable component declares its name, summary and
//! parameters beside its code; `flitsim list` prints this, and tests check that every
//! registered name parses and every parser variant is registered, so they cannot drift.

pub use crate::schema::Entry;

/// Every registered component, family by family.
pub fn all() -> Vec<Entry> {
    let mut v = Vec::new();
    v.extend_from_slice(crate::topology::REGISTRY);
    v.extend_from_slice(crate::routing::REGISTRY);
    v.extend_from_slice(crate::router::REGISTRY);
    v.extend_from_slice(crate::traffic::REGISTRY);
    v.extend_from_slice(crate::congestion::REGISTRY);
    v.extend_from_slice(TABLES);
    v
}

/// The plain config tables (not pluggable families), for the config reference.
pub const TABLES: &[Entry] = &[
    Entry {
        family: "table",
        name: "seed",
        summary: "top-level: seed of every random stream (same config + seed = same results, bit for bit)",
        params: &[("seed", "1", "unsigned 64-bit")],
    },
    Entry {
        family: "table",
        name: "channel",
        summary: "[channel]: wire latencies; every channel carries one flit per cycle",
        params: &[
            ("latency", "1", "router-to-router channel latency, cycles (1..=1000)"),
            ("dim_latency", "none", "per-dimension latency overriding `latency`, x first"),
            ("endpoint_latency", "1", "injection and ejection channel latency, cycles (1..=1000)"),
            ("injection_latency", "endpoint_latency", "injection channel latency, cycles (2 = BookSim2's)"),
            ("retry", "none", "[channel.retry]: link-level retry (SiCortex) on every router-to-router link; crosspoint switch only"),
            ("flit_bytes", "none", "bytes per flit (>= 1): results also in bytes; needed by traffic.message"),
            ("link_gbps", "none", "link rate, Gbit/s (> 0; needs flit_bytes): cycle = 8 flit_bytes / link_gbps ns, results also in MB/s and ns"),
        ],
    },
    Entry {
        family: "table",
        name: "channel.retry",
        summary: "[channel.retry]: the SiCortex link protocol (sequence numbers 0-15, replay buffer, CRC, control packets, go-back replay) and its error model",
        params: &[
            ("ctrl_latency", "16", "cycles from sending a control packet to the transmitter acting on it (1..=2000)"),
            ("ctrl_period", "15", "cycles between control packets (1..=1000)"),
            ("window", "15", "unacknowledged packets at most (1..=15)"),
            ("ack_flits", "2", "flits of the error-ack short packet (1..=64)"),
            ("errors", "none", "[channel.retry.errors]: ber, flit_bits (64), ctrl_bits (120), ctrl_loss, burst { mean_gap, mean_len, ber }, sync_loss [{ start, duration, lanes }], fail_at, corrupt_data_at, corrupt_ctrl_at"),
        ],
    },
    Entry {
        family: "table",
        name: "traffic",
        summary: "[traffic]: the workload (pattern = where, injection = when)",
        params: &[
            ("load", "0.3", "offered load, flits/node/cycle: 0..=mean packet size (one packet per cycle) with bernoulli and periodic, 0..=1 with on_off"),
            ("pattern", "uniform", "a [traffic.pattern] table, see the pattern family"),
            ("injection", "bernoulli", "a [traffic.injection] table, see the injection family"),
            ("packet_size", "1", "flits per packet, or { sizes = [..], weights = [..] }"),
            ("phases", "[]", "list of { duration, load, pattern? }: a phased schedule replacing load/pattern over time"),
            ("packets_per_source", "none", "most packets each source creates over the run, >= 1 (e.g. N - 1 with all_to_all); none = no limit"),
            ("source_queue", "none", "most packets (messages) a source queue holds, >= 1; none = unbounded (1 message with backlogged injection)"),
            ("message", "none", "{ bytes, mtu?, header_flits = 0, per_source?, exchange = false }: messages segmented into packets of mtu payload bytes (needs channel.flit_bytes), reassembled at the receiver; exchange: a node's message k + 1 waits until it has received k (MPI_Sendrecv, ping-ping), for patterns that pair the nodes"),
            ("trace", "none", "a [traffic.trace] table: replay a trace of messages instead of pattern and injection (every other traffic key then stays unset)"),
        ],
    },
    Entry {
        family: "table",
        name: "traffic.trace",
        summary: "[traffic.trace]: replay messages, each sent at its cycle (`at`) or once the messages it waits for arrived (`after`, plus `delay` cycles of computation); each source in program order",
        params: &[
            ("file", "or messages", "a file of one message per line: `src dst flits [at=CYCLE] [after=ID,ID,...] [delay=CYCLES]`, # comments; messages numbered from 0"),
            ("messages", "or file", "inline: [{ src, dst, flits, at = 0, after = [], delay = 0 }, ...]; `after` lists messages sent to src"),
            ("packet_flits", "16", "most flits per packet (1..=65535): a message is ceil(flits / packet_flits) packets, reassembled at the receiver"),
        ],
    },
    Entry {
        family: "table",
        name: "sim",
        summary: "[sim]: run length (warm-up, window, drain), watchdog, check mode",
        params: &[
            ("warmup", "1000", "cycles before the measurement window"),
            ("measure", "10000", "measurement window, cycles; packets created in it are measured"),
            ("drain_limit", "50000", "most cycles to wait after the window for measured packets"),
            ("watchdog", "5000", "cycles without any flit moving (while flits are buffered) before a deadlock error; a shorter stall at the end of the run is reported in the saturation verdict"),
            ("check", "false", "verify flit/credit conservation and buffer bounds every cycle"),
            ("until_done", "false", "finite workloads (packets_per_source, message.per_source, a phased schedule or a trace; refused without one): end the run and window once every packet is created and delivered"),
        ],
    },
    Entry {
        family: "table",
        name: "stats",
        summary: "[stats]: measurement options and the saturation verdict",
        params: &[
            ("histogram_bin", "1", "latency histogram bin width, cycles (reported with at most 200 bins)"),
            ("accepted_tolerance", "0.05", "saturated if accepted < offered x (1 - tolerance)"),
            ("latency_limit", "1000", "saturated if mean packet latency exceeds this many cycles"),
            ("channel_counters", "true", "collect per-channel per-VC flit counters"),
            ("vc_balance", "false", "report VC_balance per dimension (routes of all pairs, and simulated)"),
            ("timeline", "0", "cycles per bin of the throughput timeline (offered and accepted per bin over the whole run, stats.timeline in the result); 0 = off"),
        ],
    },
    Entry {
        family: "table",
        name: "faults",
        summary: "[faults]: link and node failures fixed before the run, and links failing at a cycle of the run; routes go around them (table routing with an XT policy, or Kautz source routes), checked connected and deadlock-free",
        params: &[
            ("links", "[]", "failed links, each [router, port]; both directions fail"),
            ("random_link_fraction", "0", "fraction in [0, 1) of the links failed at random"),
            ("nodes", "[]", "failed routers: all their links fail, their endpoints neither send nor receive"),
            ("random_node_fraction", "0", "fraction in [0, 1) of the routers failed at random"),
            ("seed", "run seed", "seed of the random choices"),
            ("unroutable", "refuse", "node pairs the routes do not connect: refuse the set, or skip their packets (counted)"),
            ("cyclic_routes", "refuse", "routes with a channel dependency cycle: refuse, or run them (the watchdog reports a deadlock that forms)"),
            (
                "at",
                "[]",
                "[[faults.at]] { cycle, links = [[router, port], ...], nodes = [router, ...] }: links and nodes failing for good at that cycle (>= 1); their replay buffers' packets are counted lost, a failed node sends and receives nothing more, and new packets are routed around them (Kautz, crosspoint switch, [channel.retry])",
            ),
        ],
    },
];

/// The config reference (docs/reference/config.md), generated from the registry.
pub fn markdown() -> String {
    let mut o = String::from(
        "# flitsim config reference\n\nGenerated by `flitsim list --markdown` from the component registry the parser\nis tested against; do not edit by hand. Every field has a default: an empty file is the\ndefault simulation. Pluggable components are tables with a `type` key.\n",
    );
    let mut family = "";
    for e in all() {
        if e.family != family {
            family = e.family;
            let title = match family {
                "topology" => "Topologies: `[topology] type = ...`",
                "routing" => "Routing functions: `[routing] type = ...`",
                "router" => "Routers: `[router] type = ...`",
                "pattern" => "Traffic patterns: `[traffic.pattern] type = ...`",
                "injection" => "Injection processes: `[traffic.injection] type = ...`",
                "congestion" => "Congestion control: `[congestion] policy = ...`",
                "table" => "Other tables",
                other => other,
            };
            o.push_str(&format!("\n## {title}\n"));
        }
        o.push_str(&format!("\n### `{}`\n{}\n", e.name, e.summary));
        if !e.params.is_empty() {
            o.push_str("\n| field | default | meaning |\n|---|---|---|\n");
            for (p, d, doc) in e.params {
                o.push_str(&format!("| `{p}` | {d} | {doc} |\n"));
            }
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    /// Every registered component name is accepted by the parser under its family's key
    /// (a missing required field is fine; an unknown variant is drift).
    #[test]
    fn every_registered_name_parses() {
        for e in all() {
            let text = match e.family {
                "topology" => format!("[topology]\ntype = \"{}\"", e.name),
                "routing" => format!("[routing]\ntype = \"{}\"", e.name),
                "router" => format!("[router]\ntype = \"{}\"", e.name),
                "pattern" => format!("[traffic.pattern]\ntype = \"{}\"", e.name),
                "injection" => format!("[traffic.injection]\ntype = \"{}\"", e.name),
                "congestion" => format!("[congestion]\npolicy = \"{}\"", e.name),
                "table" => continue,
                other => panic!("family {other} has no parser key"),
            };
            if let Err(err) = Config::from_toml(&text, &[]) {
                let msg = err.to_string();
                assert!(!msg.contains("unknown variant"), "{}/{} is registered but not parsed: {msg}", e.family, e.name);
            }
        }
    }

    /// Every parser variant is registered: an unknown name's error lists the valid
    /// choices, and each must appear in the registry.
    #[test]
    fn every_parsed_name_is_registered() {
        let names: Vec<&str> = all().iter().map(|e| e.name).collect();
        for (key, fam) in [
            ("[topology]", "topology"),
            ("[routing]", "routing"),
            ("[router]", "router"),
            ("[traffic.pattern]", "pattern"),
            ("[traffic.injection]", "injection"),
        ] {
            let err = Config::from_toml(&format!("{key}\ntype = \"no_such_thing\""), &[]).unwrap_err().to_string();
            let listed = err.split("expected").nth(1).unwrap_or_else(|| panic!("{fam}: {err}"));
            for choice in listed.split('`').skip(1).step_by(2) {
                assert!(names.contains(&choice), "{fam}: parser accepts `{choice}` but the registry does not list it");
            }
        }
    }

    /// Every documented table field exists in the default config.
    #[test]
    fn table_fields_exist() {
        let v = toml::Value::try_from(Config::default()).unwrap();
        for e in TABLES {
            for (p, _, _) in e.params {
                let faults = toml::Value::try_from(crate::link::faults::FaultsConfig {
                    seed: Some(0),
                    at: vec![crate::link::faults::timed::FailAt { cycle: 1, links: vec![], nodes: vec![] }],
                    ..Default::default()
                })
                .unwrap();
                let ok = if e.name == "seed" {
                    v.get("seed").is_some()
                } else if e.name == "faults" {
                    faults.get(*p).is_some()
                } else if e.name == "channel.retry" {
                    toml::Value::try_from(crate::link::retry::RetryParams::default()).unwrap().get(*p).is_some()
                } else if e.name == "traffic.trace" {
                    let t = crate::traffic::TraceConfig {
                        file: Some("f".into()),
                        messages: vec![crate::traffic::trace::MessageSpec { src: 0, dst: 0, flits: 1, at: 0, after: vec![], delay: 0 }],
                        packet_flits: 1,
                    };
                    toml::Value::try_from(t).unwrap().get(*p).is_some()
                } else if e.name == "stats" {
                    // (timeline is written only when on)
                    toml::Value::try_from(crate::stats::StatsConfig { timeline: 1, ..Default::default() }).unwrap().get(*p).is_some()
                } else if *p == "retry" {
                    e.name == "channel"
                } else {
                    v.get(e.name).and_then(|t| t.get(*p)).is_some()
                        || [
                            "dim_latency",
                            "injection_latency",
                            "packets_per_source",
                            "source_queue",
                            "message",
                            "trace",
                            "flit_bytes",
                            "link_gbps",
                            "until_done",
                        ]
                        .contains(p)
                };
                assert!(ok, "[{}] {} is documented but not in Config", e.name, p);
            }
        }
    }
}
