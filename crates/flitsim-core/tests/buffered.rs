//! The buffered-crossbar (SeaStar) router against numbers derived independently: the
//! zero-load latency closed form, the geometric shares of round-robin merging (the
//! paper's Figure 4a), conservation in check mode, determinism, the performance
//! counters' own identities, and no starvation under any AGE_RR_SELECT mask and age
//! clock period.

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::sim::Simulation;
use proptest::prelude::*;

fn run(toml: &str, set: &[&str]) -> Report {
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    let cfg = Config::from_toml(toml, &set).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let spec = cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"));
    Simulation::run_spec(spec).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// Tornado on an 8x8 torus: every packet goes 3 hops in x and 3 in y (h = 6).
const TORNADO: &str = r#"
[topology]
type = "torus"
dims = [8, 8]
[router]
type = "buffered_crossbar"
[routing]
classes = 2
[traffic]
load = 0.002
pattern = { type = "tornado" }
packet_size = 9
[sim]
warmup = 200
measure = 4000
check = true
"#;

#[test]
fn zero_load_latency_is_the_closed_form() {
    // A head reaching a router at t is routed at t + rd, crosses, is visible in staging
    // xd cycles after crossing, is granted then and reaches the far end od + L later.
    // Over h hops plus the ejecting router, injection and ejection channels Le, and the
    // S - 1 flits behind the head:
    //   T = Le + (h + 1)(rd + xd) + h (od + L) + od + Le + (S - 1).
    for (rd, xd, od, l, s) in [(1u64, 1u64, 1u64, 1u64, 9u64), (0, 2, 3, 2, 4), (2, 0, 1, 1, 1)] {
        let h = 6;
        let le = 1;
        let expect = le + (h + 1) * (rd + xd) + h * (od + l) + od + le + (s - 1);
        let set = [
            format!("router.routing_delay={rd}"),
            format!("router.crossbar_delay={xd}"),
            format!("router.output_delay={od}"),
            format!("channel.latency={l}"),
            format!("traffic.packet_size={s}"),
        ];
        let set: Vec<&str> = set.iter().map(|s| s.as_str()).collect();
        let r = run(TORNADO, &set);
        assert_eq!(r.stats.avg_hops, 6.0);
        assert_eq!(r.stats.network_latency.min, expect, "rd {rd} xd {xd} od {od} L {l} S {s}");
        assert_eq!(r.stats.network_latency.p50, expect, "rd {rd} xd {xd} od {od} L {l} S {s}");
    }
}

/// The paper's Figure 4(a): P0..P6 on an 8-ary 1-mesh all send to P7.
const MERGE: &str = r#"
[topology]
type = "mesh"
dims = [8]
[router]
type = "buffered_crossbar"
vcs = 1
routing_delay = 0
[traffic]
load = 1.0
pattern = { type = "merge_to_one", dest = 7 }
packet_size = 1
[sim]
warmup = 3000
measure = 32000
drain_limit = 0
"#;

#[test]
fn round_robin_merging_gives_geometric_shares() {
    // Each router's output toward P7 alternates between its processor port and the
    // through traffic: P6 gets 1/2, P5 1/4, ..., P1 and P0 1/64 each.
    let r = run(MERGE, &[]);
    let v = &r.stats.per_source.values;
    let expect = [1.0 / 64.0, 1.0 / 64.0, 1.0 / 32.0, 1.0 / 16.0, 1.0 / 8.0, 1.0 / 4.0, 1.0 / 2.0];
    for (i, e) in expect.iter().enumerate() {
        assert!((v[i] - e).abs() < 0.002, "P{i}: {} vs {e}", v[i]);
    }
}

#[test]
fn a_slow_processor_port_delivers_its_rate() {
    // Saturated merging into P7: whatever the packet size, P7's processor port delivers
    // eject_rate flits per cycle in all, shared in the same geometric shares.
    for (rate, size) in [(0.5, 1), (0.42, 1), (0.42, 9), (0.25, 4)] {
        let set = [format!("router.eject_rate={rate:?}"), format!("traffic.packet_size={size}")];
        let r = run(MERGE, &set.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        let v = &r.stats.per_source.values;
        let total: f64 = v.iter().sum();
        assert!((total - rate).abs() < 0.002, "rate {rate}, {size}-flit packets: {total}");
        assert!((v[6] / total - 0.5).abs() < 0.01, "rate {rate}: P6 share {}", v[6] / total);
    }
    // At zero load a packet's S flits leave the last router 1 / rate cycles apart
    // instead of one per cycle: (S - 1)(1 / rate - 1) cycles later than the closed form
    // of the test above (rd = xd = od = L = Le = 1, h = 6, S = 9).
    let expect = 1 + 7 * 2 + 6 * 2 + 1 + 1 + 8;
    for (rate, extra) in [(1.0, 0), (0.5, 8), (0.25, 24)] {
        let r = run(TORNADO, &[&format!("router.eject_rate={rate:?}")]);
        assert_eq!(r.stats.network_latency.min, expect + extra, "rate {rate}");
    }
}

#[test]
fn age_based_merging_is_fairer_than_round_robin() {
    // Jain's index of the geometric shares above is 0.428; oldest-first arbitration with
    // a clock fast enough to tell ages apart serves the far sources much more.
    let rr = run(MERGE, &[]);
    let age = run(MERGE, &["router.age_rr_select=\"0xffffffffffffffff\"", "router.age_clock_period=8"]);
    assert!((rr.stats.per_source.jain - 0.428).abs() < 0.01, "{}", rr.stats.per_source.jain);
    assert!(age.stats.per_source.jain > 0.6, "{}", age.stats.per_source.jain);
    let (a, b) = (&age.stats.per_source.values, &rr.stats.per_source.values);
    assert!(a[0] > 4.0 * b[0] && a[6] < b[6], "age {a:?} rr {b:?}");
    // A slow clock leaves only the per-hop biases: the packets with most hops win.
    let slow = run(MERGE, &["router.age_rr_select=\"0xffffffffffffffff\"", "router.age_clock_period=4096"]);
    let s = &slow.stats.per_source.values;
    assert!(s[0] > 0.5 && s[6] < s[0] / 10.0, "{s:?}");
}

#[test]
fn mask_of_zeros_is_round_robin_whatever_the_clock() {
    let a = run(MERGE, &["router.age_clock_period=1"]);
    let b = run(MERGE, &["router.age_clock_period=4096"]);
    assert_eq!(a.stats.per_source.values, b.stats.per_source.values);
}

const UNIFORM: &str = r#"
[topology]
type = "torus"
dims = [4, 5]
[router]
type = "buffered_crossbar"
age_rr_select = "0x5555555555555555"
age_clock_period = 3
req_age_bias = [3, 1]
[routing]
classes = 2
[traffic]
load = 0.45
packet_size = { sizes = [1, 2, 5, 9], weights = [1, 1, 1, 1] }
[sim]
warmup = 500
measure = 2500
check = true
"#;

#[test]
fn check_mode_conserves_flits_and_credits() {
    // Check mode verifies flit and credit conservation every cycle (input and staging
    // buffers included); every measured packet is then delivered in the drain.
    for topo in ["type = \"torus\"\ndims = [4, 5]", "type = \"mesh\"\ndims = [3, 4]", "type = \"torus\"\ndims = [3, 2, 4]"] {
        let toml = UNIFORM.replace("type = \"torus\"\ndims = [4, 5]", topo);
        let toml = if topo.contains("3, 2, 4") { toml.replace("req_age_bias = [3, 1]", "req_age_bias = [3, 2, 1]") } else { toml };
        let r = run(&toml, &[]);
        assert_eq!(r.stats.packets_delivered, r.stats.packets_measured, "{topo}");
        assert!(r.counters.flit_traversals > r.counters.flits_ejected, "{topo}: {:?}", r.counters);
    }
}

#[test]
fn same_seed_same_bits_other_seed_other_samples() {
    let a = serde_json::to_string(&run(UNIFORM, &[])).unwrap();
    let b = serde_json::to_string(&run(UNIFORM, &[])).unwrap();
    assert_eq!(a, b);
    let c = serde_json::to_string(&run(UNIFORM, &["seed=2"])).unwrap();
    assert_ne!(a, c);
}

#[test]
fn counters_agree_with_the_traffic() {
    let r = run(UNIFORM, &[]);
    let c = r.router_counters.as_ref().expect("buffered routers report counters");
    // Every packet received on a processor port was injected; the window's packets per
    // port add up over the network ports to the hops taken (plus edge effects of the
    // window, so compare totals over input ports with the hop counters of the outputs).
    let received: u64 = c.ports.iter().flat_map(|p| p.vc_pkts.iter()).sum();
    let handed: u64 = c.ports.iter().map(|p| p.age_groups.iter().sum::<u64>()).sum();
    let hops: u64 = c.queueing.iter().map(|q| q.hops).sum();
    assert_eq!(handed, hops, "every hand-off is one counted hop");
    // Packets received and handed off in the same window differ only by those inside
    // routers at the window's edges: a few per router.
    let routers = 20;
    assert!(received.abs_diff(handed) <= 2 * 4 * 5 * routers, "{received} vs {handed}");
    // Flits per VC: each packet is 1..9 flits.
    for p in &c.ports {
        for v in 0..p.vc_pkts.len() {
            assert!(p.vc_flits[v] >= p.vc_pkts[v] && p.vc_flits[v] <= 9 * p.vc_pkts[v] + 9, "{p:?}");
        }
        // Synthetic sources inject requests only: the response VCs stay empty.
        assert_eq!(p.vc_pkts[2] + p.vc_pkts[3], 0, "{p:?}");
        assert!(p.stalled <= p.vc_blocked.iter().sum::<u64>(), "a stalled cycle has a blocked VC: {p:?}");
    }
}

const STARVE: &str = r#"
[topology]
type = "mesh"
dims = [5]
[router]
type = "buffered_crossbar"
vcs = 1
buffer_depth = 12
staging_depth = 9
[traffic]
pattern = { type = "merge_to_one", dest = 4 }
packet_size = { sizes = [1, 2, 5, 9], weights = [1, 1, 1, 1] }
phases = [{ duration = 1500, load = 1.0 }, { duration = 100, load = 0.0 }]
[sim]
warmup = 100
measure = 1400
drain_limit = 200000
"#;

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// No packet starves: after a saturated phase the sources stop, and every packet
    /// in the network leaves. A packet in the network never waits longer than it takes
    /// the bottleneck to deliver every flit the network can hold, times the ports it
    /// can lose to at each grant (a generous bound, but finite: starvation breaks it).
    /// The timestamp wraps, so epochs switch (and may be inhibited) in the 1,600-cycle
    /// run, only for periods of at most 6 (256 x 6 < 1,600): a third of the cases draw
    /// from those.
    #[test]
    fn no_packet_starves(mask in any::<u64>(), period in prop_oneof![1u32..=6, 7u32..64, Just(4096u32)]) {
        let set = [format!("router.age_rr_select=\"{mask:#x}\""), format!("router.age_clock_period={period}")];
        let set: Vec<&str> = set.iter().map(|s| s.as_str()).collect();
        let r = run(STARVE, &set);
        prop_assert_eq!(r.stats.packets_delivered, r.stats.packets_measured);
        // 5 routers x 3 ports x (12 input + 3 x 9 staging) flits.
        let capacity = 5 * 3 * (12 + 3 * 9);
        prop_assert!(r.stats.network_latency.max <= 3 * capacity as u64, "max {} mask {mask:#x} period {period}", r.stats.network_latency.max);
        prop_assert!(r.stats.per_source.values[..4].iter().all(|&v| v > 0.0), "{:?}", r.stats.per_source.values);
    }
}

#[test]
fn seastar_preset_builds_the_xt3() {
    let text = include_str!("../../../presets/seastar-xt3.toml");
    let spec = Config::from_toml(text, &[]).unwrap().validate().unwrap();
    assert_eq!(spec.topology.num_nodes, 11 * 12 * 16);
    let sim = Simulation::new(spec).unwrap();
    match &sim.routers {
        flitsim_core::router::Routers::Buffered(r) => {
            assert_eq!((r.ports, r.vcs, r.depth, r.staging_depth, r.max_packet), (7, 4, 96, 16, 9));
            assert_eq!(r.config().age_clock_period, 0x1000);
        }
        other => panic!("expected SeaStar routers, got {other:?}"),
    }
}
