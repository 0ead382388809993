//! Prefetching is a hint to the cache: a network run with it on reports exactly what the
//! same network reports with it off. (Large networks turn it on by themselves; these
//! small ones force it, so that every prefetch path runs under check mode: the routers'
//! and, following the routers' switch, the endpoints'.)

use flitsim_core::config::Config;
use flitsim_core::router::iq::IqRouters;
use flitsim_core::router::Routers;
use flitsim_core::sim::Simulation;

fn iq(r: &mut Routers) -> &mut IqRouters {
    match r {
        Routers::Iq(x) => x,
        _ => panic!("these networks use input-queued routers"),
    }
}

fn report(toml: &str, prefetch: bool) -> serde_json::Value {
    let spec = Config::from_toml(toml, &[]).unwrap().validate().unwrap();
    let mut sim = Simulation::new(spec).unwrap();
    iq(&mut sim.routers).set_prefetching(prefetch);
    assert_eq!(iq(&mut sim.routers).prefetching(), prefetch);
    let mut v = serde_json::to_value(sim.run(&mut |_| {}).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("version");
    v
}

#[test]
fn prefetching_changes_no_result() {
    let cases = [
        // Calendar mode, torus datelines, iSLIP, several-flit packets.
        r#"
[topology]
type = "torus"
dims = [4, 4, 3]
concentration = 2
[router]
allocator = "islip"
[traffic]
load = 0.4
packet_size = 3
[sim]
warmup = 100
measure = 500
check = true
"#,
        // Polling mode (a channel too long for the calendar), virtual cut-through.
        r#"
[topology]
type = "mesh"
dims = [5, 4]
[router]
flow_control = "virtual_cut_through"
[channel]
latency = 70
[traffic]
load = 0.3
packet_size = 2
[sim]
warmup = 100
measure = 400
check = true
"#,
    ];
    for toml in cases {
        assert_eq!(report(toml, true), report(toml, false), "prefetching changed a result:\n{toml}");
    }
}

#[test]
fn large_networks_prefetch_small_ones_do_not() {
    let build = |dims: &str| {
        let toml = format!("[topology]\ntype = \"torus\"\ndims = {dims}\n[traffic]\nload = 0.1\n");
        Simulation::new(Config::from_toml(&toml, &[]).unwrap().validate().unwrap()).unwrap()
    };
    assert!(!iq(&mut build("[8, 8]").routers).prefetching());
    assert!(iq(&mut build("[24, 24, 24]").routers).prefetching());
}
