//! Fat trees in the engine (Geoffray and Hoefler, `papers/clos-adaptive-routing.txt`,
//! sections 2-5): Clos networks and k-ary n-trees as topologies, up*/down* source routes
//! carried in the packet on the input-queued router, static and random selection.
//! Expected numbers are closed forms derived here by hand, never read back from the code.

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::routing::updown::up_down_cdg;
use flitsim_core::routing::updown_net::{Selection, StaticSchemeConfig, UpDownRouting};
use flitsim_core::routing::{cdg, RoutingFunction};
use flitsim_core::sim::Simulation;
use flitsim_core::topology::{Shape, Topology, TopologyConfig};

fn clos(radix: u32, nodes: u32) -> Topology {
    Topology::build(&TopologyConfig::Clos { radix, stages: 3, nodes: Some(nodes) }, "topology").unwrap()
}

fn run(toml: &str) -> Report {
    let cfg = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    Simulation::run_spec(cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// `flitsim topo` for the 3-stage Clos of 32-port crossbars with 16 to 512 nodes (whole
/// line cards of 16): N/16 leaves and 16 spines; every leaf has one link to every spine
/// (32 N/16 unidirectional switch channels); a node reaches its 15 line-card mates in 0
/// switch hops and the other N - 16 nodes in 2, so the mean is 2(N-16)/N with a node to
/// itself, 2(N-16)/(N-1) without, and the diameter is 2 (0 on one line card); a full
/// bisection cuts N/2 links, N unidirectional channels.
#[test]
fn clos_summary_matches_the_closed_forms_from_16_to_512_nodes() {
    for n in [16, 32, 64, 128, 256, 512] {
        let t = clos(32, n);
        let s = t.summary();
        let leaves = n / 16;
        assert_eq!((s.nodes, s.routers, s.router_radix, s.channels), (n, leaves + 16, 32, 32 * leaves), "{n}");
        assert_eq!(s.diameter, if n > 16 { 2 } else { 0 }, "{n}");
        let nf = n as f64;
        assert!((s.avg_hops - 2.0 * (nf - 16.0) / nf).abs() < 1e-12, "{n}: {}", s.avg_hops);
        assert!((s.avg_hops_distinct - 2.0 * (nf - 16.0) / (nf - 1.0)).abs() < 1e-12, "{n}: {}", s.avg_hops_distinct);
        assert_eq!(s.bisection_channels, n, "{n}");
        assert_eq!(s.uniform_bisection_bound, 1.0);
    }
    // The paper's network from the config table: 32 line cards and 16 spines.
    let cfg =
        Config::from_toml("[topology]\ntype = \"clos\"\nradix = 32\nstages = 3\n[routing]\ntype = \"updown\"\n[router]\nvcs = 1\n", &[])
            .unwrap();
    let s = cfg.validate().unwrap().topology.summary();
    assert_eq!((s.nodes, s.routers, s.diameter), (512, 48, 2));
    assert!((s.avg_hops - 1.9375).abs() < 1e-12);
}

/// The 4-ary 3-tree: 64 nodes, 3 levels of 16 switches of 8 ports; from a node 3 nodes
/// share its leaf (0 hops), 12 more its level-1 subtree (2 hops), the other 48 need the
/// top (4 hops): mean (24 + 192) / 64 = 3.375 with self, 216 / 63 without, diameter 4.
/// Switch channels: 2 x (16 x 4 + 16 x 4) = 256.
#[test]
fn k_ary_n_tree_summary_matches_the_closed_forms() {
    let t = Topology::build(&TopologyConfig::KAryNTree { k: 4, n: 3 }, "topology").unwrap();
    let s = t.summary();
    assert_eq!((s.nodes, s.routers, s.router_radix, s.channels, s.diameter), (64, 48, 8, 256, 4));
    assert!((s.avg_hops - 3.375).abs() < 1e-12 && (s.avg_hops_distinct - 216.0 / 63.0).abs() < 1e-12);
    assert_eq!(s.bisection_channels, 64);
}

/// The mapping onto the engine's uniform routers: switch ports keep their numbers, a
/// leaf's nodes sit on local ports after the `radix` network ports, the spines' local
/// ports have no endpoint, and the channel tables agree both ways.
#[test]
fn engine_mapping_keeps_the_wiring() {
    let t = clos(8, 32); // 8 leaves of 4 nodes, 4 spines
    assert_eq!((t.shape.clone(), t.num_routers, t.num_nodes, t.net_ports, t.ports, t.concentration), (Shape::FatTree, 12, 32, 8, 12, 4));
    for (id, c) in t.channels.iter().enumerate() {
        assert_eq!(t.out_channel[(c.src_router * t.ports + c.src_port) as usize], id as u32);
        assert_eq!(t.in_channel[(c.dst_router * t.ports + c.dst_port) as usize], id as u32);
        // Leaf up port 4 + j goes to spine j, arriving on the spine's port = leaf index.
        if c.src_router < 8 {
            assert_eq!((c.dst_router, c.dst_port), (8 + c.src_port - 4, c.src_router));
        }
    }
    for node in 0..32 {
        assert_eq!((t.router_of(node), t.local_port_of(node)), (node / 4, 8 + node % 4));
        assert_eq!(t.node_at(node / 4, 8 + node % 4), Some(node));
    }
    for spine in 8..12 {
        assert!((0..t.ports).all(|p| t.node_at(spine, p).is_none()));
    }
}

/// Deadlock freedom on one VC: the dependency graph of every up*/down* route of every
/// pair (all R routes each) is acyclic, and so is the engine's check of the hop-by-hop
/// (destination-mod-k) routes, which connect every pair. Those agree with the routes the
/// source builds for static destination-mod-k selection, symbol by symbol.
#[test]
fn up_down_routes_are_deadlock_free_on_one_vc() {
    for cfg in [
        TopologyConfig::Clos { radix: 8, stages: 3, nodes: None },
        TopologyConfig::Clos { radix: 4, stages: 5, nodes: None },
        TopologyConfig::KAryNTree { k: 3, n: 3 },
    ] {
        let t = Topology::build(&cfg, "topology").unwrap();
        let v = up_down_cdg(t.fat_tree.as_ref().unwrap());
        assert!(v.acyclic, "{cfg:?}: {:?}", v.cycle);
        let r = UpDownRouting::new(&t, Selection::Static, StaticSchemeConfig::Destination, 1, 7, "routing").unwrap();
        let f = RoutingFunction::UpDown(r.clone());
        let check = cdg::check(&f, &t, 1);
        assert!(check.acyclic && check.routable_pairs == check.pairs, "{cfg:?}: {check:?}");
        for src in 0..t.num_nodes {
            for dst in 0..t.num_nodes {
                let hops = f.path(&t, src, dst, 0).unwrap();
                assert_eq!(hops.len() as u32 - 1, t.node_distance(src, dst), "{cfg:?} {src}->{dst}");
                let mut s = r.route_string(src, dst, 0);
                for h in &hops {
                    assert_eq!(r.shift(&mut s), h.port, "{cfg:?} {src}->{dst}");
                }
            }
        }
    }
}

/// Static routes are one per pair whatever the packet number; random routes of a pair
/// in the 512-node Clos use all 16 spines, each about 1/16 of the time.
#[test]
fn static_routes_are_fixed_and_random_routes_cover_every_spine() {
    let t = clos(32, 512);
    for scheme in [StaticSchemeConfig::Destination, StaticSchemeConfig::Source, StaticSchemeConfig::Hashed] {
        let r = UpDownRouting::new(&t, Selection::Static, scheme, 1, 3, "routing").unwrap();
        for (src, dst) in [(0, 511), (17, 300), (5, 9)] {
            let first = r.route_string(src, dst, 0);
            assert!((1..200).all(|seq| r.route_string(src, dst, seq) == first), "{scheme:?} {src}->{dst}");
        }
    }
    let r = UpDownRouting::new(&t, Selection::Random, StaticSchemeConfig::Destination, 1, 3, "routing").unwrap();
    let mut spine = [0u32; 16];
    for seq in 0..16_000 {
        let mut s = r.route_string(3, 400, seq);
        let up = r.shift(&mut s);
        spine[up as usize - 16] += 1;
    }
    // Binomial(16000, 1/16): mean 1000, sd 31; allow 5 sd.
    assert!(spine.iter().all(|&c| (845..=1155).contains(&c)), "{spine:?}");
}

fn net(radix: u32, selection: &str) -> String {
    format!("[topology]\ntype = \"clos\"\nradix = {radix}\nstages = 3\n[routing]\ntype = \"updown\"\nselection = \"{selection}\"\n")
}

/// Zero load on the 32-node Clos of 8-port crossbars with the input-queued router and
/// unit delays: a 1-flit packet over h switch hops takes T(h) = 6 + 5h (the IQ pipeline
/// formula of tests/engine_invariants.rs: 2 endpoint cycles, 4 per router over h + 1
/// routers, 1 per switch channel), h = 0 or 2 here, so nearly every packet sits on 6 or
/// 16, and the mean is T(mean hops) with mean hops 2 x 28 / 32 = 1.75 for uniform traffic.
#[test]
fn zero_load_latency_on_a_clos() {
    for selection in ["static", "random"] {
        let toml = format!(
            "{}[router]\nvcs = 1\nrouting_delay = 1\nvc_alloc_delay = 1\nsw_alloc_delay = 1\nst_delay = 1\n\
             [traffic]\nload = 0.002\npacket_size = 1\n[sim]\ncheck = true\nwarmup = 100\nmeasure = 60000\ndrain_limit = 1000\n",
            net(8, selection)
        );
        let r = run(&toml);
        let s = &r.stats;
        assert!(s.packets_delivered > 2000 && s.packets_delivered == s.packets_measured, "{selection}");
        let lat = &s.network_latency;
        assert_eq!(lat.min, 6, "{selection}");
        let on: u64 = lat
            .histogram
            .counts
            .iter()
            .enumerate()
            .filter(|(i, _)| [6, 16].contains(&(lat.histogram.start + *i as u64)))
            .map(|(_, &c)| c)
            .sum();
        assert!(on as f64 >= 0.98 * lat.count as f64, "{selection}: {on} of {} on 6, 16", lat.count);
        let closed = 6.0 + 5.0 * s.avg_hops;
        assert!(lat.mean >= closed - 1e-9 && lat.mean < closed * 1.005, "{selection}: {} vs {closed}", lat.mean);
        assert!((s.avg_hops - 1.75).abs() < 0.05, "{selection}: {}", s.avg_hops);
    }
}

/// Saturating load, every source sending 60 packets of 6 flits into 4-flit buffers
/// (wormhole: a packet spans switches), on one VC: everything drains, with flit and credit
/// conservation checked every cycle, for both selections on a Clos and a k-ary n-tree.
#[test]
fn saturation_drains_on_one_vc() {
    let trees = [
        net(8, "static"),
        net(8, "random"),
        "[topology]\ntype = \"k_ary_n_tree\"\nk = 2\nn = 4\n[routing]\ntype = \"updown\"\nselection = \"random\"\n".into(),
        "[topology]\ntype = \"k_ary_n_tree\"\nk = 3\nn = 2\n[routing]\ntype = \"updown\"\n".into(),
    ];
    for tree in trees {
        let toml = format!(
            "{tree}[router]\nvcs = 1\nbuffer_depth = 4\n[traffic]\nload = 1.0\npacket_size = 6\npackets_per_source = 60\n\
             [sim]\ncheck = true\nwarmup = 0\nmeasure = 3000\ndrain_limit = 200000\n"
        );
        let r = run(&toml);
        assert_eq!(r.counters.packets_created, 60 * r.topology.nodes as u64, "{tree}");
        assert_eq!(r.counters.packets_delivered, r.counters.packets_created, "{tree}");
    }
}

/// Flits the simulated leaves send up to each spine, from the report's channel counters
/// (engine channel id = router x ports + port; leaf `l` reaches spine `j` on port 4 + j).
fn up_flits_per_spine(r: &Report) -> [[u64; 4]; 8] {
    let mut up = [[0u64; 4]; 8];
    for row in &r.channels {
        let (router, port) = (row.id / 12, row.id % 12);
        if row.kind == "network" && router < 8 && (4..8).contains(&port) {
            up[router as usize][port as usize - 4] += row.vc_flits.iter().sum::<u64>();
        }
    }
    up
}

/// Everyone sends to node 13 (leaf 3, port 1). Static destination-mod-k: every packet for
/// 13 crosses spine 13 mod 4 = 1, so each other leaf sends up only to spine 1, and leaf 3
/// itself (whose senders share the leaf) sends up nothing. Random: every other leaf uses
/// all 4 spines, about equally.
#[test]
fn spine_use_in_the_engine_static_versus_random() {
    for selection in ["static", "random"] {
        let toml = format!(
            "{}[router]\nvcs = 1\n[traffic]\nload = 0.02\npacket_size = 1\npattern = {{ type = \"merge_to_one\", dest = 13 }}\n\
             [sim]\ncheck = true\nwarmup = 100\nmeasure = 20000\ndrain_limit = 20000\n",
            net(8, selection)
        );
        let up = up_flits_per_spine(&run(&toml));
        assert_eq!(up[3], [0; 4], "{selection}: {up:?}");
        for (leaf, spines) in up.iter().enumerate().filter(|&(l, _)| l != 3) {
            let total: u64 = spines.iter().sum();
            assert!(total > 400, "{selection}: leaf {leaf} {spines:?}");
            if selection == "static" {
                assert_eq!(*spines, [0, total, 0, 0], "leaf {leaf}");
            } else {
                assert!(spines.iter().all(|&c| c as f64 > 0.2 * total as f64), "leaf {leaf}: {spines:?}");
            }
        }
    }
}

#[test]
fn config_errors_name_the_field_and_the_fix() {
    let ud = "[routing]\ntype = \"updown\"\n[router]\nvcs = 1\n";
    let cases = [
        (format!("[topology]\ntype = \"clos\"\nradix = 7\nstages = 3\n{ud}"), "topology.radix", "even"),
        (format!("[topology]\ntype = \"clos\"\nradix = 8\nstages = 2\n{ud}"), "topology.stages", "odd"),
        (format!("[topology]\ntype = \"clos\"\nradix = 8\nstages = 3\nnodes = 10\n{ud}"), "topology.nodes", "multiple of 4"),
        (format!("[topology]\ntype = \"clos\"\nradix = 8\n{ud}"), "topology.stages", "missing"),
        (format!("[topology]\ntype = \"k_ary_n_tree\"\nk = 1\nn = 2\n{ud}"), "topology.k", "2..="),
        (format!("[topology]\ntype = \"clos\"\nradix = 64\nstages = 3\n{ud}"), "topology", "at most 64"),
        ("[topology]\ntype = \"clos\"\nradix = 8\nstages = 3\n".into(), "routing.type", "updown"),
        (ud.into(), "routing.type", "clos"),
        (
            "[topology]\ntype = \"clos\"\nradix = 8\nstages = 3\n[routing]\ntype = \"updown\"\nselection = \"dispersive\"\n".into(),
            "routing.selection",
            "probing",
        ),
        (
            "[topology]\ntype = \"clos\"\nradix = 32\nstages = 3\n[routing]\ntype = \"updown\"\n[router]\nvcs = 3\n".into(),
            "router.vcs",
            "fewer VCs",
        ),
        (
            "[topology]\ntype = \"clos\"\nradix = 8\nstages = 3\n[routing]\ntype = \"updown\"\n[router]\ntype = \"buffered_crossbar\"\n"
                .into(),
            "router.type",
            "input_queued",
        ),
    ];
    for (toml, field, fix) in cases {
        let err = Config::from_toml(&toml, &[]).and_then(|c| c.validate().map(|_| ())).expect_err(&toml).to_string();
        assert!(err.contains(field) && err.contains(fix), "{toml}\n-> {err}");
    }
}

/// `pattern.type = "random_bisection"`: pattern ω of traffic/bisection.rs as a fixed
/// destination per source, the same pairs as the generator gives for the run seed; on the
/// 32-node Clos every source sends only to its peer in the other half.
#[test]
fn random_bisection_pattern_pairs_every_node_with_its_peer() {
    use flitsim_core::sim::rng::stream;
    use flitsim_core::traffic::bisection::BisectionGenerator;
    use flitsim_core::traffic::pattern::{NodeSpace, Pattern, PatternConfig};
    for (index, seed) in [(0, None), (7, Some(99))] {
        let cfg = PatternConfig::RandomBisection { index, seed };
        let p = Pattern::build(&cfg, &NodeSpace::crossbar(32), 5, "traffic.pattern").unwrap();
        let expected = BisectionGenerator::new(32, seed.unwrap_or(5)).unwrap().pattern(index);
        let mut rng = stream(1, 1, 0);
        for src in 0..32 {
            let d = p.dest(src, 0, &mut rng);
            assert_eq!(d, expected.partner(src), "{index} {src}");
            assert_eq!(p.dest(d, 3, &mut rng), src);
            assert_ne!(expected.in_a(src), expected.in_a(d));
        }
    }
    // In a run, every packet reaches its peer: all are delivered on the Clos.
    let toml = format!(
        "{}[router]\nvcs = 1\n[traffic]\nload = 0.5\npacket_size = 4\npackets_per_source = 20\npattern = {{ type = \"random_bisection\", index = 3 }}\n\
         [sim]\ncheck = true\nwarmup = 0\nmeasure = 2000\ndrain_limit = 100000\n",
        net(8, "random")
    );
    let r = run(&toml);
    assert_eq!(r.counters.packets_delivered, 20 * 32);
    let err = Config::from_toml("[topology]\ntype = \"crossbar\"\nports = 5\n[traffic]\npattern = { type = \"random_bisection\" }\n", &[])
        .and_then(|c| c.validate().map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(err.contains("traffic.pattern") && err.contains("even"), "{err}");
}
