//! Trace replay on real networks, against closed forms worked by hand: ping-pong round
//! trips, computation delays, messages queued behind each other at one source, open-loop
//! times, a trace read from a file, and a closed-loop ring exchange whose rounds are
//! paced by the slowest link, all under check mode (flit and credit conservation).
//!
//! The zero-load latency of one packet over `h` router-to-router hops on the
//! input-queued router with unit stages and unit channels (tests/engine_invariants.rs)
//! is `T(h) = 2 + 4 (h + 1) + h`; a message of `F` flits whose packets follow each other
//! without a gap completes `F - 1` cycles after its head would: `L(h, F) = T(h) + F - 1`.

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::sim::Simulation;
use flitsim_core::traffic::trace::TraceReport;

fn run(toml: &str) -> Report {
    let cfg = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    Simulation::run_spec(cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// An 8-router line (mesh), two VCs of 8 flits (a message's next packet never waits for
/// a VC), unit stages, check mode, run until the trace is done.
fn line(trace: &str) -> String {
    format!(
        "seed = 4\n[topology]\ntype = \"mesh\"\ndims = [8]\n[router]\nvcs = 2\nbuffer_depth = 8\n\
         [sim]\nwarmup = 0\nmeasure = 200000\nuntil_done = true\ncheck = true\n[traffic.trace]\n{trace}\n"
    )
}

fn t(h: u64) -> u64 {
    2 + 4 * (h + 1) + h
}

fn trace_of(r: &Report) -> &TraceReport {
    r.trace.as_ref().expect("a trace report")
}

/// Node 0 and node 7 (7 hops apart) bounce a message of `f` flits (packets of 8) back
/// and forth `2 rounds` times; every answer waits `delay` cycles after its message
/// arrived. Nothing else is in the network, so each message takes L(7, f), and the last
/// completes at 2 rounds L + (2 rounds - 1) delay.
fn ping_pong(rounds: u32, f: u64, delay: u64) -> Report {
    let mut msgs = Vec::new();
    for m in 0..2 * rounds {
        let (src, dst) = if m % 2 == 0 { (0, 7) } else { (7, 0) };
        let wait = if m == 0 { String::new() } else { format!(", after = [{}], delay = {delay}", m - 1) };
        msgs.push(format!("{{ src = {src}, dst = {dst}, flits = {f}{wait} }}"));
    }
    run(&line(&format!("packet_flits = 8\nmessages = [{}]", msgs.join(", "))))
}

#[test]
fn ping_pong_completes_at_the_round_trips_of_the_closed_form() {
    for (rounds, f, delay) in [(3, 1, 0), (3, 20, 0), (2, 20, 25), (4, 8, 3)] {
        let r = ping_pong(rounds, f, delay);
        let tr = trace_of(&r);
        let l = t(7) + f - 1;
        let n = 2 * rounds as u64;
        assert_eq!((tr.messages, tr.created, tr.completed, tr.incomplete, tr.not_created), (n, n, n, 0, 0), "{tr:?}");
        assert_eq!((tr.latency_min, tr.latency_max), (l, l), "rounds {rounds}, {f} flits: {tr:?}");
        assert_eq!(tr.completion, n * l + (n - 1) * delay, "rounds {rounds}, {f} flits, delay {delay}: {tr:?}");
        // The run ends the cycle after the last delivery; every flit was counted.
        assert_eq!(r.cycles, tr.completion + 1);
        assert_eq!(r.counters.packets_delivered, n * f.div_ceil(8));
        assert_eq!(r.counters.flits_ejected, n * f);
    }
}

/// Three 10-flit messages from node 0 to node 7, no waits: created at cycles 0, 1 and 2
/// (one per cycle, in program order), sent back to back, so message k completes at
/// L(7, 10) + 10 k and waited k cycles less: latencies L, L + 9, L + 18.
#[test]
fn messages_of_one_source_queue_in_program_order() {
    let r = run(&line("packet_flits = 10\nmessages = [{ src = 0, dst = 7, flits = 10 }, { src = 0, dst = 7, flits = 10 }, { src = 0, dst = 7, flits = 10 }]"));
    let tr = trace_of(&r);
    let l = t(7) + 9;
    assert_eq!((tr.latency_min, tr.latency_max, tr.completion), (l, l + 18, l + 20), "{tr:?}");
    assert!((tr.latency_mean - (l + 9) as f64).abs() < 1e-9, "{tr:?}");
    // The packets' own latency (creation to delivery) is the same as the messages'.
    assert_eq!(r.stats.packet_latency.max, l + 18);
}

/// Open loop: messages at fixed cycles on disjoint paths, each alone in the network:
/// node 2 -> 5 (3 hops) at cycle 100, node 6 -> 6 (0 hops) at 40, node 1 -> 0 at 7.
#[test]
fn open_loop_messages_leave_at_their_cycles() {
    let r = run(&line("messages = [{ src = 2, dst = 5, flits = 4, at = 100 }, { src = 6, dst = 6, flits = 1, at = 40 }, { src = 1, dst = 0, flits = 2, at = 7 }]"));
    let tr = trace_of(&r);
    let (a, b, c) = (t(3) + 3, t(0), t(1) + 1);
    assert_eq!((tr.latency_min, tr.latency_max, tr.completion), (b, a, 100 + a), "{tr:?}");
    assert!((tr.latency_mean - (a + b + c) as f64 / 3.0).abs() < 1e-9, "{tr:?}");
}

/// The same ping-pong from a trace file as inline: identical reports.
#[test]
fn a_trace_file_replays_like_the_same_messages_inline() {
    let dir = std::env::temp_dir().join(format!("flitsim-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("pingpong.trace");
    std::fs::write(
        &file,
        "# src dst flits options\n0 7 20\n7 0 20 after=0 delay=25   # answer\n\n0 7 20 after=1 delay=25\n7 0 20 after=2 delay=25\n",
    )
    .unwrap();
    let from_file = run(&line(&format!("packet_flits = 8\nfile = {:?}", file.display().to_string())));
    let inline = ping_pong(2, 20, 25);
    assert_eq!(from_file.trace, inline.trace);
    assert_eq!(from_file.stats.packet_latency.mean, inline.stats.packet_latency.mean);
    assert_eq!(from_file.cycles, inline.cycles);
    std::fs::remove_dir_all(&dir).ok();
}

/// A closed-loop ring on a 4-router line: in each of `rounds` rounds node i sends one
/// 1-flit message to node i + 1 (mod 4) after it received round r - 1's message from
/// node i - 1. Each round is one step along the ring for everyone, so round r of node i
/// starts when its predecessor's round r - 1 message arrived; the wrap-around message
/// 3 -> 0 crosses 3 hops (T(3)), the others 1 (T(1)). Node 0's first message starts at
/// 0; node i's round r message starts after round r - 1 of node i - 1 arrived:
/// with s(r, i) its creation, s(0, i) = 0 and s(r, i) = s(r - 1, i - 1) + T(h(i - 1)).
/// Every chain of r rounds ending at node i passes the wrap link once per 4 steps; the
/// last message completes at the largest s(rounds - 1, i) + T(h(i)).
#[test]
fn a_closed_loop_ring_is_paced_by_its_longest_hop() {
    let rounds = 6u64;
    let mut msgs = Vec::new();
    for r in 0..rounds {
        for i in 0..4u64 {
            let wait = if r == 0 { String::new() } else { format!(", after = [{}]", (r - 1) * 4 + (i + 3) % 4) };
            msgs.push(format!("{{ src = {i}, dst = {}, flits = 1{wait} }}", (i + 1) % 4));
        }
    }
    let toml = format!(
        "[topology]\ntype = \"mesh\"\ndims = [4]\n[router]\nvcs = 2\n[sim]\nwarmup = 0\nmeasure = 100000\nuntil_done = true\ncheck = true\n\
         [traffic.trace]\nmessages = [{}]\n",
        msgs.join(", ")
    );
    let r = run(&toml);
    let tr = trace_of(&r);
    let hop = |i: u64| if i == 3 { t(3) } else { t(1) };
    let mut s = [0u64; 4];
    for _ in 1..rounds {
        let prev = s;
        s = std::array::from_fn(|i| prev[(i + 3) % 4] + hop(((i + 3) % 4) as u64));
    }
    let done = (0..4).map(|i| s[i] + hop(i as u64)).max().unwrap();
    // Messages crossing the same links at the same time could only add cycles; here the
    // messages of one round use different channels, so the closed form is exact.
    assert_eq!((tr.completed, tr.completion), (4 * rounds, done), "{tr:?}");
    assert_eq!((tr.latency_min, tr.latency_max), (t(1), t(3)), "{tr:?}");
}

/// The halo-exchange preset (presets/trace-halo.toml, worked out in its comments): in
/// each of 3 iterations every node sends its 4 messages of 64 flits back to back, all
/// nodes in the same direction at once, so no two streams share a channel. Message k
/// (0-based) of an iteration is created k cycles after its first and completes when its
/// last flit arrives, 64 (k + 1) - 1 + T(1) cycles after the iteration began; the
/// iteration ends with the fourth, at 255 + T(1), and the next begins 500 cycles later.
#[test]
fn the_halo_exchange_preset_runs_at_its_closed_form() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../presets/halo-8x8.trace");
    let preset = include_str!("../../../presets/trace-halo.toml").replace("\"halo-8x8.trace\"", &format!("{file:?}"));
    let r = run(&preset.replace("[sim]\n", "[sim]\ncheck = true\n"));
    let tr = trace_of(&r);
    let done = |k: u64| 64 * (k + 1) - 1 + t(1);
    let latencies: Vec<u64> = (0..4).map(|k| done(k) - k).collect();
    assert_eq!((tr.messages, tr.completed, tr.flits), (768, 768, 768 * 64));
    assert_eq!((tr.latency_min, tr.latency_max), (latencies[0], latencies[3]), "{tr:?}");
    assert!((tr.latency_mean - latencies.iter().sum::<u64>() as f64 / 4.0).abs() < 1e-9, "{tr:?}");
    assert_eq!(tr.completion, 3 * done(3) + 2 * 500, "{tr:?}");
    assert_eq!(r.counters.packets_delivered, 768 * 4);
}

#[test]
fn multi_flit_trace_packets_contending_in_buffered_crossbars_all_arrive() {
    // Seven nodes of an 8-node ring each send 40 nine-flit messages to node 7 at cycle
    // 0, through SeaStar-like buffered crossbars with 16-flit staging buffers. The routers
    // must size their credit test (a VC competes only with a whole packet's credits) for
    // the trace's 9-flit packets; sized for 1-flit packets, the output sent flits it had
    // no credit for (a credit counter underflow). Check mode accounts for every flit.
    let mut trace = String::new();
    for s in 0..7 {
        for _ in 0..40 {
            trace.push_str(&format!("{{ src = {s}, dst = 7, flits = 9 }}, "));
        }
    }
    let r = run(&format!(
        "[topology]\ntype = \"torus\"\ndims = [8]\n[router]\ntype = \"buffered_crossbar\"\nbuffer_depth = 18\n\
         [traffic.trace]\npacket_flits = 9\nmessages = [{trace}]\n[sim]\nwarmup = 0\nuntil_done = true\ncheck = true\n"
    ));
    assert_eq!(trace_of(&r).completed, 280);
    assert_eq!(r.stats.packets_delivered, 280);
}

#[test]
fn trace_packets_larger_than_a_cut_through_buffer_are_refused() {
    // Virtual cut-through needs a buffer that holds a whole packet: a trace of 32-flit
    // packets on 16-flit buffers is refused up front, naming the buffer.
    let e = Config::from_toml(
        "[router]\nflow_control = \"virtual_cut_through\"\nbuffer_depth = 16\n\
         [traffic.trace]\npacket_flits = 32\nmessages = [{ src = 0, dst = 1, flits = 32 }]\n",
        &[],
    )
    .unwrap()
    .validate()
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(e.contains("buffer_depth") && e.contains("32-flit packet"), "{e}");
}
