//! Property tests of config parsing and validation: whatever the text, parsing and
//! validating never panics, and every refusal is a `Parse` or `Config` error that names
//! a key path.
//!
//! (a) Arbitrary strings, TOML-ish text assembled from the real key vocabulary, and
//!     arbitrary `--set` overrides.
//! (b) Mutated valid configs: each base config is written out in full (`to_toml`, so
//!     every field is present), then one field is deleted, renamed, retyped (string,
//!     bool, negative, float, huge integer, array, table) or pushed out of range. A
//!     wrong-type refusal must name that field, something inside it, or its table.
//! (c) Accepted mutations: one to three numbers, switches or names of a base set to
//!     small or boundary values or other choices; whenever validation accepts it, the simulation builds
//!     and runs a few hundred cycles under check mode without a panic (an overflow or a
//!     huge allocation from an unbounded field would show here). `FUZZ_TRACE=1` prints
//!     each case and its time.
//! (d) The same accepted mutations run a short warm-up, window and drain on one, two and
//!     three threads and by two processes (threads playing MPI ranks): the reports must
//!     be identical, bit for bit (or the runs stop with the same error).
//!
//! The bases cover every router type and routing function (cube, crossbar, Kautz and
//! Clos networks; DOR, XT tables with faults, adaptive with self-tuning, source routes
//! with link retry, dispersive up*/down* routes with STOP/GO and messages).

#[path = "../common/mod.rs"]
mod common;
mod paths;

use paths::*;

use flitsim_core::config::Config;
use flitsim_core::Error;
use proptest::prelude::*;
use proptest::sample::Index;

/// Cases per property of (a) and (b): 256, or `FUZZ_CASES` for a deeper search (e.g.
/// 40000 before a release); (c) runs a quarter as many, (d) an eighth (each of their
/// cases simulates). `PROPTEST_CASES` would override every property's count alike:
/// proptest applies it over the counts given here. The seed is random unless
/// `PROPTEST_RNG_SEED` fixes it.
fn cases() -> u32 {
    std::env::var("FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
}

/// Parse, override and validate; the result of the whole config stage.
fn check(text: &str, set: &[String]) -> Result<(), Error> {
    Config::from_toml(text, set)?.validate().map(|_| ())
}

/// Every refusal of the config stage is a Parse or Config error with a clean, non-empty
/// key path; returns the error for further checks.
fn assert_config_error(r: Result<(), Error>, context: &str) -> Option<Error> {
    let e = r.err()?;
    match &e {
        Error::Parse { path, message } | Error::Config { path, message } => {
            assert!(!path.is_empty(), "empty path: {e}\n{context}");
            assert_eq!(e.path(), Some(path.as_str()));
            for s in [path, message] {
                assert!(!s.contains('\u{1f}'), "internal path marker leaked: {e:?}\n{context}");
            }
            assert!(!message.trim().is_empty(), "empty message: {e:?}\n{context}");
        }
        other => panic!("config stage returned a non-config error {other:?}\n{context}"),
    }
    Some(e)
}

// ---------------------------------------------------------------------------------------
// (a) arbitrary and TOML-ish text
// ---------------------------------------------------------------------------------------

const KEYS: &[&str] = &[
    "seed",
    "type",
    "dims",
    "wrap",
    "concentration",
    "ports",
    "vcs",
    "buffer_depth",
    "flow_control",
    "allocator",
    "islip_iterations",
    "routing_delay",
    "vc_alloc_delay",
    "sw_alloc_delay",
    "st_delay",
    "credit_delay",
    "order",
    "datelines",
    "latency",
    "dim_latency",
    "endpoint_latency",
    "load",
    "pattern",
    "injection",
    "packet_size",
    "phases",
    "duration",
    "nodes",
    "fraction",
    "dest",
    "burst_length",
    "peak",
    "sizes",
    "weights",
    "warmup",
    "measure",
    "drain_limit",
    "watchdog",
    "check",
    "histogram_bin",
    "accepted_tolerance",
    "latency_limit",
    "channel_counters",
    "bogus",
];

const TABLES: &[&str] = &[
    "topology",
    "router",
    "routing",
    "channel",
    "traffic",
    "traffic.pattern",
    "traffic.injection",
    "sim",
    "stats",
    "bogus",
    "traffic.packet_size",
    "router.vcs",
];

const NAMES: &[&str] = &[
    "torus",
    "mesh",
    "cube",
    "crossbar",
    "input_queued",
    "dor",
    "wormhole",
    "virtual_cut_through",
    "islip",
    "separable_input_first",
    "uniform",
    "bit_complement",
    "bit_reverse",
    "shuffle",
    "transpose",
    "tornado",
    "neighbor",
    "random_permutation",
    "hotspot",
    "merge_to_one",
    "process_pairs",
    "bernoulli",
    "on_off",
    "",
];

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|v| v.to_string()),
        (-3i64..70).prop_map(|v| v.to_string()),
        any::<f64>().prop_map(|v| format!("{v:?}")),
        (-1.5f64..2.0).prop_map(|v| format!("{v:?}")),
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("-inf".to_string()),
        any::<bool>().prop_map(|v| v.to_string()),
        prop::sample::select(NAMES).prop_map(|s| format!("{s:?}")),
        "[a-z_]{0,8}".prop_map(|s| format!("{s:?}")),
    ]
}

fn value() -> impl Strategy<Value = String> {
    scalar().prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..5).prop_map(|kv| {
                let mut seen = std::collections::HashSet::new();
                let body: Vec<String> = kv.into_iter().filter(|(k, _)| seen.insert(*k)).map(|(k, v)| format!("{k} = {v}")).collect();
                format!("{{ {} }}", body.join(", "))
            }),
        ]
    })
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (prop::sample::select(KEYS), value()).prop_map(|(k, v)| format!("{k} = {v}")),
        1 => prop::sample::select(TABLES).prop_map(|t| format!("[{t}]")),
        1 => Just("[[traffic.phases]]".to_string()),
        1 => ".{0,20}",
    ]
}

fn toml_ish() -> impl Strategy<Value = String> {
    prop::collection::vec(line(), 0..14).prop_map(|lines| lines.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,200}") {
        assert_config_error(check(&text, &[]), &text);
    }

    #[test]
    fn toml_ish_text_never_panics(text in toml_ish()) {
        assert_config_error(check(&text, &[]), &text);
    }

    #[test]
    fn arbitrary_overrides_never_panic(
        text in toml_ish(),
        set in prop::collection::vec(
            prop_oneof![
                ".{0,30}",
                (prop::sample::select(TABLES), prop::sample::select(KEYS), value())
                    .prop_map(|(t, k, v)| format!("{t}.{k}={v}")),
                (prop::sample::select(KEYS), value()).prop_map(|(k, v)| format!("{k}={v}")),
            ],
            0..4,
        ),
    ) {
        assert_config_error(check(&text, &set), &format!("{text}\n--set {set:?}"));
    }
}

// ---------------------------------------------------------------------------------------
// (b) mutated valid configs
// ---------------------------------------------------------------------------------------

/// Valid starting points, written out in full so that every field can be mutated.
const BASES: &[&str] = &[
    // The built-in default (8x8 torus, uniform).
    "",
    // 4x4 torus, virtual cut-through, 4-flit packets.
    "[topology]\ntype = \"torus\"\ndims = [4, 4]\n\
     [router]\nflow_control = \"virtual_cut_through\"\nbuffer_depth = 8\n\
     [traffic]\nload = 0.4\npacket_size = 4",
    // Mesh with concentration, iSLIP, explicit dimension order and latencies.
    "[topology]\ntype = \"mesh\"\ndims = [5, 3]\nconcentration = 2\n\
     [router]\nvcs = 2\nallocator = \"islip\"\nislip_iterations = 2\n\
     [routing]\norder = [1, 0]\n[channel]\ndim_latency = [1, 3]\nendpoint_latency = 2",
    // Crossbar, bit permutation.
    "[topology]\ntype = \"crossbar\"\nports = 8\n[traffic.pattern]\ntype = \"bit_reverse\"",
    // Mixed cube with a hotspot pattern and a size distribution.
    "[topology]\ntype = \"cube\"\ndims = [4, 3, 2]\nwrap = [true, false, true]\n\
     [traffic]\nload = 0.2\npacket_size = { sizes = [1, 5], weights = [0.5, 0.5] }\n\
     [traffic.pattern]\ntype = \"hotspot\"\nnodes = [0, 7]\nfraction = 0.3",
    // Phases with their own patterns and an on/off source; stats options.
    "[topology]\ntype = \"torus\"\ndims = [4, 4]\n\
     [traffic]\ninjection = { type = \"on_off\", burst_length = 8.0, peak = 0.9 }\n\
     [[traffic.phases]]\nduration = 100\nload = 0.2\n\
     [[traffic.phases]]\nduration = 50\nload = 0.5\npattern = { type = \"merge_to_one\", dest = 3 }\n\
     [[traffic.phases]]\nduration = 50\nload = 0.1\npattern = { type = \"random_permutation\", seed = 7 }\n\
     [stats]\nhistogram_bin = 5\naccepted_tolerance = 0.1\nchannel_counters = false",
    // The SeaStar buffered-crossbar router with aging, per-port biases and two classes.
    "[topology]\ntype = \"torus\"\ndims = [4, 3, 2]\n\
     [router]\ntype = \"buffered_crossbar\"\nage_rr_select = \"0x5555555555555555\"\nage_clock_period = 8\n\
     req_age_bias = [3, 2, 1]\nrsp_age_bias_ports = [1, 1, 1, 1, 1, 1, 2]\nsaturation_check = \"as_printed\"\n\
     [routing]\nclasses = 2\n[traffic]\npacket_size = 9",
    // The SiCortex fabric: K(2,3), crosspoint switch, source routes, link-level retry
    // with bit errors.
    "[topology]\ntype = \"kautz\"\ndegree = 2\ndiameter = 3\n[routing]\ntype = \"source\"\n\
     [router]\ntype = \"crosspoint\"\nvcs = 3\nxb_packets = 4\n[channel]\nlatency = 2\n\
     [channel.retry]\nwindow = 15\n[channel.retry.errors]\nber = 0.0001\n\
     [traffic]\nload = 0.3\npacket_size = { sizes = [4, 12], weights = [1, 1] }",
    // Adaptive wormhole routing under Disha recovery with self-tuned throttling.
    "[topology]\ntype = \"torus\"\ndims = [4, 4]\n\
     [router]\ntype = \"central\"\nvcs = 3\nbuffer_depth = 8\n\
     [routing]\ntype = \"adaptive\"\ndeadlock = \"recovery\"\ntimeout = 8\n\
     [traffic]\nload = 0.5\npacket_size = 4\n[congestion]\npolicy = \"tune\"",
    // A small Clos with probing adaptive source routes, STOP/GO and messages.
    "[topology]\ntype = \"clos\"\nradix = 8\nstages = 3\nnodes = 32\n\
     [router]\nvcs = 1\nbuffer_depth = 20\nstop_go = { stop = 16, go = 8 }\nrouting_delay = 0\nvc_alloc_delay = 0\n\
     [routing]\ntype = \"updown\"\nselection = \"probing\"\nthreshold = 4\nprobability = 0.5\n\
     [channel]\nflit_bytes = 64\nlink_gbps = 10\n\
     [traffic]\npattern = { type = \"random_bisection\", index = 0 }\ninjection = { type = \"backlogged\" }\n\
     message = { bytes = 8192, mtu = 1024, per_source = 4 }",
    // K(3,2) with two rails, links and a node failing during the run, and a finite
    // workload that ends the run.
    "seed = 7\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 2\n[routing]\ntype = \"source\"\nrails = 2\n\
     [router]\ntype = \"crosspoint\"\nvcs = 3\n[channel]\nlatency = 2\n[channel.retry.errors]\nber = 0.00002\n\
     [traffic]\nload = 0.5\npackets_per_source = 40\npacket_size = { sizes = [4, 12], weights = [1, 1] }\n\
     [sim]\nuntil_done = true\n\
     [[faults.at]]\ncycle = 150\nlinks = [[3, 1], [7, 0]]\n[[faults.at]]\ncycle = 260\nnodes = [5]",
    // Adaptive routing under Duato avoidance, metapackets gathering the congestion
    // estimate on the data links and Tune throttling on them.
    "[topology]\ntype = \"torus\"\ndims = [4, 4]\n\
     [router]\ntype = \"central\"\nvcs = 3\nbuffer_depth = 8\n\
     [routing]\ntype = \"adaptive\"\ndeadlock = \"avoidance\"\n\
     [traffic]\nload = 0.6\npacket_size = 4\n[congestion]\npolicy = \"tune\"\ndistribution = \"metapackets\"",
    // XT table routing with the v3 VC policy on a torus with random link faults.
    "[topology]\ntype = \"torus\"\ndims = [4, 3, 4]\n[router]\ntype = \"buffered_crossbar\"\n\
     [routing]\ntype = \"table\"\nclasses = 2\nvc_policy = \"v3\"\n\
     [traffic]\nload = 0.3\npacket_size = 9\n\
     [faults]\nrandom_link_fraction = 0.05\nseed = 1\nunroutable = \"skip\"",
    // A dragonfly with UGAL routes and long global wires.
    "[topology]\ntype = \"dragonfly\"\ngroup_routers = 4\nconcentration = 2\nglobal_ports = 2\ngroups = 5\n\
     [router]\nvcs = 6\n[routing]\ntype = \"dragonfly\"\nmode = \"ugal\"\n[channel]\ndim_latency = [1, 4]\n\
     [traffic]\nload = 0.4\npacket_size = 2",
    // A HyperX with parallel links and UGAL routes.
    "[topology]\ntype = \"hyperx\"\ndims = [4, 3]\nlinks = [2, 1]\nconcentration = 2\n\
     [router]\nvcs = 2\n[routing]\ntype = \"hyperx\"\nmode = \"ugal\"\n[channel]\ndim_latency = [1, 3]\n\
     [traffic]\nload = 0.4\npacket_size = 2",
    // A graph from a link list, up*/down* routes.
    "[topology]\ntype = \"graph\"\nlinks = [[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]]\nconcentration = 2\n\
     [router]\nvcs = 2\n[routing]\ntype = \"graph\"\nmode = \"updown\"\n\
     [traffic]\nload = 0.3\npacket_size = 2",
    // A HyperX routed as a graph around random link and router failures.
    "[topology]\ntype = \"hyperx\"\ndims = [4, 4]\nconcentration = 2\n\
     [router]\nvcs = 4\n[routing]\ntype = \"graph\"\nmode = \"minimal\"\n\
     [traffic]\nload = 0.3\npacket_size = 2\n\
     [faults]\nrandom_link_fraction = 0.1\nrandom_node_fraction = 0.05\nseed = 2\nunroutable = \"skip\"",
    // Routers of 80 input VCs (128-bit VC sets): a 2-D mesh with 6 endpoints per router.
    "[topology]\ntype = \"mesh\"\ndims = [3, 3]\nconcentration = 6\n\
     [router]\nvcs = 8\nflow_control = \"virtual_cut_through\"\n\
     [traffic]\nload = 0.3\npacket_size = 4",
    // A closed-loop trace on a 4x4 torus: messages at cycles, waiting for others, with
    // computation delays, cut into packets.
    "[topology]\ntype = \"torus\"\ndims = [4, 4]\n[sim]\nuntil_done = true\n\
     [traffic.trace]\npacket_flits = 4\nmessages = [{ src = 0, dst = 5, flits = 9 }, { src = 5, dst = 0, flits = 3, after = [0], delay = 7 }, \
     { src = 3, dst = 5, flits = 1, at = 20 }, { src = 5, dst = 3, flits = 12, after = [2] }, { src = 0, dst = 15, flits = 2, after = [1] }]",
];

#[derive(Clone, Debug)]
enum Mutation {
    Delete,
    Rename,
    Retype(toml::Value),
    OutOfRange(toml::Value),
}

fn wrong_type_value() -> impl Strategy<Value = toml::Value> {
    prop_oneof![
        Just(toml::Value::String("x".into())),
        Just(toml::Value::String("4".into())),
        any::<bool>().prop_map(toml::Value::Boolean),
        (-1000i64..0).prop_map(toml::Value::Integer),
        Just(toml::Value::Float(1.5)),
        Just(toml::Value::Float(-0.25)),
        Just(toml::Value::Integer(i64::MAX)),
        Just(toml::Value::Integer(1 << 40)),
        Just(toml::Value::Array(vec![toml::Value::Integer(1), toml::Value::String("a".into())])),
        Just(toml::Value::Array(vec![])),
        Just(toml::Value::Table(toml::Table::new())),
    ]
}

fn out_of_range_value() -> impl Strategy<Value = toml::Value> {
    prop_oneof![
        Just(toml::Value::Integer(0)),
        Just(toml::Value::Integer(1)),
        Just(toml::Value::Integer(-1)),
        Just(toml::Value::Integer(17)),
        Just(toml::Value::Integer(65)),
        Just(toml::Value::Integer(1025)),
        Just(toml::Value::Integer(65_536)),
        Just(toml::Value::Integer(u32::MAX as i64)),
        Just(toml::Value::Integer(u32::MAX as i64 + 1)),
        Just(toml::Value::Integer(i64::MAX)),
        Just(toml::Value::Float(0.0)),
        Just(toml::Value::Float(1.0)),
        Just(toml::Value::Float(1.0000001)),
        Just(toml::Value::Float(-1e-9)),
        Just(toml::Value::Float(1e300)),
        Just(toml::Value::Float(f64::NAN)),
        Just(toml::Value::Float(f64::INFINITY)),
        Just(toml::Value::Float(f64::NEG_INFINITY)),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => Just(Mutation::Delete),
        1 => Just(Mutation::Rename),
        2 => wrong_type_value().prop_map(Mutation::Retype),
        2 => out_of_range_value().prop_map(Mutation::OutOfRange),
    ]
}

/// The full TOML tables of the bases (parsed once per case; cheap).
fn base_value(i: usize) -> toml::Value {
    let cfg = Config::from_toml(BASES[i], &[]).unwrap_or_else(|e| panic!("base {i}: {e}"));
    cfg.validate().unwrap_or_else(|e| panic!("base {i} does not validate: {e}"));
    toml::Value::Table(cfg.to_toml().parse::<toml::Table>().unwrap())
}

fn kind_of(v: &toml::Value) -> &'static str {
    v.type_str()
}

#[test]
fn bases_are_valid_and_complete() {
    for i in 0..BASES.len() {
        let v = base_value(i);
        let mut paths = Vec::new();
        all_paths(&v, &mut Vec::new(), &mut paths);
        // Written out in full: every section is present.
        for key in ["seed", "topology", "router", "routing", "channel", "traffic", "sim", "stats"] {
            assert!(paths.contains(&vec![Seg::Key(key.into())]), "base {i} lacks {key}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_valid_configs_fail_cleanly(
        base in 0..BASES.len(),
        which in any::<Index>(),
        m in mutation(),
    ) {
        let mut root = base_value(base);
        let mut paths = Vec::new();
        all_paths(&root, &mut Vec::new(), &mut paths);
        let path = which.get(&paths).clone();
        let field = path_text(&path);
        let parent = path_text(&path[..path.len() - 1]);
        let before = get_mut(&mut root, &path).clone();
        match &m {
            Mutation::Delete => match (parent_mut(&mut root, &path), path.last().unwrap()) {
                (toml::Value::Table(t), Seg::Key(k)) => {
                    t.remove(k);
                }
                (toml::Value::Array(a), Seg::Index(i)) => {
                    a.remove(*i);
                }
                _ => unreachable!(),
            },
            Mutation::Rename => match (parent_mut(&mut root, &path), path.last().unwrap()) {
                (toml::Value::Table(t), Seg::Key(k)) => {
                    let v = t.remove(k).unwrap();
                    t.insert(format!("{k}x"), v);
                }
                // Array elements have no name: swap the element for a copy of itself.
                (toml::Value::Array(_), Seg::Index(_)) => {}
                _ => unreachable!(),
            },
            Mutation::Retype(v) | Mutation::OutOfRange(v) => *get_mut(&mut root, &path) = v.clone(),
        }
        let toml::Value::Table(table) = root else { unreachable!() };
        // Through the text (what users write) and straight from the table (what the CLI's
        // overrides produce); NaN and infinities survive both.
        let text = toml::to_string(&table).expect("serializes");
        let context = format!("base {base}, {m:?} at `{field}` (was {before})\n{text}");
        let via_table = Config::from_table(table.clone()).and_then(|c| c.validate().map(|_| ()));
        let via_text = check(&text, &[]);
        prop_assert_eq!(&via_table, &via_text, "{}", context);
        let Some(err) = assert_config_error(via_text, &context) else { return Ok(()) };
        let got = err.path().unwrap().to_string();
        let is_parse = matches!(err, Error::Parse { .. });
        let inside = |p: &str| got == p || got.starts_with(&format!("{p}.")) || got.starts_with(&format!("{p}["));
        match &m {
            Mutation::Retype(v) if is_parse && kind_of(v) != kind_of(&before) => {
                // The wrong type is reported at the field, inside it (a table where a
                // number belongs is read as a table and misses its keys), or at its table.
                prop_assert!(
                    inside(&field) || got == parent || (parent.is_empty() && got == field),
                    "retype of `{}` reported at `{}`: {}\n{}", field, got, err, context
                );
            }
            Mutation::Rename if is_parse && matches!(path.last(), Some(Seg::Key(_))) => {
                // An unknown key at the renamed name, or (for a required key) its absence,
                // both inside the parent table.
                let renamed = format!("{field}x");
                prop_assert!(
                    got == renamed || parent.is_empty() || inside(&parent),
                    "rename of `{}` reported at `{}`: {}\n{}", field, got, err, context
                );
            }
            Mutation::Delete if is_parse => {
                prop_assert!(
                    parent.is_empty() || inside(&parent),
                    "deleting `{}` reported at `{}`: {}\n{}", field, got, err, context
                );
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------
// (c) accepted mutations simulate
// ---------------------------------------------------------------------------------------

/// A value of `before`'s kind that validation often accepts: small and boundary
/// numbers, so the simulation behind the config stage meets the extremes users can
/// reach, and other choices' names. `None` for tables and arrays (their mutations are
/// (b)'s).
fn accepted_value(before: &toml::Value, pick: Index, small: i64, fraction: f64) -> Option<toml::Value> {
    const INTS: &[i64] = &[0, 1, 2, 3, 7, 8, 9, 16, 63, 64, 65, 1023, 1024, 65_535, u32::MAX as i64];
    match before {
        toml::Value::Integer(_) if pick.index(3) == 0 => Some(toml::Value::Integer(small)),
        toml::Value::Integer(_) => Some(toml::Value::Integer(*pick.get(INTS))),
        toml::Value::Float(_) => Some(toml::Value::Float(if pick.index(4) == 0 { small as f64 } else { fraction })),
        toml::Value::Boolean(b) => Some(toml::Value::Boolean(!b)),
        toml::Value::String(_) => Some(toml::Value::String(pick.get(VARIANTS).to_string())),
        _ => None,
    }
}

/// Names the config's choices take (most fields refuse most of them; the accepted ones
/// switch a mechanism on a base that was not built for it).
const VARIANTS: &[&str] = &[
    "wormhole",
    "virtual_cut_through",
    "islip",
    "separable_input_first",
    "per_router",
    "per_port",
    "avoidance",
    "recovery",
    "mesh_dor",
    "static",
    "random",
    "adaptive",
    "probing",
    "hashed",
    "destination",
    "extrapolate",
    "last",
    "full",
    "occupied",
    "none",
    "alo",
    "tune",
    "sideband",
    "metapackets",
    "unassigned",
    "drained",
    "dor",
    "initial",
    "v1",
    "v2",
    "v3",
    "auto",
    "skip",
    "run",
    "refuse",
    "as_printed",
    "corrected",
    "exact",
    "uniform",
    "bit_complement",
    "bit_reverse",
    "shuffle",
    "transpose",
    "tornado",
    "neighbor",
    "bernoulli",
    "periodic",
    "backlogged",
    "on_off",
    "torus",
    "mesh",
    "source",
    "table",
    "updown",
    "topology",
    "0xffffffffffffffff",
    "0x0",
];

/// Base `base` with numbers, switches or names (each `(which, pick, small, fraction)`)
/// set to an [`accepted_value`], and the sim settings `sim` put in; with a description of
/// the changes for failure messages.
fn accepted_mutation(base: usize, changes: &[(Index, Index, i64, f64)], sim: &[(&str, toml::Value)]) -> (toml::Table, String) {
    let mut root = base_value(base);
    let mut paths = Vec::new();
    all_paths(&root, &mut Vec::new(), &mut paths);
    // Numbers, switches and names.
    paths.retain(|p| {
        let v = get_mut(&mut root, p);
        v.is_integer() || v.is_float() || v.is_bool() || v.is_str()
    });
    let mut context = format!("base {base}");
    for &(which, pick, small, fraction) in changes {
        let path = which.get(&paths).clone();
        let before = get_mut(&mut root, &path).clone();
        let v = accepted_value(&before, pick, small, fraction).expect("a number, a switch or a name");
        // A network as large as the value asks for is valid but not brief (a 4x64x4
        // torus with 154 failed links takes a minute to route around them): the
        // topology's sizes stay at most 16 here.
        let field = path_text(&path);
        let v = match v.as_integer() {
            Some(i) if i > 16 && field.starts_with("topology.") => toml::Value::Integer(small % 17),
            _ => v,
        };
        *get_mut(&mut root, &path) = v.clone();
        context += &format!(", `{field}` = {v} (was {before})");
    }
    let toml::Value::Table(mut table) = root else { unreachable!() };
    if let Some(toml::Value::Table(t)) = table.get_mut("sim") {
        for (k, x) in sim {
            t.insert(k.to_string(), x.clone());
        }
    }
    (table, context)
}

/// One to three changes for [`accepted_mutation`].
fn changes() -> impl Strategy<Value = Vec<(Index, Index, i64, f64)>> {
    proptest::collection::vec((any::<Index>(), any::<Index>(), 0i64..=70, 0.0f64..=1.0), 1..=3)
}

/// `run()`, printing its time after `what` when `FUZZ_TRACE` is set.
fn timed<T>(what: &str, run: impl FnOnce() -> T) -> T {
    let t0 = std::time::Instant::now();
    let out = run();
    if std::env::var_os("FUZZ_TRACE").is_some() {
        eprintln!("  {:.2} s {what}", t0.elapsed().as_secs_f64());
    }
    out
}

/// Cycles an accepted mutation runs (under check mode): enough for packets to cross the
/// small bases several times.
const BRIEF: u64 = 300;

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() / 4, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever values validation accepts (one to three fields changed at once), the
    /// simulation it builds runs without a panic (or an overflow: debug assertions are
    /// on) and with flits and credits conserved (check mode): an accepted config either
    /// runs or stops with a typed error (e.g. a detected deadlock), never crashes.
    #[test]
    fn accepted_mutations_simulate(
        base in 0..BASES.len(),
        changes in changes(),
    ) {
        let (table, context) = accepted_mutation(base, &changes, &[("check", toml::Value::Boolean(true))]);
        let t0 = std::time::Instant::now();
        if std::env::var_os("FUZZ_TRACE").is_some() {
            eprintln!("{context}");
        }
        let Ok(spec) = Config::from_table(table).and_then(|c| c.validate()) else { return Ok(()) };
        match flitsim_core::sim::Simulation::new(spec) {
            Ok(mut sim) => {
                // Only a detected deadlock may stop it: an `Invariant` error is check mode
                // finding a flit or credit lost, duplicated or overflowing a buffer.
                if let Err(e) = sim.run_cycles(BRIEF) {
                    prop_assert!(matches!(e, Error::Deadlock { .. } | Error::PartialDeadlock { .. }), "stopped with {e}\n{context}");
                }
            }
            Err(e) => prop_assert!(matches!(e, Error::Config { .. }), "building refused with a non-config error: {e}\n{context}"),
        }
        if std::env::var_os("FUZZ_TRACE").is_some() {
            eprintln!("  {:.2} s", t0.elapsed().as_secs_f64());
        }
    }
}

// ---------------------------------------------------------------------------------------
// (d) accepted mutations give the same results on any number of threads
// ---------------------------------------------------------------------------------------

/// One way to run a config: the report's JSON, or the error that stopped it, as text.
type RunOn<'a> = dyn Fn() -> Result<serde_json::Value, String> + 'a;

/// The whole run of `table` on `threads` threads: the report's JSON (without the version
/// field), or the error that stopped it, as text.
fn run_on(table: &toml::Table, threads: usize) -> Result<serde_json::Value, String> {
    let spec = Config::from_table(table.clone()).and_then(|c| c.validate()).map_err(|e| e.to_string())?;
    let mut sim = flitsim_core::sim::Simulation::new(spec).map_err(|e| e.to_string())?;
    sim.set_threads(threads).map_err(|e| e.to_string())?;
    let report = sim.run(&mut |_| {}).map_err(|e| e.to_string())?;
    let mut v = serde_json::to_value(report).expect("a report serializes");
    v.as_object_mut().expect("a report is an object").remove("version");
    Ok(v)
}

/// [`run_on`] by `size` processes played by threads (`common::ThreadPeers`): process 0's
/// report, or the error that stopped a process.
fn run_by_processes(table: &toml::Table, size: usize) -> Result<serde_json::Value, String> {
    let mail = std::sync::Arc::new(common::Mailbox::new(size, size));
    let handles: Vec<_> = (0..size)
        .map(|rank| {
            let (table, mail) = (table.clone(), std::sync::Arc::clone(&mail));
            std::thread::spawn(move || -> Result<serde_json::Value, String> {
                let spec = Config::from_table(table).and_then(|c| c.validate()).map_err(|e| e.to_string())?;
                let mut sim = flitsim_core::sim::Simulation::new(spec).map_err(|e| e.to_string())?;
                sim.set_peers(Box::new(common::ThreadPeers { rank, size, mail })).map_err(|e| e.to_string())?;
                let report = sim.run(&mut |_| {}).map_err(|e| e.to_string())?;
                let mut v = serde_json::to_value(report).expect("a report serializes");
                v.as_object_mut().expect("a report is an object").remove("version");
                Ok(v)
            })
        })
        .collect();
    let mut all: Vec<_> = handles.into_iter().map(|h| h.join().expect("a process thread panicked")).collect();
    // Every process stops alike (they decide from the same reduced values).
    for (k, r) in all.iter().enumerate().skip(1) {
        if let (Err(a), b) | (b, Err(a)) = (&all[0], r) {
            assert_eq!(Some(a), b.as_ref().err(), "process 0 and process {k} stopped differently");
        }
    }
    all.swap_remove(0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() / 8, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever values validation accepts (one to three fields changed at once, so
    /// mechanisms meet), a short run (warm-up, window and drain) on 2 and
    /// 3 threads and by 2 processes reports exactly what it reports on one, the whole JSON
    /// bit for bit, or stops with the same error (a deadlock found in the same cycle):
    /// the partitioned engines' determinism over the config space, beyond the hand-picked
    /// cases of `tests/parallel.rs` and `tests/distributed.rs`.
    #[test]
    fn accepted_mutations_are_the_same_on_any_thread_count(
        base in 0..BASES.len(),
        changes in changes(),
    ) {
        let short = [
            ("check", toml::Value::Boolean(false)),
            ("warmup", toml::Value::Integer(100)),
            ("measure", toml::Value::Integer(300)),
            ("drain_limit", toml::Value::Integer(400)),
        ];
        let (table, context) = accepted_mutation(base, &changes, &short);
        if std::env::var_os("FUZZ_TRACE").is_some() {
            eprintln!("{context}");
        }
        if timed("to validate", || Config::from_table(table.clone()).and_then(|c| c.validate())).is_err() {
            return Ok(());
        }
        let one = timed("on one thread", || run_on(&table, 1));
        let others: [(&str, &RunOn<'_>); 3] = [
            ("on 2 threads", &|| run_on(&table, 2)),
            ("on 3 threads", &|| run_on(&table, 3)),
            ("by 2 processes", &|| run_by_processes(&table, 2)),
        ];
        for (how, run) in others {
            match (&one, &timed(how, run)) {
                (Ok(a), Ok(b)) => {
                    if let Some(d) = common::first_difference(a, b, "") {
                        prop_assert!(false, "run {how} it differs from one thread at {d}\n{context}");
                    }
                }
                (a, b) => prop_assert_eq!(a.as_ref().err(), b.as_ref().err(), "run {}\n{}", how, context),
            }
        }
    }
}
