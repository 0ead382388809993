//! Networks from a list of links (`topology.type = "graph"`): wiring, distances and the
//! summary against known families written out as links (a torus, a hypercube), routes
//! hand-worked on a ring, deadlock freedom of both route sets by the channel dependency
//! check, a file read as the inline list, the error table, and runs that deliver every
//! packet on the routes' hop counts.

mod common;
use common::{routes, run};
use flitsim_core::config::Config;
use flitsim_core::routing::cdg;
use flitsim_core::topology::{Topology, TopologyConfig};

fn config<L: std::fmt::Debug>(links: &[L], t: u32, mode: &str, vcs: u32, extra: &str) -> String {
    format!("[topology]\ntype = \"graph\"\nlinks = {links:?}\nconcentration = {t}\n[routing]\ntype = \"graph\"\nmode = \"{mode}\"\n[router]\nvcs = {vcs}\n{extra}")
}

/// The links of a k x k torus (router x + k y), each once.
fn torus_links(k: u32) -> Vec<[u32; 2]> {
    let mut l = Vec::new();
    for y in 0..k {
        for x in 0..k {
            l.push([x + k * y, (x + 1) % k + k * y]);
            l.push([x + k * y, x + k * ((y + 1) % k)]);
        }
    }
    l
}

fn ring(n: u32) -> Vec<[u32; 2]> {
    (0..n).map(|i| [i, (i + 1) % n]).collect()
}

#[test]
fn a_torus_written_as_links_has_the_torus_distances_and_bisection() {
    let (g, _) = routes(&config(&torus_links(4), 2, "minimal", 4, ""));
    let cube = Topology::build(&TopologyConfig::Torus { dims: vec![4, 4], concentration: 2 }, "topology").unwrap();
    let (a, b) = (g.summary(), cube.summary());
    assert_eq!((a.nodes, a.routers, a.router_radix, a.channels), (b.nodes, b.routers, b.router_radix, b.channels));
    assert_eq!(a.diameter, b.diameter);
    assert!((a.avg_hops - b.avg_hops).abs() < 1e-12 && (a.avg_hops_distinct - b.avg_hops_distinct).abs() < 1e-12);
    // METIS finds the straight cut: 4N/k = 16 channels.
    assert_eq!(a.bisection_channels, b.bisection_channels);
    for r in 0..16 {
        for s in 0..16 {
            assert_eq!(g.router_distance(r, s), cube.router_distance(r, s));
        }
    }
    // A hypercube (a HyperX 2x2x2x2) likewise.
    let cube4: Vec<[u32; 2]> = (0..16u32).flat_map(|r| (0..4).map(move |d| [r, r ^ 1 << d])).filter(|[a, b]| a < b).collect();
    let (h, _) = routes(&config(&cube4, 1, "updown", 1, ""));
    let hx = Topology::build(&TopologyConfig::Hyperx { dims: vec![2, 2, 2, 2], links: None, concentration: 1 }, "topology").unwrap();
    let (a, b) = (h.summary(), hx.summary());
    assert_eq!((a.diameter, a.channels, a.bisection_channels), (b.diameter, b.channels, b.bisection_channels));
    assert!((a.avg_hops - b.avg_hops).abs() < 1e-12);
}

#[test]
fn minimal_routes_are_shortest_with_a_class_per_hop_and_deadlock_free() {
    for (links, t) in [(ring(6), 1), (torus_links(4), 2), (ring(7), 2)] {
        let (topo, r) = routes(&config(&links, t, "minimal", 6, ""));
        let diameter = topo.summary().diameter;
        for src in 0..topo.num_nodes {
            for dst in 0..topo.num_nodes {
                let path = r.path(&topo, src, dst, 0).unwrap();
                assert_eq!(path.len() as u32 - 1, topo.node_distance(src, dst), "{src}->{dst}");
                // Hop h in class h: VCs [h V / D, (h + 1) V / D).
                for (h, x) in path[..path.len() - 1].iter().enumerate() {
                    let h = h as u32;
                    assert_eq!((x.vc_lo, x.vc_hi), (h * 6 / diameter, (h + 1) * 6 / diameter), "{src}->{dst}: {path:?}");
                }
            }
        }
        let report = cdg::check(&r, &topo, 6);
        assert!(report.acyclic && report.routable_pairs == report.pairs, "{:?}", report.cycle);
    }
}

#[test]
fn updown_routes_never_go_up_after_down_and_detour_where_the_ring_forces_it() {
    // A ring of 6 from router 0: depths 0 (0), 1 (1, 5), 2 (2, 4), 3 (3). From 2 to 4
    // the short way, 2 -> 3 -> 4, goes down to 3 and up again: illegal. The legal
    // shortest goes up over the root: 2 -> 1 -> 0 -> 5 -> 4.
    let (t, r) = routes(&config(&ring(6), 1, "updown", 1, ""));
    let routers: Vec<u32> = r.path(&t, 2, 4, 0).unwrap().iter().map(|h| h.router).collect();
    assert_eq!(routers, vec![2, 1, 0, 5, 4]);
    // 3 -> 1 may go 3 -> 2 -> 1 (up, up).
    let routers: Vec<u32> = r.path(&t, 3, 1, 0).unwrap().iter().map(|h| h.router).collect();
    assert_eq!(routers, vec![3, 2, 1]);
    for (links, tt) in [(ring(6), 1), (ring(9), 1), (torus_links(4), 2)] {
        let (t, r) = routes(&config(&links, tt, "updown", 1, ""));
        let depth_t = |x: u32| (t.router_distance(0, x), x);
        for src in 0..t.num_nodes {
            for dst in 0..t.num_nodes {
                let path = r.path(&t, src, dst, 0).unwrap();
                let rs: Vec<u32> = path.iter().map(|h| h.router).collect();
                let went_down = rs.windows(2).map(|w| depth_t(w[1]) > depth_t(w[0])).collect::<Vec<_>>();
                assert!(went_down.windows(2).all(|w| w[1] || !w[0]), "{src}->{dst}: up after down in {rs:?}");
                assert!(rs.len() > t.node_distance(src, dst) as usize, "{src}->{dst}: shorter than minimal");
            }
        }
        let report = cdg::check(&r, &t, 1);
        assert!(report.acyclic && report.routable_pairs == report.pairs, "{:?}", report.cycle);
    }
}

#[test]
fn a_file_of_links_builds_the_network_the_inline_list_builds() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ring6-chord.links");
    let from_file = format!("[topology]\ntype = \"graph\"\nfile = \"{file}\"\nconcentration = 2\n[routing]\ntype = \"graph\"\nmode = \"updown\"\n[router]\nvcs = 1\n");
    let (a, _) = routes(&from_file);
    let mut links = ring(6);
    links.push([0, 3]);
    let (b, _) = routes(&config(&links, 2, "updown", 1, ""));
    assert_eq!(a.channels, b.channels);
    assert_eq!(a.summary(), b.summary());
    // Router 0 has three links: 0-1, 5-0, 0-3 (ports in listed order).
    assert_eq!(a.net_ports, 3);
    let peers: Vec<u32> = (0..3).map(|p| a.channels[a.out_channel[p as usize] as usize].dst_router).collect();
    assert_eq!(peers, vec![1, 5, 3]);
}

#[test]
fn bad_graphs_name_the_field_and_the_fix() {
    let dir = std::env::temp_dir().join(format!("flitsim-graph-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.links");
    std::fs::write(&bad, "0 1\n1 two\n").unwrap();
    let short = dir.join("short.links");
    std::fs::write(&short, "# ok\n0 1\n\n2\n").unwrap();
    let bad_latency = dir.join("latency.links");
    std::fs::write(&bad_latency, "0 1 5\n1 2 x\n").unwrap();
    let with_file =
        |f: &std::path::Path| format!("[topology]\ntype = \"graph\"\nfile = \"{}\"\n[routing]\ntype = \"graph\"\n", f.display());
    let cases = [
        (config(&[[0, 1], [1, 1]], 1, "minimal", 2, ""), "topology.links[1]", "itself"),
        (config(&[[0, 1], [2, 3]], 1, "minimal", 2, ""), "topology.links", "not connected"),
        (
            config(&[[0, 1], [1, 5]], 1, "minimal", 2, "").replace("concentration = 1", "concentration = 1\nrouters = 4"),
            "topology.links[1]",
            "routers",
        ),
        (config(&ring(6), 1, "minimal", 2, ""), "router.vcs", "updown"),
        (config(&ring(6), 1, "minimal", 4, "").replace("links = ", "file = \"x\"\nlinks = "), "topology.links", "not both"),
        (config(&(1..64).map(|i| [0, i]).collect::<Vec<_>>(), 2, "updown", 1, ""), "topology.concentration", "at most 64"),
        (with_file(&bad), "line 2", "not a router id"),
        (with_file(&short), "line 4", "two router ids"),
        (with_file(&bad_latency), "line 2", "not a latency"),
        (with_file(&dir.join("missing.links")), "topology.file", "cannot read"),
        (
            config(&ring(4), 1, "minimal", 2, "[router]\ntype = \"buffered_crossbar\"\n").replace("[router]\nvcs = 2\n", ""),
            "router.type",
            "input_queued",
        ),
        (config(&ring(4), 1, "minimal", 2, "").replace("type = \"graph\"\nmode = \"minimal\"", "type = \"dor\""), "routing.type", "graph"),
        (config(&[vec![0, 1, 0]], 1, "minimal", 2, ""), "topology.links[0]", "1..=1000"),
        (config(&[vec![0, 1], vec![1, 2, 3, 4]], 1, "minimal", 2, ""), "topology.links[1]", "[a, b, latency]"),
        (config(&[vec![0, 1, 600]], 1, "minimal", 2, "[sim]\nwatchdog = 500\n"), "sim.watchdog", "longest channel latency 600"),
    ];
    for (toml, field, fix) in cases {
        let e = Config::from_toml(&toml, &[]).and_then(|c| c.validate()).unwrap_err().to_string();
        assert!(e.contains(field) && e.contains(fix), "{toml}\n -> {e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn runs_deliver_every_packet_over_the_routes_hops() {
    // Uniform traffic on a torus written as links, both route sets, check mode on: every
    // packet delivered, and the mean hops those of the routes over all pairs.
    for (mode, vcs) in [("minimal", 4), ("updown", 2)] {
        let toml = config(
            &torus_links(4),
            2,
            mode,
            vcs,
            "[traffic]\nload = 0.2\npacket_size = 4\n[sim]\ncheck = true\nwarmup = 500\nmeasure = 4000\n",
        );
        let rep = run(&toml);
        let s = &rep.stats;
        assert!(!s.saturated && (s.accepted.mean - 0.2).abs() < 0.01, "{mode}: {}", s.accepted.mean);
        assert_eq!(s.packets_delivered, s.packets_measured, "{mode}");
        let (t, r) = routes(&toml);
        let n = t.num_nodes;
        let all: u64 = (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).map(|(a, b)| r.path(&t, a, b, 0).unwrap().len() as u64 - 1).sum();
        let expect = all as f64 / f64::from(n * n);
        assert!((s.avg_hops - expect).abs() < 0.03 * expect, "{mode}: hops {} vs routes {expect}", s.avg_hops);
    }
}

#[test]
fn the_petersen_preset_has_its_closed_form_figures() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/petersen.links");
    let preset = include_str!("../../../presets/graph-petersen.toml").replace("\"petersen.links\"", &format!("{file:?}"));
    for (mode, vcs) in [("minimal", 4), ("updown", 4)] {
        let (t, r) = routes(&preset.replace("mode = \"minimal\"", &format!("mode = \"{mode}\"")));
        let s = t.summary();
        assert_eq!((s.routers, s.nodes, s.router_radix, s.channels, s.diameter), (10, 40, 7, 30, 2));
        // 3 routers at 1 hop and 6 at 2 from each: 15 hops over 10 routers (self
        // included), times T^2 endpoint pairs over N^2.
        assert!((s.avg_hops - 15.0 / 10.0).abs() < 1e-12, "{}", s.avg_hops);
        // A balanced cut: at least 15 - 2 x 5 = 5 links, and the spokes give 5.
        assert_eq!(s.bisection_channels, 10);
        let report = cdg::check(&r, &t, vcs);
        assert!(report.acyclic && report.routable_pairs == report.pairs, "{mode}: {:?}", report.cycle);
    }
}

#[test]
fn links_with_their_own_latencies_time_the_packets_as_the_closed_form_says() {
    // A line 0 - 1 - 2 with links of 3 and 7 cycles (file: `0 1 3`, `1 2 7`), one
    // endpoint per router. Router pipeline 4 cycles, endpoint channels 1, 1-flit
    // packets: a packet over h links of total length w takes 2 + 4 (h + 1) + w.
    let dir = std::env::temp_dir().join(format!("flitsim-graph-lat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("line.links");
    std::fs::write(&file, "0 1 3  # short\n1 2 7\n").unwrap();
    let sim = "[traffic]\nload = 0.002\n[sim]\ncheck = true\nwarmup = 100\nmeasure = 60000\ndrain_limit = 1000\n";
    let from_file =
        format!("[topology]\ntype = \"graph\"\nfile = \"{}\"\n[routing]\ntype = \"graph\"\n[router]\nvcs = 2\n{sim}", file.display());
    let inline = config(&[vec![0, 1, 3], vec![1, 2, 7]], 1, "minimal", 2, sim);
    let time = |a: u32, b: u32| {
        let (lo, hi) = (a.min(b), a.max(b));
        let w: u64 = [3, 7][lo as usize..hi as usize].iter().sum();
        2 + 4 * (u64::from(hi - lo) + 1) + w
    };
    let expect = (0..3).flat_map(|a| (0..3).map(move |b| (a, b))).map(|(a, b)| time(a, b) as f64).sum::<f64>() / 9.0;
    let (a, b) = (run(&from_file), run(&inline));
    assert_eq!(a.stats.network_latency.mean, b.stats.network_latency.mean, "the file and the list build the same network");
    let net = &a.stats.network_latency;
    assert!(net.count > 300, "{}", net.count);
    assert_eq!((net.min, net.max), (time(0, 0), time(0, 2)));
    // Every packet on its pair's closed form: only these four values occur.
    let lattice = [time(0, 0), time(0, 1), time(1, 2), time(0, 2)];
    let on: u64 = net
        .histogram
        .counts
        .iter()
        .enumerate()
        .filter(|(i, _)| lattice.contains(&(net.histogram.start + *i as u64)))
        .map(|(_, &c)| c)
        .sum();
    assert_eq!(on, net.count);
    assert!((net.mean - expect).abs() < 0.05 * expect, "mean {} vs {expect}", net.mean);
    std::fs::remove_dir_all(&dir).ok();
}
