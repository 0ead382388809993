//! The SiCortex fabric under link errors (sections 3-4.3): with link-level retry every
//! packet is delivered exactly once and in order per source-destination pair, under every
//! error model, with flit conservation checked every cycle; errors cost replayed flits
//! and latency, never packets. A link that fails for good loses what was left in its
//! replay buffer, and says so.

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::sim::Simulation;

/// K(3, 3) (36 nodes) with crosspoint switches, every source sending 80 packets of 1, 4
/// or 10 flits at a load near saturation, check mode on.
fn run(errors: &str) -> Report {
    run_sim(errors, "measure = 2000\ndrain_limit = 400000")
}

/// The same with `sim` (the `[sim]` table's window and drain).
fn run_sim(errors: &str, sim: &str) -> Report {
    let toml = format!(
        "[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[routing]\ntype = \"source\"\n\
         [router]\ntype = \"crosspoint\"\nvcs = 2\n[channel]\nlatency = 2\n[channel.retry]\nwindow = 15\n{errors}\n\
         [traffic]\nload = 0.5\npackets_per_source = 80\npacket_size = {{ sizes = [1, 4, 10], weights = [1, 1, 1] }}\n\
         [sim]\ncheck = true\nwarmup = 0\n{sim}\n"
    );
    let cfg = Config::from_toml(&toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    Simulation::run_spec(cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

fn assert_exactly_once_in_order(r: &Report, what: &str) {
    let c = &r.counters;
    assert_eq!(c.packets_created, 80 * 36, "{what}");
    assert_eq!(c.packets_delivered, c.packets_created, "{what}: every packet delivered once");
    assert_eq!((c.packets_lost, c.packets_reordered), (0, 0), "{what}");
    let t = &r.retry.as_ref().expect("retry report").totals;
    assert_eq!(t.wire_flits, t.flits_original + t.flits_replayed + t.ack_flits, "{what}: wire flits");
    assert_eq!(t.pushed, t.delivered, "{what}: each link delivered every packet handed to it once");
}

#[test]
fn error_free_links_deliver_everything_without_replays() {
    let r = run("");
    assert_exactly_once_in_order(&r, "no errors");
    let t = r.retry.as_ref().unwrap();
    assert_eq!((t.totals.replays, t.totals.crc_errors, t.totals.flits_replayed), (0, 0, 0));
    assert_eq!(t.wire_overhead, 1.0);
    assert_eq!(t.links, 36 * 3);
}

#[test]
fn every_error_model_delivers_exactly_once_in_order() {
    let base = run("");
    let models = [
        ("bit errors", "[channel.retry.errors]\nber = 2e-4"),
        ("bursts", "[channel.retry.errors]\nburst = { mean_gap = 3000.0, mean_len = 20.0, ber = 0.01 }"),
        ("lost control packets", "[channel.retry.errors]\nctrl_loss = 0.3\nber = 5e-5"),
        ("loss of synchronization", "[channel.retry.errors]\nsync_loss = [{ start = 300, duration = 400 }]"),
    ];
    for (what, errors) in models {
        let r = run(errors);
        assert_exactly_once_in_order(&r, what);
        let t = &r.retry.as_ref().unwrap().totals;
        assert!(t.crc_errors > 0 && t.replays > 0 && t.flits_replayed > 0, "{what}: errors must have happened: {t:?}");
        assert!(r.retry.as_ref().unwrap().wire_overhead > 1.0, "{what}");
        // Errors cost time, never packets.
        assert!(
            r.stats.packet_latency.mean > base.stats.packet_latency.mean,
            "{what}: {} vs {}",
            r.stats.packet_latency.mean,
            base.stats.packet_latency.mean
        );
        assert!(r.counters.last_delivery >= base.counters.last_delivery, "{what}");
    }
}

/// The network channels' counters (what `flitsim draw` colours links by) count each packet
/// once per link it crossed, whatever the link replayed: over a window holding the whole
/// run, without errors, they add up to the links' own count of first transmissions; with
/// errors to the same flits (the same packets on the same source routes), while the links
/// transmit more (copies sent on early and poisoned).
#[test]
fn network_channels_count_every_packet_once_per_link() {
    let network = |r: &Report| -> u64 { r.channels.iter().filter(|c| c.kind == "network").map(|c| c.vc_flits.iter().sum::<u64>()).sum() };
    let whole = "measure = 10000000\nuntil_done = true";
    let clean = run_sim("", whole);
    assert_exactly_once_in_order(&clean, "no errors");
    let t = &clean.retry.as_ref().unwrap().totals;
    assert!(t.flits_original > 0);
    assert_eq!(network(&clean), t.flits_original);
    let noisy = run_sim("[channel.retry.errors]\nber = 2e-4", whole);
    assert_exactly_once_in_order(&noisy, "bit errors");
    let t = &noisy.retry.as_ref().unwrap().totals;
    assert!(t.flits_replayed > 0 && t.flits_original > network(&clean), "{t:?}");
    assert_eq!(network(&noisy), network(&clean));
}

/// Same config and seed, same result: the error streams are per link and seeded.
#[test]
fn errors_are_deterministic() {
    let a = run("[channel.retry.errors]\nber = 2e-4");
    let b = run("[channel.retry.errors]\nber = 2e-4");
    assert_eq!(a.counters, b.counters);
    assert_eq!(a.retry, b.retry);
}

/// Every link failing at cycle 500 (`errors.fail_at` applies to all links) strands what
/// the replay buffers hold: those packets are counted lost, never silently dropped, and
/// flit conservation (injected = delivered + lost + in the network) holds every cycle.
/// Nothing crosses a link after that, so the run is stepped rather than run to its end.
#[test]
fn failed_links_report_their_lost_packets() {
    let toml = "[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[routing]\ntype = \"source\"\n\
         [router]\ntype = \"crosspoint\"\nvcs = 2\n[channel]\nlatency = 2\n[channel.retry.errors]\nfail_at = 500\n\
         [traffic]\nload = 0.5\npacket_size = 4\n[sim]\ncheck = true\n";
    let cfg = Config::from_toml(toml, &[]).unwrap();
    let mut sim = Simulation::new(cfg.validate().unwrap()).unwrap();
    sim.run_cycles(499).unwrap();
    assert_eq!(sim.counters.packets_lost, 0);
    sim.run_cycles(1000).unwrap();
    let c = sim.counters;
    assert!(c.packets_lost > 0 && c.flits_lost == 4 * c.packets_lost, "{c:?}");
    // Packets routed over a dead link are discarded before it and counted, so the
    // switches keep draining: only packets a node sends to itself are still delivered,
    // and no link delivers anything.
    let link_deliveries = |sim: &Simulation| match &sim.routers {
        flitsim_core::router::Routers::Crosspoint(x) => x.retry_report().unwrap().totals.delivered,
        _ => unreachable!(),
    };
    let (through_links, lost_then) = (link_deliveries(&sim), c.packets_lost);
    sim.run_cycles(500).unwrap();
    assert_eq!(link_deliveries(&sim), through_links, "no packet crosses a failed link");
    assert!(sim.counters.packets_lost > lost_then, "packets routed over dead links are counted lost");
    let c = sim.counters;
    assert_eq!(c.packets_created, c.packets_delivered + c.packets_lost + sim.packets.live());
}

#[test]
fn retry_needs_the_crosspoint_switch() {
    let toml = "[channel.retry]\nwindow = 8\n";
    let err = Config::from_toml(toml, &[]).and_then(|c| c.validate().map(|_| ())).unwrap_err().to_string();
    assert!(err.contains("channel.retry") && err.contains("crosspoint"), "{err}");
    let toml = "[topology]\ntype = \"kautz\"\ndegree = 2\ndiameter = 2\n[routing]\ntype = \"source\"\n[router]\ntype = \"crosspoint\"\nvcs = 2\n[channel.retry]\nwindow = 16\n";
    let err = Config::from_toml(toml, &[]).and_then(|c| c.validate().map(|_| ())).unwrap_err().to_string();
    assert!(err.contains("channel.retry.window"), "{err}");
}

/// K(3, 3) with failures fixed before the run, crosspoint switches with retry links.
fn run_faults(faults: &str, vcs: u32) -> Report {
    let toml = format!(
        "[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[routing]\ntype = \"source\"\n\
         [router]\ntype = \"crosspoint\"\nvcs = {vcs}\n[channel.retry.errors]\nber = 1e-4\n[faults]\n{faults}\n\
         [traffic]\nload = 0.5\npackets_per_source = 60\npacket_size = 4\n\
         [sim]\ncheck = true\nwarmup = 0\nmeasure = 2000\ndrain_limit = 400000\n"
    );
    let cfg = Config::from_toml(&toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    Simulation::run_spec(cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// Routes go round one, two and five failed links (shortest surviving routes), the
/// channel dependency graph stays acyclic with the VCs the longest route needs, and every
/// packet arrives once and in order. With the link 5 -> port 1 failed, the longest detour
/// equals the largest growth of a pair's distance that a breadth-first search of the
/// damaged graph finds (`topology::kautz::faults`, checked against brute force there),
/// and the diameter grows by one (section 5: 3 to 4 here).
#[test]
fn routes_around_failed_links_deliver_everything() {
    use flitsim_core::topology::kautz::{faults::Faults, Kautz};
    for faults in ["links = [[5, 1]]", "links = [[5, 1], [20, 0]]", "random_link_fraction = 0.05"] {
        let r = run_faults(faults, 3);
        let f = r.faults.as_ref().expect("faults report");
        assert!(f.routes.acyclic, "{faults}");
        assert_eq!(f.routable_fraction, 1.0, "{faults}");
        let c = &r.counters;
        assert_eq!((c.packets_delivered, c.packets_lost, c.packets_reordered), (60 * 36, 0, 0), "{faults}");
    }
    let k = Kautz::new(3, 3).unwrap();
    let mut f = Faults::new(&k);
    f.fail_link(5, 1).unwrap();
    let growth = (0..36)
        .flat_map(|s| f.distances_from(s).into_iter().enumerate().map(move |(d, h)| (s, d as u32, h)))
        .map(|(s, d, h)| h - k.distance(s, d))
        .max()
        .unwrap();
    let one = run_faults("links = [[5, 1]]", 3);
    assert_eq!(one.faults.as_ref().unwrap().routes.max_extra_hops, growth);
    assert_eq!(f.diameter(), Some(4), "the diameter grows by one");
}

/// A failed node neither sends nor receives; everyone else is served.
#[test]
fn a_failed_node_is_routed_around() {
    let r = run_faults("nodes = [7]", 3);
    let f = r.faults.as_ref().unwrap();
    assert!(f.routes.acyclic && f.routable_fraction == 1.0);
    assert_eq!(r.counters.packets_delivered, r.counters.packets_created);
    // Packets for the failed node are not injected, and are counted.
    assert_eq!(r.counters.packets_created + f.packets_to_failed_nodes, 60 * 35);
}
