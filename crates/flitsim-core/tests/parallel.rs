//! The partitioned engine: a network stepped on 2, 3 or 4 threads reports exactly what
//! it reports on one (the whole JSON result, bit for bit), for every topology and
//! routing function the input-queued router runs, with faults, timed link failures,
//! several-flit packets, virtual cut-through, bursty and phased traffic, and finite
//! workloads that stop the run early. Each case also checks that the network really was
//! split (so the comparison cannot pass by running everything on one thread) and that
//! flits crossed between partitions. The 3-thread runs of input-queued networks also
//! track activity (`tests/activity.rs`).

mod common;

use common::first_difference;
use flitsim_core::config::Config;
use flitsim_core::sim::Simulation;

/// The report of `toml` run on `threads` threads, without the version field.
fn report(toml: &str, threads: usize) -> (serde_json::Value, usize) {
    report_tracked(toml, threads, false)
}

/// [`report`] with input-queued routers and their endpoints forced to track activity
/// (`track`; large networks do by themselves), which must change no result.
fn report_tracked(toml: &str, threads: usize, track: bool) -> (serde_json::Value, usize) {
    let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
    let mut sim = Simulation::new(spec).unwrap();
    if let flitsim_core::router::Routers::Iq(iq) = &mut sim.routers {
        iq.set_activity_tracking(track);
    }
    let used = sim.set_threads(threads).unwrap();
    assert_eq!(used, sim.threads());
    // Run most of the way by hand to see flits cross, then to the end.
    sim.run_cycles(200).unwrap();
    assert_eq!(sim.crossed_flits() > 0, used > 1, "flits crossed between partitions");
    let mut v = serde_json::to_value(sim.run(&mut |_| {}).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("version");
    (v, used)
}

fn same_on_any_thread_count(name: &str, toml: &str) {
    let (one, used) = report(toml, 1);
    assert_eq!(used, 1);
    assert!(one["counters"]["packets_delivered"].as_u64().unwrap() > 0, "{name}: nothing delivered");
    // (On 3 threads with activity tracking.)
    for threads in [2, 3, 4] {
        let (many, used) = report_tracked(toml, threads, threads == 3);
        assert_eq!(used, threads, "{name}: not partitioned into {threads}");
        if let Some(d) = first_difference(&one, &many, "") {
            panic!("{name}: {threads} threads differ from one at {d}");
        }
    }
}

#[test]
fn torus_with_concentration_and_datelines() {
    same_on_any_thread_count(
        "torus",
        "seed = 3\n[topology]\ntype = \"torus\"\ndims = [4, 3, 5]\nconcentration = 2\n[router]\nallocator = \"islip\"\n\
         [traffic]\nload = 0.35\npacket_size = 3\n[sim]\nwarmup = 300\nmeasure = 1500\n[stats]\nbuffer_sample = 3\ntimeline = 250\nchannel_timeline = true\n",
    );
}

#[test]
fn mesh_virtual_cut_through_with_size_distribution() {
    same_on_any_thread_count(
        "mesh",
        "seed = 5\n[topology]\ntype = \"mesh\"\ndims = [8, 4]\n[router]\nflow_control = \"virtual_cut_through\"\nrouting_delay = 0\n\
         [traffic]\nload = 0.3\npacket_size = { sizes = [1, 4, 8], weights = [2, 1, 1] }\npattern = { type = \"bit_reverse\" }\n\
         [sim]\nwarmup = 300\nmeasure = 1500\n",
    );
}

#[test]
fn saturated_mixed_radix_torus_with_bursts_and_phases() {
    // Past saturation: source queues grow, the window's queue lengths are reported.
    same_on_any_thread_count(
        "mixed radix",
        "seed = 11\n[topology]\ntype = \"cube\"\ndims = [5, 4, 3]\nwrap = [true, false, true]\n[router]\ncredit_delay = 2\n[channel]\nlatency = 3\n\
         [traffic]\nphases = [{ duration = 600, load = 0.2 }, { duration = 1400, load = 0.8, pattern = { type = \"hotspot\", nodes = [7], fraction = 0.2 } }]\n\
         injection = { type = \"on_off\", burst_length = 6 }\n[sim]\nwarmup = 400\nmeasure = 1600\ndrain_limit = 3000\n",
    );
}

#[test]
fn table_routing_around_failed_links_and_nodes() {
    same_on_any_thread_count(
        "table + faults",
        "seed = 2\n[topology]\ntype = \"cube\"\ndims = [4, 3, 4]\nwrap = [true, false, true]\n[router]\nvcs = 2\n\
         [routing]\ntype = \"table\"\nvc_policy = \"v3\"\n[traffic]\nload = 0.3\npacket_size = 2\n\
         [sim]\nwarmup = 300\nmeasure = 1200\n[faults]\nrandom_link_fraction = 0.02\nrandom_node_fraction = 0.03\nseed = 9\nunroutable = \"skip\"\n",
    );
}

#[test]
fn clos_with_random_up_down_routes() {
    same_on_any_thread_count(
        "clos",
        "seed = 4\n[topology]\ntype = \"clos\"\nradix = 8\nstages = 3\nnodes = 32\n[routing]\ntype = \"updown\"\nselection = \"random\"\n\
         [traffic]\nload = 0.5\npacket_size = 4\n[sim]\nwarmup = 300\nmeasure = 1200\n",
    );
}

#[test]
fn k_ary_n_tree_with_static_hashed_routes() {
    same_on_any_thread_count(
        "k-ary n-tree",
        "seed = 6\n[topology]\ntype = \"k_ary_n_tree\"\nk = 4\nn = 3\n[routing]\ntype = \"updown\"\nselection = \"static\"\nstatic_scheme = \"hashed\"\n\
         [traffic]\nload = 0.6\npacket_size = 4\n[sim]\nwarmup = 300\nmeasure = 1200\n",
    );
}

#[test]
fn dragonfly_with_valiant_and_ugal_routes_and_long_global_wires() {
    // UGAL reads the source router's credit counters: the partitions must deliver every
    // credit in the same cycle for its choices to agree.
    for mode in ["valiant", "ugal"] {
        same_on_any_thread_count(
            mode,
            &format!(
                "seed = 12\n[topology]\ntype = \"dragonfly\"\ngroup_routers = 4\nconcentration = 2\nglobal_ports = 2\n[routing]\ntype = \"dragonfly\"\nmode = \"{mode}\"\n\
                 [router]\nvcs = 6\n[channel]\ndim_latency = [1, 5]\n[traffic]\nload = 0.45\npacket_size = 3\npattern = {{ type = \"neighbor\" }}\n[sim]\nwarmup = 300\nmeasure = 1200\n"
            ),
        );
    }
}

#[test]
fn hyperx_with_parallel_links_and_valiant_and_ugal_routes() {
    for mode in ["dor", "valiant", "ugal"] {
        same_on_any_thread_count(
            mode,
            &format!(
                "seed = 5\n[topology]\ntype = \"hyperx\"\ndims = [4, 3, 2]\nlinks = [1, 2, 1]\nconcentration = 2\n[routing]\ntype = \"hyperx\"\nmode = \"{mode}\"\n\
                 [router]\nvcs = 4\n[channel]\ndim_latency = [1, 2, 4]\n[traffic]\nload = 0.5\npacket_size = 3\npattern = {{ type = \"neighbor\" }}\n[sim]\nwarmup = 300\nmeasure = 1200\n"
            ),
        );
    }
}

#[test]
fn graph_from_links_with_minimal_and_updown_routes() {
    // A 4x4 torus with two chords, written as links.
    let mut links: Vec<[u32; 2]> = (0..16u32).flat_map(|r| [[r, (r + 1) % 4 + r / 4 * 4], [r, (r + 4) % 16]]).collect();
    links.extend([[0, 10], [5, 15]]);
    for (mode, vcs) in [("minimal", 4), ("updown", 2)] {
        same_on_any_thread_count(
            mode,
            &format!(
                "seed = 9\n[topology]\ntype = \"graph\"\nlinks = {links:?}\nconcentration = 2\n[routing]\ntype = \"graph\"\nmode = \"{mode}\"\n\
                 [router]\nvcs = {vcs}\n[traffic]\nload = 0.35\npacket_size = 3\n[sim]\nwarmup = 300\nmeasure = 1200\n"
            ),
        );
    }
}

#[test]
fn finite_workload_stops_at_the_same_cycle() {
    same_on_any_thread_count(
        "until done",
        "seed = 8\n[topology]\ntype = \"torus\"\ndims = [8, 4]\n[traffic]\nload = 0.6\npacket_size = 2\npackets_per_source = 40\n\
         pattern = { type = \"bit_complement\" }\n[sim]\nwarmup = 0\nmeasure = 100000\nuntil_done = true\n",
    );
}

/// A closed-loop trace (`common::random_trace`): 400 messages whose sources wait for
/// messages from other partitions.
#[test]
fn trace_with_waits_across_partitions() {
    let toml = format!(
        "seed = 2\n[topology]\ntype = \"torus\"\ndims = [4, 8]\nconcentration = 2\n[sim]\nwarmup = 0\nmeasure = 100000\nuntil_done = true\n\
         [traffic.trace]\npacket_flits = 12\n{}\n",
        common::random_trace(64, 400, 12345)
    );
    same_on_any_thread_count("trace", &toml);
    let t = Simulation::run_spec(Config::from_toml(&toml, &[]).unwrap().validate().unwrap()).unwrap().trace.unwrap();
    assert_eq!((t.completed, t.not_created, t.incomplete), (400, 0, 0), "{t:?}");
}

/// An application (presets/cg-64.ranks: halo exchanges and allreduces on 64 ranks, placed
/// at random): the ranks' finish times are merged across partitions like every total.
#[test]
fn application_across_partitions() {
    same_on_any_thread_count("application", &common::application_config());
}

#[test]
fn kautz_source_routes_around_failed_links() {
    same_on_any_thread_count(
        "kautz",
        "seed = 6\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[routing]\ntype = \"source\"\n[router]\nvcs = 4\n\
         [traffic]\nload = 0.25\npacket_size = 3\n[sim]\nwarmup = 200\nmeasure = 1500\n[faults]\nlinks = [[5, 1], [20, 0]]\n",
    );
}

#[test]
fn seastar_routers_with_age_based_arbitration() {
    // The buffered-crossbar router: input and staging buffers, age clocks with biases
    // per port, all grants age-based, the paper's performance counters; response class
    // traffic too (two classes of two VCs).
    same_on_any_thread_count(
        "seastar",
        "seed = 12\n[topology]\ntype = \"torus\"\ndims = [5, 4, 4]\n[router]\ntype = \"buffered_crossbar\"\n\
         age_rr_select = \"0xf0f0f0f0f0f0f0f0\"\nage_clock_period = 8\nreq_age_bias = [3, 2, 1]\n[routing]\nclasses = 2\n\
         [traffic]\nload = 0.3\npacket_size = { sizes = [2, 9], weights = [1, 1] }\n[sim]\nwarmup = 300\nmeasure = 1500\n[stats]\nbuffer_sample = 3\ntimeline = 250\nchannel_timeline = true\n",
    );
}

#[test]
fn seastar_routers_with_table_routing_around_faults() {
    same_on_any_thread_count(
        "seastar + table + faults",
        "seed = 13\n[topology]\ntype = \"cube\"\ndims = [4, 3, 4]\nwrap = [true, false, true]\n[router]\ntype = \"buffered_crossbar\"\nvcs = 2\n\
         [routing]\ntype = \"table\"\nvc_policy = \"v3\"\n[traffic]\nload = 0.5\npacket_size = 3\n\
         [sim]\nwarmup = 300\nmeasure = 1200\n[faults]\nrandom_link_fraction = 0.03\nseed = 4\nunroutable = \"skip\"\n",
    );
}

/// The central-arbiter network of the self-tuned congestion-control paper with `extra`
/// (deadlock handling and congestion policy) beyond saturation, on an 8x8 torus.
fn central(extra: &str) -> String {
    format!(
        "seed = 21\n[topology]\ntype = \"torus\"\ndims = [8, 8]\n[router]\ntype = \"central\"\n\
         [routing]\ntype = \"adaptive\"\n{extra}\n[traffic]\nload = 0.7\npacket_size = 16\nsource_queue = 1\n\
         [sim]\nwarmup = 300\nmeasure = 2000\ndrain_limit = 0\n"
    )
}

#[test]
fn central_routers_with_escape_vcs_and_the_self_tuned_threshold() {
    // Duato avoidance, the side-band estimate summed over the partitions and the hill
    // climber's decision reaching every partition's sources.
    let toml = central("deadlock = \"avoidance\"\n[congestion]\npolicy = \"tune\"")
        + "[stats]\nbuffer_sample = 3\ntimeline = 250\nchannel_timeline = true\n";
    let (one, _) = report(&toml, 1);
    assert!(one["congestion"]["cycles_throttled"].as_u64().unwrap() > 0, "the threshold never throttled");
    same_on_any_thread_count("central + tune", &toml);
}

#[test]
fn central_routers_with_disha_recovery_and_a_static_threshold() {
    // Disha: the token copied in every partition, captured and released across them.
    let toml = central("deadlock = \"recovery\"\ntimeout = 8\n[congestion]\npolicy = \"static\"\nthreshold = 40");
    let (one, _) = report(&toml, 1);
    assert!(one["central"]["recoveries"].as_u64().unwrap() > 5, "too few recoveries to test the token: {}", one["central"]);
    assert!(one["congestion"]["cycles_throttled"].as_u64().unwrap() > 0, "the threshold never throttled");
    same_on_any_thread_count("central + disha", &toml);
}

#[test]
fn central_routers_with_metapackets_and_per_router_tuning() {
    // The estimate gathered in-band: metapackets cross partitions with their sums, every
    // router's round completes in its own partition, and each router's tuner throttles
    // its own sources.
    let toml = central("deadlock = \"recovery\"\n[congestion]\npolicy = \"tune\"\ndistribution = \"metapackets\"");
    let (one, _) = report(&toml, 1);
    assert!(one["metapackets"]["completed"].as_u64().unwrap() > 1000, "too few rounds: {}", one["metapackets"]);
    assert!(one["congestion"]["cycles_throttled"].as_u64().unwrap() > 0, "never throttled");
    same_on_any_thread_count("central + metapackets", &toml);
    same_on_any_thread_count("metapackets, no tune", &central("deadlock = \"avoidance\"\n[congestion]\ndistribution = \"metapackets\""));
}

#[test]
fn central_routers_with_alo() {
    same_on_any_thread_count("central + alo", &central("deadlock = \"recovery\"\n[congestion]\npolicy = \"alo\""));
}

#[test]
fn sicortex_crosspoint_switches_with_multi_rail_around_failed_links() {
    // The crosspoint switch: whole-packet crosspoint entries allocated by the
    // transmitter (their credits cross back), cut-through, VCs by node order, messages
    // split over the disjoint routes that avoid the failed links.
    same_on_any_thread_count(
        "crosspoint",
        "seed = 9\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 4\n[routing]\ntype = \"source\"\nrails = 3\n\
         [router]\ntype = \"crosspoint\"\nvcs = 4\nxb_packets = 5\n[traffic]\nload = 0.6\npacket_size = { sizes = [1, 6], weights = [1, 1] }\n\
         [sim]\nwarmup = 300\nmeasure = 1500\n[faults]\nlinks = [[5, 1], [40, 0]]\n[stats]\nbuffer_sample = 3\ntimeline = 250\nchannel_timeline = true\n",
    );
}

/// K(3, 4) crosspoint switches with link-level retry on every link (`errors` under
/// `[channel.retry.errors]`), cut-through (poisoned copies) or store and forward, and
/// `extra` (failures during the run).
fn sicortex_retry(errors: &str, cut_through: bool, extra: &str) -> String {
    format!(
        "seed = 17\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 4\n[routing]\ntype = \"source\"\n\
         [router]\ntype = \"crosspoint\"\nvcs = 4\ncut_through = {cut_through}\n[channel]\nlatency = 2\n[channel.retry]\nwindow = 15\n\
         [channel.retry.errors]\n{errors}\n[traffic]\nload = 0.35\npacket_size = {{ sizes = [1, 4, 12], weights = [1, 1, 1] }}\n\
         [sim]\nwarmup = 300\nmeasure = 1500\n{extra}"
    )
}

#[test]
fn sicortex_retry_links_with_bit_errors_and_poisoned_copies() {
    // Errors judged in both copies of a crossing link alike; packets sent on before
    // their CRC is checked, poisoned copies dropped further on, across partitions.
    let toml = sicortex_retry("ber = 3e-4\nctrl_loss = 0.1", true, "[stats]\nbuffer_sample = 3\ntimeline = 250\nchannel_timeline = true\n");
    let (one, _) = report(&toml, 1);
    assert!(one["crosspoint"]["poisoned_copies"].as_u64().unwrap() > 20, "too few poisoned copies: {}", one["crosspoint"]);
    assert!(one["retry"]["totals"]["replays"].as_u64().unwrap() > 50, "too few replays: {}", one["retry"]);
    same_on_any_thread_count("retry + errors", &toml);
}

#[test]
fn sicortex_retry_links_with_bursts_and_store_and_forward() {
    same_on_any_thread_count("retry + bursts", &sicortex_retry("burst = { mean_gap = 2000.0, mean_len = 20.0, ber = 0.01 }", false, ""));
}

#[test]
fn sicortex_retry_links_and_nodes_failing_during_the_run() {
    // A link and a node fail mid-run: stranded packets counted lost by the partition of
    // the link's transmitter, copies voided at the receiver's.
    let toml = sicortex_retry(
        "ber = 1e-4",
        true,
        "[[faults.at]]\ncycle = 700\nlinks = [[20, 1], [75, 0]]\n[[faults.at]]\ncycle = 1100\nnodes = [40]\n",
    );
    let (one, _) = report(&toml, 1);
    assert!(one["counters"]["packets_lost"].as_u64().unwrap() > 0, "nothing lost to the failures: {}", one["counters"]);
    same_on_any_thread_count("retry + failures", &toml);
}

#[test]
fn sicortex_retry_finite_workload_with_failures_stops_at_the_same_cycle() {
    // The run ends once every packet record in every partition is gone: a copy a
    // partition kept after a crossing link delivered, stranded or poisoned it would keep
    // this run going past the cycle one thread stops at.
    let toml = sicortex_retry("ber = 3e-4", true, "until_done = true\n[[faults.at]]\ncycle = 400\nlinks = [[20, 1], [75, 0], [101, 2]]\n")
        .replace("load = 0.35", "load = 0.5\npackets_per_source = 30")
        .replace("measure = 1500", "measure = 100000");
    let (one, _) = report(&toml, 1);
    assert!(one["cycles"].as_u64().unwrap() < 20_000, "the finite workload did not finish: {}", one["cycles"]);
    assert!(one["retry"]["packets_lost"].as_u64().unwrap() > 0, "no packet stranded: {}", one["retry"]);
    same_on_any_thread_count("retry + finite", &toml);
}

/// A Clos of 16-port Myrinet-like crossbars streaming 8 KiB messages over a random
/// bisection with NIC routing scheme `selection` (messages reassembled at receivers of
/// every partition, probes and their replies crossing partitions as packets).
fn clos_messages(selection: &str) -> String {
    format!(
        "seed = 11\n[topology]\ntype = \"clos\"\nradix = 16\nstages = 3\nnodes = 64\n\
         [router]\nvcs = 1\nbuffer_depth = 16\nrouting_delay = 0\nvc_alloc_delay = 0\n[routing]\ntype = \"updown\"\nselection = \"{selection}\"\n\
         [channel]\nflit_bytes = 16\n[traffic]\npattern = {{ type = \"random_bisection\", index = 2 }}\ninjection = {{ type = \"backlogged\" }}\n\
         message = {{ bytes = 8192, mtu = 256, per_source = 4 }}\n[sim]\nwarmup = 0\nmeasure = 1000000\nuntil_done = true\n"
    )
}

#[test]
fn clos_messages_with_probing_adaptive_dispersion() {
    let toml = clos_messages("probing");
    let (one, _) = report(&toml, 1);
    assert!(one["dispersion"]["probes"].as_u64().unwrap() > 10, "too few probes: {}", one["dispersion"]);
    assert_eq!(one["messages"]["delivered"].as_u64().unwrap(), 64 * 4);
    same_on_any_thread_count("clos + probing", &toml);
}

#[test]
fn clos_messages_with_adaptive_dispersion() {
    same_on_any_thread_count("clos + adaptive", &clos_messages("adaptive"));
}

/// Probing in windows of several cycles: 4-cycle links and a fixed measurement window
/// (not `until_done`, which steps cycle by cycle), so partitions step 4 cycles between
/// hand-overs while probes and replies cross between them.
#[test]
fn clos_probing_in_lookahead_windows() {
    let toml = clos_messages("probing")
        .replace("measure = 1000000\nuntil_done = true\n", "measure = 4000\ndrain_limit = 0\n")
        .replace("[channel]\n", "[channel]\nlatency = 4\n");
    let (one, _) = report(&toml, 1);
    assert!(one["dispersion"]["replies"].as_u64().unwrap() > 10, "too few replies: {}", one["dispersion"]);
    same_on_any_thread_count("clos + probing, windows", &toml);
}

/// Longer channels and credit wires: nothing a partition sends arrives within 4 cycles
/// (the lookahead). Input-queued routers hand over cycle by cycle inside long windows
/// (pipelined); buffered-crossbar routers step 4 cycles between hand-overs. The windows
/// stop where the measurement window opens and closes (at cycles that are not multiples
/// of 4) and at the partial-deadlock search.
#[test]
fn long_channels_synchronise_once_per_lookahead_window() {
    let toml =
        "seed = 5\n[topology]\ntype = \"torus\"\ndims = [6, 5]\nconcentration = 2\n[router]\ncredit_delay = 4\n[channel]\nlatency = 3\n\
                [traffic]\nload = 0.4\npacket_size = 3\n[sim]\nwarmup = 301\nmeasure = 1503\nwatchdog = 499\n";
    let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
    let mut sim = Simulation::new(spec).unwrap();
    assert_eq!(sim.set_threads(2).unwrap(), 2);
    assert_eq!(sim.lookahead(), 4, "min(credit delay 4, output stage 2 + latency 3)");
    assert!(sim.pipelined(), "input-queued routers hand over cycle by cycle");
    same_on_any_thread_count("lookahead 4", toml);
    let seastar = "seed = 6\n[topology]\ntype = \"torus\"\ndims = [4, 4, 3]\n[router]\ntype = \"buffered_crossbar\"\ncredit_delay = 3\nage_clock_period = 8\n\
                   [channel]\nlatency = 5\n[traffic]\nload = 0.3\npacket_size = 5\n[sim]\nwarmup = 250\nmeasure = 1250\n";
    let mut sim = Simulation::new(Config::from_toml(seastar, &[]).unwrap().validate().unwrap()).unwrap();
    sim.set_threads(3).unwrap();
    assert_eq!(sim.lookahead(), 3);
    assert!(!sim.pipelined(), "buffered-crossbar routers meet after every window");
    same_on_any_thread_count("seastar lookahead 3", seastar);
}

#[test]
fn networks_that_are_not_partitioned_say_why() {
    let spec =
        |extra: &str| Config::from_toml(&format!("[topology]\ntype = \"torus\"\ndims = [4, 4]\n{extra}"), &[]).unwrap().validate().unwrap();
    let mut check = Simulation::new(spec("[sim]\ncheck = true\n")).unwrap();
    assert_eq!(check.set_threads(2).unwrap(), 1);
    assert!(check.serial_reason(2).unwrap().contains("check mode"));
    let mut polling = Simulation::new(spec("[channel]\nlatency = 70\n")).unwrap();
    assert_eq!(polling.set_threads(2).unwrap(), 1);
    assert!(polling.serial_reason(2).unwrap().contains("calendar"));
    let mut too_many = Simulation::new(spec("")).unwrap();
    assert_eq!(too_many.set_threads(17).unwrap(), 1);
    assert!(too_many.serial_reason(17).unwrap().contains("fewer routers"));
    // Set once, before the first cycle.
    let mut late = Simulation::new(spec("")).unwrap();
    late.run_cycles(1).unwrap();
    assert!(late.set_threads(2).unwrap_err().to_string().contains("before the first cycle"));
    assert!(Simulation::new(spec("")).unwrap().set_threads(0).is_err());
}

/// The error of a run on `threads` threads (it must fail).
fn error_on(toml: &str, threads: usize) -> String {
    let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
    let mut sim = Simulation::new(spec).unwrap();
    assert_eq!(sim.set_threads(threads).unwrap(), threads);
    let e = sim.run(&mut |_| {}).map(|_| ()).expect_err("the run should deadlock").to_string();
    // Packet ids are private to a partition's arena: the report's "packet N" differs.
    e.split("packet ")
        .enumerate()
        .map(
            |(i, part)| {
                if i == 0 {
                    part.to_string()
                } else {
                    format!("packet #{}", part.trim_start_matches(|c: char| c.is_ascii_digit()))
                }
            },
        )
        .collect()
}

/// Deadlocks are reported the same, cycle and blocked channels (but for the packets'
/// ids, private to a partition), on any thread count:
/// a ring without datelines that stops altogether (the watchdog trips inside what would
/// otherwise be one long window of the pipelined hand-over), and a 4x4x4 torus whose
/// routes around two failed links wedge a few VCs while the rest still moves (found by
/// the periodic search).
#[test]
fn deadlocks_are_reported_the_same_on_any_thread_count() {
    let ring = "[topology]\ntype = \"torus\"\ndims = [8]\n[router]\nvcs = 1\nbuffer_depth = 2\n[routing]\ntype = \"dor\"\ndatelines = false\n\
                [traffic]\nload = 0.9\npacket_size = 8\npattern = { type = \"tornado\" }\n[sim]\nwarmup = 0\nmeasure = 20000\nwatchdog = 200\n";
    let partial = "[topology]\ntype = \"torus\"\ndims = [4, 4, 4]\n[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"\ndateline = [3, 3, 0]\nring_datelines = \"dimension\"\n\
                   [traffic]\nload = 0.3\n[sim]\nwarmup = 300\nmeasure = 20000\nwatchdog = 300\n\
                   [faults]\nlinks = [[5, 4], [30, 4]]\nunroutable = \"skip\"\ncyclic_routes = \"run\"\n";
    for (name, toml) in [("ring", ring), ("partial", partial)] {
        let one = error_on(toml, 1);
        assert!(one.contains("deadlock"), "{name}: {one}");
        for threads in [2, 4] {
            assert_eq!(error_on(toml, threads), one, "{name} on {threads} threads");
        }
    }
}

#[test]
fn the_default_thread_count_follows_the_network_size_and_hand_over() {
    use flitsim_core::sim::parallel::auto_threads;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = |toml: &str| auto_threads(&Config::from_toml(toml, &[]).unwrap().validate().unwrap());
    let mesh = |k: u32, router: &str| format!("[topology]\ntype = \"mesh\"\ndims = [{k}, {k}]\n[router]\ntype = \"{router}\"\n");
    // (On a one-core machine every answer is 1.) Input-queued routers hand over cycle
    // by cycle: 8x8 = 64 routers already profit, 7x7 = 49 do not.
    assert_eq!(threads(&mesh(8, "input_queued")), cores);
    assert_eq!(threads(&mesh(7, "input_queued")), 1);
    // Routers whose partitions meet after every window need 256 (16x16).
    assert_eq!(threads(&mesh(8, "buffered_crossbar")), 1);
    assert_eq!(threads(&mesh(16, "buffered_crossbar")), cores);
}
