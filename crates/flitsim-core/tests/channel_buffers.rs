//! What a channel's receiving end holds (`stats.buffer_sample`: `buffered`, `blocked` in
//! the report's channel rows) and what it carried over time (`stats.channel_timeline`),
//! on lines of routers where every route is known by hand: all nodes send to node 0 of
//! a 1-D mesh of 3 routers (or of a small Kautz network), so the channels towards node 0
//! carry everything and those away from it nothing.

use flitsim_core::config::Config;
use flitsim_core::report::{ChannelRow, Report};
use flitsim_core::sim::Simulation;

fn run(toml: &str) -> Report {
    let cfg = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    Simulation::run_spec(cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// Nodes 1 and 2 of a 1-D mesh of 3 routers send 4-flit packets to node 0 at full load,
/// through `router` (a `[router]` table body); window [3000, 5000).
fn line(router: &str, stats: &str) -> String {
    format!(
        "seed = 1\n[topology]\ntype = \"mesh\"\ndims = [3]\n[router]\n{router}\n\
         [traffic]\nload = 1.0\npacket_size = 4\npattern = {{ type = \"merge_to_one\", dest = 0 }}\n\
         [sim]\nwarmup = 3000\nmeasure = 2000\ndrain_limit = 0\n[stats]\n{stats}\n"
    )
}

fn row<'a>(r: &'a Report, from: &str, to: &str) -> &'a ChannelRow {
    r.channels.iter().find(|c| c.from == from && c.to == to).unwrap_or_else(|| panic!("no channel {from} -> {to}"))
}

/// The channels no packet takes towards node 0: router 0 and 1's `+x` outputs, and node
/// 0's injection channel (node 0 sends nothing).
const IDLE: [(&str, &str); 3] = [("(0)+x", "(1)-x"), ("(1)+x", "(2)-x"), ("node0", "(0)local0")];
/// The channels every packet of node 2 (and 1) takes, and the injection channels.
const PATH: [(&str, &str); 4] = [("(2)-x", "(1)+x"), ("(1)-x", "(0)+x"), ("node1", "(1)local0"), ("node2", "(2)local0")];

#[test]
fn idle_channels_hold_nothing_and_ejection_channels_are_not_sampled() {
    let r = run(&line("vcs = 1\nbuffer_depth = 8", "buffer_sample = 1"));
    for (from, to) in IDLE {
        let c = row(&r, from, to);
        assert_eq!((c.buffered, c.blocked), (Some(0.0), Some(0.0)), "{from} -> {to}");
    }
    for c in &r.channels {
        // An ejection channel ends at an endpoint, whose buffers are not the routers'.
        assert_eq!(c.kind == "ejection", c.buffered.is_none() && c.blocked.is_none(), "{c:?}");
        if let (Some(b), Some(f)) = (c.buffered, c.blocked) {
            // One VC of 8 flits at the receiving end.
            assert!((0.0..=8.0).contains(&b) && (0.0..=1.0).contains(&f), "{c:?}");
        }
    }
    for (from, to) in PATH {
        let c = row(&r, from, to);
        assert!(c.buffered.unwrap() > 1.0, "{from} -> {to} carries a backlog: {c:?}");
        // Router 1's -x output serves its own node and router 2 in turn: what waits for
        // it backs up into the channels that feed it.
        if to.starts_with("(1)") || to.starts_with("(2)") {
            assert!(c.blocked.unwrap() > 0.1, "{from} -> {to} is held up at router 1: {c:?}");
        }
    }
    // Off (the default): no buffer fields at all.
    let off = run(&line("vcs = 1\nbuffer_depth = 8", ""));
    assert!(off.channels.iter().all(|c| c.buffered.is_none() && c.blocked.is_none() && c.timeline.is_empty()));
}

#[test]
fn one_sample_per_period_from_the_window_start() {
    // A period as long as the window: one sample, at cycle 3000, so every mean is a
    // whole number of flits and every blocked fraction 0 or 1.
    let r = run(&line("vcs = 1\nbuffer_depth = 8", "buffer_sample = 2000"));
    for c in r.channels.iter().filter(|c| c.buffered.is_some()) {
        let (b, f) = (c.buffered.unwrap(), c.blocked.unwrap());
        assert!(b.fract() == 0.0 && (f == 0.0 || f == 1.0), "{c:?}");
    }
    // Two samples (3000 and 4999 are 1999 apart): halves at most.
    let r = run(&line("vcs = 1\nbuffer_depth = 8", "buffer_sample = 1999"));
    for c in r.channels.iter().filter(|c| c.buffered.is_some()) {
        assert!((2.0 * c.buffered.unwrap()).fract() == 0.0 && [0.0, 0.5, 1.0].contains(&c.blocked.unwrap()), "{c:?}");
    }
}

#[test]
fn a_sink_that_takes_one_flit_in_a_hundred_cycles_keeps_every_buffer_on_the_way_full() {
    // SeaStar routers whose processor port delivers a flit per 100 cycles: after the
    // warm-up the buffers towards node 0 are full, and a slot the sink frees is filled
    // again within a few cycles (a credit and a flit, a cycle each, plus the router's
    // pipeline), so each is full in at least 90 of every 100 cycles and holds at least
    // 90% of its 2 VCs x 16 flits.
    let r = run(&line("type = \"buffered_crossbar\"\nvcs = 2\nbuffer_depth = 16\neject_rate = 0.01", "buffer_sample = 1"));
    for (from, to) in PATH {
        let c = row(&r, from, to);
        assert!(c.blocked.unwrap() >= 0.9 && c.buffered.unwrap() >= 0.9 * 32.0, "{from} -> {to}: {c:?}");
        assert!(c.buffered.unwrap() <= 32.0, "{c:?}");
    }
    for (from, to) in IDLE {
        assert_eq!(row(&r, from, to).buffered, Some(0.0), "{from} -> {to}");
    }
    // The sink took 2000 / 100 = 20 flits in the window.
    assert_eq!(row(&r, "(0)local0", "node0").vc_flits.iter().sum::<u64>(), 20);
}

#[test]
fn crosspoint_switches_count_their_crosspoint_buffers() {
    // K(2, 2): six switches, every node sending to node 0 of switch [01]. The switch's
    // network inputs have no input buffers of their own: what arrives waits in the
    // crosspoint buffers of its input row (3 of them, 4 entries of one 4-flit packet).
    let toml = "seed = 1\n[topology]\ntype = \"kautz\"\ndegree = 2\ndiameter = 2\n[routing]\ntype = \"source\"\n\
                [router]\ntype = \"crosspoint\"\nvcs = 2\nxb_packets = 4\n\
                [traffic]\nload = 1.0\npacket_size = 4\npattern = { type = \"merge_to_one\", dest = 0 }\n\
                [sim]\nwarmup = 3000\nmeasure = 2000\ndrain_limit = 0\n[stats]\nbuffer_sample = 1\n";
    let r = run(toml);
    let into_sink: Vec<_> = r.channels.iter().filter(|c| c.kind == "network" && c.to.starts_with("[01]")).collect();
    assert_eq!(into_sink.len(), 2);
    for c in into_sink {
        // The sink's switch delivers a flit per cycle, from its two inputs in turn.
        assert!(c.utilization > 0.4, "{c:?}");
        assert!(c.buffered.unwrap() > 0.0 && c.buffered.unwrap() <= 3.0 * 4.0 * 4.0, "{c:?}");
        assert!(c.blocked.unwrap() > 0.0, "{c:?}");
    }
    for c in r.channels.iter().filter(|c| c.kind == "network" && c.vc_flits.iter().sum::<u64>() == 0) {
        assert_eq!((c.buffered, c.blocked), (Some(0.0), Some(0.0)), "a channel nothing crossed: {c:?}");
    }
}

#[test]
fn a_channels_timeline_adds_up_to_its_window_count() {
    // Bins of 500 cycles: the window [3000, 5000) is bins 6 to 9 exactly, so they hold
    // the window's flits of every channel; the run ends at 5000 (no drain), 10 bins.
    for router in ["vcs = 2", "type = \"buffered_crossbar\"\nvcs = 2\nbuffer_depth = 16"] {
        let r = run(&line(router, "timeline = 500\nchannel_timeline = true"));
        for c in &r.channels {
            assert_eq!(c.timeline.len(), 10, "{c:?}");
            assert_eq!(c.timeline[6..].iter().sum::<u64>(), c.vc_flits.iter().sum::<u64>(), "{router}: {c:?}");
        }
        // Node 0's ejection channel: the warm-up carried flits too.
        assert!(row(&r, "(0)local0", "node0").timeline[..6].iter().all(|&f| f > 0));
    }
}

#[test]
fn bad_settings_name_the_field_and_the_fix() {
    for (stats, field, fix) in [
        ("channel_timeline = true", "stats.channel_timeline", "set stats.timeline"),
        ("timeline = 10\nchannel_timeline = true\nchannel_counters = false", "stats.channel_timeline", "channel_counters = true"),
        ("buffer_sample = 4\nchannel_counters = false", "stats.buffer_sample", "buffer_sample = 0"),
    ] {
        let err = Config::from_toml(&line("vcs = 1", stats), &[]).and_then(|c| c.validate()).unwrap_err();
        assert_eq!(err.path(), Some(field), "{stats}");
        assert!(err.to_string().contains(fix), "{err}");
    }
}
