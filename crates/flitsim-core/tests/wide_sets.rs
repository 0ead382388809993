//! Routers of more than 64 input VCs (`ports x vcs` up to 128): the input-queued router
//! then steps on 128-bit VC sets. Tested three ways:
//!
//! * the same networks forced onto the wide step report exactly what the 64-bit step
//!   reports (the whole JSON result, bit for bit), for every routing function, both
//!   allocators, wormhole and virtual cut-through, STOP/GO, dateline drops, long
//!   pipelines, polling, and threads;
//! * genuinely wide routers meet the zero-load closed form of `engine_invariants.rs`;
//! * a saturated wide network conserves flits under check mode, stays within its
//!   channel-load bound and gives the same report on two threads.

mod common;

use common::first_difference;
use flitsim_core::config::Config;
use flitsim_core::router::iq::IqRouters;
use flitsim_core::router::Routers;
use flitsim_core::sim::Simulation;

fn iq(r: &mut Routers) -> &mut IqRouters {
    match r {
        Routers::Iq(x) => x,
        _ => panic!("these networks use input-queued routers"),
    }
}

/// The report of `toml` on `threads` threads, its routers stepped on 128-bit sets when
/// `wide` (without the version field).
fn report(toml: &str, wide: bool, threads: usize) -> serde_json::Value {
    let spec = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}")).validate().unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let mut sim = Simulation::new(spec).unwrap();
    assert!(!iq(&mut sim.routers).wide_sets(), "at most 64 input VCs: 64-bit sets by default\n{toml}");
    if wide {
        iq(&mut sim.routers).use_wide_sets();
        assert!(iq(&mut sim.routers).wide_sets());
    }
    finish(sim, threads)
}

/// Run `sim` on `threads` threads to the end: its report without the version field.
fn finish(mut sim: Simulation, threads: usize) -> serde_json::Value {
    assert_eq!(sim.set_threads(threads).unwrap(), threads);
    let mut v = serde_json::to_value(sim.run(&mut |_| {}).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("version");
    v
}

fn same_on_wide_sets(name: &str, toml: &str) {
    let narrow = report(toml, false, 1);
    assert!(narrow["counters"]["packets_delivered"].as_u64().unwrap() > 0, "{name}: nothing delivered");
    if let Some(d) = first_difference(&narrow, &report(toml, true, 1), "") {
        panic!("{name}: the wide step differs at {d}");
    }
}

#[test]
fn wide_sets_change_no_result_on_tori_and_meshes() {
    let cases = [
        // iSLIP, datelines, concentration, several-flit packets, check mode.
        ("torus islip", "seed = 3\n[topology]\ntype = \"torus\"\ndims = [4, 3, 5]\nconcentration = 2\n[router]\nallocator = \"islip\"\n\
          [traffic]\nload = 0.45\npacket_size = 3\n[sim]\nwarmup = 300\nmeasure = 1500\ncheck = true\n"),
        // Separable allocator, BookSim2's per-router VC-allocation pointer, VCT, sizes.
        ("mesh separable vct", "seed = 5\n[topology]\ntype = \"mesh\"\ndims = [8, 4]\n[router]\nallocator = \"separable_input_first\"\nvc_alloc_pointer = \"per_router\"\n\
          flow_control = \"virtual_cut_through\"\n[traffic]\nload = 0.4\npacket_size = { sizes = [1, 4, 8], weights = [2, 1, 1] }\n\
          pattern = { type = \"bit_reverse\" }\n[sim]\nwarmup = 300\nmeasure = 1500\ncheck = true\n"),
        // Long pipeline delays (the per-VC wait loop), iSLIP with two iterations,
        // saturated bursts and phases, credit delay.
        ("mixed radix saturated", "seed = 11\n[topology]\ntype = \"cube\"\ndims = [5, 4, 3]\nwrap = [true, false, true]\n\
          [router]\nrouting_delay = 2\nvc_alloc_delay = 2\ncredit_delay = 2\nallocator = \"islip\"\nislip_iterations = 2\n[channel]\nlatency = 3\n\
          [traffic]\nphases = [{ duration = 600, load = 0.2 }, { duration = 1400, load = 0.8, pattern = { type = \"hotspot\", nodes = [7], fraction = 0.2 } }]\n\
          injection = { type = \"on_off\", burst_length = 6 }\n[sim]\nwarmup = 400\nmeasure = 1600\ndrain_limit = 3000\ncheck = true\n"),
        // Polling (a channel too long for the arrival calendar).
        ("mesh polling", "[topology]\ntype = \"mesh\"\ndims = [5, 4]\n[channel]\nlatency = 70\n[traffic]\nload = 0.3\npacket_size = 2\n\
          [sim]\nwarmup = 100\nmeasure = 600\ncheck = true\n"),
    ];
    for (name, toml) in cases {
        same_on_wide_sets(name, toml);
    }
}

#[test]
fn wide_sets_change_no_result_with_other_routing_functions() {
    let cases = [
        ("table + faults", "seed = 2\n[topology]\ntype = \"cube\"\ndims = [4, 3, 4]\nwrap = [true, false, true]\n[router]\nvcs = 2\n\
          [routing]\ntype = \"table\"\nvc_policy = \"v3\"\n[traffic]\nload = 0.3\npacket_size = 2\n\
          [sim]\nwarmup = 300\nmeasure = 1200\ncheck = true\n[faults]\nrandom_link_fraction = 0.02\nrandom_node_fraction = 0.03\nseed = 9\nunroutable = \"skip\"\n"),
        ("dragonfly ugal", "seed = 12\n[topology]\ntype = \"dragonfly\"\ngroup_routers = 4\nconcentration = 2\nglobal_ports = 2\n[routing]\ntype = \"dragonfly\"\nmode = \"ugal\"\n\
          [router]\nvcs = 6\n[channel]\ndim_latency = [1, 5]\n[traffic]\nload = 0.45\npacket_size = 3\npattern = { type = \"neighbor\" }\n[sim]\nwarmup = 300\nmeasure = 1200\ncheck = true\n"),
        ("hyperx valiant", "seed = 5\n[topology]\ntype = \"hyperx\"\ndims = [4, 3, 2]\nlinks = [1, 2, 1]\nconcentration = 2\n[routing]\ntype = \"hyperx\"\nmode = \"valiant\"\n\
          [router]\nvcs = 4\n[traffic]\nload = 0.5\npacket_size = 3\n[sim]\nwarmup = 300\nmeasure = 1200\ncheck = true\n"),
        ("kautz source", "seed = 6\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[routing]\ntype = \"source\"\n[router]\nvcs = 4\n\
          [traffic]\nload = 0.25\npacket_size = 3\n[sim]\nwarmup = 200\nmeasure = 1500\ncheck = true\n"),
        // STOP/GO back-pressure (Myrinet-like crossbars), messages, random up*/down*.
        ("clos stop/go", "seed = 11\n[topology]\ntype = \"clos\"\nradix = 16\nstages = 3\nnodes = 64\n\
          [router]\nvcs = 1\nbuffer_depth = 16\nrouting_delay = 0\nvc_alloc_delay = 0\nstop_go = { stop = 10, go = 4 }\n[routing]\ntype = \"updown\"\nselection = \"random\"\n\
          [traffic]\nload = 0.6\npacket_size = 8\n[sim]\nwarmup = 300\nmeasure = 1200\ncheck = true\n"),
    ];
    for (name, toml) in cases {
        same_on_wide_sets(name, toml);
    }
}

#[test]
fn wide_sets_drop_at_datelines_and_run_on_threads_like_narrow_ones() {
    // Dateline drops (the `drop` set): a 4x4 torus's tables with every VC rule moved to
    // VC1 (see table_routing.rs), run with drops counted.
    let dir = std::env::temp_dir().join(format!("flitsim-wide-drops-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("upper.tab");
    let base = "[topology]\ntype = \"cube\"\ndims = [4, 4]\nwrap = [true, true]\n[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"\n\
                [traffic]\nload = 0.2\npacket_size = 3\npackets_per_source = 6\n[traffic.pattern]\ntype = \"merge_to_one\"\ndest = 0\n\
                [sim]\nwarmup = 0\nmeasure = 2000\ncheck = true\n";
    common::write_upper_vc_tables(base, &file);
    let dropping = base.replace(
        "vc_policy = \"v3\"\n",
        &format!("vc_policy = \"v3\"\ndateline_errors = \"drop\"\ntables = {:?}\n", file.to_str().unwrap()),
    );
    let narrow = report(&dropping, false, 1);
    assert!(narrow["counters"]["packets_lost"].as_u64().unwrap() > 0, "no packet dropped: {}", narrow["counters"]);
    if let Some(d) = first_difference(&narrow, &report(&dropping, true, 1), "") {
        panic!("dateline drops: the wide step differs at {d}");
    }
    std::fs::remove_dir_all(&dir).ok();
    // Threads: partitions of a widened network step on wide sets too.
    let torus = "seed = 4\n[topology]\ntype = \"torus\"\ndims = [6, 4]\nconcentration = 2\n[traffic]\nload = 0.5\npacket_size = 3\n[sim]\nwarmup = 200\nmeasure = 1000\n";
    let one = report(torus, false, 1);
    for threads in [2, 3] {
        if let Some(d) = first_difference(&one, &report(torus, true, threads), "") {
            panic!("wide sets on {threads} threads differ from narrow ones on one at {d}");
        }
    }
}

/// `toml`'s simulation, checking its routers step on wide sets.
fn wide(toml: &str) -> Simulation {
    let spec = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}")).validate().unwrap_or_else(|e| panic!("{e}\n{toml}"));
    let mut sim = Simulation::new(spec).unwrap();
    assert!(iq(&mut sim.routers).wide_sets(), "more than 64 input VCs: 128-bit sets\n{toml}");
    sim
}

#[test]
fn wide_routers_meet_the_zero_load_closed_form() {
    // An 8-router line with 8 endpoints per router and 8 VCs: 10 ports, 80 input VCs.
    // Unit delays, 1-cycle wires, 1-flit packets: a packet of h router-to-router hops
    // takes T(h) = 1 + 4 (h + 1) + h + 1 = 6 + 5h cycles (engine_invariants.rs works
    // the closed form out); uniform destinations on the same router have h = 0.
    let toml = "[topology]\ntype = \"mesh\"\ndims = [8]\nconcentration = 8\n[router]\nvcs = 8\n\
                [traffic]\nload = 0.0005\n[sim]\ncheck = true\nwarmup = 100\nmeasure = 30000\ndrain_limit = 1000\n";
    let s = wide(toml).run(&mut |_| {}).unwrap().stats;
    assert!(s.packets_delivered >= 100 && !s.saturated, "{} packets, {:?}", s.packets_delivered, s.saturation_reasons);
    let net = &s.network_latency;
    let t = |h: f64| 6.0 + 5.0 * h;
    assert_eq!(net.min, 6, "a packet to its own router");
    let closed = t(s.avg_hops);
    assert!(net.mean >= closed - 1e-9 && net.mean <= closed * 1.005, "mean {} vs closed form {closed}", net.mean);
    // Uniform over 64 endpoints, 8 per router: E[h] = E|i - j| over routers i, j of the
    // line = (8^2 - 1) / (3 * 8) = 2.625.
    assert!((s.avg_hops - 2.625).abs() < 0.1, "average hops {}", s.avg_hops);
    let on: u64 = net
        .histogram
        .counts
        .iter()
        .enumerate()
        .filter(|(i, _)| (net.histogram.start + *i as u64).checked_sub(6).is_some_and(|d| d.is_multiple_of(5)))
        .map(|(_, &c)| c)
        .sum();
    assert!(on as f64 >= 0.98 * net.count as f64, "{on} of {} on the lattice 6 + 5h", net.count);
}

#[test]
fn a_saturated_wide_network_conserves_flits_and_respects_its_bound() {
    // A 4x4 HyperX with 8 endpoints per router and 8 VCs: 3 + 3 + 8 = 14 ports, 112
    // input VCs. Uniform traffic at load L: of a router's 8 L flits a cycle, 3/4 must
    // change their first coordinate, spread over its 3 links in that dimension: 2 L per
    // link, at most 1, so L <= 0.5 (the HyperX channel bound S K / T = 4 / 8). Offered
    // 0.9; check mode verifies conservation every cycle.
    let toml =
        "seed = 7\n[topology]\ntype = \"hyperx\"\ndims = [4, 4]\nconcentration = 8\n[routing]\ntype = \"hyperx\"\n[router]\nvcs = 8\n\
                [traffic]\nload = 0.9\npacket_size = 2\n[sim]\nwarmup = 500\nmeasure = 1500\ndrain_limit = 0\ncheck = true\n";
    let r = wide(toml).run(&mut |_| {}).unwrap();
    let acc = r.stats.accepted.mean;
    assert!(acc <= 0.5 + 0.02 && acc > 0.3, "accepted {acc} flits/node/cycle against the bound 0.5");
    assert!(r.stats.saturated, "offered 0.9 against a bound of 0.5");
    // Two threads, unchecked, report the same.
    let unchecked = toml.replace("check = true", "check = false");
    let one = finish(wide(&unchecked), 1);
    if let Some(d) = first_difference(&one, &finish(wide(&unchecked), 2), "") {
        panic!("a wide network on two threads differs at {d}");
    }
}
