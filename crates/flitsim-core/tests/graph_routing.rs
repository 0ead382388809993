//! Graph routing (`routing.type = "graph"`) on the built-in families (k-ary n-cubes,
//! HyperX, dragonfly) and around their failed links and routers: on an intact network
//! its minimal routes take exactly the family's own closed-form distances, both route
//! sets are proved deadlock-free by the channel dependency check, failures lengthen
//! routes by the hand-worked detour, routers cut off are refused or skipped as
//! `faults.unroutable` says, and a damaged network delivers every packet under check
//! mode, the same on two threads.

mod common;
use common::{first_difference, routes, run};
use flitsim_core::config::Config;
use flitsim_core::routing::cdg;
use flitsim_core::sim::Simulation;

/// `topology` routed as a graph (`mode`, `vcs` VCs), with `extra` appended.
fn graph(topology: &str, mode: &str, vcs: u32, extra: &str) -> String {
    format!("[topology]\n{topology}\n[routing]\ntype = \"graph\"\nmode = \"{mode}\"\n[router]\nvcs = {vcs}\n{extra}")
}

const TORUS: &str = "type = \"torus\"\ndims = [5, 4]\nconcentration = 2";
const HYPERX: &str = "type = \"hyperx\"\ndims = [4, 3]\nlinks = [1, 2]\nconcentration = 2";
const DRAGONFLY: &str = "type = \"dragonfly\"\ngroup_routers = 4\nglobal_ports = 1\nconcentration = 2";

#[test]
fn minimal_graph_routes_take_each_familys_own_distances() {
    // Diameters: 5x4 torus 2 + 2 = 4; 4x3 HyperX 2 (one hop per dimension); dragonfly
    // of 4-router groups with one global port each: local, global, local = 3.
    for (topology, diameter) in [(TORUS, 4), (HYPERX, 2), (DRAGONFLY, 3)] {
        let (topo, r) = routes(&graph(topology, "minimal", diameter, ""));
        assert_eq!(topo.summary().diameter, diameter, "{topology}");
        for src in 0..topo.num_nodes {
            for dst in 0..topo.num_nodes {
                let path = r.path(&topo, src, dst, 0).unwrap_or_else(|e| panic!("{topology}: {src}->{dst}: {e}"));
                // (The topology's distance is its family's closed form, not a search.)
                assert_eq!(path.len() as u32 - 1, topo.node_distance(src, dst), "{topology}: {src}->{dst}");
                // Hop h in VC class h: one VC per class here.
                for (h, x) in path[..path.len() - 1].iter().enumerate() {
                    assert_eq!((x.vc_lo, x.vc_hi), (h as u32, h as u32 + 1), "{topology}: {src}->{dst}");
                }
            }
        }
        let report = cdg::check(&r, &topo, diameter);
        assert!(report.acyclic && report.routable_pairs == report.pairs, "{topology}: {:?}", report.cycle);
        // One VC fewer than the diameter is refused, naming the fix.
        let e =
            Config::from_toml(&graph(topology, "minimal", diameter - 1, ""), &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("router.vcs") && e.contains(&format!("vcs >= {diameter}")) && e.contains("updown"), "{e}");
        // Up*/down* on one VC: deadlock-free, every pair connected, never shorter.
        let (topo, ud) = routes(&graph(topology, "updown", 1, ""));
        let report = cdg::check(&ud, &topo, 1);
        assert!(report.acyclic && report.routable_pairs == report.pairs, "{topology} up*/down*: {:?}", report.cycle);
        let p = cdg::pair_routes(&ud, &topo, &[]);
        assert!(p.hops >= p.minimal, "{topology}");
    }
}

#[test]
fn failed_links_lengthen_routes_by_the_detour() {
    // A 1-D HyperX of 4 routers is the complete graph K4. With the link between routers
    // 0 and 1 failed (router 0's first port), 0 -> 1 detours through router 2 or 3: two
    // hops, so the diameter and the VC classes minimal routes need grow from 1 to 2;
    // every other pair keeps its direct link.
    let k4 = "type = \"hyperx\"\ndims = [4]";
    let faults = "[faults]\nlinks = [[0, 0]]\n";
    let e = Config::from_toml(&graph(k4, "minimal", 1, faults), &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("vcs >= 2"), "{e}");
    let c = Config::from_toml(&graph(k4, "minimal", 2, faults), &[]).unwrap();
    let (topo, r, f) = c.routes().unwrap();
    let f = f.expect("failures");
    assert!(f.check.acyclic && f.check.unreachable_pairs == 0);
    for (src, dst) in (0..4).flat_map(|s| (0..4).map(move |d| (s, d))) {
        let hops = r.path(&topo, src, dst, 0).unwrap().len() - 1;
        let want = if src == dst {
            0
        } else if src + dst == 1 {
            2
        } else {
            1
        };
        assert_eq!(hops, want, "{src} -> {dst}");
    }
}

#[test]
fn routers_cut_off_by_failures_are_refused_or_skipped() {
    // Router 5 of the 5x4 torus loses all four links: its endpoints cannot be reached.
    let cut = "[faults]\nlinks = [[5, 0], [5, 1], [5, 2], [5, 3]]\n";
    let e = Config::from_toml(&graph(TORUS, "updown", 1, cut), &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("do not connect") && e.contains("faults.unroutable"), "{e}");
    // Skipped: the other 36 endpoints exchange traffic, none of it to or from router 5's.
    let toml = graph(
        TORUS,
        "updown",
        1,
        &format!("{cut}unroutable = \"skip\"\n[traffic]\nload = 0.2\n[sim]\nwarmup = 200\nmeasure = 1000\ncheck = true\n"),
    );
    let (topo, _, f) = Config::from_toml(&toml, &[]).unwrap().routes().unwrap();
    let f = f.unwrap();
    // 40 endpoints, 2 on router 5: 2 x 38 x 2 ordered pairs lost (and none other).
    assert_eq!(f.check.unreachable_pairs, 2 * 38 * 2, "{:?}", f.check.unreachable);
    assert_eq!(f.check.pairs, 40 * 39);
    assert!(f.check.acyclic);
    let r = run(&toml);
    assert_eq!(r.stats.packets_delivered, r.stats.packets_measured);
    assert!(r.stats.packets_delivered > 1000 && topo.num_nodes == 40);
}

#[test]
fn a_damaged_network_delivers_everything_the_same_on_two_threads() {
    // A dragonfly of 5 groups (40 endpoints) with 5% of its links failed at random
    // (seeded), minimal
    // routes on as many VC classes as the damaged diameter needs.
    let base = graph(
        DRAGONFLY,
        "minimal",
        5,
        "[faults]\nrandom_link_fraction = 0.05\nseed = 4\n[traffic]\nload = 0.3\npacket_size = 3\n[sim]\nwarmup = 300\nmeasure = 1500\n",
    );
    let (topo, _, f) = Config::from_toml(&base, &[]).unwrap().routes().unwrap();
    let f = f.unwrap();
    assert!(!f.failed.links.is_empty() && f.check.acyclic && f.check.unreachable_pairs == 0, "{:?}", f.failed.links);
    let checked = run(&format!("{base}check = true\n"));
    assert!(checked.stats.packets_delivered > 1000 && checked.stats.packets_delivered == checked.stats.packets_measured);
    assert_eq!(checked.counters.flits_lost, 0);
    let report = |threads: usize| {
        let mut sim = Simulation::new(Config::from_toml(&base, &[]).unwrap().validate().unwrap()).unwrap();
        assert_eq!(sim.set_threads(threads).unwrap(), threads);
        let mut v = serde_json::to_value(sim.run(&mut |_| {}).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("version");
        v
    };
    if let Some(d) = first_difference(&report(1), &report(2), "") {
        panic!("two threads differ at {d}");
    }
    assert_eq!(topo.num_nodes, 40);
}

#[test]
fn graph_routing_errors_name_the_field_and_the_fix() {
    let cases = [
        // The families' own routing functions do not route around failures.
        ("[topology]\ntype = \"hyperx\"\ndims = [4, 4]\n[routing]\ntype = \"hyperx\"\n[router]\nvcs = 2\n[faults]\nlinks = [[0, 0]]\n", "faults", "routing.type = \"graph\""),
        (
            "[topology]\ntype = \"dragonfly\"\ngroup_routers = 4\nglobal_ports = 1\nconcentration = 2\n[routing]\ntype = \"dragonfly\"\n[router]\nvcs = 2\n[faults]\nlinks = [[0, 0]]\n",
            "faults",
            "routing.type = \"graph\"",
        ),
        ("[faults]\nlinks = [[0, 0]]", "routing.type", "type = \"graph\""),
        // Graph routing needs bidirectional links and no routing of its own.
        ("[topology]\ntype = \"kautz\"\ndegree = 2\ndiameter = 3\n[routing]\ntype = \"graph\"\nmode = \"updown\"\n[router]\nvcs = 1\n", "routing.type", "source routed"),
        // A graph's own links are listed, not failed.
        ("[topology]\ntype = \"graph\"\nlinks = [[0, 1], [1, 2], [2, 0]]\n[routing]\ntype = \"graph\"\nmode = \"updown\"\n[router]\nvcs = 1\n[faults]\nlinks = [[0, 0]]\n", "faults", "remove a failed link"),
    ];
    for (toml, field, fix) in cases {
        let e = Config::from_toml(toml, &[]).and_then(|c| c.validate().map(|_| ())).expect_err(toml).to_string();
        assert!(e.contains(field) && e.contains(fix), "{toml}\n-> {e}");
    }
}
