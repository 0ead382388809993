//! The central-arbiter router with minimal adaptive routing: zero-load latency closed
//! form, minimality, deadlock freedom under Duato avoidance and Disha recovery (and a
//! deadlock without them), the escape network's channel dependency check, config errors.

use flitsim_core::config::{Config, Spec};
use flitsim_core::report::Report;
use flitsim_core::sim::Simulation;
use flitsim_core::Error;

fn spec(toml: &str) -> Spec {
    let cfg = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

fn run(toml: &str) -> Result<Report, Error> {
    Simulation::run_spec(spec(toml))
}

fn net(dims: &str, routing: &str, traffic: &str, sim: &str) -> String {
    format!(
        "[topology]\ntype = \"torus\"\ndims = {dims}\n\
         [router]\ntype = \"central\"\n\
         [routing]\ntype = \"adaptive\"\n{routing}\n\
         [traffic]\n{traffic}\n\
         [sim]\n{sim}\n"
    )
}

/// Zero load: a head waits `routing_delay` (1) after arriving, crosses the crossbar (1)
/// and the link (1); so with endpoint channels of 1 cycle a 16-flit packet over `h`
/// router hops takes T(h) = 2 + 2 (h + 1) + h + 15 = 3h + 19 cycles, tail included. At
/// this load nearly no packet meets another: the minimum is T(0) and the mean is
/// T(mean hops) within a fraction of a percent; every route is minimal.
#[test]
fn zero_load_latency_is_the_closed_form_and_routes_are_minimal() {
    for routing in ["deadlock = \"avoidance\"", "deadlock = \"recovery\""] {
        let toml =
            net("[8, 8]", routing, "load = 0.002\npacket_size = 16", "check = true\nwarmup = 100\nmeasure = 20000\ndrain_limit = 2000");
        let r = run(&toml).unwrap();
        let s = &r.stats;
        assert!(s.packets_delivered > 100 && s.packets_delivered == s.packets_measured, "{routing}: {s:?}");
        let t = |h: f64| 3.0 * h + 19.0;
        assert_eq!(s.network_latency.min as f64, t(0.0), "{routing}");
        assert!(
            s.network_latency.mean >= t(s.avg_hops) - 1e-9 && s.network_latency.mean <= t(s.avg_hops) * 1.005,
            "{routing}: mean {} vs {}",
            s.network_latency.mean,
            t(s.avg_hops)
        );
        // Uniform over an 8x8 torus, a node to itself included: 2 x 2 = 4 hops on average;
        // adaptive routing is minimal, so the measured mean is near it (sampling only).
        assert!((s.avg_hops - 4.0).abs() < 0.15, "{routing}: avg hops {}", s.avg_hops);
    }
}

/// Saturating load on a small torus, every source sending 40 packets, then a drain: with
/// Duato's escape VC (mesh or dateline escape) or Disha recovery every packet arrives
/// (check mode verifies flit and credit conservation every cycle, and that recoveries
/// are serialized: one packet on the deadlock-buffer lanes, only while it holds the
/// token).
#[test]
fn heavy_load_drains_completely_with_avoidance_and_recovery() {
    for routing in
        ["deadlock = \"avoidance\"", "deadlock = \"avoidance\"\nescape = \"dateline_dor\"\n[router.x]", "deadlock = \"recovery\""]
    {
        let (routing, vcs) = match routing.split_once("\n[router.x]") {
            Some((r, _)) => (r, 4),
            None => (routing, 3),
        };
        let toml = net(
            "[4, 4]",
            routing,
            "load = 1.0\npacket_size = 16\npackets_per_source = 40",
            "check = true\nwarmup = 0\nmeasure = 4000\ndrain_limit = 200000",
        )
        .replace("type = \"central\"", &format!("type = \"central\"\nvcs = {vcs}"));
        let r = run(&toml).unwrap_or_else(|e| panic!("{routing}: {e}"));
        assert_eq!(r.counters.packets_created, 16 * 40, "{routing}");
        assert_eq!(r.counters.packets_delivered, r.counters.packets_created, "{routing}: {:?}", r.counters);
        assert_eq!(r.counters.flits_ejected, r.counters.flits_injected);
        let c = r.central.expect("central counters");
        if routing.contains("recovery") {
            assert!(c.recoveries > 0 && c.escape_allocations == 0, "{c:?}");
            assert!(
                c.deadlock_buffer_flits >= 16 * c.recoveries,
                "every recovering packet crosses at least one router on the deadlock buffers: {c:?}"
            );
        } else {
            assert!(c.escape_allocations > 0 && c.recoveries == 0, "{c:?}");
        }
    }
}

/// One fully adaptive VC on an 8-ary 2-cube at saturating load: with a time-out no header
/// reaches, nothing breaks the cycles and the watchdog reports a deadlock; with Disha's
/// 8-cycle time-out the same network delivers every packet.
#[test]
fn fully_adaptive_deadlocks_without_recovery_and_drains_with_disha() {
    let toml = |timeout: u32, traffic: &str| {
        net(
            "[8, 8]",
            &format!("deadlock = \"recovery\"\ntimeout = {timeout}"),
            traffic,
            "warmup = 0\nmeasure = 3000\ndrain_limit = 400000\nwatchdog = 2000",
        )
        .replace("type = \"central\"", "type = \"central\"\nvcs = 1")
    };
    match run(&toml(65535, "load = 1.0\npacket_size = 16")) {
        Err(Error::Deadlock { .. }) => {}
        other => panic!("expected a deadlock, got {:?}", other.map(|r| r.counters)),
    }
    let r = run(&toml(8, "load = 1.0\npacket_size = 16\npackets_per_source = 20")).unwrap();
    assert_eq!(r.counters.packets_delivered, 64 * 20, "{:?}", r.counters);
    assert!(r.central.unwrap().recoveries > 0);
}

/// The deterministic part of adaptive routing (the escape network, the recovery path)
/// through the channel dependency check: acyclic and connected on a 16-ary 2-cube.
/// Dimension-order routing on one VC with the wrap-around channels is cyclic: why the
/// one-VC escape network avoids them.
#[test]
fn escape_networks_are_acyclic() {
    use flitsim_core::routing::cdg;
    for (escape, vcs) in [("mesh_dor", 3), ("dateline_dor", 4)] {
        let s = spec(
            &net("[16, 16]", &format!("escape = \"{escape}\""), "load = 0.1\npacket_size = 16", "")
                .replace("type = \"central\"", &format!("type = \"central\"\nvcs = {vcs}")),
        );
        let rep = cdg::check(&s.routing, &s.topology, vcs + 1);
        assert!(rep.acyclic && rep.unreachable_pairs == 0, "{escape}: {:?}", rep.cycle);
    }
    let dor = spec("[topology]\ntype = \"torus\"\ndims = [16, 16]\n[router]\nvcs = 1\n[routing]\ndatelines = false\n");
    assert!(!cdg::check(&dor.routing, &dor.topology, 1).acyclic);
}

#[test]
fn config_errors_name_the_field_and_the_fix() {
    let cases = [
        // The central router needs adaptive routing, and adaptive routing the central router.
        ("[topology]\ntype = \"torus\"\ndims = [4, 4]\n[router]\ntype = \"central\"\n", "routing.type", "adaptive"),
        ("[topology]\ntype = \"torus\"\ndims = [4, 4]\n[routing]\ntype = \"adaptive\"\n", "router.type", "central"),
        // Avoidance needs an adaptive VC beside the escape VC(s).
        ("[topology]\ntype = \"torus\"\ndims = [4, 4]\n[router]\ntype = \"central\"\nvcs = 2\n[routing]\ntype = \"adaptive\"\nescape = \"dateline_dor\"\n", "router.vcs", "vcs >= 3"),
        ("[topology]\ntype = \"torus\"\ndims = [4, 4]\n[router]\ntype = \"central\"\n[routing]\ntype = \"adaptive\"\ntimeout = 0\n", "routing.timeout", "1..=65535"),
        ("[topology]\ntype = \"torus\"\ndims = [4, 4]\n[router]\ntype = \"central\"\nheaders_per_cycle = 0\n[routing]\ntype = \"adaptive\"\n", "router.headers_per_cycle", "1"),
    ];
    for (toml, field, fix) in cases {
        let err = Config::from_toml(toml, &[]).and_then(|c| c.validate().map(|_| ())).expect_err(toml).to_string();
        assert!(err.contains(field) && err.contains(fix), "{toml}\n-> {err}");
    }
}

fn tpds(set: &[&str]) -> Report {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments/self-tuned-congestion/base.toml")).unwrap();
    let mut over: Vec<String> = vec!["sim.warmup=1000".into(), "sim.measure=5000".into()];
    over.extend(set.iter().map(|s| s.to_string()));
    let cfg = Config::from_toml(&text, &over).unwrap_or_else(|e| panic!("{e}"));
    Simulation::run_spec(cfg.validate().unwrap()).unwrap()
}

/// A static threshold no estimate can exceed (all 3,072 buffers) never throttles: the
/// run is identical, flit for flit, to one without congestion control. A threshold of
/// 0 beyond saturation throttles, and the sources hold back packets.
#[test]
fn static_threshold_throttles_only_above_the_threshold() {
    let over = ["traffic.load=0.8", "routing.deadlock=\"recovery\""];
    let none = tpds(&over);
    let never = tpds(&[over[0], over[1], "congestion.policy=\"static\"", "congestion.threshold=3072"]);
    assert_eq!(none.counters, never.counters);
    assert_eq!(never.congestion.as_ref().unwrap().cycles_throttled, 0);
    assert_eq!(never.congestion.as_ref().unwrap().total_buffers, 3072);
    let zero = tpds(&[over[0], over[1], "congestion.policy=\"static\"", "congestion.threshold=0"]);
    let c = zero.congestion.as_ref().unwrap();
    assert!(c.cycles_throttled > 1000, "{}", c.cycles_throttled);
    // Holding sources while any buffer is full keeps the network far emptier than the
    // unthrottled run (whose full-buffer counts the never-throttling trace records).
    let mean_full = |r: &Report| {
        let t = &r.congestion.as_ref().unwrap().trace;
        t.iter().map(|e| e.full as f64).sum::<f64>() / t.len() as f64
    };
    assert!(mean_full(&zero) < 0.5 * mean_full(&never), "{} vs {}", mean_full(&zero), mean_full(&never));
}

/// ALO never holds a source whose useful output ports are idle: at a load where packets
/// rarely meet the run is identical to one without congestion control. Beyond saturation
/// ALO holds sources back, and fewer flits sit in the network at the end.
#[test]
fn alo_holds_sources_only_when_their_useful_channels_are_busy() {
    let low = ["traffic.load=0.004"];
    assert_eq!(tpds(&low).counters, tpds(&[low[0], "congestion.policy=\"alo\""]).counters);
    let hi = ["traffic.load=0.8", "routing.deadlock=\"recovery\""];
    let (none, alo) = (tpds(&hi), tpds(&[hi[0], hi[1], "congestion.policy=\"alo\""]));
    let in_network = |r: &Report| r.counters.flits_injected - r.counters.flits_ejected;
    assert!(in_network(&alo) < in_network(&none), "{} vs {}", in_network(&alo), in_network(&none));
}

/// What ALO counts as a free VC decides whether it keeps Disha recovery out of deadlock
/// beyond saturation: counting a VC free once its last packet's tail has left (the
/// default) admits packets the network then deadlocks on, and throughput collapses to
/// Base's as in the paper's Figs. 4a and 9a; waiting for the downstream buffer to drain
/// as well holds throughput near the peak. The drained test is the stricter: at every
/// router it allows no more than the other.
#[test]
fn alo_under_recovery_collapses_when_vcs_are_free_at_the_tail() {
    let hi = ["traffic.load=0.8", "routing.deadlock=\"recovery\"", "congestion.policy=\"alo\""];
    let (unassigned, drained) = (tpds(&hi), tpds(&[hi[0], hi[1], hi[2], "congestion.alo_free=\"drained\""]));
    let base = tpds(&hi[..2]);
    let (u, d, b) = (unassigned.stats.accepted.mean, drained.stats.accepted.mean, base.stats.accepted.mean);
    assert!(b < 0.05 && u < 0.05, "Base {b} and ALO (unassigned) {u} collapse beyond saturation");
    assert!(d > 0.25, "ALO (drained) holds throughput: {d}");
    let e = Config::from_toml("[congestion]\npolicy = \"tune\"\nalo_free = \"drained\"\n", &[])
        .unwrap()
        .validate()
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("congestion.alo_free"), "{e}");
}

/// The self-tuned threshold holds throughput beyond saturation where the network without
/// congestion control collapses (the paper's Figure 4 in miniature), and the tuner runs
/// once per 96-cycle tuning period with the paper's increment 30 and decrement 122.
#[test]
fn tune_holds_throughput_beyond_saturation() {
    let hi = ["traffic.load=0.8", "routing.deadlock=\"recovery\""];
    let (none, tune) = (tpds(&hi), tpds(&[hi[0], hi[1], "congestion.policy=\"tune\""]));
    assert!(
        tune.stats.accepted.mean > 2.0 * none.stats.accepted.mean,
        "tune {} base {}",
        tune.stats.accepted.mean,
        none.stats.accepted.mean
    );
    let c = tune.congestion.unwrap();
    assert_eq!((c.increment, c.decrement, c.gather, c.tuning_period), (30, 122, 32, 96));
    assert_eq!(c.trace.len() as u64, tune.cycles / 96);
}

/// A one-packet source queue never holds more than one packet per source.
#[test]
fn source_queue_bounds_the_queue() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments/self-tuned-congestion/base.toml")).unwrap();
    let cfg = Config::from_toml(&text, &["traffic.load=0.9".into()]).unwrap();
    let mut sim = Simulation::new(cfg.validate().unwrap()).unwrap();
    for _ in 0..40 {
        sim.run_cycles(100).unwrap();
        assert!(sim.endpoints.queued() <= 256, "{}", sim.endpoints.queued());
    }
    assert!(sim.counters.packets_suppressed > 0);
}
