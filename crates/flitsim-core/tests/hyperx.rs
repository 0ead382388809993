//! The HyperX (Ahn, Binkert, Davis, McLaren and Schreiber, SC 2009): dimension-order,
//! Valiant and UGAL routes against hand-derived hop counts and VC classes, deadlock
//! freedom by the channel dependency check, the closed-form summary against loads
//! counted over every walked route, zero-load latency against the pipeline's closed
//! form, and the throughput limits: uniform traffic saturates at the channel bound
//! `min S_k K_k / T`, and a shift along x holds dimension order to the `K / T` of one
//! router's links, which Valiant and UGAL escape.

mod common;
use common::{routes, run};
use flitsim_core::config::Config;
use flitsim_core::routing::cdg;
use flitsim_core::routing::{PortQueues, RoutingFunction};
use flitsim_core::sim::packet::Packet;
use flitsim_core::topology::Topology;

fn config(dims: &[u32], links: Option<&[u32]>, t: u32, extra: &str) -> String {
    let links = links.map(|l| format!("links = {l:?}\n")).unwrap_or_default();
    format!("[topology]\ntype = \"hyperx\"\ndims = {dims:?}\n{links}concentration = {t}\n[routing]\ntype = \"hyperx\"\n{extra}")
}

/// The dimension a network port's channel runs in.
fn dim(t: &Topology, router: u32, port: u32) -> u32 {
    t.channels[t.out_channel[(router * t.ports + port) as usize] as usize].dim
}

#[test]
fn dimension_order_corrects_each_differing_coordinate_once_in_order_on_the_sources_copy() {
    let (dims, links, conc) = ([4u32, 3, 2], [2u32, 1, 3], 2);
    let (t, r) = routes(&config(&dims, Some(&links), conc, "[router]\nvcs = 2\n"));
    for src in 0..t.num_nodes {
        for dst in 0..t.num_nodes {
            let path = r.path(&t, src, dst, 0).unwrap();
            let (a, b) = (t.coords(t.router_of(src)).to_vec(), t.coords(t.router_of(dst)).to_vec());
            let differ: Vec<u32> = (0..3).filter(|&d| a[d] != b[d]).map(|d| d as u32).collect();
            let hops = &path[..path.len() - 1];
            // One hop per differing coordinate, in dimension order.
            let taken: Vec<u32> = hops.iter().map(|h| dim(&t, h.router, h.port)).collect();
            assert_eq!(taken, differ, "{src}->{dst}");
            for h in hops {
                let d = dim(&t, h.router, h.port) as usize;
                // Copy src mod K of the parallel links (ports of a neighbour are consecutive).
                let first = (0..t.net_ports).find(|&p| dim(&t, h.router, p) as usize == d).unwrap();
                assert_eq!((h.port - first) % links[d], src % links[d], "{src}->{dst}: {path:?}");
                // Every VC (one class).
                assert_eq!((h.vc_lo, h.vc_hi), (0, 2));
            }
            assert_eq!(hops.len() as u32, t.node_distance(src, dst));
        }
    }
}

/// The summary's closed forms against what walking every pair's route counts: mean
/// hops, diameter, and the channel bound from the most loaded channel (copies shared
/// evenly: `K_k` divides `T S_0 .. S_{k-1}` in these shapes).
#[test]
fn the_closed_form_summary_is_what_every_route_walked_gives() {
    for (dims, links, conc) in [
        (vec![4u32, 4], vec![1u32, 1], 1),
        (vec![4, 3], vec![2, 1], 2),
        (vec![3, 2, 4], vec![1, 3, 2], 2),
        (vec![2, 2, 2, 2], vec![1, 1, 1, 1], 3),
    ] {
        let (t, r) = routes(&config(&dims, Some(&links), conc, ""));
        let s = t.summary();
        let mut load = vec![0u64; t.channels.len()];
        let (mut hops, mut diameter) = (0u64, 0);
        for src in 0..t.num_nodes {
            for dst in 0..t.num_nodes {
                let path = r.path(&t, src, dst, 0).unwrap();
                for x in &path[..path.len() - 1] {
                    load[t.out_channel[(x.router * t.ports + x.port) as usize] as usize] += 1;
                }
                hops += path.len() as u64 - 1;
                diameter = diameter.max(path.len() as u32 - 1);
            }
        }
        let n = f64::from(t.num_nodes);
        assert!((s.avg_hops - hops as f64 / (n * n)).abs() < 1e-12, "{dims:?}");
        assert_eq!(s.diameter, diameter, "{dims:?}");
        let bound = (n / *load.iter().max().unwrap() as f64).min(1.0);
        assert!((s.uniform_channel_bound - bound).abs() < 1e-12, "{dims:?}: {} vs {bound}", s.uniform_channel_bound);
    }
}

#[test]
fn valiant_routes_pass_their_intermediate_router_and_change_class_there() {
    let dims = [4u32, 4];
    let (t, r) = routes(&config(&dims, None, 1, "mode = \"valiant\"\n[router]\nvcs = 4\n"));
    let RoutingFunction::HyperX(h) = &r else { panic!("HyperX routing") };
    let mut longer = 0;
    for src in 0..t.num_nodes {
        for dst in 0..t.num_nodes {
            let path = r.path(&t, src, dst, 0).unwrap();
            assert!(path.len() - 1 <= 2 * dims.len(), "{src}->{dst}: {path:?}");
            match h.intermediate(src, dst, 0) {
                None => {
                    // Minimal, in class 0.
                    assert_eq!(path.len() as u32 - 1, t.node_distance(src, dst));
                    assert!(path.iter().all(|x| x.vc < 2), "{path:?}");
                }
                Some(via) => {
                    // Class 0 up to the intermediate, class 1 from it.
                    let at = path.iter().position(|x| x.router == via).expect("the route passes its intermediate");
                    assert!(
                        path[..at].iter().all(|x| x.vc < 2) && path[at..].iter().all(|x| x.vc >= 2),
                        "{src}->{dst} via {via}: {path:?}"
                    );
                    assert_eq!(path.len() as u32 - 1, t.router_distance(t.router_of(src), via) + t.router_distance(via, t.router_of(dst)));
                    longer += usize::from(path.len() as u32 - 1 > t.node_distance(src, dst));
                }
            }
        }
    }
    // Most detour: the draw is the source's or the destination's router for 2 of 16.
    let pairs = (t.num_nodes * t.num_nodes) as usize;
    assert!(longer > pairs / 2, "{longer} of {pairs}");
}

#[test]
fn every_mode_is_deadlock_free_with_its_classes_and_refused_without() {
    for (mode, vcs, links) in [
        ("dor", 1, None),
        ("dor", 3, Some([2u32, 1, 2])),
        ("valiant", 2, None),
        ("ugal", 2, Some([1, 2, 1])),
        ("valiant", 4, Some([2, 2, 2])),
    ] {
        let (t, r) = routes(&config(&[3, 4, 2], links.as_ref().map(|l| &l[..]), 2, &format!("mode = \"{mode}\"\n[router]\nvcs = {vcs}\n")));
        let report = cdg::check(&r, &t, vcs);
        assert!(report.acyclic, "{mode} on {vcs} VCs: {:?}", report.cycle);
        assert_eq!(report.routable_pairs, report.pairs);
    }
    for mode in ["valiant", "ugal"] {
        let toml = config(&[3, 4], None, 1, &format!("mode = \"{mode}\"\n[router]\nvcs = 1\n"));
        let e = Config::from_toml(&toml, &[]).and_then(|c| c.validate()).unwrap_err().to_string();
        assert!(e.contains("router.vcs") && e.contains("classes"), "{e}");
    }
    // Other routing functions are refused on a HyperX, and HyperX routing elsewhere.
    let e = Config::from_toml("[topology]\ntype = \"hyperx\"\ndims = [4, 4]\n", &[]).and_then(|c| c.validate()).unwrap_err().to_string();
    assert!(e.contains("routing.type") && e.contains("hyperx"), "{e}");
    let e = Config::from_toml("[topology]\ntype = \"torus\"\ndims = [4, 4]\n[routing]\ntype = \"hyperx\"\n", &[])
        .and_then(|c| c.validate())
        .unwrap_err()
        .to_string();
    assert!(e.contains("routing.type") && e.contains("HyperX topology"), "{e}");
}

/// Queues given per port, for UGAL's choice.
struct Queues(Vec<u32>);

impl PortQueues for Queues {
    fn used(&self, port: u32) -> u32 {
        self.0[port as usize]
    }
}

#[test]
fn ugal_takes_the_valiant_route_only_when_queue_times_hops_is_smaller() {
    // 4x4, one endpoint per router. From router 0 = (0,0) to router 5 = (1,1): minimal
    // 2 hops, first on x+1 (port 0). Via router 2 = (2,0): 1 + 2 = 3 hops, first on
    // x+2 (port 1).
    let (t, r) = routes(&config(&[4, 4], None, 1, "mode = \"ugal\"\n[router]\nvcs = 2\n"));
    let RoutingFunction::HyperX(h) = &r else { panic!("HyperX routing") };
    let mut q = vec![0u32; t.ports as usize];
    // 3 x 2 = 6 against 2 x 3 = 6: a tie stays minimal.
    (q[0], q[1]) = (3, 2);
    assert!(!h.ugal_prefers_valiant(0, 0, 5, 2, &Queues(q.clone())));
    // 4 x 2 = 8 > 6: Valiant.
    q[0] = 4;
    assert!(h.ugal_prefers_valiant(0, 0, 5, 2, &Queues(q.clone())));
    // The header gets the intermediate only when the draw and the queues agree.
    let mut hits = 0;
    for seq in 0..64 {
        let mut p = Packet { src: 0, dst: 5, seq, ..Default::default() };
        let c = h.route_header(0, t.net_ports, 0, true, &mut p, &Queues(q.clone()));
        match h.intermediate(0, 5, seq) {
            Some(2) => {
                hits += 1;
                assert_eq!((p.route, c.port), (3, 1));
            }
            _ => assert!(p.route == 0 || c.port != 0, "seq {seq}: {p:?} {c:?}"),
        }
    }
    assert!(hits > 0, "64 draws over 16 routers hit router 2");
}

#[test]
fn zero_load_latency_matches_the_pipeline_closed_form() {
    // Router pipeline 4 cycles, wires 1 cycle in x and 5 in y, endpoint channels 1,
    // 1-flit packets: a packet crossing x and y takes 2 + 4 (hops + 1) + the wires.
    let toml = config(&[4, 3], None, 2, "[router]\nvcs = 2\n[channel]\ndim_latency = [1, 5]\n[traffic]\nload = 0.002\n[sim]\ncheck = true\nwarmup = 100\nmeasure = 40000\ndrain_limit = 1000\n");
    let rep = run(&toml);
    let s = &rep.stats;
    assert!(!s.saturated && s.packets_delivered > 1500, "{s:?}");
    let (t, _) = routes(&toml);
    let time = |a: u32, b: u32| {
        let (x, y) = (u64::from(t.coords(a)[0] != t.coords(b)[0]), u64::from(t.coords(a)[1] != t.coords(b)[1]));
        2 + 4 * (x + y + 1) + x + 5 * y
    };
    let n = t.num_nodes;
    let expect = (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).map(|(a, b)| time(t.router_of(a), t.router_of(b)) as f64).sum::<f64>()
        / f64::from(n * n);
    let net = &s.network_latency;
    assert_eq!(net.min, 6);
    assert!(net.max >= 2 + 12 + 6 && net.max <= 20 + 8, "max {}", net.max);
    assert!((net.mean - expect).abs() < 0.015 * expect, "mean {} vs closed form {expect}", net.mean);
}

#[test]
fn uniform_saturates_at_the_channel_bound_and_a_shift_is_held_to_one_link_unless_routed_around() {
    // 4x4 with 8 endpoints per router: the uniform channel bound is S K / T = 0.5. The
    // 14-port routers' one-iteration separable allocator matches well short of it
    // (about 0.34 here; three iSLIP iterations reach about 0.38), so the bound is an
    // upper limit, and 60% of it is carried in full.
    let dims = [4u32, 4];
    let sim = "[sim]\ncheck = true\nwarmup = 1000\nmeasure = 3000\n";
    let below = run(&config(&dims, None, 8, &format!("[router]\nvcs = 4\n[traffic]\nload = 0.3\n{sim}")));
    assert!(!below.stats.saturated && (below.stats.accepted.mean - 0.3).abs() < 0.01, "{}", below.stats.accepted.mean);
    let above = run(&config(&dims, None, 8, &format!("[router]\nvcs = 4\n[traffic]\nload = 0.7\n{sim}")));
    let uniform = above.stats.accepted.mean;
    assert!(above.stats.saturated && uniform <= 0.5 && uniform > 0.3, "uniform 0.7 accepted {uniform}, bound 0.5");
    // `neighbor` moves every coordinate one on: dimension order sends a router's 8
    // endpoints over one x link, then one y link: 1/8 each. Two parallel links double it.
    let shift = "[traffic]\nload = 0.5\npattern = { type = \"neighbor\" }\n[sim]\nwarmup = 1000\nmeasure = 3000\ndrain_limit = 0\n";
    let dor = run(&config(&dims, None, 8, &format!("[router]\nvcs = 4\n{shift}")));
    let acc = dor.stats.accepted.mean;
    assert!(dor.stats.saturated && acc <= 0.125 + 0.005 && acc > 0.95 * 0.125, "dor accepted {acc}, one link allows 1/8");
    // (Three VCs: with two, an output VC is re-allocated at most every third cycle to
    // 1-flit packets, and each link would run at two thirds.)
    let trunk = run(&config(&dims, Some(&[2, 2]), 8, &format!("[router]\nvcs = 3\n{shift}")));
    let acc2 = trunk.stats.accepted.mean;
    assert!(acc2 <= 0.25 + 0.005 && acc2 > 0.9 * 0.25, "two links accepted {acc2}, they allow 1/4");
    // Valiant turns the shift into two uniform phases (source to a random router, on to
    // the destination): twice uniform traffic's channel load, so a bound of half the
    // uniform one, 0.25, reached at the allocator's efficiency measured above under
    // uniform load. UGAL-L moves packets off the full minimal queue at the source
    // router, past the one link's 1/8, but only partly: it sees only its own first
    // queue, and the minimal packets' second hop (the next router's y link, shared by
    // the 8 endpoints behind it) stays as full (about 0.139 for seeds 1-4).
    let val = run(&config(&dims, None, 8, &format!("mode = \"valiant\"\n[router]\nvcs = 4\n{shift}")));
    let ugal = run(&config(&dims, None, 8, &format!("mode = \"ugal\"\n[router]\nvcs = 4\n{shift}")));
    let (v, u) = (val.stats.accepted.mean, ugal.stats.accepted.mean);
    let efficiency = uniform / 0.5;
    assert!(v <= 0.25 && v > 0.85 * efficiency * 0.25, "valiant accepted {v}, expected about {} (bound 0.25)", efficiency * 0.25);
    assert!(u > 1.05 * 0.125 && u < v, "ugal accepted {u}, the minimal limit is 1/8, valiant {v}");
}

#[test]
fn bad_hyperx_configs_name_the_field_and_the_fix() {
    let cases = [
        (config(&[4, 4], Some(&[1]), 1, ""), "topology.links", "entries"),
        (config(&[4, 1], None, 1, ""), "topology.dims[1]", "at least 2"),
        (config(&[16, 16, 16, 16], None, 5, ""), "topology.dims", "at most 64"),
        (config(&[8, 8], None, 8, "[router]\nvcs = 6\n"), "router.vcs", "132 input VCs"),
        (config(&[4, 4], None, 1, "[router]\ntype = \"buffered_crossbar\"\n"), "router.type", "input_queued"),
        (config(&[4, 4], None, 1, "[faults]\nlinks = [[0, 0]]\n"), "faults", "remove"),
        (config(&[4, 4], None, 1, "mode = \"dal\"\n"), "routing.mode", "ugal"),
    ];
    for (toml, field, fix) in cases {
        let e = Config::from_toml(&toml, &[]).and_then(|c| c.validate()).unwrap_err().to_string();
        assert!(e.contains(field) && e.contains(fix), "{toml}\n -> {e}");
    }
}

#[test]
fn the_preset_builds_a_flattened_butterfly_with_deadlock_free_routes() {
    let preset = include_str!("../../../presets/hyperx-256.toml");
    for (mode, classes) in [("dor", 1), ("valiant", 2), ("ugal", 2)] {
        let toml = preset.replace("mode = \"dor\"", &format!("mode = \"{mode}\""));
        let (t, r) = routes(&toml);
        assert_eq!((t.num_nodes, t.num_routers, t.ports), (256, 64, 13));
        assert_eq!(r.injection_vcs(), (0, 4 / classes as u8));
        let report = cdg::check(&r, &t, 4);
        assert!(report.acyclic && report.routable_pairs == report.pairs, "{mode}: {:?}", report.cycle);
    }
}
