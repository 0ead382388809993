//! The congestion estimate gathered by metapackets on the data links (Thottethodi et al.
//! section 5.3): exact zero-load gather times and link flits, the load dependence of
//! Fig. 11, the bandwidth metapackets take from data, per-router throttling, errors.

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::sim::Simulation;

/// The paper's network (experiments/self-tuned-congestion/base.toml) with metapackets,
/// 1,000 + 5,000 cycles, check mode on (flit and credit conservation every cycle, with
/// metapacket flits on the links beside the data).
fn tpds(set: &[&str]) -> Report {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../experiments/self-tuned-congestion/base.toml")).unwrap();
    let mut over: Vec<String> = vec!["sim.warmup=1000".into(), "sim.measure=5000".into(), "sim.check=true".into()];
    over.extend(set.iter().map(|s| s.to_string()));
    let cfg = Config::from_toml(&text, &over).unwrap_or_else(|e| panic!("{e}"));
    Simulation::run_spec(cfg.validate().unwrap()).unwrap()
}

const META: &str = "congestion.distribution=\"metapackets\"";

/// With no data a hop costs routing 1 + adder 1 + head and tail over crossbar 1 + link 1
/// = 5 cycles, so on a 16x16 torus a router `j` hops from its row's master and `i` from
/// its column's master completes a round `5 (max(j, 16 - j) + max(i, 16 - i)) + 1`
/// cycles after the launch (the master counts 16 hops: its packet comes back): from
/// 5 (8 + 8) + 1 = 81 to 5 (16 + 16) + 1 = 161, mean 5 (12 + 12) + 1 = 121. Every round
/// sends 2 packets round each of 16 rows and 16 columns, 16 hops of 2 flits: 2,048 flits.
#[test]
fn unloaded_gather_times_and_link_flits_are_the_closed_form() {
    let r = tpds(&["traffic.load=0", META]);
    assert_eq!(r.cycles, 6000);
    let m = r.metapackets.expect("the metapacket report");
    // Rounds launched at 0, 32, ..., 5,984; those launched from cycle 1,000 on and
    // complete by the end are measured.
    let (count, min, max, mean) = unloaded(&[16, 16], 1000, 6000, 32);
    assert_eq!((m.gather_count, m.gather_min, m.gather_max), (count, min, max));
    assert!((m.gather_mean - mean).abs() < 1e-9, "{} vs {mean}", m.gather_mean);
    assert_eq!((min, max), (81, 161));
    assert_eq!((m.abandoned, m.held, m.interval, m.flits), (0, 0, 32, 2));
    let rounds = 6000u64.div_ceil(32);
    assert_eq!(m.rounds, rounds);
    assert!(m.flits_sent <= rounds * 2048 && m.flits_sent > (rounds - 6) * 2048);
    assert_eq!(r.counters.flits_injected, 0, "metapackets are not data");
    // Over a whole round set (no cut at either end) the mean is exactly 121.
    assert_eq!(unloaded(&[16, 16], 0, 1_000_000, 1_000_000).3, 121.0);
}

/// Router-rounds launched in `[from, end)` every `interval` cycles that are complete by
/// `end` on an unloaded torus (gather times as above): (count, min, max, mean).
fn unloaded(dims: &[u32], from: u64, end: u64, interval: u64) -> (u64, u64, u64, f64) {
    let hops = |k: u32, j: u32| u64::from(if j == 0 { k } else { j.max(k - j) });
    let (mut n, mut min, mut max, mut sum) = (0, u64::MAX, 0, 0);
    for y in 0..dims[1] {
        for x in 0..dims[0] {
            let g = 5 * (hops(dims[0], x) + hops(dims[1], y)) + 1;
            let rounds = (0..end).step_by(interval as usize).filter(|&l| l >= from && l + g <= end).count() as u64;
            if rounds > 0 {
                n += rounds;
                sum += rounds * g;
                min = min.min(g);
                max = max.max(g);
            }
        }
    }
    (n, min, max, sum as f64 / n as f64)
}

/// Fig. 11: metapacket flits share each link round robin with the data VCs, so gather
/// times grow with the data load, and fall again beyond saturation where blocked data
/// leaves the links idle; the maximum stays far below the paper's 300 cycles. With
/// absolute link priority they do not depend on the load at all.
#[test]
fn gather_times_grow_with_load_and_fall_beyond_saturation() {
    let mean = |load: &str, link: &str| {
        let r = tpds(&[load, META, link]);
        let m = r.metapackets.unwrap();
        assert!(m.gather_max < 300, "{load}: max {}", m.gather_max);
        m.gather_mean
    };
    let rr = "congestion.metapacket_link=\"round_robin\"";
    let (low, mid, sat) = (mean("traffic.load=0.08", rr), mean("traffic.load=0.24", rr), mean("traffic.load=0.64", rr));
    assert!(121.0 < low && low < mid, "{low} {mid}");
    assert!(sat < mid, "saturated {sat} vs {mid}");
    // Absolute priority: exactly the unloaded gather times (no two metapackets ever
    // want the same link in the same cycle).
    let prio = tpds(&["traffic.load=0.24", META, "congestion.metapacket_link=\"priority\""]).metapackets.unwrap();
    let (count, min, max, mean) = unloaded(&[16, 16], 1000, 6000, 32);
    assert_eq!((prio.gather_count, prio.gather_min, prio.gather_max), (count, min, max));
    assert!((prio.gather_mean - mean).abs() < 1e-9);
}

/// "No tune" (metapackets gathered, nothing throttled): the metapacket flits take link
/// cycles from the data, so packets wait longer than without them at the same load,
/// and the data delivered is the same below saturation.
#[test]
fn metapackets_take_link_bandwidth_from_data() {
    let load = "traffic.load=0.16";
    let (base, no_tune) = (tpds(&[load]), tpds(&[load, META]));
    assert!(no_tune.congestion.is_none());
    assert!(
        no_tune.stats.packet_latency.mean > base.stats.packet_latency.mean,
        "{} vs {}",
        no_tune.stats.packet_latency.mean,
        base.stats.packet_latency.mean
    );
    let (a, b) = (base.stats.accepted.mean, no_tune.stats.accepted.mean);
    assert!((a - b).abs() < 0.01 * a, "{a} vs {b}");
}

/// Tune on metapacket estimates: every router throttles on its own view (router-cycles
/// throttled), and beyond saturation the throttle still holds throughput above the
/// unthrottled collapse (deadlock recovery, the paper's worst case).
#[test]
fn per_router_tuning_throttles_beyond_saturation() {
    let hi = ["traffic.load=0.8", "routing.deadlock=\"recovery\""];
    let base = tpds(&hi);
    let tune = tpds(&[hi[0], hi[1], META, "congestion.policy=\"tune\""]);
    let c = tune.congestion.as_ref().unwrap();
    assert!(c.cycles_throttled > 256 * 1000, "router-cycles throttled: {}", c.cycles_throttled);
    assert_eq!(c.trace.len() as u64, tune.cycles / 96);
    assert!(
        tune.stats.accepted.mean > 1.5 * base.stats.accepted.mean,
        "tune {} base {}",
        tune.stats.accepted.mean,
        base.stats.accepted.mean
    );
}

#[test]
fn metapackets_need_the_central_router_on_a_torus() {
    let cases = [
        ("[congestion]\ndistribution = \"metapackets\"\n", "router.type = \"central\""),
        ("[topology]\ntype = \"mesh\"\ndims = [4, 4]\n[router]\ntype = \"central\"\n[routing]\ntype = \"adaptive\"\n[congestion]\ndistribution = \"metapackets\"\n", "use a torus"),
        ("[topology]\ntype = \"torus\"\ndims = [4, 4]\n[router]\ntype = \"central\"\n[routing]\ntype = \"adaptive\"\n[congestion]\ndistribution = \"metapackets\"\nmetapacket_flits = 0\n", "1..=16"),
    ];
    for (toml, fix) in cases {
        let err = Config::from_toml(toml, &[]).and_then(|c| c.validate().map(|_| ())).expect_err(toml).to_string();
        assert!(err.contains("congestion.") && err.contains(fix), "{toml}\n-> {err}");
    }
}
