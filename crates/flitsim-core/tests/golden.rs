//! Golden results: the engine's simulated output for a table of small configurations,
//! pinned bit for bit.
//!
//! Each case is a TOML config (check mode on, 200 warm-up + 1000 measured cycles) run to
//! completion; its report is compared against `tests/golden/<name>.json`. The cases cover
//! the router and flow-control variants the hot loop specialises on (separable and iSLIP
//! allocation, wormhole and virtual cut-through, pipeline delays, channel and credit
//! latencies, concentration, torus datelines, crossbars, routers with exactly 64 input
//! VCs or 64 ports, channels too long for the routers' arrival calendar) and one case for
//! each of the other router families (the SeaStar buffered crossbar with aging, the
//! SiCortex crosspoint switch with link-level retry, the central-arbiter router with
//! Disha and the self-tuned throttle, and with Duato's escape VCs and metapackets), so
//! that a performance change that alters any simulated result fails here.
//!
//! Compared: every field of the report except `version` and the echoed `config` (those
//! describe the run, not its result, and change when the crate version or the config
//! schema gains a defaulted field); the stored files keep the whole report for reading.
//!
//! **Re-blessing.** A case without its golden file fails (a new case is blessed once and
//! its file committed). After an *intentional* change of simulated behaviour (a semantics
//! fix, a new RNG stream, ...), regenerate all files and review the diff before committing
//! it:
//!
//! ```text
//! FLITSIM_BLESS=1 cargo test -p flitsim-core --test golden
//! git diff crates/flitsim-core/tests/golden/
//! ```
//!
//! A pure optimisation must never need a re-bless.

use std::path::PathBuf;

use flitsim_core::config::Config;
use flitsim_core::sim::Simulation;

/// Settings shared by every case.
const SIM: &str = r#"
[sim]
warmup = 200
measure = 1000
check = true
"#;

/// `(name, config)`; the `[sim]` table is appended.
const CASES: &[(&str, &str)] = &[
    (
        "torus4x4_islip2_uniform",
        r#"
[topology]
type = "torus"
dims = [4, 4]
[router]
type = "input_queued"
allocator = "islip"
islip_iterations = 2
[traffic]
load = 0.45
pattern = { type = "uniform" }
"#,
    ),
    (
        // BookSim2's torus conventions: random ties, the dateline class for the whole
        // dimension, iSLIP VC allocation; 4-flit packets on 2-cycle channels.
        "torus4x4_booksim_conventions",
        r#"
[topology]
type = "torus"
dims = [4, 4]
[router]
type = "input_queued"
allocator = "islip"
vc_allocator = "islip"
credit_delay = 4
[routing]
type = "dor"
ties = "random"
dateline_class = "at_entry"
[channel]
latency = 2
injection_latency = 2
[traffic]
load = 0.4
packet_size = 4
pattern = { type = "uniform" }
"#,
    ),
    (
        "mesh5x3_c2_separable_uniform",
        r#"
[topology]
type = "mesh"
dims = [5, 3]
concentration = 2
[router]
type = "input_queued"
allocator = "separable_input_first"
[traffic]
load = 0.3
"#,
    ),
    (
        "crossbar8_islip_hotspot",
        r#"
[topology]
type = "crossbar"
ports = 8
[router]
type = "input_queued"
allocator = "islip"
vcs = 2
buffer_depth = 4
[traffic]
load = 0.6
pattern = { type = "hotspot", nodes = [3], fraction = 0.3 }
"#,
    ),
    (
        "crossbar8_separable_uniform",
        r#"
[topology]
type = "crossbar"
ports = 8
[router]
type = "input_queued"
[traffic]
load = 0.8
"#,
    ),
    (
        "torus4x4_wormhole4_credit2",
        r#"
[topology]
type = "torus"
dims = [4, 4]
[router]
type = "input_queued"
flow_control = "wormhole"
buffer_depth = 4
credit_delay = 2
[traffic]
load = 0.35
packet_size = 4
"#,
    ),
    (
        "mesh4x4_vct4_rd0_transpose",
        r#"
[topology]
type = "mesh"
dims = [4, 4]
[router]
type = "input_queued"
flow_control = "virtual_cut_through"
allocator = "islip"
routing_delay = 0
vc_alloc_delay = 0
[traffic]
load = 0.3
packet_size = 4
pattern = { type = "transpose" }
"#,
    ),
    (
        "torus4x4_c2_rd2_lat3_hotspot",
        r#"
[topology]
type = "torus"
dims = [4, 4]
concentration = 2
[router]
type = "input_queued"
routing_delay = 2
sw_alloc_delay = 2
credit_delay = 2
[channel]
latency = 3
endpoint_latency = 2
[traffic]
load = 0.25
pattern = { type = "hotspot", nodes = [0, 17], fraction = 0.2 }
packet_size = { sizes = [1, 3], weights = [0.5, 0.5] }
"#,
    ),
    (
        "mesh5x3_c2_vct_sizes_separable",
        r#"
[topology]
type = "mesh"
dims = [5, 3]
concentration = 2
[router]
type = "input_queued"
flow_control = "virtual_cut_through"
vcs = 2
buffer_depth = 5
st_delay = 0
[channel]
dim_latency = [1, 3]
[traffic]
load = 0.4
packet_size = { sizes = [1, 5], weights = [0.7, 0.3] }
"#,
    ),
    (
        "torus4x4_lat70_polling",
        r#"
[topology]
type = "torus"
dims = [4, 4]
[router]
type = "input_queued"
vcs = 2
credit_delay = 3
[channel]
latency = 70
[traffic]
load = 0.2
packet_size = 2
"#,
    ),
    (
        "crossbar64_1vc_islip2",
        r#"
[topology]
type = "crossbar"
ports = 64
[router]
type = "input_queued"
allocator = "islip"
islip_iterations = 2
vcs = 1
buffer_depth = 2
[traffic]
load = 0.9
"#,
    ),
    (
        "torus3x3x3_c2_64ivc_islip",
        r#"
[topology]
type = "torus"
dims = [3, 3, 3]
concentration = 2
[router]
type = "input_queued"
allocator = "islip"
vcs = 8
buffer_depth = 2
[traffic]
load = 0.5
packet_size = 2
"#,
    ),
    (
        // The SeaStar buffered crossbar with age-based arbitration on every output and
        // unequal per-dimension biases, two request/response classes.
        "torus4x4_buffered_aging",
        r#"
[topology]
type = "torus"
dims = [4, 4]
[router]
type = "buffered_crossbar"
buffer_depth = 24
age_rr_select = "0xffffffffffffffff"
age_clock_period = 8
req_age_bias = [3, 2]
[routing]
classes = 2
[traffic]
load = 0.5
packet_size = 9
pattern = { type = "uniform" }
"#,
    ),
    (
        // The SiCortex crosspoint switch on a Kautz graph with source routes, mixed packet
        // sizes and link-level retry under bit errors.
        "kautz2x3_crosspoint_retry",
        r#"
[topology]
type = "kautz"
degree = 2
diameter = 3
[routing]
type = "source"
[router]
type = "crosspoint"
vcs = 2
xb_packets = 8
[channel]
latency = 2
[channel.retry]
window = 15
[channel.retry.errors]
ber = 0.0001
[traffic]
load = 0.25
packet_size = { sizes = [4, 12, 20], weights = [1, 1, 1] }
pattern = { type = "uniform" }
"#,
    ),
    (
        // The central-arbiter router: adaptive routing with Disha recovery, beyond
        // saturation under the self-tuned throttle.
        "torus4x4_central_disha_tune",
        r#"
[topology]
type = "torus"
dims = [4, 4]
[router]
type = "central"
vcs = 3
buffer_depth = 8
[routing]
type = "adaptive"
deadlock = "recovery"
timeout = 8
[traffic]
load = 0.8
packet_size = 16
pattern = { type = "uniform" }
injection = { type = "periodic" }
source_queue = 1
[congestion]
policy = "tune"
"#,
    ),
    (
        // The central-arbiter router with Duato's escape VCs, the self-tuned throttle's
        // estimate gathered in metapackets.
        "torus4x4_central_duato_metapackets",
        r#"
[topology]
type = "torus"
dims = [4, 4]
[router]
type = "central"
vcs = 3
buffer_depth = 8
[routing]
type = "adaptive"
deadlock = "avoidance"
[traffic]
load = 0.6
packet_size = 8
pattern = { type = "uniform" }
[congestion]
policy = "tune"
distribution = "metapackets"
"#,
    ),
];

/// Longer runs of the benchmark network (8x8 mesh, 1-flit packets, the `profile`
/// reference) without check mode: divergences that take many cycles to show up.
const LONG_SIM: &str = r#"
[sim]
warmup = 3000
measure = 10000
"#;

/// `(name, config)`; [`LONG_SIM`] is appended.
const LONG_CASES: &[(&str, &str)] = &[
    (
        "long_mesh8x8_islip_load03",
        r#"
[topology]
type = "mesh"
dims = [8, 8]
[router]
type = "input_queued"
allocator = "islip"
[traffic]
load = 0.3
"#,
    ),
    (
        "long_mesh8x8_separable_load045",
        r#"
[topology]
type = "mesh"
dims = [8, 8]
[router]
type = "input_queued"
[traffic]
load = 0.45
"#,
    ),
];

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden")
}

/// The report with the fields that describe the run (not its result) removed.
fn comparable(json: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(json).expect("golden JSON parses");
    let obj = v.as_object_mut().expect("report is a JSON object");
    obj.remove("version");
    obj.remove("config");
    v
}

/// First differing JSON path, for a readable failure message.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    Some(vb) => {
                        if let Some(d) = first_difference(va, vb, &format!("{path}.{k}")) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{path}.{k}: missing in new report")),
                }
            }
            y.keys().find(|k| !x.contains_key(*k)).map(|k| format!("{path}.{k}: new in report"))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (va, vb))| first_difference(va, vb, &format!("{path}[{i}]")))
        }
        _ if a == b => None,
        _ => Some(format!("{path}: golden {a} != new {b}")),
    }
}

#[test]
fn golden_reports_are_unchanged() {
    let bless = std::env::var("FLITSIM_BLESS").is_ok_and(|v| v == "1");
    let dir = golden_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    let cases = CASES.iter().map(|&(n, t)| (n, t, SIM)).chain(LONG_CASES.iter().map(|&(n, t)| (n, t, LONG_SIM)));
    for (name, toml, sim) in cases {
        let text = format!("{toml}{sim}");
        let spec = Config::from_toml(&text, &[]).and_then(|c| c.validate()).unwrap_or_else(|e| panic!("case {name}: bad config: {e}"));
        let report = Simulation::run_spec(spec).unwrap_or_else(|e| panic!("case {name}: run failed: {e}"));
        let json = report.to_json();
        let path = dir.join(format!("{name}.json"));
        if bless {
            std::fs::write(&path, format!("{json}\n")).unwrap();
            eprintln!("golden: wrote {}", path.display());
            continue;
        }
        if !path.exists() {
            failures.push(format!(
                "{name}: no golden file {} (a new case: bless it once with FLITSIM_BLESS=1 and commit the file)",
                path.display()
            ));
            continue;
        }
        let golden = std::fs::read_to_string(&path).unwrap();
        let (old, new) = (comparable(&golden), comparable(&json));
        if old != new {
            let why = first_difference(&old, &new, "").unwrap_or_else(|| "reports differ".into());
            failures.push(format!("{name}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "simulated results changed (re-bless with FLITSIM_BLESS=1 only if the change is intended):\n{}",
        failures.join("\n")
    );
}

/// The same config gives the same report twice in one process (no hidden global state).
#[test]
fn runs_are_deterministic() {
    let (name, toml) = CASES[0];
    let run = || {
        let spec = Config::from_toml(&format!("{toml}{SIM}"), &[]).unwrap().validate().unwrap();
        comparable(&Simulation::run_spec(spec).unwrap().to_json())
    };
    assert_eq!(run(), run(), "case {name} is not deterministic");
}
