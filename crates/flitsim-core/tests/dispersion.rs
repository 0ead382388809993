//! Adaptive and probing adaptive dispersion at the NIC on a Clos (Geoffray and Hoefler,
//! sections 4.2-4.3), under the eBB benchmark's ping-ping: without contention the NIC
//! keeps its static route; with it, probing converges to better routes than random
//! oblivious routing, and every message is reassembled.

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::sim::Simulation;

fn run(toml: &str) -> Report {
    let cfg = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    Simulation::run_spec(cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// A Clos of 16-port crossbars (8 nodes and 8 up links per leaf) of Myrinet-like
/// crossbars: wormhole on one VC, input buffers of one 16-flit packet, the route symbol
/// read without a routing or VC-allocation stage (so packets follow each other without a
/// bubble); every node streams 8 KiB messages to its peer.
fn clos(nodes: u32, selection: &str, pattern: &str) -> String {
    format!(
        "seed = 11\n[topology]\ntype = \"clos\"\nradix = 16\nstages = 3\nnodes = {nodes}\n\
         [router]\nvcs = 1\nbuffer_depth = 16\nrouting_delay = 0\nvc_alloc_delay = 0\n[routing]\ntype = \"updown\"\nselection = \"{selection}\"\n\
         [channel]\nflit_bytes = 16\n[traffic]\npattern = {pattern}\ninjection = {{ type = \"backlogged\" }}\n\
         message = {{ bytes = 8192, mtu = 256, per_source = 6 }}\n[sim]\nwarmup = 0\nmeasure = 1000000\nuntil_done = true\n"
    )
}

/// The bridge pattern pairs node q of leaf 2i with node q of leaf 2i + 1:
/// destination-mod-k gives the 8 nodes of a leaf the 8 different up links (spine q), and
/// each down link carries one flow, so nothing contends.
/// Then the adaptive schemes never sense back-pressure and behave as static routing.
#[test]
fn without_contention_the_nic_keeps_its_static_route() {
    let shift = "{ type = \"bridge\", per_switch = 8 }";
    let base = run(&clos(32, "static", shift));
    for sel in ["adaptive", "probing"] {
        let r = run(&clos(32, sel, shift));
        let d = r.dispersion.expect("dispersion counters");
        assert_eq!((d.blocked_packets, d.route_changes, d.probes), (0, 0, 0), "{sel}");
        assert_eq!(r.cycles, base.cycles, "{sel}");
        assert_eq!(r.counters.packets_reordered, 0, "{sel}");
    }
}

/// Random bisections of 64 nodes: probing finds uncontended routes, so its mean flow
/// bandwidth beats random oblivious routing's (the paper's Figures 2-5), and it settles:
/// far fewer route changes than adaptive dispersion's.
#[test]
fn probing_beats_random_oblivious_and_settles() {
    let (mut probing, mut random, mut adaptive_changes, mut probing_changes) = (0.0, 0.0, 0, 0);
    for index in 0..3 {
        let pattern = format!("{{ type = \"random_bisection\", index = {index} }}");
        let p = run(&clos(64, "probing", &pattern));
        let a = run(&clos(64, "adaptive", &pattern));
        let r = run(&clos(64, "random", &pattern));
        for x in [&p, &a, &r] {
            let m = x.messages.as_ref().unwrap();
            assert_eq!((m.delivered, m.incomplete), (64 * 6, 0));
        }
        probing += p.messages.unwrap().flow_bandwidth.mean;
        random += r.messages.unwrap().flow_bandwidth.mean;
        adaptive_changes += a.dispersion.unwrap().route_changes;
        probing_changes += p.dispersion.unwrap().route_changes;
        assert!(p.dispersion.unwrap().probes > 0);
    }
    assert!(probing > 1.1 * random, "probing {probing} vs random {random}");
    assert!(probing_changes * 2 < adaptive_changes, "probing {probing_changes} vs adaptive {adaptive_changes} changes");
}

#[test]
fn dispersion_is_deterministic_and_checked() {
    let pattern = "{ type = \"random_bisection\", index = 7 }";
    let a = serde_json::to_string(&run(&clos(32, "probing", pattern))).unwrap();
    let b = serde_json::to_string(&run(&clos(32, "probing", pattern))).unwrap();
    assert_eq!(a, b);
    let bad = |extra: &str| {
        let toml = clos(32, "static", pattern).replace("selection = \"static\"\n", extra);
        Config::from_toml(&toml, &[]).and_then(|c| c.validate()).unwrap_err().to_string()
    };
    assert!(bad("selection = \"static\"\nthreshold = 4\n").contains("routing.selection"));
    assert!(bad("selection = \"adaptive\"\nprobe_limit = 4\n").contains("routing.probe_limit"));
    assert!(bad("selection = \"probing\"\nprobability = 2\n").contains("routing.probability"));
}

/// Probes and their replies are real one-flit packets: with check mode on (flit and
/// credit conservation every cycle) every injected flit is a data flit (64 nodes x 6
/// messages x 32 packets x 16 flits), a probe or a reply, every probe is answered by one
/// reply, and neither is traffic: they are counted in no packet total.
#[test]
fn probes_are_one_flit_packets_outside_the_traffic() {
    let toml = clos(64, "probing", "{ type = \"random_bisection\", index = 1 }")
        .replace("until_done = true\n", "until_done = true\ncheck = true\n");
    let r = run(&toml);
    let d = r.dispersion.unwrap();
    assert!(d.probes > 0);
    let data_flits = 64 * 6 * 32 * 16;
    // The run ends only when no packet is left, probes and replies included.
    assert_eq!(d.replies, d.probes, "{d:?}");
    // The answer is a round trip: no shorter than a one-flit packet's zero-load latency
    // between leaves, out and back. Every such route crosses h = 2 switch-to-switch
    // links and 3 switches; by the closed form of tests/engine_invariants.rs,
    // T(h) = il + el + (h + 1)(rd + vd + sd + st) + h lat = 1 + 1 + 3 (0 + 0 + 1 + 1) + 2 = 10.
    let one_way = 10;
    assert!(d.answers > 0 && d.round_trip_cycles >= d.answers * 2 * one_way, "{d:?}, one way {one_way}");
    assert_eq!(r.counters.flits_injected, data_flits + d.probes + d.replies);
    assert_eq!(r.counters.flits_ejected, r.counters.flits_injected);
    assert_eq!((r.counters.packets_created, r.counters.packets_delivered), (64 * 6 * 32, 64 * 6 * 32));
    assert!(d.probes_free <= d.probes && d.route_changes <= d.probes_free + d.forced);
}
