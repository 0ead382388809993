//! Unit tests of the workload: phases, injection, sizes, budgets and exchanges.

use super::*;
use crate::rng::{domain, stream};

fn parse(s: &str) -> TrafficConfig {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Root {
        traffic: TrafficConfig,
    }
    toml::from_str::<Root>(s).unwrap().traffic
}

fn build_err(cfg: &TrafficConfig, space: &NodeSpace, path: &str, phrase: &str) {
    let e = Workload::build(cfg, space, 1).unwrap_err();
    assert_eq!(e.path(), Some(path), "{e}");
    assert!(e.to_string().contains(phrase), "`{e}` lacks `{phrase}`");
}

#[test]
fn defaults() {
    assert_eq!(parse("[traffic]"), TrafficConfig::default());
    let w = Workload::build(&TrafficConfig::default(), &NodeSpace::cube(&[4, 4], 1), 1).unwrap();
    assert_eq!(w.phases(), &[PhaseInfo { start: 0, end: u64::MAX, load: 0.3 }]);
    assert_eq!(w.phase_at(0), Some(0));
    assert_eq!(w.phase_at(u64::MAX - 1), Some(0));
    assert_eq!(w.size().mean(), 1.0);
    assert_eq!(w.offered_load(0), 0.3);
}

#[test]
fn full_config_parses() {
    let cfg = parse(
        r#"
        [traffic]
        load = 0.3
        pattern = { type = "hotspot", nodes = [3], fraction = 0.1 }
        injection = { type = "on_off", burst_length = 16, peak = 0.9 }
        packet_size = { sizes = [1, 5], weights = [0.5, 0.5] }
        [[traffic.phases]]
        duration = 100
        load = 0.2
        [[traffic.phases]]
        duration = 50
        load = 0.4
        pattern = { type = "transpose" }
        "#,
    );
    assert_eq!(cfg.injection, InjectionConfig::OnOff { burst_length: 16.0, peak: 0.9 });
    assert_eq!(cfg.phases[1].pattern, Some(PatternConfig::Transpose));
    assert_eq!(cfg.phases[0].pattern, None);
    let w = Workload::build(&cfg, &NodeSpace::cube(&[4, 4], 1), 7).unwrap();
    assert_eq!(w.size().mean(), 3.0);
    assert_eq!(w.phases(), &[PhaseInfo { start: 0, end: 100, load: 0.2 }, PhaseInfo { start: 100, end: 150, load: 0.4 }]);
    assert_eq!(w.offered_load(1), 0.4);
}

#[test]
fn config_round_trips_through_toml() {
    #[derive(Deserialize, Serialize, Debug, PartialEq)]
    struct Root {
        traffic: TrafficConfig,
    }
    let cfg = TrafficConfig {
        load: 0.25,
        pattern: PatternConfig::RandomPermutation { seed: None },
        injection: InjectionConfig::OnOff { burst_length: 4.0, peak: 1.0 },
        packet_size: PacketSizeConfig::Distribution { sizes: vec![1, 8], weights: vec![3.0, 1.0] },
        phases: vec![PhaseConfig { duration: 9, load: 0.5, pattern: Some(PatternConfig::Uniform) }],
        packets_per_source: Some(14),
        source_queue: Some(1),
        message: Some(super::MessageConfig { bytes: 1 << 20, mtu: Some(4096), header_flits: 1, per_source: Some(50), exchange: true }),
        trace: Some(super::TraceConfig {
            file: None,
            messages: vec![super::trace::MessageSpec { src: 1, dst: 2, flits: 3, at: 4, after: vec![5, 6], delay: 7 }],
            packet_flits: 8,
            format: super::app::TraceFormat::Ranks,
            placement: super::app::placement::Placement::File("ranks.map".into()),
            compute_scale: 0.5,
            collectives: super::app::CollectiveAlgorithms { alltoall: Some("bruck".into()), ..Default::default() },
        }),
    };
    let root = Root { traffic: cfg };
    let text = toml::to_string_pretty(&root).unwrap();
    assert_eq!(toml::from_str::<Root>(&text).unwrap(), root, "{text}");
}

#[test]
fn parse_errors_carry_the_key_path() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Root {
        traffic: TrafficConfig,
    }
    let path_of = |s: &str| {
        let de = toml::Deserializer::parse(s).unwrap();
        serde_path_to_error::deserialize::<_, Root>(de).unwrap_err().path().to_string()
    };
    // Tagged tables are deserialized in a nested pass: serde's own path stops at the
    // table and the rest of the path rides at the front of the message, which
    // `Config::from_table` joins on (`traffic.pattern.nodes[0]`; see
    // `config::deserialize_tagged`).
    assert_eq!(path_of("[traffic.pattern]\ntype = \"hotspot\"\nnodes = [-1]\nfraction = 0.1"), "traffic.pattern");
    assert_eq!(path_of("[[traffic.phases]]\nduration = 1\nload = \"x\""), "traffic.phases[0].load");
    assert_eq!(path_of("[traffic]\npacket_size = { sizes = [1], weights = [1], z = 1 }"), "traffic.packet_size.z");
}

#[test]
fn unknown_keys_are_rejected() {
    let bad = |s: &str| {
        #[derive(Deserialize, Debug)]
        #[allow(dead_code)]
        struct Root {
            traffic: TrafficConfig,
        }
        assert!(toml::from_str::<Root>(s).is_err(), "{s}");
    };
    bad("[traffic]\nrate = 0.1");
    bad("[[traffic.phases]]\nduration = 1\nload = 0.1\ncycles = 3");
    bad("[[traffic.phases]]\nload = 0.1");
}

#[test]
fn phase_schedule_and_generation() {
    let space = NodeSpace::cube(&[4, 4], 1);
    let cfg = TrafficConfig {
        pattern: PatternConfig::BitComplement,
        phases: vec![
            PhaseConfig { duration: 10, load: 1.0, pattern: None },
            PhaseConfig { duration: 5, load: 0.0, pattern: None },
            PhaseConfig { duration: 10, load: 1.0, pattern: Some(PatternConfig::MergeToOne { dest: 2 }) },
        ],
        ..TrafficConfig::default()
    };
    let w = Workload::build(&cfg, &space, 3).unwrap();
    assert_eq!(w.phase_at(9), Some(0));
    assert_eq!(w.phase_at(10), Some(1));
    assert_eq!(w.phase_at(15), Some(2));
    assert_eq!(w.phase_at(24), Some(2));
    assert_eq!(w.phase_at(25), None);
    let mut rng = stream(3, domain::ENDPOINT, 5);
    let mut st = w.new_source_state(5, &mut rng);
    let mut out = Vec::new();
    let mut cycle = 0;
    while let Some(ph) = w.phase_at(cycle) {
        out.push(w.generate(0, ph, 5, &mut st, &mut rng));
        cycle += 1;
    }
    assert_eq!(out.len(), 25);
    // Load 1 with 1-flit packets fires every cycle: bit complement of 5 is 10.
    assert!(out[..10].iter().all(|g| *g == Some((10, 1))));
    assert!(out[10..15].iter().all(|g| g.is_none()));
    assert!(out[15..].iter().all(|g| *g == Some((2, 1))));
    // Node 2 is merge_to_one's destination: it sends nothing in phase 2.
    let mut st2 = w.new_source_state(2, &mut rng);
    assert!((0..100).all(|_| w.generate(0, 2, 2, &mut st2, &mut rng).is_none()));
    assert_eq!(w.generate(0, 0, 2, &mut st2, &mut rng), Some((13, 1)));
}

#[test]
fn generated_flit_rate_matches_offered_load() {
    // 16 nodes, load 0.5, mean size 2.5: 0.2 packets/node/cycle.
    let cfg = TrafficConfig {
        load: 0.5,
        packet_size: PacketSizeConfig::Distribution { sizes: vec![1, 4], weights: vec![1.0, 1.0] },
        ..TrafficConfig::default()
    };
    let w = Workload::build(&cfg, &NodeSpace::cube(&[4, 4], 1), 1).unwrap();
    let cycles = 20_000u64;
    let mut flits = 0u64;
    for src in 0..16 {
        let mut rng = stream(1, domain::ENDPOINT, src as u64);
        let mut st = w.new_source_state(src, &mut rng);
        for c in 0..cycles {
            if let Some((d, s)) = w.generate(0, w.phase_at(c).unwrap(), src, &mut st, &mut rng) {
                assert!(d < 16);
                flits += s as u64;
            }
        }
    }
    // Per cycle per node: flits = B * S with B ~ Bernoulli(0.2), S in {1, 4}:
    // E = 0.5, E[X^2] = 0.2 * 8.5 = 1.7, var = 1.45.
    let n = 16.0 * cycles as f64;
    let sd = (n * 1.45).sqrt();
    assert!((flits as f64 - n * 0.5).abs() < 5.0 * sd, "{flits} vs {}", n * 0.5);
}

#[test]
fn validation_errors() {
    let space = NodeSpace::cube(&[8, 8], 1);
    let phase = |duration, load| PhaseConfig { duration, load, pattern: None };
    for load in [1.5, -0.1, f64::NAN] {
        let cfg = TrafficConfig { load, ..TrafficConfig::default() };
        // 1-flit packets: at most one packet, so one flit, per cycle.
        build_err(&cfg, &space, "traffic.load", "must be in [0, 1] flits/node/cycle");
    }
    // Above 1 flit/node/cycle is fine with larger packets (the paper's 16/15 with 16
    // flits), up to one packet per cycle; the excess waits in the source queue.
    for injection in [InjectionConfig::Bernoulli, InjectionConfig::Periodic] {
        let big = |load| TrafficConfig {
            load,
            injection: injection.clone(),
            packet_size: PacketSizeConfig::Fixed(16),
            ..TrafficConfig::default()
        };
        assert!(Workload::build(&big(1.5), &space, 1).is_ok());
        assert!(Workload::build(&big(16.0), &space, 1).is_ok());
        build_err(&big(16.5), &space, "traffic.load", "load 16.5 must be in [0, 16]");
        build_err(
            &big(16.5),
            &space,
            "traffic.load",
            "1 flit/node/cycle, the injection channel's bandwidth, the excess waits in the source queue",
        );
        let cfg = TrafficConfig { phases: vec![phase(10, 16.0 / 15.0), phase(10, 20.0)], ..big(0.1) };
        build_err(&cfg, &space, "traffic.phases[1].load", "load 20 must be in [0, 16]");
    }
    // On/off sources stay within the injection channel's one flit per cycle.
    let cfg = TrafficConfig {
        load: 1.5,
        injection: InjectionConfig::OnOff { burst_length: 4.0, peak: 1.0 },
        packet_size: PacketSizeConfig::Fixed(16),
        ..TrafficConfig::default()
    };
    build_err(&cfg, &space, "traffic.load", "[0, 1] flits/node/cycle: an on/off source");
    let cfg = TrafficConfig { phases: vec![phase(10, 0.1), phase(10, 1.2)], ..TrafficConfig::default() };
    build_err(&cfg, &space, "traffic.phases[1].load", "load 1.2 must be in [0, 1]");
    let cfg = TrafficConfig { phases: vec![phase(10, 0.1), phase(10, f64::NAN)], ..TrafficConfig::default() };
    build_err(&cfg, &space, "traffic.phases[1].load", "load NaN");
    let cfg = TrafficConfig { phases: vec![phase(0, 0.1)], ..TrafficConfig::default() };
    build_err(&cfg, &space, "traffic.phases[0].duration", "at least 1 cycle");
    let cfg = TrafficConfig { phases: vec![phase(u64::MAX - 5, 0.1), phase(10, 0.1)], ..TrafficConfig::default() };
    build_err(&cfg, &space, "traffic.phases[1].duration", "shorter duration");
    let cfg = TrafficConfig {
        phases: vec![PhaseConfig { duration: 5, load: 0.1, pattern: Some(PatternConfig::MergeToOne { dest: 99 }) }],
        ..TrafficConfig::default()
    };
    build_err(&cfg, &space, "traffic.phases[0].pattern.dest", "node 99 is outside");
    let cfg = TrafficConfig { pattern: PatternConfig::Hotspot { nodes: vec![70], fraction: 0.5 }, ..TrafficConfig::default() };
    build_err(&cfg, &space, "traffic.pattern.nodes", "node 70 is outside the network (nodes are 0..63)");
    let cfg = TrafficConfig { packet_size: PacketSizeConfig::Fixed(0), ..TrafficConfig::default() };
    build_err(&cfg, &space, "traffic.packet_size", "packet size 0");
    let on_off = InjectionConfig::OnOff { burst_length: 4.0, peak: 0.5 };
    let cfg = TrafficConfig { load: 0.6, injection: on_off.clone(), ..TrafficConfig::default() };
    build_err(&cfg, &space, "traffic.load", "not below the on/off peak 0.5");
    let cfg = TrafficConfig { injection: on_off, phases: vec![phase(5, 0.1), phase(5, 0.5)], ..TrafficConfig::default() };
    build_err(&cfg, &space, "traffic.phases[1].load", "larger peak");
    let cfg = TrafficConfig { injection: InjectionConfig::OnOff { burst_length: 0.0, peak: 1.0 }, ..TrafficConfig::default() };
    build_err(&cfg, &space, "traffic.injection.burst_length", ">= 1");
}

#[test]
fn packets_per_source_caps_generation_and_counts_per_source() {
    let space = NodeSpace::cube(&[2, 2], 1);
    let cfg = TrafficConfig { load: 1.0, packets_per_source: Some(3), ..TrafficConfig::default() };
    let w = Workload::build(&cfg, &space, 1).unwrap();
    for src in 0..4 {
        let mut rng = stream(1, domain::ENDPOINT, src as u64);
        let mut st = w.new_source_state(src, &mut rng);
        let made = (0..100).filter(|&c| w.generate(0, w.phase_at(c).unwrap(), src, &mut st, &mut rng).is_some()).count();
        assert_eq!(made, 3);
        assert_eq!(st.created(), 3);
    }
    let cfg = TrafficConfig { packets_per_source: Some(0), ..TrafficConfig::default() };
    build_err(&cfg, &space, "traffic.packets_per_source", "at least 1");
}

#[test]
fn recursive_doubling_waits_for_the_partners_data() {
    // 8 nodes, 2 packets per round, 3 rounds. Node 5: round 0 -> 4, round 1 -> 7,
    // round 2 -> 1; each next round only after both packets of the previous round
    // have been delivered to node 5.
    let space = NodeSpace::cube(&[8], 1);
    let cfg = TrafficConfig { load: 1.0, pattern: PatternConfig::RecursiveDoubling { packets_per_round: 2 }, ..TrafficConfig::default() };
    let w = Workload::build(&cfg, &space, 1).unwrap();
    let mut rng = stream(1, domain::ENDPOINT, 5);
    let mut st = w.new_source_state(5, &mut rng);
    let mut gen = |st: &mut SourceState| {
        (0..50).filter_map(|c| w.generate(0, w.phase_at(c).unwrap(), 5, st, &mut rng).map(|(d, _)| d)).collect::<Vec<u32>>()
    };
    assert_eq!(gen(&mut st), vec![4, 4], "round 0, then waits");
    w.delivered(0, 0, &mut st);
    assert_eq!(gen(&mut st), Vec::<u32>::new(), "one of two round-0 packets is not enough");
    w.delivered(0, 1, &mut st);
    assert_eq!(gen(&mut st), vec![7, 7], "round 1");
    // Round-2 data arriving early (from node 1, whose round 1 finished first) counts
    // for round 2, not round 1.
    w.delivered(0, 4, &mut st);
    w.delivered(0, 5, &mut st);
    assert_eq!(gen(&mut st), Vec::<u32>::new());
    w.delivered(0, 2, &mut st);
    w.delivered(0, 3, &mut st);
    assert_eq!(gen(&mut st), vec![1, 1], "round 2");
    assert_eq!(gen(&mut st), Vec::<u32>::new(), "finished after log2(8) rounds");
    assert_eq!(st.created(), 6);
    // Needs a power-of-two node count and at least one packet per round.
    build_err(&cfg, &NodeSpace::cube(&[6], 1), "traffic.pattern.type", "power-of-two node count");
    let zero = TrafficConfig { pattern: PatternConfig::RecursiveDoubling { packets_per_round: 0 }, ..cfg.clone() };
    build_err(&zero, &space, "traffic.pattern.packets_per_round", "at least one packet");
}

#[test]
fn all_to_all_in_a_phase_uses_the_run_wide_packet_count() {
    // Phase 0 (uniform, 2 packets), then phase 1 all_to_all: its first packet is the
    // source's k = 2 packet overall.
    let cfg = parse(
        r#"
        [traffic]
        load = 1.0
        packets_per_source = 6
        [[traffic.phases]]
        duration = 2
        load = 1.0
        [[traffic.phases]]
        duration = 10
        load = 1.0
        pattern = { type = "all_to_all" }
        "#,
    );
    assert_eq!(cfg.packets_per_source, Some(6));
    let w = Workload::build(&cfg, &NodeSpace::cube(&[5], 1), 1).unwrap();
    let mut rng = stream(1, domain::ENDPOINT, 1);
    let mut st = w.new_source_state(1, &mut rng);
    let out: Vec<_> = (0..12).map(|c| w.generate(0, w.phase_at(c).unwrap(), 1, &mut st, &mut rng).map(|g| g.0)).collect();
    // Source 1, k = 2..5: (1 + 1 + k mod 4) mod 5 = 4, 0, 2, 3; then the cap.
    assert_eq!(out[2..6], [Some(4), Some(0), Some(2), Some(3)]);
    assert!(out[6..].iter().all(Option::is_none));
    let e = Workload::build(&cfg, &NodeSpace::crossbar(1), 1).unwrap_err();
    assert_eq!(e.path(), Some("traffic.phases[1].pattern.type"), "{e}");
}

/// The bursty load of Thottethodi et al. (sec. 5.2.4) on 16x16 nodes with periodic
/// injection: a packet every 1,500 cycles, then every 15 (bit complement), then every
/// 1,500 again. Each phase is a whole number of intervals long, so every source creates
/// exactly 2, 100 and 2 packets in them; a burst starts within one new interval, and
/// after it the sources are still spread over the long interval.
#[test]
fn periodic_bursty_schedule_of_the_paper() {
    let cfg = parse(
        r#"
        [traffic]
        injection = { type = "periodic" }
        packet_size = 16
        [[traffic.phases]]
        duration = 3000
        load = 0.010666666666666666
        [[traffic.phases]]
        duration = 1500
        load = 1.0666666666666667
        pattern = { type = "bit_complement" }
        [[traffic.phases]]
        duration = 3000
        load = 0.010666666666666666
        "#,
    );
    assert_eq!(cfg.injection, InjectionConfig::Periodic);
    let space = NodeSpace::cube(&[16, 16], 1);
    let w = Workload::build(&cfg, &space, 1).unwrap();
    let mut first_after_burst = Vec::new();
    for src in 0..256u32 {
        let mut rng = stream(1, domain::ENDPOINT, src as u64);
        let mut st = w.new_source_state(src, &mut rng);
        let mut made: [Vec<u64>; 3] = Default::default();
        let mut cycle = 0;
        while let Some(ph) = w.phase_at(cycle) {
            if let Some((dest, size)) = w.generate(0, ph, src, &mut st, &mut rng) {
                assert_eq!(size, 16);
                if ph == 1 {
                    assert_eq!(dest, 255 - src, "bit complement");
                }
                made[ph].push(cycle);
            }
            cycle += 1;
        }
        let counts: Vec<usize> = made.iter().map(Vec::len).collect();
        assert_eq!(counts, [2, 100, 2], "source {src}");
        assert!(made[1][0] < 3000 + 15, "source {src}: burst starts at {}", made[1][0]);
        assert!(made[1].windows(2).all(|g| g[1] - g[0] == 15));
        assert_eq!(made[2][1] - made[2][0], 1500);
        first_after_burst.push(made[2][0]);
        assert_eq!(st.created(), 104);
    }
    // Not synchronised after the burst: ~236 distinct cycles expected of 256 sources.
    first_after_burst.sort_unstable();
    first_after_burst.dedup();
    assert!(first_after_burst.len() > 200, "{}", first_after_burst.len());
    assert!(first_after_burst[0] < 4500 + 50);
    assert!(*first_after_burst.last().unwrap() >= 4500 + 1450);
}
