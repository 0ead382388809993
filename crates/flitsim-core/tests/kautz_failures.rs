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
        ("[[faults.at]]\ncycle = 10\nlinks = [[1, 0]]\n[[faults.at]]\ncycle = 20\nlinks = [[2, 1], [1, 0]]\n", "faults.at[1].links[1]", "faults.at[0].links[0]"),
        ("[faults]\nlinks = [[1, 0]]\n[[faults.at]]\ncycle = 10\nlinks = [[1, 0]]\n", "faults.at[0].links[0]", "before the run"),
        // Every link out of node 4 fails: nothing leaves it.
        ("[[faults.at]]\ncycle = 10\nlinks = [[4, 0], [4, 1], [4, 2]]\n", "faults.at[0]", "no route"),
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
