//! Table-driven routing in whole simulations: with one region the tables are DOR, so
//! every result is bit-identical to the DOR run; with several regions every packet
//! arrives, conservation holds, and the hierarchical routes are the minimal ones when a
//! region is a single YZ plane.

use flitsim_core::config::Config;
use flitsim_core::report::Report;
use flitsim_core::sim::Simulation;

fn run(toml: &str) -> Report {
    let spec = Config::from_toml(toml, &[]).unwrap_or_else(|e| panic!("{e}")).validate().unwrap_or_else(|e| panic!("{e}"));
    Simulation::run_spec(spec).unwrap_or_else(|e| panic!("{e}"))
}

fn without_config(r: &Report) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    v.as_object_mut().unwrap().remove("config");
    v
}

#[test]
fn one_region_is_dor_bit_for_bit() {
    for router in ["type = \"input_queued\"\nvcs = 4", "type = \"buffered_crossbar\""] {
        let base = format!(
            "[topology]\ntype = \"cube\"\ndims = [5, 4, 3]\nwrap = [true, false, true]\n[router]\n{router}\n\
             [traffic]\nload = 0.35\npacket_size = 4\n[sim]\nwarmup = 300\nmeasure = 1500\ncheck = true\n"
        );
        let dor = run(&format!("{base}[routing]\ntype = \"dor\"\nclasses = 2\n"));
        let table = run(&format!("{base}[routing]\ntype = \"table\"\nclasses = 2\n"));
        assert_eq!(without_config(&dor), without_config(&table), "{router}");
    }
}

#[test]
fn several_regions_deliver_everything_minimally() {
    // 4x4x4 torus, 16-node regions (one YZ plane each): 4 regions, global tables in use.
    let base = "[topology]\ntype = \"torus\"\ndims = [4, 4, 4]\n[traffic]\nload = 0.4\npacket_size = 2\n\
                [sim]\nwarmup = 300\nmeasure = 2000\ncheck = true\n";
    let table = run(&format!("{base}[routing]\ntype = \"table\"\nregion_size = 16\n"));
    assert_eq!(table.stats.packets_delivered, table.stats.packets_measured);
    let dor = run(&format!("{base}[routing]\ntype = \"dor\"\n"));
    // The same minimal hop counts as DOR over the same traffic (same seed, same pairs).
    assert_eq!(table.stats.avg_hops, dor.stats.avg_hops);
    // Saturated, the tables still never deadlock (the watchdog would fail the run).
    let hot = run(&format!("{base}[routing]\ntype = \"table\"\nregion_size = 32\n").replace("load = 0.4", "load = 0.9"));
    assert!(hot.counters.packets_delivered > 0);
}
