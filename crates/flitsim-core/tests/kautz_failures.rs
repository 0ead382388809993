//! Links failing for good during a run (`[[faults.at]]`, SiCortex footnote 3 and sections
//! 5 and 6.3): every packet created is delivered exactly once or counted lost, nothing
//! crosses the link after it fails, new packets take the shortest routes of the damaged
//! graph (checked against a breadth-first search written here), and runs repeat exactly.

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::router::Routers;
use flitsim_core::routing::RoutingFunction;
use flitsim_core::sim::Simulation;
use flitsim_core::topology::{Topology, NONE};

/// K(3, 3) (36 nodes), crosspoint switches with retry links, uniform traffic at 0.5,
/// `faults` appended; check mode on.
fn config(faults: &str, vcs: u32) -> String {
    format!(
        "seed = 7\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[routing]\ntype = \"source\"\n\
         [router]\ntype = \"crosspoint\"\nvcs = {vcs}\n[channel]\nlatency = 2\n[channel.retry.errors]\nber = 2e-5\n\
         [traffic]\nload = 0.5\npackets_per_source = 150\npacket_size = {{ sizes = [4, 12], weights = [1, 1] }}\n\
         [sim]\ncheck = true\nwarmup = 0\nmeasure = 3000\ndrain_limit = 200000\n{faults}"
    )
}

fn sim(toml: &str) -> Simulation {
    let cfg = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    Simulation::new(cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap()
}

fn run(toml: &str) -> Report {
    sim(toml).run(&mut |_| {}).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// Breadth-first distances from every node over the working channels of `topo`, minus
/// the `failed` channels: `dist[s][d]` (`u32::MAX`: unreachable). Independent of the
/// routing code: it reads only the channel list.
fn bfs(topo: &Topology, failed: &[u32]) -> Vec<Vec<u32>> {
    let n = topo.num_routers as usize;
    let mut adj = vec![Vec::new(); n];
    for (id, c) in topo.channels.iter().enumerate() {
        if !failed.contains(&(id as u32)) && topo.out_channel[(c.src_router * topo.ports + c.src_port) as usize] == id as u32 {
            adj[c.src_router as usize].push(c.dst_router as usize);
        }
    }
    (0..n)
        .map(|s| {
            let mut dist = vec![u32::MAX; n];
            dist[s] = 0;
            let mut queue = std::collections::VecDeque::from([s]);
            while let Some(x) = queue.pop_front() {
                for &y in &adj[x] {
                    if dist[y] == u32::MAX {
                        dist[y] = dist[x] + 1;
                        queue.push_back(y);
                    }
                }
            }
            dist
        })
        .collect()
}

/// The route the sources build now from `s` to `d`: the (router, out-port) of each hop.
fn route(sim: &Simulation, s: u32, d: u32) -> Vec<(u32, u8)> {
    let RoutingFunction::Source(r) = &sim.spec().routing else { panic!("source routing") };
    let (mut at, mut hops) = (s, Vec::new());
    while let Some(p) = r.next_port(at, d) {
        hops.push((at, p));
        at = r.kautz().out_neighbour(at, p);
        assert!(hops.len() <= 36, "{s} -> {d} loops");
    }
    assert_eq!(at, d, "{s} -> {d} ends elsewhere");
    hops
}

/// Link 5 -> port 1 fails at cycle 400, mid-run: every cycle, created = delivered + lost +
/// alive (queued or in flight), and flits likewise; the link delivers nothing after 400;
/// at the end every packet is delivered once or counted lost, in order.
#[test]
fn a_link_failing_mid_run_delivers_or_counts_every_packet() {
    let (t, link) = (400u64, (5u32, 1u32));
    let mut s = sim(&config(&format!("[[faults.at]]\ncycle = {t}\nlinks = [[{}, {}]]\n", link.0, link.1), 3));
    let topo = s.spec().topology.clone();
    let channel = topo.out_channel[(link.0 * topo.ports + link.1) as usize];
    let link_delivered = |s: &Simulation| match &s.routers {
        Routers::Crosspoint(x) => x.retry_link_stats(channel).expect("retry on").delivered,
        _ => panic!("crosspoint"),
    };
    let conserved = |s: &Simulation| {
        let c = &s.counters;
        assert_eq!(c.packets_created, c.packets_delivered + c.packets_lost + s.packets.live(), "cycle {}: {c:?}", s.now());
        assert!(c.flits_ejected + c.flits_lost <= c.flits_injected);
    };
    for _ in 0..t {
        s.step().unwrap();
        conserved(&s);
    }
    assert!(link_delivered(&s) > 0, "the link carried traffic before it failed");
    let at_failure = link_delivered(&s);
    for _ in 0..2000 {
        s.step().unwrap();
        conserved(&s);
    }
    assert_eq!(link_delivered(&s), at_failure, "nothing crosses the link after it failed");
    let r = s.run(&mut |_| {}).unwrap();
    let c = &r.counters;
    assert_eq!(c.packets_created, 150 * 36);
    assert_eq!(c.packets_delivered + c.packets_lost, c.packets_created, "{c:?}");
    assert_eq!(c.flits_ejected + c.flits_lost, c.flits_injected, "{c:?}");
    assert_eq!(c.measured_delivered + c.measured_lost, c.packets_created);
    assert_eq!(c.packets_reordered, 0);
    let x = r.retry.as_ref().unwrap();
    assert_eq!(x.packets_lost + x.packets_at_failed_links, c.packets_lost, "every loss is the failed link's: {x:?}");
    assert!(c.packets_lost > 0, "at load 0.5 the link held packets when it failed");
    let f = &r.failures_during_run;
    assert_eq!((f.len(), f[0].cycle, f[0].links.clone()), (1, t, vec![link]));
}

/// Before the failure the sources use the string-shift routes (the intact graph's
/// distances); from its cycle on, routes avoid the links and are shortest on the damaged
/// graph, and with one failed link the diameter grows by at most one (section 5: "a link
/// or node failure in a Kautz digraph increases the diameter by just 1"). The bound is
/// on the diameter, not per pair: a pair whose direct link fails goes from 1 hop to up to
/// D + 1 (20 -> 6 here: 1 to 4).
#[test]
fn routes_switch_at_the_failure_cycle_to_shortest_surviving_ones() {
    for links in [vec![(5u32, 1u32)], vec![(5, 1), (20, 0)], vec![(0, 0), (17, 2)]] {
        let list = links.iter().map(|(r, p)| format!("[{r}, {p}]")).collect::<Vec<_>>().join(", ");
        let mut s = sim(&config(&format!("[[faults.at]]\ncycle = 300\nlinks = [{list}]\n"), 3));
        let topo = s.spec().topology.clone();
        let failed: Vec<u32> = links.iter().map(|&(r, p)| topo.out_channel[(r * topo.ports + p) as usize]).collect();
        assert!(failed.iter().all(|&c| c != NONE));
        let (intact, damaged) = (bfs(&topo, &[]), bfs(&topo, &failed));
        s.run_cycles(300).unwrap();
        let n = topo.num_routers;
        for a in 0..n {
            for b in 0..n {
                assert_eq!(route(&s, a, b).len() as u32, intact[a as usize][b as usize], "before: {a} -> {b}");
            }
        }
        s.step().unwrap(); // cycle 300: the tables switch before the sources inject
        let (mut diameter, mut growth) = (0, 0);
        for a in 0..n {
            for b in 0..n {
                let hops = route(&s, a, b);
                for &(r, p) in &hops {
                    assert!(!links.contains(&(r, u32::from(p))), "{a} -> {b} crosses a failed link: {hops:?}");
                }
                let (h, d0, d1) = (hops.len() as u32, intact[a as usize][b as usize], damaged[a as usize][b as usize]);
                assert_eq!(h, d1, "{links:?}: {a} -> {b} is not a shortest surviving route");
                diameter = diameter.max(h);
                growth = growth.max(h - d0);
            }
        }
        if links.len() == 1 {
            assert!(diameter <= 3 + 1, "{links:?}: diameter {diameter}");
        }
        let f = &s.spec().timed_failures[0];
        assert_eq!((f.diameter, f.max_extra_hops), (diameter, growth), "{links:?}");
    }
}

/// Same config and seed: the same result, byte for byte.
#[test]
fn runs_with_a_failing_link_repeat_exactly() {
    let toml = config("[[faults.at]]\ncycle = 250\nlinks = [[9, 2]]\n[[faults.at]]\ncycle = 900\nlinks = [[30, 0]]\n", 3);
    let (a, b) = (run(&toml), run(&toml));
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    assert_eq!(a.failures_during_run.len(), 2);
    assert_eq!(a.counters.packets_delivered + a.counters.packets_lost, a.counters.packets_created);
}

/// The SC5832 (K(3, 6), 972 nodes) with a link failing at cycle 1,500 under uniform load:
/// the same accounting at full size, and the diameter grows from 6 to at most 7.
#[test]
fn the_sc5832_loses_only_what_the_failed_link_held() {
    let toml = "seed = 2\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 6\n[routing]\ntype = \"source\"\n\
        [router]\ntype = \"crosspoint\"\nvcs = 4\n[channel]\nlatency = 2\n[channel.retry]\nwindow = 15\n\
        [traffic]\nload = 0.3\npackets_per_source = 12\npacket_size = 8\n[sim]\nwarmup = 0\nmeasure = 1000\ndrain_limit = 100000\n\
        [[faults.at]]\ncycle = 150\nlinks = [[100, 2]]\n";
    let r = run(toml);
    let c = &r.counters;
    assert_eq!(c.packets_created, 12 * 972);
    assert_eq!(c.packets_delivered + c.packets_lost, c.packets_created, "{c:?}");
    assert_eq!(c.flits_ejected + c.flits_lost, c.flits_injected);
    let f = &r.failures_during_run[0];
    assert!(f.diameter <= 7 && f.vcs_needed <= 4, "{f:?}");
}

fn refused(faults: &str, vcs: u32) -> String {
    let toml = config(faults, vcs);
    match Config::from_toml(&toml, &[]).and_then(|c| c.validate().map(|_| ())) {
        Ok(()) => panic!("accepted:\n{faults}"),
        Err(e) => e.to_string(),
    }
}

/// Every refusal names the field and the fix.
#[test]
fn bad_failure_schedules_name_the_field() {
    let cases = [
        ("[[faults.at]]\ncycle = 0\nlinks = [[1, 0]]\n", "faults.at[0].cycle", "faults.links"),
        ("[[faults.at]]\ncycle = 10\nlinks = []\n", "faults.at[0].links", "at least one"),
        ("[[faults.at]]\ncycle = 10\nlinks = [[36, 0]]\n", "faults.at[0].links[0]", "routers 0..35"),
        (
            "[[faults.at]]\ncycle = 10\nlinks = [[1, 0]]\n[[faults.at]]\ncycle = 20\nlinks = [[2, 1], [1, 0]]\n",
            "faults.at[1].links[1]",
            "faults.at[0].links[0]",
        ),
        ("[faults]\nlinks = [[1, 0]]\n[[faults.at]]\ncycle = 10\nlinks = [[1, 0]]\n", "faults.at[0].links[0]", "before the run"),
        // Every link out of node 4 fails: nothing leaves it.
        ("[[faults.at]]\ncycle = 10\nlinks = [[4, 0], [4, 1], [4, 2]]\n", "faults.at[0]", "no route"),
        ("[[faults.at]]\ncycle = 10\nnodes = [36]\n", "faults.at[0].nodes[0]", "nodes 0..35"),
        (
            "[[faults.at]]\ncycle = 10\nnodes = [3]\n[[faults.at]]\ncycle = 20\nnodes = [3]\n",
            "faults.at[1].nodes[0]",
            "faults.at[0].nodes[0]",
        ),
        ("[faults]\nnodes = [3]\n[[faults.at]]\ncycle = 10\nnodes = [3]\n", "faults.at[0].nodes[0]", "before the run"),
        (
            "[[faults.at]]\ncycle = 10\nnodes = [4]\n[[faults.at]]\ncycle = 20\nlinks = [[4, 0]]\n",
            "faults.at[1].links[0]",
            "already failed",
        ),
    ];
    for (faults, path, fix) in cases {
        let e = refused(faults, 3);
        assert!(e.contains(path) && e.contains(fix), "{faults}: {e}");
    }
    let plain = config("[[faults.at]]\ncycle = 10\nlinks = [[1, 0]]\n", 3).replace("[channel.retry.errors]\nber = 2e-5\n", "");
    let e = Config::from_toml(&plain, &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("faults.at") && e.contains("[channel.retry]"), "{e}");
}

/// The VCs must hold the new routes' decrements: some single failure in K(3, 3) needs a
/// third VC, and with two the schedule is refused naming router.vcs and the cycle.
#[test]
fn too_few_vcs_for_the_new_routes_are_refused() {
    let mut found = false;
    'search: for r in 0..36 {
        for p in 0..3 {
            let faults = format!("[[faults.at]]\ncycle = 10\nlinks = [[{r}, {p}]]\n");
            let toml = config(&faults, 2);
            if let Err(e) = Config::from_toml(&toml, &[]).unwrap().validate() {
                let e = e.to_string();
                assert!(e.contains("router.vcs") && e.contains("faults.at[0]") && e.contains("vcs >= 3"), "{e}");
                found = true;
                break 'search;
            }
        }
    }
    assert!(found, "no single failure in K(3, 3) needs a third VC");
}

/// Multi-rail (3 rails, so 4 VCs) with a link failing mid-run: from the failure on, new
/// packets spread over the disjoint routes of the damaged graph, so the only packets lost
/// are those on or routed over the link when it failed (the count stops growing soon
/// after the failure), nothing crosses the link afterwards, and every packet is delivered
/// once or counted lost. Packets of a pair do overtake each other on different rails.
#[test]
fn multi_rail_routes_around_a_link_failing_mid_run() {
    let (t, link) = (400u64, (5u32, 1u32));
    let toml = config(&format!("[[faults.at]]\ncycle = {t}\nlinks = [[{}, {}]]\n", link.0, link.1), 4)
        .replace("type = \"source\"\n", "type = \"source\"\nrails = 3\n")
        .replace("packets_per_source = 150", "packets_per_source = 400")
        .replace("measure = 3000", "measure = 9000");
    let mut s = sim(&toml);
    let topo = s.spec().topology.clone();
    let channel = topo.out_channel[(link.0 * topo.ports + link.1) as usize];
    let link_delivered = |s: &Simulation| match &s.routers {
        Routers::Crosspoint(x) => x.retry_link_stats(channel).expect("retry on").delivered,
        _ => panic!("crosspoint"),
    };
    s.run_cycles(t).unwrap();
    let at_failure = link_delivered(&s);
    assert!(at_failure > 0, "a rail used the link before it failed");
    s.run_cycles(1500).unwrap();
    let lost_soon_after = s.counters.packets_lost;
    assert_eq!(link_delivered(&s), at_failure, "nothing crosses the link after it failed");
    assert!(s.counters.packets_created < 400 * 36 / 2, "most packets are still to come: {:?}", s.counters);
    let r = s.run(&mut |_| {}).unwrap();
    let c = &r.counters;
    assert_eq!(c.packets_lost, lost_soon_after, "packets created after the failure were routed over the dead link: {c:?}");
    assert_eq!(c.packets_created, 400 * 36);
    assert_eq!(c.packets_delivered + c.packets_lost, c.packets_created, "{c:?}");
    assert_eq!(c.flits_ejected + c.flits_lost, c.flits_injected, "{c:?}");
    assert!(c.packets_reordered > 0, "rails of different lengths reorder packets: {c:?}");
}

/// Multi-rail with links failed before the run: nothing is lost, and the disjoint routes
/// cost hops: more than the shortest surviving routes of the single-rail run, whose mean
/// hop count is the damaged graph's mean distance (the BFS here) under uniform traffic.
#[test]
fn multi_rail_around_links_failed_before_the_run_delivers_everything() {
    let faults = "[faults]\nlinks = [[5, 1], [20, 0]]\n";
    let single = run(&config(faults, 4));
    let multi = run(&config(faults, 4).replace("type = \"source\"\n", "type = \"source\"\nrails = 3\n"));
    for r in [&single, &multi] {
        let c = &r.counters;
        assert_eq!(c.packets_created, 150 * 36);
        assert_eq!((c.packets_delivered, c.packets_lost), (c.packets_created, 0), "{c:?}");
    }
    assert!(multi.counters.packets_reordered > 0);
    let hops = |r: &Report| r.stats.avg_hops;
    assert!(hops(&multi) > hops(&single) * 1.1, "multi-rail {} hops vs single {}", hops(&multi), hops(&single));
}

/// Node 7 of K(3, 3) fails at cycle 400 (`[[faults.at]] nodes`) under load 0.9, so that
/// queues have built up: its six links carry
/// nothing from then on, the other sources refuse packets to it (reported), it sends no
/// more, and every packet created is delivered once or counted lost, the losses all
/// explained by the retry report and all caused near the failure; the node accepts
/// nothing once the packets it had begun to deliver are in. The routes from 400
/// avoid the node and the run ends (the dead node's quota is never reached).
#[test]
fn a_node_failing_mid_run_delivers_or_counts_every_packet() {
    let (t, node) = (400u64, 7u32);
    let toml = config(&format!("[[faults.at]]\ncycle = {t}\nnodes = [{node}]\n"), 3)
        .replace("packets_per_source = 150", "packets_per_source = 400")
        .replace("load = 0.5", "load = 0.9")
        .replace("measure = 3000", "measure = 9000")
        .replace("warmup = 0", "warmup = 430");
    let mut s = sim(&toml);
    let topo = s.spec().topology.clone();
    let links: Vec<u32> = (0..3)
        .flat_map(|p| [topo.out_channel[(node * topo.ports + p) as usize], topo.in_channel[(node * topo.ports + p) as usize]])
        .collect();
    assert_eq!(links.len(), 6);
    let carried = |s: &Simulation| -> Vec<u64> {
        match &s.routers {
            Routers::Crosspoint(x) => links.iter().map(|&c| x.retry_link_stats(c).expect("retry on").delivered).collect(),
            _ => panic!("crosspoint"),
        }
    };
    let conserved = |s: &Simulation| {
        let c = &s.counters;
        assert_eq!(c.packets_created, c.packets_delivered + c.packets_lost + s.packets.live(), "cycle {}: {c:?}", s.now());
    };
    for _ in 0..t {
        s.step().unwrap();
        conserved(&s);
    }
    let at_failure = carried(&s);
    assert!(at_failure.iter().all(|&d| d > 0), "every link of the node carried traffic: {at_failure:?}");
    for _ in 0..1500 {
        s.step().unwrap();
        conserved(&s);
    }
    assert_eq!(carried(&s), at_failure, "nothing crosses the node's links after it failed");
    let lost_soon_after = s.counters.packets_lost;
    for a in (0..36).filter(|&a| a != node) {
        for b in (0..36).filter(|&b| b != node && b != a) {
            assert!(route(&s, a, b).iter().all(|&(r, _)| r != node), "{a} -> {b} passes the dead node");
        }
    }
    let r = s.run(&mut |_| {}).unwrap();
    let c = &r.counters;
    assert_eq!(c.packets_lost, lost_soon_after, "losses after the failure: {c:?}");
    assert!(c.packets_lost > 0, "the node's switch and links held packets");
    assert_eq!(c.packets_delivered + c.packets_lost, c.packets_created, "{c:?}");
    assert_eq!(c.flits_ejected + c.flits_lost, c.flits_injected, "{c:?}");
    let x = r.retry.as_ref().unwrap();
    assert!(x.packets_at_failed_nodes > 0, "near saturation the node's switch and DMA queues held packets: {x:?}");
    assert_eq!(x.packets_lost + x.packets_at_failed_links + x.packets_at_failed_nodes, c.packets_lost, "{x:?}");
    // The 35 live sources draw their whole quota (refused draws count towards it);
    // node 7 drew for 400 cycles at 0.9 flits/cycle in packets of 8 flits on average,
    // about 45. Uniform traffic sends 1/35 of the live sources' later draws to node 7:
    // about (14,000 - 35 * 45) / 35 = 355 refused.
    let refused = r.packets_refused_to_failed_nodes.expect("reported with node failures");
    let from_node = c.packets_created + refused - 400 * 35;
    assert!((30..=65).contains(&from_node), "node 7 created {from_node} before it failed");
    assert!((280..=430).contains(&refused), "refused {refused}");
    // From the window's start, 30 cycles after the failure (time for a packet the node
    // had begun to deliver to finish), nothing reaches the dead node.
    assert_eq!(r.stats.accepted.values[node as usize], 0.0, "the dead node accepted flits");
    assert_eq!(r.stats.accepted.values.iter().filter(|&&v| v > 0.0).count(), 35);
    let f = &r.failures_during_run[0];
    assert_eq!((f.cycle, f.nodes.clone(), f.links.len()), (t, vec![node], 0));
    assert!(f.diameter <= 4, "{f:?}");
}

/// A hot spot at node 7 (half of all packets go there) piles packets up in its switch,
/// waiting for its one delivery port. When the node fails at cycle 600 those are lost
/// with it (the chip is switch and processors together): counted at the failed node, and
/// from 30 cycles on the node accepts nothing; every packet is delivered or counted lost.
#[test]
fn a_failing_hot_spot_loses_the_packets_waiting_in_its_switch() {
    let toml = config("[[faults.at]]\ncycle = 600\nnodes = [7]\n[traffic.pattern]\ntype = \"hotspot\"\nnodes = [7]\nfraction = 0.5\n", 3)
        .replace("load = 0.5\n", "load = 0.3\n")
        .replace("warmup = 0", "warmup = 630")
        .replace("measure = 3000", "measure = 9000");
    let r = run(&toml);
    let c = &r.counters;
    let x = r.retry.as_ref().unwrap();
    assert!(x.packets_at_failed_nodes >= 10, "packets waiting for node 7's delivery port were lost with it: {x:?}");
    assert_eq!(x.packets_lost + x.packets_at_failed_links + x.packets_at_failed_nodes, c.packets_lost, "{x:?}");
    assert_eq!(c.packets_delivered + c.packets_lost, c.packets_created, "{c:?}");
    assert_eq!(c.flits_ejected + c.flits_lost, c.flits_injected, "{c:?}");
    assert_eq!(r.stats.accepted.values[7], 0.0, "the dead node accepted flits");
    assert!(r.packets_refused_to_failed_nodes.unwrap() > 1000, "half the later packets were for node 7");
}
