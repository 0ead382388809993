//! Message-level traffic: segmentation at the NIC, reassembly at the receiver, backlogged
//! sources, runs that end when a finite workload is done, results in bytes, and the
//! SiCortex multi-rail threshold. Expected numbers are derived by hand in the comments.

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::sim::Simulation;

fn run(toml: &str) -> Report {
    let cfg = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    Simulation::run_spec(cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

fn err(toml: &str) -> String {
    match Config::from_toml(toml, &[]).and_then(|c| c.validate()) {
        Ok(_) => panic!("accepted:\n{toml}"),
        Err(e) => e.to_string(),
    }
}

/// Two nodes on one crossbar exchanging messages both ways at once (the random
/// bisection of two nodes pairs them), backlogged, 2 VCs so that consecutive packets
/// never wait for a VC, unit pipeline delays.
fn pingping(bytes: u64, mtu: u64, header: u32, per_source: u64) -> String {
    format!(
        "[topology]\ntype = \"crossbar\"\nports = 2\n[router]\nvcs = 2\nbuffer_depth = 8\n\
         routing_delay = 1\nvc_alloc_delay = 1\nsw_alloc_delay = 1\nst_delay = 1\n\
         [channel]\nflit_bytes = 8\nlink_gbps = 12.8\n\
         [traffic]\npattern = {{ type = \"random_bisection\" }}\ninjection = {{ type = \"backlogged\" }}\n\
         message = {{ bytes = {bytes}, mtu = {mtu}, header_flits = {header}, per_source = {per_source} }}\n\
         [sim]\nwarmup = 0\nmeasure = 100000\nuntil_done = true\ncheck = true\n"
    )
}

/// A message of F flits leaves the NIC one flit per cycle without a gap, so its last
/// flit arrives F - 1 cycles after its first, whose zero-load latency on one crossbar is
/// 2 endpoint-channel cycles + 4 router stages: latency F + 5. A backlogged source
/// creates the next message the cycle after the previous one's last flit left, every F
/// cycles, so k messages finish at (k - 1) F + F + 5 and the run ends one cycle later;
/// a flow's bandwidth is k bytes / (k F + 5).
#[test]
fn pingping_latency_and_bandwidth_are_the_closed_forms() {
    // 1000 bytes in packets of 144 (18 words of 8 bytes) plus header and trailer:
    // 6 packets of 20 flits and one of 17 + 2 = 19: F = 139.
    for (bytes, mtu, header, packets, f) in [(1000u64, 144u64, 2u32, 7u32, 139u64), (640, 64, 0, 10, 80), (64, 64, 1, 1, 9)] {
        let k = 3;
        let r = run(&pingping(bytes, mtu, header, k));
        let m = r.messages.as_ref().expect("message report");
        assert_eq!((m.bytes, m.packets, m.flits), (bytes, packets, f));
        assert_eq!((m.created, m.delivered, m.incomplete), (2 * k, 2 * k, 0));
        assert_eq!((m.latency_min, m.latency_max), (f + 5, f + 5), "{bytes}/{mtu}");
        assert_eq!(m.completion, (k - 1) * f + f + 5);
        assert_eq!(r.cycles, m.completion + 1);
        assert_eq!(r.stats.window, (0, m.completion + 1));
        assert_eq!(r.counters.flits_injected, 2 * k * f);
        assert_eq!(r.counters.packets_created, 2 * k * packets as u64);
        let bw = (k * bytes) as f64 / (k * f + 5) as f64;
        assert_eq!(m.flow_bandwidth.flows, 2);
        assert!((m.flow_bandwidth.min - bw).abs() < 1e-9 && (m.flow_bandwidth.max - bw).abs() < 1e-9, "{:?} vs {bw}", m.flow_bandwidth);
        // 12.8 Gbit/s in 8-byte flits: 5 ns cycles, 2e8 bytes/s per byte/cycle.
        let mib = m.flow_mib_per_s.expect("MiB/s with link_gbps");
        assert!((mib.mean - bw * 2e8 / 1048576.0).abs() < 1e-6);
        let u = r.units.as_ref().expect("units");
        assert_eq!((u.flit_bytes, u.cycle_ns), (8, Some(5.0)));
        // Accepted: all flits over the window, per node, times 8 bytes.
        let acc = (k * f) as f64 / (m.completion + 1) as f64;
        assert!((u.accepted_bytes_per_cycle - 8.0 * acc).abs() < 1e-9);
        assert!((u.accepted_mb_per_s.unwrap()[0] - 8.0 * acc * 200.0).abs() < 1e-6);
    }
}

/// The same pair exchanging (`exchange = true`, a loop of MPI_Sendrecv): a node creates
/// its message m + 1 only once it holds the peer's message m, which completes F + 5
/// cycles after the peer created it. Both start at 0, so message m is created at
/// (m - 1)(F + 5) on both sides and completes at m (F + 5): k messages finish at
/// k (F + 5), every latency is still F + 5, and a flow carries k bytes in k (F + 5)
/// cycles, where streaming took k F + 5.
#[test]
fn an_exchange_waits_for_the_peers_message() {
    let (bytes, f, k) = (640u64, 80u64, 3u64);
    let r = run(&pingping(bytes, 64, 0, k).replace("per_source = 3 }", "per_source = 3, exchange = true }"));
    let m = r.messages.as_ref().expect("message report");
    assert_eq!((m.created, m.delivered, m.incomplete), (2 * k, 2 * k, 0));
    assert_eq!((m.latency_min, m.latency_max), (f + 5, f + 5));
    assert_eq!(m.completion, k * (f + 5));
    let bw = (k * bytes) as f64 / (k * (f + 5)) as f64;
    assert!((m.flow_bandwidth.min - bw).abs() < 1e-9 && (m.flow_bandwidth.max - bw).abs() < 1e-9, "{:?} vs {bw}", m.flow_bandwidth);
    // A pattern whose destinations do not send back is refused, naming the field.
    let uniform =
        pingping(bytes, 64, 0, k).replace("random_bisection", "uniform").replace("per_source = 3 }", "per_source = 3, exchange = true }");
    let e = err(&uniform);
    assert!(e.contains("traffic.message.exchange") && e.contains("pair"), "{e}");
}

/// Random up*/down* routes spread a flow's packets over the spines, so they overtake
/// each other (buffers hold two packets, so one can wait while another passes);
/// reassembly still completes every message exactly once.
#[test]
fn reassembly_completes_messages_whose_packets_arrive_out_of_order() {
    let toml = "[topology]\ntype = \"clos\"\nradix = 8\nstages = 3\nnodes = 32\n[routing]\ntype = \"updown\"\nselection = \"random\"\n\
         [router]\nvcs = 1\nbuffer_depth = 32\n[channel]\nflit_bytes = 16\n\
         [traffic]\npattern = { type = \"random_bisection\", index = 3 }\ninjection = { type = \"backlogged\" }\n\
         message = { bytes = 4096, mtu = 256, per_source = 4 }\n[sim]\nwarmup = 0\nmeasure = 200000\nuntil_done = true\ncheck = true\n";
    let r = run(toml);
    let m = r.messages.as_ref().unwrap();
    // 4096 / 256 = 16 packets of 16 flits per message.
    assert_eq!((m.packets, m.flits), (16, 256));
    assert_eq!((m.created, m.delivered, m.incomplete), (32 * 4, 32 * 4, 0));
    assert_eq!(r.counters.packets_delivered, 32 * 4 * 16);
    assert!(r.counters.packets_reordered > 0, "random routes should reorder some packets");
    assert_eq!(m.flow_bandwidth.flows, 32);
    // No flow beats its injection link: 16 bytes per cycle.
    assert!(m.flow_bandwidth.max <= 16.0 && m.flow_bandwidth.min > 0.0);
}

/// A Bernoulli message source at load L creates messages of F flits with probability
/// L / F per cycle, and every packet of a message is created with it.
#[test]
fn message_sources_offer_the_load_in_flits() {
    let toml = "[topology]\ntype = \"torus\"\ndims = [4, 4]\n[router]\nvcs = 2\nbuffer_depth = 16\n[channel]\nflit_bytes = 4\n\
         [traffic]\nload = 0.2\nmessage = { bytes = 96, mtu = 32 }\n[sim]\nwarmup = 1000\nmeasure = 40000\n";
    let r = run(toml);
    let m = r.messages.as_ref().unwrap();
    // 3 packets of 8 flits: 24 flits per message.
    assert_eq!((m.packets, m.flits), (3, 24));
    assert_eq!(r.counters.packets_created, 3 * m.created);
    // Offered in the window: 16 nodes x 40000 cycles x 0.2 / 24 messages expected; the
    // count is binomial, so within 5 standard deviations.
    let n = 16.0 * 40000.0;
    let p = 0.2 / 24.0;
    let offered_msgs = r.stats.offered * n / 24.0;
    assert!((offered_msgs - n * p).abs() < 5.0 * (n * p * (1.0 - p)).sqrt(), "{offered_msgs} vs {}", n * p);
    // Every packet of a delivered message arrived, so whole messages account for at
    // most the packets delivered, and at least all but the open messages' packets.
    assert!(3 * m.delivered <= r.counters.packets_delivered && r.counters.packets_delivered < 3 * (m.delivered + m.incomplete) + 1);
}

/// SiCortex section 6.1: long messages go multi-rail, short ones the shortest route. On
/// K(3,3) a message below the threshold has the single-rail runs' hop count exactly (the
/// routes are the same), one at the threshold the three-rail runs'.
#[test]
fn rail_threshold_chooses_multi_rail_by_message_size() {
    let net = |rails: u32, threshold: Option<u64>, bytes: u64| {
        let t = threshold.map_or(String::new(), |t| format!("rail_threshold = {t}\n"));
        format!(
            "seed = 5\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[routing]\ntype = \"source\"\nrails = {rails}\n{t}\
             [router]\ntype = \"crosspoint\"\nvcs = 3\n[channel]\nflit_bytes = 8\n\
             [traffic]\nload = 0.2\nmessage = {{ bytes = {bytes}, mtu = 64, per_source = 20 }}\n[sim]\nwarmup = 0\nmeasure = 40000\nuntil_done = true\n"
        )
    };
    let hops = |r: &Report| (r.stats.avg_hops, r.counters.packets_delivered);
    let one = run(&net(1, None, 128));
    let three = run(&net(3, None, 512));
    assert!(three.stats.avg_hops > one.stats.avg_hops + 0.1, "disjoint routes are longer");
    assert_eq!(hops(&run(&net(3, Some(256), 128))), hops(&one));
    assert_eq!(hops(&run(&net(3, Some(512), 512))), hops(&three));
    assert!(err(&net(3, Some(512), 512).replace("message = { bytes = 512, mtu = 64, per_source = 20 }", "packet_size = 4"))
        .contains("routing.rail_threshold"));
}

#[test]
fn bad_message_configs_name_the_field() {
    let base = "[topology]\ntype = \"crossbar\"\nports = 4\n[traffic]\nmessage = { bytes = 64 }\n";
    assert!(err(base).contains("channel.flit_bytes"));
    assert!(err(&format!("{base}packet_size = 4\n[channel]\nflit_bytes = 8\n")).contains("traffic.packet_size"));
    assert!(err(&format!("{base}packets_per_source = 4\n[channel]\nflit_bytes = 8\n")).contains("traffic.message.per_source"));
    assert!(err("[channel]\nlink_gbps = 10\n").contains("channel.flit_bytes"));
    assert!(err("[channel]\nflit_bytes = 8\nlink_gbps = -1\n").contains("channel.link_gbps"));
    assert!(err("[channel]\nflit_bytes = 0\n").contains("channel.flit_bytes"));
}

/// eBB is topology-neutral: the ping-ping of random bisections runs on a torus and on a
/// Kautz fabric as on a Clos, every node's flow completing all its messages.
#[test]
fn pingping_runs_on_tori_and_kautz_fabrics() {
    let nets = [
        ("[topology]\ntype = \"torus\"\ndims = [6, 6]\n[router]\nvcs = 2\nbuffer_depth = 8\n", 36u64),
        ("[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[routing]\ntype = \"source\"\n[router]\ntype = \"crosspoint\"\nvcs = 2\n", 36),
    ];
    for (net, nodes) in nets {
        let toml = format!(
            "{net}[channel]\nflit_bytes = 8\n[traffic]\npattern = {{ type = \"random_bisection\", index = 2 }}\ninjection = {{ type = \"backlogged\" }}\n\
             message = {{ bytes = 512, mtu = 64, per_source = 3 }}\n[sim]\nwarmup = 0\nmeasure = 100000\nuntil_done = true\ncheck = true\n"
        );
        let r = run(&toml);
        let m = r.messages.as_ref().unwrap();
        assert_eq!((m.created, m.delivered, m.incomplete, m.flow_bandwidth.flows), (3 * nodes, 3 * nodes, 0, nodes), "{net}");
        // A flow never beats its injection channel: 8 bytes per cycle.
        assert!(m.flow_bandwidth.max <= 8.0 && m.flow_bandwidth.min > 0.0, "{net}: {:?}", m.flow_bandwidth);
        assert_eq!(r.cycles, m.completion + 1);
    }
}
