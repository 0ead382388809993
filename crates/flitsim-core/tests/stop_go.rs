//! STOP/GO back-pressure (`router.stop_go`, Myrinet's link flow control): the input
//! buffer fills to exactly the STOP mark plus the slack the closed form gives and never
//! beyond, every flit arrives, the thresholds and the slack are validated, and the run
//! is the same on any number of threads.

use flitsim_core::config::Config;
use flitsim_core::flow::StopGo;
use flitsim_core::router::RouterFamily;
use flitsim_core::sim::Simulation;

/// 8 nodes in a line all sending to the last (the merge of the validation study), one
/// VC, wormhole, 4-flit packets, STOP at `stop`, GO at `go`, input buffers of `depth`.
fn line(stop: u32, go: u32, depth: u32) -> String {
    format!(
        "[topology]\ntype = \"cube\"\ndims = [8]\nwrap = [false]\n\
         [router]\nvcs = 1\nbuffer_depth = {depth}\nstop_go = {{ stop = {stop}, go = {go} }}\n\
         [routing]\ntype = \"dor\"\ndatelines = false\n\
         [traffic]\nload = 0.9\npacket_size = 4\n[traffic.pattern]\ntype = \"merge_to_one\"\ndest = 7\n\
         [sim]\nwarmup = 500\nmeasure = 3000\ncheck = true\n"
    )
}

#[test]
fn buffers_fill_to_the_stop_mark_plus_the_slack_and_no_further() {
    // Default pipeline: switch allocation and traversal 1 cycle each, links 1 cycle, so
    // a flit takes 3 cycles from grant to arrival (1 from a NIC); symbols 1 cycle.
    let slack = StopGo::slack(3, 1);
    assert_eq!(slack, 3);
    let (stop, go) = (10, 4);
    let spec = Config::from_toml(&line(stop, go, stop + slack), &[]).unwrap().validate().unwrap();
    let mut sim = Simulation::new(spec).unwrap();
    let mut most = 0;
    for _ in 0..3000 {
        // (Check mode verifies every cycle that no buffer exceeds its depth.)
        sim.run_cycles(1).unwrap();
        for r in 0..8 {
            for p in 0..3 {
                most = most.max(sim.routers.input_len(r, p, 0));
            }
        }
    }
    // Flits under way when STOP is sent land above the mark (the slack is used), and
    // never more than the closed form's (check mode would have stopped the run).
    assert!(most > stop && most <= stop + slack, "most {most}, stop {stop}, slack {slack}");
    let r = sim.run(&mut |_| {}).unwrap();
    assert_eq!(r.counters.packets_delivered, r.counters.packets_created - sim_in_flight(&r));
    // One slot less cannot hold what is under way: refused, naming the depth it needs.
    let e = Config::from_toml(&line(stop, go, stop + slack - 1), &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("router.buffer_depth") && e.contains(&format!(">= {}", stop + slack)), "{e}");
    // The same network with credits never fills a buffer beyond its depth, the mark
    // plus slack here; with STOP/GO the mark, not the depth, bounds the steady fill.
}

/// Packets created but still in the network or a source queue at the end of the run.
fn sim_in_flight(r: &flitsim_core::report::Report) -> u64 {
    r.counters.packets_created - r.counters.packets_delivered
}

#[test]
fn the_sink_link_runs_at_the_same_closed_form_rate_under_stop_go_as_under_credits() {
    // The merge's last link is the bottleneck, fed by one input. With one VC, after a
    // tail leaves, the next head needs a cycle of routing and one of VC allocation
    // before it may cross: 4-flit packets take 4 of every 6 cycles, 2/3 of a flit per
    // cycle, whichever flow control holds the senders back.
    let accepted_at_sink = |toml: &str| {
        let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
        let r = Simulation::run_spec(spec).unwrap();
        r.stats.accepted.mean * 8.0
    };
    let sg = accepted_at_sink(&line(10, 4, 13));
    let credits = accepted_at_sink(&line(10, 4, 13).replace("stop_go = { stop = 10, go = 4 }\n", ""));
    assert!((sg - 4.0 / 6.0).abs() < 0.005 && (credits - 4.0 / 6.0).abs() < 0.005, "STOP/GO {sg}, credits {credits}");
}

#[test]
fn thresholds_and_router_shape_are_validated() {
    let refused = |toml: String| Config::from_toml(&toml, &[]).unwrap().validate().map(|_| ()).unwrap_err().to_string();
    let e = refused(line(10, 10, 13));
    assert!(e.contains("router.stop_go") && e.contains("go < stop"), "{e}");
    let e = refused(line(10, 4, 13).replace("vcs = 1", "vcs = 2"));
    assert!(e.contains("router.stop_go") && e.contains("vcs = 1"), "{e}");
    let e = refused(line(10, 4, 13).replace("[router]\n", "[router]\nflow_control = \"virtual_cut_through\"\n"));
    assert!(e.contains("router.stop_go") && e.contains("wormhole"), "{e}");
}

#[test]
fn stop_go_runs_the_same_on_one_two_and_four_threads() {
    let toml = "[topology]\ntype = \"cube\"\ndims = [8, 8]\nwrap = [false, false]\n\
                [router]\nvcs = 1\nbuffer_depth = 12\nstop_go = { stop = 8, go = 2 }\n\
                [routing]\ntype = \"dor\"\ndatelines = false\n\
                [traffic]\nload = 0.45\npacket_size = 6\n[sim]\nwarmup = 300\nmeasure = 1500\n";
    let run = |threads: usize| {
        let mut sim = Simulation::new(Config::from_toml(toml, &[]).unwrap().validate().unwrap()).unwrap();
        assert_eq!(sim.set_threads(threads).unwrap(), threads);
        let mut v = serde_json::to_value(sim.run(&mut |_| {}).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("version");
        v
    };
    let one = run(1);
    assert!(one["counters"]["packets_delivered"].as_u64().unwrap() > 1000);
    assert_eq!(run(2), one);
    assert_eq!(run(4), one);
}
