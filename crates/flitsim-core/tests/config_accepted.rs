//! Good configs are accepted: values just inside every range, optional tables left
//! out, overrides applied in order, and every config written back as TOML reads the
//! same. (The refused ones are in `config_errors.rs`.)

use flitsim_core::config::Config;

fn run(toml: &str, set: &[&str]) -> Result<(), flitsim_core::Error> {
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    Config::from_toml(toml, &set)?.validate().map(|_| ())
}

#[test]
fn one_vc_is_fine_without_a_torus_dimension() {
    // The same router that a torus refuses (see `torus_needs_two_vcs_for_datelines`) is
    // accepted on a mesh, a cube with no wrapped dimension and a crossbar, and on a torus
    // when datelines are off (deadlock study).
    for toml in [
        "[topology]\ntype = \"mesh\"\ndims = [4, 4]\n[router]\nvcs = 1",
        "[topology]\ntype = \"cube\"\ndims = [4, 4]\nwrap = [false, false]\n[router]\nvcs = 1",
        "[topology]\ntype = \"crossbar\"\nports = 8\n[router]\nvcs = 1",
        "[router]\nvcs = 1\n[routing]\ndatelines = false",
    ] {
        run(toml, &[]).unwrap_or_else(|e| panic!("{toml}\nrefused: {e}"));
    }
}

#[test]
fn edge_values_just_inside_the_ranges_are_accepted() {
    for toml in [
        // 8x8 torus, 5 ports: 12 VCs = 60 input VCs <= 64; 16 VCs = 80 <= 128.
        "[router]\nvcs = 12",
        "[router]\nvcs = 16",
        // Exactly 64 input VCs: 2-D mesh with concentration 4 (8 ports) x 8 VCs.
        "[topology]\ntype = \"mesh\"\ndims = [4, 4]\nconcentration = 4\n[router]\nvcs = 8",
        // Exactly 128: the same with 16 VCs, and a 64-port crossbar with 2.
        "[topology]\ntype = \"mesh\"\ndims = [4, 4]\nconcentration = 4\n[router]\nvcs = 16",
        "[topology]\ntype = \"crossbar\"\nports = 64\n[router]\nvcs = 2",
        // Exactly 64 on the buffered crossbar: 8 ports x 8 VCs.
        "[topology]\ntype = \"mesh\"\ndims = [4, 4]\nconcentration = 4\n[router]\ntype = \"buffered_crossbar\"\nvcs = 8",
        "[router]\nrouting_delay = 0\nvc_alloc_delay = 0\nsw_alloc_delay = 0\nst_delay = 0\ncredit_delay = 1",
        "[router]\nrouting_delay = 16\nvc_alloc_delay = 16\nsw_alloc_delay = 16\nst_delay = 16\ncredit_delay = 64",
        "[router]\nflow_control = \"virtual_cut_through\"\nbuffer_depth = 8\n[traffic]\npacket_size = 8",
        "[channel]\nlatency = 1000\nendpoint_latency = 1000\ndim_latency = [1, 1000]\ninjection_latency = 1000",
        "[traffic]\nload = 0.0",
        "[traffic]\nload = 1.0",
        "[stats]\naccepted_tolerance = 0.0",
        "[topology]\ntype = \"crossbar\"\nports = 1",
        "[topology]\ntype = \"crossbar\"\nports = 64\n[router]\nvcs = 1",
        "[topology]\ntype = \"torus\"\ndims = [2, 2]\n[traffic.pattern]\ntype = \"merge_to_one\"\ndest = 3",
        "[routing]\norder = [1, 0]",
        // The fewest processes that pair: 2 nodes x 1, and 2 active of 3 (one node idle).
        "[topology]\ntype = \"crossbar\"\nports = 2\n[traffic.pattern]\ntype = \"process_pairs\"\nper_node = 1",
        "[topology]\ntype = \"crossbar\"\nports = 3\n[traffic.pattern]\ntype = \"process_pairs\"\nper_node = 1\nactive = 2",
        "[topology]\ntype = \"crossbar\"\nports = 2\n[traffic]\npackets_per_source = 1\npattern = { type = \"all_to_all\" }",
        // Default pipeline 4 + wire 1: the shortest watchdog that cannot fire falsely.
        "[sim]\nwatchdog = 5\nmeasure = 1\nwarmup = 0\ndrain_limit = 0",
        "[router]\nrouting_delay = 0\nvc_alloc_delay = 0\nsw_alloc_delay = 0\nst_delay = 0\n[sim]\nwatchdog = 1",
    ] {
        run(toml, &[]).unwrap_or_else(|e| panic!("{toml}\nrefused: {e}"));
    }
}

#[test]
fn router_and_routing_type_may_be_left_out() {
    // Single-choice families default their `type`, so an override of one field works on
    // the empty config.
    let c = Config::from_toml("", &["router.vcs=2".into(), "routing.datelines=false".into()]).unwrap();
    let c2 = Config::from_toml("[router]\ntype = \"input_queued\"\nvcs = 2\n[routing]\ntype = \"dor\"\ndatelines = false", &[]).unwrap();
    assert_eq!(c, c2);
    c.validate().unwrap();
}

#[test]
fn empty_config_is_the_default_and_validates() {
    let empty = Config::from_toml("", &[]).unwrap();
    assert_eq!(empty, Config::default());
    let spec = empty.validate().unwrap();
    assert_eq!(spec.topology.num_nodes, 64);
    Config::default().validate().unwrap();
    // Whitespace and comments only are the empty config too.
    assert_eq!(Config::from_toml("# nothing\n\n", &[]).unwrap(), Config::default());
}

#[test]
fn overrides_on_the_default_can_change_a_table_type() {
    // The default's input-queued fields (allocator, ...) must not stay behind when an
    // override switches the router to another type.
    let c = Config::load(None, &["router.type=\"central\"".into(), "routing.type=\"adaptive\"".into()]).unwrap();
    assert!(matches!(c.router, flitsim_core::router::RouterConfig::Central(_)), "{:?}", c.router);
    c.validate().unwrap();
    assert_eq!(Config::load(None, &["seed=7".into()]).unwrap(), Config { seed: 7, ..Config::default() });
    // Fields the new type shares stay: a mesh keeps the default torus's dims.
    let c = Config::load(None, &["topology.type=\"mesh\"".into()]).unwrap();
    let spec = c.validate().unwrap();
    assert_eq!((spec.topology.num_nodes, spec.topology.wrap.clone()), (64, vec![false, false]));
    // Partial overrides of the default's tables keep the rest of the table.
    let c = Config::load(None, &["topology.dims=[4,4]".into()]).unwrap();
    assert_eq!(c.validate().unwrap().topology.num_nodes, 16);
    // A field the user gives that the new type lacks is still an error.
    let e = Config::load(None, &["router.type=\"central\"".into(), "router.allocator=\"islip\"".into()]).unwrap_err();
    assert!(e.to_string().contains("router.allocator"), "{e}");
}

#[test]
fn default_config_round_trips_through_toml() {
    let text = Config::default().to_toml();
    assert!(!text.is_empty());
    let back = Config::from_toml(&text, &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back, Config::default(), "{text}");
    // A second trip is a fixed point of the text too.
    assert_eq!(back.to_toml(), text);
}

#[test]
fn non_default_configs_round_trip_through_toml() {
    for toml in [
        "seed = 9\n[topology]\ntype = \"cube\"\ndims = [4, 3, 2]\nwrap = [true, false, true]\nconcentration = 2\n\
         [router]\nvcs = 2\nallocator = \"islip\"\nislip_iterations = 2\n[routing]\norder = [2, 0, 1]\n\
         [channel]\ndim_latency = [1, 2, 3]",
        "[topology]\ntype = \"crossbar\"\nports = 8\n[traffic]\nload = 0.5\n\
         pattern = { type = \"hotspot\", nodes = [1, 2], fraction = 0.25 }\n\
         injection = { type = \"on_off\", burst_length = 4.0, peak = 0.9 }\n\
         packet_size = { sizes = [1, 4], weights = [0.5, 0.5] }\n\
         [[traffic.phases]]\nduration = 100\nload = 0.1\n\
         [[traffic.phases]]\nduration = 50\nload = 0.3\npattern = { type = \"random_permutation\", seed = 4 }",
        "[router]\nflow_control = \"virtual_cut_through\"\n[traffic]\npacket_size = 4\n\
         pattern = { type = \"tornado\" }\n[stats]\nchannel_counters = false\nlatency_limit = 250.0",
        "[traffic]\npackets_per_source = 63\npattern = { type = \"all_to_all\" }\n\
         [[traffic.phases]]\nduration = 10\nload = 0.2\npattern = { type = \"all_to_all\" }",
        // BookSim2's conventions: fields left out of the written config at their defaults
        // must be written when set.
        "[router]\nvc_alloc_pointer = \"per_router\"\n[channel]\ninjection_latency = 2",
        // ... and the torus choices and the iSLIP VC allocator (its iterations with it).
        "[routing]\ntype = \"dor\"\nties = \"random\"\ndateline_class = \"at_entry\"\n[router]\nvc_allocator = \"islip\"\nislip_iterations = 2",
        "[routing]\ntype = \"table\"\nties = \"destination_parity\"\ndateline_class = \"at_entry\"",
    ] {
        let c = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
        c.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"));
        let text = c.to_toml();
        assert_eq!(Config::from_toml(&text, &[]).unwrap(), c, "{text}");
    }
}

#[test]
fn overrides_apply_in_order_and_parse_values_as_toml() {
    let c = Config::from_toml(
        "[traffic]\nload = 0.2",
        &[
            "traffic.load=0.4".into(),
            "traffic.load = 0.5".into(),
            "topology={ type = \"mesh\", dims = [3, 3] }".into(),
            "traffic.pattern.type=neighbor".into(),
        ],
    )
    .unwrap();
    assert_eq!(c.traffic.load, 0.5);
    let spec = c.validate().unwrap();
    assert_eq!(spec.topology.num_nodes, 9);
}

/// `sim.until_done` needs a workload that ends (the refusal is in `config_errors.rs`):
/// each of the three ways to end one is accepted, and a run whose phased schedule ends
/// stops once the last packet is delivered instead of running out its window.
#[test]
fn until_done_is_accepted_with_each_way_a_workload_ends() {
    let done = "[sim]\nwarmup = 0\nmeasure = 1000000\nuntil_done = true\n";
    for traffic in [
        "[traffic]\npackets_per_source = 5\n",
        "[traffic]\nmessage = { bytes = 64, mtu = 32, per_source = 2 }\n[channel]\nflit_bytes = 16\n",
        "[[traffic.phases]]\nduration = 200\nload = 0.2\n",
    ] {
        let toml = format!("{traffic}{done}");
        run(&toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    }
    // 200 cycles of injection on the default 8x8 torus: every packet is delivered within
    // a few hundred cycles more (zero-load latency ~30 cycles at load 0.2), far short of
    // the 10^6-cycle window.
    let spec = Config::from_toml(&format!("[[traffic.phases]]\nduration = 200\nload = 0.2\n{done}"), &[]).unwrap().validate().unwrap();
    let report = flitsim_core::sim::Simulation::new(spec).unwrap().run(&mut |_| {}).unwrap();
    assert!(report.counters.packets_created > 0);
    assert_eq!(report.counters.packets_delivered, report.counters.packets_created);
    assert!((200..1000).contains(&report.cycles), "the run lasted {} cycles", report.cycles);
}
