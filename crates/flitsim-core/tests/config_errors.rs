//! Every bad config is refused before anything runs, with a message that names the key
//! path, the bad value and the fix or the valid choices.
//!
//! One row per case: the TOML text and `--set` overrides, the error kind (`Parse`: not
//! TOML, wrong type, unknown key or variant; `Config`: parsed but impossible), the exact
//! key path the error must name, and substrings its message must contain. A new config
//! field gets a row here for each way it can be wrong.
//!
//! Regressions pinned here: errors inside a tagged table (`[router]`, `[topology]`,
//! `[traffic.pattern]`, ...) used to name only the table and print just "in `router`"
//! (`vcs_is_a_string`, `hotspot_node_is_negative`); an override `=0.4` gave an empty
//! path (`override_with_empty_key`); a watchdog shorter than a wire or pipeline was
//! accepted and then reported a deadlock that was not there
//! (`watchdog_shorter_than_a_long_wire`).

use flitsim_core::config::Config;
use flitsim_core::Error;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Parse,
    Config,
}
use Kind::{Config as Cfg, Parse};

/// One bad config.
struct Case {
    name: &'static str,
    toml: &'static str,
    set: &'static [&'static str],
    kind: Kind,
    path: &'static str,
    has: &'static [&'static str],
}

const fn case(name: &'static str, toml: &'static str, kind: Kind, path: &'static str, has: &'static [&'static str]) -> Case {
    Case { name, toml, set: &[], kind, path, has }
}

const fn set(
    name: &'static str,
    toml: &'static str,
    set: &'static [&'static str],
    kind: Kind,
    path: &'static str,
    has: &'static [&'static str],
) -> Case {
    Case { name, toml, set, kind, path, has }
}

const CASES: &[Case] = &[
    // ---- not TOML at all ----
    case("not_toml", "seed = 1\n[[[", Parse, "<root>", &["not valid TOML", "line 2"]),
    // ---- unknown keys ----
    case(
        "unknown_top_level_key",
        "colour = \"red\"",
        Parse,
        "colour",
        &["unknown field `colour`", "`seed`", "`topology`", "`traffic`", "remove it or fix its spelling"],
    ),
    case(
        "unknown_key_in_router",
        "[router]\ntype = \"input_queued\"\nvc = 4",
        Parse,
        "router.vc",
        &["unknown field `vc`", "`vcs`", "`buffer_depth`", "`credit_delay`", "remove it"],
    ),
    case(
        "unknown_key_in_router_without_type",
        "[router]\nvirtual_channels = 4",
        Parse,
        "router.virtual_channels",
        &["unknown field `virtual_channels`", "`vcs`"],
    ),
    case(
        "unknown_key_in_traffic",
        "[traffic]\nrate = 0.1",
        Parse,
        "traffic.rate",
        &["unknown field `rate`", "`load`", "`pattern`", "`packet_size`"],
    ),
    case(
        "stray_key_on_tornado",
        "[traffic.pattern]\ntype = \"tornado\"\nk = 8",
        Parse,
        "traffic.pattern.k",
        &["unknown field `k`", "\"tornado\" takes no other keys", "remove it"],
    ),
    case(
        "stray_key_on_hotspot",
        "[traffic.pattern]\ntype = \"hotspot\"\nnodes = [1]\nfraction = 0.1\nweight = 2",
        Parse,
        "traffic.pattern.weight",
        &["unknown field `weight`", "`nodes`", "`fraction`"],
    ),
    case(
        "stray_key_on_bernoulli",
        "[traffic.injection]\ntype = \"bernoulli\"\nrate = 0.5",
        Parse,
        "traffic.injection.rate",
        &["unknown field `rate`", "\"bernoulli\" takes no other keys"],
    ),
    case("unknown_key_in_sim", "[sim]\nwarmpu = 10", Parse, "sim.warmpu", &["unknown field `warmpu`", "`warmup`", "`watchdog`"]),
    case(
        "unknown_key_in_topology",
        "[topology]\ntype = \"mesh\"\ndims = [4]\nwrap = [true]",
        Parse,
        "topology.wrap",
        &["unknown field `wrap`", "`dims`", "`concentration`"],
    ),
    case("unknown_key_in_routing", "[routing]\ntype = \"dor\"\nvcs = 2", Parse, "routing.vcs", &["unknown field `vcs`", "`order`", "`datelines`"]),
    case("unknown_key_in_channel", "[channel]\ndelay = 2", Parse, "channel.delay", &["unknown field `delay`", "`latency`"]),
    case("unknown_key_in_stats", "[stats]\nhistogram = 2", Parse, "stats.histogram", &["unknown field `histogram`", "`histogram_bin`"]),
    case(
        "unknown_key_in_phase",
        "[[traffic.phases]]\nduration = 10\nload = 0.1\ncycles = 3",
        Parse,
        "traffic.phases[0].cycles",
        &["unknown field `cycles`", "`duration`"],
    ),
    case(
        "unknown_key_in_packet_size",
        "[traffic]\npacket_size = { sizes = [1], weights = [1.0], mean = 1 }",
        Parse,
        "traffic.packet_size.mean",
        &["unknown field `mean`", "`sizes`", "`weights`"],
    ),
    // ---- missing required keys ----
    case("missing_topology_type", "[topology]\ndims = [4, 4]", Parse, "topology.type", &["missing field `type`", "`torus`", "`mesh`", "`crossbar`"]),
    case("missing_dims", "[topology]\ntype = \"torus\"", Parse, "topology.dims", &["missing field `dims`", "add it"]),
    case("missing_wrap", "[topology]\ntype = \"cube\"\ndims = [4, 4]", Parse, "topology.wrap", &["missing field `wrap`"]),
    case("missing_crossbar_ports", "[topology]\ntype = \"crossbar\"", Parse, "topology.ports", &["missing field `ports`"]),
    case("missing_pattern_type", "[traffic.pattern]\nnodes = [1]", Parse, "traffic.pattern.type", &["missing field `type`", "`hotspot`"]),
    case(
        "missing_hotspot_fraction",
        "[traffic.pattern]\ntype = \"hotspot\"\nnodes = [1]",
        Parse,
        "traffic.pattern.fraction",
        &["missing field `fraction`"],
    ),
    case("missing_phase_duration", "[[traffic.phases]]\nload = 0.1", Parse, "traffic.phases[0].duration", &["missing field `duration`"]),
    // ---- wrong types ----
    case(
        "vcs_is_a_string",
        "[router]\ntype = \"input_queued\"\nvcs = \"4\"",
        Parse,
        "router.vcs",
        &["invalid type: string \"4\"", "expected a whole number"],
    ),
    case("warmup_is_a_float", "[sim]\nwarmup = 1.5", Parse, "sim.warmup", &["invalid type: floating point `1.5`", "expected a whole number"]),
    case("load_is_a_bool", "[traffic]\nload = true", Parse, "traffic.load", &["invalid type: boolean `true`", "expected a number"]),
    case("vcs_is_negative", "[router]\nvcs = -2", Parse, "router.vcs", &["integer `-2`", "0..=4294967295"]),
    case("vcs_is_huge", "[router]\nvcs = 99999999999", Parse, "router.vcs", &["integer `99999999999`", "0..=4294967295"]),
    case("dims_is_a_string", "[topology]\ntype = \"torus\"\ndims = \"8x8\"", Parse, "topology.dims", &["string \"8x8\"", "expected an array"]),
    case("dims_element_is_a_string", "[topology]\ntype = \"torus\"\ndims = [8, \"8\"]", Parse, "topology.dims[1]", &["string \"8\""]),
    case("datelines_is_an_int", "[routing]\ndatelines = 1", Parse, "routing.datelines", &["integer `1`", "true or false"]),
    case(
        "hotspot_node_is_negative",
        "[traffic.pattern]\ntype = \"hotspot\"\nnodes = [3, -1]\nfraction = 0.1",
        Parse,
        "traffic.pattern.nodes[1]",
        &["integer `-1`"],
    ),
    case(
        "phase_pattern_field_wrong_type",
        "[[traffic.phases]]\nduration = 5\nload = 0.1\npattern = { type = \"merge_to_one\", dest = \"x\" }",
        Parse,
        "traffic.phases[0].pattern.dest",
        &["string \"x\""],
    ),
    case("packet_size_is_negative", "[traffic]\npacket_size = -3", Parse, "traffic.packet_size", &["integer `-3`", "packet size in flits"]),
    case("traffic_is_a_number", "traffic = 3", Parse, "traffic", &["integer `3`", "expected a table"]),
    case(
        "topology_is_a_string",
        "topology = \"torus\"",
        Parse,
        "topology",
        &["string \"torus\"", "topology table", "type = \"torus\""],
    ),
    case(
        "topology_type_is_a_number",
        "[topology]\ntype = 3\ndims = [4]",
        Parse,
        "topology.type",
        &["integer `3`", "`torus`", "`mesh`"],
    ),
    // ---- unknown variant names list the valid choices ----
    case(
        "unknown_topology_type",
        "[topology]\ntype = \"hypercube\"\ndims = [4]",
        Parse,
        "topology.type",
        &["unknown variant `hypercube`", "`torus`", "`mesh`", "`cube`", "`crossbar`"],
    ),
    case("unknown_routing_type", "[routing]\ntype = \"valiant\"", Parse, "routing.type", &["unknown variant `valiant`", "`dor`"]),
    case(
        "unknown_pattern_type",
        "[traffic.pattern]\ntype = \"butterfly\"",
        Parse,
        "traffic.pattern.type",
        &["unknown variant `butterfly`", "`uniform`", "`bit_complement`", "`tornado`", "`hotspot`", "`merge_to_one`"],
    ),
    case(
        "unknown_injection_type",
        "[traffic.injection]\ntype = \"poisson\"",
        Parse,
        "traffic.injection.type",
        &["unknown variant `poisson`", "`bernoulli`", "`on_off`"],
    ),
    case(
        "unknown_router_type",
        "[router]\ntype = \"output_queued\"",
        Parse,
        "router.type",
        &["unknown variant `output_queued`", "`input_queued`"],
    ),
    case(
        "unknown_allocator",
        "[router]\nallocator = \"wavefront\"",
        Parse,
        "router.allocator",
        &["unknown variant `wavefront`", "`separable_input_first`", "`islip`"],
    ),
    case(
        "unknown_flow_control",
        "[router]\nflow_control = \"store_and_forward\"",
        Parse,
        "router.flow_control",
        &["unknown variant `store_and_forward`", "`wormhole`", "`virtual_cut_through`"],
    ),
    // ---- declared ranges of the congestion table (checked before anything else) ----
    case("hop_delay_zero", "[congestion]\npolicy = \"tune\"\nhop_delay = 0", Cfg, "congestion.hop_delay", &["0 is out of range", "1..=1024"]),
    case("hop_delay_too_long", "[congestion]\npolicy = \"tune\"\nhop_delay = 2000", Cfg, "congestion.hop_delay", &["2000 is out of range", "1..=1024"]),
    case("tuning_period_zero", "[congestion]\npolicy = \"tune\"\ntuning_period = 0", Cfg, "congestion.tuning_period", &["0 is out of range", "1..="]),
    case("max_resets_zero", "[congestion]\npolicy = \"tune\"\nmax_resets = 0", Cfg, "congestion.max_resets", &["0 is out of range", "at least 1"]),
    // ---- router ranges ----
    case("zero_vcs", "[router]\nvcs = 0", Cfg, "router.vcs", &["0 is out of range", "1..=16"]),
    case("seventeen_vcs", "[router]\nvcs = 17", Cfg, "router.vcs", &["17 is out of range", "1..=16"]),
    // 2-D mesh with 5 endpoints per router: 9 ports; 9 x 16 = 144 > 128.
    case(
        "vcs_too_many_for_ports",
        "[topology]\ntype = \"mesh\"\ndims = [4, 4]\nconcentration = 5\n[router]\nvcs = 16",
        Cfg,
        "router.vcs",
        &["16 VCs", "9 ports", "144 input VCs", "input-queued routers support at most 128", "fewer VCs"],
    ),
    // 2-D mesh with 8 endpoints per router: 12 ports; 12 x 11 = 132 > 128.
    case(
        "vcs_too_many_with_concentration",
        "[topology]\ntype = \"mesh\"\ndims = [4, 4]\nconcentration = 8\n[router]\nvcs = 11",
        Cfg,
        "router.vcs",
        &["11 VCs", "12 ports", "132 input VCs", "lower concentration"],
    ),
    case(
        "crossbar_64_ports_three_vcs",
        "[topology]\ntype = \"crossbar\"\nports = 64\n[router]\nvcs = 3",
        Cfg,
        "router.vcs",
        &["192 input VCs", "smaller crossbar"],
    ),
    // The buffered crossbar (SeaStar) keeps 64-bit sets: 7 ports x 10 VCs = 70 > 64.
    case(
        "buffered_vcs_too_many_for_ports",
        "[topology]\ntype = \"torus\"\ndims = [4, 4, 4]\n[router]\ntype = \"buffered_crossbar\"\nvcs = 10",
        Cfg,
        "router.vcs",
        &["70 input VCs", "buffered-crossbar routers support at most 64", "router.type = \"input_queued\" (up to 128)"],
    ),
    case(
        "torus_needs_two_vcs_for_datelines",
        "[router]\nvcs = 1",
        Cfg,
        "router.vcs",
        &["1 VC", "two dateline classes", "vcs >= 2", "datelines = false"],
    ),
    case(
        "cube_with_one_torus_dim_needs_two_vcs",
        "[topology]\ntype = \"cube\"\ndims = [4, 4]\nwrap = [false, true]\n[router]\nvcs = 1",
        Cfg,
        "router.vcs",
        &["two dateline classes"],
    ),
    case("buffer_depth_zero", "[router]\nbuffer_depth = 0", Cfg, "router.buffer_depth", &["0 is out of range", "1..=1024"]),
    case("islip_iterations_zero", "[router]\nislip_iterations = 0", Cfg, "router.islip_iterations", &["0 is out of range", "1..=8"]),
    case(
        "vct_buffer_smaller_than_packet",
        "[router]\nflow_control = \"virtual_cut_through\"\nbuffer_depth = 4\n[traffic]\npacket_size = 8",
        Cfg,
        "router.buffer_depth",
        &["4 flits", "8-flit packet", "buffer_depth >= 8", "flow_control = \"wormhole\""],
    ),
    case(
        "vct_buffer_smaller_than_largest_packet_of_a_distribution",
        "[router]\nflow_control = \"virtual_cut_through\"\nbuffer_depth = 8\n[traffic]\npacket_size = { sizes = [1, 9], weights = [3.0, 1.0] }",
        Cfg,
        "router.buffer_depth",
        &["8 flits", "9-flit packet"],
    ),
    case("routing_delay_too_large", "[router]\nrouting_delay = 17", Cfg, "router.routing_delay", &["17 is out of range", "0..=16"]),
    case("vc_alloc_delay_too_large", "[router]\nvc_alloc_delay = 100", Cfg, "router.vc_alloc_delay", &["100 is out of range", "0..=16"]),
    case("sw_alloc_delay_too_large", "[router]\nsw_alloc_delay = 17", Cfg, "router.sw_alloc_delay", &["17 is out of range"]),
    case("st_delay_too_large", "[router]\nst_delay = 17", Cfg, "router.st_delay", &["17 is out of range"]),
    case("credit_delay_zero", "[router]\ncredit_delay = 0", Cfg, "router.credit_delay", &["0 is out of range", "1..=64", "credit"]),
    case("credit_delay_too_large", "[router]\ncredit_delay = 65", Cfg, "router.credit_delay", &["65 is out of range", "1..=64"]),
    // ---- buffered-crossbar router ----
    case("buffered_staging_too_small", "[router]\ntype = \"buffered_crossbar\"\nstaging_depth = 8\n[traffic]\npacket_size = 9", Cfg, "router.staging_depth", &["8 flits cannot hold a 9-flit packet", "staging_depth >= 9"]),
    case("buffered_input_below_max_packet", "[router]\ntype = \"buffered_crossbar\"\nbuffer_depth = 4\nstaging_depth = 9\n[traffic]\npacket_size = 9", Cfg, "router.buffer_depth", &["4 flits", "buffer_depth >= 9"]),
    case("buffered_max_packet_below_workload", "[router]\ntype = \"buffered_crossbar\"\nmax_packet = 4\n[traffic]\npacket_size = 9", Cfg, "router.max_packet", &["4 flits is smaller", "max_packet >= 9"]),
    case("buffered_eject_rate_zero", "[router]\ntype = \"buffered_crossbar\"\neject_rate = 0.0", Cfg, "router.eject_rate", &["0 is out of range", "0.01..=1"]),
    case("buffered_eject_rate_above_link", "[router]\ntype = \"buffered_crossbar\"\neject_rate = 1.5", Cfg, "router.eject_rate", &["1.5 is out of range", "1 = the link rate"]),
    case("iq_eject_rate_zero", "[router]\neject_rate = 0.0", Cfg, "router.eject_rate", &["0 is out of range", "0.01..=1"]),
    case("buffered_bias_list_wrong_length", "[router]\ntype = \"buffered_crossbar\"\nreq_age_bias = [3, 2, 1]", Cfg, "router.req_age_bias", &["has 3 entries", "2 dimensions"]),
    case("buffered_bias_too_large", "[router]\ntype = \"buffered_crossbar\"\nrsp_age_bias = [1, 8]", Cfg, "router.rsp_age_bias[1]", &["8 is out of range", "0..=7", "3-bit"]),
    case("buffered_port_biases_wrong_length", "[router]\ntype = \"buffered_crossbar\"\nreq_age_bias_ports = [1, 1]", Cfg, "router.req_age_bias_ports", &["has 2 entries", "5 ports"]),
    case("buffered_local_bias_too_large", "[router]\ntype = \"buffered_crossbar\"\nreq_age_bias_local = 9", Cfg, "router.req_age_bias_local", &["9 is out of range", "0..=7"]),
    case("buffered_age_clock_zero", "[router]\ntype = \"buffered_crossbar\"\nage_clock_period = 0", Cfg, "router.age_clock_period", &["0 is out of range", "AGE_CLK_PERIOD", "at least 1"]),
    case("buffered_mask_not_hex", "[router]\ntype = \"buffered_crossbar\"\nage_rr_select = \"0xzz\"", Parse, "router.age_rr_select", &["not a 64-bit mask", "0x5555555555555555"]),
    case("buffered_mask_a_float", "[router]\ntype = \"buffered_crossbar\"\nage_rr_select = 1.5", Parse, "router.age_rr_select", &["1.5", "a 64-bit mask", "0x5555555555555555"]),
    case("sync_loss_lanes_a_number", "[router]\ntype = \"crosspoint\"\n[topology]\ntype = \"kautz\"\ndegree = 2\ndiameter = 3\n[routing]\ntype = \"source\"\n[channel.retry.errors]\nsync_loss = [{ start = 1, duration = 2, lanes = 0 }]", Parse, "channel.retry.errors.sync_loss[0].lanes", &["`data`", "`control`", "`both`"]),
    case("crosspoint_inject_depth_huge", "[router]\ntype = \"crosspoint\"\ninject_depth = 4294967295\n[topology]\ntype = \"kautz\"\ndegree = 2\ndiameter = 3\n[routing]\ntype = \"source\"", Cfg, "router.inject_depth", &["4294967295 is out of range", "1..=4096"]),
    case("central_lanes_beyond_63", "[topology]\ntype = \"torus\"\ndims = [4, 4]\nconcentration = 12\n[router]\ntype = \"central\"\n[routing]\ntype = \"adaptive\"", Cfg, "router.vcs", &["16 ports x (3 VCs + the deadlock-buffer lane)", "63 input lanes", "use vcs <= 2"]),
    case("flow_control_a_number", "[router]\nflow_control = 3", Parse, "router.flow_control", &["3 is not a name", "`wormhole` or `virtual_cut_through`"]),
    case("buffered_mask_negative", "[router]\ntype = \"buffered_crossbar\"\nage_rr_select = -1", Parse, "router.age_rr_select", &["-1 is negative"]),
    case("buffered_saturation_check_unknown", "[router]\ntype = \"buffered_crossbar\"\nsaturation_check = \"exact\"", Parse, "router.saturation_check", &["unknown variant `exact`", "`corrected`", "`as_printed`"]),
    case("buffered_staging_depth_zero", "[router]\ntype = \"buffered_crossbar\"\nstaging_depth = 0", Cfg, "router.staging_depth", &["0 is out of range", "1..=4096"]),
    case("routing_classes_do_not_divide_vcs", "[router]\nvcs = 3\n[routing]\nclasses = 2", Cfg, "routing.classes", &["3 VCs cannot be split into 2", "multiple of 2"]),
    case("routing_classes_too_few_vcs_for_datelines", "[router]\nvcs = 2\n[routing]\nclasses = 2", Cfg, "router.vcs", &["1 VC per traffic class", "vcs >= 4"]),
    case("table_region_not_power_of_two", "[routing]\ntype = \"table\"\nregion_size = 48", Cfg, "routing.region_size", &["48 is not a power of two"]),
    case("table_region_cuts_planes", "[topology]\ntype = \"torus\"\ndims = [4, 4, 4]\n[routing]\ntype = \"table\"\nregion_size = 8", Cfg, "routing.region_size", &["whole number of YZ planes", "16 nodes each"]),
    case("table_unknown_key", "[routing]\ntype = \"table\"\nregions = 4", Parse, "routing.regions", &["unknown field `regions`"]),
    case("table_vc_policy_unknown", "[routing]\ntype = \"table\"\nvc_policy = \"v4\"", Parse, "routing.vc_policy", &["unknown variant `v4`", "`initial`", "`v3`"]),
    case("table_vc_policy_needs_two_vcs_per_class", "[router]\nvcs = 4\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"", Cfg, "routing.vc_policy", &["classes have 4 VCs", "router.vcs = 2 x routing.classes"]),
    case("table_dateline_wrong_length", "[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v1\"\ndateline = [1]", Cfg, "routing.dateline", &["has 1 entries", "2 dimensions"]),
    case("table_dateline_outside", "[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v1\"\ndateline = [1, 8]", Cfg, "routing.dateline[1]", &["node 8 is outside dimension 1", "0..7"]),
    case("vc_balance_without_channel_counters", "[stats]\nvc_balance = true\nchannel_counters = false", Cfg, "stats.vc_balance", &["channel_counters = true"]),
    case("table_dateline_bad_word", "[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v1\"\ndateline = \"middle\"", Parse, "routing.dateline", &["not a dateline choice", "\"auto\"", "[10, 11, 15]"]),
    case("table_dateline_negative", "[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v1\"\ndateline = [1, -2]", Parse, "routing.dateline", &["non-negative integers", "one per dimension"]),
    case("faults_link_out_of_range", "[faults]\nlinks = [[64, 0]]", Cfg, "faults.links[0]", &["[64, 0] is not a router network port", "routers 0..63"]),
    case("faults_link_twice", "[routing]\ntype = \"table\"\nvc_policy = \"v3\"\n[router]\nvcs = 2\n[faults]\nlinks = [[0, 0], [1, 1]]", Cfg, "faults.links[1]", &["same link as faults.links[0]", "once"]),
    case("faults_node_twice", "[routing]\ntype = \"table\"\nvc_policy = \"v3\"\n[router]\nvcs = 2\n[faults]\nnodes = [2, 2]", Cfg, "faults.nodes[1]", &["listed already at faults.nodes[0]"]),
    case("faults_link_at_mesh_edge", "[topology]\ntype = \"mesh\"\ndims = [4, 4]\n[faults]\nlinks = [[3, 0]]", Cfg, "faults.links[0]", &["has no link", "mesh edge"]),
    case("faults_fraction_one", "[faults]\nrandom_link_fraction = 1.0", Cfg, "faults.random_link_fraction", &["not a fraction in [0, 1)"]),
    case("faults_with_dor", "[faults]\nlinks = [[0, 0]]", Cfg, "routing.type", &["cannot route around failed links", "vc_policy = \"v3\""]),
    case("faults_with_table_dor_policy", "[routing]\ntype = \"table\"\n[faults]\nlinks = [[0, 0]]", Cfg, "routing.vc_policy", &["Cray XT rules", "v3"]),
    case("faults_node_out_of_range", "[faults]\nnodes = [64]", Cfg, "faults.nodes[0]", &["router 64 does not exist", "routers 0..63"]),
    case("faults_node_fraction_negative", "[faults]\nrandom_node_fraction = -0.5", Cfg, "faults.random_node_fraction", &["not a fraction in [0, 1)"]),
    case("faults_unroutable_choice", "[faults]\nunroutable = \"drop\"", Parse, "faults.unroutable", &["refuse", "skip"]),
    case("faults_cyclic_routes_choice", "[faults]\ncyclic_routes = \"maybe\"", Parse, "faults.cyclic_routes", &["refuse", "run"]),
    case("routing_tables_missing_file", "[routing]\ntype = \"table\"\ntables = \"/nonexistent/xt.tab\"", Cfg, "routing.tables", &["cannot read /nonexistent/xt.tab"]),
    case("faults_unknown_key", "[faults]\nlink = [[0, 0]]", Parse, "faults.link", &["unknown field `link`"]),
    case("routing_classes_zero", "[routing]\nclasses = 0", Cfg, "routing.classes", &["0 is out of range", "1..=8"]),
    // ---- traffic ----
    case("load_above_one", "[traffic]\nload = 1.5", Cfg, "traffic.load", &["load 1.5", "[0, 1]", "injection channel's bandwidth"]),
    case("load_negative", "[traffic]\nload = -0.1", Cfg, "traffic.load", &["load -0.1", "[0, 1]"]),
    case("load_nan", "[traffic]\nload = nan", Cfg, "traffic.load", &["load NaN", "[0, 1]"]),
    set("load_above_one_via_set", "", &["traffic.load=2"], Cfg, "traffic.load", &["load 2 must be in [0, 1]"]),
    case(
        "phase_load_above_one",
        "[[traffic.phases]]\nduration = 10\nload = 0.5\n[[traffic.phases]]\nduration = 10\nload = 1.2",
        Cfg,
        "traffic.phases[1].load",
        &["load 1.2", "[0, 1]"],
    ),
    case(
        "packets_per_source_zero",
        "[traffic]\npackets_per_source = 0",
        Cfg,
        "traffic.packets_per_source",
        &["packets_per_source 0", "at least 1", "remove it for no limit"],
    ),
    case(
        "recursive_doubling_on_six_nodes",
        "[topology]\ntype = \"crossbar\"\nports = 6\n[traffic.pattern]\ntype = \"recursive_doubling\"\npackets_per_round = 2",
        Cfg,
        "traffic.pattern.type",
        &["power-of-two node count", "6 nodes", "4 or 8 nodes"],
    ),
    case(
        "recursive_doubling_zero_packets",
        "[traffic.pattern]\ntype = \"recursive_doubling\"\npackets_per_round = 0",
        Cfg,
        "traffic.pattern.packets_per_round",
        &["is 0", "packets_per_round >= 1"],
    ),
    case(
        "recursive_doubling_without_packets_per_round",
        "[traffic.pattern]\ntype = \"recursive_doubling\"",
        Parse,
        "traffic.pattern.packets_per_round",
        &["missing field `packets_per_round`", "add it"],
    ),
    // ---- traces ----
    case(
        "trace_with_a_pattern",
        "[traffic]\npattern = { type = \"tornado\" }\n[traffic.trace]\nmessages = [{ src = 0, dst = 1, flits = 1 }]",
        Cfg,
        "traffic.pattern",
        &["a trace says where, when and how big every message is", "remove this key"],
    ),
    case(
        "trace_file_and_messages",
        "[traffic.trace]\nfile = \"x.trace\"\nmessages = [{ src = 0, dst = 1, flits = 1 }]",
        Cfg,
        "traffic.trace.messages",
        &["not both"],
    ),
    case("trace_file_missing", "[traffic.trace]\nfile = \"/nonexistent/x.trace\"", Cfg, "traffic.trace.file", &["cannot read /nonexistent/x.trace"]),
    case("trace_empty", "[traffic.trace]\npacket_flits = 4", Cfg, "traffic.trace", &["a trace needs messages", "file"]),
    case(
        "trace_node_outside",
        "[traffic.trace]\nmessages = [{ src = 0, dst = 1, flits = 1 }, { src = 64, dst = 1, flits = 1 }]",
        Cfg,
        "traffic.trace.messages[1]",
        &["src 64 is outside the network", "0..=63"],
    ),
    case(
        "trace_message_without_flits",
        "[traffic.trace]\nmessages = [{ src = 0, dst = 1 }]",
        Parse,
        "traffic.trace.messages[0].flits",
        &["missing field `flits`", "add it"],
    ),
    case(
        "trace_waits_for_itself",
        "[traffic.trace]\nmessages = [{ src = 0, dst = 1, flits = 1, after = [1] }, { src = 1, dst = 0, flits = 1, after = [0] }]",
        Cfg,
        "traffic.trace.messages[0]",
        &["can never be created", "break the cycle"],
    ),
    case(
        "trace_with_waits_on_a_disconnected_network",
        "[topology]\ntype = \"mesh\"\ndims = [4]\n[routing]\ntype = \"graph\"\n[faults]\nlinks = [[1, 0]]\nunroutable = \"skip\"\n\
         [traffic.trace]\nmessages = [{ src = 0, dst = 3, flits = 1 }, { src = 3, dst = 0, flits = 1, after = [0] }]",
        Cfg,
        "traffic.trace",
        &["wait for others", "the failures disconnect some pairs"],
    ),
    case(
        "all_to_all_on_one_node",
        "[topology]\ntype = \"crossbar\"\nports = 1\n[traffic.pattern]\ntype = \"all_to_all\"",
        Cfg,
        "traffic.pattern.type",
        &["all_to_all", "1 node", "at least 2 nodes"],
    ),
    case("phase_duration_zero", "[[traffic.phases]]\nduration = 0\nload = 0.5", Cfg, "traffic.phases[0].duration", &["duration 0", "at least 1 cycle"]),
    case(
        "hotspot_node_outside",
        "[topology]\ntype = \"torus\"\ndims = [4, 4]\n[traffic.pattern]\ntype = \"hotspot\"\nnodes = [3, 16]\nfraction = 0.2",
        Cfg,
        "traffic.pattern.nodes",
        &["node 16 is outside the network", "0..15"],
    ),
    case(
        "hotspot_fraction_above_one",
        "[traffic.pattern]\ntype = \"hotspot\"\nnodes = [3]\nfraction = 1.5",
        Cfg,
        "traffic.pattern.fraction",
        &["fraction 1.5", "[0, 1]"],
    ),
    case(
        "hotspot_without_nodes",
        "[traffic.pattern]\ntype = \"hotspot\"\nnodes = []\nfraction = 0.5",
        Cfg,
        "traffic.pattern.nodes",
        &["at least one hot-spot node", "nodes = [0]"],
    ),
    case(
        "merge_to_one_dest_outside",
        "[traffic.pattern]\ntype = \"merge_to_one\"\ndest = 64",
        Cfg,
        "traffic.pattern.dest",
        &["node 64 is outside the network", "0..63"],
    ),
    case(
        "phase_merge_to_one_dest_outside",
        "[[traffic.phases]]\nduration = 5\nload = 0.1\npattern = { type = \"merge_to_one\", dest = 99 }",
        Cfg,
        "traffic.phases[0].pattern.dest",
        &["node 99 is outside"],
    ),
    case(
        "bit_complement_on_15_nodes",
        "[topology]\ntype = \"torus\"\ndims = [3, 5]\n[traffic.pattern]\ntype = \"bit_complement\"",
        Cfg,
        "traffic.pattern.type",
        &["bit_complement", "power-of-two", "15 nodes", "8 or 16 nodes", "`uniform`"],
    ),
    case(
        "transpose_on_odd_bits",
        "[topology]\ntype = \"torus\"\ndims = [8, 4]\n[traffic.pattern]\ntype = \"transpose\"",
        Cfg,
        "traffic.pattern.type",
        &["32 = 2^5", "odd number of id bits"],
    ),
    case(
        "tornado_on_a_crossbar",
        "[topology]\ntype = \"crossbar\"\nports = 8\n[traffic.pattern]\ntype = \"tornado\"",
        Cfg,
        "traffic.pattern.type",
        &["tornado", "have none", "k-ary n-cube"],
    ),
    case("packet_size_zero", "[traffic]\npacket_size = 0", Cfg, "traffic.packet_size", &["packet size 0"]),
    case(
        "packet_size_weights_mismatch",
        "[traffic]\npacket_size = { sizes = [1, 4], weights = [1.0] }",
        Cfg,
        "traffic.packet_size.weights",
        &["1 weights for 2 sizes"],
    ),
    case(
        "on_off_load_not_below_peak",
        "[traffic]\nload = 0.6\ninjection = { type = \"on_off\", burst_length = 8, peak = 0.5 }",
        Cfg,
        "traffic.load",
        &["0.6", "peak 0.5", "larger peak"],
    ),
    case(
        "on_off_burst_length_below_one",
        "[traffic]\ninjection = { type = \"on_off\", burst_length = 0.5 }",
        Cfg,
        "traffic.injection.burst_length",
        &["burst_length 0.5", ">= 1"],
    ),
    // ---- topology ----
    case("radix_one", "[topology]\ntype = \"torus\"\ndims = [4, 1]", Cfg, "topology.dims[1]", &["radix 1", "at least 2"]),
    case("empty_dims", "[topology]\ntype = \"mesh\"\ndims = []", Cfg, "topology.dims", &["is empty", "dims = [8, 8]"]),
    case(
        "wrap_length_mismatch",
        "[topology]\ntype = \"cube\"\ndims = [4, 4, 2]\nwrap = [true, false]",
        Cfg,
        "topology.wrap",
        &["has 2 entries", "`dims` has 3", "one true (torus) / false (mesh) per dimension"],
    ),
    case("concentration_zero", "[topology]\ntype = \"mesh\"\ndims = [4]\nconcentration = 0", Cfg, "topology.concentration", &["0 endpoints", "1..=32"]),
    case("crossbar_zero_ports", "[topology]\ntype = \"crossbar\"\nports = 0", Cfg, "topology.ports", &["0 ports", "1..=64"]),
    case("crossbar_too_many_ports", "[topology]\ntype = \"crossbar\"\nports = 65", Cfg, "topology.ports", &["65 ports", "1..=64"]),
    case(
        "too_many_routers",
        "[topology]\ntype = \"torus\"\ndims = [4096, 4097]",
        Cfg,
        "topology.dims",
        &["16781312 routers", "16777216"],
    ),
    // ---- routing ----
    case(
        "order_repeats_a_dimension",
        "[routing]\norder = [0, 0]",
        Cfg,
        "routing.order",
        &["[0, 0]", "not a permutation", "0..2"],
    ),
    case("order_names_a_missing_dimension", "[routing]\norder = [0, 2]", Cfg, "routing.order", &["[0, 2]", "not a permutation"]),
    case("order_wrong_length", "[routing]\norder = [1]", Cfg, "routing.order", &["has 1 entries", "2 dimensions"]),
    // ---- channel ----
    case("channel_latency_zero", "[channel]\nlatency = 0", Cfg, "channel.latency", &["0 is out of range", "1..=1000"]),
    case("channel_latency_too_large", "[channel]\nlatency = 1001", Cfg, "channel.latency", &["1001 is out of range"]),
    case("endpoint_latency_zero", "[channel]\nendpoint_latency = 0", Cfg, "channel.endpoint_latency", &["0 is out of range", "1..=1000"]),
    case(
        "dim_latency_length_mismatch",
        "[channel]\ndim_latency = [1, 2, 3]",
        Cfg,
        "channel.dim_latency",
        &["has 3 entries", "2 dimensions", "one latency per dimension"],
    ),
    case("dim_latency_entry_zero", "[channel]\ndim_latency = [1, 0]", Cfg, "channel.dim_latency[1]", &["0 is out of range", "1..=1000"]),
    // ---- sim ----
    case("measure_zero", "[sim]\nmeasure = 0", Cfg, "sim.measure", &["is 0", "at least one cycle"]),
    case("until_done_without_an_end", "[sim]\nuntil_done = true", Cfg, "sim.until_done", &["never ends", "traffic.packets_per_source", "remove until_done"]),
    case("watchdog_zero", "[sim]\nwatchdog = 0", Cfg, "sim.watchdog", &["is 0", "idle cycles", "5000"]),
    // A flit crossing a 1000-cycle wire moves nothing for 1004 cycles (4 pipeline + 1000).
    case(
        "watchdog_shorter_than_a_long_wire",
        "[channel]\nlatency = 1000\n[sim]\nwatchdog = 500",
        Cfg,
        "sim.watchdog",
        &["500 cycles is shorter than the 1004 cycles", "pipeline 4", "channel latency 1000", "watchdog >= 1004"],
    ),
    case(
        "watchdog_shorter_than_a_long_pipeline",
        "[router]\nrouting_delay = 16\nvc_alloc_delay = 16\n[channel]\ndim_latency = [2, 9]\n[sim]\nwatchdog = 40",
        Cfg,
        "sim.watchdog",
        &["shorter than the 43 cycles", "pipeline 34", "latency 9"],
    ),
    case(
        "watchdog_shorter_than_the_credit_delay",
        "[router]\ncredit_delay = 64\n[sim]\nwatchdog = 20",
        Cfg,
        "sim.watchdog",
        &["credit delay 64", "watchdog >= 64"],
    ),
    case(
        "run_too_long",
        "[sim]\nmeasure = 9000000000000000000",
        Cfg,
        "sim.measure",
        &["measure 9000000000000000000", "2^50"],
    ),
    // ---- stats ----
    case(
        "accepted_tolerance_one",
        "[stats]\naccepted_tolerance = 1.0",
        Cfg,
        "stats.accepted_tolerance",
        &["[0, 1)", "got 1"],
    ),
    case(
        "accepted_tolerance_negative",
        "[stats]\naccepted_tolerance = -0.5",
        Cfg,
        "stats.accepted_tolerance",
        &["[0, 1)", "got -0.5"],
    ),
    case("histogram_bin_zero", "[stats]\nhistogram_bin = 0", Cfg, "stats.histogram_bin", &["is 0", "at least 1 cycle"]),
    case("latency_limit_zero", "[stats]\nlatency_limit = 0.0", Cfg, "stats.latency_limit", &["positive", "got 0"]),
    case(
        "vc_balance_on_kautz",
        "[topology]\ntype = \"kautz\"\ndegree = 2\ndiameter = 3\n[routing]\ntype = \"source\"\n[stats]\nvc_balance = true",
        Cfg,
        "stats.vc_balance",
        &["k-ary n-cube", "leave stats.vc_balance off"],
    ),
    case(
        "vc_balance_on_clos",
        "[topology]\ntype = \"clos\"\nradix = 4\nstages = 3\n[routing]\ntype = \"updown\"\n[stats]\nvc_balance = true",
        Cfg,
        "stats.vc_balance",
        &["k-ary n-cube"],
    ),
    case("injection_latency_zero", "[channel]\ninjection_latency = 0", Cfg, "channel.injection_latency", &["0 is out of range", "1..=1000"]),
    case(
        "vc_alloc_pointer_unknown",
        "[router]\ntype = \"input_queued\"\nvc_alloc_pointer = \"global\"",
        Parse,
        "router.vc_alloc_pointer",
        &["unknown variant `global`", "`per_port`", "`per_router`"],
    ),
    case(
        "ties_unknown",
        "[routing]\ntype = \"dor\"\nties = \"minus\"",
        Parse,
        "routing.ties",
        &["unknown variant `minus`", "`plus`", "`random`", "`source_parity`", "`destination_parity`"],
    ),
    case(
        "table_ties_random",
        "[topology]\ntype = \"torus\"\ndims = [4, 4]\n[routing]\ntype = \"table\"\nties = \"random\"",
        Cfg,
        "routing.ties",
        &["one route per destination", "source_parity", "type = \"dor\""],
    ),
    case(
        "table_dateline_class_with_xt_policy",
        "[topology]\ntype = \"torus\"\ndims = [4, 4]\n[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"\ndateline_class = \"at_entry\"",
        Cfg,
        "routing.dateline_class",
        &["dateline node", "remove dateline_class", "vc_policy = \"dor\""],
    ),
    case(
        "vc_alloc_pointer_with_islip_vc_allocator",
        "[router]\ntype = \"input_queued\"\nvc_allocator = \"islip\"\nvc_alloc_pointer = \"per_router\"",
        Cfg,
        "router.vc_alloc_pointer",
        &["accept pointers", "remove vc_alloc_pointer"],
    ),
    // ---- fields of a mechanism that is off: refused, not ignored ----
    case(
        "islip_iterations_without_islip",
        "[router]\ntype = \"input_queued\"\nislip_iterations = 3",
        Cfg,
        "router.islip_iterations",
        &["3 iterations", "allocator = \"islip\"", "remove islip_iterations"],
    ),
    case(
        "threshold_without_throttling",
        "[congestion]\nthreshold = 250",
        Cfg,
        "congestion.threshold",
        &["\"static\" and \"tune\"", "remove the threshold"],
    ),
    set(
        "threshold_with_alo",
        "[topology]\ntype = \"torus\"\ndims = [4, 4]\n[router]\ntype = \"central\"\n[routing]\ntype = \"adaptive\"",
        &["congestion.policy=\"alo\"", "congestion.threshold=50"],
        Cfg,
        "congestion.threshold",
        &["only policies"],
    ),
    // ---- --set overrides ----
    set("override_without_equals", "", &["traffic.load"], Parse, "traffic.load", &["`traffic.load` has no `=`", "key.path=value", "traffic.load=0.4"]),
    set("override_empty", "", &[""], Parse, "<override>", &["key.path=value"]),
    set("override_into_a_non_table", "seed = 3", &["seed.x=1"], Parse, "seed", &["is not a table", "`seed.x` cannot be set"]),
    set(
        "override_into_a_non_table_deeper",
        "[traffic]\nload = 0.2",
        &["traffic.load.max=1"],
        Parse,
        "traffic.load",
        &["is not a table", "`traffic.load.max`"],
    ),
    set("override_with_empty_key", "", &["=0.4"], Parse, "<override>", &["`=0.4` has no key", "key.path=value"]),
    set("override_with_empty_key_component", "", &["traffic..load=0.2"], Parse, "traffic..load", &["empty component"]),
    set("override_with_a_wrong_type", "", &["router.vcs=four"], Parse, "router.vcs", &["string \"four\""]),
    set("override_unknown_key", "", &["sim.warmpu=5"], Parse, "sim.warmpu", &["unknown field `warmpu`", "`warmup`"]),
    case("sim_is_an_array", "sim = [7, 9]", Parse, "sim", &["expected a table of named fields", "[sim]", "[7, 9]"]),
    set("traffic_override_is_an_array", "", &["traffic=[0.9]"], Parse, "traffic", &["expected a table", "[0.9]"]),
    set("nested_table_is_an_array", "", &["traffic.pattern=[]"], Parse, "traffic.pattern", &["expected a table"]),
    case("integer_beyond_toml", "seed = 18446744073709551615", Parse, "<root>", &["line 1", "too large", "64-bit signed"]),
    case("negative_integer_beyond_toml", "seed = 1\nseed2 = -9223372036854775809", Parse, "<root>", &["line 2", "64-bit signed"]),
    set("override_integer_beyond_toml", "", &["seed=99999999999999999999"], Parse, "seed", &["99999999999999999999 is out of range", "64-bit signed"]),
    set("override_negative_integer_beyond_toml", "", &["sim.measure=-9_999_999_999_999_999_999"], Parse, "sim.measure", &["-9_999_999_999_999_999_999 is out of range"]),
    set("override_bad_value_later_wins", "[router]\nvcs = 2", &["router.vcs=0"], Cfg, "router.vcs", &["0 is out of range"]),
];

fn run(toml: &str, set: &[&str]) -> Result<(), Error> {
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    Config::from_toml(toml, &set)?.validate().map(|_| ())
}

#[test]
fn every_bad_config_is_refused_with_path_value_and_fix() {
    let mut failures = Vec::new();
    for c in CASES {
        let err = match run(c.toml, c.set) {
            Ok(()) => {
                failures.push(format!("{}: accepted, expected an error at `{}`", c.name, c.path));
                continue;
            }
            Err(e) => e,
        };
        let kind = match &err {
            Error::Parse { .. } => Some(Parse),
            Error::Config { .. } => Some(Cfg),
            _ => None,
        };
        if kind != Some(c.kind) {
            failures.push(format!("{}: expected a {:?} error, got {err:?}", c.name, c.kind));
        }
        if err.path() != Some(c.path) {
            failures.push(format!("{}: expected path `{}`, got {:?} ({err})", c.name, c.path, err.path()));
        }
        let text = err.to_string();
        // The Display text always leads with the path.
        if !text.contains(&format!("`{}`", c.path)) {
            failures.push(format!("{}: message does not name `{}`: {text}", c.name, c.path));
        }
        for want in c.has {
            if !text.contains(want) {
                failures.push(format!("{}: message lacks `{want}`: {text}", c.name));
            }
        }
        // No internal markers or serde/Rust type names leak into messages.
        for leak in ['\u{1f}', '\u{0}'] {
            if text.contains(leak) {
                failures.push(format!("{}: message contains an internal marker: {text:?}", c.name));
            }
        }
        for leak in ["expected u32", "expected u64", "expected f64", "expected struct", "in `"] {
            if text.contains(leak) {
                failures.push(format!("{}: message leaks `{leak}`: {text}", c.name));
            }
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), CASES.len(), failures.join("\n"));
}

#[test]
fn case_names_are_unique() {
    let mut names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len(), "duplicate case names");
}
