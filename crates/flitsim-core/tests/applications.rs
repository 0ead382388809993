//! Application traces (the ranks format) replayed on a network, against closed forms
//! worked by hand and against the same messages written in the messages format.
//!
//! The network is the 8-router line of tests/trace.rs: a packet over `h` hops takes
//! `T(h) = 2 + 4 (h + 1) + h` cycles at zero load, a message of `F` flits (packets of 8,
//! following each other without a gap) `L(h, F) = T(h) + F - 1`. Flits carry 16 bytes and
//! links run at 128 Gbit/s, so a cycle is 1 ns.

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::sim::Simulation;
use flitsim_core::traffic::trace::TraceReport;

fn t(h: u64) -> u64 {
    2 + 4 * (h + 1) + h
}

/// A scratch file holding `text`, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str, text: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("flitsim-app-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        Scratch(f)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        std::fs::remove_dir_all(self.0.parent().unwrap()).ok();
    }
}

fn config(trace: &str) -> String {
    format!(
        "seed = 4\n[topology]\ntype = \"mesh\"\ndims = [8]\n[router]\nvcs = 2\nbuffer_depth = 8\n\
         [channel]\nflit_bytes = 16\nlink_gbps = 128\n\
         [sim]\nwarmup = 0\nmeasure = 200000\nuntil_done = true\ncheck = true\n[traffic.trace]\npacket_flits = 8\n{trace}\n"
    )
}

fn run(toml: &str) -> Report {
    let cfg = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    Simulation::run_spec(cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

fn refused(toml: &str) -> String {
    match Config::from_toml(toml, &[]).and_then(|c| c.validate()) {
        Ok(_) => panic!("accepted:\n{toml}"),
        Err(e) => e.to_string(),
    }
}

fn trace_of(r: &Report) -> &TraceReport {
    r.trace.as_ref().expect("a trace report")
}

/// Ranks 0 and 1 on endpoints 0 and 7 bounce `bytes` back and forth `2 rounds` times,
/// computing `ns` before each answer.
fn ping_pong_ranks(rounds: u32, bytes: u64, ns: u64) -> String {
    let mut lines = vec!["ranks 2".to_string()];
    for _ in 0..rounds {
        lines.push(format!("0 send 1 {bytes}"));
        lines.push(format!("1 recv 0 {bytes}"));
        lines.push(format!("1 compute {ns}"));
        lines.push(format!("1 send 0 {bytes}"));
        lines.push(format!("0 recv 1 {bytes}"));
        lines.push(format!("0 compute {ns}"));
    }
    lines.join("\n") + "\n"
}

#[test]
fn ping_pong_takes_the_round_trips_of_the_closed_form() {
    let placement = Scratch::new("pp.map", "0\n7\n");
    for (rounds, bytes, ns) in [(3u32, 16u64, 0u64), (2, 320, 25), (4, 100, 3)] {
        let ranks = Scratch::new("pp.ranks", &ping_pong_ranks(rounds, bytes, ns));
        let r =
            run(&config(&format!("format = \"ranks\"\nfile = \"{}\"\nplacement = {{ file = \"{}\" }}\n", ranks.path(), placement.path())));
        let tr = trace_of(&r);
        let f = bytes.div_ceil(16);
        let l = t(7) + f - 1;
        let n = 2 * rounds as u64;
        assert_eq!((tr.messages, tr.completed, tr.latency_min, tr.latency_max), (n, n, l, l), "{tr:?}");
        // Every message but the first waits ns cycles (1 ns each) after its trigger.
        let done = n * l + (n - 1) * ns;
        assert_eq!(tr.completion, done, "rounds {rounds}, {bytes} B, {ns} ns");
        let app = tr.app.as_ref().expect("an application report");
        assert_eq!((app.ranks, app.time_cycles, app.time_ns, app.slowest_rank), (2, done, Some(done as f64), 0));
        // Rank 1 last answered at done - l - ... : its last send was created at
        // done - l (the message then takes l).
        assert_eq!(app.finish, vec![done, done - l]);
        assert_eq!(app.calls.len(), 1);
        let c = &app.calls[0];
        assert_eq!((c.call.as_str(), c.messages, c.flits, c.completed, c.latency_max), ("point_to_point", n, n * f, n, l));
        // Time: rank 0 computes before each send but the first (its last computation
        // comes after its last call and is not replayed) and waits the rest of `done`;
        // rank 1 computes before each answer and waits the rest of its last send's
        // creation, done - l.
        let (c0, c1) = ((rounds as u64 - 1) * ns, rounds as u64 * ns);
        let (w0, w1) = (done - c0, done - l - c1);
        assert_eq!((c.time_max, c.time_mean), (w0, (w0 + w1) as f64 / 2.0), "rounds {rounds}, {bytes} B, {ns} ns");
        assert_eq!((app.compute_max, app.compute_mean), (c1, (c0 + c1) as f64 / 2.0));
    }
}

#[test]
fn a_gzipped_ranks_trace_reads_as_the_plain_one() {
    use std::io::Write;
    let text = ping_pong_ranks(2, 100, 5);
    let plain = Scratch::new("pp.ranks", &text);
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(text.as_bytes()).unwrap();
    let gz = Scratch::new("pp.ranks.gz", "");
    std::fs::write(&gz.0, z.finish().unwrap()).unwrap();
    let report = |f: &str| trace_of(&run(&config(&format!("format = \"ranks\"\nfile = \"{f}\"")))).clone();
    assert_eq!(report(gz.path()), report(plain.path()));
    // A file that is not gzip: the file and what is wrong.
    let bad = Scratch::new("bad.ranks.gz", "ranks 2\n");
    let e = refused(&config(&format!("format = \"ranks\"\nfile = \"{}\"", bad.path())));
    assert!(e.contains("traffic.trace.file") && e.contains("bad.ranks.gz") && e.contains("gzip"), "{e}");
}

#[test]
fn a_ranks_trace_replays_as_its_messages_do() {
    // Three ranks, a non-blocking exchange and an answer after computing 40 ns, written
    // as calls and as the messages they lower to (by hand).
    let ranks = Scratch::new(
        "x.ranks",
        "ranks 3\n0 irecv 2 64 req=1\n0 isend 2 64 req=2\n0 wait 1,2\n0 compute 40\n0 send 1 200\n\
         2 irecv 0 64 req=5\n2 send 0 64\n2 wait 5\n1 recv 0 200\n1 send 2 16\n2 recv 1 16\n",
    );
    let a = run(&config(&format!("format = \"ranks\"\nfile = \"{}\"\nplacement = \"spread\"", ranks.path())));
    // Messages: 0 (rank 0 -> 2, 4 flits), 1 (0 -> 1, 13 flits, after 2, delay 40),
    // 2 (2 -> 0), 3 (1 -> 2, after 1); spread puts ranks 0, 1, 2 on endpoints 0, 2, 5.
    let spread = Scratch::new("y.trace", "0 5 4\n0 2 13 after=2 delay=40\n5 0 4\n2 5 1 after=1\n");
    let b = run(&config(&format!("file = \"{}\"", spread.path())));
    let (ta, tb) = (trace_of(&a), trace_of(&b));
    assert_eq!(
        (ta.messages, ta.completed, ta.latency_mean, ta.latency_max, ta.completion),
        (tb.messages, tb.completed, tb.latency_mean, tb.latency_max, tb.completion)
    );
    assert_eq!(ta.completed, 4);
}

#[test]
fn collectives_run_by_their_algorithms() {
    // 8 ranks, one allreduce of 8 B (auto: recursive doubling, 8 log2 8 = 24 messages),
    // one alltoall of 1 KiB (auto: scattered, 56 messages) and a barrier (24 messages).
    let mut text = String::from("ranks 8\n");
    for r in 0..8 {
        text += &format!("{r} allreduce 8\n{r} alltoall 1024\n{r} barrier\n");
    }
    let ranks = Scratch::new("c.ranks", &text);
    let r = run(&config(&format!("format = \"ranks\"\nfile = \"{}\"", ranks.path())));
    let tr = trace_of(&r);
    assert_eq!((tr.messages, tr.completed), (24 + 56 + 24, 104));
    let app = tr.app.as_ref().unwrap();
    let calls: Vec<(&str, Option<&str>, u64, u64)> =
        app.calls.iter().map(|c| (c.call.as_str(), c.algorithm.as_deref(), c.calls, c.messages)).collect();
    assert_eq!(
        calls,
        vec![
            ("barrier", Some("dissemination"), 1, 24),
            ("allreduce", Some("recursive_doubling"), 1, 24),
            ("alltoall", Some("scattered"), 1, 56)
        ]
    );
    // A dissemination barrier's last round cannot start before the alltoall's last
    // messages arrived, so the barrier ends the run: its last message is one of the last.
    assert_eq!(app.time_cycles, tr.completion);
    // Every message a rank receives it waits for and nothing computes, so a rank's
    // times in its calls add up to its finish.
    let per_call: f64 = app.calls.iter().map(|c| c.time_mean).sum();
    assert_eq!((per_call, app.compute_max), (app.finish_mean, 0));
    assert!(app.calls.iter().all(|c| c.time_max > 0), "{:?}", app.calls);
    // The same with the allreduce by ring: 2 p (p - 1) = 112 messages.
    let ring = run(&config(&format!("format = \"ranks\"\nfile = \"{}\"\ncollectives = {{ allreduce = \"ring\" }}", ranks.path())));
    assert_eq!(trace_of(&ring).messages, 112 + 56 + 24);
    // Only 3 of the alltoall's 7 steps: 8 x 3 = 24 messages.
    let some = run(&config(&format!("format = \"ranks\"\nfile = \"{}\"\ncollectives = {{ alltoall_steps = 3 }}", ranks.path())));
    let calls = &trace_of(&some).app.as_ref().unwrap().calls;
    assert_eq!(calls.iter().find(|c| c.call == "alltoall").map(|c| (c.messages, c.flits)), Some((24, 24 * 64)));
}

#[test]
fn application_options_are_checked() {
    let ranks = Scratch::new("e.ranks", "ranks 2\n0 compute 10\n0 send 1 8\n1 recv 0 8\n");
    let file = ranks.path();
    let no_units = config(&format!("format = \"ranks\"\nfile = \"{file}\"")).replace("[channel]\nflit_bytes = 16\nlink_gbps = 128\n", "");
    for (toml, want) in [
        (no_units, "`channel.flit_bytes`: an application trace gives sizes in bytes"),
        (config(&format!("format = \"ranks\"\nfile = \"{file}\"")).replace("link_gbps = 128\n", ""), "set channel.link_gbps"),
        (config(&format!("file = \"{file}\"\nplacement = \"random\"")), "`traffic.trace.placement`: this option is for application traces"),
        (
            config(&format!("format = \"ranks\"\nfile = \"{file}\"\ncollectives = {{ alltoall = \"ring\" }}")),
            "`traffic.trace.collectives.alltoall`: `ring` is not an algorithm for alltoall: choose auto, pairwise, scattered, bruck",
        ),
        (
            config(&format!("format = \"ranks\"\nfile = \"{file}\"\ncollectives = {{ alltoall_steps = 0 }}")),
            "`traffic.trace.collectives.alltoall_steps`: 0 steps replay nothing",
        ),
        (
            config(&format!("format = \"ranks\"\nfile = \"{file}\"\ncompute_scale = -1")),
            "`traffic.trace.compute_scale`: -1 is not a factor >= 0",
        ),
        (
            config("format = \"ranks\"\nmessages = [{ src = 0, dst = 1, flits = 1 }]"),
            "`traffic.trace.file`: a trace of format ranks is read from a file",
        ),
        (config("format = \"ranks\"\nfile = \"/nonexistent/x.ranks\""), "traffic.trace.file"),
    ] {
        let e = refused(&toml);
        assert!(e.contains(want), "gave: {e}\nwant: {want}");
    }
    let big = Scratch::new("big.ranks", "ranks 9\n");
    let e = refused(&config(&format!("format = \"ranks\"\nfile = \"{}\"", big.path())));
    assert!(e.contains("the program has 9 ranks and the network 8 endpoints"), "{e}");
    // compute_scale = 0 needs no cycle time.
    let r = run(&config(&format!("format = \"ranks\"\nfile = \"{file}\"\ncompute_scale = 0")).replace("link_gbps = 128\n", ""));
    assert_eq!(trace_of(&r).completion, t(1));
}
