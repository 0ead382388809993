//! Table-driven routing in whole simulations: with one region the tables are DOR, so
//! every result is bit-identical to the DOR run; with several regions every packet
//! arrives, conservation holds, and the hierarchical routes are the minimal ones when a
//! region is a single YZ plane.

mod common;

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::sim::Simulation;

fn run(toml: &str) -> Report {
    let spec = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}")).validate().unwrap_or_else(|e| panic!("{e}"));
    Simulation::run_spec(spec).unwrap_or_else(|e| panic!("{e}"))
}

fn without_config(r: &Report) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    v.as_object_mut().unwrap().remove("config");
    v
}

#[test]
fn one_region_is_dor_bit_for_bit() {
    for router in ["type = \"input_queued\"\nvcs = 4", "type = \"buffered_crossbar\""] {
        let base = format!(
            "[topology]\ntype = \"cube\"\ndims = [5, 4, 3]\nwrap = [true, false, true]\n[router]\n{router}\n\
             [traffic]\nload = 0.35\npacket_size = 4\n[sim]\nwarmup = 300\nmeasure = 1500\ncheck = true\n"
        );
        let dor = run(&format!("{base}[routing]\ntype = \"dor\"\nclasses = 2\n"));
        let table = run(&format!("{base}[routing]\ntype = \"table\"\nclasses = 2\n"));
        assert_eq!(without_config(&dor), without_config(&table), "{router}");
    }
}

#[test]
fn several_regions_deliver_everything_minimally() {
    // 4x4x4 torus, 16-node regions (one YZ plane each): 4 regions, global tables in use.
    let base = "[topology]\ntype = \"torus\"\ndims = [4, 4, 4]\n[traffic]\nload = 0.4\npacket_size = 2\n\
                [sim]\nwarmup = 300\nmeasure = 2000\ncheck = true\n";
    let table = run(&format!("{base}[routing]\ntype = \"table\"\nregion_size = 16\n"));
    assert_eq!(table.stats.packets_delivered, table.stats.packets_measured);
    let dor = run(&format!("{base}[routing]\ntype = \"dor\"\n"));
    // The same minimal hop counts as DOR over the same traffic (same seed, same pairs).
    assert_eq!(table.stats.avg_hops, dor.stats.avg_hops);
    // Saturated, the tables still never deadlock (the watchdog would fail the run).
    let hot = run(&format!("{base}[routing]\ntype = \"table\"\nregion_size = 32\n").replace("load = 0.4", "load = 0.9"));
    assert!(hot.counters.packets_delivered > 0);
}

const FAULTY: &str = "[topology]\ntype = \"torus\"\ndims = [4, 4, 4]\n[router]\nvcs = 2\n\
                      [routing]\ntype = \"table\"\nvc_policy = \"v3\"\n\
                      [traffic]\nload = 0.3\n[sim]\nwarmup = 300\nmeasure = 1500\ncheck = true\n";

#[test]
fn routes_go_around_a_failed_link() {
    // Router 0's +x link fails: packets wanting it detour y+ (section 2.2.2).
    let toml = format!("{FAULTY}[faults]\nlinks = [[0, 0]]\n");
    let spec = Config::from_toml(&toml, &[]).unwrap().validate().unwrap();
    let topo = &spec.topology;
    let path = spec.routing.path(topo, 0, 1, 0).unwrap();
    assert_eq!(path[0].port, 2, "+x failed: the first hop is y+");
    // No route uses the failed link, every pair is connected, the routes are acyclic.
    let check = flitsim_core::routing::cdg::check(&spec.routing, topo, 2);
    assert!(check.acyclic && check.unreachable_pairs == 0, "{check:?}");
    for s in 0..topo.num_nodes {
        for d in 0..topo.num_nodes {
            let p = spec.routing.path(topo, s, d, 0).unwrap();
            assert!(!p.iter().any(|h| (h.router == 0 && h.port == 0) || (h.router == 1 && h.port == 1)), "{s} -> {d}");
        }
    }
    // And a simulation in check mode delivers everything.
    let r = Simulation::run_spec(spec).unwrap();
    assert_eq!(r.stats.packets_delivered, r.stats.packets_measured);
}

#[test]
fn a_fault_set_whose_routes_could_deadlock_is_refused() {
    // Router 0's -z link with one dateline node per dimension, pinned at the last nodes:
    // the z+ detour around it closes a dependency cycle through the z dateline; the
    // config is refused with the cycle, not simulated.
    let pinned = FAULTY.replace("vc_policy = \"v3\"", "vc_policy = \"v3\"\ndateline = [3, 3, 3]\nring_datelines = \"dimension\"");
    let toml = format!("{pinned}[faults]\nlinks = [[0, 5]]\n");
    let e = Config::from_toml(&toml, &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("`faults`") && e.contains("can deadlock") && e.contains(" -> "), "{e}");
    // Left to flitsim, the datelines move away from the fault (section 2.2.2); or the
    // broken ring gets its own dateline just past the failure (the default, here with
    // the same pinned nodes): either way the same fault set routes deadlock-free, and
    // simulates.
    let searched = FAULTY.replace("vc_policy = \"v3\"", "vc_policy = \"v3\"\nring_datelines = \"dimension\"");
    let per_ring = FAULTY.replace("vc_policy = \"v3\"", "vc_policy = \"v3\"\ndateline = [3, 3, 3]");
    for base in [searched, per_ring] {
        let spec = Config::from_toml(&format!("{base}[faults]\nlinks = [[0, 5]]\n"), &[]).unwrap().validate().unwrap();
        let check = flitsim_core::routing::cdg::check(&spec.routing, &spec.topology, 2);
        assert!(check.acyclic && check.unreachable_pairs == 0, "{base}");
        let r = Simulation::run_spec(spec).unwrap();
        assert_eq!(r.stats.packets_delivered, r.stats.packets_measured);
    }
    // Dimension-order routing cannot route around failures at all.
    let dor = format!("{}[faults]\nlinks = [[0, 0]]\n", FAULTY.replace("type = \"table\"\nvc_policy = \"v3\"", "type = \"dor\""));
    let e = Config::from_toml(&dor, &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("routing.type") && e.contains("vc_policy = \"v3\""), "{e}");
}

#[test]
fn the_dateline_search_reports_each_candidate_it_tries() {
    // The fault set above, one dateline per dimension left to flitsim: the default
    // placement is cyclic, so the search tries candidates until one routes
    // deadlock-free, and says so for each.
    let dimension = FAULTY.replace("vc_policy = \"v3\"", "vc_policy = \"v3\"\nring_datelines = \"dimension\"");
    let cfg = Config::from_toml(&format!("{dimension}[faults]\nlinks = [[0, 5]]\n"), &[]).unwrap();
    let heard = std::sync::Mutex::new(Vec::new());
    let spec = cfg.validate_with_progress(&|p| heard.lock().unwrap().push(p)).unwrap();
    let heard = heard.into_inner().unwrap();
    assert!(!heard.is_empty(), "a search ran but reported nothing");
    // Candidates 0, 1, ..., k - 1 of one budgeted total, in order.
    for (i, p) in heard.iter().enumerate() {
        assert_eq!((p.done, p.total), (i, heard[0].total), "{heard:?}");
    }
    assert!(heard.len() <= heard[0].total);
    // The datelines it settled on are not the pinned ones, and reporting changes nothing.
    let moved = spec.routing.datelines().unwrap();
    assert_ne!(moved, vec![3, 3, 3]);
    assert_eq!(cfg.validate().unwrap().routing.datelines().unwrap(), moved);
    // Without failures nothing is searched.
    let quiet = std::sync::Mutex::new(0);
    Config::from_toml(FAULTY, &[]).unwrap().validate_with_progress(&|_| *quiet.lock().unwrap() += 1).unwrap();
    assert_eq!(*quiet.lock().unwrap(), 0);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 10, ..Default::default() })]

    /// Random link and node fault sets on a small mixed-radix torus: every set the
    /// generator accepts routes every connected pair deadlock-free (with `skip`, the
    /// unconnected pairs' packets are not injected), and a saturated simulation of it (sources stop
    /// after 1,000 cycles) never trips the deadlock watchdog and delivers every packet;
    /// every other set is refused naming `faults`.
    #[test]
    fn accepted_fault_sets_never_deadlock(seed in 0u64..1000, fraction in 0.005f64..0.02, nodes in 0.0f64..0.05, skip in proptest::bool::ANY) {
        let toml = format!(
            "[topology]\ntype = \"cube\"\ndims = [4, 3, 4]\nwrap = [true, false, true]\n[router]\nvcs = 2\n\
             [routing]\ntype = \"table\"\nvc_policy = \"v3\"\n[traffic]\npacket_size = 2\n\
             phases = [{{ duration = 1000, load = 0.9 }}, {{ duration = 1, load = 0.0 }}]\n\
             [sim]\nwarmup = 200\nmeasure = 800\ndrain_limit = 1000000\nwatchdog = 2000\n\
             [faults]\nrandom_link_fraction = {fraction}\nrandom_node_fraction = {nodes}\nseed = {seed}\nunroutable = \"{}\"\n",
            if skip { "skip" } else { "refuse" }
        );
        match Config::from_toml(&toml, &[]).unwrap().validate() {
            Ok(spec) => {
                let r = Simulation::run_spec(spec);
                proptest::prop_assert!(r.is_ok(), "accepted fault set deadlocked: {:?}", r.err());
                let r = r.unwrap();
                proptest::prop_assert_eq!(r.stats.packets_delivered, r.stats.packets_measured);
            }
            Err(e) => {
                let e = e.to_string();
                proptest::prop_assert!(e.contains("`faults`") || e.contains("faults."), "{}", e);
            }
        }
    }
}

/// The property above passes vacuously if the generator refuses every set, so: on the
/// same small torus, most random 1% link-failure sets (about 3 of its links) are
/// accepted, and each accepted one runs saturated without a deadlock, delivering
/// everything.
#[test]
fn most_small_fault_sets_are_accepted_and_run() {
    let mut accepted = 0;
    for seed in 0..12u64 {
        let toml = format!(
            "[topology]\ntype = \"cube\"\ndims = [4, 3, 4]\nwrap = [true, false, true]\n[router]\nvcs = 2\n\
             [routing]\ntype = \"table\"\nvc_policy = \"v3\"\n[traffic]\npacket_size = 2\n\
             phases = [{{ duration = 1000, load = 0.9 }}, {{ duration = 1, load = 0.0 }}]\n\
             [sim]\nwarmup = 200\nmeasure = 800\ndrain_limit = 1000000\nwatchdog = 2000\n\
             [faults]\nrandom_link_fraction = 0.01\nseed = {seed}\nunroutable = \"skip\"\n"
        );
        let Ok(spec) = Config::from_toml(&toml, &[]).unwrap().validate() else { continue };
        assert!(!spec.faults.as_ref().unwrap().failed.links.is_empty(), "seed {seed}: no link failed");
        accepted += 1;
        let r = Simulation::run_spec(spec).unwrap_or_else(|e| panic!("seed {seed}: accepted fault set failed: {e}"));
        assert_eq!(r.stats.packets_delivered, r.stats.packets_measured, "seed {seed}");
    }
    assert!(accepted > 6, "only {accepted} of 12 random 1% fault sets accepted");
}

#[test]
fn failed_nodes_send_and_receive_nothing_and_are_counted() {
    // 4x4x4 torus, router 21 = (1,1,1) fails: its 6 links go, its endpoint is dead. The
    // remaining 63 nodes: 63 * 62 ordered pairs, all connected around the hole.
    let toml = format!("{FAULTY}[faults]\nnodes = [21]\n");
    let spec = Config::from_toml(&toml, &[]).unwrap().validate().unwrap_or_else(|e| panic!("{e}"));
    let f = spec.faults.as_ref().unwrap();
    assert_eq!(f.failed.routers, vec![21]);
    assert_eq!(f.failed.links.len(), 6);
    assert_eq!(f.check.pairs, 63 * 62);
    assert_eq!(f.check.routable_pairs, 63 * 62, "{:?}", f.check.unreachable);
    assert!(f.check.acyclic);
    // Routes around a hole are at least as long as the fault-free minimal ones.
    assert!(f.check.stretch >= 1.0 && f.check.mean_hops >= f.check.mean_minimal_hops);
    let r = Simulation::run_spec(spec).unwrap();
    // Uniform traffic: about 1/64 of the packets the live sources create are for the dead
    // node; none is injected, all are counted, and every injected one is delivered.
    let fr = r.faults.as_ref().unwrap();
    assert_eq!(fr.packets_unroutable, fr.packets_to_failed_nodes);
    let created = r.counters.packets_created;
    let share = fr.packets_to_failed_nodes as f64 / (created + fr.packets_unroutable) as f64;
    assert!((share - 1.0 / 64.0).abs() < 0.005, "share to the dead node {share}");
    assert_eq!(r.stats.packets_delivered, r.stats.packets_measured);
    // The dead node neither sent nor received in the window.
    assert_eq!(r.stats.per_source.values[21], 0.0);
}

/// A 4x3x4 torus-mesh-torus with five failed links (a seeded random 4% set) whose
/// routes under the XT rules are deadlock-free but leave some pairs unconnected.
const PARTIAL: &str = "[topology]\ntype = \"cube\"\ndims = [4, 3, 4]\nwrap = [true, false, true]\n[router]\nvcs = 2\n\
                       [routing]\ntype = \"table\"\nvc_policy = \"v3\"\ndateline = [3, 2, 2]\n\
                       [traffic]\nload = 0.3\n[sim]\nwarmup = 300\nmeasure = 1500\ncheck = true\n\
                       [faults]\nlinks = [[20, 0], [26, 2], [29, 2], [33, 4], [39, 2]]\n";

#[test]
fn unconnected_pairs_are_refused_or_skipped_as_configured() {
    let (_, _, f) = Config::from_toml(PARTIAL, &[]).unwrap().routes().unwrap();
    let check = f.unwrap().check;
    assert!(check.acyclic);
    // 48 live nodes: 48 * 47 ordered pairs; the fixture was chosen to leave some out.
    let missing = check.unreachable_pairs;
    assert_eq!(check.pairs, 48 * 47);
    assert!(missing > 0 && check.routable_pairs + missing == check.pairs);
    // Refused by default, naming the pairs and the way to run anyway.
    let e = Config::from_toml(PARTIAL, &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains(&format!("do not connect {missing} of 2256 node pairs")) && e.contains("faults.unroutable = \"skip\""), "{e}");
    // Skipped: the connected pairs' packets all arrive (check mode on), the others are
    // counted, in proportion to the pairs (`missing` of the 48 * 48 (source,
    // destination) draws of uniform traffic).
    let spec = Config::from_toml(&format!("{PARTIAL}unroutable = \"skip\"\n"), &[]).unwrap().validate().unwrap();
    let r = Simulation::run_spec(spec).unwrap();
    let fr = r.faults.as_ref().unwrap();
    assert_eq!(fr.packets_to_failed_nodes, 0);
    assert!((fr.routable_fraction - (2256 - missing) as f64 / 2256.0).abs() < 1e-12);
    let drawn = (r.counters.packets_created + fr.packets_unroutable) as f64;
    let share = fr.packets_unroutable as f64 / drawn;
    let expected = missing as f64 / 2304.0;
    assert!((share - expected).abs() < 0.3 * expected + 0.001, "skipped share {share}, expected {expected}");
    assert_eq!(r.stats.packets_delivered, r.stats.packets_measured);
}

#[test]
fn cyclic_routes_run_on_request_and_the_predicted_deadlock_forms() {
    // Router 5's and router 30's +z links with one dateline node per dimension, pinned
    // where the detours close a dependency cycle: refused by default; run on request at a heavy load, the
    // cycle the check names becomes a real deadlock, which the watchdog reports (whole or
    // partial).
    let pinned = FAULTY
        .replace("vc_policy = \"v3\"", "vc_policy = \"v3\"\ndateline = [3, 3, 0]\nring_datelines = \"dimension\"")
        .replace("load = 0.3", "load = 0.9");
    let toml = format!("{pinned}[faults]\nlinks = [[5, 4], [30, 4]]\n");
    let e = Config::from_toml(&toml, &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("can deadlock") && e.contains("cyclic_routes = \"run\""), "{e}");
    let spec = Config::from_toml(&format!("{toml}unroutable = \"skip\"\ncyclic_routes = \"run\"\n"), &[]).unwrap().validate().unwrap();
    assert!(!spec.faults.as_ref().unwrap().check.acyclic);
    match Simulation::run_spec(spec) {
        Err(flitsim_core::error::Error::Deadlock { blocked, .. } | flitsim_core::error::Error::PartialDeadlock { blocked, .. }) => {
            assert!(blocked.contains("cycle of waiting channels"), "{blocked}")
        }
        other => panic!("expected the watchdog to report a deadlock, got {:?}", other.map(|r| r.stats.packets_delivered)),
    }
}

#[test]
fn tables_written_to_a_file_load_and_simulate_bit_for_bit() {
    let dir = std::env::temp_dir().join(format!("flitsim-tables-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("xt.tab");
    let base = "[topology]\ntype = \"cube\"\ndims = [6, 4, 4]\nwrap = [true, false, true]\n[router]\nvcs = 4\n\
                [routing]\ntype = \"table\"\nclasses = 2\nregion_size = 32\nvc_policy = \"v3\"\n\
                [traffic]\nload = 0.3\npacket_size = 3\n[sim]\nwarmup = 200\nmeasure = 1000\ncheck = true\n";
    let spec = Config::from_toml(base, &[]).unwrap().validate().unwrap();
    let flitsim_core::routing::RoutingFunction::Table(t) = &spec.routing else { panic!("table routing") };
    std::fs::write(&file, t.to_bytes(&spec.topology)).unwrap();
    let with_file = |toml: &str| toml.replace("[traffic]", &format!("tables = {:?}\n[traffic]", file.to_str().unwrap()));
    let loaded = with_file(base);
    let generated = run(base);
    let from_file = run(&loaded);
    assert_eq!(without_config(&generated), without_config(&from_file));
    // A damaged entry (an output port the routers do not have) is refused, named.
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.len() / 2;
    bytes[at] = 200;
    std::fs::write(&file, &bytes).unwrap();
    let e = Config::from_toml(&loaded, &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("routing.tables"), "{e}");
    // Tables for another network are refused with both shapes named.
    std::fs::write(&file, t.to_bytes(&spec.topology)).unwrap();
    let e = Config::from_toml(&loaded.replace("dims = [6, 4, 4]", "dims = [6, 4, 5]"), &[])
        .unwrap()
        .validate()
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("routing.tables") && e.contains("[6, 4, 4]") && e.contains("[6, 4, 5]"), "{e}");
    // Tables whose routes can deadlock: DOR tables without datelines on the torus rings
    // load, but the check refuses them with the cycle.
    let cyclic = base.replace("vc_policy = \"v3\"\n", "datelines = false\n");
    let spec = Config::from_toml(&cyclic, &[]).unwrap().validate().unwrap();
    let flitsim_core::routing::RoutingFunction::Table(t) = &spec.routing else { panic!("table routing") };
    std::fs::write(&file, t.to_bytes(&spec.topology)).unwrap();
    let e = Config::from_toml(&with_file(&cyclic), &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("routing.tables") && e.contains("can deadlock") && e.contains(" -> "), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tables_that_drop_at_a_dateline_are_refused_or_run_and_every_drop_is_counted() {
    // A 4x4 torus's v3 tables with every VC rule rewritten to VC1: a packet passing a
    // dateline node (x = 3 or y = 3) arrives there on VC1, which the XT router drops.
    let dir = std::env::temp_dir().join(format!("flitsim-drops-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("upper.tab");
    let per_source = 6;
    let base = format!(
        "[topology]\ntype = \"cube\"\ndims = [4, 4]\nwrap = [true, true]\n[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"\n\
         [traffic]\nload = 0.2\npacket_size = 3\npackets_per_source = {per_source}\n[traffic.pattern]\ntype = \"merge_to_one\"\ndest = 0\n\
         [sim]\nwarmup = 0\nmeasure = 2000\ncheck = true\n"
    );
    let (spec, bad) = common::write_upper_vc_tables(&base, &file);
    let loaded = base.replace("[traffic]", &format!("tables = {:?}\n[traffic]", file.to_str().unwrap()));
    // Which sources' packets the static route walk says are dropped (on the way to 0).
    let walk = flitsim_core::routing::RoutingFunction::Table(Box::new(bad));
    let dropped: Vec<u32> = (1..16)
        .filter(|&s| match walk.path(&spec.topology, s, 0, 0) {
            Ok(_) => false,
            Err(e) => {
                assert_eq!(e.path(), Some(flitsim_core::routing::table::DROP_FIELD), "{s} -> 0: {e}");
                true
            }
        })
        .collect();
    assert!(!dropped.is_empty() && dropped.len() < 15, "some sources and not all pass a dateline node: {dropped:?}");
    // By default the set is refused, naming the drops and the field that would run them.
    let e = Config::from_toml(&loaded, &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("routing.tables") && e.contains("dropped at a dateline node") && e.contains("dateline_errors"), "{e}");
    // Run: the routers drop exactly the walk's sources' packets, every flit accounted
    // (check mode verifies conservation, lost flits included, every cycle); the
    // input-queued router and the buffered crossbar (SeaStar) alike.
    let dropping = loaded.replace("vc_policy = \"v3\"\n", "vc_policy = \"v3\"\ndateline_errors = \"drop\"\n");
    let seastar = dropping.replace("[router]\n", "[router]\ntype = \"buffered_crossbar\"\n");
    for (name, cfg) in [("input-queued", &dropping), ("buffered crossbar", &seastar)] {
        let r = run(cfg);
        // The same drops, bit for bit, on two and four threads (check mode runs on one).
        for threads in [2, 4] {
            let unchecked = cfg.replace("check = true", "check = false");
            let mut sim = Simulation::new(Config::from_toml(&unchecked, &[]).unwrap().validate().unwrap()).unwrap();
            assert_eq!(sim.set_threads(threads).unwrap(), threads, "{name}");
            assert_eq!(without_config(&sim.run(&mut |_| {}).unwrap()), without_config(&r), "{name}: {threads} threads");
        }
        let drops = r.dateline_drops.expect("table routing under v3 reports its drops");
        let lost = dropped.len() as u64 * per_source;
        assert_eq!((drops.packets, r.counters.packets_lost, r.counters.flits_lost), (lost, lost, 3 * lost), "{name}");
        assert_eq!(r.counters.packets_delivered, (15 - dropped.len() as u64) * per_source, "{name}");
        assert_eq!(r.counters.packets_created, 15 * per_source, "{name}");
        let first = drops.first.expect("a first drop");
        let c = spec.topology.coords(first.router);
        assert!((c[0] == 3 || c[1] == 3) && first.vc == 1 && first.dst == 0 && dropped.contains(&first.src), "{name}: {first:?}");
    }
    // Generated tables drop nothing.
    let ok = run(&base);
    assert_eq!((ok.dateline_drops.unwrap().packets, ok.counters.packets_lost, ok.counters.packets_delivered), (0, 0, 15 * per_source));
    // The XT VC policies are needed (only they have dateline nodes that drop).
    let e = Config::from_toml(&base.replace("[routing]", "dateline_errors = 1\n[routing]"), &[]).map(|_| ()).unwrap_err().to_string();
    assert!(!e.is_empty());
    let dor = base.replace("vc_policy = \"v3\"\n", "dateline_errors = \"drop\"\n");
    let e = Config::from_toml(&dor, &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("routing.dateline_errors") && e.contains("vc_policy"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn shared_table_walks_give_every_pair_what_its_own_walk_gives() {
    // The route check follows table routes per destination, sharing each state's outcome
    // among the sources that reach it; walking every pair on its own must give the same
    // connected pairs, hop sums, drops and listed failures. Random link and router
    // failures on tori and a torus-mesh mix (two nodes per router on one), several seeds.
    use flitsim_core::routing::cdg::{pair_routes, pair_routes_by_walks};
    use flitsim_core::routing::table::DatelineErrors;
    use flitsim_core::routing::RoutingFunction;
    let (mut cases, mut unconnected, mut with_dead) = (0, 0, 0);
    for (dims, wrap, c, dateline) in [
        ("[5, 4, 3]", "[true, true, true]", 1, "[4, 3, 2]"),
        ("[4, 3, 4]", "[true, false, true]", 2, "[1, 0, 2]"),
        ("[6, 5]", "[true, true]", 1, "[5, 4]"),
    ] {
        for seed in 1..=4 {
            for (links, nodes) in [(0.05, 0.0), (0.12, 0.06)] {
                let toml = format!(
                    "seed = {seed}\n[topology]\ntype = \"cube\"\ndims = {dims}\nwrap = {wrap}\nconcentration = {c}\n[router]\nvcs = 2\n\
                     [routing]\ntype = \"table\"\nvc_policy = \"v3\"\ndateline = {dateline}\n\
                     [faults]\nrandom_link_fraction = {links}\nrandom_node_fraction = {nodes}\nunroutable = \"skip\"\ncyclic_routes = \"run\"\n"
                );
                let (topo, routing, faults) = Config::from_toml(&toml, &[]).unwrap().routes().unwrap();
                let dead = faults.expect("failures applied").dead;
                let shared = pair_routes(&routing, &topo, &dead);
                assert_eq!(shared, pair_routes_by_walks(&routing, &topo, &dead), "{dims} seed {seed} links {links} nodes {nodes}");
                cases += 1;
                unconnected += (shared.routable < shared.pairs) as u32;
                with_dead += dead.iter().any(|&d| d) as u32;
            }
        }
    }
    assert!(
        unconnected >= cases / 4 && with_dead >= cases / 4,
        "the sets exercise failures: {unconnected} with unconnected pairs, {with_dead} with failed routers, of {cases}"
    );
    // Tables that drop at dateline nodes, refused (drops listed as unreachable) and run.
    let dir = std::env::temp_dir().join(format!("flitsim-shared-walks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let base = "[topology]\ntype = \"cube\"\ndims = [4, 4]\nwrap = [true, true]\n[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"\n";
    let (spec, bad) = common::write_upper_vc_tables(base, &dir.join("upper.tab"));
    for errors in [DatelineErrors::Refuse, DatelineErrors::Drop] {
        let routing = RoutingFunction::Table(Box::new(bad.clone().with_dateline_errors(errors, "routing").unwrap()));
        let shared = pair_routes(&routing, &spec.topology, &[]);
        assert!(shared.dropped > 0, "{errors:?}");
        assert_eq!(shared, pair_routes_by_walks(&routing, &spec.topology, &[]), "{errors:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_failed_node_routes_deadlock_free_with_a_dateline_per_broken_ring() {
    // The XT3's 11x12x16 torus with node (7,4,5) failed. With one dateline node per
    // dimension the z+ detour around it (+y, +z, +z, -y) joins ring (7,4,*) up again
    // across the two VCs and the routes have a dependency cycle; with the broken ring's
    // dateline just past the node (the default) they have none, and every pair of live
    // nodes is still connected.
    let xt = |ring: &str| {
        format!(
            "[topology]\ntype = \"torus\"\ndims = [11, 12, 16]\n[router]\ntype = \"buffered_crossbar\"\n\
             [routing]\ntype = \"table\"\nclasses = 2\nvc_policy = \"v3\"\ndateline = [10, 11, 15]\nring_datelines = \"{ring}\"\n\
             [faults]\nnodes = [711]\ncyclic_routes = \"run\"\n"
        )
    };
    let check = |ring: &str| {
        // The check validation makes, over the pairs of live nodes.
        Config::from_toml(&xt(ring), &[]).unwrap().validate().unwrap().faults.unwrap().check
    };
    let dimension = check("dimension");
    assert!(!dimension.acyclic, "{dimension:?}");
    let at_failures = check("at_failures");
    assert!(at_failures.acyclic && at_failures.unreachable_pairs == 0, "{at_failures:?}");
}

#[test]
fn routes_around_a_failed_node_deliver_everything() {
    // A failed node in the middle of a 6x6x6 torus: the default routes are acyclic, and a
    // run in check mode (every flit accounted for) delivers every packet to the live
    // nodes; the broken rings' datelines sit just past the node. (The load is below
    // saturation: offered 0.25, the network with the node failed accepts only 0.18, the
    // intact one all of it; the detours load the links around the node.)
    let toml = "[topology]\ntype = \"torus\"\ndims = [6, 6, 6]\n[router]\nvcs = 2\n\
                [routing]\ntype = \"table\"\nvc_policy = \"v3\"\n\
                [traffic]\nload = 0.15\n[sim]\nwarmup = 300\nmeasure = 2000\ncheck = true\n\
                [faults]\nnodes = [129]\n";
    let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
    let check = &spec.faults.as_ref().unwrap().check;
    assert!(check.acyclic && check.unreachable_pairs == 0, "{check:?}");
    let r = Simulation::run_spec(spec).unwrap();
    assert!(r.stats.packets_delivered > 0);
    assert_eq!(r.stats.packets_delivered, r.stats.packets_measured);
}
