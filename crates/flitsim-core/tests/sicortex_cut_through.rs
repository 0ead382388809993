//! Cut-through over retry links and poisoned packets (SiCortex section 3.2): a switch
//! sends a packet on as soon as its head is in, before the trailer's CRC is checked; a
//! packet whose CRC then fails leaves a poisoned copy that is dropped further on, while
//! the link replays the good one. Checked here: the latency cut-through saves at zero
//! load (derived by hand below), and under errors that every packet is still delivered
//! exactly once and in order, with every poisoned copy accounted for and flits conserved
//! every cycle (check mode).

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::sim::Simulation;

/// K(3, 3) with crosspoint switches and retry links; `extra` appended.
fn run(router: &str, traffic: &str, extra: &str) -> Report {
    let toml = format!(
        "seed = 3\n[topology]\ntype = \"kautz\"\ndegree = 3\ndiameter = 3\n[routing]\ntype = \"source\"\n\
         [router]\ntype = \"crosspoint\"\nvcs = 2\n{router}\n[channel]\nlatency = 2\n[channel.retry]\nwindow = 15\n\
         [traffic]\n{traffic}\n[sim]\ncheck = true\nwarmup = 0\n{extra}"
    );
    let cfg = Config::from_toml(&toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    Simulation::run_spec(cfg.validate().unwrap_or_else(|e| panic!("{e}\n{toml}"))).unwrap_or_else(|e| panic!("{e}\n{toml}"))
}

/// At zero load a packet of `n` flits over `h >= 1` links: with store and forward each of
/// the `h - 1` switches between source and destination sends it on `xb_delay` (1) after
/// its tail is in; with cut-through `xb_delay` after its head is in, `n - 1` cycles
/// earlier. The source (its DMA queue hands the switch whole packets) sends it whole
/// either way. The destination (its node takes only checked packets) delivers it when
/// the tail is checked, which with store and forward is when the packet enters its
/// crosspoint buffer, so `xb_delay` later. So the mean network latency differs by exactly
/// (mean hops - 1)(n - 1) + 1 when no two packets meet, and no packet goes to its own
/// node (the complement pattern on 36 nodes: s -> 35 - s). At load 0.0003 with 12-flit
/// packets they almost never meet (the bound allows 0.5%; at this seed they never do and
/// the two agree to rounding).
#[test]
fn cut_through_saves_the_serialization_at_every_switch_on_the_way() {
    let traffic = "load = 0.0003\npacket_size = 12\npattern = { type = \"complement\" }";
    let sim = "measure = 150000";
    let saf = run("cut_through = false", traffic, sim);
    let ct = run("", traffic, sim);
    assert_eq!(saf.stats.avg_hops, ct.stats.avg_hops, "the same packets take the same routes");
    assert_eq!(saf.counters.packets_delivered, ct.counters.packets_delivered);
    let expect = (ct.stats.avg_hops - 1.0) * 11.0 + 1.0;
    let saved = saf.stats.network_latency.mean - ct.stats.network_latency.mean;
    assert!((saved - expect).abs() < 0.005 * expect, "saved {saved:.3} cycles, expected {expect:.3}");
    let x = ct.crosspoint.as_ref().unwrap();
    assert_eq!((x.poisoned_copies, x.copies_dropped), (0, 0), "no errors, no poisoned copies");
}

/// Heavy bit errors near saturation, cut-through on: many packets fail their CRC after
/// being sent on. Every packet is still delivered exactly once and in order, each
/// poisoned copy is reported once by its link and dropped exactly once, and the check
/// mode's flit conservation held every cycle (the run returns an error otherwise).
#[test]
fn poisoned_copies_are_dropped_and_every_packet_arrives_once_in_order() {
    for errors in ["ber = 3e-4", "burst = { mean_gap = 2000.0, mean_len = 30.0, ber = 0.02 }"] {
        let r = run(
            "",
            "load = 0.5\npackets_per_source = 100\npacket_size = { sizes = [2, 10, 19], weights = [1, 1, 1] }",
            &format!("measure = 4000\ndrain_limit = 400000\n[channel.retry.errors]\n{errors}\n"),
        );
        let c = &r.counters;
        assert_eq!(c.packets_created, 100 * 36, "{errors}");
        assert_eq!((c.packets_delivered, c.packets_lost, c.packets_reordered), (c.packets_created, 0, 0), "{errors}: {c:?}");
        let t = &r.retry.as_ref().unwrap().totals;
        let x = r.crosspoint.as_ref().unwrap();
        assert!(x.poisoned_copies > 20, "{errors}: CRC errors after the head went on must have happened: {x:?} {t:?}");
        assert_eq!(x.poisoned_copies, t.poisoned, "{errors}: each poisoned report marks one copy");
        assert_eq!(x.copies_dropped, x.poisoned_copies, "{errors}: each poisoned copy dropped once");
        assert!(t.crc_errors > t.poisoned, "{errors}: some failures are caught before the head goes on");
    }
}

/// Cut-through with errors repeats exactly.
#[test]
fn cut_through_with_errors_repeats_exactly() {
    let go = || run("", "load = 0.4\npackets_per_source = 40\npacket_size = 10", "measure = 3000\n[channel.retry.errors]\nber = 3e-4\n");
    let (a, b) = (go(), go());
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
}
