//! Kautz networks in the engine (SiCortex, sections 4.1-4.2 and 5): the graph as a
//! topology, source routing with VCs by node order, its channel dependency graph (acyclic
//! with floor(D/2) + 1 VCs, cyclic with one fewer), zero-load latency and full drains.

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::routing::source::{SourceRouting, VcStart};
use flitsim_core::routing::{cdg, RoutingFunction};
use flitsim_core::sim::Simulation;
use flitsim_core::topology::{Topology, TopologyConfig};

fn kautz(d: u32, diameter: u32) -> Topology {
    Topology::build(&TopologyConfig::Kautz { degree: d, diameter }, "topology").unwrap()
}

fn run(toml: &str) -> Report {
    let cfg = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    Simulation::run_spec(cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// Figure 3's twelve-node K(3, 2): 12 routers with 3 links out and 3 in, 36 channels;
/// from any node 3 nodes are 1 hop away and the other 8 are 2 hops away (ab reaches
/// b* in one hop and every *-* string but itself in two), so the mean distance over
/// distinct pairs is (3 + 16) / 11 and the diameter is 2.
#[test]
fn twelve_node_kautz_topology() {
    let t = kautz(3, 2);
    assert_eq!((t.num_routers, t.num_nodes, t.ports, t.channels.len()), (12, 12, 4, 36));
    for (id, c) in t.channels.iter().enumerate() {
        assert_eq!(t.out_channel[(c.src_router * t.ports + c.src_port) as usize], id as u32);
        assert_eq!(t.in_channel[(c.dst_router * t.ports + c.dst_port) as usize], id as u32);
    }
    let s = t.summary();
    assert_eq!(s.diameter, 2);
    assert!((s.avg_hops_distinct - 19.0 / 11.0).abs() < 1e-12, "{}", s.avg_hops_distinct);
    // The paper's lower bound (d+1) d^D / 2D = 4 x 9 / 4 = 9 channels crossing a balanced
    // cut (both directions); METIS's cut cannot be below it, and a cut never crosses more
    // than the 36 channels.
    assert!((9..36).contains(&s.bisection_channels), "{}", s.bisection_channels);
}

fn source(t: &Topology, vcs: u32, start: VcStart) -> RoutingFunction {
    RoutingFunction::Source(SourceRouting::unchecked(t, vcs, start).unwrap())
}

/// Section 4.2: with floor(D/2) + 1 VCs the node-order assignment has no dependency
/// cycle, for both starting rules; with one VC fewer (the top decrement clamped) the
/// check finds one. Every pair is routed on a shortest route.
#[test]
fn node_order_vcs_are_deadlock_free_and_one_fewer_is_not() {
    for (d, diameter) in [(2, 3), (3, 3), (2, 4), (3, 4), (2, 5)] {
        let t = kautz(d, diameter);
        let need = diameter / 2 + 1;
        for start in [VcStart::Exact, VcStart::Half] {
            let ok = cdg::check(&source(&t, need, start), &t, need);
            assert!(ok.acyclic, "K({d},{diameter}) {start:?} with {need} VCs: {:?}", ok.cycle);
            assert_eq!(ok.routable_pairs, ok.pairs);
            let fewer = cdg::check(&source(&t, need - 1, start), &t, need - 1);
            assert!(!fewer.acyclic, "K({d},{diameter}) {start:?} with {} VCs has no cycle", need - 1);
        }
        let r = source(&t, need, VcStart::Exact);
        for src in 0..t.num_nodes {
            for dst in 0..t.num_nodes {
                let hops = r.path(&t, src, dst, 0).unwrap();
                assert_eq!(hops.len() as u32 - 1, t.router_distance(src, dst), "K({d},{diameter}) {src}->{dst}");
                // `exact`: the packet arrives on VC 0.
                assert_eq!(hops.last().unwrap().vc, 0, "K({d},{diameter}) {src}->{dst}: {hops:?}");
            }
        }
    }
}

const NET: &str = "[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 2\n[routing]\ntype = \"source\"\n";

/// Zero load on K(3, 2) with the input-queued router and unit delays: a 1-flit packet
/// over h router hops takes T(h) = 6 + 5h (tests/engine_invariants.rs derives it), so
/// nearly every packet sits on 6, 11 or 16 (the rest met another) and the mean is
/// T(mean hops).
#[test]
fn zero_load_latency_on_kautz() {
    let toml = format!(
        "{NET}[router]\nvcs = 2\nrouting_delay = 1\nvc_alloc_delay = 1\nsw_alloc_delay = 1\nst_delay = 1\n\
         [traffic]\nload = 0.002\npacket_size = 1\n[sim]\ncheck = true\nwarmup = 100\nmeasure = 100000\ndrain_limit = 1000\n"
    );
    let r = run(&toml);
    let s = &r.stats;
    assert!(s.packets_delivered > 150 && s.packets_delivered == s.packets_measured);
    let net = &s.network_latency;
    assert_eq!(net.min, 6);
    assert!(net.max >= 16);
    let on: u64 = net
        .histogram
        .counts
        .iter()
        .enumerate()
        .filter(|(i, _)| [6, 11, 16].contains(&(net.histogram.start + *i as u64)))
        .map(|(_, &c)| c)
        .sum();
    assert!(on as f64 >= 0.98 * net.count as f64, "{on} of {} on 6, 11, 16", net.count);
    let closed = 6.0 + 5.0 * s.avg_hops;
    assert!(s.network_latency.mean >= closed - 1e-9 && s.network_latency.mean < closed * 1.005, "{} vs {closed}", s.network_latency.mean);
    // Uniform over 12 nodes, a node to itself included: (0 + 3 + 16) / 12 hops.
    assert!((s.avg_hops - 19.0 / 12.0).abs() < 0.05, "{}", s.avg_hops);
}

/// Saturating load on K(3, 3) and K(2, 4), every source sending 60 packets: with the
/// node-order VCs everything drains (check mode verifies flit and credit conservation).
#[test]
fn heavy_load_drains_on_node_order_vcs() {
    for (d, diameter, start) in [(3, 3, "exact"), (2, 4, "half"), (3, 3, "half")] {
        let vcs = diameter / 2 + 1;
        let toml = format!(
            "[topology]\ntype = \"kautz\"\ndegree = {d}\ndiameter = {diameter}\n[routing]\ntype = \"source\"\nvc_start = \"{start}\"\n\
             [router]\nvcs = {vcs}\nbuffer_depth = 4\n[traffic]\nload = 1.0\npacket_size = 6\npackets_per_source = 60\n\
             [sim]\ncheck = true\nwarmup = 0\nmeasure = 3000\ndrain_limit = 200000\n"
        );
        let r = run(&toml);
        assert_eq!(r.counters.packets_delivered, r.counters.packets_created, "K({d},{diameter}) {start}");
        assert_eq!(r.counters.packets_created, 60 * r.topology.nodes as u64);
    }
}

#[test]
fn crosspoint_switches_of_the_largest_shapes_deliver_everything() {
    // A crosspoint switch remembers, per input and output, which entry a packet streams
    // through: with 9 outputs (degree 8) and 32 entries per buffer that is 9 x 32 = 288
    // places, more than a byte holds (the switch once kept it in a byte, and K(8, 2)
    // with 32 entries deadlocked). Degree 15, the most the switch has, with 32 entries
    // makes 16 x 32 = 512. An output's arbiter keeps the (input, VC) pairs with a queue
    // for it as a 64-bit set: 16 inputs x 4 VCs fill it.
    for (d, xb, vcs) in [(8, 32, 2), (15, 32, 2), (8, 16, 2), (15, 32, 4)] {
        let toml = format!(
            "[topology]\ntype = \"kautz\"\ndegree = {d}\ndiameter = 2\n[routing]\ntype = \"source\"\n\
             [router]\ntype = \"crosspoint\"\nvcs = {vcs}\nxb_packets = {xb}\n[traffic]\nload = 0.6\npacket_size = 6\npackets_per_source = 30\n\
             [sim]\ncheck = true\nwarmup = 0\nmeasure = 100000\nuntil_done = true\n"
        );
        let r = run(&toml);
        let what = format!("K({d}, 2), {xb} entries, {vcs} VCs");
        assert_eq!(r.counters.packets_created, 30 * r.topology.nodes as u64, "{what}");
        assert_eq!(r.counters.packets_delivered, r.counters.packets_created, "{what}");
    }
}

#[test]
fn config_errors_name_the_field_and_the_fix() {
    let cases = [
        ("[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 2\n", "routing.type", "source"),
        ("[routing]\ntype = \"source\"\n", "routing.type", "kautz"),
        ("[topology]\ntype = \"kautz\"\ndegree = 1\ndiameter = 2\n[routing]\ntype = \"source\"\n", "topology.degree", "2..="),
        ("[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 0\n[routing]\ntype = \"source\"\n", "topology.diameter", "1 or more"),
        (
            "[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 6\n[routing]\ntype = \"source\"\n[router]\nvcs = 3\n",
            "router.vcs",
            "vcs >= 4",
        ),
    ];
    for (toml, field, fix) in cases {
        let err = Config::from_toml(toml, &[]).and_then(|c| c.validate().map(|_| ())).expect_err(toml).to_string();
        assert!(err.contains(field) && err.contains(fix), "{toml}\n-> {err}");
    }
}

const XP: &str =
    "[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 2\n[routing]\ntype = \"source\"\n[router]\ntype = \"crosspoint\"\nvcs = 2\n";

/// The crosspoint switch at zero load: a head enters the DMA queue from the injection
/// channel (1 cycle) and moves into the local crosspoint buffer in its arrival cycle; in
/// each of the h + 1 switches it crosses it waits `xb_delay` (1) in the crosspoint
/// buffer and takes `output_delay` (1) plus the link or delivery channel (1); the tail
/// follows `size - 1` cycles behind. So T(h) = 1 + 3 (h + 1) + (size - 1): with 4-flit
/// packets 7, 10, 13 on K(3, 2). Nearly every packet sits on those values.
#[test]
fn crosspoint_switch_zero_load_latency() {
    let toml =
        format!("{XP}[traffic]\nload = 0.004\npacket_size = 4\n[sim]\ncheck = true\nwarmup = 100\nmeasure = 60000\ndrain_limit = 1000\n");
    let r = run(&toml);
    let s = &r.stats;
    assert!(s.packets_delivered > 150 && s.packets_delivered == s.packets_measured, "{} of {}", s.packets_delivered, s.packets_measured);
    let net = &s.network_latency;
    assert_eq!(net.min, 7, "T(0)");
    let on: u64 = net
        .histogram
        .counts
        .iter()
        .enumerate()
        .filter(|(i, _)| [7, 10, 13].contains(&(net.histogram.start + *i as u64)))
        .map(|(_, &c)| c)
        .sum();
    assert!(on as f64 >= 0.98 * net.count as f64, "{on} of {} on 7, 10, 13", net.count);
    let closed = 4.0 + 3.0 * s.avg_hops + 3.0;
    assert!(net.mean >= closed - 1e-9 && net.mean < closed * 1.01, "{} vs {closed}", net.mean);
    let c = r.crosspoint.expect("crosspoint counters");
    assert!(c.bypassed > 20 * c.buffered, "nearly every packet bypasses: {c:?}");
}

/// Saturating load through the crosspoint switches on K(3, 3) and K(2, 4), every source
/// sending 60 packets of 1, 3 or 10 flits: all are delivered, with flit conservation and
/// the crosspoint entry accounting (reserved entry per VC, shared rest) checked every
/// cycle, for both VC start rules and small buffers.
#[test]
fn crosspoint_switch_drains_under_saturation() {
    for (d, diameter, start, xb) in [(3, 3, "exact", 2), (2, 4, "half", 4), (3, 3, "half", 16)] {
        let vcs = diameter / 2 + 1;
        let toml = format!(
            "[topology]\ntype = \"kautz\"\ndegree = {d}\ndiameter = {diameter}\n[routing]\ntype = \"source\"\nvc_start = \"{start}\"\n\
             [router]\ntype = \"crosspoint\"\nvcs = {vcs}\nxb_packets = {xb}\n[traffic]\nload = 1.0\npackets_per_source = 60\n\
             packet_size = {{ sizes = [1, 3, 10], weights = [1, 1, 1] }}\n[sim]\ncheck = true\nwarmup = 0\nmeasure = 3000\ndrain_limit = 200000\n"
        );
        let r = run(&toml);
        assert_eq!(r.counters.packets_delivered, 60 * r.topology.nodes as u64, "K({d},{diameter}) {start} xb {xb}");
    }
}

/// Multi-rail (section 6.1): packets of a pair go round robin over its 3 node-disjoint
/// routes, which are longer on average than the one shortest route, so the mean hop
/// count rises to the disjoint routes' mean (computed here from the routes themselves);
/// every packet still arrives (with check mode), though a pair's packets may overtake
/// each other on different rails.
#[test]
fn multi_rail_spreads_packets_over_disjoint_routes() {
    use flitsim_core::topology::kautz::{disjoint::DisjointRoutes, faults::Faults, Kautz};
    let toml = |rails: u32| {
        format!(
            "[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[routing]\ntype = \"source\"\nrails = {rails}\n\
             [router]\ntype = \"crosspoint\"\nvcs = 3\n[traffic]\nload = 0.3\npackets_per_source = 300\npacket_size = 4\n\
             [sim]\ncheck = true\nwarmup = 0\nmeasure = 20000\ndrain_limit = 200000\n"
        )
    };
    let (one, three) = (run(&toml(1)), run(&toml(3)));
    for r in [&one, &three] {
        assert_eq!(r.counters.packets_delivered, 300 * 36);
    }
    let k = Kautz::new(3, 3).unwrap();
    let mut solver = DisjointRoutes::new(&Faults::new(&k));
    let (mut sum, mut n) = (0.0, 0.0);
    for s in 0..36 {
        for d in 0..36 {
            let routes = solver.routes(s, d);
            sum += routes.iter().map(|r| r.len() as f64).sum::<f64>() / routes.len() as f64;
            n += 1.0;
        }
    }
    let expected = sum / n;
    assert!(three.stats.avg_hops > one.stats.avg_hops + 0.3, "{} vs {}", three.stats.avg_hops, one.stats.avg_hops);
    assert!((three.stats.avg_hops - expected).abs() < 0.05 * expected, "{} vs the disjoint routes' mean {expected}", three.stats.avg_hops);
    assert_eq!(one.counters.packets_reordered, 0, "one route per pair keeps order");
}

#[test]
fn multi_rail_config_errors() {
    let base = "[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[router]\ntype = \"crosspoint\"\n";
    for (extra, field, fix) in [
        ("[routing]\ntype = \"source\"\nrails = 4\n", "routing.rails", "1..=3"),
        ("[routing]\ntype = \"source\"\nrails = 3\n", "router.vcs", "vcs >= 3"),
    ] {
        let toml = format!("{base}vcs = 2\n{extra}");
        let err = Config::from_toml(&toml, &[]).and_then(|c| c.validate().map(|_| ())).expect_err(&toml).to_string();
        assert!(err.contains(field) && err.contains(fix), "{toml}\n-> {err}");
    }
}
