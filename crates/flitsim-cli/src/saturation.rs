//! Saturation throughput by search over load, one criterion for every simulator: a load
//! is *stable* when every measured packet is delivered and the mean packet latency stays
//! within a threshold (a multiple of the zero-load latency); the saturation throughput
//! is the highest stable load, found by bisection of [0, 1] flits/node/cycle.
//! `flitsim saturation CONFIG` runs the search on a config; the BookSim2 cross-check
//! ([`crate::crosscheck`]) runs it on both simulators with BookSim2's threshold.

use std::process::ExitCode;

use flitsim_core::config::Config;
use flitsim_core::sim::Simulation;

use crate::common::CliResult;
use crate::ConfigArgs;

/// One run's outcome: mean packet latency, and whether every measured packet arrived.
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    /// Mean packet latency (from creation), cycles.
    pub latency: f64,
    /// Every measured packet delivered within the drain limit.
    pub drained: bool,
}

/// A simulator the search can drive: one run of its config at `load`.
pub trait AtLoad: Sync {
    fn run(&self, load: f64) -> CliResult<Outcome>;
}

/// flitsim on a config, in this process.
pub struct FlitsimAt(pub Config);

impl AtLoad for FlitsimAt {
    fn run(&self, load: f64) -> CliResult<Outcome> {
        let mut c = self.0.clone();
        c.traffic.load = load;
        let spec = c.validate().map_err(|e| e.to_string())?;
        let r = Simulation::run_spec(spec).map_err(|e| e.to_string())?;
        let s = &r.stats;
        Ok(Outcome { latency: s.packet_latency.mean, drained: s.packets_delivered == s.packets_measured && s.packets_measured > 0 })
    }
}

/// Is `load` stable under `threshold` (mean packet latency, cycles)?
pub fn stable(sim: &dyn AtLoad, load: f64, threshold: f64) -> CliResult<bool> {
    let o = sim.run(load)?;
    Ok(o.drained && o.latency <= threshold)
}

/// The highest stable load, by bisection of [0, 1] until the bracket is at most
/// `resolution` wide (loads rounded to 4 decimals).
pub fn search(sim: &dyn AtLoad, threshold: f64, resolution: f64) -> CliResult<f64> {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    if stable(sim, hi, threshold)? {
        return Ok(hi);
    }
    while hi - lo > resolution {
        let mid = round4((lo + hi) / 2.0);
        if mid <= lo || mid >= hi {
            break;
        }
        if stable(sim, mid, threshold)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// `x` to 4 decimals.
pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// `flitsim saturation CONFIG`: zero-load latency and saturation throughput.
pub fn cmd_saturation(args: &ConfigArgs, zero_load: f64, factor: f64, resolution: f64, json: bool) -> CliResult<ExitCode> {
    if !(zero_load > 0.0 && zero_load < 1.0) || factor <= 1.0 || !(resolution > 0.0 && resolution < 0.5) {
        return Err(format!("--zero-load {zero_load}, --factor {factor}, --resolution {resolution}: use 0 < zero-load < 1, factor > 1 and 0 < resolution < 0.5"));
    }
    let config = crate::common::load_config(args)?;
    config.validate().map_err(|e| e.to_string())?;
    let sim = FlitsimAt(config);
    let l0 = sim.run(zero_load)?;
    if !l0.drained {
        return Err(format!(
            "the zero-load run (load {zero_load}) did not deliver every measured packet: lower --zero-load, or lengthen sim.drain_limit"
        ));
    }
    let threshold = factor * l0.latency;
    let sat = search(&sim, threshold, resolution)?;
    if json {
        println!("{{\"zero_load\":{zero_load},\"zero_load_latency\":{},\"threshold\":{threshold},\"saturation\":{sat},\"resolution\":{resolution}}}", l0.latency);
    } else {
        println!("zero-load latency {:.2} cycles (load {zero_load}); stable while latency <= {threshold:.2} ({factor} x) and every measured packet arrives", l0.latency);
        println!("saturation throughput {sat:.4} flits/node/cycle (to within {resolution})");
    }
    Ok(ExitCode::SUCCESS)
}
