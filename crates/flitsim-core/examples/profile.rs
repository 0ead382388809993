//! Profiling entry point: the BookSim2 comparison case of `flitsim bench` (8x8 mesh,
//! iSLIP, uniform 0.3), with `key=value` overrides, printing cycles/s and flit-hops/s.
//! Run under `perf record` or `valgrind --tool=callgrind` (release keeps debug info);
//! `THREADS=N` in the environment steps it on N threads (the partitioned engine);
//! `WIDE=1` steps the routers on 128-bit VC sets (the step of routers with more than 64
//! input VCs), to measure what the wide sets cost on the same network.

use flitsim_core::config::Config;
use flitsim_core::sim::Simulation;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = r#"
[topology]
type = "mesh"
dims = [8, 8]
[router]
type = "input_queued"
allocator = "islip"
[traffic]
load = 0.3
[sim]
warmup = 30000
measure = 30000
"#;
    let c = Config::from_toml(text, &args).unwrap();
    let spec = c.validate().unwrap();
    let threads: usize = std::env::var("THREADS").ok().and_then(|t| t.parse().ok()).unwrap_or(1);
    let t = std::time::Instant::now();
    let mut sim = Simulation::new(spec).unwrap();
    if std::env::var("WIDE").is_ok_and(|w| w == "1") {
        let flitsim_core::router::Routers::Iq(r) = &mut sim.routers else { panic!("input-queued routers") };
        r.use_wide_sets();
    }
    sim.set_threads(threads).unwrap();
    let rep = sim.run(&mut |_| {}).unwrap();
    let s = t.elapsed().as_secs_f64();
    println!(
        "cycles {} in {:.3}s = {:.0} cycles/s, {:.2} M flit-hops/s, lat {:.2} net {:.2} acc {:.4} sat {:?}",
        rep.cycles,
        s,
        rep.cycles as f64 / s,
        rep.counters.flit_traversals as f64 / s / 1e6,
        rep.stats.packet_latency.mean,
        rep.stats.network_latency.mean,
        rep.stats.accepted.mean,
        rep.stats.saturation_reasons
    );
}
