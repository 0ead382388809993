//! Activity tracking (`router/iq/arrivals.rs`, `endpoint/wake.rs`) only skips routers
//! and endpoints that have nothing to do: a network stepped with it reports exactly what
//! the same network stepped without it reports, on one thread and on several. Large
//! networks track by themselves; these small ones force it, with the workloads whose
//! endpoints sleep (traces that wait and compute, a zero-load phase, sources that wait
//! for data or have sent their budget) and those whose endpoints are woken by what the
//! routers send them (credits, STOP/GO symbols, probe replies).

mod common;

use common::first_difference;
use flitsim_core::config::Config;
use flitsim_core::router::Routers;
use flitsim_core::sim::Simulation;

/// `toml`'s report with activity tracking on or off, on `threads` threads, without the
/// version field.
fn report(toml: &str, track: bool, threads: usize) -> serde_json::Value {
    let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
    let mut sim = Simulation::new(spec).unwrap();
    let Routers::Iq(iq) = &mut sim.routers else { panic!("these networks use input-queued routers") };
    assert_eq!(iq.set_activity_tracking(track), track, "tracking could not be switched");
    assert_eq!(iq.tracks_endpoints(), track);
    assert_eq!(sim.set_threads(threads).unwrap(), threads);
    let mut v = serde_json::to_value(sim.run(&mut |_| {}).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("version");
    v
}

fn same_with_and_without(name: &str, toml: &str, threads: &[usize]) {
    let plain = report(toml, false, 1);
    assert!(plain["counters"]["packets_delivered"].as_u64().unwrap() > 0, "{name}: nothing delivered");
    for &t in threads {
        if let Some(d) = first_difference(&plain, &report(toml, true, t), "") {
            panic!("{name}: tracked on {t} thread(s) differs at {d}");
        }
    }
}

/// A ring of 16 nodes on a 4x4 torus: each node sends to the next after the message
/// from the one before it arrived, and computes 3,000 cycles first, so for most of the
/// run every endpoint sleeps and only a message's path is busy.
#[test]
fn trace_with_waits_and_long_computation() {
    let msgs: Vec<String> = (0..16u32)
        .flat_map(|round| {
            (0..16u32).map(move |s| {
                let wait =
                    if round == 0 { String::new() } else { format!(", after = [{}], delay = 3000", (round - 1) * 16 + (s + 15) % 16) };
                // (A message's id is its place in the list: round * 16 + s.)
                format!("{{ src = {s}, dst = {}, flits = {}{wait} }}", (s + 1) % 16, 1 + (s + round) % 20)
            })
        })
        .take(16 * 4)
        .collect();
    let toml = format!(
        "seed = 2\n[topology]\ntype = \"torus\"\ndims = [4, 4]\n[router]\nflow_control = \"virtual_cut_through\"\n\
         [sim]\nwarmup = 0\nmeasure = 1000000\nuntil_done = true\ncheck = true\n\
         [traffic.trace]\npacket_flits = 4\nmessages = [{}]\n",
        msgs.join(", ")
    );
    same_with_and_without("trace ring", &toml, &[1]);
    let mut parallel = toml.replace("check = true\n", "");
    parallel.push('\n');
    same_with_and_without("trace ring", &parallel, &[2, 3]);
}

/// Open-loop messages at far-apart cycles: wakes beyond the calendar's slots.
#[test]
fn trace_at_far_apart_cycles() {
    let msgs: Vec<String> = (0..40u64)
        .map(|k| format!("{{ src = {}, dst = {}, flits = {}, at = {} }}", k * 7 % 32, k * 13 % 32, 1 + k % 9, k * k * 37))
        .collect();
    let toml = format!(
        "[topology]\ntype = \"mesh\"\ndims = [8, 4]\n[sim]\nwarmup = 0\nmeasure = 1000000\nuntil_done = true\ncheck = true\n\
         [traffic.trace]\npacket_flits = 3\nmessages = [{}]\n",
        msgs.join(", ")
    );
    same_with_and_without("open-loop trace", &toml, &[1]);
}

/// A schedule with a zero-load phase between two patterns (every endpoint is stepped
/// when a phase begins), bursty sources, several-flit packets.
#[test]
fn phases_with_a_silent_one() {
    same_with_and_without(
        "phases",
        "seed = 4\n[topology]\ntype = \"torus\"\ndims = [4, 4, 2]\n[router]\ncredit_delay = 2\n\
         [traffic]\nphases = [{ duration = 400, load = 0.3 }, { duration = 700, load = 0.0 }, { duration = 500, load = 0.5, pattern = { type = \"hotspot\", nodes = [3], fraction = 0.3 } }]\n\
         packet_size = 3\ninjection = { type = \"on_off\", burst_length = 5 }\n[sim]\nwarmup = 200\nmeasure = 1400\ncheck = true\n",
        &[1],
    );
}

/// Sources that wait for their partners' data (recursive doubling) and sources that
/// have sent their budget, run until done.
#[test]
fn sources_that_wait_for_data_or_are_done() {
    same_with_and_without(
        "recursive doubling",
        "seed = 6\n[topology]\ntype = \"mesh\"\ndims = [4, 4]\n[traffic]\nload = 0.2\npacket_size = 2\n\
         pattern = { type = \"recursive_doubling\", packets_per_round = 3 }\n[sim]\nwarmup = 0\nmeasure = 3000\ncheck = true\n",
        &[1],
    );
    same_with_and_without(
        "budget",
        "seed = 7\n[topology]\ntype = \"torus\"\ndims = [6, 6]\n[traffic]\nload = 0.4\npackets_per_source = 25\npacket_size = 2\n\
         [sim]\nwarmup = 0\nmeasure = 100000\nuntil_done = true\n",
        &[1, 2],
    );
}

/// STOP/GO symbols and credits reach the endpoints' injection ports; probes and their
/// replies, messages reassembled, on a Clos with probing dispersion.
#[test]
fn endpoints_woken_by_symbols_and_probe_replies() {
    same_with_and_without(
        "stop/go",
        "seed = 8\n[topology]\ntype = \"mesh\"\ndims = [4, 4]\n[router]\nvcs = 1\nbuffer_depth = 12\nstop_go = { stop = 8, go = 2 }\n\
         [traffic]\nload = 0.5\npacket_size = 4\n[sim]\nwarmup = 100\nmeasure = 800\ncheck = true\n",
        &[1],
    );
    same_with_and_without(
        "clos + probing",
        "seed = 11\n[topology]\ntype = \"clos\"\nradix = 16\nstages = 3\nnodes = 64\n\
         [router]\nvcs = 1\nbuffer_depth = 16\nrouting_delay = 0\nvc_alloc_delay = 0\n[routing]\ntype = \"updown\"\nselection = \"probing\"\n\
         [channel]\nflit_bytes = 16\n[traffic]\npattern = { type = \"random_bisection\", index = 2 }\ninjection = { type = \"backlogged\" }\n\
         message = { bytes = 8192, mtu = 256, per_source = 4 }\n[sim]\nwarmup = 0\nmeasure = 1000000\nuntil_done = true\n",
        &[1, 2],
    );
}

/// Table routes around a failed link and a failed node, whose endpoint creates nothing.
#[test]
fn failed_links_and_nodes() {
    same_with_and_without(
        "faults",
        "seed = 9\n[topology]\ntype = \"torus\"\ndims = [5, 5]\n[router]\nvcs = 2\n[routing]\ntype = \"table\"\nvc_policy = \"v3\"\n\
         [traffic]\nload = 0.3\npacket_size = 3\n[sim]\nwarmup = 200\nmeasure = 1200\n\
         [faults]\nlinks = [[6, 1]]\nnodes = [12]\n",
        &[1, 2],
    );
}

#[test]
fn large_networks_track_small_ones_do_not() {
    let tracks = |dims: &str| {
        let toml = format!("[topology]\ntype = \"torus\"\ndims = {dims}\n[traffic]\nload = 0.1\n");
        let sim = Simulation::new(Config::from_toml(&toml, &[]).unwrap().validate().unwrap()).unwrap();
        matches!(&sim.routers, Routers::Iq(r) if r.tracks_endpoints())
    };
    assert!(!tracks("[8, 8]"));
    assert!(tracks("[24, 24, 24]"));
}
